#!/bin/sh
# CLI tests of the composite fabrics (scale-up domains + a scale-out
# network, issue 27) and the rail-clos kind: every command on the shipped
# composite specs, with the chapter's numbers where it gives them.
#
#   FABRICX=/path/to/fabricx sh tests/cli/composite.sh
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

for s in hgx-h100-x2-rail hgx-h100-x8-rail nvl72-x8 cm384-roce rail-clos-2048; do
	# explore's report in a folder of its own: no other command writes beside it
	expect 0 "explore $s" -- "$FABRICX" explore "specs/$s.yaml" --out "$tmp/x"
	[ -s "$tmp/x/$s/report.json" ] && ok || bad "explore $s: no report.json"
done

# the chapter "Supernodes" §6.5.1: a 16-card ring over two HGX servers, ~113 us
expect 0 "collective hgx-h100-x2-rail ring" -- "$FABRICX" collective specs/hgx-h100-x2-rail.yaml --pattern allreduce \
    --algo ring --size 10KiB --json --out "$tmp/o"
jq -e '.time_s > 113.1e-6 and .time_s < 113.3e-6 and .network_alpha_s == 3.76e-6' "$tmp/out" >/dev/null \
    && ok || bad "hgx-h100-x2 ring 10 KiB: $(jq .time_s "$tmp/out") s, not the chapter's ~113 us"

# place: TP16 spans the two servers (128 reductions of that ring a step)
expect 0 "place hgx-h100-x2-rail" -- "$FABRICX" place specs/hgx-h100-x2-rail.yaml --json --out "$tmp/o"
jq -e '.instances[0].nodes == 2 and (.instances[0].comm_time_s - 128 * 30 * (3.76e-6 + 640 / 48.94e9) | fabs) < 1e-9' \
    "$tmp/out" >/dev/null && ok || bad "place hgx-h100-x2: $(jq -c '.instances[0]' "$tmp/out")"
for s in nvl72-x8 cm384-roce hgx-h100-x8-rail; do
	expect 0 "place $s" -- "$FABRICX" place "specs/$s.yaml" --out "$tmp/o"
done

# compare under a cap: whole domains, the network shrunk to fit; no row of zeros
expect 0 "compare composites" -- "$FABRICX" compare specs/hgx-h100-x8-rail.yaml specs/nvl72-x8.yaml \
    specs/hgx-h100-x2-rail.yaml --power-cap 300kW --json --out "$tmp/o"
[ "$(jq -r '.builds[1].built_with' "$tmp/out")" = "fabric.domains=2 fabric.network.hosts=160" ] \
    && [ "$(jq '.builds[1].devices' "$tmp/out")" = 144 ] && ok || bad "compare nvl72-x8 under 300 kW: $(jq -c '.builds[1]' "$tmp/out")"
jq -e '[.builds[] | select(.devices == 0)] | length == 0' "$tmp/out" >/dev/null && ok || bad "compare printed a build of 0 devices"
# one domain shrinks by its own kind's rule (UB: whole nodes)
expect 0 "compare cm384-roce under 300 kW" -- "$FABRICX" compare specs/cm384-roce.yaml --power-cap 300kW --json --out "$tmp/o"
[ "$(jq -r '.builds[0].built_with' "$tmp/out")" = "fabric.domain.nodes=24 fabric.network.hosts=384" ] \
    && ok || bad "cm384-roce under 300 kW: $(jq -c '.builds[0]' "$tmp/out")"
expect 3 "compare cm384-roce under 10 kW" -- "$FABRICX" compare specs/cm384-roce.yaml --power-cap 10kW --out "$tmp/o"
has "not even 1 node" "cm384-roce under 10 kW"

# failures: a NIC, a spine, a rail leaf
for sel in nic=0 nic=0-7 "switch=17"; do
	expect 0 "failures hgx-h100-x2 --fail $sel" -- "$FABRICX" failures specs/hgx-h100-x2-rail.yaml --fail "$sel" --json --out "$tmp/o"
done
expect 0 "failures nvl72-x8" -- "$FABRICX" failures specs/nvl72-x8.yaml --fail nic=5 --json --out "$tmp/o"
jq -e '.failures[0].devices_cut_off == 1' "$tmp/out" >/dev/null && ok || bad "nvl72-x8 nic=5: $(jq -c '.failures[0]' "$tmp/out")"
expect 0 "failures cm384-roce" -- "$FABRICX" failures specs/cm384-roce.yaml --out "$tmp/o"
expect 2 "--fail nic= without NICs" -- "$FABRICX" metrics specs/hgx-h100.yaml --fail nic=0 --out "$tmp/o"
has "names NICs, but this fabric has none" "nic= on hgx-h100"
[ ! -s "$tmp/out" ] || ! grep -q "Fabric" "$tmp/out" && ok || bad "--fail nic= on hgx-h100 printed a report"

# routing policies on every command
expect 0 "metrics --routing pxn" -- "$FABRICX" explore specs/hgx-h100-x2-rail.yaml --routing pxn --out "$tmp/x2"
expect 2 "collective --routing pxn off a composite" -- "$FABRICX" collective specs/hgx-h100.yaml --pattern allreduce \
    --size 1KiB --routing pxn --out "$tmp/o"
has "relays between a composite's domains" "pxn on a non-composite"

# every command on the other kinds: custom graphs fail and shrink, tori shrink by racks
expect 0 "failures custom" -- "$FABRICX" failures tests/specs/leaf-spine-custom.yaml --out "$tmp/o"
expect 2 "compare custom without increment" -- "$FABRICX" compare tests/specs/leaf-spine-custom.yaml --power-cap 1kW \
    --set power.device=100W --out "$tmp/o"
has "give 'fabric.increment'" "custom compare refusal"
expect 0 "compare torus with rack_shape" -- "$FABRICX" compare tests/specs/tpu-v4-pod.yaml --power-cap 300kW \
    --set power.device=192W --json --out "$tmp/o"
[ "$(jq -r '.builds[0].built_with' "$tmp/out")" = "fabric.dims=[16,16,4]" ] && ok || bad "tpu-v4-pod under 300 kW: $(jq -c '.builds[0]' "$tmp/out")"

summary "composite tests"
