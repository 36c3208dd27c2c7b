-- server: citus
-- Adversarial review of distributed Frank-Wolfe (issue 13 item 3): whether
-- a distributed learn fails must not depend on how the rows spread over the
-- shards.  A row's shard is a hash of its distribution column, i.e. of the
-- data (replace-one can move a row to another shard), so a worker error
-- that fires when one shard holds "too many" rows is an error that depends
-- on the data, seen by the analyst after the charge.  Before the fix each
-- worker kept its shard's packed rows and checked them against its own
-- mrfdp.max_learner_memory: two tables with the same n, the same rows and
-- the same options, one spread over 4 shards and one with every row in one
-- shard, gave a model and "could not be read as its owner" (55000).  The
-- workers now work through their rows in batches of a fixed size, so their
-- memory (and any refusal) depends on p only.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(6);

CREATE ROLE fwss_owner LOGIN;
CREATE ROLE fwss_analyst;
-- 40,000 rows of 6 binary variables: the same rows in both tables
CREATE TABLE fwss_even (id int, row boolean[]);
SELECT create_distributed_table('fwss_even', 'id');
CREATE TABLE fwss_skew (id int, row boolean[]);
SELECT create_distributed_table('fwss_skew', 'id');
INSERT INTO fwss_even SELECT i, ARRAY[i % 2 = 0, i % 3 = 0, (i % 2 = 0) <> (i % 7 = 0), i % 5 = 0, i % 11 = 0, i % 13 = 0]
FROM generate_series(1, 40000) i;
-- every row in one shard (one distribution value)
INSERT INTO fwss_skew SELECT 1, row FROM fwss_even;
ALTER TABLE fwss_even OWNER TO fwss_owner;
ALTER TABLE fwss_skew OWNER TO fwss_owner;
SELECT mrfdp.protect('fwss_even', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.protect('fwss_skew', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.grant_learning('fwss_even', 'fwss_analyst');
SELECT mrfdp.grant_learning('fwss_skew', 'fwss_analyst');
-- the owner's sessions on the workers (where the shards are read) may use
-- 1 MB: 10,000 rows of a shard fit, 40,000 did not (Citus propagates the
-- setting to the workers)
ALTER ROLE fwss_owner SET mrfdp.max_learner_memory = '1MB';
SELECT ok(bool_and(success AND result LIKE '%max_learner_memory=1MB%'),
	'the workers have the owner''s setting')
	FROM run_command_on_workers($$SELECT rolconfig::text FROM pg_roles WHERE rolname = 'fwss_owner'$$);
CREATE TEMP TABLE fwss_models (src text, m mrf);
GRANT ALL ON fwss_models TO fwss_analyst;
SET mrfdp.test_seed = 11;

SET ROLE fwss_analyst;
SET mrfdp.distributed_frank_wolfe = on;
SELECT lives_ok($$INSERT INTO fwss_models SELECT 'even', mrf_learn_ising_from('fwss_even', 'row', rho => 0.5, iterations => 6, variables => 6)$$,
	'rows spread over the shards: a model');
SELECT lives_ok($$INSERT INTO fwss_models SELECT 'skew', mrf_learn_ising_from('fwss_skew', 'row', rho => 0.5, iterations => 6, variables => 6)$$,
	'the same rows in one shard: a model too (the outcome does not depend on the shards'' sizes)');
RESET ROLE;
RESET mrfdp.distributed_frank_wolfe;
SELECT ok((SELECT m::jsonb - 'meta' FROM fwss_models WHERE src = 'even') = (SELECT m::jsonb - 'meta' FROM fwss_models WHERE src = 'skew'),
	'and the same model');
SELECT ok((SELECT m::jsonb -> 'meta' ? 'distributed' FROM fwss_models WHERE src = 'skew'), 'learned on the shards');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'fwss_skew'::regclass),
	(SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'fwss_even'::regclass), 'charged alike');
ALTER ROLE fwss_owner RESET mrfdp.max_learner_memory;

SELECT * FROM finish();
