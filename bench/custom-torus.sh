#!/bin/sh
# Prints a W x H torus written out as a `custom` spec (no lattice
# structure for fabricx to use), for the bench:  sh bench/custom-torus.sh 64 64
w=$1; h=$2
echo "name: ctorus${w}x$h"
echo "fabric:"
echo "  kind: custom"
echo "  link: {bandwidth: 50 GB/s, latency: 200 ns, medium: copper}"
echo "  nodes:"
awk -v w="$w" -v h="$h" 'BEGIN { n = w * h
 for (i = 0; i < n; i++) printf "    - {name: v%d, type: device}\n", i
 print "  links:"
 for (i = 0; i < n; i++) { x = i % w; y = int(i / w)
   printf "    - {a: v%d, b: v%d}\n", i, y * w + (x + 1) % w
   printf "    - {a: v%d, b: v%d}\n", i, ((y + 1) % h) * w + x }
}'
