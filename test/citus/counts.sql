-- server: citus
-- Issue 13, item 2 (second half): the clique learner's combinable state is
-- the exact contingency tables of its cliques (fixed by its options), not
-- its rows: each worker counts its shards' rows, the coordinator adds the
-- counts, draws the noise and charges.  Integer sums: the model is bit for
-- bit the local table's under mrfdp.test_seed.  What a worker sends does
-- not grow with its rows.  A counts state that arrives as text is checked.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(13);

CREATE TABLE ct13 (id int, g int, kr int[]);
SELECT create_distributed_table('ct13', 'id');
INSERT INTO ct13
SELECT i, i % 3, ARRAY[i % 3, (i / 3) % 3, (i / 7) % 3, (i * 5) % 3, ((i * 13) / 11) % 3]
FROM generate_series(1, 6000) i;
CREATE TABLE ct13_local AS SELECT * FROM ct13;
CREATE TABLE ct13_big (id int, kr int[]);
SELECT create_distributed_table('ct13_big', 'id');
INSERT INTO ct13_big SELECT ct13_local.id + 6000 * x, kr FROM ct13_local, generate_series(0, 9) r(x);
CREATE TABLE ct13_big_local AS SELECT * FROM ct13_big;
SELECT mrfdp.protect('ct13', epsilon => 1000, delta => 1e-6);
SET mrfdp.test_seed = 41;
CREATE FUNCTION ct13_spent() RETURNS numeric LANGUAGE sql
	AS $$SELECT spent_pure_epsilon FROM mrfdp.budget WHERE relation = 'ct13'::regclass$$;
CREATE TEMP TABLE ctm13 (src text, m mrf);

-- Same model as one node, for both fitting methods, named and aggregate forms, and GROUP BY.
INSERT INTO ctm13 SELECT 'cgm dist', mrf_learn_cliques(kr, epsilon => 0.5, k => 3, cliques => '[[1, 2], [2, 3], [3, 4, 5]]') FROM ct13;
INSERT INTO ctm13 SELECT 'cgm local', mrf_learn_cliques(kr, epsilon => 0.5, k => 3, cliques => '[[1, 2], [2, 3], [3, 4, 5]]') FROM ct13_local;
SELECT is((SELECT m::jsonb - 'meta' FROM ctm13 WHERE src = 'cgm dist'),
	(SELECT m::jsonb - 'meta' FROM ctm13 WHERE src = 'cgm local'),
	'cliques (CGM) from counts combined on the workers equal the local model');
INSERT INTO ctm13 SELECT 'naive dist', mrf_learn_cliques_agg(kr, mrf_options(epsilon => 0.5, k => 3, method => 'naive', cliques => '[[1, 2, 3], [4, 5]]')) FROM ct13;
INSERT INTO ctm13 SELECT 'naive local', mrf_learn_cliques_agg(kr, mrf_options(epsilon => 0.5, k => 3, method => 'naive', cliques => '[[1, 2, 3], [4, 5]]')) FROM ct13_local;
SELECT is((SELECT m::jsonb - 'meta' FROM ctm13 WHERE src = 'naive dist'),
	(SELECT m::jsonb - 'meta' FROM ctm13 WHERE src = 'naive local'),
	'cliques (naive) from counts equal the local model');
SELECT is((SELECT (m::jsonb -> 'meta' ->> 'rows')::bigint FROM ctm13 WHERE src = 'naive dist'), 6000::bigint,
	'the model counts every row once');
INSERT INTO ctm13 SELECT 'group dist ' || g, mrf_learn_cliques_agg(kr, mrf_options(epsilon => 0.25, k => 3, cliques => '[[1, 2], [4, 5]]')) FROM ct13 GROUP BY g;
INSERT INTO ctm13 SELECT 'group local ' || g, mrf_learn_cliques_agg(kr, mrf_options(epsilon => 0.25, k => 3, cliques => '[[1, 2], [4, 5]]')) FROM ct13_local GROUP BY g;
SELECT is((SELECT array_agg(m::jsonb - 'meta' ORDER BY src) FROM ctm13 WHERE src LIKE 'group dist%'),
	(SELECT array_agg(m::jsonb - 'meta' ORDER BY src) FROM ctm13 WHERE src LIKE 'group local%'),
	'GROUP BY: one model per group, each the local one');
SELECT is(ct13_spent(), 0.5 + 0.5 + 3 * 0.25, 'each distributed release was charged once (pure epsilon)');

-- What a worker sends: the tables (9 + 9 + 27 cells), not the rows.
SELECT ok(length(worker_partial_agg('mrfdp_internal.mrf_learn_cliques_citus_agg(integer[], jsonb)'::regprocedure,
		ROW(kr, mrf_options(epsilon => 0.5, k => 3, cliques => '[[1, 2], [2, 3], [3, 4, 5]]'))::record)::text)
	< 2 * (28 + 100 + 8 + 8 * 45) + 10, 'the partial state of 6,000 rows is the size of its tables')
	FROM ct13_local;
SELECT is((SELECT length(worker_partial_agg('mrfdp_internal.mrf_learn_cliques_citus_agg(integer[], jsonb)'::regprocedure,
		ROW(kr, mrf_options(epsilon => 0.5, k => 3, cliques => '[[1, 2], [2, 3], [3, 4, 5]]'))::record)::text) FROM ct13_local),
	(SELECT length(worker_partial_agg('mrfdp_internal.mrf_learn_cliques_citus_agg(integer[], jsonb)'::regprocedure,
		ROW(kr, mrf_options(epsilon => 0.5, k => 3, cliques => '[[1, 2], [2, 3], [3, 4, 5]]'))::record)::text)
		FROM (SELECT * FROM ct13_local LIMIT 1) x),
	'and does not grow with the rows');
INSERT INTO ctm13 SELECT 'big dist', mrf_learn_cliques(kr, epsilon => 0.5, k => 3, cliques => '[[1, 2], [2, 3], [3, 4, 5]]') FROM ct13_big;
INSERT INTO ctm13 SELECT 'big local', mrf_learn_cliques(kr, epsilon => 0.5, k => 3, cliques => '[[1, 2], [2, 3], [3, 4, 5]]') FROM ct13_big_local;
SELECT is((SELECT m::jsonb - 'meta' FROM ctm13 WHERE src = 'big dist'),
	(SELECT m::jsonb - 'meta' FROM ctm13 WHERE src = 'big local'),
	'60,000 rows (several count batches per worker) give the one-node model');

-- A counts state in text form is checked before use (lib/counts_state.psql).
\ir lib/counts_state.psql
CREATE FUNCTION ct13_state(n bigint, ncells bigint, counts bigint[]) RETURNS text LANGUAGE sql
	AS $$SELECT cs_state(2, 3, n, '{"k": 3, "cliques": [[1, 2]], "epsilon": 1}', ncells, counts)$$;
CREATE FUNCTION ct13_combine(state text) RETURNS mrf LANGUAGE sql
	AS $$SELECT cs_combine('mrfdp_internal.mrf_learn_cliques_citus_agg(integer[], jsonb)', state)$$;
SELECT throws_like($$SELECT ct13_combine(left(ct13_state(10, 9, ARRAY[5, 5, 0, 0, 0, 0, 0, 0, 0]), 60))$$,
	'%invalid mrfdp aggregate state%', 'a truncated counts state is refused');
SELECT is(cs_refusal($$SELECT ct13_combine(ct13_state(10, 2, ARRAY[5, 5]))$$),
	'invalid mrfdp aggregate state: The state''s tables are not the ones its options give.',
	'a counts state whose tables do not match its options is refused');
SELECT is(cs_refusal($$SELECT ct13_combine(ct13_state(10, 9, ARRAY[5, 5, 0, 0, 0, 0, 0, 0, -1]))$$),
	'invalid mrfdp aggregate state: A count lies outside 0 .. n.', 'a negative count is refused');
SELECT ok((SELECT ct13_combine(ct13_state(10, 9, ARRAY[5, 5, 0, 0, 0, 0, 0, 0, 0]))) IS NOT NULL,
	'a well-formed counts state learns (it read no protected relation)');
SELECT is(ct13_spent(), 0.5 + 0.5 + 3 * 0.25, 'the states charged nothing to the table');

SELECT * FROM finish();
