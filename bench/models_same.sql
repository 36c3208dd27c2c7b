-- Learns one model of every kind, method and form (named, aggregate, GROUP BY,
-- window, _from; arrays and rows of boolean columns) under mrfdp.test_seed and
-- writes their text, less "created" and "learn_seconds", to :out, one line
-- per release.  bench/run_models_same.sh runs it against two builds and
-- diffs the outputs: a refactoring must leave every line unchanged.
\set ON_ERROR_STOP 0
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS mrfdp;
SELECT setseed(0.25);
CREATE TABLE b AS SELECT row_number() OVER () i, s AS x FROM mrf_sample(mrf_ising(ARRAY[[0,.8,0,0,0,0],[.8,0,.8,0,0,0],[0,.8,0,-.8,0,0],[0,0,-.8,0,.8,0],[0,0,0,.8,0,.8],[0,0,0,0,.8,0]]), 3000, seed => 3) s;
CREATE TABLE kk AS SELECT i, array_agg(((i * 7 + v * v * 3 + (random() * 2)::int) % 3)::int ORDER BY v) AS x
  FROM generate_series(1, 3000) i, generate_series(1, 5) v GROUP BY i;
CREATE TABLE bc AS SELECT x[1] = 1 AS a, x[2] = 1 AS b, x[3] = 1 AS c, x[4] = 1 AS d FROM b;
SELECT mrfdp.protect('bc', epsilon => 100000, delta => 1e-3);
SELECT mrfdp.grant_learning('bc', current_user::regrole);
SELECT mrfdp.protect('b', epsilon => 100000, delta => 1e-3);
SELECT mrfdp.protect('kk', epsilon => 100000, delta => 1e-3);
SELECT mrfdp.grant_learning('b', current_user::regrole);
SELECT mrfdp.grant_learning('kk', current_user::regrole);
SET mrfdp.test_seed = 7;
CREATE FUNCTION pg_temp.clean(m mrf) RETURNS text LANGUAGE sql AS
 $$ SELECT (m::jsonb #- '{meta,created}' #- '{meta,learn_seconds}')::text $$;
CREATE TEMP TABLE out (name text, model text);
INSERT INTO out SELECT 'ising', pg_temp.clean(mrf_learn_ising(x, rho => 1)) FROM b;
INSERT INTO out SELECT 'ising ed', pg_temp.clean(mrf_learn_ising(x, epsilon => 2, delta => 1e-6, lambda => 2, mechanism => 'laplace', symmetrize => false)) FROM b;
INSERT INTO out SELECT 'ising agg', pg_temp.clean(mrf_learn_ising_agg(x, mrf_options(rho => 0.5, iterations => 20))) FROM b;
INSERT INTO out SELECT 'ising from', pg_temp.clean(mrf_learn_ising_from('b', 'x', rho => 1, variables => 6));
INSERT INTO out SELECT 'ising from ed', pg_temp.clean(mrf_learn_ising_from('b', 'x', epsilon => 2, delta => 1e-6, lambda => 2, variables => 6));
INSERT INTO out SELECT 'pairwise', pg_temp.clean(mrf_learn_pairwise(x, k => 3, rho => 1)) FROM kk;
INSERT INTO out SELECT 'pairwise ns', pg_temp.clean(mrf_learn_pairwise(x, k => 3, rho => 2, lambda => 1.5, symmetrize => false, mechanism => 'laplace')) FROM kk;
INSERT INTO out SELECT 'pairwise from', pg_temp.clean(mrf_learn_pairwise_from('kk', 'x', k => 3, rho => 1, variables => 5));
INSERT INTO out SELECT 'twise l1', pg_temp.clean(mrf_learn_twise(x, t => 3, rho => 1)) FROM b;
INSERT INTO out SELECT 'twise linf', pg_temp.clean(mrf_learn_twise(x, t => 3, rho => 1, objective => 'linf')) FROM b;
INSERT INTO out SELECT 'twise pmw', pg_temp.clean(mrf_learn_twise(x, t => 2, rho => 1, objective => 'linf', query_release => 'pmw')) FROM b;
INSERT INTO out SELECT 'twise from', pg_temp.clean(mrf_learn_twise_from('b', 'x', t => 3, rho => 1, objective => 'linf', variables => 6));
INSERT INTO out SELECT 'structure stable', pg_temp.clean(mrf_learn_structure(x, epsilon => 8, delta => 1e-6, eta => 0.3, blocks => 20)) FROM b;
INSERT INTO out SELECT 'structure stable default blocks', pg_temp.clean(mrf_learn_structure(x, epsilon => 8, delta => 1e-6, eta => 0.3)) FROM b;
INSERT INTO out SELECT 'structure threshold', pg_temp.clean(mrf_learn_structure(x, rho => 1, eta => 0.3, method => 'threshold')) FROM b;
INSERT INTO out SELECT 'structure threshold ed', pg_temp.clean(mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 0.3, method => 'threshold', mechanism => 'laplace')) FROM b;
INSERT INTO out SELECT 'structure pairwise', pg_temp.clean(mrf_learn_structure(x, epsilon => 8, delta => 1e-6, eta => 0.5, lambda => 2, model => 'pairwise', k => 3, blocks => 10)) FROM kk;
INSERT INTO out SELECT 'structure pairwise thr', pg_temp.clean(mrf_learn_structure(x, rho => 1, eta => 0.5, model => 'pairwise', k => 3, method => 'threshold')) FROM kk;
INSERT INTO out SELECT 'structure twise', pg_temp.clean(mrf_learn_structure(x, epsilon => 8, delta => 1e-6, eta => 0.5, model => 'twise', t => 3, blocks => 10)) FROM b;
INSERT INTO out SELECT 'structure twise thr', pg_temp.clean(mrf_learn_structure(x, rho => 1, eta => 0.5, model => 'twise', t => 3, method => 'threshold')) FROM b;
INSERT INTO out SELECT 'structure from', pg_temp.clean(mrf_learn_structure_from('b', 'x', epsilon => 8, delta => 1e-6, eta => 0.3, blocks => 20, variables => 6));
INSERT INTO out SELECT 'structure from thr pw', pg_temp.clean(mrf_learn_structure_from('kk', 'x', rho => 1, eta => 0.5, model => 'pairwise', k => 3, method => 'threshold', variables => 5));
INSERT INTO out SELECT 'cliques cgm', pg_temp.clean(mrf_learn_cliques(x, cliques => '[[1,2],[2,3],[3,4],[4,5]]', k => 3, epsilon => 1)) FROM kk;
INSERT INTO out SELECT 'cliques naive', pg_temp.clean(mrf_learn_cliques(x, cliques => '[[1,2],[2,3,4]]', k => 3, epsilon => 1, method => 'naive')) FROM kk;
INSERT INTO out SELECT 'cliques tol', pg_temp.clean(mrf_learn_cliques(x, cliques => '[[1,2],[2,3]]', k => 3, epsilon => 2, tolerance => 1e-3, em_iterations => 7)) FROM kk;
INSERT INTO out SELECT 'cliques from', pg_temp.clean(mrf_learn_cliques_from('kk', 'x', cliques => '[[1,2],[2,3],[3,4],[4,5]]', k => 3, epsilon => 1, variables => 5));
INSERT INTO out SELECT 'cliques group', string_agg(pg_temp.clean(m), ' | ' ORDER BY g) FROM (SELECT i % 2 g, mrf_learn_cliques_agg(x, mrf_options(cliques => '[[1,2]]', k => 3, epsilon => 1)) m FROM kk GROUP BY 1) s;
INSERT INTO out SELECT 'ising window', string_agg(pg_temp.clean(m), ' | ') FROM (SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1)) OVER () m FROM b LIMIT 1) s;
INSERT INTO out SELECT 'ising columns', pg_temp.clean(mrf_learn_ising(bc, rho => 1)) FROM bc;
INSERT INTO out SELECT 'ising columns from', pg_temp.clean(mrf_learn_ising_from('bc', NULL, rho => 1));
INSERT INTO out SELECT 'structure columns', pg_temp.clean(mrf_learn_structure(bc, epsilon => 8, delta => 1e-6, eta => 0.3, blocks => 20)) FROM bc;
SELECT name, md5(coalesce(model, 'NULL')), length(model) FROM out ORDER BY name;
\pset tuples_only on
\pset format unaligned
\o :out
SELECT name || E'\t' || coalesce(model, 'NULL') FROM out ORDER BY name;
