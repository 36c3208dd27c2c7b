-- server: session_preload
-- Issue 10 item 3: every model's metadata reports the width of the released
-- estimate against its lambda ("width", "width_to_lambda", "width_at_bound",
-- free post-processing).  The width must be the estimate's own (recomputed
-- here from the released weights and fields), at the bound when lambda is
-- far below the model's width, and well inside it when lambda is generous.
-- The NOTICE itself is checked by pg_regress (sql/width_notice.sql).
BEGIN;
SELECT plan(11);
SET LOCAL mrfdp.test_seed = 31;
SET LOCAL client_min_messages = warning;

-- A cycle of 8 variables with couplings +-0.8: width 1.6.
CREATE TEMP TABLE truth AS
SELECT mrf_ising((SELECT array_agg(r ORDER BY i) FROM (
	SELECT i, array_agg(CASE WHEN (i - j + 8) % 8 IN (1, 7) THEN (CASE WHEN least(i, j) % 2 = 0 THEN 0.8 ELSE -0.8 END)
	                         ELSE 0 END::float8 ORDER BY j) r
	FROM generate_series(0, 7) i, generate_series(0, 7) j GROUP BY i) q)) AS m;
CREATE TEMP TABLE rows8 AS SELECT x AS "row" FROM mrf_sample((SELECT m FROM truth), 20000, seed => 5) x;

-- The width of an Ising model from its released weights and fields.
CREATE FUNCTION pg_temp.width(m mrf) RETURNS float8 LANGUAGE sql AS $$
	SELECT max(s) FROM (
		SELECT n.i, coalesce((SELECT sum(abs(weight)) FROM mrf_edges(m) e WHERE e.i = n.i OR e.j = n.i), 0)
		            + coalesce((SELECT abs(theta) FROM mrf_fields(m) f WHERE f.i = n.i), 0) AS s
		FROM generate_series(1, 8) n(i)) q
$$;

CREATE TEMP TABLE tight AS SELECT mrf_learn_ising("row", rho => 1, lambda => 0.4) AS m FROM rows8;
CREATE TEMP TABLE loose AS SELECT mrf_learn_ising("row", rho => 1, lambda => 8) AS m FROM rows8;

SELECT cmp_ok(abs(((SELECT m FROM tight)::jsonb #>> '{meta,width}')::float8 - pg_temp.width((SELECT m FROM tight))),
              '<', 1e-9::float8, 'ising: "width" is the released estimate''s width (lambda 0.4)');
SELECT cmp_ok(abs(((SELECT m FROM loose)::jsonb #>> '{meta,width}')::float8 - pg_temp.width((SELECT m FROM loose))),
              '<', 1e-9::float8, 'ising: "width" is the released estimate''s width (lambda 8)');
SELECT is(((SELECT m FROM tight)::jsonb #>> '{meta,width_at_bound}')::boolean, true,
          'ising: lambda 0.4 under a width-1.6 model sits at the bound');
SELECT cmp_ok(((SELECT m FROM tight)::jsonb #>> '{meta,width_to_lambda}')::float8, '>=', 0.9::float8,
              'ising: at the bound, the width is at least 90% of lambda');
SELECT is(((SELECT m FROM loose)::jsonb #>> '{meta,width_at_bound}')::boolean, false,
          'ising: lambda 8 over a width-1.6 model is not at the bound');
SELECT ok(((SELECT m FROM loose)::jsonb #>> '{meta,width}')::float8 BETWEEN 0.8 AND 3.2,
          'ising: at lambda 8 the estimate''s width is near the true 1.6 (within a factor 2)');
SELECT cmp_ok(abs(((SELECT m FROM loose)::jsonb #>> '{meta,width_to_lambda}')::float8
                  - ((SELECT m FROM loose)::jsonb #>> '{meta,width}')::float8 / 8), '<', 1e-12::float8,
              'ising: "width_to_lambda" is width / lambda');

-- Pairwise (k = 3): two identical variables (an unbounded coupling).
CREATE TEMP TABLE krows AS
SELECT ARRAY[g % 3, g % 3, (g / 3) % 3, (g / 9) % 3] AS x FROM generate_series(1, 6000) g;
CREATE TEMP TABLE pw AS
SELECT mrf_learn_pairwise(x, k => 3, rho => 1, lambda => 0.2) AS m FROM krows;
SELECT is(((SELECT m FROM pw)::jsonb #>> '{meta,width_at_bound}')::boolean, true,
          'pairwise: lambda 0.2 under an unbounded coupling sits at the bound');
SELECT ok(((SELECT m FROM pw)::jsonb #>> '{meta,width}')::float8 >= 0.18,
          'pairwise: the reported width is at least 90% of lambda there');

-- t-wise (t = 3): z3 = z1 z2 (an unbounded triple interaction).
CREATE TEMP TABLE trows AS
SELECT ARRAY[a, b, a * b, c] AS x
FROM (SELECT CASE WHEN g % 2 = 0 THEN 1 ELSE -1 END a, CASE WHEN (g / 2) % 2 = 0 THEN 1 ELSE -1 END b,
             CASE WHEN (g / 4) % 2 = 0 THEN 1 ELSE -1 END c FROM generate_series(1, 6000) g) q;
CREATE TEMP TABLE tw AS
SELECT mrf_learn_twise(x, t => 3, rho => 1, lambda => 0.2) AS m FROM trows;
SELECT is(((SELECT m FROM tw)::jsonb #>> '{meta,width_at_bound}')::boolean, true,
          't-wise: lambda 0.2 under an unbounded interaction sits at the bound');
SELECT ok(((SELECT m FROM tw)::jsonb #>> '{meta,width}')::float8 >= 0.18,
          't-wise: the reported width is at least 90% of lambda there');

SELECT * FROM finish();
ROLLBACK;
