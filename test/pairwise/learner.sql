-- server: session_preload
-- The pairwise k-ary learner on data sampled (exactly) with mrf_sample from
-- known centred models: a k = 3 chain (p = 7, cyclic blocks +-0.5) and a
-- k = 4 grid (2 x 3, p = 6, cyclic blocks +-0.4), fields 0.2 on one value.
-- Bounds are about half of what a transposed, shifted or k-times scaled
-- estimate shows, and about twice what the learner reaches.
BEGIN;
SELECT plan(27);
SET LOCAL mrfdp.test_seed = 404;

-- A centred model: edge n = (x, y), x < y (1-based), gets the cyclic block
-- W_xy(a, a) = s[n], W_xy(a, a + 1 mod k) = -s[n] (and its mirror W_yx);
-- theta_i(a) = f on a = (i - 1) mod k, less f / k.
CREATE FUNCTION pg_temp.model(p int, k int, edges int[], s float8[], f float8) RETURNS mrf LANGUAGE sql AS $$
WITH e AS (SELECT n, edges[n][1] - 1 AS x, edges[n][2] - 1 AS y FROM generate_subscripts(edges, 1) n),
cell AS (
  SELECT i, j, a, b, coalesce((SELECT sum(CASE
      WHEN e.x = i AND e.y = j AND b = a THEN s[e.n]
      WHEN e.x = i AND e.y = j AND b = (a + 1) % k THEN -s[e.n]
      WHEN e.x = j AND e.y = i AND a = b THEN s[e.n]
      WHEN e.x = j AND e.y = i AND a = (b + 1) % k THEN -s[e.n] ELSE 0 END) FROM e), 0) AS w
  FROM generate_series(0, p - 1) i, generate_series(0, p - 1) j, generate_series(0, k - 1) a, generate_series(0, k - 1) b),
r1 AS (SELECT i, j, a, jsonb_agg(w ORDER BY b) r FROM cell GROUP BY i, j, a),
r2 AS (SELECT i, j, jsonb_agg(r ORDER BY a) r FROM r1 GROUP BY i, j),
r3 AS (SELECT i, jsonb_agg(r ORDER BY j) r FROM r2 GROUP BY i),
fl AS (SELECT i, jsonb_agg((CASE WHEN a = i % k THEN f ELSE 0 END) - f / k ORDER BY a) r
       FROM generate_series(0, p - 1) i, generate_series(0, k - 1) a GROUP BY i)
SELECT jsonb_build_object('kind', 'pairwise', 'p', p, 'k', k,
                          'weights', (SELECT jsonb_agg(r ORDER BY i) FROM r3),
                          'fields', (SELECT jsonb_agg(r ORDER BY i) FROM fl))::text::mrf
$$;
-- Largest |W_hat - W| over every (i < j, a, b); transform 'transposed' reads
-- W_hat_ij(b, a), 'shifted' W_hat_ij(a, b + 1 mod k), 'scaled' k W_hat.
CREATE FUNCTION pg_temp.w_err(est mrf, truth mrf, transform text DEFAULT 'none') RETURNS float8 LANGUAGE sql AS $$
	SELECT max(abs(CASE transform WHEN 'scaled' THEN (mrf_info(est)->>'k')::int ELSE 1 END * e.weight - t.weight))
	FROM mrf_weights(truth) t JOIN mrf_weights(est) e ON e.i = t.i AND e.j = t.j
	 AND e.a = CASE transform WHEN 'transposed' THEN t.b ELSE t.a END
	 AND e.b = CASE transform WHEN 'transposed' THEN t.a
	                          WHEN 'shifted' THEN (t.b + 1) % (mrf_info(est)->>'k')::int ELSE t.b END
$$;
CREATE FUNCTION pg_temp.theta_err(est mrf, truth mrf) RETURNS float8 LANGUAGE sql AS $$
	SELECT max(abs(e.theta - t.theta)) FROM mrf_fields(truth) t JOIN mrf_fields(est) e USING (i, a)
$$;

CREATE TEMP TABLE chain AS
SELECT pg_temp.model(7, 3, ARRAY[[1,2],[2,3],[3,4],[4,5],[5,6],[6,7]], ARRAY[-0.5,0.5,-0.5,0.5,-0.5,0.5], 0.2) m;
CREATE TEMP TABLE grid AS
SELECT pg_temp.model(6, 4, ARRAY[[1,2],[2,3],[4,5],[5,6],[1,4],[2,5],[3,6]],
                     ARRAY[-0.4,0.4,-0.4,0.4,0.4,0.4,0.4], 0.2) m;
CREATE TEMP TABLE chain_rows AS
SELECT g AS id, g % 2 AS grp, x AS "row" FROM mrf_sample((SELECT m FROM chain), 20000, seed => 1) WITH ORDINALITY s(x, g);
CREATE TEMP TABLE grid_rows AS
SELECT x AS "row" FROM mrf_sample((SELECT m FROM grid), 25000, seed => 2) x;

SELECT ok((SELECT bool_and("row" <@ ARRAY[0, 1, 2] AND cardinality("row") = 7) FROM chain_rows),
          'mrf_sample draws values 0..k-1');

-- Chain, k = 3, rho = 100, T = 200 (measured: W 0.06, theta 0.03).
CREATE TEMP TABLE chain_model AS
SELECT mrf_learn_pairwise("row", k => 3, rho => 100, lambda => 1.2, iterations => 200) m FROM chain_rows;
SELECT diag('chain k=3: max error W ' || round(pg_temp.w_err(e.m, t.m)::numeric, 4) ||
            ', theta ' || round(pg_temp.theta_err(e.m, t.m)::numeric, 4)) FROM chain_model e, chain t;
SELECT cmp_ok(pg_temp.w_err(e.m, t.m), '<', 0.15::float8, 'chain: every W_ij(a, b) within 0.15') FROM chain_model e, chain t;
SELECT cmp_ok(pg_temp.theta_err(e.m, t.m), '<', 0.1::float8, 'chain: every theta_i(a) within 0.1') FROM chain_model e, chain t;
SELECT cmp_ok(pg_temp.w_err(e.m, t.m, 'transposed'), '>', 0.15::float8, 'chain: transposed blocks miss the bound') FROM chain_model e, chain t;
SELECT cmp_ok(pg_temp.w_err(e.m, t.m, 'shifted'), '>', 0.15::float8, 'chain: shifted values miss the bound') FROM chain_model e, chain t;
SELECT cmp_ok(pg_temp.w_err(e.m, t.m, 'scaled'), '>', 0.15::float8, 'chain: k W_hat misses the bound') FROM chain_model e, chain t;
SELECT is((SELECT array_agg(i || '-' || j ORDER BY i) FROM mrf_edges((SELECT m FROM chain_model), 0.6)),
          ARRAY['1-2', '2-3', '3-4', '4-5', '5-6', '6-7'], 'chain: mrf_edges at 0.6 recovers the chain');
-- Error grows as rho falls (measured 0.06 vs 0.26).
CREATE TEMP TABLE chain_small AS
SELECT mrf_learn_pairwise("row", k => 3, rho => 0.3, lambda => 1.2, iterations => 200) m FROM chain_rows;
SELECT diag('chain k=3, rho 0.3: max error W ' || round(pg_temp.w_err(e.m, t.m)::numeric, 4)) FROM chain_small e, chain t;
SELECT cmp_ok(pg_temp.w_err(s.m, t.m), '>', 2 * pg_temp.w_err(e.m, t.m), 'chain: error at rho 0.3 above twice the error at rho 100')
FROM chain_small s, chain_model e, chain t;

-- Grid, k = 4, rho = 100, T = 200 (measured: W 0.11, theta 0.05).
CREATE TEMP TABLE grid_model AS
SELECT mrf_learn_pairwise("row", k => 4, rho => 100, lambda => 1.4, iterations => 200) m FROM grid_rows;
SELECT diag('grid k=4: max error W ' || round(pg_temp.w_err(e.m, t.m)::numeric, 4) ||
            ', theta ' || round(pg_temp.theta_err(e.m, t.m)::numeric, 4)) FROM grid_model e, grid t;
SELECT cmp_ok(pg_temp.w_err(e.m, t.m), '<', 0.15::float8, 'grid: every W_ij(a, b) within 0.15') FROM grid_model e, grid t;
SELECT cmp_ok(pg_temp.theta_err(e.m, t.m), '<', 0.1::float8, 'grid: every theta_i(a) within 0.1') FROM grid_model e, grid t;
SELECT cmp_ok(pg_temp.w_err(e.m, t.m, 'transposed'), '>', 0.15::float8, 'grid: transposed blocks miss the bound') FROM grid_model e, grid t;
SELECT cmp_ok(pg_temp.w_err(e.m, t.m, 'shifted'), '>', 0.15::float8, 'grid: shifted values miss the bound') FROM grid_model e, grid t;
SELECT cmp_ok(pg_temp.w_err(e.m, t.m, 'scaled'), '>', 0.15::float8, 'grid: k W_hat misses the bound') FROM grid_model e, grid t;
SELECT is((SELECT array_agg(i || '-' || j ORDER BY i, j) FROM mrf_edges((SELECT m FROM grid_model), 0.5)),
          ARRAY['1-2', '1-4', '2-3', '2-5', '3-6', '4-5', '5-6'], 'grid: mrf_edges at 0.5 recovers the 7 grid edges');

-- Enum input: the chain's rows as an enum array learn the same model.
CREATE TYPE pg_temp.tri AS ENUM ('low', 'mid', 'high');
CREATE TEMP TABLE chain_enums AS
SELECT array_agg((enum_range(NULL::pg_temp.tri))[v + 1] ORDER BY o) AS x
FROM chain_rows, unnest("row") WITH ORDINALITY u(v, o) GROUP BY id;
CREATE TEMP TABLE enum_model AS
SELECT mrf_learn_pairwise(x, rho => 100, lambda => 1.2, iterations => 200) m FROM chain_enums;
SELECT is((SELECT mrf_info(m)->>'k' FROM enum_model), '3', 'enum input: k from the type');
SELECT cmp_ok(pg_temp.w_err(e.m, t.m), '<', 0.15::float8, 'enum input: every W_ij(a, b) within 0.15') FROM enum_model e, chain t;

-- Named form by position, aggregate with GROUP BY.
SELECT is((SELECT mrf_info(mrf_learn_pairwise("row", 3, 1))->>'k' FROM chain_rows), '3', 'positional k and rho');
SELECT is((SELECT count(*) FROM (SELECT grp, mrf_learn_pairwise_agg("row", mrf_options(k => 3, rho => 1)) m
                                 FROM chain_rows GROUP BY grp) q WHERE (mrf_info(m)->>'rows')::int = 10000),
          2::bigint, 'GROUP BY through the aggregate: one model of 10000 rows per group');

-- Every bad input's SQLSTATE.
SELECT throws_ok($$SELECT mrf_learn_pairwise("row", rho => 1) FROM chain_rows$$, '22023', NULL, 'integer rows without k');
SELECT throws_ok($$SELECT mrf_learn_pairwise("row", k => 2, rho => 1) FROM chain_rows$$, '22003', NULL,
                 'a value outside 0..k-1');
SELECT throws_ok($$SELECT mrf_learn_pairwise(x, k => 3, rho => 1) FROM (VALUES (ARRAY[0, -1])) v(x)$$, '22003', NULL,
                 'a negative value');
SELECT throws_ok($$SELECT mrf_learn_pairwise(x, k => 4, rho => 1) FROM chain_enums$$, '22023', NULL,
                 'k not matching the enum');
SELECT throws_ok($$SELECT mrf_learn_pairwise(x, k => 3, rho => 1) FROM (VALUES (ARRAY[0, NULL])) v(x)$$, '22004', NULL,
                 'NULL element');
SELECT throws_ok($$SELECT mrf_learn_pairwise(x, k => 3, rho => 1) FROM (VALUES (ARRAY[0, 1]), (ARRAY[0])) v(x)$$, '2202E', NULL,
                 'ragged rows');
SELECT throws_ok($$SELECT mrf_learn_pairwise(x, k => 3, rho => 1) FROM (VALUES (ARRAY[true, false])) v(x)$$, '42804', NULL,
                 'boolean[] is not a k-ary row type');
SELECT throws_ok($$SELECT mrf_learn_pairwise("row", k => 3) FROM chain_rows$$, '22023', NULL, 'missing budget');
SELECT throws_ok($$SELECT mrf_learn_pairwise(x, k => 255, rho => 1) FROM (SELECT array_fill(0, ARRAY[300]) x) q$$,
                 '54000', NULL, 'too many regressions');

SELECT * FROM finish();
ROLLBACK;
