-------------------------------------------------------------------------------
-- Structure learning (docs/privacy.md 7): the stable mode over disjoint
-- blocks under (epsilon, delta)-DP, or method 'threshold' under rho-zCDP.  Binary rows
-- (model 'ising' or 'twise') or k-ary rows (model 'pairwise'); the result
-- is an mrf of kind "structure" (an edge list, or the maximal monomials for
-- 'twise'), or NULL when the stable mode releases no graph (still charged).
-------------------------------------------------------------------------------

-- Transition: checks the options at each group's first row, then packs bits
-- (or stores bytes for model 'pairwise').
CREATE FUNCTION mrfdp_internal.mrf_structure_accum(internal, anyelement, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

-- Learns and releases: draws noise.
CREATE FUNCTION mrfdp_internal.mrf_structure_final(internal) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE AGGREGATE mrf_learn_structure_agg(anyelement, jsonb) (
	SFUNC = mrfdp_internal.mrf_structure_accum,
	STYPE = internal,
	FINALFUNC = mrfdp_internal.mrf_structure_final,
	COMBINEFUNC = mrfdp_internal.mrf_rows_combine,
	SERIALFUNC = mrfdp_internal.mrf_rows_serialize,
	DESERIALFUNC = mrfdp_internal.mrf_rows_deserialize,
	PARALLEL = SAFE
);

-- The named form (rewritten into mrf_learn_structure_agg, see 10_ising.sql).
-- rho, iterations and mechanism belong to method 'threshold'; blocks to the
-- stable mode; k, domains and nulls to model 'pairwise' (k-ary rows, read as
-- mrf_learn_pairwise reads them); t to model 'twise'.
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

-- The protected path (see 10_ising.sql).
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

-- Planning for the stable mode (public arithmetic only): the blocks (given
-- or the default for epsilon and delta), the threshold tau on the noisy
-- block counts, the rows per block for the block learner of the model
-- ('ising', the default; 'pairwise' with k; 'twise' with t) at lambda (the
-- model's default when NULL) on a model of the given width (lambda when
-- given, else 2), sized for a 90% exact release (fitted to the defaults
-- study), and the rows of the whole table; NULL rows when lambda is well
-- below the width.
CREATE FUNCTION mrf_structure_rows_needed(p int, eta float8, epsilon float8, delta float8,
										  lambda float8 DEFAULT NULL, blocks int DEFAULT NULL,
										  width float8 DEFAULT NULL, model text DEFAULT NULL,
										  k int DEFAULT NULL, t int DEFAULT NULL)
	RETURNS TABLE (block_count int, tau bigint, rows_per_block bigint, "rows" bigint)
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
