#!/bin/sh
# NetworkX as fabricx's peer (tests/peer/networkx_check.py): every shipped
# and test spec of up to 2,100 vertices exported to GraphML and GML, and
# NetworkX's own counts, hop histograms and max-flow checked against
# fabricx's.  Needs Debian's python3-networkx: skipped without it, unless
# PEER_REQUIRED=1 (CI), where a missing peer fails.
cd "$(dirname "$0")/../.." || exit 1
FABRICX=${FABRICX:-./fabricx}
PY=/usr/bin/python3   # Debian's, which python3-networkx installs into
[ -x "$PY" ] || PY=python3
if ! "$PY" -c 'import networkx' 2>/dev/null; then
	if [ "${PEER_REQUIRED:-0}" = 1 ]; then
		echo "networkx peer: python3-networkx is not installed (apt-get install python3-networkx)" >&2
		exit 1
	fi
	echo "networkx peer: skipped (no python3-networkx)"
	exit 0
fi
"$PY" -u tests/peer/networkx_check.py "$FABRICX" specs/*.yaml tests/specs/*.yaml
