-- server: session_preload
-- Synthetic tables from model text someone else wrote (adversarial review
-- of issue 11): the mrf type reads any "variables" (names, labels, types),
-- so mrf_synthesize_into must run nothing a model names with the caller's
-- rights, whatever the caller's search_path, and mrf_synthesize must not
-- pass values around the constraints of the row type's domains.
BEGIN;
SELECT plan(14);
SET LOCAL client_min_messages = warning;

-- a schema someone else can create in, holding their code
CREATE SCHEMA sh_other;
CREATE TABLE sh_other.ran (what text);
CREATE FUNCTION sh_other.check_value(text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO sh_other.ran VALUES ('domain check of ' || $1);
	RETURN true;
END $$;
CREATE DOMAIN sh_other.trojan AS text CHECK (sh_other.check_value(VALUE));
CREATE DOMAIN sh_other.short AS varchar(3);

-- 1. a domain named as a variable's type: its CHECK function never runs, the column gets the base type
SELECT lives_ok($$SELECT mrf_synthesize_into('{"kind": "ising", "p": 2, "weights": [[0, 0.5], [0.5, 0]], "fields": [0, 0],
				"meta": {"variables": [{"name": "a", "labels": ["n", "y"], "type": "sh_other.trojan"},
									   {"name": "b", "labels": ["false", "true"], "type": "boolean"}]}}'::mrf, 'sh_domain', 20, seed => 1)$$,
				'a model naming a domain synthesizes');
SELECT is((SELECT count(*) FROM sh_other.ran), 0::bigint, 'the domain''s CHECK function did not run');
SELECT is((SELECT string_agg(format_type(atttypid, atttypmod), ', ' ORDER BY attnum) FROM pg_attribute
		   WHERE attrelid = 'sh_domain'::regclass AND attnum > 0), 'text, boolean', 'the column has the domain''s base type');
SELECT lives_ok($$SELECT mrf_synthesize_into('{"kind": "ising", "p": 2, "weights": [[0, 0.5], [0.5, 0]], "fields": [0, 0],
				"meta": {"variables": [{"name": "a", "labels": ["n", "y"], "type": "sh_other.short"},
									   {"name": "b", "labels": ["false", "true"], "type": "boolean"}]}}'::mrf, 'sh_short', 5, seed => 1)$$,
				'a domain over varchar(3)');
SELECT is((SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'sh_short'::regclass AND attnum = 1),
		  'character varying(3)', 'keeps the domain''s typmod on its base type');

-- 2. types the learners never record are refused (one made format_type fail with XX000)
SELECT throws_ok($$SELECT mrf_synthesize_into('{"kind": "ising", "p": 2, "weights": [[0, 0], [0, 0]], "fields": [0, 0],
				 "meta": {"variables": [{"name": "a", "labels": ["1 day", "2 days"], "type": "pg_catalog.interval", "typmod": 123456},
										{"name": "b"}]}}'::mrf, 'sh_never', 5)$$,
				 '42804', NULL, 'a type the learners do not read (interval, a bad typmod) is refused');
SELECT throws_ok($$SELECT mrf_synthesize_into('{"kind": "ising", "p": 2, "weights": [[0, 0], [0, 0]], "fields": [0, 0],
				 "meta": {"variables": [{"name": "a", "labels": ["pg_class", "pg_proc"], "type": "pg_catalog.regclass"},
										{"name": "b"}]}}'::mrf, 'sh_never', 5)$$,
				 '42804', NULL, 'regclass is refused');

-- 3. operators declared on the caller's search_path are not the function's:
-- || on (text, integer) ran its function with the caller's rights; ->> on
-- (jsonb, jsonb) made 'kind' a JSON literal and the call failed.  (Only the
-- call runs under that search_path: pgTAP's own functions would find the
-- operators too.)
CREATE TEMP TABLE sh_result (call text, inserted bigint);
CREATE FUNCTION sh_other.cat(text, integer) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO sh_other.ran VALUES ('operator ||');
	RETURN $1 || $2::text;
END $$;
CREATE OPERATOR sh_other.|| (LEFTARG = text, RIGHTARG = integer, FUNCTION = sh_other.cat);
CREATE FUNCTION sh_other.synth(call text, tab text) RETURNS void LANGUAGE plpgsql
	SET search_path = sh_other, public AS $$
BEGIN
	INSERT INTO pg_temp.sh_result
	SELECT call, mrf_synthesize_into('{"kind": "ising", "p": 2, "weights": [[0, 0.5], [0.5, 0]], "fields": [0, 0]}'::mrf,
									 tab, 10, seed => 1);
EXCEPTION WHEN OTHERS THEN
	INSERT INTO pg_temp.sh_result VALUES (call, -1);
END $$;
SELECT sh_other.synth('||', 'public.sh_codes');
SELECT is((SELECT inserted FROM sh_result WHERE call = '||'), 10::bigint,
		  'a model without names, a schema with || (text, integer) first on search_path');
SELECT is((SELECT string_agg(what, ', ') FROM sh_other.ran WHERE what LIKE 'operator%'), NULL,
		  'the schema''s || did not run');
SELECT is((SELECT string_agg(attname, ', ' ORDER BY attnum) FROM pg_attribute WHERE attrelid = to_regclass('public.sh_codes') AND attnum > 0),
		  'x1, x2', 'columns x1, x2');
CREATE FUNCTION sh_other.arrow(jsonb, jsonb) RETURNS text LANGUAGE sql AS $$ SELECT $1 ->> ($2 #>> '{}') $$;
CREATE OPERATOR sh_other.->> (LEFTARG = jsonb, RIGHTARG = jsonb, FUNCTION = sh_other.arrow);
SELECT sh_other.synth('->>', 'public.sh_codes_2');
SELECT is((SELECT inserted FROM sh_result WHERE call = '->>'), 10::bigint,
		  'a schema with ->> (jsonb, jsonb) first on search_path');

-- 4. mrf_synthesize: a NULL (the missing-value category) or a coded boolean goes through the domain's input
CREATE DOMAIN sh_required AS text NOT NULL;
CREATE DOMAIN sh_true AS boolean CHECK (VALUE);
CREATE TABLE sh_strict (a sh_required, b sh_true);
SELECT throws_ok($$SELECT * FROM mrf_synthesize('{"kind": "ising", "p": 2, "weights": [[0, 0], [0, 0]], "fields": [0, 0],
				 "meta": {"variables": [{"name": "a", "labels": ["x", null]}, {"name": "b", "labels": ["true", "true"]}]}}'::mrf,
				 200, NULL::sh_strict, seed => 1)$$,
				 '23502', NULL, 'a NULL for a NOT NULL domain is refused, not returned');
SELECT throws_ok($$SELECT * FROM mrf_synthesize('{"kind": "ising", "p": 2, "weights": [[0, 0], [0, 0]], "fields": [0, 0],
				 "meta": {"variables": [{"name": "a", "labels": ["x", "y"]}, {"name": "b", "labels": null}]}}'::mrf,
				 200, NULL::sh_strict, seed => 1)$$,
				 '23514', NULL, 'a coded false for a CHECK (VALUE) domain over boolean is refused, not returned');

-- 5. a domain over a row type is refused cleanly (it failed with XX000 "return type must be a row type")
CREATE TYPE sh_pair AS (a text, b boolean);
CREATE DOMAIN sh_checked_pair AS sh_pair CHECK ((VALUE).b);
SELECT throws_ok($$SELECT * FROM mrf_synthesize('{"kind": "ising", "p": 2, "weights": [[0, 0], [0, 0]], "fields": [0, 0],
				 "meta": {"variables": [{"name": "a", "labels": ["x", "y"]}, {"name": "b", "labels": ["false", "true"]}]}}'::mrf,
				 10, NULL::sh_checked_pair, seed => 1)$$,
				 '42804', NULL, 'a domain over a row type is refused (42804)');

SELECT * FROM finish();
ROLLBACK;
