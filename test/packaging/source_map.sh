#!/usr/bin/env bash
# TAP: src/README.md's map is the tree.  Every C file under src/ is named in
# the map (by its path within its folder: "src/core/", "src/pg/ledger/", ...),
# every file the map names exists, and the numerical core includes no
# PostgreSQL header.  prove --exec bash test/packaging/*.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
n=0
. test/dump/tap.bash
echo "1..3"

# The map: the fenced block of src/README.md's "The map".  A line that starts
# in column 0 with a path ending in / opens a folder; the words of a line
# that end in .c or .h are files of the current folder.
map=$(awk '/^## The map/ { on = 1 } on && /^```/ { f++; next } on && f == 1' src/README.md |
	awk '
		/^src\/[^ ]*\/ / || /^src\/[^ ]*\/$/ { dir = $1; next }
		/^src\/[^ ]*\.c/ { print $1; next }
		{
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^[a-z_]+\.(c|h)$/) print dir $i
				else if (i == 1) break
			}
		}' | sort -u)

missing=""
for f in $(find src -name '*.c' | sort); do
	grep -qxF "$f" <<<"$map" || missing="$missing $f"
done
is "${missing:-none}" "none" "every C file under src/ is in src/README.md's map"

stale=""
for f in $map; do
	[ -f "$f" ] || stale="$stale $f"
done
is "${stale:-none}" "none" "every file src/README.md's map names exists"

# PostgreSQL's headers: postgres.h, fmgr.h and the server's include tree.
pg=$(grep -nE '^#[[:space:]]*include[[:space:]]*[<"](postgres|postgres_ext|fmgr|funcapi|miscadmin|c|pg_config)\.h[">]|^#[[:space:]]*include[[:space:]]*[<"](access|catalog|executor|nodes|utils|storage|lib|commands|parser|optimizer|tcop|postmaster|replication|port)/' src/core/*.c src/core/*.h)
is "${pg:-none}" "none" "src/core includes no PostgreSQL header"
