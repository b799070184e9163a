#!/bin/sh
# Plots that show the winner (issue 32): the HGX H100 allreduce size sweep
# drawn by plot/sweep.c, checked in the SVG text against the sweep's own
# tables (--json): every algorithm that ran is a series (ties merged into
# one "a = b" series, never drawn over each other), the fastest is circled
# at every size and named, each crossover the table computes is labelled
# with its size, the peak bus bandwidth is drawn.
. "$(dirname "$0")/lib.sh"

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "skip: plots (no gnuplot; make deps installs gnuplot-nox)"
	summary "plot tests"
	exit 0
fi
expect 0 "hgx sweep --plot" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce --sizes 8B:1GiB:x2 --plot "$tmp/s.svg" --json
cp "$tmp/out" "$tmp/s.json"
svg=$tmp/s.svg
titles=$(grep -o '<title>[^<]*</title>' "$svg" | sed 's/<[^>]*>//g')
# every algorithm that ran is in a series' title (alone or in a tie)
for a in $(jq -r '[.sweep[].algo]|unique|.[]' "$tmp/s.json"); do
	echo "$titles" | grep -Eq "^($a|$a = .*|.* = $a|.* = $a = .*)$" && ok || bad "algorithm $a not drawn"
done
# a tie is merged only where the table says the times are equal at every size
for t in $(echo "$titles" | grep ' = ' | grep -v ':' | sort -u | tr ' ' '~'); do
	a=$(echo "$t" | sed 's/~=~.*//'); b=$(echo "$t" | sed 's/.*~=~//')
	d=$(jq --arg a "$a" --arg b "$b" '[.sweep[]|select(.algo==$a)|.time_s] as $x | [.sweep[]|select(.algo==$b)|.time_s] as $y | [range($x|length)|($x[.]-$y[.])|fabs/($x[.])]|max' "$tmp/s.json")
	awk -v d="$d" 'BEGIN { exit !(d < 1e-9) }' && ok || bad "'$a = $b' merged, but their times differ by $d"
done
# ring and hier coincide on one NVSwitch node (hier has one level), and rhd
# and swing on 8 ranks: each pair one series
echo "$titles" | grep -qx "ring = hier" && ok || bad "ring and hier not merged: $(echo "$titles" | tr '\n' '|')"
# no series has a colour or marker another has: the curves' styles differ
styles=$(grep -o "stroke=\"rgb([^)]*)\"" "$svg" | sort -u | wc -l)
[ "$styles" -ge 4 ] && ok || bad "only $styles line colours"
# the fastest per size: circled at each of the 28 sizes in both panels
n=$(jq '.fastest|length' "$tmp/s.json")
[ "$n" = 28 ] && ok || bad "28 sizes in the fastest table, got $n"
for panel in a b; do
	c=$(awk 'index($0, "<title>fastest") && index($0, "'"$panel"'\" >") {f=1; next} f && /<g id="gnuplot_plot_/ {exit} f && /gpPt5/ {n++} END {print n+0}' "$svg")
	[ "$c" = $((n + 1)) ] && ok || bad "panel $panel: $c circles, expected $n and the legend's"
done
# the winner named on the plot: the table's fastest (rhd at every size),
# in its tie's name
w=$(jq -r '[.fastest[].algo]|unique|join(",")' "$tmp/s.json")
[ "$w" = rhd ] && ok || bad "fastest: $w"
grep -q '<tspan font-family="Helvetica" >rhd = swing</tspan>' "$svg" && ok || bad "the winner not named"
# every crossover of the table labelled with its size (KiB, 3 digits); the
# table's four (ring/tree, hier/tree at 384 KiB; ring/dbtree, hier/dbtree at
# 896 KiB) are two crossings of the tie "ring = hier"
[ "$(jq '.crossovers|length' "$tmp/s.json")" = 4 ] && ok || bad "4 crossovers in the table"
for k in $(jq -r '.crossovers[].size_bytes' "$tmp/s.json"); do
	kib=$(awk -v b="$k" 'BEGIN { printf "%.3g", b / 1024 }')
	grep -q ": $kib KiB</tspan>" "$svg" && ok || bad "crossover at $k B ($kib KiB) not labelled"
done
[ "$(grep -c 'ring = hier / tree: 384 KiB\|ring = hier / dbtree: 896 KiB' "$svg")" = 2 ] && ok || bad "the two crossings of ring = hier"
# the peak bus bandwidth: the table's largest busbw
p=$(jq '[.sweep[].busbw_Bps]|max' "$tmp/s.json")
pg=$(awk -v b="$p" 'BEGIN { printf "%.4g", b / 1e9 }')
grep -q "<title>peak bus bandwidth $pg GB/s (rhd at 1 GiB)</title>" "$svg" && ok || bad "peak bus bandwidth $pg GB/s not drawn"
# sizes ticked at powers of two: 1 KiB, 1 MiB and 1 GiB and what lies
# between, every second power labelled (28 powers, at most 15 labels)
for t in "16 B" "256 B" "1 KiB" "4 KiB" "1 MiB" "1 GiB"; do
	grep -q ">$t</tspan>" "$svg" && ok || bad "no '$t' tick"
done
# what could not run is named, not hidden
grep -q "not run on this fabric (table sweep-skipped): torus" "$svg" && ok || bad "the skipped algorithms not named"

# a design space's plots (plot/scatter.c): the torus growth with a 200 kW
# cap: [12,12,12] (331,776 W) and [16,16,16] (786,432 W) fail it, the other
# four are the front.  Hollow circles for what fails (gnuplot's pt 6, SVG
# #gpPt5), filled for the front (pt 7, #gpPt6), the front labelled with
# each point's design; 64 to 4,096 devices span 64x: a log axis, said so;
# axis names read as words with their unit
expect 0 "explore torus-growth capped" -- "$FABRICX" explore specs/spaces/torus-growth.yaml --set 'space.constraints=[{metric: power_W, max: 200 kW}]' --out "$tmp/sp"
f="$tmp/sp/torus-growth/front-bisection_per_device_Bps-vs-devices.svg"
block() {  # block TITLE MARKER: MARKER's uses in the series titled TITLE
	awk -v t="<title>$1</title>" -v m="$2" 'index($0, t) {f=1; next} f && /<g id="gnuplot_plot_/ {exit} f && index($0, m) {n++} END {print n+0}' "$f"
}
[ "$(block infeasible "#gpPt5'")" = 3 ] && [ "$(block infeasible "#gpPt6'")" = 0 ] && ok || bad "infeasible: $(block infeasible "#gpPt5'") hollow, $(block infeasible "#gpPt6'") filled (2 points and the legend's, hollow)"
[ "$(block "Pareto front" "#gpPt6'")" = 5 ] && ok || bad "front: $(block "Pareto front" "#gpPt6'") filled points, expected 4 and the legend's"
for d in "[4, 4, 4]" "[6, 6, 6]" "[8, 8, 8]" "[10, 10, 10]"; do
	grep -qF ">$d</tspan>" "$f" && ok || bad "front point $d not labelled"
done
grep -qF ">[12, 12, 12]</tspan>" "$f" && bad "an infeasible point labelled as the front" || ok
grep -q ">devices (log)</tspan>" "$f" && ok || bad "devices not on a log axis"
grep -q ">bisection per device (GB/s)</tspan>" "$f" && ok || bad "y axis named as a raw field"
# the front joined: its series is drawn as a line through its points
awk '/<title>Pareto front<\/title>/ {f=1} f && /<path/ {print; exit}' "$f" | grep -q "path" && ok || bad "the front not joined"

summary "plot tests"
