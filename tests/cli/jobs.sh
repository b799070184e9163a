#!/bin/sh
# fabricx jobs (issue #33 item 5): several jobs sharing a fabric, their
# interference, and the interference-aware placement, against loads and
# times computed by hand on CloudMatrix384 (tests/specs/cm384-jobs.yaml).
. "$(dirname "$0")/lib.sh"
S=tests/specs/cm384-jobs.yaml
TAPER="fabric.uplink.bandwidth=7 GB/s"

# near GOT WANT WHAT: equal within 1e-9 relative
near() {
	if awk -v g="$1" -v w="$2" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 1e-9 * (w < 0 ? -w : w) + 1e-15) }'
	then ok; else bad "$3: $1, expected $2"; fi
}
j() { jq -r "$1" "$tmp/out"; }
# says TEXT WHAT: the last command's stdout holds TEXT as it is
says() { if grep -qF -- "$1" "$tmp/out"; then ok; else bad "$2: stdout lacks '$1'"; fi; }

# By hand.  Each job: 8 ranks, an all-to-all (direct) of 34.3 MB per rank,
# b = 34.3 MB / 7 = 4.9e6 B to each peer, one round.  Job a holds NPUs
# 0-3 (node 0) and 8-11 (node 1).  A flow between the nodes runs NPU -> L1
# -> L2 -> L1 -> NPU (4 hops, 800 ns), split by ECMP over the 7 planes and
# the 16 L2 chips of each: 112 ways.  Node 0 sends 4 x 4 = 16 such flows,
# so each of its 112 uplinks L1 -> L2 carries 16 b / 112 = b / 7 = 700,000
# B of job a, and as much of job b.  An NPU sends 7 flows over its 7 L1
# bundles of 2 x 28 GB/s: b = 4.9e6 B a bundle, 4.9e6 / 56e9 = 87.5 us.
#   CM384 as built (uplinks 28 GB/s): an uplink needs 2 x 700,000 / 28e9 =
#   50 us with both jobs, under the NPU bundles' 87.5 us: the jobs share
#   448 links (112 up and 112 down at each of the two nodes) and 112 L2 +
#   14 L1 chips, and no interference.  Time = alpha 0.822 us + 0.8 us +
#   87.5 us = 89.122 us.
expect 0 "jobs on cm384" -- "$FABRICX" jobs $S --json
near "$(j '.interference.given.per_job[0].alone_s')" 89.122e-6 "a alone"
near "$(j '.interference.given.per_job[0].together_s')" 89.122e-6 "a together (non-blocking L2 tier)"
near "$(j '.interference.given.shared_links')" 448 "shared links"
near "$(j '.interference.given.shared_switches')" 126 "shared switch chips"
near "$(j '[.interference.given.shared_switch_names[] | select(startswith("L2"))] | length')" 112 "shared L2 chips"
near "$(j '.interference.given.shared_link_loads[0].bytes_by_job[0]')" 700000 "a's bytes on a shared uplink"
near "$(j '.interference.given.shared_link_loads[0].bytes_by_job[1]')" 700000 "b's bytes on a shared uplink"
#   The tapered build (uplinks 7 GB/s): alone an uplink needs 700,000 /
#   7e9 = 100 us (> 87.5), together 200 us: 0.822 + 0.8 + 100 = 101.622 us
#   alone, 201.622 us together, 100 us of interference each.
expect 0 "jobs on a tapered cm384" -- "$FABRICX" jobs $S --set "$TAPER" --json
for k in 0 1; do
	near "$(j ".interference.given.per_job[$k].alone_s")" 101.622e-6 "job $k alone (tapered)"
	near "$(j ".interference.given.per_job[$k].together_s")" 201.622e-6 "job $k together (tapered)"
	near "$(j ".interference.given.per_job[$k].interference_s")" 100e-6 "job $k interference (tapered)"
done
#   The interference-aware placement puts each job in a node of its own:
#   every flow stays NPU -> L1 -> NPU (400 ns), the NPU bundles bind: 0.822
#   + 0.4 + 87.5 = 88.722 us, nothing shared.
if [ "$(j '.interference.placed.status')" = optimal ]; then ok; else bad "placement status $(j '.interference.placed.status')"; fi
near "$(j '.interference.placed.shared_nodes')" 0 "placed: nodes shared"
near "$(j '.interference.placed.shared_links')" 0 "placed: links shared"
near "$(j '.interference.placed.shared_switches')" 0 "placed: switches shared"
for k in 0 1; do
	near "$(j ".interference.placed.per_job[$k].nodes")" 1 "placed job $k in one node"
	near "$(j ".interference.placed.per_job[$k].together_s")" 88.722e-6 "placed job $k together"
	near "$(j ".interference.placed.per_job[$k].interference_s")" 0 "placed job $k interference"
done

# Start offsets: b starts at 50 us, inside a's only step, so its step sees
# a's loads (201.622 us); a's step started alone and keeps its time
# (101.622 us).  Starting at 200 us, after a ends, b runs alone.
sed 's/devices: \["device=4-7", "device=12-15"\]/&\n      start: 50 us/' $S >"$tmp/late.yaml"
expect 0 "b starts at 50 us" -- "$FABRICX" jobs "$tmp/late.yaml" --set "$TAPER" --json --no-place
near "$(j '.interference.given.per_job[0].together_s')" 101.622e-6 "a, started first"
near "$(j '.interference.given.per_job[1].together_s')" 201.622e-6 "b, started inside a's step"
if [ "$(j '.interference.placed')" = null ]; then ok; else bad "--no-place still placed"; fi
sed 's/start: 50 us/start: 200 us/' "$tmp/late.yaml" >"$tmp/later.yaml"
expect 0 "b starts at 200 us" -- "$FABRICX" jobs "$tmp/later.yaml" --set "$TAPER" --json --no-place
near "$(j '.interference.given.per_job[1].together_s')" 101.622e-6 "b, after a"
near "$(j '.interference.given.shared_links')" 448 "links shared all the same"

# Two 16-NPU jobs interleaved over nodes 0-3 (tapered): each node's
# uplinks carry both.  Placed, each job takes two nodes of its own: they
# still meet in the 112 L2 chips, but on links of their own, so nothing
# interferes -- the L2 chips are shared, the links are not.  Alone, each
# job: per peer b = 34.3 MB / 15; node 0 sends 8 x 8 flows across, 64 b /
# 112 per uplink over 7 GB/s.
sed -e 's/tp: 8/tp: 16/' -e 's/"device=0-3", "device=8-11"/"device=0-3", "device=8-11", "device=16-19", "device=24-27"/' \
    -e 's/"device=4-7", "device=12-15"/"device=4-7", "device=12-15", "device=20-23", "device=28-31"/' $S >"$tmp/16.yaml"
expect 0 "16-NPU jobs" -- "$FABRICX" jobs "$tmp/16.yaml" --set "$TAPER" --json
#  given: a's ranks 0-3 in each of nodes 0-3; node 0 sends 4 x 12 flows out,
#  48 b / 112 per uplink from a, as much from b.
bx=$(awk 'BEGIN { printf "%.17g", 34.3e6 / 15 }')
near "$(j '.interference.given.shared_link_loads[0].bytes_by_job[0]')" "$(awk -v b=$bx 'BEGIN { printf "%.17g", 48 * b / 112 }')" "16: a's bytes on an uplink"
near "$(j '.interference.given.per_job[0].together_s')" "$(awk -v b=$bx 'BEGIN { printf "%.17g", 0.822e-6 + 0.8e-6 + 2 * 48 * b / 112 / 7e9 }')" "16: a together"
near "$(j '.interference.placed.shared_links')" 0 "16 placed: no link shared"
near "$(j '[.interference.placed.shared_switch_names[] | select(startswith("L2"))] | length')" 112 "16 placed: the L2 chips shared"
near "$(j '.interference.placed.per_job[0].nodes')" 2 "16 placed: two nodes a job"
near "$(j '.interference.placed.per_job[0].interference_s')" 0 "16 placed: no interference"
near "$(j '.interference.placed.per_job[0].alone_s')" "$(awk -v b=$bx 'BEGIN { printf "%.17g", 0.822e-6 + 0.8e-6 + 64 * b / 112 / 7e9 }')" "16 placed: alone"

# Jobs without devices are packed in device order, the jobs in turn: a on
# NPUs 0-7, b on 8-15, one node each.
grep -v 'devices:' $S >"$tmp/packed.yaml"
expect 0 "packed jobs" -- "$FABRICX" jobs "$tmp/packed.yaml" --json --no-place
if [ "$(j '.interference.given.per_job[1].device_ids | join(",")')" = "8,9,10,11,12,13,14,15" ]; then ok; else
	bad "packed b: $(j '.interference.given.per_job[1].device_ids | join(",")')"; fi

# Alone, a job takes what `collective` reports for its calls (bound
# timing): a ring allreduce over the 16 NPUs of nodes 0-1, 3 calls, and
# an 8-way TP of two groups (one per node, sharing nothing), 2 calls.
sed -n '1,/^workload:/p' $S | sed '$d' >"$tmp/one.yaml"
cat >>"$tmp/one.yaml" <<'YAML'
groups: {g: "node=0-1"}
workload:
  jobs:
    - name: ring16
      scheme: {tp: 16}
      groups: {tp: {collective: allreduce, algo: ring, bytes: 1 MiB, count: 3}}
      devices: "node=0-1"
    - name: tp8x2
      scheme: {tp: 8, dp: 2}
      groups: {tp: {collective: allreduce, algo: ring, bytes: 4 MiB, count: 2},
               dp: {collective: allreduce, bytes: 1 MiB, count: 0}}
      devices: "node=2-3"
YAML
expect 0 "collective over node=0-1" -- "$FABRICX" collective "$tmp/one.yaml" --pattern allreduce --algo ring --size 1MiB --group g --json
t16=$(jq .time_s "$tmp/out")
expect 0 "collective over 8" -- "$FABRICX" collective "$tmp/one.yaml" --pattern allreduce --algo ring --size 4MiB --ranks 8 --json
t8=$(jq .time_s "$tmp/out")
expect 0 "jobs alone = collective" -- "$FABRICX" jobs "$tmp/one.yaml" --json --no-place
near "$(j '.interference.given.per_job[0].alone_s')" "$(awk -v t=$t16 'BEGIN { printf "%.17g", 3 * t }')" "ring16 alone = 3 x collective"
near "$(j '.interference.given.per_job[1].alone_s')" "$(awk -v t=$t8 'BEGIN { printf "%.17g", 2 * t }')" "tp8x2 alone = 2 x collective"
near "$(j '.interference.given.per_job[0].steps')" 90 "ring16: 3 calls x 2 x 15 steps"

# collective, place and explore carry the same report when the spec has
# jobs (report/jobs.c), with the figures above (tapered: 201.622 us
# together as given, 88.722 us placed, nothing shared once placed).
expect 0 "collective with jobs" -- "$FABRICX" collective $S --set "$TAPER" --pattern allreduce --ranks 8 --size 1MiB --json
near "$(j '.interference.given.per_job[1].together_s')" 201.622e-6 "collective: b together (tapered)"
near "$(j '.interference.given.shared_links')" 448 "collective: shared links"
near "$(j '.interference.placed.shared_switches')" 0 "collective: placed, no chip shared"
if [ "$(j '.time_s > 0')" = true ]; then ok; else bad "collective's own figures kept: $(j .time_s)"; fi
expect 0 "collective with jobs (text)" -- "$FABRICX" collective $S --set "$TAPER" --pattern allreduce --ranks 8 --size 1MiB
says "shared: 448 directed links, 126 switch chips (14 L1, 112 L2)" "collective text: shared"
says "  a                       8      2      101.622      201.622         100.000" "collective text: a's line"
expect 0 "place with jobs only" -- "$FABRICX" place $S --set "$TAPER" --json
near "$(j '.interference.given.per_job[0].interference_s')" 100e-6 "place: a's interference (tapered)"
near "$(j '.interference.placed.per_job[0].together_s')" 88.722e-6 "place: a placed"
near "$(j '.interference.placed.shared_links')" 0 "place: placed, no link shared"
expect 2 "place --lp with jobs only" -- "$FABRICX" place $S --lp "$tmp/x.lp"
has "the spec has only 'workload.jobs'" "place --lp refused"
expect 0 "explore with jobs" -- "$FABRICX" explore $S --set "$TAPER" --no-diagrams --skip failures,bom --out "$tmp/ex" --json
near "$(j '.jobs.interference.given.per_job[0].together_s')" 201.622e-6 "explore: a together (tapered)"
near "$(j '.jobs.interference.placed.shared_switches')" 0 "explore: placed, no chip shared"
if [ "$(j '.sections.jobs.status')" = ok ]; then ok; else bad "explore: jobs section $(j '.sections.jobs.status')"; fi
if [ -f "$tmp/ex/cm384-jobs/jobs_given_shared_links.csv" ]; then ok; else bad "explore: no jobs_given_shared_links.csv"; fi
expect 0 "explore with jobs (summary)" -- "$FABRICX" explore $S --set "$TAPER" --no-diagrams --skip failures,bom --out "$tmp/ex"
says "jobs: 2; as given 448 links shared, 100 us of interference at most; placed 0 links shared, 0 s of interference at most" "explore summary line"
#   A spec without jobs: no jobs section anywhere.
expect 0 "collective without jobs" -- "$FABRICX" collective specs/cm384.yaml --pattern allreduce --ranks 8 --size 1MiB --json
if [ "$(j 'has("interference")')" = false ]; then ok; else bad "interference reported without jobs"; fi

# Bad jobs: exit 2 at the value's FILE:LINE:COL.
bad_job() {  # WHAT SED-SCRIPT EXPECTED-FIRST-LINE
	sed "$2" $S >"$tmp/bad.yaml"
	expect 2 "$1" -- "$FABRICX" jobs "$tmp/bad.yaml"
	[ -z "$3" ] || first "$3" "$1"
}
L=$(grep -n 'devices: \["device=4-7"' $S | cut -d: -f1)
bad_job "devices taken twice" 's/"device=4-7", "device=12-15"/"device=3-6", "device=12-15"/' \
	"$tmp/bad.yaml:$L:16: error: 'workload.jobs[1].devices' selects device 3, which job 'a' holds already (jobs share the fabric, not devices)"
bad_job "too few devices" 's/"device=4-7", "device=12-15"/"device=4-7"/' \
	"$tmp/bad.yaml:$L:16: error: 'workload.jobs[1].devices' selects 4 devices, and job 'b' needs 8 (the product of its scheme)"
L2=$(grep -n '    - name: b' $S | cut -d: -f1)
bad_job "a repeated name" 's/- name: b/- name: a/' \
	"$tmp/bad.yaml:$L2:13: error: 'workload.jobs[1].name' repeats job 'a' (workload.jobs[0]): names tell jobs apart"
bad_job "no groups" '/groups: {tp: {collective: all-to-all, algo: direct, bytes: 34.3 MB}}/d' \
	"$tmp/bad.yaml:$(grep -n '    - name: a' $S | cut -d: -f1):7: error: job 'a' has 8-way tp groups but no 'groups.tp' to say what they send"
bad_job "an unknown key" 's/scheme: {tp: 8}/scheme: {tp: 8}\n      priority: 1/' ""
has "priority" "an unknown key named"
bad_job "a job larger than the fabric" '0,/scheme: {tp: 8}/s//scheme: {tp: 512}/' ""
has "needs 512 devices, and the fabric has 384" "too large a job"
expect 2 "no jobs" -- "$FABRICX" jobs specs/cm384.yaml
has "gives no 'workload.jobs'" "no jobs said"
expect 2 "no jobs (json)" -- "$FABRICX" jobs specs/cm384.yaml --json
if jq -e '.error.status == 2' "$tmp/out" >/dev/null; then ok; else bad "no jobs: json error object"; fi

summary "jobs"
