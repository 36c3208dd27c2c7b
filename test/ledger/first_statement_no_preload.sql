-- server: no_preload
-- Without the preload, mrfdp is loaded by the first statement that calls it,
-- after that statement's transaction started: its executor hook missed what
-- the transaction read before, so a release there could go uncharged.  Such
-- a release is refused; the next transaction is tracked from its start.
-- The setup runs in another session (dblink), so that this session's first
-- call of mrfdp is the release itself.
SELECT plan(8);
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT is((SELECT count(*) FROM pg_settings WHERE name LIKE 'mrfdp.%'), 0::bigint,
          'mrfdp is not loaded yet in this session');
SELECT dblink_exec(format('host=%s port=%s dbname=%s', split_part(current_setting('unix_socket_directories'), ',', 1),
                          current_setting('port'), current_database()),
                   $s$DROP TABLE IF EXISTS np_first;
                     CREATE TABLE np_first AS SELECT ARRAY[g % 2 = 0, g % 3 = 0] AS "row" FROM generate_series(1, 200) g;
                     DO $x$ BEGIN PERFORM mrfdp.protect('np_first', epsilon => 1000, delta => 1e-6); END $x$$s$);

CREATE FUNCTION pg_temp.error_of(q text, OUT state text, OUT msg text, OUT hint text) LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
END $$;
-- The options are a jsonb literal: no mrfdp function runs before the executor
-- starts, so the library is loaded while the statement's executor starts.
CREATE TEMP TABLE first_call AS
SELECT * FROM pg_temp.error_of($$SELECT mrf_learn_ising_agg("row", '{"rho": 0.125}'::jsonb) FROM np_first$$);
SELECT is((SELECT state FROM first_call), '55000',
          'a release in the transaction that loaded mrfdp is refused');
SELECT is((SELECT msg FROM first_call), 'mrf_learn_ising cannot release a model in the transaction that loaded mrfdp',
          'with a message saying why');
SELECT alike((SELECT hint FROM first_call), '%session_preload_libraries or shared_preload_libraries%',
             'and a hint naming the preload settings');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'np_first'::regclass), 0::bigint,
          'nothing was released uncharged');
SELECT ok((SELECT mrf_learn_ising_agg("row", '{"rho": 0.125}'::jsonb) IS NOT NULL FROM np_first),
          'the next statement, a transaction of its own, releases');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'np_first'::regclass), 1::bigint,
          'and is charged');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation = 'np_first'::regclass), 1::bigint,
          'with its ledger row');
SELECT * FROM finish();
DROP TABLE np_first;
