#!/usr/bin/env bash
# TAP: pg_dump and pg_restore carry mrfdp's catalog.  A database with
# protected relations (one in a schema and under a name that need quoting),
# learning grants, charges, an unprotected release and a protected relation
# that was dropped is dumped in plain and custom format and restored into new
# databases (the custom one also with a parallel pg_restore, which reorders
# the data loads); each must have the same budgets, spent sums, grants and
# ledger rows, mapped to the restored relations by name, the dropped
# relation's rows by name only, and the analyst must learn there and be
# charged on the restored budget.  Run inside pg_virtualenv (test/in_cluster.sh)
# as a superuser, with mrfdp preloaded in sessions: prove --exec bash test/dump/*.sh
set -uo pipefail

src=mrfdp_dump_src
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0

. "$(dirname "$0")/tap.bash"

# The catalog as text, comparable across databases (regclass and regrole as names).
budget_sql="SELECT relation::text, epsilon, delta, rho_cap, c.relowner::regrole::text, created, spent_zcdp_rho,
	spent_pure_epsilon, spent_pure_rho, spent_approx_epsilon, spent_approx_delta, releases
	FROM mrfdp.budget b JOIN pg_class c ON c.oid = b.relation ORDER BY 1"
grants_sql="SELECT relation::text, role::text, granted_by::text, granted FROM mrfdp.grants ORDER BY 1, 2"
ledger_sql="SELECT id, relation::text, relation_name, relation_owner::text, relation_owner_name, protected,
	role::text, role_name, at,
	learner, notion, rho, epsilon, delta, rows_read, statement, private FROM mrfdp.ledger ORDER BY id"
remaining_sql="SELECT * FROM mrfdp.remaining('public.dump_prot')
	UNION ALL SELECT * FROM mrfdp.remaining('\"Dump Schema\".\"Dump Data\"')"

echo "1..43"

for db in $src mrfdp_dump_plain mrfdp_dump_custom mrfdp_dump_parallel; do
	dropdb --if-exists "$db" 2>/dev/null
done
psql -X -q -v ON_ERROR_STOP=1 -d postgres >/dev/null <<'EOF'
DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_dump_owner') THEN
		CREATE ROLE mrfdp_dump_owner;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_dump_analyst') THEN
		CREATE ROLE mrfdp_dump_analyst;
	END IF;
END $$;
EOF
createdb "$src"
psql -X -q -v ON_ERROR_STOP=1 -d "$src" >"$work/setup.log" 2>&1 <<'EOF'
CREATE EXTENSION mrfdp;
GRANT USAGE ON SCHEMA public TO mrfdp_dump_owner, mrfdp_dump_analyst;
CREATE SCHEMA "Dump Schema" AUTHORIZATION mrfdp_dump_owner;
GRANT USAGE ON SCHEMA "Dump Schema" TO mrfdp_dump_analyst;
CREATE TABLE dump_prot AS
SELECT x AS "row" FROM mrf_sample(mrf_ising(ARRAY[[0, .5, 0], [.5, 0, .5], [0, .5, 0]]::float8[]), 800, seed => 3) x;
CREATE TABLE "Dump Schema"."Dump Data" AS SELECT * FROM dump_prot;
CREATE TABLE dump_gone AS SELECT * FROM dump_prot;
CREATE TABLE dump_plain AS SELECT * FROM dump_prot;
ALTER TABLE dump_prot OWNER TO mrfdp_dump_owner;
ALTER TABLE "Dump Schema"."Dump Data" OWNER TO mrfdp_dump_owner;
ALTER TABLE dump_gone OWNER TO mrfdp_dump_owner;
ALTER TABLE dump_plain OWNER TO mrfdp_dump_owner;
GRANT SELECT ON dump_plain TO mrfdp_dump_analyst;
SET ROLE mrfdp_dump_owner;
-- room for exactly three releases of rho = 1/8 (each charged 1/8 (1 + 1/128)
-- on the protected path): two now, one after the restore
SELECT mrfdp.protect('dump_prot', epsilon => 1000, delta => 1e-6, rho_cap => 0.3779296875);
SELECT mrfdp.protect('"Dump Schema"."Dump Data"', epsilon => 3, delta => 1e-6);
SELECT mrfdp.protect('dump_gone', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.grant_learning('dump_prot', 'mrfdp_dump_analyst');
SELECT mrfdp.grant_learning('"Dump Schema"."Dump Data"', 'mrfdp_dump_analyst');
SELECT mrfdp.grant_learning('dump_gone', 'mrfdp_dump_analyst');
SET ROLE mrfdp_dump_analyst;
SELECT mrf_learn_ising_from('dump_prot', 'row', rho => 0.125, variables => 3) IS NOT NULL;
SELECT mrf_learn_ising_from('dump_prot', 'row', rho => 0.125, variables => 3) IS NOT NULL;
SELECT mrf_learn_ising_from('"Dump Schema"."Dump Data"', 'row', rho => 0.0625, variables => 3) IS NOT NULL;
SELECT mrf_learn_ising_from('dump_gone', 'row', rho => 0.125, variables => 3) IS NOT NULL;
SELECT mrf_learn_ising_agg("row", mrf_options(rho => 0.5)) IS NOT NULL FROM dump_plain;
RESET ROLE;
DROP TABLE dump_gone;
EOF
ok $? "the source database is set up (protected relations, grants, charges, a dropped relation)" "$work/setup.log"
src_budget=$(q "$src" "$budget_sql")
src_grants=$(q "$src" "$grants_sql")
src_ledger=$(q "$src" "$ledger_sql")
src_remaining=$(q "$src" "$remaining_sql")
src_seq=$(q "$src" "SELECT last_value FROM mrfdp.ledger_id_seq")
is "$(q "$src" "SELECT count(*) FROM mrfdp.ledger WHERE relation IS NULL AND relation_name = 'public.dump_gone'")" \
	1 "the dropped relation's ledger row keeps its name, not its OID"

pg_dump -Fp -f "$work/plain.sql" "$src"
ok $? "pg_dump, plain format"
pg_dump -Fc -f "$work/custom.dump" "$src"
ok $? "pg_dump, custom format"

createdb mrfdp_dump_plain && psql -X -q -v ON_ERROR_STOP=1 -d mrfdp_dump_plain -f "$work/plain.sql" >"$work/plain.log" 2>&1
ok $? "the plain dump restores with psql (ON_ERROR_STOP)" "$work/plain.log"
createdb mrfdp_dump_custom && pg_restore --exit-on-error -d mrfdp_dump_custom "$work/custom.dump" 2>"$work/custom.log"
ok $? "the custom dump restores with pg_restore" "$work/custom.log"
createdb mrfdp_dump_parallel && pg_restore --exit-on-error -j 2 -d mrfdp_dump_parallel "$work/custom.dump" 2>"$work/parallel.log"
ok $? "the custom dump restores with a parallel pg_restore" "$work/parallel.log"

for db in mrfdp_dump_plain mrfdp_dump_custom mrfdp_dump_parallel; do
	is "$(q $db "$budget_sql")" "$src_budget" "$db: budgets and exact spent sums as in the source"
	is "$(q $db "$grants_sql")" "$src_grants" "$db: learning grants as in the source"
	is "$(q $db "$ledger_sql")" "$src_ledger" "$db: ledger rows as in the source"
	is "$(q $db "SELECT count(*) FROM mrfdp.ledger l JOIN pg_class c ON c.oid = l.relation::oid
		JOIN pg_namespace s ON s.oid = c.relnamespace
		WHERE l.relation_name = quote_ident(s.nspname) || '.' || quote_ident(c.relname)")" \
		"$(q $db "SELECT count(*) FROM mrfdp.ledger WHERE relation IS NOT NULL")" \
		"$db: every ledger OID names the restored relation of the recorded name"
	is "$(q $db "SELECT count(*) FROM mrfdp.ledger WHERE relation IS NULL AND relation_name = 'public.dump_gone'")" \
		1 "$db: the dropped relation's row stays, with no OID"
	is "$(q $db "$remaining_sql")" "$src_remaining" "$db: remaining() answers as in the source"
	is "$(q $db "SELECT last_value FROM mrfdp.ledger_id_seq")" "$src_seq" "$db: the ledger's sequence continues"
	! q $db "SET ROLE mrfdp_dump_analyst; SELECT count(*) FROM dump_prot" >/dev/null 2>&1
	ok $? "$db: the analyst still cannot read the protected relation"
	is "$(q $db "SET ROLE mrfdp_dump_analyst; SET client_min_messages = warning;
		SELECT mrf_learn_ising_from('dump_prot', 'row', rho => 0.125, variables => 3) IS NOT NULL" 2>&1)" \
		t "$db: the analyst learns through its restored grant"
	is "$(q $db "SELECT releases, spent_zcdp_rho = 0.3779296875 FROM mrfdp.budget WHERE relation = 'dump_prot'::regclass")" \
		"3|t" "$db: and is charged on the restored budget, exactly"
	is "$(q $db "SELECT relation_name || ' ' || (id = $src_seq + 1) FROM mrfdp.ledger ORDER BY id DESC LIMIT 1")" \
		"public.dump_prot true" "$db: the new ledger row follows the restored ones"
	q $db "SET ROLE mrfdp_dump_analyst;
		SELECT mrf_learn_ising_from('dump_prot', 'row', rho => 0.125, variables => 3)" >/dev/null 2>"$work/over.log"
	grep -q 'privacy budget' "$work/over.log"
	ok $? "$db: the restored budget still stops the release that does not fit" "$work/over.log"
done

for db in $src mrfdp_dump_plain mrfdp_dump_custom mrfdp_dump_parallel; do
	dropdb "$db"
done
psql -X -q -d postgres -c 'DROP ROLE mrfdp_dump_owner' -c 'DROP ROLE mrfdp_dump_analyst'
