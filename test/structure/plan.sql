-- server: session_preload
-- mrf_structure_rows_needed for pairwise and t-wise structures (issue 10
-- item 2): the plan of each model against the rows the study measured for a
-- 90% exact release (bench/run_structure_plan_study.sh, README
-- "Defaults": 94 blocks at epsilon 1, delta 1e-6), within 3x of each;
-- the model's default lambda; no plan when lambda is well below the width;
-- bad arguments with their SQLSTATE.
BEGIN;
SELECT plan(17);

-- Planned rows of the whole table for (model, p, k or t, eta, width, lambda).
CREATE FUNCTION pg_temp.planned(model text, p int, kt int, eta float8, width float8, lambda float8)
RETURNS bigint LANGUAGE sql AS $$
	SELECT "rows" FROM mrf_structure_rows_needed(p, eta => eta, epsilon => 1, delta => 1e-6,
		lambda => lambda, width => width, model => model,
		k => CASE WHEN model = 'pairwise' THEN kt END, t => CASE WHEN model = 'twise' THEN kt END)
$$;

-- Measured rows for a 90% exact release (the study's table), one point of
-- each family; the plan must be within 3x of every one.
CREATE TEMP TABLE measured(model text, family text, p int, kt int, eta float8, width float8, lambda float8, "rows" bigint);
INSERT INTO measured VALUES
	('pairwise', 'chain', 8, 3, 0.2291, 1.123, 4, 260686),
	('pairwise', 'random', 8, 3, 0.2376, 2.178, 4, 360345),
	('pairwise', 'chain', 6, 4, 0.4262, 1.535, 4, 181598),
	('pairwise', 'random', 6, 4, 0.4045, 3.029, 4, 184358),
	('twise', 'chain', 10, 3, 0.3, 1.453, 2, 25701),
	('twise', 'chain', 10, 3, 0.3, 1.453, 4, 72644),
	('twise', 'random', 10, 3, 0.21, 1.135, 4, 102571),
	('twise', 'random', 14, 3, 0.45, 4.21, 4, 24828);
SELECT is((SELECT count(*) FROM measured
           WHERE pg_temp.planned(model, p, kt, eta, width, lambda) NOT BETWEEN "rows" / 3 AND "rows" * 3),
          0::bigint, 'every measured point is within 3x of its plan');
SELECT ok((SELECT bool_and(pg_temp.planned(model, p, kt, eta, width, lambda) > 0) FROM measured),
          'every point has a plan');

-- The model's default lambda (4 for pairwise and t-wise, as mrf_learn_structure takes it).
SELECT is((SELECT rows_per_block FROM mrf_structure_rows_needed(8, 0.3, 1, 1e-6, model => 'pairwise', k => 3, width => 2)),
          (SELECT rows_per_block FROM mrf_structure_rows_needed(8, 0.3, 1, 1e-6, model => 'pairwise', k => 3, width => 2, lambda => 4)),
          'pairwise: no lambda is lambda 4');
SELECT is((SELECT rows_per_block FROM mrf_structure_rows_needed(10, 0.3, 1, 1e-6, model => 'twise', t => 3, width => 2)),
          (SELECT rows_per_block FROM mrf_structure_rows_needed(10, 0.3, 1, 1e-6, model => 'twise', t => 3, width => 2, lambda => 4)),
          't-wise: no lambda is lambda 4');
-- model 'ising' is the default and unchanged
SELECT is((SELECT "rows" FROM mrf_structure_rows_needed(20, eta => 0.5, epsilon => 1, delta => 1e-6, width => 2, model => 'ising')),
          (SELECT "rows" FROM mrf_structure_rows_needed(20, eta => 0.5, epsilon => 1, delta => 1e-6, width => 2)),
          'model ising is the default');
-- blocks and tau do not depend on the model
SELECT is((SELECT (block_count, tau) FROM mrf_structure_rows_needed(8, 0.3, 1, 1e-6, model => 'pairwise', k => 3)),
          (SELECT (block_count, tau) FROM mrf_structure_rows_needed(8, 0.3, 1, 1e-6)),
          'blocks and tau are the stable mode''s');
-- larger alphabets and orders need more rows
SELECT ok(pg_temp.planned('pairwise', 8, 4, 0.3, 2, 4) > pg_temp.planned('pairwise', 8, 3, 0.3, 2, 4),
          'pairwise: k = 4 needs more rows than k = 3');
SELECT ok(pg_temp.planned('twise', 10, 4, 0.3, 2, 4) > pg_temp.planned('twise', 10, 3, 0.3, 2, 4),
          't-wise: t = 4 needs more rows than t = 3');

-- lambda well below the width: no plan (NULL rows, a NOTICE)
SET LOCAL client_min_messages = warning;
SELECT is((SELECT "rows" FROM mrf_structure_rows_needed(8, 0.3, 1, 1e-6, model => 'pairwise', k => 3, lambda => 1, width => 3)),
          NULL::bigint, 'pairwise: no plan at lambda 1 for width 3');
SELECT is((SELECT "rows" FROM mrf_structure_rows_needed(10, 0.3, 1, 1e-6, model => 'twise', t => 3, lambda => 1, width => 4)),
          NULL::bigint, 't-wise: no plan at lambda 1 for width 4');
RESET client_min_messages;

-- bad arguments
SELECT throws_ok($$SELECT * FROM mrf_structure_rows_needed(8, 0.3, 1, 1e-6, model => 'potts')$$,
                 '22023', NULL, 'an unknown model');
SELECT throws_ok($$SELECT * FROM mrf_structure_rows_needed(8, 0.3, 1, 1e-6, model => 'pairwise')$$,
                 '22023', NULL, 'pairwise without k');
SELECT throws_ok($$SELECT * FROM mrf_structure_rows_needed(8, 0.3, 1, 1e-6, model => 'pairwise', k => 256)$$,
                 '22023', NULL, 'pairwise with k above 255');
SELECT throws_ok($$SELECT * FROM mrf_structure_rows_needed(8, 0.3, 1, 1e-6, model => 'twise', t => 9)$$,
                 '22023', NULL, 't-wise with t above p');
SELECT throws_ok($$SELECT * FROM mrf_structure_rows_needed(8, 0.3, 1, 1e-6, k => 3)$$,
                 '22023', NULL, 'k with model ising');
SELECT throws_ok($$SELECT * FROM mrf_structure_rows_needed(8, 0.3, 1, 1e-6, model => 'pairwise', k => 3, t => 3)$$,
                 '22023', NULL, 't with model pairwise');
SELECT throws_ok($$SELECT * FROM mrf_structure_rows_needed(8, 1e-9, 1, 1e-6, model => 'pairwise', k => 3)$$,
                 '22003', NULL, 'a pairwise plan too large to represent');

SELECT * FROM finish();
ROLLBACK;
