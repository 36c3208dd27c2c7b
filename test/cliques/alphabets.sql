-- server: session_preload
-- Per-variable alphabets in clique models (issue 11 item 1): rows mixing a
-- boolean (k = 2), a 3-label enum and a text column with a declared domain
-- of 5 values.  A model sampled exactly from known potentials over those
-- alphabets is recovered with no mass on values a variable does not have
-- (a single-alphabet learner, k = 5 for every variable, puts mass there) and
-- clique marginals within a stated L1; labels per variable, the text form
-- (old texts without "alphabets" included), values outside a domain, NULLs.
BEGIN;
SELECT plan(28);
SET LOCAL mrfdp.test_seed = 17;

CREATE TYPE pg_temp.cq_level AS ENUM ('lo', 'mid', 'hi');
-- The truth: z1 in {0, 1}, z2 in {0, 1, 2}, z3 in {0 .. 4}; cliques {1, 2}
-- (2 x 3 cells) and {2, 3} (3 x 5 cells), strong enough to be visible.
CREATE TEMP TABLE cq_truth AS SELECT '{"kind": "cliques", "p": 3, "k": 5, "alphabets": [2, 3, 5],
  "cliques": [[1, 2], [2, 3]],
  "log_potentials": [[1.5, 0, -1, -1, 0, 1.5],
                     [1, 0.5, 0, -0.5, -1,  -1, 1, 1, -1, -1,  -2, -1, 0, 1, 2]]}'::mrf AS m;
-- 20000 exact draws (30 states: the exact sampler), turned into typed columns
CREATE TEMP TABLE cq_rows AS
SELECT x[1] = 1 AS b, (enum_range(NULL::pg_temp.cq_level))[x[2] + 1] AS e,
	   (ARRAY['a', 'b', 'c', 'd', 'e'])[x[3] + 1] AS s
FROM mrf_sample((SELECT m FROM cq_truth), 20000, seed => 3) x;
CREATE TEMP TABLE cq_model AS
SELECT mrf_learn_cliques(r, cliques => '[[1, 2], [2, 3]]', epsilon => 4,
						 domains => '{"s": ["a", "b", "c", "d", "e"]}') AS m
FROM cq_rows r;

SELECT is((SELECT m::jsonb->'alphabets' FROM cq_model), '[2, 3, 5]'::jsonb,
		  'each variable keeps its own alphabet (boolean 2, enum 3, declared domain 5)');
SELECT is((SELECT mrf_info(m)->>'k' FROM cq_model), '5', 'k is the largest alphabet');
SELECT is((SELECT count(*) FROM mrf_marginals((SELECT m FROM cq_model))), 21::bigint,
		  'the tables have 2 x 3 + 3 x 5 cells (one alphabet would give 2 x 25)');
-- L1 distance of each clique marginal to the truth's
CREATE TEMP TABLE cq_l1 AS
SELECT t.clique, sum(abs(t.probability - l.probability)) AS l1
FROM mrf_marginals((SELECT m FROM cq_truth)) t
JOIN mrf_marginals((SELECT m FROM cq_model)) l USING (clique, assignment)
GROUP BY t.clique;
SELECT is((SELECT count(*) FROM cq_l1), 2::bigint, 'every cell of both cliques matches a true cell');
SELECT cmp_ok((SELECT max(l1) FROM cq_l1), '<', 0.05::float8,
			  'clique marginals within L1 0.05 of the truth (n = 20000, epsilon = 4)');
SELECT is((SELECT count(*) FROM mrf_sample((SELECT m FROM cq_model), 5000, seed => 4) x
		   WHERE x[1] > 1 OR x[2] > 2 OR x[3] > 4), 0::bigint,
		  'samples never take a value outside its variable''s alphabet');

-- The same rows as integer codes with one alphabet (k = 5): the cells of
-- values that do not exist get mass, which the per-variable model cannot.
CREATE TEMP TABLE cq_single AS
SELECT mrf_learn_cliques(ARRAY[b::int, array_position(enum_range(NULL::pg_temp.cq_level), e) - 1,
							  ascii(s) - ascii('a')],
						 cliques => '[[1, 2], [2, 3]]', k => 5, epsilon => 4) AS m
FROM cq_rows;
SELECT cmp_ok((SELECT sum(probability) FROM mrf_marginals((SELECT m FROM cq_single))
			   WHERE clique = '{1,2}' AND (assignment[1] > 1 OR assignment[2] > 2)), '>', 0::float8,
			  'a single-alphabet learner puts mass on values that do not exist');
SELECT cmp_ok((SELECT count(*) FROM mrf_sample((SELECT m FROM cq_single), 20000, seed => 4) x
			   WHERE x[1] > 1 OR x[2] > 2), '>', 0::bigint,
			  'and samples values that do not exist');

SELECT is((SELECT array_agg(m::jsonb->>'alphabets' ORDER BY g) FROM
		   (SELECT b AS g, mrf_learn_cliques_agg(r, mrf_options(cliques => '[[1, 2], [2, 3]]', epsilon => 4,
															  domains => '{"s": ["a", "b", "c", "d", "e"]}')) AS m
			FROM cq_rows r GROUP BY b) s),
		  ARRAY['[2, 3, 5]', '[2, 3, 5]'], 'the aggregate form with mrf_options(domains => ...), one model per group');

-- names and labels, each variable in its own alphabet
SELECT results_eq($$SELECT DISTINCT names, labels[1] FROM mrf_potentials((SELECT m FROM cq_model))
					WHERE clique = '{2,3}' ORDER BY 2$$,
				  $$VALUES ('{e,s}'::text[], 'hi'::text), ('{e,s}', 'lo'), ('{e,s}', 'mid')$$,
				  'mrf_potentials names the clique and labels the enum''s values');
SELECT is((SELECT array_agg(labels[2] ORDER BY assignment[2]) FROM mrf_potentials((SELECT m FROM cq_model))
		   WHERE clique = '{2,3}' AND assignment[1] = 0),
		  ARRAY['a', 'b', 'c', 'd', 'e'], 'the declared domain labels the codes in its order');
SELECT is((SELECT array_agg(DISTINCT labels[1]) FROM mrf_marginals((SELECT m FROM cq_model)) WHERE clique = '{1,2}'),
		  ARRAY['false', 'true'], 'the boolean has its two labels');
SELECT is((SELECT labels FROM mrf_marginals((SELECT m FROM cq_model)) WHERE clique = '{1,2}'
		   ORDER BY probability DESC LIMIT 1), ARRAY['true', 'hi'],
		  'the most likely pair is (true, hi), as in the truth (log-potential 1.5 on (1, 2))');

-- text form: round trip with names and labels; older texts read as one alphabet
SELECT is((SELECT m::text::mrf::text FROM cq_model), (SELECT m::text FROM cq_model),
		  'the text form reads back exactly');
SELECT results_eq($$SELECT * FROM mrf_variables((SELECT m::text::mrf FROM cq_model))$$,
				  $$SELECT * FROM mrf_variables((SELECT m FROM cq_model))$$,
				  'names and labels survive the round trip');
SELECT is((SELECT m::jsonb->'log_potentials'->1 FROM cq_model) IS NOT NULL AND
		  (SELECT jsonb_array_length(m::jsonb->'log_potentials'->1) FROM cq_model) = 15, true,
		  'the text form lists 15 cells for clique {2, 3}');
SELECT is(('{"kind": "cliques", "p": 2, "k": 3, "cliques": [[1, 2]], "log_potentials": [[1, 0, 0, 0, 1, 0, 0, 0, 1]]}'::mrf)::jsonb
		  ? 'alphabets', false, 'a text without alphabets reads as one alphabet and writes as it did');
SELECT is((SELECT count(*) FROM mrf_potentials('{"kind": "cliques", "p": 2, "k": 3, "cliques": [[2, 1]], "log_potentials": [[1, 0, 0, 0, 1, 0, 0, 0, 1]]}'::mrf)),
		  9::bigint, 'its tables have k^|C| cells');
SELECT is((SELECT log_potential FROM mrf_potentials('{"kind": "cliques", "p": 2, "k": 3, "alphabets": [2, 3], "cliques": [[2, 1]], "log_potentials": [[0, 1, 2, 3, 4, 5]]}'::mrf)
		   WHERE assignment = '{1,2}'), 5::float8,
		  'a table listed in another variable order is permuted with each variable''s own base');
SELECT throws_ok($$SELECT '{"kind": "cliques", "p": 2, "k": 3, "alphabets": [2, 3], "cliques": [[1, 2]], "log_potentials": [[1, 0, 0, 0, 1, 0, 0, 0, 1]]}'::mrf$$,
				 '22P02', NULL, 'a table of k^|C| cells is refused when the alphabets give fewer');
SELECT throws_ok($$SELECT '{"kind": "cliques", "p": 2, "k": 3, "alphabets": [2, 4], "cliques": [[1, 2]], "log_potentials": [[1, 0, 0, 0, 1, 0, 0, 0]]}'::mrf$$,
				 '22P02', NULL, 'an alphabet above k is refused');

-- synthetic rows in the source's types stay inside every alphabet
SELECT is((SELECT count(*) FROM mrf_synthesize((SELECT m FROM cq_model), 3000, NULL::cq_rows, seed => 5)
		   WHERE s NOT IN ('a', 'b', 'c', 'd', 'e') OR e IS NULL OR b IS NULL), 0::bigint,
		  'mrf_synthesize writes booleans, enum labels and domain values only');
SELECT cmp_ok((SELECT abs(avg((s = 'e')::int) - (SELECT sum(probability) FROM mrf_marginals((SELECT m FROM cq_model))
															  WHERE clique = '{2,3}' AND assignment[2] = 4))
			   FROM mrf_synthesize((SELECT m FROM cq_model), 3000, NULL::cq_rows, seed => 6)), '<', 0.03::float8,
			  'and its one-way marginal of s = e matches the model''s within sampling error');

-- a value outside its declared domain, and NULLs
SELECT throws_ok($$SELECT mrf_learn_cliques(r, cliques => '[[1, 2]]', epsilon => 1, domains => '{"s": ["a", "b", "c", "d"]}')
				   FROM cq_rows r$$, '23514', 'mrf_learn_cliques: column "s" has a value outside its declared domain',
				 'a value outside its declared domain is refused, naming the column');
SELECT throws_ok($$SELECT mrf_learn_cliques(r, cliques => '[[1, 2]]', epsilon => 1) FROM cq_rows r$$,
				 '42804', NULL, 'a text column without a declared domain is refused');
INSERT INTO cq_rows VALUES (NULL, 'mid', 'a'), (true, NULL, 'b');
SELECT throws_ok($$SELECT mrf_learn_cliques(r, cliques => '[[1, 2]]', epsilon => 1, domains => '{"s": ["a", "b", "c", "d", "e"]}')
				   FROM cq_rows r$$, '22004', NULL, 'a NULL is refused under the default nulls policy');
SELECT is((SELECT mrf_learn_cliques(r, cliques => '[[1, 2], [2, 3]]', epsilon => 4, nulls => 'category',
									domains => '{"s": ["a", "b", "c", "d", "e"]}')::jsonb->'alphabets' FROM cq_rows r),
		  '[3, 4, 6]'::jsonb, 'nulls => category adds one value per variable');
SELECT is((SELECT mrf_learn_cliques(r, cliques => '[[1, 2]]', epsilon => 4, nulls => 'lo')::jsonb->'alphabets'
		   FROM (SELECT e, e AS f FROM cq_rows) r),
		  NULL::jsonb, 'a declared null value keeps the alphabets (one, 3 values: no "alphabets" member)');
SELECT * FROM finish();
ROLLBACK;
