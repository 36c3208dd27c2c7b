-- server: session_preload
-- Issue 10 item 1: with no lambda and no iterations given, the learners'
-- defaults (privacy.h, chosen by bench/bench_defaults.c) must beat the
-- old setting, lambda = 1 with the paper's T = ceil((2 lambda n
-- sqrt(rho/p))^(2/3)), on sampled models of several widths.  Medians over
-- three releases (test seeds) keep it from being flaky; the bound (the
-- default's median error at most 0.8 of the old one's) is one that the old
-- defaults (ratio 1) cannot meet; the study measured 0.3-0.6 on these cells.
BEGIN;
SELECT plan(8);
SET LOCAL client_min_messages = warning;	-- the old setting's width NOTICEs

-- Models of p = 10 (sampled exactly) from a weight function of (i, j).
CREATE FUNCTION pg_temp.model(kind text) RETURNS mrf LANGUAGE sql AS $$
	SELECT mrf_ising((SELECT array_agg(r ORDER BY i) FROM (
		SELECT i, array_agg((CASE
			WHEN kind = 'chain' AND abs(i - j) = 1 THEN 0.5		-- width 1
			WHEN kind = 'grid' AND (abs(i - j) = 5 OR (abs(i - j) = 1 AND least(i, j) % 5 <> 4))
				THEN CASE WHEN (i + j) % 3 = 0 THEN -0.5 ELSE 0.5 END	-- 2 x 5, mixed signs: width 1.5
			WHEN kind = 'wheel' AND (i = 0) <> (j = 0)
				THEN CASE WHEN (i + j) % 2 = 0 THEN -0.3 ELSE 0.3 END	-- hub width 2.7
			WHEN kind = 'wheel' AND i > 0 AND j > 0 AND abs(i - j) = 1 THEN 0.4
			ELSE 0 END)::float8 ORDER BY j) r
		FROM generate_series(0, 9) i, generate_series(0, 9) j GROUP BY i) q),
		(SELECT array_agg(0.1 * ((i % 3) - 1)::float8 ORDER BY i) FROM generate_series(0, 9) i))
$$;
CREATE TEMP TABLE truth AS SELECT kind, pg_temp.model(kind) AS m FROM (VALUES ('chain'), ('grid'), ('wheel')) v(kind);
CREATE TEMP TABLE samples AS
SELECT kind, x AS "row" FROM truth, LATERAL mrf_sample(m, 20000, seed => 17) x;

-- Largest absolute difference of two models' weights over all pairs.
CREATE FUNCTION pg_temp.max_error(a mrf, b mrf) RETURNS float8 LANGUAGE sql AS $$
	SELECT max(abs(coalesce(x.weight, 0) - coalesce(y.weight, 0)))
	FROM mrf_edges(a) x FULL JOIN mrf_edges(b) y USING (i, j)
$$;

-- One release's error: defaults (opts NULL) or the old setting.
CREATE FUNCTION pg_temp.err(k text, old boolean, seed int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	m mrf;
	n int := 20000;
BEGIN
	EXECUTE format('SET LOCAL mrfdp.test_seed = %s', seed);
	IF old THEN
		SELECT mrf_learn_ising_agg("row", mrf_options(rho => 1, lambda => 1,
		       iterations => ceil(power(2 * 1 * n * sqrt(1.0 / 10), 2.0 / 3) * (1 - 1e-12))::int))
		INTO m FROM samples WHERE kind = k;
	ELSE
		SELECT mrf_learn_ising("row", rho => 1) INTO m FROM samples WHERE kind = k;
	END IF;
	RETURN pg_temp.max_error(m, (SELECT t.m FROM truth t WHERE t.kind = k));
END $$;

CREATE TEMP TABLE errs AS
SELECT kind, old, percentile_disc(0.5) WITHIN GROUP (ORDER BY pg_temp.err(kind, old, seed)) AS med
FROM truth, (VALUES (true), (false)) o(old), generate_series(1, 3) seed GROUP BY kind, old;

SELECT cmp_ok((SELECT med FROM errs WHERE kind = 'chain' AND NOT old), '<=',
              0.8 * (SELECT med FROM errs WHERE kind = 'chain' AND old),
              'chain (width 1): the defaults'' median error is at most 0.8 of lambda 1 with the paper''s T');
SELECT cmp_ok((SELECT med FROM errs WHERE kind = 'grid' AND NOT old), '<=',
              0.8 * (SELECT med FROM errs WHERE kind = 'grid' AND old),
              'grid (width 1.6): the defaults'' median error is at most 0.8 of lambda 1 with the paper''s T');
SELECT cmp_ok((SELECT med FROM errs WHERE kind = 'wheel' AND NOT old), '<=',
              0.8 * (SELECT med FROM errs WHERE kind = 'wheel' AND old),
              'wheel (width 2.8): the defaults'' median error is at most 0.8 of lambda 1 with the paper''s T');
-- and they learn: well below the largest coupling everywhere
SELECT cmp_ok((SELECT max(med) FROM errs WHERE NOT old), '<', 0.2::float8,
              'the defaults'' median error is below 0.2 on every model (couplings 0.3-0.5)');

-- What the defaults are, as the metadata reports them.
CREATE TEMP TABLE dm AS SELECT mrf_learn_ising("row", rho => 1)::jsonb -> 'meta' AS meta FROM samples WHERE kind = 'chain';
SELECT is(((SELECT meta FROM dm) ->> 'lambda')::float8, 8::float8, 'the default lambda of mrf_learn_ising is 8');
SELECT is(((SELECT meta FROM dm) ->> 'iterations')::int,
          ceil(0.25 * ceil(power(2 * 8 * 20000 * sqrt(1.0 / 10), 2.0 / 3) * (1 - 1e-12)) - 1e-9)::int,
          'the default T is a quarter of the paper''s formula at lambda 8');
SELECT is((SELECT mrf_learn_pairwise(ARRAY[g % 3, (g / 3) % 3, (g / 9) % 3], k => 3, rho => 1)::jsonb #>> '{meta,lambda}'
           FROM generate_series(1, 3000) g)::float8, 4::float8, 'the default lambda of mrf_learn_pairwise is 4');
SELECT is((SELECT mrf_learn_twise(ARRAY[(g % 2) * 2 - 1, ((g / 2) % 2) * 2 - 1, ((g / 4) % 2) * 2 - 1], t => 2, rho => 1)::jsonb #>> '{meta,lambda}'
           FROM generate_series(1, 3000) g)::float8, 4::float8, 'the default lambda of mrf_learn_twise is 4');

SELECT * FROM finish();
ROLLBACK;
