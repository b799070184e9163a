#!/bin/sh
# make install / uninstall into a scratch prefix: the installed library
# links docs/example.c through pkg-config (shared and static) and gives the
# figures the CLI reports; the man page renders without warnings; the bash
# completion completes commands and options; uninstall removes it all.
#
#   MAKE=make BUILD=build FABRICX=/path/to/fabricx sh tests/cli/install.sh
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
p=$tmp/prefix
spec=specs/torus-8x8x8.yaml

expect 0 "make install" -- $MAKE --no-print-directory -s BUILD="$BUILD" install PREFIX="$p" DESTDIR=
for f in bin/fabricx lib/libfabricx.a lib/libfabricx.so.0.1.0 lib/pkgconfig/fabricx.pc \
	 include/fabricx/fabricx.h include/fabricx/design/design.h include/fabricx/core/diag.h include/fabricx/core/version.h \
	 share/man/man1/fabricx.1 share/bash-completion/completions/fabricx; do
	[ -f "$p/$f" ] && ok || bad "install: no $f"
done
# the shared library under its soname: libfabricx.so (for -lfabricx) links
# to libfabricx.so.0, the name programs load, which links to the file
[ "$(readlink "$p/lib/libfabricx.so")" = libfabricx.so.0 ] && ok || bad "install: lib/libfabricx.so -> '$(readlink "$p/lib/libfabricx.so")'"
[ "$(readlink "$p/lib/libfabricx.so.0")" = libfabricx.so.0.1.0 ] && ok || bad "install: lib/libfabricx.so.0 -> '$(readlink "$p/lib/libfabricx.so.0")'"
if command -v readelf >/dev/null 2>&1; then
	readelf -d "$p/lib/libfabricx.so.0.1.0" | grep -q 'SONAME.*\[libfabricx\.so\.0\]' && ok || bad "install: soname is not libfabricx.so.0"
fi

# ---- the public API (issue #26) ----
# only fabricx.h and what it includes: no private header of a module
priv=$(cd "$p/include/fabricx" && find . \( -name '*internal*.h' -o -path './cli/*' \) | sort | tr '\n' ' ')
[ -z "$priv" ] && ok || bad "install: private headers installed: $priv"
export PKG_CONFIG_PATH="$p/lib/pkgconfig"
# each installed header compiles alone (plain C11, no feature macros),
# from the installed ones only (a public header that includes a header not
# installed fails here)
for h in $(cd "$p/include/fabricx" && find . -name '*.h' | sed 's|^\./||' | sort); do
	printf '#include <%s>\nint fx_install_probe;\n' "$h" > "$tmp/probe.c"
	# shellcheck disable=SC2046
	if ${CC:-cc} -std=c11 -Wall -Wextra -Werror -fsyntax-only \
		$(pkg-config --cflags fabricx) "$tmp/probe.c" 2>"$tmp/err"; then ok; else
		bad "installed header $h does not compile alone"; head -3 "$tmp/err"; fi
done
# every header fabricx.h reaches is installed, and no other: the closure
# of its quoted includes, walked in the source tree, is what install wrote
closure() {
	todo=fabricx.h; seen=
	while [ -n "$todo" ]; do
		# shellcheck disable=SC2086
		set -- $todo; h=$1; shift; todo="$*"
		case " $seen " in *" $h "*) continue;; esac
		seen="$seen $h"
		for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$h"); do
			todo="$todo $(realpath -m --relative-to=. "$(dirname "$h")/$inc")"
		done
	done
	# shellcheck disable=SC2086
	printf '%s\n' $seen | sort | tr '\n' ' '
}
want_hdr=$(closure)
got_hdr=$(cd "$p/include/fabricx" && find . -name '*.h' | sed 's|^\./||' | sort | tr '\n' ' ')
[ "$want_hdr" = "$got_hdr" ] && ok || bad "installed headers '$got_hdr', fabricx.h reaches '$want_hdr'"
# the library exports no sanitizer hook (one would set the leak policy of
# every program that links it; cli/san_hooks.c has them, for the programs)
if command -v nm >/dev/null 2>&1; then
	nm -D --defined-only "$p/lib/libfabricx.so.0.1.0" > "$tmp/syms"
	grep -q ' T fx_design_load$' "$tmp/syms" && ok || bad "nm -D: no fx_design_load (the check below would prove nothing)"
	hooks=$(grep -i 'lsan\|asan\|ubsan' "$tmp/syms" | tr '\n' ' ')
	[ -z "$hooks" ] && ok || bad "libfabricx.so exports sanitizer hooks: $hooks"
fi
# one release everywhere: fabricx.h's FX_VERSION and its parts, the library
# it runs with, fabricx.pc and `fabricx --version`
printf '%s\n' '#include <fabricx.h>' '#include <stdio.h>' '#include <string.h>' \
	'int main(void)' '{' '	char parts[64];' \
	'	snprintf(parts, sizeof parts, "%d.%d.%d", FX_VERSION_MAJOR, FX_VERSION_MINOR, FX_VERSION_PATCH);' \
	'	printf("%s %s %s\n", FX_VERSION, parts, fx_version_release());' \
	'	return strcmp(FX_VERSION, parts) != 0 || strcmp(FX_VERSION, fx_version_release()) != 0;' \
	'}' > "$tmp/ver.c"
# shellcheck disable=SC2046
expect 0 "version probe builds" -- ${CC:-cc} -o "$tmp/ver" "$tmp/ver.c" $(pkg-config --cflags --libs fabricx)
LD_LIBRARY_PATH="$p/lib" "$tmp/ver" > "$tmp/ver.out" && ok || bad "FX_VERSION is not MAJOR.MINOR.PATCH or not the library's: $(cat "$tmp/ver.out")"
hv=$(sed 's/ .*//' "$tmp/ver.out")
case $hv in [0-9]*.[0-9]*.[0-9]*) ok;; *) bad "FX_VERSION is '$hv'";; esac
[ "$(pkg-config --modversion fabricx)" = "$hv" ] && ok ||
	bad "fabricx.pc says $(pkg-config --modversion fabricx), fabricx.h says '$hv'"
[ "$("$p/bin/fabricx" --version | awk '{print $2}')" = "$hv" ] && ok ||
	bad "fabricx --version says '$("$p/bin/fabricx" --version)', fabricx.h says '$hv'"

# the example against the installed library, as a user would build it: a
# copy outside the tree, so nothing but the installed headers is in reach
cp docs/example.c "$tmp/example.c"
want_bis=$("$FABRICX" metrics --json "$spec" --out "$tmp/o" | jq .bisection_bandwidth_Bps)
want_a2a=$("$FABRICX" collective --json --pattern all-to-all --size '32 MiB' "$spec" --out "$tmp/o" |
	   jq .time_s)
# same NAME WANT: the example's line NAME equals WANT to the digits JSON keeps
same() {
	got=$(sed -n "s/^$1 //p" "$tmp/out")
	if awk -v a="$got" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-7 * (b < 0 ? -b : b)) }'
	then ok; else bad "example $3: $1 is '$got', the CLI says '$2'"; fi
}
# shellcheck disable=SC2046
expect 0 "example builds (shared)" -- ${CC:-cc} -o "$tmp/ex" "$tmp/example.c" $(pkg-config --cflags --libs fabricx)
LD_LIBRARY_PATH="$p/lib" expect 0 "example runs (shared)" -- "$tmp/ex" "$spec"
if command -v readelf >/dev/null 2>&1; then
	readelf -d "$tmp/ex" | grep -q 'NEEDED.*\[libfabricx\.so\.0\]' && ok || bad "the example does not load libfabricx.so.0"
fi
same bisection_bandwidth_Bps "$want_bis" shared
same all_to_all_time_s "$want_a2a" shared
# libfabricx.a with the libraries it needs as shared ones (`pkg-config
# --static` fails on Debian 12: igraph.pc names arpack and plfit, which are
# not installed)
static_libs=$(pkg-config --libs fabricx yaml-0.1 libcgraph libgvc | sed 's/-lfabricx/-Wl,-Bstatic -lfabricx -Wl,-Bdynamic/')
static_libs="$static_libs -lglpk -lm"
# shellcheck disable=SC2046,SC2086
expect 0 "example builds (static)" -- ${CC:-cc} -o "$tmp/ex-static" "$tmp/example.c" $(pkg-config --cflags fabricx) $static_libs
expect 0 "example runs (static)" -- "$tmp/ex-static" "$spec"
same bisection_bandwidth_Bps "$want_bis" static
same all_to_all_time_s "$want_a2a" static
expect 2 "example on a bad spec" -- "$tmp/ex-static" "$spec" 'fabric.dims=[0]'

# a design-space point through the library (docs/example_space.c): point 1
# of torus-growth (6x6x6) and the all-to-all time its points.csv row holds,
# read by field name from the reports' captured tables, no CLI in between
cp docs/example_space.c "$tmp/example_space.c"
# shellcheck disable=SC2046
expect 0 "space example builds (shared)" -- ${CC:-cc} -o "$tmp/exs" "$tmp/example_space.c" $(pkg-config --cflags --libs fabricx)
sp=specs/spaces/torus-growth.yaml
a2a='collectives[pattern=all-to-all].time_s'
expect 0 "space example: the CLI's points" -- "$FABRICX" explore "$sp" --no-diagrams --out "$tmp/sp" --set "space.metrics=[devices, \"$a2a\"]"
row=$(sed -n 3p "$tmp/sp/torus-growth/points.csv" | sed 's/"[^"]*"//')  # the quoted dims out
LD_LIBRARY_PATH="$p/lib" expect 0 "space example runs" -- "$tmp/exs" "$sp" 1 devices "$a2a"
grep -q '^point 1: feasible$' "$tmp/out" && ok || bad "space example: point 1 is not feasible"
same devices "$(echo "$row" | cut -d, -f3)" "space point"
same "collectives\[pattern=all-to-all\]\.time_s" "$(echo "$row" | cut -d, -f4)" "space point"
LD_LIBRARY_PATH="$p/lib" expect 2 "space example: no such point" -- "$tmp/exs" "$sp" 6 devices

if command -v man >/dev/null 2>&1; then
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p/share/man/man1/fabricx.1" >"$tmp/out" 2>"$tmp/err"
	[ ! -s "$tmp/err" ] && ok || { bad "man -l warns"; head -5 "$tmp/err"; }
	grep -q "collective" "$tmp/out" && grep -q -- "--max-memory" "$tmp/out" && ok || bad "man page lacks commands or options"
else
	echo "install.sh: no man(1) here; the man page is not rendered"
fi

if command -v bash >/dev/null 2>&1; then
	comp() {
		bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _fabricx; echo "${COMPREPLY[*]}"' \
		     sh "$p/share/bash-completion/completions/fabricx" "$@"
	}
	[ "$(comp fabricx met)" = metrics ] && ok || bad "completion of 'met': '$(comp fabricx met)'"
	[ "$(comp fabricx collective --pat)" = --pattern ] && ok ||
		bad "completion of 'collective --pat': '$(comp fabricx collective --pat)'"
	[ "$(comp fabricx metrics --c)" = --cut ] && ok || bad "completion of 'metrics --c'"
else
	echo "install.sh: no bash here; completion not tried"
fi

expect 0 "make uninstall" -- $MAKE --no-print-directory -s BUILD="$BUILD" uninstall PREFIX="$p" DESTDIR=
[ -z "$(ls -A "$p")" ] && ok || bad "uninstall left: $(cd "$p" && find . | head -5)"

# DESTDIR stages under another root, the paths inside still the PREFIX's
expect 0 "make install DESTDIR" -- $MAKE --no-print-directory -s BUILD="$BUILD" install PREFIX=/opt/fx DESTDIR="$tmp/stage"
grep -q '^prefix=/opt/fx$' "$tmp/stage/opt/fx/lib/pkgconfig/fabricx.pc" && ok || bad "DESTDIR: fabricx.pc prefix"
expect 0 "make uninstall DESTDIR" -- $MAKE --no-print-directory -s BUILD="$BUILD" uninstall PREFIX=/opt/fx DESTDIR="$tmp/stage"
[ -z "$(ls -A "$tmp/stage/opt/fx")" ] && ok || bad "DESTDIR uninstall left files"

# ---- install roots are data (issue #25) ----
# a space is part of the name: nothing lands in ./fix or $tmp/pre, and
# fabricx.pc escapes it as pkg-config reads it
q="$tmp/pre fix"
expect 0 "make install PREFIX with a space" -- $MAKE --no-print-directory -s BUILD="$BUILD" install PREFIX="$q" DESTDIR=
[ -f "$q/bin/fabricx" ] && [ ! -e fix ] && [ ! -e "$tmp/pre" ] && ok || bad "PREFIX with a space: split ($(ls -A "$tmp" | tr '\n' ' '))"
grep -q '^prefix=.*/pre\\ fix$' "$q/lib/pkgconfig/fabricx.pc" && ok || bad "fabricx.pc: $(grep ^prefix "$q/lib/pkgconfig/fabricx.pc")"
# uninstalling "nowhere other" removes nothing of the installation in other
expect 0 "make install (other)" -- $MAKE --no-print-directory -s BUILD="$BUILD" install PREFIX="$tmp/other" DESTDIR=
expect 0 "make uninstall of two words" -- $MAKE --no-print-directory -s BUILD="$BUILD" uninstall PREFIX="$tmp/nowhere $tmp/other" DESTDIR=
[ -f "$tmp/other/bin/fabricx" ] && [ -f "$tmp/other/lib/libfabricx.a" ] && ok || bad "uninstall of '$tmp/nowhere $tmp/other' removed another installation"
# ';', '$(...)', backquotes and a quote run nothing in the recipes' shell
# (make reads '$' in a value given to it as its own syntax, so the shell's
# '$(...)' is written '$$(...)' here; h is the name the shell is handed)
h="$tmp/h;touch $tmp/pwned1;\$(touch $tmp/pwned2)\`touch $tmp/pwned3\`'"
hm=$(printf '%s' "$h" | sed 's/\$/$$/g')
expect 0 "make install PREFIX with ; \$(...) \` '" -- $MAKE --no-print-directory -s BUILD="$BUILD" install PREFIX="$hm" DESTDIR=
[ -f "$h/bin/fabricx" ] && ok || bad "hostile PREFIX: not installed under its name"
expect 0 "make uninstall PREFIX with ; \$(...) \` '" -- $MAKE --no-print-directory -s BUILD="$BUILD" uninstall PREFIX="$hm" DESTDIR=
[ ! -e "$h/bin/fabricx" ] && ok || bad "hostile PREFIX: not uninstalled"
[ -z "$(ls "$tmp" | grep pwned)" ] && [ ! -e pwned1 ] && ok || bad "a PREFIX ran a command: $(ls "$tmp" | grep pwned)"
# refused: / however spelt, a relative PREFIX, a newline (under a scratch
# DESTDIR, so a check that let one through would touch only that)
for p in / // /usr/.. /./ relative "$(printf '/opt/a\nb')"; do
	expect 2 "make uninstall PREFIX='$p'" -- $MAKE --no-print-directory -s BUILD="$BUILD" uninstall PREFIX="$p" DESTDIR="$tmp/stage2"
	has "refused\|must be an absolute path" "PREFIX='$p' refused"
done
# install checks the same roots (a PREFIX of / under a scratch DESTDIR)
for p in / /usr/.. "$(printf '/opt/a\nb')"; do
	expect 2 "make install PREFIX='$p'" -- $MAKE --no-print-directory -s BUILD="$BUILD" install PREFIX="$p" DESTDIR="$tmp/stage3"
	[ ! -e "$tmp/stage3" ] && ok || bad "make install PREFIX='$p' wrote $(ls -A "$tmp/stage3")"
done
expect 2 "make uninstall DESTDIR=/" -- $MAKE --no-print-directory -s BUILD="$BUILD" uninstall PREFIX=/nonexistent-fx DESTDIR=/
has "refused" "DESTDIR=/ refused"
expect 2 "make uninstall DESTDIR with a newline" -- $MAKE --no-print-directory -s BUILD="$BUILD" uninstall PREFIX=/opt/fx DESTDIR="$(printf '%s\nx' "$tmp/stage2")"
has "newline" "DESTDIR with a newline refused"

summary "install tests"
