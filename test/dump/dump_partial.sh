#!/usr/bin/env bash
# TAP: a restore carries every catalog row it can, even when the dump or the
# target cluster lacks some relation or role the catalog names (issue 9,
# finding 8 reviewed).  A dump that leaves out a protected table (pg_dump -T)
# or an unprotected one the ledger names, and a target cluster missing a
# granted role, must still restore every other budget, grant and ledger row
# (one missing name used to fail the COPY of a whole catalog table, so every
# budget was lost and the tables came back unprotected).  Names are those of
# the moment of the dump (a table and a role renamed after protect and
# grant), a dropped role's OID is never dumped as a number, a number in a
# dump is never taken for an OID, and pg_restore --no-owner --no-acl keeps
# grants working and budgets owned by the relation's new owner.  Run inside
# pg_virtualenv (test/in_cluster.sh) as a superuser, with mrfdp preloaded in
# sessions: prove --exec bash test/dump/*.sh
set -uo pipefail

src=mrfdp_part_src
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
dbs="mrfdp_part_noscratch mrfdp_part_noprot mrfdp_part_plain_noprot mrfdp_part_norole mrfdp_part_noowner mrfdp_part_number"
roles="mrfdp_part_owner mrfdp_part_analyst mrfdp_part_gone mrfdp_part_reader mrfdp_part_dropped mrfdp_part_mallory mrfdp_part_renamed"

. "$(dirname "$0")/tap.bash"

budget_sql="SELECT relation::text, epsilon, delta, spent_zcdp_rho, releases FROM mrfdp.budget ORDER BY 1"
grants_sql="SELECT relation::text, role::text FROM mrfdp.grants ORDER BY 1, 2"
# the ledger without its relation references, which a left-out relation loses
ledger_sql="SELECT id, relation_name, relation_owner_name, role_name, learner, rho, rows_read, statement
	FROM mrfdp.ledger ORDER BY id"

echo "1..38"

for db in $src $dbs; do
	dropdb --if-exists "$db" 2>/dev/null
done
for r in $roles mrfdp_part_gone_away mrfdp_part_renamed_before; do
	psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" 2>/dev/null
done
for r in $roles; do
	[ "$r" = mrfdp_part_renamed ] && r=mrfdp_part_renamed_before
	psql -X -q -d postgres -c "CREATE ROLE $r"
done
createdb "$src"
psql -X -q -v ON_ERROR_STOP=1 -d "$src" >"$work/setup.log" 2>&1 <<'EOF'
CREATE EXTENSION mrfdp;
CREATE TABLE part_a AS
SELECT x AS "row" FROM mrf_sample(mrf_ising(ARRAY[[0, .5, 0], [.5, 0, .5], [0, .5, 0]]::float8[]), 500, seed => 3) x;
CREATE TABLE part_b AS SELECT * FROM part_a;
CREATE TABLE part_c AS SELECT * FROM part_a;
CREATE TABLE part_scratch AS SELECT * FROM part_a;
ALTER TABLE part_a OWNER TO mrfdp_part_owner;
ALTER TABLE part_b OWNER TO mrfdp_part_owner;
ALTER TABLE part_c OWNER TO mrfdp_part_owner;
GRANT SELECT ON part_scratch TO mrfdp_part_reader;
SET ROLE mrfdp_part_owner;
SELECT mrfdp.protect('part_a', epsilon => 100, delta => 1e-6);
SELECT mrfdp.protect('part_b', epsilon => 50, delta => 1e-6);
SELECT mrfdp.protect('part_c', epsilon => 20, delta => 1e-6);
SELECT mrfdp.grant_learning('part_a', 'mrfdp_part_analyst');
SELECT mrfdp.grant_learning('part_b', 'mrfdp_part_analyst');
SELECT mrfdp.grant_learning('part_a', 'mrfdp_part_gone');
SELECT mrfdp.grant_learning('part_b', 'mrfdp_part_dropped');
SELECT mrfdp.grant_learning('part_c', 'mrfdp_part_renamed_before');
SET ROLE mrfdp_part_analyst;
SELECT mrf_learn_ising_from('part_a', 'row', rho => 0.125, variables => 3) IS NOT NULL;
SELECT mrf_learn_ising_from('part_b', 'row', rho => 0.25, variables => 3) IS NOT NULL;
SET ROLE mrfdp_part_gone;
SELECT mrf_learn_ising_from('part_a', 'row', rho => 0.0625, variables => 3) IS NOT NULL;
SET ROLE mrfdp_part_dropped;
SELECT mrf_learn_ising_from('part_b', 'row', rho => 0.0625, variables => 3) IS NOT NULL;
SET ROLE mrfdp_part_renamed_before;
SELECT mrf_learn_ising_from('part_c', 'row', rho => 0.5, variables => 3) IS NOT NULL;
SET ROLE mrfdp_part_reader;
SELECT mrf_learn_ising("row", rho => 0.125) IS NOT NULL FROM part_scratch;
RESET ROLE;
-- renamed after protect and grant: the dump must carry the new names
ALTER TABLE part_c RENAME TO part_c_renamed;
ALTER ROLE mrfdp_part_renamed_before RENAME TO mrfdp_part_renamed;
-- a role that released, then left: its learning grant goes with DROP OWNED
DROP OWNED BY mrfdp_part_dropped;
DROP ROLE mrfdp_part_dropped;
EOF
ok $? "the source database is set up" "$work/setup.log"
src_budget=$(q $src "$budget_sql")
src_grants=$(q $src "$grants_sql")
src_ledger=$(q $src "$ledger_sql")
dropped_oid=$(q $src "SELECT DISTINCT role::oid FROM mrfdp.ledger WHERE role_name = 'mrfdp_part_dropped'")
mallory_oid=$(q postgres "SELECT oid FROM pg_roles WHERE rolname = 'mrfdp_part_mallory'")
is "$(q $src "SELECT count(*) FROM mrfdp.ledger") $(q $src "SELECT count(*) FROM mrfdp.budget") $(q $src "SELECT count(*) FROM mrfdp.grants")" \
	"6 3 4" "six ledger rows, three budgets, four grants"

# -T part_scratch: the ledger names an unprotected table left out of the dump.
pg_dump -Fc -T part_scratch -f "$work/noscratch.dump" $src
createdb mrfdp_part_noscratch && pg_restore --exit-on-error -d mrfdp_part_noscratch "$work/noscratch.dump" 2>"$work/noscratch.log"
ok $? "pg_dump -T part_scratch restores with pg_restore --exit-on-error" "$work/noscratch.log"
db=mrfdp_part_noscratch
is "$(q $db "$budget_sql")" "$src_budget" "-T part_scratch: every budget and spent sum restored"
is "$(q $db "$grants_sql")" "$src_grants" "-T part_scratch: every grant restored"
is "$(q $db "$ledger_sql")" "$src_ledger" "-T part_scratch: every ledger row restored"
is "$(q $db "SELECT count(*) FROM mrfdp.ledger WHERE relation IS NULL AND relation_name = 'public.part_scratch'")" \
	1 "-T part_scratch: its ledger row keeps the name, without a reference"
is "$(q $db "SET ROLE mrfdp_part_analyst; SET client_min_messages = warning; SELECT mrf_learn_ising_from('part_a', 'row', rho => 0.125, variables => 3) IS NOT NULL" 2>&1)" \
	t "-T part_scratch: the analyst learns there through the restored grant"

# -T part_a: a protected table left out; custom and plain formats.
pg_dump -Fc -T part_a -f "$work/noprot.dump" $src
pg_dump -Fp -T part_a -f "$work/noprot.sql" $src
createdb mrfdp_part_noprot && pg_restore --exit-on-error -v -d mrfdp_part_noprot "$work/noprot.dump" 2>"$work/noprot.log"
ok $? "pg_dump -T part_a restores with pg_restore --exit-on-error" "$work/noprot.log"
grep -q 'WARNING:  relation "public.part_a" does not exist' "$work/noprot.log"
ok $? "with a warning naming the missing relation" "$work/noprot.log"
createdb mrfdp_part_plain_noprot &&
	psql -X -q -v ON_ERROR_STOP=1 -d mrfdp_part_plain_noprot -f "$work/noprot.sql" >"$work/plain_noprot.log" 2>&1
ok $? "and the plain dump with psql (ON_ERROR_STOP)" "$work/plain_noprot.log"
for db in mrfdp_part_noprot mrfdp_part_plain_noprot; do
	is "$(q $db "$budget_sql")" "$(q $src "SELECT * FROM ($budget_sql) b WHERE relation <> 'public.part_a'")" \
		"$db: every other budget restored, spent sums exact"
	is "$(q $db "$grants_sql")" "$(q $src "SELECT * FROM ($grants_sql) g WHERE relation <> 'public.part_a'")" \
		"$db: every other grant restored"
	is "$(q $db "$ledger_sql")" "$src_ledger" "$db: every ledger row restored"
	is "$(q $db "SELECT count(*) FROM mrfdp.ledger WHERE relation IS NULL AND relation_name = 'public.part_a'")" \
		2 "$db: part_a's ledger rows keep its name, without a reference"
done

# The dump carries names as they are now, and no OID.
grep -A8 '^COPY mrfdp.grants' "$work/noprot.sql" | grep -q "^public.part_c_renamed	mrfdp_part_renamed	"
ok $? "a table and a role renamed after protect and grant are dumped under their new names"
is "$(q mrfdp_part_plain_noprot "SELECT count(*) FROM mrfdp.grants WHERE relation = 'part_c_renamed'::regclass AND role = 'mrfdp_part_renamed'::regrole")" \
	1 "and restored under them"
sed -n '/^COPY mrfdp.ledger /,/^\\\.$/p' "$work/noprot.sql" | grep -P "\t$dropped_oid\t" >"$work/oid.log"
[ ! -s "$work/oid.log" ]
ok $? "a dropped role's OID is not in the dumped ledger" "$work/oid.log"
is "$(q mrfdp_part_plain_noprot "SELECT coalesce(role::text, 'NULL') || ' ' || role_name FROM mrfdp.ledger WHERE rho = 0.06298828125 AND relation_name = 'public.part_b'")" \
	"NULL mrfdp_part_dropped" "its restored ledger row has no role reference, only the recorded name"

# A number where a dump names a role is a name, never an OID (an old dump
# wrote a dropped role's OID as a number; restored where another role had
# that OID, it was granted learning and shown the dropped role's releases).
sed -e "/^COPY mrfdp.grants /,/^\\\\\\.\$/s/	mrfdp_part_analyst	/	$mallory_oid	/" \
	-e "/^COPY mrfdp.ledger /,/^\\\\\\.\$/s/	mrfdp_part_analyst	mrfdp_part_analyst	/	$mallory_oid	mrfdp_part_analyst	/" \
	"$work/noprot.sql" >"$work/number.sql"
! cmp -s "$work/noprot.sql" "$work/number.sql"
ok $? "a dump with mallory's OID in place of the analyst's name is made"
createdb mrfdp_part_number && psql -X -q -v ON_ERROR_STOP=1 -d mrfdp_part_number -f "$work/number.sql" >"$work/number.log" 2>&1
ok $? "it restores" "$work/number.log"
is "$(q mrfdp_part_number "SELECT count(*) FROM mrfdp.grants WHERE role = 'mrfdp_part_mallory'::regrole")" 0 \
	"the role with that OID gets no grant"
is "$(q mrfdp_part_number "SET ROLE mrfdp_part_mallory; SELECT count(*) FROM mrfdp.releases")" 0 \
	"and sees no release"

# A granted role missing in the target cluster.
pg_dump -Fc -f "$work/full.dump" $src
want_grants=$(q $src "SELECT * FROM ($grants_sql) g WHERE role <> 'mrfdp_part_gone'")
q postgres "ALTER ROLE mrfdp_part_gone RENAME TO mrfdp_part_gone_away" >/dev/null
createdb mrfdp_part_norole && pg_restore -v -d mrfdp_part_norole "$work/full.dump" >"$work/norole.log" 2>&1
grep -q 'WARNING:  role "mrfdp_part_gone" does not exist' "$work/norole.log"
ok $? "restoring without a granted role warns, naming it" "$work/norole.log"
db=mrfdp_part_norole
is "$(q $db "$budget_sql")" "$src_budget" "missing role: every budget restored"
is "$(q $db "$grants_sql")" "$want_grants" \
	"missing role: every other grant restored"
is "$(q $db "$ledger_sql")" "$src_ledger" "missing role: every ledger row restored"
is "$(q $db "SELECT count(*) FROM mrfdp.ledger WHERE role IS NULL AND role_name = 'mrfdp_part_gone'")" 1 \
	"missing role: its ledger row keeps its name, without a reference"
is "$(q $db "SELECT count(*) FROM mrfdp.grants WHERE role = 'mrfdp_part_gone_away'::regrole")" 0 \
	"and the role that had its OID in the source (renamed here) gets nothing"
q postgres "ALTER ROLE mrfdp_part_gone_away RENAME TO mrfdp_part_gone" >/dev/null

# pg_restore --no-owner --no-acl: the restoring role owns the relations, and
# grants still work (their marker privilege is restored with the rows).
createdb mrfdp_part_noowner && pg_restore --no-owner --no-acl --exit-on-error -d mrfdp_part_noowner "$work/full.dump" 2>"$work/noowner.log"
ok $? "pg_restore --no-owner --no-acl" "$work/noowner.log"
db=mrfdp_part_noowner
is "$(q $db "SELECT DISTINCT owner::text FROM mrfdp.budget_status")" "$(q $db "SELECT current_user")" \
	"--no-owner: budgets are owned by the relations' owner, the restoring role"
is "$(q $db "$grants_sql")" "$src_grants" "--no-acl: every grant restored"
is "$(q $db "SET ROLE mrfdp_part_analyst; SET client_min_messages = warning; SELECT mrf_learn_ising_from('part_b', 'row', rho => 0.125, variables => 3) IS NOT NULL" 2>&1)" \
	t "--no-acl: the analyst learns through its grant"
! q $db "DROP ROLE mrfdp_part_analyst" >/dev/null 2>&1
ok $? "--no-acl: and the grant keeps the role from being dropped"

for db in $src $dbs; do
	dropdb "$db"
done
for r in $roles; do
	[ "$r" = mrfdp_part_dropped ] && continue
	psql -X -q -d postgres -c "DROP ROLE $r"
done
