#!/bin/sh
# Times the bisection alone (bench/bisect.c: no hop counts, no report) on
# custom graphs of growing size: hypercubes, 2-D tori written out by hand,
# random cubic graphs (bench/custom-cubic.sh) and k-ary Clos networks
# (bench/custom-clos.sh).  Median of REPEAT runs.
# Run from the repository root after `make`:  sh bench/bisect.sh
set -eu
. bench/lib.sh
compile bisect

run() {  # NAME SPEC: median seconds, links, method
	name=$1
	: > "$out/t"
	i=0
	while [ $i -lt "$REPEAT" ]; do
		"$out/bisect" "$2" >> "$out/t"
		i=$((i + 1))
	done
	sort -n "$out/t" | awk -v n="$name" '{ l[NR] = $0 }
		END { split(l[int((NR + 1) / 2)], f, " "); m = l[1]; sub(/^[^ ]* [^ ]* /, "", m)
		      printf "| %s | %.3f | %s | %s |\n", n, f[1], f[2], m }'
}

echo "| custom graph | bisection s | links | method |"
echo "|---|---|---|---|"
for d in ${HCUBE:-8 10 11 12 13}; do
	sh bench/hypercube.sh "$d" > "$out/g.yaml"
	run "hypercube 2^$d" "$out/g.yaml"
done
for s in ${TORUS:-32 45 64 90}; do
	sh bench/custom-torus.sh "$s" "$s" > "$out/g.yaml"
	run "${s}x$s torus (custom)" "$out/g.yaml"
done
for n in ${CUBIC:-12500 25000 50000 100000}; do
	sh bench/custom-cubic.sh "$n" > "$out/g.yaml"
	run "random cubic, $n devices (custom)" "$out/g.yaml"
done
for k in ${CLOS:-8 12 16 20 24}; do
	sh bench/custom-clos.sh "$k" > "$out/g.yaml"
	run "k=$k Clos (custom)" "$out/g.yaml"
done
