-- AIM (with domain compression) and MST on a table with a 1,000-value column:
-- 50,000 rows, a Zipf-like text column (P(c) about 1 / (c + 1)), a 5-value
-- and a 7-value column copying it modulo 5 and 7 (0.8, 0.7) and a boolean
-- copying its parity (0.9); rho 0.1 and 1, two seeds each; time and the
-- mean L1 of every 1-, 2- and 3-way marginal (mrf_marginal_error).  Run in
-- a throwaway cluster:
--   pg_virtualenv -o session_preload_libraries=mrfdp sh -c 'createdb b && psql -d b -c "CREATE EXTENSION mrfdp" && psql -d b -f bench/wide_column.sql'
SELECT setseed(0.25);
CREATE TABLE w (city text, zone int, flag boolean, grade int);
INSERT INTO w
SELECT 'c' || c, CASE WHEN random() < 0.8 THEN c % 5 ELSE floor(random() * 5)::int END,
       CASE WHEN random() < 0.9 THEN c % 2 = 0 ELSE random() < 0.5 END,
       CASE WHEN random() < 0.7 THEN c % 7 ELSE floor(random() * 7)::int END
FROM (SELECT least(999, floor(exp(random() * ln(1000))) - 1)::int AS c FROM generate_series(1, 50000)) s;
SELECT jsonb_build_object('city', (SELECT jsonb_agg('c' || i ORDER BY i) FROM generate_series(0, 999) i), 'zone', '{"min": 0, "max": 4}'::jsonb, 'grade', '{"min": 0, "max": 6}'::jsonb) AS dom \gset
CREATE TABLE res (learner text, rho float8, seed int, secs float8, m mrf);
DO $$
DECLARE t0 timestamptz; r float8; s int; m mrf; d jsonb := (SELECT jsonb_build_object('city', (SELECT jsonb_agg('c' || i ORDER BY i) FROM generate_series(0, 999) i), 'zone', '{"min": 0, "max": 4}'::jsonb, 'grade', '{"min": 0, "max": 6}'::jsonb));
BEGIN
 FOREACH r IN ARRAY ARRAY[0.1, 1.0] LOOP
  FOR s IN 1..2 LOOP
   PERFORM set_config('mrfdp.test_seed', s::text, false);
   t0 := clock_timestamp();
   SELECT mrf_learn_mst_agg(w, mrf_options(rho => r, domains => d)) INTO m FROM w;
   INSERT INTO res VALUES ('mst', r, s, extract(epoch FROM clock_timestamp() - t0), m);
   t0 := clock_timestamp();
   SELECT mrf_learn_aim_agg(w, mrf_options(rho => r, domains => d)) INTO m FROM w;
   INSERT INTO res VALUES ('aim', r, s, extract(epoch FROM clock_timestamp() - t0), m);
  END LOOP;
 END LOOP;
END $$;
SET client_min_messages = warning;
SELECT learner, rho, round(avg(secs)::numeric, 2) AS secs,
       round(avg(e.mean_l1) FILTER (WHERE e.way = 1)::numeric, 4) AS l1_1way,
       round(avg(e.mean_l1) FILTER (WHERE e.way = 2)::numeric, 4) AS l1_2way,
       round(avg(e.mean_l1) FILTER (WHERE e.way = 3)::numeric, 4) AS l1_3way,
       round(avg((mrf_info(m) ->> 'merged_values')::int)) AS merged
FROM res, mrf_marginal_error(m, 'w') e GROUP BY 1, 2 ORDER BY 2, 1;
