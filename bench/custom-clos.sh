#!/bin/sh
# Prints a k-ary three-tier fat-tree (k^3/4 hosts) as a `custom` spec, the
# explicit-graph twin of `fat-tree` with `k: K`, for the ECMP benchmarks:
#   sh bench/custom-clos.sh 16 > clos1024.yaml
set -eu
k=${1:-16}
h=$((k / 2))
echo "name: custom-clos-k$k"
echo "description: k=$k fat-tree written as an explicit graph (bench/custom-clos.sh)"
echo "fabric:"
echo "  kind: custom"
echo "  link: {bandwidth: 400 Gbit/s, latency: 200 ns, medium: optical}"
echo "  nodes:"
awk -v k="$k" -v h="$h" 'BEGIN {
	for (i = 0; i < k * k * k / 4; i++) printf "    - {name: h%d, type: device}\n", i
	for (i = 0; i < k * h; i++) printf "    - {name: e%d, type: switch, role: edge, tier: 1, ports: %d}\n", i, k
	for (i = 0; i < k * h; i++) printf "    - {name: a%d, type: switch, role: aggregation, tier: 2, ports: %d}\n", i, k
	for (i = 0; i < h * h; i++) printf "    - {name: c%d, type: switch, role: core, tier: 3, ports: %d}\n", i, k
	print "  links:"
	for (i = 0; i < k * k * k / 4; i++) printf "    - {a: h%d, b: e%d}\n", i, int(i / h)
	for (p = 0; p < k; p++)
		for (e = 0; e < h; e++)
			for (a = 0; a < h; a++)
				printf "    - {a: e%d, b: a%d}\n", p * h + e, p * h + a
	for (p = 0; p < k; p++)
		for (a = 0; a < h; a++)
			for (c = 0; c < h; c++)
				printf "    - {a: a%d, b: c%d}\n", p * h + a, a * h + c
}'
