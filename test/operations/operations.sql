-- server: session_preload
-- Operations: parallel plans, GROUP BY, cancellation, progress, learner threads.
BEGIN;
SELECT plan(13);
SET LOCAL mrfdp.test_seed = 5;
\ir ../lib/until_cancelled.psql

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
SELECT alike(pg_temp.plan_of('SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1)) FROM ops_rows'),
            '%Finalize Aggregate%Gather%Partial Aggregate%', 'the aggregate runs as a parallel plan');
CREATE TEMP TABLE par AS
SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 30)) AS m FROM ops_rows;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET LOCAL max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE ser AS
SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 30)) AS m FROM ops_rows;
SELECT is((SELECT mrf_info(m) - '{created,learn_seconds}'::text[] FROM par), (SELECT mrf_info(m) - '{created,learn_seconds}'::text[] FROM ser),
          'a parallel plan gives a model of the same shape and metadata');
-- Scores are exact integer sums, so the order in which workers deliver rows
-- cannot change them: under one seed the parallel model is the serial one.
SELECT ok((SELECT m::jsonb - 'meta' FROM par) = (SELECT m::jsonb - 'meta' FROM ser),
          'a parallel plan gives exactly the serial model under the same seed');

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
SET LOCAL statement_timeout = '500ms';
CREATE TEMP TABLE cancelled AS SELECT * FROM pg_temp.until_cancelled(
	'SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 1000000)) FROM wide');
SET LOCAL statement_timeout = 0;
SELECT is((SELECT state FROM cancelled), '57014', 'statement_timeout cancels a long learn');
SELECT cmp_ok((SELECT seconds FROM cancelled), '<', 1.5::float8,
              'the cancel takes effect within a second of the 0.5 s timeout');

-- Cancellation while mrf_sample fills its result: 2*10^7 rows of a two-column
-- model are drawn in well under a second, then written out for seconds; the
-- cancel must land in the writing too.
CREATE TEMP TABLE two_columns AS SELECT g % 2 = 0 AS a, g % 3 = 0 AS b FROM generate_series(1, 1000) g;
CREATE TEMP TABLE two_column_model AS SELECT mrf_learn_mst_agg(two_columns, mrf_options(rho => 1)) AS m FROM two_columns;
SET LOCAL statement_timeout = '1s';
CREATE TEMP TABLE sample_cancelled AS SELECT * FROM pg_temp.until_cancelled(
	'SELECT count(*) FROM mrf_sample((SELECT m FROM two_column_model), 20000000)');
SET LOCAL statement_timeout = 0;
SELECT is((SELECT state FROM sample_cancelled), '57014', 'statement_timeout cancels a long mrf_sample');
SELECT cmp_ok((SELECT seconds FROM sample_cancelled), '<', 2.0::float8,
              'the cancel lands within a second of the 1 s timeout while the rows are written out');

-- Cancellation while method => 'allocate' divides the rows among the cells:
-- 2*10^7 rows of a model with one clique and a variable in none are
-- grouped, shuffled and written in single groups (before: no poll inside
-- them, a 0.5 s timeout landed after 1.87 s; now 0.52 s, load 4.5).
CREATE TEMP TABLE alloc_row (a int, b int, c int);
SET LOCAL statement_timeout = '500ms';
CREATE TEMP TABLE allocate_cancelled AS SELECT * FROM pg_temp.until_cancelled(
	$q$SELECT count(*) FROM mrf_synthesize('{"kind": "cliques", "p": 3, "k": 2, "cliques": [[1, 2]], "log_potentials": [[0, 1, 2, 3]]}'::mrf,
										  20000000, NULL::alloc_row, method => 'allocate')$q$);
SET LOCAL statement_timeout = 0;
SELECT is((SELECT state FROM allocate_cancelled), '57014', 'statement_timeout cancels a long allocation');
SELECT cmp_ok((SELECT seconds FROM allocate_cancelled), '<', 1.2::float8,
              'the cancel lands within 0.7 s of the 0.5 s timeout while the rows are allocated');

-- Learner threads: two threads give the same model as one (exact integer scores)
SET LOCAL mrfdp.learner_threads = 2;
CREATE TEMP TABLE two AS SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 30)) AS m FROM ops_rows;
SET LOCAL mrfdp.learner_threads = 1;
CREATE TEMP TABLE one AS SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, iterations => 30)) AS m FROM ops_rows;
SELECT ok((SELECT m::jsonb - 'meta' FROM two) = (SELECT m::jsonb - 'meta' FROM one), 'the model does not depend on the learner thread count');
SELECT throws_ok('SET mrfdp.learner_threads = 0', '22023', NULL, 'learner_threads is bounded');

SELECT * FROM finish();
ROLLBACK;
