-- server: session_preload
-- Clique models (Bernstein et al. 2017): accuracy of CGM-EM and naive MLE on
-- data sampled from known chains, the named form, GROUP BY through the
-- aggregate, and the SQLSTATE of every bad input.
BEGIN;
SELECT plan(48);
SET LOCAL mrfdp.test_seed = 5;

-- KL(P || Q) of two chain models with cliques (i, i + 1), from their exact
-- marginals: on a junction tree log Q(z) = sum_C log q_C(z_C) - sum_S log q_S(z_S),
-- and the separators of a chain are the variables 2 .. p - 1.
CREATE FUNCTION pg_temp.chain_kl(a mrf, b mrf) RETURNS float8 LANGUAGE sql AS $$
	WITH pa AS (SELECT * FROM mrf_marginals(a)), qb AS (SELECT * FROM mrf_marginals(b)),
	cl AS (SELECT sum(pa.probability * ln(pa.probability / qb.probability)) AS s
		   FROM pa JOIN qb USING (clique, assignment)),
	sa AS (SELECT clique[1] AS v, assignment[1] AS x, sum(probability) AS pr FROM pa WHERE clique[1] > 1 GROUP BY 1, 2),
	sb AS (SELECT clique[1] AS v, assignment[1] AS x, sum(probability) AS pr FROM qb WHERE clique[1] > 1 GROUP BY 1, 2),
	se AS (SELECT coalesce(sum(sa.pr * ln(sa.pr / sb.pr)), 0) AS s FROM sa JOIN sb USING (v, x))
	SELECT cl.s - se.s FROM cl, se
$$;

-- A chain of p variables with k values and Dirichlet(1) potentials: each
-- table is the log of k^2 Exp(1) draws (the normalisation is a constant shift).
CREATE FUNCTION pg_temp.chain_model(p int, k int, seed float8, zero boolean DEFAULT false) RETURNS mrf
LANGUAGE plpgsql AS $$
DECLARE
	cl jsonb;
	lp jsonb;
BEGIN
	PERFORM setseed(seed);
	SELECT jsonb_agg(jsonb_build_array(i, i + 1) ORDER BY i),
		   jsonb_agg((SELECT jsonb_agg(CASE WHEN zero THEN 0 ELSE ln(-ln(1 - random())) END)
					  FROM generate_series(1, k * k)) ORDER BY i)
	INTO cl, lp FROM generate_series(1, p - 1) i;
	RETURN jsonb_build_object('kind', 'cliques', 'p', p, 'k', k, 'cliques', cl, 'log_potentials', lp)::text::mrf;
END $$;

-- Three chains of 8 variables, k = 3, n = 10^4 each; CGM and naive at
-- epsilon 0.1 (noise scale 2 * 7 / 0.1 = 140 per cell) and 100.
CREATE TEMP TABLE truths AS SELECT s, pg_temp.chain_model(8, 3, s / 10.0) AS m FROM generate_series(1, 3) s;
CREATE TEMP TABLE data AS SELECT t.s, x FROM truths t, mrf_sample(t.m, 10000, seed => t.s) x;
CREATE TEMP TABLE runs (s int, eps float8, method text, m mrf);
DO $$
DECLARE
	cq jsonb := (SELECT jsonb_agg(jsonb_build_array(i, i + 1)) FROM generate_series(1, 7) i);
	e float8;
	meth text;
BEGIN
	FOREACH e IN ARRAY ARRAY[0.1, 100] LOOP
		FOREACH meth IN ARRAY ARRAY['cgm', 'naive'] LOOP
			INSERT INTO runs
			SELECT s, e, meth, mrf_learn_cliques_agg(x, mrf_options(cliques => cq, k => 3, epsilon => e, method => meth))
			FROM data GROUP BY s;
		END LOOP;
	END LOOP;
END $$;
CREATE TEMP TABLE kl AS
SELECT r.s, r.eps, r.method, pg_temp.chain_kl(t.m, r.m) AS kl FROM runs r JOIN truths t USING (s);
CREATE TEMP TABLE kl_uniform AS
SELECT avg(pg_temp.chain_kl(t.m, pg_temp.chain_model(8, 3, 0, true))) AS kl FROM truths t;

SELECT is((SELECT count(*) FROM runs WHERE m IS NOT NULL), 12::bigint,
		  'GROUP BY through mrf_learn_cliques_agg learns one model per group and setting');
SELECT ok((SELECT kl > 0.3 FROM kl_uniform), 'the true chains are far from uniform (KL > 0.3)');
SELECT ok((SELECT avg(kl) FILTER (WHERE method = 'cgm') < 0.7 * avg(kl) FILTER (WHERE method = 'naive')
		   FROM kl WHERE eps = 0.1),
		  'epsilon = 0.1: the mean KL of CGM-EM is below 0.7 x that of naive MLE');
SELECT ok((SELECT count(*) >= 2 FROM kl c JOIN kl n USING (s, eps)
		   WHERE eps = 0.1 AND c.method = 'cgm' AND n.method = 'naive' AND c.kl < n.kl),
		  'epsilon = 0.1: CGM-EM beats naive MLE on at least 2 of 3 chains');
SELECT ok((SELECT avg(kl) < 0.3 FROM kl WHERE eps = 0.1 AND method = 'cgm'),
		  'epsilon = 0.1: CGM-EM is much closer to the truth than the uniform model');
SELECT ok((SELECT max(kl) < 0.01 FROM kl WHERE eps = 100 AND method = 'cgm'),
		  'epsilon = 100: CGM-EM approaches the truth (KL < 0.01 on every chain)');
SELECT ok((SELECT max(kl) < 0.01 FROM kl WHERE eps = 100 AND method = 'naive'),
		  'epsilon = 100: naive MLE approaches the truth (KL < 0.01 on every chain)');
SELECT ok((SELECT avg(kl) FILTER (WHERE eps = 100) < 0.2 * avg(kl) FILTER (WHERE eps = 0.1) FROM kl WHERE method = 'naive'),
		  'more budget, better models');

-- At large epsilon the learned marginals match the empirical ones.
SELECT ok((SELECT max(abs(l.probability - e.pr)) < 0.01
		   FROM (SELECT r.s, (mrf_marginals(r.m)).* FROM runs r WHERE eps = 100 AND method = 'cgm') l
		   JOIN (SELECT s, ARRAY[i, i + 1] AS clique, ARRAY[x[i], x[i + 1]] AS assignment,
						count(*)::float8 / 10000 AS pr
				 FROM data, generate_series(1, 7) i GROUP BY 1, 2, 3) e USING (s, clique, assignment)),
		  'epsilon = 100: learned clique marginals within 0.01 of the empirical ones');
SELECT ok((SELECT bool_and((mrf_info(m)->>'notion') = 'pure' AND (mrf_info(m)->>'l1_sensitivity')::float8 = 14
						   AND (mrf_info(m)->>'epsilon')::float8 = eps) FROM runs),
		  'every model records pure DP, its epsilon and the L1 sensitivity 2 |cliques| = 14');
SELECT ok((SELECT bool_and(jsonb_typeof(mrf_info(m)->'em'->'converged') = 'boolean'
						   AND (mrf_info(m)->'em'->>'iterations')::int BETWEEN 1 AND 300)
		   FROM runs WHERE method = 'cgm'),
		  'CGM models report their EM iterations and convergence');

-- The named form, and samples of a learned model.
SELECT ok((SELECT mrf_learn_cliques(x, cliques => '[[1, 2], [2, 3], [3, 4]]', k => 3, epsilon => 1) IS NOT NULL
		   FROM data WHERE s = 1), 'the named form learns');
SELECT ok((SELECT bool_and(array_length(x, 1) = 8 AND 0 <= ALL(x) AND 2 >= ALL(x))
		   FROM mrf_sample((SELECT m FROM runs WHERE s = 1 AND eps = 0.1 AND method = 'cgm'), 200) x),
		  'mrf_sample draws rows of 8 values in 0..k-1 from a learned model');
SELECT is((SELECT count(*) FROM mrf_potentials((SELECT m FROM truths WHERE s = 1))), 63::bigint,
		  'mrf_potentials lists 7 tables of 9 cells');

-- Every bad input and its SQLSTATE.
CREATE TEMP TABLE small AS SELECT x FROM data WHERE s = 1 LIMIT 100;
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 9]]', k => 3, epsilon => 1) FROM small$$,
				 '22023', NULL, 'a clique variable above p');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[0, 1]]', k => 3, epsilon => 1) FROM small$$,
				 '22023', NULL, 'a clique variable 0');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 1.5]]', k => 3, epsilon => 1) FROM small$$,
				 '22023', NULL, 'a fractional clique variable');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[2, 3, 2]]', k => 3, epsilon => 1) FROM small$$,
				 '22023', NULL, 'a variable twice in a clique');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 2], [2, 1]]', k => 3, epsilon => 1) FROM small$$,
				 '22023', NULL, 'the same clique twice');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[]', k => 3, epsilon => 1) FROM small$$,
				 '22023', NULL, 'no cliques');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[]]', k => 3, epsilon => 1) FROM small$$,
				 '22023', NULL, 'an empty clique');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[1, 2]', k => 3, epsilon => 1) FROM small$$,
				 '22023', NULL, 'cliques not an array of arrays');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '{"a": 1}', k => 3, epsilon => 1) FROM small$$,
				 '22023', NULL, 'cliques not an array');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, k => 3, epsilon => 1) FROM small$$,
				 '22023', NULL, 'cliques missing');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3) FROM small$$,
				 '22023', NULL, 'epsilon missing');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3, epsilon => -1) FROM small$$,
				 '22023', NULL, 'epsilon negative');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', epsilon => 1) FROM small$$,
				 '22023', NULL, 'k missing for integer samples');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3, epsilon => 1, method => 'threshold') FROM small$$,
				 '22023', NULL, 'a method of another learner');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3, epsilon => 1, method => 'naive', em_iterations => 5) FROM small$$,
				 '22023', NULL, 'EM options with the naive method');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3, epsilon => 1, em_iterations => 0) FROM small$$,
				 '22023', NULL, 'em_iterations below 1');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3, epsilon => 1, tolerance => 0) FROM small$$,
				 '22023', NULL, 'tolerance not positive');
SELECT throws_ok($$SELECT mrf_learn_cliques_agg(x, mrf_options(cliques => '[[1, 2]]', k => 3, rho => 1)) FROM small$$,
				 '22023', NULL, 'a zCDP budget');
SELECT throws_ok($$SELECT mrf_learn_cliques_agg(x, mrf_options(cliques => '[[1, 2]]', k => 3, epsilon => 1, delta => 1e-6)) FROM small$$,
				 '22023', NULL, 'an (epsilon, delta) budget');
SELECT throws_ok($$SELECT mrf_learn_cliques_agg(x, mrf_options(cliques => '[[1, 2]]', k => 3, epsilon => 1, t => 3)) FROM small$$,
				 '22023', NULL, 'an option of another learner');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3, epsilon => 1) FROM (VALUES (ARRAY[0, 1]), (NULL)) q(x)$$,
				 '22004', NULL, 'a NULL sample');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3, epsilon => 1) FROM (VALUES (ARRAY[0, 1]), (ARRAY[0, NULL])) q(x)$$,
				 '22004', NULL, 'a NULL value');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3, epsilon => 1) FROM (VALUES (ARRAY[0, 1]), (ARRAY[0, 3])) q(x)$$,
				 '22003', NULL, 'a value outside 0..k-1');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 2]]', k => 3, epsilon => 1) FROM (VALUES (ARRAY[0, 1]), (ARRAY[0, 1, 2])) q(x)$$,
				 '2202E', NULL, 'ragged samples');
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 2, 3, 4]]', k => 255, epsilon => 1) FROM (VALUES (ARRAY[0, 1, 2, 3])) q(x)$$,
				 '54000', NULL, 'a clique table above the cell limit');
SELECT throws_ok(format($$SELECT mrf_learn_cliques(x, cliques => %L, k => 16, epsilon => 1) FROM (VALUES (array_fill(0, ARRAY[22]))) q(x)$$,
						(SELECT jsonb_agg(jsonb_build_array(i, i + 1, i + 2, i + 3, i + 4, i + 5)) FROM generate_series(1, 17) i)),
				 '54000', NULL, 'all clique tables together above the cell limit');
SET LOCAL mrfdp.max_learner_memory = '1MB';
SELECT throws_ok($$SELECT mrf_learn_cliques(x, cliques => '[[1, 2, 3, 4, 5]]', k => 16, epsilon => 1) FROM (VALUES (ARRAY[0, 1, 2, 3, 4])) q(x)$$,
				 '54000', NULL, 'working memory above mrfdp.max_learner_memory');
RESET mrfdp.max_learner_memory;
SELECT throws_ok($$SELECT * FROM mrf_edges((SELECT m FROM truths WHERE s = 1))$$, '42809', NULL,
				 'mrf_edges does not apply to clique models');
SELECT throws_ok($$SELECT * FROM mrf_fields((SELECT m FROM truths WHERE s = 1))$$, '42809', NULL,
				 'mrf_fields does not apply to clique models');
SELECT throws_ok($$SELECT * FROM mrf_potentials(mrf_ising(ARRAY[[0, 1], [1, 0]]::float8[]))$$, '42809', NULL,
				 'mrf_potentials does not apply to Ising models');
SELECT throws_ok($$SELECT * FROM mrf_marginals(mrf_ising(ARRAY[[0, 1], [1, 0]]::float8[]))$$, '42809', NULL,
				 'mrf_marginals does not apply to Ising models');
SELECT throws_ok($$SELECT '{"kind": "cliques", "p": 3, "k": 2, "cliques": [[1, 2]], "log_potentials": [[0, 0, 0]]}'::mrf$$,
				 '22P02', NULL, 'a document with a short table');
SELECT throws_ok($$SELECT '{"kind": "cliques", "p": 3, "k": 2, "cliques": [[1, 2], [1, 2]], "log_potentials": [[0, 0, 0, 0], [0, 0, 0, 0]]}'::mrf$$,
				 '22P02', NULL, 'a document with a repeated clique');
SELECT throws_ok($$SELECT '{"kind": "cliques", "p": 3, "k": 2, "cliques": [[1, 5]], "log_potentials": [[0, 0, 0, 0]]}'::mrf$$,
				 '22P02', NULL, 'a document with a variable above p');

SELECT * FROM finish();
ROLLBACK;
