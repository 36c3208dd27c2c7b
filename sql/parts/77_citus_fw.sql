-- Distributed Frank-Wolfe on Citus (src/pg/citus/fw.c,
-- docs/citus_fw.md): one Frank-Wolfe iteration's exact integer score sums of
-- a binary learner (Ising, t-wise, structure's threshold method) over a
-- distributed table's shards.  Called only by the mrf_learn_*_from functions
-- (as the table's owner); its final function refuses anywhere else.  The third argument is the rows' tableoid (the shard, the
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
-- The kept-parts scan (fast iterations): the driver reads
-- the shards through TABLESAMPLE mrfdp_internal.mrf_fw_kept(step); on a shard whose
-- part the serving backend keeps, the scan stops after one row, else it
-- returns every row.  By hand it returns rows the caller can SELECT.
CREATE FUNCTION mrfdp_internal.mrf_fw_kept(internal) RETURNS tsm_handler
	AS 'MODULE_PATHNAME', 'mrf_fw_kept_handler' LANGUAGE C STRICT;
