-- mrfdp 0.1.0 -> 0.2.0.  Every change made to sql/parts/ since 0.1.0 is
-- repeated here, so that ALTER EXTENSION mrfdp UPDATE leaves the catalog a
-- fresh CREATE EXTENSION mrfdp would build (test/upgrade checks it).  See the
-- README, "Changing the SQL".
\echo Use "ALTER EXTENSION mrfdp UPDATE TO '0.2.0'" to load this file. \quit

-- Citus (issue 13; sql/parts/70_citus.sql): the identity that hides a
-- grouping column from Citus.
CREATE FUNCTION mrf_citus_group_key(anyelement) RETURNS anyelement
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mrf_citus_group_key(anyelement) IS
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
-- them; they crowded \df) leave public for the extension's own schema; the
-- aggregates and the type keep referring to them by OID.
ALTER FUNCTION mrf_recv(internal) SET SCHEMA mrfdp;
ALTER FUNCTION mrf_bits_accum(internal, anyelement, jsonb) SET SCHEMA mrfdp;
ALTER FUNCTION mrf_bytes_accum(internal, anyelement, jsonb) SET SCHEMA mrfdp;
ALTER FUNCTION mrf_rows_combine(internal, internal) SET SCHEMA mrfdp;
ALTER FUNCTION mrf_rows_serialize(internal) SET SCHEMA mrfdp;
ALTER FUNCTION mrf_rows_deserialize(bytea, internal) SET SCHEMA mrfdp;
ALTER FUNCTION mrf_structure_accum(internal, anyelement, jsonb) SET SCHEMA mrfdp;
ALTER FUNCTION mrf_ising_final(internal) SET SCHEMA mrfdp;
ALTER FUNCTION mrf_pairwise_final(internal) SET SCHEMA mrfdp;
ALTER FUNCTION mrf_twise_final(internal) SET SCHEMA mrfdp;
ALTER FUNCTION mrf_structure_final(internal) SET SCHEMA mrfdp;
ALTER FUNCTION mrf_cliques_final(internal) SET SCHEMA mrfdp;
