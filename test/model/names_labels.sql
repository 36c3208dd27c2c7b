-- server: session_preload
-- Names and labels (issue 11 item 2): models learned from rows of columns
-- carry the columns' names and the values' labels (from the types, never the
-- data); the accessors return them next to positions and codes; the text form
-- keeps them and reads them back; the metadata names the source relation.
BEGIN;
SELECT plan(24);
SET LOCAL mrfdp.test_seed = 11;

CREATE TYPE pg_temp.nl_party AS ENUM ('democrat', 'republican');
CREATE TYPE pg_temp.nl_vote AS ENUM ('abstain', 'y', 'n');
CREATE TEMP TABLE nl_votes (party pg_temp.nl_party, budget pg_temp.nl_vote, defence pg_temp.nl_vote, urban boolean);
-- budget follows party (strong edge party-budget); the rest is noise
INSERT INTO nl_votes
SELECT CASE WHEN g % 2 = 0 THEN 'democrat' ELSE 'republican' END::pg_temp.nl_party,
	   CASE WHEN g % 10 = 0 THEN 'abstain' WHEN g % 2 = 0 THEN 'y' ELSE 'n' END::pg_temp.nl_vote,
	   (ARRAY['abstain', 'y', 'n'])[1 + (g * 7919 % 3)]::pg_temp.nl_vote,
	   g * 104729 % 5 < 2
FROM generate_series(1, 3000) g;

CREATE TEMP TABLE nl_models AS
SELECT 'pairwise' AS kind, mrf_learn_pairwise(v, rho => 2) AS m FROM nl_votes v;
INSERT INTO nl_models
SELECT 'cliques', mrf_learn_cliques(v, cliques => '[[1, 2], [2, 3]]', epsilon => 5) FROM nl_votes v;
INSERT INTO nl_models
SELECT 'ising', mrf_learn_ising(r, rho => 2) FROM (SELECT urban, party = 'democrat' AS dem, budget = 'y' AS yes FROM nl_votes) r;
INSERT INTO nl_models
SELECT 'twise', mrf_learn_twise(r, t => 2, rho => 2) FROM (SELECT urban, party = 'democrat' AS dem, budget = 'y' AS yes FROM nl_votes) r;
INSERT INTO nl_models
SELECT 'array', mrf_learn_pairwise(ARRAY[party::text = 'democrat', urban]::boolean[]::int[], k => 2, rho => 1) FROM nl_votes;

-- pairwise: names in column order, labels in each type's sort order
SELECT results_eq($$SELECT i, name, labels FROM mrf_variables((SELECT m FROM nl_models WHERE kind = 'pairwise'))$$,
	$$VALUES (1, 'party'::text, ARRAY['democrat', 'republican']), (2, 'budget', ARRAY['abstain', 'y', 'n']),
			 (3, 'defence', ARRAY['abstain', 'y', 'n']), (4, 'urban', ARRAY['false', 'true'])$$,
	'pairwise: variables named by the columns, labels from the enums (sort order) and boolean');
SELECT is((SELECT name_i || '-' || name_j FROM mrf_edges((SELECT m FROM nl_models WHERE kind = 'pairwise'))
		   ORDER BY weight DESC LIMIT 1), 'party-budget', 'mrf_edges: the strongest edge, by name');
SELECT is((SELECT count(*) FROM mrf_edges((SELECT m FROM nl_models WHERE kind = 'pairwise')) e
		   JOIN mrf_variables((SELECT m FROM nl_models WHERE kind = 'pairwise')) a ON a.i = e.i
		   JOIN mrf_variables((SELECT m FROM nl_models WHERE kind = 'pairwise')) b ON b.i = e.j
		   WHERE a.name = e.name_i AND b.name = e.name_j), 6::bigint, 'mrf_edges: every name is its position''s');
-- every weight's labels are its codes' labels
SELECT is((SELECT count(*) FROM mrf_weights((SELECT m FROM nl_models WHERE kind = 'pairwise')) w
		   JOIN mrf_variables((SELECT m FROM nl_models WHERE kind = 'pairwise')) a ON a.i = w.i
		   JOIN mrf_variables((SELECT m FROM nl_models WHERE kind = 'pairwise')) b ON b.i = w.j
		   WHERE w.name_i = a.name AND w.name_j = b.name
			 AND w.label_a IS NOT DISTINCT FROM a.labels[w.a + 1] AND w.label_b IS NOT DISTINCT FROM b.labels[w.b + 1]),
		  (SELECT count(*) FROM mrf_weights((SELECT m FROM nl_models WHERE kind = 'pairwise'))),
		  'mrf_weights: names and labels of every row match its positions and codes');
SELECT is((SELECT label FROM mrf_fields((SELECT m FROM nl_models WHERE kind = 'pairwise')) WHERE i = 2 AND a = 2),
		  'n', 'mrf_fields: label of code 2 of budget (abstain < y < n)');
-- the direction of the party-budget dependence, read through labels: democrats vote y
SELECT cmp_ok((SELECT weight FROM mrf_weights((SELECT m FROM nl_models WHERE kind = 'pairwise'))
			   WHERE name_i = 'party' AND name_j = 'budget' AND label_a = 'democrat' AND label_b = 'y'),
			  '>', (SELECT weight FROM mrf_weights((SELECT m FROM nl_models WHERE kind = 'pairwise'))
					WHERE name_i = 'party' AND name_j = 'budget' AND label_a = 'democrat' AND label_b = 'n'),
			  'labels pick the right cells: W(democrat, y) > W(democrat, n)');
SELECT is((SELECT mrf_info(m)->'source' FROM nl_models WHERE kind = 'pairwise'),
		  jsonb_build_object('relation', (SELECT nspname FROM pg_namespace WHERE oid = pg_my_temp_schema()) || '.nl_votes',
							 'columns', '["party", "budget", "defence", "urban"]'::jsonb),
		  'meta: the source relation and its columns');

-- the text form keeps names and labels and reads them back
SELECT is((SELECT (m::text::mrf)::text FROM nl_models WHERE kind = 'pairwise'),
		  (SELECT m::text FROM nl_models WHERE kind = 'pairwise'), 'pairwise: the text form reads back exactly');
SELECT results_eq($$SELECT * FROM mrf_variables((SELECT m::text::mrf FROM nl_models WHERE kind = 'pairwise'))$$,
				  $$SELECT * FROM mrf_variables((SELECT m FROM nl_models WHERE kind = 'pairwise'))$$,
				  'pairwise: names and labels survive the text form');
SELECT results_eq($$SELECT * FROM mrf_potentials((SELECT m::text::mrf FROM nl_models WHERE kind = 'cliques'))$$,
				  $$SELECT * FROM mrf_potentials((SELECT m FROM nl_models WHERE kind = 'cliques'))$$,
				  'cliques: potentials with names and labels survive the text form');

-- cliques: names and labels of cliques and assignments
SELECT is((SELECT names || labels FROM mrf_potentials((SELECT m FROM nl_models WHERE kind = 'cliques'))
		   WHERE clique = ARRAY[2, 3] AND assignment = ARRAY[0, 2]),
		  ARRAY['budget', 'defence', 'abstain', 'n'], 'mrf_potentials: clique names and assignment labels');
SELECT is((SELECT count(*) FROM mrf_marginals((SELECT m FROM nl_models WHERE kind = 'cliques'))
		   WHERE names = ARRAY['party', 'budget'] AND labels[1] IN ('democrat', 'republican')), 6::bigint,
		  'mrf_marginals: names and labels on every cell of the party-budget table');

-- binary learners from rows of boolean columns
SELECT results_eq($$SELECT i, name, label FROM mrf_fields((SELECT m FROM nl_models WHERE kind = 'ising'))$$,
	$$VALUES (1, 'urban'::text, 'true'::text), (2, 'dem', 'true'), (3, 'yes', 'true')$$,
	'ising: fields (a = 1, the value +1) named and labelled true');
SELECT is((SELECT name_i || '-' || name_j FROM mrf_edges((SELECT m FROM nl_models WHERE kind = 'ising'))
		   ORDER BY abs(weight) DESC LIMIT 1), 'dem-yes', 'ising: the strongest edge by name');
SELECT is((SELECT names FROM mrf_monomials((SELECT m FROM nl_models WHERE kind = 'twise')) WHERE vars = ARRAY[2, 3]),
		  ARRAY['dem', 'yes'], 'mrf_monomials: names of a monomial''s variables');
SELECT is((SELECT mrf_info(m)->'source' FROM nl_models WHERE kind = 'ising'), NULL,
		  'a subquery''s row type names no relation');

-- integer arrays have codes only: names and labels are NULL
SELECT is((SELECT count(*) FROM mrf_variables((SELECT m FROM nl_models WHERE kind = 'array'))
		   WHERE name IS NULL AND labels IS NULL), 2::bigint, 'integer arrays: no names, no labels');
SELECT is((SELECT count(*) FROM mrf_weights((SELECT m FROM nl_models WHERE kind = 'array'))
		   WHERE name_i IS NULL AND label_a IS NULL), 4::bigint, 'integer arrays: weights without names');

-- the reader checks "variables" against the model's shape
SELECT throws_ok($$SELECT '{"kind": "ising", "p": 2, "weights": [[0, 1], [1, 0]], "fields": [0, 0], "meta": {"variables": [{"name": "a"}]}}'::mrf$$,
				 '22P02', NULL, 'variables: one per variable');
SELECT throws_ok($$SELECT '{"kind": "ising", "p": 2, "weights": [[0, 1], [1, 0]], "fields": [0, 0], "meta": {"variables": [{"name": "a", "labels": ["x", "y", "z"]}, {"name": "b"}]}}'::mrf$$,
				 '22P02', NULL, 'labels: no more than the alphabet');
SELECT throws_ok($$SELECT '{"kind": "ising", "p": 2, "weights": [[0, 1], [1, 0]], "fields": [0, 0], "meta": {"variables": [{"name": 1}, {"name": "b"}]}}'::mrf$$,
				 '22P02', NULL, 'names: strings or null');
SELECT is((SELECT name_i || name_j FROM mrf_edges('{"kind": "ising", "p": 2, "weights": [[0, 1], [1, 0]], "fields": [0, 0], "meta": {"variables": [{"name": "a", "labels": ["off", "on"]}, {"name": "b"}]}}'::mrf)),
		  'ab', 'a model written by hand may name its variables');

-- parallel plans: the leader's state comes from workers and keeps the names
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL parallel_leader_participation = off;
ANALYZE nl_votes;
-- temp tables are never scanned in parallel: a regular table is
CREATE TABLE nl_votes_par AS SELECT * FROM nl_votes;
ANALYZE nl_votes_par;
CREATE FUNCTION pg_temp.nl_plan() RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXPLAIN (COSTS OFF) SELECT mrf_learn_pairwise_agg(v, mrf_options(rho => 1)) FROM nl_votes_par v;
END $$;
SELECT ok((SELECT bool_or(l LIKE '%Partial Aggregate%') FROM pg_temp.nl_plan() l), 'the plan is parallel');
SELECT is((SELECT array_agg(name ORDER BY i) FROM mrf_variables((SELECT mrf_learn_pairwise_agg(v, mrf_options(rho => 1)) FROM nl_votes_par v))),
		  ARRAY['party', 'budget', 'defence', 'urban'], 'a parallel aggregate keeps the names');

SELECT * FROM finish();
ROLLBACK;
