-- server: session_preload
-- Per-column NULL policy (issue 11 item 3): nulls => a JSON object giving
-- each named column 'error', 'category' or a value ({"value": ...} spells a
-- value named like a policy), and "*" every column not named.  Each
-- column's alphabet, and so the design and the budget split, follows its
-- own policy and type, never the data: the same options on rows with and
-- without NULLs give the same alphabets.
BEGIN;
SELECT plan(19);
SET LOCAL mrfdp.test_seed = 92;
SET LOCAL client_min_messages = warning;

CREATE TYPE pg_temp.pc_vote AS ENUM ('n', 'y');
CREATE TEMP TABLE pc_votes (party text, budget pg_temp.pc_vote, defence pg_temp.pc_vote, mood text);
-- party never NULL; budget NULL on 1 row in 5; defence on 1 in 7; mood on 1 in 9
INSERT INTO pc_votes
SELECT (ARRAY['democrat', 'republican'])[1 + g % 2],
	   CASE WHEN g % 5 = 0 THEN NULL WHEN ((g * 7919) % 10 < 7) = (g % 2 = 0) THEN 'y' ELSE 'n' END::pg_temp.pc_vote,
	   CASE WHEN g % 7 = 0 THEN NULL ELSE 'y' END::pg_temp.pc_vote,
	   CASE WHEN g % 9 = 0 THEN NULL ELSE (ARRAY['category', 'calm'])[1 + g % 2] END
FROM generate_series(1, 6000) g;
CREATE TEMP TABLE pc_complete AS SELECT * FROM pc_votes WHERE budget IS NOT NULL AND defence IS NOT NULL AND mood IS NOT NULL;

CREATE FUNCTION pg_temp.learn(source text, nulls text) RETURNS mrf LANGUAGE plpgsql AS $$
DECLARE
	m mrf;
BEGIN
	EXECUTE format('SELECT mrf_learn_pairwise(r, rho => 10, nulls => %L, domains => %L) FROM %I r', nulls,
				   '{"party": ["democrat", "republican"], "mood": ["category", "calm"]}', source) INTO m;
	RETURN m;
END $$;
CREATE TEMP TABLE pc_models AS
SELECT 'mixed' AS how, pg_temp.learn('pc_votes', '{"party": "error", "budget": "category", "defence": {"value": "n"}, "mood": {"value": "category"}}') AS m
UNION ALL
SELECT 'star', pg_temp.learn('pc_votes', '{"*": "category", "party": "error"}')
UNION ALL
SELECT 'star complete', pg_temp.learn('pc_complete', '{"*": "category", "party": "error"}');

SELECT results_eq($$SELECT name, labels FROM mrf_variables((SELECT m FROM pc_models WHERE how = 'mixed'))$$,
	$$VALUES ('party'::text, ARRAY['democrat', 'republican']), ('budget', ARRAY['n', 'y', NULL]),
			 ('defence', ARRAY['n', 'y']), ('mood', ARRAY['category', 'calm'])$$,
	'per column: only budget gets a NULL category; defence and mood read NULL as a value');
SELECT is((SELECT m::jsonb->'alphabets' FROM pc_models WHERE how = 'mixed'), '[2, 3, 2, 2]'::jsonb,
		  'per column: the alphabets follow each column''s policy');
SELECT is((SELECT (mrf_info(m)->>'rho_per_regression')::float8 FROM pc_models WHERE how = 'mixed'), 10.0::float8 / 9,
		  'per column: rho / sum k_i = rho / 9');
SELECT is((SELECT m::jsonb->'alphabets' FROM pc_models WHERE how = 'star'), '[2, 3, 3, 3]'::jsonb,
		  '"*": every column not named gets its policy');
SELECT is((SELECT m::jsonb->'alphabets' FROM pc_models WHERE how = 'star complete'), '[2, 3, 3, 3]'::jsonb,
		  'the same options on rows without any NULL give the same alphabets (never from the data)');
SELECT is((SELECT mrf_info(m)->>'regressions' FROM pc_models WHERE how = 'star complete'),
		  (SELECT mrf_info(m)->>'regressions' FROM pc_models WHERE how = 'star'), 'and the same regressions');
-- defence's NULL reads as n: its NULL rows (1 in 7) move to n, so n is about 1/7 of the samples
SELECT cmp_ok((SELECT abs(avg((x[3] = 0)::int) - 1.0 / 7) FROM mrf_sample((SELECT m FROM pc_models WHERE how = 'mixed'), 20000, seed => 3) x),
			  '<', 0.03::numeric, 'a declared NULL value: the column''s NULLs are read as that value');
SELECT is((SELECT (m::text::mrf)::text FROM pc_models WHERE how = 'mixed'), (SELECT m::text FROM pc_models WHERE how = 'mixed'),
		  'the text form reads back');

-- refusals, from the options and the types
INSERT INTO pc_votes VALUES (NULL, 'y', 'y', 'calm');
SELECT throws_ok($$SELECT pg_temp.learn('pc_votes', '{"party": "error", "*": "category"}')$$,
				 '22004', NULL, 'a column whose policy is error refuses its NULL');
SELECT throws_ok($$SELECT pg_temp.learn('pc_votes', '{"*": "category", "budget": "maybe"}')$$,
				 '22023', 'mrf_learn_pairwise: option nulls gives column "budget" the value "maybe", which is not in its alphabet',
				 'a named column''s value must be in its alphabet (the column named)');
SELECT throws_ok($$SELECT pg_temp.learn('pc_votes', '{"party": "category", "*": "maybe"}')$$,
				 '22023', NULL, 'a "*" value none of the columns it covers has (as for a scalar value)');
SELECT throws_ok($$SELECT pg_temp.learn('pc_votes', '{"*": "category", "votes": "n"}')$$,
				 '42703', NULL, 'a column the rows do not have');
SELECT throws_ok($$SELECT pg_temp.learn('pc_votes', '{"*": "category", "budget": ["n"]}')$$,
				 '22023', NULL, 'a policy that is neither a word, a value nor {"value": ...}');
SELECT throws_ok($$SELECT pg_temp.learn('pc_votes', '{}')$$, '22023', NULL, 'an empty object');
SELECT throws_ok($$SELECT pg_temp.learn('pc_votes', '{"*": "category"')$$, '22P02', NULL, 'malformed JSON');
SELECT throws_ok($$SELECT mrf_learn_pairwise(x, k => 3, rho => 1, nulls => '{"*": "category"}') FROM (VALUES (ARRAY[0, 1])) v(x)$$,
				 '22023', NULL, 'arrays have no columns to name');
SELECT lives_ok($$SELECT mrf_options(nulls => '{"*": "category", "v": {"value": 1}}')$$, 'mrf_options takes a per-column policy');
SELECT is((SELECT m::jsonb->'alphabets' FROM (SELECT mrf_learn_pairwise_agg(r, '{"rho": 10, "nulls": {"*": "category", "party": "error"},
		   "domains": {"party": ["democrat", "republican"], "mood": ["category", "calm"]}}'::jsonb) AS m FROM pc_votes r WHERE party IS NOT NULL) s),
		  '[2, 3, 3, 3]'::jsonb, 'an options document may hold the policy as an object');
-- structure learning with model 'pairwise' takes the same policy
SELECT is((SELECT mrf_info(mrf_learn_structure(r, rho => 10, eta => 1, model => 'pairwise', method => 'threshold',
											  nulls => '{"*": "category", "party": {"value": "democrat"}}',
											  domains => '{"party": ["democrat", "republican"], "mood": ["category", "calm"]}'))->>'regressions'
		   FROM pc_votes r), '20', 'structure learning: 2 + 6 + 6 + 6 regressions');

SELECT * FROM finish();
ROLLBACK;
