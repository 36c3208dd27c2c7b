-- server: session_preload
-- Numeric, integer, date and timestamp columns by public bins (issue 24 item
-- 2): edges give (-inf, e1), [e1, e2), ..., [em, inf); min/max/width give
-- equal bins with open end bins.  The labels are the bins; the alphabet
-- never comes from the data.  mrf_synthesize and mrf_synthesize_into give
-- values of the column's own type drawn within the bin (uniform; whole
-- values for integers, dates, timestamps; the open end bins at their finite
-- edge).
BEGIN;
SELECT plan(39);
SET LOCAL mrfdp.test_seed = 24;
-- labels and edges never follow the session's zone
SET LOCAL TimeZone = 'America/New_York';

CREATE TEMP TABLE bp (age int, income numeric(10, 2), hours float8, born date, seen timestamptz,
					  stamp timestamp, smoker boolean);
-- income and born follow age; smoker follows age; hours and seen are noise
INSERT INTO bp
SELECT a, a * 3000 + (g % 7) * 100.5, 20 + (g * 7919) % 40, date '2024-06-01' - a * 365 - (g % 300),
	   timestamptz '2024-01-01 00:00+00' + ((g * 104729) % 24) * interval '1 hour',
	   timestamp '2024-01-01' + (g % 48) * interval '30 minutes', a >= 50
FROM (SELECT g, 15 + g % 60 AS a FROM generate_series(1, 6000) g) s;

CREATE TEMP TABLE bp_model AS
SELECT mrf_learn_mst(p, rho => 20, 
						   bins => '{"age": [18, 25, 35, 50, 65], "income": {"min": 0, "max": 200000, "width": 20000}, "hours": [30, 45],
						   	  "born": ["1950-01-01", "1970-01-01", "1990-01-01"], "seen": ["2024-01-01 06:00+00", "2024-01-01 18:00+00"],
						   	  "stamp": {"min": "2024-01-01", "max": "2024-01-02", "width": "6 hours"}}') AS m FROM bp p;

SELECT results_eq($$SELECT name, labels FROM mrf_variables((SELECT m FROM bp_model)) ORDER BY i$$,
	$$VALUES ('age'::text, ARRAY['(-inf,18)', '[18,25)', '[25,35)', '[35,50)', '[50,65)', '[65,inf)']),
			 ('income', ARRAY['(-inf,0)', '[0,20000)', '[20000,40000)', '[40000,60000)', '[60000,80000)', '[80000,100000)',
							  '[100000,120000)', '[120000,140000)', '[140000,160000)', '[160000,180000)', '[180000,200000)',
							  '[200000,inf)']),
			 ('hours', ARRAY['(-inf,30)', '[30,45)', '[45,inf)']),
			 ('born', ARRAY['(-inf,1950-01-01)', '[1950-01-01,1970-01-01)', '[1970-01-01,1990-01-01)', '[1990-01-01,inf)']),
			 ('seen', ARRAY['(-inf,2024-01-01 06:00:00+00)', '[2024-01-01 06:00:00+00,2024-01-01 18:00:00+00)',
							'[2024-01-01 18:00:00+00,inf)']),
			 ('stamp', ARRAY['(-inf,2024-01-01 00:00:00)', '[2024-01-01 00:00:00,2024-01-01 06:00:00)',
							 '[2024-01-01 06:00:00,2024-01-01 12:00:00)', '[2024-01-01 12:00:00,2024-01-01 18:00:00)',
							 '[2024-01-01 18:00:00,2024-01-02 00:00:00)', '[2024-01-02 00:00:00,inf)']),
			 ('smoker', ARRAY['false', 'true'])$$,
	'edges and equal bins give the labels, in bin order, timestamps written in UTC');
SELECT is((SELECT m::jsonb->'alphabets' FROM bp_model), '[6, 12, 3, 4, 3, 6, 2]'::jsonb,
		  'each binned column has its bins as its alphabet');

-- synthetic rows: the source's types, values within their bins
CREATE TEMP TABLE bp_syn AS SELECT * FROM mrf_synthesize((SELECT m FROM bp_model), 6000, NULL::bp, seed => 1);
CREATE TEMP TABLE bp_syn2 AS SELECT * FROM mrf_synthesize((SELECT m FROM bp_model), 6000, NULL::bp, seed => 2);
CREATE FUNCTION pg_temp.age_bin(a int) RETURNS int LANGUAGE sql IMMUTABLE
	AS $$SELECT width_bucket(a, ARRAY[18, 25, 35, 50, 65])$$;
SELECT is((SELECT count(*) FROM bp_syn WHERE age < 18 AND age <> 17), 0::bigint,
		  'the first open bin of an integer column is its largest value below the edge (17)');
SELECT is((SELECT count(*) FROM bp_syn WHERE age >= 65 AND age <> 65), 0::bigint,
		  'the last open bin is its finite edge (65)');
SELECT cmp_ok((SELECT count(DISTINCT age) FROM bp_syn WHERE age >= 25 AND age < 35)::int, '=', 10,
			  'values of a finite bin are drawn across it (every integer of [25, 35) appears)');
SELECT cmp_ok((SELECT max(abs(s.c - d.c)) FROM
				(SELECT pg_temp.age_bin(age) b, count(*) / 6000.0 c FROM bp_syn GROUP BY 1) s
				JOIN (SELECT pg_temp.age_bin(age) b, count(*) / 6000.0 c FROM bp GROUP BY 1) d USING (b)), '<', 0.03,
			  'seed 1: every age bin''s share within 0.03 of the data''s');
SELECT cmp_ok((SELECT max(abs(s.c - d.c)) FROM
				(SELECT pg_temp.age_bin(age) b, count(*) / 6000.0 c FROM bp_syn2 GROUP BY 1) s
				JOIN (SELECT pg_temp.age_bin(age) b, count(*) / 6000.0 c FROM bp GROUP BY 1) d USING (b)), '<', 0.03,
			  'seed 2: every age bin''s share within 0.03 of the data''s');
SELECT cmp_ok((SELECT corr(age, income::float8) FROM bp_syn), '>', 0.85::float8,
			  'seed 1: income follows age through the bins (correlation > 0.85; the data''s is 1.0)');
SELECT cmp_ok((SELECT corr(age, income::float8) FROM bp_syn2), '>', 0.85::float8,
			  'seed 2: income follows age');
SELECT cmp_ok((SELECT corr(age, extract(epoch FROM born::timestamp)::float8) FROM bp_syn), '<', -0.8::float8,
			  'the birth date follows age (date bins)');
SELECT cmp_ok((SELECT avg(CASE WHEN smoker = (age >= 50) THEN 1 ELSE 0 END) FROM bp_syn), '>', 0.95,
			  'smoker follows age''s bins in more than 95% of synthetic rows');
SELECT is((SELECT count(*) FROM bp_syn WHERE born NOT BETWEEN '1949-12-31' AND '1990-01-01'
		   OR income < 0 OR income > 200000 OR seen < '2024-01-01 05:59:59.999999+00' OR seen > '2024-01-01 18:00+00'
		   OR hours < 30 OR hours > 45), 0::bigint,
		  'every synthetic value lies within its bin''s finite edges');
SELECT cmp_ok((SELECT count(DISTINCT seen) FROM bp_syn)::int, '>', 100,
			  'timestamps are drawn within their bin, not set to its edges');

-- a bin of an integer column wider than 2^64: its values are drawn within
-- its part of the column type's range (the span was cast to uint64,
-- undefined for 1e30, and came out 0 on x86-64: every value was the bin's
-- lower edge)
CREATE TEMP TABLE bw (b bigint, i int, ok boolean);
INSERT INTO bw SELECT g * 1000, g, g % 2 = 0 FROM generate_series(1, 2000) g;
CREATE TEMP TABLE bw_model AS
SELECT mrf_learn_mst(w, rho => 5, bins => '{"b": [0, 1e30], "i": [0, 1e30]}') AS m FROM bw w;
CREATE TEMP TABLE bw_syn AS SELECT * FROM mrf_synthesize((SELECT m FROM bw_model), 200, NULL::bw, seed => 1);
SELECT ok((SELECT count(DISTINCT b) FILTER (WHERE b >= 0) > 150 AND count(DISTINCT i) FILTER (WHERE i >= 0) > 150
		   FROM bw_syn),
		  'bins [0, 1e30) of a bigint and an integer column: values drawn across the part each type holds, not all at the lower edge');

-- mrf_synthesize_into: the source's schema
SELECT is(mrf_synthesize_into((SELECT m FROM bp_model), 'bp_into', 200, seed => 3), 200::bigint,
		  'mrf_synthesize_into fills a new table');
SELECT results_eq($$SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute
				   WHERE attrelid = 'bp_into'::regclass AND attnum > 0 ORDER BY attnum$$,
				  $$SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute
				   WHERE attrelid = 'bp'::regclass AND attnum > 0 ORDER BY attnum$$,
				  'the synthetic table has the source''s column names and types (numeric(10,2), date, timestamptz ...)');

-- NULLs of a binned column: the nulls policy, as for any column
CREATE TEMP TABLE bp_null AS SELECT CASE WHEN g % 5 = 0 THEN NULL ELSE g % 90 END AS age, g % 2 = 0 AS flag
FROM generate_series(1, 3000) g;
CREATE TEMP TABLE bp_null_model AS
SELECT mrf_learn_mst(t, rho => 10, bins => '{"age": [30, 60]}', nulls => 'category') AS m FROM bp_null t;
SELECT is((SELECT labels FROM mrf_variables((SELECT m FROM bp_null_model)) WHERE name = 'age'),
		  ARRAY['(-inf,30)', '[30,60)', '[60,inf)', NULL], 'nulls => category adds a NULL label to the bins');
SELECT cmp_ok((SELECT avg(CASE WHEN age IS NULL THEN 1.0 ELSE 0 END) FROM
				mrf_synthesize((SELECT m FROM bp_null_model), 3000, NULL::bp_null, seed => 4)), '>', 0.15,
			  'synthetic NULLs near the data''s 20%');
SELECT throws_ok($$SELECT mrf_learn_mst(t, rho => 1, bins => '{"age": [30, 60]}') FROM bp_null t$$, '22004', NULL,
				 'a NULL in a binned column is refused by default');
SELECT throws_ok($$SELECT mrf_learn_mst(t, rho => 1, bins => '{"x": [0]}')
				   FROM (SELECT 'NaN'::numeric AS x, true AS b) t$$, '23514',
				 'mrf_learn_mst: column "x" has a value outside its declared domain',
				 'a NaN has no bin: refused on the aggregate path, naming the column');

-- every learner of rows of columns takes bins
SELECT is((SELECT m::jsonb->'alphabets' FROM (SELECT mrf_learn_pairwise(t, rho => 1, bins => '{"age": [30, 60]}', nulls => '{"age": "category"}') m
		   FROM bp_null t) x), '[4, 2]'::jsonb, 'mrf_learn_pairwise takes bins');
SELECT is((SELECT m::jsonb->'alphabets' FROM (SELECT mrf_learn_aim(t, rho => 1, bins => '{"age": [30, 60]}', nulls => '{"age": "category"}') m
		   FROM bp_null t) x), '[4, 2]'::jsonb, 'mrf_learn_aim takes bins');
SELECT is((SELECT m::jsonb->'alphabets' FROM (SELECT mrf_learn_cliques(t, epsilon => 1, cliques => '[[1, 2]]', bins => '{"age": [30, 60]}', nulls => '{"age": "category"}') m
		   FROM bp_null t) x), '[4, 2]'::jsonb, 'mrf_learn_cliques takes bins');

-- refusals (fuzzed shapes): 22023 naming the column, or the type's own error with the column in its context
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE d text; s text; c text;
BEGIN
	EXECUTE q;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL, s = RETURNED_SQLSTATE, c = PG_EXCEPTION_CONTEXT;
	RETURN s || ': ' || coalesce(d, '') || CASE WHEN c LIKE '%option bins%' THEN ' [' || split_part(c, E'\n', 1) || ']' ELSE '' END;
END $f$;
SELECT is(pg_temp.err($$SELECT mrf_options(bins => '{"a": []}')$$), '22023: Column "a": give from 1 to 4095 edges (0 given).', 'no edges');
SELECT is(pg_temp.err($$SELECT mrf_options(bins => '{"a": [3, 2]}')$$), '22023: Column "a": edges must increase strictly.', 'decreasing edges');
SELECT is(pg_temp.err($$SELECT mrf_options(bins => '{"a": [1, 1]}')$$), '22023: Column "a": edges must increase strictly.', 'a repeated edge');
SELECT is(pg_temp.err($$SELECT mrf_options(bins => '{"a": [1e400]}')$$), '22023: Column "a": edges must be finite numbers.', 'an edge beyond float8');
SELECT is(pg_temp.err($$SELECT mrf_options(bins => '{"a": {"min": 0, "max": 1e9, "width": 1}}')$$),
		  '22023: Column "a": min, max and width give 1000000002 bins; a column has at most 4096 (with the two open end bins).', 'a huge range');
SELECT is(pg_temp.err($$SELECT mrf_options(bins => '{"a": {"min": 0, "max": 10, "width": 0}}')$$),
		  '22023: Column "a": the width must be a finite number greater than zero.', 'a zero width');
SELECT is(pg_temp.err($$SELECT mrf_options(bins => '{"a": {"min": 5, "max": 5, "width": 1}}')$$),
		  '22023: Column "a": min must be less than max, both finite.', 'min = max');
SELECT is(pg_temp.err($$SELECT mrf_options(bins => '{"a": {"min": 0, "max": 10}}')$$),
		  '22023: Column "a": equal bins are an object of exactly min, max and width.', 'a missing width');
SELECT is(pg_temp.err($$SELECT mrf_options(bins => '{"*": [1]}')$$), '22023: Bins name their columns ("*" is for domains).', '"*" in bins');
SELECT is(pg_temp.err($$SELECT mrf_options(bins => '[1, 2]')$$),
		  '22023: The value must be an object naming columns, e.g. ''{"age": [18, 25, 35, 50, 65], "income": {"min": 0, "max": 200000, "width": 10000}}''.',
		  'not an object');
SELECT is(pg_temp.err($$SELECT mrf_learn_mst(t, rho => 1, bins => '{"w": [1]}') FROM (SELECT 'x'::text AS w, true AS b) t$$),
		  '42804: Bins are for integer, numeric, real, double precision, date and timestamp columns.', 'bins on a text column');
SELECT is(pg_temp.err($$SELECT mrf_learn_mst(t, rho => 1, bins => '{"d": [1]}') FROM (SELECT current_date AS d, true AS b) t$$),
		  '22023: Column "d": edges of a date or timestamp column are strings, e.g. "2020-01-01".', 'a number edge for a date');
SELECT is(pg_temp.err($$SELECT mrf_learn_mst(t, rho => 1, bins => '{"d": ["2020-13-01"]}') FROM (SELECT current_date AS d, true AS b) t$$),
		  '22008:  [option bins, column "d"]', 'a bad date is the date type''s error, with the column named');
SELECT is(pg_temp.err($$SELECT mrf_learn_mst(t, rho => 1, bins => '{"d": {"min": "2020-01-01", "max": "2021-01-01", "width": "1 month"}}') FROM (SELECT current_date AS d, true AS b) t$$),
		  '22023: Column "d": a width in months or years has no fixed length: give days ("30 days").', 'a width in months');
SELECT is(pg_temp.err($$SELECT mrf_learn_mst(t, rho => 1, bins => '{"a": [1.5]}') FROM (SELECT 1 AS a, true AS b) t$$),
		  '22023: Column "a": the edges of an integer column''s bins are integers.', 'a fractional edge for an integer column');
SELECT throws_ok($$SELECT mrf_learn_mst(t, rho => 1, domains => '{"a": [1, 2]}', bins => '{"a": [1]}') FROM (SELECT 1 AS a, true AS b) t$$,
				 '22023', 'column "a" has both a domain and bins', 'a column with both a domain and bins');

SELECT * FROM finish();
ROLLBACK;
