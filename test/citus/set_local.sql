-- server: citus
-- The caller's SET LOCAL commands reach the owner's worker sessions: with
-- citus.propagate_set_commands = local, Citus replays them after the BEGIN
-- it sends every remote transaction of the caller's transaction, the
-- owner-rights read's included.  An analyst who owns a schema (Citus creates
-- it on every node) shadows the type names the shard queries spell without a
-- schema (bytea, oid, regprocedure) with domains whose CHECK calls its
-- function, and puts its schema before pg_catalog in a propagated
-- search_path: its code must never run in the owner's worker session (it
-- would read the shards as their owner).  Every route fails closed instead
-- (the type lookup fails, or the worker refuses the learner's options),
-- charged; a worker-side sequence the function would set stays untouched.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(8);

CREATE ROLE sl_analyst LOGIN;
CREATE ROLE sl_owner LOGIN;
GRANT CREATE ON SCHEMA public TO sl_owner;
SET ROLE sl_owner;
CREATE TABLE sl (id int, "row" boolean[]);
SELECT create_distributed_table('sl', 'id');
INSERT INTO sl SELECT i, ARRAY[i % 2 = 0, i % 3 = 0, (i % 2 = 0) <> (i % 7 = 0), i % 5 = 0] FROM generate_series(1, 4000) i;
RESET ROLE;
SELECT mrfdp.protect('sl', epsilon => 1000, delta => 1e-3);
SELECT mrfdp.grant_learning('sl', 'sl_analyst');
CREATE SCHEMA sl_evil AUTHORIZATION sl_analyst;
-- a worker-side record of the analyst's code running (a sequence is not
-- transactional: a rolled-back read would not hide it)
SELECT bool_and(success) AS sl_seq FROM run_command_on_workers(
	'CREATE SEQUENCE sl_evil.s; GRANT ALL ON SEQUENCE sl_evil.s TO PUBLIC') \gset
SET ROLE sl_analyst;
GRANT USAGE ON SCHEMA sl_evil TO PUBLIC;
-- sets the sequence to 1000 + the rows of the first shard it can read, and
-- to 2 if even that fails (as whoever runs it)
CREATE FUNCTION sl_evil.steal() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	t text;
BEGIN
	PERFORM pg_catalog.setval('sl_evil.s', 2);
	FOR t IN SELECT pg_catalog.format('%I.%I', n.nspname, c.relname)
			 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			 WHERE c.relname OPERATOR(pg_catalog.~) '^sl_[0-9]+$' LOOP
		EXECUTE pg_catalog.format('SELECT pg_catalog.setval(''sl_evil.s'', 1000 + (SELECT pg_catalog.count(*) FROM %s))', t);
		EXIT;
	END LOOP;
	RETURN true;
END $$;
CREATE FUNCTION sl_evil.check_bytea(pg_catalog.bytea) RETURNS boolean LANGUAGE sql AS 'SELECT sl_evil.steal()';
CREATE FUNCTION sl_evil.check_oid(pg_catalog.oid) RETURNS boolean LANGUAGE sql AS 'SELECT sl_evil.steal()';
CREATE FUNCTION sl_evil.check_regprocedure(pg_catalog.regprocedure) RETURNS boolean LANGUAGE sql AS 'SELECT sl_evil.steal()';
RESET ROLE;
CREATE FUNCTION sl_seq_values() RETURNS bigint[] LANGUAGE sql AS $$
	SELECT array_agg(result::bigint ORDER BY nodeport) FROM run_command_on_workers('SELECT last_value FROM sl_evil.s')
$$;
-- the outcome of a learn as the analyst, its errors caught
CREATE TABLE sl_out (type text, route text, outcome text);
GRANT INSERT ON sl_out TO sl_analyst;
CREATE FUNCTION sl_try(type text, route text, learn text) RETURNS void LANGUAGE plpgsql
	SET search_path FROM CURRENT AS $$
DECLARE
	s text;
BEGIN
	EXECUTE learn;
	INSERT INTO public.sl_out VALUES (type, route, 'released');
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE;
	INSERT INTO public.sl_out VALUES (type, route, s);
END $$;

SELECT is(sl_seq_values(), ARRAY[1, 1]::bigint[], 'the workers'' sequences are untouched at first');

-- each shadowed type name, on each route, each learn in a transaction of its
-- own whose SET LOCALs (the search_path first of all) Citus propagates
CREATE TEMP TABLE sl_routes (route text, setting text, learn text);
INSERT INTO sl_routes VALUES
	('fw', 'mrfdp.distributed_frank_wolfe = on',
	 $q$SELECT public.mrf_learn_ising_from('public.sl', 'row', rho => 0.01, variables => 4, iterations => 3)$q$),
	('gather', 'mrfdp.distributed_frank_wolfe = off',
	 $q$SELECT public.mrf_learn_ising_from('public.sl', 'row', rho => 0.01, variables => 4, iterations => 3)$q$),
	('stable', 'mrfdp.distributed_stable_blocks = on',
	 $q$SELECT public.mrf_learn_structure_from('public.sl', 'row', epsilon => 0.1, delta => 1e-7, eta => 0.5, variables => 4)$q$);
SELECT format($f$SET ROLE sl_analyst$f$),
	   format($f$CREATE DOMAIN sl_evil.%1$s AS pg_catalog.%1$s CHECK (sl_evil.check_%1$s(VALUE))$f$, t),
	   format($f$BEGIN$f$),
	   format($f$SET LOCAL citus.propagate_set_commands = 'local'$f$),
	   format($f$SET LOCAL %s$f$, r.setting),
	   format($f$SET LOCAL search_path = sl_evil, pg_catalog$f$),
	   format($f$SELECT public.sl_try(%L, %L, %L)$f$, t, r.route, r.learn),
	   format($f$COMMIT$f$),
	   format($f$DROP DOMAIN sl_evil.%s$f$, t),
	   format($f$RESET ROLE$f$)
FROM unnest(ARRAY['bytea', 'oid', 'regprocedure']) t, sl_routes r ORDER BY t, r.route \gexec

SELECT is(sl_seq_values(), ARRAY[1, 1]::bigint[],
		  'the analyst''s function never ran in a worker session (no sequence was set)');
SELECT is((SELECT array_agg(outcome ORDER BY route) FROM sl_out WHERE type = 'bytea'), ARRAY['55000', 'released', '55000'],
		  'a shadowed bytea: distributed Frank-Wolfe and the stable blocks fail closed; the gathered read names no type');
SELECT is((SELECT array_agg(outcome ORDER BY route) FROM sl_out WHERE type = 'oid'), ARRAY['55000', 'released', '55000'],
		  'a shadowed oid: the same');
SELECT is((SELECT array_agg(outcome ORDER BY route) FROM sl_out WHERE type = 'regprocedure'), ARRAY['55000', 'released', '55000'],
		  'a shadowed regprocedure: the same');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation = 'sl'::regclass), 9::bigint, 'all nine calls were charged');

-- the trap works where a session evaluates the cast: a worker session with
-- that search_path runs the analyst's function (here as postgres)
SET ROLE sl_analyst;
CREATE DOMAIN sl_evil.bytea AS pg_catalog.bytea CHECK (sl_evil.check_bytea(VALUE));
RESET ROLE;
SELECT ok(bool_and(success), 'a worker session casting to bytea under that search_path')
FROM run_command_on_workers($c$SET search_path = sl_evil, pg_catalog; SELECT '\x00'::bytea$c$);
SELECT ok((SELECT bool_and(v > 1000) FROM unnest(sl_seq_values()) v),
		  'runs the function, which reads the shard there (the sequence holds 1000 + its rows)');

SELECT * FROM finish();
DROP TABLE sl;
DROP TABLE sl_out;
DROP FUNCTION sl_seq_values(), sl_try(text, text, text);
DROP SCHEMA sl_evil CASCADE;
SELECT bool_and(success) AS sl_dropped FROM run_command_on_workers('DROP SCHEMA IF EXISTS sl_evil CASCADE') \gset
REVOKE CREATE ON SCHEMA public FROM sl_owner;
DROP ROLE sl_analyst;
DROP ROLE sl_owner;
