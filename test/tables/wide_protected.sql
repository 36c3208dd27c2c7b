-- server: session_preload
-- A real table with a wide column through the protected path (issue 24,
-- "done when"): an id, an integer, a numeric and a date column by public
-- bins, an integer column with NULLs (a NULL category), a boolean, and a
-- 1,000-value text column whose alphabet is its CHECK constraint (IN list).
-- An analyst who cannot read the table learns MST and AIM from its columns
-- (columns =>, never the id), charged to its budget, and synthesizes rows
-- back into the columns' own types; the wide column keeps its dependence on
-- the zone.  Not in a transaction (charges are committed by a background
-- worker, which sees committed catalog rows only); cleans up.
SELECT plan(15);

\ir ../lib/protected.psql
SET client_min_messages = warning;
DROP TABLE IF EXISTS widep, widep_mst, widep_aim CASCADE;
SET mrfdp.test_seed = 7;
SELECT setseed(0.5);
DO $$
BEGIN
	EXECUTE format('CREATE TABLE widep (id text PRIMARY KEY, age int, income numeric, visit date, zone int CHECK (zone BETWEEN 0 AND 4), '
				   'flag boolean, city text CHECK (city IN (%s)))',
				   (SELECT string_agg(quote_literal('city ' || i), ', ' ORDER BY i) FROM generate_series(0, 999) i));
END $$;
-- the city is Zipf (P(c) about 1 / (c + 1)); the zone is city mod 5 (0.8) or NULL (0.05);
-- the income grows with the age
INSERT INTO widep
SELECT 'p' || g, age, age * 1000 + floor(random() * 5000), date '2020-01-01' + floor(random() * 700)::int,
	   CASE WHEN u < 0.05 THEN NULL WHEN u < 0.85 THEN c % 5 ELSE floor(random() * 5)::int END,
	   c % 2 = 0, 'city ' || c
FROM (SELECT g, 18 + floor(random() * 60)::int AS age, random() AS u,
			 least(999, floor(exp(random() * ln(1000))) - 1)::int AS c
	  FROM generate_series(1, 20000) g) s;
GRANT CREATE ON SCHEMA public TO mrfdp_tap_analyst;
SELECT pg_temp.protect_for_analyst('widep', epsilon => 1000, delta => 1e-6, rho_cap => 20);

SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT count(*) FROM widep$$, '42501', NULL, 'the analyst cannot read the table');
CREATE TEMP TABLE widep_m AS
SELECT 'mst' AS learner,
	   mrf_learn_mst_from('widep', NULL, rho => 2, columns => ARRAY['age', 'income', 'visit', 'zone', 'flag', 'city'],
						  bins => '{"age": [30, 45, 60], "income": {"min": 20000, "max": 80000, "width": 10000},
									"visit": ["2020-07-01", "2021-01-01", "2021-07-01"]}',
						  nulls => '{"zone": "category"}') AS m
UNION ALL
SELECT 'aim',
	   mrf_learn_aim_from('widep', NULL, rho => 2, columns => ARRAY['age', 'income', 'visit', 'zone', 'flag', 'city'],
						  bins => '{"age": [30, 45, 60], "income": {"min": 20000, "max": 80000, "width": 10000},
									"visit": ["2020-07-01", "2021-01-01", "2021-07-01"]}',
						  nulls => '{"zone": "category"}');
SELECT is((SELECT array_agg(name || ':' || cardinality(labels) ORDER BY i) FROM mrf_variables((SELECT m FROM widep_m WHERE learner = 'mst'))),
		  ARRAY['age:4', 'income:8', 'visit:4', 'zone:6', 'flag:2', 'city:1000'],
		  'the alphabets: bins, a CHECK range with a NULL category, a boolean, the 1,000-value CHECK list');
SELECT is((SELECT array_agg((mrf_info(m) ->> 'rows')::int ORDER BY learner) FROM widep_m), ARRAY[20000, 20000],
		  'MST and AIM read every row');
SELECT cmp_ok((SELECT max((mrf_info(m) -> 'substituted_rows' ->> 'noisy_count')::int) FROM widep_m), '<', 40,
			  'no row substituted (noisy counts near 0): NULL zones read as their category');
RESET ROLE;
SELECT is((SELECT spent_rho FROM mrfdp.budget_status WHERE relation = 'widep'::regclass) >= 4, true,
		  'both releases charged to the table''s budget');
SET ROLE mrfdp_tap_analyst;

-- synthetic tables in the source's types
SELECT is(mrf_synthesize_into((SELECT m FROM widep_m WHERE learner = 'mst'), 'widep_mst', 20000, seed => 1), 20000::bigint,
		  'MST: 20,000 synthetic rows');
SELECT is(mrf_synthesize_into((SELECT m FROM widep_m WHERE learner = 'aim'), 'widep_aim', 20000, seed => 1), 20000::bigint,
		  'AIM: 20,000 synthetic rows');
SELECT is((SELECT array_agg(attname || ' ' || format_type(atttypid, atttypmod) ORDER BY attnum) FROM pg_attribute
		   WHERE attrelid = t::regclass AND attnum > 0),
		  ARRAY['age integer', 'income numeric', 'visit date', 'zone integer', 'flag boolean', 'city text'],
		  format('%s: the columns'' names and types', t))
FROM (VALUES ('widep_mst'), ('widep_aim')) v(t);
SELECT ok((SELECT count(*) FILTER (WHERE city !~ '^city [0-9]+$' OR substr(city, 6)::int > 999) = 0
				  AND count(DISTINCT city) > 300 FROM widep_mst),
		  'MST: synthetic cities are values of the CHECK list, over 300 of them');
SELECT ok((SELECT count(*) FILTER (WHERE zone IS NULL)::float8 / count(*) BETWEEN 0.03 AND 0.07 FROM widep_aim),
		  'AIM: about 5% NULL zones, as in the data');
SELECT ok((SELECT count(*) FILTER (WHERE zone = substr(city, 6)::int % 5)::float8 / count(*) > 0.55 FROM widep_mst),
		  'MST: zone = city mod 5 above 0.55 (data 0.8, independence 0.2)');
SELECT ok((SELECT count(*) FILTER (WHERE zone = substr(city, 6)::int % 5)::float8 / count(*) > 0.55 FROM widep_aim),
		  'AIM: zone = city mod 5 above 0.55');
SELECT ok((SELECT avg(income) FILTER (WHERE age >= 60) - avg(income) FILTER (WHERE age < 30) > 20000 FROM widep_aim),
		  'AIM: the income grows with the age (data: about 40,000 between the end bins)');
SELECT ok((SELECT min(visit) >= date '2020-01-01' - 365 AND max(visit) <= date '2021-07-01' + 365 FROM widep_mst),
		  'MST: visits are dates near the bins'' edges');
RESET ROLE;

DROP TABLE widep, widep_mst, widep_aim CASCADE;
SELECT * FROM finish();
