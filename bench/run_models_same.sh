#!/usr/bin/env bash
# Are the models of two builds bit-identical?  Runs bench/models_same.sql
# (every learner kind, method and form under mrfdp.test_seed) in a throwaway
# cluster against each staged install and diffs the text of the models.
#   MRFDP_DESTDIR=/tmp/dest-a ./scripts/build.sh   (in the old tree)
#   MRFDP_DESTDIR=/tmp/dest-b ./scripts/build.sh   (in the new tree)
#   bench/run_models_same.sh /tmp/dest-a /tmp/dest-b
# Exits 0 when every release is identical, 1 (and prints the diff) otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/lib/postgresql/15/bin:$PATH
[ $# -eq 2 ] || { echo "usage: $0 DESTDIR_A DESTDIR_B" >&2; exit 2; }
work=$(mktemp -d)
chmod 777 "$work"
n=0
for dest in "$1" "$2"; do
	n=$((n + 1))
	out="$work/models-$n.txt"
	for try in 1 2 3; do		# pg_virtualenv may collide on a port with another cluster
		(export MRFDP_DESTDIR=$dest; . scripts/pg_options.sh
		 pg_virtualenv -t "${PG_STAGED[@]}" -o session_preload_libraries=mrfdp -o max_worker_processes=32 \
			sh -c "createdb models && psql -X -q -d models -v out=$out -f bench/models_same.sql" \
			>"$work/log-$n.txt" 2>&1)
		[ -s "$out" ] && break
		sleep 3
	done
	[ -s "$out" ] || { echo "no models from $dest; see $work/log-$n.txt" >&2; exit 2; }
done
if diff "$work/models-1.txt" "$work/models-2.txt"; then
	echo "identical: $(grep -c . "$work/models-1.txt") lines (releases) from $1 and $2"
	exit 0
fi
exit 1
