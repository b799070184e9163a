#!/bin/sh
# make peer-check: every case of tests/peer/cases.txt under fabricx and its
# SimGrid twin; fails when a mode is further from SimGrid than its bound
# (maxmin 0.5 %, events 2 %), and when SimGrid's times differ from the
# reference values the unit tests hold (tests/unit/peer_ref.h; with
# PEER_UPDATE=1 they are rewritten from this run).
#
#   FABRICX=./fabricx SCHEDULE=build/peer/schedule TWIN=build/peer/twin sh tests/peer/run.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
: "${FABRICX:?}" "${SCHEDULE:?}" "${TWIN:?}"
out=${PEER_OUT:-build/peer}
mkdir -p "$out"
version=$(pkg-config --modversion simgrid)
cfg="--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0 --log=root.thres:critical"
ref="$out/peer_ref.h"
{
	echo "/* SimGrid $version's times for the peer cases (tests/peer/cases.txt), written"
	echo " * by tests/peer/run.sh (make peer-check PEER_UPDATE=1); platforms"
	echo " * tests/peer/<spec>.xml, CM02 with crosstraffic off and TCP-gamma 0. */"
	echo "#define PEER_SIMGRID_VERSION \"$version\""
} > "$ref"
printf '%-18s %-7s %14s %14s %14s %9s  %s\n' case mode "fabricx s" "simgrid s" "bound s" ratio ok
rm -f "$out/failed"
grep -v '^#' "$here/cases.txt" | while read -r name spec pattern algo size ranks tie mode; do
	[ -n "$name" ] || continue
	sched="$out/$name.sched"
	"$SCHEDULE" "$here/$spec.yaml" "$pattern" "$algo" "$size" "$ranks" > "$sched"
	twin_mode=rounds
	[ "$mode" = events ] && twin_mode=events
	# shellcheck disable=SC2086
	sg=$("$TWIN" "$here/$spec.xml" "$sched" $twin_mode $cfg)
	fx() {
		"$FABRICX" collective "$here/$spec.yaml" --pattern "$pattern" --algo "$algo" \
			--size "${size}B" --ranks "$ranks" --tie "$tie" --timing "$1" --json | jq -r .time_s
	}
	t=$(fx "$mode")
	b=$(fx bound)
	tol=0.005
	[ "$mode" = events ] && tol=0.02
	verdict=$(awk -v a="$t" -v b="$sg" -v tol="$tol" 'BEGIN { r = a / b; d = r - 1; if (d < 0) d = -d;
		printf "%.6f %s", r, d <= tol ? "yes" : "NO" }')
	printf '%-18s %-7s %14s %14s %14s %s\n' "$name" "$mode" "$t" "$sg" "$b" "$verdict"
	echo "PEER_CASE(\"$name\", \"$spec\", \"$pattern\", \"$algo\", $size, $ranks, \"$tie\", \"$mode\", $sg)" >> "$ref"
	case "$verdict" in *NO) echo "$name" >> "$out/failed" ;; esac
done
if [ -s "$out/failed" ]; then
	echo "peer-check: outside the bound: $(tr '\n' ' ' < "$out/failed")" >&2
	rm -f "$out/failed"
	exit 1
fi
if [ "${PEER_UPDATE:-0}" = 1 ]; then
	cp "$ref" "$here/../unit/peer_ref.h"
	echo "peer-check: tests/unit/peer_ref.h rewritten"
elif ! cmp -s "$ref" "$here/../unit/peer_ref.h"; then
	echo "peer-check: SimGrid's times differ from tests/unit/peer_ref.h:" >&2
	diff "$here/../unit/peer_ref.h" "$ref" >&2 || true
	exit 1
fi
n=$(grep -c '^PEER_CASE' "$ref")
echo "$n passed, 0 failed"
