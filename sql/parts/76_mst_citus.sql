-- mrf_learn_mst on Citus tables: the packed bytea row state of
-- 75_citus_state.sql (workers pack rows, the coordinator learns).
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
