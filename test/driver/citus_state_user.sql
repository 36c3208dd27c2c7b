-- server: session_preload
-- The combinable (Citus) learner states are bytea, so any role can hand one
-- of its own to their support functions without Citus: as the initial state
-- (INITCOND) of its own aggregate over a *_citus_accum transition, or by
-- folding states with mrfdp_internal.mrf_citus_combine.  A forged state is
-- refused before a row is counted into it or learned from: a counts state
-- whose tables are not its options' (before: the transition counted rows
-- into a one-cell array, a heap overrun that crashed the server), a row
-- state whose alphabet is not its samples', counts whose sum overflows.
BEGIN;
SELECT plan(9);
\ir ../citus/lib/counts_state.psql
CREATE ROLE cs_user;
GRANT CREATE ON SCHEMA public TO cs_user;
SET LOCAL ROLE cs_user;
CREATE TYPE cs_five AS ENUM ('a', 'b', 'c', 'd', 'e');
CREATE TABLE cs_rows (x cs_five, y cs_five, z cs_five, kr int[]);
INSERT INTO cs_rows SELECT (enum_range(NULL::cs_five))[1 + g % 5], (enum_range(NULL::cs_five))[1 + (g / 5) % 5],
	'e', ARRAY[g % 3, (g / 3) % 3, (g / 9) % 3] FROM generate_series(1, 3000) g;
-- a row state (magic "MRFS") of p code rows of alphabet k, little-endian
CREATE FUNCTION cs_rows_state(p int, k int, o text, cells int[]) RETURNS text LANGUAGE sql AS $$
	SELECT '\x' || '5346524d' || cs_le(3, 4) || cs_le(p, 4) || cs_le(k, 4) || cs_le(cardinality(cells) / p, 8)
		|| cs_le(length(o), 4) || encode(convert_to(o, 'UTF8'), 'hex')
		|| (SELECT string_agg(cs_le(c, 2), '' ORDER BY i) FROM unnest(cells) WITH ORDINALITY u(c, i))
$$;
-- the role's own aggregate: a learner's Citus transition and final, from a given state
CREATE FUNCTION cs_agg(name text, learner text, state text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE AGGREGATE %I(anyelement, jsonb) (SFUNC = mrfdp_internal.%I, STYPE = bytea, '
				   'FINALFUNC = mrfdp_internal.%I, INITCOND = %L)',
				   name, 'mrf_learn_' || learner || '_citus_accum', 'mrf_learn_' || learner || '_citus_final', state);
END $$;

-- counts states of one cell (MST over 3 variables of 3 values has 36)
SELECT cs_agg('cs_mst1', 'mst', cs_state(3, 3, 1, '{"k": 3, "rho": 0.1}', 1, ARRAY[0]));
SELECT cs_agg('cs_cliques1', 'cliques', cs_state(3, 3, 1, mrf_options(epsilon => 1.0, k => 3, cliques => '[[1, 2], [2, 3]]')::text, 1, ARRAY[0]));
SELECT cs_agg('cs_aim1', 'aim', cs_state(3, 3, 1, '{"k": 3, "rho": 0.1}', 1, ARRAY[0]));
SELECT is(cs_refusal($$SELECT cs_mst1(kr, mrf_options(rho => 0.1, k => 3)) FROM cs_rows$$),
	'invalid mrfdp aggregate state: The state''s tables are not the ones its options give.',
	'MST: rows are not counted into a forged initial counts state of the wrong size');
SELECT is(cs_refusal($$SELECT cs_cliques1(kr, mrf_options(epsilon => 1.0, k => 3, cliques => '[[1, 2], [2, 3]]')) FROM cs_rows$$),
	'invalid mrfdp aggregate state: The state''s tables are not the ones its options give.',
	'cliques: likewise');
SELECT is(cs_refusal($$SELECT cs_aim1(kr, mrf_options(rho => 0.1, k => 3)) FROM cs_rows$$),
	'invalid mrfdp aggregate state: The state''s tables are not the ones its options give.',
	'AIM: likewise');

-- the same with the right tables counts on and learns (1 forged row + 3000)
SELECT cs_agg('cs_mst36', 'mst', cs_state(3, 3, 1, '{"k": 3, "rho": 0.1}', 36,
	ARRAY[1, 0, 0, 1, 0, 0, 1, 0, 0] || ARRAY[1] || array_fill(0, ARRAY[8]) || ARRAY[1] || array_fill(0, ARRAY[8])
	|| ARRAY[1] || array_fill(0, ARRAY[8])));
SELECT is((SELECT (mrf_info(cs_mst36(kr, mrf_options(rho => 0.1, k => 3)))::jsonb ->> 'rows')::int FROM cs_rows),
	3001, 'a well-formed initial counts state counts the rows into its tables');

-- a row state of alphabet 2 fed rows of a 5-value enum row type
SELECT cs_agg('cs_rec_mst', 'mst', cs_rows_state(3, 2, '{"rho": 0.1}', ARRAY[0, 1, 1]));
SELECT cs_agg('cs_rec_aim', 'aim', cs_rows_state(3, 2, '{"rho": 0.1}', ARRAY[0, 1, 1]));
SELECT is(cs_refusal($$SELECT cs_rec_mst(ROW(x, y, z), '{"rho": 0.1}') FROM cs_rows$$),
	'invalid mrfdp aggregate state: The state''s alphabet is not its samples''.',
	'MST: a row type''s alphabet must be the initial state''s');
SELECT is(cs_refusal($$SELECT cs_rec_aim(ROW(x, y, z), '{"rho": 0.1}') FROM cs_rows$$),
	'invalid mrfdp aggregate state: The state''s alphabet is not its samples''.',
	'AIM: likewise');

-- counts states folded with the combine function: a sum past 2^63 - 1 is refused
CREATE AGGREGATE cs_fold(bytea) (SFUNC = mrfdp_internal.mrf_citus_combine, STYPE = bytea,
	FINALFUNC = mrfdp_internal.mrf_learn_mst_citus_final);
CREATE FUNCTION cs_two(n bigint) RETURNS text LANGUAGE sql AS $$
	SELECT cs_state(2, 2, n, '{"rho": 0.1}', 8, ARRAY[n / 2, n - n / 2, n / 2, n - n / 2, n / 4, n / 4, n / 4, n - 3 * (n / 4)])
$$;
SELECT is(cs_refusal($$SELECT cs_fold(s::bytea) FROM (VALUES (cs_two(4611686018427387904)), (cs_two(4611686018427387904))) v(s)$$),
	'invalid mrfdp aggregate state: The states count more rows than a count can hold.',
	'counts that overflow when added are refused');
SELECT is((SELECT (mrf_info(cs_fold(s::bytea))::jsonb ->> 'rows')::bigint
		   FROM (VALUES (cs_two(4611686018427387904)), (cs_two(4611686018427387903))) v(s)),
	9223372036854775807, 'counts that add up to 2^63 - 1 learn');

RESET ROLE;
SELECT is((SELECT count(*) FILTER (WHERE protected) || ' of ' || count(*) FROM mrfdp.ledger WHERE role_name = 'cs_user'),
	'0 of 4', 'the four releases are in the ledger, none of a protected relation');
SELECT * FROM finish();
ROLLBACK;
