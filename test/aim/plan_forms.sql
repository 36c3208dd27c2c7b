-- server: session_preload
-- The seeded schedule's middle tier (a signal n sqrt(2 rho / (3 (p - 1)))
-- of 500 and more: the seed 0.45 of rho, T = 16) on every form: at 387 rows
-- of 5 columns at rho 10 (signal 499.6) and at 388 (500.9), the release's
-- max_rounds, seed share and one-way spend are what mrf_learn_aim_plan
-- says for that n, and each spends exactly rho: the aggregate form, the
-- named form, and mrf_learn_aim_from on a protected relation as an analyst
-- with the grant and no SELECT (whose ledger row is rho (1 + 1/128)).  Not
-- wrapped in a transaction: charges are committed by a background worker.
SELECT plan(7);

\ir ../lib/protected.psql
DROP TABLE IF EXISTS pf_aim_387, pf_aim_388 CASCADE;
SET mrfdp.test_seed = 11;

-- the plan for each n, and the rows (3 values a column, dependent columns)
CREATE TEMP TABLE pf_plan AS
SELECT n, mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, n) AS pl FROM (VALUES (387), (388)) v(n);
CREATE TEMP TABLE pf_rows AS
SELECT n, g, ARRAY[g % 3, (g / 3) % 3, (g * 7) % 3, (g / 9) % 3, (g + g / 5) % 3] AS x
FROM (VALUES (387), (388)) v(n), generate_series(1, n) g;
CREATE TEMP TABLE pf_cols AS
SELECT n, x[1]::text AS a, x[2]::text AS b, x[3]::text AS c, x[4]::text AS d, x[5]::text AS e FROM pf_rows;
\set domains '{"a": ["0", "1", "2"], "b": ["0", "1", "2"], "c": ["0", "1", "2"], "d": ["0", "1", "2"], "e": ["0", "1", "2"]}'

-- a release agrees with the plan for its n, and spent exactly rho
CREATE FUNCTION pg_temp.agrees(info jsonb, n int) RETURNS boolean LANGUAGE sql AS $$
	SELECT (info ->> 'rows')::int = n
		   AND (info ->> 'max_rounds')::int = (pl ->> 'max_rounds')::int
		   AND info ->> 'schedule' = 'mst-seeded' AND pl ->> 'schedule' = 'mst-seeded'
		   AND (info ->> 'seed_share')::float8 = (pl ->> 'seed_share')::float8
		   AND (info ->> 'seed_select_share')::float8 = (pl ->> 'seed_select_share')::float8
		   AND (info ->> 'rho_one_way')::float8 = (pl ->> 'rho_one_way')::float8
		   AND (info ->> 'schedule_signal')::float8 = (pl ->> 'schedule_signal')::float8
		   AND (info ->> 'rho_spent')::float8 = 10
	FROM pf_plan WHERE pf_plan.n = agrees.n
$$;

SELECT ok((SELECT (a.pl ->> 'max_rounds')::int = 8 AND abs((a.pl ->> 'seed_share')::float8 - 0.6) < 1e-12
				  AND (b.pl ->> 'max_rounds')::int = 16 AND abs((b.pl ->> 'seed_share')::float8 - 0.45) < 1e-12
				  AND (a.pl ->> 'rho_one_way')::float8 = (b.pl ->> 'rho_one_way')::float8
				  AND (a.pl ->> 'fits_memory')::boolean AND (b.pl ->> 'fits_memory')::boolean
		   FROM pf_plan a, pf_plan b WHERE a.n = 387 AND b.n = 388),
		  'the plans: T = 8 and the seed 0.6 at 387 rows, T = 16 and 0.45 at 388, the one-ways alike');

-- the aggregate form
CREATE TEMP TABLE pf_agg AS
SELECT n, mrf_info(mrf_learn_aim_agg(x, mrf_options(rho => 10, k => 3))) AS info FROM pf_rows GROUP BY n;
SELECT ok((SELECT pg_temp.agrees(info, 387) FROM pf_agg WHERE n = 387), 'the aggregate form at 387 rows is its plan');
SELECT ok((SELECT pg_temp.agrees(info, 388) FROM pf_agg WHERE n = 388), 'the aggregate form at 388 rows is its plan');

-- the named form (columns by name, alphabets from the domains)
CREATE TEMP TABLE pf_named AS
SELECT 387 AS n, mrf_info(mrf_learn_aim(r, rho => 10, domains => :'domains')) AS info
FROM (SELECT a, b, c, d, e FROM pf_cols WHERE n = 387) r
UNION ALL
SELECT 388, mrf_info(mrf_learn_aim(r, rho => 10, domains => :'domains'))
FROM (SELECT a, b, c, d, e FROM pf_cols WHERE n = 388) r;
SELECT ok((SELECT bool_and(pg_temp.agrees(info, n)) AND count(*) = 2 FROM pf_named),
		  'the named form at 387 and 388 rows is its plan');

-- mrf_learn_aim_from on protected relations, as the analyst (no SELECT)
CREATE TABLE pf_aim_387 AS SELECT a, b, c, d, e FROM pf_cols WHERE n = 387;
CREATE TABLE pf_aim_388 AS SELECT a, b, c, d, e FROM pf_cols WHERE n = 388;
SELECT pg_temp.protect_for_analyst('pf_aim_387', epsilon => 1000, delta => 1e-6, rho_cap => 12);
SELECT pg_temp.protect_for_analyst('pf_aim_388', epsilon => 1000, delta => 1e-6, rho_cap => 12);
SET ROLE mrfdp_tap_analyst;
CREATE TEMP TABLE pf_from AS
SELECT 387 AS n, mrf_info(mrf_learn_aim_from('pf_aim_387', NULL, rho => 10,
				 domains => :'domains')) AS info
UNION ALL
SELECT 388, mrf_info(mrf_learn_aim_from('pf_aim_388', NULL, rho => 10,
			 domains => :'domains'));
RESET ROLE;
SELECT ok((SELECT pg_temp.agrees(info, 387) FROM pf_from WHERE n = 387),
		  'mrf_learn_aim_from at 387 rows is its plan');
SELECT ok((SELECT pg_temp.agrees(info, 388) FROM pf_from WHERE n = 388),
		  'mrf_learn_aim_from at 388 rows is its plan');
SELECT is((SELECT array_agg(rho::float8 ORDER BY relation::text) FROM mrfdp.ledger
		   WHERE relation IN ('pf_aim_387'::regclass, 'pf_aim_388'::regclass)),
		  ARRAY[10.078125, 10.078125]::float8[], 'each protected release charged rho (1 + 1/128), once');

SELECT * FROM finish();
DROP TABLE pf_aim_387, pf_aim_388 CASCADE;
