#!/bin/sh
# `fabricx export --to simgrid` proven by SimGrid itself: for each case the
# exported platform (explicit routes = fabricx's hash paths) is loaded by
# SimGrid, which runs the collective's schedule round by round
# (tests/peer/twin.cpp), and its time must be within 0.5 % of fabricx's
# `collective --timing maxmin --routing hash` (CM02, crosstraffic off,
# factors 1; the per-round overhead set to 0 in both, since a platform
# carries none).  The first three cases also run on the hand-written
# platforms of tests/peer/ and must give the same time to the digit.
#
#   FABRICX=./fabricx SCHEDULE=build/peer/schedule TWIN=build/peer/twin sh tests/peer/simgrid_export.sh
set -eu
: "${FABRICX:?}" "${SCHEDULE:?}" "${TWIN:?}"
cd "$(dirname "$0")/../.." || exit 1
out=${PEER_OUT:-build/peer}/export
mkdir -p "$out"
cfg="--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0 --log=root.thres:critical"
flat='collective={overhead: 0 s}'
fails=0
n=0
printf '%-22s %-22s %14s %14s %9s\n' spec collective "fabricx s" "simgrid s" ratio
while read -r spec pattern algo size ranks hand; do
	case $spec in ''|'#'*) continue ;; esac
	b=$(basename "$spec" .yaml)
	"$FABRICX" export "$spec" --set "$flat" --to simgrid -o "$out/$b.xml" >/dev/null 2>"$out/$b.lost"
	"$SCHEDULE" "$spec" "$pattern" "$algo" "$size" "$ranks" > "$out/$b.sched"
	# shellcheck disable=SC2086
	sg=$("$TWIN" "$out/$b.xml" "$out/$b.sched" rounds $cfg)
	fx=$("$FABRICX" collective "$spec" --set "$flat" --pattern "$pattern" --algo "$algo" \
		--size "${size}B" --ranks "$ranks" --timing maxmin --routing hash --json | jq -r .time_s)
	verdict=$(awk -v a="$fx" -v b="$sg" 'BEGIN { r = a / b; d = r - 1; if (d < 0) d = -d;
		printf "%.6f %s", r, d <= 0.005 ? "yes" : "NO" }')
	printf '%-22s %-22s %14s %14s %s\n' "$b" "$pattern/$algo" "$fx" "$sg" "$verdict"
	n=$((n + 1))
	case $verdict in *NO) fails=$((fails + 1)) ;; esac
	if [ "$hand" = hand ]; then
		# shellcheck disable=SC2086
		sh=$("$TWIN" "tests/peer/$b.xml" "$out/$b.sched" rounds $cfg)
		n=$((n + 1))
		if [ "$sh" != "$sg" ]; then
			echo "FAIL: $b: the exported platform gives $sg s, the hand-written one $sh s"
			fails=$((fails + 1))
		fi
	fi
done <<'CASES'
# spec                          pattern     algo      size     ranks  hand-written twin
tests/peer/two-switch.yaml      all-to-all  direct    600000   6      hand
tests/peer/torus-5x5.yaml       allreduce   ring      1012000  23     hand
tests/peer/fat-tree-k4.yaml     all-to-all  pairwise  1048576  16     hand
specs/hgx-h100.yaml             allreduce   ring      1048576  8      -
specs/dgx1.yaml                 all-to-all  direct    1048576  8      -
specs/dgx1.yaml                 allreduce   ring      1048576  8      -
specs/tpu-v4-cube.yaml          allreduce   ring      1048576  64     -
specs/fat-tree-k8.yaml          all-to-all  pairwise  1048576  128    -
specs/nvl72.yaml                all-to-all  direct    1048576  72     -
specs/hgx-h100-x2-rail.yaml     allreduce   ring      1048576  16     -
CASES
echo "simgrid export: $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
