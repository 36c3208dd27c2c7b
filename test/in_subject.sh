#!/usr/bin/env bash
# Runs inside pg_virtualenv (mrfdp in session_preload_libraries) for
# `make check-subject S=<subject>`: the pgTAP files of test/$MRFDP_SUBJECT/
# that need this server (session_preload, no_preload), then its TAP scripts.
# $1: directory for the logs.
set -uo pipefail
log=$1
s=$MRFDP_SUBJECT
status=0
createdb mrfdp_tap || exit 1
psql -X -q -d mrfdp_tap -c 'CREATE EXTENSION pgtap' -c 'CREATE EXTENSION mrfdp' || exit 1
for c in session_preload no_preload; do
	[ -n "$(test/pgtap.sh --list $c)" ] || continue
	echo "-- pgTAP ($c)"
	PGDATABASE=mrfdp_tap test/pgtap.sh $c 2>&1 | tee "$log/prove-$s-$c.txt"
	[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
if ls test/"$s"/*.sh >/dev/null 2>&1; then
	echo "-- TAP scripts"
	prove --exec bash test/"$s"/*.sh 2>&1 | tee "$log/prove-$s-scripts.txt"
	[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
exit $status
