#!/bin/sh
# UB all-to-all (issue 31 item 2): the all-pairs sweep folded by the
# fabric's turn of its nodes (routing/sweep_fold.c), one push where there
# was one per node.  CM384 grown node by node; an L2 chip has a port per
# node (docs/spec.md, ub: nodes x l1_l2_links ports per L2 chip, and
# l1_l2_links is 1), so fabric.l2_ports = fabric.nodes.  Run from the
# repository root:
#   sh bench/ub-a2a.sh           (REPEAT runs a row, default 3)
# Prints the rows and the fitted exponent of CPU time over NPUs, for the
# shipped size to 768 nodes, then for 384 to 6,144 nodes.  Nothing here is
# a test: speed is measured, not asserted.
set -u
. bench/lib.sh

A2A="--pattern all-to-all --size 32MiB"
row() {
	one "UB all-to-all (\`collective specs/cm384.yaml --set fabric.nodes=N --set fabric.l2_ports=N $A2A\`), NPUs" $((8 * $1)) \
		collective specs/cm384.yaml --set fabric.nodes=$1 --set fabric.l2_ports=$1 $A2A
}
echo "| command | size | wall s | CPU s | peak MiB |"
echo "|---|---|---|---|---|"
for n in 48 96 192 384 768; do
	row $n
done
slope
for n in 384 768 1536 3072 6144; do
	row $n
done
slope
