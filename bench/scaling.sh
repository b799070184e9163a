#!/bin/sh
# Issue #15's "done when": every command's CPU time against fabric size,
# with the exponent (least-squares slope of log CPU seconds over log
# devices; runs under 0.05 s left out as start-up).  Two families grow to
# about a million devices: 3-D tori (dimension order) and fat-trees (split
# ECMP).  Collectives with many rounds are reported per round too (CPU /
# rounds), the issue's measure.  Median of REPEAT (default 1) runs.
# Run from the repository root after `make`:  sh bench/scaling.sh
# TORUS="16 32 64 100" FATTREE="16 32 64 100" override the sizes.
set -u
FABRICX=${FABRICX:-./fabricx}
REPEAT=${REPEAT:-1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# one NAME DEVICES ARGS...: prints a row, appends "devices cpu" to $out/fit
one() {
	name=$1 dev=$2
	shift 2
	: > "$out/t"
	i=0
	while [ $i -lt "$REPEAT" ]; do
		/usr/bin/time -f "%e %U %S %M" -o "$out/one" "$FABRICX" "$@" >/dev/null 2>"$out/err"
		rc=$?
		if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
			echo "| $name | $dev | exit $rc: $(head -c 120 "$out/err" | tr '\n' ' ') |"
			return
		fi
		cat "$out/one" >> "$out/t"
		i=$((i + 1))
	done
	awk '{ print $2 + $3, $1, $4 }' "$out/t" | sort -n | awk -v n="$name" -v d="$dev" \
		-v fit="$out/fit" '{ c[NR] = $1; t[NR] = $2; m[NR] = $3 }
		END { k = int((NR + 1) / 2)
		      printf "| %s | %d | %.2f | %.2f | %.0f |\n", n, d, t[k], c[k], m[k] / 1024
		      printf "%d %s\n", d, c[k] >> fit }'
}

slope() {
	awk '$2 >= 0.05 { x = log($1); y = log($2); n++; sx += x; sy += y; sxx += x * x; sxy += x * y }
		END { if (n >= 2) printf "| exponent (%d sizes, CPU) | | | %.2f | |\n", n,
		      (n * sxy - sx * sy) / (n * sxx - sx * sx); else print "| exponent | | | (too fast to fit) | |" }' "$out/fit"
	: > "$out/fit"
}

T=specs/torus-8x8x8.yaml
P='--set packaging.devices_per_node=1 --set packaging.nodes_per_rack=64'
F=specs/fat-tree-k8.yaml
echo "| command | devices | wall s | CPU s | peak MiB |"
echo "|---|---|---|---|---|"
: > "$out/fit"
for cmd in "metrics " "power " "collective --pattern all-to-all --size 32MiB" \
	   "collective --pattern allreduce --algo ring --size 64MiB" \
	   "collective --pattern allreduce --algo torus --size 64MiB" \
	   "failures --kind link" "explore --no-diagrams --out $out/x"; do
	for d in ${TORUS:-16 32 64 100}; do
		# shellcheck disable=SC2086
		one "torus: ${cmd%% --out*}" $((d * d * d)) ${cmd%% *} $T --set "fabric.dims=[$d,$d,$d]" $P ${cmd#* }
	done
	slope
done
for cmd in "metrics " "power " "collective --pattern all-to-all --size 32MiB" \
	   "collective --pattern allreduce --algo ring --size 64MiB" \
	   "failures --kind switch" "explore --no-diagrams --out $out/x"; do
	for k in ${FATTREE:-16 32 64 100}; do
		# shellcheck disable=SC2086
		one "fat-tree: ${cmd%% --out*}" $((k * k * k / 4)) ${cmd%% *} $F --set "fabric.k=$k" ${cmd#* }
	done
	slope
done
