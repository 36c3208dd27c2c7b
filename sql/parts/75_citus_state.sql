-- Citus: each learner's aggregate with a bytea state that
-- Citus can combine (worker_partial_agg on the workers, coord_combine_agg on
-- the coordinator), so packed rows travel instead of tuples.  mrfdp's planner
-- hook uses them in query levels that read a Citus table (src/pg/citus/cluster.c);
-- their final function is the learner's driver, as for mrf_learn_<kind>_agg.
-- Citus checks the argument types of a split aggregate exactly, so there is
-- one per sample type (enum arrays and rows keep the internal-state
-- aggregate, whose rows Citus gathers).  The state is checked in full
-- whenever it arrives in flat form (src/pg/citus/state.c).  Their support
-- functions live in schema mrfdp, with the other learners'.
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
