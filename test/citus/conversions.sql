-- server: citus
-- Budgets survive Citus's table conversions.  alter_distributed_table,
-- undistribute_table, alter_table_set_access_method and the automatic
-- undistribution of a Citus local table that loses its last foreign key to a
-- reference table rebuild the table (create, copy, DROP the old one, rename
-- the new one): the relation gets a new OID.  Its budget (with what was
-- spent), its learning grants and its ledger rows follow it; a plain DROP
-- still forgets them; a rename onto the name of a dropped protected relation
-- by a table with a budget of its own is refused.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(24);

CREATE ROLE cv_analyst;
CREATE TABLE cv (id int, "row" boolean[]);
SELECT create_distributed_table('cv', 'id');
INSERT INTO cv SELECT i, ARRAY[i % 2 = 0, i % 3 = 0, (i % 2 = 0) <> (i % 7 = 0)] FROM generate_series(1, 3000) i;
SELECT mrfdp.protect('cv', epsilon => 10, delta => 1e-6);
SELECT mrfdp.grant_learning('cv', 'cv_analyst');
-- what a relation's catalog rows say, whatever its OID
CREATE FUNCTION cv_state(r text) RETURNS text LANGUAGE sql AS $$
	SELECT format('spent %s releases %s grants %s ledger %s', trim_scale(b.spent_zcdp_rho), b.releases,
				  (SELECT count(*) FROM mrfdp.grants g WHERE g.relation::oid = b.relation::oid),
				  (SELECT count(*) FROM mrfdp.ledger l WHERE l.relation::oid = b.relation::oid))
	FROM mrfdp.budget b WHERE b.relation::oid = r::regclass::oid
$$;
CREATE FUNCTION cv_learn(r text) RETURNS boolean LANGUAGE sql AS $$
	SELECT mrf_learn_ising_from(r::regclass, 'row', rho => 0.125, variables => 3) IS NOT NULL
$$;
GRANT EXECUTE ON FUNCTION cv_learn(text) TO cv_analyst;

SET ROLE cv_analyst;
SELECT ok(cv_learn('cv'), 'a release from the distributed table');
RESET ROLE;
SELECT 'cv'::regclass::oid AS cv_oid0, cv_state('cv') AS cv_state0 \gset
SELECT is(:'cv_state0'::text, 'spent 0.1259765625 releases 1 grants 1 ledger 1', 'charged once');

-- alter_distributed_table: another shard count
SELECT alter_distributed_table('cv', shard_count => 6, cascade_to_colocated => false);
SELECT isnt('cv'::regclass::oid, :cv_oid0::oid, 'alter_distributed_table rebuilt the table (a new OID)');
SELECT is(cv_state('cv'), :'cv_state0', 'its budget, spent amounts, grant and ledger rows followed it');
SELECT is((SELECT count(*) FROM mrfdp.budget WHERE relation::oid = :cv_oid0), 0::bigint, 'nothing is left under the old OID');
SELECT is((SELECT count(*) FROM mrfdp.parked), 0::bigint, 'nothing stays parked after the conversion');
SET ROLE cv_analyst;
SELECT ok(cv_learn('cv'), 'the analyst learns from it again');
RESET ROLE;
SELECT is(cv_state('cv'), 'spent 0.251953125 releases 2 grants 1 ledger 2', 'and the spending goes on from where it was');

-- undistribute_table
SELECT 'cv'::regclass::oid AS cv_oid1 \gset
SELECT undistribute_table('cv');
SELECT isnt('cv'::regclass::oid, :cv_oid1::oid, 'undistribute_table rebuilt it');
SELECT is(cv_state('cv'), 'spent 0.251953125 releases 2 grants 1 ledger 2', 'the budget followed');

-- alter_table_set_access_method (on the local table now; columnar and back)
SELECT 'cv'::regclass::oid AS cv_oid2 \gset
SELECT alter_table_set_access_method('cv', 'columnar');
SELECT isnt('cv'::regclass::oid, :cv_oid2::oid, 'alter_table_set_access_method rebuilt it');
SELECT is(cv_state('cv'), 'spent 0.251953125 releases 2 grants 1 ledger 2', 'the budget followed');
SELECT alter_table_set_access_method('cv', 'heap');
SELECT is(cv_state('cv'), 'spent 0.251953125 releases 2 grants 1 ledger 2', 'and back to heap');
SET ROLE cv_analyst;
SELECT ok(cv_learn('cv'), 'the analyst still learns from it');
RESET ROLE;
SELECT is(cv_state('cv'), 'spent 0.3779296875 releases 3 grants 1 ledger 3', 'charged to the same budget');

-- Citus's own undistribution: a Citus local table made by a foreign key to a
-- reference table goes back to a plain table when the key is dropped
CREATE TABLE cv_ref (id int PRIMARY KEY);
SELECT create_reference_table('cv_ref');
INSERT INTO cv_ref VALUES (1);
CREATE TABLE cv_loc (id int, r int, "row" boolean[]);
INSERT INTO cv_loc SELECT i, 1, ARRAY[i % 2 = 0, i % 3 = 0, i % 5 = 0] FROM generate_series(1, 2000) i;
ALTER TABLE cv_loc ADD CONSTRAINT cv_loc_r FOREIGN KEY (r) REFERENCES cv_ref (id);
SELECT ok(EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'cv_loc'::regclass),
		  'the foreign key made cv_loc a Citus local table');
SELECT mrfdp.protect('cv_loc', epsilon => 10, delta => 1e-6);
SELECT mrfdp.grant_learning('cv_loc', 'cv_analyst');
SET ROLE cv_analyst;
SELECT ok(cv_learn('cv_loc'), 'a release from the Citus local table');
RESET ROLE;
SELECT 'cv_loc'::regclass::oid AS cv_loc_oid, cv_state('cv_loc') AS cv_loc_state \gset
ALTER TABLE cv_loc DROP CONSTRAINT cv_loc_r;
SELECT ok(NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'cv_loc'::regclass)
		  AND 'cv_loc'::regclass::oid <> :cv_loc_oid::oid,
		  'dropping the key undistributed it (a new OID)');
SELECT is(cv_state('cv_loc'), :'cv_loc_state', 'its budget, grant and ledger rows followed');

-- a plain DROP still forgets: the budget goes, the ledger keeps the name
CREATE TABLE cv_gone (id int, "row" boolean[]);
SELECT mrfdp.protect('cv_gone', epsilon => 10, delta => 1e-6);
SELECT 'cv_gone'::regclass::oid AS cv_gone_oid \gset
DROP TABLE cv_gone;
SELECT is((SELECT count(*) FROM mrfdp.budget WHERE relation::oid = :cv_gone_oid), 0::bigint,
		  'a dropped relation''s budget is forgotten');
SELECT is((SELECT count(*) FROM mrfdp.parked), 0::bigint, 'and not kept parked after its transaction');
-- a table of the same name created later gets nothing
CREATE TABLE cv_gone (id int, "row" boolean[]);
SELECT is((SELECT count(*) FROM mrfdp.budget WHERE relation::oid = 'cv_gone'::regclass::oid), 0::bigint,
		  'a later table of that name is not protected');

-- a rename onto a dropped protected name by a table with its own budget is refused
CREATE TABLE cv_a (id int);
CREATE TABLE cv_b (id int);
SELECT mrfdp.protect('cv_a', epsilon => 1, delta => 1e-6);
SELECT mrfdp.protect('cv_b', epsilon => 2, delta => 1e-6);
SELECT throws_ok($q$DO $d$ BEGIN DROP TABLE cv_a; ALTER TABLE cv_b RENAME TO cv_a; END $d$$q$, '55000', NULL,
				 'a protected table cannot take the name (and budget) of a dropped one');
SELECT is((SELECT array_agg(epsilon ORDER BY epsilon) FROM mrfdp.budget
		   WHERE relation::oid IN ('cv_a'::regclass::oid, 'cv_b'::regclass::oid)), ARRAY[1, 2]::float8[],
		  'both budgets are as they were (rolled back)');

SELECT * FROM finish();
SET client_min_messages = warning;
DROP TABLE cv, cv_loc, cv_ref, cv_gone, cv_a, cv_b CASCADE;
DROP FUNCTION cv_state(text);
DROP FUNCTION cv_learn(text);
DROP ROLE cv_analyst;
