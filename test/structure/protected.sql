-- server: session_preload
-- Structure learning on a protected relation: the protected path charges the
-- stable mode as an approximate-DP release (epsilon, delta), a NULL release
-- included, the threshold method as zCDP, and the aggregate path charges the
-- base table.  Not wrapped in a transaction (charges are committed by a
-- background worker, which sees only committed rows); cleans up at the end.
SELECT plan(18);

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_tap_structure') THEN
		CREATE ROLE mrfdp_tap_structure;
	END IF;
END $$;
SET client_min_messages = warning;
DROP TABLE IF EXISTS struct_prot CASCADE;
SET mrfdp.test_seed = 21;
-- a chain 1 - 2 - 3 - 4 - 5 with coupling 0.5
CREATE TABLE struct_prot AS
SELECT g AS id, x AS "row"
FROM mrf_sample(mrf_ising(ARRAY[[0, .5, 0, 0, 0], [.5, 0, .5, 0, 0], [0, .5, 0, .5, 0],
								[0, 0, .5, 0, .5], [0, 0, 0, .5, 0]]::float8[]), 8000, seed => 5)
	 WITH ORDINALITY AS s(x, g);
GRANT USAGE ON SCHEMA public TO mrfdp_tap_structure;
SELECT mrfdp.protect('struct_prot', epsilon => 10, delta => 1e-4);
SELECT mrfdp.grant_learning('struct_prot', 'mrfdp_tap_structure');
CREATE TEMP TABLE struct_results (what text, m mrf);
GRANT INSERT ON struct_results TO mrfdp_tap_structure;

-- The protected path: the analyst cannot read the rows, but learns their graph.
SET ROLE mrfdp_tap_structure;
SELECT throws_ok('SELECT count(*) FROM struct_prot', '42501', NULL, 'the analyst cannot read the relation');
INSERT INTO struct_results
SELECT 'stable', mrf_learn_structure_from('struct_prot', 'row', epsilon => 2, delta => 1e-6, eta => 0.5, variables => 5);
RESET ROLE;
SELECT is((SELECT string_agg(i || '-' || j, ' ' ORDER BY i, j) FROM struct_results, mrf_edges(m) WHERE what = 'stable'),
          '1-2 2-3 3-4 4-5', 'mrf_learn_structure_from releases the chain to a granted analyst');
SELECT is((SELECT learner || ' ' || notion || ' ' || epsilon || ' ' || delta || ' ' || coalesce(rho, 0) || ' ' || rows_read
           FROM mrfdp.ledger WHERE relation = 'struct_prot'::regclass ORDER BY id DESC LIMIT 1),
          'mrf_learn_structure approximate 2.015625 1e-06 0 8000',
          'the ledger records an approximate-DP charge (epsilon 2 (1 + 1/128) with the count of unreadable rows, delta 1e-6)');
SELECT is((SELECT role::text FROM mrfdp.ledger WHERE relation = 'struct_prot'::regclass ORDER BY id DESC LIMIT 1),
          'mrfdp_tap_structure', 'charged to the analyst');
SELECT ok((SELECT protected FROM mrfdp.ledger WHERE relation = 'struct_prot'::regclass ORDER BY id DESC LIMIT 1),
          'as a protected relation');
SELECT is((SELECT spent_approx_epsilon FROM mrfdp.budget WHERE relation = 'struct_prot'::regclass), 2.015625::numeric,
          'the budget adds the epsilon to the approximate-DP spend');
SELECT is((SELECT spent_approx_delta FROM mrfdp.budget WHERE relation = 'struct_prot'::regclass), mrfdp.exact_numeric(1e-6),
          'and the delta');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'struct_prot'::regclass), 0::numeric,
          'and nothing to the zCDP spend');

-- A NULL release is charged all the same: 10 blocks, fewer than tau = 15, so
-- no graph can clear the threshold (unless the noise adds 5 or more).
SET ROLE mrfdp_tap_structure;
INSERT INTO struct_results
SELECT 'tiny', mrf_learn_structure_from('struct_prot', 'row', epsilon => 2, delta => 1e-6, eta => 0.5, blocks => 10, variables => 5);
RESET ROLE;
SELECT ok((SELECT m IS NULL FROM struct_results WHERE what = 'tiny'), 'ten blocks release nothing');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'struct_prot'::regclass), 2::bigint,
          'the NULL release is charged');
SELECT is((SELECT spent_approx_epsilon FROM mrfdp.budget WHERE relation = 'struct_prot'::regclass), 4.03125::numeric,
          'its epsilon too');

-- The threshold method on the protected path is a zCDP release.
SET ROLE mrfdp_tap_structure;
INSERT INTO struct_results
SELECT 'threshold', mrf_learn_structure_from('struct_prot', 'row', rho => 0.5, eta => 0.5, method => 'threshold', variables => 5);
RESET ROLE;
SELECT is((SELECT notion || ' ' || rho FROM mrfdp.ledger WHERE relation = 'struct_prot'::regclass ORDER BY id DESC LIMIT 1),
          'zCDP 0.50390625', 'method threshold: the ledger records a zCDP charge');
SELECT is((SELECT mrf_info(m)->>'kind' FROM struct_results WHERE what = 'threshold'), 'structure', 'and a structure is released');

-- Over budget: refused before anything is released, nothing charged.
SET ROLE mrfdp_tap_structure;
SELECT throws_ok($$SELECT mrf_learn_structure_from('struct_prot', 'row', epsilon => 8, delta => 1e-6, eta => 0.5, variables => 5)$$,
                 '42501', NULL, 'a release beyond the epsilon budget is refused');
-- model 'pairwise' reads k-ary rows; these +-1 rows are outside 0..k-1, so on
-- the protected path every one is replaced by the fixed row (no error).
SELECT lives_ok($$SELECT mrf_learn_structure_from('struct_prot', 'row', epsilon => 0.5, delta => 1e-7, eta => 0.5, model => 'pairwise', k => 3, blocks => 10, variables => 5)$$,
                'model pairwise runs on the protected path, reading k-ary rows leniently');
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'struct_prot'::regclass), 4::bigint,
          'the refusal was not charged, the pairwise release was');

-- The aggregate path (a role that may read) charges the base table as approximate DP.
SELECT ok((SELECT mrf_learn_structure("row", epsilon => 1, delta => 1e-6, eta => 0.5) IS NOT NULL FROM struct_prot),
          'the aggregate path learns from the protected table');
SELECT is((SELECT notion || ' ' || epsilon || ' ' || delta FROM mrfdp.ledger WHERE relation = 'struct_prot'::regclass ORDER BY id DESC LIMIT 1),
          'approximate 1 1e-06', 'and the ledger records its approximate-DP charge');

-- Clean up (ledger rows stay: append-only).
DROP TABLE struct_prot;
RESET client_min_messages;
RESET mrfdp.test_seed;
SELECT * FROM finish();
