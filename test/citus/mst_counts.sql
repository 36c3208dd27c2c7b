-- server: citus
-- Issue 13, item 2 (MST): mrf_learn_mst's combinable state is the exact
-- one-way and two-way tables of every variable (what MST reads from its
-- rows), not its rows: each worker counts its shards' rows, the coordinator
-- adds the counts, draws the noise and charges.  Integer sums: the model is
-- bit for bit the local table's under mrfdp.test_seed.  What a worker sends
-- does not grow with its rows; tables past 2^22 cells (wide columns) send
-- packed rows instead.  A forged MST counts state is refused.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(13);

-- 5 ternary variables with dependence (a chain), 6,000 rows; 60,000 in the big table.
CREATE TABLE mc13 (id int, g int, kr int[], br smallint[]);
SELECT create_distributed_table('mc13', 'id');
INSERT INTO mc13
SELECT i, i % 3, ARRAY[a, (a + (i / 5) % 2) % 3, (a + (i / 7) % 2 + (i / 11) % 2) % 3, (i * 5) % 3, ((i * 13) / 11) % 3],
	ARRAY[(a = 0)::int, ((i / 3) % 2 = 0)::int, (a = 0 AND i % 5 <> 0)::int, ((i * 7) % 3 = 0)::int]::smallint[]
FROM (SELECT i, i % 3 AS a FROM generate_series(1, 6000) i) x;
CREATE TABLE mc13_local AS SELECT * FROM mc13;
CREATE TABLE mc13_big (id int, kr int[]);
SELECT create_distributed_table('mc13_big', 'id');
INSERT INTO mc13_big SELECT mc13_local.id + 6000 * x, kr FROM mc13_local, generate_series(0, 9) r(x);
CREATE TABLE mc13_big_local AS SELECT * FROM mc13_big;
SELECT mrfdp.protect('mc13', epsilon => 1000, delta => 1e-6);
SET mrfdp.test_seed = 43;
CREATE FUNCTION mc13_spent() RETURNS numeric LANGUAGE sql
	AS $$SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'mc13'::regclass$$;
CREATE TEMP TABLE mcm13 (src text, m mrf);

-- Same model as one node: named and aggregate forms, binary rows, GROUP BY.
INSERT INTO mcm13 SELECT 'named dist', mrf_learn_mst(kr, rho => 0.5, k => 3) FROM mc13;
INSERT INTO mcm13 SELECT 'named local', mrf_learn_mst(kr, rho => 0.5, k => 3) FROM mc13_local;
SELECT is((SELECT m::jsonb - 'meta' FROM mcm13 WHERE src = 'named dist'),
	(SELECT m::jsonb - 'meta' FROM mcm13 WHERE src = 'named local'),
	'MST from counts combined on the workers equals the local model');
SELECT is((SELECT (m::jsonb -> 'meta' ->> 'rows')::bigint FROM mcm13 WHERE src = 'named dist'), 6000::bigint,
	'the model counts every row once');
INSERT INTO mcm13 SELECT 'agg dist', mrf_learn_mst_agg(br, mrf_options(rho => 0.25, k => 2, iterations => 200)) FROM mc13;
INSERT INTO mcm13 SELECT 'agg local', mrf_learn_mst_agg(br, mrf_options(rho => 0.25, k => 2, iterations => 200)) FROM mc13_local;
SELECT is((SELECT m::jsonb - 'meta' FROM mcm13 WHERE src = 'agg dist'),
	(SELECT m::jsonb - 'meta' FROM mcm13 WHERE src = 'agg local'),
	'binary smallint rows, aggregate form: the local model');
INSERT INTO mcm13 SELECT 'group dist ' || g, mrf_learn_mst_agg(kr, mrf_options(rho => 0.125, k => 3)) FROM mc13 GROUP BY g;
INSERT INTO mcm13 SELECT 'group local ' || g, mrf_learn_mst_agg(kr, mrf_options(rho => 0.125, k => 3)) FROM mc13_local GROUP BY g;
SELECT is((SELECT array_agg(m::jsonb - 'meta' ORDER BY src) FROM mcm13 WHERE src LIKE 'group dist%'),
	(SELECT array_agg(m::jsonb - 'meta' ORDER BY src) FROM mcm13 WHERE src LIKE 'group local%'),
	'GROUP BY: one model per group, each the local one');
SELECT is(mc13_spent(), 0.5 + 0.25 + 3 * 0.125, 'each distributed release was charged once');

-- What a worker sends: the tables (15 one-way + 90 two-way cells), not the rows.
SELECT ok(length(worker_partial_agg('mrfdp_internal.mrf_learn_mst_citus_agg(integer[], jsonb)'::regprocedure,
		ROW(kr, mrf_options(rho => 0.5, k => 3))::record)::text)
	< 2 * (28 + 100 + 8 + 8 * 105) + 10, 'the partial state of 6,000 rows is the size of its tables')
	FROM mc13_local;
SELECT is((SELECT length(worker_partial_agg('mrfdp_internal.mrf_learn_mst_citus_agg(integer[], jsonb)'::regprocedure,
		ROW(kr, mrf_options(rho => 0.5, k => 3))::record)::text) FROM mc13_local),
	(SELECT length(worker_partial_agg('mrfdp_internal.mrf_learn_mst_citus_agg(integer[], jsonb)'::regprocedure,
		ROW(kr, mrf_options(rho => 0.5, k => 3))::record)::text)
		FROM (SELECT * FROM mc13_local LIMIT 1) x),
	'and does not grow with the rows');
INSERT INTO mcm13 SELECT 'big dist', mrf_learn_mst(kr, rho => 0.5, k => 3) FROM mc13_big;
INSERT INTO mcm13 SELECT 'big local', mrf_learn_mst(kr, rho => 0.5, k => 3) FROM mc13_big_local;
SELECT is((SELECT m::jsonb - 'meta' FROM mcm13 WHERE src = 'big dist'),
	(SELECT m::jsonb - 'meta' FROM mcm13 WHERE src = 'big local'),
	'60,000 rows (several count batches per worker) give the one-node model');

-- Tables past 2^22 cells (MRF_COUNTS_MAX_CELLS): packed rows travel, same model.
-- Twelve columns of 255 values have 4,294,710 one- and two-way cells (34 MB
-- a state, 69 MB as text, once per shard) against 2,000 rows of 12 bytes.
CREATE TABLE mc13_wide (id int, kr int[]);
SELECT create_distributed_table('mc13_wide', 'id');
INSERT INTO mc13_wide SELECT i, (SELECT array_agg((i * (2 * j + 1) + j * (i % 3)) % 255 ORDER BY j)
								 FROM generate_series(1, 12) j)
FROM generate_series(1, 2000) i;
CREATE TABLE mc13_wide_local AS SELECT * FROM mc13_wide;
SELECT ok((SELECT length(worker_partial_agg('mrfdp_internal.mrf_learn_mst_citus_agg(integer[], jsonb)'::regprocedure,
		ROW(kr, mrf_options(rho => 0.5, k => 255))::record)::text) FROM mc13_wide_local)
	< 2 * 2 * 12 * 2000 + 10000, 'tables past 2^22 cells: the state is the packed rows, not the tables');
INSERT INTO mcm13 SELECT 'wide dist', mrf_learn_mst(kr, rho => 0.5, k => 255, iterations => 20) FROM mc13_wide;
INSERT INTO mcm13 SELECT 'wide local', mrf_learn_mst(kr, rho => 0.5, k => 255, iterations => 20) FROM mc13_wide_local;
SELECT is((SELECT md5((m::jsonb - 'meta')::text) FROM mcm13 WHERE src = 'wide dist'),
	(SELECT md5((m::jsonb - 'meta')::text) FROM mcm13 WHERE src = 'wide local'),
	'and the model is still the local one');

-- A forged MST counts state (lib/counts_state.psql): p = 2, k = 3: 6
-- one-way and 9 two-way cells.
\ir lib/counts_state.psql
CREATE FUNCTION mc13_state(n bigint, ncells bigint, counts bigint[]) RETURNS text LANGUAGE sql
	AS $$SELECT cs_state(2, 3, n, '{"k": 3, "rho": 1}', ncells, counts)$$;
CREATE FUNCTION mc13_combine(state text) RETURNS mrf LANGUAGE sql
	AS $$SELECT cs_combine('mrfdp_internal.mrf_learn_mst_citus_agg(integer[], jsonb)', state)$$;
SELECT is(cs_refusal($$SELECT mc13_combine(mc13_state(10, 9, ARRAY[5, 5, 0, 0, 0, 0, 0, 0, 0]))$$),
	'invalid mrfdp aggregate state: The state''s tables are not the ones its options give.',
	'an MST counts state with the clique tables'' size (not one- and two-way) is refused');
SELECT ok((SELECT mc13_combine(mc13_state(10, 15, ARRAY[5, 5, 0, 5, 5, 0, 5, 0, 0, 0, 5, 0, 0, 0, 0]))) IS NOT NULL,
	'a well-formed MST counts state learns (it read no protected relation)');
SELECT is(mc13_spent(), 0.5 + 0.25 + 3 * 0.125, 'the states charged nothing to the table');

SELECT * FROM finish();
