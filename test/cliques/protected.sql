-- server: session_preload
-- The clique learner on the protected path: a pure-DP charge in the ledger.
-- Not wrapped in a transaction: charges are committed by a background worker,
-- which sees only committed catalog rows, so the setup commits and the end
-- cleans up (ledger rows stay: append-only).
SELECT plan(16);

\ir ../lib/protected.psql
DROP TABLE IF EXISTS prot_cliques CASCADE;
SET mrfdp.test_seed = 13;
CREATE TEMP TABLE truth AS SELECT '{"kind": "cliques", "p": 4, "k": 3,
  "cliques": [[1, 2], [2, 3], [3, 4]],
  "log_potentials": [[1, 0, 0, 0, 1, 0, 0, 0, 1], [1, 0, 0, 0, 1, 0, 0, 0, 1], [0, 1, 0, 0, 0, 1, 1, 0, 0]]}'::mrf AS m;
CREATE TABLE prot_cliques AS
SELECT g AS id, x AS "row" FROM mrf_sample((SELECT m FROM truth), 4000, seed => 2) WITH ORDINALITY AS s(x, g);
-- rows the protected path cannot read count as a fixed row, never as an error
INSERT INTO prot_cliques VALUES (4001, NULL), (4002, ARRAY[0, 7, 1, 2]), (4003, ARRAY[0, 1]);
SELECT pg_temp.protect_for_analyst('prot_cliques', epsilon => 1, delta => 0);

SET ROLE mrfdp_tap_analyst;
SELECT throws_ok('SELECT count(*) FROM prot_cliques', '42501', NULL, 'the analyst cannot read the relation');
RESET ROLE;
SET ROLE mrfdp_tap_outsider;
SELECT throws_ok($$SELECT mrf_learn_cliques_from('prot_cliques', 'row', cliques => '[[1, 2], [2, 3], [3, 4]]',
												 k => 3, epsilon => 0.5, variables => 4)$$,
				 '42501', NULL, 'a role without the grant is refused');
RESET ROLE;

-- Errors that depend on public facts only, raised before any row is read.
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_cliques_from('prot_cliques', 'row', cliques => '[[1, 2]]', k => 3, epsilon => 0.5)$$,
				 '22023', NULL, 'an array column needs variables => p');
SELECT throws_ok($$SELECT mrf_learn_cliques_from('prot_cliques', 'row', cliques => '[[1, 5]]', k => 3, epsilon => 0.5,
												 variables => 4)$$,
				 '22023', NULL, 'a clique outside 1..p');
SELECT throws_ok($$SELECT mrf_learn_cliques_from('prot_cliques', 'row', cliques => '[[1, 2]]', k => 3, rho => 0.5,
												 variables => 4)$$,
				 '42883', NULL, 'no zCDP budget on the protected form either');
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'prot_cliques'::regclass), 0::bigint,
		  'refused calls charge nothing');
SET ROLE mrfdp_tap_analyst;

-- A release: pure DP, charged to the relation before it is returned.
CREATE TEMP TABLE released AS
SELECT mrf_learn_cliques_from('prot_cliques', 'row', cliques => '[[1, 2], [2, 3], [3, 4]]',
							  k => 3, epsilon => 0.5, variables => 4) AS m;
SELECT is((SELECT mrf_info(m)->>'rows' FROM released), '4003',
		  'a granted analyst without SELECT learns through mrf_learn_cliques_from (unreadable rows included)');
SELECT ok((SELECT (mrf_info(m)->>'notion') = 'pure' AND (mrf_info(m)->>'epsilon')::float8 = 0.5
				  AND (mrf_info(m)->>'l1_sensitivity')::float8 = 6 FROM released),
		  'the model records pure DP with epsilon 0.5 and L1 sensitivity 2 x 3 cliques');
RESET ROLE;
SELECT ok((SELECT notion = 'pure' AND epsilon = 0.50390625 AND coalesce(rho, 0) = 0 AND coalesce(delta, 0) = 0
		   FROM mrfdp.ledger WHERE relation = 'prot_cliques'::regclass ORDER BY id DESC LIMIT 1),
		  'the ledger row is a pure charge of epsilon 0.5 (1 + 1/128), the count of unreadable rows included');
SELECT ok((SELECT learner = 'mrf_learn_cliques' AND rows_read = 4003 AND protected
				  AND role = 'mrfdp_tap_analyst'::regrole
		   FROM mrfdp.ledger WHERE relation = 'prot_cliques'::regclass ORDER BY id DESC LIMIT 1),
		  'the ledger row names the learner, the rows read and the analyst');
SELECT ok((SELECT spent_pure_epsilon = 0.50390625 AND spent_pure_rho = 0.12696075439453125 AND spent_zcdp_rho = 0 AND releases = 1
		   FROM mrfdp.budget WHERE relation = 'prot_cliques'::regclass),
		  'the budget spent 0.50390625 pure epsilon (rho 0.50390625^2 / 2), no zCDP');
SELECT ok((SELECT max(abs(l.probability - t.probability)) < 0.05
		   FROM mrf_marginals((SELECT m FROM released)) l
		   JOIN mrf_marginals((SELECT m FROM truth)) t USING (clique, assignment)),
		  'the released model is close to the truth');

-- The aggregate path charges the relation too (here, its owner reads it).
SELECT mrf_learn_cliques("row", cliques => '[[1, 2], [2, 3], [3, 4]]', k => 3, epsilon => 0.25) IS NOT NULL
FROM prot_cliques WHERE "row" IS NOT NULL AND array_length("row", 1) = 4 AND 2 >= ALL("row");
SELECT ok((SELECT spent_pure_epsilon = 0.75390625 AND releases = 2
		   FROM mrfdp.budget WHERE relation = 'prot_cliques'::regclass),
		  'the aggregate path charged 0.25 more');

-- Over budget: refused, nothing charged.
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_cliques_from('prot_cliques', 'row', cliques => '[[1, 2], [2, 3], [3, 4]]',
												 k => 3, epsilon => 0.5, variables => 4)$$,
				 '42501', 'privacy budget of relation public.prot_cliques cannot cover this release',
				 'a release over the budget is refused');
RESET ROLE;
SELECT ok((SELECT spent_pure_epsilon = 0.75390625 AND releases = 2
		   FROM mrfdp.budget WHERE relation = 'prot_cliques'::regclass),
		  'and charges nothing');
SET ROLE mrfdp_tap_analyst;
SELECT lives_ok($$SELECT mrf_learn_cliques_from('prot_cliques', 'row', cliques => '[[1, 2], [2, 3], [3, 4]]',
												k => 3, epsilon => 0.125, method => 'naive', variables => 4)$$,
				'what is left of the budget still fits a smaller release');
RESET ROLE;

-- Clean up (ledger rows stay: append-only).
DROP TABLE prot_cliques;
RESET mrfdp.test_seed;
SELECT * FROM finish();
