#!/bin/sh
# Hardening tests (docs/reliability.md): resource limits, time limits, and
# output that is written whole or not at all.
#
#   FABRICX=/path/to/fabricx sh tests/cli/hardening.sh
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

cat >"$tmp/big.yaml" <<'YAML'
name: big
fabric:
  kind: torus
  dims: [64, 64, 64]
  link: {bandwidth: 50 GB/s, latency: 200 ns}
YAML

# ---- size limits: refused up front, in well under a second ----
expect 2 "huge fabric" -- "$FABRICX" metrics specs/torus-8x8x8.yaml --set 'fabric.dims=[1024,1024,1024]' --out "$tmp/o"
has "fabric too large: 1.074e+09 devices, 0 switches and 3.221e+09 link bundles" "huge fabric names its size"
has "over the limit of" "huge fabric names the limit"
expect 2 "fabric over --max-memory" -- "$FABRICX" metrics specs/cm384.yaml --max-memory 1MiB --out "$tmp/o"
has "over the limit of 1 MiB (see --max-memory)" "fabric limit follows --max-memory"
# 262144 ranks x 262143 rounds = 6.9e10 flows (1.5 TiB) would run for hours
expect 2 "pairwise all-to-all on 64^3" -- "$FABRICX" collective "$tmp/big.yaml" --pattern all-to-all --algo pairwise --size 1MiB --out "$tmp/o"
has "all-to-all/pairwise over 262144 ranks lists about 6.87e+10 flows" "flow estimate"
# 2 x 63 x 3 rounds x 6 parts x 262144 devices = 5.9e8 flows, 13.3 GiB
expect 2 "torus allreduce over --max-memory" -- "$FABRICX" collective "$tmp/big.yaml" --pattern allreduce --algo torus --size 1MiB --max-memory 1GiB --out "$tmp/o"
has "allreduce/torus over 262144 ranks lists about 5.95e+08 flows" "torus flow estimate"
expect 0 "ring allreduce on 64^3 fits" -- "$FABRICX" collective "$tmp/big.yaml" --pattern allreduce --algo ring --size 1MiB --out "$tmp/o"
expect 0 "pipelined chain on 64^3 is linear" -- "$FABRICX" collective "$tmp/big.yaml" --pattern broadcast --algo chain --size 1MiB --out "$tmp/o"
# 100,000 chunks on 64 ranks: the steady rounds are one repeated round
expect 0 "chain with 100000 chunks" -- "$FABRICX" collective specs/switched-64.yaml --pattern broadcast --algo chain --chunks 100000 --size 1MiB --json --out "$tmp/o"
if jq -e '.rounds==100062 and (.per_round|length)==125 and ([.per_round[].repeat]|add)==100062' "$tmp/out" >/dev/null; then ok; else
	bad "chain rounds: $(jq -c '[.rounds, (.per_round|length)]' "$tmp/out")"; fi
# the MILP: 48 instances x 48 nodes is 5376 columns, about 4.7 MiB for GLPK
# the MILP is built only when the packing's bound leaves a question open
# (or --lp asks for it); its size is estimated first (48 x 48 x 2 + ...)
expect 2 "placement model over --max-memory" -- "$FABRICX" place specs/cm384.yaml --max-memory 4MiB --lp "$tmp/m.lp" --out "$tmp/o"
has "fabricx: error: --lp: the MILP would have about 5.38e+03 columns, too large to write" "MILP estimate"
# no closed form (odd extents) and too large for max-flow: a linear-time bound.
# By hand, for the device-order split (x fastest): side A is z-slabs 0-30
# and the first 1984 devices of slab 31 (rows y 0-30 and 31 devices of row
# 31).  z links: 1985 + 1984 across slab 31, 3969 on the wrap = 7938; inside
# slab 31, y links 31 + 32 + 63 (wrap) = 126 and x links 1 + 1 (wrap) = 2;
# 8066 in all.
expect 0 "bisection of a 63^3 torus" -- "$FABRICX" metrics "$tmp/big.yaml" --set 'fabric.dims=[63,63,63]' --json --out "$tmp/o"
if jq -e '.bisection.method=="bound" and .bisection.links==8066' "$tmp/out" >/dev/null; then ok; else
	bad "63^3 bisection bound"; head -c 300 "$tmp/out"; fi
# a max-flow over a million vertices and edges takes minutes: refused
expect 2 "--cut past the max-flow limit" -- "$FABRICX" metrics "$tmp/big.yaml" --cut x=0-31:rest --out "$tmp/o"
has "the cut needs a max-flow over 262144 vertices and 786432 edges" "max-flow limit message"
expect 2 "detail full past the drawing limit" -- "$FABRICX" render "$tmp/big.yaml" --detail full --out "$tmp/o"

expect 2 "past 32-bit device numbers" -- "$FABRICX" metrics specs/torus-8x8x8.yaml --set 'fabric.dims=[4096,4096,4096]' --out "$tmp/o"
has "describes 6.87e+10 devices; fabricx numbers devices with 32-bit indexes" "index limit"

# ---- time limits: the solver stops and says what it reached ----
# a time limit never turns a feasible placement into "infeasible": cm384's
# 48 instances are proven optimal by the packing, whatever the limit
expect 0 "placement under a tiny --time-limit" -- "$FABRICX" place specs/cm384.yaml --time-limit 0.01 --json --out "$tmp/o"
[ "$(jq -r .status "$tmp/out")" = optimal ] && ok || bad "cm384 under 0.01 s: optimal"
expect 2 "--time-limit must be positive" -- "$FABRICX" place specs/cm384.yaml --time-limit 0 --out "$tmp/o"
expect 2 "--time-limit inf is unbounded" -- "$FABRICX" place specs/hgx-h100.yaml --time-limit inf --out "$tmp/o"
has "at most 86400 seconds" "unbounded time limit message"
expect 2 "--time-limit past a day" -- "$FABRICX" explore specs/hgx-h100.yaml --time-limit 1e10 --out "$tmp/o"
expect 0 "--time-limit with a unit" -- "$FABRICX" place specs/hgx-h100.yaml --time-limit '500 ms' --out "$tmp/o"
expect 0 "placement reports its gap" -- "$FABRICX" place specs/hgx-h100.yaml --json --out "$tmp/o"
if jq -e '(.placement // .) | (.gap|type=="number") and (.status=="optimal") and (.gap==0)' "$tmp/out" >/dev/null; then ok; else
	bad "place --json: gap"; head -c 300 "$tmp/out"; fi

# ---- no partial output ----
# explore always delivers its report: a section that is infeasible is
# written with its status and reason, the others complete, exit 3; the
# folder is replaced whole, so nothing of an earlier run is left looking
# current, and folders left by killed runs are swept
mkdir -p "$tmp/o/cm384" "$tmp/o/.cm384.new-killed"
echo "earlier report" >"$tmp/o/cm384/report.md"
echo "stale" >"$tmp/o/cm384/stale.csv"
expect 3 "explore with an infeasible placement" -- "$FABRICX" explore specs/cm384.yaml --set workload.instances=1000 --out "$tmp/o"
[ "$(jq -r .sections.placement.status "$tmp/o/cm384/report.json")" = infeasible ] && [ "$(jq -r '[.sections[]|.status]|map(select(.=="ok"))|length' "$tmp/o/cm384/report.json")" = 5 ] && ok || bad "infeasible placement: a report with its status, the rest ok"
grep -q "^| placement | infeasible | no placement of 1000 instances of 8 devices fits: devices: 1000 instances x 8 devices = 8000, the fabric has 384 |" "$tmp/o/cm384/report.md" && ok || bad "report.md names the placement's status and reason"
[ ! -e "$tmp/o/cm384/stale.csv" ] && ! grep -q "earlier report" "$tmp/o/cm384/report.md" && ok || bad "explore replaces its folder whole"
[ -z "$(ls -A "$tmp/o" | grep -e '\.new-' -e '\.old')" ] && ok || bad "staging folders swept: $(ls -A "$tmp/o")"
# a symbolic link at out/<name> is refused, not followed
mkdir -p "$tmp/elsewhere" "$tmp/l" && ln -s "$tmp/elsewhere" "$tmp/l/cm384"
expect 2 "explore into a symlinked folder" -- "$FABRICX" explore specs/cm384.yaml --out "$tmp/l"
has "a symbolic link (refused" "symlink message"
[ -z "$(ls -A "$tmp/elsewhere")" ] && [ -L "$tmp/l/cm384" ] && ok || bad "symlink target untouched"
leftover=$(find "$tmp/o" -name '.*.tmp.*' | head -3)
[ -z "$leftover" ] && ok || bad "temporaries left behind: $leftover"
# interrupted: SIGINT part-way through a report removes the temporaries
rm -rf "$tmp/o"
"$FABRICX" explore specs/wse2.yaml --set 'fabric.grid=[400,400]' --out "$tmp/o" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT "$pid" 2>/dev/null
wait "$pid"
st=$?
leftover=$(find "$tmp/o" -name '.*.tmp.*' 2>/dev/null | head -3)
[ -z "$leftover" ] && ok || bad "SIGINT left temporaries: $leftover"
if [ "$st" -ne 0 ]; then
	[ ! -e "$tmp/o/wse2/report.md" ] && ok || bad "interrupted explore left report.md"
fi
# a whole run leaves every file and no temporary
expect 0 "explore writes its report" -- "$FABRICX" explore specs/nvl72.yaml --no-diagrams --out "$tmp/o"
[ -s "$tmp/o/nvl72/report.md" ] && [ -s "$tmp/o/nvl72/report.json" ] && ok || bad "explore: no report"
leftover=$(find "$tmp/o" -name '.*.tmp.*' | head -3)
[ -z "$leftover" ] && ok || bad "temporaries left after a whole run: $leftover"
# --json: a command that fails prints no JSON at all, not half an object
expect 2 "metrics --json with a bad --cut" -- "$FABRICX" metrics specs/nvl72.yaml --json --cut node=0-99:rest --out "$tmp/o"
[ ! -s "$tmp/out" ] && ok || bad "failed metrics --json printed: $(head -c 80 "$tmp/out")"
expect 4 "place --json cut off by the node limit" -- "$FABRICX" place tests/specs/ports-budget.yaml --set 'workload.comm_budget=30 us' --node-limit 1 --json --out "$tmp/o"
[ ! -s "$tmp/out" ] && ok || bad "failed place --json printed: $(head -c 80 "$tmp/out")"
# an unwritable output directory is a clear error, not a crash
mkdir -p "$tmp/ro/nvl72" && chmod 500 "$tmp/ro/nvl72"
if [ "$(id -u)" != 0 ]; then
	expect 2 "unwritable out/" -- "$FABRICX" metrics specs/nvl72.yaml --out "$tmp/ro"
	has "cannot" "unwritable out/ message"
fi

summary "hardening tests"
