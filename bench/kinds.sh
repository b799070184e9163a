#!/bin/sh
# Issue #27's direct-network kinds at about 100,000 devices: `metrics` (hop
# counts in closed form or from one group's searches, the bisection's
# closed form) and the dragonfly all-to-all under each routing policy (the
# kind's router, from per-switch and per-group counts), the median of
# REPEAT runs (default 3) of wall time, CPU time and peak memory, as
# bench/lib.sh measures them.  Run from the repository root after `make`:
#   sh bench/kinds.sh
# SERIES=metrics or SERIES=dragonfly for one series; DF_H="4 6 8 10 13"
# sets the canonical dragonflies of the scaling series (p = h, a = 2h,
# g = 2h^2 + 1: 2h^2 (2h^2 + 1) devices).
# Nothing here is a test: speed is measured, not asserted.
set -u
SERIES=${SERIES:-metrics dragonfly scaling}
. bench/lib.sh

spec() {  # spec NAME YAML: writes $out/NAME.yaml
	printf 'name: %s\n%s\n' "$1" "$2" > "$out/$1.yaml"
}
spec df "fabric: {kind: dragonfly, p: 13, a: 26, h: 13, link: {bandwidth: 25 GB/s, latency: 100 ns}, global_link: {bandwidth: 25 GB/s, latency: 300 ns, medium: optical}}"
spec dfp "fabric: {kind: dragonfly, group: leaf-spine, p: 18, leaves: 18, a: 18, h: 18, link: {bandwidth: 25 GB/s, latency: 100 ns}}"
spec sf "fabric: {kind: slimfly, q: 43, link: {bandwidth: 25 GB/s, latency: 100 ns}}"
spec hx "fabric: {kind: hyperx, dims: [16, 16, 16], t: 24, link: {bandwidth: 25 GB/s, latency: 100 ns}}"

echo "| command | devices | wall s | CPU s | peak MiB |"
echo "|---|---|---|---|---|"
for s in $SERIES; do
	case $s in
	metrics)
		one "metrics, dragonfly p=h=13, a=26, g=339" 114582 metrics "$out/df.yaml"
		one "metrics, Dragonfly+ 18 leaves x 18 spines, h=18, g=325" 105300 metrics "$out/dfp.yaml"
		one "metrics, slimfly q=43" 122034 metrics "$out/sf.yaml"
		one "metrics, hyperx 16x16x16, t=24" 98304 metrics "$out/hx.yaml" ;;
	dragonfly)
		for pol in split hash valiant ugal; do
			one "all-to-all 32 MiB, dragonfly g=339, --routing $pol" 114582 \
				collective "$out/df.yaml" --pattern all-to-all --size 32MiB --routing "$pol"
		done
		one "all-to-all 32 MiB, Dragonfly+ g=325, --routing valiant" 105300 \
			collective "$out/dfp.yaml" --pattern all-to-all --size 32MiB --routing valiant ;;
	scaling)
		: > "$out/fit"
		for h in ${DF_H:-4 6 8 10 13}; do
			n=$((2 * h * h * (2 * h * h + 1)))
			one "metrics, canonical dragonfly h=$h" $n metrics "$out/df.yaml" \
				--set fabric.p=$h --set fabric.a=$((2 * h)) --set fabric.h=$h
		done
		slope
		for h in ${DF_H:-4 6 8 10 13}; do
			n=$((2 * h * h * (2 * h * h + 1)))
			one "all-to-all 32 MiB valiant, canonical dragonfly h=$h" $n collective "$out/df.yaml" \
				--set fabric.p=$h --set fabric.a=$((2 * h)) --set fabric.h=$h \
				--pattern all-to-all --size 32MiB --routing valiant
		done
		slope ;;
	esac
done
