-- server: session_preload
-- mrf_learn_aim's option ranges on every form (named, aggregate through
-- mrf_options, protected _from): iterations is the final estimate's
-- mirror-descent steps, 1 to 100,000 (the learners' ranges in
-- sqlapi/options.c, which the core checks again); k must be the largest
-- column's alphabet when CHECK constraints give the alphabets; a workload
-- may mix column names and numbers, a number being the column's position
-- in the rows (docs/learners/aim.md).  Refusals are 22023 and leave the
-- ledger unchanged.  Not in a transaction (charges are committed by a
-- background worker); test/lib/options_ranges.psql.
SELECT plan(17);

\ir ../lib/options_ranges.psql
SET mrfdp.test_seed = 52;
CREATE TEMP TABLE before AS SELECT pg_temp.opr_ledger() AS s;

-- 1. refusals, before anything is charged
SELECT throws_ok($$SELECT mrf_learn_aim(r, rho => 1, iterations => 0) FROM opr r$$, '22023',
				 'invalid value for option "iterations"', 'named form: iterations 0 is refused');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_aim(r, rho => 1, iterations => 100001) FROM opr r$$),
		  '22023: mrf_learn_aim takes from 1 to 100000 mirror-descent iterations; iterations => 100001 is outside.',
		  'named form: iterations above 100,000 is refused, naming the range');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_aim_agg(r, mrf_options(rho => 1, iterations => 100001)) FROM opr r$$),
		  '22023: mrf_learn_aim takes from 1 to 100000 mirror-descent iterations; iterations => 100001 is outside.',
		  'aggregate: the same refusal');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_aim(r, rho => 1, k => 4) FROM opr r$$),
		  '22023: Column "a" has the largest alphabet, 3 values (from its CHECK constraint); k => 4 would give every column values it cannot have.',
		  'named form: k => 4 against CHECK alphabets of 3 values is refused, naming the column and both sizes');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_aim_agg(r, mrf_options(rho => 1, k => 2)) FROM opr r$$),
		  '22023: Column "a" has the largest alphabet, 3 values (from its CHECK constraint); k => 2 would give that column fewer values than it has.',
		  'aggregate: k => 2 is refused too');
-- a number is the column's position: "a" and 1 are the same column
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_aim(r, rho => 1, workload => '[["a", 1]]') FROM opr r$$),
		  '22023: Marginal 1, ["a", 1], names the same column twice.',
		  'a mixed marginal naming and numbering the first column is refused as naming it twice');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_aim(r, rho => 1, workload => '[["b", "c"], ["a", 4]]') FROM opr r$$),
		  '22023: Marginal 2, ["a", 4], names a variable outside 1..3.',
		  'a number past the rows'' columns is refused');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_aim(r, rho => 1, workload => '[["a", 2.5]]') FROM opr r$$),
		  '22023: A marginal names columns (strings) or numbers them from 1.',
		  'a number that is not an integer is refused');
SELECT is(pg_temp.opr_ledger(), (SELECT s FROM before), 'the refused calls of the owner charged nothing');
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_aim_from('opr', NULL, rho => 1, iterations => 100001)$$, '22023',
				 'invalid value for option "iterations"', '_from: iterations above 100,000 is refused');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_aim_from('opr', NULL, rho => 1, k => 4)$$),
		  '22023: Column "a" has the largest alphabet, 3 values (from its CHECK constraint); k => 4 would give every column values it cannot have.',
		  '_from: k => 4 is refused, naming the column and both sizes');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_aim_from('opr', NULL, rho => 1, workload => '[[3, "c"]]')$$),
		  '22023: Marginal 1, [3, "c"], names the same column twice.',
		  '_from: 3 is the third column, "c"');
RESET ROLE;
SELECT is(pg_temp.opr_ledger(), (SELECT s FROM before), 'the refused protected calls charged nothing');

-- 2. accepted: the edge of the range, and a mixed workload meaning its columns
SELECT is(mrf_info(mrf_learn_aim(r, rho => 1, iterations => 1))->'estimation'->>'max_iterations', '1',
		  'named form: iterations 1 is accepted (one final step)') FROM opr r;
SET ROLE mrfdp_tap_analyst;
SELECT is(mrf_info(mrf_learn_aim_from('opr', NULL, rho => 1, iterations => 1, k => 3))->'estimation'->>'max_iterations', '1',
		  '_from: iterations 1 with k => 3 (the columns'' alphabet) is accepted');
RESET ROLE;
-- ["a", 2] is the marginal a-b, [3, "b"] is c-b: the same candidates as the names
SELECT is((SELECT mrf_info(mrf_learn_aim(r, rho => 1, workload => '[["a", 2], [3, "b"]]'))->'workload' FROM opr r),
		  (SELECT mrf_info(mrf_learn_aim(r, rho => 1, workload => '[["a", "b"], ["b", "c"]]'))->'workload' FROM opr r),
		  'a mixed workload is its columns'' (marginals and candidates as with the names)');
SELECT is(pg_temp.opr_releases_since((SELECT s FROM before)), 4,
		  'the four releases are in the ledger');

DROP TABLE opr, opr_bits;
SELECT * FROM finish();
