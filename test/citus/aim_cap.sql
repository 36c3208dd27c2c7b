-- server: citus
-- AIM's default model cap on Citus.  Without max_model_cells the cap is
-- the smaller of 2^16 cells and a quarter of mrfdp.max_learner_memory at
-- 160 bytes a cell, and it decides which workload marginals are skipped, so
-- which tables the workers count.  Every node uses the coordinator's: it
-- travels in the options the workers receive.  With the coordinator at 16
-- MB (26,214 cells) and the workers at their default (65,536), and the
-- other way round, a workload triple of 32,768 cells is skipped or kept on
-- every node alike and the model is the local table's (before, the nodes
-- counted different tables and the release failed).
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(10);

CREATE TABLE cap32 (id int, kr int[]);
SELECT create_distributed_table('cap32', 'id');
INSERT INTO cap32 SELECT i, ARRAY[i % 32, (i / 32) % 32, (i * 7 + i / 5) % 32, i % 5] FROM generate_series(1, 3000) i;
CREATE TABLE cap32_local AS SELECT * FROM cap32;
SET mrfdp.test_seed = 23;
CREATE TEMP TABLE mc (src text, m mrf, error text);
-- (functions of pg_temp stay on the coordinator: Citus's warning that says so is not shown)
SET client_min_messages = error;
-- a release into mc; an error is kept (the script goes on to reset the workers)
CREATE FUNCTION pg_temp.learn(src text, rel text, opts text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	msg text;
BEGIN
	EXECUTE format('INSERT INTO mc SELECT %L, mrf_learn_aim_agg(kr, mrf_options(rho => 1, k => 32, workload => ''[[1, 2, 3], [3, 4]]''%s)) FROM %I',
				   src, opts, rel);
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
	INSERT INTO mc VALUES (src, NULL, msg);
END $$;
-- the workers' setting, changed and reloaded (their next statement reads it)
\ir lib/workers_memory.psql
SET client_min_messages = warning;

-- the coordinator at 16 MB, the workers at their default
SET mrfdp.max_learner_memory = '16MB';
SELECT pg_temp.learn('small coordinator dist', 'cap32', '');
SELECT pg_temp.learn('small coordinator local', 'cap32_local', '');
RESET mrfdp.max_learner_memory;
SELECT is((SELECT coalesce(md5((m::jsonb - 'meta')::text), 'no model: small coordinator dist') FROM mc WHERE src = 'small coordinator dist'),
	(SELECT coalesce(md5((m::jsonb - 'meta')::text), 'no model: small coordinator local') FROM mc WHERE src = 'small coordinator local'),
	'coordinator at 16 MB, workers at their default: the local model');
SELECT is((SELECT array[m::jsonb -> 'meta' ->> 'max_model_cells', m::jsonb -> 'meta' ->> 'max_model_cells_given',
				  m::jsonb -> 'meta' -> 'workload' ->> 'skipped'] FROM mc WHERE src = 'small coordinator dist'),
	ARRAY['26214', 'false', '1'], 'the coordinator''s default cap (26,214 cells, not given), the triple skipped');

-- the workers at 16 MB, the coordinator at its default
SELECT is(pg_temp.workers_memory('16MB'), ARRAY['16MB', '16MB'], 'the workers are at 16 MB');
SELECT pg_temp.learn('small workers dist', 'cap32', '');
SELECT pg_temp.learn('small workers local', 'cap32_local', '');
SELECT is((SELECT coalesce(md5((m::jsonb - 'meta')::text), 'no model: small workers dist') FROM mc WHERE src = 'small workers dist'),
	(SELECT coalesce(md5((m::jsonb - 'meta')::text), 'no model: small workers local') FROM mc WHERE src = 'small workers local'),
	'workers at 16 MB, the coordinator at its default: the local model');
SELECT is((SELECT array[m::jsonb -> 'meta' ->> 'max_model_cells', m::jsonb -> 'meta' -> 'workload' ->> 'skipped']
		   FROM mc WHERE src = 'small workers dist'),
	ARRAY['65536', '0'], 'the coordinator''s cap (65,536 cells): the triple measured');
SELECT isnt((SELECT coalesce(md5((m::jsonb - 'meta')::text), 'no model: small workers dist') FROM mc WHERE src = 'small workers dist'),
	(SELECT coalesce(md5((m::jsonb - 'meta')::text), 'no model: small coordinator dist') FROM mc WHERE src = 'small coordinator dist'),
	'the two caps make different models (the comparisons can see a change)');
-- a cap given in the options is every node's too
SELECT pg_temp.learn('given dist', 'cap32', ', max_model_cells => 20000');
SELECT pg_temp.learn('given local', 'cap32_local', ', max_model_cells => 20000');
SELECT is((SELECT coalesce(md5((m::jsonb - 'meta')::text), 'no model: given dist') FROM mc WHERE src = 'given dist'),
	(SELECT coalesce(md5((m::jsonb - 'meta')::text), 'no model: given local') FROM mc WHERE src = 'given local'),
	'max_model_cells given: the local model');
SELECT is((SELECT array[m::jsonb -> 'meta' ->> 'max_model_cells', m::jsonb -> 'meta' ->> 'max_model_cells_given']
		   FROM mc WHERE src = 'given dist'), ARRAY['20000', 'true'], 'and the cap given');
SELECT isnt(pg_temp.workers_memory(NULL), ARRAY['16MB', '16MB'], 'the workers'' setting is reset');
SELECT is((SELECT string_agg(src || ': ' || error, '; ') FROM mc WHERE error IS NOT NULL), NULL, 'no release failed');


SELECT * FROM finish();
