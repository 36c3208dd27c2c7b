-- Calls every user-facing function of mrfdp 0.1.0's SQL interface, as a
-- superuser (the owner) and as a granted analyst, and records what they
-- return in up_results under the phase :'phase'.  test/upgrade/update_keeps_data.sh
-- runs it before ALTER EXTENSION mrfdp UPDATE (the new library under the
-- released SQL) and after it (the new SQL): both must work, and learners
-- under mrfdp.test_seed must give the same models.  Learners write results
-- as (kind, text of the model without its metadata, metadata without times).
\set ON_ERROR_STOP 1
SET mrfdp.test_seed = 11;
CREATE OR REPLACE FUNCTION pg_temp.params(m mrf) RETURNS text LANGUAGE sql AS $$
	SELECT (m::jsonb - 'meta')::text || ' ' ||
		   ((m::jsonb -> 'meta') - 'learn_seconds' - 'created')::text
$$;

-- mrf_progress lists learners only with mrfdp in shared_preload_libraries;
-- without it (this test's cluster) it says so.
CREATE FUNCTION pg_temp.progress() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	RETURN (SELECT count(*)::text FROM mrf_progress());
EXCEPTION WHEN object_not_in_prerequisite_state THEN
	RETURN 'needs shared_preload_libraries';
END $$;

INSERT INTO up_results
SELECT :'phase', 'hand', pg_temp.params(mrf_ising(ARRAY[[0, .5], [.5, 0]]::float8[], ARRAY[0, .1]::float8[]))
UNION ALL SELECT :'phase', 'in out', mrf_in(mrf_out(mrf_ising(ARRAY[[0, .5], [.5, 0]]::float8[])))::text
UNION ALL SELECT :'phase', 'cast', (mrf_ising(ARRAY[[0, .5], [.5, 0]]::float8[])::jsonb)::text
UNION ALL SELECT :'phase', 'to_jsonb', mrf_to_jsonb(mrf_ising(ARRAY[[0, .5], [.5, 0]]::float8[]))::text
UNION ALL SELECT :'phase', 'info', mrf_info(mrf_ising(ARRAY[[0, .5], [.5, 0]]::float8[]))::text
UNION ALL SELECT :'phase', 'edges', (SELECT string_agg(format('%s %s %s', i, j, weight), ',')
		FROM mrf_edges(mrf_ising(ARRAY[[0, .5], [.5, 0]]::float8[]), threshold => 0.1))
UNION ALL SELECT :'phase', 'fields', (SELECT string_agg(format('%s %s %s', i, a, theta), ',')
		FROM mrf_fields(mrf_ising(ARRAY[[0, .5], [.5, 0]]::float8[], ARRAY[0, .1]::float8[])))
UNION ALL SELECT :'phase', 'sample', (SELECT string_agg(x::text, ',') FROM mrf_sample(
		mrf_ising(ARRAY[[0, .5], [.5, 0]]::float8[]), 5, burn_in => 10, thin => 1, seed => 3) x)
UNION ALL SELECT :'phase', 'progress', pg_temp.progress()
UNION ALL SELECT :'phase', 'conversions', concat_ws(' ', mrf_zcdp_to_dp(2, 1e-6), mrf_zcdp_to_dp(2, 1e-6, method => 'bs16'),
		mrf_dp_to_zcdp(1), mrf_zcdp_for_dp(1, 1e-6), mrf_zcdp_for_dp(1, 1e-6, method => 'bs16'))
UNION ALL SELECT :'phase', 'options', mrf_options(rho => 1, lambda => 2, k => 3, cliques => '[[1, 2]]')::text
UNION ALL SELECT :'phase', 'rows_needed', (SELECT format('%s %s %s %s', block_count, tau, rows_per_block, "rows")
		FROM mrf_structure_rows_needed(p => 50, eta => 0.5, epsilon => 1, delta => 1e-6, lambda => 1))
UNION ALL SELECT :'phase', 'exact_numeric', mrfdp.exact_numeric(0.1)::text
UNION ALL SELECT :'phase', 'send', md5(mrf_send(mrf_ising(ARRAY[[0, .5], [.5, 0]]::float8[])));

-- The learners' named and aggregate forms (up_bin, up_kary are unprotected).
-- The named forms give lambda: 0.2.0 changed its SQL default from 1 to NULL
-- (the learner's own default, issue 10), so without it they would differ.
INSERT INTO up_results
SELECT :'phase', 'ising', pg_temp.params(mrf_learn_ising(row, rho => 1, lambda => 1)) FROM up_bin
UNION ALL SELECT :'phase', 'ising_agg', pg_temp.params(mrf_learn_ising_agg(row, mrf_options(rho => 1, mechanism => 'laplace'))) FROM up_bin
UNION ALL SELECT :'phase', 'pairwise', pg_temp.params(mrf_learn_pairwise(z, k => 3, rho => 1, lambda => 1)) FROM up_kary
UNION ALL SELECT :'phase', 'pairwise_agg', pg_temp.params(mrf_learn_pairwise_agg(z, mrf_options(k => 3, rho => 1))) FROM up_kary
UNION ALL SELECT :'phase', 'twise', pg_temp.params(mrf_learn_twise(row, t => 3, rho => 1, lambda => 1)) FROM up_bin
UNION ALL SELECT :'phase', 'twise_agg', pg_temp.params(mrf_learn_twise_agg(row, mrf_options(t => 3, rho => 1, objective => 'linf'))) FROM up_bin
UNION ALL SELECT :'phase', 'structure', pg_temp.params(mrf_learn_structure(row, rho => 1, eta => 0.5, method => 'threshold', lambda => 1)) FROM up_bin
UNION ALL SELECT :'phase', 'structure_agg', pg_temp.params(mrf_learn_structure_agg(row, mrf_options(epsilon => 4, delta => 1e-6, eta => 0.5, blocks => 8))) FROM up_bin
UNION ALL SELECT :'phase', 'cliques', pg_temp.params(mrf_learn_cliques(z, cliques => '[[1, 2], [2, 3]]', k => 3, epsilon => 1)) FROM up_kary
UNION ALL SELECT :'phase', 'cliques_agg', pg_temp.params(mrf_learn_cliques_agg(z, mrf_options(cliques => '[[1, 2]]', k => 3, epsilon => 1, method => 'naive'))) FROM up_kary;

-- Accessors of learned kinds.
INSERT INTO up_results
SELECT :'phase', 'weights', (SELECT string_agg(format('%s %s %s %s %s', i, j, a, b, weight), ',')
		FROM up_stored s, mrf_weights(s.m) WHERE s.name = 'pairwise')
UNION ALL SELECT :'phase', 'monomials', (SELECT string_agg(format('%s %s', vars, coef), ',')
		FROM up_stored s, mrf_monomials(s.m) WHERE s.name = 'twise')
UNION ALL SELECT :'phase', 'potentials', (SELECT string_agg(format('%s %s %s', clique, assignment, log_potential), ',')
		FROM up_stored s, mrf_potentials(s.m) WHERE s.name = 'cliques')
UNION ALL SELECT :'phase', 'marginals', (SELECT string_agg(format('%s %s %s', clique, assignment, probability), ',')
		FROM up_stored s, mrf_marginals(s.m) WHERE s.name = 'cliques');

-- The ledger: the owner changes a budget, grants and revokes; the analyst
-- learns through every protected form and reads what it may.
SELECT mrfdp.protect('up_prot', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.grant_learning('up_prot_kary', 'mrfdp_up_outsider');
SELECT mrfdp.revoke_learning('up_prot_kary', 'mrfdp_up_outsider');
SET ROLE mrfdp_up_analyst;
INSERT INTO up_results
SELECT :'phase', 'ising_from', pg_temp.params(mrf_learn_ising_from('up_prot', 'row', rho => 0.125, lambda => 1, variables => 4))
UNION ALL SELECT :'phase', 'pairwise_from', pg_temp.params(mrf_learn_pairwise_from('up_prot_kary', 'z', k => 3, rho => 0.125, lambda => 1, variables => 3))
UNION ALL SELECT :'phase', 'twise_from', pg_temp.params(mrf_learn_twise_from('up_prot', 'row', t => 2, rho => 0.125, lambda => 1, variables => 4))
UNION ALL SELECT :'phase', 'structure_from', pg_temp.params(mrf_learn_structure_from('up_prot', 'row', epsilon => 4, delta => 1e-7, lambda => 1,
		eta => 0.5, blocks => 16, variables => 4))
UNION ALL SELECT :'phase', 'cliques_from', pg_temp.params(mrf_learn_cliques_from('up_prot_pure', 'z', cliques => '[[1, 2]]', k => 3,
		epsilon => 0.25, variables => 3));
INSERT INTO up_results
SELECT :'phase', 'analyst remaining', (SELECT count(*)::text FROM mrfdp.remaining('up_prot'))
UNION ALL SELECT :'phase', 'analyst budget_status', (SELECT count(*)::text FROM mrfdp.budget_status)
UNION ALL SELECT :'phase', 'analyst releases', (SELECT count(*)::text FROM mrfdp.releases WHERE role_name = 'mrfdp_up_analyst');
RESET ROLE;
