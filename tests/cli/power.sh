#!/bin/sh
# CLI tests of power and compare: published totals, the wording of limits
# (goldens in tests/cli/golden/), capped builds evaluated as built.
#
#   FABRICX=/path/to/fabricx sh tests/cli/power.sh
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
g=tests/cli/golden

# golden NAME: the last command's stdout is exactly $g/NAME.out
golden() {
	if diff -u "$g/$1.out" "$tmp/out" >"$tmp/diff"; then ok; else
		bad "stdout differs from $g/$1.out (- expected, + got)"; sed -e '1,2d' -e 's/^/    /' "$tmp/diff" | head -20
	fi
}

# no budget: the build as specified, compute and network racks listed
expect 0 "power cm384" -- "$FABRICX" power specs/cm384.yaml --out "$tmp/o"
golden power-cm384
# cooling as counts (docs/spec.md §6's table): cm384's 12 liquid compute
# racks at 43.7 kW; dgx-h100-256's 8 air compute racks at 42.0 kW, over the
# 40 kW air limit as the SuperPOD layout is (book §6.5.2, note 16)
expect 0 "power cm384 --json" -- "$FABRICX" power specs/cm384.yaml --json
[ "$(jq -c '[.liquid_racks, .racks_over_air_limit, (.max_rack_W / 100 | round)]' "$tmp/out")" = "[12,0,437]" ] && ok || bad "cm384 cooling counts: $(jq -c '[.liquid_racks, .racks_over_air_limit, .max_rack_W]' "$tmp/out")"
expect 0 "power dgx-h100-256 --json" -- "$FABRICX" power specs/dgx-h100-256.yaml --json
[ "$(jq -c '[.liquid_racks, .racks_over_air_limit, .max_rack_W]' "$tmp/out")" = "[0,8,42024]" ] && ok || bad "dgx-h100-256 cooling counts: $(jq -c '[.liquid_racks, .racks_over_air_limit, .max_rack_W]' "$tmp/out")"
# a given build over the budget: by how much, exit 3, over_budget in JSON
expect 3 "power over budget" -- "$FABRICX" power specs/dgx-h100-256.yaml --nodes 12 --budget 120kW --set 'power={node: 10.2 kW}' --out "$tmp/o"
golden power-over-budget
has "over budget: the 12-node build draws 122.4 kW, 2.4 kW over the budget of 120 kW" "over-budget message"
expect 3 "power over budget --json" -- "$FABRICX" power specs/dgx-h100-256.yaml --nodes 12 --budget 120kW --set 'power={node: 10.2 kW}' --json --out "$tmp/o"
[ "$(jq -c '[.over_budget, .over_budget_W, .power_W, .error.status]' "$tmp/out")" = "[true,2400,122400,3]" ] && ok || bad "over_budget in JSON"
# §6.5.2: a DGX H100's 10.2 kW over its 8 cards is 1.275 kW a card
[ "$(jq '.power_per_device_W' "$tmp/out")" = 1275 ] && ok || bad "power per device: $(jq '.power_per_device_W' "$tmp/out"), not 1275 W"
# a spec without power data: n/a, never 0 kW
expect 0 "power without a model" -- "$FABRICX" power specs/switched-64.yaml --out "$tmp/o"
golden power-no-model
expect 2 "budget without a model" -- "$FABRICX" power specs/switched-64.yaml --budget 10kW --out "$tmp/o"
has "has no power model" "budget without a model message"

# the same H100 NVLink gives the same small-message time in every spec
t1=$("$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --algo ring --size 10KiB --json --out "$tmp/o" | jq .time_s)
t2=$("$FABRICX" collective specs/dgx-h100-256.yaml --pattern allreduce --algo ring --size 10KiB --ranks 8 --json --out "$tmp/o" | jq .time_s)
[ -n "$t1" ] && [ "$t1" = "$t2" ] && ok || bad "ring allreduce 10 KiB on 8 H100: hgx-h100 $t1 s, dgx-h100-256 $t2 s"
# every shipped spec sets alpha (from a source or marked assumed)
for spec in specs/*.yaml; do
	grep -q "^collective:.*overhead" "$spec" && ok || bad "$spec sets no collective overhead"
done

# compare under a cap evaluates the capped build as built: cm384's columns
# are the smaller fabric's own, as metrics gives them for the same overrides
expect 0 "compare cm384 under 120 kW" -- "$FABRICX" compare specs/cm384.yaml --power-cap 120kW --json --out "$tmp/o"
cp "$tmp/out" "$tmp/cmp.json"
n=$(jq '.builds[0].devices / 8' "$tmp/cmp.json")
[ "$(jq -r '.builds[0].built_with' "$tmp/cmp.json")" = "fabric.nodes=$n" ] && ok || bad "cm384 capped build: built_with $(jq -r '.builds[0].built_with' "$tmp/cmp.json"), $n nodes"
jq -e '.builds[0].power_W <= 120e3 and .builds[0].limited_by == "power" and .builds[0].cooling == "mixed"
    and .builds[0].network_racks == 4' "$tmp/cmp.json" >/dev/null && ok || bad "cm384 capped build: power, racks"
expect 0 "metrics of the capped cm384" -- "$FABRICX" metrics specs/cm384.yaml --set "fabric.nodes=$n" --json --out "$tmp/o"
want=$(jq -c '[.devices, .switches, .links, .diameter_hops, .bisection_per_device_Bps]' "$tmp/out")
got=$(jq -c '.builds[0] | [.devices, .switches, .links, .diameter_hops, .bisection_per_device_Bps]' "$tmp/cmp.json")
[ "$want" = "$got" ] && ok || bad "compare cm384 under 120 kW: $got, metrics at $n nodes: $want"
# one more node would not fit: the build is the largest under the cap
expect 0 "power of one node more" -- "$FABRICX" power specs/cm384.yaml --set "fabric.nodes=$((n + 1))" --json --out "$tmp/o"
jq -e '.power_W > 120e3' "$tmp/out" >/dev/null && ok || bad "cm384 at $((n + 1)) nodes fits 120 kW too"
# no power model: n/a, never 0 kW, and the cap does not apply
expect 0 "compare without a power model" -- "$FABRICX" compare specs/fat-tree-k8.yaml --power-cap 120kW --json --out "$tmp/o"
jq -e '.builds[0] | .power_W == null and .devices == 128 and (.limited_by | startswith("n/a (no power model)"))' \
    "$tmp/out" >/dev/null && ok || bad "compare fat-tree-k8: power n/a"
expect 0 "compare without a power model, text" -- "$FABRICX" compare specs/fat-tree-k8.yaml --out "$tmp/o"
grep -q "  n/a  " "$tmp/out" && ok || bad "compare text: n/a for kW"

# the best-algorithm column is the fastest of running each algorithm
expect 0 "compare torus" -- "$FABRICX" compare specs/torus-8x8x8.yaml --json --out "$tmp/o"
got=$(jq -r '.builds[0] | "allreduce \(.allreduce_10KiB_algo) \(.allreduce_10KiB_s)", "all-to-all \(.all_to_all_32MiB_algo) \(.all_to_all_32MiB_s)"' "$tmp/out")
for pat in allreduce all-to-all; do
	best=""
	for algo in $("$FABRICX" collective --list | awk -v p="$pat" '$1 == p { print $2 }'); do
		t=$("$FABRICX" collective specs/torus-8x8x8.yaml --pattern "$pat" --algo "$algo" --size "$( [ $pat = allreduce ] && echo 10KiB || echo 32MiB)" --json --out "$tmp/o" 2>/dev/null | jq -r ".time_s // empty")
		[ -n "$t" ] && best=$(printf '%s\n%s %s %s\n' "$best" "$pat" "$algo" "$t" | awk 'NF' | sort -g -k3 | head -1)
	done
	# the same algorithm, and the same time to 1e-9
	echo "$got" | awk -v b="$best" 'BEGIN { split(b, w, " ") } $1 == w[1] && $2 == w[2] &&
	    ($3 - w[3]) ^ 2 <= (1e-9 * w[3]) ^ 2 { f = 1 } END { exit !f }' && ok || bad "compare torus $pat: '$(echo "$got" | grep "^$pat ")', fastest by hand '$best'"
done
# 10 KiB on 8x8x8: latency-optimal multi-dimensional Swing (5.46 us) beats
# the dimension-wise torus algorithm's 42 rounds (8.47 us); the cell names it
echo "$got" | awk '$1 == "allreduce" && $2 == "swing-torus-lat" && $3 > 5.45e-6 && $3 < 5.46e-6 { f = 1 } END { exit !f }' && ok || bad "torus-8x8x8 allreduce 10 KiB: swing-torus-lat, 5.46 us"
# --algo fixes one; --pattern/--size choose the columns
expect 0 "compare --algo" -- "$FABRICX" compare specs/torus-8x8x8.yaml --pattern allreduce --size 10KiB --algo ring --json --out "$tmp/o"
t=$("$FABRICX" collective specs/torus-8x8x8.yaml --pattern allreduce --algo ring --size 10KiB --json --out "$tmp/o" | jq .time_s)
[ "$(jq '[.builds[0] | keys[] | select(endswith("_algo"))] | length' "$tmp/out")" = 1 ] && [ "$(jq --argjson t "$t" '(.builds[0].allreduce_10KiB_s - $t) | fabs < 1e-9 * $t' "$tmp/out")" = true ] && ok || bad "compare --algo ring"

# variants of one spec side by side; --sort; CSV of raw numbers
expect 0 "compare variants" -- "$FABRICX" compare specs/cm384.yaml 'specs/cm384.yaml@power.node=12kW,fabric.planes=4,fabric.l1_per_node=4' \
    'specs/torus-8x8x8.yaml@fabric.dims=[8,8,4],power.device=200W' --power-cap 120kW --sort -power --csv "$tmp/cmp.csv" --json --out "$tmp/o"
[ "$(jq -r '[.builds[].name] | join(" ")' "$tmp/out")" = "cm384@power.node=12kW,fabric.planes=4,fabric.l1_per_node=4 cm384 torus-8x8x8@fabric.dims=[8,8,4],power.device=200W" ] \
    && ok || bad "compare variants sorted by -power: $(jq -c '[.builds[] | [.name, .power_W]]' "$tmp/out")"
[ "$(jq '.builds[2].devices' "$tmp/out")" = 256 ] && [ "$(jq '.builds[1].switches' "$tmp/out")" != "$(jq '.builds[0].switches' "$tmp/out")" ] && ok || bad "variant overrides not applied"
head -1 "$tmp/cmp.csv" | grep -q "power_W" && head -1 "$tmp/cmp.csv" | grep -q "allreduce_10KiB_s,allreduce_10KiB_algo" && ok || bad "compare CSV header: $(head -1 "$tmp/cmp.csv")"
grep -q '^cm384,ub,72,384,175,2268,4,392000000000,' "$tmp/cmp.csv" && ok || bad "compare CSV: raw numbers: $(grep '^cm384,' "$tmp/cmp.csv")"
expect 2 "compare --sort unknown" -- "$FABRICX" compare specs/hgx-h100.yaml --sort speed --out "$tmp/o"
has "--sort: no column 'speed'" "--sort message"
expect 2 "compare unbalanced variant" -- "$FABRICX" compare 'specs/torus-8x8x8.yaml@fabric.dims=[8,8' --out "$tmp/o"
has "expected SPEC@KEY=VALUE" "variant message"

summary "power and compare tests"
