#!/bin/sh
# Optical circuit switches joining cubes (issue 17, item 5; the chapter
# "Supernodes" §6.5.4): `fabric.ocs` on a torus of rack_shape cubes.
# Numbers from hardware.md §4 (TPU v4): 64 cubes of
# 4x4x4, 48 OCS, 16 per dimension, each taking the + and - faces of all 64
# cubes (128 of its 136 ports), 6,144 fibres (64 cubes x 6 faces x 16).
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

eq() {
	got=$(jq -c "$2" "$tmp/out" 2>/dev/null)
	if [ "$got" = "$1" ]; then ok; else bad "$3: got '$got', expected '$1'"; fi
}

pod=tests/specs/tpu-v4-pod-ocs.yaml
# shellcheck disable=SC2086
expect 0 "pod with OCS" -- "$FABRICX" metrics $pod --json
eq '{"cube":"4x4x4","ocs_switches":48,"ocs_ports_used":128,"ocs_ports":136,"ocs_fibres":6144}' '.ocs' "TPU v4: 48 OCS, 128 of 136 ports, 6,144 fibres"
# one cube alone: its own wrap-around links still go through the 48
# switches, 2 ports each (its + and - faces)
# shellcheck disable=SC2086
expect 0 "one cube with OCS" -- "$FABRICX" metrics $pod --set 'fabric.dims=[4,4,4]' --json
eq '[48,2,96]' '[.ocs.ocs_switches,.ocs.ocs_ports_used,.ocs.ocs_fibres]' "one cube: 48 switches of 2 ports"
# two links per neighbour: twice the switches (2 x 3 x 16 = 96)
# shellcheck disable=SC2086
expect 0 "two links per neighbour" -- "$FABRICX" metrics $pod --set fabric.links_per_neighbor=2 --json
eq '96' '.ocs.ocs_switches' "links_per_neighbor 2: 96 switches"
expect 0 "no ocs: no record" -- "$FABRICX" metrics tests/specs/tpu-v4-pod.yaml --json
eq 'null' '.ocs' "without fabric.ocs no ocs record"
# shellcheck disable=SC2086
expect 2 "ocs on a mesh" -- "$FABRICX" metrics $pod --set fabric.kind=mesh
has "unknown key 'ocs' in 'fabric'" "ocs on a mesh: a torus key only"

# Slices take whole cubes wherever they are (the OCS makes any cubes
# neighbours): 8x8x8 jobs need 8 cubes each.  One busy chip spoils its
# cube: 63 idle cubes hold 7 jobs, not 8 (56 <= 63 < 64).
# shellcheck disable=SC2086
expect 3 "8 jobs, one busy chip" -- "$FABRICX" slice $pod --shape 8x8x8 --jobs 8 --busy x=0,y=0,z=0
first "fabricx: infeasible: 8 jobs of 8x8x8 chips need 64 idle cubes; 63 are wholly idle" "63 idle cubes"
# shellcheck disable=SC2086
expect 0 "7 jobs, one busy chip" -- "$FABRICX" slice $pod --shape 8x8x8 --jobs 7 --busy x=0,y=0,z=0 --json
eq '[63,8]' '[.idle_cubes,.cubes_per_job]' "63 idle cubes, 8 per job"
# a failed chip (the spec's failures:) is never idle: the same 63
# shellcheck disable=SC2086
expect 3 "8 jobs, one failed chip" -- "$FABRICX" slice $pod --set 'failures=["x=5,y=5,z=5"]' --shape 8x8x8 --jobs 8
first "fabricx: infeasible: 8 jobs of 8x8x8 chips need 64 idle cubes; 63 are wholly idle" "a failed chip spoils its cube"

# The physical view draws the OCS (issue #32 item 2): one box per
# dimension under the 64 cube boxes, its switches and fibres counted as
# above (16 switches x 128 ports used = 2,048 fibres per dimension, 6,144
# in all); the cube-to-cube optical edges are named as circuits.
# shellcheck disable=SC2086
expect 0 "physical view with OCS" -- "$FABRICX" render $pod --format dot -o "$tmp/ocs.dot"
n=$(grep -c 'class=ocs' "$tmp/ocs.dot")
[ "$n" = 3 ] && ok || bad "OCS view: $n OCS boxes, expected 3 (x, y, z)"
sw=$(sed -n 's/.*ocs_switches=\([0-9]*\).*/\1/p' "$tmp/ocs.dot" | awk '{s += $1} END {print s}')
fi_=$(sed -n 's/.*ocs_fibres=\([0-9]*\).*/\1/p' "$tmp/ocs.dot" | awk '{s += $1} END {print s}')
[ "$sw" = 48 ] && ok || bad "OCS view: $sw switches drawn, expected 48"
[ "$fi_" = 6144 ] && ok || bad "OCS view: $fi_ fibres drawn, expected 6,144"
grep -q 'rack63' "$tmp/ocs.dot" && ok || bad "OCS view: the 64 cube boxes are not drawn"
grep -q 'circuits through the 48 optical circuit switches' "$tmp/ocs.dot" && ok || bad "OCS view: no caption"
# two links per neighbour: 32 switches a dimension
# shellcheck disable=SC2086
expect 0 "OCS view, 2 links per neighbour" -- "$FABRICX" render $pod --set fabric.links_per_neighbor=2 --format dot -o "$tmp/ocs2.dot"
grep -q 'ocs_switches=32' "$tmp/ocs2.dot" && ok || bad "OCS view: links_per_neighbor 2 gives no 32-switch box"
# without fabric.ocs: no OCS box
expect 0 "no OCS view without ocs" -- "$FABRICX" render tests/specs/tpu-v4-pod.yaml --format dot -o "$tmp/no.dot"
grep -q 'class=ocs' "$tmp/no.dot" && bad "an OCS box without fabric.ocs" || ok

summary "ocs tests"
