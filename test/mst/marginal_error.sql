-- server: session_preload
-- mrf_marginal_error and mrf_marginal_errors (issue 12 item 3): the L1
-- error of a clique model's exact one-, two- and three-way marginals against
-- a relation.  On a chain of strongly dependent columns (enums of 3 and 4
-- labels, a boolean, a text column with a declared domain), MST at a huge
-- rho has near-zero error and the independent model a large two-way error;
-- a pair's error equals the one computed in SQL from mrf_marginals and a
-- GROUP BY; NULL-as-category models, integer-array models, Ising and
-- pairwise models (through their clique form) are read;
-- the function reads with the caller's rights (a role without SELECT is
-- refused); every bad input fails with its SQLSTATE.
BEGIN;
SELECT plan(36);
SET LOCAL mrfdp.test_seed = 12;
SELECT setseed(0.12);

CREATE TYPE me_colour AS ENUM ('red', 'green', 'blue');
CREATE TYPE me_size AS ENUM ('s', 'm', 'l', 'xl');
CREATE TABLE me_rows (colour me_colour, size me_size, flag boolean, region text);
-- a chain colour - size - flag - region, each copying its parent with
-- probability 0.9 (else uniform)
INSERT INTO me_rows
SELECT (enum_range(NULL::me_colour))[1 + c],
	   (enum_range(NULL::me_size))[1 + s],
	   f = 1,
	   (ARRAY['n', 's', 'e'])[1 + CASE WHEN random() < 0.9 THEN f ELSE floor(random() * 3)::int END]
FROM (SELECT c, s, CASE WHEN random() < 0.9 THEN s % 2 ELSE floor(random() * 2)::int END AS f
	  FROM (SELECT c, CASE WHEN random() < 0.9 THEN c ELSE floor(random() * 4)::int END AS s
			FROM (SELECT floor(random() * 3)::int AS c FROM generate_series(1, 20000)) a) b) t;

-- the clique learner's naive fit (at epsilon 1e8 its default CGM-EM fit
-- leaves the data: noise scale 2e-6, every E-step at its cap)
CREATE TABLE me_models AS
SELECT 'mst' AS name,
	   mrf_learn_mst(r, rho => 1e8, domains => '{"region": ["n", "s", "e"]}') AS m FROM me_rows r
UNION ALL
SELECT 'independent',
	   mrf_learn_cliques(r, cliques => '[[1], [2], [3], [4]]', epsilon => 1e8, method => 'naive',
						 domains => '{"region": ["n", "s", "e"]}') FROM me_rows r
UNION ALL
SELECT 'true cliques',
	   mrf_learn_cliques(r, cliques => '[[1, 2], [2, 3], [3, 4]]', epsilon => 1e8, method => 'naive',
						 domains => '{"region": ["n", "s", "e"]}') FROM me_rows r;
CREATE TEMP TABLE me_err AS
SELECT name, e.* FROM me_models, mrf_marginal_error(m, 'me_rows') e;

SELECT is((SELECT array_agg(way || ':' || marginals ORDER BY way) FROM me_err WHERE name = 'mst'),
		  ARRAY['1:4', '2:6', '3:4'], 'every set of 1, 2 and 3 of the 4 variables');
SELECT ok((SELECT max(max_l1) < 0.01 FROM me_err WHERE name = 'mst' AND way = 1),
		  'MST at rho 1e8: one-way errors near zero');
SELECT ok((SELECT mean_l1 < 0.03 AND max_l1 < 0.05 FROM me_err WHERE name = 'mst' AND way = 2),
		  'MST at rho 1e8 on a tree-shaped table: two-way errors near zero');
SELECT ok((SELECT mean_l1 < 0.05 FROM me_err WHERE name = 'mst' AND way = 3),
		  'MST at rho 1e8 on a tree-shaped table: three-way errors near zero');
SELECT ok((SELECT max_l1 < 0.01 FROM me_err WHERE name = 'independent' AND way = 1),
		  'the independent model at epsilon 1e8: one-way errors near zero');
SELECT ok((SELECT mean_l1 > 0.4 FROM me_err WHERE name = 'independent' AND way = 2),
		  'the independent model: a large two-way error on a strongly dependent table');
SELECT ok((SELECT i.mean_l1 > 10 * m.mean_l1 FROM me_err i, me_err m
		   WHERE i.name = 'independent' AND m.name = 'mst' AND i.way = 3 AND m.way = 3),
		  'three-way: the independent model is more than 10 times worse than MST');
SELECT ok((SELECT max(abs(t.mean_l1 - m.mean_l1)) < 0.01 FROM me_err t JOIN me_err m USING (way)
		   WHERE t.name = 'true cliques' AND m.name = 'mst'),
		  'the true cliques at epsilon 1e8 and MST at rho 1e8 agree (both the tree of the data)');

-- one pair's error by hand: mrf_marginals' table of clique (1, 2) (a clique
-- of the true-cliques model) against the rows' GROUP BY, by labels
SELECT ok((SELECT abs(e.l1 - h.l1) < 1e-9
		   FROM mrf_marginal_errors((SELECT m FROM me_models WHERE name = 'true cliques'), 'me_rows',
									ways => '{2}') e,
				(SELECT sum(abs(mm.probability - coalesce(d.freq, 0))) AS l1
				 FROM mrf_marginals((SELECT m FROM me_models WHERE name = 'true cliques')) mm
				 LEFT JOIN (SELECT colour::text AS c, size::text AS s, count(*)::float8 / 20000 AS freq
							FROM me_rows GROUP BY 1, 2) d ON d.c = mm.labels[1] AND d.s = mm.labels[2]
				 WHERE mm.clique = ARRAY[1, 2]) h
		   WHERE e.variables = ARRAY[1, 2]),
		  'a pair''s error equals sum |marginal - frequency| computed from mrf_marginals and GROUP BY');
SELECT is((SELECT array_agg(array_to_string(names, ',') ORDER BY variables)
		   FROM mrf_marginal_errors((SELECT m FROM me_models WHERE name = 'mst'), 'me_rows', ways => '{3}')),
		  ARRAY['colour,size,flag', 'colour,size,region', 'colour,flag,region', 'size,flag,region'],
		  'mrf_marginal_errors: one row per set, with the variables'' names');
SELECT ok((SELECT min(l1) >= 0 AND max(l1) <= 2 FROM me_models,
		   mrf_marginal_errors(m, 'me_rows')), 'every L1 error is between 0 and 2');
-- columns in another order name the same variables; a view renames them
CREATE VIEW me_renamed AS SELECT region AS r, flag AS f, size AS s, colour AS c FROM me_rows;
SELECT is((SELECT array_agg(mean_l1 ORDER BY way)
		   FROM mrf_marginal_error((SELECT m FROM me_models WHERE name = 'mst'), 'me_rows',
								   '{region, flag, size, colour}')),
		  (SELECT array_agg(mean_l1 ORDER BY way) FROM me_err WHERE name = 'mst'),
		  'columns are matched to the model''s variables by name');

-- a model of 4^12 states (marginals by junction trees, not enumeration): a
-- chain of 12 variables of 4 values, each copying the previous with
-- probability 0.8; MST at rho 1e8 selects the chain, and the error of
-- (x1, x2, x3), a set no clique holds, equals the one from
-- P(x1, x2) P(x2, x3) / P(x2) computed from mrf_marginals
CREATE FUNCTION pg_temp.me_chain(p int) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
	a int[] := ARRAY[floor(random() * 4)::int];
BEGIN
	FOR i IN 2 .. p LOOP
		a := a || CASE WHEN random() < 0.8 THEN a[i - 1] ELSE floor(random() * 4)::int END;
	END LOOP;
	RETURN a;
END $$;
CREATE TABLE me_chain AS SELECT pg_temp.me_chain(12) AS x FROM generate_series(1, 5000);
CREATE TABLE me_chain_model AS SELECT mrf_learn_mst(x, rho => 1e8, k => 4) AS m FROM me_chain;
SELECT is((SELECT (m::jsonb)->'cliques' @> '[[1, 2], [2, 3]]' FROM me_chain_model), true,
		  'MST selects the chain''s first two pairs');
SELECT ok((SELECT abs(e.l1 - h.l1) < 1e-9
		   FROM mrf_marginal_errors((SELECT m FROM me_chain_model), 'me_chain', '{x}', '{3}') e,
				(WITH mm AS (SELECT clique, assignment AS v, probability AS q
							 FROM mrf_marginals((SELECT m FROM me_chain_model))),
					  tri AS (SELECT a.v[1] AS x1, a.v[2] AS x2, b.v[2] AS x3,
									 a.q * b.q / (SELECT sum(c.q) FROM mm c
												  WHERE c.clique = '{1,2}' AND c.v[2] = a.v[2]) AS q
							  FROM mm a JOIN mm b ON a.clique = '{1,2}' AND b.clique = '{2,3}' AND a.v[2] = b.v[1]),
					  freq AS (SELECT x[1] AS x1, x[2] AS x2, x[3] AS x3, count(*)::float8 / 5000 AS f
							   FROM me_chain GROUP BY 1, 2, 3)
				 SELECT sum(abs(tri.q - coalesce(freq.f, 0))) AS l1
				 FROM tri LEFT JOIN freq USING (x1, x2, x3)) h
		   WHERE e.variables = '{1,2,3}'),
		  'a triple across two cliques: the junction tree''s marginal, as the chain rule gives it');
SELECT ok((SELECT mean_l1 < 0.1 FROM mrf_marginal_error((SELECT m FROM me_chain_model), 'me_chain', '{x}')
		   WHERE way = 3), 'the chain''s three-way errors are small (5,000 rows, 64 cells a set)');

-- NULL as a category: the model has a NULL-labelled value per variable
CREATE TABLE me_nulls AS
SELECT CASE WHEN random() < 0.2 THEN NULL ELSE colour END AS colour, size FROM me_rows;
SELECT ok((SELECT mean_l1 < 0.03 FROM mrf_marginal_error(
			   (SELECT mrf_learn_mst(r, rho => 1e8, nulls => 'category') FROM me_nulls r), 'me_nulls')
		   WHERE way = 2),
		  'a model with NULL as a value is compared with NULLs counted as that value');
SELECT throws_ok($$SELECT * FROM mrf_marginal_error((SELECT m FROM me_models WHERE name = 'mst'), 'me_nulls',
													'{colour, size}')$$,
				 '22023', NULL, 'two columns for a model of four variables');
SELECT throws_ok($$SELECT * FROM mrf_marginal_error((SELECT mrf_learn_mst(r, rho => 1e8) FROM (SELECT colour, size FROM me_rows) r),
													'me_nulls')$$,
				 '22004', NULL, 'a NULL the model has no value for');

-- integer arrays: no names, so the array column is given
CREATE TABLE me_arrays AS
SELECT ARRAY[c, s % 3, CASE WHEN random() < 0.9 THEN s % 3 ELSE 0 END] AS x
FROM (SELECT array_position(enum_range(NULL::me_colour), colour) - 1 AS c,
			 array_position(enum_range(NULL::me_size), size) - 1 AS s FROM me_rows) t;
SELECT ok((SELECT mean_l1 < 0.03 FROM mrf_marginal_error(
			   (SELECT mrf_learn_mst(x, rho => 1e8, k => 3) FROM me_arrays), 'me_arrays', '{x}')
		   WHERE way = 2),
		  'a model of integer arrays against the array column');
SELECT throws_ok($$SELECT * FROM mrf_marginal_error((SELECT mrf_learn_mst(x, rho => 1e8, k => 3) FROM me_arrays), 'me_arrays')$$,
				 '22023', NULL, 'a model without column names needs columns');
SELECT throws_ok($$SELECT * FROM mrf_marginal_error((SELECT mrf_learn_mst(x, rho => 1e8, k => 3) FROM me_arrays), 'me_rows', '{colour}')$$,
				 '42804', NULL, 'one column for several variables must be an array');
UPDATE me_arrays SET x[2] = 7 WHERE x[1] = 0;
SELECT throws_ok($$SELECT * FROM mrf_marginal_error((SELECT mrf_learn_mst(x, rho => 1e8, k => 3) FROM me_arrays WHERE x[2] < 3), 'me_arrays', '{x}')$$,
				 '23514', NULL, 'a code outside the model''s alphabet');

-- bad inputs
SELECT throws_ok($$SELECT * FROM mrf_marginal_error((SELECT m FROM me_models WHERE name = 'mst'), 'me_rows',
													'{colour, size, flag, weight}')$$,
				 '22023', NULL, 'a column that is not a variable of the model');
SELECT throws_ok($$SELECT * FROM mrf_marginal_error((SELECT m FROM me_models WHERE name = 'mst'), 'me_rows',
													'{colour, size, flag, colour}')$$,
				 '22023', NULL, 'a column given twice');
SELECT throws_ok($$SELECT * FROM mrf_marginal_error((SELECT m FROM me_models WHERE name = 'mst'), 'me_nulls')$$,
				 '42703', NULL, 'a relation without the model''s columns');
SELECT throws_ok($$SELECT * FROM mrf_marginal_error((SELECT m FROM me_models WHERE name = 'mst'), 'me_rows', ways => '{0}')$$,
				 '22023', NULL, 'ways below 1');
SELECT is((SELECT array_agg(way ORDER BY way) FROM mrf_marginal_error((SELECT m FROM me_models WHERE name = 'mst'),
																	   'me_rows', ways => '{5, 1, 1}')),
		  ARRAY[1], 'ways above the model''s variables have no sets; a way asked twice is one');
SELECT throws_ok($$SELECT * FROM mrf_marginal_error((SELECT m FROM me_models WHERE name = 'mst'), 'me_rows', ways => '{2, NULL}')$$,
				 '22004', NULL, 'a NULL way');
INSERT INTO me_rows VALUES ('red', 's', true, 'w');
SELECT throws_ok($$SELECT * FROM mrf_marginal_error((SELECT m FROM me_models WHERE name = 'mst'), 'me_rows')$$,
				 '23514', NULL, 'a value that is not one of the model''s labels');
DELETE FROM me_rows WHERE region = 'w';
SELECT throws_ok($$SELECT * FROM mrf_marginal_error((SELECT mrf_learn_twise(ARRAY[flag, colour = 'red'], rho => 1, t => 2)
													 FROM me_rows), 'me_rows', '{flag, colour}')$$,
				 '0A000', NULL, 't-wise models are refused');

-- Ising and pairwise models through their clique form.  A hand-made Ising
-- model, P(z) proportional to exp(0.3 z1 + 0.5 z1 z2), against 700 rows
-- (true, true) and 300 (false, false): P(z1 = +1) = sigmoid(0.6), so the
-- one-way error of x is 2 |sigmoid(0.6) - 0.7| (false is -1: reversed it
-- would be 2 |sigmoid(-0.6) - 0.7|); the pair's model table is
-- exp(0.3 a + 0.5 a b) / Z over a, b = -1, +1
CREATE TABLE me_spins AS SELECT g <= 700 AS x, g <= 700 AS y FROM generate_series(1, 1000) g;
SELECT ok((SELECT abs(l1 - 2 * abs(1 / (1 + exp(-0.6)) - 0.7)) < 1e-12
		   FROM mrf_marginal_errors(mrf_ising(ARRAY[[0, .5], [.5, 0]], ARRAY[0.3, 0]), 'me_spins', '{x, y}',
									'{1}') WHERE variables = '{1}'),
		  'Ising: the one-way error of a hand-made model (spin -1 is false)');
SELECT ok((SELECT abs(l1 - (abs(exp(0.8) / z - 0.7) + abs(exp(0.2) / z - 0.3) + exp(-0.2) / z + exp(-0.8) / z)) < 1e-12
		   FROM mrf_marginal_errors(mrf_ising(ARRAY[[0, .5], [.5, 0]], ARRAY[0.3, 0]), 'me_spins', '{x, y}', '{2}'),
				(SELECT exp(0.8) + exp(-0.8) + exp(0.2) + exp(-0.2) AS z) c),
		  'Ising: the two-way error of a hand-made model');
SELECT ok((SELECT mean_l1 < 0.3 FROM mrf_marginal_error(
			   (SELECT mrf_learn_pairwise(r, rho => 100, lambda => 4, domains => '{"region": ["n", "s", "e"]}')
				FROM (SELECT * FROM me_rows LIMIT 5000) r), 'me_rows') WHERE way = 2),
		  'a pairwise model learned at rho 100 on 5,000 of the rows has a two-way error under 0.3 (the independent model''s is over 0.4)');
SELECT is((SELECT count(*) FROM mrf_marginal_error(NULL, 'me_rows')), 0::bigint, 'a NULL model gives no rows');

-- the caller's rights: a role without SELECT on the table is refused
CREATE ROLE me_analyst;
GRANT USAGE ON SCHEMA public TO me_analyst;
GRANT SELECT ON me_models TO me_analyst;
SET LOCAL ROLE me_analyst;
SELECT throws_ok($$SELECT * FROM mrf_marginal_error((SELECT m FROM me_models WHERE name = 'mst'), 'me_rows')$$,
				 '42501', NULL, 'a role without SELECT on the relation is refused');
RESET ROLE;
SELECT ok(obj_description('mrf_marginal_error'::regproc, 'pg_proc') LIKE 'NOT PRIVATE%SELECT%',
		  'its description says it is not private and needs SELECT');

SELECT * FROM finish();
ROLLBACK;
