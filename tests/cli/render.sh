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
[ "$(sed -n 2p "$tmp/rec/dgx1/render.csv" | cut -d, -f4-10)" = "1,8,16,false,dot,," ] && ok || bad "render.csv row: $(sed -n 2p "$tmp/rec/dgx1/render.csv")"

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

summary "render tests"
