#!/bin/sh
# Issue #30: the cost of each timing mode (collective --timing
# bound|maxmin|events) on 64, 512 and 4,096 ranks, with the exponent of
# CPU time over ranks.  Tori 8x8, 16x32, 64x64 (dimension order) and
# fat-trees k = 8 (128 hosts, the first 64), 16 (1,024, the first 512),
# 26 (4,394, the first 4,096) under the hash policy; a ring allreduce
# (2(n-1) rounds of n flows), a Swing allreduce on the tori (2 log2 n
# rounds) and a pairwise all-to-all on the fat-trees (n-1 rounds).
# Median of REPEAT (default 1) runs.  Run from the repository root after
# `make`:  sh bench/timing.sh
set -u
REPEAT=${REPEAT:-1}
. bench/lib.sh

T=specs/torus-8x8x8.yaml
F=specs/fat-tree-k8.yaml
P="--set packaging.devices_per_node=1 --set packaging.nodes_per_rack=1"
echo "| run | ranks | wall s | CPU s | peak MiB |"
echo "|---|---|---|---|---|"
for mode in bound maxmin events; do
	for algo in ring swing-torus; do
		for dims in 8,8 16,32 64,64; do
			n=$(echo "$dims" | awk -F, '{ print $1 * $2 }')
			one "torus allreduce/$algo 1 MiB, $mode" "$n" collective $T --set "fabric.dims=[$dims]" \
				--pattern allreduce --algo "$algo" --size 1MiB --timing "$mode"
		done
		slope
	done
	for algo in "allreduce ring" "all-to-all pairwise"; do
		for kn in 8:64 16:512 26:4096; do
			one "fat-tree ${algo% *}/${algo#* } 1 MiB hash, $mode" "${kn#*:}" collective $F $P \
				--set "fabric.k=${kn%:*}" --routing hash --ranks "${kn#*:}" --pattern "${algo% *}" \
				--algo "${algo#* }" --size 1MiB --timing "$mode"
		done
		slope
	done
done
