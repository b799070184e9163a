#!/bin/sh
# Prints a ring of N devices plus a random perfect matching (a random cubic
# graph: no structure for fabricx to use, an expander) as a compact
# `custom` spec, for the bisection bench:  sh bench/custom-cubic.sh 100000
# (N even; 100,000 devices and 150,000 links fit the 8 MiB spec limit).
n=$1; seed=${2:-1}
echo "name: cubic$n"
echo "fabric:"
echo "  kind: custom"
echo "  link: {bandwidth: 50 GB/s, latency: 200 ns}"
echo "  nodes:"
awk -v n="$n" -v seed="$seed" 'BEGIN { srand(seed)
 for (i = 0; i < n; i++) printf "  - {name: v%d, type: device}\n", i
 print "  links:"
 for (i = 0; i < n; i++) printf "  - {a: v%d, b: v%d}\n", i, (i + 1) % n
 for (i = 0; i < n; i++) p[i] = i
 for (i = n - 1; i > 0; i--) { j = int(rand() * (i + 1)); t = p[i]; p[i] = p[j]; p[j] = t }
 for (i = 0; i < n; i += 2) { a = p[i]; b = p[i + 1]
   if (b == (a + 1) % n || a == (b + 1) % n) continue
   printf "  - {a: v%d, b: v%d}\n", a, b }
}'
