#!/bin/sh
# Pictures are bounded and reproducible (issue 32): every shipped and test
# spec, in every view render has (its own list, so a new view is checked
# by itself), draws as a PNG within 2,400 px each way and 3:1 either way,
# and the same input gives the same bytes twice.  The shipped specs are
# checked by drawing the gallery (docs/gallery.sh with CHECK=1, as `make
# gallery` draws it), the test specs here.
. "$(dirname "$0")/lib.sh"

views=$("$FABRICX" render specs/hgx-h100.yaml --view '?' 2>&1 | sed -n 's/.*(expected \(.*\))$/\1/p' | sed 's/, / /g; s/ or / /')
case " $views " in *" physical "*" floor racks "*) ok ;; *) bad "views asked of render: '$views'" ;; esac

# the gallery: every shipped spec in every view, and the side-by-side pages
if CHECK=1 OUT="$tmp/gallery" MD="$tmp/gallery.md" LINK=gallery FABRICX="$FABRICX" sh docs/gallery.sh >"$tmp/g.out" 2>"$tmp/g.err"; then ok; else
	bad "docs/gallery.sh: $(grep FAIL "$tmp/g.out" | head -5) $(tail -2 "$tmp/g.err")"
fi
gn=0
for spec in specs/*.yaml; do
	name=$(basename "$spec" .yaml)
	grep -qx "## $name" "$tmp/gallery.md" && ok || bad "gallery: no section for $spec"
	for view in $views; do
		if grep -q "^!\[$name $view\](gallery/$name-$view.png)$" "$tmp/gallery.md"; then
			[ -s "$tmp/gallery/$name-$view.png" ] && ok || bad "gallery: $name-$view.png not drawn"
			gn=$((gn + 1))
		else  # placement without a workload: said, not left out
			[ "$view" = placement ] && grep -q "^\*\*placement\*\*: not drawn, the spec has no" "$tmp/gallery.md" && ok ||
				bad "gallery: $spec $view neither drawn nor explained"
		fi
	done
done
# 20 shipped specs, 4 views each without a workload (physical, loads, floor, racks)
[ "$gn" -ge 80 ] && ok || bad "gallery: only $gn pictures"
[ "$(grep -c '^!\[side-\|^!\[cm384-planes\|^!\[cm384-plane-fails\|^!\[taper\|^!\[lattices' "$tmp/gallery.md")" -ge 4 ] && ok || bad "gallery: the side-by-side pages"

n=0
for spec in tests/specs/*.yaml; do
	for view in $views; do
		"$FABRICX" render "$spec" --view "$view" --format png -o "$tmp/a.png" --json >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ "$rc" = 2 ] && [ "$view" = placement ] && grep -q "no workload to place" "$tmp/err"; then
			continue  # no placement view without a workload
		fi
		if [ "$rc" != 0 ]; then bad "$spec $view: exit $rc: $(tail -1 "$tmp/err")"; continue; fi
		n=$((n + 1))
		w=$(jq .width_px "$tmp/out"); h=$(jq .height_px "$tmp/out")
		[ "$w" -le 2400 ] && [ "$h" -le 2400 ] && [ "$w" -le $((3 * h)) ] && [ "$h" -le $((3 * w)) ] &&
			ok || bad "$spec $view: $w x $h px (at most 2,400 and 3:1)"
		if ! "$FABRICX" render "$spec" --view "$view" --format png -o "$tmp/b.png" >/dev/null 2>"$tmp/err2"; then
			bad "$spec $view: the second run failed: $(tail -1 "$tmp/err2")"
		else
			cmp -s "$tmp/a.png" "$tmp/b.png" && ok || bad "$spec $view: two runs gave different PNGs"
		fi
	done
done
# 16 test specs draw physical, loads, floor and racks; some have a workload
[ "$n" -ge 64 ] && ok || bad "only $n pictures drawn"

# a box that lists fewer instances than it holds says how many more: the
# 32x32 mesh's racks hold 16 TP16 instances each, 4 listed
expect 0 "placement of the 32x32 mesh" -- "$FABRICX" render tests/specs/mesh-32x32.yaml --view placement -o "$tmp/m.dot"
[ "$(grep -c '+12 more (192 chips)' "$tmp/m.dot")" = 4 ] && ok || bad "mesh-32x32 placement: no '+12 more (192 chips)' in each of 4 racks"

# tiers from the graph when the spec gives none: the rail Clos's leaves
# (one hop from a GPU) and spines (two) are two groups, whatever their order
expect 0 "rail-512 tiers" -- "$FABRICX" render tests/specs/rail-512.yaml -o "$tmp/r.dot"
grep -q '"8 switch\\ntier 2 (by hops)' "$tmp/r.dot" && grep -q '"16 switch\\ntier 1 (by hops)' "$tmp/r.dot" && ok ||
	bad "rail-512: spines and leaves not drawn as tiers 2 and 1: $(grep -o 'label="[0-9]* switch[^"]*"' "$tmp/r.dot" | tr '\n' ' ')"

# legends are drawn shapes (table cells), not glyphs a converter's fonts may
# lack: no legend, chart or page legend uses a glyph
for args in "specs/hgx-h100.yaml" "specs/cm384.yaml --view loads" "specs/hgx-h100.yaml --view placement" \
	"specs/cm384.yaml --view loads --fail plane=0" "specs/hgx-h100.yaml specs/dgx1.yaml"; do
	# shellcheck disable=SC2086
	expect 0 "render $args" -- "$FABRICX" render $args -o "$tmp/g.dot"
	if grep -q '■\|⬢\|━\|▮\|▯\|□\|▣\|┈\|╌' "$tmp/g.dot"; then bad "render $args: a glyph in the legend"; else ok; fi
	grep -q 'FIXEDSIZE="TRUE"' "$tmp/g.dot" && ok || bad "render $args: no drawn swatch"
done

summary "picture tests"
