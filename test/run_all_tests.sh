#!/usr/bin/env bash
# Runs every test of mrfdp on Debian 12 as root: installs packages, builds,
# runs the C unit tests, then starts a throwaway PostgreSQL 15 cluster
# (pg_virtualenv; the server runs as the postgres user) with mrfdp preloaded
# and runs the pg_regress and pgTAP suites.  Exits non-zero on any failure.
# MRFDP_DESTDIR=/some/dir tests a staged install instead of the system's.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/lib/postgresql/15/bin:$PATH
. scripts/pg_options.sh

./scripts/install-deps.sh || exit 1
make -s clean >/dev/null 2>&1
./scripts/build.sh || { echo "build failed"; exit 1; }

log=$(mktemp -d)
status=0

echo "== C unit tests"
make -s -C test/c check 2>&1 | tee "$log/c.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== packaging: META.json for PGXN, LICENSE"
prove --exec bash test/packaging/*.sh 2>&1 | tee "$log/prove-packaging.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== SQL tests (pg_regress and pgTAP) in a throwaway cluster"
pg_virtualenv -t "${PG_STAGED[@]}" -o session_preload_libraries=mrfdp \
	-o shared_preload_libraries=pg_cron -o cron.database_name=mrfdp_tap \
	-o cron.use_background_workers=on -o max_worker_processes=32 \
	bash test/in_cluster.sh "$log" || status=1

echo "== pgTAP with mrfdp in shared_preload_libraries"
pg_virtualenv -t "${PG_STAGED[@]}" -o shared_preload_libraries=mrfdp \
	sh -c 'createdb mrfdp_shared && psql -X -q -d mrfdp_shared -c "CREATE EXTENSION pgtap" -c "CREATE EXTENSION mrfdp" &&
		pg_prove -d mrfdp_shared --failures test/pgtap-shared/*.sql' 2>&1 | tee "$log/prove-shared.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== Citus: a coordinator and two workers (test/citus; builds Citus 13.0.5 once if missing)"
citus_note=""
test/citus/run_citus_tests.sh "$log/prove-citus.txt" 2>&1 | tee "$log/citus.txt"
case "${PIPESTATUS[0]}" in
	0) ;;
	3) citus_note=$(grep -m1 '^citus suite skipped' "$log/citus.txt") ;;
	*) status=1; [ -f "$log/prove-citus.txt" ] || citus_note="citus suite failed before its tests ran" ;;
esac

# One closing line counting every test of every suite.
passed=0
failed=0
read -r cp cf < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$log/c.txt" | tail -n1)
passed=$((passed + ${cp:-0})); failed=$((failed + ${cf:-1}))
if [ -f "$log/regress.txt" ]; then
	rp=$(grep -oE 'All [0-9]+ tests passed' "$log/regress.txt" | grep -oE '[0-9]+' || true)
	rf=$(grep -oE '[0-9]+ of [0-9]+ tests failed' "$log/regress.txt" | head -n1 || true)
	if [ -n "$rp" ]; then passed=$((passed + rp));
	elif [ -n "$rf" ]; then
		f=${rf%% *}; t=$(echo "$rf" | awk '{print $3}')
		passed=$((passed + t - f)); failed=$((failed + f))
	else failed=$((failed + 1)); fi
else failed=$((failed + 1)); fi
for f in "$log"/prove*.txt; do
	[ -f "$f" ] || { failed=$((failed + 1)); continue; }
	t=$(sed -nE 's/^Files=[0-9]+, Tests=([0-9]+),.*/\1/p' "$f" | tail -n1)
	bad=$(sed -nE 's/.*Failed ([0-9]+)\/[0-9]+ subtests.*/\1/p' "$f" | awk '{s+=$1} END {print s+0}')
	grep -q '^Result: PASS' "$f" || { [ "$bad" -gt 0 ] || bad=1; }
	passed=$((passed + ${t:-0} - bad)); failed=$((failed + bad))
done
[ "$failed" -eq 0 ] || status=1
case "$citus_note" in "citus suite failed"*) failed=$((failed + 1)) ;; esac
echo
[ -z "$citus_note" ] || echo "$citus_note"
echo "all suites: $passed passed, $failed failed"
exit $status
