#!/bin/sh
# Issue 31's figures: UB and NVSwitch routed by device classes, placement
# measured per instance, exact hop counts 64 sources a pass, the
# explicit-graph work guard.  Run from the repository root:
#   sh bench/issue31.sh          (REPEAT runs a row, default 1: it is long)
# sh bench/doc.sh writes its table into docs/performance.md.  Nothing here
# is a test: speed is measured, not asserted.
set -u
REPEAT=${REPEAT:-1}
. bench/lib.sh

echo "| command | size | wall s | CPU s | peak MiB |"
echo "|---|---|---|---|---|"
A2A="--pattern all-to-all --size 32MiB"
for n in 48 96 192 384 768; do
	one "UB all-to-all (\`collective specs/cm384.yaml --set fabric.nodes=N --set fabric.l2_ports=N $A2A\`), NPUs" $((8 * n)) \
		collective specs/cm384.yaml --set fabric.nodes=$n --set fabric.l2_ports=$n $A2A
done
slope
for n in 96 192 384; do
	one "UB ring allreduce 64 MiB, NPUs" $((8 * n)) \
		collective specs/cm384.yaml --set fabric.nodes=$n --set fabric.l2_ports=$n --pattern allreduce --size 64MiB
done
slope
for n in 256 512 1024; do
	one "UB placement, N instances of TP2xEP4 (\`place specs/cm384.yaml --set fabric.nodes=N --set fabric.l2_ports=N --instances N\`), devices" $((8 * n)) \
		place specs/cm384.yaml --set fabric.nodes=$n --set fabric.l2_ports=$n --instances $n
done
slope
for n in 10000 25000; do
	sh bench/custom-cubic.sh $n > "$out/cubic$n.yaml"
	one "metrics, random cubic graph (custom; hop counts exact), vertices" $n metrics "$out/cubic$n.yaml"
done
slope
for k in 32 64; do
	sh bench/custom-clos.sh $k > "$out/clos$k.yaml"
	one "all-to-all, custom k=K Clos (one push a pod), hosts" $((k * k * k / 4)) collective "$out/clos$k.yaml" $A2A
done
slope
sh bench/custom-torus.sh 128 128 > "$out/ct128.yaml"
one "ring allreduce 64 MiB, custom 128x128 torus (bounded as it goes)" 16384 \
	collective "$out/ct128.yaml" --pattern allreduce --size 64MiB
one "all-to-all, custom 128x128 torus (refused up front, exit 4: 2.68e9 steps)" 16384 \
	collective "$out/ct128.yaml" $A2A
: > "$out/fit"
# item 4: the fat-tree ring by s-t DAGs searched from both ends (linear in
# flows), the hash policy on its homes' shared searches (k=64 is still
# refused by the work guard, exit 4: its 4.3e9 flows are listed one
# destination at a time)
for k in 64 96 128; do
	one "fat-tree ring allreduce 64 MiB (\`collective specs/fat-tree-k8.yaml --set fabric.k=K --pattern allreduce --size 64MiB\`), hosts" $((k * k * k / 4)) \
		collective specs/fat-tree-k8.yaml --set fabric.k=$k --pattern allreduce --size 64MiB
done
slope
for k in 32 40 64; do
	one "fat-tree hash all-to-all (\`collective specs/fat-tree-k8.yaml --set fabric.k=K --routing hash $A2A\`), hosts" $((k * k * k / 4)) \
		collective specs/fat-tree-k8.yaml --set fabric.k=$k --routing hash $A2A
done
: > "$out/fit"

# pair NAME ARGS...: CPU seconds and exit status of $BASE and "$FABRICX"
pair() {
	name=$1
	shift
	row="| $name"
	for bin in "$BASE" "$FABRICX"; do
		/usr/bin/time -q -f "%U %S %x" -o "$out/one" "$bin" "$@" >/dev/null 2>"$out/err"
		row="$row | $(awk '{ printf "%.2f (exit %s)", $1 + $2, $3 }' "$out/one")"
	done
	echo "$row |"
}
[ -n "${BASE:-}" ] || exit 0
echo
echo "Before ($("$BASE" --version 2>/dev/null | head -1)) and after, CPU seconds (one run each):"
echo
echo "| command | before | after |"
echo "|---|---|---|"
for n in 384 768; do
	pair "UB all-to-all, $((8 * n)) NPUs" collective specs/cm384.yaml --set fabric.nodes=$n --set fabric.l2_ports=$n $A2A
done
pair "UB ring allreduce 64 MiB, 3,072 NPUs" collective specs/cm384.yaml --set fabric.nodes=384 --set fabric.l2_ports=384 --pattern allreduce --size 64MiB
pair "UB placement, 1,024 instances on 8,192 NPUs" place specs/cm384.yaml --set fabric.nodes=1024 --set fabric.l2_ports=1024 --instances 1024
pair "metrics, random cubic graph, 25,000 vertices" metrics "$out/cubic25000.yaml"
pair "all-to-all, custom k=32 Clos" collective "$out/clos32.yaml" $A2A
pair "all-to-all, custom k=64 Clos" collective "$out/clos64.yaml" $A2A
pair "ring allreduce, custom 128x128 torus" collective "$out/ct128.yaml" --pattern allreduce --size 64MiB
for k in 64 128; do
	pair "fat-tree k=$k ring allreduce 64 MiB" collective specs/fat-tree-k8.yaml --set fabric.k=$k --pattern allreduce --size 64MiB
done
for k in 32 40; do
	pair "fat-tree k=$k hash all-to-all" collective specs/fat-tree-k8.yaml --set fabric.k=$k --routing hash $A2A
done
awk 'BEGIN { n = 20000; print "name: ring\nfabric:\n  kind: custom\n  link: {bandwidth: 50 GB/s, latency: 200 ns}\n  nodes:";
	for (i = 0; i < n; i++) printf "    - {name: d%d, type: device, node: 0}\n", i; print "  links:";
	for (i = 0; i < n; i++) printf "    - {a: d%d, b: d%d}\n", i, (i + 1) % n }' > "$out/ring.yaml"
pair "ring allreduce, 20,000-device custom ring" collective "$out/ring.yaml" --pattern allreduce --algo ring --size 1MiB

