-- server: session_preload
-- mrf_learn_cliques's option k on every form (named, aggregate through
-- mrf_options, protected _from): it must be the largest column's alphabet
-- when CHECK constraints give the alphabets.  Refusals are 22023, name the
-- column and both sizes, and leave the ledger unchanged.  Not in a
-- transaction (charges are committed by a background worker);
-- test/lib/options_ranges.psql.
SELECT plan(7);

\ir ../lib/options_ranges.psql
SET mrfdp.test_seed = 56;
CREATE TEMP TABLE before AS SELECT pg_temp.opr_ledger() AS s;

SELECT is(pg_temp.opr_error($$SELECT mrf_learn_cliques(r, epsilon => 1, cliques => '[[1, 2], [2, 3]]', k => 4) FROM opr r$$),
		  '22023: Column "a" has the largest alphabet, 3 values (from its CHECK constraint); k => 4 would give every column values it cannot have.',
		  'named form: k => 4 against CHECK alphabets of 3 values is refused, naming the column and both sizes');
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_cliques_agg(r, mrf_options(epsilon => 1, cliques => '[[1, 2], [2, 3]]', k => 2)) FROM opr r$$),
		  '22023: Column "a" has the largest alphabet, 3 values (from its CHECK constraint); k => 2 would give that column fewer values than it has.',
		  'aggregate: k => 2 is refused too');
SELECT is(pg_temp.opr_ledger(), (SELECT s FROM before), 'the refused calls of the owner charged nothing');
SET ROLE mrfdp_tap_analyst;
SELECT is(pg_temp.opr_error($$SELECT mrf_learn_cliques_from('opr', NULL, epsilon => 1, cliques => '[[1, 2], [2, 3]]', k => 4)$$),
		  '22023: Column "a" has the largest alphabet, 3 values (from its CHECK constraint); k => 4 would give every column values it cannot have.',
		  '_from: k => 4 is refused, naming the column and both sizes');
RESET ROLE;
SELECT is(pg_temp.opr_ledger(), (SELECT s FROM before), 'the refused protected calls charged nothing');

-- the columns' own k is accepted
SET ROLE mrfdp_tap_analyst;
SELECT isnt(mrf_learn_cliques_from('opr', NULL, epsilon => 1, cliques => '[[1, 2], [2, 3]]', k => 3)::text, NULL,
			'_from: k => 3 (the columns'' alphabet) is accepted');
RESET ROLE;
SELECT is(pg_temp.opr_releases_since((SELECT s FROM before)), 1,
		  'the release is in the ledger');

DROP TABLE opr, opr_bits;
SELECT * FROM finish();
