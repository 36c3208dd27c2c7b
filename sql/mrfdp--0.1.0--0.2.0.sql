-- mrfdp 0.1.0 -> 0.2.0.  Every change made to sql/parts/ since 0.1.0 is
-- repeated here, so that ALTER EXTENSION mrfdp UPDATE leaves the catalog a
-- fresh CREATE EXTENSION mrfdp would build (test/upgrade checks it).  See the
-- README, "Changing the SQL".
\echo Use "ALTER EXTENSION mrfdp UPDATE TO '0.2.0'" to load this file. \quit

-- A clean user schema (sql/parts/00_core.sql): what users do not call moves
-- to mrfdp_internal first, so that everything below creates, replaces or
-- drops it there.  Functions keep their OIDs, grants and dependants.
CREATE SCHEMA mrfdp_internal;
GRANT USAGE ON SCHEMA mrfdp_internal TO PUBLIC;
ALTER FUNCTION mrfdp.budget_arriving() SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrfdp.forget_dropped() SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrfdp.forget_revoked() SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrfdp.grant_arriving() SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrfdp.grant_gone() SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrfdp.holds_learning_marker(oid) SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrfdp.ledger_append_only() SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrfdp.ledger_arriving() SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrfdp.refuse_drop_with_budgets() SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrfdp.relation_ref_in(cstring) SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrfdp.relation_ref_out(mrfdp.relation_ref) SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrfdp.role_ref_in(cstring) SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrfdp.role_ref_out(mrfdp.role_ref) SET SCHEMA mrfdp_internal;

-- Their bodies name the moved marker test by schema: the current bodies.
CREATE OR REPLACE FUNCTION mrfdp_internal.grant_arriving() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	rolename name;
BEGIN
	IF NEW.relation::oid = 0 OR NEW.role::oid = 0 THEN
		RETURN NULL;
	END IF;
	IF NEW.granted_by::oid = 0 THEN
		NEW.granted_by := NULL;
	END IF;
	SELECT rolname INTO rolename FROM pg_roles WHERE oid = NEW.role::oid;
	IF rolename IS NULL THEN
		RAISE EXCEPTION 'role with OID % does not exist', NEW.role::oid
			USING ERRCODE = 'undefined_object';
	END IF;
	LOCK TABLE mrfdp.learning_grantees IN SHARE UPDATE EXCLUSIVE MODE;
	IF NOT mrfdp_internal.holds_learning_marker(NEW.role) THEN
		DELETE FROM mrfdp.grants g WHERE g.role = NEW.role;
		EXECUTE format('GRANT REFERENCES ON mrfdp.learning_grantees TO %I', rolename);
	END IF;
	RETURN NEW;
END $$;
CREATE OR REPLACE FUNCTION mrfdp_internal.grant_gone() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	rolename name;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM mrfdp.grants g WHERE g.role = OLD.role)
	   AND mrfdp_internal.holds_learning_marker(OLD.role) THEN
		SELECT rolname INTO rolename FROM pg_roles WHERE oid = OLD.role::oid;
		LOCK TABLE mrfdp.learning_grantees IN SHARE UPDATE EXCLUSIVE MODE;
		EXECUTE format('REVOKE REFERENCES ON mrfdp.learning_grantees FROM %I', rolename);
	END IF;
	RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION mrfdp_internal.forget_revoked() RETURNS event_trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	DELETE FROM mrfdp.grants g WHERE NOT mrfdp_internal.holds_learning_marker(g.role);
END $$;

-- Citus (issue 13; sql/parts/70_citus.sql): the identity that hides a
-- grouping column from Citus.
CREATE FUNCTION mrfdp_internal.mrf_citus_group_key(anyelement) RETURNS anyelement
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mrfdp_internal.mrf_citus_group_key(anyelement) IS
	'Returns its argument; mrfdp wraps the grouping columns of queries that call a learner in it on Citus, so Citus keeps the learner on the coordinator.';

-- Names and labels (issue 11 item 2; sql/parts/00_core.sql, 30_pairwise.sql,
-- 40_twise.sql, 60_cliques.sql): the accessors gain name and label columns
-- (a new row type: DROP and CREATE), and mrf_variables is new.
DROP FUNCTION mrf_edges(mrf, float8);
DROP FUNCTION mrf_fields(mrf);
DROP FUNCTION mrf_weights(mrf);
DROP FUNCTION mrf_monomials(mrf);
DROP FUNCTION mrf_potentials(mrf);
DROP FUNCTION mrf_marginals(mrf);
CREATE FUNCTION mrf_edges(model mrf, threshold float8 DEFAULT 0,
						  OUT i int, OUT j int, OUT weight float8,
						  OUT name_i text, OUT name_j text)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_fields(model mrf, OUT i int, OUT a int, OUT theta float8,
						   OUT name text, OUT label text)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_variables(model mrf, OUT i int, OUT name text, OUT labels text[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_weights(model mrf, OUT i int, OUT j int, OUT a int, OUT b int,
							OUT weight float8, OUT name_i text, OUT name_j text,
							OUT label_a text, OUT label_b text)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_monomials(model mrf, OUT vars int[], OUT coef float8, OUT names text[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_potentials(model mrf, OUT clique int[], OUT assignment int[],
							   OUT log_potential float8, OUT names text[], OUT labels text[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_marginals(model mrf, OUT clique int[], OUT assignment int[],
							  OUT probability float8, OUT names text[], OUT labels text[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The support functions that take internal arguments (no user can call
-- them; they crowded \df) leave public for the internal schema; the
-- aggregates and the type keep referring to them by OID.
ALTER FUNCTION mrf_recv(internal) SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrf_bits_accum(internal, anyelement, jsonb) SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrf_bytes_accum(internal, anyelement, jsonb) SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrf_rows_combine(internal, internal) SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrf_rows_serialize(internal) SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrf_rows_deserialize(bytea, internal) SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrf_structure_accum(internal, anyelement, jsonb) SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrf_ising_final(internal) SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrf_pairwise_final(internal) SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrf_twise_final(internal) SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrf_structure_final(internal) SET SCHEMA mrfdp_internal;
ALTER FUNCTION mrf_cliques_final(internal) SET SCHEMA mrfdp_internal;

-- The learner driver (issue 14, item 1): the defaults of the learners'
-- options live in one table, src/pg/options.c's OptionDefaults, listed by
-- mrf_option_defaults(); the named and protected forms (and
-- mrf_structure_rows_needed's lambda) declare them DEFAULT NULL, "the
-- learner's default", so changing a default never needs an upgrade script.
CREATE FUNCTION mrf_option_defaults(OUT learner text, OUT option text, OUT value jsonb)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION mrf_learn_ising(x anyelement,
								rho float8 DEFAULT NULL,
								epsilon float8 DEFAULT NULL,
								delta float8 DEFAULT NULL,
								lambda float8 DEFAULT NULL,
								iterations int DEFAULT NULL,
								mechanism text DEFAULT NULL,
								symmetrize boolean DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- option columns (the relation's columns to learn from): a new parameter
DROP FUNCTION mrf_learn_ising_from(regclass, text, float8, float8, float8, float8, int, text, boolean, int);
CREATE FUNCTION mrf_learn_ising_from(relation regclass, column_name text,
									 rho float8 DEFAULT NULL,
									 epsilon float8 DEFAULT NULL,
									 delta float8 DEFAULT NULL,
									 lambda float8 DEFAULT NULL,
									 iterations int DEFAULT NULL,
									 mechanism text DEFAULT NULL,
									 symmetrize boolean DEFAULT NULL,
									 variables int DEFAULT NULL,
									 columns text[] DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

CREATE OR REPLACE FUNCTION mrf_learn_pairwise(x anyelement,
								   k int DEFAULT NULL,
								   rho float8 DEFAULT NULL,
								   epsilon float8 DEFAULT NULL,
								   delta float8 DEFAULT NULL,
								   lambda float8 DEFAULT NULL,
								   iterations int DEFAULT NULL,
								   mechanism text DEFAULT NULL,
								   symmetrize boolean DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION mrf_learn_pairwise_from(relation regclass, column_name text,
										k int DEFAULT NULL,
										rho float8 DEFAULT NULL,
										epsilon float8 DEFAULT NULL,
										delta float8 DEFAULT NULL,
										lambda float8 DEFAULT NULL,
										iterations int DEFAULT NULL,
										mechanism text DEFAULT NULL,
										symmetrize boolean DEFAULT NULL,
										variables int DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

CREATE OR REPLACE FUNCTION mrf_learn_twise(x anyelement,
								t int DEFAULT NULL,
								rho float8 DEFAULT NULL,
								epsilon float8 DEFAULT NULL,
								delta float8 DEFAULT NULL,
								lambda float8 DEFAULT NULL,
								objective text DEFAULT NULL,
								query_release text DEFAULT NULL,
								iterations int DEFAULT NULL,
								mechanism text DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;

DROP FUNCTION mrf_learn_twise_from(regclass, text, int, float8, float8, float8, float8, text, text, int, text, int);
CREATE FUNCTION mrf_learn_twise_from(relation regclass, column_name text,
									 t int DEFAULT NULL,
									 rho float8 DEFAULT NULL,
									 epsilon float8 DEFAULT NULL,
									 delta float8 DEFAULT NULL,
									 lambda float8 DEFAULT NULL,
									 objective text DEFAULT NULL,
									 query_release text DEFAULT NULL,
									 iterations int DEFAULT NULL,
									 mechanism text DEFAULT NULL,
									 variables int DEFAULT NULL,
									 columns text[] DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

CREATE OR REPLACE FUNCTION mrf_learn_structure(x anyelement,
									epsilon float8 DEFAULT NULL,
									delta float8 DEFAULT NULL,
									eta float8 DEFAULT NULL,
									lambda float8 DEFAULT NULL,
									model text DEFAULT NULL,
									blocks int DEFAULT NULL,
									method text DEFAULT NULL,
									rho float8 DEFAULT NULL,
									iterations int DEFAULT NULL,
									mechanism text DEFAULT NULL,
									k int DEFAULT NULL,
									t int DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION mrf_learn_structure_from(relation regclass, column_name text,
										 epsilon float8 DEFAULT NULL,
										 delta float8 DEFAULT NULL,
										 eta float8 DEFAULT NULL,
										 lambda float8 DEFAULT NULL,
										 model text DEFAULT NULL,
										 blocks int DEFAULT NULL,
										 method text DEFAULT NULL,
										 rho float8 DEFAULT NULL,
										 iterations int DEFAULT NULL,
										 mechanism text DEFAULT NULL,
										 k int DEFAULT NULL,
										 t int DEFAULT NULL,
										 variables int DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

-- issue 10: the plan gains the model's width and the model (pairwise with
-- k, t-wise with t): a new signature, DROP and CREATE
DROP FUNCTION mrf_structure_rows_needed(int, float8, float8, float8, float8, int);
CREATE FUNCTION mrf_structure_rows_needed(p int, eta float8, epsilon float8, delta float8,
										  lambda float8 DEFAULT NULL, blocks int DEFAULT NULL,
										  width float8 DEFAULT NULL, model text DEFAULT NULL,
										  k int DEFAULT NULL, t int DEFAULT NULL)
	RETURNS TABLE (block_count int, tau bigint, rows_per_block bigint, "rows" bigint)
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION mrf_learn_cliques(x anyelement,
								  cliques jsonb DEFAULT NULL,
								  k int DEFAULT NULL,
								  epsilon float8 DEFAULT NULL,
								  method text DEFAULT NULL,
								  tolerance float8 DEFAULT NULL,
								  em_iterations int DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION mrf_learn_cliques_from(relation regclass, column_name text,
									   cliques jsonb DEFAULT NULL,
									   k int DEFAULT NULL,
									   epsilon float8 DEFAULT NULL,
									   method text DEFAULT NULL,
									   tolerance float8 DEFAULT NULL,
									   em_iterations int DEFAULT NULL,
									   variables int DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

-- Citus (issue 13, item 2; sql/parts/75_citus_state.sql): learner aggregates
-- with a bytea state Citus combines on the workers.
CREATE FUNCTION mrfdp_internal.mrf_citus_combine(bytea, bytea) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION mrfdp_internal.mrf_learn_ising_citus_accum(bytea, anyelement, jsonb) RETURNS bytea
	AS 'MODULE_PATHNAME', 'mrf_citus_accum' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_learn_ising_citus_final(bytea) RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_citus_final' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE AGGREGATE mrfdp_internal.mrf_learn_ising_citus_agg(boolean[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_ising_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_ising_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_ising_citus_agg(smallint[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_ising_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_ising_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_ising_citus_agg(integer[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_ising_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_ising_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_ising_citus_agg(bit, jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_ising_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_ising_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_ising_citus_agg(bit varying, jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_ising_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_ising_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);

CREATE FUNCTION mrfdp_internal.mrf_learn_pairwise_citus_accum(bytea, anyelement, jsonb) RETURNS bytea
	AS 'MODULE_PATHNAME', 'mrf_citus_accum' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_learn_pairwise_citus_final(bytea) RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_citus_final' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE AGGREGATE mrfdp_internal.mrf_learn_pairwise_citus_agg(boolean[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_pairwise_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_pairwise_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_pairwise_citus_agg(smallint[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_pairwise_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_pairwise_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_pairwise_citus_agg(integer[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_pairwise_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_pairwise_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_pairwise_citus_agg(bit, jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_pairwise_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_pairwise_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_pairwise_citus_agg(bit varying, jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_pairwise_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_pairwise_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);

CREATE FUNCTION mrfdp_internal.mrf_learn_twise_citus_accum(bytea, anyelement, jsonb) RETURNS bytea
	AS 'MODULE_PATHNAME', 'mrf_citus_accum' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_learn_twise_citus_final(bytea) RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_citus_final' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE AGGREGATE mrfdp_internal.mrf_learn_twise_citus_agg(boolean[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_twise_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_twise_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_twise_citus_agg(smallint[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_twise_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_twise_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_twise_citus_agg(integer[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_twise_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_twise_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_twise_citus_agg(bit, jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_twise_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_twise_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_twise_citus_agg(bit varying, jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_twise_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_twise_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);

CREATE FUNCTION mrfdp_internal.mrf_learn_structure_citus_accum(bytea, anyelement, jsonb) RETURNS bytea
	AS 'MODULE_PATHNAME', 'mrf_citus_accum' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_learn_structure_citus_final(bytea) RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_citus_final' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE AGGREGATE mrfdp_internal.mrf_learn_structure_citus_agg(boolean[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_structure_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_structure_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_structure_citus_agg(smallint[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_structure_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_structure_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_structure_citus_agg(integer[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_structure_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_structure_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_structure_citus_agg(bit, jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_structure_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_structure_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_structure_citus_agg(bit varying, jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_structure_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_structure_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);

CREATE FUNCTION mrfdp_internal.mrf_learn_cliques_citus_accum(bytea, anyelement, jsonb) RETURNS bytea
	AS 'MODULE_PATHNAME', 'mrf_citus_accum' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_learn_cliques_citus_final(bytea) RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_citus_final' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE AGGREGATE mrfdp_internal.mrf_learn_cliques_citus_agg(boolean[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_cliques_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_cliques_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_cliques_citus_agg(smallint[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_cliques_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_cliques_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_cliques_citus_agg(integer[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_cliques_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_cliques_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_cliques_citus_agg(bit, jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_cliques_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_cliques_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_cliques_citus_agg(bit varying, jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_cliques_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_cliques_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);

-- Declared domains and missing values (issue 11 items 1 and 3;
-- sql/parts/00_core.sql, 30_pairwise.sql): options domains and nulls, new
-- parameters of mrf_options and of the pairwise named and protected forms
-- (DROP and CREATE).
DROP FUNCTION mrf_options(float8, float8, float8, float8, int, text, boolean, int, int, text, text,
						  float8, int, text, text, jsonb, float8, int);
DROP FUNCTION mrf_learn_pairwise(anyelement, int, float8, float8, float8, float8, int, text, boolean);
DROP FUNCTION mrf_learn_pairwise_from(regclass, text, int, float8, float8, float8, float8, int, text,
									  boolean, int);
CREATE FUNCTION mrf_options(rho float8 DEFAULT NULL,
							epsilon float8 DEFAULT NULL,
							delta float8 DEFAULT NULL,
							lambda float8 DEFAULT NULL,
							iterations int DEFAULT NULL,
							mechanism text DEFAULT NULL,
							symmetrize boolean DEFAULT NULL,
							k int DEFAULT NULL,
							t int DEFAULT NULL,
							objective text DEFAULT NULL,
							query_release text DEFAULT NULL,
							eta float8 DEFAULT NULL,
							blocks int DEFAULT NULL,
							model text DEFAULT NULL,
							method text DEFAULT NULL,
							cliques jsonb DEFAULT NULL,
							tolerance float8 DEFAULT NULL,
							em_iterations int DEFAULT NULL,
							domains jsonb DEFAULT NULL,
							nulls text DEFAULT NULL,
							workload jsonb DEFAULT NULL,
							bins jsonb DEFAULT NULL,
							rounds int DEFAULT NULL,
							one_way_share float8 DEFAULT NULL,
							max_model_cells int DEFAULT NULL,
							schedule text DEFAULT NULL)
	RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION mrf_learn_pairwise(x anyelement,
								   k int DEFAULT NULL,
								   rho float8 DEFAULT NULL,
								   epsilon float8 DEFAULT NULL,
								   delta float8 DEFAULT NULL,
								   lambda float8 DEFAULT NULL,
								   iterations int DEFAULT NULL,
								   mechanism text DEFAULT NULL,
								   symmetrize boolean DEFAULT NULL,
								   domains jsonb DEFAULT NULL,
								   nulls text DEFAULT NULL,
								   bins jsonb DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE FUNCTION mrf_learn_pairwise_from(relation regclass, column_name text,
										k int DEFAULT NULL,
										rho float8 DEFAULT NULL,
										epsilon float8 DEFAULT NULL,
										delta float8 DEFAULT NULL,
										lambda float8 DEFAULT NULL,
										iterations int DEFAULT NULL,
										mechanism text DEFAULT NULL,
										symmetrize boolean DEFAULT NULL,
										variables int DEFAULT NULL,
										domains jsonb DEFAULT NULL,
										nulls text DEFAULT NULL,
										bins jsonb DEFAULT NULL,
										columns text[] DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

-- Per-variable alphabets for clique models (issue 11 item 1;
-- sql/parts/60_cliques.sql): options domains and nulls, new parameters of
-- the cliques named and protected forms (DROP and CREATE).
DROP FUNCTION mrf_learn_cliques(anyelement, jsonb, int, float8, text, float8, int);
DROP FUNCTION mrf_learn_cliques_from(regclass, text, jsonb, int, float8, text, float8, int, int);
CREATE FUNCTION mrf_learn_cliques(x anyelement,
								  cliques jsonb DEFAULT NULL,
								  k int DEFAULT NULL,
								  epsilon float8 DEFAULT NULL,
								  method text DEFAULT NULL,
								  tolerance float8 DEFAULT NULL,
								  em_iterations int DEFAULT NULL,
								  domains jsonb DEFAULT NULL,
								  nulls text DEFAULT NULL,
								  bins jsonb DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE FUNCTION mrf_learn_cliques_from(relation regclass, column_name text,
									   cliques jsonb DEFAULT NULL,
									   k int DEFAULT NULL,
									   epsilon float8 DEFAULT NULL,
									   method text DEFAULT NULL,
									   tolerance float8 DEFAULT NULL,
									   em_iterations int DEFAULT NULL,
									   variables int DEFAULT NULL,
									   domains jsonb DEFAULT NULL,
									   nulls text DEFAULT NULL,
									   bins jsonb DEFAULT NULL,
									   columns text[] DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

-- mrf_dot (issue 11 item 5; sql/parts/00_core.sql).
CREATE FUNCTION mrf_dot(model mrf, threshold float8 DEFAULT 0) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- mrf_synthesize (issue 11 item 4; sql/parts/00_core.sql).
CREATE FUNCTION mrf_synthesize(model mrf, n int, rowtype anyelement, seed bigint DEFAULT NULL,
							   burn_in int DEFAULT 1000, thin int DEFAULT 10,
							   method text DEFAULT 'sample')
	RETURNS SETOF anyelement
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Structure learning with model 'pairwise' takes declared domains and the
-- NULL policy (issue 11 item 1; sql/parts/50_structure.sql): new parameters
-- of the named and protected forms (DROP and CREATE).
DROP FUNCTION mrf_learn_structure(anyelement, float8, float8, float8, float8, text, int, text, float8,
								  int, text, int, int);
DROP FUNCTION mrf_learn_structure_from(regclass, text, float8, float8, float8, float8, text, int, text,
									   float8, int, text, int, int, int);
CREATE FUNCTION mrf_learn_structure(x anyelement,
									epsilon float8 DEFAULT NULL,
									delta float8 DEFAULT NULL,
									eta float8 DEFAULT NULL,
									lambda float8 DEFAULT NULL,
									model text DEFAULT NULL,
									blocks int DEFAULT NULL,
									method text DEFAULT NULL,
									rho float8 DEFAULT NULL,
									iterations int DEFAULT NULL,
									mechanism text DEFAULT NULL,
									k int DEFAULT NULL,
									t int DEFAULT NULL,
									domains jsonb DEFAULT NULL,
									nulls text DEFAULT NULL,
									bins jsonb DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE FUNCTION mrf_learn_structure_from(relation regclass, column_name text,
										 epsilon float8 DEFAULT NULL,
										 delta float8 DEFAULT NULL,
										 eta float8 DEFAULT NULL,
										 lambda float8 DEFAULT NULL,
										 model text DEFAULT NULL,
										 blocks int DEFAULT NULL,
										 method text DEFAULT NULL,
										 rho float8 DEFAULT NULL,
										 iterations int DEFAULT NULL,
										 mechanism text DEFAULT NULL,
										 k int DEFAULT NULL,
										 t int DEFAULT NULL,
										 variables int DEFAULT NULL,
										 domains jsonb DEFAULT NULL,
										 nulls text DEFAULT NULL,
										 bins jsonb DEFAULT NULL,
										 columns text[] DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

-- Each learner's own transition (issue 14, item 1; sql/parts/05_rows.sql,
-- 10_ising.sql, 30_pairwise.sql, 40_twise.sql, 60_cliques.sql): a window
-- aggregate has no Aggref, so a transition shared by several learners could
-- not tell which learner it served, and planned (and checked the budget)
-- only at the final function, after the scan.  CREATE OR REPLACE keeps the
-- aggregates' OIDs, privileges and the views that use them.
CREATE FUNCTION mrfdp_internal.mrf_ising_accum(internal, anyelement, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION mrfdp_internal.mrf_pairwise_accum(internal, anyelement, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION mrfdp_internal.mrf_twise_accum(internal, anyelement, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION mrfdp_internal.mrf_cliques_accum(internal, anyelement, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE OR REPLACE AGGREGATE mrf_learn_ising_agg(anyelement, jsonb) (
	SFUNC = mrfdp_internal.mrf_ising_accum,
	STYPE = internal,
	FINALFUNC = mrfdp_internal.mrf_ising_final,
	COMBINEFUNC = mrfdp_internal.mrf_rows_combine,
	SERIALFUNC = mrfdp_internal.mrf_rows_serialize,
	DESERIALFUNC = mrfdp_internal.mrf_rows_deserialize,
	PARALLEL = SAFE
);
CREATE OR REPLACE AGGREGATE mrf_learn_pairwise_agg(anyelement, jsonb) (
	SFUNC = mrfdp_internal.mrf_pairwise_accum,
	STYPE = internal,
	FINALFUNC = mrfdp_internal.mrf_pairwise_final,
	COMBINEFUNC = mrfdp_internal.mrf_rows_combine,
	SERIALFUNC = mrfdp_internal.mrf_rows_serialize,
	DESERIALFUNC = mrfdp_internal.mrf_rows_deserialize,
	PARALLEL = SAFE
);
CREATE OR REPLACE AGGREGATE mrf_learn_twise_agg(anyelement, jsonb) (
	SFUNC = mrfdp_internal.mrf_twise_accum,
	STYPE = internal,
	FINALFUNC = mrfdp_internal.mrf_twise_final,
	COMBINEFUNC = mrfdp_internal.mrf_rows_combine,
	SERIALFUNC = mrfdp_internal.mrf_rows_serialize,
	DESERIALFUNC = mrfdp_internal.mrf_rows_deserialize,
	PARALLEL = SAFE
);
CREATE OR REPLACE AGGREGATE mrf_learn_cliques_agg(anyelement, jsonb) (
	SFUNC = mrfdp_internal.mrf_cliques_accum,
	STYPE = internal,
	FINALFUNC = mrfdp_internal.mrf_cliques_final,
	COMBINEFUNC = mrfdp_internal.mrf_rows_combine,
	SERIALFUNC = mrfdp_internal.mrf_rows_serialize,
	DESERIALFUNC = mrfdp_internal.mrf_rows_deserialize,
	PARALLEL = SAFE
);
DROP FUNCTION mrfdp_internal.mrf_bits_accum(internal, anyelement, jsonb);
DROP FUNCTION mrfdp_internal.mrf_bytes_accum(internal, anyelement, jsonb);

-- mrf_learn_mst (issue 12 item 1; sql/parts/65_mst.sql, 76_mst_citus.sql).

-- Transition: plans at each group's first row (window aggregates too), then
-- stores bytes.
CREATE FUNCTION mrfdp_internal.mrf_mst_accum(internal, anyelement, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_mst_final(internal) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE AGGREGATE mrf_learn_mst_agg(anyelement, jsonb) (
	SFUNC = mrfdp_internal.mrf_mst_accum,
	STYPE = internal,
	FINALFUNC = mrfdp_internal.mrf_mst_final,
	COMBINEFUNC = mrfdp_internal.mrf_rows_combine,
	SERIALFUNC = mrfdp_internal.mrf_rows_serialize,
	DESERIALFUNC = mrfdp_internal.mrf_rows_deserialize,
	PARALLEL = SAFE
);

-- Named form (rewritten into mrf_learn_mst_agg; see 10_ising.sql). Rows of
-- columns may mix alphabets (booleans, enums, columns with a declared
-- domain); k for integer arrays; iterations: the estimator's mirror-descent
-- steps (default 1000); domains and nulls as for mrf_learn_pairwise.
CREATE FUNCTION mrf_learn_mst(x anyelement,
							  rho float8 DEFAULT NULL,
							  epsilon float8 DEFAULT NULL,
							  delta float8 DEFAULT NULL,
							  k int DEFAULT NULL,
							  iterations int DEFAULT NULL,
							  domains jsonb DEFAULT NULL,
							  nulls text DEFAULT NULL,
							  bins jsonb DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- The protected path (see 10_ising.sql).
CREATE FUNCTION mrf_learn_mst_from(relation regclass, column_name text,
								   rho float8 DEFAULT NULL,
								   epsilon float8 DEFAULT NULL,
								   delta float8 DEFAULT NULL,
								   k int DEFAULT NULL,
								   iterations int DEFAULT NULL,
								   variables int DEFAULT NULL,
								   domains jsonb DEFAULT NULL,
								   nulls text DEFAULT NULL,
								   bins jsonb DEFAULT NULL,
								   columns text[] DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION mrfdp_internal.mrf_learn_mst_citus_accum(bytea, anyelement, jsonb) RETURNS bytea
	AS 'MODULE_PATHNAME', 'mrf_citus_accum' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_learn_mst_citus_final(bytea) RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_citus_final' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE AGGREGATE mrfdp_internal.mrf_learn_mst_citus_agg(boolean[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_mst_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_mst_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_mst_citus_agg(smallint[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_mst_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_mst_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_mst_citus_agg(integer[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_mst_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_mst_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_mst_citus_agg(bit, jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_mst_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_mst_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_mst_citus_agg(bit varying, jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_mst_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_mst_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);

-- mrf_learn_aim (issue 12 item 2; sql/parts/66_aim.sql; mrf_options gains
-- workload above).
-- AIM (McKenna, Mullins, Sheldon, Miklau 2022; privacy.md 13), rho-zCDP:
-- every one-way marginal measured, then rounds that select a workload
-- marginal by the exponential mechanism (worst weighted error, within a
-- junction-tree size that grows with the budget spent), measure it and
-- re-estimate, annealing the noise; a clique model is released. Byte-row
-- aggregate, named form, protected path. On Citus tables its combinable
-- sibling ships counted tables (78_aim_citus.sql; test/citus/aim.sql).

-- Transition: plans at each group's first row (window aggregates too), then
-- stores bytes.
CREATE FUNCTION mrfdp_internal.mrf_aim_accum(internal, anyelement, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_aim_final(internal) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE AGGREGATE mrf_learn_aim_agg(anyelement, jsonb) (
	SFUNC = mrfdp_internal.mrf_aim_accum,
	STYPE = internal,
	FINALFUNC = mrfdp_internal.mrf_aim_final,
	COMBINEFUNC = mrfdp_internal.mrf_rows_combine,
	SERIALFUNC = mrfdp_internal.mrf_rows_serialize,
	DESERIALFUNC = mrfdp_internal.mrf_rows_deserialize,
	PARALLEL = SAFE
);

-- Named form (rewritten into mrf_learn_aim_agg; see 10_ising.sql). workload:
-- '[["a", "b"], ["a", "b", "c"]]' by column names (or 1-based numbers for
-- arrays); default: every pair, plus the triples over pairs AIM selected.
-- iterations: the final estimate's mirror-descent steps (default 1000);
-- domains and nulls as for mrf_learn_pairwise. schedule: 'auto' (default:
-- [MMSM22]'s on rich tables, else the MST-seeded one), 'seeded' or
-- 'paper'. rounds: T, the rounds at the initial rates (the seeded
-- schedule's default 8, after the MST seed; [MMSM22]'s 16 p up to 16
-- columns, 256 up to 128, else 2 p); one_way_share: the one-way
-- marginals' part of rho (the seeded schedule's default 1/3, the seed
-- taking 9/10 of the rest; [MMSM22]'s 0.9 p / T); max_model_cells: the
-- junction tree's cap (default 2^16, at most a quarter of
-- mrfdp.max_learner_memory); any of them composes to rho (privacy.md 13).
CREATE FUNCTION mrf_learn_aim(x anyelement,
							  rho float8 DEFAULT NULL,
							  epsilon float8 DEFAULT NULL,
							  delta float8 DEFAULT NULL,
							  workload jsonb DEFAULT NULL,
							  k int DEFAULT NULL,
							  iterations int DEFAULT NULL,
							  domains jsonb DEFAULT NULL,
							  nulls text DEFAULT NULL,
							  bins jsonb DEFAULT NULL,
							  rounds int DEFAULT NULL,
							  one_way_share float8 DEFAULT NULL,
							  max_model_cells int DEFAULT NULL,
							  schedule text DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_named_form' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- The protected path (see 10_ising.sql).
CREATE FUNCTION mrf_learn_aim_from(relation regclass, column_name text,
								   rho float8 DEFAULT NULL,
								   epsilon float8 DEFAULT NULL,
								   delta float8 DEFAULT NULL,
								   workload jsonb DEFAULT NULL,
								   k int DEFAULT NULL,
								   iterations int DEFAULT NULL,
								   variables int DEFAULT NULL,
								   domains jsonb DEFAULT NULL,
								   nulls text DEFAULT NULL,
								   bins jsonb DEFAULT NULL,
								   columns text[] DEFAULT NULL,
								   rounds int DEFAULT NULL,
								   one_way_share float8 DEFAULT NULL,
								   max_model_cells int DEFAULT NULL,
								   schedule text DEFAULT NULL)
	RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_learn_from'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

-- mrf_learn_aim on Citus tables (issue 13 item 2; sql/parts/78_aim_citus.sql): the bytea state of
-- 75_citus_state.sql holds the counts of the tables AIM may read (every
-- one-way, and the workload's closure or, by default, every pair and
-- triple), which workers count and the coordinator adds; packed rows
-- travel instead when those tables are too large for a state (src/pg/aim.c).
CREATE FUNCTION mrfdp_internal.mrf_learn_aim_citus_accum(bytea, anyelement, jsonb) RETURNS bytea
	AS 'MODULE_PATHNAME', 'mrf_citus_accum' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_learn_aim_citus_final(bytea) RETURNS mrf
	AS 'MODULE_PATHNAME', 'mrf_citus_final' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE AGGREGATE mrfdp_internal.mrf_learn_aim_citus_agg(boolean[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_aim_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_aim_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_aim_citus_agg(smallint[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_aim_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_aim_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_aim_citus_agg(integer[], jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_aim_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_aim_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_aim_citus_agg(bit, jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_aim_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_aim_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_learn_aim_citus_agg(bit varying, jsonb) (
	SFUNC = mrfdp_internal.mrf_learn_aim_citus_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_learn_aim_citus_final,
	COMBINEFUNC = mrfdp_internal.mrf_citus_combine, PARALLEL = SAFE);

-- mrf_synthesize_into (issue 11 item 4; sql/parts/00_core.sql).
-- A new table holding n synthetic rows: created with the model's variable
-- names and the source columns' types (as mrf_synthesize fills them), then
-- filled.  Runs with the caller's rights; reads no relation (sampling is
-- post-processing: no budget).  Returns the rows inserted.
CREATE FUNCTION mrf_synthesize_into(model mrf, table_name text, n int, seed bigint DEFAULT NULL,
									burn_in int DEFAULT 1000, thin int DEFAULT 10,
									method text DEFAULT 'sample')
	RETURNS bigint
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY INVOKER
AS $synthesize_into$
-- No SET search_path: an unqualified table_name goes where the caller's
-- CREATE TABLE would put it.  So nothing here may resolve through the
-- caller's search_path: functions are pg_catalog's, named; no operator is
-- used whose operands could match another schema's better (text || integer,
-- jsonb ->> unknown would find an operator (text, integer) or (jsonb, jsonb)
-- declared by whoever can create in a schema on that path).
DECLARE
	doc jsonb;
	parts text[];
	nsp text;
	target text;
	vars jsonb;
	v jsonb;
	typ regtype;
	typmod int;
	base record;
	cols text := '';
	inserted bigint;
BEGIN
	IF model IS NULL OR table_name IS NULL OR n IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = '22004',
			MESSAGE = 'mrf_synthesize_into needs a model, a table name and n';
	END IF;
	doc := model::pg_catalog.jsonb;
	IF pg_catalog.jsonb_extract_path_text(doc, 'kind') OPERATOR(pg_catalog.=) 'structure'::pg_catalog.text THEN
		RAISE EXCEPTION USING ERRCODE = '42809',
			MESSAGE = 'mrf_synthesize_into does not apply to models of kind structure',
			HINT = 'A structure is a graph: it has no distribution to sample from.';
	END IF;
	-- the name as CREATE TABLE reads it: [schema.]table, each part quoted or not
	parts := pg_catalog.parse_ident(table_name);
	IF pg_catalog.cardinality(parts) OPERATOR(pg_catalog.>) 2 THEN
		RAISE EXCEPTION USING ERRCODE = '22023',
			MESSAGE = pg_catalog.format('mrf_synthesize_into takes a table name or schema.table, not %s', table_name);
	END IF;
	-- an unqualified name goes where CREATE TABLE would put it
	nsp := CASE WHEN pg_catalog.cardinality(parts) OPERATOR(pg_catalog.=) 2 THEN parts[1]
				ELSE pg_catalog.current_schema() END;
	IF nsp IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = '3F000', MESSAGE = 'no schema has been selected to create in';
	END IF;
	target := pg_catalog.format('%I.%I', nsp, parts[pg_catalog.cardinality(parts)]);
	-- one column per variable: its name (x1, x2, ... without names), the
	-- source column's type, else text for labelled values, else integer codes
	vars := pg_catalog.jsonb_extract_path(doc, 'meta', 'variables');
	FOR i IN 1 .. pg_catalog.jsonb_extract_path_text(doc, 'p')::pg_catalog.int4 LOOP
		v := CASE WHEN pg_catalog.jsonb_typeof(vars) OPERATOR(pg_catalog.=) 'array'::pg_catalog.text
				  THEN pg_catalog.jsonb_extract_path(vars, (i OPERATOR(pg_catalog.-) 1)::pg_catalog.text) END;
		typ := NULL;
		IF pg_catalog.jsonb_exists(v, 'type') THEN
			typ := pg_catalog.to_regtype(pg_catalog.jsonb_extract_path_text(v, 'type'));
			IF typ IS NULL THEN
				RAISE EXCEPTION USING ERRCODE = '42704',
					MESSAGE = pg_catalog.format('type %s of the model''s variable %s does not exist',
												pg_catalog.jsonb_extract_path_text(v, 'type'), i),
					HINT = 'Create the type, or create the table yourself and use mrf_synthesize(model, n, NULL::the_table).';
			END IF;
			typmod := coalesce(pg_catalog.jsonb_extract_path_text(v, 'typmod')::pg_catalog.int4, -1);
			-- A domain's NOT NULL and CHECK constraints are its owner's code (a
			-- CHECK may call any function) and the model text can name any
			-- type: the column gets the domain's base type, so nothing a model
			-- names runs with the caller's rights.
			LOOP
				SELECT t.typtype, t.typbasetype, t.typtypmod INTO base
				FROM pg_catalog.pg_type t WHERE t.oid OPERATOR(pg_catalog.=) typ::pg_catalog.oid;
				EXIT WHEN base.typtype OPERATOR(pg_catalog.<>) 'd'::pg_catalog."char";
				typ := base.typbasetype;
				typmod := base.typtypmod;
			END LOOP;
			-- An enum is its owner's: the owner can rename its labels, or drop the
			-- new table's column with DROP TYPE ... CASCADE.  The model text can
			-- name any enum (whichever relation it claims to come from: a model
			-- is text anyone can write), so a column gets one only when the caller
			-- may act as the enum's owner, or the owner is a superuser (trusted
			-- anyway); other enums are refused.
			IF base.typtype OPERATOR(pg_catalog.=) 'e'::pg_catalog."char" AND NOT EXISTS
					(SELECT 1 FROM pg_catalog.pg_type t JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) t.typowner
					 WHERE t.oid OPERATOR(pg_catalog.=) typ::pg_catalog.oid
					   AND (r.rolsuper OR pg_catalog.pg_has_role(t.typowner, 'USAGE'))) THEN
				RAISE EXCEPTION USING ERRCODE = '42501',
					MESSAGE = pg_catalog.format('mrf_synthesize_into will not give the new table a column of enum type %s (variable %s)',
												typ, i),
					DETAIL = pg_catalog.format('The type belongs to role %s, who could rename its labels or drop the column with DROP TYPE ... CASCADE.',
											   (SELECT t.typowner::pg_catalog.regrole FROM pg_catalog.pg_type t
												WHERE t.oid OPERATOR(pg_catalog.=) typ::pg_catalog.oid)),
					HINT = 'Create the table yourself, with an enum type you own or a text column, and use mrf_synthesize(model, n, NULL::the_table).';
			END IF;
			-- and only the types the learners read (their input functions run no one's code)
			IF base.typtype OPERATOR(pg_catalog.<>) 'e'::pg_catalog."char" AND NOT
				typ::pg_catalog.oid OPERATOR(pg_catalog.=) ANY
					(ARRAY['pg_catalog.bool', 'pg_catalog.text', 'pg_catalog.varchar', 'pg_catalog.bpchar',
						   'pg_catalog.char', 'pg_catalog.int2', 'pg_catalog.int4',
						   'pg_catalog.int8', 'pg_catalog.numeric', 'pg_catalog.float4',
						   'pg_catalog.float8', 'pg_catalog.date', 'pg_catalog.timestamp',
						   'pg_catalog.timestamptz']::pg_catalog.regtype[]::pg_catalog.oid[]) THEN
				RAISE EXCEPTION USING ERRCODE = '42804',
					MESSAGE = pg_catalog.format('type %s of the model''s variable %s is not a type mrfdp learns from',
												typ, i),
					DETAIL = 'Models record booleans, enums, and text, character, "char" or integer columns, and binned numeric, floating-point, date and timestamp columns.',
					HINT = 'Create the table yourself and use mrf_synthesize(model, n, NULL::the_table).';
			END IF;
			IF NOT typ::pg_catalog.oid OPERATOR(pg_catalog.=) ANY
					(ARRAY['pg_catalog.varchar', 'pg_catalog.bpchar', 'pg_catalog.numeric', 'pg_catalog.timestamp',
						   'pg_catalog.timestamptz']::pg_catalog.regtype[]::pg_catalog.oid[]) THEN
				typmod := -1;
			END IF;
		END IF;
		cols := pg_catalog.concat(cols, CASE WHEN i OPERATOR(pg_catalog.>) 1 THEN ', ' END,
			pg_catalog.format('%I %s',
							  coalesce(pg_catalog.jsonb_extract_path_text(v, 'name'),
												  pg_catalog.concat('x', i)),
							  CASE WHEN typ IS NOT NULL THEN pg_catalog.format_type(typ, typmod)
								   WHEN pg_catalog.jsonb_typeof(pg_catalog.jsonb_extract_path(v, 'labels'))
										OPERATOR(pg_catalog.=) 'array'::pg_catalog.text THEN 'text'
								   ELSE 'integer' END));
	END LOOP;
	EXECUTE pg_catalog.format('CREATE TABLE %s (%s)', target, cols);
	EXECUTE pg_catalog.format('INSERT INTO %s SELECT * FROM @extschema@.mrf_synthesize($1, $2, NULL::%s, $3, $4, $5, $6)',
							  target, target)
		USING model, n, seed, burn_in, thin, method;
	GET DIAGNOSTICS inserted = ROW_COUNT;
	RETURN inserted;
END
$synthesize_into$;

-- mrf_marginal_error (issue 12 item 3; sql/parts/68_marginal_error.sql).
-- One row per set of variables: its size, its variables (1-based) and names,
-- and its L1 error.
CREATE FUNCTION mrf_marginal_errors(model mrf, relation regclass,
									columns text[] DEFAULT NULL,
									ways int[] DEFAULT '{1,2,3}',
									OUT way int, OUT variables int[], OUT names text[],
									OUT l1 float8)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

-- One row per size asked: the number of sets, their mean and largest L1
-- error (the workload error of MST and AIM's papers is mean_l1 over the
-- two- and three-way sets).
CREATE FUNCTION mrf_marginal_error(model mrf, relation regclass,
								   columns text[] DEFAULT NULL,
								   ways int[] DEFAULT '{1,2,3}',
								   OUT way int, OUT marginals int, OUT mean_l1 float8,
								   OUT max_l1 float8)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
	SECURITY INVOKER SET search_path = pg_catalog, pg_temp;

-- The model's exact marginal over any set of its variables (columns: names,
-- or 1-based numbers for a model without names), in the layout of
-- mrf_marginals: one row per cell, the variables 1-based and ascending.
-- Clique, Ising and pairwise models; the set need not lie in one clique.
CREATE FUNCTION mrf_marginal(model mrf, columns text[], OUT clique int[], OUT assignment int[],
							 OUT probability float8, OUT names text[], OUT labels text[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Distributed Frank-Wolfe on Citus (issue 13 item 3; src/pg/citus_fw.c,
-- docs/citus_fw.md): one Frank-Wolfe iteration's exact integer score sums of
-- the Ising learner over a distributed table's shards.  Called only by
-- mrf_learn_ising_from (as the table's owner); its final function refuses
-- anywhere else.  The third argument is the rows' tableoid (the shard, the
-- workers' cache key).  One aggregate per sample type: Citus splits an aggregate
-- only when the argument types match exactly.
CREATE FUNCTION mrfdp_internal.mrf_fw_scores_accum(bytea, anyelement, bytea, oid) RETURNS bytea
	AS 'MODULE_PATHNAME', 'mrf_fw_scores_accum' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION mrfdp_internal.mrf_fw_scores_combine(bytea, bytea) RETURNS bytea
	AS 'MODULE_PATHNAME', 'mrf_fw_scores_combine' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION mrfdp_internal.mrf_fw_scores_final(bytea) RETURNS bytea
	AS 'MODULE_PATHNAME', 'mrf_fw_scores_final' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE AGGREGATE mrfdp_internal.mrf_fw_ising_scores_agg(boolean[], bytea, oid) (
	SFUNC = mrfdp_internal.mrf_fw_scores_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_fw_scores_final,
	COMBINEFUNC = mrfdp_internal.mrf_fw_scores_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_fw_ising_scores_agg(smallint[], bytea, oid) (
	SFUNC = mrfdp_internal.mrf_fw_scores_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_fw_scores_final,
	COMBINEFUNC = mrfdp_internal.mrf_fw_scores_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_fw_ising_scores_agg(integer[], bytea, oid) (
	SFUNC = mrfdp_internal.mrf_fw_scores_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_fw_scores_final,
	COMBINEFUNC = mrfdp_internal.mrf_fw_scores_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_fw_ising_scores_agg(bit, bytea, oid) (
	SFUNC = mrfdp_internal.mrf_fw_scores_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_fw_scores_final,
	COMBINEFUNC = mrfdp_internal.mrf_fw_scores_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_fw_ising_scores_agg(bit varying, bytea, oid) (
	SFUNC = mrfdp_internal.mrf_fw_scores_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_fw_scores_final,
	COMBINEFUNC = mrfdp_internal.mrf_fw_scores_combine, PARALLEL = SAFE);
-- The same for k-ary rows (mrf_learn_pairwise_from, and mrf_learn_structure_from
-- with method 'threshold' on a pairwise model): integer arrays (other k-ary
-- samples arrive as codes, mrf_fw_kary_codes below).
CREATE AGGREGATE mrfdp_internal.mrf_fw_kary_scores_agg(smallint[], bytea, oid) (
	SFUNC = mrfdp_internal.mrf_fw_scores_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_fw_scores_final,
	COMBINEFUNC = mrfdp_internal.mrf_fw_scores_combine, PARALLEL = SAFE);
CREATE AGGREGATE mrfdp_internal.mrf_fw_kary_scores_agg(integer[], bytea, oid) (
	SFUNC = mrfdp_internal.mrf_fw_scores_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_fw_scores_final,
	COMBINEFUNC = mrfdp_internal.mrf_fw_scores_combine, PARALLEL = SAFE);
-- k-ary samples of a type without a scores aggregate (rows of columns, enum
-- arrays) as the codes the lenient reader reads (smallint[], NULL for an
-- unreadable sample), for p variables and the options k (0: not given),
-- domains and nulls: the driver's query wraps them in it, on the workers.
CREATE FUNCTION mrfdp_internal.mrf_fw_kary_codes(anyelement, int, int, jsonb, text) RETURNS smallint[]
	AS 'MODULE_PATHNAME', 'mrf_fw_kary_codes' LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
-- The same for binary samples of a type without a scores aggregate (rows of
-- boolean columns): the boolean[] the lenient reader reads, or NULL.
CREATE FUNCTION mrfdp_internal.mrf_fw_binary_codes(anyelement, int) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'mrf_fw_binary_codes' LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
-- The stable mode's blocks cut where the rows are (issue 13 item 3;
-- src/pg/citus_stable.c, docs/privacy.md 7.3): each shard of a distributed
-- table sends its rows to blocks of its own, learns each block's structure
-- without privacy, and ships only the structures.  Called only by
-- mrf_learn_structure_from (as the table's owner); its final function
-- refuses anywhere else.  The third argument is the rows' tableoid (the
-- shard: a block never mixes two).  Not parallel safe: a parallel worker
-- would cut a shard's blocks twice.  One aggregate per sample type.
CREATE FUNCTION mrfdp_internal.mrf_stable_blocks_accum(bytea, anyelement, bytea, oid) RETURNS bytea
	AS 'MODULE_PATHNAME', 'mrf_stable_blocks_accum' LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;
CREATE FUNCTION mrfdp_internal.mrf_stable_blocks_combine(bytea, bytea) RETURNS bytea
	AS 'MODULE_PATHNAME', 'mrf_stable_blocks_combine' LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;
CREATE FUNCTION mrfdp_internal.mrf_stable_blocks_final(bytea) RETURNS bytea
	AS 'MODULE_PATHNAME', 'mrf_stable_blocks_final' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE AGGREGATE mrfdp_internal.mrf_stable_blocks_agg(boolean[], bytea, oid) (
	SFUNC = mrfdp_internal.mrf_stable_blocks_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_stable_blocks_final,
	COMBINEFUNC = mrfdp_internal.mrf_stable_blocks_combine, PARALLEL = UNSAFE);
CREATE AGGREGATE mrfdp_internal.mrf_stable_blocks_agg(smallint[], bytea, oid) (
	SFUNC = mrfdp_internal.mrf_stable_blocks_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_stable_blocks_final,
	COMBINEFUNC = mrfdp_internal.mrf_stable_blocks_combine, PARALLEL = UNSAFE);
CREATE AGGREGATE mrfdp_internal.mrf_stable_blocks_agg(integer[], bytea, oid) (
	SFUNC = mrfdp_internal.mrf_stable_blocks_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_stable_blocks_final,
	COMBINEFUNC = mrfdp_internal.mrf_stable_blocks_combine, PARALLEL = UNSAFE);
CREATE AGGREGATE mrfdp_internal.mrf_stable_blocks_agg(bit, bytea, oid) (
	SFUNC = mrfdp_internal.mrf_stable_blocks_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_stable_blocks_final,
	COMBINEFUNC = mrfdp_internal.mrf_stable_blocks_combine, PARALLEL = UNSAFE);
CREATE AGGREGATE mrfdp_internal.mrf_stable_blocks_agg(bit varying, bytea, oid) (
	SFUNC = mrfdp_internal.mrf_stable_blocks_accum, STYPE = bytea, FINALFUNC = mrfdp_internal.mrf_stable_blocks_final,
	COMBINEFUNC = mrfdp_internal.mrf_stable_blocks_combine, PARALLEL = UNSAFE);
-- The kept-parts scan (issue 13 item 3, fast iterations): the driver reads
-- the shards through TABLESAMPLE mrfdp_internal.mrf_fw_kept(step); on a shard whose
-- part the serving backend keeps, the scan stops after one row, else it
-- returns every row.  By hand it returns rows the caller can SELECT.
CREATE FUNCTION mrfdp_internal.mrf_fw_kept(internal) RETURNS tsm_handler
	AS 'MODULE_PATHNAME', 'mrf_fw_kept_handler' LANGUAGE C STRICT;

-- Charge before reading (sql/parts/20_ledger.sql): the protected path's
-- ledger rows are settled with n after the read; a parked relation's ledger
-- rows are claimed by the table that takes its place.
CREATE OR REPLACE FUNCTION mrfdp_internal.ledger_append_only() RETURNS trigger
	LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF TG_OP = 'UPDATE' AND OLD.relation IS NOT NULL AND NEW.relation IS NULL
	   AND to_jsonb(NEW) - 'relation' = to_jsonb(OLD) - 'relation'
	   AND NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = OLD.relation::oid) THEN
		RETURN NEW;
	END IF;
	IF TG_OP = 'UPDATE' AND OLD.rows_read = -1 AND NEW.rows_read >= 0 AND OLD.protected
	   AND to_jsonb(NEW) - 'rows_read' = to_jsonb(OLD) - 'rows_read' THEN
		RETURN NEW;
	END IF;
	IF TG_OP = 'UPDATE' AND OLD.relation IS NULL AND NEW.relation IS NOT NULL
	   AND to_jsonb(NEW) - 'relation' = to_jsonb(OLD) - 'relation'
	   AND EXISTS (SELECT 1 FROM mrfdp.parked p
				   WHERE p.xact = pg_current_xact_id_if_assigned()
					 AND p.claimed_by = NEW.relation::oid AND OLD.id = ANY (p.ledger)) THEN
		RETURN NEW;
	END IF;
	RAISE EXCEPTION 'mrfdp.ledger is append-only'
		USING ERRCODE = 'insufficient_privilege',
			  HINT = 'Ledger rows are never updated or deleted.';
END $$;

-- Budgets survive Citus conversions (sql/parts/20_ledger.sql): a protected
-- relation dropped in a transaction is parked by name until it ends; a table
-- renamed to that name in it takes the budget, grants and ledger rows.
CREATE TABLE mrfdp.parked (
	xact xid8 NOT NULL,
	nspname name NOT NULL,
	relname name NOT NULL,
	old_oid oid NOT NULL,
	budget jsonb NOT NULL,		-- the budget row
	grants jsonb NOT NULL,		-- its grant rows, an array
	ledger bigint[] NOT NULL,	-- the ids of its ledger rows
	claimed_by oid,				-- the table that took them
	PRIMARY KEY (xact, nspname, relname)
);
REVOKE ALL ON mrfdp.parked FROM PUBLIC;

-- At commit (a deferred constraint trigger): the transaction's parked rows go.
CREATE FUNCTION mrfdp_internal.forget_parked() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	DELETE FROM mrfdp.parked WHERE xact = NEW.xact AND nspname = NEW.nspname AND relname = NEW.relname;
	RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER parked_until_commit AFTER INSERT ON mrfdp.parked
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION mrfdp_internal.forget_parked();
ALTER TABLE mrfdp.parked ENABLE ALWAYS TRIGGER parked_until_commit;
CREATE OR REPLACE FUNCTION mrfdp_internal.forget_dropped() RETURNS event_trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	-- parked until commit even under the caller's SET CONSTRAINTS ALL IMMEDIATE
	SET CONSTRAINTS mrfdp.parked_until_commit DEFERRED;
	INSERT INTO mrfdp.parked (xact, nspname, relname, old_oid, budget, grants, ledger)
	SELECT pg_current_xact_id(), d.schema_name, d.object_name, d.objid, to_jsonb(b),
		   coalesce((SELECT jsonb_agg(to_jsonb(g)) FROM mrfdp.grants g WHERE g.relation::oid = d.objid), '[]'),
		   coalesce((SELECT array_agg(l.id ORDER BY l.id) FROM mrfdp.ledger l WHERE l.relation::oid = d.objid), '{}')
	FROM pg_event_trigger_dropped_objects() d JOIN mrfdp.budget b ON b.relation::oid = d.objid
	WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0 AND NOT d.is_temporary AND d.original
	ON CONFLICT (xact, nspname, relname) DO UPDATE
		SET old_oid = EXCLUDED.old_oid, budget = EXCLUDED.budget, grants = EXCLUDED.grants,
			ledger = EXCLUDED.ledger, claimed_by = NULL;
	DELETE FROM mrfdp.grants g
	USING pg_event_trigger_dropped_objects() d
	WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0 AND d.objid = g.relation::oid;
	DELETE FROM mrfdp.budget b
	USING pg_event_trigger_dropped_objects() d
	WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0 AND d.objid = b.relation::oid;
	UPDATE mrfdp.ledger l SET relation = NULL
	FROM pg_event_trigger_dropped_objects() d
	WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0 AND d.objid = l.relation::oid;
END $$;
CREATE FUNCTION mrfdp_internal.claim_parked() RETURNS event_trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	p record;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM mrfdp.parked
				   WHERE xact = pg_current_xact_id_if_assigned() AND claimed_by IS NULL) THEN
		RETURN;
	END IF;
	FOR p IN SELECT k.xact, k.nspname, k.relname, k.budget, k.grants, k.ledger, c.oid AS new_oid
			 FROM pg_event_trigger_ddl_commands() e
			 JOIN pg_class c ON c.oid = e.objid
			 JOIN pg_namespace n ON n.oid = c.relnamespace
			 JOIN mrfdp.parked k ON k.xact = pg_current_xact_id_if_assigned() AND k.claimed_by IS NULL
				  AND k.nspname = n.nspname AND k.relname = c.relname
			 WHERE e.classid = 'pg_class'::regclass AND e.objsubid = 0
	LOOP
		IF EXISTS (SELECT 1 FROM mrfdp.budget b WHERE b.relation::oid = p.new_oid) THEN
			RAISE EXCEPTION 'relation %.% already has a privacy budget', quote_ident(p.nspname), quote_ident(p.relname)
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  DETAIL = 'A protected relation of this name was dropped in this transaction; mrfdp gives its budget to the table that takes its name, and this one has a budget of its own.',
					  HINT = 'Give the table another name, or roll back.';
		END IF;
		UPDATE mrfdp.parked SET claimed_by = p.new_oid
		WHERE xact = p.xact AND nspname = p.nspname AND relname = p.relname;
		INSERT INTO mrfdp.budget
		SELECT * FROM jsonb_populate_record(NULL::mrfdp.budget,
											p.budget || jsonb_build_object('relation', p.new_oid::regclass::text));
		INSERT INTO mrfdp.grants
		SELECT * FROM jsonb_populate_recordset(NULL::mrfdp.grants,
			(SELECT jsonb_agg(g || jsonb_build_object('relation', p.new_oid::regclass::text))
			 FROM jsonb_array_elements(p.grants) g))
		WHERE p.grants <> '[]';
		UPDATE mrfdp.ledger SET relation = p.new_oid WHERE id = ANY (p.ledger);
	END LOOP;
END $$;
CREATE EVENT TRIGGER mrfdp_claim_parked ON ddl_command_end
	WHEN TAG IN ('ALTER TABLE', 'ALTER FOREIGN TABLE', 'ALTER MATERIALIZED VIEW')
	EXECUTE FUNCTION mrfdp_internal.claim_parked();
ALTER EVENT TRIGGER mrfdp_claim_parked ENABLE ALWAYS;

-- mrf_learn_aim_plan (sql/parts/66_aim.sql)
-- What mrf_learn_aim would do with columns of these alphabets, budget and
-- options, from public sizes only (no relation, no row, no charge): rounds,
-- rates, candidates, the model's cap, a rough time on
-- mrfdp.learner_threads scoring threads and, with n, the memory; the
-- options are checked as the release checks them.
CREATE FUNCTION mrf_learn_aim_plan(alphabets int[], rho float8, n bigint DEFAULT NULL,
								   rounds int DEFAULT NULL,
								   one_way_share float8 DEFAULT NULL,
								   max_model_cells int DEFAULT NULL,
								   schedule text DEFAULT NULL)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'mrf_learn_aim_plan' LANGUAGE C CALLED ON NULL INPUT STABLE PARALLEL SAFE;

-- mrf_progress() gains seconds_left (sql/parts/00_core.sql; DROP and
-- CREATE: a new OUT column).
DROP FUNCTION mrf_progress();
-- Learners running now in any session (needs mrfdp in shared_preload_libraries);
-- seconds_left: the current phase's time left at its pace so far (NULL
-- before an estimate: its first second or first hundredth of its work).
CREATE FUNCTION mrf_progress(OUT pid int, OUT learner text, OUT done bigint, OUT total bigint,
							 OUT percent float8, OUT started timestamptz, OUT seconds_left float8)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

-- Plannable budgets (sql/parts/20_ledger.sql): protect() returns the
-- budget as a row (DROP and CREATE: a new return type), remaining() reports
-- the amounts to type on the protected path (DROP and CREATE: new OUT
-- columns), budget_status shows them (the same columns first, new ones
-- appended), and owners see the grants of their relations.
DROP FUNCTION mrfdp.protect(regclass, float8, float8, float8);
CREATE TYPE mrfdp.protected_budget AS (
	relation regclass,
	epsilon float8,
	delta float8,
	rho_cap float8,
	rho float8,
	rho_from float8,
	remaining_rho float8,
	remaining_rho_from float8
);
CREATE FUNCTION mrfdp.protect(relation regclass, epsilon float8, delta float8 DEFAULT NULL,
							  rho_cap float8 DEFAULT NULL)
	RETURNS mrfdp.protected_budget
	AS 'MODULE_PATHNAME', 'mrf_ledger_protect' LANGUAGE C VOLATILE PARALLEL UNSAFE;
DROP FUNCTION mrfdp.remaining(regclass, float8);
CREATE FUNCTION mrfdp.remaining(relation regclass, delta float8 DEFAULT NULL,
								OUT rho float8, OUT pure_epsilon float8,
								OUT approx_epsilon float8, OUT approx_delta float8,
								OUT spent_epsilon float8, OUT spent_delta float8,
								OUT spent_rho float8, OUT releases bigint,
								OUT rho_from float8, OUT pure_epsilon_from float8,
								OUT approx_epsilon_from float8)
	RETURNS record
	AS 'MODULE_PATHNAME', 'mrf_ledger_remaining' LANGUAGE C STABLE PARALLEL RESTRICTED;
CREATE OR REPLACE VIEW mrfdp.budget_status WITH (security_barrier) AS
SELECT v.relation, v.owner, v.epsilon, v.delta, v.rho_cap, v.spent_epsilon, v.spent_delta, v.spent_rho,
	   v.remaining_epsilon, v.remaining_delta, v.releases, v.created,
	   (v.r).rho AS remaining_rho, (v.r).rho_from AS remaining_rho_from,
	   (v.r).pure_epsilon AS remaining_pure_epsilon, (v.r).pure_epsilon_from AS remaining_pure_epsilon_from,
	   (v.r).approx_epsilon AS remaining_approx_epsilon,
	   (v.r).approx_epsilon_from AS remaining_approx_epsilon_from,
	   (v.r).approx_delta AS remaining_approx_delta
FROM (SELECT b.relation::regclass AS relation, c.relowner::regrole AS owner, b.epsilon, b.delta, b.rho_cap,
			 s.spent_epsilon,
			 b.spent_approx_delta::float8 AS spent_delta,
			 (b.spent_zcdp_rho + b.spent_pure_rho)::float8 AS spent_rho,
			 greatest(b.epsilon - s.spent_epsilon, 0) AS remaining_epsilon,
			 greatest(b.delta - b.spent_approx_delta::float8, 0) AS remaining_delta,
			 b.releases, b.created,
			 mrfdp.remaining(b.relation::regclass) AS r
	  FROM mrfdp.budget b
		   JOIN pg_class c ON c.oid = b.relation,
		   LATERAL (SELECT mrfdp.spent_epsilon(b.spent_zcdp_rho, b.spent_pure_epsilon, b.spent_pure_rho,
											   b.spent_approx_epsilon, b.spent_approx_delta, b.delta) AS spent_epsilon) s
	  WHERE pg_has_role(c.relowner, 'USAGE')
		 OR EXISTS (SELECT 1 FROM mrfdp.grants g WHERE g.relation = b.relation AND pg_has_role(g.role, 'USAGE')
					AND mrfdp_internal.holds_learning_marker(g.role))
		 OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
	  OFFSET 0) v;
GRANT SELECT ON mrfdp.budget_status TO PUBLIC;
CREATE VIEW mrfdp.learning_grants WITH (security_barrier) AS
SELECT g.relation::regclass AS relation, c.relowner::regrole AS owner, g.role::regrole AS role,
	   g.granted_by::regrole AS granted_by, g.granted
FROM mrfdp.grants g
	 JOIN mrfdp.budget b ON b.relation = g.relation
	 JOIN pg_class c ON c.oid = g.relation
WHERE mrfdp_internal.holds_learning_marker(g.role)
  AND (pg_has_role(c.relowner, 'USAGE')
	   OR pg_has_role(g.role, 'USAGE')
	   OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user));
GRANT SELECT ON mrfdp.learning_grants TO PUBLIC;

-- Descriptions of every function, aggregate, type, table, view and event
-- trigger (sql/parts/90_comments.sql, repeated verbatim).  Keep this block
-- LAST: it describes objects by name, so objects created or re-created
-- above it get their descriptions too.
DO $comments$
DECLARE
	ext oid := (SELECT oid FROM pg_catalog.pg_extension WHERE extname = 'mrfdp');
	d record;
	o record;
	found boolean;
BEGIN
	FOR d IN SELECT * FROM (VALUES
	-- the model type
	('type', 'mrf', 'A Markov random field learned or built by mrfdp: kind, sizes, parameters and privacy metadata. Text form: a JSON document; casts to jsonb.'),
	('function', 'mrf_in', 'Input function of type mrf: reads the JSON text form.'),
	('function', 'mrf_out', 'Output function of type mrf: writes the JSON text form (doubles as shortest exact decimals).'),
	('function', 'mrf_recv', 'Binary input function of type mrf.'),
	('function', 'mrf_send', 'Binary output function of type mrf.'),
	('function', 'mrf_to_jsonb', 'The model as a jsonb document (the cast mrf::jsonb).'),
	('function', 'mrf_ising', 'Builds an Ising model from a p x p symmetric weight matrix with zero diagonal and optional fields (-1/+1 spins).'),
	-- accessors
	('function', 'mrf_info', 'Kind, sizes and privacy metadata of a model (learner, notion and amounts spent, neighbours, mechanism, iterations, whether a test seed made it not private).'),
	('function', 'mrf_edges', 'Edges (i, j, weight) of a model whose weight magnitude exceeds threshold; 1-based variables, i < j.'),
	('function', 'mrf_fields', 'Fields (i, a, theta) of a model: theta of variable i at value a (a = 1 for +1 in binary models).'),
	('function', 'mrf_weights', 'Pairwise weights W_ij(a, b) of a k-ary pairwise model: 1-based i, j, values a, b in 0..k-1.'),
	('function', 'mrf_monomials', 'Every monomial (vars, coef) of a t-wise model, sizes 1..t, zero coefficients included.'),
	('function', 'mrf_potentials', 'Log-potential of every assignment of every clique of a clique model: each variable''s code in its own alphabet, with the clique''s names and the assignment''s labels.'),
	('function', 'mrf_marginals', 'Marginal probability of every assignment of every clique of a clique model (exact on a junction tree, loopy belief propagation otherwise), in the layout of mrf_potentials.'),
	('function', 'mrf_variables', 'The variables of a model: 1-based position, name (the rows'' column names) and value labels, when the model keeps them.'),
	('function', 'mrf_dot', 'The graph of a model as a Graphviz DOT document: nodes named by its variables, edges above threshold, width by |weight|, sign by colour and style; a clique model''s edges join the variables that share a clique.'),
	('function', 'mrf_synthesize', 'n synthetic rows of a given row type (e.g. NULL::the_source_table) sampled from a model (method ''sample'') or allocated through its junction tree so that its marginals match up to rounding (''allocate''), codes turned into the columns'' types through the model''s labels; no budget.'),
	('function', 'mrf_synthesize_into', 'Creates a table with the model''s variable names and source column types and fills it with n synthetic rows (mrf_synthesize); the caller''s rights, no budget. Returns the rows inserted.'),
	('function', 'mrf_sample', 'n samples from a model: exact (enumeration, or through its junction tree) where possible; otherwise 4 chains with parallel tempering (burn_in rounds, then one sample of each chain every thin rounds), reported with their split R-hat in a NOTICE.'),
	('function', 'mrf_progress', 'Learners running now (pid, learner, work done and total, the seconds left at the current phase''s pace once it has run a second and a hundredth of its work) that the caller may see; needs mrfdp in shared_preload_libraries.'),
	-- budget conversions
	('function', 'mrf_zcdp_to_dp', 'Epsilon of the (epsilon, delta)-DP guarantee implied by rho-zCDP: tight (Canonne-Kamath-Steinke 2020) or bs16 (Bun-Steinke 2016).'),
	('function', 'mrf_dp_to_zcdp', 'rho of the zCDP guarantee implied by pure epsilon-DP: epsilon^2 / 2.'),
	('function', 'mrf_zcdp_for_dp', 'Largest rho whose zCDP guarantee converts to at most the given (epsilon, delta).'),
	-- options and learners
	('function', 'mrf_options', 'The options document of a learner aggregate, from named arguments (NULL: not given); validated here and again by the learner.'),
	('function', 'mrf_option_defaults', 'The default of every learner option (learner NULL: every learner taking it); an option not given, or given as NULL, takes this value.'),
	('function', 'mrf_learn_ising', 'Learns a binary Ising model under rho-zCDP (private Frank-Wolfe, Zhang et al. 2020 Algorithm 2). Named form, rewritten into mrf_learn_ising_agg; needs the library preloaded.'),
	('function', 'mrf_learn_ising_agg', 'Aggregate form of mrf_learn_ising: one model per group, options from mrf_options().'),
	('function', 'mrf_learn_ising_from', 'Learns an Ising model from a protected relation the caller may learn from but not read; charged to its privacy budget before the model is returned.'),
	('function', 'mrf_learn_pairwise', 'Learns a k-ary pairwise model under rho-zCDP (Zhang et al. 2020 Algorithm 3). Named form, rewritten into mrf_learn_pairwise_agg; needs the library preloaded.'),
	('function', 'mrf_learn_pairwise_agg', 'Aggregate form of mrf_learn_pairwise: one model per group, options from mrf_options().'),
	('function', 'mrf_learn_pairwise_from', 'Learns a k-ary pairwise model from a protected relation the caller may learn from but not read; charged before the model is returned.'),
	('function', 'mrf_learn_twise', 'Learns a binary t-wise model under rho-zCDP (Zhang et al. 2020 Algorithms 4 and 5). Named form, rewritten into mrf_learn_twise_agg; needs the library preloaded.'),
	('function', 'mrf_learn_twise_agg', 'Aggregate form of mrf_learn_twise: one model per group, options from mrf_options().'),
	('function', 'mrf_learn_twise_from', 'Learns a binary t-wise model from a protected relation the caller may learn from but not read; charged before the model is returned.'),
	('function', 'mrf_learn_structure', 'Learns the graph of a model: stable mode over disjoint blocks under (epsilon, delta)-DP, or method threshold under rho-zCDP; NULL when no graph clears the threshold (still charged). Named form, rewritten into mrf_learn_structure_agg.'),
	('function', 'mrf_learn_structure_agg', 'Aggregate form of mrf_learn_structure: one structure per group, options from mrf_options().'),
	('function', 'mrf_learn_structure_from', 'Learns a structure from a protected relation the caller may learn from but not read; charged before the result is returned.'),
	('function', 'mrf_structure_rows_needed', 'Plans the stable mode from public values only: blocks, threshold tau, rows per block and rows in all for a given p, eta, epsilon, delta, for model ising (default), pairwise (with k) or twise (with t); the rows per block are fitted to measured exact recovery.'),
	('function', 'mrf_learn_cliques', 'Learns a model of given cliques under pure epsilon-DP from noisy clique tables (Bernstein et al. 2017: naive MLE or CGM-EM); rows may mix alphabets (booleans, enums, columns with declared domains; nulls policy). Named form, rewritten into mrf_learn_cliques_agg.'),
	('function', 'mrf_learn_cliques_agg', 'Aggregate form of mrf_learn_cliques: one model per group, options from mrf_options().'),
	('function', 'mrf_learn_cliques_from', 'Learns a clique model from a protected relation the caller may learn from but not read (per-variable alphabets, domains and nulls as the named form; values outside a domain are substituted row by row); charged before the model is returned.'),
	('function', 'mrf_learn_mst', 'Learns a tree-structured clique model of a whole table under rho-zCDP by MST (McKenna, Miklau, Sheldon 2021): discrete Gaussian one-way marginals, an exponential-mechanism spanning tree of pairs, their discrete Gaussian two-way marginals, mirror-descent estimation; rows may mix alphabets (booleans, enums, declared domains; nulls policy). Named form, rewritten into mrf_learn_mst_agg.'),
	('function', 'mrf_learn_mst_agg', 'Aggregate form of mrf_learn_mst: one model per group, options from mrf_options().'),
	('function', 'mrf_learn_mst_from', 'Learns an MST model from a protected relation the caller may learn from but not read; charged before the model is returned.'),
	('function', 'mrf_marginal_error', 'NOT PRIVATE, for those who may read the relation (SECURITY INVOKER: needs SELECT on it; charges nothing): per size of set (ways, default 1, 2, 3), the mean and largest L1 error sum |P_model - N/n| (twice the total variation) of a model''s exact marginals (clique, Ising and pairwise models) of every set of that many variables against the relation''s rows.'),
	('function', 'mrf_marginal', 'The exact marginal distribution of any set of a model''s variables (names, or numbers for a model without names), one row per cell with names and labels as mrf_marginals: clique, Ising and pairwise models, by elimination on the calibrated junction tree (54000 when the set''s table exceeds mrfdp.max_learner_memory).'),
	('function', 'mrf_marginal_errors', 'NOT PRIVATE, for those who may read the relation (SECURITY INVOKER: needs SELECT on it; charges nothing): the L1 error sum |P_model - N/n| of a model''s exact marginal (clique, Ising and pairwise models) of every set of one, two, three (ways) variables against the relation''s rows, one row per set.'),
	('function', 'mrf_learn_aim', 'Learns a clique model of a whole table under rho-zCDP by AIM (McKenna, Mullins, Sheldon, Miklau 2022): discrete Gaussian one-way marginals, then rounds that select the worst-approximated workload marginal by the exponential mechanism within a junction-tree size cap, measure it and re-estimate, with budget annealing; workload by column names. Option schedule: auto (the default) starts the rounds from MST''s private tree (a third of rho on the one-ways, 0.6 on the tree, 8 rounds; 0.45 and 16 rounds on moderately rich ones) on small or noisy tables and runs the paper''s schedule (16 p rounds, capped) on rich ones, chosen from n, p and rho; seeded and paper name one. Named form, rewritten into mrf_learn_aim_agg.'),
	('function', 'mrf_learn_aim_agg', 'Aggregate form of mrf_learn_aim: one model per group, options from mrf_options().'),
	('function', 'mrf_learn_aim_plan', 'What mrf_learn_aim would do with columns of these alphabet sizes, this rho and the options rounds, one_way_share, max_model_cells and schedule (checked as a release checks them), from public sizes only (names no relation, reads no row, charges nothing): rounds at the initial rates, the one-way share, noise and selection rates, candidates, the junction tree cap under mrfdp.max_learner_memory, a rough time estimate counting mrfdp.learner_threads and, with n, the schedule the release runs and the planned memory.'),
	('function', 'mrf_learn_aim_from', 'Learns an AIM model from a protected relation the caller may learn from but not read; charged before the model is returned.'),
	-- support functions (schema mrfdp)
	('function', 'mrf_ising_accum', 'Aggregate support: plans the Ising release at a group''s first row, then packs its rows as bits.'),
	('function', 'mrf_pairwise_accum', 'Aggregate support: plans the pairwise release at a group''s first row, then stores its rows as bytes.'),
	('function', 'mrf_twise_accum', 'Aggregate support: plans the t-wise release at a group''s first row, then packs its rows as bits.'),
	('function', 'mrf_cliques_accum', 'Aggregate support: plans the clique release at a group''s first row, then stores its rows as bytes.'),
	('function', 'mrf_structure_accum', 'Aggregate support: checks the structure options at a group''s first row, then packs its rows.'),
	('function', 'mrf_rows_combine', 'Aggregate support: merges two partial row sets (parallel aggregation).'),
	('function', 'mrf_rows_serialize', 'Aggregate support: serialises a partial row set for a parallel worker.'),
	('function', 'mrf_rows_deserialize', 'Aggregate support: reads a serialised partial row set.'),
	('function', 'mrf_ising_final', 'Aggregate support: learns, charges and releases the Ising model of a group.'),
	('function', 'mrf_pairwise_final', 'Aggregate support: learns, charges and releases the pairwise model of a group.'),
	('function', 'mrf_twise_final', 'Aggregate support: learns, charges and releases the t-wise model of a group.'),
	('function', 'mrf_structure_final', 'Aggregate support: learns, charges and releases the structure of a group.'),
	('function', 'mrf_cliques_final', 'Aggregate support: learns, charges and releases the clique model of a group.'),
	('function', 'mrf_mst_final', 'Aggregate support: learns, charges and releases the MST model of a group.'),
	('function', 'mrf_mst_accum', 'Aggregate support: plans the MST release at a group''s first row, then stores its rows as bytes.'),
	('function', 'mrf_aim_final', 'Aggregate support: learns, charges and releases the AIM model of a group.'),
	('function', 'mrf_aim_accum', 'Aggregate support: plans the AIM release at a group''s first row (its workload''s columns included), then stores its rows as bytes.'),
	-- Citus (issue 13): aggregates with a state Citus combines, and their support
	('function', 'mrf_learn_ising_citus_agg', 'mrf_learn_ising_agg with a bytea state Citus combines: workers pack rows, the coordinator learns; mrfdp uses it on Citus tables.'),
	('function', 'mrf_learn_pairwise_citus_agg', 'mrf_learn_pairwise_agg with a bytea state Citus combines: workers pack rows, the coordinator learns; mrfdp uses it on Citus tables.'),
	('function', 'mrf_learn_twise_citus_agg', 'mrf_learn_twise_agg with a bytea state Citus combines: workers pack rows, the coordinator learns; mrfdp uses it on Citus tables.'),
	('function', 'mrf_learn_structure_citus_agg', 'mrf_learn_structure_agg with a bytea state Citus combines: workers pack rows, the coordinator learns; mrfdp uses it on Citus tables.'),
	('function', 'mrf_learn_cliques_citus_agg', 'mrf_learn_cliques_agg with a bytea state Citus combines: workers pack rows, the coordinator learns; mrfdp uses it on Citus tables.'),
	('function', 'mrf_learn_mst_citus_agg', 'mrf_learn_mst_agg with a bytea state Citus combines: workers pack rows, the coordinator learns; mrfdp uses it on Citus tables.'),
	('function', 'mrf_learn_aim_citus_agg', 'mrf_learn_aim_agg with a bytea state Citus combines: workers count the tables AIM may read (or pack rows when those are too large), the coordinator adds them and learns; mrfdp uses it on Citus tables.'),
	('function', 'mrf_citus_combine', 'Aggregate support (Citus): concatenates two packed row states with the same options and shape; checks a state that arrives as text.'),
	('function', 'mrf_learn_ising_citus_accum', 'Aggregate support (Citus): packs one sample into a bytea row state.'),
	('function', 'mrf_learn_pairwise_citus_accum', 'Aggregate support (Citus): packs one sample into a bytea row state.'),
	('function', 'mrf_learn_twise_citus_accum', 'Aggregate support (Citus): packs one sample into a bytea row state.'),
	('function', 'mrf_learn_structure_citus_accum', 'Aggregate support (Citus): packs one sample into a bytea row state.'),
	('function', 'mrf_learn_cliques_citus_accum', 'Aggregate support (Citus): packs one sample into a bytea row state.'),
	('function', 'mrf_learn_mst_citus_accum', 'Aggregate support (Citus): packs one sample into a bytea row state.'),
	('function', 'mrf_learn_aim_citus_accum', 'Aggregate support (Citus): counts one sample into the tables of a bytea counts state (or packs it into a row state).'),
	('function', 'mrf_learn_ising_citus_final', 'Aggregate support (Citus): learns, charges and releases the Ising model of a packed row state.'),
	('function', 'mrf_learn_pairwise_citus_final', 'Aggregate support (Citus): learns, charges and releases the pairwise model of a packed row state.'),
	('function', 'mrf_learn_twise_citus_final', 'Aggregate support (Citus): learns, charges and releases the t-wise model of a packed row state.'),
	('function', 'mrf_learn_structure_citus_final', 'Aggregate support (Citus): learns, charges and releases the structure of a packed row state.'),
	('function', 'mrf_learn_cliques_citus_final', 'Aggregate support (Citus): learns, charges and releases the clique model of a packed row state.'),
	('function', 'mrf_learn_mst_citus_final', 'Aggregate support (Citus): learns, charges and releases the MST model of a packed row state.'),
	('function', 'mrf_learn_aim_citus_final', 'Aggregate support (Citus): learns, charges and releases the AIM model of a counts or packed row state.'),
	-- distributed Frank-Wolfe (issue 13 item 3)
	('function', 'mrf_fw_ising_scores_agg', 'One Frank-Wolfe iteration''s exact score sums of a binary learner (Ising, t-wise, structure''s threshold method) over a distributed table''s shards; called only by the mrf_learn_*_from functions.'),
	('function', 'mrf_fw_kary_scores_agg', 'One Frank-Wolfe iteration''s exact score sums of the pairwise k-ary learner (or structure''s threshold method on a pairwise model) over a distributed table''s shards; called only by the mrf_learn_*_from functions.'),
	('function', 'mrf_fw_kary_codes', 'Distributed Frank-Wolfe support: a k-ary sample (a row of columns, an enum array) as the codes the protected path''s reader reads, or NULL when it cannot; a function of its argument alone.'),
	('function', 'mrf_fw_binary_codes', 'Distributed Frank-Wolfe support: a binary sample (a row of boolean columns) as the boolean[] the protected path''s reader reads, or NULL when it cannot; a function of its argument alone.'),
	('function', 'mrf_fw_scores_accum', 'Aggregate support (distributed Frank-Wolfe): reads one sample as the protected path does and packs it.'),
	('function', 'mrf_fw_scores_combine', 'Aggregate support (distributed Frank-Wolfe): adds two parts'' score sums; checks a state that arrives as text.'),
	('function', 'mrf_fw_scores_final', 'Aggregate support (distributed Frank-Wolfe): the sums, to the mrf_learn_*_from functions only; refuses anywhere else.'),
	-- the stable mode's blocks on the shards (issue 13 item 3, privacy.md 7.3)
	('function', 'mrf_stable_blocks_agg', 'The stable mode''s blocks of a distributed table cut and learned on its shards (the blocks'' non-private structures); called only by mrf_learn_structure_from.'),
	('function', 'mrf_stable_blocks_accum', 'Aggregate support (stable mode on the shards): reads one sample as the protected path does and keeps it in a uniformly drawn block of its shard.'),
	('function', 'mrf_stable_blocks_combine', 'Aggregate support (stable mode on the shards): puts two parts'' block structures side by side; checks a state that arrives as text.'),
	('function', 'mrf_stable_blocks_final', 'Aggregate support (stable mode on the shards): the structures, to mrf_learn_structure_from only; refuses anywhere else.'),
	('function', 'mrf_fw_kept', 'Tablesample method (distributed Frank-Wolfe): on a shard whose part the serving backend keeps, stops after one row; else every row. Used by the mrf_learn_*_from functions.'),
	-- the privacy ledger
	('schema', 'mrfdp', 'mrfdp''s privacy ledger (budgets, learning grants, the append-only ledger) and the functions its owners and analysts call on it.'),
	('schema', 'mrfdp_internal', 'What users do not call: the aggregates'' support functions, the types'' I/O, triggers, Citus''s aggregates and their parts.'),
	('type', 'relation_ref', 'A reference to a relation in mrfdp''s catalog: dumped as its name, read back by name ("-" when the relation is missing).'),
	('type', 'role_ref', 'A reference to a role in mrfdp''s catalog: dumped as its name, read back by name ("-" when the role is missing).'),
	('function', 'relation_ref_in', 'Input function of mrfdp.relation_ref: a relation name ("-" with a warning when missing).'),
	('function', 'relation_ref_out', 'Output function of mrfdp.relation_ref: the qualified relation name, or "-".'),
	('function', 'role_ref_in', 'Input function of mrfdp.role_ref: a role name ("-" with a warning when missing).'),
	('function', 'role_ref_out', 'Output function of mrfdp.role_ref: the role name, or "-".'),
	('table', 'budget', 'One row per protected relation: its total privacy budget and the exact sums of what its releases spent. Written only through mrfdp.protect() and the charge worker.'),
	('table', 'grants', 'Roles allowed to learn from a protected relation through the mrf_learn_*_from functions (mrfdp.grant_learning).'),
	('table', 'learning_grantees', 'Empty marker table: a role with a learning grant holds REFERENCES on it, so DROP ROLE is refused while the grant exists.'),
	('table', 'ledger', 'Append-only: one row per release and relation read (protected or not), with the amounts charged and the names as they were at release time.'),
	('table', 'parked', 'Budgets, grants and ledger rows of protected relations dropped in the current transaction, until it ends: a table renamed to such a name in it (a Citus conversion) claims them.'),
	('view', 'budget_status', 'Budget, spent and remaining per protected relation, for its owner, its granted roles and superusers; the remaining_* columns after releases are the largest amounts a release may ask for now (the _from ones on the protected path, its count''s share included).'),
	('view', 'learning_grants', 'The learning grants the current role may see: every grant of the relations it owns, and its own.'),
	('type', 'protected_budget', 'What mrfdp.protect() returns: the budget set, the total rho it allows (and as typed on the protected path), and what is left of each now.'),
	('view', 'releases', 'The ledger rows the current role may read: its own releases and those from relations it owns or owned at release time.'),
	('function', 'protect', 'Protects a relation with a total privacy budget (epsilon, delta; optional rho_cap), or changes it (never below what is spent, with a NOTICE); returns the budget and the rho it allows. Owner or superuser only.'),
	('function', 'grant_learning', 'Lets a role learn from a protected relation through the mrf_learn_*_from functions without reading it. Owner or superuser only.'),
	('function', 'revoke_learning', 'Ends a role''s learning grant on a protected relation. Owner or superuser only.'),
	('function', 'remaining', 'What a relation''s budget can still spend, each amount fitting if charged alone now (rho, pure epsilon, approximate epsilon at delta, approximate delta), what was spent, and the largest rho and epsilons to type on the protected path (_from: its count''s share included).'),
	('function', 'spent_epsilon', 'Total epsilon spent, composing a relation''s spent sums as the ledger does (docs/privacy.md, section 9).'),
	('function', 'exact_numeric', 'The exact decimal value of a float8, as the ledger stores charges.'),
	('function', 'holds_learning_marker', 'Whether a role itself holds the learning marker privilege on mrfdp.learning_grantees.'),
	('function', 'ledger_append_only', 'Trigger: refuses UPDATE, DELETE and TRUNCATE of the ledger (except clearing a dropped relation''s OID, and settling the rows read of a protected release charged before its read).'),
	('function', 'budget_arriving', 'Trigger: skips a restored budget whose relation is missing.'),
	('function', 'grant_arriving', 'Trigger: gives a new grant''s role the marker privilege, skipping a restored grant whose relation or role is missing.'),
	('function', 'grant_gone', 'Trigger: takes the marker privilege from a role whose last grant is gone.'),
	('function', 'ledger_arriving', 'Trigger: records names with new ledger rows and clears references a restore could not resolve.'),
	('function', 'forget_dropped', 'Event trigger function: a dropped relation loses its budget and grants; its ledger rows keep its name. They are parked first, for a table renamed to its name in the same transaction (a Citus conversion) to claim.'),
	('function', 'claim_parked', 'Event trigger function: a table renamed to the name of a protected relation dropped in the same transaction (a Citus conversion) takes its budget, grants and ledger rows.'),
	('function', 'forget_parked', 'Trigger (deferred to commit): forgets the transaction''s parked budgets.'),
	('function', 'forget_revoked', 'Event trigger function: deletes learning grants voided by DROP OWNED or REVOKE.'),
	('function', 'refuse_drop_with_budgets', 'Event trigger function: refuses DROP EXTENSION mrfdp (and drops that would include it) while budgets or ledger rows exist, unless mrfdp.allow_drop_with_budgets is on.'),
	('event trigger', 'mrfdp_forget_dropped', 'Drops the budget and grants of a dropped protected relation.'),
	('event trigger', 'mrfdp_claim_parked', 'Gives a protected relation''s budget, grants and ledger rows to the table a Citus conversion renamed to its name.'),
	('event trigger', 'mrfdp_forget_revoked', 'Deletes learning grants voided by DROP OWNED or REVOKE.'),
	('event trigger', 'mrfdp_refuse_drop_with_budgets', 'Refuses to drop mrfdp while budgets or ledger rows exist.')
	) AS v(kind, name, description)
	LOOP
		found := false;
		IF d.kind = 'function' THEN
			FOR o IN SELECT p.oid::pg_catalog.regprocedure AS f, p.prokind
					 FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_depend e
						  ON e.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND e.objid = p.oid
					 WHERE e.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass
					   AND e.refobjid = ext AND e.deptype = 'e' AND p.proname = d.name
			LOOP
				EXECUTE pg_catalog.format('COMMENT ON %s %s IS %L',
										  CASE WHEN o.prokind = 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END,
										  o.f, d.description);
				found := true;
			END LOOP;
		ELSIF d.kind = 'type' THEN
			FOR o IN SELECT t.oid::pg_catalog.regtype AS t
					 FROM pg_catalog.pg_type t JOIN pg_catalog.pg_depend e
						  ON e.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND e.objid = t.oid
					 WHERE e.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass
					   AND e.refobjid = ext AND e.deptype = 'e' AND t.typname = d.name
			LOOP
				EXECUTE pg_catalog.format('COMMENT ON TYPE %s IS %L', o.t, d.description);
				found := true;
			END LOOP;
		ELSIF d.kind IN ('table', 'view') THEN
			FOR o IN SELECT c.oid::pg_catalog.regclass AS r
					 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_depend e
						  ON e.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND e.objid = c.oid
					 WHERE e.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass
					   AND e.refobjid = ext AND e.deptype = 'e' AND c.relname = d.name
					   AND c.relkind = CASE d.kind WHEN 'view' THEN 'v' ELSE 'r' END
			LOOP
				EXECUTE pg_catalog.format('COMMENT ON %s %s IS %L', upper(d.kind), o.r, d.description);
				found := true;
			END LOOP;
		ELSIF d.kind IN ('schema', 'event trigger') THEN
			EXECUTE pg_catalog.format('COMMENT ON %s %I IS %L', upper(d.kind), d.name, d.description);
			found := true;
		END IF;
		IF NOT found THEN
			RAISE EXCEPTION 'no % % in extension mrfdp to describe', d.kind, d.name;
		END IF;
	END LOOP;
END $comments$;
