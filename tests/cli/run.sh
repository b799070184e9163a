#!/bin/sh
# CLI tests: run the fabricx binary the way a user does.
#
#   FABRICX=/path/to/fabricx sh tests/cli/run.sh
#
# 1. Every shipped spec: `metrics --json` exits 0 and keeps the JSON contract.
# 2. Every tests/errors/NAME.yaml: `fabricx CMD NAME.yaml --out TMP ARGS`
#    exits 2 and its whole stderr is exactly NAME.err.  Optional files:
#    NAME.cmd holds CMD (default: metrics), NAME.args holds ARGS (split into
#    words, no globbing; last, so an option can lack its value), NAME.status
#    holds another expected exit status.
# 3. Behaviours: help, unknown commands and options, --set, --cut, out/ files.
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

# 1. the JSON contract on every shipped spec
for spec in specs/*.yaml; do
	expect 0 "metrics $spec" -- "$FABRICX" metrics "$spec" --json --out "$tmp/o"
	if jq -e '(.name|type=="string") and (.kind|type=="string") and (.devices|type=="number")
	    and (.switches|type=="number") and (.cpus|type=="number") and (.links|type=="number")
	    and (.diameter_hops|type=="number") and (.avg_hops|type=="number")
	    and (.farthest_latency_ns|type=="number") and (.bisection.links|type=="number")
	    and (.bisection.bandwidth_GBps|type=="number") and (.bisection.per_device_GBps|type=="number")
	    and (.bisection.method=="exact" or .bisection.method=="bound")' "$tmp/out" >/dev/null; then
		ok
	else
		bad "metrics $spec --json breaks the contract"
	fi
done

# 2. bad input: the exit status and the whole of stderr, exactly
for y in tests/errors/*.yaml; do
	[ -f "$y" ] || continue
	name=${y%.yaml}
	if [ ! -f "$name.err" ]; then bad "$y: no $name.err"; continue; fi
	cmd=metrics
	[ -f "$name.cmd" ] && cmd=$(cat "$name.cmd")
	args=""
	[ -f "$name.args" ] && args=$(cat "$name.args")
	status=2
	[ -f "$name.status" ] && status=$(cat "$name.status")
	set -f	# word-split NAME.args, but leave brackets such as [5] alone
	# shellcheck disable=SC2086
	"$FABRICX" "$cmd" "$y" --out "$tmp/o" $args >"$tmp/out" 2>"$tmp/err"
	got=$?
	set +f
	if [ "$got" -ne "$status" ]; then
		bad "$y: exit $got, expected $status"; sed 's/^/    /' "$tmp/err" | head -5
	elif ! diff -u "$name.err" "$tmp/err" >"$tmp/diff"; then
		bad "$y: stderr differs from $name.err (- expected, + got)"
		sed -e '1,2d' -e 's/^/    /' "$tmp/diff" | head -10
	else
		ok
	fi
done

# 3. behaviours
expect 0 "help" -- "$FABRICX" --help
expect 0 "metrics --help" -- "$FABRICX" metrics --help
expect 0 "help metrics" -- "$FABRICX" help metrics
expect 0 "kinds" -- "$FABRICX" kinds
expect 2 "no command" -- "$FABRICX"
expect 2 "unknown command" -- "$FABRICX" frobnicate specs/cm384.yaml
expect 2 "unknown option" -- "$FABRICX" metrics specs/cm384.yaml --frob
expect 2 "missing spec" -- "$FABRICX" metrics
expect 2 "missing file" -- "$FABRICX" metrics specs/nope.yaml
grep -q "cannot open spec" "$tmp/err" && ok || bad "missing file message"
expect 2 "two specs" -- "$FABRICX" metrics specs/cm384.yaml specs/nvl72.yaml

# --set overrides change the fabric
expect 0 "--set dims" -- "$FABRICX" metrics specs/tpu-v4-cube.yaml --json --out "$tmp/o" --set 'fabric.dims=[8,8,8]'
[ "$(jq .devices "$tmp/out")" = 512 ] && [ "$(jq .diameter_hops "$tmp/out")" = 12 ] && ok || bad "--set fabric.dims=[8,8,8]"
expect 0 "--set bandwidth" -- "$FABRICX" metrics specs/tpu-v4-cube.yaml --json --out "$tmp/o" --set 'fabric.link.bandwidth=100 GB/s'
[ "$(jq .bisection.bandwidth_GBps "$tmp/out")" = 3200 ] && ok || bad "--set fabric.link.bandwidth"
expect 2 "--set bad value" -- "$FABRICX" metrics specs/tpu-v4-cube.yaml --set 'fabric.dims=[4,0,4]'
grep -q "^--set fabric.dims:1:4: error: 'fabric.dims\[1\]' must be at least 1, got 0" "$tmp/err" && ok || bad "--set error position: $(head -1 "$tmp/err")"
expect 2 "--set missing =" -- "$FABRICX" metrics specs/tpu-v4-cube.yaml --set fabric.dims
expect 2 "--set into a scalar" -- "$FABRICX" metrics specs/tpu-v4-cube.yaml --set fabric.kind.x=1

# --cut between user-given sets
expect 0 "--cut" -- "$FABRICX" metrics specs/cm384.yaml --json --out "$tmp/o" --cut node=0-23:rest
[ "$(jq .cut.bandwidth_GBps "$tmp/out")" = 75264 ] && ok || bad "--cut node=0-23:rest on cm384"
expect 0 "--cut coords" -- "$FABRICX" metrics specs/tpu-v4-cube.yaml --json --out "$tmp/o" --cut x=0-1:x=2-3
[ "$(jq .cut.links "$tmp/out")" = 32 ] && [ "$(jq .cut.direct_links "$tmp/out")" = 32 ] && ok || bad "--cut x=0-1:x=2-3"
expect 2 "--cut overlap" -- "$FABRICX" metrics specs/cm384.yaml --cut node=0-2:node=2-3
expect 2 "--cut bad key" -- "$FABRICX" metrics specs/cm384.yaml --cut colour=1:rest
expect 2 "--cut no dims" -- "$FABRICX" metrics specs/cm384.yaml --cut x=0:rest

# too large for memory: refused up front with its estimate
expect 2 "huge fabric" -- "$FABRICX" metrics specs/torus-8x8x8.yaml --set 'fabric.dims=[40000,40000]'
grep -q "fabric too large" "$tmp/err" && ok || bad "huge fabric message"

# tables on stdout, CSV copies under out/<spec name>/
expect 0 "explore" -- "$FABRICX" explore specs/cm384.yaml --out "$tmp/o"
[ -s "$tmp/o/cm384/metrics.csv" ] && [ -s "$tmp/o/cm384/hops.csv" ] && ok || bad "explore CSV files"
grep -q "bisection" "$tmp/out" && ok || bad "explore prints the metrics"

# collective: the JSON contract on every shipped spec (the wafer shrunk)
for spec in specs/*.yaml; do
	small=""
	case $spec in *wse2*) small="--set fabric.grid=[16,16]";; esac
	# shellcheck disable=SC2086
	expect 0 "collective $spec" -- "$FABRICX" collective "$spec" $small --pattern allreduce --size 10KiB --json --out "$tmp/o"
	if jq -e '(.pattern=="allreduce") and (.algo|type=="string") and (.ranks|type=="number")
	    and (.size_bytes==10240) and (.rounds|type=="number") and (.time_us>0)
	    and (.max_link_bytes|type=="number") and (.total_link_bytes|type=="number")
	    and (.algbw_GBps|type=="number") and (.busbw_GBps|type=="number")
	    and (.rounds as $r | [.per_round[].repeat]|add==$r)
	    and (.per_round[0]|has("repeat") and has("max_link_bytes") and has("total_link_bytes") and has("max_hops") and has("time_us"))' \
	    "$tmp/out" >/dev/null; then ok; else bad "collective $spec --json breaks the contract"; fi
	expect 0 "power $spec" -- "$FABRICX" power "$spec" --json --out "$tmp/o"
	if jq -e 'has("budget_kW") and (.max_devices|type=="number") and (.nodes|type=="number")
	    and (.racks|type=="number") and (.power_kW|type=="number") and (.limited_by|type=="string")
	    and (.racks_detail|type=="array")' "$tmp/out" >/dev/null; then ok; else bad "power $spec --json"; fi
done

# collective: book numbers through the CLI, files, and errors
expect 0 "ring vs tree" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --algo ring --size 10KiB --alpha 0.822us --versus tree --json --out "$tmp/o"
[ "$(jq '.time_us*100|round' "$tmp/out")" = 1155 ] && [ "$(jq '.crossover_bytes/1024|round' "$tmp/out")" = 680 ] && ok || bad "book §6.4.2 through the CLI"
expect 0 "--links" -- "$FABRICX" collective specs/tpu-v4-cube.yaml --pattern all-to-all --size 32MiB --links "$tmp/links.csv" --out "$tmp/o"
[ "$(head -1 "$tmp/links.csv")" = "src,dst,bytes,busy_us,utilisation" ] && [ "$(wc -l < "$tmp/links.csv")" = 385 ] && ok || bad "--links CSV"
expect 0 "ktree PLMR" -- "$FABRICX" collective specs/wse2.yaml --set 'fabric.grid=[660,4]' --pattern allreduce --algo ktree --chunks 22 --size 4KiB --json --out "$tmp/o"
[ "$(jq .plmr.critical_hops "$tmp/out")" = 690 ] && [ "$(jq .plmr.routing_stages "$tmp/out")" = 27 ] && ok || bad "K-tree 660/22 PLMR"
expect 0 "--list" -- "$FABRICX" collective --list
expect 2 "unknown pattern" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allgather --size 1MiB
expect 2 "missing size" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce
expect 2 "size without unit" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --size 1024
expect 2 "swing on 6 ranks" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --algo swing --ranks 6 --size 1MiB
grep -q "needs a power-of-two number of ranks" "$tmp/err" && ok || bad "power-of-two message"
expect 2 "too many ranks" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --ranks 9 --size 1MiB
expect 2 "unknown group" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --group tp0 --size 1MiB
expect 2 "torus algo off a torus" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --algo torus --size 1MiB
expect 2 "gemm on a non-wafer" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern gemm-shift --size 1MiB

# power and place
expect 0 "power 120 kW" -- "$FABRICX" power specs/dgx-h100-256.yaml --budget 120kW --json --out "$tmp/o"
[ "$(jq .max_devices "$tmp/out")" = 88 ] && [ "$(jq -r .limited_by "$tmp/out")" = power ] && ok || bad "book §6.5.2 through the CLI"
expect 3 "power too small" -- "$FABRICX" power specs/dgx-h100-256.yaml --budget 5kW
grep -q "infeasible: power" "$tmp/err" && ok || bad "power infeasible message"
expect 0 "place hgx" -- "$FABRICX" place specs/hgx-h100.yaml --json --lp "$tmp/place.lp" --out "$tmp/o"
[ "$(jq -r .status "$tmp/out")" = optimal ] && [ "$(jq '.deployments[1].session_ms*10|round' "$tmp/out")" = 1191 ] && ok || bad "place hgx: status and §6.7 119.1 ms"
grep -q "^Minimize" "$tmp/place.lp" && ok || bad "--lp writes CPLEX LP"
expect 0 "place cm384" -- "$FABRICX" place specs/cm384.yaml --json --out "$tmp/o"
[ "$(jq '.instances|length' "$tmp/out")" = 48 ] && [ "$(jq -r '.instances[0].level' "$tmp/out")" = node ] && ok || bad "place cm384"
# infeasibility named by arithmetic (issue: devices and system power in
# well under a second, no solver): whole messages
expect 3 "place over capacity" -- "$FABRICX" place specs/cm384.yaml --instances 49
first "fabricx: infeasible: no placement of 49 instances of 8 devices fits: devices: 49 instances x 8 devices = 392, the fabric has 384" "place capacity message"
expect 3 "place over system power" -- "$FABRICX" place specs/cm384.yaml --budget 600kW
first "fabricx: infeasible: no placement of 48 instances of 8 devices fits: system power: 48 instances need 48 nodes x 16.2 kW = 777.6 kW; the 600 kW budget powers 37 nodes = 37 instances" "place system power message"
# memory is a constraint: Qwen3-235B-A22B (book §6.1.2: 470.2 GB) at TP2
# puts 219 GiB of weights on each 80 GB H100; TP8 is the smallest that fits
q235='workload.model={layers: 94, hidden: 4096, heads: 64, kv_heads: 4, head_dim: 128, experts: 128, top_k: 8, expert_ffn: 1536, vocab: 151936, dtype: bf16}'
expect 3 "place Qwen3-235B TP2 on HGX" -- "$FABRICX" place specs/hgx-h100.yaml --set "$q235"
first "fabricx: infeasible: no placement of 4 instances of 2 devices fits: memory: TP2 x EP1 x PP1 holds 219 GiB of weights + 11.75 GiB of KV cache + 2 GiB reserve = 232.7 GiB per device, over the 74.51 GiB of HBM" "place memory message"
expect 0 "place Qwen3-235B TP8 on HGX" -- "$FABRICX" place specs/hgx-h100.yaml --set "$q235" --set workload.scheme.tp=8 --set workload.instances=1 --set workload.sessions.context=8184 --json
[ "$(jq '.memory_per_device.weights_bytes' "$tmp/out")" = 58959617024 ] && ok || bad "TP8 weights per device (footnote 1: 58,959,617,024 B)"
# placement at scale: proven optimal by the packing and its bound, contiguous
for s in torus-16x16x16 mesh-32x32 fat-tree-1024 leaf-spine-512; do
	expect 0 "place $s" -- "$FABRICX" place tests/specs/$s.yaml --json
	[ "$(jq -r .status "$tmp/out")" = optimal ] && [ "$(jq '[.instances[]|.devices|(.[-1]-.[0]+1)==length]|all' "$tmp/out")" = true ] && ok || bad "place $s: optimal and contiguous"
done
expect 0 "place 1024 TP4 on 16^3" -- "$FABRICX" place tests/specs/torus-16x16x16.yaml --json
[ "$(jq '.instances|length' "$tmp/out")" = 1024 ] && [ "$(jq '.gap < 1e-9' "$tmp/out")" = true ] && ok || bad "16^3: 1024 instances, gap 0"
expect 0 "place TP16 across nodes" -- "$FABRICX" place tests/specs/fat-tree-1024.yaml --set workload.scheme.tp=16 --set workload.instances=60 --set 'workload.keep_within={tp: any}' --json
[ "$(jq '[.instances[]|.devices|(.[-1]-.[0]+1)==length and .[0]%16==0]|all' "$tmp/out")" = true ] && [ "$(jq '[.instances[]|.nodes]|unique' -c "$tmp/out")" = "[2]" ] && ok || bad "TP16 on two neighbouring nodes"
# honest statuses: the MILP cut off before any placement is "not decided"
# (exit 4), never "infeasible"; a node limit makes the cut-off deterministic
expect 4 "place not decided" -- "$FABRICX" place tests/specs/ports-budget.yaml --set 'workload.comm_budget=30 us' --node-limit 1
first "fabricx: not decided: no placement of 1 instance of 8 devices found within 1 branch-and-bound node or 10 s, and none ruled out (raise --node-limit or --time-limit)" "not decided message"
expect 0 "place decided by the MILP" -- "$FABRICX" place tests/specs/ports-budget.yaml --set 'workload.comm_budget=30 us' --json
[ "$(jq -r .method "$tmp/out")" = "MILP, proven optimal" ] && ok || bad "ports budget: the MILP decides"
expect 3 "place ports infeasible" -- "$FABRICX" place tests/specs/ports-budget.yaml --set 'workload.comm_budget=10 us'
has "binding (relaxing it alone makes room): switch ports" "ports explained by relaxation"
expect 2 "place without workload" -- "$FABRICX" place specs/nvl72.yaml
expect 0 "compare" -- "$FABRICX" compare specs/hgx-h100.yaml specs/tpu-v4-cube.yaml --power-cap 120kW --json --out "$tmp/o" --csv "$tmp/cmp.csv"
[ "$(jq '.builds|length' "$tmp/out")" = 2 ] && [ -s "$tmp/cmp.csv" ] && [ -s "$tmp/o/compare/compare.csv" ] && ok || bad "compare"
expect 2 "compare a bad spec" -- "$FABRICX" compare specs/hgx-h100.yaml specs/nope.yaml
expect 2 "compare nothing" -- "$FABRICX" compare

# render: every shipped spec draws (default path out/<name>/physical.svg)
for spec in specs/*.yaml; do
	name=$(basename "$spec" .yaml)
	expect 0 "render $spec" -- "$FABRICX" render "$spec" --json --out "$tmp/o"
	[ -s "$tmp/o/$name/physical.svg" ] && grep -q "<svg" "$tmp/o/$name/physical.svg" && ok || bad "render $spec: no SVG"
	if jq -e '(.view=="physical") and (.file|type=="string") and (.vertices_drawn>0)
	    and (.edges_drawn|type=="number") and (.layout_engine|type=="string") and (.seconds>=0)' \
	    "$tmp/out" >/dev/null; then ok; else bad "render $spec --json"; fi
done
expect 0 "render loads" -- "$FABRICX" render specs/cm384.yaml --view loads --out "$tmp/o"
[ -s "$tmp/o/cm384/loads.svg" ] && grep -q "loads" "$tmp/out" && ok || bad "render --view loads"
expect 0 "render loads of a ring" -- "$FABRICX" render specs/tpu-v4-cube.yaml --view loads --pattern allreduce --algo ring --size 1MiB --ranks 8 -o "$tmp/ring.svg" --out "$tmp/o"
grep -q "<svg" "$tmp/ring.svg" && ok || bad "render --view loads --pattern"
expect 0 "render placement" -- "$FABRICX" render specs/hgx-h100.yaml --view placement --format png -o "$tmp/p.png" --out "$tmp/o"
[ "$(head -c 4 "$tmp/p.png" | tail -c 3)" = PNG ] && ok || bad "render --format png"
expect 2 "render placement without workload" -- "$FABRICX" render specs/nvl72.yaml --view placement --out "$tmp/o"
grep -q "no workload" "$tmp/err" && ok || bad "placement without workload message"
# --format dot: DOT text, unlaid, that names its engine
expect 0 "render dot" -- "$FABRICX" render specs/hgx-h100.yaml --format dot -o "$tmp/h.dot" --out "$tmp/o"
grep -q "^graph fabric {" "$tmp/h.dot" && grep -q "layout=dot" "$tmp/h.dot" && grep -q "cluster_node0" "$tmp/h.dot" && ok || { bad "render --format dot"; head -3 "$tmp/h.dot"; cat "$tmp/err"; ls -la "$tmp/h.dot"; }
[ "$(grep -c 'label="5 x 25 GB/s"' "$tmp/h.dot")" = 16 ] && ok || bad "render dot: 16 bundles of 5 x 25 GB/s"
expect 0 "render --output" -- "$FABRICX" render specs/dgx1.yaml --output "$tmp/d.pdf" --format pdf --out "$tmp/o"
[ "$(head -c 4 "$tmp/d.pdf")" = "%PDF" ] && ok || bad "render --output pdf"
expect 0 "render --detail full" -- "$FABRICX" render specs/nvl72.yaml --detail full --format dot -o "$tmp/full.dot" --json --out "$tmp/o"
[ "$(jq .vertices_drawn "$tmp/out")" = 126 ] && [ "$(jq .aggregated "$tmp/out")" = false ] && ok || bad "render --detail full counts"
expect 2 "render --detail full too large" -- "$FABRICX" render specs/wse2.yaml --detail full
grep -q "full detail would draw" "$tmp/err" && ok || bad "render --detail full refusal message"
expect 2 "render bad view" -- "$FABRICX" render specs/hgx-h100.yaml --view logical
expect 2 "render bad format" -- "$FABRICX" render specs/hgx-h100.yaml --format gif
expect 2 "render -o without file" -- "$FABRICX" render specs/hgx-h100.yaml -o
expect 2 "-o on a command without --output" -- "$FABRICX" metrics specs/hgx-h100.yaml -o x
expect 2 "render --pattern without loads" -- "$FABRICX" render specs/hgx-h100.yaml --pattern allreduce

summary "cli tests"
