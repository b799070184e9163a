#!/bin/sh
# Writes fabricx(1) to stdout from the binary's own help: the command list
# of `fabricx --help` (cli/main.c's command table) and each command's
# `--help` (its usage and option table), so the page says what --help says.
#   sh docs/gen-man.sh ./fabricx > fabricx.1
set -eu
fx=$1
# roff: a backslash and a leading '.' or "'" would be read as requests
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
version=$("$fx" --version | sed -n 's/^fabricx \([^ ]*\).*/\1/p')
cat <<HEAD
.TH FABRICX 1 "" "fabricx $version" "User Commands"
.SH NAME
fabricx \- interconnect fabrics of AI supernodes: hop counts, cuts, link loads, power, placement
.SH SYNOPSIS
.B fabricx
.I COMMAND SPEC
.RI [ options ]
.br
.B fabricx help
.I COMMAND
.SH DESCRIPTION
fabricx reads a YAML spec of a fabric (see specs/ and docs/spec.md in the
source) and reports on it.  Each command below prints tables, or one JSON
object with
.BR \-\-json .
.SH COMMANDS
HEAD
"$fx" --help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\)  *\(.*\)$/\1\t\2/p' |
while IFS='	' read -r name summary; do
	printf '.TP\n.B %s\n%s\n' "$name" "$(printf '%s\n' "$summary" | esc)"
done
echo '.SH OPTIONS OF EACH COMMAND'
"$fx" --help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' |
while read -r name; do
	printf '.SS %s\n.nf\n' "$name"
	"$fx" "$name" --help | esc
	printf '.fi\n'
done
cat <<'TAIL'
.SH EXIT STATUS
0 ok, 1 internal error, 2 bad input, 3 infeasible, 4 not decided.
.SH SEE ALSO
The README and docs/ of the fabricx source; the library: fabricx.h,
.BR pkg-config (1)
.BR "" "module " fabricx .
TAIL
