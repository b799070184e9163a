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

summary "bom tests"
