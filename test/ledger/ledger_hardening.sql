-- server: session_preload
-- Ledger hardening (issue 9): parallel workers, exact amounts across the
-- whole range, budget messages people can act on, amounts remaining() says
-- fit.  Not wrapped in a transaction: charges are committed by a background
-- worker, which sees only committed catalog rows.
SELECT plan(61);

\ir ../lib/protected.psql
DROP TABLE IF EXISTS hl_par, hl_plain, hl_parted, hl_exact, hl_exact_pure, hl_exact_huge, hl_rows,
	hl_msg, hl_fit, hl_pure CASCADE;
DROP FUNCTION IF EXISTS hl_leak(int), hl_leak_part(int);
SET mrfdp.test_seed = 21;

-- Runs a statement; its SQLSTATE (00000: none), message, detail and hint.
CREATE FUNCTION pg_temp.hl_try(q text, OUT state text, OUT msg text, OUT detail text, OUT hint text)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	state := '00000';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
		detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
END $$;
-- The largest "Workers Launched" of EXPLAIN ANALYZE of a query.
CREATE FUNCTION pg_temp.hl_workers(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	line text;
	n int := 0;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ' || q LOOP
		IF line ~ 'Workers Launched: [0-9]+' THEN
			n := greatest(n, substring(line FROM 'Workers Launched: ([0-9]+)')::int);
		END IF;
	END LOOP;
	RETURN n;
END $$;
CREATE FUNCTION pg_temp.hl_releases(rel regclass) RETURNS bigint LANGUAGE sql AS
$$ SELECT releases FROM mrfdp.budget WHERE relation = rel $$;

-------------------------------------------------------------------------------
-- Finding 4: a PARALLEL SAFE function reading a protected relation inside a
-- parallel worker was never recorded; its model was released uncharged.
-------------------------------------------------------------------------------
CREATE TABLE hl_par AS SELECT g AS id, ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0] AS "row" FROM generate_series(1, 600) g;
CREATE TABLE hl_plain AS SELECT g FROM generate_series(1, 3000) g;
CREATE TABLE hl_parted (id int, "row" boolean[]) PARTITION BY RANGE (id);
CREATE TABLE hl_parted_1 PARTITION OF hl_parted FOR VALUES FROM (0) TO (100000);
INSERT INTO hl_parted SELECT id, "row" FROM hl_par;
SELECT mrfdp.protect('hl_par', epsilon => 1000, delta => 1e-6);
SELECT mrfdp.protect('hl_parted', epsilon => 1000, delta => 1e-6);
ANALYZE hl_par, hl_plain, hl_parted_1;
CREATE FUNCTION hl_leak(int) RETURNS boolean[] LANGUAGE sql STABLE PARALLEL SAFE
	AS $$ SELECT "row" FROM hl_par WHERE id = $1 % 600 + 1 $$;
CREATE FUNCTION hl_leak_part(int) RETURNS boolean[] LANGUAGE sql STABLE PARALLEL SAFE
	AS $$ SELECT "row" FROM hl_parted_1 WHERE id = $1 % 600 + 1 $$;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET force_parallel_mode = on;
SET parallel_leader_participation = off;	-- only workers run the plan's scan

SELECT cmp_ok(pg_temp.hl_workers('SELECT count(*) FROM hl_plain'), '>', 0,
              'parallel workers run the plan (the setting of the tests below)');
CREATE TEMP TABLE par_before AS SELECT pg_temp.hl_releases('hl_par') AS par, pg_temp.hl_releases('hl_parted') AS parted;
SELECT throws_ok($$SELECT mrf_learn_ising_agg(hl_leak(g), mrf_options(rho => 0.125)) FROM hl_plain$$,
                 '0A000', 'protected relation hl_par cannot be read inside a parallel worker',
                 'a parallel-safe function reading a protected relation in a worker is refused');
SELECT is(pg_temp.hl_releases('hl_par'), (SELECT par FROM par_before), 'and nothing was charged');
SELECT throws_ok($$SELECT mrf_learn_ising_agg(hl_leak_part(g), mrf_options(rho => 0.125)) FROM hl_plain$$,
                 '0A000', 'protected relation hl_parted cannot be read inside a parallel worker',
                 'reading the partition of a protected parent in a worker is refused too');
SELECT alike((SELECT hint FROM pg_temp.hl_try($$SELECT mrf_learn_ising_agg(hl_leak(g), mrf_options(rho => 0.125)) FROM hl_plain$$)),
             '%max_parallel_workers_per_gather = 0%', 'the hint says how to run it without workers');
SELECT is(pg_temp.hl_releases('hl_parted'), (SELECT parted FROM par_before), 'nothing was charged to the parent');
SELECT cmp_ok(pg_temp.hl_workers($$SELECT mrf_learn_ising_agg(ARRAY[g % 2 = 0, g % 7 = 0], mrf_options(rho => 0.125)) FROM hl_plain$$),
              '>', 0, 'a parallel scan of a plain table into a learner still runs in workers');
SELECT ok((SELECT mrf_learn_ising_agg(ARRAY[g % 2 = 0, g % 7 = 0], mrf_options(rho => 0.125)) IS NOT NULL FROM hl_plain),
          'and releases its model');
SELECT ok((SELECT mrf_learn_ising_agg("row", mrf_options(rho => 0.125)) IS NOT NULL FROM hl_par),
          'a parallel scan of the protected relation itself releases');
SELECT is(pg_temp.hl_releases('hl_par'), (SELECT par + 1 FROM par_before), 'and is charged');
SELECT ok((SELECT mrf_learn_ising_agg("row", mrf_options(rho => 0.125)) IS NOT NULL FROM hl_par WHERE hl_leak(id) IS NOT NULL),
          'a worker function reading a relation the plan itself reads is allowed');
SELECT is(pg_temp.hl_releases('hl_par'), (SELECT par + 2 FROM par_before), 'and is charged');
SET parallel_leader_participation = on;
SET max_parallel_workers_per_gather = 0;
SELECT ok((SELECT mrf_learn_ising_agg(hl_leak(g), mrf_options(rho => 0.125)) IS NOT NULL FROM hl_plain),
          'without workers the same query releases');
SELECT is(pg_temp.hl_releases('hl_par'), (SELECT par + 3 FROM par_before), 'and is charged');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET force_parallel_mode;
RESET parallel_leader_participation;

-------------------------------------------------------------------------------
-- Finding 10: every amount the options accept is recorded exactly (the
-- exact decimal of 0.003 did not fit a 64-byte buffer on unprotected
-- relations).  rho, epsilon and delta over their whole range.
-------------------------------------------------------------------------------
SELECT is(mrfdp.exact_numeric(5e-324) * 2::numeric ^ 1074, 1::numeric,
          'the smallest positive double is 2^-1074 exactly');
SELECT is(mrfdp.exact_numeric(1.7976931348623157e308), 2::numeric ^ 1024 - 2::numeric ^ 971,
          'the largest double is 2^1024 - 2^971 exactly');
SELECT is(mrfdp.exact_numeric(0.003)::float8, 0.003::float8, 'an exact decimal reads back as the same double');

CREATE TABLE hl_rows AS
SELECT ARRAY[g % 2 = 0, g % 3 = 0, g % 5 = 0] AS "row", ARRAY[g % 2, g % 3, (g / 3) % 2] AS k
FROM generate_series(1, 300) g;
CREATE TABLE hl_exact AS SELECT * FROM hl_rows;
CREATE TABLE hl_exact_pure AS SELECT * FROM hl_rows;
CREATE TABLE hl_exact_huge AS SELECT * FROM hl_rows;
SELECT pg_temp.protect_for_analyst('hl_exact', epsilon => 1.7976931348623157e308, delta => 0.9999999999999999);
SELECT pg_temp.protect_for_analyst('hl_exact_pure', epsilon => 1.7976931348623157e308, delta => 0);
SELECT mrfdp.protect('hl_exact_huge', epsilon => 1.7976931348623157e308, delta => 0);

-- One release per (path, relation, learner, amount): how it ended, and what
-- the ledger and the budget recorded.  A procedure, so the release runs in a
-- transaction of its own: the catalog reads before and after are not the
-- release's (they would be recorded as reads of the statement).
CREATE TEMP TABLE exact_runs (path text, rel regclass, learner text, notion text, amount float8,
	state text, msg text, ledger_rows bigint, ledger_rho float8, ledger_epsilon float8,
	ledger_delta float8, spent_delta numeric);
CREATE PROCEDURE pg_temp.hl_exact_run(path text, rel regclass, learner text, amounts float8[])
LANGUAGE plpgsql AS $$
DECLARE
	amount float8;
	q text;
	a text;
	last_id bigint;
	spent_before numeric;
	r record;
	notion text := CASE learner WHEN 'ising' THEN 'zCDP' WHEN 'cliques' THEN 'pure' ELSE 'approximate' END;
BEGIN
	FOREACH amount IN ARRAY amounts LOOP
		a := amount::text;		-- shortest exact text: reads back as the same double
		IF path = 'aggregate' THEN
			q := CASE learner
				WHEN 'ising' THEN format('SELECT mrf_learn_ising("row", rho => %s) FROM %s', a, rel)
				WHEN 'cliques' THEN format($q$SELECT mrf_learn_cliques(k, cliques => '[[1, 2]]', k => 3, epsilon => %s) FROM %s$q$, a, rel)
				WHEN 'structure_delta' THEN format('SELECT mrf_learn_structure("row", epsilon => 1, delta => %s, eta => 0.5, blocks => 2) FROM %s', a, rel)
			END;
		ELSE
			q := CASE learner
				WHEN 'ising' THEN format($q$SELECT mrf_learn_ising_from(%L, 'row', rho => %s, variables => 3)$q$, rel::text, a)
				WHEN 'cliques' THEN format($q$SELECT mrf_learn_cliques_from(%L, 'k', cliques => '[[1, 2]]', k => 3, epsilon => %s, variables => 3)$q$, rel::text, a)
				WHEN 'structure_delta' THEN format($q$SELECT mrf_learn_structure_from(%L, 'row', epsilon => 1, delta => %s, eta => 0.5, blocks => 2, variables => 3)$q$, rel::text, a)
			END;
		END IF;
		last_id := (SELECT coalesce(max(id), 0) FROM mrfdp.ledger);
		spent_before := (SELECT spent_zcdp_rho + spent_pure_epsilon + spent_approx_epsilon + spent_approx_delta
						 FROM mrfdp.budget WHERE relation = rel);
		COMMIT;
		IF path = 'protected' THEN
			SET ROLE mrfdp_tap_analyst;		-- learns without SELECT
		END IF;
		SELECT * INTO r FROM pg_temp.hl_try(q);
		RESET ROLE;
		COMMIT;
		INSERT INTO exact_runs
		SELECT path, rel, learner, notion, amount, r.state, r.msg,
			   (SELECT count(*) FROM mrfdp.ledger l WHERE l.id > last_id AND l.relation = rel),
			   (SELECT l.rho FROM mrfdp.ledger l WHERE l.id > last_id AND l.relation = rel ORDER BY l.id DESC LIMIT 1),
			   (SELECT l.epsilon FROM mrfdp.ledger l WHERE l.id > last_id AND l.relation = rel ORDER BY l.id DESC LIMIT 1),
			   (SELECT l.delta FROM mrfdp.ledger l WHERE l.id > last_id AND l.relation = rel ORDER BY l.id DESC LIMIT 1),
			   (SELECT spent_zcdp_rho + spent_pure_epsilon + spent_approx_epsilon + spent_approx_delta
				FROM mrfdp.budget WHERE relation = rel) - spent_before;
		COMMIT;
	END LOOP;
END $$;

CALL pg_temp.hl_exact_run('aggregate', 'hl_rows', 'ising',
	ARRAY[0.5, 0.003, 0.001, 1e-4, 1e-7, 1e-100, 1e-300, 1e-310, 5e-324, 1.7976931348623157e308]);
CALL pg_temp.hl_exact_run('aggregate', 'hl_rows', 'cliques', ARRAY[0.003, 1e-7, 1e200, 1e-300, 5e-324, 1.7976931348623157e308]);
CALL pg_temp.hl_exact_run('aggregate', 'hl_rows', 'structure_delta', ARRAY[0.003, 1e-7, 1e-300, 5e-324, 0.9999999999999999]);
CALL pg_temp.hl_exact_run('aggregate', 'hl_exact', 'ising', ARRAY[0.003, 1e-7, 1e-300, 1e-310, 5e-324]);
CALL pg_temp.hl_exact_run('aggregate', 'hl_exact', 'structure_delta', ARRAY[1e-300, 5e-324]);
CALL pg_temp.hl_exact_run('aggregate', 'hl_exact_pure', 'cliques', ARRAY[0.003, 1e-7, 1e200, 1e-300, 5e-324]);
CALL pg_temp.hl_exact_run('aggregate', 'hl_exact_huge', 'cliques', ARRAY[1.7976931348623157e308]);
CALL pg_temp.hl_exact_run('protected', 'hl_exact', 'ising', ARRAY[0.003, 1e-7, 1e-300, 5e-324]);
CALL pg_temp.hl_exact_run('protected', 'hl_exact', 'structure_delta', ARRAY[0.003, 1e-300, 5e-324]);
CALL pg_temp.hl_exact_run('protected', 'hl_exact_pure', 'cliques', ARRAY[0.003, 1e200, 1e-300, 5e-324]);

-- A release either is recorded exactly or ends before anything is recorded.
SELECT is((SELECT count(*) FROM exact_runs WHERE msg LIKE '%does not fit its buffer%'), 0::bigint,
          'no amount overflows an exact-decimal buffer');
SELECT is((SELECT count(*) FROM exact_runs WHERE path = 'aggregate' AND state <> '00000' AND (ledger_rows > 0 OR spent_delta <> 0)),
          0::bigint, 'an aggregate release that failed recorded and charged nothing');
SELECT is((SELECT count(*) FROM exact_runs WHERE (state = '00000' AND ledger_rows <> 1) OR ledger_rows > 1), 0::bigint,
          'every release left exactly one ledger row per relation');
SELECT is((SELECT count(*) FROM exact_runs WHERE state = '00000' AND path = 'aggregate' AND NOT (
			CASE notion WHEN 'zCDP' THEN ledger_rho = amount AND mrfdp.exact_numeric(ledger_rho) = mrfdp.exact_numeric(amount)
						WHEN 'pure' THEN ledger_epsilon = amount AND mrfdp.exact_numeric(ledger_epsilon) = mrfdp.exact_numeric(amount)
						ELSE ledger_delta = amount AND ledger_epsilon = 1 END)), 0::bigint,
          'the aggregate path records exactly the amount used');
SELECT is((SELECT count(*) FROM exact_runs WHERE ledger_rows = 1 AND rel <> 'hl_rows'::regclass AND spent_delta <>
			CASE notion WHEN 'zCDP' THEN mrfdp.exact_numeric(ledger_rho)
						WHEN 'pure' THEN mrfdp.exact_numeric(ledger_epsilon)
						ELSE mrfdp.exact_numeric(ledger_epsilon) + mrfdp.exact_numeric(ledger_delta) END), 0::bigint,
          'a protected relation is charged exactly what its ledger row says');
SELECT is((SELECT count(*) FROM exact_runs WHERE state = '00000' AND path = 'protected' AND NOT (
			CASE notion WHEN 'zCDP' THEN ledger_rho >= amount WHEN 'pure' THEN ledger_epsilon >= amount
						ELSE ledger_delta = amount END)), 0::bigint,
          'the protected path charges at least the amount asked for');
-- the amounts of the issue, and long exact decimals, are released and recorded
SELECT ok((SELECT array_agg(amount) FROM exact_runs WHERE path = 'aggregate' AND rel = 'hl_rows'::regclass
            AND learner = 'ising' AND state = '00000')
           @> ARRAY[0.5, 0.003, 0.001, 1e-4, 1e-7, 1e-100, 1e-300, 1.7976931348623157e308]::float8[],
              'unprotected: rho 0.003, 1e-4, 1e-7, 1e-300 and the largest double are released');
SELECT ok((SELECT bool_and(state = '00000') FROM exact_runs WHERE rel = 'hl_rows'::regclass
           AND ((learner = 'cliques' AND amount IN (0.003, 1e-7, 1e200, 1.7976931348623157e308))
                OR (learner = 'structure_delta' AND amount IN (0.003, 1e-7, 1e-300, 0.9999999999999999)))),
          'unprotected: pure epsilon up to the largest double and delta from 1e-300 to the largest below 1 are released');
SELECT is((SELECT count(*) FROM exact_runs WHERE rel <> 'hl_rows'::regclass AND state = '00000'
            AND ((learner IN ('ising', 'structure_delta') AND amount IN (0.003, 1e-300))
                 OR (learner = 'cliques' AND amount IN (0.003, 1e200, 1.7976931348623157e308)))), 12::bigint,
          'protected, both paths: rho and delta down to 1e-300, pure epsilon up to the largest double are charged and released');
SELECT is((SELECT spent_pure_epsilon FROM mrfdp.budget WHERE relation = 'hl_exact_huge'::regclass),
          mrfdp.exact_numeric(1.7976931348623157e308), 'a pure budget of the largest double is spent to its last bit');

-------------------------------------------------------------------------------
-- Budget messages: delta is explicit; an over-budget error says what was
-- asked, what is left in the release's notion, and what fits.
-------------------------------------------------------------------------------
CREATE TABLE hl_msg AS SELECT * FROM hl_rows;
CREATE TABLE hl_fit AS SELECT * FROM hl_rows;
CREATE TABLE hl_pure AS SELECT * FROM hl_rows;
SELECT throws_ok($$SELECT mrfdp.protect('hl_msg', epsilon => 1)$$, '22004', 'mrfdp.protect needs delta',
                 'protect() without delta is refused, not a silent pure budget');
SELECT alike((SELECT hint FROM pg_temp.hl_try($$SELECT mrfdp.protect('hl_msg', epsilon => 1)$$)),
             '%delta => 0 makes a pure-DP budget%mrf_learn_cliques%',
             'its hint explains delta => 0 and the learners that need delta > 0');
SELECT alike((SELECT hint FROM pg_temp.hl_try($$SELECT mrfdp.protect('hl_msg', epsilon => 1)$$)),
             '%zCDP learners%need delta > 0%', 'and that zCDP learners need delta > 0');
SELECT is((SELECT count(*) FROM mrfdp.budget WHERE relation = 'hl_msg'::regclass), 0::bigint, 'nothing was protected');
SELECT lives_ok($$SELECT mrfdp.protect('hl_pure', epsilon => 1, delta => 0)$$, 'delta => 0 given explicitly makes a pure budget');
SELECT throws_ok($$SELECT mrf_learn_ising("row", rho => 0.125) FROM hl_pure$$, '42501',
                 'privacy budget of relation public.hl_pure admits only pure-DP releases',
                 'a zCDP release on a pure budget says so');

-- rho_cap 0.375 and binary fractions: exact amounts.
SELECT mrfdp.protect('hl_msg', epsilon => 1000, delta => 1e-6, rho_cap => 0.375);
SELECT ok((SELECT mrf_learn_ising("row", rho => 0.25) IS NOT NULL FROM hl_msg), 'a release of 0.25 of 0.375');
CREATE TEMP TABLE over AS SELECT * FROM pg_temp.hl_try($$SELECT mrf_learn_ising("row", rho => 0.25) FROM hl_msg$$);
SELECT is((SELECT state FROM over), '42501', 'the next 0.25 is refused');
SELECT is((SELECT msg FROM over), 'privacy budget of relation public.hl_msg cannot cover this release',
          'as not covered, not as exhausted');
SELECT alike((SELECT detail FROM over), 'mrf_learn_ising asked for rho = 0.25 (zCDP)%at most rho = 0.125%',
             'the detail says what was asked and what fits');
-- a role that may read the relation but not its budget is not told what is left
GRANT SELECT ON hl_msg TO mrfdp_tap_outsider;
SET ROLE mrfdp_tap_outsider;
CREATE TEMP TABLE over_outsider AS SELECT * FROM pg_temp.hl_try($$SELECT mrf_learn_ising("row", rho => 0.25) FROM hl_msg$$);
RESET ROLE;
SELECT is((SELECT state || ': ' || msg FROM over_outsider),
          '42501: privacy budget of relation public.hl_msg cannot cover this release',
          'a role without the budget''s grant is refused alike');
SELECT ok((SELECT detail LIKE '%asked for rho = 0.25 (zCDP)%shown only to the relation''s owner%'
                  AND detail NOT LIKE '%0.125%' FROM over_outsider),
          'but is not told what is left');
SELECT ok((SELECT mrf_learn_ising("row", rho => 0.125) IS NOT NULL FROM hl_msg), 'exactly what fits is released');
SELECT throws_ok($$SELECT mrf_learn_ising("row", rho => 0.125) FROM hl_msg$$, '42501',
                 'privacy budget of relation public.hl_msg is exhausted', 'then the budget is exhausted');
SELECT is((SELECT rho FROM mrfdp.remaining('hl_msg')), 0::float8, 'and remaining() says no rho fits');

-- An epsilon-bound budget: what remaining() reports fits exactly, a bit more does not.
SELECT mrfdp.protect('hl_fit', epsilon => 3, delta => 1e-6);
SELECT ok((SELECT mrf_learn_ising("row", rho => 0.1) IS NOT NULL FROM hl_fit), 'a first release');
CREATE TEMP TABLE fit AS SELECT * FROM mrfdp.remaining('hl_fit');
CREATE TEMP TABLE fit_approx AS SELECT * FROM mrfdp.remaining('hl_fit', delta => 1e-7);
SELECT ok((SELECT rho > 0.05 AND rho < mrf_zcdp_for_dp(3, 1e-6) - 0.1 + 1e-9 FROM fit), 'remaining() reports a rho');
SELECT ok((SELECT pure_epsilon > 0 AND pure_epsilon <= sqrt(2 * rho) * (1 + 1e-12) FROM fit),
          'a pure epsilon, counted as eps^2/2 against the same rho');
SELECT ok((SELECT approx_epsilon > 0 AND approx_epsilon < 3 FROM fit_approx), 'an epsilon at delta 1e-7');
SELECT ok((SELECT approx_delta > 0 AND approx_delta < 1e-6 FROM fit), 'and a largest delta');
SELECT ok((SELECT f.approx_epsilon > a.approx_epsilon FROM fit f, fit_approx a),
          'a smaller delta leaves more epsilon');
SELECT alike((SELECT detail FROM pg_temp.hl_try(format('SELECT mrf_learn_ising("row", rho => %s) FROM hl_fit', (SELECT rho * 2 FROM fit)))),
             format('%%at most rho = %s.%%', (SELECT rho FROM fit)), 'the over-budget error names the rho remaining() reports');
SELECT is((SELECT state FROM pg_temp.hl_try(format('SELECT mrf_learn_ising("row", rho => %s) FROM hl_fit', (SELECT rho * (1 + 1e-9) FROM fit)))),
          '42501', 'a bit more rho than reported is refused');
SELECT is((SELECT state FROM pg_temp.hl_try(format($q$SELECT mrf_learn_cliques(k, cliques => '[[1, 2]]', k => 3, epsilon => %s) FROM hl_fit$q$,
                                                   (SELECT pure_epsilon * (1 + 1e-9) FROM fit)))),
          '42501', 'a bit more pure epsilon than reported is refused');
SELECT alike((SELECT detail FROM pg_temp.hl_try(format($q$SELECT mrf_learn_cliques(k, cliques => '[[1, 2]]', k => 3, epsilon => %s) FROM hl_fit$q$,
                                                       (SELECT pure_epsilon * 2 FROM fit)))),
             format('%%(pure DP)%%at most epsilon = %s.%%', (SELECT pure_epsilon FROM fit)),
             'the over-budget error of a pure release names the pure epsilon remaining() reports');
SELECT is((SELECT state FROM pg_temp.hl_try(format('SELECT mrf_learn_structure("row", epsilon => %s, delta => 1e-7, eta => 0.5, blocks => 2) FROM hl_fit',
                                                   (SELECT approx_epsilon * (1 + 1e-9) FROM fit_approx)))),
          '42501', 'a bit more (epsilon, delta) than reported is refused');
SELECT alike((SELECT detail FROM pg_temp.hl_try(format('SELECT mrf_learn_structure("row", epsilon => %s, delta => 1e-7, eta => 0.5, blocks => 2) FROM hl_fit',
                                                       (SELECT approx_epsilon * 2 FROM fit_approx)))),
             format('%%((epsilon, delta)-DP)%%at most epsilon = %s at that delta.%%', (SELECT approx_epsilon FROM fit_approx)),
             'the over-budget error of an approximate release names the epsilon at its delta');
SELECT is((SELECT state FROM pg_temp.hl_try(format('SELECT mrf_learn_ising("row", rho => %s) FROM hl_fit', (SELECT rho FROM fit)))),
          '00000', 'exactly the reported rho is released');
SELECT ok((SELECT rho < 1e-9 FROM mrfdp.remaining('hl_fit')), 'after which (almost) no rho is left');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'hl_fit'::regclass), 2::bigint,
          'only the two releases that fit were charged');
-- the approximate amount, after the owner raised the budget
SELECT mrfdp.protect('hl_fit', epsilon => 3 + 2, delta => 1e-6);
SELECT is((SELECT state FROM pg_temp.hl_try(format('SELECT mrf_learn_structure("row", epsilon => %s, delta => 1e-7, eta => 0.5, blocks => 2) FROM hl_fit',
                                                   (SELECT approx_epsilon FROM mrfdp.remaining('hl_fit', delta => 1e-7))))),
          '00000', 'exactly the reported (epsilon, delta) is released');
SELECT ok((SELECT approx_epsilon < 1e-9 FROM mrfdp.remaining('hl_fit', delta => 1e-7)), 'after which no epsilon is left at that delta');
SELECT throws_ok($$SELECT * FROM mrfdp.remaining('hl_fit', delta => 0)$$, '22023', NULL,
                 'remaining() refuses a delta outside (0, 1)');

-- (hl_exact_run reads the catalog itself, as SQL, before each COMMIT of its
-- CALL: those reads are the statement's, and its releases are charged them)
SELECT is((SELECT count(*) FROM mrfdp.ledger l JOIN pg_class c ON c.oid = l.relation::oid
           WHERE c.relnamespace = 'mrfdp'::regnamespace AND l.statement NOT LIKE 'CALL pg_temp.hl_exact_run(%'),
          0::bigint, 'no ledger row names the catalog itself');

-- Clean up (ledger rows stay: append-only).
DROP TABLE hl_par, hl_plain, hl_parted, hl_exact, hl_exact_pure, hl_exact_huge, hl_rows, hl_msg, hl_fit, hl_pure CASCADE;
DROP FUNCTION hl_leak(int), hl_leak_part(int);
SELECT * FROM finish();
