# Shared by the bench scripts (sourced: `. bench/lib.sh`): a scratch
# directory, whole-command timing and the scaling exponent, written once so
# every table is measured the same way.  Nothing here is a test: speed is
# measured, not asserted.
#
# CPU time (user + system) is the steady figure on a shared machine; wall
# time is printed beside it.  Each row is the median of REPEAT runs
# (default 3; a script may set its own default before sourcing).
FABRICX=${FABRICX:-./fabricx}
REPEAT=${REPEAT:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# FREE_CORES=1 (root only): measure as if the cores were this bench's.
# The kernel's autogroup gives every session an equal share of the CPUs
# whatever its number of processes, so on a shared machine a second
# worker gains nothing; with autogroup off and this script at nice -20,
# the other sessions' processes (nice 0 or 19) get about 1 % of a core
# (CFS weights: 88,761 for nice -20 against 1,024 for 0 and 15 for 19).
# The setting is put back on exit, however the script ends.
ag=/proc/sys/kernel/sched_autogroup_enabled
if [ "${FREE_CORES:-0}" = 1 ]; then
	if [ "$(id -u)" != 0 ] || [ ! -w "$ag" ]; then
		echo "FREE_CORES=1 needs root (it sets $ag and nice -20)" >&2
		exit 2
	fi
	ag_was=$(cat "$ag")
	trap 'echo "$ag_was" > "$ag"; rm -rf "$out"' EXIT
	trap 'exit 130' INT TERM HUP
	echo 0 > "$ag"
	renice -n -20 -p $$ >/dev/null
fi
: > "$out/fit"

# Open MPI for the benches that run mpirun (root allowed), on one machine:
# shared memory only, and the ob1 messaging layer, so Open MPI does not
# probe UCX first (that probe is 0.2 of the 0.4 s an empty MPI_Init +
# MPI_Finalize takes under mpirun -np 2 here).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_pml=ob1

# one NAME SIZE ARGS...: runs "$FABRICX" ARGS REPEAT times and prints
# "| NAME | SIZE | wall s | CPU s | peak MiB |" (medians, by CPU time),
# appending "SIZE cpu" to $out/fit for slope.  Exit 3 (proven infeasible)
# is a whole run and is timed; any other failure prints its exit status
# and the start of its message instead.
one() {
	name=$1 size=$2
	shift 2
	: > "$out/t"
	i=0
	while [ $i -lt "$REPEAT" ]; do
		/usr/bin/time -f "%e %U %S %M" -o "$out/one" "$FABRICX" "$@" >/dev/null 2>"$out/err"
		rc=$?
		if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
			echo "| $name | $size | exit $rc: $(head -c 120 "$out/err" | tr '\n' ' ') |"
			return
		fi
		cat "$out/one" >> "$out/t"
		i=$((i + 1))
	done
	awk '{ print $2 + $3, $1, $4 }' "$out/t" | sort -n | awk -v n="$name" -v s="$size" \
		-v fit="$out/fit" '{ c[NR] = $1; t[NR] = $2; m[NR] = $3 }
		END { k = int((NR + 1) / 2)
		      printf "| %s | %d | %.2f | %.2f | %.0f |\n", n, s, t[k], c[k], m[k] / 1024
		      printf "%d %s\n", s, c[k] >> fit }'
}

# slope: the exponent of CPU time over size for the rows since the last
# slope (least-squares slope of log CPU seconds over log size; runs under
# 0.05 s are start-up and left out), as a table row.
slope() {
	awk '$2 >= 0.05 { x = log($1); y = log($2); n++; sx += x; sy += y; sxx += x * x; sxy += x * y }
		END { if (n >= 2) printf "| exponent (%d sizes, CPU) | | | %.2f | |\n", n,
		      (n * sxy - sx * sy) / (n * sxx - sx * sx); else print "| exponent | | | (too fast to fit) | |" }' "$out/fit"
	: > "$out/fit"
}

# compile NAME: builds bench/NAME.c against build/libfabricx.a into $out/NAME
# (the benches that time one routine without the command around it).
compile() {
	cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 $(pkg-config --cflags igraph yaml-0.1) \
		-o "$out/$1" "bench/$1.c" build/libfabricx.a \
		$(pkg-config --libs igraph yaml-0.1 libcgraph libgvc) -lglpk -lm
}
