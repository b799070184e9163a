#!/bin/sh
# fabricx bom (issue 32): the bill of materials against hardware.md's
# published counts, its JSON and CSV, and prices that carry their source.
. "$(dirname "$0")/lib.sh"

# CloudMatrix384 (hardware.md §1): 6,912 x 400G LPO of which 5,376 scale-up;
# specs/cm384.yaml is the UB scale-up fabric alone: 5,376 L1-L2 links, two
# per module at each end; 12 compute + 4 bus racks; 112 L2 chips in 56 boxes
expect 0 "bom cm384" -- "$FABRICX" bom specs/cm384.yaml --json
[ "$(jq -c '[.parts[]|select(.part=="module")|[.type,.count]]' "$tmp/out")" = '[["400G LPO",5376]]' ] && ok || bad "cm384: 5,376 scale-up LPO modules: $(jq -c '[.parts[]|select(.part=="module")]' "$tmp/out")"
[ "$(jq -c '[.racks,.compute_racks,.network_racks]' "$tmp/out")" = '[16,12,4]' ] && ok || bad "cm384: 16 racks (12 + 4): $(jq -c '[.racks,.compute_racks,.network_racks]' "$tmp/out")"
[ "$(jq -c '[.parts[]|select(.part=="switch box")|[.type,.count]]' "$tmp/out")" = '[["L2",56]]' ] && ok || bad "cm384: 56 L2 boxes"
[ "$(jq -c '[.link_classes[]|[.medium,.place,.links]]' "$tmp/out")" = '[["copper","in-node",6720],["optical","between racks",5376]]' ] && ok || bad "cm384 links by class: $(jq -c '.link_classes' "$tmp/out")"
[ "$(jq '.cost_usd' "$tmp/out")" = null ] && ok || bad "cm384: a cost without prices"

# the composite CM384 + RoCE (specs/cm384-roce.yaml): the 1,536 scale-out
# modules too, 6,912 in all (hardware.md §1), each 400G LPO carrying 2 links
expect 0 "bom cm384-roce" -- "$FABRICX" bom specs/cm384-roce.yaml --json
[ "$(jq -c '[.parts[]|select(.part=="module")|[.type,.count]]' "$tmp/out")" = '[["400G LPO (UB 2 x 224G)",5376],["400G LPO (RoCE 2 x 200G)",1536]]' ] && ok || bad "cm384-roce: 5,376 + 1,536 modules: $(jq -c '[.parts[]|select(.part=="module")]' "$tmp/out")"
[ "$(jq '[.parts[]|select(.part=="module")|.count]|add' "$tmp/out")" = 6912 ] && ok || bad "cm384-roce: 6,912 modules in all"

# NVL72 (hardware.md §2): 72 GPUs x 18 NVLink 5 links, each 2 lanes, a lane
# a twinax pair each way: 5,184 cables, NVIDIA's "about 5,000"
expect 0 "bom nvl72" -- "$FABRICX" bom specs/nvl72.yaml --json
[ "$(jq -c '[.parts[]|select(.part=="cable")|[.type,.count]]' "$tmp/out")" = '[["NVLink 5 twinax pair",5184]]' ] && ok || bad "nvl72: 5,184 spine cables: $(jq -c '[.parts[]|select(.part=="cable")]' "$tmp/out")"
[ "$(jq -c '[.link_classes[]|select(.place=="in-rack")|.links]' "$tmp/out")" = '[1296]' ] && ok || bad "nvl72: 1,296 in-rack links"
[ "$(jq '.racks' "$tmp/out")" = 1 ] && ok || bad "nvl72: one rack"

# prices: a cost, each price with its source; parts without one stay out
expect 0 "bom priced" -- "$FABRICX" bom specs/cm384.yaml --json --set 'bom.prices.rack={usd: 50000, source: "assumed: a test"}'
[ "$(jq -c '[.cost_usd,.parts_priced]' "$tmp/out")" = '[800000,2]' ] && ok || bad "16 racks x 50,000 USD: $(jq -c '[.cost_usd,.parts_priced]' "$tmp/out")"
[ "$(jq -r '[.parts[]|select(.part=="rack")|.price_source]|unique|.[0]' "$tmp/out")" = "assumed: a test" ] && ok || bad "price source carried"
expect 2 "bom price without a source" -- "$FABRICX" bom specs/cm384.yaml --set 'bom.prices.rack={usd: 50000}'
has "missing key 'bom.prices.rack.source'" "price without a source"
# a bad bom: map is refused by every command, not bom alone
expect 2 "metrics with a bad bom" -- "$FABRICX" metrics specs/nvl72.yaml --set 'bom.cables=[{type: x, cables_per_link: -1}]'

# --csv FILE: the parts table, raw numbers, SI-unit field names
expect 0 "bom --csv" -- "$FABRICX" bom specs/nvl72.yaml --csv "$tmp/bom.csv"
[ "$(head -1 "$tmp/bom.csv")" = "part,type,count,unit_price_usd,cost_usd,price_source,rule" ] && ok || bad "bom.csv header: $(head -1 "$tmp/bom.csv")"
grep -q '^cable,NVLink 5 twinax pair,5184,' "$tmp/bom.csv" && ok || bad "bom.csv: the cable line"
# text by default, the counting rule on each line
expect 0 "bom text" -- "$FABRICX" bom specs/nvl72.yaml
grep -q "4 per copper link leaving a node" "$tmp/out" && ok || bad "bom text: counting rule"

# floor plan (docs/spec.md 6g defaults, assumed): 8 racks a row, 0.6 m
# apart, rows 2.4 m apart, 1.5 m up and down at each end, 1 m in a rack.
# CM384: compute racks 0-11, bus racks 12-15 at positions 4-7 of row 1;
# each compute rack sends 112 links to each bus rack (5,376 / 48 pairs).
# By hand: along rows sum |p-q| over row 0 (p 0-7) = 16+18+22+28 = 84, over
# row 1 (p 0-3) = 10+14+18+22 = 64, 148 x 0.6 = 88.8 m; across rows 32 pairs
# x 2.4 = 76.8 m; rises 48 x 3 = 144 m: 309.6 m x 112 = 34,675.2 m of fibre.
expect 0 "bom cm384 floor" -- "$FABRICX" bom specs/cm384.yaml --json
[ "$(jq -c '[.rows,.racks_per_row,.fibre_length_m,.cable_length_m]' "$tmp/out")" = '[2,8,34675.2,0]' ] && ok || bad "cm384 floor: 2 rows, 34,675.2 m of fibre: $(jq -c '[.rows,.racks_per_row,.fibre_length_m,.cable_length_m]' "$tmp/out")"
# rack 0 (row 0, pos 0) to rack 12 (row 1, pos 4): 2.4 + 2.4 + 3 = 7.8 m
[ "$(jq -c '[.spans[]|select(.rack_a==0 and .rack_b==12)|[.links,.length_m]]' "$tmp/out")" = '[[112,7.8]]' ] && ok || bad "cm384 span 0-12: $(jq -c '[.spans[]|select(.rack_a==0 and .rack_b==12)]' "$tmp/out")"
# the 5 m band: pairs 9-12 (4.8 m), 10-12 (4.2), 10-13 (4.8), 11-12 (3.6),
# 11-13 (4.2), 11-14 (4.8): 6 x 112 = 672 fibres; the other 42 pairs in 10 m
[ "$(jq -c '[.lengths[]|select(.part=="fibre")|[.length_band_m,.count]]' "$tmp/out")" = '[[5,672],[10,4704]]' ] && ok || bad "cm384 fibre bands: $(jq -c '[.lengths[]|select(.part=="fibre")]' "$tmp/out")"
[ "$(jq -c '[.lengths[]|select(.part=="module")|[.length_band_m,.count]]' "$tmp/out")" = '[[5,672],[10,4704]]' ] && ok || bad "cm384 module bands"
[ "$(jq -c '[.floor[]|select(.rack==12)|[.kind,.row,.position,.x_m,.y_m]]' "$tmp/out")" = '[["network",1,4,2.4,2.4]]' ] && ok || bad "cm384 rack 12 on the floor: $(jq -c '.floor[12]' "$tmp/out")"
# a given floor: one row of 16, 0.5 m apart, no rise: rack 0 to 12 is 6 m
expect 0 "bom cm384 given floor" -- "$FABRICX" bom specs/cm384.yaml --json --set 'bom.floor={racks_per_row: 16, rack_width_m: 0.5, rise_m: 0}'
[ "$(jq -c '[.rows,(.spans[]|select(.rack_a==0 and .rack_b==12)|.length_m),.floor_plan]' "$tmp/out")" = '[1,6,"bom.floor"]' ] && ok || bad "given floor: $(jq -c '[.rows,.floor_plan]' "$tmp/out")"
expect 2 "bom floor, bad key" -- "$FABRICX" bom specs/cm384.yaml --set 'bom.floor={racks_per_rows: 16}'
has "unknown key 'racks_per_rows'" "floor: unknown key"
# NVL72: 5,184 spine cables in one rack at 1 m; power per GB/s of
# bisection: 120,060 W (power) over 36 x 900 GB/s = 32,400 GB/s: 3.7056 W
expect 0 "bom nvl72 lengths" -- "$FABRICX" bom specs/nvl72.yaml --json
[ "$(jq -c '[.lengths[]|[.part,.length_band_m,.count,.length_m]]' "$tmp/out")" = '[["cable",1,5184,5184]]' ] && ok || bad "nvl72 lengths: $(jq -c .lengths "$tmp/out")"
[ "$(jq -c '[.bisection_bandwidth_Bps,.power_W,(.power_per_bisection_GBps_W*1e4|round)]' "$tmp/out")" = '[32400000000000,120060,37056]' ] && ok || bad "nvl72 W per GB/s: $(jq -c '[.bisection_bandwidth_Bps,.power_W,.power_per_bisection_GBps_W]' "$tmp/out")"
# cost per GB/s: one rack at 3,240,000 USD (assumed) over 32,400 GB/s
expect 0 "bom nvl72 cost per GB/s" -- "$FABRICX" bom specs/nvl72.yaml --json --set 'bom.prices.rack={usd: 3240000, source: "assumed: a test"}'
[ "$(jq '.cost_per_bisection_GBps_usd' "$tmp/out")" = 100 ] && ok || bad "nvl72 cost per GB/s: $(jq .cost_per_bisection_GBps_usd "$tmp/out")"

# --view floor: the plan to scale (render/floor.c: a rack 0.8 inch wide,
# so 0.8 / 0.6 inch a metre): CM384's rack 12 at x = y = 2.4 m is at
# 2.4 x 1.333 x 72 = 230.4 pt; one bundle per rack pair, 48; the 4 pairs
# 7.8 m apart (0-12, 1-13, 2-14, 3-15) say so
expect 0 "render --view floor dot" -- "$FABRICX" render specs/cm384.yaml --view floor -o "$tmp/f.dot"
grep -q 'pos="230.40,-230.40"' "$tmp/f.dot" && ok || bad "floor: rack 12 not at 230.4 pt"
[ "$(grep -c -- ' -- ' "$tmp/f.dot")" = 48 ] && ok || bad "floor: $(grep -c -- ' -- ' "$tmp/f.dot") bundles, not 48"
[ "$(grep -c 'tooltip="112 x 7.8 m"' "$tmp/f.dot")" = 4 ] && ok || bad "floor: 4 bundles of 112 x 7.8 m"
grep -q '48 of 48 bundles drawn' "$tmp/f.dot" && ok || bad "floor: the legend's count"
# every spec's floor view is bounded and reproducible (tests/cli/pictures.sh
# draws every view); a floor made long and narrow on purpose (one rack a
# row) stays within 2,400 px and 3:1
expect 0 "render floor, one rack a row" -- "$FABRICX" render specs/cm384.yaml --view floor --set bom.floor.racks_per_row=1 -o "$tmp/t.png" --json
w=$(jq .width_px "$tmp/out"); h=$(jq .height_px "$tmp/out")
[ "$h" -le 2400 ] && [ "$h" -le $((3 * w)) ] && ok || bad "one rack a row: $w x $h px"
# the default floor is square: 66 racks of rail-clos-2048, sqrt(66 x 2.4 / 0.6) = 16.2, 17 a row
expect 0 "bom rail-clos square floor" -- "$FABRICX" bom specs/rail-clos-2048.yaml --json
[ "$(jq -c '[.racks,.racks_per_row,.rows]' "$tmp/out")" = '[66,17,4]' ] && ok || bad "rail-clos floor: $(jq -c '[.racks,.racks_per_row,.rows]' "$tmp/out")"
expect 2 "render floor side by side" -- "$FABRICX" render specs/cm384.yaml specs/nvl72.yaml --view floor
has "floor draws one build" "floor: one build"

# the bill as a design space's metric (cli/points.c runs the bom section):
# torus growth, 4 devices a node along x, 16 nodes (an x-y plane of 8x8 at
# 8^3) a rack.  [4,4,4]: one rack, 192 links less the 64 of the 16 nodes'
# x rings = 128 in-rack cables of 1 m.  [8,8,8]: 640 in-rack cables (1 m),
# and 64 z links between each pair of the 8 racks (z planes) in one row:
# 7 neighbours 0.6 + 3 = 3.6 m apart, the wrap 4.2 + 3 = 7.2 m:
# 640 + 64 x (7 x 3.6 + 7.2) = 2,713.6 m
expect 0 "explore with bom metrics" -- "$FABRICX" explore specs/spaces/torus-growth.yaml --set 'space.metrics=[cable_length_m, fibre_length_m]' --out "$tmp/sp"
p="$tmp/sp/torus-growth/points.csv"
col=$(head -1 "$p" | tr ',' '\n' | grep -n '^cable_length_m$' | cut -d: -f1)
val() { grep "^$1," "$p" | sed 's/"[^"]*"/X/g' | cut -d, -f"$col"; }
awk -v v="$(val 0)" 'BEGIN { exit !(v == 128) }' && ok || bad "[4,4,4] cable length: $(val 0)"
awk -v v="$(val 2)" 'BEGIN { exit !(v > 2713.6 - 1e-6 && v < 2713.6 + 1e-6) }' && ok || bad "[8,8,8] cable length: $(val 2)"
expect 0 "bom torus-8x8x8" -- "$FABRICX" bom specs/torus-8x8x8.yaml --json
[ "$(jq '.cable_length_m*10|round' "$tmp/out")" = 27136 ] && ok || bad "torus-8x8x8 cable length: $(jq .cable_length_m "$tmp/out")"

# compare --bom (cli/compare_bom.c): the bom report's fields as columns and
# --sort keys.  Prices assumed for the test: a rack 50,000 USD, a switch
# chip 1,000 USD.  By hand: NVL72 1 rack + 18 NVSwitch chips = 68,000 USD
# over its 32,400 GB/s of bisection (36 x 900 GB/s, above) = 2.0988 USD per
# GB/s, 5,184 cables (above), no modules; CM384 16 racks + 448 chips (7 L1
# x 48 nodes + 112 L2) = 1,248,000 USD, 5,376 modules (hardware.md §1)
expect 0 "compare --bom" -- "$FABRICX" compare specs/nvl72.yaml specs/cm384.yaml --json --bom cost_usd,cables --bom modules,cost_per_bisection_GBps_usd --sort -cost_usd --set 'bom.prices.rack={usd: 50000, source: "assumed: a test"}' --set 'bom.prices.switch_chip={usd: 1000, source: "assumed: a test"}'
[ "$(jq -c '[.builds[]|[.name,.cost_usd,.cables,.modules]]' "$tmp/out")" = '[["cm384",1248000,0,5376],["nvl72",68000,5184,0]]' ] && ok || bad "compare --bom: $(jq -c '[.builds[]|[.name,.cost_usd,.cables,.modules]]' "$tmp/out")"
[ "$(jq '.builds[]|select(.name=="nvl72")|.cost_per_bisection_GBps_usd*1e4|round' "$tmp/out")" = 20988 ] && ok || bad "compare --bom: nvl72 USD per GB/s: $(jq -c '.builds[]|select(.name=="nvl72")|.cost_per_bisection_GBps_usd' "$tmp/out")"
# without prices the cost is n/a (null), and W per GB/s is the bom's 3.7056
expect 0 "compare --bom, no prices" -- "$FABRICX" compare specs/nvl72.yaml --json --bom cost_usd,power_per_bisection_GBps_W
[ "$(jq -c '.builds[0]|[.cost_usd,(.power_per_bisection_GBps_W*1e4|round)]' "$tmp/out")" = '[null,37056]' ] && ok || bad "compare --bom no prices: $(jq -c '.builds[0]' "$tmp/out")"
expect 0 "compare --bom csv" -- "$FABRICX" compare specs/nvl72.yaml --bom switch_chips --csv "$tmp/c.csv"
head -1 "$tmp/c.csv" | grep -q ',switch_chips$' && ok || bad "compare --bom csv header: $(head -1 "$tmp/c.csv")"
expect 2 "compare --bom, bad field" -- "$FABRICX" compare specs/nvl72.yaml --bom cost_usd,cost
has "no bill-of-materials field 'cost' (one of: cost_usd," "compare --bom: bad field named"
expect 2 "compare --bom, bad field, json" -- "$FABRICX" compare specs/nvl72.yaml --bom nope --json
[ "$(jq .error.status "$tmp/out")" = 2 ] && ok || bad "compare --bom bad field: JSON error"

summary "bom tests"
