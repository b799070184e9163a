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
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
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
