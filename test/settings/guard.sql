-- server: session_preload
-- The memory guard and the learner thread count protect the server from its
-- users: only a superuser (or a role granted SET on the parameter) can
-- change them, so an analyst cannot lift the guard or take every core.
BEGIN;
SELECT plan(13);
CREATE ROLE mrfdp_guc_analyst;

SET LOCAL ROLE mrfdp_guc_analyst;
SELECT throws_ok($$SET mrfdp.max_learner_memory = '100GB'$$, '42501', NULL,
                 'an analyst cannot raise mrfdp.max_learner_memory');
SELECT throws_ok($$SET mrfdp.max_learner_memory = '1MB'$$, '42501', NULL,
                 'nor change it at all');
SELECT throws_ok($$SELECT set_config('mrfdp.max_learner_memory', '100GB', true)$$, '42501', NULL,
                 'nor through set_config()');
SELECT throws_ok($$SET mrfdp.learner_threads = 64$$, '42501', NULL,
                 'an analyst cannot raise mrfdp.learner_threads');
SELECT throws_ok($$SET mrfdp.blas_threads = 64$$, '42501', NULL,
                 'nor its old name mrfdp.blas_threads (an alias)');
SELECT is(current_setting('mrfdp.max_learner_memory'), '1GB', 'the guard keeps its value');
RESET ROLE;

-- A superuser's limit binds an analyst's learner.
SET LOCAL mrfdp.max_learner_memory = '1MB';
SET LOCAL ROLE mrfdp_guc_analyst;
SELECT throws_ok($$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1))
                   FROM (SELECT array_fill(true, ARRAY[1000]) x FROM generate_series(1, 100)) q$$,
                 '54000', NULL, 'the superuser''s limit binds the analyst''s learner');
RESET ROLE;

SELECT lives_ok($$SET LOCAL mrfdp.max_learner_memory = '2GB'$$, 'a superuser sets the guard');
SELECT is(current_setting('mrfdp.max_learner_memory'), '2GB', 'to the value it chose');

-- Delegation is explicit: GRANT SET ON PARAMETER.
GRANT SET ON PARAMETER mrfdp.learner_threads TO mrfdp_guc_analyst;
SET LOCAL ROLE mrfdp_guc_analyst;
SELECT lives_ok($$SET LOCAL mrfdp.learner_threads = 2$$, 'a role granted SET on the parameter can set it');
SELECT is(current_setting('mrfdp.learner_threads'), '2', 'and the value holds');
SELECT throws_ok($$SET mrfdp.blas_threads = 2$$, '42501', NULL,
                 'the grant on the new name does not extend to the old one');
RESET ROLE;
-- the old name is described as the alias it is
SELECT matches((SELECT short_desc FROM pg_settings WHERE name = 'mrfdp.blas_threads'),
               'Old name of mrfdp.learner_threads', 'mrfdp.blas_threads says it is the old name');
SELECT * FROM finish();
ROLLBACK;
