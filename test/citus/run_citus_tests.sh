#!/usr/bin/env bash
# The Citus suite: makes Citus 13.0.5 available (test/citus/build_citus.sh),
# starts a throwaway cluster of a coordinator and two workers on localhost
# (servers run as postgres; every node preloads citus and mrfdp), and runs
# the pgTAP files of test/citus against the coordinator.  Prints
# "citus suite skipped: <why>" and exits 3 when Citus cannot be installed.
# Honours MRFDP_DESTDIR (a staged mrfdp, as scripts/pg_options.sh).
# $1: optional log file for pg_prove's output; further arguments: test files.
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/lib/postgresql/15/bin:$PATH
out=${1:-/dev/null}
shift || true
files=("$@")
[ ${#files[@]} -gt 0 ] || [ -n "${MRFDP_CITUS_KEEP:-}" ] || files=(test/citus/*.sql)

why=$(test/citus/build_citus.sh)
rc=$?
if [ $rc -ne 0 ]; then
	echo "citus suite skipped: ${why:-Citus could not be installed}"
	exit 3
fi

base=$(mktemp -d /tmp/mrfdp-citus.XXXXXX)
chown postgres: "$base"
ports=()
pick_port() {
	local p
	for _ in $(seq 1 200); do
		p=$((20000 + RANDOM % 30000))
		if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null &&
			[[ " ${ports[*]} " != *" $p "* ]]; then
			echo "$p"
			return 0
		fi
	done
	return 1
}
as_pg() { runuser -u postgres -- "$@"; }
stop_all() {
	for n in coord w1 w2; do
		[ -f "$base/$n/postmaster.pid" ] && as_pg pg_ctl -D "$base/$n" -m immediate stop >/dev/null 2>&1
	done
	rm -rf "$base"
}
# MRFDP_CITUS_KEEP=1 leaves the cluster running (for debugging; stop it by hand).
[ -n "${MRFDP_CITUS_KEEP:-}" ] || trap stop_all EXIT

staged=()
if [ -n "${MRFDP_DESTDIR:-}" ]; then
	staged=("extension_destdir = '$MRFDP_DESTDIR'"
		"dynamic_library_path = '$MRFDP_DESTDIR/usr/lib/postgresql/15/lib:\$libdir'")
fi
for n in coord w1 w2; do
	port=$(pick_port) || { echo "no free port"; exit 1; }
	ports+=("$port")
	as_pg initdb -D "$base/$n" -A trust -U postgres >"$base/$n.initdb.log" 2>&1 ||
		{ cat "$base/$n.initdb.log"; exit 1; }
	{
		echo "port = $port"
		echo "listen_addresses = 'localhost'"
		echo "unix_socket_directories = '$base'"
		echo "shared_preload_libraries = 'citus,mrfdp'"
		echo "max_worker_processes = 32"
		echo "max_connections = 100"
		echo "fsync = off"
		echo "citus.shard_count = 4"
		for s in "${staged[@]}"; do echo "$s"; done
	} >>"$base/$n/postgresql.conf"
	as_pg pg_ctl -D "$base/$n" -l "$base/$n.log" -w start >/dev/null ||
		{ cat "$base/$n.log"; exit 1; }
done

export PGHOST=$base PGUSER=postgres PGPORT=${ports[0]} PGDATABASE=citus_tap
for i in 0 1 2; do
	as_pg createdb -h "$base" -p "${ports[$i]}" citus_tap || exit 1
	as_pg psql -X -q -h "$base" -p "${ports[$i]}" -d citus_tap -c 'CREATE EXTENSION citus' || exit 1
done
psql -X -q -v ON_ERROR_STOP=1 \
	-c "SELECT citus_set_coordinator_host('localhost', ${ports[0]})" \
	-c "SELECT citus_add_node('localhost', ${ports[1]})" \
	-c "SELECT citus_add_node('localhost', ${ports[2]})" \
	-c 'CREATE EXTENSION pgtap' -c 'CREATE EXTENSION mrfdp' >/dev/null || exit 1

# The tests reach the workers through these settings (see test/citus/*.sql).
psql -X -q -c "ALTER DATABASE citus_tap SET mrfdp_test.worker_ports = '${ports[1]},${ports[2]}'" || exit 1

if [ -n "${MRFDP_CITUS_KEEP:-}" ]; then
	echo "cluster kept: PGHOST=$base coordinator ${ports[0]}, workers ${ports[1]} ${ports[2]}"
	[ ${#files[@]} -eq 0 ] && exit 0
fi
status=0
pg_prove --failures "${files[@]}" 2>&1 | tee "$out"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
if [ $status -ne 0 ]; then
	for n in coord w1 w2; do
		echo "--- $n.log (tail)"
		tail -n 30 "$base/$n.log"
	done
fi
exit $status
