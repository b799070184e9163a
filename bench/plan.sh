#!/bin/sh
# Planner benchmarks (issue #29 item 5): schemes a second of `fabricx plan`
# on CloudMatrix384 serving Qwen3-235B-A22B (specs/plans/cm384-qwen3-235b.yaml)
# with three allreduce algorithms for TP and for EP (36,603 schemes), every
# scheme evaluated (--exhaustive) and the default pruned search, on one
# core, with --jobs 2 and under `mpirun --oversubscribe -np 2`; the median
# of REPEAT runs (default 3).  The search reports its own CPU seconds
# (workers included) and the part spent routing collectives, so the rate
# per core does not count loading the spec; the command's CPU (user +
# system, workers and ranks included) counts everything, flip thresholds
# too.  Run from the repository root:
# sh bench/plan.sh.  Figures go into docs/performance.md by hand.  Nothing
# here is a test.
set -u
. bench/lib.sh
spec=specs/plans/cm384-qwen3-235b.yaml
algos='plan.algorithms={tp: [ring, tree, rhd], ep: [ring, tree, rhd]}'

# run NAME -- COMMAND...: the median (by search CPU) of REPEAT runs:
# schemes generated and evaluated in full, wall s, search CPU s, routing
# CPU s, schemes per CPU second, full evaluations per CPU second without
# routing
run() {
	name=$1; shift 2
	: >"$out/t"
	i=0
	while [ $i -lt "$REPEAT" ]; do
		/usr/bin/time -q -f "%e %U %S" -o "$out/wall" "$@" --json >"$out/j" 2>"$out/err" ||
			{ echo "| $name | failed: $(head -n 1 "$out/err") |"; return; }
		w=$(cut -d' ' -f1 "$out/wall")
		u=$(awk '{ print $2 + $3 }' "$out/wall")
		jq -r --arg w "$w" --arg u "$u" '.plan | "\(.cpu_s) \(.route_cpu_s) \(.schemes_generated) \(.schemes_evaluated) \($w) \($u) \(.choice)"' "$out/j" >>"$out/t"
		i=$((i + 1))
	done
	sort -n "$out/t" | awk -v n="$name" '{ c[NR] = $1; r[NR] = $2; g[NR] = $3; e[NR] = $4; w[NR] = $5; u[NR] = $6 }
		END { k = int((NR + 1) / 2)
		      printf "| %s | %d | %d | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f |\n", n, g[k], e[k], w[k], u[k], c[k], r[k],
			     g[k] / c[k], e[k] / (c[k] - r[k]) }'
}

echo "| plan ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)) | schemes | evaluated in full | wall s | command CPU s | search CPU s | routing CPU s | schemes / search CPU s | full evaluations / CPU s (routing aside) |"
echo "|---|---|---|---|---|---|---|---|---|"
run "exhaustive, --jobs 1" -- "$FABRICX" plan $spec --set "$algos" --no-flips --exhaustive --jobs 1
run "exhaustive, --jobs 2" -- "$FABRICX" plan $spec --set "$algos" --no-flips --exhaustive --jobs 2
if command -v mpirun >/dev/null 2>&1; then
	run "exhaustive, mpirun -np 2" -- mpirun --oversubscribe -np 2 "$FABRICX" plan $spec --set "$algos" --no-flips --exhaustive
fi
run "pruned, --jobs 1" -- "$FABRICX" plan $spec --set "$algos" --no-flips --jobs 1
run "pruned, --jobs 2" -- "$FABRICX" plan $spec --set "$algos" --no-flips --jobs 2
run "pruned with flip thresholds, --jobs 1" -- "$FABRICX" plan $spec --set "$algos" --jobs 1
run "pruned with flip thresholds, --jobs 2" -- "$FABRICX" plan $spec --set "$algos" --jobs 2

# Two cores at work (issue #29: "linear speed-up with --jobs 2 and mpirun
# -np 2"): cases big enough for a second core to matter, each run on one
# process, on --jobs 2 workers and on two MPI ranks, the median of REPEAT
# by wall time, and the speed-up in wall time over one process.  Wall
# time means something only with the cores free: run with FREE_CORES=1
# (root; bench/lib.sh), else the kernel's autogroup gives this session one
# share of the CPUs whatever its process count.
#   flips: the pruned plan with its flip thresholds (16 (input, direction)
#     tasks of 6 to 23 searches each, pulled by whichever worker is free;
#     MPI ranks take every second one);
#   flips, 67,059 schemes: the same with 8 micro-batch counts (plan.search
#     .micro; the same choice and thresholds, every search twice as big);
#   co-design: 20 builds (5 supernode sizes x 4 link bandwidths), each
#     planned (the space shares the builds over the workers or ranks);
#     144 builds (12 x 12), long enough that mpirun's fixed start-up is
#     a small part of it.
# The serial parts: loading the spec and the first search (the plan
# without flips), and mpirun's start-up (`fabricx --version` on two ranks;
# MPI_Init comes on top).  The flips rows add two independent one-process
# runs at once: what the two cores give work that shares nothing at all,
# the ceiling for any split.
micro='plan.search.micro=[1,2,3,4,6,8,12,16]'
# time3 NAME EXTRA...: the plan with EXTRA on one process, on --jobs 2 and
# on two MPI ranks, interleaved (one of each per repeat, so the three see
# the same machine), each row the median of REPEAT by wall time.
time3() {
	name=$1; shift
	: >"$out/t1"; : >"$out/t2"; : >"$out/tm"; : >"$out/tp"
	i=0
	while [ $i -lt "$REPEAT" ]; do
		for how in 1 2 m; do
			rm -rf "$out/cd"
			case $how in
			1) set -- "$FABRICX" plan $spec --set "$algos" "$@" ;;
			2) set -- "$FABRICX" plan $spec --set "$algos" --jobs 2 "$@" ;;
			m) command -v mpirun >/dev/null 2>&1 || continue
			   set -- mpirun --oversubscribe -np 2 "$FABRICX" plan $spec --set "$algos" "$@" ;;
			esac
			/usr/bin/time -q -f "%e %U %S" -o "$out/wall" "$@" --json >"$out/j" 2>"$out/err" ||
				echo "failed: $(head -n 1 "$out/err")" >>"$out/t$how"
			awk '{ print $1, $2 + $3 }' "$out/wall" >>"$out/t$how"
			if [ $how = 1 ] && [ "${PAIR:-0}" = 1 ]; then
				# two independent runs at once: what two cores give
				# work that shares nothing (wall of both, halved)
				/usr/bin/time -q -f "%e %U %S" -o "$out/wall" sh -c '"$@" --json >/dev/null 2>&1 &
					"$@" --json >/dev/null 2>&1; wait' sh "$@"
				awk '{ print $1 / 2, ($2 + $3) / 2 }' "$out/wall" >>"$out/tp"
			fi
			# back to EXTRA alone
			case $how in 1) shift 5 ;; 2) shift 7 ;; m) shift 9 ;; esac
		done
		i=$((i + 1))
	done
	base=$(sort -n "$out/t1" | awk '{ w[NR] = $1 } END { print w[int((NR + 1) / 2)] }')
	for how in 1 2 m p; do
		[ -s "$out/t$how" ] || continue
		label="one process"; [ $how = 2 ] && label="--jobs 2"; [ $how = m ] && label="mpirun -np 2"
		[ $how = p ] && label="two one-process runs at once (the cores' ceiling; speed-up: 2 runs' worth)"
		if grep -q failed "$out/t$how"; then echo "| $name, $label | $(grep -m1 failed "$out/t$how") | | |"; continue; fi
		sort -n "$out/t$how" | awk -v n="$name, $label" -v b="$base" '{ w[NR] = $1; u[NR] = $2 }
			END { k = int((NR + 1) / 2); printf "| %s | %.2f | %.2f | %.2fx |\n", n, w[k], u[k], b / w[k] }'
	done
}
echo
echo "| two cores ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), autogroup $(cat /proc/sys/kernel/sched_autogroup_enabled), nice $(nice)) | wall s | CPU s | speed-up (wall) |"
echo "|---|---|---|---|"
time3 "serial part: the plan without flips" --no-flips
PAIR=1; time3 "flips"; PAIR=0
time3 "serial part: 67,059 schemes without flips" --set "$micro" --no-flips
PAIR=1; time3 "flips, 67,059 schemes" --set "$micro"; PAIR=0
time3 "co-design" --vary fabric.nodes=16,24,32,40,48 --vary fabric.link.bandwidth=7GB/s,14GB/s,28GB/s,56GB/s --out "$out/cd"
time3 "co-design, 144 builds" --vary fabric.nodes=16,24,32,40,48,56,64,72,80,88,96,104 \
	--vary fabric.link.bandwidth=7GB/s,14GB/s,21GB/s,28GB/s,35GB/s,42GB/s,56GB/s,70GB/s,84GB/s,98GB/s,112GB/s,140GB/s --out "$out/cd"
if command -v mpirun >/dev/null 2>&1; then
	/usr/bin/time -q -f "%e %U %S" -o "$out/wall" mpirun --oversubscribe -np 2 "$FABRICX" --version >/dev/null 2>&1
	awk '{ printf "| serial part: mpirun -np 2 fabricx --version (one run) | %.2f | %.2f | |\n", $1, $2 + $3 }' "$out/wall"
	# MPI_Init and MPI_Finalize alone (`fabricx --version` starts no MPI):
	# a plan on one rank under mpirun, less the same plan without it
	/usr/bin/time -q -f "%e %U %S" -o "$out/wall" mpirun --oversubscribe -np 1 "$FABRICX" plan $spec --no-flips --json >/dev/null 2>&1
	awk '{ printf "| serial part: mpirun -np 1 fabricx plan --no-flips (one run) | %.2f | %.2f | |\n", $1, $2 + $3 }' "$out/wall"
fi
