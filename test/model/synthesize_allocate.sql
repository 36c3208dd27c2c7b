-- server: session_preload
-- method => 'allocate': synthetic rows whose marginals match the model's up
-- to rounding.  The n rows are divided among the cells of each cluster of
-- the model's junction tree (counts rounded from n P, then, within each
-- value of a separator, from its rows times the conditional), so every
-- clique's table of the synthetic rows is within a few rows of n times the
-- model's exact clique marginal; independent draws ('sample') are off by
-- about sqrt(n P) rows a cell (about 50 at n = 20,000).  Checked on an
-- MST model of a 12-column table where a rare class (about 3%) drives
-- every column, with three seeds.
BEGIN;
SELECT plan(24);

SELECT setseed(0.5);
CREATE TEMP TABLE sa_source AS
SELECT cls,
	   (SELECT array_agg(CASE WHEN u < 0.85 THEN (CASE WHEN cls = 'rare' THEN 'c' ELSE 'a' END)
							  WHEN u < 0.95 THEN 'b'
							  ELSE (CASE WHEN cls = 'rare' THEN 'a' ELSE 'c' END) END)
		FROM (SELECT random() AS u, g2 FROM generate_series(1, 11) g2 WHERE g > 0) x) AS v
FROM (SELECT g, CASE WHEN random() < 0.03 THEN 'rare' ELSE 'common' END AS cls
	  FROM generate_series(1, 20000) g) s;
CREATE TEMP TABLE sa_rows AS
SELECT cls, v[1] AS c1, v[2] AS c2, v[3] AS c3, v[4] AS c4, v[5] AS c5, v[6] AS c6,
	   v[7] AS c7, v[8] AS c8, v[9] AS c9, v[10] AS c10, v[11] AS c11
FROM sa_source;

SET LOCAL mrfdp.test_seed = 29;
CREATE TEMP TABLE sa_model AS
SELECT mrf_learn_mst(r, rho => 100,
					 domains => '{"cls": ["common", "rare"], "*": ["a", "b", "c"]}') AS m
FROM sa_rows r;
SELECT is((SELECT jsonb_array_length((m::jsonb)->'cliques') FROM sa_model), 11, 'an MST model: 11 pairs');

-- three seeds of 20,000 allocated rows, each in its own table
CREATE TEMP TABLE sa_1 (LIKE sa_rows);
CREATE TEMP TABLE sa_2 (LIKE sa_rows);
CREATE TEMP TABLE sa_3 (LIKE sa_rows);
INSERT INTO sa_1 SELECT * FROM mrf_synthesize((SELECT m FROM sa_model), 20000, NULL::sa_rows, seed => 1, method => 'allocate');
INSERT INTO sa_2 SELECT * FROM mrf_synthesize((SELECT m FROM sa_model), 20000, NULL::sa_rows, seed => 2, method => 'allocate');
INSERT INTO sa_3 SELECT * FROM mrf_synthesize((SELECT m FROM sa_model), 20000, NULL::sa_rows, seed => 3, method => 'allocate');
SELECT is((SELECT count(*) FROM sa_1) + (SELECT count(*) FROM sa_2) + (SELECT count(*) FROM sa_3), 60000::bigint,
		  'n rows for each seed');

-- Every clique of the model (and every column alone): the table's L1
-- distance from the model's exact marginal, times n, is the sum of the
-- cells' gaps |count - n P|; within 6 rows a cell (at most 3 x 3 cells).
CREATE TEMP TABLE sa_cliques AS
SELECT ARRAY[(c->>0)::int, (c->>1)::int] AS variables
FROM sa_model, jsonb_array_elements((m::jsonb)->'cliques') c;
CREATE TEMP TABLE sa_errors AS
SELECT t, e.way, e.variables, e.l1
FROM unnest(ARRAY['sa_1', 'sa_2', 'sa_3']) t,
	 LATERAL mrf_marginal_errors((SELECT m FROM sa_model), t::regclass, ways => '{1,2}') e;
SELECT ok(max(l1) * 20000 <= 6 * 3,
		  format('seed %s: every column''s counts within 6 rows a cell of the model (worst %s rows in all)',
				 t, round((max(l1) * 20000)::numeric, 1)))
FROM sa_errors WHERE way = 1 GROUP BY t ORDER BY t;
SELECT ok(max(l1) * 20000 <= 6 * 9 AND count(*) = 11,
		  format('seed %s: every clique''s counts within 6 rows a cell of the model (worst %s rows in all)',
				 t, round((max(l1) * 20000)::numeric, 1)))
FROM sa_errors WHERE way = 2 AND variables IN (SELECT variables FROM sa_cliques) GROUP BY t ORDER BY t;

-- the rare class: the model's own share of 20,000, to the row or two
SELECT ok(abs((SELECT count(*) FROM sa_1 WHERE cls = 'rare') -
			  20000 * (SELECT sum(probability) FROM mrf_marginal((SELECT m FROM sa_model), '{cls}') WHERE labels[1] = 'rare')) <= 2,
		  'the rare class gets its share of the rows');
-- and drives the other columns as in the model (not a table of the modes)
SELECT ok((SELECT avg((c1 = 'c')::int) FROM sa_1 WHERE cls = 'rare') > 0.7
		  AND (SELECT avg((c1 = 'a')::int) FROM sa_1 WHERE cls = 'common') > 0.7
		  AND (SELECT count(*) FROM sa_1 WHERE c1 = 'b') > 1000,
		  'allocated rows keep the class pattern and the minority values');

-- independent draws of the same model are much further from it
CREATE TEMP TABLE sa_drawn (LIKE sa_rows);
INSERT INTO sa_drawn SELECT * FROM mrf_synthesize((SELECT m FROM sa_model), 20000, NULL::sa_rows, seed => 1);
SELECT ok((SELECT avg(l1) FROM mrf_marginal_errors((SELECT m FROM sa_model), 'sa_drawn', ways => '{2}')
		   WHERE variables IN (SELECT variables FROM sa_cliques)) >
		  4 * (SELECT avg(l1) FROM sa_errors WHERE t = 'sa_1' AND way = 2 AND variables IN (SELECT variables FROM sa_cliques)),
		  'allocated cliques are at least 4 times closer to the model than drawn ones');

-- not a constant table; the seed decides the rows
SELECT ok((SELECT count(*) FROM (SELECT DISTINCT * FROM sa_1) d) > 100, 'many distinct rows');
SELECT is((SELECT count(*) FROM ((SELECT * FROM sa_1 EXCEPT ALL
								  SELECT * FROM mrf_synthesize((SELECT m FROM sa_model), 20000, NULL::sa_rows, seed => 1, method => 'allocate'))
								 UNION ALL
								 (SELECT * FROM mrf_synthesize((SELECT m FROM sa_model), 20000, NULL::sa_rows, seed => 1, method => 'allocate')
								  EXCEPT ALL SELECT * FROM sa_1)) d), 0::bigint,
		  'the same seed, the same rows');
SELECT ok((SELECT string_agg(x::text, ';') FROM mrf_synthesize((SELECT m FROM sa_model), 200, NULL::sa_rows, seed => 4, method => 'allocate') x)
		  IS DISTINCT FROM
		  (SELECT string_agg(x::text, ';') FROM mrf_synthesize((SELECT m FROM sa_model), 200, NULL::sa_rows, seed => 5, method => 'allocate') x),
		  'another seed, other rows');
-- rows come in random order, not grouped by value
SELECT ok((SELECT count(*) FROM (SELECT cls IS DISTINCT FROM lag(cls) OVER (ORDER BY o) AS changed
								 FROM mrf_synthesize((SELECT m FROM sa_model), 2000, NULL::sa_rows, seed => 6, method => 'allocate')
									  WITH ORDINALITY x(cls, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, o)) d
		   WHERE changed) > 20, 'the rows are shuffled');

-- mrf_synthesize_into takes the method too
SELECT is(mrf_synthesize_into((SELECT m FROM sa_model), 'sa_into', 5000, seed => 7, method => 'allocate'), 5000::bigint,
		  'mrf_synthesize_into allocates');
SELECT ok((SELECT max(l1) * 5000 <= 6 * 9 FROM mrf_marginal_errors((SELECT m FROM sa_model), 'sa_into', ways => '{2}')
		   WHERE variables IN (SELECT variables FROM sa_cliques)),
		  'its cliques within 6 rows a cell');
SELECT is((SELECT count(*) FROM mrf_synthesize((SELECT m FROM sa_model), 0, NULL::sa_rows, method => 'allocate')), 0::bigint,
		  'no rows for n = 0');

-- a pairwise model of 3 variables is allocated through its clique form:
-- P(x1 = x2) = e^2 / (e^2 + 2) exactly to the row of 3000
CREATE TEMP TABLE sa_pw (x1 int, x2 int, x3 int);
SELECT ok(abs((SELECT count(*) FILTER (WHERE x1 = x2)
			   FROM mrf_synthesize('{"kind": "pairwise", "p": 3, "k": 3, "weights": [
					[[[0,0,0],[0,0,0],[0,0,0]], [[2,0,0],[0,2,0],[0,0,2]], [[0,0,0],[0,0,0],[0,0,0]]],
					[[[2,0,0],[0,2,0],[0,0,2]], [[0,0,0],[0,0,0],[0,0,0]], [[0,0,0],[0,0,0],[0,0,0]]],
					[[[0,0,0],[0,0,0],[0,0,0]], [[0,0,0],[0,0,0],[0,0,0]], [[0,0,0],[0,0,0],[0,0,0]]]],
					"fields": [[0,0,0],[0,0,0],[0,0,0]]}'::mrf, 3000, NULL::sa_pw, seed => 1, method => 'allocate'))
			  - 3000 * exp(2.0) / (exp(2.0) + 2)) <= 2,
		  'a pairwise model is allocated');

-- what cannot be allocated, and bad methods
CREATE TEMP TABLE sa_dense AS
SELECT mrf_ising((SELECT array_agg(row ORDER BY i)
				  FROM (SELECT i, array_agg(CASE WHEN i = j THEN 0.0 ELSE 0.1 END ORDER BY j) AS row
						FROM generate_series(1, 40) i, generate_series(1, 40) j GROUP BY i) r)) AS m;
DO $$
BEGIN
	EXECUTE 'CREATE TEMP TABLE sa_spins (' ||
		(SELECT string_agg(format('x%s boolean', i), ', ' ORDER BY i) FROM generate_series(1, 40) i) || ')';
END
$$;
SELECT throws_ok($$SELECT count(*) FROM mrf_synthesize((SELECT m FROM sa_dense), 10, NULL::sa_spins, method => 'allocate')$$,
				 '0A000', 'mrf_synthesize cannot allocate rows of this ising model',
				 'a dense Ising model of 40 spins has no junction tree: 0A000');
SELECT throws_ok($$SELECT mrf_synthesize_into((SELECT m FROM sa_dense), 'sa_never', 10, method => 'allocate')$$,
				 '0A000', 'mrf_synthesize cannot allocate rows of this ising model',
				 'nor through mrf_synthesize_into');
CREATE TEMP TABLE sa_six (x1 boolean, x2 boolean, x3 boolean, x4 boolean, x5 boolean, x6 boolean);
SELECT throws_ok($$SELECT count(*) FROM mrf_synthesize('{"kind": "twise", "p": 6, "t": 3, "monomials": [
				   [[1], 0.2], [[1, 2], 0.5], [[1, 2, 3], 0.8]]}'::mrf, 10, NULL::sa_six, method => 'allocate')$$,
				 '0A000', 'mrf_synthesize cannot allocate rows of this twise model', 't-wise models: 0A000');
SELECT throws_ok($$SELECT count(*) FROM mrf_synthesize((SELECT m FROM sa_model), 10, NULL::sa_rows, method => 'round')$$,
				 '22023', 'method must be ''sample'' or ''allocate'', not ''round''', 'an unknown method');
SELECT throws_ok($$SELECT count(*) FROM mrf_synthesize((SELECT m FROM sa_model), 10, NULL::sa_rows, method => NULL)$$,
				 '22004', NULL, 'a NULL method');

SELECT * FROM finish();
ROLLBACK;
