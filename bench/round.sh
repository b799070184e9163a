#!/bin/sh
# Times the router alone on a pairwise all-to-all's rounds (bench/round.c:
# 64 shifted rounds i -> i+s on a fat-tree, no schedule, no report), split
# ECMP through the up/down sweep and through the grouped push: CPU seconds per
# round (median of REPEAT runs) and each path's exponent in ranks, after a
# first round that builds every target's search (its seconds in the last
# columns: paid once per collective, not per round).
# Run from the repository root after `make`:  sh bench/round.sh
#   ROUND_K="12 16 20 24 32 40" picks the fat-trees.
set -eu
. bench/lib.sh
compile round

echo "| fat-tree | ranks | up/down ms a round | grouped push ms a round | first round ms, up/down / push |"
echo "|---|---|---|---|---|"
: > "$out/fit"
for k in ${ROUND_K:-12 16 20 24 32 40}; do
	: > "$out/t"
	i=0
	while [ $i -lt "$REPEAT" ]; do
		"$out/round" specs/fat-tree-k8.yaml "fabric.k=$k" >> "$out/t"
		i=$((i + 1))
	done
	# medians of each column
	n=$(head -1 "$out/t" | cut -d' ' -f1)
	a=$(cut -d' ' -f2 "$out/t" | sort -n | sed -n "$(( (REPEAT + 1) / 2 ))p")
	b=$(cut -d' ' -f3 "$out/t" | sort -n | sed -n "$(( (REPEAT + 1) / 2 ))p")
	fa=$(cut -d' ' -f4 "$out/t" | sort -n | sed -n "$(( (REPEAT + 1) / 2 ))p")
	fb=$(cut -d' ' -f5 "$out/t" | sort -n | sed -n "$(( (REPEAT + 1) / 2 ))p")
	awk -v k="$k" -v n="$n" -v a="$a" -v b="$b" -v fa="$fa" -v fb="$fb" \
		'BEGIN { printf "| k=%s | %d | %.3f | %.3f | %.1f / %.1f |\n", k, n, a * 1e3, b * 1e3,
			 fa * 1e3, fb * 1e3 }'
	echo "$n $a $b" >> "$out/fit"
done
awk '{ x = log($1); n++; sx += x; sxx += x * x
       ya = log($2); sa += ya; sxa += x * ya; yb = log($3); sb += yb; sxb += x * yb }
     END { d = n * sxx - sx * sx
	   printf "| exponent (%d sizes) | | %.2f | %.2f | |\n", n, (n * sxa - sx * sa) / d,
		  (n * sxb - sx * sb) / d }' "$out/fit"
