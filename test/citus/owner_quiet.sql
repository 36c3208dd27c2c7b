-- server: citus
-- No message of the owner-rights work reaches the caller of a protected
-- learn on Citus, not even those raised while its subtransaction starts and
-- ends (Citus's SAVEPOINT, RELEASE and ROLLBACK TO on the workers) or those
-- citus.log_remote_commands prints: an analyst who turns every message on
-- sees none of the owner's remote commands (its queries, its savepoints).
-- Each call runs in a psql of its own, whose messages are read.  (What
-- remains is Citus's COMMIT of the transaction's worker connections when the
-- caller's transaction ends, after the call: "issuing COMMIT".)
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

SELECT plan(6);

CREATE ROLE oq_analyst;
CREATE TABLE oq (id int, "row" boolean[]);
SELECT create_distributed_table('oq', 'id');
INSERT INTO oq SELECT i, ARRAY[i % 2 = 0, i % 3 = 0, (i % 2 = 0) <> (i % 7 = 0)] FROM generate_series(1, 4000) i;
SELECT mrfdp.protect('oq', epsilon => 100, delta => 1e-6);
SELECT mrfdp.grant_learning('oq', 'oq_analyst');

-- a learn as the analyst with every message on; its output with the
-- messages (stderr), one line each
\set oq_fw `psql -X -q -c "SET ROLE oq_analyst" -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = debug5" -c "SET mrfdp.distributed_frank_wolfe = on" -c "SELECT mrf_learn_ising_from('oq', 'row', rho => 0.5, variables => 3) IS NOT NULL AS learned" 2>&1 | tr '\n' '~'`
\set oq_gather `psql -X -q -c "SET ROLE oq_analyst" -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = debug5" -c "SET mrfdp.distributed_frank_wolfe = off" -c "SELECT mrf_learn_ising_from('oq', 'row', rho => 0.5, variables => 3) IS NOT NULL AS learned" 2>&1 | tr '\n' '~'`
\set oq_stable `psql -X -q -c "SET ROLE oq_analyst" -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = debug5" -c "SET mrfdp.distributed_stable_blocks = on" -c "SELECT mrf_learn_structure_from('oq', 'row', epsilon => 1, delta => 1e-7, eta => 0.5, variables => 3) IS NOT NULL AS learned" 2>&1 | tr '\n' '~'`

SELECT ok(:'oq_fw' LIKE '% t~(1 row)%', 'distributed Frank-Wolfe learned with every message on');
SELECT unalike(regexp_replace(:'oq_fw', 'issuing COMMIT', '', 'g'), '%issuing%',
			   'and showed none of the owner''s remote commands');
SELECT ok(:'oq_gather' LIKE '% t~(1 row)%' AND regexp_replace(:'oq_gather', 'issuing COMMIT', '', 'g') NOT LIKE '%issuing%',
		  'the gathered read: learned, no remote command shown');
SELECT ok(:'oq_stable' LIKE '% t~(1 row)%' AND regexp_replace(:'oq_stable', 'issuing COMMIT', '', 'g') NOT LIKE '%issuing%',
		  'the stable mode''s blocks: learned, no remote command shown');
SELECT unalike((:'oq_fw' || :'oq_gather' || :'oq_stable')::text, '%SAVEPOINT%',
			   'no savepoint of the owner''s subtransactions either');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation = 'oq'::regclass), 3::bigint, 'three releases, three charges');

SELECT * FROM finish();
DROP TABLE oq;
DROP ROLE oq_analyst;
