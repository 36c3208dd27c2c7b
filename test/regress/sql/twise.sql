-- The binary t-wise learner: shapes, metadata, the text form, errors.
SET mrfdp.test_seed = 41;
\set VERBOSITY default

-- A known t = 3 model: a triangle, pairs and fields (1-based variables).
CREATE TABLE twise_truth AS SELECT '{"kind": "twise", "p": 5, "t": 3, "monomials": [
  [[1, 2, 3], 0.5], [[2, 1], 0.2], [[3, 4], 0.4], [[4, 5], -0.4], [[2], 0.2], [[5], -0.3]]}'::mrf AS m;
-- written back in index order, variables sorted, zeros left out
SELECT m FROM twise_truth;
SELECT mrf_info(m) FROM twise_truth;
-- the round trip is exact
SELECT m::text::mrf::text = m::text AS round_trip, m::jsonb = m::text::mrf::jsonb AS same_jsonb FROM twise_truth;
-- every monomial of size 1..t is listed, zeros included: C(5,1) + C(5,2) + C(5,3)
SELECT count(*) AS monomials, count(*) FILTER (WHERE coef <> 0) AS nonzero,
       min(cardinality(vars)) AS smallest, max(cardinality(vars)) AS largest
FROM mrf_monomials((SELECT m FROM twise_truth));
SELECT vars, coef FROM mrf_monomials((SELECT m FROM twise_truth)) WHERE coef <> 0;
SELECT * FROM mrf_fields((SELECT m FROM twise_truth));
SELECT * FROM mrf_edges((SELECT m FROM twise_truth));
SELECT * FROM mrf_edges((SELECT m FROM twise_truth), threshold => 0.3);

-- samples are -1/+1 arrays of length p
CREATE TABLE twise_rows AS
SELECT g AS id, g % 2 AS grp, x AS "row" FROM mrf_sample((SELECT m FROM twise_truth), 2000, seed => 5) WITH ORDINALITY s(x, g);
SELECT count(*) AS rows, min(cardinality("row")) AS p, bool_and("row" <@ ARRAY[-1, 1]) AS plus_minus_one
FROM twise_rows;

-- learning: metadata (no timings), shape, coefficient 0 of the empty set
CREATE FUNCTION twise_meta(m mrf) RETURNS jsonb LANGUAGE sql AS
$$ SELECT mrf_info(m) - 'created' - 'learn_seconds' - 'width' - 'width_to_lambda' $$;
SELECT twise_meta(mrf_learn_twise("row", t => 3, rho => 1)) FROM twise_rows;
SELECT twise_meta(mrf_learn_twise("row", t => 2, rho => 1, lambda => 2, iterations => 50, mechanism => 'laplace')) FROM twise_rows;
SELECT twise_meta(mrf_learn_twise("row", t => 3, rho => 1, objective => 'linf')) FROM twise_rows;
SELECT twise_meta(mrf_learn_twise("row", t => 3, rho => 1, objective => 'linf', query_release => 'pmw')) FROM twise_rows;
SELECT (mrf_info(m)->>'rho')::float8 = mrf_zcdp_for_dp(2, 1e-6) AS converted
FROM (SELECT mrf_learn_twise("row", t => 3, epsilon => 2, delta => 1e-6) m FROM twise_rows) q;
-- a learned model reads back exactly
SELECT m::text::mrf::text = m::text AS round_trip
FROM (SELECT mrf_learn_twise("row", t => 3, rho => 1, objective => 'linf') m FROM twise_rows) q;
-- named and aggregate forms agree under the same seed
SET mrfdp.test_seed = 42;
CREATE TABLE twise_named AS SELECT mrf_learn_twise("row", t => 3, rho => 1, lambda => 1.5, iterations => 30) m FROM twise_rows;
SET mrfdp.test_seed = 42;
SELECT (SELECT m::jsonb - 'meta' FROM twise_named) =
       (SELECT mrf_learn_twise_agg("row", mrf_options(t => 3, rho => 1, lambda => 1.5, iterations => 30))::jsonb - 'meta' FROM twise_rows)
  AS same_model;
-- GROUP BY through the aggregate
SELECT grp, mrf_info(mrf_learn_twise_agg("row", mrf_options(t => 2, rho => 1)))->>'rows' AS rows
FROM twise_rows GROUP BY grp ORDER BY grp;
-- boolean[] and bit strings are binary rows too
SELECT mrf_info(mrf_learn_twise(x, t => 2, rho => 1))->>'p' AS p
FROM (SELECT ARRAY[i % 2 = 0, i % 3 = 0, i % 5 = 0] x FROM generate_series(1, 50) i) q;
SELECT mrf_info(mrf_learn_twise(x, t => 3, rho => 1))->>'p' AS p
FROM (SELECT (i % 16)::bit(4) x FROM generate_series(1, 50) i) q;
-- no rows: NULL
SELECT mrf_learn_twise("row", t => 3, rho => 1) IS NULL AS no_model FROM twise_rows WHERE false;

-- errors
SELECT mrf_learn_twise("row", rho => 1) FROM twise_rows;
SELECT mrf_learn_twise("row", t => 3) FROM twise_rows;
SELECT mrf_learn_twise("row", t => 6, rho => 1) FROM twise_rows;
SELECT mrf_learn_twise("row", t => 1, rho => 1) FROM twise_rows;
SELECT mrf_learn_twise("row", t => 3, rho => 0) FROM twise_rows;
SELECT mrf_learn_twise("row", t => 3, rho => 1, objective => 'l2') FROM twise_rows;
SELECT mrf_learn_twise("row", t => 3, rho => 1, objective => 'linf', query_release => 'laplace') FROM twise_rows;
SELECT mrf_learn_twise("row", t => 3, rho => 1, query_release => 'pmw') FROM twise_rows;
SELECT mrf_learn_twise("row", t => 3, rho => 1, iterations => 1) FROM twise_rows;
SELECT mrf_learn_twise_agg("row", mrf_options(t => 3, rho => 1, k => 3)) FROM twise_rows;
SELECT mrf_learn_twise_agg("row", mrf_options(t => 3, rho => 1, symmetrize => false)) FROM twise_rows;
SELECT mrf_learn_twise(x, t => 2, rho => 1) FROM (VALUES (ARRAY[1, -1, 0])) v(x);
SELECT mrf_learn_twise(x, t => 2, rho => 1) FROM (VALUES (ARRAY[1, -1, 1]), (ARRAY[1, 1])) v(x);
SELECT mrf_learn_twise(x, t => 2, rho => 1) FROM (VALUES (ARRAY[1, NULL, 1])) v(x);
SELECT mrf_learn_twise(x, t => 3, rho => 1, objective => 'linf') FROM (VALUES (ARRAY[1, -1, 1])) v(x);
SELECT mrf_learn_twise(x, t => 3, rho => 1, objective => 'linf', query_release => 'pmw')
FROM (SELECT array_fill(1, ARRAY[21]) x FROM generate_series(1, 10)) q;
SELECT mrf_learn_twise(x, t => 4, rho => 1)
FROM (SELECT array_fill(1, ARRAY[400]) x FROM generate_series(1, 3)) q;
SELECT mrf_learn_twise(x, t => 3, rho => 1e-9, objective => 'linf')
FROM (SELECT array_fill(1, ARRAY[300]) x FROM generate_series(1, 3)) q;
SELECT * FROM mrf_monomials(mrf_ising(ARRAY[[0, 1], [1, 0]]::float8[]));
SELECT * FROM mrf_weights((SELECT m FROM twise_truth));

-- malformed text forms
SELECT '{"kind": "twise", "p": 3, "monomials": []}'::mrf;
SELECT '{"kind": "twise", "p": 3, "t": 4, "monomials": []}'::mrf;
SELECT '{"kind": "twise", "p": 3, "t": 2, "k": 3, "monomials": []}'::mrf;
SELECT '{"kind": "twise", "p": 3, "t": 2}'::mrf;
SELECT '{"kind": "twise", "p": 3, "t": 2, "monomials": [[[1, 2, 3], 0.5]]}'::mrf;
SELECT '{"kind": "twise", "p": 3, "t": 2, "monomials": [[[0, 1], 0.5]]}'::mrf;
SELECT '{"kind": "twise", "p": 3, "t": 2, "monomials": [[[1, 4], 0.5]]}'::mrf;
SELECT '{"kind": "twise", "p": 3, "t": 2, "monomials": [[[2, 2], 0.5]]}'::mrf;
SELECT '{"kind": "twise", "p": 3, "t": 2, "monomials": [[[], 0.5]]}'::mrf;
SELECT '{"kind": "twise", "p": 3, "t": 2, "monomials": [[[1.5], 0.5]]}'::mrf;
SELECT '{"kind": "twise", "p": 3, "t": 2, "monomials": [[[1], "x"]]}'::mrf;
SELECT '{"kind": "twise", "p": 3, "t": 2, "monomials": [[[1, 2], 0.5], [[2, 1], 0.1]]}'::mrf;
SELECT '{"kind": "twise", "p": 3, "t": 2, "monomials": [[1, 0.5]]}'::mrf;
SELECT '{"kind": "twise", "p": 3, "t": 2, "monomials": [[[1], 0.5, 2]]}'::mrf;

DROP TABLE twise_truth, twise_rows, twise_named;
DROP FUNCTION twise_meta(mrf);
