-- server: session_preload
-- Support functions stay out of users' \df (issue 14 item 3): every function
-- or aggregate users never call (aggregate support taking internal, the
-- Citus siblings the planner hook puts in place of a learner aggregate, their
-- transitions and finals) lives in schema mrfdp_internal, not in the
-- extension's schema nor in mrfdp (test/operations/user_schema.sql).
BEGIN;
SELECT plan(3);
CREATE TEMP VIEW ext_funcs AS
	SELECT p.oid, p.proname, p.pronamespace::regnamespace::text AS nsp, p.prokind,
		   p.proargtypes::oid[] @> ARRAY['internal'::regtype::oid] AS takes_internal
	  FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
	 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
	   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'mrfdp');
SELECT is((SELECT string_agg(DISTINCT proname, ', ') FROM ext_funcs
		   WHERE nsp <> 'mrfdp_internal' AND (takes_internal OR proname ~ '_(citus_agg|citus_accum|citus_final|accum|combine)$')),
		  NULL, 'no support function or Citus sibling aggregate outside schema mrfdp_internal (found:)');
SELECT cmp_ok((SELECT count(*) FROM ext_funcs WHERE nsp = 'mrfdp_internal' AND prokind = 'a' AND proname ~ '_citus_agg$'),
			  '>=', 30::bigint, 'the Citus sibling aggregates (one per learner and sample type) are in schema mrfdp_internal');
SELECT cmp_ok((SELECT count(*) FROM ext_funcs WHERE nsp = 'public' AND prokind = 'a' AND proname ~ '^mrf_learn_[a-z]+_agg$'),
			  '>=', 6::bigint, 'the learner aggregates users call stay in the extension''s schema');
SELECT * FROM finish();
ROLLBACK;
