-- server: session_preload
-- The privacy ledger end to end.  Not wrapped in a transaction: charges are
-- committed by a background worker, which sees only committed catalog rows,
-- so the setup commits and the end cleans up.
SELECT plan(33);

\ir ../lib/protected.psql
DROP TABLE IF EXISTS prot, prot_other, prot_models CASCADE;
SET mrfdp.test_seed = 9;
CREATE TABLE prot AS
SELECT g AS id, x AS "row"
FROM mrf_sample(mrf_ising(ARRAY[[0, .5, 0], [.5, 0, .5], [0, .5, 0]]::float8[]), 3000, seed => 4)
	 WITH ORDINALITY AS s(x, g);
CREATE TABLE prot_other AS SELECT id, id % 7 AS k FROM prot;

-- Owners only; analysts can neither protect nor read.
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrfdp.protect('prot', epsilon => 100, delta => 1e-6)$$, '42501', NULL,
                 'only the owner can protect a relation');
SELECT throws_ok('SELECT count(*) FROM prot', '42501', NULL, 'the analyst cannot read the relation');
RESET ROLE;

-- rho_cap 0.3779296875 lets exactly three releases of rho = 0.125 through the
-- protected path, each charged 0.125 (1 + 1/128) with its count of
-- unreadable rows (binary fractions: exact).
SELECT lives_ok($$SELECT mrfdp.protect('prot', epsilon => 1000, delta => 1e-6, rho_cap => 0.3779296875)$$,
                'the owner protects the relation');
SELECT lives_ok($$SELECT mrfdp.protect('prot_other', epsilon => 1000, delta => 1e-6)$$,
                'the owner protects a second relation');
SELECT mrfdp.grant_learning('prot', 'mrfdp_tap_analyst');
SET ROLE mrfdp_tap_outsider;
SELECT throws_ok($$SELECT mrfdp.grant_learning('prot', 'mrfdp_tap_outsider')$$,
                 '42501', NULL, 'only the owner can grant learning');
RESET ROLE;

-- The protected path.
SET ROLE mrfdp_tap_outsider;
SELECT throws_ok($$SELECT mrf_learn_ising_from('prot', 'row', rho => 0.125, variables => 3)$$, '42501', NULL,
                 'a role without the grant is refused');
RESET ROLE;
SET ROLE mrfdp_tap_analyst;
SELECT is((SELECT mrf_info(mrf_learn_ising_from('prot', 'row', rho => 0.125, variables => 3))->>'rows'),
          '3000', 'a granted analyst without SELECT learns through mrf_learn_ising_from');
SELECT ok((SELECT abs(rho - 0.251953125) < 1e-12 AND rho <= 0.251953125 FROM mrfdp.remaining('prot')),
          'remaining() shows what is left of rho_cap, never more');
SELECT throws_ok($$UPDATE mrfdp.budget SET epsilon = 1e9$$, '42501', NULL, 'the analyst cannot write the budget');
SELECT throws_ok($$SELECT mrfdp.protect('prot', epsilon => 1e9, delta => 1e-6)$$, '42501', NULL,
                 'the analyst cannot raise the budget');
SELECT throws_ok($$DELETE FROM mrfdp.ledger$$, '42501', NULL, 'the analyst cannot delete ledger rows');
SELECT throws_ok($$INSERT INTO mrfdp.ledger (relation, protected, role, learner, notion) VALUES ('prot', true, 'mrfdp_tap_analyst', 'x', 'zCDP')$$,
                 '42501', NULL, 'the analyst cannot forge ledger rows');
SELECT throws_ok($$SELECT mrfdp.grant_learning('prot', 'mrfdp_tap_outsider')$$, '42501', NULL,
                 'the analyst cannot pass the grant on');
SELECT is((SELECT count(*) FROM mrfdp.budget_status WHERE relation = 'prot'::regclass), 1::bigint,
          'the analyst sees the budget of a granted relation');
SELECT is((SELECT count(*) FROM mrfdp.budget_status WHERE relation = 'prot_other'::regclass), 0::bigint,
          'but not of others');
RESET ROLE;
SELECT throws_ok($$DELETE FROM mrfdp.ledger$$, '42501', 'mrfdp.ledger is append-only',
                 'not even the superuser deletes ledger rows');

-- ROLLBACK, an exception block and a later error cannot undo a charge.
CREATE TEMP TABLE before AS SELECT releases FROM mrfdp.budget WHERE relation = 'prot'::regclass;
SELECT mrfdp.protect('prot', epsilon => 1000, delta => 1e-6, rho_cap => 1000);
BEGIN;
SET LOCAL ROLE mrfdp_tap_analyst;
SELECT mrf_learn_ising_from('prot', 'row', rho => 0.125, variables => 3) IS NOT NULL AS released;
ROLLBACK;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'prot'::regclass),
          (SELECT releases + 1 FROM before), 'ROLLBACK keeps the charge');
DO $$
BEGIN
	PERFORM mrf_learn_ising_from('prot', 'row', rho => 0.125, variables => 3);
	RAISE EXCEPTION 'the caller changes its mind';
EXCEPTION WHEN raise_exception THEN
	NULL;
END $$;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'prot'::regclass),
          (SELECT releases + 2 FROM before), 'an exception block keeps the charge');
SELECT throws_ok($$SELECT (mrf_learn_ising_from('prot', 'row', rho => 0.125, variables => 3) IS NOT NULL)::int / 0$$,
                 '22012', NULL, 'an error after the release in the same statement');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'prot'::regclass),
          (SELECT releases + 3 FROM before), 'keeps the charge too');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation = 'prot'::regclass),
          (SELECT releases FROM mrfdp.budget WHERE relation = 'prot'::regclass), 'every release left its ledger row');

-- Over budget: nothing released, nothing charged.
SELECT mrfdp.protect('prot', epsilon => 1000, delta => 1e-6, rho_cap => 0.75);
SELECT throws_ok($$SELECT mrf_learn_ising_from('prot', 'row', rho => 0.375, variables => 3)$$, '42501',
                 'privacy budget of relation public.prot cannot cover this release', 'a release over the cap is refused');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'prot'::regclass),
          (SELECT releases + 3 FROM before), 'and charges nothing');
SELECT throws_ok($$SELECT mrfdp.protect('prot', epsilon => 1000, delta => 1e-6, rho_cap => 0.25)$$, '22023', NULL,
                 'a budget cannot be set below what is spent');

-- The aggregate path charges the base table through views, CTEs, subqueries and joins.
SELECT mrfdp.protect('prot', epsilon => 1000, delta => 1e-6, rho_cap => 1000);
CREATE VIEW prot_view AS SELECT "row" FROM prot;
CREATE TEMP TABLE agg_before AS SELECT releases FROM mrfdp.budget WHERE relation = 'prot'::regclass;
SELECT mrf_learn_ising("row", rho => 0.125) IS NOT NULL FROM prot_view;
WITH c AS (SELECT "row" FROM prot) SELECT mrf_learn_ising("row", rho => 0.125) IS NOT NULL FROM c;
SELECT mrf_learn_ising("row", rho => 0.125) IS NOT NULL FROM (SELECT "row" FROM prot WHERE id > 0) q;
SELECT mrf_learn_ising(p."row", rho => 0.125) IS NOT NULL FROM prot_other o JOIN prot p USING (id) WHERE o.k = 1;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'prot'::regclass),
          (SELECT releases + 4 FROM agg_before), 'a view, a CTE, a subquery and a join are charged to the base table');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'prot_other'::regclass), 1::bigint,
          'the join charged the other protected relation as well');
SELECT ok((SELECT bool_and(protected) FROM mrfdp.ledger WHERE relation = 'prot'::regclass),
          'ledger rows of the base table are marked protected');

-- Ten and more sessions race for the last of a budget.
SELECT mrfdp.protect('prot', epsilon => 1000, delta => 1e-6,
                     rho_cap => (SELECT (spent_zcdp_rho + 0.3779296875)::float8 FROM mrfdp.budget WHERE relation = 'prot'::regclass));
CREATE EXTENSION IF NOT EXISTS dblink;
CREATE TEMP TABLE race_before AS SELECT releases, spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'prot'::regclass;
CREATE TEMP TABLE racers AS SELECT 'racer' || g AS name FROM generate_series(1, 12) g;
SELECT count(dblink_connect(name, format('host=%s port=%s dbname=%s',
	split_part(current_setting('unix_socket_directories'), ',', 1), current_setting('port'), current_database())))
FROM racers;
SELECT count(dblink_send_query(name, $q$SELECT mrf_learn_ising_from('prot', 'row', rho => 0.125, variables => 3) IS NOT NULL$q$))
FROM racers;
CREATE TEMP TABLE race_results AS
SELECT name, (SELECT count(*) FROM dblink_get_result(name, false) AS r(ok boolean) WHERE ok) AS won FROM racers;
SELECT count(dblink_disconnect(name)) FROM racers;
SELECT is((SELECT sum(won)::int FROM race_results), 3, 'of 12 racing sessions exactly 3 fit in the budget');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'prot'::regclass),
          (SELECT releases + 3 FROM race_before), 'and exactly 3 were charged');
SELECT is((SELECT spent_zcdp_rho - (SELECT spent_zcdp_rho FROM race_before) FROM mrfdp.budget WHERE relation = 'prot'::regclass),
          0.3779296875::numeric, 'the spent rho is exactly at the cap');

-- The ledger's own catalog reads are never recorded as reads of the statement.
SELECT is((SELECT count(*) FROM mrfdp.ledger l JOIN pg_class c ON c.oid = l.relation::oid
           WHERE c.relnamespace = 'mrfdp'::regnamespace), 0::bigint,
          'no ledger row names the catalog itself');
-- Exact sums stay exact: a budget can be spent to its last bit.
SELECT is(mrfdp.spent_epsilon(0, 1, 0.5, 0, 0, 0), 1::float8, 'a pure epsilon of 1 spends exactly 1');

-- Clean up (ledger rows stay: append-only).
DROP VIEW prot_view;
DROP TABLE prot, prot_other;
SELECT is((SELECT count(*) FROM mrfdp.budget WHERE relation::oid NOT IN (SELECT oid FROM pg_class)), 0::bigint,
          'dropping a protected relation drops its budget');
SELECT * FROM finish();
