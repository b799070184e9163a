#!/bin/sh
# CLI tests of design spaces (explore with a space: block or --vary, merge):
# the book's sweeps through the shipped spaces, the same points.csv however
# a space is split (serially, on workers, as merged shards, under MPI),
# reasons of infeasible points, the Pareto column against brute force, and
# the refusals.
#
#   FABRICX=/path/to/fabricx sh tests/cli/space.sh
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

# row FILE POINT FIELD: the value of FIELD in point POINT's row of FILE
row() {
	python3 - "$1" "$2" "$3" <<'EOF'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["point"] == sys.argv[2]:
        print(r[sys.argv[3]])
EOF
}

# ---- the book's sweeps ----

# the chapter "Supernodes" §6.5.4: a 4x4x4 torus of 64 chips has 32 cut
# links, an 8x8x8 of 512 chips 128: chips grow 8x, the cut 4x, so the
# bisection per chip halves (50 GB/s links: 50 -> 25 GB/s)
expect 0 "torus-growth space" -- "$FABRICX" explore specs/spaces/torus-growth.yaml --out "$tmp/o"
p="$tmp/o/torus-growth/points.csv"
[ "$(row "$p" 0 fabric.dims)/$(row "$p" 0 devices)/$(row "$p" 0 bisection_links)" = "[4, 4, 4]/64/32" ] && ok || bad "§6.5.4: 4^3 torus: $(row "$p" 0 devices) chips, $(row "$p" 0 bisection_links) cut links"
[ "$(row "$p" 2 fabric.dims)/$(row "$p" 2 devices)/$(row "$p" 2 bisection_links)" = "[8, 8, 8]/512/128" ] && ok || bad "§6.5.4: 8^3 torus: $(row "$p" 2 devices) chips, $(row "$p" 2 bisection_links) cut links"
[ "$(row "$p" 0 bisection_per_device_Bps)/$(row "$p" 2 bisection_per_device_Bps)" = "50000000000/25000000000" ] && ok || bad "§6.5.4: bisection per chip halves"
# 16^3: 2 x 16^2 = 512 cut links over 4096 chips (the even-torus cut 2k^2)
[ "$(row "$p" 5 devices)/$(row "$p" 5 bisection_links)" = "4096/512" ] && ok || bad "16^3 torus cut"
for f in points.csv pareto.csv report.md report.json plot-devices-vs-fabric.dims.svg \
	plot-bisection_per_device_Bps-vs-fabric.dims.png front-bisection_per_device_Bps-vs-devices.svg; do
	[ -s "$tmp/o/torus-growth/$f" ] && ok || bad "torus-growth wrote no $f"
done
grep -q "<title>" "$tmp/o/torus-growth/front-bisection_per_device_Bps-vs-devices.svg" && ok || bad "front plot is no SVG"
grep -q "Pareto front" "$tmp/o/torus-growth/front-bisection_per_device_Bps-vs-devices.svg" && ok || bad "front plot has no legend"

# §6.5.2 and Experiment 6-7: 10.2 kW DGX H100 servers, P0 = 0: 120 kW buys
# 11 servers = 88 cards; (a) 150 kW buys 14 = 112; (b) a second tier past
# 64 cards reserving 10.2 kW leaves (120 - 10.2) / 10.2 -> 10 servers = 80;
# (c) whole groups of 4 servers then give 8 servers = 64 cards (12 would
# need 122.4 + 10.2 kW)
expect 0 "power-budget space" -- "$FABRICX" explore specs/spaces/power-budget.yaml --out "$tmp/o"
p="$tmp/o/power-budget/points.csv"
[ "$(row "$p" 0 build_devices)" = 88 ] && ok || bad "§6.5.2: 120 kW buys $(row "$p" 0 build_devices) cards, not 88"
[ "$(row "$p" 4 build_devices)" = 112 ] && ok || bad "Exp. 6-7 (a): 150 kW buys $(row "$p" 4 build_devices), not 112"
[ "$(row "$p" 2 build_devices)" = 80 ] && ok || bad "Exp. 6-7 (b): $(row "$p" 2 build_devices), not 80"
[ "$(row "$p" 3 build_devices)" = 64 ] && ok || bad "Exp. 6-7 (c): $(row "$p" 3 build_devices), not 64"
# 88 cards draw 11 x 10.2 = 112.2 kW, 1.275 kW a card (§6.5.2)
[ "$(row "$p" 0 power_W)/$(row "$p" 0 power_per_device_W)" = "112200/1275" ] && ok || bad "88 cards: power"

# ---- the same points however the space is split ----
s=specs/spaces/power-budget.yaml
cp "$p" "$tmp/serial.csv"
cp "$tmp/o/power-budget/pareto.csv" "$tmp/serial-pareto.csv"
expect 0 "2 workers" -- "$FABRICX" explore $s --jobs 2 --out "$tmp/j"
cmp -s "$tmp/serial.csv" "$tmp/j/power-budget/points.csv" && ok || bad "--jobs 2: points.csv differs"
cmp -s "$tmp/serial-pareto.csv" "$tmp/j/power-budget/pareto.csv" && ok || bad "--jobs 2: pareto.csv differs"
for i in 1 2 3; do
	expect 0 "shard $i/3" -- "$FABRICX" explore $s --shard $i/3 --out "$tmp/sh"
done
[ "$(tail -n +2 "$tmp/sh/power-budget-shard-2-of-3/points.csv" | cut -d, -f1 | tr '\n' ' ')" = "1 4 7 " ] && ok || bad "shard 2/3 takes points 1, 4, 7"
expect 0 "merge 3 shards" -- "$FABRICX" merge $s --from "$tmp/sh/power-budget-shard-1-of-3" \
	--from "$tmp/sh/power-budget-shard-3-of-3" --from "$tmp/sh/power-budget-shard-2-of-3" --out "$tmp/m"
cmp -s "$tmp/serial.csv" "$tmp/m/power-budget/points.csv" && ok || bad "merged shards: points.csv differs"
cmp -s "$tmp/serial-pareto.csv" "$tmp/m/power-budget/pareto.csv" && ok || bad "merged shards: pareto.csv differs"
expect 2 "merge with a shard missing" -- "$FABRICX" merge $s --from "$tmp/sh/power-budget-shard-1-of-3" --out "$tmp/m"
has "5 points of the space are in none of the folders merged" "missing shard message"
expect 2 "merge another space's folder" -- "$FABRICX" merge $s --from "$tmp/o/torus-growth" --out "$tmp/m"
has "is not from this space" "foreign folder message"
if command -v mpirun >/dev/null 2>&1; then
	# root in CI containers; shared memory alone; Open MPI's own allocations
	# at MPI_Init are not fabricx's leaks (an ASan build)
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	for np in 1 2 4; do
		expect 0 "mpirun -np $np" -- mpirun --oversubscribe -np $np "$FABRICX" explore $s --out "$tmp/mpi$np"
		cmp -s "$tmp/serial.csv" "$tmp/mpi$np/power-budget/points.csv" && ok || bad "mpirun -np $np: points.csv differs"
	done
else
	echo "space.sh: mpirun not found; the MPI runs are skipped (make deps installs openmpi-bin)"
fi
# --resume recomputes nothing when every point is there, and writes the same
expect 0 "resume" -- "$FABRICX" explore $s --resume --json --out "$tmp/o"
[ "$(jq .space.points_computed "$tmp/out")" = 0 ] && ok || bad "--resume recomputed $(jq .space.points_computed "$tmp/out") points"
cmp -s "$tmp/serial.csv" "$tmp/o/power-budget/points.csv" && ok || bad "--resume: points.csv differs"
# a partial run resumed computes only what is missing
head -n 4 "$tmp/serial.csv" >"$tmp/o/power-budget/points.csv"
expect 0 "resume a partial run" -- "$FABRICX" explore $s --resume --json --out "$tmp/o"
[ "$(jq .space.points_computed "$tmp/out")" = 5 ] && ok || bad "--resume of 3 points computed $(jq .space.points_computed "$tmp/out"), not 5"
cmp -s "$tmp/serial.csv" "$tmp/o/power-budget/points.csv" && ok || bad "--resume: points.csv differs"

# ---- constraints, reasons, the front ----
cat >"$tmp/capped.yaml" <<'EOF'
name: capped
fabric: {kind: torus, dims: [4, 4, 4], link: {bandwidth: 50 GB/s, latency: 200 ns}}
power: {device: 192 W}
collective: {overhead: 0 us}
space:
  vary:
    fabric.dims: [[4, 4, 4], [6, 6, 6], [8, 8, 8], [10, 10, 10]]
    fabric.link.bandwidth: [25 GB/s, 50 GB/s, 100 GB/s]
  constraints:
    - {metric: power_W, max: 100 kW}
    - {metric: diameter_hops, max: 9}
  objectives:
    - {maximize: devices}
    - {maximize: bisection_per_device_Bps}
    - {minimize: power_W}
EOF
expect 0 "a space with constraints" -- "$FABRICX" explore "$tmp/capped.yaml" --json --out "$tmp/o"
p="$tmp/o/capped/points.csv"
# 8^3: 512 x 192 W = 98.3 kW passes the power cap but its diameter is 12
[ "$(row "$p" 6 status)" = infeasible ] && [ "$(row "$p" 6 reason)" = "diameter_hops = 12 is outside diameter_hops <= 9" ] && ok || bad "8^3 reason: $(row "$p" 6 reason)"
# 10^3: 1000 x 192 W = 192 kW, over 100 kW: the first constraint is named
[ "$(row "$p" 9 reason)" = "power_W = 192000 is outside power_W <= 100 kW" ] && ok || bad "10^3 reason: $(row "$p" 9 reason)"
[ "$(jq '.space.points_feasible' "$tmp/out")" = 6 ] && ok || bad "feasible points: $(jq '.space.points_feasible' "$tmp/out")"
# the pareto column is exactly the non-dominated feasible points
python3 - "$p" <<'EOF' && ok || bad "pareto column differs from brute force"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
obj = [("devices", 1), ("bisection_per_device_Bps", 1), ("power_W", -1)]
def v(r): return [s * float(r[m]) for m, s in obj]
feas = [r for r in rows if r["feasible"] == "true"]
def dom(a, b): return all(x >= y for x, y in zip(v(a), v(b))) and any(x > y for x, y in zip(v(a), v(b)))
for r in rows:
    want = r["feasible"] == "true" and not any(dom(o, r) for o in feas if o is not r)
    if want != (r["pareto"] == "true"):
        sys.exit("point %s: pareto %s" % (r["point"], r["pareto"]))
EOF
# nothing feasible: proven so (exit 3), the report still written
expect 3 "nothing feasible" -- "$FABRICX" explore "$tmp/capped.yaml" --vary 'fabric.dims=[10,10,10],[12,12,12]' --out "$tmp/o"
has "no point of the space meets the constraints" "infeasible space message"
[ -s "$tmp/o/capped/points.csv" ] && ok || bad "an infeasible space writes no points.csv"

# ---- sampling ----
expect 0 "a sampled space" -- "$FABRICX" explore "$tmp/capped.yaml" --vary 'fabric.link.bandwidth=10GB/s:100GB/s:10GB/s' \
	--budget-points 12 --seed 7 --json --out "$tmp/o"
[ "$(jq '.space | [.points_total, .sampled, (.points_evaluated <= 12), .sample_points]' -c "$tmp/out")" = "[40,true,true,6]" ] && ok || bad "sample: $(jq -c .space "$tmp/out")"
cp "$tmp/o/capped/points.csv" "$tmp/sample.csv"
expect 0 "the same sample again" -- "$FABRICX" explore "$tmp/capped.yaml" --vary 'fabric.link.bandwidth=10GB/s:100GB/s:10GB/s' \
	--budget-points 12 --seed 7 --jobs 2 --out "$tmp/o"
cmp -s "$tmp/sample.csv" "$tmp/o/capped/points.csv" && ok || bad "a seeded sample differs between runs"

# ---- refusals ----
expect 2 "unknown metric" -- "$FABRICX" explore specs/tpu-v4-cube.yaml --vary 'fabric.dims=[4,4,4]' --set 'space={vary: {fabric.dims: [[4,4,4]]}, objectives: [{minimize: watts}]}'
has "no report gives the metric 'watts'" "unknown metric message"
expect 2 "space too large" -- "$FABRICX" explore specs/tpu-v4-cube.yaml --vary 'fabric.link.bandwidth=1GB/s:1000GB/s:1GB/s' --max-points 100
has "the space has 1000 points, over the limit of 100" "space size message"
expect 2 "bad shard" -- "$FABRICX" explore $s --shard 4/3
expect 2 "shard and budget" -- "$FABRICX" explore $s --shard 1/2 --budget-points 4
expect 2 "bad vary" -- "$FABRICX" explore $s --vary 'fabric.dims'
expect 2 "every point bad input" -- "$FABRICX" explore specs/tpu-v4-cube.yaml --vary 'fabric.dimz=[4,4,4],[8,8,8]' --out "$tmp/o"
has "every point is bad input" "all-invalid message"
expect 2 "--json error" -- "$FABRICX" explore $s --shard 0/3 --json
jq -e '.error.status == 2' "$tmp/out" >/dev/null && ok || bad "--json error object"
# --vary on a spec without a space: the default metrics
expect 0 "--vary alone" -- "$FABRICX" explore specs/tpu-v4-cube.yaml --vary 'fabric.dims=[4,4,4],[8,8,8]' --out "$tmp/o"
[ "$(head -n 1 "$tmp/o/tpu-v4-cube/points.csv")" = "point,fabric.dims,devices,diameter_hops,bisection_per_device_Bps,power_W,feasible,status,reason,pareto" ] && ok || bad "--vary alone: header $(head -n 1 "$tmp/o/tpu-v4-cube/points.csv")"

# --no-space: the base design's report
expect 0 "--no-space" -- "$FABRICX" explore specs/spaces/torus-growth.yaml --no-space --skip diagrams --json --out "$tmp/o"
[ "$(jq -r '.status' "$tmp/out")" = ok ] && [ -s "$tmp/o/torus-growth/links.csv" ] && [ ! -e "$tmp/o/torus-growth/points.csv" ] && ok || bad "--no-space: not the design report"

summary space.sh
