-- server: session_preload
-- Declared domains and NULL policies on the protected path, under values
-- meant to make the read fail (adversarial review of issue 11): a 100 kB
-- text, a "char" of byte 1 and of byte 0, a blank character(3), varchar
-- with a trailing blank, int8 extremes, NULLs everywhere, values outside
-- every domain.  Every learner that takes domains (pairwise, cliques,
-- structure with model 'pairwise', MST) reads such a relation without an
-- error, charged once, exactly as it reads the same relation without those
-- rows; a refusal (from the options and the schema) is the same message on
-- both, charged nothing.  Not in a transaction; cleans up at the end.
SELECT plan(15);

\ir ../lib/protected.psql
SET client_min_messages = warning;
DROP TABLE IF EXISTS dpv_clean, dpv_dirty CASCADE;
DROP TYPE IF EXISTS dpv_vote CASCADE;
SET mrfdp.test_seed = 57;
CREATE TYPE dpv_vote AS ENUM ('n', 'y', 'maybe');
CREATE TABLE dpv_clean (state text, band int, c "char", code varchar(5), flag boolean, v dpv_vote,
						ch char(3), big bigint, small smallint);
INSERT INTO dpv_clean
SELECT (ARRAY['CA', 'NY', 'TX'])[1 + g % 3], g % 3, (ARRAY['a', 'b'])[1 + g % 2]::"char",
	   (ARRAY['x', 'y'])[1 + g % 2], g % 2 = 0, (ARRAY['n', 'y', 'maybe'])[1 + g % 3]::dpv_vote,
	   (ARRAY['ab', 'cd'])[1 + g % 2], g % 2, g % 2
FROM generate_series(1, 600) g;
CREATE TABLE dpv_dirty (LIKE dpv_clean);
INSERT INTO dpv_dirty SELECT * FROM dpv_clean;
INSERT INTO dpv_dirty VALUES
	('ZZ-secret', 99, 'z', 'zzzzz', NULL, NULL, 'zz', 9223372036854775807, -32768),
	(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(repeat('x', 100000), -1, E'\\001', '', true, 'y', '   ', -9223372036854775808, 0),
	(E'\u00e9t\u00e9', 0, '', 'NY ', true, 'y', 'ab ', 0, 0),
	('CA ', 1, 'a', 'x', true, 'y', 'cd', 1, 1);
SELECT pg_temp.protect_for_analyst('dpv_clean', epsilon => 1000, delta => 1e-3, rho_cap => 100);
SELECT pg_temp.protect_for_analyst('dpv_dirty', epsilon => 1000, delta => 1e-3, rho_cap => 100);

-- each call on both relations: 'ok' or SQLSTATE, message, detail and hint
CREATE FUNCTION pg_temp.dpv_outcome(call text, rel text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
	hin text;
BEGIN
	EXECUTE format(call, rel);
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL, hin = PG_EXCEPTION_HINT;
	RETURN concat_ws(' | ', st, replace(msg, rel, 'REL'), det, hin);
END $$;
CREATE TEMP TABLE dpv_calls (name text, call text, expected text);
GRANT SELECT ON dpv_calls TO mrfdp_tap_analyst;
INSERT INTO dpv_calls VALUES
('pairwise, nulls per column', $q$SELECT mrf_learn_pairwise_from(%L, NULL, rho => 0.5, domains => '{"state": ["CA", "NY", "TX"], "band": [0, 1, 2], "c": ["a", "b"], "code": ["x", "y"], "ch": ["ab", "cd"], "big": [0, 1], "small": [0, 1]}', nulls => '{"state": "error", "*": "category", "v": {"value": "n"}}')$q$, 'ok'),
('cliques, nulls category', $q$SELECT mrf_learn_cliques_from(%L, NULL, cliques => '[[1, 2], [3, 4], [5, 6, 7], [8, 9]]', epsilon => 1, domains => '{"state": ["CA", "NY", "TX"], "band": [0, 1, 2], "c": ["a", "b"], "code": ["x", "y"], "ch": ["ab", "cd"], "big": [0, 1], "small": [0, 1]}', nulls => 'category')$q$, 'ok'),
('structure pairwise, nulls error', $q$SELECT mrf_learn_structure_from(%L, NULL, model => 'pairwise', method => 'threshold', rho => 0.5, eta => 0.1, domains => '{"state": ["CA", "NY", "TX"], "band": [0, 1, 2], "c": ["a", "b"], "code": ["x", "y"], "ch": ["ab", "cd"], "big": [0, 1], "small": [0, 1]}')$q$, 'ok'),
('MST, a declared NULL value', $q$SELECT mrf_learn_mst_from(%L, NULL, rho => 0.5, domains => '{"state": ["CA", "NY", "TX"], "band": [0, 1, 2], "c": ["a", "b"], "code": ["x", "y"], "ch": ["ab", "cd"], "big": [0, 1], "small": [0, 1]}', nulls => '{"*": "error", "big": 0, "flag": "true"}')$q$, 'ok'),
('refused: a NULL value outside the column''s domain', $q$SELECT mrf_learn_pairwise_from(%L, NULL, rho => 0.5, domains => '{"state": ["CA", "NY", "TX"], "band": [0, 1, 2], "c": ["a", "b"], "code": ["x", "y"], "ch": ["ab", "cd"], "big": [0, 1], "small": [0, 1]}', nulls => '{"state": "ZZ-secret", "*": "category"}')$q$, '22023'),
('refused: a column without a domain', $q$SELECT mrf_learn_mst_from(%L, NULL, rho => 0.5, domains => '{"state": ["CA", "NY", "TX"]}')$q$, '42804'),
('refused: a domain naming no column', $q$SELECT mrf_learn_cliques_from(%L, NULL, cliques => '[[1, 2]]', epsilon => 1, domains => '{"state": ["CA", "NY", "TX"], "band": [0, 1, 2], "c": ["a", "b"], "code": ["x", "y"], "ch": ["ab", "cd"], "big": [0, 1], "small": [0, 1], "secret": ["a", "b"]}')$q$, '42703');

SET ROLE mrfdp_tap_analyst;
CREATE TEMP TABLE dpv_results AS
SELECT name, expected, pg_temp.dpv_outcome(call, 'dpv_clean') AS clean, pg_temp.dpv_outcome(call, 'dpv_dirty') AS dirty
FROM dpv_calls;
RESET ROLE;

SELECT is(dirty, clean, name || ': the same outcome with and without the rows meant to fail')
FROM dpv_results ORDER BY name;
SELECT is(split_part(dirty, ' | ', 1), expected, name || ': ' || expected)
FROM dpv_results ORDER BY name;
-- four releases a relation; the refusals charged nothing
SELECT is((SELECT array_agg(releases ORDER BY relation::text) FROM mrfdp.budget
		   WHERE relation IN ('dpv_clean'::regclass, 'dpv_dirty'::regclass)), ARRAY[4, 4]::bigint[],
		  'four releases charged on each relation, none for the refusals');

DROP TABLE dpv_clean, dpv_dirty CASCADE;
DROP TYPE dpv_vote;
SELECT * FROM finish();
