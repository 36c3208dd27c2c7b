/*
 * bp.h - clique structures and marginal inference for clique models
 * P(z) proportional to exp(sum_C psi_C(z_C)) over z with z_i in
 * {0..card[i]-1}: every variable has its own alphabet (its cardinality
 * card[i], 2..MRF_CODE_CARD_MAX (rows.h), public: from the column's type
 * or a declared domain).
 *
 * A clique set lists m cliques, each a sorted list of distinct variables;
 * clique c owns the table cells offset[c] .. offset[c+1]-1, row-major over
 * its sorted variables (the first variable is the most significant digit, a
 * variable's digit runs over its own card): prod_{i in C} card[i] cells.
 * Every per-clique array of the clique learner (counts, noisy counts,
 * log-potentials, marginals) uses this layout.  A set with one alphabet is
 * the special case card[i] = k for every i (MrfCliqueSetBuild); its layout,
 * and everything computed on it, is what it was before per-variable
 * alphabets.
 *
 * Inference (MrfBp) is exact on a junction tree: the cliques themselves when
 * they satisfy the running intersection property, otherwise the maximal
 * cliques of a min-fill triangulation if its tables fit a cell limit.  When
 * they do not (or when asked), it is loopy belief propagation on the factor
 * graph of the cliques, which is approximate.
 */
#ifndef MRF_BP_H
#define MRF_BP_H

#include <stddef.h>
#include <stdint.h>

#include "env.h"
#include "noise.h"
#include "rows.h"

typedef struct MrfCliqueSet
{
	int			p;				/* variables 0..p-1 */
	int			k;				/* the largest alphabet: max card[i] */
	int		   *card;			/* p: variable i takes values 0..card[i]-1 */
	int			m;				/* cliques */
	int		   *start;			/* m + 1: clique c is var[start[c] .. start[c+1]-1] */
	int		   *var;			/* sorted within each clique */
	int64_t    *offset;			/* m + 1: table cells of clique c */
	int64_t		cells;			/* offset[m] */
} MrfCliqueSet;

/*
 * Row-major index of a row's values z (p of them, z[i] < card[i]) in clique
 * c's table: mixed radix, each digit in its variable's own base.
 */
static inline int64_t
MrfCliqueIndex(const MrfCliqueSet *set, int c, const MrfCode *z)
{
	int64_t		idx = 0;
	int			i;

	for (i = set->start[c]; i < set->start[c + 1]; i++)
		idx = idx * set->card[set->var[i]] + z[set->var[i]];
	return idx;
}

typedef enum MrfInferMode
{
	MRF_INFER_AUTO = 0,			/* exact when it fits, loopy otherwise */
	MRF_INFER_EXACT = 1,		/* junction tree or MRF_EINVAL */
	MRF_INFER_LOOPY = 2			/* loopy BP even on a junction tree */
} MrfInferMode;

typedef struct MrfBpOptions
{
	MrfInferMode mode;
	int64_t		max_exact_cells;	/* cell limit of the junction tree; 0: default */
	int			max_iterations;		/* loopy sweeps per call; 0: default */
	double		tolerance;			/* loopy: max message change; 0: default */
	double		damping;			/* loopy: weight of the new message; 0: default */
} MrfBpOptions;

/* Defaults of MrfBpOptions fields left at 0. */
#define MRF_BP_DEFAULT_MAX_EXACT_CELLS ((int64_t) 1 << 22)
#define MRF_BP_DEFAULT_ITERATIONS 500
#define MRF_BP_DEFAULT_TOLERANCE 1e-9
#define MRF_BP_DEFAULT_DAMPING 0.5

typedef struct MrfBp MrfBp;

/* Reported by MrfBpInfo. */
typedef struct MrfBpInfo
{
	int			exact;			/* 1: junction tree, 0: loopy BP */
	int			decomposable;	/* the cliques themselves form a junction tree */
	int			clusters;		/* junction tree nodes (exact) */
	int64_t		cluster_cells;	/* cells of all junction tree tables */
	int			last_iterations;	/* loopy sweeps of the last call */
	double		last_change;	/* loopy: final max message change */
	int			last_converged; /* loopy: change below tolerance (exact: 1) */
	size_t		bytes;			/* memory held by the engine */
} MrfBpInfo;

/* k^size as a cell count, or -1 above limit (overflow-safe). */
int64_t		MrfTableCells(int k, int size, int64_t limit);

/*
 * prod_{i < size} card[vars[i]], the cells of a table over vars, or -1
 * above limit (overflow-safe).  card is indexed by variable.
 */
int64_t		MrfVarsCells(const int *card, int size, const int *vars, int64_t limit);

/*
 * Maps every cell of a table over sup_vars (sorted) to the cell of its
 * marginal table over sub_vars (sorted, a subset): map[x] for x below the
 * sup table's cells, prod card[sup_vars[i]].  card is indexed by variable.
 */
void		MrfSubsetIndexMap(const int *card, int nsup, const int *sup_vars,
							  int nsub, const int *sub_vars, int32_t *map);

/*
 * Whether the cliques have the running intersection property (some spanning
 * tree of the clique graph is a junction tree).  On success *decomposable is
 * 0 or 1; parent (m entries, may be NULL) receives a junction tree rooted at
 * clique 0 (-1 for the root), listed in an order where parents come first
 * (order, m entries, may be NULL).
 */
MrfStatus	MrfCliquesJunctionTree(const MrfCliqueSet *set, const MrfEnv *env,
								   int *decomposable, int *parent, int *order);

/* Builds an inference engine for set (which must outlive it). */
MrfStatus	MrfBpBuild(const MrfCliqueSet *set, const MrfBpOptions *opt,
					   const MrfEnv *env, MrfBp **out);

/*
 * The cells of every cluster of the min-fill triangulation MrfBpBuild makes
 * when the cliques are not a junction tree within its limit (the sum that
 * limit is checked against, non-maximal clusters included), or -1 above
 * limit, without building the engine; *fill the edges the triangulation
 * added (-1 above limit).  So MrfBpBuild exact within L <= limit succeeds
 * iff the cliques are a junction tree (MrfCliquesJunctionTree) of set->cells
 * <= L cells, or *cells <= L.  Cliques that are a junction tree have a
 * chordal graph, which min-fill triangulates with no fill: *fill > 0 says
 * they are not one.  The set needs p, k, card, m, start and var only.
 */
MrfStatus	MrfBpTriangulatedCells(const MrfCliqueSet *set, int64_t limit,
								   const MrfEnv *env, int64_t *cells, int64_t *fill);

/*
 * Clique marginals of the model with log-potentials logpot (set->cells):
 * marg (set->cells) gets each clique's normalised table; logz (may be NULL)
 * the log partition function when exact, NaN under loopy BP.  Loopy BP starts
 * from the messages of the previous call, so repeated calls on nearby
 * potentials are cheap.
 */
MrfStatus	MrfBpMarginals(MrfBp *bp, const double *logpot, double *marg,
						   double *logz);

/*
 * Exact samples of the clique model with log-potentials logpot (set->cells)
 * by forward sampling through the calibrated junction tree: each row draws
 * every root cluster from its marginal, then each cluster (parents first)
 * from its conditional given the separator values its parent drew; a
 * variable in no clique (no factor) is uniform.  Rows are independent draws
 * of the model, whatever its modes.  out gets n rows of p values (row-major,
 * z_i < card[i]).  MRF_EINVAL unless the engine is exact (a junction tree);
 * MRF_ERANGE when the marginals overflow (potentials near 1e308).
 */
MrfStatus	MrfBpSample(MrfBp *bp, const double *logpot, int64_t n, MrfRng *rng,
						MrfCode *out);

/* Bytes MrfBpSample allocates beyond the engine. */
size_t		MrfBpSampleBytes(const MrfBp *bp);

/*
 * n rows of the clique model with log-potentials logpot whose clique
 * marginals match the model's up to rounding, by allocating counts rather
 * than drawing rows (as private-pgm's synthetic_data does): clusters of the
 * calibrated junction tree parents first; the rows holding each value s of
 * a cluster's separator with its parent (all n rows at a root) get the
 * cluster's cells in counts rounded from their number times P(cell | s),
 * each count the floor or the ceiling (the ceiling with probability the
 * fraction, so counts are unbiased), in random order.  A variable in no
 * clique is allocated from its uniform marginal.  Randomness only from rng:
 * the same rng state gives the same rows.  out gets n rows of p values
 * (row-major, z_i < card[i]); n at most INT32_MAX.  MRF_EINVAL unless the
 * engine is exact (a junction tree); MRF_ERANGE when the marginals
 * overflow (potentials near 1e308).
 */
MrfStatus	MrfBpAllocate(MrfBp *bp, const double *logpot, int64_t n, MrfRng *rng,
						  MrfCode *out);

/* Bytes MrfBpAllocate allocates beyond the engine for n rows. */
size_t		MrfBpAllocateBytes(const MrfBp *bp, int64_t n);

/*
 * Exact marginal of the size variables vars (ascending, distinct) into out
 * (prod card[vars[i]] cells, row-major as a clique's table), from the last
 * MrfBpMarginals of an exact engine: variable elimination over the
 * smallest subtree of the calibrated junction tree that holds the set
 * (no new triangulation; the set need not lie in one cluster).  MRF_EINVAL
 * for invalid vars, an engine that is not exact or not calibrated, or when
 * the set's table or a table of the elimination would exceed max_cells
 * (0: the engine's max_exact_cells); then *need (may be NULL) is the cells
 * that table would have.
 */
MrfStatus	MrfBpSetMarginal(MrfBp *bp, int size, const int *vars, int64_t max_cells,
							 double *out, int64_t *need);

/*
 * MrfBpSetMarginal with the elimination's allocations (and polls) through
 * env instead of the engine's own: it only reads the engine once
 * MrfBpPrepareQueries has run after the last calibration, so several
 * threads may query one engine at once, each with its own env.
 */
MrfStatus	MrfBpSetMarginalIn(MrfBp *bp, const MrfEnv *env, int size, const int *vars,
							   int64_t max_cells, double *out, int64_t *need);

/* Prepares the query tables of the last exact calibration (MRF_EINVAL: none). */
MrfStatus	MrfBpPrepareQueries(MrfBp *bp);

/* Forgets loopy BP's messages (the next call starts from uniform ones). */
void		MrfBpReset(MrfBp *bp);

void		MrfBpGetInfo(const MrfBp *bp, MrfBpInfo *info);

void		MrfBpFree(MrfBp *bp);

#endif
