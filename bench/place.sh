#!/bin/sh
# Placement benchmarks (issue: placement that scales): wall seconds, peak
# MiB, status and gap of `fabricx place` at each size, median of REPEAT
# runs (default 3).  Run from the repository root: sh bench/place.sh.
# Figures go into docs/performance.md by hand.  Nothing here is a test.
set -u
. bench/lib.sh

# bench NAME -- ARGS...: NAME, median seconds and MiB, exit, status, gap
bench() {
	name=$1; shift 2
	: > "$out/t"
	i=0
	while [ $i -lt "$REPEAT" ]; do
		/usr/bin/time -q -f "%e %M" -o "$out/one" "$FABRICX" place "$@" --json >"$out/json" 2>"$out/err"
		rc=$?
		cat "$out/one" >> "$out/t"
		i=$((i + 1))
	done
	status=$(jq -r '.status // empty' "$out/json" 2>/dev/null)
	gap=$(jq -r 'if .gap == null then "-" else .gap * 100 end' "$out/json" 2>/dev/null |
		awk '$1 == "-" { print; next } { printf "%.3g %%", $1 }')
	[ -n "$status" ] || { status=$(sed -n '1s/^fabricx: \([a-z ]*\):.*/\1/p' "$out/err"); gap=-; }
	sort -n "$out/t" | awk -v n="$name" -v rc="$rc" -v s="$status" -v g="$gap" \
		'{ t[NR] = $1; m[NR] = $2 }
		END { k = int((NR + 1) / 2); printf "| %s | %.2f | %.0f | %s | %s | %s |\n", n, t[k], m[k] / 1024, rc, s, g }'
}

echo "| placement | seconds | peak MiB | exit | status | gap |"
echo "|---|---|---|---|---|---|"
bench "CloudMatrix384, 48 TP2xEP4" -- specs/cm384.yaml
bench "CloudMatrix384, 49 TP2xEP4 (devices: arithmetic)" -- specs/cm384.yaml --instances 49
bench "CloudMatrix384, 48 under 500 kW (system power: arithmetic)" -- specs/cm384.yaml --budget 500kW
bench "16x16x16 torus, 1,024 TP4" -- tests/specs/torus-16x16x16.yaml
bench "32x32 mesh, 64 TP16" -- tests/specs/mesh-32x32.yaml
bench "32x32 mesh, 128 TP8" -- tests/specs/mesh-32x32.yaml --set workload.scheme.tp=8 --set workload.instances=128
bench "32x32 mesh, 256 TP4" -- tests/specs/mesh-32x32.yaml --set workload.scheme.tp=4 --set workload.instances=256
bench "k=16 fat-tree (1,024 hosts), 128 TP8" -- tests/specs/fat-tree-1024.yaml
bench "k=16 fat-tree, 60 TP16 across node pairs" -- tests/specs/fat-tree-1024.yaml --set workload.scheme.tp=16 --set workload.instances=60 --set 'workload.keep_within={tp: any}'
bench "512-GPU 2:1 leaf-spine under 400 kW, 36 TP8" -- tests/specs/leaf-spine-512.yaml
bench "ports budget, 1 TP2xEP4 (the MILP decides)" -- tests/specs/ports-budget.yaml --set 'workload.comm_budget=30 us'
