-- server: session_preload
-- mrf_learn_structure's option ranges on every form (named, aggregate
-- through mrf_options, protected _from): method 'threshold' runs the Ising
-- learner, whose iterations is Frank-Wolfe's T, 2 to 1,000,000 (the
-- learners' ranges in sqlapi/options.c); model 'pairwise' takes k, which
-- must be the largest column's alphabet when CHECK constraints give the
-- alphabets.  Refusals are 22023 and leave the ledger unchanged.  Not in a
-- transaction (charges are committed by a background worker);
-- test/lib/options_ranges.psql.
SELECT plan(9);

\ir ../lib/options_ranges.psql
SET mrfdp.test_seed = 55;
CREATE TEMP TABLE before AS SELECT pg_temp.opr_ledger() AS s;

SELECT is(pg_temp.opr_error($$SELECT mrf_learn_structure(x, rho => 1, eta => 0.5, method => 'threshold', iterations => 1) FROM opr_bits$$),
		  '22023: mrf_learn_structure with method ''threshold'' takes from 2 to 1000000 Frank-Wolfe iterations (T - 1 private selections); iterations => 1 is outside.',
		  'named form: threshold with iterations 1 is refused, naming the range');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_structure_agg(x, mrf_options(rho => 1, eta => 0.5, method => 'threshold', iterations => 1)) FROM opr_bits$$),
		  '22023: mrf_learn_structure with method ''threshold'' takes from 2 to 1000000 Frank-Wolfe iterations (T - 1 private selections); iterations => 1 is outside.',
		  'aggregate: the same refusal');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_structure(r, epsilon => 1, delta => 1e-6, eta => 0.5, model => 'pairwise', k => 4) FROM opr r$$),
		  '22023: Column "a" has the largest alphabet, 3 values (from its CHECK constraint); k => 4 would give every column values it cannot have.',
		  'named form: model pairwise with k => 4 against CHECK alphabets of 3 values is refused, naming the column and both sizes');
SELECT is(pg_temp.opr_ledger(), (SELECT s FROM before), 'the refused calls of the owner charged nothing');
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_structure_from('opr_bits', 'x', rho => 1, eta => 0.5, method => 'threshold', iterations => 1, variables => 3)$$,
				 '22023', 'invalid value for option "iterations"', '_from: threshold with iterations 1 is refused');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_structure_from('opr', NULL, epsilon => 1, delta => 1e-6, eta => 0.5, model => 'pairwise', k => 2)$$),
		  '22023: Column "a" has the largest alphabet, 3 values (from its CHECK constraint); k => 2 would give that column fewer values than it has.',
		  '_from: model pairwise with k => 2 is refused');
RESET ROLE;
SELECT is(pg_temp.opr_ledger(), (SELECT s FROM before), 'the refused protected calls charged nothing');

-- the edge of the range, and the columns' k, are accepted
SET ROLE mrfdp_tap_analyst;
SELECT isnt(mrf_learn_structure_from('opr_bits', 'x', rho => 1, eta => 0.5, method => 'threshold', iterations => 2, variables => 3)::text, NULL,
			'_from: threshold with iterations 2 is accepted');
RESET ROLE;
SELECT is(pg_temp.opr_releases_since((SELECT s FROM before)), 1,
		  'the release is in the ledger');

DROP TABLE opr, opr_bits;
SELECT * FROM finish();
