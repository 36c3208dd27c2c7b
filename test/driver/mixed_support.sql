-- server: session_preload
-- A role's own aggregate built from one learner's transition and another's
-- final function is refused at the final function, with nothing charged and
-- no release: the state names the learner that planned it.
BEGIN;
SELECT plan(4);
CREATE TABLE ms_rows (id int, row boolean[]);
INSERT INTO ms_rows SELECT i, ARRAY[i % 2 = 0, i % 3 = 0, i % 5 = 0] FROM generate_series(1, 200) i;
SELECT mrfdp.protect('ms_rows', epsilon => 20, delta => 1e-6);
CREATE AGGREGATE ms_mix1(anyelement, jsonb) (SFUNC = mrfdp_internal.mrf_ising_accum, STYPE = internal, FINALFUNC = mrfdp_internal.mrf_twise_final);
CREATE AGGREGATE ms_mix2(anyelement, jsonb) (SFUNC = mrfdp_internal.mrf_ising_accum, STYPE = internal, FINALFUNC = mrfdp_internal.mrf_cliques_final);
CREATE AGGREGATE ms_mix3(anyelement, jsonb) (SFUNC = mrfdp_internal.mrf_ising_accum, STYPE = internal, FINALFUNC = mrfdp_internal.mrf_mst_final);
SELECT throws_like($$SELECT ms_mix1(row, mrf_options(rho => 0.01, iterations => 2)) FROM ms_rows$$,
				   '%got the aggregate state of mrf_learn_ising%', 'an Ising state reaching the t-wise final is refused');
SELECT throws_like($$SELECT ms_mix2(row, mrf_options(rho => 0.01, iterations => 2)) FROM ms_rows$$,
				   '%got the aggregate state of mrf_learn_ising%', 'an Ising state reaching the clique final is refused');
SELECT throws_like($$SELECT ms_mix3(row, mrf_options(rho => 0.01, iterations => 2)) FROM ms_rows$$,
				   '%got the aggregate state of mrf_learn_ising%', 'an Ising state reaching the MST final is refused');
SELECT is((SELECT count(*) FROM mrfdp.releases WHERE relation_name = 'public.ms_rows'), 0::bigint,
		  'nothing was charged or recorded for the relation');
SELECT * FROM finish();
ROLLBACK;
