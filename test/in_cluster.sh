#!/usr/bin/env bash
# Runs inside pg_virtualenv (PGHOST, PGPORT, PGUSER, PGPASSWORD are set).
# $1: directory for the suites' logs.
set -uo pipefail
log=$1
status=0

# The pg_cron scenario needs minutes of wall time: schedule it first and
# check it last, so the other suites run while it waits.
dropdb --if-exists mrfdp_tap >/dev/null 2>&1
createdb mrfdp_tap || exit 1
psql -X -q -d mrfdp_tap -c 'CREATE EXTENSION pgtap' -c 'CREATE EXTENSION mrfdp' || exit 1
psql -X -q -v ON_ERROR_STOP=1 -d mrfdp_tap -f test/cron/setup.sql >/dev/null || status=1

echo "-- pg_regress"
make -s PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config installcheck 2>&1 | tee "$log/regress.txt"
if [ "${PIPESTATUS[0]}" -ne 0 ]; then
	status=1
	[ -f regression.diffs ] && head -n 200 regression.diffs
fi

echo "-- pgTAP"
PGDATABASE=mrfdp_tap test/pgtap.sh session_preload 2>&1 | tee "$log/prove.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "-- pgTAP without the preload"
PGDATABASE=mrfdp_tap test/pgtap.sh no_preload 2>&1 | tee "$log/prove-nopreload.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
echo "-- pg_dump and pg_restore carry the ledger"
prove --exec bash test/dump/*.sh 2>&1 | tee "$log/prove-dump.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "-- the walk-through on BreastCancer (docs/walkthrough.md)"
prove --exec bash test/tables/*.sh 2>&1 | tee "$log/prove-tables-scripts.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "-- protect() warns of schemas other roles may create in"
prove --exec bash test/protected/*.sh 2>&1 | tee "$log/prove-protected-scripts.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "-- ALTER EXTENSION UPDATE from every released version"
prove --exec bash test/upgrade/*.sh 2>&1 | tee "$log/prove-upgrade.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "-- pg_cron scenario (waiting for three scheduled runs)"
test/cron/wait.sh mrfdp_tap 3 240 || status=1
PGDATABASE=mrfdp_tap test/pgtap.sh pg_cron 2>&1 | tee "$log/prove-cron.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
exit $status
