#!/bin/sh
# Design-space benchmarks (issue #16 item 7): points per second of
# `fabricx explore` on a 1,000-point space of 8x8x8 tori (512 devices,
# metrics and power per point) on one core (--jobs 1), on all cores
# (--jobs all) and under `mpirun --oversubscribe -np 2`, and on a
# 10,000-point space sampled with --budget-points; the median of REPEAT
# runs (default 3).  Run from the repository root: sh bench/space.sh.
# Figures go into docs/performance.md by hand.  Nothing here is a test.
set -u
BUDGET=${BUDGET:-1000}
. bench/lib.sh

# 1,000 points: 10 link bandwidths x 10 latencies x 10 device powers
cat >"$out/s1k.yaml" <<'YAML'
name: s1k
fabric: {kind: torus, dims: [8, 8, 8], link: {bandwidth: 50 GB/s, latency: 200 ns}}
packaging: {devices_per_node: 4, nodes_per_rack: 16}
power: {device: 192 W}
space:
  vary:
    fabric.link.bandwidth: {from: 10 GB/s, to: 100 GB/s, step: 10 GB/s}
    fabric.link.latency: {from: 100 ns, to: 1000 ns, step: 100 ns}
    power.device: {from: 100 W, to: 1000 W, step: 100 W}
  objectives:
    - {maximize: bisection_per_device_Bps}
    - {minimize: power_W}
  metrics: [devices, diameter_hops]
YAML
# 10,000 points: the same and 10 torus shapes of 64 to 512 chips
sed -e 's/^name: s1k/name: s10k/' \
	-e 's/^  vary:/  vary:\n    fabric.dims: [[4,4,4], [4,4,8], [4,8,8], [8,8,8], [2,4,8], [2,8,8], [4,4,6], [6,6,6], [4,6,8], [6,6,8]]/' \
	"$out/s1k.yaml" >"$out/s10k.yaml"

# bench NAME POINTS -- COMMAND...: NAME, median seconds, points per second
bench() {
	name=$1 pts=$2; shift 3
	: >"$out/t"
	i=0
	while [ $i -lt "$REPEAT" ]; do
		rm -rf "$out/o"
		/usr/bin/time -q -f "%e %U %S" -o "$out/one" "$@" --quiet --out "$out/o" >/dev/null 2>"$out/err" ||
			{ echo "| $name | failed: $(head -n 1 "$out/err") | | | | |"; return; }
		cat "$out/one" >>"$out/t"
		i=$((i + 1))
	done
	# a sample evaluates at most its budget: count what it did
	r=$(ls "$out"/o/*/report.json 2>/dev/null | head -n 1)
	[ -n "$r" ] && pts=$(jq .space.points_evaluated "$r")
	# the median wall time and the median CPU time (user + system, children
	# included), each with its rate: on a shared machine CPU seconds say more
	awk '{ print $2 + $3 }' "$out/t" | sort -n >"$out/cpu"
	sort -n "$out/t" | awk -v n="$name" -v p="$pts" -v c="$(awk '{ c[NR] = $1 } END { print c[int((NR + 1) / 2)] }' "$out/cpu")" \
		'{ t[NR] = $1 } END { k = int((NR + 1) / 2); printf "| %s | %d | %.2f | %.0f | %.2f | %.0f |\n", n, p, t[k], p / t[k], c, p / c }'
}

echo "| space ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)) | points | seconds | points/s | CPU seconds | points per CPU second |"
echo "|---|---|---|---|---|---|"
bench "1,000 points, --jobs 1" 1000 -- "$FABRICX" explore "$out/s1k.yaml" --jobs 1
bench "1,000 points, --jobs all" 1000 -- "$FABRICX" explore "$out/s1k.yaml" --jobs all
if command -v mpirun >/dev/null 2>&1; then
	bench "1,000 points, mpirun -np 2" 1000 -- mpirun --oversubscribe -np 2 "$FABRICX" explore "$out/s1k.yaml"
else
	echo "| 1,000 points, mpirun -np 2 | mpirun not found | | | | |"
fi
bench "10,000-point space, --budget-points $BUDGET, --jobs 1" "$BUDGET" -- "$FABRICX" explore "$out/s10k.yaml" --budget-points "$BUDGET" --jobs 1
bench "10,000-point space, --budget-points $BUDGET, --jobs all" "$BUDGET" -- "$FABRICX" explore "$out/s10k.yaml" --budget-points "$BUDGET" --jobs all
