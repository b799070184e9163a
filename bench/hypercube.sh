#!/bin/sh
# Prints a hypercube of 2^D devices as a `custom` spec, for the bench:
#   sh bench/hypercube.sh 12 > hc4096.yaml
d=$1
echo "name: hcube$d"
echo "fabric:"
echo "  kind: custom"
echo "  link: {bandwidth: 50 GB/s, latency: 200 ns, medium: copper}"
echo "  nodes:"
awk -v d="$d" 'BEGIN { n = 2^d
 for (i = 0; i < n; i++) printf "    - {name: v%d, type: device}\n", i
 print "  links:"
 for (i = 0; i < n; i++) for (b = 0; b < d; b++) { p = 2^b; if (int(i / p) % 2 == 0) printf "    - {a: v%d, b: v%d}\n", i, i + p }
}'
