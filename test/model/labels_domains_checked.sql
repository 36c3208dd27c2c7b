-- server: session_preload
-- Review findings of issue 11 (session 3): (1) a declared domain of an
-- integer, "char" or character column listing a value no value of the type
-- can equal ("01", 1.5, 1.0, out of range) would make every row with that
-- value silently different (a substituted row on the protected path): it
-- is refused with the column named, from the types and options alone;
-- (2) a model's labels must name every value of each variable's alphabet,
-- or mrf_synthesize would emit NULLs for the codes without one: the text
-- form's reader refuses shorter label lists (22P02).
BEGIN;
SELECT plan(13);
CREATE TEMP TABLE ld_rows_two (s smallint, i int);
CREATE TEMP TABLE ld_rows (s smallint, i int, c "char", b character(3), t text);
INSERT INTO ld_rows SELECT g % 2, (ARRAY[0, 1, -2])[1 + g % 3], chr(97 + g % 2)::"char", 'x', 'y' FROM generate_series(1, 50) g;

CREATE FUNCTION pg_temp.learn(dom text) RETURNS mrf LANGUAGE plpgsql AS $$
DECLARE
	m mrf;
BEGIN
	EXECUTE format('SELECT mrf_learn_pairwise(r, rho => 1, domains => %L) FROM ld_rows r', dom) INTO m;
	RETURN m;
END $$;
-- valid declarations of every column: the baseline learns
SELECT is(pg_temp.learn('{"s": [0, 1], "i": [0, "1", -2], "c": ["a", "b"], "b": ["x", "y  z"], "t": ["y", "01"]}')::jsonb->'alphabets',
			'[2, 3, 2, 2, 2]'::jsonb, 'canonical integers (numbers or strings), one-byte "char" values and any text are accepted');
SELECT throws_ok($$SELECT pg_temp.learn('{"s": [0, 1], "i": [0, 1.5, 2], "c": ["a", "b"], "b": ["x", "y"], "t": ["y", "z"]}')$$,
				 '22023', 'mrf_learn_pairwise: the domain of column "i" lists "1.5", which no value of type integer can equal',
				 'integer column: 1.5 is refused, the column named');
SELECT throws_ok($$SELECT pg_temp.learn('{"s": [0, 1], "i": [0, 1.0, 2], "c": ["a", "b"], "b": ["x", "y"], "t": ["y", "z"]}')$$,
				 '22023', NULL, 'integer column: 1.0 (written "1.0") is refused');
SELECT throws_ok($$SELECT pg_temp.learn('{"s": [0, 1], "i": [0, "01", 2], "c": ["a", "b"], "b": ["x", "y"], "t": ["y", "z"]}')$$,
				 '22023', NULL, 'integer column: "01" is refused');
SELECT throws_ok($$SELECT pg_temp.learn('{"s": [0, 1], "i": [0, "+1", 2], "c": ["a", "b"], "b": ["x", "y"], "t": ["y", "z"]}')$$,
				 '22023', NULL, 'integer column: "+1" is refused');
SELECT throws_ok($$SELECT pg_temp.learn('{"s": [0, 1], "i": [0, "1e0", 2], "c": ["a", "b"], "b": ["x", "y"], "t": ["y", "z"]}')$$,
				 '22023', NULL, 'integer column: the string "1e0" is refused');
SELECT throws_ok($$SELECT pg_temp.learn('{"s": [0, 40000], "i": [0, 1, 2], "c": ["a", "b"], "b": ["x", "y"], "t": ["y", "z"]}')$$,
				 '22023', 'mrf_learn_pairwise: the domain of column "s" lists "40000", which no value of type smallint can equal',
				 'smallint column: a value beyond its range is refused');
SELECT throws_ok($$SELECT pg_temp.learn('{"s": [0, 1], "i": [0, 1, 2], "c": ["a", "bb"], "b": ["x", "y"], "t": ["y", "z"]}')$$,
				 '22023', NULL, '"char" column: a two-byte value is refused');
SELECT throws_ok($$SELECT pg_temp.learn('{"s": [0, 1], "i": [0, 1, 2], "c": ["a", "b"], "b": ["x", "y "], "t": ["y", "z"]}')$$,
				 '22023', NULL, 'character column: a value with trailing blanks is refused (they never count)');

-- labels: one per value of each variable's alphabet
SELECT throws_ok($$SELECT '{"kind": "pairwise", "p": 2, "k": 3, "alphabets": [2, 3],
	"weights": [[[[0,0,0],[0,0,0],[0,0,0]], [[0,0,0],[0,0,0],[0,0,0]]], [[[0,0,0],[0,0,0],[0,0,0]], [[0,0,0],[0,0,0],[0,0,0]]]],
	"fields": [[0,0,0],[0,0,0]],
	"meta": {"variables": [{"name": "x", "labels": ["a", "b"]}, {"name": "y", "labels": ["c", "d"]}]}}'::mrf$$,
				 '22P02', NULL, 'pairwise: labels shorter than k_i = 3 are refused when the model is read');
SELECT throws_ok($$SELECT '{"kind": "ising", "p": 2, "weights": [[0, 0], [0, 0]], "fields": [0, 0],
	"meta": {"variables": [{"name": "x", "labels": ["a"]}, {"name": "y", "labels": ["c", "d"]}]}}'::mrf$$,
				 '22P02', NULL, 'ising: one label for a binary variable is refused');
SELECT lives_ok($$SELECT '{"kind": "pairwise", "p": 2, "k": 3, "alphabets": [2, 3],
	"weights": [[[[0,0,0],[0,0,0],[0,0,0]], [[0,0,0],[0,0,0],[0,0,0]]], [[[0,0,0],[0,0,0],[0,0,0]], [[0,0,0],[0,0,0],[0,0,0]]]],
	"fields": [[0,0,0],[0,0,0]],
	"meta": {"variables": [{"name": "x", "labels": ["a", "b"]}, {"name": "y", "labels": ["c", "d", null]}]}}'::mrf$$,
				 'pairwise: labels of exactly k_i values (a null label included) are read');
SELECT is((SELECT count(*) FROM mrf_synthesize('{"kind": "ising", "p": 2, "weights": [[0, 0], [0, 0]], "fields": [0, 0],
	"meta": {"variables": [{"name": "s", "labels": ["0", "1"]}, {"name": "i", "labels": ["0", "1"]}]}}'::mrf,
	200, NULL::ld_rows_two, seed => 1) WHERE s IS NULL OR i IS NULL), 0::bigint,
		  'a model read with full labels synthesizes no NULL');
SELECT * FROM finish();
ROLLBACK;
