#!/usr/bin/env bash
# Runs every test of mrfdp on Debian 12 as root: installs packages, builds,
# then runs the Makefile's test targets: the C unit tests, the packaging
# checks, and throwaway PostgreSQL 15 clusters (pg_virtualenv; the servers
# run as the postgres user) in each server configuration the tests need
# (stock, mrfdp in session_preload_libraries, in shared_preload_libraries,
# Citus).  Exits non-zero on any failure, after one line counting them all.
# MRFDP_DESTDIR=/some/dir tests a staged install instead of the system's.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/lib/postgresql/15/bin:$PATH

./scripts/install-deps.sh || exit 1
make -s clean >/dev/null 2>&1
./scripts/build.sh || { echo "build failed"; exit 1; }

log=$(mktemp -d)
status=0

# Each step is a make target (see the Makefile's test section); the logs
# they leave in $log are counted below.
echo "== C unit tests"
make -s ctest 2>&1 | tee "$log/c.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== packaging: META.json for PGXN, LICENSE"
make -s test-packaging 2>&1 | tee "$log/prove-packaging.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== pg_regress on a stock server (no preload, no setting)"
make -s test-stock TEST_LOG="$log" || status=1

echo "== SQL tests with mrfdp in session_preload_libraries (pg_regress, pgTAP, dump, upgrade, pg_cron)"
make -s test-session TEST_LOG="$log" || status=1

echo "== pgTAP with mrfdp in shared_preload_libraries"
make -s test-shared TEST_LOG="$log" || status=1

echo "== Citus: a coordinator and two workers (test/citus; builds Citus 13.0.5 once if missing)"
citus_note=""
make -s test-citus TEST_LOG="$log" 2>&1 | tee "$log/citus.txt"
citus_rc=${PIPESTATUS[0]}
if grep -q '^citus suite skipped' "$log/citus.txt"; then
	citus_note=$(grep -m1 '^citus suite skipped' "$log/citus.txt")
elif [ "$citus_rc" -ne 0 ]; then
	status=1
	[ -f "$log/prove-citus.txt" ] || citus_note="citus suite failed before its tests ran"
fi

# One closing line counting every test of every suite.
passed=0
failed=0
read -r cp cf < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$log/c.txt" | tail -n1)
passed=$((passed + ${cp:-0})); failed=$((failed + ${cf:-1}))
for r in regress regress-stock; do
	if [ -f "$log/$r.txt" ]; then
		rp=$(grep -oE 'All [0-9]+ tests passed' "$log/$r.txt" | grep -oE '[0-9]+' || true)
		rf=$(grep -oE '[0-9]+ of [0-9]+ tests failed' "$log/$r.txt" | head -n1 || true)
		if [ -n "$rp" ]; then passed=$((passed + rp));
		elif [ -n "$rf" ]; then
			f=${rf%% *}; t=$(echo "$rf" | awk '{print $3}')
			passed=$((passed + t - f)); failed=$((failed + f))
		else failed=$((failed + 1)); fi
	else failed=$((failed + 1)); fi
done
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
