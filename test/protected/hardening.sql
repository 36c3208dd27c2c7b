-- server: session_preload
-- The protected path under attack and faults (issue 9, findings 1, 2, 3, 6, 9
-- and "rows the protected path cannot read").  Not in a transaction: charges
-- are committed by a worker; everything is dropped at the end.
SELECT plan(83);

SELECT pg_postmaster_start_time() AS ph_started, pg_backend_pid() AS ph_pid \gset

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_ph_analyst') THEN
		CREATE ROLE mrfdp_ph_analyst;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_ph_owner') THEN
		CREATE ROLE mrfdp_ph_owner;
	END IF;
END $$;
DROP SCHEMA IF EXISTS ph CASCADE;
CREATE SCHEMA ph;
GRANT USAGE ON SCHEMA ph TO mrfdp_ph_analyst, mrfdp_ph_owner;
GRANT CREATE ON SCHEMA ph TO mrfdp_ph_owner;

-- Everything an error says (SQLSTATE, message, detail, hint, context), or
-- 'no error': to check that no row bytes reach the caller.
CREATE FUNCTION ph.error_of(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	s text; m text; d text; h text; c text;
BEGIN
	EXECUTE sql;
	RETURN 'no error';
EXCEPTION WHEN OTHERS OR query_canceled THEN
	GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL,
		h = PG_EXCEPTION_HINT, c = PG_EXCEPTION_CONTEXT;
	RETURN concat_ws(' | ', s, m, d, h, c);
END $$;

-- Protects a relation generously and grants the analyst.
CREATE FUNCTION ph.open(rel regclass) RETURNS void LANGUAGE sql AS $$
	SELECT mrfdp.protect(rel, epsilon => 1e6, delta => 1e-6);
	SELECT mrfdp.grant_learning(rel, 'mrfdp_ph_analyst');
$$;

-- Ledger rows of a relation.
CREATE FUNCTION ph.charges(rel regclass) RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM mrfdp.ledger WHERE relation = rel
$$;

-------------------------------------------------------------------------------
-- Finding 1: a column named t (or any name) never stands for the row.
-------------------------------------------------------------------------------
CREATE TYPE ph.ab AS ENUM ('a', 'b');
CREATE TABLE ph.tbool (t boolean, u boolean);
INSERT INTO ph.tbool SELECT g % 2 = 0, g % 3 = 0 FROM generate_series(1, 300) g;
CREATE TABLE ph.tint (t int, u boolean);
INSERT INTO ph.tint SELECT 1000000 + g, g % 3 = 0 FROM generate_series(1, 300) g;
CREATE TABLE ph.tenum (t ph.ab, u boolean);
INSERT INTO ph.tenum SELECT CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END::ph.ab, g % 3 = 0 FROM generate_series(1, 300) g;
CREATE TABLE ph.ttext (t text, u boolean);
INSERT INTO ph.ttext SELECT '123-45-6789', true FROM generate_series(1, 300) g;
CREATE TABLE ph.talias (mrfdp_row boolean, u boolean);
INSERT INTO ph.talias SELECT g % 2 = 0, g % 5 = 0 FROM generate_series(1, 300) g;
SELECT ph.open(r) FROM unnest(ARRAY['ph.tbool', 'ph.tint', 'ph.tenum', 'ph.ttext', 'ph.talias']::regclass[]) r;
GRANT USAGE ON TYPE ph.ab TO mrfdp_ph_analyst;

SET ROLE mrfdp_ph_analyst;
SELECT lives_ok($$SELECT mrf_learn_ising_from('ph.tbool', NULL, rho => 0.1)$$,
                'whole rows of a table with a boolean column named t are learned');
SELECT is((SELECT (mrf_learn_ising_from('ph.tbool', NULL, rho => 0.1)::jsonb)->>'p'), '2',
          'as rows of its two columns');
SELECT alike(ph.error_of($$SELECT mrf_learn_ising_from('ph.tint', NULL, rho => 0.1)$$),
          '42804 | mrf_learn_ising takes rows whose columns are all boolean | Column "t" has type integer. | Select the boolean columns into a row, e.g. ROW(a, b, c), or an array. | %',
          'an integer column named t is a schema error, not a row read as a type');
SELECT lives_ok($$SELECT mrf_learn_pairwise_from('ph.tenum', NULL, rho => 0.1)$$,
                'whole rows with an enum column named t are learned (k-ary)');
SELECT unalike(ph.error_of($$SELECT mrf_learn_ising_from('ph.ttext', NULL, rho => 0.1)$$),
              '%123-45%', 'a text column named t: no byte of a row in the error');
SELECT alike(ph.error_of($$SELECT mrf_learn_ising_from('ph.ttext', NULL, rho => 0.1)$$),
            '42804 | mrf_learn_ising takes rows whose columns are all boolean%',
            'the error names the column''s type');
SELECT lives_ok($$SELECT mrf_learn_ising_from('ph.talias', NULL, rho => 0.1)$$,
                'a column named like the reader''s own alias does not shadow the row');
RESET ROLE;
SELECT is(pg_postmaster_start_time(), :'ph_started'::timestamptz, 'the server did not restart');
SELECT is(pg_backend_pid(), :ph_pid, 'and this session is still the same backend');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation IN ('ph.tint'::regclass, 'ph.ttext'::regclass)),
          0::bigint, 'schema errors charge nothing');

-------------------------------------------------------------------------------
-- Finding 2: every unreadable row is substituted, never an error.
-------------------------------------------------------------------------------
CREATE TABLE ph.arr2d (x boolean[]);
INSERT INTO ph.arr2d SELECT ARRAY[g % 2 = 0, g % 3 = 0] FROM generate_series(1, 200) g;
INSERT INTO ph.arr2d VALUES ('{{t,f},{f,t}}'), ('[0:1]={t,f}'), (NULL), ('{t,NULL}'), ('{}');
CREATE TABLE ph.int2d (x int[]);
INSERT INTO ph.int2d SELECT ARRAY[1, -1] FROM generate_series(1, 200) g;
INSERT INTO ph.int2d VALUES ('{{1,-1},{1,1}}'), ('{1,7}'), ('{1,-1,1}');
CREATE TABLE ph.enum2d (x ph.ab[]);
INSERT INTO ph.enum2d SELECT ARRAY['a', 'b']::ph.ab[] FROM generate_series(1, 200) g;
INSERT INTO ph.enum2d VALUES ('{{a,b},{b,a}}');
CREATE TABLE ph.bits (x bit varying);
INSERT INTO ph.bits SELECT B'101' FROM generate_series(1, 200) g;
INSERT INTO ph.bits VALUES (B'10'), (B''), (NULL);
CREATE DOMAIN ph.bools3 AS boolean[] CHECK (cardinality(VALUE) = 3);
CREATE TABLE ph.dom (x ph.bools3);
INSERT INTO ph.dom SELECT ARRAY[g % 2 = 0, true, g % 7 = 0] FROM generate_series(1, 200) g;
CREATE TYPE ph.pair AS (a boolean, b boolean);
CREATE TABLE ph.rec (x ph.pair);
INSERT INTO ph.rec SELECT ROW(g % 2 = 0, g % 3 = 0)::ph.pair FROM generate_series(1, 200) g;
INSERT INTO ph.rec VALUES (NULL), (ROW(NULL, true));
CREATE TYPE ph.wide AS (a boolean, b boolean, c boolean);
CREATE TABLE ph.recext (x ph.wide);
INSERT INTO ph.recext SELECT ROW(g % 2 = 0, g % 3 = 0, true)::ph.wide FROM generate_series(1, 200) g;
ALTER TYPE ph.wide DROP ATTRIBUTE b;
ALTER TYPE ph.wide ADD ATTRIBUTE d boolean;		-- stored values have no d: NULL, substituted
CREATE TYPE ph.mixed AS (a boolean, n int);
CREATE TABLE ph.mixednull (x ph.mixed);
INSERT INTO ph.mixednull SELECT NULL FROM generate_series(1, 50) g;
SELECT ph.open(r) FROM unnest(ARRAY['ph.arr2d', 'ph.int2d', 'ph.enum2d', 'ph.bits', 'ph.dom',
	'ph.rec', 'ph.recext', 'ph.mixednull']::regclass[]) r;
GRANT USAGE ON TYPE ph.ab, ph.bools3, ph.pair, ph.wide, ph.mixed TO mrfdp_ph_analyst;

SET ROLE mrfdp_ph_analyst;
SELECT lives_ok($$SELECT mrf_learn_ising_from('ph.arr2d', 'x', rho => 0.1, variables => 2)$$,
                'a 2-D boolean array, NULLs and other shapes are substituted rows');
SELECT lives_ok($$SELECT mrf_learn_twise_from('ph.arr2d', 'x', rho => 0.1, t => 2, variables => 2)$$,
                'the same rows for the t-wise learner');
SELECT lives_ok($$SELECT mrf_learn_ising_from('ph.int2d', 'x', rho => 0.1, variables => 2)$$,
                'a 2-D integer array and values outside {-1, +1} are substituted rows');
SELECT lives_ok($$SELECT mrf_learn_pairwise_from('ph.enum2d', 'x', rho => 0.1, variables => 2)$$,
                'a 2-D enum array is a substituted row');
SELECT lives_ok($$SELECT mrf_learn_cliques_from('ph.enum2d', 'x', epsilon => 1, cliques => '[[1, 2]]', variables => 2)$$,
                'for the clique learner too');
SELECT lives_ok($$SELECT mrf_learn_ising_from('ph.bits', 'x', rho => 0.1, variables => 3)$$,
                'bit strings of another length are substituted rows');
SELECT lives_ok($$SELECT mrf_learn_ising_from('ph.dom', 'x', rho => 0.1, variables => 3)$$,
                'a domain over boolean[] is read as its base type');
SELECT lives_ok($$SELECT mrf_learn_ising_from('ph.rec', 'x', rho => 0.1)$$,
                'NULL composites and NULL fields are substituted rows');
SELECT is((SELECT (mrf_learn_ising_from('ph.recext', 'x', rho => 0.1)::jsonb)->>'p'), '3',
          'a row type with a dropped and an added attribute: its current width (stored values lack d: substituted)');
SELECT alike(ph.error_of($$SELECT mrf_learn_ising_from('ph.mixednull', 'x', rho => 0.1)$$),
          '42804 | mrf_learn_ising takes rows whose columns are all boolean | Column "n" has type integer. | Select the boolean columns into a row, e.g. ROW(a, b, c), or an array. | %',
          'an unsupported row type is refused from the schema, even when every value is NULL');
RESET ROLE;
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation IN ('ph.arr2d'::regclass, 'ph.int2d'::regclass,
              'ph.enum2d'::regclass, 'ph.bits'::regclass, 'ph.dom'::regclass, 'ph.rec'::regclass)),
          8::bigint, 'each of those releases was charged once');
SELECT is(ph.charges('ph.mixednull'), 0::bigint, 'the refused one was not');

-------------------------------------------------------------------------------
-- Finding 3: a read whose success could depend on the data is refused from
-- the schema before anything is read or charged (foreign tables, relations
-- that force row-level security on their owner, also as descendants); any
-- other error raised while reading as the owner is withheld, after the charge.
-------------------------------------------------------------------------------
CREATE EXTENSION IF NOT EXISTS file_fdw;
CREATE SERVER ph_files FOREIGN DATA WRAPPER file_fdw;
DO $$
DECLARE
	bad text := '/tmp/mrfdp_ph_bad_' || pg_backend_pid() || '.txt';
BEGIN
	EXECUTE format($f$COPY (SELECT '{t,f}' FROM generate_series(1, 60)
		UNION ALL SELECT 'SECRET-123-45-6789' UNION ALL SELECT '{f,t}') TO %L$f$, bad);
	EXECUTE format('CREATE FOREIGN TABLE ph.fbad (x boolean[]) SERVER ph_files OPTIONS (filename %L)', bad);
END $$;
SELECT ph.open('ph.fbad');
-- a foreign partition of a protected partitioned table
CREATE TABLE ph.fpart (x boolean[], g int) PARTITION BY LIST (g);
CREATE TABLE ph.fpart_a PARTITION OF ph.fpart FOR VALUES IN (1);
INSERT INTO ph.fpart SELECT ARRAY[true, false], 1 FROM generate_series(1, 60);
DO $$
BEGIN
	EXECUTE format('CREATE FOREIGN TABLE ph.fpart_b PARTITION OF ph.fpart FOR VALUES IN (2) SERVER ph_files OPTIONS (filename %L)',
				   '/tmp/mrfdp_ph_bad_' || pg_backend_pid() || '.txt');
END $$;
SELECT ph.open('ph.fpart');

-- an owner's FORCE RLS policy whose function quotes the row in its error
SET ROLE mrfdp_ph_owner;
CREATE TABLE ph.rls (x boolean[], secret text);
INSERT INTO ph.rls SELECT ARRAY[g % 2 = 0, true], 'ok' FROM generate_series(1, 60) g;
INSERT INTO ph.rls VALUES (ARRAY[true, true], 'SECRET-RLS-987');
CREATE FUNCTION ph.check_row(s text) RETURNS boolean LANGUAGE plpgsql AS $f$
BEGIN
	IF s <> 'ok' THEN
		RAISE EXCEPTION 'bad row %', s;
	END IF;
	RETURN true;
END $f$;
ALTER TABLE ph.rls ENABLE ROW LEVEL SECURITY;
ALTER TABLE ph.rls FORCE ROW LEVEL SECURITY;
CREATE POLICY p ON ph.rls USING (ph.check_row(secret));
SELECT ph.open('ph.rls');
-- an owner who cannot read its own table: the read fails (for a public
-- reason here, but through the same path as any other error of the read)
CREATE TABLE ph.noread (x boolean[]);
INSERT INTO ph.noread SELECT ARRAY[g % 2 = 0, true] FROM generate_series(1, 60) g;
SELECT ph.open('ph.noread');
REVOKE SELECT ON ph.noread FROM mrfdp_ph_owner;
RESET ROLE;

SET ROLE mrfdp_ph_analyst;
SELECT alike(ph.error_of($$SELECT mrf_learn_ising_from('ph.fbad', 'x', rho => 0.1, variables => 2)$$),
            '0A000 | mrf_learn_ising_from cannot read foreign table fbad | %',
            'a foreign table is refused from the schema');
SELECT unalike(ph.error_of($$SELECT mrf_learn_ising_from('ph.fbad', 'x', rho => 0.1, variables => 2)$$),
              '%SECRET%', 'that says nothing of its lines');
SELECT alike(ph.error_of($$SELECT mrf_learn_ising_from('ph.fpart', 'x', rho => 0.1, variables => 2)$$),
            '0A000 | mrf_learn_ising_from cannot read foreign table fpart_b | %',
            'so is a partitioned table with a foreign partition');
SELECT alike(ph.error_of($$SELECT mrf_learn_ising_from('ph.rls', 'x', rho => 0.1, variables => 2)$$),
            '0A000 | mrf_learn_ising_from cannot read relation rls, which forces row-level security on its owner | %',
            'and a table that forces row-level security on its owner');
SELECT unalike(ph.error_of($$SELECT mrf_learn_ising_from('ph.rls', 'x', rho => 0.1, variables => 2)$$),
              '%SECRET%', 'without the policy''s message');
SELECT alike(ph.error_of($$SELECT mrf_learn_ising_from('ph.noread', 'x', rho => 0.1, variables => 2)$$),
            '55000 | relation noread could not be read as its owner | The original error is withheld because it may contain the relation''s data. The release''s privacy budget was charged.%',
            'an error raised by the read: one fixed error, saying the cause is withheld and the budget was charged');
SELECT unalike(ph.error_of($$SELECT mrf_learn_ising_from('ph.noread', 'x', rho => 0.1, variables => 2)$$),
              '%permission denied%', 'the original error is not shown');
RESET ROLE;
SELECT is(ph.charges('ph.fbad') + ph.charges('ph.fpart') + ph.charges('ph.rls'), 0::bigint,
          'refused sources charge nothing');
SELECT is(ph.charges('ph.noread'), 2::bigint, 'every failed read was charged');
SELECT ok((SELECT bool_and(rho >= 0.10078125 AND rho < 0.1008 AND rows_read = -1 AND protected)
           FROM mrfdp.ledger WHERE relation = 'ph.noread'::regclass),
          'the planned amount (the count included), rows_read -1: how far the read got is not told');
GRANT SELECT ON ph.noread TO mrfdp_ph_owner;
SET ROLE mrfdp_ph_analyst;
SELECT lives_ok($$SELECT mrf_learn_ising_from('ph.noread', 'x', rho => 0.1, variables => 2)$$,
                'once the owner can read it again, it releases a model');
RESET ROLE;
SELECT is((SELECT rows_read FROM mrfdp.ledger WHERE relation = 'ph.noread'::regclass ORDER BY id DESC LIMIT 1),
          60::bigint, 'a successful read records n');

-------------------------------------------------------------------------------
-- Charge before reading: a call over budget is refused before the first row
-- of the relation is read (its seq_tup_read does not move: a refused call
-- cannot time the read); a call that fits is charged, then reads every row
-- once, and its ledger row is settled with n; an empty relation is charged.
-------------------------------------------------------------------------------
CREATE TABLE ph.budgeted (x boolean[]);
INSERT INTO ph.budgeted SELECT ARRAY[g % 2 = 0, g % 3 = 0] FROM generate_series(1, 5000) g;
SELECT mrfdp.protect('ph.budgeted', epsilon => 1, delta => 1e-6);
SELECT mrfdp.grant_learning('ph.budgeted', 'mrfdp_ph_analyst');
CREATE FUNCTION ph.tuples_read(rel regclass) RETURNS bigint LANGUAGE sql AS $$
	SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) FROM pg_stat_user_tables WHERE relid = rel
$$;
SELECT pg_stat_force_next_flush();
SELECT ph.tuples_read('ph.budgeted') AS ph_read0, 0.6 * rho AS ph_rho FROM mrfdp.remaining('ph.budgeted') \gset
SET ROLE mrfdp_ph_analyst;
SELECT throws_ok($$SELECT mrf_learn_ising_from('ph.budgeted', 'x', rho => 5, variables => 2)$$, '42501', NULL,
                 'a call over budget is refused');
SELECT throws_ok($$SELECT mrf_learn_structure_from('ph.budgeted', 'x', epsilon => 5, delta => 1e-7, eta => 0.5, blocks => 2, variables => 2)$$,
                 '42501', NULL, 'so is one of the stable mode');
RESET ROLE;
SELECT pg_stat_force_next_flush();
SELECT is(ph.tuples_read('ph.budgeted'), :ph_read0::bigint, 'without reading a row of the relation');
SET ROLE mrfdp_ph_analyst;
SELECT lives_ok(format($$SELECT mrf_learn_ising_from('ph.budgeted', 'x', rho => %s, variables => 2)$$, :ph_rho),
                'a call that fits releases');
RESET ROLE;
SELECT pg_stat_force_next_flush();
SELECT is(ph.tuples_read('ph.budgeted') - :ph_read0, 5000::bigint, 'after one read of every row');
SELECT ok((SELECT count(*) = 1 AND bool_and(rows_read = 5000 AND rho > :ph_rho)
           FROM mrfdp.ledger WHERE relation = 'ph.budgeted'::regclass),
          'charged once, its ledger row settled with n');
SELECT ph.tuples_read('ph.budgeted') AS ph_read1 \gset
SET ROLE mrfdp_ph_analyst;
SELECT throws_ok(format($$SELECT mrf_learn_ising_from('ph.budgeted', 'x', rho => %s, variables => 2)$$, :ph_rho), '42501', NULL,
                 'the same call again no longer fits (a nightly job after the budget is spent)');
RESET ROLE;
SELECT pg_stat_force_next_flush();
SELECT is(ph.tuples_read('ph.budgeted'), :ph_read1::bigint, 'and reads nothing either');
SELECT is(ph.charges('ph.budgeted'), 1::bigint, 'nor is charged');
CREATE TABLE ph.empty (x boolean[]);
SELECT ph.open('ph.empty');
SET ROLE mrfdp_ph_analyst;
SELECT is(mrf_learn_ising_from('ph.empty', 'x', rho => 0.1, variables => 2)::text, NULL,
          'an empty relation releases nothing');
RESET ROLE;
SELECT ok((SELECT count(*) = 1 AND bool_and(rows_read = 0) FROM mrfdp.ledger WHERE relation = 'ph.empty'::regclass),
          'and is charged (the count is a read), with n = 0 settled');

-- a cancel is not withheld (it carries no data): it propagates as itself,
-- and the read it ended was charged before it began
SET ROLE mrfdp_ph_owner;
CREATE TABLE ph.slow (x boolean[]);
INSERT INTO ph.slow SELECT ARRAY[g % 2 = 0, g % 3 = 0] FROM generate_series(1, 3000000) g;
SELECT ph.open('ph.slow');
RESET ROLE;
-- the timeout: half of what a plain scan of the table takes, so it falls
-- inside the protected path's (slower) read, after the quick checks before it
DO $$
DECLARE
	t0 timestamptz := clock_timestamp();
BEGIN
	PERFORM count(x) FROM ph.slow;
	PERFORM set_config('ph.timeout_ms', greatest(20, (extract(epoch FROM clock_timestamp() - t0) * 500)::int)::text, false);
END $$;
SELECT current_setting('ph.timeout_ms') AS ph_timeout \gset
SET ROLE mrfdp_ph_analyst;
SET statement_timeout = :ph_timeout;
SELECT is(split_part(ph.error_of($$SELECT mrf_learn_ising_from('ph.slow', 'x', rho => 0.1, variables => 2)$$), ' | ', 1),
          '57014', 'a statement timeout during the read is a plain cancel');
RESET statement_timeout;
RESET ROLE;
SELECT is(ph.charges('ph.slow'), 1::bigint, 'and it was charged: a read ended by a timeout is paid for');
SELECT ok((SELECT rho >= 0.10078125 AND rho < 0.1008 AND rows_read = -1 AND protected
           FROM mrfdp.ledger WHERE relation = 'ph.slow'::regclass),
          'the planned amount, rows_read -1: the read never ended, how far it got is not told');
DROP TABLE ph.slow;

-- A table the owner turned into a view after protecting it (CREATE RULE
-- "_RETURN" still does that in PostgreSQL 15) would run the view's query and
-- functions as the owner: refused like a foreign table.
SET ROLE mrfdp_ph_owner;
CREATE TABLE ph.became_view (x boolean[]);
SELECT ph.open('ph.became_view');
CREATE TABLE ph.under_view (x boolean[]);
INSERT INTO ph.under_view SELECT ARRAY[g % 2 = 0, true] FROM generate_series(1, 60) g;
CREATE RULE "_RETURN" AS ON SELECT TO ph.became_view DO INSTEAD SELECT x FROM ph.under_view;
RESET ROLE;
SET ROLE mrfdp_ph_analyst;
SELECT alike(ph.error_of($$SELECT mrf_learn_ising_from('ph.became_view', 'x', rho => 0.1, variables => 2)$$),
            '0A000 | mrf_learn_ising_from cannot read relation became_view, which is not a table or materialized view | %',
            'a protected table turned into a view is refused');
RESET ROLE;
SELECT is(ph.charges('ph.became_view'), 0::bigint, 'uncharged');

-- A foreign table attached while a call waits between the schema check and
-- the read is caught in the read's plan (the owner holds a child's lock while
-- it attaches, so the check sees the old children), refused and uncharged.
CREATE EXTENSION IF NOT EXISTS dblink;
CREATE TABLE ph.rpar (x boolean[]);
CREATE TABLE ph.rc1 () INHERITS (ph.rpar);
INSERT INTO ph.rc1 SELECT ARRAY[g % 2 = 0, true] FROM generate_series(1, 60) g;
DO $$
DECLARE
	good text := '/tmp/mrfdp_ph_good_' || pg_backend_pid() || '.txt';
BEGIN
	EXECUTE format($f$COPY (SELECT '{t,f}' FROM generate_series(1, 10)) TO %L$f$, good);
	EXECUTE format('CREATE FOREIGN TABLE ph.rft (x boolean[]) SERVER ph_files OPTIONS (filename %L)', good);
END $$;
SELECT ph.open('ph.rpar');
SELECT format('host=%s port=%s dbname=%s', split_part(current_setting('unix_socket_directories'), ',', 1),
              current_setting('port'), current_database()) AS ph_conn \gset
SELECT dblink_connect('ph_owner', :'ph_conn');
SELECT dblink_connect('ph_analyst', :'ph_conn');
SELECT dblink_exec('ph_owner', 'BEGIN');
SELECT dblink_exec('ph_owner', 'LOCK TABLE ph.rc1 IN ACCESS EXCLUSIVE MODE');
SELECT dblink_exec('ph_analyst', 'SET ROLE mrfdp_ph_analyst');
SELECT dblink_send_query('ph_analyst',
	$q$SELECT mrf_learn_ising_from('ph.rpar', 'x', rho => 0.1, variables => 2)::text$q$);
SELECT pg_sleep(1);		-- the call now waits for ph.rc1, past its look at ph.rpar's children
SELECT dblink_exec('ph_owner', 'ALTER TABLE ph.rft INHERIT ph.rpar');
SELECT dblink_exec('ph_owner', 'COMMIT');
SELECT alike(ph.error_of($$SELECT * FROM dblink_get_result('ph_analyst') AS r(m text)$$),
            '0A000 | mrf_learn_ising_from cannot read foreign table rft%',
            'a foreign child attached during the call is refused from the read''s plan');
SELECT dblink_disconnect('ph_owner');
SELECT dblink_disconnect('ph_analyst');
SELECT is(ph.charges('ph.rpar'), 1::bigint,
          'it was charged: the charge is committed before the read, whose plan refused it');

-------------------------------------------------------------------------------
-- Finding 6: the protected path charges the relation's protected ancestors
-- and descendants, in one request.
-------------------------------------------------------------------------------
CREATE TABLE ph.part (x boolean[], g int) PARTITION BY LIST (g);
CREATE TABLE ph.part_a PARTITION OF ph.part FOR VALUES IN (1);
CREATE TABLE ph.part_b PARTITION OF ph.part FOR VALUES IN (2);
CREATE TABLE ph.part_c PARTITION OF ph.part FOR VALUES IN (3);
INSERT INTO ph.part SELECT ARRAY[g % 2 = 0, g % 3 = 0], 1 + g % 3 FROM generate_series(1, 300) g;
SELECT ph.open('ph.part');
SELECT ph.open('ph.part_a');
SELECT ph.open('ph.part_b');
SET ROLE mrfdp_ph_analyst;
SELECT lives_ok($$SELECT mrf_learn_ising_from('ph.part', 'x', rho => 0.2, variables => 2)$$,
                'learning from a partitioned table');
RESET ROLE;
SELECT is((SELECT array_agg(relation::text ORDER BY relation::text) FROM mrfdp.ledger
           WHERE relation IN ('ph.part'::regclass, 'ph.part_a'::regclass, 'ph.part_b'::regclass, 'ph.part_c'::regclass)),
          ARRAY['ph.part', 'ph.part_a', 'ph.part_b'],
          'charges the parent and its protected partitions (the unprotected one is not recorded)');
SELECT ok((SELECT bool_and(rho >= 0.2015625 AND rho < 0.2016 AND rows_read = 300) FROM mrfdp.ledger
           WHERE relation IN ('ph.part'::regclass, 'ph.part_a'::regclass, 'ph.part_b'::regclass)),
          'each by the whole release');
SELECT is((SELECT spent_epsilon FROM mrfdp.remaining('ph.part_a')) > 0, true,
          'the partition''s budget shows it');
SET ROLE mrfdp_ph_analyst;
SELECT lives_ok($$SELECT mrf_learn_ising_from('ph.part_b', 'x', rho => 0.3, variables => 2)$$,
                'learning from one partition');
RESET ROLE;
SELECT is((SELECT array_agg(relation::text ORDER BY relation::text) FROM mrfdp.ledger
           WHERE rho >= 0.30234375 AND rho < 0.3024
             AND relation IN ('ph.part'::regclass, 'ph.part_a'::regclass, 'ph.part_b'::regclass)),
          ARRAY['ph.part', 'ph.part_b'], 'charges it and its protected parent, not its sibling');
-- one request: a parent without room fails the whole charge
CREATE TABLE ph.tight (x boolean[], g int) PARTITION BY LIST (g);
CREATE TABLE ph.tight_a PARTITION OF ph.tight FOR VALUES IN (1);
INSERT INTO ph.tight SELECT ARRAY[g % 2 = 0, g % 3 = 0], 1 FROM generate_series(1, 100) g;
SELECT mrfdp.protect('ph.tight', epsilon => 0.5, delta => 1e-6);
SELECT ph.open('ph.tight_a');
SET ROLE mrfdp_ph_analyst;
SELECT throws_ok($$SELECT mrf_learn_ising_from('ph.tight_a', 'x', rho => 0.3, variables => 2)$$, '42501', NULL,
                 'a protected parent without room refuses a release from its partition');
RESET ROLE;
SELECT is(ph.charges('ph.tight_a'), 0::bigint,
          'and the partition was not charged either (one request, all or nothing)');

-------------------------------------------------------------------------------
-- Finding 9: options a learner refuses are refused before any charge.
-------------------------------------------------------------------------------
CREATE TABLE ph.opts (x boolean[], z int[]);
INSERT INTO ph.opts SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0], ARRAY[g % 3, g % 2, g % 3] FROM generate_series(1, 200) g;
SELECT ph.open('ph.opts');
CREATE TABLE ph.remaining_before AS SELECT r::text AS r FROM mrfdp.remaining('ph.opts') r;
SET ROLE mrfdp_ph_analyst;
SELECT throws_ok($$SELECT mrf_learn_ising_from('ph.opts', 'x', rho => 0.1, lambda => 1e308, variables => 3)$$,
                 '22023', 'invalid value for option "lambda"', 'lambda => 1e308 (Ising)');
SELECT throws_ok($$SELECT mrf_learn_pairwise_from('ph.opts', 'z', rho => 0.1, k => 3, lambda => 1e308, variables => 3)$$,
                 '22023', 'invalid value for option "lambda"', 'lambda => 1e308 (pairwise)');
SELECT throws_ok($$SELECT mrf_learn_twise_from('ph.opts', 'x', rho => 0.1, t => 2, lambda => 1e308, variables => 3)$$,
                 '22023', 'invalid value for option "lambda"', 'lambda => 1e308 (t-wise)');
SELECT throws_ok($$SELECT mrf_learn_structure_from('ph.opts', 'x', epsilon => 1, delta => 1e-6, eta => 0.5, lambda => 1e308, blocks => 2, variables => 3)$$,
                 '22023', 'invalid value for option "lambda"', 'lambda => 1e308 (structure, stable mode)');
SELECT throws_ok($$SELECT mrf_learn_structure_from('ph.opts', 'x', rho => 0.1, method => 'threshold', eta => 0.5, lambda => 1e308, variables => 3)$$,
                 '22023', 'invalid value for option "lambda"', 'lambda => 1e308 (structure, threshold)');
SELECT throws_ok($$SELECT mrf_learn_cliques_from('ph.opts', 'z', epsilon => 1e-300, k => 3, cliques => '[[1, 2]]', variables => 3)$$,
                 '22023', 'invalid value for option "epsilon"', 'an epsilon too small for the clique tables'' noise');
RESET ROLE;
SELECT is(ph.charges('ph.opts'), 0::bigint, 'none of them was charged');
SELECT is((SELECT r::text FROM mrfdp.remaining('ph.opts') r), (SELECT r FROM ph.remaining_before),
          'mrfdp.remaining is unchanged');
-- a refusal that depends on n (the Laplace scale of Ising's regressions
-- overflows at this n) comes after the count, so after the charge
SET ROLE mrfdp_ph_analyst;
SELECT throws_ok($$SELECT mrf_learn_ising_from('ph.opts', 'x', rho => 1e-300, lambda => 1e300, mechanism => 'laplace', variables => 3)$$,
                 '22023', 'invalid value for option "lambda"', 'a Laplace scale that overflows at n');
RESET ROLE;
SELECT ok((SELECT count(*) = 1 AND bool_and(rows_read = 200 AND rho > 1e-300 AND rho < 1.01e-300)
           FROM mrfdp.ledger WHERE relation = 'ph.opts'::regclass),
          'is refused after the charge, with n settled in the ledger');
SELECT throws_ok($$SELECT mrf_learn_ising(x, rho => 0.1, lambda => 1e308) FROM (VALUES (ARRAY[true, false])) v(x)$$,
                 '22023', 'invalid value for option "lambda"', 'the aggregate path gives the same clear error');
SET ROLE mrfdp_ph_analyst;
SELECT lives_ok($$SELECT mrf_learn_cliques_from('ph.opts', 'z', epsilon => 1, k => 3, cliques => '[[1, 2], [2, 3], [1, 3]]', tolerance => 1e308, variables => 3)$$,
                'an absurd but valid tolerance is a release, not a charge followed by an error');
SELECT lives_ok($$SELECT mrf_learn_structure_from('ph.opts', 'x', epsilon => 1, delta => 1e-7, eta => 1e308, blocks => 2, variables => 3)$$,
                'so is an absurd eta (no structure)');
RESET ROLE;

-------------------------------------------------------------------------------
-- Rows the protected path cannot read: a noisy count with every model.
-------------------------------------------------------------------------------
SET mrfdp.test_seed = 11;
CREATE TABLE ph.dirty (x boolean[], z int[]);
INSERT INTO ph.dirty SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0], ARRAY[g % 2, g % 3 / 2, g % 5 / 4] FROM generate_series(1, 900) g;
INSERT INTO ph.dirty SELECT NULL, NULL FROM generate_series(1, 50) g;
INSERT INTO ph.dirty SELECT ARRAY[true, false], ARRAY[1, 0] FROM generate_series(1, 50) g;
CREATE TABLE ph.clean (x boolean[]);
INSERT INTO ph.clean SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 7 < 3] FROM generate_series(1, 1000) g;
SELECT ph.open('ph.dirty');
SELECT ph.open('ph.clean');
-- one statement each: the aggregate path charges every relation its transaction read
CREATE TABLE ph.models (name text, m mrf);
INSERT INTO ph.models SELECT 'dirty', mrf_learn_ising_from('ph.dirty', 'x', rho => 1, variables => 3);
INSERT INTO ph.models SELECT 'clean', mrf_learn_ising_from('ph.clean', 'x', rho => 1, variables => 3);
INSERT INTO ph.models SELECT 'aggregate', mrf_learn_ising(x, rho => 1) FROM ph.clean;
INSERT INTO ph.models SELECT 'cliques', mrf_learn_cliques_from('ph.dirty', 'z', epsilon => 2, k => 2, cliques => '[[1, 2]]', variables => 3);
INSERT INTO ph.models SELECT 'structure', mrf_learn_structure_from('ph.clean', 'x', epsilon => 1, delta => 1e-7, eta => 0.5, blocks => 2, variables => 3);
RESET mrfdp.test_seed;
SELECT ok((SELECT ((m::jsonb)->'meta'->'substituted_rows'->>'noisy_count')::int BETWEEN 70 AND 130
           FROM ph.models WHERE name = 'dirty'),
          'the noisy count of substituted rows is near the 100 of 1000 rows');
SELECT is((SELECT ((m::jsonb)->'meta'->'substituted_rows') - 'noisy_count' FROM ph.models WHERE name = 'dirty'),
          '{"mechanism": "discrete gaussian", "rho": 0.0078125, "variance": 64.00000095367432}'::jsonb,
          'a discrete Gaussian at rho / 128, its variance rounded up from 1 / (2 rho_c) = 64');
SELECT ok((SELECT ((m::jsonb)->'meta'->'substituted_rows'->>'noisy_count')::int < 30 FROM ph.models WHERE name = 'clean'),
          'a clean table gets a count near 0');
SELECT ok((SELECT rho = 1.0078125 AND rows_read = 1000 FROM mrfdp.ledger WHERE relation = 'ph.dirty'::regclass AND notion = 'zCDP'),
          'the ledger row shows the total: rho + rho / 128, exactly');
SELECT is((SELECT ((m::jsonb)->'meta'->'substituted_rows') - 'noisy_count' FROM ph.models WHERE name = 'cliques'),
          '{"mechanism": "discrete laplace", "epsilon": 0.015625, "scale": 64.00000095367432}'::jsonb,
          'pure-DP learners: a discrete Laplace at epsilon / 128');
SELECT ok((SELECT epsilon = 2.015625 AND notion = 'pure' FROM mrfdp.ledger WHERE relation = 'ph.dirty'::regclass AND learner = 'mrf_learn_cliques'),
          'charged as pure (1 + 1/128) epsilon');
SELECT ok((SELECT epsilon = 1.0078125 AND delta = 1e-7 AND notion = 'approximate' FROM mrfdp.ledger
           WHERE relation = 'ph.clean'::regclass AND learner = 'mrf_learn_structure'),
          'the stable mode: ((1 + 1/128) epsilon, delta) by basic composition');
SELECT is((SELECT (m::jsonb) - 'meta' FROM ph.models WHERE name = 'clean'),
          (SELECT (m::jsonb) - 'meta' FROM ph.models WHERE name = 'aggregate'),
          'under a test seed the protected path''s model equals the aggregate path''s on the same rows');
SELECT is((SELECT ((m::jsonb)->'meta') - ARRAY['created', 'learn_seconds', 'substituted_rows', 'source'] FROM ph.models WHERE name = 'clean'),
          (SELECT ((m::jsonb)->'meta') - ARRAY['created', 'learn_seconds'] FROM ph.models WHERE name = 'aggregate'),
          'and so is its metadata, but for the count and the source relation (the protected path knows it)');

SELECT is(pg_postmaster_start_time(), :'ph_started'::timestamptz, 'the server never restarted');

-- cleanup (the ledger is append-only; its rows stay)
SET client_min_messages = warning;
RESET ROLE;
DROP SCHEMA ph CASCADE;
DROP SERVER ph_files CASCADE;

SELECT * FROM finish();
