#!/bin/sh
# `fabricx export --to simgrid`, `--to simgrid-hosts` and `--to smpi` run
# as a user would: smpicc builds the program, smpirun runs it on the
# exported platform, and the time it prints must be within 0.5 % of
# fabricx's `collective --timing maxmin --routing hash` (CM02,
# crosstraffic off, SMPI's bandwidth and latency factors 1, computation
# not simulated; the per-round overhead 0 in both).  Skipped without
# smpicc/smpirun, unless PEER_REQUIRED=1.
#
#   FABRICX=./fabricx sh tests/peer/smpi_export.sh
set -eu
: "${FABRICX:?}"
cd "$(dirname "$0")/../.." || exit 1
if ! command -v smpicc >/dev/null 2>&1 || ! command -v smpirun >/dev/null 2>&1; then
	if [ "${PEER_REQUIRED:-0}" = 1 ]; then echo "smpi peer: smpicc/smpirun not installed" >&2; exit 1; fi
	echo "smpi peer: skipped (no smpicc/smpirun: apt-get install simgrid)"
	exit 0
fi
out=${PEER_OUT:-build/peer}/smpi
mkdir -p "$out"
cfg="--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0
     --cfg=smpi/bw-factor:1 --cfg=smpi/lat-factor:1 --cfg=smpi/simulate-computation:no
     --log=root.thres:critical"
flat='collective={overhead: 0 s}'
fails=0
n=0
printf '%-16s %-22s %14s %14s %9s\n' spec collective "fabricx s" "smpi s" ratio
while read -r spec pattern algo size ranks; do
	case $spec in ''|'#'*) continue ;; esac
	b=$(basename "$spec" .yaml)
	wl="workload={collectives: [{pattern: $pattern, algo: $algo, size: $size B, ranks: $ranks}]}"
	"$FABRICX" export "$spec" --set "$flat" --to simgrid -o "$out/$b.xml" >/dev/null 2>&1
	"$FABRICX" export "$spec" --to simgrid-hosts -o "$out/$b.hosts" >/dev/null 2>&1
	"$FABRICX" export "$spec" --set "$flat" --set "$wl" --to smpi -o "$out/$b.c" >/dev/null 2>&1
	(cd "$out" && smpicc -O2 "$b.c" -o "$b.bin" 2>/dev/null)
	# shellcheck disable=SC2086
	sg=$(cd "$out" && smpirun -platform "$b.xml" -hostfile "$b.hosts" -np "$ranks" $cfg "./$b.bin" 2>&1 |
		sed -n 's/^fabricx-smpi: .* \([0-9.e+-]*\) s$/\1/p')
	fx=$("$FABRICX" collective "$spec" --set "$flat" --pattern "$pattern" --algo "$algo" \
		--size "${size}B" --ranks "$ranks" --timing maxmin --routing hash --json | jq -r .time_s)
	verdict=$(awk -v a="$fx" -v b="$sg" 'BEGIN { if (b == "") { print "none NO"; exit } r = a / b; d = r - 1; if (d < 0) d = -d;
		printf "%.6f %s", r, d <= 0.005 ? "yes" : "NO" }')
	printf '%-16s %-22s %14s %14s %s\n' "$b" "$pattern/$algo" "$fx" "$sg" "$verdict"
	n=$((n + 1))
	case $verdict in *NO) fails=$((fails + 1)) ;; esac
done <<'CASES'
# spec                       pattern     algo      size     ranks
tests/peer/torus-5x5.yaml    allreduce   ring      1012000  25
tests/peer/two-switch.yaml   all-to-all  pairwise  600000   6
specs/hgx-h100.yaml          allreduce   ring      1048576  8
specs/dgx1.yaml              allreduce   ring      1048576  8
specs/fat-tree-k8.yaml       allreduce   ring      1048576  128
CASES
echo "smpi export: $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
