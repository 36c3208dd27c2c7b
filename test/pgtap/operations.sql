-- Operations: parallel plans, GROUP BY, cancellation, progress, BLAS threads.
BEGIN;
SELECT plan(9);
SET LOCAL mrfdp.test_seed = 5;

CREATE FUNCTION pg_temp.plan_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	result text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		result := result || line || E'\n';
	END LOOP;
	RETURN result;
END $$;

CREATE TABLE ops_rows AS
SELECT g % 4 AS site, ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0, g % 7 = 0, (g / 3) % 2 = 0] AS "row"
FROM generate_series(1, 20000) g;
ANALYZE ops_rows;

-- A forced parallel plan: workers pack rows, the leader combines and learns.
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL max_parallel_workers_per_gather = 2;
SELECT like(pg_temp.plan_of('SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1)) FROM ops_rows'),
            '%Finalize Aggregate%Gather%Partial Aggregate%', 'the aggregate runs as a parallel plan');
CREATE TEMP TABLE par AS
SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 30)) AS m FROM ops_rows;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET LOCAL max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE ser AS
SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 30)) AS m FROM ops_rows;
SELECT is((SELECT mrf_info(m) - 'created' FROM par), (SELECT mrf_info(m) - 'created' FROM ser),
          'a parallel plan gives a model of the same shape and metadata');
SELECT is((SELECT count(*) FROM mrf_edges((SELECT m FROM par))), 10::bigint,
          'the parallel model has all 10 pairs of 5 variables');

-- GROUP BY with the aggregate form: one model per group
SELECT is((SELECT array_agg((mrf_info(m)->>'rows')::int ORDER BY site) FROM
             (SELECT site, mrf_learn_ising_agg("row", mrf_options(rho => 1)) m FROM ops_rows GROUP BY site) q),
          ARRAY[5000, 5000, 5000, 5000], 'GROUP BY learns one model per group');

-- Window form: one model per partition
SELECT is((SELECT count(DISTINCT m::text) FROM
             (SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1)) OVER (PARTITION BY site) m FROM ops_rows) q),
          4::bigint, 'a window aggregate learns per partition');

-- Cancellation: statement_timeout stops a long learn promptly, and nothing is returned.
CREATE TEMP TABLE wide AS
SELECT array_agg(random() < 0.5) AS "row" FROM generate_series(1, 60000) g, generate_series(1, 64) j GROUP BY g;
SAVEPOINT before_timeout;
CREATE TEMP TABLE t0 AS SELECT clock_timestamp() AS t;
SET LOCAL statement_timeout = '500ms';
SELECT throws_ok($$SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 1000000)) FROM wide$$,
                 '57014', NULL, 'statement_timeout cancels a long learn');
RESET statement_timeout;
SELECT cmp_ok(extract(epoch FROM clock_timestamp() - (SELECT t FROM t0))::float8, '<', 2.5::float8,
              'the cancel took effect within about a second of the timeout');

-- BLAS threads: two threads give the same model as one (exact integer scores)
SET LOCAL mrfdp.blas_threads = 2;
CREATE TEMP TABLE two AS SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 30)) AS m FROM ops_rows;
SET LOCAL mrfdp.blas_threads = 1;
CREATE TEMP TABLE one AS SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 30)) AS m FROM ops_rows;
SELECT is((SELECT m::text FROM two), (SELECT m::text FROM one), 'the model does not depend on the BLAS thread count');
SELECT throws_ok('SET mrfdp.blas_threads = 0', '22023', NULL, 'blas_threads is bounded');

SELECT * FROM finish();
ROLLBACK;
