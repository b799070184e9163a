#!/bin/sh
# Diagrams against the fabric's size (issue 31 item 1: explore with its
# diagrams on a k=56 or k=64 fat-tree in at most 5 s).  explore with and
# without its diagrams (--skip diagrams) and `render --view physical` to
# SVG, on fat-trees of k = 28 .. 64 and CloudMatrix384 at 768 nodes; then
# what each drawing holds (boxes, edges, engine; from --format dot --json).
# Run from the repository root:  sh bench/diagrams.sh
# (FABRICX=path/to/an/older/fabricx times another build; REPEAT=1 for one
# run a row; ONLY=REGEX keeps the fabrics whose name matches).  Nothing
# here is a test: speed is measured, not asserted; tests/cli/render.sh
# counts what is drawn.
set -u
. bench/lib.sh

cases() {  # NAME|DEVICES|ARGS|EXPLORE ARGS: one line per fabric
	all_cases | grep -E -- "${ONLY:-.}"
}
all_cases() {
	echo "fat-tree k=28|5488|specs/fat-tree-k8.yaml --set fabric.k=28"
	echo "fat-tree k=32|8192|specs/fat-tree-k8.yaml --set fabric.k=32"
	echo "fat-tree k=48|27648|specs/fat-tree-k8.yaml --set fabric.k=48"
	echo "fat-tree k=56|43904|specs/fat-tree-k8.yaml --set fabric.k=56"
	echo "fat-tree k=64|65536|specs/fat-tree-k8.yaml --set fabric.k=64"
	# (its failures section declines, exit 4: 769 classes of switch chips)
	echo "cm384 768 nodes|6144|specs/cm384.yaml --set fabric.nodes=768 --set fabric.l2_ports=768|--skip failures"
}

echo "| command | devices | wall s | CPU s | peak MiB |"
echo "|---|---|---|---|---|"
# (not `name`: one() sets it)
cases | while IFS='|' read -r fab n args ex; do
	skip=${ex:+ $ex}
	# shellcheck disable=SC2086
	one "explore $fab$skip" "$n" explore $args $ex --out "$out/o"
	# shellcheck disable=SC2086
	one "explore $fab$skip --skip diagrams" "$n" explore $args $ex --skip diagrams --out "$out/o"
	# shellcheck disable=SC2086
	one "render $fab --view physical" "$n" render $args --view physical -o "$out/p.svg"
done
echo
echo "| fabric | devices | view | boxes | edges | engine |"
echo "|---|---|---|---|---|---|"
cases | while IFS='|' read -r fab n args ex; do
	for view in physical loads; do
		# shellcheck disable=SC2086
		if "$FABRICX" render $args --view $view --format dot -o "$out/d.dot" --json >"$out/j" 2>/dev/null; then
			jq -r --arg f "$fab" --arg n "$n" --arg v "$view" \
				'"| \($f) | \($n) | \($v) | \(.vertices_drawn) | \(.edges_drawn) | \(.layout_engine) |"' "$out/j"
		else
			echo "| $fab | $n | $view | failed | | |"
		fi
	done
done
