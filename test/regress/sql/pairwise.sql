-- The pairwise k-ary learner: shapes, metadata, the text form, inputs, errors.
SET mrfdp.test_seed = 31;
\set VERBOSITY default

-- A known k = 3 model on p = 3: one cyclic block between 1 and 2, fields on 3.
CREATE TABLE pw_truth AS SELECT '{"kind": "pairwise", "p": 3, "k": 3,
  "weights": [[[[0,0,0],[0,0,0],[0,0,0]], [[0.5,-0.5,0],[0,0.5,-0.5],[-0.5,0,0.5]], [[0,0,0],[0,0,0],[0,0,0]]],
              [[[0.5,0,-0.5],[-0.5,0.5,0],[0,-0.5,0.5]], [[0,0,0],[0,0,0],[0,0,0]], [[0,0,0],[0,0,0],[0,0,0]]],
              [[[0,0,0],[0,0,0],[0,0,0]], [[0,0,0],[0,0,0],[0,0,0]], [[0,0,0],[0,0,0],[0,0,0]]]],
  "fields": [[0, 0, 0], [0, 0, 0], [0.4, -0.2, -0.2]]}'::mrf AS m;
SELECT mrf_info(m) FROM pw_truth;
SELECT m::text::mrf::text = m::text AS round_trip, m::jsonb = m::text::mrf::jsonb AS same_jsonb FROM pw_truth;
SELECT m::jsonb->'fields' AS fields, m::jsonb->'weights'->0->1 AS block_1_2 FROM pw_truth;
-- symmetric: each pair once (i < j), k^2 rows per pair
SELECT * FROM mrf_weights((SELECT m FROM pw_truth)) WHERE weight <> 0 ORDER BY i, j, a, b;
SELECT count(*) AS rows FROM mrf_weights((SELECT m FROM pw_truth));
SELECT * FROM mrf_fields((SELECT m FROM pw_truth)) WHERE i = 3;
-- edges: Frobenius norm of the centred block (here sqrt(6 * 0.25))
SELECT i, j, round(weight::numeric, 6) AS weight FROM mrf_edges((SELECT m FROM pw_truth));
-- adding a row offset to a block changes no edge (it is a field in disguise)
SELECT round(weight::numeric, 6) AS weight FROM mrf_edges('{"kind": "pairwise", "p": 2, "k": 2,
  "weights": [[[[0,0],[0,0]], [[1.5,0.5],[0,1]]], [[[1.5,0],[0.5,1]], [[0,0],[0,0]]]], "fields": [[0,0],[0,0]]}'::mrf);
-- an asymmetric model lists every ordered pair
SELECT count(*) AS rows, bool_or(i > j) AS both_orders FROM mrf_weights('{"kind": "pairwise", "p": 2, "k": 2,
  "weights": [[[[0,0],[0,0]], [[1,0],[0,0]]], [[[0,0],[0,0]], [[0,0],[0,0]]]], "fields": [[0,0],[0,0]]}'::mrf);

-- samples are arrays of values 0..k-1
CREATE TABLE pw_rows AS
SELECT g AS id, g % 2 AS grp, x AS "row" FROM mrf_sample((SELECT m FROM pw_truth), 3000, seed => 6) WITH ORDINALITY s(x, g);
SELECT count(*) AS rows, min(cardinality("row")) AS p, bool_and("row" <@ ARRAY[0, 1, 2]) AS in_alphabet
FROM pw_rows;

CREATE FUNCTION pw_meta(m mrf) RETURNS jsonb LANGUAGE sql AS
$$ SELECT mrf_info(m) - 'created' - 'learn_seconds' - 'width' - 'width_to_lambda' $$;
SELECT pw_meta(mrf_learn_pairwise("row", k => 3, rho => 1)) FROM pw_rows;
SELECT pw_meta(mrf_learn_pairwise("row", k => 3, rho => 1, lambda => 2, iterations => 40,
                                   mechanism => 'laplace', symmetrize => false)) FROM pw_rows;
SELECT (mrf_info(m)->>'rho')::float8 = mrf_zcdp_for_dp(2, 1e-6) AS converted
FROM (SELECT mrf_learn_pairwise("row", k => 3, epsilon => 2, delta => 1e-6) m FROM pw_rows) q;
-- the learner releases centred blocks and fields: rows, columns and fields sum to 0
WITH l AS (SELECT mrf_learn_pairwise("row", k => 3, rho => 1) m FROM pw_rows)
SELECT max(abs(s)) < 1e-9 AS centred FROM (
  SELECT sum(weight) s FROM l, mrf_weights(l.m) GROUP BY i, j, a
  UNION ALL SELECT sum(weight) FROM l, mrf_weights(l.m) GROUP BY i, j, b
  UNION ALL SELECT sum(theta) FROM l, mrf_fields(l.m) GROUP BY i) q;
SELECT m::text::mrf::text = m::text AS round_trip
FROM (SELECT mrf_learn_pairwise("row", k => 3, rho => 1, symmetrize => false) m FROM pw_rows) q;
-- named and aggregate forms agree under the same seed
SET mrfdp.test_seed = 32;
CREATE TABLE pw_named AS SELECT mrf_learn_pairwise("row", k => 3, rho => 1, iterations => 30) m FROM pw_rows;
SET mrfdp.test_seed = 32;
SELECT (SELECT m::jsonb - 'meta' FROM pw_named) =
       (SELECT mrf_learn_pairwise_agg("row", mrf_options(k => 3, rho => 1, iterations => 30))::jsonb - 'meta' FROM pw_rows)
  AS same_model;
SELECT grp, mrf_info(mrf_learn_pairwise_agg("row", mrf_options(k => 3, rho => 1)))->>'rows' AS rows
FROM pw_rows GROUP BY grp ORDER BY grp;
-- smallint[], enum arrays and rows of enum/boolean columns
SELECT mrf_info(mrf_learn_pairwise("row"::smallint[], k => 4, rho => 1))->>'k' AS k FROM pw_rows;
CREATE TYPE pw_colour AS ENUM ('red', 'green', 'blue');
CREATE TABLE pw_enums AS SELECT ARRAY[(enum_range(NULL::pw_colour))["row"[1] + 1],
                                      (enum_range(NULL::pw_colour))["row"[2] + 1],
                                      (enum_range(NULL::pw_colour))["row"[3] + 1]] AS x,
                                "row"[3] = 0 AS flag FROM pw_rows;
SELECT mrf_info(m)->>'k' AS k, mrf_info(m)->>'p' AS p FROM (SELECT mrf_learn_pairwise(x, rho => 1) m FROM pw_enums) q;
SELECT mrf_info(m)->>'k' AS k FROM (SELECT mrf_learn_pairwise(x, k => 3, rho => 1) m FROM pw_enums) q;
CREATE TABLE pw_record (a pw_colour, b pw_colour, c pw_colour);
INSERT INTO pw_record SELECT x[1], x[2], x[3] FROM pw_enums;
SET mrfdp.test_seed = 33;
CREATE TABLE pw_from_ints AS SELECT mrf_learn_pairwise("row", k => 3, rho => 1, iterations => 30) m FROM pw_rows;
SET mrfdp.test_seed = 33;
SELECT (SELECT m::jsonb - 'meta' FROM pw_from_ints) =
       (SELECT mrf_learn_pairwise(r, rho => 1, iterations => 30)::jsonb - 'meta' FROM pw_record r) AS enum_rows_same_model;
SELECT mrf_learn_pairwise("row", k => 3, rho => 1) IS NULL AS no_model FROM pw_rows WHERE false;

-- errors
SELECT mrf_learn_pairwise("row", rho => 1) FROM pw_rows;
SELECT mrf_learn_pairwise("row", k => 2, rho => 1) FROM pw_rows;
SELECT mrf_learn_pairwise(x, k => 3, rho => 1) FROM (VALUES (ARRAY[0, -1, 2])) v(x);
SELECT mrf_learn_pairwise(x, k => 4, rho => 1) FROM pw_enums;
SELECT mrf_learn_pairwise(r, k => 2, rho => 1) FROM pw_record r;
SELECT mrf_learn_pairwise("row", k => 1, rho => 1) FROM pw_rows;
SELECT mrf_learn_pairwise("row", k => 3) FROM pw_rows;
SELECT mrf_learn_pairwise("row", k => 3, rho => -1) FROM pw_rows;
SELECT mrf_learn_pairwise_agg("row", mrf_options(k => 3, rho => 1, t => 3)) FROM pw_rows;
SELECT mrf_learn_pairwise(x, k => 3, rho => 1) FROM (VALUES (ARRAY[0, 1, 2]), (ARRAY[0, 1])) v(x);
SELECT mrf_learn_pairwise(x, k => 3, rho => 1) FROM (VALUES (ARRAY[0, NULL, 2])) v(x);
SELECT mrf_learn_pairwise(x, k => 3, rho => 1) FROM (VALUES (ARRAY[0])) v(x);
SELECT mrf_learn_pairwise(x, k => 3, rho => 1) FROM (VALUES (ARRAY[0.5, 1])) v(x);
SELECT mrf_learn_pairwise(x, k => 255, rho => 1)
FROM (SELECT array_fill(0, ARRAY[300]) x) q;
SELECT * FROM mrf_weights(mrf_ising(ARRAY[[0, 1], [1, 0]]::float8[]));

-- malformed text forms
SELECT '{"kind": "pairwise", "p": 2, "weights": [], "fields": []}'::mrf;
SELECT '{"kind": "pairwise", "p": 2, "k": 2, "fields": [[0,0],[0,0]]}'::mrf;
SELECT '{"kind": "pairwise", "p": 2, "k": 2, "weights": [[[[0,0],[0,0]], [[1,0],[0,0]]]], "fields": [[0,0],[0,0]]}'::mrf;
SELECT '{"kind": "pairwise", "p": 2, "k": 2, "weights": [[[[0,0],[0,0]], [[1,0],[0]]], [[[0,0],[0,0]], [[0,0],[0,0]]]], "fields": [[0,0],[0,0]]}'::mrf;
SELECT '{"kind": "pairwise", "p": 2, "k": 2, "weights": [[[[1,0],[0,0]], [[1,0],[0,0]]], [[[0,0],[0,0]], [[0,0],[0,0]]]], "fields": [[0,0],[0,0]]}'::mrf;
SELECT '{"kind": "pairwise", "p": 2, "k": 2, "weights": [[[[0,0],[0,0]], [[1,0],[0,"x"]]], [[[0,0],[0,0]], [[0,0],[0,0]]]], "fields": [[0,0],[0,0]]}'::mrf;
SELECT '{"kind": "pairwise", "p": 2, "k": 2, "weights": [[[[0,0],[0,0]], [[1,0],[0,0]]], [[[0,0],[0,0]], [[0,0],[0,0]]]], "fields": [[0,0]]}'::mrf;
SELECT '{"kind": "pairwise", "p": 2, "k": 2, "weights": [[[[0,0],[0,0]], [[1,0],[0,0]]], [[[0,0],[0,0]], [[0,0],[0,0]]]]}'::mrf;

DROP TABLE pw_truth, pw_rows, pw_named, pw_enums, pw_record, pw_from_ints;
DROP TYPE pw_colour;
DROP FUNCTION pw_meta(mrf);
