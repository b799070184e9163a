#!/bin/sh
# One recorded fuzzing run: builds the target, fuzzes it for MINUTES at
# nice 19, merges what it kept into the committed corpus (libFuzzer's
# -merge=1 keeps only inputs with new coverage), commits that corpus, and
# appends the run's row to docs/reliability.md's table of runs, so every
# run leaves its executions, speed, coverage and corpus commit behind:
#
#   sh fuzz/run.sh TARGET MINUTES [NOTE]     (TARGET: spec or args)
#
# The row: run number, target, the tree fuzzed (commit), UTC start and
# end, minutes, executions, mean executions per second, coverage edges
# (libFuzzer's "cov") at the start and the end, the commit holding the
# merged corpus, and the result (findings are the crash-, leak-, timeout-
# and slow-unit files the run left in build-fuzz/).  Findings are not
# committed here: each is looked at, fixed, and kept in fuzz/regress*/ by
# hand (docs/reliability.md §1).
set -eu
cd "$(dirname "$0")/.."
target=$1
minutes=$2
note=${3:-}
case $target in
spec) corpus=fuzz/corpus ;;
args | import) corpus=fuzz/corpus-$target ;;
*) echo "fuzz/run.sh: unknown target '$target' (spec, args or import)" >&2; exit 2 ;;
esac
case $minutes in
''|*[!0-9]*) echo "fuzz/run.sh: MINUTES must be a whole number" >&2; exit 2 ;;
esac

make --no-print-directory "build-fuzz/fuzz_$target" >/dev/null
tree=$(git rev-parse --short HEAD)
stamp=$(date -u +%Y%m%dT%H%M%S)
log=build-fuzz/run-$target-$stamp.log
art=$(pwd)/build-fuzz/run-$target-$stamp/  # absolute: the args target runs each input in a scratch folder
mkdir -p "build-fuzz/corpus-$target" "$art"
start=$(date -u '+%Y-%m-%d %H:%M')
t0=$(date +%s)
# -timeout=600: on a shared 2-core machine a slow input is starvation far
# more often than a hang (docs/reliability.md, runs 13-18); a real hang
# still shows as a slow unit and is replayed by hand.
close=""
[ "$target" = args ] && close="-close_fd_mask=2"
nice -n 19 "build-fuzz/fuzz_$target" -max_total_time=$((minutes * 60)) -timeout=600 \
	-rss_limit_mb=2048 -max_len=4096 -dict="fuzz/$target.dict" -print_final_stats=1 \
	-artifact_prefix="$art" $close "build-fuzz/corpus-$target" "$corpus" >"$log" 2>&1 || true
t1=$(date +%s)
end=$(date -u '+%H:%M')

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
cov0=$(sed -n 's/.*INITED cov: \([0-9]*\).*/\1/p' "$log" | head -n 1)
cov1=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' "$log" | tail -n 1)
found=$(ls "$art" 2>/dev/null | wc -l)
mins=$(( (t1 - t0 + 30) / 60 ))

# new inputs with new coverage into the committed corpus
before=$(ls "$corpus" | wc -l)
nice -n 19 "build-fuzz/fuzz_$target" -merge=1 -timeout=600 -rss_limit_mb=2048 $close \
	"$corpus" "build-fuzz/corpus-$target" >"$log.merge" 2>&1 || true
added=$(( $(ls "$corpus" | wc -l) - before ))
git add "$corpus"
if git diff --cached --quiet -- "$corpus"; then
	ccommit=$tree
else
	git commit -q -m "fuzz/$target: run of $start UTC merged into $corpus (+$added inputs)" -- "$corpus"
	ccommit=$(git rev-parse --short HEAD)
fi

if [ "$found" -eq 0 ]; then
	result="nothing"
else
	result="$found file(s) in ${art#"$(pwd)/"}: $(ls "$art" | sed 's/-[0-9a-f]*$//' | sort | uniq -c | awk '{printf "%s%d %s", (NR > 1 ? ", " : ""), $1, $2}')"
fi
[ -n "$note" ] && result="$result; $note"
# the table is the block of '|' lines right after the marker; other tables
# further down (with numbered rows of their own) are not runs
n=$(awk -F'|' '/^<!-- runs -->/ {on = 1; next} on && !/^\|/ {on = 0} on && /^\| [0-9]+ \|/ {n = $2 + 0} END {print n + 1}' docs/reliability.md)
row="| $n | $target | $tree | $start-$end | $mins | ${execs:-?} | ${rate:-?} | ${cov0:-?} -> ${cov1:-?} | +$added, $ccommit | $result |"
# the row goes after the table's last row (the table follows the marker)
awk -v row="$row" '
	{line[NR] = $0}
	/^<!-- runs -->/ {on = 1; next}
	on && !/^\|/ {on = 0}
	on && /^\|/ {last = NR}
	END {for (i = 1; i <= NR; i++) {print line[i]; if (i == last) print row}}
' docs/reliability.md >docs/reliability.md.tmp
mv docs/reliability.md.tmp docs/reliability.md
git commit -q -m "docs/reliability.md: fuzz run $n ($target, $mins min, ${execs:-?} executions, $result)" -- docs/reliability.md
echo "$row"
