-- server: session_preload
-- Per-column NULL policy on the protected path (issue 11 item 3): applied
-- row by row, never an error; a NULL in a column whose policy is 'error'
-- replaces its row (counted with noise), NULLs in 'category' columns are
-- read; a policy the schema refuses is refused before reading or charging.
-- Not in a transaction; cleans up at the end.
SELECT plan(7);

\ir ../lib/protected.psql
SET client_min_messages = warning;
DROP TABLE IF EXISTS pcp_votes CASCADE;
DROP TYPE IF EXISTS pcp_vote CASCADE;
SET mrfdp.test_seed = 93;
CREATE TYPE pcp_vote AS ENUM ('n', 'y');
CREATE TABLE pcp_votes (party boolean, budget pcp_vote, defence pcp_vote);
INSERT INTO pcp_votes
SELECT g % 2 = 0, CASE WHEN g % 5 = 0 THEN NULL WHEN g % 3 = 0 THEN 'n' ELSE 'y' END::pcp_vote,
	   CASE WHEN g % 7 = 0 THEN NULL ELSE 'y' END::pcp_vote
FROM generate_series(1, 3000) g;
-- 150 rows with a NULL party, whose policy is 'error': replaced, never an error
INSERT INTO pcp_votes SELECT NULL, 'y', 'y' FROM generate_series(1, 150);
SELECT pg_temp.protect_for_analyst('pcp_votes', epsilon => 100, delta => 1e-6, rho_cap => 50);
CREATE TEMP TABLE pcp_results (m mrf);
GRANT INSERT, SELECT ON pcp_results TO mrfdp_tap_analyst;

SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_pairwise_from('pcp_votes', NULL, rho => 4, nulls => '{"*": "category", "budget": "maybe"}')$$,
				 '22023', NULL, 'a named column''s value outside its alphabet is refused from the schema, before reading');
SELECT throws_ok($$SELECT mrf_learn_pairwise_from('pcp_votes', NULL, rho => 4, nulls => '{"*": "category", "votes": "n"}')$$,
				 '42703', NULL, 'a column the relation does not have is refused from the schema');
INSERT INTO pcp_results
SELECT mrf_learn_pairwise_from('pcp_votes', NULL, rho => 4, nulls => '{"party": "error", "*": "category"}');
RESET ROLE;
SELECT is((SELECT m::jsonb->'alphabets' FROM pcp_results), '[2, 3, 3]'::jsonb, 'the alphabets from the schema and the policy');
SELECT is((SELECT mrf_info(m)->>'rows' FROM pcp_results), '3150', 'every row is read, none raises an error');
SELECT cmp_ok((SELECT (mrf_info(m)->'substituted_rows'->>'noisy_count')::int FROM pcp_results), '>', 75,
			  'the 150 rows with a NULL party are substituted');
SELECT cmp_ok((SELECT (mrf_info(m)->'substituted_rows'->>'noisy_count')::int FROM pcp_results), '<', 600,
			  'the 943 rows with a NULL vote are read (''category''), not substituted');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'pcp_votes'::regclass), 1::bigint,
		  'one release charged; the refusals charged nothing');

DROP TABLE pcp_votes CASCADE;
DROP TYPE pcp_vote;
SELECT * FROM finish();
