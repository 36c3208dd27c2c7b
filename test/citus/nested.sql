-- server: citus
-- Issue 13: learners nested in larger queries, prepared statements (generic
-- plans) and the options arriving per row on a Citus cluster.  Every
-- release is charged on the coordinator, or refused with nothing charged.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(22);

CREATE TABLE n13 (id int, row boolean[]);
SELECT create_distributed_table('n13', 'id');
INSERT INTO n13
SELECT i, ARRAY[(i * 7) % 5 < 2, (i * 11) % 7 < 3, (i * 13) % 3 = 0]
FROM generate_series(1, 1000) i;
SELECT mrfdp.protect('n13', epsilon => 1000, delta => 1e-6);
SET mrfdp.test_seed = 7;
CREATE FUNCTION n13_spent() RETURNS numeric LANGUAGE sql
	AS $$SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'n13'::regclass$$;

-- A learner in a subquery over all shards: learned and charged on the coordinator.
SELECT is((SELECT count(m) FROM (SELECT mrf_learn_ising(row, rho => 0.125) AS m FROM n13) x), 1::bigint,
	'a learner in a subquery in FROM releases one model');
SELECT is(n13_spent(), 0.125, 'and it is charged on the coordinator');
SELECT is((SELECT count(m) FROM (SELECT id, mrf_learn_ising_agg(row, mrf_options(rho => 0.0625)) AS m
	FROM n13 WHERE id <= 3 GROUP BY id) x), 3::bigint,
	'a subquery grouped by the distribution column releases three models');
SELECT is(n13_spent(), 0.3125, 'each charged on the coordinator');

-- Nested in a query Citus sends whole to one worker: refused there, nothing charged.
SELECT throws_like($$SELECT count(m) FROM (SELECT mrf_learn_ising(row, rho => 0.125) AS m FROM n13 WHERE id = 17) x$$,
	'%cannot release a model on a Citus worker%',
	'a learner nested in a single-shard query is refused on the worker');
SELECT throws_like($$WITH x AS (SELECT mrf_learn_ising(row, rho => 0.125) AS m FROM n13 WHERE id = 17) SELECT count(m) FROM x$$,
	'%cannot release a model on a Citus worker%',
	'a learner in a CTE of a single-shard query is refused on the worker');
SELECT is(n13_spent(), 0.3125, 'the refused queries charged nothing');

-- A prepared statement, past the point where PostgreSQL switches to a generic plan.
PREPARE one(int) AS SELECT mrf_learn_ising(row, rho => 0.0625) FROM n13 WHERE id = $1;
SELECT lives_ok($$EXECUTE one(17)$$, 'prepared single-shard learner, run 1');
SELECT lives_ok($$EXECUTE one(18)$$, 'run 2');
SELECT lives_ok($$EXECUTE one(19)$$, 'run 3');
SELECT lives_ok($$EXECUTE one(20)$$, 'run 4');
SELECT lives_ok($$EXECUTE one(21)$$, 'run 5');
SELECT lives_ok($$EXECUTE one(22)$$, 'run 6 (generic plan)');
SELECT is(n13_spent(), 0.6875, 'each of the six prepared runs is charged on the coordinator');

-- INSERT ... SELECT into a table co-located with the source (Citus could push it down whole).
CREATE TABLE n13_models (id int, m mrf);
SELECT create_distributed_table('n13_models', 'id', colocate_with => 'n13');
SELECT lives_ok($$INSERT INTO n13_models SELECT id, mrf_learn_ising_agg(row, mrf_options(rho => 0.0625))
	FROM n13 WHERE id <= 3 GROUP BY id$$,
	'INSERT ... SELECT GROUP BY the distribution column into a co-located table learns');
SELECT is((SELECT count(m) FROM n13_models), 3::bigint, 'three models were stored');
SELECT is(n13_spent(), 0.875, 'each charged on the coordinator');

-- A distributed function's query that Citus routes to one worker: refused there.
CREATE FUNCTION n13_learn(k int) RETURNS text LANGUAGE plpgsql
	AS $$BEGIN RETURN (SELECT mrf_learn_ising(row, rho => 0.0625)::text FROM n13 WHERE id = k); END$$;
SELECT create_distributed_function('n13_learn(int)', 'k', colocate_with => 'n13');
SELECT throws_like($$SELECT n13_learn(18)$$, '%cannot release a model on a Citus worker%',
	'a distributed function whose learner Citus routes to a worker is refused');
SELECT is(n13_spent(), 0.875, 'and nothing was charged');

-- A Citus local table (a coordinator table in Citus's metadata) learns on the coordinator.
CREATE TABLE n13_cl (id int, row boolean[]);
INSERT INTO n13_cl SELECT id, row FROM n13 WHERE id <= 500;
SELECT citus_add_local_table_to_metadata('n13_cl');
SELECT mrfdp.protect('n13_cl', epsilon => 1000, delta => 1e-6);
SELECT lives_ok($$SELECT mrf_learn_ising(row, rho => 0.125) FROM n13_cl$$,
	'the named form learns from a Citus local table');
SELECT lives_ok($$SELECT id % 2, mrf_learn_ising_agg(row, mrf_options(rho => 0.125)) FROM n13_cl GROUP BY id % 2$$,
	'GROUP BY learns from a Citus local table');
SELECT is((SELECT spent_zcdp_rho FROM mrfdp.budget WHERE relation = 'n13_cl'::regclass), 0.375,
	'three releases from the Citus local table, three charges');

SELECT * FROM finish();
