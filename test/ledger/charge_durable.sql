-- server: session_preload
-- The charge worker commits with at least a local WAL flush whatever
-- synchronous_commit a database or role setting gives it (it connects with
-- them): an unflushed charge would be lost by a crash after the release,
-- and the budget with it (privacy.md 9.3).  With the extension owner's
-- synchronous_commit = off and the WAL writer slowed to 10 s, the WAL is
-- flushed to its end right after a release's charge; the same check right
-- after this session's own asynchronous commit finds it unflushed, so it
-- can fail.  Not in a transaction (the worker commits on its own).
SELECT plan(4);

DROP TABLE IF EXISTS cd_rows, cd_async;
CREATE TABLE cd_rows AS SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0] AS r FROM generate_series(1, 300) g;
CREATE TABLE cd_async (x int);
SET client_min_messages = warning;
SELECT mrfdp.protect('cd_rows', epsilon => 100, delta => 1e-6);
ALTER SYSTEM SET wal_writer_delay = '10s';
SELECT pg_reload_conf();
DO $$
BEGIN
	EXECUTE format('ALTER ROLE %I SET synchronous_commit = off',
				   (SELECT rolname FROM pg_roles r JOIN pg_extension e ON e.extowner = r.oid
					WHERE e.extname = 'mrfdp'));
END $$;
SELECT pg_sleep(0.5);

CHECKPOINT;
-- not inside ok(): pgTAP's result rows would give the statement a commit
-- record of its own, written asynchronously (a transaction that wrote
-- only temporary tables does not wait for its flush)
SELECT mrf_learn_ising(r, rho => 0.1) IS NOT NULL AS released FROM cd_rows r \gset
SELECT ok(pg_current_wal_flush_lsn() >= pg_current_wal_insert_lsn(),
		  'right after the charge the WAL is flushed to its end (the owner''s synchronous_commit = off overridden)');
SELECT ok(:'released'::boolean, 'a release from the protected relation');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation = 'cd_rows'::regclass), 1::bigint,
		  'and the ledger holds the charge');

-- the control: this session's own asynchronous commit is not flushed yet
SET synchronous_commit = off;
CHECKPOINT;
INSERT INTO cd_async VALUES (1);
SELECT ok(pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn(),
		  'after an asynchronous commit the same check fails (the WAL writer sleeps)');
RESET synchronous_commit;

DO $$
BEGIN
	EXECUTE format('ALTER ROLE %I RESET synchronous_commit',
				   (SELECT rolname FROM pg_roles r JOIN pg_extension e ON e.extowner = r.oid
					WHERE e.extname = 'mrfdp'));
END $$;
ALTER SYSTEM RESET wal_writer_delay;
SELECT pg_reload_conf();
DROP TABLE cd_rows, cd_async;
SELECT * FROM finish();
