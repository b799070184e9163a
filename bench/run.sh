#!/bin/sh
# fabricx benchmarks: wall time and peak memory of whole commands, median of
# REPEAT runs (default 3).  Run from the repository root: `make bench` or
#   sh bench/run.sh
# Figures go into docs/performance.md by hand, with the machine they came
# from.  Nothing here is a test: speed is measured, not asserted.
set -u
. bench/lib.sh

if [ ! -x /usr/bin/time ]; then
	echo "bench needs /usr/bin/time (Debian package 'time')" >&2
	exit 1
fi

# bench NAME -- ARGS...: prints NAME, median seconds, median peak RSS (MiB)
bench() {
	name=$1; shift 2
	: > "$out/t"
	i=0
	while [ $i -lt "$REPEAT" ]; do
		/usr/bin/time -f "%e %M" -o "$out/one" "$FABRICX" "$@" --out "$out/o" >/dev/null 2>"$out/err" ||
			{ echo "$name: failed"; cat "$out/err"; return; }
		cat "$out/one" >> "$out/t"
		i=$((i + 1))
	done
	sort -n "$out/t" | awk -v n="$name" '{ t[NR] = $1; m[NR] = $2 }
		END { k = int((NR + 1) / 2); printf "| %s | %.2f | %.0f |\n", n, t[k], m[k] / 1024 }'
}

echo "| benchmark | seconds | peak MiB |"
echo "|---|---|---|"
A2A="--pattern all-to-all --size 32MiB"
bench "all-to-all link loads, 8x8x8 torus (512)" -- collective specs/torus-8x8x8.yaml $A2A
bench "all-to-all link loads, 16x16x16 torus (4,096)" -- collective specs/torus-8x8x8.yaml --set 'fabric.dims=[16,16,16]' $A2A
bench "all-to-all link loads, k=16 fat-tree (1,024 hosts)" -- collective specs/fat-tree-k8.yaml --set fabric.k=16 $A2A
bench "all-to-all link loads, CloudMatrix384" -- collective specs/cm384.yaml $A2A
sh bench/custom-clos.sh 16 > "$out/clos1024.yaml"
bench "all-to-all link loads, custom k=16 Clos (1,024 hosts, ECMP split)" -- collective "$out/clos1024.yaml" $A2A
bench "all-to-all link loads, custom k=16 Clos, --routing hash (1M paths)" -- collective "$out/clos1024.yaml" $A2A --routing hash
bench "ring allreduce, custom k=16 Clos (1,024 ranks)" -- collective "$out/clos1024.yaml" --pattern allreduce --size 64MiB
bench "all-to-all, 16x16x16, 4,095 ranks (a rank subset: line counts)" -- collective specs/torus-8x8x8.yaml --set 'fabric.dims=[16,16,16]' $A2A --ranks 4095
bench "pairwise all-to-all, 16x16x16 (4,095 rounds)" -- collective specs/torus-8x8x8.yaml --set 'fabric.dims=[16,16,16]' --pattern all-to-all --algo pairwise --size 32MiB
bench "ring allreduce, CloudMatrix384 (766 rounds)" -- collective specs/cm384.yaml --pattern allreduce --size 64MiB
bench "size sweep, allreduce all algorithms 8 B-1 GiB x2, HGX H100 (28 sizes)" -- collective specs/hgx-h100.yaml --pattern allreduce --sizes 8B:1GiB:x2
bench "size sweep, allreduce all algorithms 8 B-1 GiB x2, k=8 fat-tree (128 ranks)" -- collective specs/fat-tree-k8.yaml --pattern allreduce --sizes 8B:1GiB:x2
bench "pipelined dbtree allreduce 1 GiB, k=8 fat-tree (2,048 chunks)" -- collective specs/fat-tree-k8.yaml --pattern allreduce --algo dbtree --size 1GiB
bench "swing-torus reduce-scatter, 64x64 torus" -- collective specs/torus-8x8x8.yaml --set 'fabric.dims=[64,64]' --set packaging.devices_per_node=1 --pattern reduce-scatter --algo swing-torus --size 64MiB
bench "K-tree allreduce, 660x660 wafer mesh" -- collective specs/wse2.yaml --set 'fabric.grid=[660,660]' --pattern allreduce --algo ktree --size 4KiB
bench "SUMMA shifts, 660x660 wafer mesh (331 rounds over every link)" -- collective specs/wse2.yaml --set 'fabric.grid=[660,660]' --pattern gemm-shift --algo summa --size 8KiB
bench "MeshGEMM shifts, 660x660 wafer mesh" -- collective specs/wse2.yaml --set 'fabric.grid=[660,660]' --pattern gemm-shift --algo meshgemm --size 8KiB
bench "place 48 TP2xEP4 instances, CloudMatrix384 (packing + bound)" -- place specs/cm384.yaml
bench "compare all shipped specs under 120 kW" -- compare specs/cm384.yaml specs/nvl72.yaml specs/hgx-h100.yaml specs/dgx-h100-256.yaml specs/tpu-v4-cube.yaml specs/torus-8x8x8.yaml specs/fat-tree-k8.yaml specs/wse2.yaml --power-cap 120kW
bench "metrics, CloudMatrix384" -- metrics specs/cm384.yaml
bench "metrics, WSE-2 (757x996 PEs)" -- metrics specs/wse2.yaml
bench "metrics, 16x16x16 torus (max-flow confirmation)" -- metrics specs/torus-8x8x8.yaml --set 'fabric.dims=[16,16,16]'
bench "explore, CloudMatrix384" -- explore specs/cm384.yaml
