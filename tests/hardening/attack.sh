#!/bin/sh
# The attack of issue #25: every command with an option that names an
# output (--out, --plot, -o/--output, --links, --lp, --overlay, and the
# shards and outputs of a space run and of merge) is given a name holding a
# newline, both quotes, ';', '$(...)', backquotes and a gnuplot command.
# Nothing may run (no marker file appears), the output must land under
# exactly that name, and nothing may be written anywhere else (each run
# starts in an empty folder and must leave only that name in it).
#
#   FABRICX=/path/to/fabricx sh tests/hardening/attack.sh
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"

# the hostile name (no slash: one name in the folder the command runs in);
# each marker is what one kind of interpreter would create
evil=$(printf 'a b'"'"'"\n;$(touch pwned1);`touch pwned2`;\nsystem("touch pwned3")\n!touch pwned4\nx')
S=$PWD/specs
n=0

# attack SUFFIX KIND COMMAND...: runs COMMAND with @ in its arguments
# replaced by the hostile name + SUFFIX, in a fresh empty folder; KIND is
# "file" (the output is a file of that name) or "dir" (a folder)
attack() {
	suffix=$1 kind=$2
	shift 2
	n=$((n + 1))
	run=$tmp/run$n
	mkdir -p "$run"
	target=$evil$suffix
	# the arguments, with @ replaced (positional parameters keep the newlines)
	i=0 args=$#
	while [ $i -lt "$args" ]; do
		a=$1
		shift
		[ "$a" = @ ] && a=$target
		set -- "$@" "$a"
		i=$((i + 1))
	done
	what="$* (case $n)"
	(cd "$run" && "$FABRICX" "$@" >"$tmp/out" 2>"$tmp/err")
	st=$?
	[ "$st" = 0 ] && ok || { bad "$what: exit $st"; head -3 "$tmp/err" | sed 's/^/    /'; }
	found=$(find "$run" -name 'pwned*' | head -3)
	[ -z "$found" ] && ok || bad "$what ran a command: $found"
	rm -f "$run"/pwned*
	if [ "$kind" = file ]; then
		[ -f "$run/$target" ] && [ -s "$run/$target" ] && ok || bad "$what: no file under the hostile name"
	else
		[ -d "$run/$target" ] && [ -n "$(ls -A "$run/$target")" ] && ok || bad "$what: no folder under the hostile name"
	fi
	# exactly one entry: the name given (find counts names with newlines right)
	[ "$(find "$run" -mindepth 1 -maxdepth 1 -printf x | wc -c)" = 1 ] && ok ||
		bad "$what wrote beside its output: $(ls -A "$run" | tr '\n' '|')"
	last_run=$run
}

attack "" dir metrics "$S/nvl72.yaml" --out @
attack "" dir collective "$S/hgx-h100.yaml" --pattern allreduce --size 1MiB --out @
attack .csv file collective "$S/hgx-h100.yaml" --pattern allreduce --size 1MiB --links @
attack .svg file collective "$S/hgx-h100.yaml" --pattern allreduce --sizes 1KiB:1MiB:x4 --plot @
attack .png file collective "$S/hgx-h100.yaml" --pattern allreduce --sizes 1KiB:1MiB:x4 --plot @
attack "" dir power "$S/cm384.yaml" --out @
attack .lp file place "$S/hgx-h100.yaml" --lp @
attack "" dir place "$S/hgx-h100.yaml" --out @
attack "" dir compare "$S/nvl72.yaml" "$S/hgx-h100.yaml" --out @
attack .svg file render "$S/hgx-h100.yaml" -o @
attack .png file render "$S/hgx-h100.yaml" --output @
attack .dot file render "$S/hgx-h100.yaml" -o @
attack "" dir render "$S/hgx-h100.yaml" --out @
attack .svg file transport "$S/cm384.yaml" --plot @
attack "" dir transport "$S/cm384.yaml" --out @
attack .svg file pool "$S/cm384.yaml" --plot @
attack .png file pool "$S/cm384.yaml" --plot @
attack "" dir pool "$S/cm384.yaml" --out @
attack "" dir slice "$S/tpu-v4-cube.yaml" --shape 2x2x2 --out @
attack "" dir reconfigure "$S/tpu-v4-cube.yaml" --out @
attack "" dir failures "$S/hgx-h100.yaml" --out @
# the interop and calibration commands' own files (-o, --overlay)
attack .graphml file export "$S/hgx-h100.yaml" --to graphml -o @
attack .ns3 file export "$S/tpu-v4-cube.yaml" --to ns3 --output @
attack .yaml file import "$PWD/tests/data/igraph-test.graphml" --from graphml -o @
attack .yaml file calibrate "$S/dgx-h100-256.yaml" --from "$PWD/tests/measured/hgx-h100-2server-allreduce.txt" --overlay @
# the bill of materials and the planner's own files
attack .csv file bom "$S/nvl72.yaml" --csv @
attack "" dir bom "$S/cm384.yaml" --out @
attack .csv file plan "$S/plans/hgx-h100-x2.yaml" --csv @
attack "" dir plan "$S/plans/hgx-h100-x2.yaml" --plot @
attack "" dir explore "$S/hgx-h100.yaml" --out @
attack "" dir explore "$S/spaces/power-budget.yaml" --quiet --out @
[ -s "$last_run/$evil/power-budget/report.md" ] && ls "$last_run/$evil/power-budget/"*.svg >/dev/null 2>&1 && ok ||
	bad "the space's report and plots are not under the hostile --out"
# shards into a hostile folder, merged from there into another
attack "" dir explore "$S/spaces/power-budget.yaml" --quiet --shard 1/2 --out @
shards=$last_run/$evil
(cd "$shards/.." && "$FABRICX" explore "$S/spaces/power-budget.yaml" --quiet --shard 2/2 --out "$evil" >/dev/null 2>&1) &&
	ok || bad "second shard into the hostile folder"
attack "" dir merge "$S/spaces/power-budget.yaml" --from "$shards/power-budget-shard-1-of-2" \
	--from "$shards/power-budget-shard-2-of-2" --out @
[ -s "$last_run/$evil/power-budget/points.csv" ] && ls "$last_run/$evil/power-budget/"*.svg >/dev/null 2>&1 && ok ||
	bad "merge's report and plots are not under the hostile --out"

summary "attack tests ($n commands)"
