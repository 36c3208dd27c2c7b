-- The stable mode's blocks cut where the rows are
-- (src/pg/citus/stable.c, docs/privacy.md 7.3): each shard of a distributed
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
