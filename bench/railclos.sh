#!/bin/sh
# rail-clos metrics against the endpoint count, and the composite specs'
# explore (issue 27: metrics at 100k endpoints in seconds).  Run from the
# repository root:  sh bench/railclos.sh
# Nothing here is a test: speed is measured, not asserted.
set -u
. bench/lib.sh

spec() {  # servers: three tiers, SUs of 32 servers x 8 rails, pods of 8 SUs
	cat > "$out/rc.yaml" <<YAML
name: rc
fabric: {kind: rail-clos, servers: $1, rails: 8, servers_per_leaf: 32, tiers: 3,
         sus_per_pod: 8, radix: 128, link: {bandwidth: 50 GB/s, latency: 500 ns}}
YAML
}
echo "| command | endpoints | wall s | CPU s | peak MiB |"
echo "|---|---|---|---|---|"
for s in 256 1024 4096 12800; do
	spec $s
	one "metrics, rail-clos three tiers" $((s * 8)) metrics "$out/rc.yaml" --out "$out/o"
done
slope
for s in hgx-h100-x2-rail hgx-h100-x8-rail nvl72-x8 cm384-roce; do
	one "explore $s" - explore "specs/$s.yaml" --out "$out/o"
done
