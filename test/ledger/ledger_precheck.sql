-- server: session_preload
-- The aggregate path checks the budget before learning (issue 9): at each
-- group's first row and again before each group's final learning step, a
-- release that would not fit a protected relation read so far is refused
-- with the over-budget error, before any learning.  Discriminator: groups 3
-- to 5 hold one row, fewer than the two blocks the stable mode needs, so
-- learning them raises 22023 ("too few rows"); checked first, they raise the
-- budget's 42501 instead.  Not wrapped in a transaction (charges commit in a
-- background worker).
SELECT plan(21);

DROP TABLE IF EXISTS pc_sorted, pc_hash, pc_par, pc_rho, pc_many CASCADE;
SET mrfdp.test_seed = 5;
CREATE TEMP TABLE pc_start AS SELECT pg_postmaster_start_time() AS t;

-- Runs a statement; its SQLSTATE (00000: none), message and detail.
CREATE FUNCTION pg_temp.pc_try(q text, OUT state text, OUT msg text, OUT detail text)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	state := '00000';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
END $$;
-- The plan of a query as one text.
CREATE FUNCTION pg_temp.pc_plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	plan text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		plan := plan || line || E'\n';
	END LOOP;
	RETURN plan;
END $$;
-- The groups of a GROUP BY in the order it returns (and releases) them.
CREATE FUNCTION pg_temp.pc_group_order(rel regclass) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
	r int[];
BEGIN
	EXECUTE format('SELECT array_agg(g) FROM (SELECT g FROM %s GROUP BY g) s', rel) INTO r;
	RETURN r;
END $$;

-- Five groups of 40 rows; budget (2, 1e-5) fits exactly two (1, 1e-6) releases.
CREATE TABLE pc_sorted AS
SELECT g, ARRAY[(i + g) % 2 = 0, i % 3 = 0, i % 5 = 0] AS "row" FROM generate_series(1, 5) g, generate_series(1, 40) i;
DELETE FROM pc_sorted WHERE g >= 3 AND ("row")[2];		-- groups 3, 4, 5 keep fewer rows ...
DELETE FROM pc_sorted a USING pc_sorted b
WHERE a.g >= 3 AND a.g = b.g AND a.ctid > b.ctid;		-- ... one each
CREATE TABLE pc_hash AS SELECT * FROM pc_sorted WHERE false;
CREATE TABLE pc_par AS SELECT * FROM pc_sorted WHERE false;
INSERT INTO pc_hash SELECT g, ARRAY[(i + g) % 2 = 0, i % 3 = 0, i % 5 = 0] FROM generate_series(1, 5) g, generate_series(1, 40) i;
INSERT INTO pc_par SELECT g, ARRAY[(i + g) % 2 = 0, i % 3 = 0, i % 5 = 0] FROM generate_series(1, 5) g, generate_series(1, 4000) i;
ANALYZE pc_sorted, pc_hash, pc_par;
SELECT mrfdp.protect('pc_sorted', epsilon => 2, delta => 1e-5);
SELECT mrfdp.protect('pc_hash', epsilon => 2, delta => 1e-5);
SELECT mrfdp.protect('pc_par', epsilon => 2, delta => 1e-5);
SELECT is((SELECT array_agg(n ORDER BY g) FROM (SELECT g, count(*)::int AS n FROM pc_sorted GROUP BY g) s),
          ARRAY[40, 40, 1, 1, 1], 'groups 1 and 2 hold 40 rows, groups 3 to 5 one');
SELECT is((SELECT state FROM pg_temp.pc_try($$SELECT mrf_learn_structure("row", epsilon => 1, delta => 1e-6, eta => 0.5, blocks => 2) FROM pc_sorted WHERE g = 3$$)),
          '22023', 'learning a one-row group raises 22023 (when the budget fits)');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'pc_sorted'::regclass), 0::bigint, 'and charges nothing');

-- Sorted groups: group 3's first row comes after groups 1 and 2 were released.
SET enable_hashagg = off;
SELECT alike(pg_temp.pc_plan($$SELECT g, mrf_learn_structure_agg("row", mrf_options(epsilon => 1, delta => 1e-6, eta => 0.5, blocks => 2)) FROM pc_sorted GROUP BY g$$),
             '%GroupAggregate%', 'a sorted GROUP BY');
CREATE TEMP TABLE sorted_run AS
SELECT * FROM pg_temp.pc_try($$SELECT g, mrf_learn_structure_agg("row", mrf_options(epsilon => 1, delta => 1e-6, eta => 0.5, blocks => 2)) FROM pc_sorted GROUP BY g$$);
SELECT is((SELECT state FROM sorted_run), '42501', 'the third group is refused for its budget before it learns');
SELECT is((SELECT msg FROM sorted_run), 'privacy budget of relation public.pc_sorted is exhausted',
          'with the over-budget error');
SELECT alike((SELECT detail FROM sorted_run), 'mrf_learn_structure asked for epsilon = 1 and delta = 1e-06%',
             'which says what was asked');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'pc_sorted'::regclass), 2::bigint,
          'the two groups that fit were charged');
SELECT is((SELECT spent_approx_epsilon FROM mrfdp.budget WHERE relation = 'pc_sorted'::regclass), 2::numeric,
          'exactly what fits');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation = 'pc_sorted'::regclass), 2::bigint,
          'with one ledger row each');
RESET enable_hashagg;

-- Hashed groups: every group's first row comes before any release, so the
-- check before each group's learning step refuses the third.  The groups that
-- keep one row are the last three in the order the hash table returns them.
SET enable_sort = off;
SELECT alike(pg_temp.pc_plan($$SELECT g, mrf_learn_structure_agg("row", mrf_options(epsilon => 1, delta => 1e-6, eta => 0.5, blocks => 2)) FROM pc_hash GROUP BY g$$),
             '%HashAggregate%', 'a hashed GROUP BY');
CREATE TEMP TABLE hash_order AS SELECT pg_temp.pc_group_order('pc_hash') AS o;
DELETE FROM pc_hash h USING hash_order WHERE h.g = ANY (o[3:5]) AND ("row")[2];
DELETE FROM pc_hash a USING pc_hash b, hash_order WHERE a.g = ANY (o[3:5]) AND a.g = b.g AND a.ctid > b.ctid;
ANALYZE pc_hash;
SELECT is(pg_temp.pc_group_order('pc_hash'), (SELECT o FROM hash_order),
          'the hash order is unchanged: its last three groups hold one row');
CREATE TEMP TABLE hash_run AS
SELECT * FROM pg_temp.pc_try($$SELECT g, mrf_learn_structure_agg("row", mrf_options(epsilon => 1, delta => 1e-6, eta => 0.5, blocks => 2)) FROM pc_hash GROUP BY g$$);
SELECT is((SELECT state FROM hash_run), '42501', 'the third hashed group is refused for its budget before it learns');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'pc_hash'::regclass), 2::bigint,
          'the two groups that fit were charged');
RESET enable_sort;

-- A parallel plan: groups start in the workers (whose check sees nothing
-- charged yet), the leader's check before each learning step refuses the third.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT alike(pg_temp.pc_plan($$SELECT g, mrf_learn_ising_agg("row", mrf_options(rho => 0.125)) FROM pc_par GROUP BY g$$),
             '%Partial%Aggregate%', 'a partial aggregate in parallel workers');
SELECT mrfdp.protect('pc_par', epsilon => 1000, delta => 1e-6, rho_cap => 0.3);
CREATE TEMP TABLE par_run AS
SELECT * FROM pg_temp.pc_try($$SELECT g, mrf_learn_ising_agg("row", mrf_options(rho => 0.125)) FROM pc_par GROUP BY g$$);
SELECT is((SELECT state FROM par_run), '42501', 'the third parallel group is refused');
SELECT alike((SELECT detail FROM par_run), 'mrf_learn_ising asked for rho = 0.125 (zCDP)%at most rho = 0.0499999999999%',
             'saying what would still fit');
SELECT is((SELECT releases FROM mrfdp.budget WHERE relation = 'pc_par'::regclass), 2::bigint,
          'the two groups that fit were charged');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- GROUP BY over many groups of an unprotected table: every group released,
-- recorded once, and the relation looked up once per statement.
CREATE TABLE pc_many AS SELECT g % 2000 AS g, ARRAY[g % 2 = 0, g % 3 = 0] AS "row" FROM generate_series(1, 10000) g;
CREATE TEMP TABLE many_before AS SELECT coalesce(max(id), 0) AS id FROM mrfdp.ledger;
SELECT is((SELECT count(*) FROM (SELECT g, mrf_learn_ising_agg("row", mrf_options(rho => 0.5)) AS m FROM pc_many GROUP BY g) s
           WHERE m IS NOT NULL), 2000::bigint, '2000 groups of an unprotected table are released');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE id > (SELECT id FROM many_before) AND relation = 'pc_many'::regclass),
          2000::bigint, 'and recorded');

SELECT is((SELECT pg_postmaster_start_time() FROM pc_start LIMIT 1), (SELECT t FROM pc_start), 'the server did not restart');

DROP TABLE pc_sorted, pc_hash, pc_par, pc_many CASCADE;
SELECT * FROM finish();
