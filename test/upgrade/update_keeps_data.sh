#!/usr/bin/env bash
# TAP: a database created under the released 0.1.0 keeps working with this
# library before ALTER EXTENSION mrfdp UPDATE, and keeps its data after it.
# test/upgrade/setup.sql installs 0.1.0's state (stored models of every
# kind, protected relations of another owner, grants, charges on both
# paths); calls-0.1.0.sql calls every function of 0.1.0's interface with
# the new library under the old SQL, then again after the update, where the
# learners under mrfdp.test_seed must return the same models and every
# function of the current version must be called (calls-0.1.0.sql or
# calls-current.sql).  The budgets, grants, ledger rows and what remains
# must come through the update unchanged, and stored models must read back
# bit for bit.  Run inside pg_virtualenv as a superuser with mrfdp in
# session_preload_libraries: prove --exec bash test/upgrade/*.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
. test/dump/tap.bash

db=mrfdp_upgrade_data
current=$(sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" mrfdp.control)
run() { # run FILE LOG [psql options]: a script file, stopping at the first error
	local f=$1 l=$2
	shift 2
	psql -X -q -v ON_ERROR_STOP=1 -d $db "$@" -f "$f" >"$l" 2>&1
}
echo "1..19"

dropdb --if-exists $db 2>/dev/null
for r in mrfdp_up_owner mrfdp_up_analyst mrfdp_up_outsider; do
	psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1
done
createdb $db
q $db "CREATE EXTENSION mrfdp VERSION '0.1.0'" >"$work/create.log" 2>&1
run test/upgrade/setup.sql "$work/setup.log"
ok $? "0.1.0 with this library: stored models, budgets, grants, charges on both paths" "$work/setup.log"
run test/upgrade/snapshot.sql "$work/snap0.txt"
run test/upgrade/calls-0.1.0.sql "$work/before.log" -v phase=before
ok $? "every function of 0.1.0 works with this library under the 0.1.0 SQL" "$work/before.log"
run test/upgrade/snapshot.sql "$work/snap0b.txt"

# mrf_options under SQL definitions other than its own: fewer options (an
# older release's), in another order, or with a wrong type.
q $db "CREATE FUNCTION older_options(lambda float8 DEFAULT NULL, rho float8 DEFAULT NULL) RETURNS jsonb
	AS '\$libdir/mrfdp', 'mrf_options' LANGUAGE C IMMUTABLE;
	CREATE FUNCTION wrong_options(rho text DEFAULT NULL) RETURNS jsonb
	AS '\$libdir/mrfdp', 'mrf_options' LANGUAGE C IMMUTABLE" >"$work/older.log" 2>&1
is "$(q $db "SELECT older_options(rho => 0.5)::text || ' ' || older_options(lambda => 2, rho => 1)::text" 2>&1)" \
	'{"rho": 0.5} {"rho": 1, "lambda": 2}' \
	"mrf_options reads its arguments by the names of its SQL definition: fewer, in another order"
is "$(q $db "SET mrfdp.test_seed = 3;
	SELECT (mrf_learn_ising_agg(row, older_options(rho => 1))::jsonb - 'meta')
		= (mrf_learn_ising_agg(row, mrf_options(rho => 1))::jsonb - 'meta') FROM up_bin" 2>&1)" "t" \
	"an older mrf_options's document learns the same model (mrfdp.test_seed)"
q $db "SELECT wrong_options(rho => '1')" >"$work/wrong.log" 2>&1
is "$?:$(grep -o 'has type text, not double precision' "$work/wrong.log")" "1:has type text, not double precision" \
	"a parameter of another type is refused, not misread"

run test/upgrade/snapshot.sql "$work/snap1.txt"
psql -X -q -d $db -c "\\copy up_stored TO '$work/stored.bin' WITH (FORMAT binary)" >"$work/copy.log" 2>&1

q $db "ALTER EXTENSION mrfdp UPDATE" >"$work/update.log" 2>&1
ok $? "ALTER EXTENSION mrfdp UPDATE" "$work/update.log"
is "$(q $db "SELECT extversion FROM pg_extension WHERE extname = 'mrfdp'")" "$current" "updated to $current"

run test/upgrade/snapshot.sql "$work/snap2.txt"
diff -u "$work/snap1.txt" "$work/snap2.txt" >"$work/snap.diff"
st=$?
[ "$(grep -c '^ledger|' "$work/snap1.txt")" -ge 10 ] || st=1
ok $st "budgets, spent sums, grants, $(grep -c '^ledger|' "$work/snap1.txt") ledger rows, remaining() and both views unchanged by the update" \
	"$work/snap.diff"
is "$(q $db "SELECT count(*) FROM up_stored s JOIN up_stored_text t USING (name)
	WHERE s.m::text = t.text AND md5(mrf_send(s.m)) = t.bin")" 6 \
	"6 stored models (every kind) read back with the same text and binary form"
q $db "CREATE TABLE up_stored_copy (LIKE up_stored)" >/dev/null
psql -X -q -d $db -c "\\copy up_stored_copy FROM '$work/stored.bin' WITH (FORMAT binary)" >>"$work/copy.log" 2>&1
is "$(q $db "SELECT count(*) FROM up_stored_copy c JOIN up_stored_text t USING (name) WHERE c.m::text = t.text")" 6 \
	"a binary COPY written before the update reads back after it" "$work/copy.log"

run test/upgrade/calls-0.1.0.sql "$work/after.log" -v phase=after
ok $? "every function of 0.1.0 works after the update" "$work/after.log"
run test/upgrade/calls-current.sql "$work/current.log"
ok $? "the functions new since 0.1.0 work after the update" "$work/current.log"
is "$(q $db "SELECT string_agg(b.name, ', ' ORDER BY b.name) FROM up_results b
	LEFT JOIN up_results a ON a.phase = 'after' AND a.name = b.name
	WHERE b.phase = 'before' AND b.name NOT LIKE 'analyst %' AND b.name <> 'progress'
	  AND a.result IS DISTINCT FROM b.result")" "" \
	"learners and accessors under mrfdp.test_seed return the same results before and after (names that differ)"
is "$(q $db "SELECT string_agg(phase || ' ' || name, ', ' ORDER BY phase, name) FROM up_results WHERE result IS NULL")" "" \
	"no function returned NULL (phase and name of those that did)"
is "$(q $db "SELECT count(*) FILTER (WHERE phase = 'before') || ' ' || count(*) FILTER (WHERE phase = 'after') FROM up_results")" \
	"36 36" "36 results before and after"
run test/upgrade/snapshot.sql "$work/snap3.txt"
before=$(( $(grep -c '^ledger|' "$work/snap0b.txt") - $(grep -c '^ledger|' "$work/snap0.txt") ))
is "$(( $(grep -c '^ledger|' "$work/snap3.txt") - $(grep -c '^ledger|' "$work/snap2.txt") ))" "$before" \
	"the calls after the update add as many ledger rows as before it ($before)"
is "$(q $db "SELECT string_agg(b.relation::text || ' ' || b.releases, ', ' ORDER BY b.relation::text) FROM mrfdp.budget b")" \
	"public.up_prot 9, public.up_prot_kary 3, public.up_prot_pure 3" \
	"every release before, across and after the update is counted on its budget"

# Every user-facing function of the current version is called somewhere.
funcs=$(q $db "SELECT DISTINCT p.proname FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid
	WHERE d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_extension'::regclass
	  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'mrfdp') AND d.deptype = 'e'
	  AND p.prorettype NOT IN ('trigger'::regtype, 'event_trigger'::regtype)
	  AND NOT 'internal'::regtype = ANY (p.proargtypes) AND p.prorettype <> 'internal'::regtype
	  AND p.proname NOT IN ('mrf_recv', 'spent_epsilon', 'holds_learning_marker', 'relation_ref_in',
							'relation_ref_out', 'role_ref_in', 'role_ref_out')
	ORDER BY 1")
missing=""
for f in $funcs; do
	grep -q "\\b$f(" test/upgrade/calls-0.1.0.sql test/upgrade/calls-current.sql || missing="$missing $f"
done
is "$missing" "" "every function of $current ($(echo $funcs | wc -w)) is called by calls-0.1.0.sql or calls-current.sql (missing:)"
is "$(q $db "SELECT string_agg(p.oid::regprocedure::text, ', ') FROM pg_proc p
	WHERE p.pronamespace = 'public'::regnamespace
	  AND ('internal'::regtype = ANY (p.proargtypes) OR p.prorettype = 'internal'::regtype)")" "" \
	"no support function (internal arguments) left in public, where \\df lists it"

dropdb $db
for r in mrfdp_up_owner mrfdp_up_analyst mrfdp_up_outsider; do
	psql -X -q -d postgres -c "DROP ROLE $r" >/dev/null
done
