#!/bin/sh
# fabricx render: output formats and pictures side by side (issue 18).
. "$(dirname "$0")/lib.sh"

# -o FILE: the format from the extension; a contradiction is refused
expect 0 "render -o x.png" -- "$FABRICX" render specs/dgx1.yaml -o "$tmp/x.png" --out "$tmp/o"
[ "$(head -c 4 "$tmp/x.png" | tail -c 3)" = PNG ] && ok || bad "render -o x.png: not a PNG"
expect 0 "render -o x.pdf" -- "$FABRICX" render specs/dgx1.yaml -o "$tmp/x.pdf" --out "$tmp/o"
[ "$(head -c 4 "$tmp/x.pdf")" = "%PDF" ] && ok || bad "render -o x.pdf: not a PDF"
expect 0 "render -o x.dot" -- "$FABRICX" render specs/dgx1.yaml -o "$tmp/x.dot" --out "$tmp/o"
grep -q "^graph fabric {" "$tmp/x.dot" && ok || bad "render -o x.dot: not DOT"
expect 2 "render -o x.png --format svg" -- "$FABRICX" render specs/dgx1.yaml -o "$tmp/y.png" --format svg --out "$tmp/o"
first "fabricx: error: render: '$tmp/y.png' says png but --format says svg (drop one)" "contradiction message"
[ ! -e "$tmp/y.png" ] && ok || bad "render -o y.png --format svg wrote a file"
expect 2 "render -o x.gif" -- "$FABRICX" render specs/dgx1.yaml -o "$tmp/x.gif" --out "$tmp/o"
has "cannot tell the format of" "unknown extension message"
expect 0 "render -o x.svg --format svg" -- "$FABRICX" render specs/dgx1.yaml -o "$tmp/x.svg" --format svg --out "$tmp/o"
grep -q "<svg" "$tmp/x.svg" && ok || bad "render -o x.svg: not SVG"

# -o FILE writes that file alone (no out/<name>/, no CSV of the record);
# --out DIR adds the record's CSV, raw; DOT is not laid out: no size
mkdir -p "$tmp/cwd"
expect 0 "render -o, nothing else" -- sh -c 'cd "$1" && "$0" render "$2" -o x.svg' "$FABRICX" "$tmp/cwd" "$PWD/specs/dgx1.yaml"
[ "$(ls "$tmp/cwd")" = x.svg ] && ok || bad "render -o x.svg also wrote: $(ls "$tmp/cwd" | tr '\n' ' ')"
expect 0 "render -o x.dot --json --out" -- "$FABRICX" render specs/dgx1.yaml -o "$tmp/r.dot" --json --out "$tmp/rec"
[ "$(jq -c '[.view, .format, .panels, .vertices_drawn, .edges_drawn, .aggregated, .width_px, .height_px]' "$tmp/out")" = '["physical","dot",1,8,16,false,null,null]' ] && ok || bad "render --json: $(head -c 300 "$tmp/out")"
[ "$(head -1 "$tmp/rec/dgx1/render.csv")" = "view,format,file,panels,vertices_drawn,edges_drawn,aggregated,layout_engine,width_px,height_px,render_s,elapsed_s" ] && ok || bad "render.csv header: $(head -1 "$tmp/rec/dgx1/render.csv")"
# (DGX-1's hybrid cube-mesh is pinned as a cube: neato, see below)
[ "$(sed -n 2p "$tmp/rec/dgx1/render.csv" | cut -d, -f4-10)" = "1,8,16,false,neato,," ] && ok || bad "render.csv row: $(sed -n 2p "$tmp/rec/dgx1/render.csv")"

# several specs on one page: both panels, one legend, one scale, same bytes
expect 0 "render side by side" -- "$FABRICX" render specs/hgx-h100.yaml specs/dgx1.yaml -o "$tmp/sbs.png" --json --out "$tmp/o"
[ "$(head -c 4 "$tmp/sbs.png" | tail -c 3)" = PNG ] && ok || bad "side by side: not a PNG"
w=$(jq .width_px "$tmp/out"); h=$(jq .height_px "$tmp/out")
[ "$w" -le 2400 ] && [ "$h" -le 2400 ] && [ "$w" -le $((3 * h)) ] && [ "$h" -le $((3 * w)) ] && ok || bad "side by side: $w x $h px"
[ "$(jq .panels "$tmp/out")" = 2 ] && ok || bad "side by side: panels in --json"
expect 0 "render side by side dot" -- "$FABRICX" render specs/hgx-h100.yaml specs/dgx1.yaml --view loads --pattern all-to-all -o "$tmp/sbs.dot" --out "$tmp/o"
grep -q "subgraph cluster_panel1 {" "$tmp/sbs.dot" && grep -q "subgraph cluster_panel2 {" "$tmp/sbs.dot" && ! grep -q cluster_panel3 "$tmp/sbs.dot" && ok || bad "side by side: two panels"
[ "$(grep -c 'colour and width' "$tmp/sbs.dot")" = 1 ] && ok || bad "side by side: one legend"
[ "$(grep -o 'util_max=[0-9.]*' "$tmp/sbs.dot" | sort -u | wc -l)" = 1 ] && ok || bad "side by side: one loads scale ($(grep -o 'util_max=[0-9.]*' "$tmp/sbs.dot" | tr '\n' ' '))"
"$FABRICX" render specs/cm384.yaml specs/nvl72.yaml --view loads -o "$tmp/s1.svg" --out "$tmp/o" >/dev/null 2>&1
"$FABRICX" render specs/cm384.yaml specs/nvl72.yaml --view loads -o "$tmp/s2.svg" --out "$tmp/o" >/dev/null 2>&1
[ -s "$tmp/s1.svg" ] && cmp -s "$tmp/s1.svg" "$tmp/s2.svg" && ok || bad "side by side: two runs gave different SVGs"
expect 0 "render side by side default path" -- "$FABRICX" render specs/hgx-h100.yaml specs/dgx1.yaml --out "$tmp/o"
[ -s "$tmp/o/hgx-h100/physical-side-by-side.svg" ] && ok || bad "side by side: default path"
expect 2 "render side by side, -o x.png --format svg" -- "$FABRICX" render specs/hgx-h100.yaml specs/dgx1.yaml -o "$tmp/z.png" --format svg --out "$tmp/o"
expect 2 "render nine specs" -- "$FABRICX" render specs/dgx1.yaml specs/dgx1.yaml specs/dgx1.yaml specs/dgx1.yaml specs/dgx1.yaml specs/dgx1.yaml specs/dgx1.yaml specs/dgx1.yaml specs/dgx1.yaml --out "$tmp/o"
has "at most 8 specs" "nine specs message"
expect 2 "render side by side, a bad spec" -- "$FABRICX" render specs/dgx1.yaml "$tmp/none.yaml" --out "$tmp/o"
expect 2 "render side by side --detail full" -- "$FABRICX" render specs/dgx1.yaml specs/hgx-h100.yaml --detail full --out "$tmp/o"
expect 0 "render variants side by side" -- "$FABRICX" render 'specs/cm384.yaml@fabric.planes=4,fabric.l1_per_node=4' specs/cm384.yaml -o "$tmp/v.dot" --out "$tmp/o"
grep -q "cm384.yaml@fabric.planes=4" "$tmp/v.dot" && grep -q "256 switch chips" "$tmp/v.dot" && grep -q "448 switch chips" "$tmp/v.dot" && ok || bad "variants: each panel its own build"
expect 2 "render unbalanced variant" -- "$FABRICX" render 'specs/cm384.yaml@fabric.planes=[4' specs/cm384.yaml --out "$tmp/o"
has "expected SPEC@KEY=VALUE" "unbalanced variant message"

# before and after a failure
expect 0 "render --fail" -- "$FABRICX" render specs/cm384.yaml --view loads --fail plane=0 -o "$tmp/f.dot" --out "$tmp/o"
grep -q "subgraph cluster_panel2 {" "$tmp/f.dot" && grep -q "after plane=0 fails" "$tmp/f.dot" && ok || bad "render --fail: two panels"
grep -q "failed=" "$tmp/f.dot" && ok || bad "render --fail: nothing marked failed"
expect 0 "render --fail png" -- "$FABRICX" render specs/cm384.yaml --fail plane=0 -o "$tmp/f.png" --out "$tmp/o"
# a link failed alone (A~B, as every command's --fail takes it): that one
# drawn edge is marked, and the loads go round it
expect 0 "render --fail a link" -- "$FABRICX" render specs/tpu-v4-cube.yaml --view loads --fail 'device=0~device=1' -o "$tmp/l.dot"
[ "$(grep -c 'failed=1' "$tmp/l.dot")" = 1 ] && [ "$(grep -c 'failed=' "$tmp/l.dot")" = 1 ] && ok || bad "render --fail A~B: $(grep -c 'failed=' "$tmp/l.dot") edges marked"
grep -q "after device=0~device=1 fails" "$tmp/l.dot" && ok || bad "render --fail A~B: panel title"
expect 2 "render --fail with two specs" -- "$FABRICX" render specs/cm384.yaml specs/nvl72.yaml --fail plane=0 --out "$tmp/o"
has "give one spec" "--fail with two specs message"
expect 2 "render --fail bad selector" -- "$FABRICX" render specs/cm384.yaml --fail plane=99 --out "$tmp/o"
# a torus routes round a failed chip (dimension order gives way to ECMP on
# the degraded graph); a leaf switch's hosts are cut off: no way round
expect 0 "render loads --fail on a torus" -- "$FABRICX" render specs/torus-8x8x8.yaml --view loads --pattern all-to-all --fail device=0 --out "$tmp/o" -o "$tmp/t.dot"
expect 2 "render loads --fail, no way round" -- "$FABRICX" render specs/fat-tree-k8.yaml --view loads --pattern all-to-all --fail switch=0 --out "$tmp/o"
has "cannot avoid the failed elements: they cut a rank off" "no way round message"

# bounded drawings (issue 31): whatever the fabric's size, the aggregated
# drawing holds at most 96 boxes and 600 drawn edges (render.h
# FX_RENDER_MAX_BOXES, _EDGES), laid out by dot or neato.  Every kind at
# about 10x and 100x its shipped size, counted in the DOT text (a node
# line has class=, a drawn edge links=; invisible ordering edges counted
# apart, at most two per box).  Counting, never timing.
sh bench/custom-clos.sh 16 >"$tmp/clos16.yaml"   # 1,024 hosts: the 8-host custom leaf-spine x 128
sh bench/custom-clos.sh 24 >"$tmp/clos24.yaml"   # 3,456 hosts
while IFS='|' read -r spec sets; do
	[ -n "$spec" ] || continue
	# shellcheck disable=SC2086
	if ! "$FABRICX" render "$spec" $sets --format dot -o "$tmp/big.dot" --json >"$tmp/out" 2>"$tmp/err"; then
		bad "bounded: $spec $sets: exit $?: $(tail -1 "$tmp/err")"; continue
	fi
	boxes=$(grep -c 'class=' "$tmp/big.dot")
	drawn=$(grep -c '^[[:space:]]*links=' "$tmp/big.dot")
	all=$(grep -c ' -- ' "$tmp/big.dot")
	engine=$(jq -r .layout_engine "$tmp/out")
	[ "$boxes" -ge 2 ] && [ "$boxes" -le 96 ] && [ "$drawn" -ge 1 ] && [ "$drawn" -le 600 ] &&
		[ "$all" -le $((drawn + 2 * boxes)) ] && [ "$boxes" = "$(jq .vertices_drawn "$tmp/out")" ] &&
		{ [ "$engine" = dot ] || [ "$engine" = neato ]; } && ok ||
		bad "bounded: $spec $sets: $boxes boxes, $drawn drawn edges, $all in all, $engine"
done <<LIST
specs/fat-tree-k8.yaml|--set fabric.k=24
specs/fat-tree-k8.yaml|--set fabric.k=40
specs/fat-tree-k8.yaml|--set fabric.k=56
specs/fat-tree-k8.yaml|--set fabric.k=64
tests/specs/leaf-spine-512.yaml|--set fabric.hosts=5120 --set fabric.radix=640 --set fabric.down_up=[32,32] --set fabric.spines=32
specs/cm384.yaml|--set fabric.nodes=480 --set fabric.l2_ports=480
specs/cm384.yaml|--set fabric.nodes=4800 --set fabric.l2_ports=4800
specs/cm384-roce.yaml|--set fabric.domains=10 --set fabric.network.hosts=7680 --set fabric.network.radix=1800 --set fabric.network.down_up=[96,96] --set fabric.network.spines=96
specs/dragonfly-1056.yaml|--set fabric.a=16 --set fabric.h=8 --set fabric.radix=27
specs/dragonfly-1056.yaml|--set fabric.a=32 --set fabric.h=16 --set fabric.radix=51
specs/hyperx-8x8x4.yaml|--set fabric.dims=[16,16,8] --set fabric.radix=45
specs/hyperx-8x8x4.yaml|--set fabric.dims=[32,32,16] --set fabric.radix=85
specs/nvl72-x8.yaml|--set fabric.domains=80 --set fabric.network.hosts=5760 --set fabric.network.down_up=[90,90] --set fabric.network.radix=1800 --set fabric.network.spines=90
specs/nvl72-x8.yaml|--set fabric.domains=800 --set fabric.network.hosts=57600 --set fabric.network.down_up=[90,90] --set fabric.network.radix=1800 --set fabric.network.spines=90
specs/rail-clos-2048.yaml|--set fabric.servers=2560 --set fabric.radix=640
specs/rail-clos-2048.yaml|--set fabric.servers=25600 --set fabric.radix=6400
specs/slimfly-q9.yaml|--set fabric.q=29 --set fabric.radix=70
specs/slimfly-q9.yaml|--set fabric.q=71 --set fabric.radix=170
specs/switched-64.yaml|--set fabric.devices=640 --set fabric.switch_ports=640
specs/switched-64.yaml|--set fabric.devices=6400 --set fabric.switch_ports=6400
specs/dgx-h100-256.yaml|--set fabric.nodes=320 --set fabric.spine_ports=640
specs/dgx-h100-256.yaml|--set fabric.nodes=3200 --set fabric.spine_ports=6400
specs/torus-8x8x8.yaml|--set fabric.dims=[16,16,20]
specs/torus-8x8x8.yaml|--set fabric.dims=[40,40,32]
specs/torus-8x8x8.yaml|--set fabric.dims=[8,8,8,8]
tests/specs/mesh-32x32.yaml|--set fabric.dims=[100,100]
tests/specs/mesh-32x32.yaml|--set fabric.dims=[320,320]
specs/wse2.yaml|--set fabric.grid=[2400,3150]
$tmp/clos16.yaml|
$tmp/clos24.yaml|
LIST
# the coarse boxes say what they hold: CloudMatrix384 at 768 nodes has
# 192 racks in 8 ranges whose NPUs add up to all 6,144
expect 0 "render cm384 768 nodes" -- "$FABRICX" render specs/cm384.yaml --set fabric.nodes=768 --set fabric.l2_ports=768 -o "$tmp/c768.dot"
[ "$(grep -o 'racks [0-9]*–[0-9]*\\n[0-9,]* nodes · [0-9,]* NPUs' "$tmp/c768.dot" | sed 's/.* \([0-9,]*\) NPUs/\1/; s/,//g' | awk '{ s += $1 } END { print NR, s }')" = "8 6144" ] &&
	ok || bad "cm384 768 nodes: rack ranges: $(grep -o 'label="racks[^"]*"' "$tmp/c768.dot" | head -3 | tr '\n' ' ')"
# and a k=56 fat-tree is its k = 56 pods of k/2 = 28 leaves, 28
# aggregation switches and k^2/4 = 784 hosts, under (k/2)^2 = 784 cores
expect 0 "render fat-tree k=56" -- "$FABRICX" render specs/fat-tree-k8.yaml --set fabric.k=56 -o "$tmp/k56.dot"
[ "$(grep -c 'label="pod [0-9]*\\n98 nodes · 784 devices · 28 leaf · 28 agg' "$tmp/k56.dot")" = 56 ] &&
	grep -q 'label="784 core' "$tmp/k56.dot" && ok ||
	bad "fat-tree k=56: pods: $(grep -o 'label="[^"]*"' "$tmp/k56.dot" | head -3 | tr '\n' ' ')"
# a dragonfly's groups, every two joined, on a circle (pinned, neato)
expect 0 "render dragonfly" -- "$FABRICX" render specs/dragonfly-1056.yaml -o "$tmp/df.dot" --json
[ "$(grep -c 'pos="[-0-9.]*,[-0-9.]*!"' "$tmp/df.dot")" = 33 ] && grep -q 'layout=neato' "$tmp/df.dot" && ok ||
	bad "dragonfly: 33 groups not pinned on a circle"

# --scale (issue 32): relative draws each edge's width as 1 + 5 u / u_max
# (the busiest at full width), absolute as 1 + 5 u (the fraction of link
# capacity, a fixed ramp); a 256 KiB ring allreduce on DGX-1 keeps its
# busiest link 21% busy.  Checked edge by edge (16) in the DOT.
widths() {  # DOT util_max: "ok" when every drawn edge's penwidth is 1 + 5 u / max
	awk -v max="$2" 'BEGIN { u = -1 } / -- / { u = -1; w = -1 } /penwidth=/ { v = $0; sub(/.*penwidth=/, "", v); w = v + 0 }
		/^[[:space:]]*util=/ { v = $0; sub(/.*util=/, "", v); u = v + 0 }
		/\];/ && u >= 0 { n++; d = w - (1 + 5 * u / max); if (d > 0.006 || d < -0.006) bad++; u = -1 }
		END { print (n == 16 && !bad) ? "ok" : n " edges, " bad " off" }' "$1"
}
expect 0 "render --scale relative" -- "$FABRICX" render specs/dgx1.yaml --view loads --pattern allreduce --size 256KiB -o "$tmp/rel.dot"
umax=$(grep -o 'util_max=[0-9.]*' "$tmp/rel.dot" | cut -d= -f2)
grep -q 'util_scale=relative' "$tmp/rel.dot" && [ "$(widths "$tmp/rel.dot" "$umax")" = ok ] &&
	awk -v u="$umax" 'BEGIN { exit !(u > 0.05 && u < 0.3) }' && ok || bad "--scale relative: util_max $umax, $(widths "$tmp/rel.dot" "$umax")"
expect 0 "render --scale absolute" -- "$FABRICX" render specs/dgx1.yaml --view loads --pattern allreduce --size 256KiB --scale absolute -o "$tmp/abs.dot"
grep -q 'util_scale=absolute' "$tmp/abs.dot" && grep -q 'util_max=1.0000' "$tmp/abs.dot" &&
	[ "$(widths "$tmp/abs.dot" 1)" = ok ] && grep -q '(absolute scale)' "$tmp/abs.dot" && ok ||
	bad "--scale absolute: $(widths "$tmp/abs.dot" 1)"
# side by side and before/after a failure: absolute unless told otherwise
expect 0 "render side by side loads" -- "$FABRICX" render specs/fat-tree-k8.yaml specs/cm384.yaml --view loads -o "$tmp/sa.dot"
[ "$(grep -c 'util_scale=absolute' "$tmp/sa.dot")" = 2 ] && ! grep -q 'util_scale=relative' "$tmp/sa.dot" && ok || bad "side by side: not absolute"
expect 0 "render side by side --scale relative" -- "$FABRICX" render specs/fat-tree-k8.yaml specs/cm384.yaml --view loads --scale relative -o "$tmp/sr.dot"
[ "$(grep -c 'util_scale=relative' "$tmp/sr.dot")" = 2 ] && ok || bad "side by side --scale relative"
expect 2 "render --scale bogus" -- "$FABRICX" render specs/cm384.yaml --view loads --scale bogus
has "--scale takes relative or absolute" "--scale bogus message"
expect 2 "render --scale without loads" -- "$FABRICX" render specs/cm384.yaml --scale absolute
# the caption names the collective, its size, algorithm and timing mode,
# and render's default is explore's: all-to-all direct 32 MiB
expect 0 "render loads caption" -- "$FABRICX" render specs/cm384.yaml --view loads -o "$tmp/cap.dot"
grep -q 'loads: all-to-all 32 MiB per rank, direct, 384 ranks, timing bound: ' "$tmp/cap.dot" && ok ||
	bad "loads caption: $(grep -o 'loads: [^<]*' "$tmp/cap.dot")"
expect 0 "explore loads caption" -- "$FABRICX" explore specs/cm384.yaml --skip placement,plan,failures --out "$tmp/ex"
sed 's/&#45;/-/g' "$tmp/ex/cm384/loads.svg" >"$tmp/ex.svg"
[ "$(grep -o 'loads: all-to-all [^<]*' "$tmp/ex.svg")" = "$(grep -o 'loads: all-to-all [^<]*' "$tmp/cap.dot")" ] && ok ||
	bad "explore loads caption: $(grep -o 'loads: [^<]*' "$tmp/ex.svg")"

# UB planes as parallel columns (issue 32 item 2): CloudMatrix384's DOT has
# 7 plane clusters, cluster i holding plane i's 16 L2 chips and its 48 L1
# chips (one per node), wired to each other alone, and the L1s to the nodes
# (20 links a node: 8 NPUs x 2 + 4 CPUs x 1); kept when coarsened (768 nodes)
for sets in "" "--set fabric.nodes=768 --set fabric.l2_ports=768"; do
	# shellcheck disable=SC2086
	expect 0 "render cm384 $sets" -- "$FABRICX" render specs/cm384.yaml $sets -o "$tmp/ub.dot"
	case $sets in *768*) n=768 ;; *) n=48 ;; esac  # L1 chips a plane: one a node
	got=$(awk '/subgraph cluster_plane/ { p = $2; sub(/cluster_plane/, "", p) }
		/label="L[12] plane [0-9]*\\n[0-9]* chips/ { v = $0; sub(/.*label="/, "", v); split(v, a, "\\\\n"); print p ": " a[1] ", " a[2] }' "$tmp/ub.dot" |
		awk -v n="$n" '{ split($0, q, ": "); pl = q[1] } $0 ~ "^" pl ": L2 plane " pl ", 16 chips$" { l2++ } $0 ~ "^" pl ": L1 plane " pl ", " n " chips$" { l1++ } END { print l2 + 0, l1 + 0 }')
	[ "$(grep -c 'subgraph cluster_plane' "$tmp/ub.dot")" = 7 ] && [ "$got" = "7 7" ] && ok ||
		bad "cm384 $sets: plane columns: $(grep -c 'subgraph cluster_plane' "$tmp/ub.dot") clusters, L2/L1 in their own: $got"
done
expect 0 "render cm384 columns" -- "$FABRICX" render specs/cm384.yaml -o "$tmp/ub.dot"
[ "$(grep -c 'label="768 x 28 GB/s' "$tmp/ub.dot")" = 7 ] && [ "$(grep -c '(20 per node)' "$tmp/ub.dot")" = 7 ] && ok ||
	bad "cm384: plane edges: $(grep -o 'label="[0-9,]* [^"]*"' "$tmp/ub.dot" | sort | uniq -c | tr '\n' ' ')"

# fat-tree pods as pods (issue 32 item 2): a k=8 fat-tree's racks of 32
# hosts hold two pods each, so the drawing's boxes are the pods the core
# tier joins (found from the graph): 8 pods of k/2 = 4 leaves, 4
# aggregation switches and k^2/4 = 16 hosts, under the (k/2)^2 = 16 core
# switches, whose k^3/4 = 128 links reach 16 a pod
expect 0 "render fat-tree pods" -- "$FABRICX" render specs/fat-tree-k8.yaml -o "$tmp/pods.dot"
[ "$(grep -c 'label="pod [0-7]\\n2 nodes · 16 devices · 4 leaf · 4 agg' "$tmp/pods.dot")" = 8 ] &&
	grep -q 'label="16 core' "$tmp/pods.dot" && grep -q 'label="128 x 50 GB/s\\n= 6.4 TB/s\\n(16 per pod)"' "$tmp/pods.dot" && ok ||
	bad "fat-tree pods: $(grep -o 'label="[^"]*"' "$tmp/pods.dot" | head -4 | tr '\n' ' ')"
# where pods are racks (a leaf-spine's racks of one leaf) nothing changes
expect 0 "render leaf-spine racks" -- "$FABRICX" render tests/specs/leaf-spine-512.yaml -o "$tmp/ls.dot"
! grep -q 'label="pod ' "$tmp/ls.dot" && ok || bad "leaf-spine-512 drawn in pods"

# rack elevations (issue 32 item 2, --view racks): each rack a cluster
# (kind=, racks= it stands for), its boxes in rack order (class=, and per
# box devices=, cpus=, switch_chips=, units=), read off the DOT
rack_kinds() {  # DOT: "KIND RACKS ..." summed by kind, in order of first appearance
	awk '/subgraph cluster_rack/ { in_rack = 1 } in_rack && /^[[:space:]]*kind=/ { k = $0; sub(/.*kind=/, "", k); sub(/[,\]].*/, "", k) }
		in_rack && /^[[:space:]]*racks=/ { r = $0; sub(/.*racks=/, "", r); r += 0; if (!(k in n)) o[++m] = k; n[k] += r; in_rack = 0 }
		END { for (i = 1; i <= m; i++) printf "%s%s %d", (i > 1 ? " " : ""), o[i], n[o[i]]; print "" }' "$1"
}
rack_boxes() {  # DOT [sort]: "CLASS DEVICES CPUS SWITCH_CHIPS UNITS", a box a line, counted in runs
	awk '/(^[[:space:]]*|\[)(class|cpus|devices|switch_chips|units)=/ { v = $0; sub(/^.*\[/, "", v); sub(/^[[:space:]]*/, "", v); split(v, a, "=");
		sub(/[,\]].*/, "", a[2]); f[a[1]] = a[2]; if (a[1] == "units") print f["class"], f["devices"], f["cpus"], f["switch_chips"], f["units"] }' "$1" |
		if [ "${2:-}" = sort ]; then sort; else cat; fi | uniq -c | awk '{ $1 = $1; print }' | tr '\n' ';'
}
# CloudMatrix384: 16 racks, 12 compute of 4 nodes (8 NPUs, 4 CPUs, 7 L1
# chips each) and 4 network ("Lingqu bus") racks of 14 boxes of 2 L2 chips
# (hardware.md §1; specs/cm384.yaml packaging), as `fabricx bom` counts them
expect 0 "render cm384 racks" -- "$FABRICX" render specs/cm384.yaml --view racks -o "$tmp/racks.dot" --json
[ "$(rack_kinds "$tmp/racks.dot")" = "compute 12 network 4" ] && [ "$(jq .vertices_drawn "$tmp/out")" = 104 ] && ok ||
	bad "cm384 racks: $(rack_kinds "$tmp/racks.dot"), $(jq .vertices_drawn "$tmp/out") boxes"
[ "$(rack_boxes "$tmp/racks.dot" sort)" = "48 compute 8 4 7 1;56 switch 0 0 2 1;" ] && ok || bad "cm384 racks: boxes $(rack_boxes "$tmp/racks.dot" sort)"
"$FABRICX" bom specs/cm384.yaml --json >"$tmp/bom.json"
[ "$(jq -c '[.compute_racks, .network_racks, (.parts[]|select(.part == "switch box")|.count)]' "$tmp/bom.json")" = "[12,4,56]" ] && ok ||
	bad "cm384 bom: $(jq -c '[.compute_racks, .network_racks]' "$tmp/bom.json")"
grep -q 'label="rack 12 · network"' "$tmp/racks.dot" && grep -q 'label="switch box 55 · 2 L2"' "$tmp/racks.dot" && ok ||
	bad "cm384 racks: labels"
# GB200 NVL72: one rack of 18 compute trays (4 GPUs, 2 Grace CPUs each)
# and 9 switch trays of 2 NVSwitch chips (hardware.md §2, DGX GB200 user
# guide: 2 chips a tray, specs/nvl72.yaml packaging.switches), in the
# rack's physical order top to bottom: 10 compute trays, the 9 switch
# trays in the middle, 8 compute trays (bom/bom.c has the sources).  The
# DOT lists a rack's boxes top to bottom and chains them r0_0 -- r0_1 ...
expect 0 "render nvl72 racks" -- "$FABRICX" render specs/nvl72.yaml --view racks -o "$tmp/racks.dot"
[ "$(rack_kinds "$tmp/racks.dot")" = "compute 1" ] && [ "$(rack_boxes "$tmp/racks.dot")" = "10 compute 4 2 0 1;9 switch 0 0 2 1;8 compute 4 2 0 1;" ] && ok ||
	bad "nvl72 racks: $(rack_kinds "$tmp/racks.dot"): $(rack_boxes "$tmp/racks.dot")"
# the chain: node 9 above switch box 0, switch box 8 above node 10
lab() { awk -v n="$1" '$1 == n && /\[/ { f = 1 } f && /label=/ { sub(/.*label="/, ""); sub(/".*/, ""); print; exit }' "$tmp/racks.dot"; }
[ "$(lab r0_9)|$(lab r0_10)|$(lab r0_18)|$(lab r0_19)" = "node 9 · 4 GPU · 2 CPU|switch box 0 · 2 nvswitch|switch box 8 · 2 nvswitch|node 10 · 4 GPU · 2 CPU" ] &&
	grep -q 'r0_9 -- r0_10' "$tmp/racks.dot" && grep -q 'r0_18 -- r0_19' "$tmp/racks.dot" && ok ||
	bad "nvl72 racks: tray order: $(lab r0_9) / $(lab r0_10) / $(lab r0_18) / $(lab r0_19)"
"$FABRICX" bom specs/nvl72.yaml --json >"$tmp/bom.json"
[ "$(jq -c '[.parts[]|select(.part == "switch box")|[.type, .count]]' "$tmp/bom.json")" = '[["nvswitch",9]]' ] && ok ||
	bad "nvl72 bom: switch trays $(jq -c '[.parts[]|select(.part == "switch box")]' "$tmp/bom.json")"
# DGX-1's hybrid cube-mesh as NVIDIA draws it (issue 32 item 2): two fully
# joined quads (GPUs 0-3, 4-7; specs/dgx1.yaml) as a cube's front and back
# faces, each GPU joined to its partner in the other.  Read off the DOT's
# pinned positions: GPUs 0-3 on the front face (y <= 2.4 in), 4-7 on the
# back (y >= 3), gpu i+4 at gpu i's corner moved by the same (1.9, 3)
expect 0 "render dgx1 cube" -- "$FABRICX" render specs/dgx1.yaml -o "$tmp/cube.dot"
got=$(awk '/^\tgpu[0-7]\t\[/ { g = $1; sub(/gpu/, "", g) } /pos="/ && g != "" { p = $0; sub(/.*pos="/, "", p); sub(/!.*/, "", p); split(p, c, ","); x[g] = c[1]; y[g] = c[2]; g = "" }
	END { ok = 1; for (i = 0; i < 4; i++) { if (y[i] > 2.4 || y[i + 4] < 3) ok = 0; dx = x[i + 4] - x[i] - 1.9; dy = y[i + 4] - y[i] - 3; if (dx * dx + dy * dy > 1e-9) ok = 0 } print ok, length(x) }' "$tmp/cube.dot")
[ "$got" = "1 8" ] && grep -q 'a hybrid cube-mesh drawn as a cube' "$tmp/cube.dot" && ok || bad "dgx1 cube: $got: $(grep -o 'pos="[^"]*"' "$tmp/cube.dot" | tr '\n' ' ')"
# NVL72's NVSwitch domain in the physical view (issue 32 item 2): the 18
# chips drawn one by one, each with one edge to the 18 compute trays'
# area carrying its 72 links, one from each GPU (hardware.md §2: link i of
# every GPU to chip i; 4 GPUs a tray, so 4 per node)
expect 0 "render nvl72 chips fanned" -- "$FABRICX" render specs/nvl72.yaml -o "$tmp/nvl.dot" --json
[ "$(grep -c 'class=switch' "$tmp/nvl.dot")" = 18 ] &&
	[ "$(awk '/^\t"nvswitch\.[0-9]*" -- node0\t\[bandwidth=/ { c = $1 } /links=72,/ && c { n[c]++; c = "" } END { print length(n) }' "$tmp/nvl.dot")" = 18 ] &&
	grep -q 'each of the 18 switch chips drawn, every GPU wired to all of them' "$tmp/nvl.dot" && ok ||
	bad "nvl72 physical: $(grep -c 'class=switch' "$tmp/nvl.dot") chip boxes, $(grep -c 'links=72,' "$tmp/nvl.dot") edges of 72 links"
w=$(jq .vertices_drawn "$tmp/out"); [ "$w" = 36 ] && ok || bad "nvl72 physical: $w boxes, expected 18 nodes + 18 chips"
# HGX H100: one box, the baseboard's 8 GPUs and 4 NVSwitch chips
expect 0 "render hgx racks" -- "$FABRICX" render specs/hgx-h100.yaml --view racks -o "$tmp/racks.dot"
[ "$(rack_kinds "$tmp/racks.dot")" = "compute 1" ] && [ "$(rack_boxes "$tmp/racks.dot")" = "1 compute 8 0 4 1;" ] && ok ||
	bad "hgx racks: $(rack_kinds "$tmp/racks.dot"): $(rack_boxes "$tmp/racks.dot")"
# past 24 racks, alike neighbours are one column that counts them: 4,800
# CloudMatrix nodes are 1,200 compute racks and still the 4 network racks
expect 0 "render cm384 4800 racks" -- "$FABRICX" render specs/cm384.yaml --set fabric.nodes=4800 --set fabric.l2_ports=4800 --view racks -o "$tmp/racks.dot" --json
[ "$(rack_kinds "$tmp/racks.dot")" = "compute 1200 network 4" ] && [ "$(jq .aggregated "$tmp/out")" = true ] && ok ||
	bad "cm384 4800 racks: $(rack_kinds "$tmp/racks.dot")"
expect 2 "render racks side by side" -- "$FABRICX" render specs/cm384.yaml specs/nvl72.yaml --view racks --out "$tmp/o"
has "view racks draws one build" "racks side by side message"

# the wafer with its die grid (issue 32 item 2): fabric.dies [7, 12] splits
# the 757 x 996 PEs as evenly as whole PEs allow, die i along x holding
# ceil(757 i / 7) .. ceil(757 (i + 1) / 7) - 1: 109 + 6 x 108 columns, and
# 996 / 12 = 83 rows each.  Die 0 (109 x 83) has 108 x 83 + 109 x 82 =
# 17,902 links inside; 83 links join it to die 1 and 109 to die 7 (by hand)
expect 0 "render wse2 dies" -- "$FABRICX" render specs/wse2.yaml -o "$tmp/wafer.dot" --json
dies=$(awk '/subgraph cluster_wafer/ { w = 1 } w && /label="die [0-9]*\\n/ { n++ } END { print n + 0 }' "$tmp/wafer.dot")
[ "$dies" = 84 ] && [ "$(jq .vertices_drawn "$tmp/out")" = 84 ] && grep -q 'label="wafer: 7 × 12 dies"' "$tmp/wafer.dot" && ok ||
	bad "wse2: $dies dies in the wafer outline, $(jq .vertices_drawn "$tmp/out") boxes"
grep -q 'label="die 0\\n9,047 PEs (109×83)\\nx 0–108 · y 0–82\\ninside: 17,902 x 4.4 GB/s"' "$tmp/wafer.dot" &&
	grep -q 'label="die 83\\n8,964 PEs (108×83)\\nx 649–756 · y 913–995' "$tmp/wafer.dot" && ok ||
	bad "wse2 dies: $(grep -o 'label="die [08]3*\\n[^"]*"' "$tmp/wafer.dot" | tr '\n' ' ')"
pes=$(grep -o 'label="die [0-9]*\\n[0-9,]* PEs' "$tmp/wafer.dot" | sed 's/.*\\n//; s/ PEs//; s/,//g' | awk '{ s += $1 } END { print s }')
[ "$pes" = 753972 ] && ok || bad "wse2 dies hold $pes PEs, not 757 x 996 = 753,972"
[ "$(grep -c 'label="83 x 4.4 GB/s' "$tmp/wafer.dot")" = 72 ] && [ "$(grep -c 'label="10[89] x 4.4 GB/s' "$tmp/wafer.dot")" = 77 ] && ok ||
	bad "wse2 dies: 6 x 12 = 72 edges of 83 links across x, 7 x 11 = 77 of 108 or 109 across y"
# one die: one box; a bad die grid is an error at its place
expect 0 "render wse2 no dies" -- "$FABRICX" render specs/wse2.yaml --set 'fabric.dies=[1,1]' -o "$tmp/one.dot" --json
[ "$(jq .vertices_drawn "$tmp/out")" = 1 ] && ok || bad "wse2, one die: $(jq .vertices_drawn "$tmp/out") boxes"
expect 2 "dies of three numbers" -- "$FABRICX" metrics specs/wse2.yaml --set 'fabric.dies=[7,12,1]'
has "'fabric.dies' must be \\[X, Y\\], dies along x and y, got 3 numbers" "dies: two numbers"
# a sub-grid narrower than the dies (WaferLLM's P x P runs) is tiled as before
expect 0 "render a sub-grid" -- "$FABRICX" render specs/wse2.yaml --set 'fabric.grid=[6,996]' -o "$tmp/sub.dot" --json
[ "$(jq .vertices_drawn "$tmp/out")" = 48 ] && ! grep -q cluster_wafer "$tmp/sub.dot" && ok || bad "wse2 6 x 996: $(jq .vertices_drawn "$tmp/out") boxes"
expect 2 "dies on a mesh" -- "$FABRICX" metrics specs/wse2.yaml --set fabric.kind=mesh

summary "render tests"
