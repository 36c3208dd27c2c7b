/*
 * mst.h - MST (McKenna, Miklau, Sheldon, "Winning the NIST Contest: A
 * scalable and general approach to differentially private synthetic data",
 * JPC 2021), built from the select-measure-estimate pieces of estimate.h
 * that AIM shares:
 *
 *   - counting: one scan of the rows for every one-way and every two-way
 *     contingency table (MrfMstCount);
 *   - measuring: a list of integer tables plus independent discrete Gaussian
 *     noise (MrfMeasureGaussian), calibrated in privacy.c;
 *   - selecting: the exponential mechanism by Gumbel-max over eligible
 *     candidates (MrfExponentialSelect), calibrated in privacy.c;
 *   - estimating: the model that best explains a list of noisy measurements
 *     (Gaussian likelihood, maximum likelihood over the marginal polytope)
 *     by Private-PGM's entropic mirror descent over a clique set
 *     (MrfEstimate), exact on a junction tree;
 *   - MST itself (MrfMstLearn): measure every one-way marginal, compress
 *     rare values (from the noisy one-way counts: post-processing), select a
 *     spanning tree of pairs with the exponential mechanism on the L1
 *     distance between each pair's table and the product of the one-way
 *     estimates, measure the tree's pairs, estimate.
 *
 * Rows are MrfCode (rows.h), n x p, row-major, z_i < card[i] (per-variable
 * alphabets, 2..MRF_CODE_CARD_MAX, public).  Tables are row-major over ascending
 * variables, the first the most significant digit, each in its own base
 * (bp.h's layout).  Privacy: privacy.md 12; calibrations in privacy.c
 * (MrfMst*).  Plain C: no PostgreSQL headers.
 */
#ifndef MRF_MST_H
#define MRF_MST_H

#include <stddef.h>
#include <stdint.h>

#include "bp.h"
#include "env.h"
#include "estimate.h"
#include "noise.h"

/* ---- one scan: every one-way and two-way table ---- */

/* Cells of every one-way table together: sum_i card[i]. */
int64_t		MrfMstOneWayCells(int p, const int *card);

/*
 * Cells of every two-way table together, sum_{i<j} card[i] card[j]; pair
 * (i, j), i < j, in the order (0,1), (0,2), .., (0,p-1), (1,2), .. starts at
 * pair_offset[MrfMstPairIndex(p, i, j)] (pair_offset may be NULL; else
 * p (p-1)/2 + 1 entries).
 */
int64_t		MrfMstTwoWayCells(int p, const int *card, int64_t *pair_offset);

/* Index of pair (i, j), i < j, among the p (p-1)/2 pairs. */
static inline int64_t
MrfMstPairIndex(int p, int i, int j)
{
	return (int64_t) i * (2 * (int64_t) p - i - 1) / 2 + (j - i - 1);
}

/*
 * One scan of n rows: one (MrfMstOneWayCells) gets every one-way table,
 * variable by variable; two (MrfMstTwoWayCells, may be NULL) every two-way
 * table at the offsets above.  MRF_EINVAL if a value is not below its card.
 */
MrfStatus	MrfMstCount(const MrfCode *rows, int64_t n, int p, const int *card,
						const MrfEnv *env, int64_t *one, int64_t *two);

/* ---- MST ---- */

typedef struct MrfMstOptions
{
	double		rho;			/* the whole budget, zCDP */
	MrfEstimateOptions estimate;
} MrfMstOptions;

void		MrfMstDefaultOptions(MrfMstOptions *opt);

/* What a release did, for the model's metadata. */
typedef struct MrfMstReport
{
	double		rho_one_way;	/* the split (privacy.c, MrfMstSplit) */
	double		rho_select;
	double		rho_two_way;
	double		sigma2_one_way; /* discrete Gaussian variances used */
	double		sigma2_two_way;
	double		select_scale;	/* exponential mechanism's multiplier */
	double		select_epsilon; /* its epsilon per selection */
	int			compressed;		/* variables whose rare values were merged */
	int			rare_values;	/* values merged over all variables */
	MrfEstimateReport estimate;
} MrfMstReport;

/* Bytes MrfMstLearn allocates beyond the rows and its outputs. */
size_t		MrfMstWorkspaceBytes(int p, const int *card);

/*
 * The whole rho-zCDP learner.  Outputs: edges (2 (p-1) ints, 0-based pairs
 * (i < j) of the selected tree in selection order) and logpot, the tree
 * model's log-potentials over the original alphabets in the layout of the
 * clique set whose cliques are those pairs in that order (MrfMstTreeCells
 * cells); p >= 2.
 */
MrfStatus	MrfMstLearn(const MrfCode *rows, int64_t n, int p, const int *card,
						const MrfMstOptions *opt, MrfRng *rng,
						const MrfEnv *env, int *edges, double *logpot,
						MrfMstReport *rep);

/*
 * MrfMstLearn from the rows' tables instead of the rows: one
 * (MrfMstOneWayCells) and two (MrfMstTwoWayCells), MrfMstCount's layout,
 * the exact counts of n rows (summed over any split of the rows: Citus
 * workers).  Same draws, same model as MrfMstLearn on those rows.
 */
MrfStatus	MrfMstLearnCounts(const int64_t *one, const int64_t *two, int64_t n, int p,
							  const int *card, const MrfMstOptions *opt, MrfRng *rng,
							  const MrfEnv *env, int *edges, double *logpot,
							  MrfMstReport *rep);

/* Cells of the log-potentials over edges (p - 1 pairs): sum card_i card_j. */
int64_t		MrfMstTreeCells(int p, const int *card, const int *edges);

/* Largest cells of any tree over these alphabets (for sizing logpot). */
int64_t		MrfMstMaxTreeCells(int p, const int *card);

/*
 * The selection step alone, for tests and other learners: given the
 * compressed two-way tables and the one-way estimates (probabilities per
 * variable over ccard), selects p-1 edges of a spanning tree in the law of
 * p - 1 exponential mechanisms at scale (MrfMstSelectForest with every
 * pair given and no cap), score = L1 between a pair's table and n times
 * the product of its one-way estimates.
 */
MrfStatus	MrfMstSelectTree(int p, const int *ccard, const int64_t *pair_offset,
							 const int64_t *two, const double *const *prob,
							 int64_t n, double scale, MrfRng *rng,
							 const MrfEnv *env, int *edges);

/*
 * The same over the pairs given: pair[e] (pairs in MrfMstPairIndex order)
 * is pair e's table over ccard, or NULL when the pair may not be chosen.
 * Selects edges of a spanning forest of the given pairs' graph, in the law
 * of one exponential mechanism at scale per edge among the given pairs
 * that join two trees and keep the chosen pairs' cells (sum of ccard_i
 * ccard_j) within max_cells (0: no limit), until none does, drawn at once
 * (one Gumbel a pair, then Kruskal's order: privacy.md 12, "The selections
 * as one draw"): *nedges edges, p minus that graph's components at most
 * (p - 1 when every pair is given and there is no limit).  *selections
 * (when not NULL): the exponential mechanisms it stands for, one an edge,
 * what the caller charges for.  Polls after each edge with progress[0] done
 * of progress[1] (NULL: the edges of p - 1).  MRF_EINVAL when p < 2, above
 * 2^30 pairs, when a pair is given and scale is not positive and finite,
 * or a given pair's score is not finite (a one-way estimate that is not).
 * MST's tree and AIM's seed (aim.c).
 */
MrfStatus	MrfMstSelectForest(int p, const int *ccard, const int64_t *const *pair,
							   const double *const *prob, int64_t n, double scale,
							   int64_t max_cells, const int64_t *progress, MrfRng *rng,
							   const MrfEnv *env, int *edges, int *nedges, int *selections);

#endif
