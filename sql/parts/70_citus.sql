-- Citus: the identity that hides a grouping column from Citus, so
-- that a query calling a learner is grouped, learned and charged on the
-- coordinator (src/pg/citus/cluster.c); not meant to be called directly.
CREATE FUNCTION mrfdp_internal.mrf_citus_group_key(anyelement) RETURNS anyelement
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mrfdp_internal.mrf_citus_group_key(anyelement) IS
	'Returns its argument; mrfdp wraps the grouping columns of queries that call a learner in it on Citus, so Citus keeps the learner on the coordinator.';
