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
# a given build over the budget: by how much, exit 3, over_budget in JSON
expect 3 "power over budget" -- "$FABRICX" power specs/dgx-h100-256.yaml --nodes 12 --budget 120kW --set 'power={node: 10.2 kW}' --out "$tmp/o"
golden power-over-budget
has "over budget: the 12-node build draws 122.4 kW, 2.4 kW over the budget of 120 kW" "over-budget message"
expect 3 "power over budget --json" -- "$FABRICX" power specs/dgx-h100-256.yaml --nodes 12 --budget 120kW --set 'power={node: 10.2 kW}' --json --out "$tmp/o"
[ "$(jq -c '[.over_budget, .over_budget_kW, .power_kW]' "$tmp/out")" = "[true,2.4,122.4]" ] && ok || bad "over_budget in JSON"
# a spec without power data: n/a, never 0 kW
expect 0 "power without a model" -- "$FABRICX" power specs/switched-64.yaml --out "$tmp/o"
golden power-no-model
expect 2 "budget without a model" -- "$FABRICX" power specs/switched-64.yaml --budget 10kW --out "$tmp/o"
has "has no power model" "budget without a model message"

# the same H100 NVLink gives the same small-message time in every spec
t1=$("$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --algo ring --size 10KiB --json --out "$tmp/o" | jq .time_us)
t2=$("$FABRICX" collective specs/dgx-h100-256.yaml --pattern allreduce --algo ring --size 10KiB --ranks 8 --json --out "$tmp/o" | jq .time_us)
[ -n "$t1" ] && [ "$t1" = "$t2" ] && ok || bad "ring allreduce 10 KiB on 8 H100: hgx-h100 $t1 us, dgx-h100-256 $t2 us"
# every shipped spec sets alpha (from a source or marked assumed)
for spec in specs/*.yaml; do
	grep -q "^collective:.*overhead" "$spec" && ok || bad "$spec sets no collective overhead"
done

summary "power and compare tests"
