#!/bin/sh
# export and import (issue #33): the peers' formats written and read back.
#   - round trips: export -> import gives the same counts, hop histogram,
#     diameter, mean hops and bisection for every shipped and test spec
#     the graph formats carry, and the same all-to-all time and busiest
#     link on the switched fabrics (ECMP both ways);
#   - the simulator formats against hand counts (below, each with its
#     arithmetic);
#   - real files of the peers' own repositories (tests/data/README.md);
#   - refusals and bad files: exit 2 with the reason or FILE:LINE:COL.
. "$(dirname "$0")/lib.sh"

# metrics projected to what a graph carries
shape() {
	"$FABRICX" metrics "$1" --json | jq -c '{devices, switches, cpus, links, diameter_hops,
		mean_hops, bisection_bandwidth_Bps, bisection_links, hop_histogram}'
}
a2a() {
	"$FABRICX" collective "$1" --pattern all-to-all --size 1MiB --json |
		jq -c "{b: .max_link_bytes, s: .total_link_bytes}"
}

for s in specs/hgx-h100.yaml specs/dgx1.yaml specs/cm384.yaml specs/fat-tree-k8.yaml \
	 specs/tpu-v4-cube.yaml specs/nvl72.yaml specs/dgx-h100-256.yaml specs/switched-64.yaml \
	 specs/torus-8x8x8.yaml tests/specs/leaf-spine-custom.yaml tests/specs/hgx-custom.yaml \
	 tests/specs/mesh-32x32.yaml tests/specs/two-on-one-switch.yaml tests/specs/ports-budget.yaml; do
	b=$(basename "$s" .yaml)
	ref=$(shape "$s")
	for f in graphml gml; do
		expect 0 "export $b $f" -- "$FABRICX" export "$s" --to $f -o "$tmp/$b.$f"
		expect 0 "import $b $f" -- "$FABRICX" import "$tmp/$b.$f" --from $f -o "$tmp/$b-$f.yaml"
		got=$(shape "$tmp/$b-$f.yaml")
		if [ "$got" = "$ref" ]; then ok; else bad "$b round trip through $f: $got != $ref"; fi
	done
done
# switched fabrics route ECMP as custom graphs do: the same loads (not the
# same times: the per-round overhead is the spec's `collective:`, which a
# graph file does not carry; nor NVL72's, whose CPUs would relay in a
# custom graph, which the import says)
for s in specs/hgx-h100.yaml specs/fat-tree-k8.yaml specs/switched-64.yaml \
	 tests/specs/leaf-spine-custom.yaml specs/dgx1.yaml; do
	b=$(basename "$s" .yaml)
	"$FABRICX" export "$s" --to graphml -o "$tmp/l.graphml" 2>/dev/null >/dev/null
	"$FABRICX" import "$tmp/l.graphml" --from graphml -o "$tmp/l.yaml" 2>/dev/null >/dev/null
	ref=$(a2a "$s"); got=$(a2a "$tmp/l.yaml")
	if [ "$got" = "$ref" ] && [ -n "$ref" ]; then ok; else bad "$b all-to-all after a round trip: $got != $ref"; fi
done

# Recognition (interop/import_recog.c): a graph that a kind's builder makes
# is written as that kind, proven by bliss on the built fabric.  Each
# spec's graph through GraphML and GML comes back as its kind with its
# parameters, and its metrics (counts, hops, bisection) are the original's.
printf 'name: t46\nfabric:\n  kind: torus\n  dims: [4, 6]\n  link: {bandwidth: 25 GB/s, latency: 200 ns}\n' >"$tmp/t46.yaml"
printf 'name: f4\nfabric:\n  kind: fat-tree\n  k: 4\n  link: {bandwidth: 25 GB/s, latency: 200 ns}\n' >"$tmp/f4.yaml"
printf 'name: f8p\nfabric:\n  kind: fat-tree\n  k: 8\n  pods: 3\n  link: {bandwidth: 25 GB/s, latency: 200 ns}\n' >"$tmp/f8p.yaml"
printf 'name: t2\nfabric:\n  kind: torus\n  dims: [3, 5]\n  links_per_neighbor: 2\n  link: {bandwidth: 25 GB/s, latency: 200 ns}\n' >"$tmp/t2.yaml"
for c in "$tmp/t46.yaml|torus|  dims: [4, 6]" \
	 "specs/tpu-v4-cube.yaml|torus|  dims: [4, 4, 4]" \
	 "specs/torus-8x8x8.yaml|torus|  dims: [8, 8, 8]" \
	 "$tmp/t2.yaml|torus|  links_per_neighbor: 2" \
	 "tests/specs/mesh-32x32.yaml|mesh|  dims: [32, 32]" \
	 "$tmp/f4.yaml|fat-tree|  k: 4" \
	 "specs/fat-tree-k8.yaml|fat-tree|  k: 8" \
	 "$tmp/f8p.yaml|fat-tree|  pods: 3" \
	 "tests/specs/leaf-spine-custom.yaml|fat-tree|  tiers: 2" \
	 "specs/hgx-h100.yaml|nvswitch|  links_to_switch: [5, 4, 4, 5]" \
	 "tests/specs/hgx-custom.yaml|nvswitch|  links_to_switch: [5, 4, 4, 5]" \
	 "specs/switched-64.yaml|nvswitch|  links_to_switch: [1, 1, 1, 1, 1, 1]" \
	 "specs/nvl72.yaml|nvswitch|  cpus: 36"; do
	s=${c%%|*}; rest=${c#*|}; kind=${rest%%|*}; line=${rest#*|}
	b=$(basename "$s" .yaml)
	ref=$(shape "$s")
	for f in graphml gml; do
		expect 0 "export $b $f (recognition)" -- "$FABRICX" export "$s" --to $f -o "$tmp/r.$f"
		expect 0 "import $b $f (recognition)" -- "$FABRICX" import "$tmp/r.$f" --from $f -o "$tmp/r.yaml" --json
		k=$(jq -r .import.recognised_kind "$tmp/out")
		[ "$k" = "$kind" ] && ok || bad "$b through $f: recognised as $k, not $kind ($(jq -r .import.recognition "$tmp/out"))"
		grep -q "^  kind: $kind\$" "$tmp/r.yaml" && grep -qxF -- "$line" "$tmp/r.yaml" && ok ||
			bad "$b through $f: the spec lacks 'kind: $kind' or '$line'"
		got=$(shape "$tmp/r.yaml")
		[ "$got" = "$ref" ] && ok || bad "$b recognised through $f: $got != $ref"
	done
done
# the kind's own names come back as they were: nothing lost (HGX)
"$FABRICX" export specs/hgx-h100.yaml --to graphml -o "$tmp/r.graphml" 2>/dev/null >/dev/null
expect 0 "hgx recognised json" -- "$FABRICX" import "$tmp/r.graphml" --from graphml -o "$tmp/r.yaml" --json
jq -e '.import.lost == [] and (.import.recognition | test("isomorphic"))' "$tmp/out" >/dev/null && ok ||
	bad "hgx recognised: lost $(jq -c .import.lost "$tmp/out")"
# ... and a custom graph's names ("nvs0") are said lost
"$FABRICX" export tests/specs/hgx-custom.yaml --to graphml -o "$tmp/r.graphml" 2>/dev/null >/dev/null
expect 0 "hgx-custom recognised json" -- "$FABRICX" import "$tmp/r.graphml" --from graphml -o "$tmp/r.yaml" --json
jq -e '.import.lost | any(test("vertex names"))' "$tmp/out" >/dev/null && ok || bad "hgx-custom: its names not said lost"
# other formats: BookSim's anynet of a k=4 fat-tree, SimAI's HGX (one
# merged NVSwitch node: an nvswitch domain of one chip, one link a GPU)
expect 0 "export f4 booksim" -- "$FABRICX" export "$tmp/f4.yaml" --to booksim -o "$tmp/r.anynet"
expect 0 "import f4 booksim" -- "$FABRICX" import "$tmp/r.anynet" --from booksim -o "$tmp/r.yaml" --json
[ "$(jq -r .import.recognised_kind "$tmp/out")" = fat-tree ] && grep -qx '  k: 4' "$tmp/r.yaml" && ok || bad "booksim f4: not a k=4 fat-tree"
expect 0 "export hgx simai" -- "$FABRICX" export specs/hgx-h100.yaml --to simai -o "$tmp/r.simai"
expect 0 "import hgx simai" -- "$FABRICX" import "$tmp/r.simai" --from simai -o "$tmp/r.yaml" --json
[ "$(jq -r .import.recognised_kind "$tmp/out")" = nvswitch ] && grep -qx '  links_to_switch: \[1\]' "$tmp/r.yaml" && ok || bad "simai hgx: not one chip"
# one graph, several kinds: the fixed order writes one, fewer dimensions
# first (the hypercube [2, 2, 2, 2] is C4 x C4, the 4-ring a 2 x 2 mesh)
printf 'name: q\nfabric:\n  kind: torus\n  dims: [2, 2, 2, 2]\n  link: {bandwidth: 25 GB/s, latency: 200 ns}\n' >"$tmp/q.yaml"
"$FABRICX" export "$tmp/q.yaml" --to gml -o "$tmp/q.gml" 2>/dev/null >/dev/null
expect 0 "import a hypercube" -- "$FABRICX" import "$tmp/q.gml" --from gml -o "$tmp/r.yaml"
grep -qx '  dims: \[4, 4\]' "$tmp/r.yaml" && ok || bad "the hypercube [2, 2, 2, 2] is not written as [4, 4]"
printf 'name: m\nfabric:\n  kind: mesh\n  dims: [2, 2]\n  link: {bandwidth: 25 GB/s, latency: 200 ns}\n' >"$tmp/q.yaml"
"$FABRICX" export "$tmp/q.yaml" --to gml -o "$tmp/q.gml" 2>/dev/null >/dev/null
expect 0 "import a 2x2 mesh" -- "$FABRICX" import "$tmp/q.gml" --from gml -o "$tmp/r.yaml"
grep -q '^  kind: torus$' "$tmp/r.yaml" && grep -qx '  dims: \[4\]' "$tmp/r.yaml" && ok || bad "the 2 x 2 mesh is not written as the ring [4]"
# igraph's own GraphML example (tests/data) is a 2 x 3 ladder: a mesh
expect 0 "igraph's example recognised" -- "$FABRICX" import tests/data/igraph-test.graphml --from graphml -o "$tmp/r.yaml" --json
[ "$(jq -r .import.recognised_kind "$tmp/out")" = mesh ] && grep -qx '  dims: \[2, 3\]' "$tmp/r.yaml" && ok || bad "igraph-test.graphml is not the mesh [2, 3]"
# Near misses stay custom.  A 4 x 4 torus less one link: no kind has its
# degrees, so nothing is built.
"$FABRICX" export "$tmp/t46.yaml" --set fabric.dims=[4,4] --to graphml -o "$tmp/r.graphml" 2>/dev/null >/dev/null
awk '/<edge / && !done { done = 1; next } { print }' "$tmp/r.graphml" >"$tmp/cut.graphml"
expect 0 "import a torus less a link" -- "$FABRICX" import "$tmp/cut.graphml" --from graphml -o "$tmp/r.yaml" --json
jq -e '.import.recognised_kind == null and (.import.recognition | test("no torus, mesh, fat-tree or NVSwitch domain has"))' "$tmp/out" >/dev/null && ok ||
	bad "a torus less a link: $(jq -c '[.import.recognised_kind, .import.recognition]' "$tmp/out")"
grep -q '^  kind: custom$' "$tmp/r.yaml" && ok || bad "a torus less a link is not custom"
# twisted W x H: the wrap-around of x shifts y by T.  4 x 4 with T = 1 is
# 4-regular with 32 links like the 4 x 4 torus (and [2, 2, 4], [2, 2, 2,
# 2], the same graph), but from a vertex 7 others are 2 hops away, not
# the torus's 6 ((1,1), (2,0), (0,2), (3,1), (1,3), (3,3), (2,2)... by
# hand: 1 + 4 + 6 + 4 + 1 on C4 x C4): the degrees match, the graph does
# not, so only the isomorphism test keeps it custom.  T = 0 is the torus.
twisted() {
	awk -v W="$1" -v H="$2" -v T="$3" 'BEGIN {
		print "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n<graph edgedefault=\"undirected\">"
		for (i = 0; i < W * H; i++) printf "<node id=\"v%d\"/>\n", i
		for (y = 0; y < H; y++) for (x = 0; x < W; x++) {
			v = y * W + x; u = x < W - 1 ? v + 1 : ((y + T) % H) * W
			printf "<edge source=\"v%d\" target=\"v%d\"/>\n", v, u
			printf "<edge source=\"v%d\" target=\"v%d\"/>\n", v, ((y + 1) % H) * W + x
		}
		print "</graph>\n</graphml>" }'
}
twisted 4 4 0 >"$tmp/tw.graphml"
expect 0 "import an untwisted 4x4" -- "$FABRICX" import "$tmp/tw.graphml" --from graphml -o "$tmp/r.yaml" --json
[ "$(jq -r .import.recognised_kind "$tmp/out")" = torus ] && grep -qx '  dims: \[4, 4\]' "$tmp/r.yaml" && ok || bad "the untwisted 4x4 is not a torus [4, 4]"
for t in "4 4 1" "8 8 1" "6 4 1"; do
	# shellcheck disable=SC2086
	twisted $t >"$tmp/tw.graphml"
	expect 0 "import a twisted torus $t" -- "$FABRICX" import "$tmp/tw.graphml" --from graphml -o "$tmp/r.yaml" --json
	jq -e '.import.recognised_kind == null and (.import.recognition | test("^no kind: [1-9][0-9]* candidates? with the graph.s counts and degrees (was|were) built, none isomorphic"))' "$tmp/out" >/dev/null && ok ||
		bad "twisted $t: $(jq -c '[.import.recognised_kind, .import.recognition]' "$tmp/out")"
	grep -q '^  kind: custom$' "$tmp/r.yaml" && ok || bad "twisted $t is not custom"
done
twisted 4 4 1 >"$tmp/tw.graphml"
"$FABRICX" import "$tmp/tw.graphml" --from graphml -o "$tmp/r.yaml" 2>/dev/null >/dev/null
got=$("$FABRICX" metrics "$tmp/r.yaml" --json | jq -c '[.hop_histogram[] | select(.hops == 2) | .pairs]')
[ "$got" = "[112]" ] && ok || bad "twisted 4x4: 16 x 7 = 112 ordered pairs 2 hops apart, got $got"
"$FABRICX" export "$tmp/t46.yaml" --set fabric.dims=[4,4] --to graphml -o "$tmp/r.graphml" 2>/dev/null >/dev/null
"$FABRICX" import "$tmp/r.graphml" --from graphml -o "$tmp/r.yaml" 2>/dev/null >/dev/null
got=$("$FABRICX" metrics "$tmp/r.yaml" --json | jq -c '[.hop_histogram[] | select(.hops == 2) | .pairs]')
[ "$got" = "[96]" ] && ok || bad "4x4 torus: 16 x 6 = 96 ordered pairs 2 hops apart, got $got"
# two links between two GPUs of an HGX-like graph of other bandwidth: the
# classes differ, no kind
"$FABRICX" export specs/hgx-h100.yaml --to graphml -o "$tmp/r.graphml" 2>/dev/null >/dev/null
sed '0,/<data key="e_bw">25000000000.0</s//<data key="e_bw">50000000000.0</' "$tmp/r.graphml" >"$tmp/bw.graphml"
expect 0 "import an hgx with one faster link" -- "$FABRICX" import "$tmp/bw.graphml" --from graphml -o "$tmp/r.yaml" --json
[ "$(jq -r .import.recognised_kind "$tmp/out")" = null ] && ok || bad "an hgx with one faster link is recognised"

# a degraded fabric: the file marks what failed, the import leaves it out
expect 0 "export a failed ring" -- "$FABRICX" export tests/specs/ring-8-failed.yaml --to graphml -o "$tmp/rf.graphml"
grep -q '<data key="e_failed">true</data>' "$tmp/rf.graphml" && ok || bad "the failed ring link is not marked"
expect 0 "import a failed ring" -- "$FABRICX" import "$tmp/rf.graphml" --from graphml -o "$tmp/rf.yaml"
has "1 links the file marks failed" "the import says the failed link is left out"
got=$("$FABRICX" metrics "$tmp/rf.yaml" --json | jq -c '[.links, .diameter_hops]')
[ "$got" = "[7,7]" ] && ok || bad "the degraded ring: 7 links and diameter 7 (a chain of 8), got $got"

# SimAI, HGX H100: 8 GPUs, one NVSwitch node (its 4 chips merged), no other
# switch, 8 links; each GPU's 18 links x 25 GB/s = 450 GB/s = 3,600 Gbit/s
expect 0 "simai hgx" -- "$FABRICX" export specs/hgx-h100.yaml --to simai -o "$tmp/h.simai"
[ "$(head -n 2 "$tmp/h.simai" | tr '\n' '|')" = "9 8 1 0 8 H100|8|" ] && ok ||
	bad "simai header: $(head -n 2 "$tmp/h.simai" | tr '\n' '|')"
[ "$(sed -n 3p "$tmp/h.simai")" = "0 8 3600Gbps 200ns 0" ] && ok || bad "simai link: $(sed -n 3p "$tmp/h.simai")"
has "4 switch chips inside the 1 servers are merged" "simai says the chips are merged"
has "ECN map entry" "simai lists the rates for SimAI's ECN maps"
# SimAI, CM384: 384 NPUs, 48 servers of 8, 48 NVSwitch nodes (the 7 L1
# chips of each node), 112 L2 chips; 384 NPU links + 48 x 112 node-L2
# links = 5,760; an NPU's 14 links x 28 GB/s = 392 GB/s = 3,136 Gbit/s
expect 0 "simai cm384" -- "$FABRICX" export specs/cm384.yaml --to simai -o "$tmp/c.simai"
[ "$(head -n 1 "$tmp/c.simai")" = "544 8 48 112 5760 H100" ] && ok || bad "simai cm384 header: $(head -n 1 "$tmp/c.simai")"
grep -q '^0 384 3136Gbps 200ns 0$' "$tmp/c.simai" && ok || bad "simai cm384 NPU 0's link"
has "192 CPUs and their links are left out" "simai says the CPUs are left out"
expect 2 "simai refuses a torus" -- "$FABRICX" export specs/tpu-v4-cube.yaml --to simai
has "relay traffic" "simai says why a torus is refused"
expect 2 "simai refuses servers without a switch chip" -- "$FABRICX" export specs/fat-tree-k8.yaml --to simai
has "needs an NVSwitch per server" "simai says what a fat-tree lacks"

# ns-3, an 8-ring: 8 devices relay, so 8 routers (ids 8-15); 8 device-router
# links of the device's 2 x 50 GB/s = 800 Gbit/s, and the 8 ring links
expect 0 "ns3 ring" -- "$FABRICX" export tests/specs/ring-8.yaml --to ns3 -o "$tmp/r.ns3"
[ "$(head -n 1 "$tmp/r.ns3")" = "16 8 16" ] && ok || bad "ns3 ring header: $(head -n 1 "$tmp/r.ns3")"
bw=$("$FABRICX" metrics tests/specs/ring-8.yaml --json | jq '.bisection_bandwidth_Bps / 2 * 8 / 1e9')
grep -q "^0 8 $((2 * ${bw%.*}))Gbps 0ns 0\$" "$tmp/r.ns3" && ok || bad "ns3 device 0's router link ($((2 * ${bw%.*}))Gbps): $(sed -n 3p "$tmp/r.ns3")"
has "each of the 8 relaying vertices got a router" "ns3 says routers were added"

# ASTRA-sim: CM384 as [Switch 8, Switch 48] at 392 GB/s each (an NPU's 14
# links x 28 GB/s; across nodes 7 L1 x 16 uplinks x 28 GB/s / 8 NPUs = 392);
# DGX H100 256 as [Switch 8, Switch 32] at 450 and 225 GB/s (the NVLink
# Switch System's 2:1 taper, the chapter "Supernodes" §6.5.3 footnote 37)
expect 0 "astra cm384" -- "$FABRICX" export specs/cm384.yaml --to astra-sim -o "$tmp/c.yml"
[ "$(tr '\n' '|' <"$tmp/c.yml")" = "topology: [ Switch, Switch ]|npus_count: [ 8, 48 ]|bandwidth: [ 392, 392 ]|latency: [ 200, 200 ]|" ] && ok ||
	bad "astra cm384: $(tr '\n' '|' <"$tmp/c.yml")"
expect 0 "astra dgx256" -- "$FABRICX" export specs/dgx-h100-256.yaml --to astra-sim -o "$tmp/d.yml"
grep -q '^bandwidth: \[ 450, 225 \]$' "$tmp/d.yml" && ok || bad "astra dgx256: $(grep bandwidth "$tmp/d.yml")"
expect 0 "astra torus" -- "$FABRICX" export specs/tpu-v4-cube.yaml --to astra-sim -o "$tmp/t.yml"
[ "$(head -n 2 "$tmp/t.yml" | tr '\n' '|')" = "topology: [ Ring, Ring, Ring ]|npus_count: [ 4, 4, 4 ]|" ] && ok || bad "astra torus"
expect 2 "astra refuses an irregular direct graph" -- "$FABRICX" export specs/dgx1.yaml --to astra-sim

# BookSim: HGX's 4 chips are routers 0-3, each multi-homed GPU a router of
# its own (4-11) with its node; every channel in both routers' lines
expect 0 "booksim hgx" -- "$FABRICX" export specs/hgx-h100.yaml --to booksim -o "$tmp/h.anynet"
[ "$(wc -l <"$tmp/h.anynet")" -eq 12 ] && ok || bad "booksim hgx: 12 routers"
[ "$(sed -n 5p "$tmp/h.anynet")" = "router 4 node 0 router 0 200 router 1 200 router 2 200 router 3 200" ] && ok ||
	bad "booksim GPU 0: $(sed -n 5p "$tmp/h.anynet")"
expect 0 "booksim back" -- "$FABRICX" import "$tmp/h.anynet" --from booksim -o "$tmp/hb.yaml"
got=$("$FABRICX" metrics "$tmp/hb.yaml" --json | jq -c '[.devices, .switches, .links, .diameter_hops]')
[ "$got" = "[8,12,40,4]" ] && ok || bad "booksim hgx read back: 8 nodes, 12 routers, 8 + 32 channels, 4 hops: $got"

# the peers' own files (tests/data/README.md names each source)
expect 0 "booksim's anynet example" -- "$FABRICX" import tests/data/booksim-anynet_file --from booksim -o "$tmp/b.yaml"
got=$("$FABRICX" metrics "$tmp/b.yaml" --json | jq -c '[.devices, .switches, .links, .diameter_hops]')
# 9 nodes on 3 routers; router 0-1, 1-2 and 2-0: 9 + 3 links; node 0 to node 6: n-r0-r2-n, 3 hops
[ "$got" = "[9,3,12,3]" ] && ok || bad "booksim example: $got"
expect 0 "igraph's GraphML example" -- "$FABRICX" import tests/data/igraph-test.graphml --from graphml -o "$tmp/g.yaml"
has "6 vertices without a type are devices" "the GraphML import says what it assumed"
got=$("$FABRICX" metrics "$tmp/g.yaml" --json | jq -c '[.devices, .links]')
[ "$got" = "[6,7]" ] && ok || bad "igraph GraphML example: $got"
expect 0 "igraph's GML example" -- "$FABRICX" import tests/data/igraph-weighted.gml --from gml -o "$tmp/w.yaml"
got=$("$FABRICX" metrics "$tmp/w.yaml" --json | jq -c '[.devices, .links]')
[ "$got" = "[2,1]" ] && ok || bad "igraph GML example: $got"
expect 0 "SimAI's rail-optimised example" -- "$FABRICX" import tests/data/simai-Rail_Opti_SingleToR_16g_8gps_200Gbps_H20 --from simai -o "$tmp/s.yaml"
# 16 GPUs, 2 NVSwitch nodes, 8 ToRs, 8 spines; 96 links; GPU 0 to GPU 9 (the
# other server, another rail): GPU-ToR-spine-ToR-GPU, 4 hops
got=$("$FABRICX" metrics "$tmp/s.yaml" --json | jq -c '[.devices, .switches, .links, .diameter_hops, .nodes]')
[ "$got" = "[16,18,96,4,2]" ] && ok || bad "SimAI example: $got"

# bad input
# SimGrid (tests/peer/simgrid_export.sh runs the platforms in SimGrid):
# two-switch's 6 hosts, 2 routers (s6, s7: its switches), 7 links, 6 x 5
# = 30 host routes and 7 one-link routes placing the links; h0 -> h3 leaves h0
# up its link to s0 (l0 UP), crosses s0 - s1 (l6 UP) and comes down s1's
# link to h3 (l3 DOWN); its links 50 and 25 GB/s, 200 and 500 ns.
expect 0 "export simgrid" -- "$FABRICX" export tests/peer/two-switch.yaml --to simgrid -o "$tmp/ts.xml" --json
x() { grep -c "$1" "$tmp/ts.xml"; }
if [ "$(x '<host ')" = 6 ] && [ "$(x '<router ')" = 2 ] && [ "$(x '<link id=')" = 7 ] &&
   [ "$(x '<route ')" = 37 ]; then ok; else
	bad "simgrid two-switch: $(x '<host ') hosts, $(x '<router ') routers, $(x '<link id=') links, $(x '<route ') routes"; fi
if grep -q '<route src="s6" dst="s7"><link_ctn id="l6" direction="UP"/></route>' "$tmp/ts.xml"; then ok; else bad "simgrid s0 - s1 one-link route"; fi
if grep -q '<route src="h0" dst="h3" symmetrical="NO"><link_ctn id="l0" direction="UP"/><link_ctn id="l6" direction="UP"/><link_ctn id="l3" direction="DOWN"/></route>' "$tmp/ts.xml"; then ok; else bad "simgrid h0 -> h3 route"; fi
if grep -q '<link id="l6" bandwidth="25000000000Bps" latency="5e-07s" sharing_policy="SPLITDUPLEX"/>' "$tmp/ts.xml"; then ok; else bad "simgrid s0 - s1 link"; fi
if jq -e '.export.lost | any(test("collective.overhead"))' "$tmp/out" >/dev/null; then ok; else bad "simgrid: the overhead not said lost"; fi
# HGX H100 under split ECMP: every GPU pair splits over the 4 NVSwitch
# chips, so all 56 routes are the hash policy's, and the lost-list says so
expect 0 "export simgrid hgx" -- "$FABRICX" export specs/hgx-h100.yaml --to simgrid -o "$tmp/hgx.xml"
has "divides the flows of 56 of the 56 ordered device pairs" "hgx: split routes said"
# 56 host routes, and 32 one-link routes for its 32 GPU-chip bundles
if [ "$(grep -c '<route src="h[0-9]*" dst="h' "$tmp/hgx.xml")" = 56 ] &&
   [ "$(grep -c '<route src="h[0-9]*" dst="s' "$tmp/hgx.xml")" = 32 ]; then ok; else bad "hgx: 56 + 32 routes"; fi
expect 0 "export simgrid hgx hash" -- "$FABRICX" export specs/hgx-h100.yaml --to simgrid --routing hash -o "$tmp/hgx.xml"
if grep -q "divides the flows" "$tmp/err"; then bad "hgx --routing hash: routes still said split"; else ok; fi
# SimGrid back (interop/import_simgrid.c): export --to simgrid then import
# --from simgrid gives the same devices, switches, diameter, mean hops, hop
# histogram and bisection bandwidth (links and bisection_links are not
# compared: a bundle is one SimGrid link of its cables' summed bandwidth).
# Every shipped spec the exporter writes, and tests/peer/'s, but:
#   cm384-roce: its 192 CPUs are left out by the export (no route passes
#     one), and its RoCE routes are not shortest paths of the graph that
#     remains: the import lists 3,072 such routes as lost (checked below);
#   rail-clos-4x4: the rail-clos kind states its bisection by its own rule,
#     twice the custom graph's min cut (GraphML gives the same custom graph);
#   dragonfly-1056, hyperx-8x8x4, rail-clos-2048, slimfly-q9, wse2: over
#     the exporter's 1,024 devices (refused above and in the every-format
#     loop); tests/specs/mesh-32x32: 1,024 devices' routes are over the
#     import's 512 MiB.
sgshape() {
	"$FABRICX" metrics "$1" --json | jq -c '{devices, switches, diameter_hops, mean_hops,
		bisection_bandwidth_Bps, hop_histogram}'
}
for s in specs/cm384.yaml specs/dgx-h100-256.yaml specs/dgx1.yaml specs/fat-tree-k8.yaml \
	 specs/hgx-h100-x2-rail.yaml specs/hgx-h100-x2.yaml specs/hgx-h100-x8-rail.yaml \
	 specs/hgx-h100-x8.yaml specs/hgx-h100.yaml specs/nvl72-x8.yaml specs/nvl72.yaml \
	 specs/switched-64.yaml specs/torus-8x8x8.yaml specs/tpu-v4-cube.yaml \
	 tests/specs/leaf-spine-custom.yaml tests/specs/hgx-custom.yaml tests/specs/two-on-one-switch.yaml \
	 tests/specs/ports-budget.yaml tests/peer/dual-rail-16.yaml tests/peer/fat-tree-k4.yaml \
	 tests/peer/leaf-spine-2to1.yaml tests/peer/leaf-spine-two-cables.yaml \
	 tests/peer/rail-clos-3tier.yaml tests/peer/rail-clos-8x4.yaml tests/peer/torus-3x3-500ns.yaml \
	 tests/peer/torus-5x5.yaml tests/peer/torus-8x8.yaml tests/peer/two-switch.yaml; do
	b=$(basename "$s" .yaml)
	expect 0 "export $b simgrid" -- "$FABRICX" export "$s" --to simgrid -o "$tmp/sg.xml"
	expect 0 "import $b simgrid" -- "$FABRICX" import "$tmp/sg.xml" --from simgrid -o "$tmp/sg.yaml"
	ref=$(sgshape "$s"); got=$(sgshape "$tmp/sg.yaml")
	if [ "$got" = "$ref" ]; then ok; else bad "$b round trip through simgrid: $got != $ref"; fi
done
# HGX H100: the hash routes pin one of the 4 chips for each of the 56
# pairs, which fabricx would split over all 4: lost, with the count
"$FABRICX" export specs/hgx-h100.yaml --to simgrid -o "$tmp/sg.xml" 2>/dev/null
expect 0 "import hgx simgrid json" -- "$FABRICX" import "$tmp/sg.xml" --from simgrid -o "$tmp/sg.yaml" --json
jq -e '.import.lost | any(test("^56 routes pin one of several shortest paths"))' "$tmp/out" >/dev/null &&
	ok || bad "simgrid import: the 56 pinned routes are not in import.lost"
jq -e '[.import.devices, .import.switches, .import.links] == [8, 4, 32]' "$tmp/out" >/dev/null &&
	ok || bad "simgrid import hgx: 8 devices, 4 switches, 32 links"
# every import --json has a lost array, [] when nothing is lost
"$FABRICX" export specs/hgx-h100.yaml --to graphml -o "$tmp/l.graphml" 2>/dev/null
expect 0 "graphml json lost" -- "$FABRICX" import "$tmp/l.graphml" --from graphml -o "$tmp/l.yaml" --json
jq -e '.import.lost == []' "$tmp/out" >/dev/null && ok || bad "import --json: lost is not []"
"$FABRICX" export specs/cm384-roce.yaml --to simgrid -o "$tmp/sg.xml" 2>/dev/null
expect 0 "import cm384-roce simgrid" -- "$FABRICX" import "$tmp/sg.xml" --from simgrid -o "$tmp/sg.yaml"
has "3072 routes are longer than the shortest path" "cm384-roce: its non-shortest routes said lost"
# a route longer than the shortest path: a -> c by a -> b -> c where a - c
# is one link: 1 lost, named with its line (the triangle is a torus [3],
# so its names "a", "b", "c" are lost as well)
printf '<platform version="4.1"><zone id="z" routing="Full">\n<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>\n<link id="ab" bandwidth="1GBps" latency="1us"/><link id="bc" bandwidth="1GBps" latency="1us"/><link id="ac" bandwidth="1GBps" latency="1us"/>\n<route src="a" dst="b"><link_ctn id="ab"/></route><route src="b" dst="c"><link_ctn id="bc"/></route><route src="a" dst="c"><link_ctn id="ac"/></route>\n<route src="c" dst="a"><link_ctn id="bc" direction="DOWN"/><link_ctn id="ab" direction="DOWN"/></route>\n</zone></platform>\n' >"$tmp/long.xml"
expect 0 "a long route" -- "$FABRICX" import "$tmp/long.xml" --from simgrid -o "$tmp/long.yaml" --json
jq -e '.import.lost == ["1 routes are longer than the shortest path, which fabricx takes (it routes shortest paths itself, ECMP): c -> a (line 5: 2 links, the shortest path 1)", "the file'"'"'s vertex names: the torus spec names and numbers its vertices itself"]' "$tmp/out" >/dev/null &&
	ok || bad "the long route: $(jq -c .import.lost "$tmp/out")"
# units: 100Gbps = 12.5 GB/s, 2GiBps = 2,147,483,648 B/s (the two hosts'
# bisection: the smaller link), 1.5us
printf '<platform version="4.1"><zone id="z" routing="Floyd">\n<host id="a" speed="1Gf"/><router id="r"/><host id="b" speed="1Gf"/>\n<link id="1" bandwidth="100Gbps" latency="1.5us"/><link id="2" bandwidth="2GiBps" latency="0s"/>\n<route src="a" dst="r"><link_ctn id="1"/></route><route src="r" dst="b"><link_ctn id="2"/></route>\n</zone></platform>\n' >"$tmp/u.xml"
expect 0 "simgrid units" -- "$FABRICX" import "$tmp/u.xml" --from simgrid -o "$tmp/u.yaml"
"$FABRICX" metrics "$tmp/u.yaml" --json | jq -e '.bisection_bandwidth_Bps == 2147483648' >/dev/null &&
	ok || bad "simgrid units: bisection $("$FABRICX" metrics "$tmp/u.yaml" --json | jq .bisection_bandwidth_Bps)"
grep -q '{a: "a", b: "r", bandwidth: 12.5 GB/s, latency: 1500 ns}' "$tmp/u.yaml" && ok || bad "simgrid units: 100Gbps, 1.5us"
grep -q '{a: "r", b: "b", bandwidth: 2.147483648 GB/s, latency: 0 ns}' "$tmp/u.yaml" && ok || bad "simgrid units: 2GiBps"
# SimGrid's own platforms (tests/data/README.md), against hand counts:
# the dogbone's sides are 3 hops apart (8 ordered pairs), S1-S2 and C1-C2
# 2 (4 pairs): mean 32/12; its bisection is link 2, 100 MBps
expect 0 "SimGrid's dogbone" -- "$FABRICX" import tests/data/simgrid-dogbone.xml --from simgrid -o "$tmp/d.yaml"
got=$("$FABRICX" metrics "$tmp/d.yaml" --json | jq -c '[.devices, .switches, .links, .diameter_hops, .bisection_bandwidth_Bps, [.hop_histogram[] | [.hops, .pairs]]]')
[ "$got" = "[4,2,5,3,100000000,[[2,4],[3,8]]]" ] && ok || bad "dogbone: $got"
# small platform with routers: 5 hosts, 6 routers, 10 of its 14 links
# (loopback and 10, 11, 12 are on no route between two points); its
# longest route, Jupiter -> Bourassa, is 8 links and the diameter
expect 0 "SimGrid's small platform with routers" -- "$FABRICX" import tests/data/simgrid-small_platform_with_routers.xml --from simgrid -o "$tmp/sp.yaml" --json
got=$("$FABRICX" metrics "$tmp/sp.yaml" --json | jq -c '[.devices, .switches, .links, .diameter_hops]')
[ "$got" = "[5,6,10,8]" ] && ok || bad "small platform with routers: $got"
jq -e '.import.lost == ["5 loopback routes (a host to itself) are not links between two vertices: left out", "4 links on no route between two different points (their ends are unknown) are left out: \u002711\u0027, \u002712\u0027, \u002710\u0027, \u0027loopback\u0027"]' "$tmp/out" >/dev/null &&
	ok || bad "small platform with routers lost: $(jq -c .import.lost "$tmp/out")"
# a flat cluster of 100 hosts: a star, the bisection 50 x 125 MBps; the
# backbone said lost
expect 0 "SimGrid's backbone cluster" -- "$FABRICX" import tests/data/simgrid-cluster_backbone.xml --from simgrid -o "$tmp/cb.yaml"
has "the backbone (bb_bw 2.25GBps)" "cluster: the backbone said lost"
got=$("$FABRICX" metrics "$tmp/cb.yaml" --json | jq -c '[.devices, .switches, .links, .diameter_hops, .bisection_bandwidth_Bps]')
[ "$got" = "[100,1,100,2,6250000000]" ] && ok || bad "backbone cluster: $got"
# SimGrid's small_platform.xml: link 145 leaves Jupiter (its one-link
# route to Jacquelin) and Ginette: routes of no graph, refused there
expect 2 "SimGrid's small platform" -- "$FABRICX" import tests/data/simgrid-small_platform.xml --from simgrid -o "$tmp/x.yaml"
first "tests/data/simgrid-small_platform.xml:130:21: error: the route Ginette -> Jacquelin puts an end of link '145' at both 'Ginette' and 'Jupiter': the routes describe no graph" "small_platform: where its routes stop being a graph"
# SimGrid's multi-zone platforms (tests/data/README.md), by hand:
# two_clusters: two 2-host clusters in zone AS0, their routers (SimGrid's
# names, PREFIX ID_router SUFFIX) joined by the zoneRoute's backbone:
# 4 hosts, 2 routers, 4 private links + 1; a cluster's pairs 2 hops
# (4 ordered), the others 3 (8); the bisection two private links,
# 2 x 125 MBps (the backbone, 1.25 GBps, is more)
expect 0 "SimGrid's two clusters" -- "$FABRICX" import tests/data/simgrid-two_clusters.xml --from simgrid -o "$tmp/tc.yaml" --json
got=$("$FABRICX" metrics "$tmp/tc.yaml" --json | jq -c '[.devices, .switches, .links, .diameter_hops, .bisection_bandwidth_Bps, [.hop_histogram[] | [.hops, .pairs]]]')
[ "$got" = "[4,2,5,3,250000000,[[2,4],[3,8]]]" ] && ok || bad "two clusters: $got"
grep -q '{a: "bobbob_cluster_router.hamburger.edu", b: "alicealice_cluster_router.crepe.fr", bandwidth: 1.25 GB/s, latency: 500000 ns}' "$tmp/tc.yaml" &&
	ok || bad "two clusters: the zoneRoute's backbone between the gateways"
jq -e '.import.lost | length == 3 and (.[0] | test("cluster .bob_cluster.: the backbone")) and (.[1] | test("cluster .alice_cluster.: the backbone")) and (.[2] | test("^1 zoneRoutes read as links between their gateways"))' "$tmp/out" >/dev/null &&
	ok || bad "two clusters lost: $(jq -c .import.lost "$tmp/out")"
# cluster_and_one_host: a cluster (router_id router1) and a routing="None"
# zone of one host, the zoneRoute's 100 kBps link from router1 to it:
# 3 hosts on one router, every pair 2 hops; the bisection cuts host1's link
expect 0 "SimGrid's cluster and one host" -- "$FABRICX" import tests/data/simgrid-cluster_and_one_host.xml --from simgrid -o "$tmp/co.yaml"
got=$("$FABRICX" metrics "$tmp/co.yaml" --json | jq -c '[.devices, .switches, .links, .diameter_hops, .bisection_bandwidth_Bps, [.hop_histogram[] | [.hops, .pairs]]]')
[ "$got" = "[3,1,3,2,100000,[[2,6]]]" ] && ok || bad "cluster and one host: $got"
grep -q '{a: "router1", b: "host1", bandwidth: 0.0001 GB/s, latency: 10000000 ns}' "$tmp/co.yaml" && ok || bad "cluster and one host: router1 - host1"
# bypassRoute: zones AS_1 (Full) and AS_2 (Floyd) in AS_Big (Dijkstra),
# joined gateway to gateway; 4 hosts, 5 routers, 9 links.  AS_1_host1 is
# 4 hops from each AS_2 host (6 ordered pairs), AS_2's hosts 2 apart over
# central_router (6): mean 3.  Bisection: {AS_1_host1, AS_2_host3} from
# {AS_2_host1, AS_2_host2} cuts 2 links (AS_2_link1, AS_2_link2), no 2/2
# split cuts one: 2 x 1.25 GBps.  The bypass AS_2_host1 -> AS_2_host2
# (links 7, 6, 5: 3 hops for 2) said lost with its line
expect 0 "SimGrid's bypassRoute" -- "$FABRICX" import tests/data/simgrid-bypassRoute.xml --from simgrid -o "$tmp/br.yaml" --json
got=$("$FABRICX" metrics "$tmp/br.yaml" --json | jq -c '[.devices, .switches, .links, .diameter_hops, .mean_hops, .bisection_bandwidth_Bps, [.hop_histogram[] | [.hops, .pairs]]]')
[ "$got" = "[4,5,9,4,3,2500000000,[[2,6],[4,6]]]" ] && ok || bad "bypassRoute: $got"
jq -e '.import.lost | any(. == "1 routes are longer than the shortest path, which fabricx takes (it routes shortest paths itself, ECMP): AS_2_host1 -> AS_2_host2 (line 58: 3 links, the shortest path 2)") and
	any(test("zones .AS_Big. \\(Dijkstra\\), .AS_2. \\(Floyd\\)")) and any(test("^1 bypass routes")) and any(test("^1 zoneRoutes"))' "$tmp/out" >/dev/null &&
	ok || bad "bypassRoute lost: $(jq -c .import.lost "$tmp/out")"
# SimGrid's own bogus file (teshsuite): gw_dst misspelt "neud-"
expect 2 "SimGrid's bogus_missing_dst_gateway" -- "$FABRICX" import tests/data/simgrid-bogus_missing_dst_gateway.xml --from simgrid -o "$tmp/x.yaml"
first "tests/data/simgrid-bogus_missing_dst_gateway.xml:14:82: error: the zoneRoute's gw_dst 'neud-grappe_router.grappe.fr' is no <host>'s or <router>'s id" "bogus_missing_dst_gateway: the misspelt gateway"
# bad files: one row each -- the file (printf %b: \n a new line), the
# exit, and the first line of stderr after "FILE:"; rows stay in the shell
# (a here-document, not a pipe) so the counts add up
n=0
while IFS='|' read -r xml want msg; do
	[ -n "$xml" ] || continue
	n=$((n + 1))
	printf '%b' "$xml" >"$tmp/sgbad$n.xml"
	expect "$want" "simgrid bad file $n ($msg)" -- "$FABRICX" import "$tmp/sgbad$n.xml" --from simgrid -o "$tmp/x.yaml"
	first "$tmp/sgbad$n.xml:$msg" "simgrid bad file $n: its message and position"
done <<'EOF'
<platform version="4.1"><zone id="z" routing="Full">\n<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>\n<link id="1" bandwidth="25GBs" latency="1us"/>\n</zone></platform>\n|2|3:25: error: 'bandwidth' must be a number > 0 with a unit (Bps, kBps, MBps, GBps, bps, Gbps, GiBps...), not '25GBs'
<platform version="4.1"><zone id="z" routing="Full">\n<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>\n<link id="1" bandwidth="25GBps" latency="1us"/>\n<route src="a" dst="b"><link_ctn id="2"/></route>\n</zone></platform>\n|2|4:38: error: link_ctn names link '2', which no <link> declares
<platform version="4.1"><zone id="z" routing="Full">\n<host id="a" speed="1Gf"/>\n<link id="1" bandwidth="25GBps" latency="1us"/>\n<route src="a" dst="c"><link_ctn id="1"/></route>\n</zone></platform>\n|2|4:21: error: the route's dst 'c' is no <host>'s or <router>'s id
<platform version="4.1"><zone id="z" routing="Full">\n<link id="1" bandwidth="25GBps" latency="1us" sharing_policy="WIFI"/>\n</zone></platform>\n|2|2:63: error: 'sharing_policy' must be SPLITDUPLEX, SHARED or FATPIPE, not 'WIFI'
<platform version="4.1"><zone id="z" routing="Full">\n<host id="a" speed="1Gf"/>\n<route src="a" dst="a"><cluster id="c" radical="0-300" bw="1GBps" lat="1us"/></route>\n</zone></platform>\n|2|3:24: error: a <cluster> inside a <route>
<platform version="4.1"><zone id="z" routing="Full">\n<zone id="y" routing="Cluster"/>\n</zone></platform>\n|2|2:23: error: 'routing' Cluster is not read (Full, Floyd, Dijkstra, DijkstraCache and None zones are: the others route their own way)
<platform version="4.1"><zone id="z" routing="Full">\n<zone id="y"><host id="a" speed="1Gf"/></zone><zone id="x"><host id="b" speed="1Gf"/></zone>\n<link id="1" bandwidth="1GBps"/>\n<zoneRoute src="y" dst="w" gw_src="a" gw_dst="b"><link_ctn id="1"/></zoneRoute>\n</zone></platform>\n|2|4:25: error: the zoneRoute's dst 'w' is no zone's or cluster's id
<platform version="4.1"><zone id="z" routing="Full">\n<zone id="y"><host id="a" speed="1Gf"/></zone><zone id="x"><host id="b" speed="1Gf"/></zone>\n<link id="1" bandwidth="1GBps"/>\n<zoneRoute src="y" dst="x" gw_src="b" gw_dst="a"><link_ctn id="1"/></zoneRoute>\n</zone></platform>\n|2|4:36: error: the zoneRoute's gw_src 'b' is not in zone 'y'
<platform version="4.1"><zone id="z" routing="Full">\n<zone id="y"><host id="a" speed="1Gf"/><zone id="x"><host id="b" speed="1Gf"/></zone>\n<link id="1" bandwidth="1GBps"/>\n<zoneRoute src="y" dst="x" gw_src="a" gw_dst="b"><link_ctn id="1"/></zoneRoute>\n</zone></zone></platform>\n|2|4:17: error: the zoneRoute's src 'y' is not a zone of 'y', where the zoneRoute is
<platform version="4.1"><zone id="z" routing="Full">\n<zone id="y"><host id="a" speed="1Gf"/></zone><zone id="x"><host id="b" speed="1Gf"/></zone>\n<link id="1" bandwidth="1GBps"/>\n<zoneRoute src="y" dst="x" gw_dst="b"><link_ctn id="1"/></zoneRoute>\n</zone></platform>\n|2|4:1: error: a <zoneRoute> without a gw_src (the netpoints its links join)
<platform version="4.1">\n<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><link id="1" bandwidth="1GBps"/>\n<zoneRoute src="y" dst="x" gw_src="a" gw_dst="b"><link_ctn id="1"/></zoneRoute>\n</platform>\n|2|3:1: error: a <zoneRoute> outside a zone
<platform version="4.1"><zone id="z" routing="Full">\n<host id="a" speed="1Gf"/>\n<host_link id="a" up="u" down="d"/>\n</zone></platform>\n|2|3:1: error: <host_link> is not read (hosts, routers, links, routes, zones, zoneRoutes, bypass routes and flat clusters are)
<platform version="4.1"><zone id="z" routing="Full">\n<zone id="y"/>\n<cluster id="y" radical="0-1" bw="1GBps" lat="1us"/>\n</zone></platform>\n|2|3:1: error: zone 'y' is given twice (first at line 2; a cluster is a zone)
EOF
# zones 65 deep (a bound far past real platforms' few): refused at the 65th
{ echo '<platform version="4.1">'; i=0; while [ $i -lt 65 ]; do echo "<zone id=\"z$i\">"; i=$((i + 1)); done; } >"$tmp/deep.xml"
expect 2 "simgrid zones 65 deep" -- "$FABRICX" import "$tmp/deep.xml" --from simgrid -o "$tmp/x.yaml"
first "$tmp/deep.xml:66:1: error: zones nested more than 64 deep" "simgrid zones 65 deep: the 65th"
expect 2 "simgrid not simgrid" -- "$FABRICX" import tests/data/igraph-test.graphml --from simgrid
has "the root element is <graphml>, not <platform>" "simgrid: another format said"
expect 2 "simgrid refuses 4,096 devices" -- "$FABRICX" export tests/specs/torus-16x16x16.yaml --to simgrid -o "$tmp/big.xml"
has "4096 devices need 16773120 explicit routes" "simgrid: the refusal's numbers"

# htsim: tests/specs/fat-tree-1024 at htsim's 100 Gbit/s and 1 us is htsim's
# own fat_tree_1024.topo (tests/data), key by key per tier (its order and
# comments aside); leaf-spine-2to1: 4 leaves of 4 hosts and 2 uplinks
# (Oversubscribed 2), each spine 4 leaves x 1 link down.
topo_keys() {  # the file's settings as "tier key value", sorted
	awk '/^#/ || NF == 0 { next } tolower($1) == "tier" { t = $2; next }
	     { print (t == "" ? "-" : t), tolower($1), $2 }' "$1" | sort
}
expect 0 "export htsim" -- "$FABRICX" export tests/specs/fat-tree-1024.yaml --to htsim -o "$tmp/ft.topo" \
	--set 'fabric.link={bandwidth: 100 Gbit/s, latency: 1 us}' --json
if [ "$(topo_keys "$tmp/ft.topo")" = "$(topo_keys tests/data/htsim-fat_tree_1024.topo)" ]; then ok; else
	bad "htsim: fat-tree-1024 differs from htsim's fat_tree_1024.topo"; diff "$tmp/ft.topo" tests/data/htsim-fat_tree_1024.topo | head; fi
if jq -e '.export.lost | any(test("routing policy"))' "$tmp/out" >/dev/null; then ok; else bad "htsim: lost routing"; fi
expect 0 "export htsim 2 tiers" -- "$FABRICX" export tests/peer/leaf-spine-2to1.yaml --to htsim -o "$tmp/ls.topo"
if [ "$(topo_keys "$tmp/ls.topo" | tr '\n' ' ')" = "- nodes 16 - podsize 16 - tiers 2 0 downlink_latency_ns 200 0 downlink_speed_gbps 400 0 oversubscribed 2 0 radix_down 4 0 radix_up 2 0 switch_latency_ns 0 1 bundle 1 1 downlink_latency_ns 200 1 downlink_speed_gbps 400 1 radix_down 4 1 switch_latency_ns 0 " ]; then ok; else
	bad "htsim leaf-spine: $(topo_keys "$tmp/ls.topo" | tr '\n' ' ')"; fi
expect 2 "htsim refuses a torus" -- "$FABRICX" export specs/tpu-v4-cube.yaml --to htsim
has "htsim's .topo describes two- and three-tier fat-trees only, and this is a torus fabric" "htsim: why"
expect 2 "htsim refuses undersubscribed leaves" -- "$FABRICX" export tests/peer/leaf-spine-2to1.yaml --to htsim --set 'fabric.down_up=[2, 4]' --set fabric.hosts=8
has "Oversubscribed is Radix_Down / Radix_Up, a whole number" "htsim: the oversubscription rule"
sed 's/^  link: .*/  tier_links: [{bandwidth: 400 Gbit\/s, latency: 200 ns}, {bandwidth: 800 Gbit\/s, latency: 200 ns}, {bandwidth: 800 Gbit\/s, latency: 200 ns}]/' specs/fat-tree-k8.yaml >"$tmp/ft2.yaml"
expect 2 "htsim refuses uneven speeds" -- "$FABRICX" export "$tmp/ft2.yaml" --to htsim
has "run at 400 and 800 Gbit/s" "htsim: the speed rule"

# InfraGraph: HGX H100 as 8 xpu and 4 nvswitch instances, one link class
# of 25 GB/s = 200 Gbit/s and 200 ns, 32 edges (GPU x chip bundles) whose
# port slices hold 8 x 18 = 144 links; GPU 0's first bundle is its 5
# links to chip 0 (5/4/4/5); CM384's instances 384 xpu, 192 cpu, 336 L1,
# 112 L2, and its 5,760 bundles' slices the metrics' physical links.
slices='[.infrastructure.edges[].ep1.component | capture("port\\[(?<a>[0-9]+)(:(?<b>[0-9]+))?\\]") | if .b then (.b|tonumber) - (.a|tonumber) else 1 end] | add'
expect 0 "export infragraph" -- "$FABRICX" export specs/hgx-h100.yaml --to infragraph -o "$tmp/hgx.json" --json
if [ "$(jq -c '[.infrastructure.instances[] | [.name, .count]]' "$tmp/hgx.json")" = '[["xpu",8],["nvswitch",4]]' ]; then ok; else bad "infragraph hgx instances"; fi
if [ "$(jq -c '.infrastructure.links' "$tmp/hgx.json")" = '[{"name":"link0","physical":{"bandwidth":{"gigabits_per_second":200},"latency":{"ns":200}}}]' ]; then ok; else bad "infragraph hgx links: $(jq -c '.infrastructure.links' "$tmp/hgx.json")"; fi
if [ "$(jq '.infrastructure.edges | length' "$tmp/hgx.json")" = 32 ] && [ "$(jq "$slices" "$tmp/hgx.json")" = 144 ]; then ok; else bad "infragraph hgx edges"; fi
if [ "$(jq -c '.infrastructure.edges[0] | [.ep1.instance, .ep1.component, .ep2.instance, .scheme]' "$tmp/hgx.json")" = '["xpu[0]","port[0:5]","nvswitch[0]","one2one"]' ]; then ok; else bad "infragraph hgx first edge"; fi
if jq -e '.export.lost | any(test("routing"))' "$tmp/out" >/dev/null; then ok; else bad "infragraph: lost routing"; fi
expect 0 "export infragraph cm384" -- "$FABRICX" export specs/cm384.yaml --to infragraph -o "$tmp/cm.json"
if [ "$(jq -c '[.infrastructure.instances[] | [.name, .count]]' "$tmp/cm.json")" = '[["xpu",384],["cpu",192],["L1",336],["L2",112]]' ]; then ok; else bad "infragraph cm384 instances: $(jq -c '[.infrastructure.instances[] | [.name, .count]]' "$tmp/cm.json")"; fi
links=$("$FABRICX" metrics specs/cm384.yaml --json | jq .links)
if [ "$(jq "$slices" "$tmp/cm.json")" = "$links" ]; then ok; else bad "infragraph cm384: $(jq "$slices" "$tmp/cm.json") links, metrics $links"; fi

# Every format for every shipped spec: written (exit 0), or refused with
# the reason (exit 2, "export FORMAT: ..." or the format's rule), never
# anything else; wse2's 754,000 PEs shrunk to 16 x 16.
for s in specs/*.yaml; do
	small=""
	case $s in *wse2*) small="--set fabric.grid=[16,16]" ;; esac
	for f in graphml gml dot ns3 simai booksim astra-sim simgrid simgrid-hosts smpi htsim infragraph; do
		# shellcheck disable=SC2086
		"$FABRICX" export "$s" --to $f -o "$tmp/every.out" $small >/dev/null 2>"$tmp/err"
		rc=$?
		if [ $rc -eq 0 ] || { [ $rc -eq 2 ] && grep -q "error: export $f: \|error: .*$f" "$tmp/err"; }; then ok; else
			bad "export $s --to $f: exit $rc"; head -2 "$tmp/err"; fi
	done
done

# NVIDIA's own descriptions of real machines (tests/data/README.md):
# NCCL's topology file of an HGX H100 (IBM Cloud's, 8 GPUs on 4 NVSwitch
# chips by 5/4/4/5 NVLinks, 8 NICs) is specs/hgx-h100.yaml in every metric;
# `nvidia-smi topo -m` of a DGX-1 (NVIDIA/nccl-tests#29: NV1/NV2, the
# hybrid cube-mesh, numbered otherwise) is specs/dgx1.yaml in every
# metric; an H100's NV18 everywhere (NVIDIA/nccl#1453) is one switch of 8
# x 18 links with HGX's bisection.  Each round-trips through GraphML.
for c in "nccl-topo nccl-topo-ibm-h100.xml specs/hgx-h100.yaml" \
	 "nvidia-smi nvidia-smi-topo-dgx1-nccl-tests-29.txt specs/dgx1.yaml"; do
	set -- $c
	expect 0 "import $1 $2" -- "$FABRICX" import "tests/data/$2" --from "$1" -o "$tmp/nv.yaml" --json
	if [ "$(shape "$tmp/nv.yaml")" = "$(shape "$3")" ]; then ok; else bad "import $2: $(shape "$tmp/nv.yaml") != $3's"; fi
	expect 0 "export $2 again" -- "$FABRICX" export "$tmp/nv.yaml" --to graphml -o "$tmp/nv.graphml"
	expect 0 "import $2 again" -- "$FABRICX" import "$tmp/nv.graphml" --from graphml -o "$tmp/nv2.yaml"
	if [ "$(shape "$tmp/nv2.yaml")" = "$(shape "$3")" ]; then ok; else bad "$2 round trip"; fi
done
expect 0 "import nccl-topo json" -- "$FABRICX" import tests/data/nccl-topo-ibm-h100.xml --from nccl-topo -o "$tmp/nv.yaml" --json
if jq -e '.import.assumed | any(test("left out: 8 NICs, mlx5_7 \\(200000 Mb/s\\)"))' "$tmp/out" >/dev/null; then ok; else bad "nccl-topo: NICs said left out"; fi
if jq -e '.import.assumed | any(test("NVSwitch chips"))' "$tmp/out" >/dev/null; then ok; else bad "nccl-topo: NVSwitch assumption said"; fi
expect 0 "import nvidia-smi h100" -- "$FABRICX" import tests/data/nvidia-smi-topo-h100-nccl-1453.txt --from nvidia-smi -o "$tmp/nv.yaml"
has "every GPU pair shows NV18" "nvidia-smi: NVSwitch assumption said"
if [ "$("$FABRICX" metrics "$tmp/nv.yaml" --json | jq -c '[.devices, .switches, .links, .bisection_bandwidth_Bps]')" = "[8,1,144,1800000000000]" ]; then ok; else bad "nvidia-smi h100 counts"; fi
# bad files: FILE:LINE:COL
sed 's/count="4" tclass="0x068000"\/>/count="four" tclass="0x068000"\/>/' tests/data/nccl-topo-ibm-h100.xml >"$tmp/bad.xml"
L=$(grep -n 'count="four"' "$tmp/bad.xml" | head -1 | cut -d: -f1)
expect 2 "nccl-topo bad count" -- "$FABRICX" import "$tmp/bad.xml" --from nccl-topo -o "$tmp/x.yaml"
first "$tmp/bad.xml:$L:48: error: <nvlink count=\"four\"> must be a whole number of links from 1 to 1024" "nccl-topo bad count at its column"
printf '<system version="1">\n  <cpu>\n    <gpu dev="0"/>\n  </cpu>\n</system>\n' >"$tmp/bad.xml"
expect 2 "nccl-topo gpu outside pci" -- "$FABRICX" import "$tmp/bad.xml" --from nccl-topo -o "$tmp/x.yaml"
first "$tmp/bad.xml:3:5: error: a <gpu> outside a <pci busid=...>: its bus id is what <nvlink target=...> names" "nccl-topo: gpu outside pci"
expect 2 "nccl-topo not nccl" -- "$FABRICX" import tests/data/igraph-test.graphml --from nccl-topo -o "$tmp/x.yaml"
has "no <system> element" "nccl-topo: a GraphML file refused"
sed '3s/NV1 /NV3 /' tests/data/nvidia-smi-topo-dgx1-nccl-tests-29.txt >"$tmp/bad.txt"
expect 2 "nvidia-smi asymmetric" -- "$FABRICX" import "$tmp/bad.txt" --from nvidia-smi -o "$tmp/x.yaml"
has "GPU2 to GPU1 shows 1 NVLinks, GPU1 to GPU2 3" "nvidia-smi: asymmetric"
sed '4s/NV2 /NVX /' tests/data/nvidia-smi-topo-dgx1-nccl-tests-29.txt >"$tmp/bad.txt"
expect 2 "nvidia-smi bad cell" -- "$FABRICX" import "$tmp/bad.txt" --from nvidia-smi -o "$tmp/x.yaml"
first "$tmp/bad.txt:4:9: error: 'NVX' is not a link of \`nvidia-smi topo -m\` (NV# for # NVLinks, or PIX, PXB, PHB, NODE, SYS)" "nvidia-smi: a bad cell at its column"
sed '$d' tests/data/nvidia-smi-topo-dgx1-nccl-tests-29.txt >"$tmp/bad.txt"
expect 2 "nvidia-smi a row short" -- "$FABRICX" import "$tmp/bad.txt" --from nvidia-smi -o "$tmp/x.yaml"
has "the header names 8 GPUs and the file gives 7 of their rows" "nvidia-smi: a missing row"
expect 2 "nvidia-smi no header" -- "$FABRICX" import tests/data/booksim-anynet_file --from nvidia-smi -o "$tmp/x.yaml"
has "no header line starting GPU0" "nvidia-smi: not a matrix"

# SMPI (tests/peer/smpi_export.sh runs it under smpirun): two-switch's
# host file h0 .. h5; its program holds the pairwise all-to-all's 5 rounds
# (rank r to r + s, s = 1 .. 5) of 600,000 / 5 = 120,000 B flows, and
# compiles where an MPI compiler is installed.
expect 0 "export simgrid-hosts" -- "$FABRICX" export tests/peer/two-switch.yaml --to simgrid-hosts -o "$tmp/hosts"
if [ "$(tr '\n' ' ' < "$tmp/hosts")" = "h0 h1 h2 h3 h4 h5 " ]; then ok; else bad "simgrid-hosts: $(tr '\n' ' ' < "$tmp/hosts")"; fi
expect 0 "export smpi" -- "$FABRICX" export tests/peer/two-switch.yaml --to smpi -o "$tmp/prog.c" \
	--set 'workload={collectives: [{pattern: all-to-all, algo: pairwise, size: 600000 B}]}'
if grep -q '{"all-to-all/pairwise 600000 B", 5, c0}' "$tmp/prog.c" &&
   grep -q '^static const flow c0_r0\[\] = {{0, 1, 120000}, {1, 2, 120000}, {2, 3, 120000}, {3, 4, 120000}, {4, 5, 120000}, {5, 0, 120000}};' "$tmp/prog.c"; then ok; else
	bad "smpi: the pairwise program"; grep -n "c0" "$tmp/prog.c" | head -3; fi
if command -v mpicc >/dev/null 2>&1; then
	if mpicc -fsyntax-only -Wall -Werror "$tmp/prog.c" 2>"$tmp/err"; then ok; else bad "smpi: the program does not compile"; head -3 "$tmp/err"; fi
fi
expect 2 "smpi refuses an unlisted all-to-all" -- "$FABRICX" export tests/peer/two-switch.yaml --to smpi -o "$tmp/prog.c" \
	--set 'workload={collectives: [{pattern: all-to-all, algo: direct, size: 600000 B}]}'
has "use a listed algorithm (all-to-all: pairwise)" "smpi: why"

expect 2 "no --to" -- "$FABRICX" export specs/hgx-h100.yaml
has "export needs --to FORMAT" "no --to says so"
expect 2 "unknown format" -- "$FABRICX" export specs/hgx-h100.yaml --to pajek
has "unknown format 'pajek' (expected: graphml, gml, dot, ns3, simai, booksim, astra-sim, simgrid, simgrid-hosts, smpi, htsim, infragraph)" "an unknown format lists the known"
expect 2 "--json needs -o" -- "$FABRICX" export specs/hgx-h100.yaml --to gml --json
expect 0 "--json" -- "$FABRICX" export specs/hgx-h100.yaml --to simai -o "$tmp/j.simai" --json
jq -e '.export.lost | length == 4' "$tmp/out" >/dev/null && ok || bad "export --json lists what is lost"
printf '<graphml><graph>\n  <node id="a"/>\n  <edge source="a" target="b"/>\n</graph></graphml>\n' >"$tmp/bad1.graphml"
expect 2 "an edge to no node" -- "$FABRICX" import "$tmp/bad1.graphml" --from graphml
first "$tmp/bad1.graphml:3:28: error: the edge's target 'b' is no <node>'s id" "an edge to no node: its position"
printf '<graphml>\n<key id="k" for="edge" attr.name="bandwidth_Bps"/>\n<graph>\n<node id="a"/><node id="b"/>\n<edge source="a" target="b"><data key="k">-5</data></edge>\n</graph></graphml>\n' >"$tmp/bad2.graphml"
expect 2 "a negative bandwidth" -- "$FABRICX" import "$tmp/bad2.graphml" --from graphml
first "$tmp/bad2.graphml:5:29: error: 'bandwidth_Bps' must be a number > 0, not '-5'" "a negative bandwidth: its position"
printf '<graphml>\n<graph>\n<node id="a"><data key="x">1</data></node>\n</graph></graphml>\n' >"$tmp/bad3.graphml"
expect 2 "an undeclared key" -- "$FABRICX" import "$tmp/bad3.graphml" --from graphml
first "$tmp/bad3.graphml:3:25: error: <data> names key 'x', which no <key> declares" "an undeclared key: its position"
printf '<graphml><graph><node id="a">&bogus;</node></graph></graphml>\n' >"$tmp/bad4.graphml"
expect 2 "an unknown entity" -- "$FABRICX" import "$tmp/bad4.graphml" --from graphml
printf '2 0 1\n\n0 1 400Gbs 1us 0\n' >"$tmp/bad.ns3"
expect 2 "a bad ns-3 rate" -- "$FABRICX" import "$tmp/bad.ns3" --from ns3
first "$tmp/bad.ns3:3:5: error: a link rate must be a positive number with bps, Kbps, Mbps, Gbps or Tbps (or Bps, GBps...), not '400Gbs'" "a bad rate: its position"
printf 'router 0 node 0\nrouter 1 node 0\n' >"$tmp/bad.anynet"
expect 2 "a node on two routers" -- "$FABRICX" import "$tmp/bad.anynet" --from booksim
first "$tmp/bad.anynet:2:15: error: node 0 joins routers 0 and 1 (a BookSim node joins one)" "a node on two routers: its position"
printf 'graph [ node [ id 1 ] node [ id 2 ] edge [ source 1 target 3 ] ]\n' >"$tmp/bad.gml"
expect 2 "a GML edge to no node" -- "$FABRICX" import "$tmp/bad.gml" --from gml
printf '<graphml><graph><node id="a"/><node id="b"/></graph></graphml>\n' >"$tmp/apart.graphml"
expect 2 "a vertex without links" -- "$FABRICX" import "$tmp/apart.graphml" --from graphml
first "$tmp/apart.graphml:1:17: error: vertex 'a' has no link: a fabric is one connected graph" "a vertex without links: its position"
printf 'graph [ node [ id 1 ] node [ id 2 ] node [ id 3 ] node [ id 4 ]\n edge [ source 1 target 2 ] edge [ source 3 target 4 ] ]\n' >"$tmp/two.gml"
expect 2 "a graph in two pieces" -- "$FABRICX" import "$tmp/two.gml" --from gml
has "not a fabric fabricx accepts: 'fabric.links' leave the fabric disconnected" "an import that builds no fabric says why"
expect 2 "import of nothing" -- "$FABRICX" import /nonexistent --from gml
# paths are data: a hostile output name is written as named, nothing runs
cd "$tmp" && expect 0 "a hostile output name" -- "$FABRICX" export "$OLDPWD/specs/hgx-h100.yaml" --to gml -o 'x;$(touch pwned).gml'
[ -f "$tmp/x;\$(touch pwned).gml" ] && [ ! -e "$tmp/pwned" ] && ok || bad "a hostile output name ran something or was not written"
cd "$OLDPWD" || exit 1

summary "interop tests"
