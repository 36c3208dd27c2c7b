-- server: session_preload
-- Missing values by explicit policy (issue 11 item 3): nulls => 'error'
-- (the default), 'category' (a last value of every variable, labelled
-- NULL) or a declared value (a NULL reads as that value in every column
-- whose alphabet has it; other columns keep refusing NULLs).
BEGIN;
SELECT plan(11);
SET LOCAL mrfdp.test_seed = 91;

CREATE TYPE pg_temp.nv_vote AS ENUM ('n', 'y');
CREATE TEMP TABLE nv_votes (party text, budget pg_temp.nv_vote, defence pg_temp.nv_vote);
-- budget: democrats y 70%, republicans n 70%, NULL on 1 row in 5; defence: y, NULL on 1 in 7
INSERT INTO nv_votes
SELECT (ARRAY['democrat', 'republican'])[1 + g % 2],
	   CASE WHEN g % 5 = 0 THEN NULL WHEN ((g * 7919) % 10 < 7) = (g % 2 = 0) THEN 'y' ELSE 'n' END::pg_temp.nv_vote,
	   CASE WHEN g % 7 = 0 THEN NULL ELSE 'y' END::pg_temp.nv_vote
FROM generate_series(1, 6000) g;

SELECT throws_ok($$SELECT mrf_learn_pairwise(r, rho => 1, domains => '{"party": ["democrat", "republican"]}') FROM nv_votes r$$,
				 '22004', NULL, 'nulls => ''error'' (the default) refuses a NULL');
SELECT throws_ok($$SELECT mrf_learn_pairwise(r, rho => 1, nulls => 'error', domains => '{"party": ["democrat", "republican"]}') FROM nv_votes r$$,
				 '22004', NULL, 'and so does nulls => ''error''');

CREATE TEMP TABLE nv_models AS
SELECT 'category' AS how, mrf_learn_pairwise(r, rho => 20, nulls => 'category',
											 domains => '{"party": ["democrat", "republican"]}') AS m FROM nv_votes r
UNION ALL
SELECT 'n', mrf_learn_pairwise(r, rho => 20, nulls => 'n', domains => '{"party": ["democrat", "republican"]}') FROM nv_votes r;

SELECT results_eq($$SELECT name, labels FROM mrf_variables((SELECT m FROM nv_models WHERE how = 'category'))$$,
	$$VALUES ('party'::text, ARRAY['democrat', 'republican', NULL]), ('budget', ARRAY['n', 'y', NULL]),
			 ('defence', ARRAY['n', 'y', NULL])$$,
	'category: every variable gets a last value, labelled NULL');
SELECT is((SELECT mrf_info(m)->>'k' FROM nv_models WHERE how = 'category'), '3',
		  'category: k_i + 1 = 3 values for every variable');
SELECT is((SELECT (m::text::mrf)::text FROM nv_models WHERE how = 'category'),
		  (SELECT m::text FROM nv_models WHERE how = 'category'), 'category: the text form reads back');
-- the NULL category's share in samples follows the data's (1 in 5 for budget, 1 in 7 for defence)
CREATE TEMP TABLE nv_sample AS SELECT x FROM mrf_sample((SELECT m FROM nv_models WHERE how = 'category'), 20000, seed => 2) x;
SELECT cmp_ok((SELECT abs(avg((x[2] = 2)::int) - 0.2) FROM nv_sample), '<', 0.03::numeric,
			  'category: sampled NULL budget votes near the data''s 20%');
SELECT cmp_ok((SELECT abs(avg((x[3] = 2)::int) - 1.0 / 7) FROM nv_sample), '<', 0.03::numeric,
			  'category: sampled NULL defence votes near the data''s 14.3%');
-- party has no NULL, but the learner cannot push a value's field to minus
-- infinity under the width bound and noise: a little mass stays (2.3% here)
SELECT cmp_ok((SELECT avg((x[1] = 2)::int) FROM nv_sample), '<', 0.05::numeric,
			  'category: a variable that has no NULL (party) gives its NULL category little mass');

SELECT is((SELECT m::jsonb->'alphabets' FROM nv_models WHERE how = 'n'), NULL,
		  'a declared value keeps every alphabet (2 values each)');
-- with NULL read as n, defence is mostly y but has n on the NULL rows: its field leans to y
SELECT cmp_ok((SELECT theta FROM mrf_fields((SELECT m FROM nv_models WHERE how = 'n')) WHERE name = 'defence' AND label = 'y'),
			  '>', 0.5::float8, 'a declared value: NULL defence votes read as n, the rest y');
SELECT throws_ok($$SELECT mrf_learn_pairwise(r, rho => 1, nulls => 'maybe', domains => '{"party": ["democrat", "republican"]}') FROM nv_votes r$$,
				 '22023', NULL, 'a declared value no column has is refused');

SELECT * FROM finish();
ROLLBACK;
