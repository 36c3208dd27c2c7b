#!/usr/bin/env bash
# TAP: the test tree's layout.  Tests live by subject under test/<subject>/;
# every pgTAP file names the server configuration it needs ("-- server:
# <configuration>", test/pgtap.sh), so none is silently left out of a run,
# and each configuration has files.  prove --exec bash test/packaging/*.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
n=0
. test/dump/tap.bash
echo "1..7"
out=$(test/pgtap.sh --check 2>&1)
ok $? "every pgTAP file under test/<subject>/ names one known server configuration${out:+: $out}"
total=$(grep -l -E 'SELECT (plan|no_plan)\(' test/*/*.sql | wc -l)
sum=0
for c in session_preload no_preload shared_preload pg_cron citus; do
	k=$(test/pgtap.sh --list $c | wc -l)
	sum=$((sum + k))
	[ "$k" -gt 0 ]
	ok $? "configuration $c has pgTAP files ($k)"
done
is "$sum" "$total" "each of the $total pgTAP files runs in exactly one configuration"
