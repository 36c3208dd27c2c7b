-- server: session_preload
-- mrf_learn_ising's option iterations on every form (named, aggregate through
-- mrf_options, protected _from): Frank-Wolfe's T, 2 to 1,000,000 (T - 1
-- private selections; the learners' ranges in sqlapi/options.c, which the
-- core checks again).  Refusals are 22023 and leave the ledger unchanged.
-- Not in a transaction (charges are committed by a background worker);
-- test/lib/options_ranges.psql.
SELECT plan(8);

\ir ../lib/options_ranges.psql
SET mrfdp.test_seed = 54;
CREATE TEMP TABLE before AS SELECT pg_temp.opr_ledger() AS s;

SELECT is(pg_temp.opr_error($$SELECT mrf_learn_ising(x, rho => 1, iterations => 1) FROM opr_bits$$),
		  '22023: mrf_learn_ising takes from 2 to 1000000 Frank-Wolfe iterations (T - 1 private selections); iterations => 1 is outside.',
		  'named form: iterations 1 (no private selection) is refused, naming the range');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_ising_agg(x, mrf_options(rho => 1, iterations => 1)) FROM opr_bits$$),
		  '22023: mrf_learn_ising takes from 2 to 1000000 Frank-Wolfe iterations (T - 1 private selections); iterations => 1 is outside.',
		  'aggregate: the same refusal (mrf_options builds the document; the learner refuses it)');
SELECT throws_ok($$SELECT mrf_learn_ising(x, rho => 1, iterations => 0) FROM opr_bits$$, '22023',
				 'invalid value for option "iterations"', 'named form: iterations 0 is refused');
SELECT is(pg_temp.opr_ledger(), (SELECT s FROM before), 'the refused calls of the owner charged nothing');
SET ROLE mrfdp_tap_analyst;
SELECT throws_ok($$SELECT mrf_learn_ising_from('opr_bits', 'x', rho => 1, iterations => 1, variables => 3)$$, '22023',
				 'invalid value for option "iterations"', '_from: iterations 1 is refused');
RESET ROLE;
SELECT is(pg_temp.opr_ledger(), (SELECT s FROM before), 'the refused protected calls charged nothing');

-- the edge of the range is accepted
SET ROLE mrfdp_tap_analyst;
SELECT isnt(mrf_learn_ising_from('opr_bits', 'x', rho => 1, iterations => 2, variables => 3)::text, NULL,
			'_from: iterations 2 (one private selection) is accepted');
RESET ROLE;
SELECT is(pg_temp.opr_releases_since((SELECT s FROM before)), 1,
		  'the release is in the ledger');

DROP TABLE opr, opr_bits;
SELECT * FROM finish();
