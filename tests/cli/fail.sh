#!/bin/sh
# Failed elements in any command (issue 17, item 1): --fail SEL and the
# spec key `failures:` mark devices, links, switch chips, nodes, racks,
# planes or power domains failed; routing goes round them, metrics,
# collectives and placement measure the degraded fabric.  Every number is
# worked by hand in the comment beside it.
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

# eq WANT JQ DESCRIPTION: jq's compact answer on the last output is WANT
eq() {
	got=$(jq -c "$2" "$tmp/out" 2>/dev/null)
	if [ "$got" = "$1" ]; then ok; else bad "$3: got '$got', expected '$1'"; fi
}

ring=tests/specs/ring-8.yaml

# 1. An 8-ring with one link failed is an 8-path.  Intact: diameter 8/2 =
# 4, bisection 2 links.  The path 4-5-6-7-0-1-2-3: diameter 7 (chip 4 to
# chip 3), mean hops over ordered pairs 2 x sum_{d=1..7} d(8-d) / 56 =
# 168/56 = 3, bisection 1 link (cut the path in its middle), a bound.
expect 0 "ring intact" -- "$FABRICX" metrics "$ring" --json
eq '[4,2,"exact"]' '[.diameter_hops,.bisection_links,.bisection_method]' "ring: diameter 4, bisection 2"
expect 0 "ring, link 3-4 failed" -- "$FABRICX" metrics "$ring" --fail 'device=3~device=4' --json
eq '[7,3,1,50000000000,"bound"]' '[.diameter_hops,.mean_hops,.bisection_links,.bisection_bandwidth_Bps,.bisection_method]' "8-path: diameter 7, mean 3, bisection 1 link"
eq '{"vertices_failed":0,"links_failed":1,"devices_failed":0,"devices_cut_off":0,"devices_joined":8,"cut_off":null}' '.failed' "ring: one link failed, nothing cut off"
del='del(.spec)'
jq -S "$del" "$tmp/out" >"$tmp/opt.json"
# the same failure as a spec key gives the same output, field for field
expect 0 "ring, failures: key" -- "$FABRICX" metrics tests/specs/ring-8-failed.yaml --json
jq -S "$del" "$tmp/out" >"$tmp/key.json"
cmp -s "$tmp/opt.json" "$tmp/key.json" && ok || bad "failures: key and --fail differ: $(diff "$tmp/opt.json" "$tmp/key.json" | head -5)"
# a link the canonical split (chips 0-3 | 4-7) does not cut: the split
# alone still cuts 2 links, the spectral + FM split finds the path's 1
expect 0 "ring, link 1-2 failed" -- "$FABRICX" metrics "$ring" --fail 'device=1~device=2' --json
eq '[7,1,"bound"]' '[.diameter_hops,.bisection_links,.bisection_method]' "ring 1-2: still a path, bisection 1"
# a failed chip leaves a 7-path: diameter 6, mean 2 x (6+10+12+12+10+6)/42 = 8/3
expect 0 "ring, chip 3 failed" -- "$FABRICX" metrics "$ring" --fail device=3 --json
eq '[6,1,0]' '[.diameter_hops,.devices_failed,.devices_cut_off]' "7-path: diameter 6"
[ "$(jq '.mean_hops*3|round' "$tmp/out")" = 8 ] && ok || bad "7-path: mean hops 8/3"
# two links: the ring falls in two (chips 4-6 and 7-0-1-2-3); the larger
# piece takes part, the other is reported cut off, never a hang
expect 0 "ring broken twice" -- "$FABRICX" collective "$ring" --pattern allreduce --algo ring --size 8MiB --fail 'device=3~device=4' --fail 'device=6~device=7' --json
eq '[5,3,"(4) (5) (6)"]' '[.ranks,.failed.devices_cut_off,.failed.cut_off]' "broken ring: 5 ranks, 3 cut off"
expect 3 "ranks past the joined devices" -- "$FABRICX" collective "$ring" --pattern allreduce --size 1MiB --ranks 8 --fail device=3
first "fabricx: infeasible: --ranks 8: the degraded fabric joins only 7 of its 8 devices (the others failed or are cut off)" "--ranks past the joined devices message"
expect 3 "every device failed" -- "$FABRICX" collective "$ring" --pattern allreduce --size 1MiB --fail device=0-7
first "fabricx: infeasible: every one of the 8 devices failed: no rank is left to run a collective" "all failed message"
expect 0 "every device failed: metrics" -- "$FABRICX" metrics "$ring" --fail device=0-7 --json
eq '[0,0,8]' '[.diameter_hops,.bisection_bandwidth_Bps,.devices_failed]' "all failed: nothing left, no division by zero"
expect 2 "a link selector that names no link" -- "$FABRICX" metrics "$ring" --fail 'device=3~device=5'
first "fabricx: error: --fail: 'device=3~device=5' names no link: no link joins 'device=3' and 'device=5'" "no-link message"

# 2. A 4x4 torus, ring allreduce of 16 MiB in rank order, alpha 0.
# Intact: 30 steps (15 reduce-scatter, 15 all-gather) of 1 MiB chunks; no
# link carries two ring flows (3->4 and 15->0 take 2 hops each on links no
# other flow uses), so 30 x 1 MiB / 50 GB/s = 629.1456 us.  With link
# (0,0)-(1,0) failed, flow 0->1 takes the three 3-hop detours a third
# each; the one via (0,1) adds 1/3 MiB to link (0,0)->(0,1) that flow 3->4
# already uses: 30 x (4/3 MiB) / 50 GB/s = 838.8608 us.
t44='--pattern allreduce --algo ring --size 16MiB --alpha 0us --json'
# shellcheck disable=SC2086
expect 0 "4x4 ring intact" -- "$FABRICX" collective tests/specs/torus-4x4-failed.yaml --set 'failures=[]' $t44
eq '[629.1456,"dimension-order"]' '[(.time_s*1e10|round)/1e4,.router]' "4x4 ring allreduce: 629.1456 us"
# shellcheck disable=SC2086
expect 0 "4x4 ring, one link failed" -- "$FABRICX" collective tests/specs/torus-4x4-failed.yaml $t44
eq '[838.8608,1398101]' '[(.time_s*1e10|round)/1e4,(.per_round[0].max_link_bytes|floor)]' "4x4 ring allreduce, link failed: 838.8608 us"
eq '"ecmp over the degraded graph (dimension order cannot avoid failed elements)"' '.router' "fallback router named"
jq -S "$del" "$tmp/out" >"$tmp/key.json"
# shellcheck disable=SC2086
expect 0 "4x4 ring, --fail" -- "$FABRICX" collective tests/specs/torus-4x4-failed.yaml --set 'failures=[]' --fail 'x=0,y=0~x=1,y=0' $t44
jq -S "$del" "$tmp/out" >"$tmp/opt.json"
cmp -s "$tmp/opt.json" "$tmp/key.json" && ok || bad "4x4: failures: key and --fail differ"

# 3. k=4 fat-tree (16 hosts; leaves 0-7, aggregation 8-15, core 16-19):
# one core switch failed keeps 3/4 of the bisection (6 of 8 links: each
# core joins each pod once), as in the chapter "Supernodes" §6.7.2 check
# of failures; two keep 1/2.
ft='specs/fat-tree-k8.yaml --set fabric.k=4'
# shellcheck disable=SC2086
expect 0 "fat-tree core failed" -- "$FABRICX" metrics $ft --fail switch=16 --json
eq '[6,300000000000,"bound"]' '[.bisection_links,.bisection_bandwidth_Bps,.bisection_method]' "k=4: one core switch, 3/4 of 400 GB/s"
# shellcheck disable=SC2086
expect 0 "fat-tree two cores failed" -- "$FABRICX" metrics $ft --fail switch=16 --fail switch=17 --json
eq '[4,200000000000]' '[.bisection_links,.bisection_bandwidth_Bps]' "k=4: two core switches, 1/2"

# 4. NVL72 (specs/nvl72.yaml: 18 links of 50 GB/s per GPU, one to each of
# 18 NVSwitch chips).  One chip failed: each GPU keeps 17 x 50 = 850 GB/s
# of 900 (x17/18).  All-to-all of 72 MiB per GPU (alpha 0): each GPU sends
# 72 MiB = 75,497,472 B over its links, 4,194,304 B on each of 18
# (83.88608 us at 50 GB/s); over 17 chips 4,441,027.76 B each, 88.8206 us,
# x18/17.
expect 0 "nvl72 one chip failed" -- "$FABRICX" metrics specs/nvl72.yaml --fail switch=0 --json
eq '[850000000000,2]' '[.bisection_per_device_Bps,.diameter_hops]' "nvl72: 850 GB/s per GPU"
a2a='--pattern all-to-all --size 72MiB --alpha 0us --json'
# shellcheck disable=SC2086
expect 0 "nvl72 a2a intact" -- "$FABRICX" collective specs/nvl72.yaml $a2a
eq '[83.88608,4194304]' '[(.time_s*1e11|round)/1e5,.max_link_bytes]' "nvl72 all-to-all intact"
t0=$(jq '.time_s' "$tmp/out")
# shellcheck disable=SC2086
expect 0 "nvl72 a2a one chip failed" -- "$FABRICX" collective specs/nvl72.yaml --fail switch=0 $a2a
eq '[88.82056,72]' '[(.time_s*1e11|round)/1e5,.ranks]' "nvl72 all-to-all, one chip failed"
[ "$(jq --argjson t0 "$t0" '.time_s/$t0*17|.*1e9|round' "$tmp/out")" = 18000000000 ] && ok || bad "nvl72: all-to-all x18/17"

# CloudMatrix384 (specs/cm384.yaml): 75.264 TB/s across 7 planes, 16 L2
# chips a plane; L2 chip p0.0 (switch 336, after the 336 L1 chips) carries
# half its 48 ports x 28 GB/s across the split, 672 GB/s = 1/16 of a
# plane's 10.752 TB/s.
expect 0 "cm384 one L2 chip failed" -- "$FABRICX" metrics specs/cm384.yaml --fail switch=336 --json
eq '74592000000000' '.bisection_bandwidth_Bps' "cm384: one L2 chip, 1/16 of a plane"

# 5. failures --k 2: every pair (k=4 fat-tree: 20 switches, 190 pairs; two
# cores keep 1/2 of the bisection, 4 of 8 links), and an 8-ring losing
# two links: pairs d links apart leave pieces of d and 8-d, min(d, 8-d)
# cut off; 8 pairs each for d = 1, 2, 3 and 4 for d = 4: worst 4, median
# 2, mean (8 + 16 + 24 + 16)/28 = 16/7.
# shellcheck disable=SC2086
expect 0 "failures --k 2 fat-tree" -- "$FABRICX" failures $ft --k 2 --sample 190 --json
eq '[190,false]' '[.summary.evaluated,.summary.sampled]' "k=4: 190 pairs, all evaluated"
eq '[0.5]' '[.failures[]|select(.element|test("^core.* \\+ core"))|.bisection_kept]|unique' "k=4: two cores keep 1/2"
eq '0.5' '.summary.bisection_kept_worst' "k=4 pairs: worst keeps 1/2"
expect 0 "failures --k 2 ring" -- "$FABRICX" failures "$ring" --kind link --k 2 --json
eq '[28,4,2]' '[.summary.evaluated,.summary.devices_cut_off_worst,.summary.devices_cut_off_median]' "ring pairs: worst 4 cut off, median 2"
[ "$(jq '.summary.devices_cut_off_mean*7|round' "$tmp/out")" = 16 ] && ok || bad "ring pairs: mean 16/7 cut off"
# sampled: 10 of 190 pairs, the same 10 for the same seed, others for another
# shellcheck disable=SC2086
expect 0 "failures --sample" -- "$FABRICX" failures $ft --k 2 --sample 10 --seed 7 --json
eq '[10,true,7]' '[.summary.evaluated,.summary.sampled,.summary.seed]' "sample of 10"
jq -c '[.failures[].element]|sort' "$tmp/out" >"$tmp/s1"
# shellcheck disable=SC2086
expect 0 "failures --sample again" -- "$FABRICX" failures $ft --k 2 --sample 10 --seed 7 --json
jq -c '[.failures[].element]|sort' "$tmp/out" >"$tmp/s2"
cmp -s "$tmp/s1" "$tmp/s2" && ok || bad "the same seed draws the same pairs"
# shellcheck disable=SC2086
expect 2 "--sample without --k 2" -- "$FABRICX" failures $ft --sample 10
first "fabricx: error: --sample and --seed need --k 2" "--sample without --k 2 message"

# 6. Power domains (packaging.nodes_per_power_domain): CloudMatrix384 with
# two nodes (16 NPUs) per supply.  Power domain 0 takes nodes 0 and 1: 16
# NPUs cut off, the 2 instances placed there hit (one TP2xEP4 instance of
# 8 NPUs per node), 24 alike domains; the canonical split (nodes 0-23 |
# 24-47) keeps 22 of 24 nodes' uplinks on side A: 11/12.
cm='specs/cm384.yaml --set packaging.nodes_per_power_domain=2'
# shellcheck disable=SC2086
expect 0 "failures --kind power" -- "$FABRICX" failures $cm --kind power --json
eq '[[24,16,2]]' '[.failures[]|[.equivalent,.devices_cut_off,.instances_hit]]' "power domain 0: 16 NPUs, 2 instances"
[ "$(jq '.failures[0].bisection_kept*12|round' "$tmp/out")" = 11 ] && ok || bad "power domain 0: 11/12 of the bisection"
# shellcheck disable=SC2086
expect 0 "metrics --fail power=1" -- "$FABRICX" metrics $cm --fail power=1 --json
eq '[16,0,368]' '[.failed.devices_failed,.failed.devices_cut_off,.failed.devices_joined]' "power=1: 16 NPUs failed"
expect 2 "power= without power domains" -- "$FABRICX" metrics specs/cm384.yaml --fail power=0
first "fabricx: error: --fail: 'power=0' selects by 'power', but this fabric has no power domains (set packaging.nodes_per_power_domain)" "no power domains message"
# placement leaves out the 2 nodes of domain 1: 46 instances fit
# shellcheck disable=SC2086
expect 0 "place around a failed power domain" -- "$FABRICX" place $cm --fail power=1 --instances 46 --json
eq '[2,16]' '[.nodes_failed,.failed.devices_failed]' "place: 2 nodes left out"

# 7. explore measures the degraded fabric in every section
expect 0 "explore --fail" -- "$FABRICX" explore tests/specs/ring-8.yaml --fail 'device=3~device=4' --skip diagrams --out "$tmp/x" --json
eq '[7,1,"ok"]' '[.diameter_hops,.bisection_links,.sections.collectives.status]' "explore: the 8-path"

# 8. Symmetry proven, not assumed (issue 25): `failures` evaluates one
# element of each class an automorphism it has checked maps onto itself
# (fabric/orbit.c), so its summary equals the brute force of --all, which
# evaluates every element alone.  A 2x7 mesh's canonical split takes
# (0,0)-(1,2) and (0,3) on side A (3 links cross: (0,3)-(0,4),
# (0,3)-(1,3), (1,2)-(1,3)), so its nodes are not alike: losing (0,3)
# keeps 1 of the 3 links, 1/3.  Of its 19 links 6 end at a corner (whose
# 2 links become 1: the worst device keeps 1/2), the other 13 leave every
# device at least 2 links: median 1, mean (6/2 + 13)/19 = 16/19.  HGX
# H100's chips carry 5/4/4/5 links per GPU: chips 0 and 3 keep 13/18 of
# each GPU, chips 1 and 2 14/18, mean 3/4 (an earlier build called all
# four alike: mean 13/18).
cat >"$tmp/m27.yaml" <<'YAML'
name: mesh-2x7
fabric: {kind: mesh, dims: [2, 7], link: {bandwidth: 50 GB/s, latency: 200 ns}}
YAML
expect 0 "failures 2x7 nodes" -- "$FABRICX" failures "$tmp/m27.yaml" --kind node --json
[ "$(jq '.summary.bisection_kept_worst*3|round' "$tmp/out")" = 1 ] && ok || bad "2x7 mesh: node (0,3) keeps 1/3: $(jq -c .summary "$tmp/out")"
eq '[7,14]' '[.summary.evaluated,.summary.elements_covered]' "2x7 mesh: 7 classes of 2 nodes"
expect 0 "failures 2x7 links" -- "$FABRICX" failures "$tmp/m27.yaml" --kind link --json
eq '[0.5,1]' '[.summary.worst_device_kept_worst,.summary.worst_device_kept_median]' "2x7 links: worst 1/2, median 1"
[ "$(jq '.summary.worst_device_kept_mean*19|.*1e9|round' "$tmp/out")" = 16000000000 ] && ok || bad "2x7 links: mean 16/19"
expect 0 "failures hgx-h100" -- "$FABRICX" failures specs/hgx-h100.yaml --json
eq '[[2,13],[2,14]]' '[.failures[]|[.equivalent,(.worst_device_kept*18|round)]]' "hgx: chips 0,3 keep 13/18, chips 1,2 14/18"
eq '0.75' '.summary.worst_device_kept_mean' "hgx: mean 3/4"
# the brute force: every element alone (--all) against one of each class,
# on meshes, tori (one with the spec's own failures), fat-trees (three
# tiers, capped, two tiers), NVSwitch and UB domains and a wafer
brute() {
	what=$1; shift
	expect 0 "$what, classes" -- "$FABRICX" failures "$@" --json
	cp "$tmp/out" "$tmp/classes.json"
	expect 0 "$what, --all" -- "$FABRICX" failures "$@" --all --json
	# every summary number alike to 1e-9; the elements covered exactly
	if jq -e -n --slurpfile a "$tmp/classes.json" --slurpfile b "$tmp/out" '
		$a[0].summary as $x | $b[0].summary as $y |
		($x.elements_covered == $y.elements_covered) and
		([$x | to_entries[] | select(.key | test("kept|cut_off|hit")) |
		  if .value == null then $y[.key] == null else (.value - $y[.key]) | fabs < 1e-9 end]
		 | all)' >/dev/null; then ok; else
		bad "$what: classes and brute force differ: $(jq -c .summary "$tmp/classes.json") vs $(jq -c .summary "$tmp/out")"
	fi
}
cat >"$tmp/m34.yaml" <<'YAML'
name: mesh-3x4
fabric: {kind: mesh, dims: [3, 4], link: {bandwidth: 50 GB/s, latency: 200 ns}}
YAML
cat >"$tmp/t35.yaml" <<'YAML'
name: torus-3x5
fabric: {kind: torus, dims: [3, 5], link: {bandwidth: 50 GB/s, latency: 200 ns}}
packaging: {devices_per_node: 3}
YAML
for k in node link; do
	brute "2x7 mesh $k" "$tmp/m27.yaml" --kind $k
	brute "3x4 mesh $k" "$tmp/m34.yaml" --kind $k
	brute "3x5 torus $k" "$tmp/t35.yaml" --kind $k
	brute "4x4 torus, one link failed, $k" tests/specs/torus-4x4-failed.yaml --kind $k
	brute "4x4x4 torus $k" specs/tpu-v4-cube.yaml --kind $k
	brute "5x4 wafer $k" specs/wse2.yaml --set 'fabric.grid=[5,4]' --kind $k
done
brute "4x4x4 torus racks" specs/tpu-v4-cube.yaml --set packaging.nodes_per_rack=4 --kind rack
for k in switch link node; do
	# shellcheck disable=SC2086
	brute "k=4 fat-tree $k" $ft --kind $k
	brute "k=6 fat-tree of 4 pods $k" specs/fat-tree-k8.yaml --set fabric.k=6 --set fabric.pods=4 \
		--set packaging.devices_per_node=3 --kind $k
	brute "leaf-spine $k" tests/specs/leaf-spine-512.yaml --kind $k
	brute "hgx-h100 $k" specs/hgx-h100.yaml --kind $k
	brute "cm384 of 4 nodes $k" specs/cm384.yaml --set fabric.nodes=4 --set packaging.nodes_per_rack=2 --kind $k
	brute "dgx-h100 of 4 nodes $k" specs/dgx-h100-256.yaml --set fabric.nodes=4 --kind $k
done
brute "nvl72 switch" specs/nvl72.yaml
brute "cm384 of 4 nodes, planes" specs/cm384.yaml --set fabric.nodes=4 --kind plane
# the full WSE-2 has 376,986 classes of alike links (its mesh has four
# symmetries that keep the split): more than the evaluation limit lets
# measure, so not decided, with the numbers
expect 4 "failures on the full wafer" -- "$FABRICX" failures specs/wse2.yaml --kind link
first "fabricx: not decided: failures: 376986 classes of links proven alike need 8.52e+11 vertex and bundle visits, over the limit of 5e+08; fail chosen ones with --fail SEL" "full wafer: not decided"

summary "failure tests"
