-- server: session_preload
-- The ledger's catalog under routine administration (issue 9, findings 7
-- and 8 and the catalog's weak points): dropping a column or a column's type
-- keeps the budget; a dropped relation keeps its ledger rows by name; temporary
-- tables cannot be protected; ledger rows say whether a release was private
-- and who owned the relation; owners and analysts read their rows through
-- mrfdp.releases; DROP EXTENSION is refused while budgets exist.
-- Not in a transaction: charges are committed by a worker; cleaned up at the end.
SELECT plan(44);

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_cat_owner') THEN
		CREATE ROLE mrfdp_cat_owner;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_cat_analyst') THEN
		CREATE ROLE mrfdp_cat_analyst;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_cat_analyst2') THEN
		CREATE ROLE mrfdp_cat_analyst2;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_cat_typeowner') THEN
		CREATE ROLE mrfdp_cat_typeowner;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_cat_outsider') THEN
		CREATE ROLE mrfdp_cat_outsider;
	END IF;
END $$;
DROP TABLE IF EXISTS cat_prot, cat_gone, cat_plain CASCADE;
DROP TYPE IF EXISTS cat_mood CASCADE;
GRANT USAGE ON SCHEMA public TO mrfdp_cat_owner, mrfdp_cat_analyst, mrfdp_cat_analyst2,
	mrfdp_cat_typeowner, mrfdp_cat_outsider;
CREATE TYPE cat_mood AS ENUM ('calm', 'busy');
ALTER TYPE cat_mood OWNER TO mrfdp_cat_typeowner;
CREATE TABLE cat_prot AS
SELECT g AS id, x AS "row", g % 5 AS extra, (ARRAY['calm', 'busy'])[1 + g % 2]::cat_mood AS mood
FROM mrf_sample(mrf_ising(ARRAY[[0, .5, 0], [.5, 0, .5], [0, .5, 0]]::float8[]), 1000, seed => 7)
	 WITH ORDINALITY AS s(x, g);
CREATE TABLE cat_gone AS SELECT * FROM cat_prot;
CREATE TABLE cat_plain AS SELECT "row" FROM cat_prot;
ALTER TABLE cat_prot OWNER TO mrfdp_cat_owner;
ALTER TABLE cat_gone OWNER TO mrfdp_cat_owner;
ALTER TABLE cat_plain OWNER TO mrfdp_cat_owner;
GRANT SELECT ON cat_plain TO mrfdp_cat_analyst;

SET ROLE mrfdp_cat_owner;
SELECT mrfdp.protect('cat_prot', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.protect('cat_gone', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.grant_learning('cat_prot', 'mrfdp_cat_analyst');
SELECT mrfdp.grant_learning('cat_prot', 'mrfdp_cat_analyst2');
SELECT mrfdp.grant_learning('cat_gone', 'mrfdp_cat_analyst');
RESET ROLE;

-- Releases: two private ones, one under mrfdp.test_seed, one from the dropped-to-be relation.
SET ROLE mrfdp_cat_analyst;
SELECT mrf_learn_ising_from('cat_prot', 'row', rho => 0.125, variables => 3) IS NOT NULL AS released;
SELECT mrf_learn_ising_from('cat_prot', 'row', rho => 0.25, variables => 3) IS NOT NULL AS released;
SELECT mrf_learn_ising_from('cat_gone', 'row', rho => 0.125, variables => 3) IS NOT NULL AS released;
RESET ROLE;
SET mrfdp.test_seed = 5;
SET ROLE mrfdp_cat_analyst;
SELECT mrf_learn_ising_from('cat_prot', 'row', rho => 0.0625, variables => 3) IS NOT NULL AS released;
RESET ROLE;
RESET mrfdp.test_seed;
CREATE TEMP TABLE cat_before AS
SELECT b.relation::text AS relation, b.epsilon, b.delta, b.rho_cap, b.spent_zcdp_rho, b.spent_pure_epsilon,
	   b.spent_pure_rho, b.spent_approx_epsilon, b.spent_approx_delta, b.releases,
	   (SELECT array_agg(g.role::text ORDER BY g.role::text) FROM mrfdp.grants g WHERE g.relation = b.relation) AS grants
FROM mrfdp.budget b WHERE b.relation = 'cat_prot'::regclass;
CREATE TEMP VIEW cat_now AS
SELECT b.relation::text AS relation, b.epsilon, b.delta, b.rho_cap, b.spent_zcdp_rho, b.spent_pure_epsilon,
	   b.spent_pure_rho, b.spent_approx_epsilon, b.spent_approx_delta, b.releases,
	   (SELECT array_agg(g.role::text ORDER BY g.role::text) FROM mrfdp.grants g WHERE g.relation = b.relation) AS grants
FROM mrfdp.budget b WHERE b.relation = 'cat_prot'::regclass;
SELECT is((SELECT releases FROM cat_before), 3::bigint, 'three releases were charged to cat_prot');

-- Finding 7: dropping a column, or a column's type by that type's owner, keeps the budget.
SET ROLE mrfdp_cat_owner;
ALTER TABLE cat_prot DROP COLUMN extra;
RESET ROLE;
SELECT results_eq('SELECT * FROM cat_now', 'SELECT * FROM cat_before',
                  'ALTER TABLE ... DROP COLUMN keeps the budget, the spent sums and the grants');
SET ROLE mrfdp_cat_typeowner;
DROP TYPE cat_mood CASCADE;
RESET ROLE;
SELECT hasnt_column('cat_prot', 'mood', 'DROP TYPE ... CASCADE by the type''s owner dropped the column');
SELECT results_eq('SELECT * FROM cat_now', 'SELECT * FROM cat_before',
                  'and kept the budget, the spent sums and the grants');
SET ROLE mrfdp_cat_analyst;
SELECT ok(mrf_learn_ising_from('cat_prot', 'row', rho => 0.125, variables => 3) IS NOT NULL,
          'the analyst still learns from the relation');
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'cat_prot'::regclass), 4::bigint,
          'and is charged on the same budget');

-- Temporary tables cannot be protected.
CREATE TEMP TABLE cat_tmp AS SELECT "row" FROM cat_plain;
SELECT throws_ok($$SELECT mrfdp.protect('cat_tmp', epsilon => 1, delta => 1e-6)$$, '0A000',
                 'temporary table "cat_tmp" cannot be protected', 'protecting a temporary table is refused');
SELECT is((SELECT count(*) FROM mrfdp.budget WHERE relation = 'cat_tmp'::regclass), 0::bigint,
          'and leaves no budget row');

-- Ledger rows name the relation and its owner, and say whether the release was private.
SELECT is((SELECT array_agg(DISTINCT relation_name) FROM mrfdp.ledger WHERE relation = 'cat_prot'::regclass),
          ARRAY['public.cat_prot'], 'ledger rows keep the relation''s qualified name');
SELECT is((SELECT array_agg(DISTINCT relation_owner::text) FROM mrfdp.ledger WHERE relation = 'cat_prot'::regclass),
          ARRAY['mrfdp_cat_owner'], 'and its owner at release time');
SELECT is((SELECT array_agg(private ORDER BY id) FROM mrfdp.ledger WHERE relation = 'cat_prot'::regclass),
          ARRAY[true, true, false, true], 'a release under mrfdp.test_seed is flagged not private');

-- The aggregate path over a temporary table records its name, never its OID
-- (the table dies with the session, unseen by the drop trigger).
SET ROLE mrfdp_cat_analyst;
CREATE TEMP TABLE cat_tmp_analyst AS SELECT "row" FROM cat_plain;
SELECT mrf_learn_ising("row", rho => 0.125) IS NOT NULL AS released FROM cat_tmp_analyst;
RESET ROLE;
SELECT is((SELECT relation::regclass FROM mrfdp.ledger WHERE role = 'mrfdp_cat_analyst'::regrole ORDER BY id DESC LIMIT 1), NULL::regclass,
          'a ledger row of a temporary table keeps no OID');
SELECT matches((SELECT relation_name FROM mrfdp.ledger WHERE role = 'mrfdp_cat_analyst'::regrole ORDER BY id DESC LIMIT 1), '^pg_temp_\d+\.cat_tmp_analyst$',
               'but keeps its name');
SELECT is((SELECT relation_owner::text FROM mrfdp.ledger WHERE role = 'mrfdp_cat_analyst'::regrole ORDER BY id DESC LIMIT 1), 'mrfdp_cat_analyst',
          'and its owner');

-- Dropping a relation ends its budget; its ledger rows stay, by name, without the OID.
CREATE TEMP TABLE gone_oid AS SELECT 'cat_gone'::regclass::oid AS oid;
CREATE TEMP TABLE gone_rows AS SELECT count(*) AS n FROM mrfdp.ledger WHERE relation = 'cat_gone'::regclass;
DROP TABLE cat_gone;
SELECT is((SELECT count(*) FROM mrfdp.budget WHERE relation::oid = (SELECT oid FROM gone_oid)), 0::bigint,
          'dropping the relation drops its budget');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation::oid = (SELECT oid FROM gone_oid)), 0::bigint,
          'no ledger row keeps the dropped OID');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation IS NULL AND relation_name = 'public.cat_gone'),
          (SELECT n FROM gone_rows), 'every ledger row of the dropped relation stays, by name');
SELECT ok((SELECT n FROM gone_rows) > 0, 'there were such rows');

-- The append-only trigger allows nothing else.
SELECT throws_ok($$UPDATE mrfdp.ledger SET relation = NULL WHERE relation = 'cat_prot'::regclass$$, '42501', NULL,
                 'the OID of a live relation cannot be cleared');
SELECT throws_ok($$UPDATE mrfdp.ledger SET learner = 'forged' WHERE relation_name = 'public.cat_gone'$$, '42501', NULL,
                 'a dropped relation''s rows cannot be changed');
SELECT throws_ok($$UPDATE mrfdp.ledger SET relation = NULL, relation_name = 'x' WHERE relation = 'cat_prot'::regclass$$,
                 '42501', NULL, 'nor renamed with the OID');
SELECT throws_ok($$DELETE FROM mrfdp.ledger WHERE relation IS NULL$$, '42501', NULL,
                 'nor deleted');

-- mrfdp.releases: each role reads the rows it is entitled to.
SET ROLE mrfdp_cat_analyst;
-- 4 from cat_prot, 1 from cat_gone, 1 from its temporary table
SELECT is((SELECT count(*) FROM mrfdp.releases WHERE role = 'mrfdp_cat_analyst'::regrole), 6::bigint,
          'an analyst sees all of its own releases');
SELECT is((SELECT count(*) FROM mrfdp.releases WHERE role <> 'mrfdp_cat_analyst'::regrole), 0::bigint,
          'and no one else''s');
SELECT ok((SELECT bool_and(statement LIKE '%mrf_learn_ising%') FROM mrfdp.releases),
          'with the text of its own statements');
SELECT throws_ok('SELECT count(*) FROM mrfdp.ledger', '42501', NULL, 'the ledger table itself stays closed');
RESET ROLE;
SET ROLE mrfdp_cat_analyst2;
SELECT is((SELECT count(*) FROM mrfdp.releases), 0::bigint,
          'another analyst with a grant on the same relation sees none of those releases');
SELECT is((SELECT releases FROM mrfdp.budget_status WHERE relation = 'cat_prot'::regclass), 4::bigint,
          'only the totals in budget_status');
RESET ROLE;
SET ROLE mrfdp_cat_owner;
SELECT is((SELECT count(*) FROM mrfdp.releases WHERE relation = 'cat_prot'::regclass), 4::bigint,
          'the owner sees every release from its relation');
SELECT is((SELECT count(*) FROM mrfdp.releases WHERE relation_name = 'public.cat_gone'), 1::bigint,
          'also from a relation it owned and dropped');
SELECT ok((SELECT bool_and(statement IS NULL) FROM mrfdp.releases WHERE role = 'mrfdp_cat_analyst'::regrole),
          'but not the text of another role''s statements');
RESET ROLE;
SET ROLE mrfdp_cat_outsider;
SELECT is((SELECT count(*) FROM mrfdp.releases), 0::bigint, 'an outsider sees nothing');
RESET ROLE;
SELECT is((SELECT count(*) FROM mrfdp.releases), (SELECT count(*) FROM mrfdp.ledger),
          'a superuser sees every row');

-- DROP EXTENSION would erase the ledger: refused while budgets exist, unless a superuser says so.
SET ROLE mrfdp_cat_analyst;
SELECT throws_ok('SET mrfdp.allow_drop_with_budgets = on', '42501', NULL,
                 'only a superuser can allow dropping the extension');
RESET ROLE;
BEGIN;
SELECT throws_ok('DROP EXTENSION mrfdp CASCADE', '2BP01', NULL,
                 'DROP EXTENSION mrfdp CASCADE is refused while budgets exist');
SELECT throws_ok('DROP EXTENSION mrfdp', '2BP01', NULL, 'so is DROP EXTENSION mrfdp');
SELECT throws_ok('DROP EXTENSION IF EXISTS pgtap_none, mrfdp', '2BP01', NULL,
                 'also in a list of extensions');
SELECT throws_ok('DROP SCHEMA public CASCADE', '2BP01', NULL,
                 'so is dropping its schema with CASCADE');
SELECT throws_ok('DROP SCHEMA mrfdp CASCADE', '2BP01', NULL,
                 'or its ledger''s schema (a member''s cascade drops the extension)');
SELECT throws_ok('DROP SCHEMA mrfdp_internal CASCADE', '2BP01', NULL,
                 'or its internal schema');
SELECT throws_ok(format('DROP OWNED BY %I', (SELECT extowner::regrole::text FROM pg_extension WHERE extname = 'mrfdp')),
                 '2BP01', NULL, 'so is DROP OWNED BY its owner');
SELECT ok(EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'mrfdp'), 'the extension is still there');
SET LOCAL mrfdp.allow_drop_with_budgets = on;
SELECT lives_ok('DROP EXTENSION mrfdp CASCADE', 'a superuser''s explicit setting allows it');
SELECT ok(NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'mrfdp'), 'and the extension is gone');
SELECT * FROM finish();
ROLLBACK;

-- Clean up (ledger rows stay: append-only).
DROP VIEW cat_now;
DROP TABLE cat_tmp, cat_before, gone_oid, gone_rows;
DROP TABLE cat_prot, cat_plain;
