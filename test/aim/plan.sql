-- server: session_preload
-- mrf_learn_aim_plan (issue 25 item 4): what an AIM release would be, from
-- public sizes only: it names no relation, reads no row and charges
-- nothing; its rounds and rates are the release's own (the learned model's
-- metadata agrees); the work grows with width; bad input has its SQLSTATE.
BEGIN;
SELECT plan(20);
SET LOCAL mrfdp.test_seed = 7;

CREATE TEMP TABLE plans AS
SELECT w, mrf_learn_aim_plan(array_fill(3, ARRAY[w]), 1, 10000) AS pl FROM (VALUES (16), (48), (96)) v(w);

SELECT is((SELECT array_agg((pl ->> 'max_rounds')::int ORDER BY w) FROM plans), ARRAY[16, 16, 16],
		  'max_rounds: the seeded schedule''s 16 at these widths (signals 838-2,108, above 500)');
SELECT ok((SELECT bool_and((pl ->> 'charged')::boolean = false) FROM plans), 'the plan charges nothing');
SELECT ok((SELECT (SELECT (pl ->> 'seconds_max')::float8 FROM plans WHERE w = 96) >
				  10 * (SELECT (pl ->> 'seconds_max')::float8 FROM plans WHERE w = 16)),
		  'the planned time grows steeply with width');
SELECT ok((SELECT bool_and((pl ->> 'fits_memory')::boolean AND (pl ->> 'memory_bytes')::float8 > 10000 * w) FROM plans),
		  'with n, the planned memory holds the rows');

-- the automatic schedule from n: [MMSM22]'s on a rich table, the seeded one on a small one
SELECT ok((SELECT pl ->> 'schedule' = 'mmsm22' AND (pl ->> 'max_rounds')::int = 80
				  AND abs((pl ->> 'schedule_signal')::float8 - 30000 * sqrt(2 * 10 / (3.0 * 4))) < 1e-6
				  FROM (SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, 30000) AS pl) x)
		  AND (SELECT pl ->> 'schedule' = 'mst-seeded' AND (pl ->> 'max_rounds')::int = 8
					  FROM (SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, 300) AS pl) y),
		  'the schedule follows n: 30,000 rows at rho 10 run [MMSM22]''s (T = 16 p), 300 the seeded one');

-- without n, the automatic schedule's plan says from which n on [MMSM22]'s runs
SELECT ok((SELECT (x ->> 'paper_schedule_from_rows')::bigint = n0
				  AND (SELECT pl ->> 'schedule' FROM (SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, n0) AS pl) a) = 'mmsm22'
				  AND (SELECT pl ->> 'schedule' FROM (SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, n0 - 1) AS pl) b) = 'mst-seeded'
				  AND x ->> 'schedule' = 'mst-seeded'
		   FROM (SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10) AS x,
						ceil(2500 / sqrt(2 * 10 / (3.0 * 4)))::bigint AS n0) s),
		  'without n: the seeded plan, and the first row count at which [MMSM22]''s would run');
SELECT ok((SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, schedule => 'seeded') -> 'paper_schedule_from_rows' = 'null'::jsonb
				  AND mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, rounds => 4) -> 'paper_schedule_from_rows' = 'null'::jsonb
				  AND mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, 100) -> 'paper_schedule_from_rows' = 'null'::jsonb),
		  'no such row count when the schedule is named, when [MMSM22]''s cannot spend 4 rounds over 5 columns, or when n is given');

-- the release's own rounds and one-way share
CREATE TEMP TABLE small AS
SELECT ARRAY[g % 3, (g / 3) % 3, (g * 7) % 3, (g / 9) % 3] AS x FROM generate_series(1, 500) g;
CREATE TEMP TABLE learned AS
SELECT mrf_info(mrf_learn_aim_agg(x, mrf_options(rho => 2, k => 3))) AS info FROM small;
CREATE TEMP TABLE planned AS SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3], 2) AS pl;
SELECT is((SELECT (info ->> 'max_rounds')::int FROM learned), (SELECT (pl ->> 'max_rounds')::int FROM planned),
		  'the plan''s max_rounds is the release''s');
SELECT ok((SELECT abs((info ->> 'rho_one_way')::float8 - (pl ->> 'rho_one_way')::float8) < 1e-12 FROM learned, planned),
		  'the plan''s one-way share is the release''s');
SELECT is((SELECT pl ? 'rows' FROM planned), false, 'without n the plan says nothing of rows');

-- the memory plan counts the rounds the release runs (the seeded schedule's
-- 8), not [MMSM22]'s T = 256 at 48 columns (each round's measurement is a
-- table of up to 10,000 cells here)
CREATE TEMP TABLE mem_plans AS
SELECT (mrf_learn_aim_plan(array_fill(100, ARRAY[48]), 0.1, 1000) ->> 'memory_bytes')::float8 AS dflt,
	   (mrf_learn_aim_plan(array_fill(100, ARRAY[48]), 0.1, 1000, rounds => 8) ->> 'memory_bytes')::float8 AS eight,
	   (mrf_learn_aim_plan(array_fill(100, ARRAY[48]), 0.1, 1000, rounds => 256) ->> 'memory_bytes')::float8 AS many;
SELECT ok((SELECT dflt = eight AND many > 1.2 * dflt FROM mem_plans),
		  'with n, the default plan''s memory is that of its 8 rounds, below 256 rounds''');

-- bad input
SELECT throws_ok($$SELECT mrf_learn_aim_plan(NULL, 1)$$, '22004', NULL, 'alphabets are required');
SELECT throws_ok($$SELECT mrf_learn_aim_plan(ARRAY[2, 1, 3], 1)$$, '22023', NULL, 'an alphabet below 2 is refused');
SELECT throws_ok($$SELECT mrf_learn_aim_plan(ARRAY[2, 3], 0)$$, '22023', NULL, 'rho must be positive');
SELECT throws_ok($$SELECT mrf_learn_aim_plan(array_fill(2, ARRAY[300]), 1)$$, '54000', NULL,
				 'more variables than AIM takes are refused');
SELECT throws_ok($$SELECT mrf_learn_aim_plan(ARRAY[2, 3], 1, 0)$$, '22023', NULL, 'a row count must be positive');
-- the seed's split from public sizes: even below a signal of 50
-- (n sqrt(2 rho / (3 (p - 1))): 27 at n = 100, 272 at n = 1,000), else 0.35
SELECT ok((SELECT (mrf_learn_aim_plan(array_fill(3, ARRAY[10]), 1, 100) ->> 'seed_select_share')::float8 = 0.5
				  AND (mrf_learn_aim_plan(array_fill(3, ARRAY[10]), 1, 1000) ->> 'seed_select_share')::float8 = 0.35
				  AND (mrf_learn_aim_plan(array_fill(3, ARRAY[10]), 1, schedule => 'seeded') ->> 'seed_select_share')::float8 = 0.35),
		  'the seed''s split: even at signal 27, 0.35 at 272 and when n is not given');
-- the seed's share and T from public sizes: 0.6 and 8 below a signal of 500, 0.45 and 16 from it
SELECT ok((SELECT (a ->> 'max_rounds')::int = 8 AND abs((a ->> 'seed_share')::float8 - 0.6) < 1e-12
				  AND (b ->> 'max_rounds')::int = 16 AND abs((b ->> 'seed_share')::float8 - 0.45) < 1e-12
				  AND (a ->> 'schedule_signal')::float8 < 500 AND (b ->> 'schedule_signal')::float8 >= 500
				  AND (c ->> 'max_rounds')::int = 8 AND abs((c ->> 'seed_share')::float8 - 0.6) < 1e-12
		   FROM (SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, 387) AS a,
						mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, 388) AS b,
						mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10) AS c) x),
		  'the seed: 0.6 of rho over T = 8 at 387 rows (signal 499.6), 0.45 over 16 at 388 (500.9), 0.6 and 8 without n');

-- without n, the plan says where the seeded schedule's tiers start: the
-- middle tier from 388 rows of 5 columns at rho 10, the even split below 39
SELECT ok((SELECT (x ->> 'seed_middle_from_rows')::bigint = 388
				  AND (x ->> 'seed_even_split_below_rows')::bigint = ceil(50 / sqrt(2 * 10 / (3.0 * 4)))::bigint
				  AND (SELECT abs((pl ->> 'seed_share')::float8 - 0.45) < 1e-12 FROM (SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, 388) AS pl) a)
				  AND (SELECT abs((pl ->> 'seed_share')::float8 - 0.6) < 1e-12 FROM (SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, 387) AS pl) b)
				  AND (SELECT (pl ->> 'seed_select_share')::float8 FROM (SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, (x ->> 'seed_even_split_below_rows')::bigint - 1) AS pl) c) = 0.5
				  AND (SELECT (pl ->> 'seed_select_share')::float8 FROM (SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, (x ->> 'seed_even_split_below_rows')::bigint) AS pl) d) = 0.35
				  AND (y ->> 'seed_middle_from_rows')::bigint = 388
		   FROM (SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10) AS x,
						mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, schedule => 'seeded') AS y) s),
		  'without n: the first row count of the seed''s middle tier (388: 0.45, 387: 0.6) and of its larger tables'' split (below it: even)');
SELECT ok((SELECT mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, 100) -> 'seed_middle_from_rows' = 'null'::jsonb
				  AND mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, 100) -> 'seed_even_split_below_rows' = 'null'::jsonb
				  AND mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, schedule => 'paper') -> 'seed_middle_from_rows' = 'null'::jsonb
				  AND mrf_learn_aim_plan(ARRAY[3, 3, 3, 3, 3], 10, schedule => 'paper') -> 'seed_even_split_below_rows' = 'null'::jsonb),
		  'no such row counts when n is given or under [MMSM22]''s schedule');

SELECT * FROM finish();
ROLLBACK;
