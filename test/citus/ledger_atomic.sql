-- server: citus
-- The charge worker's budget UPDATE and ledger INSERT commit together with
-- Citus loaded: a ledger insert that fails (its id is taken: a row planted
-- by the superuser running the test) leaves the budget as it was, on the
-- protected path (both Citus routes) and the aggregate path; the next
-- release is charged once, with its ledger row.  mrfdp's catalog is plain
-- PostgreSQL tables on the coordinator, never Citus tables, so both writes
-- are local to the worker's one transaction.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(12);

CREATE ROLE la_analyst;
CREATE TABLE la (id int, "row" boolean[]);
SELECT create_distributed_table('la', 'id');
INSERT INTO la SELECT i, ARRAY[i % 2 = 0, i % 3 = 0, (i % 2 = 0) <> (i % 7 = 0)] FROM generate_series(1, 4000) i;
SELECT mrfdp.protect('la', epsilon => 100, delta => 1e-6);
SELECT mrfdp.grant_learning('la', 'la_analyst');
CREATE FUNCTION la_error(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	s text;
	m text;
BEGIN
	EXECUTE sql;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT;
	RETURN s || ' ' || m;
END $$;
-- plants a ledger row with the id the next charge will draw
CREATE FUNCTION la_block() RETURNS void LANGUAGE sql AS $$
	INSERT INTO mrfdp.ledger (id, relation_name, protected, learner, notion, rows_read, private)
	SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END, 'planted', false, 'planted', 'zCDP', 0, false
	FROM mrfdp.ledger_id_seq
$$;
CREATE FUNCTION la_budget() RETURNS text LANGUAGE sql AS $$
	SELECT format('%s releases, rho %s, %s ledger rows', releases, spent_zcdp_rho,
				  (SELECT count(*) FROM mrfdp.ledger WHERE relation = 'la'::regclass))
	FROM mrfdp.budget WHERE relation = 'la'::regclass
$$;

SELECT is((SELECT count(*) FROM citus_tables WHERE table_name::text LIKE 'mrfdp.%'), 0::bigint,
		  'mrfdp''s catalog holds no Citus table');
SELECT la_budget() AS la_before \gset

SELECT la_block();
SET ROLE la_analyst;
SET mrfdp.distributed_frank_wolfe = on;
SELECT is(la_error($$SELECT mrf_learn_ising_from('la', 'row', rho => 0.5, variables => 3)$$),
		  'XX000 the mrfdp charge worker failed', 'distributed Frank-Wolfe: the ledger insert fails, so does the charge');
RESET ROLE;
SELECT is(la_budget(), :'la_before', 'the budget is as it was: the UPDATE rolled back with the INSERT');

SELECT la_block();
SET ROLE la_analyst;
SET mrfdp.distributed_frank_wolfe = off;
SELECT is(la_error($$SELECT mrf_learn_ising_from('la', 'row', rho => 0.5, variables => 3)$$),
		  'XX000 the mrfdp charge worker failed', 'the gathered read: the same');
RESET ROLE;
SELECT is(la_budget(), :'la_before', 'the budget is as it was');

-- the aggregate path (the owner, who may SELECT): one charge of the statement
SELECT la_block();
SELECT is(la_error($$SELECT mrf_learn_ising("row", rho => 0.5) FROM la$$),
		  'XX000 the mrfdp charge worker failed', 'the aggregate path: the same');
SELECT is(la_budget(), :'la_before', 'the budget is as it was');

-- with the planted rows passed, each release is charged once, with its row
SET ROLE la_analyst;
SET mrfdp.distributed_frank_wolfe = on;
SELECT isnt(mrf_learn_ising_from('la', 'row', rho => 0.5, variables => 3)::text, NULL, 'a distributed learn releases');
SET mrfdp.distributed_frank_wolfe = off;
SELECT isnt(mrf_learn_ising_from('la', 'row', rho => 0.5, variables => 3)::text, NULL, 'a gathered learn releases');
RESET ROLE;
RESET mrfdp.distributed_frank_wolfe;
SELECT isnt(mrf_learn_ising("row", rho => 0.5)::text, NULL, 'an aggregate release') FROM la;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'la'::regclass), 3::bigint, 'three releases in the budget');
SELECT is((SELECT array_agg(rows_read ORDER BY id) FROM mrfdp.ledger WHERE relation = 'la'::regclass),
		  ARRAY[4000, 4000, 4000]::bigint[], 'and three ledger rows, settled with n');

SELECT * FROM finish();
DROP TABLE la;
DROP FUNCTION la_error(text), la_block(), la_budget();
DROP ROLE la_analyst;
