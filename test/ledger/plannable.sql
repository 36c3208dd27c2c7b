-- server: session_preload
-- Budgets a user can plan with: mrfdp.remaining() (and budget_status) report
-- the largest amount each path accepts, the protected path's count of
-- substituted rows (1/128 on top) included, and a request of exactly that
-- amount is admitted on every learner family while a hair more is refused;
-- refusals quote the amount typed and the count's share separately, and a
-- refused delta comes with one that fits; a table owner who is not a
-- superuser sees the learning grants of its tables (mrfdp.learning_grants),
-- a granted role only its own, anybody else none.
-- Not in a transaction: charges are committed by a worker; cleaned up at the end.
SELECT plan(25);

DO $$
DECLARE
	r text;
BEGIN
	FOREACH r IN ARRAY ARRAY['mrfdp_pl_owner', 'mrfdp_pl_analyst', 'mrfdp_pl_other', 'mrfdp_pl_outsider']
	LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
			EXECUTE format('CREATE ROLE %I', r);
		END IF;
	END LOOP;
END $$;
DROP TABLE IF EXISTS pl_bin, pl_kary, pl_ising, pl_twise, pl_structure, pl_stable, pl_pairwise,
	pl_mst, pl_aim, pl_cliques, pl_msg, pl_delta CASCADE;
CREATE TABLE pl_bin AS
SELECT x AS "row"
FROM mrf_sample(mrf_ising(ARRAY[[0, .6, 0, 0], [.6, 0, .6, 0], [0, .6, 0, .6], [0, 0, .6, 0]]::float8[]),
				800, seed => 3) x;
SELECT setseed(0.5);
CREATE TABLE pl_kary AS
SELECT ARRAY[a, (a + (random() < 0.7)::int) % 3, floor(random() * 3)::int] AS z
FROM (SELECT floor(random() * 3)::int AS a FROM generate_series(1, 800) g) s;
CREATE TABLE pl_ising AS SELECT * FROM pl_bin;
CREATE TABLE pl_twise AS SELECT * FROM pl_bin;
CREATE TABLE pl_structure AS SELECT * FROM pl_bin;
CREATE TABLE pl_stable AS SELECT * FROM pl_bin;
CREATE TABLE pl_msg AS SELECT * FROM pl_bin;
CREATE TABLE pl_delta AS SELECT * FROM pl_bin;
CREATE TABLE pl_pairwise AS SELECT * FROM pl_kary;
CREATE TABLE pl_mst AS SELECT * FROM pl_kary;
CREATE TABLE pl_aim AS SELECT * FROM pl_kary;
CREATE TABLE pl_cliques AS SELECT * FROM pl_kary;
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['pl_ising', 'pl_twise', 'pl_structure', 'pl_stable', 'pl_msg', 'pl_delta',
							 'pl_pairwise', 'pl_mst', 'pl_aim', 'pl_cliques']
	LOOP
		EXECUTE format('ALTER TABLE %I OWNER TO mrfdp_pl_owner', t);
	END LOOP;
END $$;
GRANT USAGE ON SCHEMA public TO mrfdp_pl_analyst, mrfdp_pl_other, mrfdp_pl_outsider;

-- the owner (not a superuser) protects and grants
SET ROLE mrfdp_pl_owner;
SET client_min_messages = warning;
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['pl_ising', 'pl_twise', 'pl_structure', 'pl_stable', 'pl_pairwise',
							 'pl_mst', 'pl_aim', 'pl_msg']
	LOOP
		PERFORM mrfdp.protect(t::regclass, epsilon => 10, delta => 1e-6);
		PERFORM mrfdp.grant_learning(t::regclass, 'mrfdp_pl_analyst');
	END LOOP;
	PERFORM mrfdp.protect('pl_delta', epsilon => 5, delta => 1e-6);
	PERFORM mrfdp.grant_learning('pl_delta', 'mrfdp_pl_analyst');
	PERFORM mrfdp.protect('pl_cliques', epsilon => 10, delta => 0);
	PERFORM mrfdp.grant_learning('pl_cliques', 'mrfdp_pl_analyst');
	PERFORM mrfdp.grant_learning('pl_ising', 'mrfdp_pl_other');
END $$;
RESET client_min_messages;

-- Grants: the owner sees every grant of its tables; mrfdp.grants stays closed.
SELECT is((SELECT count(*) FROM mrfdp.learning_grants), 11::bigint,
	'a non-superuser owner sees the 11 learning grants of its tables');
SELECT is((SELECT string_agg(role::text, ',' ORDER BY role::text) FROM mrfdp.learning_grants WHERE relation = 'pl_ising'::regclass),
	'mrfdp_pl_analyst,mrfdp_pl_other', 'the owner sees both roles granted on pl_ising');
SELECT throws_ok('SELECT * FROM mrfdp.grants', '42501', NULL, 'mrfdp.grants itself stays closed to the owner');
RESET ROLE;
SET ROLE mrfdp_pl_other;
SELECT is((SELECT string_agg(relation::text || ' ' || role::text, ',') FROM mrfdp.learning_grants),
	'pl_ising mrfdp_pl_other', 'a granted role sees only its own grant, not the other grantees');
RESET ROLE;
SET ROLE mrfdp_pl_outsider;
SELECT is((SELECT count(*) FROM mrfdp.learning_grants), 0::bigint, 'a role without a grant sees none');
RESET ROLE;

-- Each family: a first release, then the amount remaining() reports for the
-- protected path, a hair more (refused), exactly that (admitted), and then
-- nothing is left.  %s is the amount.
CREATE TEMP TABLE pl_family (name text, tab text, call text, col text, at_delta float8);
INSERT INTO pl_family VALUES
	('ising', 'pl_ising', $$mrf_learn_ising_from('pl_ising', 'row', rho => %s, variables => 4)$$, 'rho_from', NULL),
	('twise', 'pl_twise', $$mrf_learn_twise_from('pl_twise', 'row', t => 2, rho => %s, variables => 4)$$, 'rho_from', NULL),
	('structure (zCDP)', 'pl_structure', $$mrf_learn_structure_from('pl_structure', 'row', method => 'threshold', eta => 0.3, rho => %s, iterations => 8, variables => 4)$$, 'rho_from', NULL),
	('structure (stable mode)', 'pl_stable', $$mrf_learn_structure_from('pl_stable', 'row', epsilon => %s, delta => 1e-7, lambda => 1, eta => 0.5, blocks => 16, variables => 4)$$, 'approx_epsilon_from', 1e-7),
	('pairwise', 'pl_pairwise', $$mrf_learn_pairwise_from('pl_pairwise', 'z', k => 3, rho => %s, variables => 3)$$, 'rho_from', NULL),
	('mst', 'pl_mst', $$mrf_learn_mst_from('pl_mst', 'z', k => 3, rho => %s, variables => 3)$$, 'rho_from', NULL),
	('aim', 'pl_aim', $$mrf_learn_aim_from('pl_aim', 'z', k => 3, rho => %s, variables => 3)$$, 'rho_from', NULL),
	('cliques', 'pl_cliques', $$mrf_learn_cliques_from('pl_cliques', 'z', cliques => '[[1, 2]]', k => 3, epsilon => %s, variables => 3)$$, 'pure_epsilon_from', NULL);
CREATE TEMP TABLE pl_out (name text, step text, amount float8, state text, msg text, detail text, hint text);
GRANT ALL ON pl_family, pl_out TO mrfdp_pl_analyst;
-- Runs one statement: its SQLSTATE (00000: none), message, detail and hint.
CREATE FUNCTION pg_temp.pl_try(q text, OUT state text, OUT msg text, OUT detail text, OUT hint text)
	LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	state := '00000';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL,
		hint = PG_EXCEPTION_HINT;
END $$;
-- What remaining() reports in column col (at delta d, when given) for t.
CREATE FUNCTION pg_temp.pl_left(t text, col text, d float8) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	v float8;
BEGIN
	EXECUTE format('SELECT %I FROM mrfdp.remaining(%L, delta => %L)', col, t, d) INTO v;
	RETURN v;
END $$;

SET ROLE mrfdp_pl_analyst;
DO $$
DECLARE
	f record;
	a float8;
	r record;
BEGIN
	FOR f IN SELECT * FROM pl_family LOOP
		-- a first release of a round amount: what is left is no round number
		r := pg_temp.pl_try('SELECT ' || format(f.call, '0.25'));
		INSERT INTO pl_out VALUES (f.name, 'first', 0.25, r.state, r.msg, r.detail, r.hint);
		a := pg_temp.pl_left(f.tab, f.col, f.at_delta);
		r := pg_temp.pl_try('SELECT ' || format(f.call, (a * (1 + 1e-12))::text));
		INSERT INTO pl_out VALUES (f.name, 'more', a * (1 + 1e-12), r.state, r.msg, r.detail, r.hint);
		r := pg_temp.pl_try('SELECT ' || format(f.call, a::text));
		INSERT INTO pl_out VALUES (f.name, 'exact', a, r.state, r.msg, r.detail, r.hint);
		INSERT INTO pl_out VALUES (f.name, 'after', pg_temp.pl_left(f.tab, f.col, f.at_delta), NULL, NULL, NULL, NULL);
	END LOOP;
END $$;
RESET ROLE;
SELECT is((SELECT string_agg(name, ', ' ORDER BY name) FROM pl_out WHERE step = 'first' AND state <> '00000'), NULL,
	'every family: a first release of 0.25 is admitted (families refused listed)');
SELECT is((SELECT string_agg(name || ': ' || state, ', ' ORDER BY name) FROM pl_out WHERE step = 'more' AND state <> '42501'), NULL,
	'every family: the reported amount times (1 + 1e-12) is refused (families admitted listed)');
SELECT is((SELECT string_agg(name || ': ' || coalesce(msg, ''), ', ' ORDER BY name) FROM pl_out WHERE step = 'exact' AND state <> '00000'), NULL,
	'every family: a request of exactly the amount remaining() reports for the protected path is admitted');
SELECT is((SELECT count(*) FROM pl_out WHERE step = 'exact' AND amount > 0.5), 8::bigint,
	'every family: that amount is a real one (above 0.5 of a budget of epsilon 10)');
SELECT is((SELECT string_agg(name || ': ' || amount, ', ' ORDER BY name) FROM pl_out WHERE step = 'after' AND amount > 1e-9), NULL,
	'every family: nothing is left after it');
SELECT is((SELECT count(*) FROM mrfdp.ledger WHERE relation_name LIKE 'public.pl\_%' AND relation IS NOT NULL AND protected), 16::bigint,
	'16 releases were charged (two per family), none for the refused requests');
-- the refusal of a hair more quotes the amount typed and the count's share apart
SELECT ok((SELECT bool_and(detail LIKE '%asked for rho = ' || amount::text || ' (zCDP), and the noisy count of substituted rows adds rho = %'
						   AND detail LIKE '%as typed on this path%')
		   FROM pl_out WHERE step = 'more' AND name IN ('ising', 'twise', 'pairwise', 'mst', 'aim')),
	'zCDP refusals quote the rho typed, then the count''s share');
SELECT ok((SELECT detail LIKE '%asked for epsilon = ' || amount::text || ' (pure DP), and the noisy count of substituted rows adds epsilon = %'
		   FROM pl_out WHERE step = 'more' AND name = 'cliques'),
	'a pure refusal quotes the epsilon typed, then the count''s share');
SELECT ok((SELECT detail LIKE '%asked for epsilon = ' || amount::text || ' and delta = 1e-07 ((epsilon, delta)-DP), and the noisy count%'
		   FROM pl_out WHERE step = 'more' AND name = 'structure (stable mode)'),
	'an (epsilon, delta) refusal quotes the epsilon typed, then the count''s share');

-- The message of a plainly too large request, with the numbers the issue gave.
SET ROLE mrfdp_pl_analyst;
CREATE TEMP TABLE pl_msg_out AS
SELECT r.*, (SELECT rho_from FROM mrfdp.remaining('pl_msg')) AS rho_from,
	   (SELECT rho FROM mrfdp.remaining('pl_msg')) AS rho
FROM pg_temp.pl_try($$SELECT mrf_learn_ising_from('pl_msg', 'row', rho => 100, variables => 4)$$) r;
RESET ROLE;
SELECT is((SELECT state FROM pl_msg_out), '42501', 'rho => 100 is refused');
SELECT is((SELECT detail FROM pl_msg_out),
	format('mrf_learn_ising asked for rho = 100 (zCDP), and the noisy count of substituted rows adds rho = 0.78125 (1/128 of it): '
		   'rho = 100.78125 charged in all; what is left of the budget allows at most rho = %s as typed on this path '
		   '(the count''s share included in the check). Nothing was released or charged.', (SELECT rho_from FROM pl_msg_out)),
	'the refusal: 100 as typed, 0.78125 for the count, and the largest rho to type');
SELECT ok((SELECT rho_from < rho AND rho_from * (1 + 1.0 / 128) <= rho * (1 + 1e-15) AND rho_from * (1 + 1.0 / 128) > rho * (1 - 1e-12)
		   FROM pl_msg_out), 'rho_from is rho less the count''s 1/128');
-- budget_status agrees with remaining()
SET ROLE mrfdp_pl_analyst;
SELECT ok((SELECT s.remaining_rho_from = r.rho_from AND s.remaining_rho = r.rho
				  AND s.remaining_pure_epsilon = r.pure_epsilon AND s.remaining_pure_epsilon_from = r.pure_epsilon_from
				  AND s.remaining_approx_epsilon_from = r.approx_epsilon_from AND s.remaining_approx_delta = r.approx_delta
		   FROM mrfdp.budget_status s, mrfdp.remaining('pl_msg') r WHERE s.relation = 'pl_msg'::regclass),
	'budget_status shows what remaining() reports, both paths');
SELECT is((SELECT count(*) FROM mrfdp.budget_status), 10::bigint, 'the analyst sees the 10 budgets it may learn from');
RESET ROLE;
SET ROLE mrfdp_pl_outsider;
SELECT is((SELECT count(*) FROM mrfdp.budget_status), 0::bigint, 'an outsider sees no budget (remaining() is never called for it)');
SELECT throws_ok($$SELECT * FROM mrfdp.remaining('pl_msg')$$, '42501', NULL, 'an outsider cannot read remaining()');
RESET ROLE;

-- A refused delta comes with one that fits: after a zCDP release, the stable
-- mode at the budget's whole delta cannot fit (the zCDP part needs some).
SET ROLE mrfdp_pl_analyst;
CREATE TEMP TABLE pl_delta_out AS
SELECT 'zcdp' AS step, r.* FROM pg_temp.pl_try($$SELECT mrf_learn_ising_from('pl_delta', 'row', rho => 0.1, variables => 4)$$) r;
INSERT INTO pl_delta_out
SELECT 'stable', r.* FROM pg_temp.pl_try($$SELECT mrf_learn_structure_from('pl_delta', 'row', epsilon => 1, delta => 1e-6, lambda => 1, eta => 0.5, blocks => 16, variables => 4)$$) r;
INSERT INTO pl_delta_out
SELECT 'suggested', r.*
FROM pl_delta_out s,
	 pg_temp.pl_try(format($$SELECT mrf_learn_structure_from('pl_delta', 'row', epsilon => 1, delta => %s, lambda => 1, eta => 0.5, blocks => 16, variables => 4)$$,
						   substring(s.hint from 'fits at delta = ([0-9.e+-]+) or less'))) r
WHERE s.step = 'stable';
RESET ROLE;
SELECT is((SELECT state FROM pl_delta_out WHERE step = 'zcdp'), '00000', 'a zCDP release first');
SELECT is((SELECT state || ' ' || msg FROM pl_delta_out WHERE step = 'stable'),
	'42501 privacy budget of relation public.pl_delta cannot cover this release',
	'then the stable mode at delta = 1e-6 (the whole delta) is refused');
SELECT ok((SELECT hint ~ 'This epsilon fits at delta = [0-9.e+-]+ or less\.$' FROM pl_delta_out WHERE step = 'stable'),
	'the hint names a delta at which the epsilon fits');
SELECT is((SELECT state FROM pl_delta_out WHERE step = 'suggested'), '00000',
	'a request at the suggested delta is admitted');

DROP TABLE pl_bin, pl_kary, pl_ising, pl_twise, pl_structure, pl_stable, pl_pairwise,
	pl_mst, pl_aim, pl_cliques, pl_msg, pl_delta CASCADE;
DROP OWNED BY mrfdp_pl_analyst, mrfdp_pl_other, mrfdp_pl_outsider;
SELECT * FROM finish();
