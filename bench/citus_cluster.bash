# Sourced by the Citus benchmarks (not *.sh: nothing runs it alone): starts
# a throwaway coordinator and two workers on this machine with
# test/citus/run_citus_tests.sh (MRFDP_CITUS_KEEP=1; honours MRFDP_DESTDIR),
# points psql at the coordinator (PGHOST, PGPORT, PGUSER, PGDATABASE), stops
# and removes the cluster when the script exits, and defines q SQL: one
# statement, unaligned, tuples only, stopping on an error.
line=$(MRFDP_CITUS_KEEP=1 test/citus/run_citus_tests.sh | grep '^cluster kept') || {
	echo "no cluster (Citus missing?)"; exit 1; }
base=$(echo "$line" | sed -E 's/.*PGHOST=([^ ]+).*/\1/')
port=$(echo "$line" | sed -E 's/.*coordinator ([0-9]+).*/\1/')
stop() {
	for d in coord w1 w2; do runuser -u postgres -- pg_ctl -D "$base/$d" -m fast stop >/dev/null 2>&1 || true; done
	rm -rf "$base"
}
trap stop EXIT
export PGHOST=$base PGPORT=$port PGUSER=postgres PGDATABASE=citus_tap
q() { psql -X -q -At -v ON_ERROR_STOP=1 -c "$1"; }
