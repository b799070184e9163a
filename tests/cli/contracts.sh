#!/bin/sh
# Honest statuses and the command-line contract (issue 25): a question
# settled by counting is proven (exit 3), not "not decided"; every failure
# under --json prints one error object naming what it can; a list with an
# empty entry is refused, not shortened; a space too big for its grid is
# sampled when a budget is given; a variant value may hold '/'; options a
# run would ignore are refused; another fabricx's numbers are not merged or
# resumed; a closed standard output is an error, not a SIGPIPE.
#
#   FABRICX=/path/to/fabricx sh tests/cli/contracts.sh
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

# json FILTER DESCRIPTION: the last stdout is JSON and FILTER holds on it
# (jq -e alone passes an empty file)
json() {
	if [ -s "$tmp/out" ] && jq -e "$1" "$tmp/out" >/dev/null 2>&1; then ok; else
		bad "$2: $(head -c 300 "$tmp/out")"
	fi
}

# 1. slice: 65 jobs of one chip on the 64 chips of a 4x4x4 cube cannot
# fit by counting (65 > 64); the search had run 10^7 steps and said
# "not decided" (exit 4).  9 jobs of 2x2x2 need 72 chips: the same.
expect 3 "slice 65 single chips on 64" -- "$FABRICX" slice specs/tpu-v4-cube.yaml --shape 1x1x1 --jobs 65 --json
first "fabricx: infeasible: 65 jobs of 1x1x1 chips need 65 chips, and 64 are idle: at most 64 fit (by counting)" "slice: the count named"
json '.error.status == 3' "slice --json"
expect 3 "slice 9 cubes of 8 on 64" -- "$FABRICX" slice specs/tpu-v4-cube.yaml --shape 2x2x2 --jobs 9
has "need 72 chips, and 64 are idle: at most 8 fit (by counting)" "slice 2x2x2: the count named"
expect 0 "slice 8 cubes of 8 on 64" -- "$FABRICX" slice specs/tpu-v4-cube.yaml --shape 2x2x2 --jobs 8

# 2. --json: an error object on stdout for every failure, the driver's too
expect 2 "unknown command --json" -- "$FABRICX" bogus --json
json '.error.status == 2 and .error.message == "unknown command '"'bogus'"'"' "bogus --json"
expect 2 "no command --json" -- "$FABRICX" --json
json '.error.status == 2 and .error.message == "no command given"' "--json alone"
expect 2 "compare a missing spec --json" -- "$FABRICX" compare /nonexistent --json
json '.error.file == "/nonexistent" and (.error.message | test("cannot open spec"))' "compare --json"

# 3. a variant's value may hold '/': 100 GB/s links double HGX H100's
# 18 x 25 GB/s = 450 GB/s per GPU to 18 x 100 = 1.8 TB/s across the split
expect 0 "compare a value with '/'" -- "$FABRICX" compare 'specs/hgx-h100.yaml@fabric.link.bandwidth=100GB/s' specs/hgx-h100.yaml --json
json '[.builds[].bisection_per_device_Bps] == [1800000000000, 450000000000]' "variant with '/'"
json '.builds[0].name == "hgx-h100@fabric.link.bandwidth=100GB/s"' "variant's name"

# 4. lists: an empty entry or a trailing comma is an error, never dropped
expect 2 "--tasks with an empty entry" -- "$FABRICX" pool specs/hgx-h100.yaml --tasks 100GB,,60GB
first "fabricx: error: --tasks: '100GB,,60GB' has an empty entry (entry 2: two commas, or one at the start)" "--tasks ,, message"
expect 2 "--tasks with a trailing comma" -- "$FABRICX" pool specs/hgx-h100.yaml --tasks 100GB,60GB,
expect 2 "--vary with a trailing comma" -- "$FABRICX" explore specs/tpu-v4-cube.yaml --vary 'fabric.dims=[4,4,4],[8,8,8],' --out "$tmp/o"
first "fabricx: error: --vary 'fabric.dims=[4,4,4],[8,8,8],': value 3 is empty (a comma at the end)" "--vary trailing comma message"
expect 2 "--vary with an empty value" -- "$FABRICX" explore specs/tpu-v4-cube.yaml --vary 'fabric.dims=[4,4,4],,[8,8,8]' --out "$tmp/o"
expect 2 "--algo with a trailing comma" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --sizes 1KiB:1MiB:x32 --algo ring,
expect 2 "--skip with an empty entry" -- "$FABRICX" explore specs/hgx-h100.yaml --skip diagrams,,power --out "$tmp/o"
# commas inside quotes or brackets are a value's own
expect 0 "--vary values holding commas" -- "$FABRICX" explore specs/tpu-v4-cube.yaml --vary 'description="a,,b",c' --out "$tmp/o" --json
[ "$(jq .space.points_total "$tmp/out")" = 2 ] && ok || bad "quoted commas: $(jq -c .space "$tmp/out")"

# 5. --no-space with an option only a space run reads: refused
expect 2 "--no-space --vary" -- "$FABRICX" explore specs/spaces/torus-growth.yaml --no-space --vary 'fabric.dims=[4,4,4]' --out "$tmp/o"
first "fabricx: error: --no-space reports the base design, which --vary does not apply to: give one or the other" "--no-space --vary message"
expect 2 "--no-space --jobs" -- "$FABRICX" explore specs/spaces/torus-growth.yaml --no-space --jobs 2 --out "$tmp/o"

# 6. a space of 2x10^7 points (20,000 power values x 1,000 bandwidths):
# its grid is past the 10^7 a whole grid may hold, but --budget-points 20
# samples it (it had been refused with the advice to use --budget-points)
cat >"$tmp/big.yaml" <<'YAML'
name: big
fabric: {kind: torus, dims: [4, 4], link: {bandwidth: 50 GB/s, latency: 1 us}}
power: {device: 100 W}
space:
  vary:
    power.device: {from: 1 W, to: 20000 W, step: 1 W}
    fabric.link.bandwidth: {from: 1 GB/s, to: 1000 GB/s, step: 1 GB/s}
  objectives:
    - {minimize: power_W}
YAML
expect 0 "a 2x10^7-point space sampled" -- "$FABRICX" explore "$tmp/big.yaml" --budget-points 20 --out "$tmp/o" --json
json '.space.points_total == 20000000 and .space.points_evaluated == 20 and .space.sampled' "sampled 2x10^7"
expect 2 "its whole grid" -- "$FABRICX" explore "$tmp/big.yaml" --out "$tmp/o"
first "fabricx: error: the space has 20000000 points, over the limit of 100000 for the whole grid: sample it with --budget-points N (--max-points goes up to 10^7)" "whole grid message"

# 7. provenance names the fabricx too (issue 25, "What to build" 3): a
# shard or a run to resume made by another version is refused, naming it
# (tests/cli/space.sh covers the spec, the overrides and the space)
s=specs/spaces/power-budget.yaml
for i in 1 2; do
	expect 0 "shard $i/2" -- "$FABRICX" explore $s --quiet --shard $i/2 --out "$tmp/sh"
done
sh1=$tmp/sh/power-budget-shard-1-of-2
jq '.provenance.fabricx_version = "0.0.9"' "$sh1/report.json" >"$tmp/r.json" && cat "$tmp/r.json" >"$sh1/report.json"
expect 2 "merge a shard of another fabricx" -- "$FABRICX" merge $s --from "$sh1" --from "$tmp/sh/power-budget-shard-2-of-2" --out "$tmp/m"
has "^fabricx: error: merge: '$sh1' was computed by fabricx 0.0.9, this is " "merge: the version named"
[ ! -e "$tmp/m/power-budget" ] && ok || bad "a refused merge wrote its report"
expect 0 "a run to resume" -- "$FABRICX" explore $s --quiet --out "$tmp/rv"
jq '.provenance.fabricx_version = "0.0.9"' "$tmp/rv/power-budget/report.json" >"$tmp/r.json" &&
	cat "$tmp/r.json" >"$tmp/rv/power-budget/report.json"
expect 2 "resume a run of another fabricx" -- "$FABRICX" explore $s --resume --out "$tmp/rv"
has "^fabricx: error: --resume: '$tmp/rv/power-budget' was computed by fabricx 0.0.9" "resume: the version named"

# 8. a closed standard output is an error (exit 2, EPIPE named), never a
# kill by SIGPIPE (exit 141); 519 KB of GraphML is past any pipe's buffer
for k in 1 2 3; do
	{ "$FABRICX" export specs/torus-8x8x8.yaml --to graphml 2>"$tmp/err"; echo $? >"$tmp/rc"; } | true
	[ "$(cat "$tmp/rc")" = 2 ] && ok || bad "stdout closed ($k): exit $(cat "$tmp/rc"), not 2"
	has "cannot write to standard output: Broken pipe" "closed stdout ($k) named"
done

# 12. every command on every kind, or a refusal that names what to add
# (issue 27's "Done when"): compare under a cap that fits nothing and one
# that fits some, failures and place on every shipped spec.  A build that
# fits nothing says so ("nothing fits", exit 3) with its figures null,
# never a row of zeros; a build that fits is timed.
for spec in specs/*.yaml; do
	n=$(basename "$spec" .yaml)
	small=""
	case $n in wse2) small="--set fabric.grid=[16,16]" ;; esac
	for cap in 1kW 200kW; do
		# shellcheck disable=SC2086
		"$FABRICX" compare "$spec" $small --power-cap $cap --json --out "$tmp/o" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc -eq 0 ] || [ $rc -eq 3 ]; then ok; else bad "compare $n under $cap: exit $rc"; continue; fi
		json '[.builds[] | select(.devices == 0 and ((.limited_by | test("nothing fits") | not)
		        or .allreduce_10KiB_s != null or .power_W != null or .links != null))] | length == 0' \
		    "compare $n under $cap: a build of no devices not said to fit nothing"
		json '[.builds[] | select(.devices > 0 and ((.allreduce_10KiB_s | type) != "number"
		        or .allreduce_10KiB_s <= 0))] | length == 0' "compare $n under $cap: a build untimed"
		if [ $rc -eq 3 ]; then has "infeasible" "compare $n under $cap: exit 3 says what binds"; fi
	done
	# shellcheck disable=SC2086
	"$FABRICX" failures "$spec" $small --json --out "$tmp/o" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	case $rc in
	0) ok ;;
	2) has "no switch chips (try --kind link)" "failures $n: the refusal names what to ask" ;;
	*) bad "failures $n: exit $rc" ;;
	esac
	# shellcheck disable=SC2086
	"$FABRICX" place "$spec" $small --json --out "$tmp/o" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	case $rc in
	0) json '.instances_placed >= 1' "place $n: nothing placed" ;;
	2) has "no workload to place (add 'workload:" "place $n: the refusal names the key" ;;
	*) bad "place $n: exit $rc" ;;
	esac
done

summary "contract tests"
