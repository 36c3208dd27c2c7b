-- server: citus
-- A distributed Frank-Wolfe learn reads one version of the rows: an UPDATE
-- committed during the learn that keeps the number of rows (and of unreadable
-- rows) still changes what the shards read, and the learn fails (55000,
-- charged) instead of mixing iterations of two versions.  The owner's worker
-- sessions keep no part (40,000 rows in one shard do not fit its 1 MB), so
-- every iteration reads the rows again; a kept part would answer from the
-- rows it kept, one version too.
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(4);

CREATE EXTENSION IF NOT EXISTS dblink;
CREATE ROLE cr_owner LOGIN;
CREATE ROLE cr_analyst;
CREATE TABLE cr (id int, "row" boolean[]);
SELECT create_distributed_table('cr', 'id');
INSERT INTO cr SELECT 1, ARRAY[i % 2 = 0, i % 3 = 0, (i % 2 = 0) <> (i % 7 = 0), i % 5 = 0, i % 11 = 0, (i % 3 = 0) <> (i % 13 = 0)]
FROM generate_series(1, 40000) i;
ALTER TABLE cr OWNER TO cr_owner;
ALTER ROLE cr_owner SET mrfdp.max_learner_memory = '1MB';
SELECT mrfdp.protect('cr', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.grant_learning('cr', 'cr_analyst');

SELECT dblink_connect('cr_learn', format('host=%s port=%s dbname=%s user=postgres',
	split_part(current_setting('unix_socket_directories'), ',', 1), current_setting('port'), current_database())) IS NOT NULL AS connected \gset
SELECT dblink_exec('cr_learn', 'SET ROLE cr_analyst') IS NOT NULL AS analyst \gset
SELECT dblink_exec('cr_learn', 'SET mrfdp.distributed_frank_wolfe = on') IS NOT NULL AS distributed \gset
SELECT dblink_send_query('cr_learn',
	$q$SELECT mrf_learn_ising_from('cr', 'row', rho => 1, iterations => 400, variables => 6)::text$q$) = 1 AS sent \gset
SELECT pg_sleep(1.5);
-- every row's first value flips; the number of rows stays
UPDATE cr SET "row"[1] = NOT "row"[1];
CREATE FUNCTION cr_result() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	s text;
	m text;
BEGIN
	PERFORM * FROM dblink_get_result('cr_learn') AS r(m text);
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT;
	RETURN s || ' ' || m;
END $$;
SELECT cr_result() AS cr_outcome \gset
SELECT is(split_part(:'cr_outcome', ' ', 1), '55000', 'a learn whose rows an UPDATE changed fails');
SELECT alike(:'cr_outcome'::text, '%cr changed during a distributed learn%', 'saying the relation changed during the learn');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation = 'cr'::regclass), 1::bigint, 'charged (it had read the rows)');
SELECT dblink_disconnect('cr_learn') IS NOT NULL AS disconnected \gset
-- unchanged rows: the same learn releases
SET ROLE cr_analyst;
SET mrfdp.distributed_frank_wolfe = on;
SELECT isnt(mrf_learn_ising_from('cr', 'row', rho => 1, iterations => 40, variables => 6)::text, NULL,
			'without a writer, the same learn releases');
RESET ROLE;

SELECT * FROM finish();
DROP TABLE cr;
DROP FUNCTION cr_result();
ALTER ROLE cr_owner RESET mrfdp.max_learner_memory;
DROP ROLE cr_analyst;
DROP ROLE cr_owner;
