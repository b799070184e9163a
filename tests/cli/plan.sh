#!/bin/sh
# fabricx plan (plan/plan.h): the shipped plans choose as the book does
# (the numbers are the unit suite's, tests/unit/test_plan.c), and the
# command keeps every contract: one JSON object (with the error inside it
# when a plan stops at exit 3 or 4), its statuses, --csv, --jobs, --plot,
# MPI, co-design over a space.
#
#   FABRICX=/path/to/fabricx sh tests/cli/plan.sh
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

# every shipped plan: one JSON object with the plan and its choice
for spec in specs/plans/*.yaml; do
	case $spec in */supernode-size.yaml) continue ;; esac  # a space: below
	expect 0 "plan $spec" -- "$FABRICX" plan "$spec" --json --no-flips
	if jq -e '(.plan.choice|type=="string") and (.plan.status|startswith("optimal") or startswith("front"))
	    and (.plan.schemes_generated|type=="number") and (.choice.scheme|type=="string")
	    and (.excluded|type=="array")' "$tmp/out" >/dev/null; then ok; else
		bad "plan $spec --json breaks the contract"
	fi
done

# the book's §6.7.3 rows, as the command prints them
expect 0 "row 1" -- "$FABRICX" plan specs/plans/hgx-h100-4x128k.yaml --json
[ "$(jq -r .plan.choice "$tmp/out")" = "TP2 x4" ] && ok || bad "row 1 choice: $(jq -r .plan.choice "$tmp/out")"
jq -e '.excluded[] | select(.family=="TP1") | .why | contains("102.03 GB > 80.00 GB")' "$tmp/out" >/dev/null && ok || bad "row 1: TP1's memory"
jq -e '[.ranked[] | select(.scheme=="TP4 x2")][0].gpu_time_per_on_time_s | . > 0.2545 and . < 0.2555' "$tmp/out" >/dev/null && ok || bad "row 1: TP4's 0.255"
jq -e '.flips | map(select(.input=="deadline" and .direction=="down"))[0].becomes == "no feasible scheme"' "$tmp/out" >/dev/null && ok || bad "row 1: the deadline flip"
# cost is device time: the chapter "Supernodes" §6.7.3 prices four TP2
# instances at 0.238 GPU·s per on-time session (8 cards x 119.1 ms / 4);
# text says GPU-s, never a wait of "238.2 ms"; JSON and CSV hold seconds
# under the one name docs/output.md gives (gpu_time_per_on_time_s)
expect 0 "row 1 text" -- "$FABRICX" plan specs/plans/hgx-h100-4x128k.yaml --no-flips
grep -Eq '^  cost +0\.2382 GPU-s$' "$tmp/out" && ok || bad "row 1: the cost line is not 0.2382 GPU-s: $(grep -E '^  cost ' "$tmp/out")"
grep -Eq '^  device time billed +0\.9529 GPU-s$' "$tmp/out" && ok || bad "row 1: device time billed is not 0.9529 GPU-s"
grep -q '238\.2 ms' "$tmp/out" && bad "row 1: a cost shown as a time (238.2 ms)" || ok
grep -Eq 'TP2 x4 .* 0\.2382 GPU-s' "$tmp/out" && ok || bad "row 1: the ranked table's per on-time is not in GPU-s"
expect 0 "row 1 json" -- "$FABRICX" plan specs/plans/hgx-h100-4x128k.yaml --no-flips --json
jq -e '(.plan.gpu_time_per_on_time_s | . > 0.2377 and . < 0.2387) and (.choice.gpu_time_per_on_time_s | . > 0.2377 and . < 0.2387)' "$tmp/out" >/dev/null && ok || bad "row 1 json: cost 0.238 GPU-s as gpu_time_per_on_time_s"
expect 0 "row 1 csv" -- "$FABRICX" plan specs/plans/hgx-h100-4x128k.yaml --no-flips --csv "$tmp/r1.csv"
col=$(head -1 "$tmp/r1.csv" | tr ',' '\n' | grep -nx 'gpu_time_per_on_time_s' | cut -d: -f1)
[ -n "$col" ] && awk -F, -v c="$col" '$2=="TP2 x4" {found=1; if ($c < 0.2377 || $c > 0.2387) exit 1} END {exit !found}' "$tmp/r1.csv" && ok || bad "row 1 csv: TP2 x4's gpu_time_per_on_time_s is not 0.238"
expect 0 "row 3" -- "$FABRICX" plan specs/plans/hgx-h100-x2.yaml --json --no-flips
[ "$(jq -r .plan.choice "$tmp/out")" = "TP8 x1" ] && ok || bad "row 3 choice"
jq -e '.excluded[] | select(.family=="TP16") | .why | contains("53.33 ms")' "$tmp/out" >/dev/null && ok || bad "row 3: TP16's 53.3 ms"

# the chapter "Supernodes" §6.7.4 with the step model (plan/model_step.c):
# V4.1 Flash on 256 H100 cards, one instance per supernode of 8/64/128/256.
# The chapter's table: 2,632 / 19,420 / 19,392 / 19,378 token/s per card,
# steps 14.1 / 17.3 / 18.4 / 18.9 ms, 17.2 GB of weights and 335 sessions
# per card at 64; 64 is where the gain stops (128 and 256 tie with it,
# 8 loses).  Within the 3 % issue #29 allows.
expect 0 "§6.7.4 plan" -- "$FABRICX" plan specs/plans/supernode-v41.yaml --json --no-flips
jq -e '.plan.step_model | startswith("batched/MoE decode: step/step.h")' "$tmp/out" >/dev/null && ok || bad "§6.7.4: plan does not use the step model"
[ "$(jq -r .plan.choice "$tmp/out")" = "TP1 EP64 x4" ] && ok || bad "§6.7.4 choice: $(jq -r .plan.choice "$tmp/out") (the chapter: 64 cards)"
jq -e '.choice.tokens_per_s_per_device | . > 19420 * 0.97 and . < 19420 * 1.03' "$tmp/out" >/dev/null && ok || bad "§6.7.4: 64 cards' token/s per card is not 19,420 (±3 %): $(jq .choice.tokens_per_s_per_device "$tmp/out")"
jq -e '.choice.step_s | . > 17.3e-3 * 0.97 and . < 17.3e-3 * 1.03' "$tmp/out" >/dev/null && ok || bad "§6.7.4: 64 cards' step is not 17.3 ms (±3 %)"
jq -e '(.choice.weights_per_device_bytes | . > 17.2e9 * 0.97 and . < 17.2e9 * 1.03) and (.choice.kv_sessions == 335)' "$tmp/out" >/dev/null && ok || bad "§6.7.4: 64 cards' 17.2 GB and 335 sessions per card"
jq -e '[.ranked[] | select(.scheme=="TP1 EP128 x2" or .scheme=="TP1 EP256 x1") | .tie] == [true, true]' "$tmp/out" >/dev/null && ok || bad "§6.7.4: 128 and 256 cards are not reported tied with 64"
jq -e '[.ranked[] | select(.scheme=="TP1 EP256 x1")][0].objective_value | . > 19378 * 0.97 and . < 19378 * 1.03' "$tmp/out" >/dev/null && ok || bad "§6.7.4: 256 cards' 19,378 token/s per card"
# 8 cards are pruned by their bound, collectives free (nothing routed): at
# least the 2,632 token/s per card they reach in full, far below 64's
b8=$(jq -r '.excluded[] | select(.family=="TP1 EP8" and .rule=="bound") | .why' "$tmp/out" | sed -n 's/.* at most \([0-9.]*\),.*/\1/p')
[ -n "$b8" ] && awk -v b="$b8" 'BEGIN { exit !(b >= 2632 && b < 19420 * 0.97) }' && ok || bad "§6.7.4: 8 cards not pruned by a bound between 2,632 and 19,420 token/s per card: $b8"
# the counts add up: every scheme generated is excluded by one rule or
# feasible, and the pruned search routes fewer collectives than exhaustive
jq -e '.plan | (.schemes_generated == .excluded_devices + .excluded_kernel + .excluded_shape + .excluded_keep_within
	+ .excluded_memory + .excluded_power + .excluded_deadline + .excluded_collective + .excluded_bound
	+ .excluded_idle + .schemes_feasible) and .excluded_bound == 1 and .schemes_evaluated == 3' "$tmp/out" >/dev/null && ok || bad "§6.7.4: the counts do not add up"
r_pruned=$(jq .plan.collectives_routed "$tmp/out")
expect 0 "§6.7.4 plan --exhaustive" -- "$FABRICX" plan specs/plans/supernode-v41.yaml --json --no-flips --exhaustive
[ "$(jq -r .plan.choice "$tmp/out")" = "TP1 EP64 x4" ] && ok || bad "§6.7.4 --exhaustive choice"
[ "$r_pruned" -lt "$(jq .plan.collectives_routed "$tmp/out")" ] && ok || bad "§6.7.4: pruning routed $r_pruned collectives, exhaustive $(jq .plan.collectives_routed "$tmp/out")"
expect 0 "§6.7.4 plan text" -- "$FABRICX" plan specs/plans/supernode-v41.yaml --no-flips
grep -Eq '^  schemes generated +4$' "$tmp/out" && grep -Eq '^  pruned by a proven bound +1$' "$tmp/out" &&
	grep -Eq '^  evaluated in full +3$' "$tmp/out" && ok || bad "§6.7.4: the text does not print the counts"
# measured times are flagged: an all-to-all over 64 ranks measured at a
# flat 10 us makes the 64-card step's communication 40 layers x (dispatch
# + combine) x 10 us = 0.8 ms, said to be measured; the others stay modelled
expect 0 "§6.7.4 measured" -- "$FABRICX" plan specs/plans/supernode-v41.yaml --json --no-flips --set 'collective.measured=[{pattern: all-to-all, ranks: 64, size: 1 B, time: 10 us}, {pattern: all-to-all, ranks: 64, size: 1 GB, time: 10 us}]'
jq -e '(.choice.comm_time_source == "measured") and (.choice.comm_s | . > 0.8e-3 * (1 - 1e-9) and . < 0.8e-3 * (1 + 1e-9))' "$tmp/out" >/dev/null && ok || bad "§6.7.4 measured: the choice's 0.8 ms of measured communication: $(jq -c '[.choice.comm_time_source, .choice.comm_s]' "$tmp/out")"
jq -e '[.ranked[] | .time_source] == ["measured", "modelled", "modelled"]' "$tmp/out" >/dev/null && ok || bad "§6.7.4 measured: ranked time sources $(jq -c '[.ranked[] | .time_source]' "$tmp/out")"

expect 0 "§6.7.4 plan --jobs 2" -- "$FABRICX" plan specs/plans/supernode-v41.yaml --json --no-flips --jobs 2
[ "$(jq -r .plan.choice "$tmp/out")" = "TP1 EP64 x4" ] && ok || bad "§6.7.4 --jobs 2 choice: $(jq -r .plan.choice "$tmp/out")"

# statuses: bad input 2, nothing feasible 3 (naming the rule), a limit 4
expect 2 "unknown objective" -- "$FABRICX" plan specs/plans/hgx-h100-4x128k.yaml --objective speed
has "no objective 'speed'" "unknown objective message"
expect 2 "rate when training" -- "$FABRICX" plan specs/plans/train-dense.yaml --objective rate
has "rate is a serving objective" "rate objective message"
expect 2 "deadline 0" -- "$FABRICX" plan specs/plans/hgx-h100-4x128k.yaml --deadline 0ms
has "must be more than 0" "deadline 0 message"
expect 2 "nothing to plan" -- "$FABRICX" plan specs/torus-8x8x8.yaml
has "plan needs a model" "nothing to plan message"
expect 3 "no feasible scheme" -- "$FABRICX" plan specs/plans/hgx-h100-4x128k.yaml --deadline 100ms --no-flips
has "no feasible scheme among 83: the furthest any got was deadline: 2 of 4 sessions by 100 ms (41.18 ms each), 3 needed (TP8 x1)" "infeasible names the binding rule"
expect 3 "no feasible scheme --json" -- "$FABRICX" plan specs/plans/hgx-h100-4x128k.yaml --deadline 100ms --no-flips --json
jq -e '(.error.status==3) and (.plan.status=="no feasible scheme") and (.excluded|length>0)' "$tmp/out" >/dev/null && ok || bad "exit 3: the report with the error inside"
expect 4 "limit" -- "$FABRICX" plan specs/plans/hgx-h100-4x128k.yaml --limit 20 --no-flips --json
jq -e '(.error.status==4) and (.plan.status|contains("limit")) and (.plan.status|contains("optimal")|not)' "$tmp/out" >/dev/null && ok || bad "exit 4: the best found, not optimal"

# --csv: a header and a row for every scheme evaluated in full
expect 0 "--csv" -- "$FABRICX" plan specs/plans/cm384-qwen3-235b.yaml --no-flips --csv "$tmp/all.csv" --json
rows=$(($(wc -l <"$tmp/all.csv") - 1))
[ "$rows" = "$(jq .plan.schemes_evaluated "$tmp/out")" ] && ok || bad "--csv: $rows rows, $(jq .plan.schemes_evaluated "$tmp/out") evaluated"
head -1 "$tmp/all.csv" | grep -q '^index,scheme,tp,cp,ep,pp,dp,sp,micro,instances' && ok || bad "--csv header"
# --jobs 2: the same choice, the same rows
expect 0 "--jobs 2" -- "$FABRICX" plan specs/plans/cm384-qwen3-235b.yaml --no-flips --exhaustive --jobs 2 --csv "$tmp/j2.csv" --json
c2=$(jq -r .plan.choice "$tmp/out")
expect 0 "--jobs 1" -- "$FABRICX" plan specs/plans/cm384-qwen3-235b.yaml --no-flips --exhaustive --csv "$tmp/j1.csv" --json
[ "$c2" = "$(jq -r .plan.choice "$tmp/out")" ] && ok || bad "--jobs 2 chose $c2"
sort "$tmp/j1.csv" >"$tmp/j1s"; sort "$tmp/j2.csv" >"$tmp/j2s"
cmp -s "$tmp/j1s" "$tmp/j2s" && ok || bad "--jobs 2: the CSV rows differ"
# the flip thresholds on two workers (their collectives routed first,
# shared): every threshold as one process finds it
expect 0 "flips --jobs 1" -- "$FABRICX" plan specs/plans/cm384-qwen3-235b.yaml --json --jobs 1
jq -S .flips "$tmp/out" >"$tmp/f1"
expect 0 "flips --jobs 2" -- "$FABRICX" plan specs/plans/cm384-qwen3-235b.yaml --json --jobs 2
jq -S .flips "$tmp/out" >"$tmp/f2"
[ -s "$tmp/f1" ] && [ "$(jq length "$tmp/f1")" -gt 0 ] && cmp -s "$tmp/f1" "$tmp/f2" && ok || bad "flips --jobs 2 differ from --jobs 1"
# --plot: the front and the flips as SVG (gnuplot), paths handed over as data
if command -v gnuplot >/dev/null 2>&1; then
	expect 0 "--plot" -- "$FABRICX" plan specs/plans/train-dense.yaml --plot "$tmp/plots"
	[ -s "$tmp/plots/front.svg" ] && ok || bad "--plot: no front.svg"
	ls "$tmp/plots"/flip-*.svg >/dev/null 2>&1 && ok || bad "--plot: no flip charts"
fi
# co-design: a space of builds, each planned (the space engine's report)
expect 0 "co-design" -- "$FABRICX" plan specs/plans/supernode-size.yaml --out "$tmp/sn" --json
[ "$(jq '.space.points_feasible' "$tmp/out")" = 3 ] && ok || bad "co-design: $(jq '.space.points_feasible' "$tmp/out") feasible builds"
grep -q '^0,.*infeasible,plan: no feasible scheme among 1: the furthest any got was memory' "$tmp/sn/supernode-size-plan/points.csv" && ok || bad "co-design: the 8-card build's reason"
# a space of builds none of which has a feasible scheme: exit 3, naming the
# rule that binds at the first build with its arithmetic (§6.7.4's 8-card
# supernode on 1 GB cards: 125.58 GB > 1.00 GB)
expect 3 "co-design, nothing feasible" -- "$FABRICX" plan specs/plans/supernode-size.yaml --set 'workload.accelerator.hbm=1 GB' --out "$tmp/sn0"
has "no point of the space meets the constraints; point 0: plan: no feasible scheme among 1: the furthest any got was memory: 125.58 GB > 1.00 GB per device" "co-design, nothing feasible: the binding rule"
# device time in a space's report is GPU-s too (its points.csv: seconds)
expect 0 "co-design GPU-s" -- "$FABRICX" plan specs/plans/supernode-size.yaml --set 'space.metrics=[devices, choice.gpu_time_s]' --out "$tmp/sg"
grep -q '| 64 | 136.8 GPU-s |' "$tmp/sg/supernode-size-plan/report.md" && ok || bad "co-design: the 64-card build's device time is not 136.8 GPU-s"
expect 0 "--vary" -- "$FABRICX" plan specs/plans/hgx-h100-4x128k.yaml --vary 'workload.accelerator.hbm=40 GB,80 GB,141 GB' --out "$tmp/v" --json
[ "$(jq '.space.points_total' "$tmp/out")" = 3 ] && ok || bad "--vary: $(jq '.space.points_total' "$tmp/out") points"
# explore has a plan section when the spec has a workload to plan
expect 0 "explore's plan" -- "$FABRICX" explore specs/plans/hgx-h100-1x128k.yaml --no-diagrams --out "$tmp/e" --json
[ "$(jq -r '.plan_report.plan.choice' "$tmp/out")" = "TP8 x1" ] && ok || bad "explore: plan section"

if command -v mpirun >/dev/null 2>&1; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	if mpirun --oversubscribe -np 2 true >"$tmp/mpi-probe" 2>&1; then
		expect 0 "mpirun -np 2 plan" -- mpirun --oversubscribe -np 2 "$FABRICX" plan specs/plans/cm384-qwen3-235b.yaml --no-flips --exhaustive --csv "$tmp/mpi.csv" --json
		[ "$(jq -r .plan.choice "$tmp/out")" = "$c2" ] && ok || bad "mpirun: the choice"
		sort "$tmp/mpi.csv" >"$tmp/mpis"
		cmp -s "$tmp/j1s" "$tmp/mpis" && ok || bad "mpirun: the CSV rows differ"
		# the flip thresholds shared over the ranks: as one process finds them
		expect 0 "mpirun -np 2 flips" -- mpirun --oversubscribe -np 2 "$FABRICX" plan specs/plans/cm384-qwen3-235b.yaml --json
		jq -S .flips "$tmp/out" >"$tmp/fm"
		cmp -s "$tmp/f1" "$tmp/fm" && ok || bad "mpirun: the flip thresholds differ from one process's"
		# co-design: the space shares its builds over the ranks, and each
		# build plans in its own rank's process (it once ended MPI inside
		# the first build's plan, and the next MPI call aborted the run);
		# the same points as one process
		expect 0 "mpirun -np 2 co-design" -- mpirun --oversubscribe -np 2 "$FABRICX" plan specs/plans/supernode-size.yaml --out "$tmp/snm" --json
		[ "$(jq '.space.points_feasible' "$tmp/out")" = 3 ] && ok || bad "mpirun co-design: $(jq '.space.points_feasible' "$tmp/out") feasible builds"
		cmp -s "$tmp/sn/supernode-size-plan/points.csv" "$tmp/snm/supernode-size-plan/points.csv" && ok ||
			bad "mpirun co-design: points.csv differs from one process's"
	else
		echo "plan.sh: mpirun cannot start 2 ranks here; the MPI run is skipped"
	fi
fi
summary "plan tests"
