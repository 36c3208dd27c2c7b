-- server: session_preload
-- Synthetic rows follow their model on wide models with well-separated
-- modes, seed after seed.  One Gibbs chain per call stayed in the mode where
-- it started (all 2,000 rows in a 3% class for one seed, none for another);
-- models whose junction tree fits are now sampled exactly through it, so
-- each seed's counts are binomial around the model's own exact marginals.
-- Bounds: 5 binomial standard deviations plus one row.
BEGIN;
SELECT plan(17);

-- A 20-column table in which a rare class (about 3%) drives every other
-- column: 'c' under the rare class, 'a' otherwise, with probability 0.9.
CREATE TYPE pg_temp.sm_class AS ENUM ('common', 'rare');
CREATE TYPE pg_temp.sm_level AS ENUM ('a', 'b', 'c');
SELECT setseed(0.25);
CREATE TEMP TABLE sm_source AS
SELECT cls,
	   (SELECT array_agg(CASE WHEN u < 0.9 THEN (CASE WHEN cls = 'rare' THEN 'c' ELSE 'a' END)
							  WHEN u < 0.95 THEN 'b'
							  ELSE (CASE WHEN cls = 'rare' THEN 'a' ELSE 'c' END) END::pg_temp.sm_level)
		FROM (SELECT random() AS u, g2 FROM generate_series(1, 19) g2 WHERE g > 0) x) AS v
FROM (SELECT g, CASE WHEN random() < 0.03 THEN 'rare' ELSE 'common' END::pg_temp.sm_class AS cls
	  FROM generate_series(1, 20000) g) s;
CREATE TEMP TABLE sm_rows AS
SELECT cls, v[1] AS c1, v[2] AS c2, v[3] AS c3, v[4] AS c4, v[5] AS c5, v[6] AS c6, v[7] AS c7,
	   v[8] AS c8, v[9] AS c9, v[10] AS c10, v[11] AS c11, v[12] AS c12, v[13] AS c13,
	   v[14] AS c14, v[15] AS c15, v[16] AS c16, v[17] AS c17, v[18] AS c18, v[19] AS c19
FROM sm_source;

SET LOCAL mrfdp.test_seed = 23;
CREATE TEMP TABLE sm_model AS
SELECT mrf_learn_mst(r, rho => 100) AS m FROM sm_rows r;

-- the model's own exact share of the rare class (its clique marginals; every
-- clique of the tree that holds the class gives the same one-way marginal)
CREATE TEMP TABLE sm_truth AS
SELECT sum(probability) AS rare
FROM (SELECT clique, assignment, probability FROM mrf_marginals((SELECT m FROM sm_model))) mg
WHERE clique = (SELECT clique FROM mrf_marginals((SELECT m FROM sm_model)) WHERE 1 = ANY (clique) LIMIT 1)
  AND assignment[array_position(clique, 1)] = 1;
SELECT ok((SELECT rare BETWEEN 0.01 AND 0.1 FROM sm_truth), 'the model gives the rare class about 3%');

-- five seeds of 4,000 synthetic rows each: each near the model's share
CREATE TEMP TABLE sm_seeds AS
SELECT s AS seed,
	   (SELECT count(*) FILTER (WHERE cls = 'rare') FROM mrf_synthesize((SELECT m FROM sm_model), 4000, NULL::sm_rows, seed => s)) AS drawn
FROM generate_series(1, 5) s;
SELECT ok(abs(drawn - 4000 * t.rare) <= 5 * sqrt(4000 * t.rare * (1 - t.rare)) + 1,
		  format('seed %s: %s of 4000 synthetic rows in the rare class (model %s)', seed, drawn,
				 round((4000 * t.rare)::numeric, 1)))
FROM sm_seeds, sm_truth t ORDER BY seed;

-- the class drives the columns in the synthetic rows as in the model: among
-- synthetic rare rows most columns read 'c', among common ones 'a'
SELECT ok((SELECT avg((c1 = 'c')::int) FROM mrf_synthesize((SELECT m FROM sm_model), 4000, NULL::sm_rows, seed => 9)
		   WHERE cls = 'rare') > 0.7,
		  'synthetic rare rows carry the rare pattern');

-- no NOTICE about a chain: the tree model was sampled exactly
SELECT lives_ok($$SET LOCAL client_min_messages = warning;
				 SELECT count(*) FROM mrf_synthesize((SELECT m FROM sm_model), 10, NULL::sm_rows, seed => 1)$$,
				'mrf_synthesize on an MST model');

-- A star Ising model of 31 spins (spin 1 coupled to 30 leaves at 1.0, no
-- fields): two modes of equal mass that a chain never leaves.
CREATE TEMP TABLE sm_ising AS
SELECT mrf_ising((SELECT array_agg(row ORDER BY i)
				  FROM (SELECT i, array_agg(CASE WHEN (i = 1) <> (j = 1) THEN 1.0 ELSE 0.0 END ORDER BY j) AS row
						FROM generate_series(1, 31) i, generate_series(1, 31) j GROUP BY i) r)) AS m;
SELECT ok(abs(plus - 1000) <= 5 * sqrt(2000 * 0.25) + 1,
		  format('Ising star, seed %s: %s of 2000 rows with spin 1 at +1 (model 1000)', s, plus))
FROM (SELECT s, (SELECT count(*) FILTER (WHERE r[1] = 1) FROM mrf_sample((SELECT m FROM sm_ising), 2000, seed => s) r) AS plus
	  FROM generate_series(1, 8) s) x
ORDER BY s;

-- the exact sampler does not depend on burn_in or thin: same seed, same rows
SELECT is((SELECT array_agg(r) FROM mrf_sample((SELECT m FROM sm_ising), 50, 0, 1, 5) r),
		  (SELECT array_agg(r) FROM mrf_sample((SELECT m FROM sm_ising), 50, 5000, 50, 5) r),
		  'exactly sampled rows ignore burn_in and thin');

SELECT * FROM finish();
ROLLBACK;
