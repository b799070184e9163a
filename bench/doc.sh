#!/bin/sh
# Rewrites the measured tables of docs/performance.md: every block between
# `<!-- bench: SCRIPT -->` and `<!-- /bench -->` is replaced by what
# `sh bench/SCRIPT` prints now, under a line with the date, the machine
# and the commit.  Run from the repository root after `make`:
#   sh bench/doc.sh              (also `make bench-doc`)
#   sh bench/doc.sh issue31.sh   (only the blocks of the scripts named)
# Nothing here is a test: speed is measured, not asserted.
set -u
doc=docs/performance.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for script in $(sed -n 's/^<!-- bench: \([a-z0-9_-]*\.sh\) -->$/\1/p' "$doc"); do
	if [ $# -gt 0 ] && ! printf ' %s ' "$@" | grep -q " $script "; then
		continue
	fi
	{
		printf 'Measured %s on %s (%s, %s cores, load average %s at the start), commit %s; REPEAT=%s.\n\n' \
			"$(date -u '+%Y-%m-%d %H:%M UTC')" "$(uname -n)" "$(uname -m)" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)" \
			"$(git describe --always --dirty 2>/dev/null || echo unknown)" "${REPEAT:-default}"
		sh "bench/$script"
	} > "$tmp/$script.md" || { echo "bench/$script failed" >&2; exit 1; }
	awk -v name="$script" -v table="$tmp/$script.md" '
		$0 == "<!-- bench: " name " -->" { print; while ((getline l < table) > 0) print l; skip = 1; next }
		skip && $0 == "<!-- /bench -->" { skip = 0 }
		!skip { print }' "$doc" > "$tmp/doc" && cp "$tmp/doc" "$doc"
	echo "bench/doc.sh: $script written into $doc" >&2
done
