-- server: session_preload
-- Domains without hand-written lists (issue 24 item 3): integer ranges
-- {"min": a, "max": b}, a default "*" for every other column, and the
-- alphabet of a column read from its CHECK constraint (IN, BETWEEN, bounds;
-- on the table or on the column's domain type), a public schema fact.
-- Precedence: the column's own entry in domains, then its CHECK
-- constraints, then "*".  Errors name the column; hints give an example of
-- the column's own type.
BEGIN;
SELECT plan(26);
SET LOCAL mrfdp.test_seed = 24;

CREATE DOMAIN ds_level AS int CHECK (VALUE IN (10, 20, 30));
CREATE TEMP TABLE ds (
	score smallint CHECK (score BETWEEN 1 AND 5),
	color varchar(5) CHECK (color IN ('red', 'green', 'blue')),
	code char(2) CHECK (code IN ('a', 'bb')),
	level ds_level,
	d int CHECK (d > 0) CHECK (d < 4),
	grade int);
-- score follows color (red -> 1/2, green -> 3, blue -> 4/5); level follows d
INSERT INTO ds
SELECT CASE g % 3 WHEN 0 THEN 1 + (g / 3) % 2 WHEN 1 THEN 3 ELSE 4 + (g / 3) % 2 END,
	   (ARRAY['red', 'green', 'blue'])[1 + g % 3],
	   (ARRAY['a', 'bb'])[1 + (g * 7919) % 2],
	   (ARRAY[10, 20, 30])[1 + (g / 5) % 3],
	   1 + (g / 5) % 3,
	   g % 4
FROM generate_series(1, 3000) g;

CREATE TEMP TABLE ds_model AS
SELECT mrf_learn_mst(ds, rho => 10, domains => '{"grade": {"min": 0, "max": 3}}') AS m FROM ds;
SELECT results_eq($$SELECT i, name, labels FROM mrf_variables((SELECT m FROM ds_model))$$,
	$$VALUES (1, 'score'::text, ARRAY['1', '2', '3', '4', '5']), (2, 'color', ARRAY['red', 'green', 'blue']),
			 (3, 'code', ARRAY['a', 'bb']), (4, 'level', ARRAY['10', '20', '30']), (5, 'd', ARRAY['1', '2', '3']),
			 (6, 'grade', ARRAY['0', '1', '2', '3'])$$,
	'CHECK constraints (BETWEEN, IN on varchar and character, a domain type''s IN, two bounds) and a range give the alphabets');
-- accuracy: the learned model keeps what the data says through the CHECK alphabets
SELECT cmp_ok((SELECT count(*) FROM mrf_synthesize((SELECT m FROM ds_model), 2000, NULL::ds, seed => 3) s
			   WHERE (s.color = 'green') = (s.score = 3))::int, '>', 1800,
			  'samples keep score 3 with green in more than 90% of rows');
SELECT cmp_ok((SELECT count(*) FROM mrf_synthesize((SELECT m FROM ds_model), 2000, NULL::ds, seed => 4) s
			   WHERE s.level = 10 * s.d)::int, '>', 1800,
			  'samples keep level = 10 d (a domain type''s alphabet and a bounded integer) in more than 90% of rows');
SELECT is((SELECT count(*) FROM mrf_synthesize((SELECT m FROM ds_model), 500, NULL::ds, seed => 5) s
		   WHERE s.score NOT BETWEEN 1 AND 5 OR s.grade NOT BETWEEN 0 AND 3), 0::bigint,
		  'samples stay inside the alphabets');

-- the column's own entry wins over its CHECK; "*" covers the others
SELECT is((SELECT labels FROM mrf_variables((SELECT mrf_learn_mst(ds, rho => 1,
		   domains => '{"score": [5, 4, 3, 2, 1], "grade": [0, 1, 2, 3]}') FROM ds)) WHERE name = 'score'),
		  ARRAY['5', '4', '3', '2', '1'], 'a column named in domains keeps its list over its CHECK');
SELECT is((SELECT array_agg(array_length(labels, 1) ORDER BY i) FROM mrf_variables((SELECT mrf_learn_mst(ds, rho => 1,
		   domains => '{"*": {"min": 0, "max": 3}}') FROM ds))),
		  ARRAY[5, 3, 2, 3, 3, 4], '"*" gives the columns without an entry or a CHECK their domain');
SELECT is((SELECT labels FROM mrf_variables((SELECT mrf_learn_mst(t, rho => 1, domains => '{"*": ["x", "y"]}')
		   FROM (SELECT 'x'::text AS a, 'y'::text AS b FROM generate_series(1, 10)) t)) WHERE name = 'b'),
		  ARRAY['x', 'y'], '"*" alone declares every text column');

-- refusals name the column
SELECT throws_ok($$SELECT mrf_learn_mst(ds, rho => 1, domains => '{"grde": [0, 1, 2, 3]}') FROM ds$$,
				 '42703', 'mrf_learn_mst: option domains names column "grde", which the rows do not have',
				 'a misspelt column is reported as unknown (42703), before the type error of the real column');
SELECT throws_ok($$SELECT mrf_learn_mst(ds, rho => 1) FROM ds$$, '42804', NULL,
				 'an integer column with neither a domain nor a CHECK is refused');
CREATE FUNCTION pg_temp.hint_of(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE h text;
BEGIN
	EXECUTE q;
	RETURN NULL;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS h = PG_EXCEPTION_HINT;
	RETURN h;
END $f$;
SELECT matches(pg_temp.hint_of($$SELECT mrf_learn_mst(ds, rho => 1) FROM ds$$),
			   'domains => ''\{"grade": \{"min": 1, "max": 5\}\}''.*CHECK \(grade BETWEEN 1 AND 5\)',
			   'the hint for an integer column gives a range of integers and a CHECK, not ["a", "b"]');
SELECT matches(pg_temp.hint_of($$SELECT mrf_learn_mst(t, rho => 1) FROM (SELECT 'x'::text AS word, true AS b) t$$),
			   'domains => ''\{"word": \["a", "b"\]\}''.*CHECK \(word IN',
			   'the hint for a text column gives a list of strings');
CREATE TEMP TABLE ds_one (a int CHECK (a IN (3)), b boolean);
INSERT INTO ds_one VALUES (3, true), (3, false);
SELECT throws_ok($$SELECT mrf_learn_mst(ds_one, rho => 1) FROM ds_one$$, '22023',
				 'mrf_learn_mst: the CHECK constraint of column "a" allows 1 value; a column''s alphabet has from 2 to 4096',
				 'a one-value CHECK is refused, naming the column');
CREATE TEMP TABLE ds_wide (a int CHECK (a BETWEEN 0 AND 5000), b boolean);
INSERT INTO ds_wide VALUES (3, true), (4, false);
SELECT throws_ok($$SELECT mrf_learn_mst(ds_wide, rho => 1) FROM ds_wide$$, '22023',
				 'mrf_learn_mst: the CHECK constraint of column "a" allows 5001 values; a column''s alphabet has from 2 to 4096',
				 'a CHECK range wider than 4,096 values is refused, naming the column');
SELECT is((SELECT labels FROM mrf_variables((SELECT mrf_learn_mst(ds_wide, rho => 1, domains => '{"a": {"min": 3, "max": 4}}')
		   FROM ds_wide)) WHERE name = 'a'), ARRAY['3', '4'], 'the column''s own entry replaces a too wide CHECK');
CREATE TEMP TABLE ds_or (a text CHECK (a = 'x' OR a = 'y'), b boolean);
INSERT INTO ds_or VALUES ('x', true);
SELECT throws_ok($$SELECT mrf_learn_mst(ds_or, rho => 1) FROM ds_or$$, '42804', NULL,
				 'a CHECK that is not an IN list or bounds (OR) gives no alphabet');
SELECT throws_ok($$SELECT mrf_options(domains => '{"state": ["CA"]}')$$, '22023', NULL,
				 'a one-value domain is refused');

-- the options' shapes (fuzz): each refused with 22023 and the column named
CREATE FUNCTION pg_temp.detail_of(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE d text; s text;
BEGIN
	EXECUTE q;
	RETURN NULL;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL, s = RETURNED_SQLSTATE;
	RETURN s || ': ' || d;
END $f$;
SELECT is(pg_temp.detail_of($$SELECT mrf_options(domains => '{"state": ["CA"]}')$$),
		  '22023: The domain of column "state" lists 1 value; a domain has from 2 to 4096.', 'one value: names the column');
SELECT is(pg_temp.detail_of($$SELECT mrf_options(domains => '{"s": {"min": 1, "max": 1}}')$$),
		  '22023: The range of column "s" has 1 value; a domain has from 2 to 4096 (min < max).', 'a one-value range');
SELECT is(pg_temp.detail_of($$SELECT mrf_options(domains => '{"s": {"min": 5, "max": 1}}')$$),
		  '22023: The range of column "s" has 0 values; a domain has from 2 to 4096 (min < max).', 'an empty range');
SELECT is(pg_temp.detail_of($$SELECT mrf_options(domains => '{"s": {"min": -1e300, "max": 1e300}}')$$),
		  '22023: The range of column "s" must have integer bounds min and max.', 'a huge range');
SELECT is(pg_temp.detail_of($$SELECT mrf_options(domains => '{"s": {"min": 1.5, "max": 3}}')$$),
		  '22023: The range of column "s" must have integer bounds min and max.', 'a fractional bound');
SELECT is(pg_temp.detail_of($$SELECT mrf_options(domains => '{"s": {"min": "1", "max": 3}}')$$),
		  '22023: The domain of column "s" must be an array of its values or an integer range like {"min": 1, "max": 10}.',
		  'a bound that is a string');
SELECT is(pg_temp.detail_of($$SELECT mrf_options(domains => '{"s": {"min": 1, "max": 3, "step": 1}}')$$),
		  '22023: The domain of column "s" must be an array of its values or an integer range like {"min": 1, "max": 10}.',
		  'an unknown key in a range');
SELECT is(pg_temp.detail_of($$SELECT mrf_options(domains => '{"s": []}')$$),
		  '22023: The domain of column "s" lists 0 values; a domain has from 2 to 4096.', 'an empty list');
SELECT is(pg_temp.detail_of($$SELECT mrf_options(domains => '{"s": [1, null]}')$$),
		  '22023: The values of column "s" must be strings or numbers.', 'a null value');
SELECT is(pg_temp.detail_of($$SELECT mrf_options(domains => '{"s": "check"}')$$),
		  '22023: The domain of column "s" must be an array of its values or an integer range like {"min": 1, "max": 10}.',
		  'a word');

SELECT * FROM finish();
ROLLBACK;
