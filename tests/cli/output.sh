#!/bin/sh
# Output contract (docs/output.md): every JSON field the converted commands
# emit on the shipped specs is documented, and every CSV explore writes
# parses as RFC 4180 with one field count per file.
#
#   FABRICX=/path/to/fabricx sh tests/cli/output.sh
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

# 1. JSON field names: every object key at any depth
: >"$tmp/keys"
keys() { jq -r '[paths | map(select(type == "string")) | .[]] | unique | .[]' "$tmp/out" >>"$tmp/keys"; }
for spec in specs/*.yaml; do
	small=""
	case $spec in *wse2*) small="--set fabric.grid=[16,16]" ;; esac
	# shellcheck disable=SC2086
	for cmd in "metrics" "power" "collective --pattern allreduce --size 10KiB"; do
		# shellcheck disable=SC2086
		expect 0 "$cmd $spec --json" -- "$FABRICX" $cmd "$spec" $small --json && keys
	done
done
expect 0 "metrics --cut" -- "$FABRICX" metrics specs/cm384.yaml --cut node=0-23:rest --json && keys
expect 0 "collective --versus" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --algo ring --size 10KiB --versus tree --json && keys
expect 0 "collective plmr" -- "$FABRICX" collective specs/wse2.yaml --set 'fabric.grid=[66,4]' --pattern allreduce --algo ktree --chunks 22 --size 4KiB --json && keys
expect 0 "render --json" -- "$FABRICX" render specs/cm384.yaml --view loads --json -o "$tmp/r.svg" && keys
expect 0 "render side by side --json" -- "$FABRICX" render specs/hgx-h100.yaml specs/dgx1.yaml --json -o "$tmp/r.dot" && keys
expect 0 "jobs --json" -- "$FABRICX" jobs tests/specs/cm384-jobs.yaml --json && keys
expect 0 "kinds --json" -- "$FABRICX" kinds --json && keys
expect 0 "collective --list --json" -- "$FABRICX" collective --list --json && keys
expect 2 "an error --json" -- "$FABRICX" metrics specs/nope.yaml --json && keys
expect 0 "place --json" -- "$FABRICX" place specs/cm384.yaml --json && keys
expect 0 "place --fail-at --json" -- "$FABRICX" place specs/hgx-h100.yaml --fail-at 20ms --json && keys
expect 3 "power over budget --json" -- "$FABRICX" power specs/dgx-h100-256.yaml --nodes 12 --budget 120kW --set 'power={node: 10.2 kW}' --json && keys
expect 0 "failures --json" -- "$FABRICX" failures specs/cm384.yaml --fail node=0 --json && keys
expect 0 "failures --kind link --json" -- "$FABRICX" failures specs/tpu-v4-cube.yaml --kind link --json && keys
expect 0 "failures --k 2 --json" -- "$FABRICX" failures specs/hgx-h100.yaml --k 2 --sample 3 --json && keys
expect 0 "metrics --fail --json" -- "$FABRICX" metrics specs/tpu-v4-cube.yaml --fail x=0,y=0,z=0 --json && keys
expect 0 "collective --fail --json" -- "$FABRICX" collective specs/nvl72.yaml --pattern allreduce --size 1MiB --fail switch=0 --json && keys
expect 0 "reconfigure --json" -- "$FABRICX" reconfigure specs/tpu-v4-cube.yaml --set 'fabric.dims=[8]' --algo ring --json && keys
g4="--set fabric.dims=[4,4] --set packaging.devices_per_node=1 --set packaging.nodes_per_rack=16"
# shellcheck disable=SC2086
expect 0 "slice --json" -- "$FABRICX" slice specs/torus-8x8x8.yaml $g4 --shape 2x2 --jobs 2 --idle y=0-1 --json && keys
# shellcheck disable=SC2086
expect 0 "slice --cube --json" -- "$FABRICX" slice specs/torus-8x8x8.yaml $g4 --shape 2x2 --jobs 2 --idle y=0-1 --cube 2x2 --json && keys
expect 0 "bom --json" -- "$FABRICX" bom specs/nvl72.yaml --json && keys
expect 0 "bom priced --json" -- "$FABRICX" bom specs/cm384.yaml --set 'bom.prices.rack={usd: 1, source: "assumed: a test"}' --json && keys
expect 0 "transport --json" -- "$FABRICX" transport specs/cm384.yaml --json && keys
expect 0 "pool --json" -- "$FABRICX" pool specs/hgx-h100.yaml --period 1s --json && keys
expect 0 "collective --timing maxmin --json" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --size 1MiB --timing maxmin --json && keys
expect 0 "calibrate --json" -- "$FABRICX" calibrate specs/dgx-h100-256.yaml --from tests/measured/hgx-h100-2server-allreduce.txt --json && keys
expect 0 "collective --versus-measured --json" -- "$FABRICX" collective specs/dgx-h100-256.yaml --pattern allreduce --size 10KiB --ranks 16 --versus-measured tests/measured/hgx-h100-2server-allreduce.txt --json && keys
expect 0 "collective --sizes --json" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --sizes 1KiB:1GiB:x32 --json && keys
expect 0 "compare --json" -- "$FABRICX" compare specs/cm384.yaml specs/fat-tree-k8.yaml --power-cap 120kW --json && keys
expect 0 "explore --json" -- "$FABRICX" explore specs/cm384.yaml --skip diagrams --json --out "$tmp/o" && keys
expect 0 "plan --json" -- "$FABRICX" plan specs/plans/hgx-h100-x2.yaml --json && keys
expect 0 "plan training --json" -- "$FABRICX" plan specs/plans/train-dense.yaml --no-flips --json && keys
expect 3 "plan infeasible --json" -- "$FABRICX" plan specs/plans/hgx-h100-4x128k.yaml --deadline 50ms --no-flips --json && keys
expect 0 "place measured --json" -- "$FABRICX" place specs/plans/hgx-h100-x2.yaml --json && keys
expect 0 "explore with a plan --json" -- "$FABRICX" explore specs/plans/hgx-h100-4x128k.yaml --skip diagrams --json --out "$tmp/o" && keys
expect 0 "collective measured --json" -- "$FABRICX" collective specs/plans/hgx-h100-x2.yaml --pattern allreduce --size 10KiB --json && keys
expect 0 "explore a space --json" -- "$FABRICX" explore specs/spaces/power-budget.yaml --budget-points 4 --json --out "$tmp/o" && keys
expect 0 "explore a space without objectives --json" -- "$FABRICX" explore specs/tpu-v4-cube.yaml --vary 'fabric.dims=[4,4,4],[6,6,6]' --json --out "$tmp/o" && keys
sed -i -e 's/^[a-z_]*\.[a-z_.]*$/<spec_path>/' "$tmp/keys"
# compare's per-collective keys are documented as <pattern>_<size>_s/_algo
sed -i -e 's/^[a-z_]*_[0-9]*[KMGT]*i*B_s$/<pattern>_<size>_s/' -e 's/^[a-z_]*_[0-9]*[KMGT]*i*B_algo$/<pattern>_<size>_algo/' "$tmp/keys"
for k in $(sort -u "$tmp/keys"); do
	grep -qF "\`$k\`" docs/output.md && ok || bad "JSON field '$k' is not in docs/output.md"
done

# 2. CSV: explore on every shipped spec (the wafer shrunk); links.csv of a
# torus holds vertex names with commas, quoted
for spec in specs/*.yaml; do
	n=$(basename "$spec" .yaml)
	small=""
	case $n in wse2) small="--set fabric.grid=[16,16]" ;; esac
	# shellcheck disable=SC2086
	expect 0 "explore $n" -- "$FABRICX" explore "$spec" $small --skip diagrams,placement --out "$tmp/o"
done
python3 - "$tmp/o" >"$tmp/csv" <<'PY'
import csv, glob, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*", "*.csv"))):
    with open(path, newline="") as f:
        rows = list(csv.reader(f, strict=True))
    counts = {len(r) for r in rows}
    name = os.path.relpath(path, sys.argv[1])
    print(("ok " if len(rows) >= 1 and len(counts) == 1 else "bad ") + name + " " + repr(sorted(counts)))
PY
n=$(grep -c '' "$tmp/csv")
[ "$n" -gt 20 ] && ok || bad "explore wrote only $n CSV files"
while read -r st name counts; do
	[ "$st" = ok ] && ok || bad "$name: field counts $counts"
done <"$tmp/csv"
python3 - "$tmp/o/tpu-v4-cube/links.csv" <<'PY' && ok || bad "torus links.csv: vertex names not quoted"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0] == ["src", "dst", "bytes", "busy_s", "utilisation"], rows[0]
assert rows[1][0] == "(0,0,0)" and all(len(r) == 5 for r in rows), rows[1]
PY

# 3. A report's files are one run's (issue 25): metrics --out into
# explore's folder wrote metrics.csv of a 100 GB/s build (3.168 TB/s)
# beside report.md of the 50 GB/s one.  report.json lists its files;
# another command may add files (render's picture) but replaces none.
expect 0 "explore hgx-h100" -- "$FABRICX" explore specs/hgx-h100.yaml --skip diagrams --out "$tmp/one"
cp "$tmp/one/hgx-h100/metrics.csv" "$tmp/metrics-before.csv"
jq -e '.files | index("metrics.csv") and index("report.md")' "$tmp/one/hgx-h100/report.json" >/dev/null && ok || bad "report.json lists no files"
expect 2 "metrics --out into explore's folder" -- "$FABRICX" metrics specs/hgx-h100.yaml --set fabric.link.bandwidth=50GB/s --out "$tmp/one"
first "fabricx: error: '$tmp/one/hgx-h100/metrics.csv' is part of explore's report there (report.json): metrics's metrics.csv would pass for the report's; give another --out" "mixing refused"
cmp -s "$tmp/metrics-before.csv" "$tmp/one/hgx-h100/metrics.csv" && ok || bad "explore's metrics.csv was changed"
expect 0 "render a picture beside the report" -- "$FABRICX" render specs/hgx-h100.yaml --out "$tmp/one"
expect 0 "and again" -- "$FABRICX" render specs/hgx-h100.yaml --out "$tmp/one"
[ -s "$tmp/one/hgx-h100/physical.svg" ] && ok || bad "render wrote no physical.svg"
expect 0 "explore with its diagrams" -- "$FABRICX" explore specs/hgx-h100.yaml --out "$tmp/two"
expect 2 "render over the report's loads.svg" -- "$FABRICX" render specs/hgx-h100.yaml --view loads --out "$tmp/two"
has "loads.svg' is part of explore's report there" "render collision named"

summary "output tests"
