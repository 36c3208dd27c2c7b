#!/usr/bin/env bash
# Renders a model's graph with Debian's graphviz: runs a SQL script in a
# throwaway cluster (pg_virtualenv, mrfdp preloaded; MRFDP_DESTDIR selects a
# staged install, see scripts/pg_options.sh) whose last statement prints
# mrf_dot(...), and lays the DOT document out with neato.
#   scripts/render_dot.sh [script.sql] [out.svg]
# Default: scripts/housevotes_dot.sql into docs/housevotes.svg (the README's
# example; it needs the HouseVotes84 CSV, see scripts/housevotes.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
sql=${1:-scripts/housevotes_dot.sql}
out=${2:-docs/housevotes.svg}
command -v neato >/dev/null || { echo "neato not found: install graphviz (scripts/install-deps.sh)"; exit 1; }
. scripts/pg_options.sh
mkdir -p "$(dirname "$out")"
dot=$(mktemp)
trap 'rm -f "$dot"' EXIT
chmod 644 "$dot"
# the server runs as postgres: the script and the data are read by psql (the client)
pg_virtualenv -t "${PG_STAGED[@]}" -o session_preload_libraries=mrfdp \
	psql -X -q -At -v ON_ERROR_STOP=1 -f "$sql" > "$dot"
# the DOT document is the script's last output (pg_virtualenv adds its own lines)
awk '/^graph mrf \{/{buf=""; on=1} on{buf=buf $0 "\n"} /^\}$/{on=0} END{printf "%s", buf}' "$dot" |
	neato -Tsvg -o "$out"
echo "wrote $out"
