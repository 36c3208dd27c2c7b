#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 cluster (pg_virtualenv; its server runs as
# postgres) in one server configuration and runs the tests that need it,
# writing each suite's log into LOGDIR (test/run_all_tests.sh counts them).
#   session  mrfdp in session_preload_libraries, pg_cron in
#            shared_preload_libraries: pg_regress, the pgTAP files of
#            session_preload, no_preload and pg_cron, dump and upgrade tests
#            (test/in_cluster.sh)
#   shared   mrfdp in shared_preload_libraries: the shared_preload pgTAP files
#   stock    no setting at all: pg_regress (make installcheck) alone, which
#            must pass on a stock server
#   subject  the files of one subject, test/$MRFDP_SUBJECT/ (make
#            check-subject S=<subject>): its pgTAP files in the
#            configurations they name, its TAP scripts (*.sh)
# Usage: test/run_cluster.sh session|shared|stock|subject LOGDIR.  MRFDP_DESTDIR
# tests a staged install (scripts/pg_options.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/lib/postgresql/15/bin:$PATH
. scripts/pg_options.sh
config=${1:?session, shared or stock}
log=${2:?log directory}
mkdir -p "$log"

# pg_virtualenv picks a free port, but two starting at once can collide:
# retry a start that failed on a port conflict.
virtualenv() {
	local out attempt
	for attempt in 1 2 3 4 5; do
		out=$(mktemp)
		pg_virtualenv -t "${PG_STAGED[@]}" "$@" 2>&1 | tee "$out"
		st=${PIPESTATUS[0]}
		if [ "$st" -ne 0 ] && grep -q 'Port conflict\|could not bind\|could not create any TCP/IP sockets' "$out" &&
			! grep -q '^ok \|^not ok \|tests passed\|tests failed' "$out"; then
			rm -f "$out"
			sleep $((attempt * 3))
			continue
		fi
		rm -f "$out"
		return "$st"
	done
	return "$st"
}

case "$config" in
	session)
		virtualenv -o session_preload_libraries=mrfdp \
			-o shared_preload_libraries=pg_cron -o cron.database_name=mrfdp_tap \
			-o cron.use_background_workers=on -o max_worker_processes=32 \
			bash test/in_cluster.sh "$log" ;;
	shared)
		virtualenv -o shared_preload_libraries=mrfdp \
			sh -c 'createdb mrfdp_shared && psql -X -q -d mrfdp_shared -c "CREATE EXTENSION pgtap" -c "CREATE EXTENSION mrfdp" &&
				PGDATABASE=mrfdp_shared test/pgtap.sh shared_preload' >"$log/prove-shared.txt" 2>&1
		st=$?
		cat "$log/prove-shared.txt"
		exit $st ;;
	stock)
		virtualenv sh -c 'make -s PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config installcheck' >"$log/regress-stock.txt" 2>&1
		st=$?
		cat "$log/regress-stock.txt"
		[ $st -eq 0 ] || { [ -f regression.diffs ] && head -n 200 regression.diffs; }
		exit $st ;;
	subject)
		s=${MRFDP_SUBJECT:?MRFDP_SUBJECT names the subject}
		st=0
		if [ -n "$(test/pgtap.sh --list session_preload)$(test/pgtap.sh --list no_preload)$(ls test/"$s"/*.sh 2>/dev/null)" ]; then
			virtualenv -o session_preload_libraries=mrfdp bash test/in_subject.sh "$log" || st=1
		fi
		if [ -n "$(test/pgtap.sh --list shared_preload)" ]; then
			virtualenv -o shared_preload_libraries=mrfdp \
				sh -c 'createdb mrfdp_shared && psql -X -q -d mrfdp_shared -c "CREATE EXTENSION pgtap" -c "CREATE EXTENSION mrfdp" &&
					PGDATABASE=mrfdp_shared test/pgtap.sh shared_preload' || st=1
		fi
		exit $st ;;
	*)
		echo "unknown configuration $config" >&2
		exit 2 ;;
esac
