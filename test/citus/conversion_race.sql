-- server: citus
-- A learn that waits for a Citus conversion of its relation (the conversion
-- holds the old table locked until it commits, then the old OID names
-- nothing): once the conversion commits, the call is refused as a relation
-- dropped during the call (55000), before its charge and before any read,
-- not with an internal error (XX000 "cache lookup failed", from
-- find_all_inheritors).  The converted table keeps the budget, and the next
-- learn is charged to it.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(5);

CREATE EXTENSION IF NOT EXISTS dblink;
CREATE ROLE cr_analyst;
CREATE TABLE cr (id int, "row" boolean[]);
SELECT create_distributed_table('cr', 'id');
INSERT INTO cr SELECT i, ARRAY[i % 2 = 0, i % 3 = 0, (i % 2 = 0) <> (i % 7 = 0)] FROM generate_series(1, 3000) i;
SELECT mrfdp.protect('cr', epsilon => 10, delta => 1e-6);
SELECT mrfdp.grant_learning('cr', 'cr_analyst');
SELECT format('host=%s port=%s dbname=%s user=postgres',
	split_part(current_setting('unix_socket_directories'), ',', 1), current_setting('port'), current_database()) AS cr_conn \gset
CREATE FUNCTION cr_result(c text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	s text;
	m text;
BEGIN
	PERFORM * FROM dblink_get_result(c) AS r(m text);
	RETURN 'released';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT;
	RETURN s || ' ' || m;
END $$;
-- waits (up to 10 s) until a backend waits for a lock while running sql
CREATE FUNCTION cr_waiting(sql text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1 .. 100 LOOP
		PERFORM pg_stat_clear_snapshot();
		IF EXISTS (SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query = sql) THEN
			RETURN true;
		END IF;
		PERFORM pg_sleep(0.1);
	END LOOP;
	RETURN false;
END $$;

-- the conversion, open on a connection of its own
SELECT dblink_connect('cr_convert', :'cr_conn') IS NOT NULL AS connected \gset
SELECT dblink_exec('cr_convert', 'BEGIN') IS NOT NULL AS began \gset
SELECT count(*) = 1 AS converted
FROM dblink('cr_convert', $q$SELECT alter_distributed_table('cr', shard_count => 6, cascade_to_colocated => false)::text$q$)
	AS t(x text) \gset
-- the learn, as the analyst on another connection: it waits for the old table
\set cr_learn 'SELECT mrf_learn_ising_from(''cr'', ''row'', rho => 0.1, variables => 3)::text'
SELECT dblink_connect('cr_learn', :'cr_conn') IS NOT NULL AS connected \gset
SELECT dblink_exec('cr_learn', 'SET ROLE cr_analyst') IS NOT NULL AS analyst \gset
SELECT dblink_send_query('cr_learn', :'cr_learn') = 1 AS sent \gset
SELECT ok(cr_waiting(:'cr_learn'), 'the learn waits for the table the conversion holds');
SELECT dblink_exec('cr_convert', 'COMMIT') IS NOT NULL AS committed \gset
SELECT cr_result('cr_learn') AS cr_outcome \gset
SELECT dblink_disconnect('cr_learn') IS NOT NULL AS disconnected \gset
SELECT dblink_disconnect('cr_convert') IS NOT NULL AS disconnected \gset
SELECT is(:'cr_outcome'::text, '55000 a relation mrf_learn_ising_from would read was dropped during the call',
		  'once the conversion commits, the call is refused: its relation was dropped during the call');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'cr'::regclass), 0::bigint,
		  'before its charge: the converted table''s budget shows no release');

SET ROLE cr_analyst;
SELECT isnt(mrf_learn_ising_from('cr', 'row', rho => 0.1, variables => 3)::text, NULL, 'the next learn releases');
RESET ROLE;
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'cr'::regclass), 1::bigint,
		  'charged to the converted table''s budget');

SELECT * FROM finish();
DROP TABLE cr;
DROP FUNCTION cr_result(text), cr_waiting(text);
DROP ROLE cr_analyst;
