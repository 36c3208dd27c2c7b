-- server: session_preload
-- MST (issue 12 item 1): a tree over enums of 3 labels and a text column
-- with a declared domain of 3 values, and an enum with a boolean (mixed
-- alphabets), sampled
-- from a known model is recovered through SQL (the selected pairs are the
-- true tree), the model is a clique model in the source's types (names,
-- labels, alphabets) that mrf_synthesize turns back into rows of the
-- source's row type, the aggregate form and GROUP BY work, and every bad
-- input fails with its SQLSTATE.
BEGIN;
SELECT plan(26);
SET LOCAL mrfdp.test_seed = 21;

CREATE TYPE mst_party AS ENUM ('left', 'centre', 'right');
CREATE TYPE mst_grade AS ENUM ('a', 'b', 'c');
CREATE TYPE mst_vote AS ENUM ('yes', 'no', 'abstain');
CREATE TABLE mst_rows (party mst_party, vote mst_vote, grade mst_grade, region text);
-- a tree: party - vote, party - grade, grade - region (each child copies its
-- parent's code modulo its alphabet with probability 0.7, else uniform)
INSERT INTO mst_rows
SELECT (enum_range(NULL::mst_party))[1 + pa],
	   (enum_range(NULL::mst_vote))[1 + CASE WHEN random() < 0.7 THEN (pa + 1) % 3 ELSE floor(random() * 3)::int END],
	   (enum_range(NULL::mst_grade))[1 + gr],
	   (ARRAY['n', 's', 'e'])[1 + CASE WHEN random() < 0.7 THEN gr ELSE floor(random() * 3)::int END]
FROM (SELECT pa, CASE WHEN random() < 0.7 THEN pa ELSE floor(random() * 3)::int END AS gr
	  FROM (SELECT floor(random() * 3)::int AS pa FROM generate_series(1, 40000)) s) t;

CREATE TEMP TABLE released AS
SELECT mrf_learn_mst(r, rho => 4, domains => '{"region": ["n", "s", "e"]}') AS m FROM mst_rows r;

SELECT is((SELECT mrf_info(m)->>'kind' FROM released), 'cliques', 'MST releases a clique model');
SELECT is((SELECT (m::jsonb)->>'k' FROM released), '3', 'the alphabet from the types and the declared domain');
SELECT is((SELECT jsonb_agg(c ORDER BY c::text) FROM released, jsonb_array_elements((m::jsonb)->'cliques') c),
		  '[[1, 2], [1, 3], [3, 4]]'::jsonb, 'the selected tree is the true tree');
SELECT is((SELECT array_agg(name ORDER BY i) FROM mrf_variables((SELECT m FROM released))),
		  ARRAY['party', 'vote', 'grade', 'region'], 'the variables keep their column names');
SELECT is((SELECT labels FROM mrf_variables((SELECT m FROM released)) WHERE i = 4),
		  ARRAY['n', 's', 'e'], 'a declared domain gives the labels');
SELECT ok((SELECT mrf_info(m)->>'notion' = 'zCDP' AND (mrf_info(m)->>'rho')::float8 = 4
				  AND mrf_info(m)->>'algorithm' = 'mckenna2021-mst' FROM released),
		  'the model records rho-zCDP with the whole rho and the algorithm');
SELECT ok((SELECT (s->>'one_way')::float8 + (s->>'select')::float8 + (s->>'two_way')::float8 <= 4
				  AND (s->>'one_way')::float8 > 1.3333333
		   FROM released, LATERAL (SELECT mrf_info(m)->'split' AS s) x),
		  'the split is a third each and never exceeds rho');
SELECT ok((SELECT (mrf_info(m)->>'sigma2_one_way')::float8 >= 4 / (4.0 / 3)
				  AND (mrf_info(m)->>'sigma2_two_way')::float8 >= 3 / (4.0 / 3) FROM released),
		  'discrete Gaussian variances: p / rho_1 and (p - 1) / rho_3 at least (replace-one)');
SELECT ok((SELECT abs((mrf_info(m)->'selection'->>'epsilon_per_round')::float8 - sqrt(8 * (4.0 / 3) / 3)) < 1e-9
		   FROM released), 'each of the p - 1 selections has epsilon sqrt(8 rho_select / (p - 1))');

-- the model's pair marginals against the data's (40,000 rows, rho 4)
SELECT ok((SELECT max(abs(mm.probability - d.freq)) < 0.01
		   FROM mrf_marginals((SELECT m FROM released)) mm
		   JOIN (SELECT ARRAY[1, 3] AS clique, ARRAY[party::int, grade::int] AS assignment,
						count(*)::float8 / 40000 AS freq
				 FROM (SELECT array_position(enum_range(NULL::mst_party), party) - 1 AS party,
							  array_position(enum_range(NULL::mst_grade), grade) - 1 AS grade
					   FROM mst_rows) x GROUP BY 1, 2) d USING (clique, assignment)),
		  'the party x grade marginal is within 0.01 of the data');

-- synthetic rows in the source's types
CREATE TEMP TABLE synth AS SELECT * FROM mrf_synthesize((SELECT m FROM released), 20000, NULL::mst_rows, seed => 3);
SELECT is((SELECT count(*) FROM synth), 20000::bigint, 'mrf_synthesize draws rows of the source row type');
SELECT ok((SELECT count(DISTINCT region) = 3 AND bool_and(region IN ('n', 's', 'e')) FROM synth),
		  'text values come back from the declared domain');
SELECT ok((SELECT abs(avg((vote = 'yes')::int) - (SELECT avg((vote = 'yes')::int) FROM mst_rows)) < 0.02 FROM synth),
		  'the share of yes votes matches the data');
SELECT ok((SELECT abs(avg((party = 'right')::int) - (SELECT avg((party = 'right')::int) FROM mst_rows)) < 0.02
		   FROM synth), 'the share of one party matches the data');

-- aggregate form, GROUP BY, integer arrays with k
SELECT is((SELECT count(*) FROM (SELECT g, mrf_learn_mst_agg(x, mrf_options(rho => 1, k => 3)) AS m
								 FROM (SELECT i % 2 AS g, ARRAY[i % 3, (i / 3) % 3, (i * 7) % 3] AS x
									   FROM generate_series(1, 2000) i) s GROUP BY g) q WHERE m IS NOT NULL),
		  2::bigint, 'the aggregate form learns one model per group');

-- bad inputs, each with its SQLSTATE
SELECT throws_ok($$SELECT mrf_learn_mst(r) FROM mst_rows r$$, '22023', NULL, 'a budget is required');
SELECT throws_ok($$SELECT mrf_learn_mst(r, rho => -1) FROM mst_rows r$$, '22023', NULL, 'rho must be positive');
SELECT throws_ok($$SELECT mrf_learn_mst(x, rho => 1, k => 3) FROM (SELECT ARRAY[1] AS x) s$$, '22023', NULL,
				 'one variable is refused');
SELECT throws_ok($$SELECT mrf_learn_mst(r, rho => 1, iterations => 0) FROM mst_rows r$$, '22023', NULL,
				 'iterations must be at least 1');
SELECT throws_ok($$SELECT mrf_learn_mst(r, rho => 1e-13, domains => '{"region": ["n", "s", "e"]}') FROM mst_rows r$$,
				 '22023', NULL, 'a budget whose noise leaves the sampler''s range');
SELECT throws_ok($$SELECT mrf_learn_mst(r, rho => 1) FROM mst_rows r$$, '42804', NULL,
				 'a text column needs a declared domain');
SELECT throws_ok($$SELECT mrf_learn_mst_agg(x, mrf_options(rho => 1, lambda => 2, k => 3))
				   FROM (SELECT ARRAY[1, 2] AS x) s$$, '22023', NULL, 'an option MST does not take');
SELECT throws_ok($$SELECT mrf_learn_mst(x, rho => 1, k => 3) FROM (SELECT ARRAY[1, 5] AS x) s$$, '22003', NULL,
				 'an integer outside 0..k-1');
SELECT throws_ok($$SELECT mrf_learn_mst(r, rho => 1, domains => '{"region": ["n", "s", "w"]}') FROM mst_rows r$$,
				 '23514', NULL, 'a value outside its declared domain');
-- mixed alphabets (clique models with per-variable alphabets): a 3-label
-- enum and a boolean that is true exactly for 'left'
CREATE TABLE mst_mixed (party mst_party, flag boolean);
INSERT INTO mst_mixed SELECT party, party = 'left' FROM mst_rows;
CREATE TEMP TABLE mixed AS SELECT mrf_learn_mst(r, rho => 4) AS m FROM mst_mixed r;
SELECT is((SELECT (m::jsonb)->'alphabets' FROM mixed), '[3, 2]'::jsonb,
		  'columns of different alphabets learn with their own alphabets, [3, 2]');
SELECT cmp_ok((SELECT avg(((s.party = 'left') = s.flag)::int)::float8
			   FROM mixed, mrf_synthesize(m, 4000, NULL::mst_mixed, seed => 5) s), '>', 0.9::float8,
			  'and the synthetic rows keep the dependence (flag = (party = left) in over 90%)');

SELECT * FROM finish();
ROLLBACK;
