#!/bin/sh
# fabricx render: output formats and pictures side by side (issue 18).
. "$(dirname "$0")/lib.sh"

# -o FILE: the format from the extension; a contradiction is refused
expect 0 "render -o x.png" -- "$FABRICX" render specs/dgx1.yaml -o "$tmp/x.png" --out "$tmp/o"
[ "$(head -c 4 "$tmp/x.png" | tail -c 3)" = PNG ] && ok || bad "render -o x.png: not a PNG"
expect 0 "render -o x.pdf" -- "$FABRICX" render specs/dgx1.yaml -o "$tmp/x.pdf" --out "$tmp/o"
[ "$(head -c 4 "$tmp/x.pdf")" = "%PDF" ] && ok || bad "render -o x.pdf: not a PDF"
expect 0 "render -o x.dot" -- "$FABRICX" render specs/dgx1.yaml -o "$tmp/x.dot" --out "$tmp/o"
grep -q "^graph fabric {" "$tmp/x.dot" && ok || bad "render -o x.dot: not DOT"
expect 2 "render -o x.png --format svg" -- "$FABRICX" render specs/dgx1.yaml -o "$tmp/y.png" --format svg --out "$tmp/o"
first "fabricx: error: render: '$tmp/y.png' says png but --format says svg (drop one)" "contradiction message"
[ ! -e "$tmp/y.png" ] && ok || bad "render -o y.png --format svg wrote a file"
expect 2 "render -o x.gif" -- "$FABRICX" render specs/dgx1.yaml -o "$tmp/x.gif" --out "$tmp/o"
has "cannot tell the format of" "unknown extension message"
expect 0 "render -o x.svg --format svg" -- "$FABRICX" render specs/dgx1.yaml -o "$tmp/x.svg" --format svg --out "$tmp/o"
grep -q "<svg" "$tmp/x.svg" && ok || bad "render -o x.svg: not SVG"

summary "render tests"
