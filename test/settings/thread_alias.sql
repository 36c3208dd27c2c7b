-- server: session_preload
-- mrfdp.blas_threads is the old name of mrfdp.learner_threads: it applies
-- while the new name is at its default of 1, and the new name wins
-- otherwise (src/pg/driver/run.c, EffectiveThreads). The thread count a
-- learner plans for is visible in its memory plan (per-thread scratch), so
-- a plan that does not fit mrfdp.max_learner_memory names it.
BEGIN;
SELECT plan(5);
CREATE TABLE thread_rows AS
    SELECT array_agg(random() < 0.5) AS r FROM generate_series(1, 400 * 200) g GROUP BY g % 200;
SET LOCAL mrfdp.max_learner_memory = '1MB';

-- The planned working memory (MB) of an Ising release under the current settings.
CREATE FUNCTION pg_temp.planned_mb() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
    PERFORM mrf_learn_ising(r, rho => 1) FROM thread_rows;
    RETURN NULL;
EXCEPTION WHEN program_limit_exceeded THEN
    RETURN substring(SQLERRM FROM 'would need ([0-9]+) MB')::int;
END $$;

SET LOCAL mrfdp.learner_threads = 1; SET LOCAL mrfdp.blas_threads = 1;
CREATE TEMP TABLE plans AS SELECT 'one'::text AS name, pg_temp.planned_mb() AS mb;
SET LOCAL mrfdp.learner_threads = 8;
INSERT INTO plans SELECT 'eight', pg_temp.planned_mb();
SET LOCAL mrfdp.learner_threads = 2;
INSERT INTO plans SELECT 'two', pg_temp.planned_mb();

SELECT ok((SELECT mb FROM plans WHERE name = 'eight') > (SELECT mb FROM plans WHERE name = 'two')
          AND (SELECT mb FROM plans WHERE name = 'two') > (SELECT mb FROM plans WHERE name = 'one'),
          'the memory plan grows with the thread count (1 < 2 < 8 threads), so it shows the count');

SET LOCAL mrfdp.learner_threads = 1; SET LOCAL mrfdp.blas_threads = 8;
SELECT is(pg_temp.planned_mb(), (SELECT mb FROM plans WHERE name = 'eight'),
          'with learner_threads at its default, the old name blas_threads = 8 gives 8 threads');
SET LOCAL mrfdp.learner_threads = 2;
SELECT is(pg_temp.planned_mb(), (SELECT mb FROM plans WHERE name = 'two'),
          'learner_threads = 2 wins over blas_threads = 8');
SET LOCAL mrfdp.blas_threads = 1;
SELECT is(pg_temp.planned_mb(), (SELECT mb FROM plans WHERE name = 'two'),
          'and blas_threads going back to 1 leaves learner_threads = 2 in force');
SET LOCAL mrfdp.learner_threads = 1;
SELECT is(pg_temp.planned_mb(), (SELECT mb FROM plans WHERE name = 'one'),
          'both at 1: one thread');
SELECT * FROM finish();
ROLLBACK;
