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
	    and (.diameter_hops|type=="number") and (.mean_hops|type=="number")
	    and (.farthest_latency_s|type=="number") and (.bisection_links|type=="number")
	    and (.bisection_bandwidth_Bps|type=="number") and (.bisection_per_device_Bps|type=="number")
	    and (.bisection_method=="exact" or .bisection_method=="bound")' "$tmp/out" >/dev/null; then
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
[ "$(jq .bisection_bandwidth_Bps "$tmp/out")" = 3200000000000 ] && ok || bad "--set fabric.link.bandwidth"
expect 2 "--set bad value" -- "$FABRICX" metrics specs/tpu-v4-cube.yaml --set 'fabric.dims=[4,0,4]'
grep -q "^--set fabric.dims:1:4: error: 'fabric.dims\[1\]' must be at least 1, got 0" "$tmp/err" && ok || bad "--set error position: $(head -1 "$tmp/err")"
expect 2 "--set missing =" -- "$FABRICX" metrics specs/tpu-v4-cube.yaml --set fabric.dims
expect 2 "--set into a scalar" -- "$FABRICX" metrics specs/tpu-v4-cube.yaml --set fabric.kind.x=1

# --cut between user-given sets
expect 0 "--cut" -- "$FABRICX" metrics specs/cm384.yaml --json --out "$tmp/o" --cut node=0-23:rest
[ "$(jq .cut.max_flow_Bps "$tmp/out")" = 75264000000000 ] && ok || bad "--cut node=0-23:rest on cm384"
expect 0 "--cut coords" -- "$FABRICX" metrics specs/tpu-v4-cube.yaml --json --out "$tmp/o" --cut x=0-1:x=2-3
[ "$(jq .cut.min_cut_links "$tmp/out")" = 32 ] && [ "$(jq .cut.direct_links "$tmp/out")" = 32 ] && ok || bad "--cut x=0-1:x=2-3"
expect 2 "--cut overlap" -- "$FABRICX" metrics specs/cm384.yaml --cut node=0-2:node=2-3
expect 2 "--cut bad key" -- "$FABRICX" metrics specs/cm384.yaml --cut colour=1:rest
expect 2 "--cut no dims" -- "$FABRICX" metrics specs/cm384.yaml --cut x=0:rest

# too large for memory: refused up front with its estimate
expect 2 "huge fabric" -- "$FABRICX" metrics specs/torus-8x8x8.yaml --set 'fabric.dims=[40000,40000]'
grep -q "fabric too large" "$tmp/err" && ok || bad "huge fabric message"

# tables on stdout, CSV copies under out/<spec name>/
# a generous --time-limit: the placement must not depend on machine speed
expect 0 "explore" -- "$FABRICX" explore specs/cm384.yaml --time-limit 600 --out "$tmp/o"
[ -s "$tmp/o/cm384/metrics.csv" ] && [ -s "$tmp/o/cm384/hops.csv" ] && ok || bad "explore CSV files"
grep -q "bisection" "$tmp/out" && ok || bad "explore prints the metrics"
# provenance: version, date, the spec's SHA-256, the command and its --set
# (the command as typed: compared as a prefix, since valgrind-check's
# wrapper appends a --time-limit)
expect 0 "explore provenance" -- "$FABRICX" explore specs/hgx-h100.yaml --set workload.instances=2 --json --out "$tmp/o"
[ "$(jq -r .provenance.spec_sha256 "$tmp/out")" = "$(sha256sum specs/hgx-h100.yaml | cut -d' ' -f1)" ] && [ "$(jq -r '.provenance.sets[0]' "$tmp/out")" = workload.instances=2 ] && [ "$(jq -r .provenance.command "$tmp/out" | cut -c1-$((78 + ${#tmp})))" = "fabricx explore specs/hgx-h100.yaml --set workload.instances=2 --json --out $tmp/o" ] && [ -n "$(jq -r .provenance.fabricx_version "$tmp/out")" ] && ok || bad "explore provenance"
SOURCE_DATE_EPOCH=0 "$FABRICX" explore specs/hgx-h100.yaml --json --out "$tmp/o" >"$tmp/out" 2>/dev/null
[ "$(jq -r .provenance.date "$tmp/out")" = 1970-01-01T00:00:00Z ] && ok || bad "SOURCE_DATE_EPOCH date"
# --skip leaves sections out, repeatable or as a list
expect 0 "explore --skip" -- "$FABRICX" explore specs/hgx-h100.yaml --skip diagrams --skip placement,loads --json --out "$tmp/o"
[ "$(jq -r '[.sections[]|.status]|join(",")' "$tmp/out")" = "ok,ok,skipped,ok,ok,skipped,ok,ok,skipped" ] && [ ! -e "$tmp/o/hgx-h100/fabric.svg" ] && [ ! -e "$tmp/o/hgx-h100/links.csv" ] && ok || bad "--skip"
expect 2 "explore --skip unknown" -- "$FABRICX" explore specs/hgx-h100.yaml --skip plot --out "$tmp/o"
first "fabricx: error: --skip: unknown section 'plot' (expected: fabric, collectives, loads, power, bom, placement, jobs, plan, failures, diagrams)" "--skip message"
# the bill of materials as a section (issue 32 item 4): CloudMatrix384's 16
# racks, 4 of them network racks, and its 5,376 scale-up 400G LPO modules
# (hardware.md §1: 5,376 of the 6,912 are scale-up), as `fabricx bom` says;
# --skip bom leaves the object, the tables and the CSV files out
expect 0 "explore bom" -- "$FABRICX" explore specs/cm384.yaml --skip diagrams,placement,plan,failures --out "$tmp/o"
[ "$(jq -c '[.sections.bom.status, .bom.racks, .bom.network_racks, (.bom.parts[]|select(.type == "400G LPO")|.count)]' "$tmp/o/cm384/report.json")" = '["ok",16,4,5376]' ] &&
	grep -q '^## Bill of materials' "$tmp/o/cm384/report.md" && [ -s "$tmp/o/cm384/bom_parts.csv" ] && ok ||
	bad "explore bom: $(jq -c '[.sections.bom, .bom.racks]' "$tmp/o/cm384/report.json")"
"$FABRICX" bom specs/cm384.yaml --json >"$tmp/bom.json"
[ "$(jq -cS '.bom | del(.name, .spec)' "$tmp/o/cm384/report.json")" = "$(jq -cS 'del(.name, .spec)' "$tmp/bom.json")" ] && ok ||
	bad "explore bom: not what fabricx bom says"
expect 0 "explore --skip bom" -- "$FABRICX" explore specs/cm384.yaml --skip diagrams,placement,plan,failures,bom --out "$tmp/o"
[ "$(jq -r '.sections.bom.status + " " + (has("bom") | tostring)' "$tmp/o/cm384/report.json")" = "skipped false" ] &&
	[ ! -e "$tmp/o/cm384/bom_parts.csv" ] && ok || bad "explore --skip bom"
# not decided is exit 4, and the report is still delivered
expect 4 "explore not decided" -- "$FABRICX" explore tests/specs/ports-budget.yaml --set 'workload.comm_budget=30 us' --node-limit 1 --out "$tmp/o"
[ "$(jq -r .sections.placement.status "$tmp/o/ports-budget/report.json")" = "not decided" ] && [ "$(jq -r .status "$tmp/o/ports-budget/report.json")" = "not decided" ] && [ -s "$tmp/o/ports-budget/fabric.svg" ] && ok || bad "explore report with an undecided placement"
# every shipped spec and the scale shapes get a complete report
for s in specs/*.yaml tests/specs/torus-16x16x16.yaml tests/specs/mesh-32x32.yaml tests/specs/leaf-spine-512.yaml; do
	n=$(basename "$s" .yaml)
	case $n in wse2) continue ;; esac  # 17 s at full size (docs/performance.md): explored at 16x16 below
	expect 0 "explore $n" -- "$FABRICX" explore "$s" --skip diagrams --out "$tmp/o"
	[ "$(jq -r .status "$tmp/o/$n/report.json")" = ok ] && ok || bad "explore $n: every section ok"
done

# collective: the JSON contract on every shipped spec (the wafer shrunk)
for spec in specs/*.yaml; do
	small=""
	case $spec in *wse2*) small="--set fabric.grid=[16,16]";; esac
	# shellcheck disable=SC2086
	expect 0 "collective $spec" -- "$FABRICX" collective "$spec" $small --pattern allreduce --size 10KiB --json --out "$tmp/o"
	if jq -e '(.pattern=="allreduce") and (.algo|type=="string") and (.ranks|type=="number")
	    and (.size_bytes==10240) and (.rounds|type=="number") and (.time_s>0)
	    and (.max_link_bytes|type=="number") and (.total_link_bytes|type=="number")
	    and (.algbw_Bps|type=="number") and (.busbw_Bps|type=="number")
	    and (.rounds as $r | [.per_round[].repeat]|add==$r)
	    and (.per_round[0]|has("repeat") and has("max_link_bytes") and has("total_link_bytes") and has("max_hops") and has("time_s"))' \
	    "$tmp/out" >/dev/null; then ok; else bad "collective $spec --json breaks the contract"; fi
	# (a folder of its own: explore's report above lists power.csv)
	expect 0 "power $spec" -- "$FABRICX" power "$spec" --json --out "$tmp/p"
	# kW are numbers with a power model and null ("n/a") without, never 0
	if jq -e 'has("budget_W") and (.build_devices|type=="number") and (.build_nodes|type=="number")
	    and (.racks|type=="number") and (.compute_racks|type=="number") and (.network_racks|type=="number")
	    and (.over_budget==false) and (.racks_detail|type=="array")
	    and (if .power_model then (.power_W|type=="number") and (.power_W > 0) and (.limited_by|type=="string")
	         and all(.racks_detail[]; (.power_W|type=="number") and (.cooling=="air" or .cooling=="liquid"))
	         else .power_W==null and .limited_by==null and all(.racks_detail[]; .power_W==null) end)' \
	    "$tmp/out" >/dev/null; then ok; else bad "power $spec --json"; fi
done

# collective: book numbers through the CLI, files, and errors
expect 0 "ring vs tree" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --algo ring --size 10KiB --alpha 0.822us --versus tree --chunks 1 --json --out "$tmp/o"
[ "$(jq '.time_s*1e8|round' "$tmp/out")" = 1155 ] && [ "$(jq '.crossover_bytes/1024|round' "$tmp/out")" = 680 ] && ok || bad "book §6.4.2 through the CLI"
expect 0 "--links" -- "$FABRICX" collective specs/tpu-v4-cube.yaml --pattern all-to-all --size 32MiB --links "$tmp/links.csv" --out "$tmp/o"
[ "$(head -1 "$tmp/links.csv")" = "src,dst,bytes,busy_s,utilisation" ] && [ "$(wc -l < "$tmp/links.csv")" = 385 ] && ok || bad "--links CSV"
expect 0 "ktree PLMR" -- "$FABRICX" collective specs/wse2.yaml --set 'fabric.grid=[660,4]' --pattern allreduce --algo ktree --chunks 22 --size 4KiB --json --out "$tmp/o"
[ "$(jq .plmr.critical_hops "$tmp/out")" = 690 ] && [ "$(jq .plmr.routing_stages "$tmp/out")" = 27 ] && ok || bad "K-tree 660/22 PLMR"
expect 0 "--list" -- "$FABRICX" collective --list
# --routing: the issue's 2:1 leaf-spine (16 hosts), pairwise all-to-all of
# 15 MiB: 25 MiB on the busiest links split, 26 MiB hashed (test_routing.c)
printf 'name: ls16\nfabric:\n  kind: fat-tree\n  tiers: 2\n  radix: 6\n  hosts: 16\n  down_up: [4, 2]\n  link: {bandwidth: 50 GB/s, latency: 0 ns}\n' >"$tmp/ls16.yaml"
expect 0 "--routing split" -- "$FABRICX" collective "$tmp/ls16.yaml" --pattern all-to-all --algo pairwise --size 15MiB --json --out "$tmp/o"
[ "$(jq '.time_s*1e9|round' "$tmp/out")" = 524288 ] && [ "$(jq -r .routing_policy "$tmp/out")" = split ] && ok || bad "--routing split: $(jq -c '{time_s,routing_policy}' "$tmp/out")"
expect 0 "--routing hash" -- "$FABRICX" collective "$tmp/ls16.yaml" --pattern all-to-all --algo pairwise --size 15MiB --routing hash --json --out "$tmp/o"
[ "$(jq '.time_s*1e9|round' "$tmp/out")" = 545260 ] && [ "$(jq -r .routing_policy "$tmp/out")" = hash ] && ok || bad "--routing hash: $(jq -c '{time_s,routing_policy}' "$tmp/out")"
expect 0 "collective.routing: hash" -- "$FABRICX" collective "$tmp/ls16.yaml" --set collective.routing=hash --pattern all-to-all --algo pairwise --size 15MiB --json --out "$tmp/o"
[ "$(jq '.time_s*1e9|round' "$tmp/out")" = 545260 ] && ok || bad "collective.routing: hash"
expect 2 "--routing bad" -- "$FABRICX" collective "$tmp/ls16.yaml" --pattern all-to-all --size 15MiB --routing adaptive
has "must be split (= minimal), hash, dmodk, smodk, rail, pxn, valiant or ugal" "--routing bad"
# dragonflies: minimal routing puts 32 x 32 x 32 MiB / 1055 on a global
# link, Valiant twice that (tests/unit/test_kinds.c counts them by hand)
expect 0 "--routing valiant, dragonfly" -- "$FABRICX" collective specs/dragonfly-1056.yaml --pattern all-to-all --size 32MiB --routing valiant --json --out "$tmp/o"
[ "$(jq '.max_link_bytes|round' "$tmp/out")" = 65136945 ] && [ "$(jq -r .routing_policy "$tmp/out")" = valiant ] && ok || bad "--routing valiant: $(jq -c '{max_link_bytes,routing_policy}' "$tmp/out")"
expect 0 "--routing minimal, dragonfly" -- "$FABRICX" collective specs/dragonfly-1056.yaml --pattern all-to-all --size 32MiB --routing minimal --json --out "$tmp/o"
[ "$(jq -r .routing_policy "$tmp/out")" = split ] && [ "$(jq '.per_round[0].max_hops' "$tmp/out")" = 5 ] && ok || bad "--routing minimal: $(jq -c '{routing_policy}' "$tmp/out")"
# the same dragonfly through GraphML into a custom graph: hop-count ECMP
# loads a global link with 48.4 MB (the issue's figure); its global links
# at cost 3 (more than two local links) route minimally, the dragonfly
# router's time exactly (issue 27 item 3; docs/spec.md §4.7)
expect 0 "dragonfly to graphml" -- "$FABRICX" export specs/dragonfly-1056.yaml --to graphml -o "$tmp/df.graphml"
expect 0 "graphml to custom" -- "$FABRICX" import "$tmp/df.graphml" --from graphml -o "$tmp/df.yaml"
awk '/\{a: "g[0-9]+\.r[0-9]+", b: "g[0-9]+\.r[0-9]+"/ { split($0, q, "\""); split(q[2], x, "."); split(q[4], y, ".");
	if (x[1] != y[1]) sub(/\}$/, ", cost: 3}") } { print }' "$tmp/df.yaml" > "$tmp/dfc.yaml"
[ "$(grep -c 'cost: 3' "$tmp/dfc.yaml")" = 528 ] && ok || bad "dragonfly-1056: not 528 global links costed"
expect 0 "custom dragonfly, hop counts" -- "$FABRICX" collective "$tmp/df.yaml" --pattern all-to-all --algo direct --size 32MiB --json --out "$tmp/o"
[ "$(jq '.max_link_bytes/1e5|round' "$tmp/out")" = 484 ] && ok || bad "custom dragonfly by hops: $(jq .max_link_bytes "$tmp/out")"
expect 0 "dragonfly router" -- "$FABRICX" collective specs/dragonfly-1056.yaml --pattern all-to-all --algo direct --size 32MiB --json --out "$tmp/o"
t_df=$(jq .time_s "$tmp/out")
expect 0 "custom dragonfly, costs" -- "$FABRICX" collective "$tmp/dfc.yaml" --pattern all-to-all --algo direct --size 32MiB --json --out "$tmp/o"
jq -e --argjson t "$t_df" '(.time_s / $t - 1 | fabs) < 1e-9 and .max_link_bytes == 33554432' "$tmp/out" >/dev/null \
  && ok || bad "custom dragonfly with costs: $(jq -c '{time_s, max_link_bytes}' "$tmp/out"), dragonfly router $t_df s"
# --sizes: nccl-tests sweeps; the book's ring/tree crossover (§6.4.2, 8 alpha
# = (6 - 14/8) M / B: M = 696,282 B) found between two sizes of the sweep
expect 0 "--sizes ring,tree" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --algo ring,tree --sizes 1KiB:1GiB:x2 --chunks 1 --alpha 0.822us --json --out "$tmp/o"
[ "$(jq '.sweep|length' "$tmp/out")" = 42 ] && [ "$(jq '.crossovers[0].size_bytes|round' "$tmp/out")" = 696282 ] \
  && [ "$(jq -r '.fastest[0].algo, .fastest[20].algo' "$tmp/out" | tr '\n' ' ')" = "tree ring " ] && ok || bad "--sizes crossover: $(jq -c .crossovers "$tmp/out")"
if jq -e '.sweep[0] | (.size_bytes==1024) and (.time_s|type=="number") and (.algbw_Bps|type=="number")
    and ((.busbw_Bps - .algbw_Bps * 1.75)|fabs < 1e-3) and (.max_link_bytes|type=="number") and (.algo=="ring")' "$tmp/out" >/dev/null; then ok; else bad "--sizes JSON row"; fi
expect 0 "--sizes all, 1 B to 1 TiB" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --sizes 1B:1TiB:x1024 --out "$tmp/o"
grep -q "Fastest algorithm per size" "$tmp/out" && grep -q "^Algorithms of allreduce skipped" "$tmp/out" && grep -q "^  torus " "$tmp/out" && [ "$(wc -l < "$tmp/o/hgx-h100/sweep-ring.csv")" = 6 ] \
  && [ "$(head -1 "$tmp/o/hgx-h100/sweep.csv")" = "algo,size_bytes,time_s,algbw_Bps,busbw_Bps,max_link_bytes,rounds,chunks" ] && ok || bad "--sizes 1B:1TiB tables and CSV"
expect 2 "--sizes past 1 TiB" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --sizes 1KiB:2TiB
has "at most 1 TiB" "--sizes past 1 TiB"
expect 2 "--sizes bad step" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --sizes 1KiB:1MiB:+2
has "must be xF" "--sizes bad step"
expect 2 "--sizes no range" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --sizes 1KiB
has "LO:HI" "--sizes no range"
expect 2 "--sizes and --size" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --size 1KiB --sizes 1KiB:1MiB
expect 2 "--sizes unknown algo" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --algo ring,bogus --sizes 1KiB:1MiB
has "no algorithm 'bogus'" "--sizes unknown algo"
expect 2 "--sizes with --versus" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --sizes 1KiB:1MiB --versus tree
# multi-dimensional Swing (NSDI'24) on the 4x4x4 cube, and refused off a torus
expect 0 "swing-torus" -- "$FABRICX" collective specs/tpu-v4-cube.yaml --pattern allreduce --algo swing-torus --size 64MiB --json --out "$tmp/o"
[ "$(jq '.time_s < 450e-6 and .rounds == 12' "$tmp/out")" = true ] && ok || bad "swing-torus on 4x4x4: $(jq .time_s "$tmp/out") s"
expect 2 "swing-torus off a torus" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --algo swing-torus --size 1MiB
has "needs a torus" "swing-torus off a torus"
# the loads caption names the busiest link's bytes and utilisation, not the
# message size (issue 14: cm384 all-to-all 32 MiB, busiest link 4.571 MiB)
expect 0 "loads caption" -- "$FABRICX" render specs/cm384.yaml --view loads --pattern all-to-all --format dot -o "$tmp/cm.dot" --out "$tmp/o"
grep -q "busiest link 4.571 MiB, 98.1% busy" "$tmp/cm.dot" && ok || bad "loads caption: $(grep -o 'loads: [^<]*' "$tmp/cm.dot")"
# DGX-1: rings over the NVLinks, 3 cycles both ways, at the link bound (794 us
# with the spec's sourced 0.822 us overhead per round, 783 us with none)
expect 0 "dgx1 rings" -- "$FABRICX" collective specs/dgx1.yaml --pattern allreduce --size 64MiB --json --out "$tmp/o"
[ "$(jq '.time_s*1e6|round' "$tmp/out")" = 794 ] && jq -r .layout "$tmp/out" | grep -q "^3 rings over direct links" && ok || bad "dgx1 rings: $(jq -c '{time_s,layout}' "$tmp/out")"
# torus packaging as blocks: a TPU v4 cube of the 16^3 pod cuts 96 links
expect 0 "v4 pod cube cut" -- "$FABRICX" metrics tests/specs/tpu-v4-pod.yaml --cut rack=0:rest --json --out "$tmp/o"
[ "$(jq '.cut.min_cut_links, .racks, .nodes' "$tmp/out" | tr '\n' ' ')" = "96 64 1024 " ] && ok || bad "v4 pod cube cut: $(jq -c '{cut,racks,nodes}' "$tmp/out")"
expect 0 "v4 pod slab cut" -- "$FABRICX" metrics tests/specs/tpu-v4-pod.yaml --set 'fabric.rack_shape=[16,4,1]' --set 'fabric.node_shape=[4,1,1]' --cut rack=0:rest --json --out "$tmp/o"
[ "$(jq '.cut.min_cut_links' "$tmp/out")" = 160 ] && ok || bad "v4 pod slab cut: $(jq -c .cut "$tmp/out")"
# --plot: gnuplot (Debian gnuplot-nox, make deps) draws the sweep
if command -v gnuplot >/dev/null 2>&1; then
	expect 0 "--plot svg" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --algo ring,dbtree --sizes 8B:1GiB:x2 --plot "$tmp/sweep.svg" --out "$tmp/o"
	grep -q "<svg" "$tmp/sweep.svg" && grep -q "bus bandwidth (GB/s" "$tmp/sweep.svg" && grep -q ">dbtree<" "$tmp/sweep.svg" && ok || bad "--plot svg"
else
	echo "skip: --plot (no gnuplot; make deps installs gnuplot-nox)"
fi
expect 2 "--plot pdf" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --sizes 8B:1GiB:x2 --plot "$tmp/sweep.pdf"
has "must end in .svg or .png" "--plot pdf"
expect 2 "--plot without --sizes" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --size 1MiB --plot "$tmp/sweep.svg"
# custom switches report ports per role (leaf 8 down + 4 up of 12, spine 8 of 8)
expect 0 "custom roles" -- "$FABRICX" metrics tests/specs/leaf-spine-custom.yaml --json --out "$tmp/o"
[ "$(jq -c '[.switch_roles[] | [.role, .tier, .radix, .down_ports, .up_ports]]' "$tmp/out")" = '[["leaf",1,12,8,4],["spine",2,8,8,0]]' ] && ok || bad "custom roles: $(jq -c .switch_roles "$tmp/out")"
# a custom HGX routes over all four chips, like specs/hgx-h100.yaml
expect 0 "custom hgx" -- "$FABRICX" collective tests/specs/hgx-custom.yaml --pattern all-to-all --size 32MiB --json --out "$tmp/o"
a=$(jq .time_s "$tmp/out")
expect 0 "nvswitch hgx" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern all-to-all --size 32MiB --json --out "$tmp/o"
[ "$a" = "$(jq .time_s "$tmp/out")" ] && ok || bad "custom hgx $a s vs $(jq .time_s "$tmp/out") s"
expect 2 "unknown pattern" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allgather --size 1MiB
expect 2 "missing size" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce
expect 2 "size without unit" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --size 1024
expect 2 "swing on 6 ranks" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --algo swing --ranks 6 --size 1MiB
grep -q "needs a power-of-two number of ranks" "$tmp/err" && ok || bad "power-of-two message"
expect 2 "too many ranks" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --ranks 9 --size 1MiB
expect 2 "unknown group" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --group tp0 --size 1MiB
expect 2 "torus algo off a torus" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --algo torus --size 1MiB
expect 2 "gemm on a non-wafer" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern gemm-shift --size 1MiB

# design spaces (tests/cli/space.sh has the rest): here so that
# valgrind-check runs a space serially and on worker processes
expect 0 "explore a space" -- "$FABRICX" explore specs/spaces/power-budget.yaml --no-diagrams --out "$tmp/o"
cp "$tmp/o/power-budget/points.csv" "$tmp/space-serial.csv"
expect 0 "explore a space on 2 workers" -- "$FABRICX" explore specs/spaces/power-budget.yaml --jobs 2 --no-diagrams --out "$tmp/o"
cmp -s "$tmp/space-serial.csv" "$tmp/o/power-budget/points.csv" && ok || bad "space: --jobs 2 differs from serial"
expect 0 "explore a sampled space" -- "$FABRICX" explore specs/spaces/torus-growth.yaml --budget-points 3 --no-diagrams --out "$tmp/o"

# two devices on one switch (a fuzzer's find: the grouped ECMP push read a
# bucket never made): 1,048,576 B over 6 x 31 GB/s = 5.63751 us, plus two
# 200 ns hops = 6.03751 us
expect 0 "all-to-all on two devices of one switch" -- "$FABRICX" collective tests/specs/two-on-one-switch.yaml --pattern all-to-all --size 1MiB --json
[ "$(jq '.time_s * 1e13 | round' "$tmp/out")" = 60375054 ] && ok || bad "two devices on one switch: $(jq .time_s "$tmp/out") s, not 6.03751 us"

# power and place
# the book's example counts only the servers (10.2 kW each)
expect 0 "power 120 kW" -- "$FABRICX" power specs/dgx-h100-256.yaml --budget 120kW --set 'power={node: 10.2 kW}' --json --out "$tmp/p"
[ "$(jq .build_devices "$tmp/out")" = 88 ] && [ "$(jq -r .limited_by "$tmp/out")" = power ] && ok || bad "book §6.5.2 through the CLI"
expect 3 "power too small" -- "$FABRICX" power specs/dgx-h100-256.yaml --budget 5kW
grep -q "infeasible: power" "$tmp/err" && ok || bad "power infeasible message"
expect 0 "place hgx" -- "$FABRICX" place specs/hgx-h100.yaml --json --lp "$tmp/place.lp" --out "$tmp/p"
[ "$(jq -r .status "$tmp/out")" = optimal ] && [ "$(jq '.deployments[1].session_s*1e4|round' "$tmp/out")" = 1191 ] && ok || bad "place hgx: status and §6.7 119.1 ms"
grep -q "^Minimize" "$tmp/place.lp" && ok || bad "--lp writes CPLEX LP"
expect 0 "place cm384" -- "$FABRICX" place specs/cm384.yaml --json --time-limit 600 --out "$tmp/p"
[ "$(jq '.instances|length' "$tmp/out")" = 48 ] && [ "$(jq -r '.instances[0].level' "$tmp/out")" = node ] && ok || bad "place cm384"
# infeasibility named by arithmetic (issue: devices and system power in
# well under a second, no solver): whole messages
expect 3 "place over capacity" -- "$FABRICX" place specs/cm384.yaml --instances 49
first "fabricx: infeasible: no placement of 49 instances of 8 devices fits: devices: 49 instances x 8 devices = 392, the fabric has 384" "place capacity message"
expect 3 "place over system power" -- "$FABRICX" place specs/cm384.yaml --budget 500kW
first "fabricx: infeasible: no placement of 48 instances of 8 devices fits: system power: 48 instances need 48 nodes x 11.654 kW (10.42 kW a node + 1.234 kW of network) = 559.39 kW; the 500 kW budget powers 42 nodes = 42 instances" "place system power message"
# memory is a constraint: Qwen3-235B-A22B (book §6.1.2: 470.2 GB) at TP2
# puts 219 GiB of weights on each 80 GB H100; TP8 is the smallest that fits
q235='workload.model={layers: 94, hidden: 4096, heads: 64, kv_heads: 4, head_dim: 128, experts: 128, top_k: 8, expert_ffn: 1536, vocab: 151936, dtype: bf16}'
expect 3 "place Qwen3-235B TP2 on HGX" -- "$FABRICX" place specs/hgx-h100.yaml --set "$q235"
first "fabricx: infeasible: no placement of 4 instances of 2 devices fits: memory: TP2 x EP1 x PP1 holds 219 GiB of weights + 11.75 GiB of KV cache + 2 GiB reserve = 232.7 GiB per device, over the 74.51 GiB of HBM" "place memory message"
expect 0 "place Qwen3-235B TP8 on HGX" -- "$FABRICX" place specs/hgx-h100.yaml --set "$q235" --set workload.scheme.tp=8 --set workload.instances=1 --set workload.sessions.context=8184 --json
[ "$(jq '.weights_per_device_bytes' "$tmp/out")" = 58959617024 ] && ok || bad "TP8 weights per device (footnote 1: 58,959,617,024 B)"
# placement at scale: proven optimal by the packing and its bound, contiguous
for s in torus-16x16x16 mesh-32x32 fat-tree-1024 leaf-spine-512; do
	expect 0 "place $s" -- "$FABRICX" place tests/specs/$s.yaml --json
	[ "$(jq -r .status "$tmp/out")" = optimal ] && [ "$(jq '[.instances[]|.devices|(.[-1]-.[0]+1)==length]|all' "$tmp/out")" = true ] && ok || bad "place $s: optimal and contiguous"
done
expect 0 "place 1024 TP4 on 16^3" -- "$FABRICX" place tests/specs/torus-16x16x16.yaml --json
[ "$(jq '.instances|length' "$tmp/out")" = 1024 ] && [ "$(jq '.gap < 1e-9' "$tmp/out")" = true ] && ok || bad "16^3: 1024 instances, gap 0"
expect 0 "place TP16 across nodes" -- "$FABRICX" place tests/specs/fat-tree-1024.yaml --set workload.scheme.tp=16 --set workload.instances=60 --set 'workload.keep_within={tp: any}' --json
[ "$(jq '[.instances[]|.devices|(.[-1]-.[0]+1)==length and .[0]%16==0]|all' "$tmp/out")" = true ] && [ "$(jq '[.instances[]|.nodes]|unique' -c "$tmp/out")" = "[2]" ] && ok || bad "TP16 on two neighbouring nodes"
# failed elements: placement leaves out the nodes that hold them
expect 3 "place with a failed device" -- "$FABRICX" place specs/cm384.yaml --fail device=0
first "fabricx: infeasible: no placement of 48 instances of 8 devices fits: devices: 48 instances x 8 devices = 384, the fabric has 376 outside the 1 node with failed devices" "failed device message"
expect 0 "place around a failed rack" -- "$FABRICX" place specs/cm384.yaml --fail rack=0 --instances 44 --json
[ "$(jq -c '[.status, .nodes_failed, ([.instances[].devices[]]|min)]' "$tmp/out")" = '["optimal",4,32]' ] && ok || bad "failed rack 0: its 4 nodes left out"
# §6.7.2 through the CLI: energy at 10.2 kW and a card failing at 20 ms
expect 0 "place with a fault" -- "$FABRICX" place specs/hgx-h100.yaml --fail-at 20ms --json
[ "$(jq -c '[.deployments[1,2].energy_J/10|round]' "$tmp/out")" = "[121,130]" ] && ok || bad "energy 1.21 / 1.30 kJ"
[ "$(jq -c '[.deployments_with_fault[]|.finish_s|map(.*1e4|round)]' "$tmp/out")" = "[[1791,1191,1191,1191],[1238,638,1876,1276],[1012,1424,1835,2247]]" ] && [ "$(jq '.deployments_with_fault[0].gpu_time_s*1000|round' "$tmp/out")" = 1433 ] && ok || bad "fault timeline: 179.1 ms, 1.433 GPU-s"
expect 2 "--stall without --fail-at" -- "$FABRICX" place specs/hgx-h100.yaml --stall 10ms
first "fabricx: error: --stall and --fail-card need --fail-at" "--stall message"
# §6.5.5 transport state and setup; §6.6 pooling (Eq. 6-12)
expect 0 "transport cm384" -- "$FABRICX" transport specs/cm384.yaml --json
[ "$(jq '.hosts' "$tmp/out")" = 192 ] && [ "$(jq '.state[]|select(.scheme=="per_pair").hosts_in_cache' "$tmp/out")" = 8 ] && [ "$(jq '.state[]|select(.scheme=="ub").hosts_in_cache' "$tmp/out")" = 4674 ] && [ "$(jq '.state[]|select(.scheme=="ub").state_bytes' "$tmp/out")" = 11112 ] && [ "$(jq '.setup[]|select(.scheme=="per_pair").serial_s|round' "$tmp/out")" = 545 ] && ok || bad "transport: 8 vs 4674 hosts, 11 KiB, 545 s"
expect 0 "pool" -- "$FABRICX" pool specs/hgx-h100.yaml --period 1s --json
[ "$(jq '.read.usable_Bps/1e7|round' "$tmp/out")" = 436 ] && [ "$(jq '.read.inflight_to_fill' "$tmp/out")" = 1469 ] && [ "$(jq '.read.backlog' "$tmp/out")" = true ] && [ "$(jq -c '.loans' "$tmp/out")" = '[{"lender":1,"borrower":0,"bytes":20000000000}]' ] && ok || bad "pool: 4.36 GB/s, 1469, node 1 lends 20 GB"
if command -v gnuplot >/dev/null 2>&1; then
	expect 0 "transport --plot" -- "$FABRICX" transport specs/cm384.yaml --plot "$tmp/tr.svg"
	grep -q "state per NIC (KiB)" "$tmp/tr.svg" && grep -q "NIC cache" "$tmp/tr.svg" && ok || bad "transport --plot"
	expect 0 "pool --plot" -- "$FABRICX" pool specs/hgx-h100.yaml --plot "$tmp/pool.svg"
	grep -q "transactions in flight u" "$tmp/pool.svg" && ok || bad "pool --plot"
else
	echo "skip: transport/pool --plot (no gnuplot; make deps installs gnuplot-nox)"
fi
expect 3 "pool over capacity" -- "$FABRICX" pool specs/hgx-h100.yaml --tasks 200GB,100GB
first "fabricx: infeasible: the tasks need 279.4 GiB in all, more than the 2 nodes' 149 GiB: borrowing moves memory, it adds none" "pool infeasible message"
# §6.5.4: OCS reconfiguration pays back after 6 uses at 1 ms, 511 at 100 ms;
# 8 chips' ring allreduce of 8 MiB goes from 293.6 to 97.9 us on 3 links
expect 0 "reconfigure" -- "$FABRICX" reconfigure specs/tpu-v4-cube.yaml --set 'fabric.dims=[8]' --set packaging.devices_per_node=1 --set packaging.nodes_per_rack=8 --algo ring --size 8MiB --json
[ "$(jq '[.transfer_before_s, .transfer_after_s, .saved_s]|map(.*1e7|round)' -c "$tmp/out")" = "[2936,979,1957]" ] && [ "$(jq -c '[.payback[].uses]' "$tmp/out")" = "[6,511]" ] && ok || bad "reconfigure: 293.6 -> 97.9 us, 6 and 511 uses"
# §6.5.4 slices: two idle rows of a 4x4 grid host two 2x2 jobs, the same
# eight chips as a checkerboard none; with OCS over 2x2 cubes, whole cubes
g4="--set fabric.dims=[4,4] --set packaging.devices_per_node=1 --set packaging.nodes_per_rack=16"
expect 0 "slice two rows" -- "$FABRICX" slice specs/torus-8x8x8.yaml $g4 --shape 2x2 --jobs 2 --idle y=0-1 --json
[ "$(jq '.jobs_fit' "$tmp/out")" = 2 ] && ok || bad "two idle rows host two 2x2 jobs"
expect 3 "slice checkerboard" -- "$FABRICX" slice specs/torus-8x8x8.yaml $g4 --shape 2x2 --jobs 2 --idle x=0,y=0 --idle x=2,y=0 --idle x=1,y=1 --idle x=3,y=1 --idle x=0,y=2 --idle x=2,y=2 --idle x=1,y=3 --idle x=3,y=3
first "fabricx: infeasible: 2 jobs of 2x2 adjacent chips do not fit the 8 idle chips: at most 0 do (every placement searched)" "checkerboard message"
expect 0 "slice over OCS" -- "$FABRICX" slice specs/torus-8x8x8.yaml $g4 --shape 2x2 --jobs 2 --idle y=0-1 --cube 2x2 --json
[ "$(jq '.idle_cubes' "$tmp/out")" = 2 ] && [ "$(jq '.jobs_fit' "$tmp/out")" = 2 ] && ok || bad "OCS: two idle cubes"
expect 2 "slice off a lattice" -- "$FABRICX" slice specs/cm384.yaml --shape 2x2
# failures (issue 17): a k=4 fat-tree losing one of its 4 core switches
# keeps 3/4 of its bisection; CloudMatrix384 losing one of a plane's 16 L2
# chips loses 1/16 of that plane's share (1/112 of 7 planes); NVL72 losing
# one of its 18 switch chips loses 1/18 of each GPU's bandwidth
expect 0 "failures k=4" -- "$FABRICX" failures specs/fat-tree-k8.yaml --set fabric.k=4 --json
[ "$(jq '.failures[]|select(.element|test("core"))|.bisection_kept' "$tmp/out")" = 0.75 ] && ok || bad "k=4: one core switch keeps 3/4"
expect 0 "failures cm384" -- "$FABRICX" failures specs/cm384.yaml --json
[ "$(jq '.failures[]|select(.element|test("L2"))|(1-.bisection_kept)*112*1e9|round' "$tmp/out")" = 1000000000 ] && ok || bad "cm384: one L2 chip, 1/16 of a plane"
# blast radius: an L1 chip serves its node's 8 NPUs (one TP2 x EP4 instance)
[ "$(jq -c '.failures[]|select(.element|test("L1"))|[.devices_slower,.devices_cut_off]' "$tmp/out")" = "[8,0]" ] && ok || bad "cm384: an L1 chip slows its node's 8 NPUs"
# blast radius in instances of the placement (48 TP2 x EP4, one per node):
# a node takes its instance, a rack its 4, a plane slows all 48 by 1/7;
# ranked gravest first (least bisection kept): rack, plane, node
expect 0 "failures cm384 domains" -- "$FABRICX" failures specs/cm384.yaml --fail node=0 --fail rack=1 --fail plane=0 --json
[ "$(jq -c '[.failures[]|[.devices_cut_off,.devices_slower,.instances_hit]]' "$tmp/out")" = "[[32,0,4],[0,384,48],[8,0,1]]" ] && ok || bad "cm384 blast radius: $(jq -c '[.failures[]|[.devices_cut_off,.devices_slower,.instances_hit]]' "$tmp/out")"
expect 0 "failures --kind rack" -- "$FABRICX" failures specs/cm384.yaml --kind rack --json
[ "$(jq -c '[.failures[0]|.equivalent,.instances_hit]' "$tmp/out")" = "[12,4]" ] && ok || bad "--kind rack: rack 0 for the 12 compute racks"
expect 0 "failures nvl72" -- "$FABRICX" failures specs/nvl72.yaml --json
[ "$(jq '.failures[0]|(1-.worst_device_kept)*18*1e9|round' "$tmp/out")" = 1000000000 ] && ok || bad "nvl72: one switch chip, 1/18 of each GPU"
# a lattice's links are alike only on the same side of its cut: a 4x4x4
# torus's canonical split is cut by 32 links (the chapter "Supernodes"
# §6.5.4), so one of them failed keeps 31/32; the other 160 keep it all
expect 0 "failures --kind link on a torus" -- "$FABRICX" failures specs/tpu-v4-cube.yaml --kind link --json
[ "$(jq -c '[.failures[]|[.equivalent,.bisection_kept]]' "$tmp/out")" = "[[32,0.96875],[160,1]]" ] && ok || bad "torus link failures: $(jq -c '[.failures[]|[.equivalent,.bisection_kept]]' "$tmp/out")"
# an 8x996 strip of the wafer: 8 of its 14,932 links cut it in the middle
# of the 996 (one failed keeps 7/8); a mesh has only its four reflections,
# so 3,984 classes are evaluated (the full wafer's 376,986 are past the
# limit, tests/cli/fail.sh)
expect 0 "failures on the wafer" -- "$FABRICX" failures specs/wse2.yaml --set 'fabric.grid=[8,996]' --kind link --json
[ "$(jq -c '[([.failures[]|select(.bisection_kept<1)|.equivalent]|add), ([.failures[]|select(.bisection_kept<1)|.bisection_kept]|unique), .summary.elements_covered]' "$tmp/out")" = "[8,[0.875],14932]" ] && ok || bad "wafer link failures (8 of 14,932 links cut the 8x996 mesh): $(jq -c '.summary' "$tmp/out")"
expect 2 "failures without switches" -- "$FABRICX" failures specs/torus-8x8x8.yaml
first "fabricx: error: failures: specs/torus-8x8x8.yaml has no switch chips (try --kind link)" "failures on a torus message"
# --json on the listings too, the same rows as the text tables (after
# their title, header and rule); --help for every command in the table
expect 0 "kinds --json" -- "$FABRICX" kinds --json
[ "$(jq -r '.kinds|map(.kind)|join(",")' "$tmp/out")" = "$("$FABRICX" kinds | awk 'NR > 3 {print $1}' | paste -sd, -)" ] && ok || bad "kinds --json lists the kinds"
[ "$(jq -r '.kinds|map(.kind)|join(",")' "$tmp/out")" = "torus,mesh,fat-tree,rail-clos,nvswitch,ub,wafer-mesh,dragonfly,slimfly,hyperx,custom,composite" ] && ok || bad "kinds --json: $(head -c 200 "$tmp/out")"
expect 0 "collective --list --json" -- "$FABRICX" collective --list --json
[ "$(jq -r '.algorithms|map("\(.pattern)/\(.algo)")|join(",")' "$tmp/out")" = "$("$FABRICX" collective --list | awk 'NR > 3 {print $1 "/" $2}' | paste -sd, -)" ] && ok || bad "collective --list --json"
[ "$(jq -r '.algorithms[0]|"\(.pattern) \(.algo)"' "$tmp/out")" = "allreduce ring" ] && ok || bad "collective --list --json: the first algorithm"
for cmd in $("$FABRICX" help | awk '/^commands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }'); do
	expect 0 "$cmd --help" -- "$FABRICX" "$cmd" --help
	grep -q "usage\|^[a-z]" "$tmp/out" && ok || bad "$cmd --help prints its usage"
done
# honest statuses: the MILP cut off before any placement is "not decided"
# (exit 4), never "infeasible"; a node limit makes the cut-off deterministic
expect 4 "place not decided" -- "$FABRICX" place tests/specs/ports-budget.yaml --set 'workload.comm_budget=30 us' --node-limit 1 --time-limit 10
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
	    and (.edges_drawn|type=="number") and (.layout_engine|type=="string") and (.elapsed_s>=.render_s) and (.render_s>=0) and (.panels==1)' \
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
grep -q "^graph fabric {" "$tmp/h.dot" && grep -q "layout=dot" "$tmp/h.dot" && grep -q "rank=same" "$tmp/h.dot" && ok || { bad "render --format dot"; head -3 "$tmp/h.dot"; cat "$tmp/err"; ls -la "$tmp/h.dot"; }
[ "$(grep -c 'links=5,' "$tmp/h.dot")" = 16 ] && grep -q "nvswitch.0: 5 x 25 GB/s each" "$tmp/h.dot" && ok || bad "render dot: 16 bundles of 5 x 25 GB/s, in the legend"
# loads by default: explore's all-to-all (32 MiB direct over every device);
# on a 2:1 tapered leaf-spine its uplinks stand out
expect 0 "render loads default" -- "$FABRICX" render tests/specs/leaf-spine-512.yaml --view loads --format dot -o "$tmp/ls.dot" --out "$tmp/o"
grep -q "loads: all-to-all 32 MiB per rank, direct, 512 ranks, timing bound" "$tmp/ls.dot" && grep -q "leaf–spine" "$tmp/ls.dot" && ok || bad "render loads default: $(grep -o 'loads: [^<]*' "$tmp/ls.dot")"
expect 2 "render --algo without --pattern" -- "$FABRICX" render specs/hgx-h100.yaml --view loads --algo ring
has "--algo goes with --pattern" "render --algo without --pattern"
# the same input gives the same picture, byte for byte
expect 0 "render svg once" -- "$FABRICX" render specs/cm384.yaml -o "$tmp/a.svg" --out "$tmp/o"
expect 0 "render svg twice" -- "$FABRICX" render specs/cm384.yaml -o "$tmp/b.svg" --out "$tmp/o"
cmp -s "$tmp/a.svg" "$tmp/b.svg" && ok || bad "render: two runs gave different SVGs"
# pictures are bounded: a 512-GPU leaf-spine fits 2,400 px and 3:1
expect 0 "render leaf-spine-512" -- "$FABRICX" render tests/specs/leaf-spine-512.yaml --format png -o "$tmp/ls.png" --json --out "$tmp/o"
[ "$(jq '.width_px <= 2400 and .height_px <= 2400 and .width_px <= 3 * .height_px and .height_px <= 3 * .width_px' "$tmp/out")" = true ] && ok || bad "leaf-spine-512 size: $(jq -c '[.width_px, .height_px]' "$tmp/out")"
# issue 32: a rail-optimised Clos written as a custom graph without roles
# or tiers aborted Graphviz 2.43 in gvFreeLayout (a double free); every
# view and explore's whole report, under valgrind in make valgrind-check
# (every view render has but placement, which needs a workload)
for view in physical loads floor racks; do
	expect 0 "render rail-512 $view" -- "$FABRICX" render tests/specs/rail-512.yaml --view "$view" --format png -o "$tmp/rail-$view.png" --out "$tmp/o"
	[ "$(head -c 4 "$tmp/rail-$view.png" | tail -c 3)" = PNG ] && ok || bad "render rail-512 $view: no PNG"
done
expect 0 "explore rail-512" -- "$FABRICX" explore tests/specs/rail-512.yaml --out "$tmp/rail"
[ -s "$tmp/rail/rail-512/fabric.svg" ] && [ -s "$tmp/rail/rail-512/loads.svg" ] && [ -s "$tmp/rail/rail-512/report.md" ] && ok || bad "explore rail-512: report incomplete: $(ls "$tmp/rail/rail-512" | tr '\n' ' ')"
[ "$(jq -c '[.sections|to_entries[]|select(.value.status != "ok" and .value.status != "not applicable")|.key], .sections.diagrams.status' "$tmp/rail/rail-512/report.json" | tr '\n' ' ')" = '[] "ok" ' ] && ok ||
	bad "explore rail-512: sections not ok: $(jq -c '.sections' "$tmp/rail/rail-512/report.json")"
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

# timing modes and calibration (issue 30)
expect 2 "--timing unknown" -- "$FABRICX" collective tests/specs/ring-8.yaml --pattern allreduce --size 1MiB --timing barrier
first "fabricx: error: collective: --timing must be bound, maxmin or events, got 'barrier'" "--timing message"
expect 0 "--timing events" -- "$FABRICX" collective tests/peer/torus-3x3-500ns.yaml --pattern allreduce --size 64KiB --ranks 8 --timing events --json
[ "$(jq -c '[.timing,(.time_s*1e10|round)/1e4]' "$tmp/out")" = '["events",12.2938]' ] && ok || bad "eager ring of 8: 12.29 us (tests/unit/test_peer.c by hand)"
expect 2 "calibrate without --from" -- "$FABRICX" calibrate specs/hgx-h100.yaml
expect 2 "calibrate from nothing" -- "$FABRICX" calibrate specs/hgx-h100.yaml --from "$tmp/none.txt"
expect 0 "calibrate writes its overlay" -- "$FABRICX" calibrate specs/dgx-h100-256.yaml --from tests/measured/hgx-h100-2server-allreduce.txt --overlay "$tmp/ov.yaml" --json
grep -q '^  includes_path_latency: true$' "$tmp/ov.yaml" && grep -q '^# as --set: --set collective.overhead=' "$tmp/ov.yaml" && ok || bad "calibrate overlay: $(cat "$tmp/ov.yaml")"
[ "$(jq -c '[.ranks,(.link_bandwidth_Bps > 0)]' "$tmp/out")" = '[16,true]' ] && ok || bad "calibrate: the 16-rank fit, bandwidth mapped: $(head -c 300 "$tmp/out")"
expect 2 "versus-measured with no matching ranks" -- "$FABRICX" collective specs/dgx-h100-256.yaml --pattern allreduce --size 10KiB --ranks 8 --versus-measured tests/measured/hgx-h100-2server-allreduce.txt

# every command in the command table (as `fabricx --help` lists it) answers
# --help with exit 0 and a usage line, like git's t0012-help
help_every_command() {
	n=0
	for cmd in $("$FABRICX" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'); do
		n=$((n + 1))
		expect 0 "$cmd --help" -- "$FABRICX" "$cmd" --help
		grep -q "^usage: fabricx $cmd" "$tmp/out" && ok || bad "$cmd --help: no 'usage: fabricx $cmd' line"
	done
	[ "$n" -ge 13 ] && ok || bad "help_every_command: only $n commands found in 'fabricx --help'"
}
help_every_command

summary "cli tests"
