#!/bin/sh
# Issue #15's "done when": every command's CPU time against fabric size,
# with the exponent (least-squares slope of log CPU seconds over log
# devices; runs under 0.05 s left out as start-up).  Two families grow to
# about a million devices: 3-D tori (dimension order) and fat-trees (split
# ECMP).  Collectives with many rounds are reported per round too (CPU /
# rounds), the measure.  Median of REPEAT (default 1) runs.
# Run from the repository root after `make`:  sh bench/scaling.sh
# TORUS="16 32 64 100" FATTREE="16 32 64 100" override the sizes.
set -u
REPEAT=${REPEAT:-1}
. bench/lib.sh

T=specs/torus-8x8x8.yaml
P='--set packaging.devices_per_node=1 --set packaging.nodes_per_rack=64'
F=specs/fat-tree-k8.yaml
echo "| command | devices | wall s | CPU s | peak MiB |"
echo "|---|---|---|---|---|"
for cmd in "metrics " "power " "collective --pattern all-to-all --size 32MiB" \
	   "collective --pattern allreduce --algo ring --size 64MiB" \
	   "collective --pattern allreduce --algo torus --size 64MiB" \
	   "failures --kind link" "explore --no-diagrams --out $out/x"; do
	for d in ${TORUS:-16 32 64 100}; do
		# shellcheck disable=SC2086
		one "torus: ${cmd%% --out*}" $((d * d * d)) ${cmd%% *} $T --set "fabric.dims=[$d,$d,$d]" $P ${cmd#* }
	done
	slope
done
for cmd in "metrics " "power " "collective --pattern all-to-all --size 32MiB" \
	   "collective --pattern allreduce --algo ring --size 64MiB" \
	   "failures --kind switch" "explore --no-diagrams --out $out/x"; do
	for k in ${FATTREE:-16 32 64 100}; do
		# shellcheck disable=SC2086
		one "fat-tree: ${cmd%% --out*}" $((k * k * k / 4)) ${cmd%% *} $F --set "fabric.k=$k" ${cmd#* }
	done
	slope
done
