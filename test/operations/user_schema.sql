-- server: session_preload
-- A clean user schema: \df mrfdp.* lists the functions users call on the
-- ledger, and everything users do not call (aggregate support, type I/O,
-- triggers, Citus's aggregates and parts, codes readers) is in
-- mrfdp_internal, which every role may use; the learners, whose aggregates
-- call their support functions by OID, work for a role without any grant.
BEGIN;
SELECT plan(9);

SELECT is((SELECT array_agg(p.proname::text ORDER BY p.proname) FROM pg_proc p
		   WHERE p.pronamespace = 'mrfdp'::regnamespace),
		  ARRAY['exact_numeric', 'grant_learning', 'protect', 'remaining', 'revoke_learning', 'spent_epsilon'],
		  '\df mrfdp.* lists the ledger''s user functions alone');
SELECT is((SELECT count(*) FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
		   AND d.deptype = 'e' AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'mrfdp')
		   WHERE p.pronamespace <> 'mrfdp_internal'::regnamespace
			 AND ('internal'::regtype = ANY (p.proargtypes) OR p.prorettype IN ('trigger'::regtype, 'event_trigger'::regtype,
																			   'tsm_handler'::regtype))),
		  0::bigint, 'every support function (internal arguments, triggers, the tablesample method) is internal');
SELECT is((SELECT count(*) FROM pg_proc p WHERE p.pronamespace <> 'mrfdp_internal'::regnamespace
		   AND (p.proname LIKE 'mrf\_%\_citus\_%' OR p.proname LIKE 'mrf\_citus\_%' OR p.proname LIKE 'mrf\_fw\_%' OR p.proname LIKE 'mrf\_stable\_%'
				OR p.proname LIKE 'mrf\_%\_accum' OR p.proname LIKE 'mrf\_%\_final')),
		  0::bigint, 'Citus''s aggregates and parts, the codes readers and every accum and final function are internal');
SELECT cmp_ok((SELECT count(*) FROM pg_proc WHERE pronamespace = 'mrfdp_internal'::regnamespace), '>', 90::bigint,
			  'the support functions are there');
SELECT ok(has_schema_privilege('public', 'mrfdp_internal', 'USAGE'), 'every role may use the internal schema');
SELECT is((SELECT count(*) FROM pg_proc p
		   WHERE p.pronamespace IN ('mrfdp'::regnamespace, 'mrfdp_internal'::regnamespace, 'public'::regnamespace)
			 AND p.proname LIKE 'mrf\_learn\_%\_agg' AND p.pronamespace <> 'public'::regnamespace
			 AND p.proname NOT LIKE '%\_citus\_agg'), 0::bigint,
		  'the learners'' aggregates stay in the extension''s schema');

CREATE ROLE mrfdp_us_user;
CREATE TEMP TABLE us_rows AS
SELECT ARRAY[g % 2 = 0, g % 3 = 0, (g % 2 = 0) <> (g % 7 = 0)] AS x FROM generate_series(1, 2000) g;
GRANT SELECT ON us_rows TO mrfdp_us_user;
SET LOCAL ROLE mrfdp_us_user;
SELECT is((SELECT (mrf_info(mrf_learn_ising_agg(x, mrf_options(rho => 1))))->>'rows' FROM us_rows), '2000',
		  'a role with no grant learns through an aggregate whose support functions are internal');
SELECT is((SELECT (mrf_info(mrf_learn_ising(x, rho => 1)))->>'rows' FROM us_rows), '2000',
		  'and through the named form');
SELECT is((SELECT (mrf_info(mrf_learn_pairwise(x, rho => 1, k => 2)))->>'rows' FROM
		   (SELECT ARRAY[g % 2, g % 3 % 2, g % 5 % 2] AS x FROM generate_series(1, 2000) g) s), '2000',
		  'a k-ary learner too (its rows read into bytes by an internal transition function)');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
