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
