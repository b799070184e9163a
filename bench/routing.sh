#!/bin/sh
# Issue #15's routing cliffs: whole `fabricx collective` commands at growing
# sizes, the median of REPEAT runs (default 3) of wall time, CPU time (user
# + system: steadier than wall time on a shared machine) and peak memory,
# and the scaling exponent (least-squares slope of log time against
# log ranks) of each series.  Run from the repository root after `make`:
#   sh bench/routing.sh            (every series)
#   SERIES=pairwise sh bench/routing.sh
# DIRECT_K="16 24 32 40 48 64" adds the 65,536-host fat-tree (30 s a run);
# PAIRWISE_K="12 16 20 24 28" the 5,488-host one (12 s of CPU, 730 MiB
# before its rounds were listed on demand); HC_D="10 11 12 13 14" the
# hypercubes of 2^13 and 2^14 (swing at 2^14 passes the route-work bound).
# bench/round.sh times the pairwise rounds' routing alone.
# Series: pairwise (pairwise all-to-all on fat-trees), direct (direct
# all-to-all on fat-trees), swing and rhd (allreduce on custom hypercubes),
# summa (SUMMA shifts on square wafer meshes; ranks = PEs), oddtorus
# (metrics on odd tori), meshline (all-to-all on k x 2 meshes), subset
# (all-to-all among all but one chip of a torus), explore (the whole
# design report of WSE-2-shaped wafers, a sixteenth to all of its 757 x 996
# PEs; ranks = PEs).
# Nothing here is a test: speed is measured, not asserted.
set -u
SERIES=${SERIES:-pairwise direct swing rhd summa oddtorus meshline subset explore}
. bench/lib.sh

echo "| command | ranks | wall s | CPU s | peak MiB |"
echo "|---|---|---|---|---|"
FT=specs/fat-tree-k8.yaml
for s in $SERIES; do
	case $s in
	pairwise)
		for k in ${PAIRWISE_K:-12 16 20 24}; do
			one "pairwise all-to-all 32 MiB, k=$k fat-tree" $((k * k * k / 4)) \
				collective $FT --set fabric.k=$k --pattern all-to-all --algo pairwise --size 32MiB
		done ;;
	direct)
		for k in ${DIRECT_K:-16 24 32 40 48}; do
			one "direct all-to-all 32 MiB, k=$k fat-tree" $((k * k * k / 4)) \
				collective $FT --set fabric.k=$k --pattern all-to-all --size 32MiB
		done ;;
	swing|rhd)
		for d in ${HC_D:-9 10 11 12}; do
			sh bench/hypercube.sh $d > "$out/hc$d.yaml"
			one "$s allreduce 64 MiB, hypercube 2^$d (custom)" $((1 << d)) \
				collective "$out/hc$d.yaml" --pattern allreduce --algo $s --size 64MiB
		done ;;
	summa)
		for p in 165 330 495 660; do
			one "SUMMA shifts 8 KiB, ${p}x$p wafer mesh" $((p * p)) \
				collective specs/wse2.yaml --set "fabric.grid=[$p,$p]" --pattern gemm-shift --algo summa --size 8KiB
		done ;;
	oddtorus)  # metrics (hops, bisection) on odd tori; "ranks" = chips
		for d in 17 37 61 101; do
			one "metrics, ${d}x${d}x$d torus" $((d * d * d)) \
				metrics specs/torus-8x8x8.yaml --set "fabric.dims=[$d,$d,$d]" --set packaging.devices_per_node=1
		done ;;
	meshline)  # all-pairs on a long thin mesh (lines of k)
		for k in 2000 4000 8000 16000; do
			one "all-to-all 1 MiB, ${k}x2 mesh" $((k * 2)) \
				collective specs/wse2.yaml --set "fabric.grid=[$k,2]" --pattern all-to-all --size 1MiB
		done ;;
	subset)  # all-to-all among d^3-1 ranks of a d^3 torus (a rank subset)
		for d in 16 24 32 48; do
			one "all-to-all 32 MiB, ${d}^3 torus, $((d * d * d - 1)) ranks" $((d * d * d - 1)) \
				collective specs/torus-8x8x8.yaml --set "fabric.dims=[$d,$d,$d]" --set packaging.devices_per_node=1 \
				--pattern all-to-all --size 32MiB --ranks $((d * d * d - 1))
		done ;;
	explore)
		for g in "189,249" "378,498" "535,704" "757,996"; do
			x=${g%,*} y=${g#*,}
			one "explore, ${x}x$y wafer (wse2.yaml)" $((x * y)) \
				explore specs/wse2.yaml --set "fabric.grid=[$g]" --out "$out/explore"
		done ;;
	esac
	slope
done
