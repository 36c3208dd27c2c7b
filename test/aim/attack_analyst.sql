-- server: session_preload
-- AIM on the protected path attacked by an analyst who holds a learning
-- grant and no SELECT (docs/ledger.md, threat model): each section is one
-- attack and what must hold against it.
--   1. mrf_learn_aim_plan names no relation: it scans none and charges
--      nothing; it refuses a budget that some row count's tier of the
--      schedule cannot spend (a rho the middle tier's seed cannot measure
--      passed a check of the smallest and largest n, and a release at that
--      n was charged, then failed), and so does the release, for every n,
--      before its charge.
--   2. A materialized view that was never populated fails every read: it
--      is refused before the charge (it was charged, then withheld as a
--      failed read).  A budget tiny for its rows (rho 1e-9 over 10 rows)
--      releases a model: the estimator's steps ran its potentials past the
--      largest double and the release failed after its charge ("internal
--      status 2").
--   3. Failures after the charge (memory for n, a statement timeout while
--      AIM learns, an exception block, ROLLBACK TO SAVEPOINT after a
--      release) keep their ledger row and release nothing; the plan
--      function told the memory refusal from public sizes beforehand.
--   4. Every call is charged: three calls in one statement are three
--      releases, a call the statement never makes is none; a WITH HOLD
--      cursor's calls run (and are charged) at COMMIT, a cursor fetched
--      once charges one call.
--   5. Crafted workloads and options (unknown, unread, repeated or
--      out-of-range columns, wrong shapes, NaN, infinite, negative or
--      subnormal numbers, a column list with duplicates or system columns)
--      are refused before the charge, each with its SQLSTATE; the
--      resource settings stay the superuser's.
--   6. What the release says: its metadata holds only known members (a new
--      one must be reviewed for what it tells of the rows), n and a noisy
--      count; an alphabet value no row holds is learned like the others.
-- Not in a transaction (charges are committed by a background worker),
-- except where a test needs one.  No output here depends on a NOTICE.
SELECT plan(45);

\ir ../lib/protected.psql
SET client_min_messages = warning;
DROP TABLE IF EXISTS atk_aim, atk_aim_mem, atk_aim_wide, atk_aim_101, atk_aim_10 CASCADE;
DROP TYPE IF EXISTS atk_colour;
SET mrfdp.test_seed = 77;
CREATE TYPE atk_colour AS ENUM ('red', 'green', 'blue');
-- level's alphabet comes from its CHECK constraint; 'mid' is in it, no row holds it
CREATE TABLE atk_aim (colour atk_colour, flag boolean, level text CHECK (level IN ('lo', 'hi', 'mid')),
					  secret text);
-- secret is stored out of line (TOAST) in every tenth row
ALTER TABLE atk_aim ALTER COLUMN secret SET STORAGE EXTERNAL;
INSERT INTO atk_aim
SELECT (ARRAY['red', 'green', 'blue']::atk_colour[])[1 + g % 3], g % 4 = 0, (ARRAY['lo', 'hi'])[1 + (g / 3) % 2],
	   CASE WHEN g % 10 = 0 THEN repeat(md5(g::text), 100) ELSE md5(g::text) END
FROM generate_series(1, 1500) g;
CREATE MATERIALIZED VIEW atk_aim_mv AS SELECT colour, flag FROM atk_aim WITH NO DATA;
-- 80,000 rows of 3 columns: within 2 MB of rows, over it once AIM's workspace is added
CREATE TABLE atk_aim_mem AS
SELECT (ARRAY['red', 'green', 'blue']::atk_colour[])[1 + g % 3] AS a,
	   (ARRAY['red', 'green', 'blue']::atk_colour[])[1 + (g / 3) % 3] AS b, g % 5 = 0 AS c
FROM generate_series(1, 80000) g;
-- 96 columns of 4 values (test/aim/cancel.sql's rows): AIM runs for many seconds
CREATE TABLE atk_aim_wide AS
SELECT i AS g, array_agg(CASE WHEN j = 1 OR random() < 0.3 THEN floor(random() * 4)::int
							  ELSE (i * 7 + j / 2) % 4 END ORDER BY j) AS x
FROM generate_series(1, 3000) i, generate_series(1, 96) j GROUP BY i;
-- 101 boolean columns, 40 rows
DO $$
BEGIN
	EXECUTE 'CREATE TABLE atk_aim_101 (' ||
		(SELECT string_agg(format('b%s boolean', j), ', ') FROM generate_series(1, 101) j) || ')';
	EXECUTE 'INSERT INTO atk_aim_101 SELECT ' ||
		(SELECT string_agg(format('(g + %s) %% 3 = 0', j), ', ') FROM generate_series(1, 101) j) ||
		' FROM generate_series(1, 40) g';
	EXECUTE 'CREATE TABLE atk_aim_10 AS SELECT ' ||
		(SELECT string_agg(format('(g + %s) %% 3 = 0 AS b%s', j, j), ', ') FROM generate_series(1, 10) j) ||
		' FROM generate_series(1, 10) g';
END $$;
SELECT pg_temp.protect_for_analyst(r, epsilon => 1000, delta => 1e-6, rho_cap => 100)
FROM unnest(ARRAY['atk_aim', 'atk_aim_mv', 'atk_aim_mem', 'atk_aim_wide', 'atk_aim_101', 'atk_aim_10']::regclass[]) r;
RESET client_min_messages;

-- The ledger rows and the budget of a relation (as the owner): "rows / spent / releases".
CREATE FUNCTION pg_temp.atk_ledger(r regclass) RETURNS text LANGUAGE sql AS $$
	SELECT (SELECT count(*) FROM mrfdp.ledger WHERE relation = r) || ' / ' ||
		   (SELECT trim_scale(spent_zcdp_rho) || ' / ' || releases FROM mrfdp.budget WHERE relation = r)
$$;
-- The SQLSTATE an SQL text raises ('none' when it raises none).
CREATE FUNCTION pg_temp.atk_state(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	state text;
BEGIN
	EXECUTE sql;
	RETURN 'none';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE;
	RETURN state;
END $$;
GRANT EXECUTE ON FUNCTION pg_temp.atk_state(text) TO mrfdp_tap_analyst;
CREATE TEMP TABLE before AS
SELECT r, pg_temp.atk_ledger(r) AS s
FROM unnest(ARRAY['atk_aim', 'atk_aim_mv', 'atk_aim_mem', 'atk_aim_wide', 'atk_aim_101', 'atk_aim_10']::regclass[]) r;
CREATE FUNCTION pg_temp.atk_unchanged(r regclass) RETURNS boolean LANGUAGE sql AS $$
	SELECT pg_temp.atk_ledger(r) = (SELECT s FROM before b WHERE b.r = atk_unchanged.r)
$$;

SET ROLE mrfdp_tap_analyst;
SELECT throws_ok('SELECT count(*) FROM atk_aim', '42501', NULL, 'the analyst cannot read the relation');
RESET ROLE;

-- 1. The plan function
-- This backend's counters of atk_aim's reads and of its TOAST relation's
-- fetched blocks (PostgreSQL 15's "xact" counters hold what this backend
-- has not yet reported, earlier statements' too: compared before and after).
CREATE FUNCTION pg_temp.atk_reads() RETURNS bigint[] LANGUAGE sql AS $$
	SELECT ARRAY[pg_stat_get_xact_numscans('atk_aim'::regclass) + pg_stat_get_xact_tuples_returned('atk_aim'::regclass),
				 pg_stat_get_xact_blocks_fetched(reltoastrelid)]
	FROM pg_class WHERE oid = 'atk_aim'::regclass
$$;
BEGIN;
CREATE TEMP TABLE reads0 AS SELECT pg_temp.atk_reads() AS r;
SET LOCAL ROLE mrfdp_tap_analyst;
CREATE TEMP TABLE plans AS
SELECT mrf_learn_aim_plan(ARRAY[3, 2, 3], 0.1) AS a, mrf_learn_aim_plan(ARRAY[3, 2, 3], 0.1, 1500) AS b,
	   mrf_learn_aim_plan(ARRAY[3, 2, 3], 0.1, 1500, rounds => 40, one_way_share => 0.5, max_model_cells => 200,
						  schedule => 'paper') AS c;
RESET ROLE;
SELECT ok((SELECT bool_and(x->>'charged' = 'false') FROM plans, LATERAL (VALUES (a), (b), (c)) v(x)),
		  'the plan function says it charges nothing');
SELECT is(pg_temp.atk_reads(), (SELECT r FROM reads0), 'and it scans no protected relation: no relation is named');
SET LOCAL ROLE mrfdp_tap_analyst;
SELECT ok(mrf_learn_aim_from('atk_aim', NULL, rho => 0.0625, columns => ARRAY['colour', 'flag', 'level']) IS NOT NULL,
		  'a release in the same transaction');
RESET ROLE;
SELECT cmp_ok((pg_temp.atk_reads())[1], '>', (SELECT r[1] FROM reads0),
			  'is seen by the same counters (so they would see the plan''s read)');
SELECT is((pg_temp.atk_reads())[2], (SELECT r[2] FROM reads0),
		  'option columns read no other column: the secret''s out-of-line values were not fetched');
SELECT cmp_ok((SELECT (pg_temp.atk_reads())[2] FROM (SELECT count(DISTINCT md5(secret)) AS d FROM atk_aim) s WHERE d > 0), '>',
			  (SELECT r[2] FROM reads0), 'which the owner''s own read of it does fetch');
COMMIT;
SELECT is(pg_temp.atk_ledger('atk_aim'), '1 / 0.06298828125 / 1',
		  'the ledger holds the release alone, at rho (1 + 1/128)');

-- Signals from 500 to 2,500 (n about 350 million rows here) run the seeded
-- schedule's middle tier, whose seed measures its 100 pairs at 0.2925 rho
-- (0.3 below): at rho 3.07e-10 their noise leaves the sampler's range there
-- only.  The refusal holds for every n, since the protected path charges
-- before it counts.
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_aim_plan(array_fill(2, ARRAY[101]), 3.07e-10, 1000000000)$$, '22023',
				 'invalid value for option "rho"',
				 'the plan refuses a rho the middle tier''s seed cannot measure at n = 10^9');
SELECT is(pg_temp.atk_state($$SELECT mrf_learn_aim_plan(array_fill(2, ARRAY[101]), 3.07e-10, 40)$$), '22023',
		  'and at n = 40, whose tier could: a release cannot know n before its charge');
SELECT is(mrf_learn_aim_plan(array_fill(2, ARRAY[101]), 3.2e-10, 1000000000)->>'seed_share', '0.45000000000000007',
		  'a slightly larger rho plans the middle tier (seed 0.45) at n = 10^9');
SELECT throws_ok($$SELECT mrf_learn_aim_from('atk_aim_101', NULL, rho => 3.07e-10)$$, '22023',
				 'invalid value for option "rho"', 'the release refuses that rho from the options and p');
SELECT throws_ok($$SELECT mrf_learn_aim_from('atk_aim_101', NULL, rho => 3.07e-10, schedule => 'seeded')$$, '22023',
				 'invalid value for option "rho"', 'so does the seeded schedule by name');
RESET ROLE;
SELECT ok(pg_temp.atk_unchanged('atk_aim_101'), 'before anything is charged');

-- 2. A materialized view never populated
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_aim_from('atk_aim_mv', NULL, rho => 0.0625)$$, '55000',
				 'mrf_learn_aim_from cannot read materialized view atk_aim_mv, which has not been populated',
				 'a materialized view WITH NO DATA is refused from the catalog');
RESET ROLE;
SELECT ok(pg_temp.atk_unchanged('atk_aim_mv'), 'before its charge');
REFRESH MATERIALIZED VIEW atk_aim_mv;
SET ROLE mrfdp_tap_analyst;
SELECT ok(mrf_learn_aim_from('atk_aim_mv', NULL, rho => 0.0625) IS NOT NULL, 'once refreshed it is learned');
RESET ROLE;
SELECT is(pg_temp.atk_ledger('atk_aim_mv'), '1 / 0.06298828125 / 1', 'and charged once');

-- a budget tiny for its rows: noisy targets no distribution reaches
SET ROLE mrfdp_tap_analyst;
CREATE TEMP TABLE tiny AS SELECT mrf_learn_aim_from('atk_aim_10', NULL, rho => 1e-9) AS m;
RESET ROLE;
SELECT ok((SELECT m IS NOT NULL AND mrf_info(m)->>'rho_spent' = '0.000000001' FROM tiny),
		  'rho 1e-9 over 10 rows releases a model that spent its rho');
SELECT is((SELECT count(*) FROM tiny, mrf_sample(m, 5)), 5::bigint, 'which samples');
SELECT ok((SELECT abs(rho - 1.0078125e-9) < 1e-22 AND rows_read = 10 FROM mrfdp.ledger WHERE relation = 'atk_aim_10'::regclass),
		  'charged once, at rho (1 + 1/128)');
SET ROLE mrfdp_tap_analyst;
SELECT ok(mrf_learn_mst_from('atk_aim_10', NULL, rho => 1e-9) IS NOT NULL,
		  'MST, whose estimator it is too, releases at that budget');
RESET ROLE;

-- 3. Failures after the charge
SET mrfdp.max_learner_memory = '2MB';
SET ROLE mrfdp_tap_analyst;
SELECT is(mrf_learn_aim_plan(ARRAY[3, 3, 2], 0.125, 80000)->>'fits_memory', 'false',
		  'the plan tells from public sizes that 80,000 rows of 3 columns do not fit 2 MB');
SELECT throws_ok($$SELECT mrf_learn_aim_from('atk_aim_mem', NULL, rho => 0.125)$$, '54000', NULL,
				 'the release is refused for its n, after the charge and the count');
RESET ROLE;
SELECT ok((SELECT rho = 0.1259765625 AND rows_read = 80000 AND protected AND role = 'mrfdp_tap_analyst'::regrole
		   FROM mrfdp.ledger WHERE relation = 'atk_aim_mem'::regclass ORDER BY id DESC LIMIT 1),
		  'its ledger row stays: rho (1 + 1/128), n settled');
-- in an exception block of a transaction that then rolls back
BEGIN;
SET LOCAL ROLE mrfdp_tap_analyst;
CREATE TEMP TABLE caught (state text);
DO $$
BEGIN
	PERFORM mrf_learn_aim_from('atk_aim_mem', NULL, rho => 0.125);
	INSERT INTO caught VALUES ('released');
EXCEPTION WHEN OTHERS THEN
	INSERT INTO caught VALUES (SQLSTATE);
END $$;
RESET ROLE;
SELECT is((SELECT state FROM caught), '54000', 'an exception block catches the refusal');
ROLLBACK;
RESET mrfdp.max_learner_memory;
SELECT is(pg_temp.atk_ledger('atk_aim_mem'), '2 / 0.251953125 / 2',
		  'both refusals stay charged after the ROLLBACK');

-- a statement timeout while AIM learns: charged, n settled, nothing released
\ir ../lib/until_cancelled.psql
GRANT EXECUTE ON FUNCTION pg_temp.until_cancelled(text) TO mrfdp_tap_analyst;
SET ROLE mrfdp_tap_analyst;
SET statement_timeout = '1s';
CREATE TEMP TABLE timed_out AS
SELECT * FROM pg_temp.until_cancelled(
	$$SELECT mrf_learn_aim_from('atk_aim_wide', 'x', rho => 1, k => 4, variables => 96)$$);
RESET statement_timeout;
RESET ROLE;
SELECT is((SELECT state FROM timed_out), '57014', 'statement_timeout ends AIM over 96 columns on the protected path');
SELECT ok((SELECT rho = 1.0078125 AND rows_read = 3000 FROM mrfdp.ledger
		   WHERE relation = 'atk_aim_wide'::regclass ORDER BY id DESC LIMIT 1),
		  'the cancelled release was charged (the charge precedes the read) and its count settled');

-- ROLLBACK TO SAVEPOINT after a release
BEGIN;
SAVEPOINT before_release;
SET LOCAL ROLE mrfdp_tap_analyst;
CREATE TEMP TABLE kept AS
SELECT mrf_learn_aim_from('atk_aim', NULL, rho => 0.0625, columns => ARRAY['colour', 'flag']) AS m;
RESET ROLE;
ROLLBACK TO SAVEPOINT before_release;
COMMIT;
SELECT is(pg_temp.atk_ledger('atk_aim'), '2 / 0.1259765625 / 2',
		  'a release rolled back to a savepoint stays charged');

-- 4. Every call is charged
SET ROLE mrfdp_tap_analyst;
SELECT is((SELECT count(m) FROM (SELECT mrf_learn_aim_from('atk_aim', NULL, rho => 0.0625,
														   columns => ARRAY['colour', 'level']) AS m
								 FROM generate_series(1, 3)) s), 3::bigint,
		  'three calls in one statement release three models');
SELECT is((SELECT count(*) FROM (SELECT mrf_learn_aim_from('atk_aim', NULL, rho => 0.0625) WHERE false) s),
		  0::bigint, 'a call the statement never makes');
RESET ROLE;
SELECT is(pg_temp.atk_ledger('atk_aim'), '5 / 0.31494140625 / 5',
		  'is not charged; the three are charged one each');
-- cursors: a WITH HOLD cursor runs its calls at COMMIT, a cursor fetched once runs one
CREATE TEMP TABLE fetched (released boolean);
GRANT INSERT ON fetched TO mrfdp_tap_analyst;
SET ROLE mrfdp_tap_analyst;
BEGIN;
DECLARE held CURSOR WITH HOLD FOR
SELECT mrf_learn_aim_from('atk_aim', NULL, rho => 0.0625, columns => ARRAY['flag', 'level']) IS NOT NULL AS released
FROM generate_series(1, 2);
COMMIT;
DO $$
DECLARE
	c refcursor := 'held';
	r record;
BEGIN
	LOOP
		FETCH c INTO r;
		EXIT WHEN NOT FOUND;
		INSERT INTO fetched VALUES (r.released);
	END LOOP;
END $$;
CLOSE held;
BEGIN;
DECLARE once CURSOR FOR
SELECT mrf_learn_aim_from('atk_aim', NULL, rho => 0.0625, columns => ARRAY['flag', 'level']) IS NOT NULL AS released
FROM generate_series(1, 3);
DO $$
DECLARE
	c refcursor := 'once';
	r record;
BEGIN
	FETCH c INTO r;
	INSERT INTO fetched VALUES (r.released);
END $$;
CLOSE once;
COMMIT;
RESET ROLE;
SELECT is((SELECT count(*) FROM fetched WHERE released), 3::bigint,
		  'a WITH HOLD cursor released its two rows (run at COMMIT), a cursor fetched once one');
SELECT is(pg_temp.atk_ledger('atk_aim'), '8 / 0.50390625 / 8', 'each call made was charged, none that was not');
CREATE TEMP TABLE before_refusals AS SELECT pg_temp.atk_ledger('atk_aim') AS s;

-- 5. Crafted workloads and options: refused before the charge, each with its SQLSTATE
SET ROLE mrfdp_tap_analyst;
CREATE TEMP TABLE refusals AS
SELECT i, c, pg_temp.atk_state(format(
	'SELECT mrf_learn_aim_from(''atk_aim'', NULL, columns => ARRAY[''colour'', ''flag'', ''level''], %s)', c)) AS state
FROM unnest(ARRAY[
	$q$rho => 0.1, workload => '[["colour", "secret"]]'$q$,
	$q$rho => 0.1, workload => '[["colour", "size"]]'$q$,
	$q$rho => 0.1, workload => '[["colour", "colour"]]'$q$,
	$q$rho => 0.1, workload => '[["colour", "flag"], ["flag", "colour"]]'$q$,
	$q$rho => 0.1, workload => '[["colour", 1]]'$q$,
	$q$rho => 0.1, workload => '[[0, 1]]'$q$,
	$q$rho => 0.1, workload => '[[1, 4]]'$q$,
	$q$rho => 0.1, workload => '[[-1, 2]]'$q$,
	$q$rho => 0.1, workload => '[[1, 2.5]]'$q$,
	$q$rho => 0.1, workload => '[[1, 10000000000]]'$q$,
	$q$rho => 0.1, workload => '[]'$q$,
	$q$rho => 0.1, workload => '[[]]'$q$,
	$q$rho => 0.1, workload => '[["colour", null]]'$q$,
	$q$rho => 0.1, workload => '[["colour", true]]'$q$,
	$q$rho => 0.1, workload => '[[["colour", "flag"]]]'$q$,
	$q$rho => 0.1, workload => '{"colour": "flag"}'$q$,
	$q$rho => 0.1, workload => '[[""]]'$q$,
	$q$rho => 0.1, workload => '[[1, 2, 3, 1, 2, 3, 1, 2, 3]]'$q$,
	$q$rho => 0.1, workload => '[["colour", "flag", "level"]]', max_model_cells => 8$q$,
	$q$rho => 0.1, max_model_cells => 7$q$,
	$q$rho => 'NaN'$q$,
	$q$rho => 'Infinity'$q$,
	$q$rho => '-Infinity'$q$,
	$q$rho => -0.1$q$,
	$q$rho => 0$q$,
	$q$rho => 1e-320$q$,
	$q$rho => 1e308$q$,
	$q$epsilon => 'NaN', delta => 1e-6$q$,
	$q$epsilon => 1, delta => 'NaN'$q$,
	$q$epsilon => 1$q$,
	$q$rho => 0.1, iterations => -3$q$,
	$q$rho => 0.1, rounds => -1$q$,
	$q$rho => 0.1, max_model_cells => -5$q$,
	$q$rho => 0.1, one_way_share => -0.5$q$,
	$q$rho => 0.1, one_way_share => 'Infinity'$q$,
	$q$rho => 0.1, schedule => 'PAPER'$q$,
	$q$rho => 0.1, k => 0$q$,
	$q$rho => 0.1, domains => '{"colour": ["x"]}'$q$,
	$q$rho => 0.1, nulls => 'bogus'$q$
]) WITH ORDINALITY u(c, i);
CREATE TEMP TABLE column_refusals AS
SELECT i, c, pg_temp.atk_state(format('SELECT mrf_learn_aim_from(''atk_aim'', %s, rho => 0.1)', c)) AS state
FROM unnest(ARRAY[
	$q$NULL, columns => ARRAY['colour', 'colour']$q$,
	$q$NULL, columns => ARRAY['colour', 'ctid']$q$,
	$q$NULL, columns => ARRAY['colour', 'tableoid']$q$,
	$q$NULL, columns => ARRAY['colour', 'Flag']$q$,
	$q$NULL, columns => ARRAY['colour', NULL]$q$,
	$q$NULL, columns => ARRAY['colour']$q$,
	$q$NULL, columns => '{}'$q$,
	$q$NULL, columns => ARRAY[['colour', 'flag']]$q$,
	$q$'colour', columns => ARRAY['colour', 'flag']$q$,
	$q$NULL$q$,
	$q$'secret', variables => 2$q$
]) WITH ORDINALITY u(c, i);
RESET ROLE;
SELECT is((SELECT array_agg(state ORDER BY i) FROM refusals),
		  ARRAY['42703', '42703', '22023', '22023', '22023', '22023', '22023', '22023', '22023', '22023',
				'22023', '22023', '22023', '22023', '22023', '22023', '22023', '22023', '54000', '22023',
				'22023', '22023', '22023', '22023', '22023', '22023', '42501', '22023', '22023', '22023',
				'22023', '22023', '22023', '22023', '22023', '22023', '22023', '22023', '22023'],
		  'crafted workloads and options are refused with their SQLSTATEs (rho 1e308 by the budget)');
SELECT is((SELECT array_agg(state ORDER BY i) FROM column_refusals),
		  ARRAY['42701', '42703', '42703', '42703', '22004', '22023', '22023', '2202E', '22023', '42804', '42804'],
		  'so are crafted column lists (the whole row holds a text column without an alphabet)');
SELECT is(pg_temp.atk_ledger('atk_aim'), (SELECT s FROM before_refusals), 'none of them was charged');
SET ROLE mrfdp_tap_analyst;
SELECT is(ARRAY[pg_temp.atk_state('SET mrfdp.learner_threads = 2'),
				pg_temp.atk_state($$SET mrfdp.max_learner_memory = '4GB'$$),
				pg_temp.atk_state('SET mrfdp.test_seed = 1')],
		  ARRAY['42501', '42501', '42501'], 'the analyst cannot set threads, memory or the seed');
RESET ROLE;

-- 6. What the release says
SET ROLE mrfdp_tap_analyst;
CREATE TEMP TABLE released AS
SELECT mrf_info(mrf_learn_aim_from('atk_aim', NULL, rho => 0.0625, columns => ARRAY['colour', 'flag', 'level'])) AS i;
RESET ROLE;
SELECT is((SELECT array_agg(k ORDER BY k) FROM released, jsonb_object_keys(i) k
		   WHERE k NOT IN ('algorithm', 'annealed', 'cells', 'cliques', 'compressed_variables', 'created',
						   'estimation', 'junction_tree_cells', 'k', 'kind', 'l2_sensitivity_per_table',
						   'learn_seconds', 'learner', 'max_model_cells', 'max_model_cells_given', 'max_rounds',
						   'mechanism', 'merged_values', 'neighbours', 'notion', 'one_way_share',
						   'one_way_share_given', 'p', 'parameters', 'private', 'rho', 'rho_one_way', 'rho_seed',
						   'rho_spent', 'rounds', 'rounds_given', 'rows', 'schedule', 'schedule_option',
						   'schedule_signal', 'seed_pairs', 'seed_select_share', 'seed_share', 'selection',
						   'sigma2_first', 'sigma2_last', 'sigma2_seed', 'source', 'substituted_rows',
						   'symmetric', 'test_seed', 'variables', 'workload')),
		  NULL, 'the metadata holds only reviewed members (a new one must be checked for what it tells)');
SELECT is((SELECT array_agg(k ORDER BY k) FROM released, jsonb_object_keys(i->'substituted_rows') k),
		  ARRAY['mechanism', 'noisy_count', 'rho', 'variance'],
		  'the substituted rows are told by a noisy count and its noise');
SELECT is((SELECT i->>'rows' FROM released), '1500', 'n is told (it is public)');
SELECT is((SELECT i->'source' FROM released), '{"columns": ["colour", "flag", "level"], "relation": "public.atk_aim"}'::jsonb,
		  'the source names the relation and the columns read, not the secret one');
SELECT is((SELECT v->'labels' FROM released, jsonb_array_elements(i->'variables') v WHERE v->>'name' = 'level'),
		  '["lo", "hi", "mid"]'::jsonb,
		  'a value of the declared alphabet that no row holds is learned like the others');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation = 'atk_aim'::regclass), 9::bigint,
		  'the release was charged once');

DROP MATERIALIZED VIEW atk_aim_mv;
DROP TABLE atk_aim, atk_aim_mem, atk_aim_wide, atk_aim_101, atk_aim_10;
DROP TYPE atk_colour;
RESET mrfdp.test_seed;
SELECT * FROM finish();
