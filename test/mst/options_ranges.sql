-- server: session_preload
-- mrf_learn_mst's option ranges on every form (named, aggregate through
-- mrf_options, protected _from): iterations is mirror descent's steps, 1 to
-- 100,000 (the learners' ranges in sqlapi/options.c, which the core checks
-- again); k must be the largest column's alphabet when the columns' CHECK
-- constraints give the alphabets.  Refusals are 22023, name the column and
-- both sizes, and leave the ledger unchanged.  Not in a transaction
-- (charges are committed by a background worker); test/lib/options_ranges.psql.
SELECT plan(15);

\ir ../lib/options_ranges.psql
SET mrfdp.test_seed = 51;
CREATE TEMP TABLE before AS SELECT pg_temp.opr_ledger() AS s;

-- 1. refusals, before anything is charged
SELECT throws_ok($$SELECT mrf_learn_mst(r, rho => 1, iterations => 0) FROM opr r$$, '22023',
				 'invalid value for option "iterations"', 'named form: iterations 0 is refused');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_mst(r, rho => 1, iterations => 100001) FROM opr r$$),
		  '22023: mrf_learn_mst takes from 1 to 100000 mirror-descent iterations; iterations => 100001 is outside.',
		  'named form: iterations above 100,000 is refused, naming the range');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_mst_agg(r, mrf_options(rho => 1, iterations => 100001)) FROM opr r$$),
		  '22023: mrf_learn_mst takes from 1 to 100000 mirror-descent iterations; iterations => 100001 is outside.',
		  'aggregate: the same refusal');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_mst(r, rho => 1, k => 4) FROM opr r$$),
		  '22023: Column "a" has the largest alphabet, 3 values (from its CHECK constraint); k => 4 would give every column values it cannot have.',
		  'named form: k => 4 against CHECK alphabets of 3 values is refused, naming the column and both sizes');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_mst_agg(r, mrf_options(rho => 1, k => 2)) FROM opr r$$),
		  '22023: Column "a" has the largest alphabet, 3 values (from its CHECK constraint); k => 2 would give that column fewer values than it has.',
		  'aggregate: k => 2 is refused too');
SELECT is(pg_temp.opr_ledger(), (SELECT s FROM before), 'the refused calls of the owner charged nothing');
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_mst_from('opr', NULL, rho => 1, iterations => 100001)$$, '22023',
				 'invalid value for option "iterations"', '_from: iterations above 100,000 is refused');
SELECT throws_ok($$SELECT mrf_learn_mst_from('opr', NULL, rho => 1, iterations => -1)$$, '22023',
				 'invalid value for option "iterations"', '_from: a negative iterations is refused');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_mst_from('opr', NULL, rho => 1, k => 4)$$),
		  '22023: Column "a" has the largest alphabet, 3 values (from its CHECK constraint); k => 4 would give every column values it cannot have.',
		  '_from: k => 4 is refused, naming the column and both sizes');
RESET ROLE;
SELECT is(pg_temp.opr_ledger(), (SELECT s FROM before), 'the refused protected calls charged nothing');

-- 2. the edges of the ranges are accepted and run that many steps
SELECT is(mrf_info(mrf_learn_mst(r, rho => 1, iterations => 1))->'estimation'->>'max_iterations', '1',
		  'named form: iterations 1 is accepted (one mirror-descent step)') FROM opr r;
SELECT is(mrf_info(mrf_learn_mst_agg(r, mrf_options(rho => 1, iterations => 1)))->'estimation'->>'iterations', '1',
		  'aggregate: iterations 1 takes one step') FROM opr r;
SET ROLE mrfdp_tap_analyst;
SELECT is(mrf_info(mrf_learn_mst_from('opr', NULL, rho => 1, iterations => 1, k => 3))->'estimation'->>'max_iterations', '1',
		  '_from: iterations 1 with k => 3 (the columns'' alphabet) is accepted');
RESET ROLE;
SELECT is(pg_temp.opr_releases_since((SELECT s FROM before)), 3,
		  'the three releases are in the ledger');
SELECT is(mrf_info(mrf_learn_mst(r, rho => 1, iterations => 2))->'estimation'->>'max_iterations', '2',
		  'iterations 2 is accepted') FROM opr r;

DROP TABLE opr, opr_bits;
SELECT * FROM finish();
