-- Structure learning (docs/privacy.md 7): shapes, metadata, the text form, the
-- planning function and the error messages.  Deterministic under a test seed.
SET mrfdp.test_seed = 5;
\set VERBOSITY default

-- Planning: blocks and tau from (epsilon, delta), rows per block from (p, eta, lambda).
SELECT * FROM mrf_structure_rows_needed(10, eta => 0.5, epsilon => 1, delta => 1e-6);
SELECT * FROM mrf_structure_rows_needed(200, eta => 0.5, epsilon => 1, delta => 1e-6);
SELECT * FROM mrf_structure_rows_needed(10, eta => 0.5, epsilon => 4, delta => 1e-6);
SELECT * FROM mrf_structure_rows_needed(10, eta => 0.25, epsilon => 4, delta => 1e-6, lambda => 1, blocks => 10);
SELECT eps, (mrf_structure_rows_needed(20, 0.5, eps, 1e-6)).*
FROM (VALUES (0.5::float8), (1), (2), (8)) e(eps) ORDER BY eps;
SELECT * FROM mrf_structure_rows_needed(1, 0.5, 1, 1e-6);
SELECT * FROM mrf_structure_rows_needed(10, 0, 1, 1e-6);
SELECT * FROM mrf_structure_rows_needed(10, 0.5, 1, 1);
SELECT * FROM mrf_structure_rows_needed(10, 0.5, 1, 1e-6, blocks => 0);
SELECT * FROM mrf_structure_rows_needed(10, 0.5, 1, NULL);
SELECT * FROM mrf_structure_rows_needed(10, 0.5, 1, 1e-6, lambda => 5);

-- A chain 1 - 2 - ... - 6 with coupling 0.5, sampled exactly.
CREATE TABLE structure_rows AS
SELECT g, x FROM mrf_sample(mrf_ising((SELECT array_agg(r ORDER BY i) FROM (
	SELECT i, array_agg(CASE WHEN abs(i - j) = 1 THEN 0.5 ELSE 0 END::float8 ORDER BY j) r
	FROM generate_series(1, 6) i, generate_series(1, 6) j GROUP BY i) q)), 9000, seed => 3)
	WITH ORDINALITY AS s(x, g);

-- Stable mode: the released graph, its shape and its metadata (no counts, no margin).
CREATE TABLE structure_model AS
SELECT mrf_learn_structure(x, epsilon => 4, delta => 1e-6, eta => 0.5) AS m FROM structure_rows;
SELECT * FROM mrf_edges((SELECT m FROM structure_model));
SELECT key, value FROM jsonb_each(mrf_info((SELECT m FROM structure_model)))
WHERE key NOT IN ('created', 'learn_seconds') ORDER BY key;
SELECT m::text::jsonb - 'meta' AS document FROM structure_model;

-- mrf_edges: every edge has weight 1, so thresholds below 1 keep all, 1 and up none.
SELECT count(*) FROM mrf_edges((SELECT m FROM structure_model), threshold => 0.99);
SELECT count(*) FROM mrf_edges((SELECT m FROM structure_model), threshold => 1);
SELECT * FROM mrf_fields((SELECT m FROM structure_model));
SELECT * FROM mrf_sample((SELECT m FROM structure_model), 1);

-- The text form round-trips, and the named form equals the aggregate.
SELECT m::text::mrf::text = m::text AS round_trip FROM structure_model;
SELECT (SELECT mrf_learn_structure(x, epsilon => 4, delta => 1e-6, eta => 0.5, blocks => 30)::jsonb - 'meta' FROM structure_rows)
     = (SELECT mrf_learn_structure_agg(x, mrf_options(epsilon => 4, delta => 1e-6, eta => 0.5, blocks => 30))::jsonb - 'meta'
        FROM structure_rows) AS same_graph;

-- Explicit blocks and lambda are recorded.
SELECT mrf_info(m)->>'blocks' AS blocks, mrf_info(m)->>'block_rows' AS block_rows,
       mrf_info(m)->>'tau' AS tau, mrf_info(m)->>'lambda' AS lambda
FROM (SELECT mrf_learn_structure(x, epsilon => 4, delta => 1e-6, eta => 0.5, lambda => 1.5, blocks => 40) m
      FROM structure_rows) q;

-- GROUP BY through the aggregate: one graph per group.
SELECT g % 2 AS half, mrf_info(m)->>'rows' AS rows, mrf_info(m)->>'edges' AS edges
FROM (SELECT g % 2 AS g, mrf_learn_structure_agg(x, mrf_options(epsilon => 8, delta => 1e-6, eta => 0.5)) m
      FROM structure_rows GROUP BY g % 2) q ORDER BY 1;

-- Threshold method: rho-zCDP, the private Ising estimate read at eta / 2.
SELECT key, value FROM jsonb_each(mrf_info((SELECT mrf_learn_structure(x, rho => 2, eta => 0.5, method => 'threshold')
                                             FROM structure_rows)))
WHERE key NOT IN ('created', 'learn_seconds') ORDER BY key;
SELECT mrf_info(mrf_learn_structure(x, epsilon => 2, delta => 1e-6, eta => 0.5, method => 'threshold'))->>'notion' AS notion
FROM structure_rows;

-- Far too few rows per block: NULL, charged, and explained after the charge.
SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 0.5) IS NULL AS released_nothing
FROM structure_rows WHERE g <= 300;

-- The text form: edges 1-based, any order in, canonical order out.
SELECT '{"kind": "structure", "p": 5, "edges": [[4, 5], [1, 3], [1, 2]]}'::mrf;
SELECT * FROM mrf_edges('{"kind": "structure", "p": 3, "k": 2, "edges": []}'::mrf);
SELECT mrf_info('{"kind": "structure", "p": 3, "edges": [[1, 3]], "meta": {"note": "by hand"}}'::mrf);
SELECT '{"kind": "structure", "p": 4}'::mrf;
SELECT '{"kind": "structure", "p": 4, "edges": [[1, 2, 3]]}'::mrf;
SELECT '{"kind": "structure", "p": 4, "edges": [[2, 1]]}'::mrf;
SELECT '{"kind": "structure", "p": 4, "edges": [[1, 1]]}'::mrf;
SELECT '{"kind": "structure", "p": 4, "edges": [[1, 5]]}'::mrf;
SELECT '{"kind": "structure", "p": 4, "edges": [[0, 2]]}'::mrf;
SELECT '{"kind": "structure", "p": 4, "edges": [[1, 2.5]]}'::mrf;
SELECT '{"kind": "structure", "p": 4, "edges": [[1, 2], [3, 4], [1, 2]]}'::mrf;
SELECT '{"kind": "structure", "p": 4, "k": 3, "edges": []}'::mrf;

-- Bad options.
SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6) FROM structure_rows;
SELECT mrf_learn_structure(x, eta => 0.5) FROM structure_rows;
SELECT mrf_learn_structure(x, epsilon => 1, eta => 0.5) FROM structure_rows;
SELECT mrf_learn_structure(x, rho => 1, eta => 0.5) FROM structure_rows;
SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 0.5, blocks => 10000) FROM structure_rows;
SELECT mrf_learn_structure(x, rho => 1, eta => 0.5, model => 'pairwise', k => 3, method => 'threshold') FROM structure_rows;
SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 0.5, model => 'pairwise', k => 3, iterations => 5) FROM structure_rows;
SELECT mrf_info(m)->>'method' AS method, mrf_info(m)->>'model' AS model, mrf_info(m)->>'notion' AS notion
FROM (SELECT mrf_learn_structure(x, rho => 1, eta => 0.5, model => 'twise', t => 3, method => 'threshold') AS m FROM structure_rows) q;
SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 0.5, model => 'twise') FROM structure_rows;
SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 0.5, model => 'twise', t => 1) FROM structure_rows;
SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 0.5, model => 'potts') FROM structure_rows;
SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 0.5, method => 'cgm') FROM structure_rows;
SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 0.5, iterations => 10) FROM structure_rows;
SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 0.5, k => 2) FROM structure_rows;
SELECT mrf_learn_structure(x, rho => 1, eta => 0.5, blocks => 10, method => 'threshold') FROM structure_rows;
SELECT mrf_learn_structure(x, eta => 0.5, method => 'threshold') FROM structure_rows;
SELECT mrf_learn_structure(x, epsilon => 1e-12, delta => 1e-6, eta => 0.5) FROM structure_rows;
SELECT mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => -1) FROM structure_rows;
-- model 'pairwise' reads k-ary rows: values outside 0..k-1, and too few rows for the blocks
SELECT mrf_learn_structure_agg(x, mrf_options(epsilon => 1, delta => 1e-6, eta => 0.5, model => 'pairwise', k => 3))
FROM (VALUES (ARRAY[0, 1, 3])) v(x);
SELECT mrf_learn_structure_agg(x, mrf_options(epsilon => 1, delta => 1e-6, eta => 0.5, model => 'pairwise', k => 3))
FROM (VALUES (ARRAY[0, 1, 2])) v(x);
-- GROUP BY needs the aggregate form (as for every named form)
SELECT g % 2, mrf_learn_structure(x, epsilon => 1, delta => 1e-6, eta => 0.5) FROM structure_rows GROUP BY g % 2;

-- model 'pairwise': a k = 3 chain 1 - 2 - 3 - 4 (blocks c = 1 on the diagonal,
-- -1/2 off it), sampled exactly; 10 blocks of 400 rows at epsilon = 4.
CREATE TABLE pairwise_rows AS
SELECT x FROM mrf_sample('{"kind": "pairwise", "p": 4, "k": 3, "weights": [
  [[[0,0,0],[0,0,0],[0,0,0]], [[1,-0.5,-0.5],[-0.5,1,-0.5],[-0.5,-0.5,1]], [[0,0,0],[0,0,0],[0,0,0]], [[0,0,0],[0,0,0],[0,0,0]]],
  [[[1,-0.5,-0.5],[-0.5,1,-0.5],[-0.5,-0.5,1]], [[0,0,0],[0,0,0],[0,0,0]], [[1,-0.5,-0.5],[-0.5,1,-0.5],[-0.5,-0.5,1]], [[0,0,0],[0,0,0],[0,0,0]]],
  [[[0,0,0],[0,0,0],[0,0,0]], [[1,-0.5,-0.5],[-0.5,1,-0.5],[-0.5,-0.5,1]], [[0,0,0],[0,0,0],[0,0,0]], [[1,-0.5,-0.5],[-0.5,1,-0.5],[-0.5,-0.5,1]]],
  [[[0,0,0],[0,0,0],[0,0,0]], [[0,0,0],[0,0,0],[0,0,0]], [[1,-0.5,-0.5],[-0.5,1,-0.5],[-0.5,-0.5,1]], [[0,0,0],[0,0,0],[0,0,0]]]],
  "fields": [[0,0,0],[0,0,0],[0,0,0],[0,0,0]]}'::mrf, 4000, seed => 3) x;
SELECT e.* FROM (SELECT mrf_learn_structure(x, epsilon => 4, delta => 1e-6, eta => 1, lambda => 2, model => 'pairwise',
                                          k => 3, blocks => 10) m FROM pairwise_rows) q, mrf_edges(q.m, 0) e;
SELECT m->>'model', m->>'method', m->>'block_learner', m->>'blocks', m->>'block_rows', m->>'edges'
FROM (SELECT mrf_info(mrf_learn_structure(x, epsilon => 4, delta => 1e-6, eta => 1, lambda => 2, model => 'pairwise', k => 3, blocks => 10)) m
      FROM pairwise_rows) q;

-- model 'twise': c_{1,2,3} = 0.8, c_{1,2} = 0.5 (not maximal), c_{4,5} = 0.8;
-- 10 blocks of 300 rows at epsilon = 4; the items are the maximal monomials.
CREATE TABLE twise_rows AS
SELECT x FROM mrf_sample('{"kind": "twise", "p": 5, "t": 3, "monomials": [[[1, 2], 0.5], [[4, 5], 0.8], [[1, 2, 3], 0.8]]}'::mrf,
                         3000, seed => 4) x;
SELECT (m::text::jsonb) - 'meta' AS structure, mrf_info(m)->>'monomials' AS monomials, mrf_info(m)->>'t' AS t
FROM (SELECT mrf_learn_structure(x, epsilon => 4, delta => 1e-6, eta => 0.8, lambda => 1.3, model => 'twise', t => 3,
                                 blocks => 10) m FROM twise_rows) q;
SELECT '{"kind": "structure", "p": 5, "t": 3, "monomials": [[3, 2, 1], [5, 4]]}'::mrf::text::jsonb - 'meta';
SELECT '{"kind": "structure", "p": 5, "t": 3, "monomials": [[1, 2], [2, 1]]}'::mrf;
SELECT '{"kind": "structure", "p": 5, "monomials": [[1, 2]]}'::mrf;
SELECT '{"kind": "structure", "p": 5, "t": 2, "monomials": [[1, 6]]}'::mrf;

DROP TABLE structure_rows, structure_model, pairwise_rows, twise_rows;
