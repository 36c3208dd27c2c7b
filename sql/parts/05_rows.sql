-------------------------------------------------------------------------------
-- Aggregate machinery shared by every learner: samples packed as bits
-- (binary learners) or bytes (k-ary learners); combine and the serial forms
-- let parallel workers scan.  Each learner has its own transition (in its
-- file), so that every form, window aggregates included, is planned at its
-- first row.
-------------------------------------------------------------------------------
CREATE FUNCTION mrfdp_internal.mrf_rows_combine(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION mrfdp_internal.mrf_rows_serialize(internal) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL SAFE;
CREATE FUNCTION mrfdp_internal.mrf_rows_deserialize(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL SAFE;
