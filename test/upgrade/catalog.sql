-- Describes every object of the extension mrfdp, one line each, in a form
-- that compares across databases (names, never OIDs): functions with their
-- signatures, bodies, attributes and ACLs; aggregates; types; tables with
-- columns, constraints, indexes, triggers and ACLs; views with their
-- definitions; sequences; casts; event triggers; schemas; comments; initial
-- privileges; the extension's configuration tables.  test/upgrade compares
-- it between a fresh install and an updated one.
\pset format unaligned
\pset tuples_only on
\pset fieldsep ' | '
WITH ext AS (
	SELECT oid FROM pg_extension WHERE extname = 'mrfdp'
), member AS (
	SELECT d.classid, d.objid
	FROM pg_depend d, ext
	WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'
), lines AS (
	-- functions and aggregates
	SELECT 'function ' || p.oid::regprocedure::text AS obj,
		   concat_ws(' | ', 'kind=' || p.prokind::text, 'returns=' || pg_get_function_result(p.oid),
					 'args=' || pg_get_function_arguments(p.oid),
					 'lang=' || l.lanname, 'volatile=' || p.provolatile::text,
					 'parallel=' || p.proparallel::text, 'strict=' || p.proisstrict,
					 'secdef=' || p.prosecdef, 'leakproof=' || p.proleakproof,
					 'cost=' || p.procost, 'rows=' || p.prorows,
					 'config=' || coalesce(p.proconfig::text, '-'),
					 'owner=' || (p.proowner = (SELECT extowner FROM pg_extension WHERE extname = 'mrfdp')),
					 'acl=' || coalesce(p.proacl::text, 'default'),
					 'bin=' || coalesce(p.probin, '-'), 'src=' || p.prosrc) AS def
	FROM member m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
		 JOIN pg_language l ON l.oid = p.prolang
	UNION ALL
	SELECT 'aggregate ' || a.aggfnoid::regprocedure::text,
		   concat_ws(' | ', 'kind=' || a.aggkind::text, 'sfunc=' || a.aggtransfn::regprocedure,
					 'stype=' || format_type(a.aggtranstype, NULL),
					 'final=' || a.aggfinalfn::regproc, 'combine=' || a.aggcombinefn::regproc,
					 'serial=' || a.aggserialfn::regproc, 'deserial=' || a.aggdeserialfn::regproc,
					 'mfinal=' || a.aggmfinalfn::regproc, 'finalextra=' || a.aggfinalextra,
					 'finalmodify=' || a.aggfinalmodify::text, 'init=' || coalesce(a.agginitval, '-'))
	FROM member m JOIN pg_aggregate a ON m.classid = 'pg_proc'::regclass AND a.aggfnoid = m.objid
	UNION ALL
	-- types (and their array types)
	SELECT 'type ' || format_type(t.oid, NULL),
		   concat_ws(' | ', 'typtype=' || t.typtype::text, 'len=' || t.typlen, 'byval=' || t.typbyval,
					 'align=' || t.typalign::text, 'storage=' || t.typstorage::text,
					 'category=' || t.typcategory::text, 'preferred=' || t.typispreferred,
					 'input=' || t.typinput::regproc, 'output=' || t.typoutput::regproc,
					 'receive=' || t.typreceive::regproc, 'send=' || t.typsend::regproc,
					 'array=' || coalesce(format_type(nullif(t.typarray, 0), NULL), '-'),
					 'elem=' || coalesce(format_type(nullif(t.typelem, 0), NULL), '-'),
					 'acl=' || coalesce(t.typacl::text, 'default'))
	FROM member m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
	UNION ALL
	-- relations: tables, views, sequences, indexes
	SELECT 'relation ' || c.oid::regclass::text,
		   concat_ws(' | ', 'relkind=' || c.relkind::text, 'acl=' || coalesce(c.relacl::text, 'default'),
					 'options=' || coalesce(c.reloptions::text, '-'),
					 'rowsecurity=' || c.relrowsecurity,
					 'view=' || coalesce(pg_get_viewdef(c.oid), '-'))
	FROM member m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
	UNION ALL
	SELECT 'column ' || c.oid::regclass::text || '.' || a.attname,
		   concat_ws(' | ', 'num=' || a.attnum, 'type=' || format_type(a.atttypid, a.atttypmod),
					 'notnull=' || a.attnotnull,
					 'default=' || coalesce(pg_get_expr(ad.adbin, ad.adrelid), '-'),
					 'acl=' || coalesce(a.attacl::text, 'default'),
					 'comment=' || coalesce(col_description(c.oid, a.attnum), '-'))
	FROM member m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
		 JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
		 LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
	UNION ALL
	SELECT 'constraint ' || con.conrelid::regclass::text || '.' || con.conname, pg_get_constraintdef(con.oid)
	FROM member m JOIN pg_constraint con ON m.classid = 'pg_class'::regclass AND con.conrelid = m.objid
	UNION ALL
	SELECT 'index ' || i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
	FROM member m JOIN pg_index i ON m.classid = 'pg_class'::regclass AND i.indrelid = m.objid
	UNION ALL
	SELECT 'trigger ' || tg.tgrelid::regclass::text || '.' || tg.tgname,
		   pg_get_triggerdef(tg.oid) || ' | enabled=' || tg.tgenabled::text
	FROM member m JOIN pg_trigger tg ON m.classid = 'pg_class'::regclass AND tg.tgrelid = m.objid
	WHERE NOT tg.tgisinternal
	UNION ALL
	SELECT 'sequence ' || s.seqrelid::regclass::text,
		   concat_ws(' | ', format_type(s.seqtypid, NULL), s.seqstart, s.seqincrement, s.seqmax,
					 s.seqmin, s.seqcache, s.seqcycle)
	FROM member m JOIN pg_sequence s ON m.classid = 'pg_class'::regclass AND s.seqrelid = m.objid
	UNION ALL
	SELECT 'cast ' || format_type(ca.castsource, NULL) || ' AS ' || format_type(ca.casttarget, NULL),
		   concat_ws(' | ', 'func=' || coalesce(nullif(ca.castfunc, 0)::regprocedure::text, '-'),
					 'context=' || ca.castcontext::text, 'method=' || ca.castmethod::text)
	FROM member m JOIN pg_cast ca ON m.classid = 'pg_cast'::regclass AND ca.oid = m.objid
	UNION ALL
	SELECT 'event trigger ' || e.evtname,
		   concat_ws(' | ', e.evtevent, e.evtfoid::regprocedure::text, 'enabled=' || e.evtenabled::text,
					 'tags=' || coalesce(e.evttags::text, '-'))
	FROM member m JOIN pg_event_trigger e ON m.classid = 'pg_event_trigger'::regclass AND e.oid = m.objid
	UNION ALL
	SELECT 'schema ' || n.nspname, 'acl=' || coalesce(n.nspacl::text, 'default')
	FROM member m JOIN pg_namespace n ON m.classid = 'pg_namespace'::regclass AND n.oid = m.objid
	UNION ALL
	-- other member kinds (operators, ...) at least by name
	SELECT 'member ' || pg_describe_object(m.classid, m.objid, 0), '-'
	FROM member m
	WHERE m.classid NOT IN ('pg_proc'::regclass, 'pg_type'::regclass, 'pg_class'::regclass,
							'pg_cast'::regclass, 'pg_event_trigger'::regclass, 'pg_namespace'::regclass)
	UNION ALL
	-- comments on members (and on their columns, listed above)
	SELECT 'comment ' || pg_describe_object(m.classid, m.objid, 0), dsc.description
	FROM member m JOIN pg_description dsc ON dsc.classoid = m.classid AND dsc.objoid = m.objid
											AND dsc.objsubid = 0
	UNION ALL
	-- privileges pg_dump treats as the extension's own
	SELECT 'init_privs ' || pg_describe_object(ip.classoid, ip.objoid, ip.objsubid),
		   ip.privtype::text || ' ' || ip.initprivs::text
	FROM member m JOIN pg_init_privs ip ON ip.classoid = m.classid AND ip.objoid = m.objid
	UNION ALL
	SELECT 'extension mrfdp',
		   concat_ws(' | ', 'schema=' || e.extnamespace::regnamespace, 'relocatable=' || e.extrelocatable,
					 'version=' || e.extversion,
					 'config=' || coalesce((SELECT string_agg(c::regclass::text || ' ' || quote_literal(w), ', '
														  ORDER BY c::regclass::text)
											FROM unnest(e.extconfig, e.extcondition) AS u(c, w)), '-'))
	FROM pg_extension e WHERE e.extname = 'mrfdp'
)
SELECT obj || ' | ' || def FROM lines ORDER BY obj COLLATE "C", def COLLATE "C";
