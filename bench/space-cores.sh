#!/bin/sh
# Spaces on every core (issue #31 item 5): a 10,000-point space (10 torus
# shapes x 10 link bandwidths x 10 latencies x 10 device powers, metrics,
# power, two objectives, the report's nine charts in SVG and PNG) run with
# --jobs 1, --jobs 2 and `mpirun --oversubscribe -np 2`, with and without
# its plots (--no-diagrams), the runs interleaved so a change of load hits
# every configuration alike; the median of REPEAT rounds (default 5).  The
# speed-up is the --jobs 1 median wall time over the other's.  On a shared
# machine the load average (printed before and after) decides what a
# second core can give: with L runnable processes on C cores a process
# gets about C / (L + 1) of one, so two processes get about twice that
# only while L stays above C.  Run from the repository root:
# sh bench/space-cores.sh.  Figures go into docs/performance.md by hand.
# Nothing here is a test.
set -u
REPEAT=${REPEAT:-5}
. bench/lib.sh

cat >"$out/s10k.yaml" <<'YAML'
name: s10k
fabric: {kind: torus, dims: [8, 8, 8], link: {bandwidth: 50 GB/s, latency: 200 ns}}
packaging: {devices_per_node: 4, nodes_per_rack: 16}
power: {device: 192 W}
space:
  vary:
    fabric.dims: [[4,4,4], [4,4,8], [4,8,8], [8,8,8], [2,4,8], [2,8,8], [4,4,6], [6,6,6], [4,6,8], [6,6,8]]
    fabric.link.bandwidth: {from: 10 GB/s, to: 100 GB/s, step: 10 GB/s}
    fabric.link.latency: {from: 100 ns, to: 1000 ns, step: 100 ns}
    power.device: {from: 100 W, to: 1000 W, step: 100 W}
  objectives:
    - {maximize: bisection_per_device_Bps}
    - {minimize: power_W}
  metrics: [devices, diameter_hops]
YAML

mpi=0
command -v mpirun >/dev/null 2>&1 && mpirun --oversubscribe -np 2 true >/dev/null 2>&1 && mpi=1
names="j1 j2 j1n j2n"
[ $mpi = 1 ] && names="$names m2 m2n"
# cmd NAME: the command of a configuration
cmd() {
	case $1 in
	j1) echo "$FABRICX explore $out/s10k.yaml --jobs 1" ;;
	j2) echo "$FABRICX explore $out/s10k.yaml --jobs 2" ;;
	j1n) echo "$FABRICX explore $out/s10k.yaml --jobs 1 --no-diagrams" ;;
	j2n) echo "$FABRICX explore $out/s10k.yaml --jobs 2 --no-diagrams" ;;
	m2) echo "mpirun --oversubscribe -np 2 $FABRICX explore $out/s10k.yaml" ;;
	m2n) echo "mpirun --oversubscribe -np 2 $FABRICX explore $out/s10k.yaml --no-diagrams" ;;
	esac
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
i=0
while [ $i -lt "$REPEAT" ]; do
	for n in $names; do
		rm -rf "$out/o"
		# shellcheck disable=SC2046
		/usr/bin/time -f "%e %U %S" -o "$out/one" $(cmd $n) --quiet --out "$out/o" >/dev/null 2>"$out/err" ||
			{ echo "$n failed: $(head -n 1 "$out/err")"; exit 1; }
		cat "$out/one" >>"$out/$n"
	done
	i=$((i + 1))
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "| 10,000 points ($(nproc) cores; load $load0 before, $load1 after; median of $REPEAT) | wall s | CPU s | speed-up over --jobs 1 |"
echo "|---|---|---|---|"
for n in $names; do
	w=$(cut -d' ' -f1 "$out/$n" | med)
	c=$(awk '{ print $2 + $3 }' "$out/$n" | med)
	case $n in *n) base=j1n; what="without plots" ;; *) base=j1; what="with plots" ;; esac
	b=$(cut -d' ' -f1 "$out/$base" | med)
	case $n in j1*) label="--jobs 1" ;; j2*) label="--jobs 2" ;; m2*) label="mpirun -np 2" ;; esac
	awk -v l="$label, $what" -v w="$w" -v c="$c" -v b="$b" 'BEGIN { printf "| %s | %.2f | %.2f | %.2fx |\n", l, w, c, b / w }'
done
