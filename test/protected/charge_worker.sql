-- server: session_preload
-- One charge worker per protected release: the worker that commits the
-- charge before the read waits (outside any transaction) for the count and
-- settles rows_read itself.  It must never be left waiting: a call that
-- fails after the charge (here its rows do not fit mrfdp.max_learner_memory,
-- a failure of the count), one caught by an exception block in a transaction
-- that goes on, and one refused over budget all leave no charge worker
-- behind, so that forty failures in a row do not use up the background
-- worker slots; successful calls still settle n.
SELECT plan(9);

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mrfdp_cw_analyst') THEN
		CREATE ROLE mrfdp_cw_analyst;
	END IF;
END $$;
SET client_min_messages = warning;
DROP TABLE IF EXISTS cw_prot CASCADE;
CREATE TABLE cw_prot (a boolean, b boolean, c boolean);
-- 200,000 rows need about 2 MB of working memory
INSERT INTO cw_prot SELECT g % 2 = 0, g % 3 = 0, g % 5 = 0 FROM generate_series(1, 200000) g;
GRANT USAGE ON SCHEMA public TO mrfdp_cw_analyst;
SELECT mrfdp.protect('cw_prot', epsilon => 1e6, delta => 1e-6);
SELECT mrfdp.grant_learning('cw_prot', 'mrfdp_cw_analyst');
-- waits (up to 10 s) until no charge worker is left; their number then
CREATE FUNCTION cw_workers_left() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	FOR i IN 1 .. 100 LOOP
		SELECT count(*) INTO n FROM pg_stat_activity WHERE backend_type = 'mrfdp charge';
		EXIT WHEN n = 0;
		PERFORM pg_sleep(0.1);
	END LOOP;
	RETURN n;
END $$;
CREATE FUNCTION cw_rows_read() RETURNS bigint[] LANGUAGE sql AS $$
	SELECT coalesce(array_agg(rows_read ORDER BY id), '{}') FROM mrfdp.ledger WHERE relation = 'cw_prot'::regclass
$$;

-- forty calls that fail after their charge
SET mrfdp.max_learner_memory = '1MB';
SET ROLE mrfdp_cw_analyst;
CREATE TEMP TABLE cw_out (sqlstate text);
DO $$
DECLARE
	s text;
BEGIN
	FOR i IN 1 .. 40 LOOP
		BEGIN
			PERFORM mrf_learn_ising_from('cw_prot', NULL, rho => 0.01);
			INSERT INTO cw_out VALUES ('released');
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE;
			INSERT INTO cw_out VALUES (s);
		END;
	END LOOP;
END $$;
RESET ROLE;
SELECT is((SELECT array_agg(DISTINCT sqlstate) FROM cw_out), ARRAY['54000'],
		  'forty calls whose rows do not fit fail after the charge (54000)');
SELECT is((SELECT count(*) FROM unnest(cw_rows_read()) r WHERE r = -1), 40::bigint,
		  'each was charged, its read unsettled (rows_read -1)');
SELECT is(cw_workers_left(), 0::bigint, 'and no charge worker waits for them');

-- one that fails inside a transaction that goes on (an exception block)
BEGIN;
SET LOCAL ROLE mrfdp_cw_analyst;
DO $$
BEGIN
	PERFORM mrf_learn_ising_from('cw_prot', NULL, rho => 0.01);
EXCEPTION WHEN OTHERS THEN
	NULL;
END $$;
RESET ROLE;
SELECT is(cw_workers_left(), 0::bigint,
		  'a failure caught in a transaction that goes on leaves no charge worker waiting either');
COMMIT;
RESET mrfdp.max_learner_memory;

-- over budget: refused by the worker, which leaves
SET ROLE mrfdp_cw_analyst;
SELECT throws_ok($$SELECT mrf_learn_ising_from('cw_prot', NULL, rho => 1e12)$$, '42501', NULL,
				 'a call over budget is refused');
RESET ROLE;
SELECT is(cw_workers_left(), 0::bigint, 'and leaves no charge worker');

-- calls that release: charged once each, n settled by the worker that charged
SET ROLE mrfdp_cw_analyst;
SELECT ok(bool_and(m IS NOT NULL), 'three calls release')
FROM (SELECT mrf_learn_ising_from('cw_prot', NULL, rho => 0.01) AS m FROM generate_series(1, 3)) s;
RESET ROLE;
SELECT is((SELECT array_agg(r) FROM unnest(cw_rows_read()) r WHERE r <> -1), ARRAY[200000, 200000, 200000]::bigint[],
		  'their ledger rows are settled with n');
SELECT is(cw_workers_left(), 0::bigint, 'no charge worker is left');

SELECT * FROM finish();
DROP TABLE cw_prot CASCADE;
DROP FUNCTION cw_workers_left(), cw_rows_read();
REVOKE USAGE ON SCHEMA public FROM mrfdp_cw_analyst;
