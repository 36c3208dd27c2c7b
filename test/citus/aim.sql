-- server: citus
-- Issue 12 item 2 on Citus, and issue 13 item 2 for AIM: AIM reads its
-- rows only through the exact tables of its candidates (the workload's
-- downward closure; by default every pair and the triples it adds), so its
-- combinable sibling (mrfdp_internal.mrf_learn_aim_citus_agg) ships counted tables:
-- each worker counts every one-way table and the workload's closure (by
-- default every pair and triple), the coordinator adds them and learns.
-- The model is the local table's under mrfdp.test_seed, each release is
-- charged once, a worker's state does not grow with its rows, a forged
-- state is refused; beyond 1,024 default tables (p > 18) packed rows travel
-- instead.  Rows of columns (a workload by names) are gathered.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(19);

CREATE TYPE aim_c AS ENUM ('x', 'y', 'z');
CREATE TABLE a12 (id int, g int, kr int[], a aim_c, b aim_c, c boolean);
SELECT create_distributed_table('a12', 'id');
INSERT INTO a12
SELECT i, i % 2, ARRAY[i % 3, (i / 3) % 3, (i / 7) % 3, (i * 5) % 3],
	   (enum_range(NULL::aim_c))[1 + i % 3], (enum_range(NULL::aim_c))[1 + (i / 2) % 3], i % 5 < 2
FROM generate_series(1, 3000) i;
CREATE TABLE a12_local AS SELECT * FROM a12;
-- 60,000 rows: several count batches on each worker
CREATE TABLE a12_big (id int, kr int[]);
SELECT create_distributed_table('a12_big', 'id');
INSERT INTO a12_big SELECT a12_local.id + 3000 * x, kr FROM a12_local, generate_series(0, 19) r(x);
CREATE TABLE a12_big_local AS SELECT * FROM a12_big;
-- 19 binary variables (k = 2): 19 + 171 + 969 default tables, more than 1,024
CREATE TABLE a12_wide (id int, br smallint[]);
SELECT create_distributed_table('a12_wide', 'id');
INSERT INTO a12_wide SELECT i, (SELECT array_agg(((i * (j + 3) / (j + 1)) % 3 = 0)::int::smallint ORDER BY j) FROM generate_series(1, 19) j)
FROM generate_series(1, 400) i;
CREATE TABLE a12_wide_local AS SELECT * FROM a12_wide;
SELECT mrfdp.protect('a12', epsilon => 1000, delta => 1e-6);
SET mrfdp.test_seed = 17;
CREATE FUNCTION a12_spent() RETURNS numeric LANGUAGE sql
	AS $$SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'a12'::regclass$$;
CREATE TEMP TABLE m12 (src text, m mrf);

SELECT is((SELECT count(*) FROM pg_proc WHERE proname = 'mrf_learn_aim_citus_agg'), 5::bigint,
	'AIM has a combinable sibling for each sample type');
INSERT INTO m12 SELECT 'dist', mrf_learn_aim(kr, rho => 0.5, k => 3) FROM a12;
INSERT INTO m12 SELECT 'local', mrf_learn_aim(kr, rho => 0.5, k => 3) FROM a12_local;
SELECT is((SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'dist'),
	(SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'local'),
	'AIM from counted tables (default workload) equals the local model');
SELECT is((SELECT (m::jsonb -> 'meta' ->> 'rows')::bigint FROM m12 WHERE src = 'dist'), 3000::bigint,
	'the model counts every row once');
INSERT INTO m12 SELECT 'wl dist', mrf_learn_aim_agg(kr, mrf_options(rho => 0.25, k => 3, workload => '[[1, 2, 3], [3, 4]]')) FROM a12;
INSERT INTO m12 SELECT 'wl local', mrf_learn_aim_agg(kr, mrf_options(rho => 0.25, k => 3, workload => '[[1, 2, 3], [3, 4]]')) FROM a12_local;
SELECT is((SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'wl dist'),
	(SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'wl local'),
	'a numbered workload, aggregate form: the local model');
-- named columns: a composite type (Citus cannot ship anonymous records); rows are gathered
CREATE TYPE a12_row AS (a aim_c, b aim_c, c boolean);
INSERT INTO m12 SELECT 'named dist', mrf_learn_aim(ROW(a, b, c)::a12_row, rho => 0.25,
												  workload => '[["a", "b"], ["b", "c"]]') FROM a12;
INSERT INTO m12 SELECT 'named local', mrf_learn_aim(ROW(a, b, c)::a12_row, rho => 0.25,
												   workload => '[["a", "b"], ["b", "c"]]') FROM a12_local;
SELECT is((SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'named dist'),
	(SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'named local'),
	'a workload by column names on a distributed table: the local model');
SELECT is(a12_spent(), 1.0, 'each distributed release was charged once');
INSERT INTO m12 SELECT 'group dist ' || g, mrf_learn_aim_agg(kr, mrf_options(rho => 0.125, k => 3)) FROM a12 GROUP BY g;
INSERT INTO m12 SELECT 'group local ' || g, mrf_learn_aim_agg(kr, mrf_options(rho => 0.125, k => 3)) FROM a12_local GROUP BY g;
SELECT is((SELECT array_agg(m::jsonb - 'meta' ORDER BY src) FROM m12 WHERE src LIKE 'group dist%'),
	(SELECT array_agg(m::jsonb - 'meta' ORDER BY src) FROM m12 WHERE src LIKE 'group local%'),
	'GROUP BY: one model per group, each the local one');
SELECT is(a12_spent(), 1.25, 'two charges');
INSERT INTO m12 SELECT 'big dist', mrf_learn_aim(kr, rho => 0.5, k => 3) FROM a12_big;
INSERT INTO m12 SELECT 'big local', mrf_learn_aim(kr, rho => 0.5, k => 3) FROM a12_big_local;
SELECT is((SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'big dist'),
	(SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'big local'),
	'60,000 rows (several count batches per worker) give the one-node model');

-- What a worker sends: the tables (4 x 3 + 6 x 9 + 4 x 27 = 174 cells), not the rows.
SELECT ok(length(worker_partial_agg('mrfdp_internal.mrf_learn_aim_citus_agg(integer[], jsonb)'::regprocedure,
		ROW(kr, mrf_options(rho => 0.5, k => 3))::record)::text)
	< 2 * (28 + 100 + 8 + 8 * 174) + 10, 'the partial state of 3,000 rows is the size of its tables')
	FROM a12_local;
SELECT is((SELECT length(worker_partial_agg('mrfdp_internal.mrf_learn_aim_citus_agg(integer[], jsonb)'::regprocedure,
		ROW(kr, mrf_options(rho => 0.5, k => 3))::record)::text) FROM a12_local),
	(SELECT length(worker_partial_agg('mrfdp_internal.mrf_learn_aim_citus_agg(integer[], jsonb)'::regprocedure,
		ROW(kr, mrf_options(rho => 0.5, k => 3))::record)::text)
		FROM (SELECT * FROM a12_local LIMIT 1) x),
	'and does not grow with the rows');

-- Beyond 1,024 default tables: packed rows travel (the state grows with the rows), same model.
SELECT ok((SELECT length(worker_partial_agg('mrfdp_internal.mrf_learn_aim_citus_agg(smallint[], jsonb)'::regprocedure,
		ROW(br, mrf_options(rho => 0.5, k => 2))::record)::text) FROM a12_wide_local)
	> (SELECT length(worker_partial_agg('mrfdp_internal.mrf_learn_aim_citus_agg(smallint[], jsonb)'::regprocedure,
		ROW(br, mrf_options(rho => 0.5, k => 2))::record)::text) FROM (SELECT * FROM a12_wide_local LIMIT 1) x) + 2 * 19 * 300,
	'p = 19 with the default workload: a packed row state');
INSERT INTO m12 SELECT 'wide dist', mrf_learn_aim(br, rho => 0.05, k => 2, iterations => 20) FROM a12_wide;
INSERT INTO m12 SELECT 'wide local', mrf_learn_aim(br, rho => 0.05, k => 2, iterations => 20) FROM a12_wide_local;
SELECT is((SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'wide dist'),
	(SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'wide local'),
	'and the model is still the local one');

-- Forged AIM counts states (lib/counts_state.psql): p = 2, k = 3, default
-- workload: two one-way tables (6 cells) and the pair (9).
\ir lib/counts_state.psql
SELECT is(cs_refusal($$SELECT cs_combine('mrfdp_internal.mrf_learn_aim_citus_agg(integer[], jsonb)',
		cs_state(2, 3, 10, '{"k": 3, "rho": 1}', 9, ARRAY[5, 5, 0, 0, 0, 0, 0, 0, 0]))$$),
	'invalid mrfdp aggregate state: The state''s tables are not the ones its options give.',
	'an AIM counts state whose tables are not its options'' is refused');
SELECT ok((SELECT cs_combine('mrfdp_internal.mrf_learn_aim_citus_agg(integer[], jsonb)',
		cs_state(2, 3, 10, '{"k": 3, "rho": 1}', 15, ARRAY[5, 5, 0, 5, 5, 0, 5, 0, 0, 0, 5, 0, 0, 0, 0]))) IS NOT NULL,
	'a well-formed AIM counts state learns (it read no protected relation), charging nothing');

-- AIM's options rounds, one_way_share and max_model_cells reach the counted-tables route
SELECT a12_spent() AS spent_before_options \gset
INSERT INTO m12 SELECT 'opt dist', mrf_learn_aim_agg(kr, mrf_options(rho => 0.25, k => 3, rounds => 12, one_way_share => 0.5,
																	max_model_cells => 200)) FROM a12;
INSERT INTO m12 SELECT 'opt local', mrf_learn_aim_agg(kr, mrf_options(rho => 0.25, k => 3, rounds => 12, one_way_share => 0.5,
																	 max_model_cells => 200)) FROM a12_local;
SELECT is((SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'opt dist'),
	(SELECT m::jsonb - 'meta' FROM m12 WHERE src = 'opt local'),
	'rounds, one_way_share and max_model_cells on a distributed table: the local model');
SELECT ok((SELECT (m::jsonb -> 'meta' ->> 'max_rounds')::int = 12 AND (m::jsonb -> 'meta' ->> 'one_way_share')::float8 = 0.5
				  AND (m::jsonb -> 'meta' ->> 'max_model_cells')::int = 200 FROM m12 WHERE src = 'opt dist'),
	'and records them');
SELECT throws_ok($$SELECT mrf_learn_aim_agg(kr, mrf_options(rho => 1e-12, k => 3, rounds => 3)) FROM a12$$, '22023',
	'invalid value for option "rho"', 'a rho out of the sampler''s range is refused on a distributed table');
SELECT is(a12_spent(), :spent_before_options + 0.25, 'one charge for the release, none for the refusal');

SELECT * FROM finish();
