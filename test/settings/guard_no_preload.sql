-- server: no_preload
-- Without the preload, an unprivileged role can set mrfdp.* before the
-- library is loaded (a placeholder); when it loads, the superuser-only
-- settings must drop such values instead of taking them.
BEGIN;
SELECT plan(5);
SELECT ok(current_setting('mrfdp.max_learner_memory', true) IS NULL, 'mrfdp is not loaded yet in this session');
CREATE ROLE mrfdp_guc_early;
SET LOCAL ROLE mrfdp_guc_early;
SET mrfdp.max_learner_memory = '100GB';
SET mrfdp.blas_threads = 64;
SET mrfdp.learner_threads = 64;
-- the first call of an mrfdp function loads the library
SELECT ok(mrf_dp_to_zcdp(1) > 0, 'the library loads');
SELECT is(current_setting('mrfdp.max_learner_memory'), '1GB',
          'a placeholder value of an unprivileged role does not lift the guard');
SELECT is(current_setting('mrfdp.blas_threads'), '1',
          'nor the learner thread count under its old name');
SELECT is(current_setting('mrfdp.learner_threads'), '1',
          'nor under its new name');
RESET ROLE;
SELECT * FROM finish();
ROLLBACK;
