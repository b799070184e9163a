#!/bin/sh
# Times the step model alone (bench/step.c): fx_step_eval over a sweep of
# 864 layouts (TP 1-8 x EP 1-256 x PP 1-4 x CP 1-2 x 4 batches) of each
# spec's model, nanoseconds per scheme with the communication cache warm
# (the planner's case) and with the closed form asked every time, and the
# spec's own step routed on its fabric once (routing included).  Median
# of REPEAT runs by the cached figure.
# Run from the repository root after `make`:  sh bench/step.sh
set -eu
. bench/lib.sh
compile step

echo "| spec | schemes | ns a scheme, cache warm | ns a scheme, uncached | cache hits / misses | routed step, ms |"
echo "|---|---|---|---|---|---|"
for spec in specs/spaces/supernode-size.yaml specs/hgx-h100.yaml specs/cm384.yaml specs/hgx-h100-x8.yaml; do
	: > "$out/t"
	i=0
	while [ $i -lt "$REPEAT" ]; do
		"$out/step" "$spec" >> "$out/t"
		i=$((i + 1))
	done
	sort -n -k2 "$out/t" | sed -n "$(( (REPEAT + 1) / 2 ))p" |
		awk -v s="$spec" '{ printf "| %s | %d | %d | %d | %d / %d | %.1f |\n", s, $1, $2, $3, $4, $5, $6 }'
done
