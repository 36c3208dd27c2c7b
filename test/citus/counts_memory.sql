-- server: citus
-- What a counts state's memory check counts (citus/state.c CountsStart):
-- everything the state holds at once, checked at its first row before any
-- of it is allocated: its tables (ncells + 1 counts of 8 bytes), the
-- tables count_rows fills for one batch (as many), and the batch of rows
-- gathered before they are counted (MrfCode rows of 2 bytes a value; the
-- batch is the tables' bytes in rows, within 64 KB and 64 MB, and the row
-- storage at least 1,024 rows).  Before, the rows were left out: a worker
-- could hold 1.5 times what mrfdp.max_learner_memory allows.
--
-- MST's tables are every one-way and every two-way table: p k + C(p,2) k^2
-- cells.  For each shape below, mrfdp.max_learner_memory is set to the
-- figure's kB rounded up (fits) and to one kB below it (refused with
-- SQLSTATE 54000, program_limit_exceeded); that kB below lies above the old
-- figure (the two tables alone), which the test checks, so the old code
-- accepts it.  Both on one node (worker_partial_agg on a local table: the
-- transition function runs here) and on the workers (ALTER SYSTEM on the
-- workers only: the error can only come from them), where the table is
-- protected: a worker's refusal comes before the coordinator's final
-- function, so nothing is charged; the release that fits is charged once.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(20);

-- The figures, from the shape (k the same for every variable).
CREATE FUNCTION cm_cells(p int, k int) RETURNS bigint LANGUAGE sql IMMUTABLE
	AS $$SELECT p::bigint * k + (p::bigint * (p - 1) / 2) * k * k$$;
CREATE FUNCTION cm_row_bytes(p int) RETURNS bigint LANGUAGE sql IMMUTABLE
	AS $$SELECT 2::bigint * p$$;
CREATE FUNCTION cm_batch(p int, k int) RETURNS bigint LANGUAGE sql IMMUTABLE
	AS $$SELECT greatest(1, least(greatest(65536, 8 * cm_cells(p, k)), 64 * 1024 * 1024) / cm_row_bytes(p))$$;
-- new: both tables and the row storage of one batch
CREATE FUNCTION cm_bytes(p int, k int) RETURNS bigint LANGUAGE sql IMMUTABLE
	AS $$SELECT 2 * 8 * (cm_cells(p, k) + 1) + greatest(cm_batch(p, k), 1024) * cm_row_bytes(p)$$;
-- old: the two tables only
CREATE FUNCTION cm_old_bytes(p int, k int) RETURNS bigint LANGUAGE sql IMMUTABLE
	AS $$SELECT 2 * 8 * cm_cells(p, k)$$;
CREATE FUNCTION cm_fits_kb(p int, k int) RETURNS bigint LANGUAGE sql IMMUTABLE
	AS $$SELECT (cm_bytes(p, k) + 1023) / 1024$$;
CREATE FUNCTION cm_refused_kb(p int, k int) RETURNS bigint LANGUAGE sql IMMUTABLE
	AS $$SELECT cm_fits_kb(p, k) - 1$$;

-- p = 10, k = 32: 46,400 cells, a batch of 18,560 rows: 1,113,616 bytes
-- (1,088 kB rounded up; 1,087 kB is refused), against 742,400 before.
-- p = 8, k = 64: 115,200 cells, 57,600 rows: 2,764,816 bytes (2,701 kB).
SELECT is(ARRAY[cm_cells(10, 32), cm_batch(10, 32), cm_bytes(10, 32), cm_fits_kb(10, 32)],
	ARRAY[46400, 18560, 1113616, 1088]::bigint[], 'the figures of p = 10, k = 32');
SELECT ok(cm_refused_kb(p, k) * 1024 >= cm_old_bytes(p, k) AND cm_refused_kb(p, k) >= 1024,
	format('p = %s, k = %s: the kB below the figure lies above the old figure (and the setting''s 1 MB minimum)', p, k))
FROM (VALUES (10, 32), (8, 64)) s(p, k);

-- Rows of 10 and of 8 variables, every value in its alphabet.
CREATE TABLE cm10 (id int, kr int[]);
SELECT create_distributed_table('cm10', 'id');
INSERT INTO cm10 SELECT i, (SELECT array_agg((i * (2 * j + 1) + (i / 7) * j) % 32 ORDER BY j) FROM generate_series(1, 10) j)
FROM generate_series(1, 3000) i;
CREATE TABLE cm10_local AS SELECT * FROM cm10;
CREATE TABLE cm8 (id int, kr int[]);
SELECT create_distributed_table('cm8', 'id');
INSERT INTO cm8 SELECT i, (SELECT array_agg((i * (2 * j + 1) + (i / 5) * j) % 64 ORDER BY j) FROM generate_series(1, 8) j)
FROM generate_series(1, 3000) i;
CREATE TABLE cm8_local AS SELECT * FROM cm8;
SELECT mrfdp.protect('cm10', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.protect('cm8', epsilon => 1000, delta => 1e-6);
SET mrfdp.test_seed = 31;

-- SQLSTATE and message of a statement, or 'ok'
CREATE FUNCTION cm_outcome(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
BEGIN
	EXECUTE sql;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
	RETURN st || ': ' || msg;
END $$;
CREATE FUNCTION cm_partial(rel text, k int, kb bigint) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	EXECUTE format('SET LOCAL mrfdp.max_learner_memory = %L', kb || 'kB');
	r := cm_outcome(format('SELECT worker_partial_agg(''mrfdp_internal.mrf_learn_mst_citus_agg(integer[], jsonb)''::regprocedure, '
						   'ROW(kr, mrf_options(rho => 0.5, k => %s))::record) FROM %I', k, rel));
	RESET mrfdp.max_learner_memory;
	RETURN r;
END $$;

-- One node: the transition function here, under this backend's setting.
SELECT alike(cm_partial('cm10_local', 32, cm_refused_kb(10, 32)), '54000: mrf_learn_mst would need % MB of working memory',
	'p = 10, k = 32, one node, 1 kB under the figure: refused (54000)');
SELECT is(cm_partial('cm10_local', 32, cm_fits_kb(10, 32)), 'ok', 'and at the figure it counts');
SELECT alike(cm_partial('cm8_local', 64, cm_refused_kb(8, 64)), '54000: mrf_learn_mst would need % MB of working memory',
	'p = 8, k = 64, one node, 1 kB under the figure: refused (54000)');
SELECT is(cm_partial('cm8_local', 64, cm_fits_kb(8, 64)), 'ok', 'and at the figure it counts');

-- The workers: their setting, changed and reloaded (their next statement reads it).
SET client_min_messages = error;
\ir lib/workers_memory.psql
SET client_min_messages = warning;
CREATE FUNCTION cm_spent(rel regclass) RETURNS numeric LANGUAGE sql
	AS $$SELECT coalesce(spent_zcdp_rho, 0) FROM mrfdp.budget WHERE relation = rel$$;
CREATE FUNCTION cm_ledger_rows(rel regclass) RETURNS bigint LANGUAGE sql
	AS $$SELECT count(*) FROM mrfdp.ledger WHERE relation = rel$$;
CREATE TEMP TABLE cmm (src text, m mrf);

SELECT is(pg_temp.workers_memory(cm_refused_kb(10, 32) || 'kB'), ARRAY['1087kB', '1087kB'], 'the workers are 1 kB under the p = 10 figure');
SELECT alike(cm_outcome($$INSERT INTO cmm SELECT 'cm10 refused', mrf_learn_mst(kr, rho => 0.5, k => 32) FROM cm10$$),
	'54000: mrf_learn_mst would need % MB of working memory', 'p = 10, k = 32 on the workers: a worker''s refusal reaches the caller (54000)');
SELECT is(ARRAY[cm_spent('cm10'), cm_ledger_rows('cm10')], ARRAY[0, 0]::numeric[], 'and nothing was charged to the protected table');
SELECT is(pg_temp.workers_memory(cm_fits_kb(10, 32) || 'kB'), ARRAY['1088kB', '1088kB'], 'the workers at the p = 10 figure');
SELECT is(cm_outcome($$INSERT INTO cmm SELECT 'cm10 dist', mrf_learn_mst(kr, rho => 0.5, k => 32) FROM cm10$$), 'ok',
	'p = 10, k = 32 on the workers at the figure: learns');
INSERT INTO cmm SELECT 'cm10 local', mrf_learn_mst(kr, rho => 0.5, k => 32) FROM cm10_local;
SELECT is((SELECT md5((m::jsonb - 'meta')::text) FROM cmm WHERE src = 'cm10 dist'),
	(SELECT md5((m::jsonb - 'meta')::text) FROM cmm WHERE src = 'cm10 local'), 'the local table''s model');
SELECT is(cm_spent('cm10'), 0.5, 'charged once');

SELECT is(pg_temp.workers_memory(cm_refused_kb(8, 64) || 'kB'), ARRAY[cm_refused_kb(8, 64) || 'kB', cm_refused_kb(8, 64) || 'kB'], 'the workers are 1 kB under the p = 8 figure');
SELECT alike(cm_outcome($$INSERT INTO cmm SELECT 'cm8 refused', mrf_learn_mst(kr, rho => 0.5, k => 64) FROM cm8$$),
	'54000: mrf_learn_mst would need % MB of working memory', 'p = 8, k = 64 on the workers: refused (54000)');
SELECT is(ARRAY[cm_spent('cm8'), cm_ledger_rows('cm8')], ARRAY[0, 0]::numeric[], 'nothing charged');
SELECT is(pg_temp.workers_memory(cm_fits_kb(8, 64) || 'kB'), ARRAY[cm_fits_kb(8, 64) || 'kB', cm_fits_kb(8, 64) || 'kB'], 'the workers at the p = 8 figure');
SELECT is(cm_outcome($$INSERT INTO cmm SELECT 'cm8 dist', mrf_learn_mst(kr, rho => 0.5, k => 64, iterations => 50) FROM cm8$$), 'ok',
	'p = 8, k = 64 on the workers at the figure: learns');
SELECT isnt(pg_temp.workers_memory(NULL), ARRAY[cm_fits_kb(8, 64) || 'kB', cm_fits_kb(8, 64) || 'kB'], 'the workers'' setting is reset');

SELECT * FROM finish();
