#!/usr/bin/env bash
# Runs the pgTAP files of one server configuration with pg_prove against a
# running server, in the database $PGDATABASE (default mrfdp_tap), which
# must have the extensions pgtap and mrfdp.  Tests live by subject under
# test/<subject>/; each pgTAP file names the configuration it needs in one
# line "-- server: <configuration>" among its first lines:
#   session_preload  mrfdp in session_preload_libraries (the usual setting)
#   no_preload       mrfdp loaded on demand (this script clears the preload
#                    with PGOPTIONS)
#   shared_preload   mrfdp in shared_preload_libraries (restart needed)
#   pg_cron          after the jobs of test/cron/setup.sql ran (test/cron/wait.sh)
#   citus            a Citus coordinator with workers (test/citus/run_citus_tests.sh)
# MRFDP_SUBJECT=<subject> keeps only the files of test/<subject>/.
# Usage: test/pgtap.sh CONFIGURATION [pg_prove options]
#        test/pgtap.sh --list CONFIGURATION     the files, one a line
#        test/pgtap.sh --check                  every pgTAP file names one known configuration
set -uo pipefail
cd "$(dirname "$0")/.."
configurations="session_preload no_preload shared_preload pg_cron citus"

# pgTAP files: SQL under test/<subject>/ that plans tests.
pgtap_files() {
	local dirs=(test/*/)
	[ -n "${MRFDP_SUBJECT:-}" ] && dirs=("test/$MRFDP_SUBJECT/")
	for d in "${dirs[@]}"; do
		grep -l -E 'SELECT (plan|no_plan)\(' "$d"*.sql 2>/dev/null
	done | sort
}
files_of() {
	for f in $(pgtap_files); do
		[ "$(head -n 5 "$f" | sed -n 's/^-- server: \([a-z_]*\)$/\1/p' | head -n1)" = "$1" ] && echo "$f"
	done
}

case "${1:-}" in
	--check)
		bad=0
		for f in $(pgtap_files); do
			c=$(head -n 5 "$f" | sed -n 's/^-- server: \([a-z_]*\)$/\1/p')
			case " $configurations " in
				*" $c "*) [ "$(echo "$c" | wc -l)" -eq 1 ] || { echo "$f: more than one server line"; bad=1; } ;;
				*) echo "$f: no '-- server: <configuration>' line among its first 5 (one of: $configurations)"; bad=1 ;;
			esac
		done
		exit $bad ;;
	--list)
		files_of "${2:?configuration}"
		exit 0 ;;
	"")
		echo "usage: test/pgtap.sh CONFIGURATION [pg_prove options] (one of: $configurations)" >&2
		exit 2 ;;
esac
config=$1
shift
case " $configurations " in
	*" $config "*) ;;
	*) echo "unknown configuration $config (one of: $configurations)" >&2; exit 2 ;;
esac
files=$(files_of "$config")
[ -n "$files" ] || { echo "no pgTAP file for $config" >&2; exit 1; }
export PGDATABASE=${PGDATABASE:-mrfdp_tap}
[ "$config" = no_preload ] && export PGOPTIONS="${PGOPTIONS:-} -c session_preload_libraries="
# shellcheck disable=SC2086
exec pg_prove --failures "$@" $files
