-- server: session_preload
-- mrf_synthesize_into gives the new table an enum column only of a type the
-- caller may act as the owner of (or a superuser's): an enum belongs to its
-- owner, who could rename its labels or drop the caller's column with DROP
-- TYPE ... CASCADE, and model text can name any enum.  Others are refused
-- (42501) with a hint, before anything is created.
BEGIN;
SELECT plan(11);
SET LOCAL client_min_messages = warning;

CREATE ROLE mrfdp_se_author;
CREATE ROLE mrfdp_se_caller;
CREATE ROLE mrfdp_se_team;
GRANT mrfdp_se_team TO mrfdp_se_caller;
CREATE SCHEMA se_author AUTHORIZATION mrfdp_se_author;
CREATE SCHEMA se_caller AUTHORIZATION mrfdp_se_caller;
CREATE SCHEMA se_team AUTHORIZATION mrfdp_se_team;
GRANT USAGE ON SCHEMA se_author, se_team TO mrfdp_se_caller;
CREATE TYPE se_caller.mine AS ENUM ('lo', 'hi');
ALTER TYPE se_caller.mine OWNER TO mrfdp_se_caller;
CREATE TYPE se_author.theirs AS ENUM ('lo', 'hi');
ALTER TYPE se_author.theirs OWNER TO mrfdp_se_author;
CREATE TYPE se_team.shared AS ENUM ('lo', 'hi');
ALTER TYPE se_team.shared OWNER TO mrfdp_se_team;
CREATE TYPE public.se_super AS ENUM ('lo', 'hi');

-- A two-variable Ising model whose first variable names enum type typ.
CREATE FUNCTION pg_temp.se_model(typ text) RETURNS mrf LANGUAGE sql AS $$
	SELECT format('{"kind": "ising", "p": 2, "weights": [[0, 0.5], [0.5, 0]], "fields": [0, 0],
				   "meta": {"variables": [{"name": "a", "labels": ["lo", "hi"], "type": "%s"},
										  {"name": "b", "labels": ["false", "true"], "type": "boolean"}]}}', typ)::mrf
$$;
GRANT EXECUTE ON FUNCTION pg_temp.se_model(text) TO mrfdp_se_caller;
-- The column types of a table.
CREATE FUNCTION pg_temp.se_types(t regclass) RETURNS text LANGUAGE sql AS $$
	SELECT string_agg(format_type(atttypid, atttypmod), ', ' ORDER BY attnum) FROM pg_attribute
	WHERE attrelid = t AND attnum > 0 AND NOT attisdropped
$$;

SET LOCAL ROLE mrfdp_se_caller;
SELECT throws_ok($$SELECT mrf_synthesize_into(pg_temp.se_model('se_author.theirs'), 'se_caller.t_theirs', 20, seed => 1)$$,
	'42501', 'mrf_synthesize_into will not give the new table a column of enum type se_author.theirs (variable 1)',
	'an enum another role owns is refused');
SELECT is(to_regclass('se_caller.t_theirs'), NULL, 'and no table was created');
SELECT lives_ok($$SELECT mrf_synthesize_into(pg_temp.se_model('se_caller.mine'), 'se_caller.t_mine', 20, seed => 1)$$,
	'an enum the caller owns is used');
SELECT is(pg_temp.se_types('se_caller.t_mine'), 'se_caller.mine, boolean', 'the column has the caller''s enum');
SELECT is((SELECT count(*) FROM se_caller.t_mine WHERE a IN ('lo', 'hi')), 20::bigint, 'every row has one of its labels');
SELECT lives_ok($$SELECT mrf_synthesize_into(pg_temp.se_model('se_team.shared'), 'se_caller.t_team', 20, seed => 1)$$,
	'an enum of a role the caller is a member of is used');
SELECT is(pg_temp.se_types('se_caller.t_team'), 'se_team.shared, boolean', 'with that enum');
SELECT lives_ok($$SELECT mrf_synthesize_into(pg_temp.se_model('public.se_super'), 'se_caller.t_super', 20, seed => 1)$$,
	'an enum a superuser owns is used');
RESET ROLE;
-- the refusal's detail names the owner, the hint the way out
CREATE FUNCTION pg_temp.se_error(OUT detail text, OUT hint text) LANGUAGE plpgsql AS $$
BEGIN
	SET LOCAL ROLE mrfdp_se_caller;
	PERFORM mrf_synthesize_into(pg_temp.se_model('se_author.theirs'), 'se_caller.t_theirs2', 5);
EXCEPTION WHEN insufficient_privilege THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
END $$;
SELECT is((SELECT detail FROM pg_temp.se_error()),
	'The type belongs to role mrfdp_se_author, who could rename its labels or drop the column with DROP TYPE ... CASCADE.',
	'the detail names the enum''s owner');
SELECT ok((SELECT hint LIKE '%mrf_synthesize(model, n, NULL::the_table)%' FROM pg_temp.se_error()), 'the hint names mrf_synthesize');
-- the owner of the refused enum can indeed drop its dependants: the reason for the rule
SELECT is((SELECT count(*) FROM pg_depend d WHERE d.refobjid = 'se_caller.mine'::regtype
		   AND d.classid = 'pg_class'::regclass), 1::bigint, 'a column of the caller''s enum depends on it (as it would on theirs)');

SELECT * FROM finish();
ROLLBACK;
