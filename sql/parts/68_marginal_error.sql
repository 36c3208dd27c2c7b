-- mrf_marginal_error: how far a model's one-, two- and
-- three-way marginals are from a relation's rows (clique, Ising and pairwise
-- models). NOT PRIVATE: it reads the relation with the caller's rights
-- (SECURITY INVOKER: SELECT on it is needed, row security applies),
-- charges nothing and says so in a NOTICE.
-- The L1 error of a set S of variables is sum_x |P_model(x_S) - N(x_S) / n|
-- over the cells of S's table (twice the total variation distance, 0..2);
-- the model's marginals are exact (enumeration or junction trees). columns: the relation's
-- columns of the model's variables (default: the names the model recorded;
-- one array column for models learned from arrays); ways: the sizes of the
-- sets, every set of each size.

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
