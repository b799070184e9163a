# Shared by the CLI test scripts (sourced, not run): a scratch folder,
# pass/fail counting and the checks every script uses.  Leaves the working
# directory at the repository root.
FABRICX=${FABRICX:-./fabricx}
cd "$(dirname "$0")/../.." || exit 1
case $FABRICX in /*) ;; */*) FABRICX=$PWD/$FABRICX ;; esac  # tests may cd
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect STATUS DESCRIPTION -- COMMAND...: the exit status, with the
# command's stdout and stderr left in $tmp/out and $tmp/err
expect() {
	want=$1; what=$2; shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok; else
		bad "$what: exit $got, expected $want"; sed 's/^/    /' "$tmp/err" | head -5
	fi
}

# first LINE DESCRIPTION: the last command's stderr starts with exactly LINE
first() {
	if [ "$(head -n 1 "$tmp/err")" = "$1" ]; then ok; else
		bad "$2: got '$(head -n 1 "$tmp/err")'"
	fi
}

# has PATTERN DESCRIPTION: the last command's stderr holds PATTERN
has() {
	if grep -q -- "$1" "$tmp/err"; then ok; else
		bad "$2: stderr lacks '$1'"; sed 's/^/    /' "$tmp/err" | head -5
	fi
}

# summary NAME: the totals; the exit status says whether all passed
summary() {
	echo "$1: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
