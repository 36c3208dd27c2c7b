-- server: session_preload
-- mrf_learn_pairwise's option ranges on every form (named, aggregate through
-- mrf_options, protected _from): iterations is Frank-Wolfe's T, 2 to
-- 1,000,000 (T - 1 private selections; the learners' ranges in
-- sqlapi/options.c, which the core checks again); k must be the largest
-- column's alphabet when CHECK constraints give the alphabets.  Refusals
-- are 22023 and leave the ledger unchanged.  Not in a transaction (charges
-- are committed by a background worker); test/lib/options_ranges.psql.
SELECT plan(11);

\ir ../lib/options_ranges.psql
SET mrfdp.test_seed = 53;
CREATE TEMP TABLE before AS SELECT pg_temp.opr_ledger() AS s;

SELECT is(pg_temp.opr_error($$SELECT mrf_learn_pairwise(r, rho => 1, iterations => 1) FROM opr r$$),
		  '22023: mrf_learn_pairwise takes from 2 to 1000000 Frank-Wolfe iterations (T - 1 private selections); iterations => 1 is outside.',
		  'named form: iterations 1 (no private selection) is refused, naming the range');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_pairwise_agg(r, mrf_options(rho => 1, iterations => 1)) FROM opr r$$),
		  '22023: mrf_learn_pairwise takes from 2 to 1000000 Frank-Wolfe iterations (T - 1 private selections); iterations => 1 is outside.',
		  'aggregate: the same refusal (mrf_options builds the document; the learner refuses it)');
SELECT throws_ok($$SELECT mrf_options(rho => 1, iterations => 1000001)$$, '22023',
				 'invalid value for option "iterations"', 'mrf_options refuses iterations above every learner''s range');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_pairwise(r, rho => 1, k => 4) FROM opr r$$),
		  '22023: Column "a" has the largest alphabet, 3 values (from its CHECK constraint); k => 4 would give every column values it cannot have.',
		  'named form: k => 4 against CHECK alphabets of 3 values is refused, naming the column and both sizes');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_pairwise_agg(r, mrf_options(rho => 1, k => 2)) FROM opr r$$),
		  '22023: Column "a" has the largest alphabet, 3 values (from its CHECK constraint); k => 2 would give that column fewer values than it has.',
		  'aggregate: k => 2 is refused too');
SELECT is(pg_temp.opr_ledger(), (SELECT s FROM before), 'the refused calls of the owner charged nothing');
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_pairwise_from('opr', NULL, rho => 1, iterations => 1)$$, '22023',
				 'invalid value for option "iterations"', '_from: iterations 1 is refused');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_pairwise_from('opr', NULL, rho => 1, k => 4)$$),
		  '22023: Column "a" has the largest alphabet, 3 values (from its CHECK constraint); k => 4 would give every column values it cannot have.',
		  '_from: k => 4 is refused, naming the column and both sizes');
RESET ROLE;
SELECT is(pg_temp.opr_ledger(), (SELECT s FROM before), 'the refused protected calls charged nothing');

-- the edge of the range is accepted
SET ROLE mrfdp_tap_analyst;
SELECT isnt(mrf_learn_pairwise_from('opr', NULL, rho => 1, iterations => 2, k => 3)::text, NULL,
			'_from: iterations 2 (one private selection) with k => 3 is accepted');
RESET ROLE;
SELECT is(pg_temp.opr_releases_since((SELECT s FROM before)), 1,
		  'the release is in the ledger');

DROP TABLE opr, opr_bits;
SELECT * FROM finish();
