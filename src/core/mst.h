/*
 * mst.h - MST (McKenna, Miklau, Sheldon, "Winning the NIST Contest: A
 * scalable and general approach to differentially private synthetic data",
 * JPC 2021) and the select-measure-estimate pieces it is made of, reusable
 * by other learners of that family (AIM):
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
 * Rows are uint8_t, n x p, row-major, z_i < card[i] (per-variable
 * alphabets, 2..256, public).  Tables are row-major over ascending
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
MrfStatus	MrfMstCount(const uint8_t *rows, int64_t n, int p, const int *card,
						const MrfEnv *env, int64_t *one, int64_t *two);

/* ---- measure, select ---- */

/*
 * y[c] = x[c] + N_Z(0, num/den) for c < cells, independent draws of the
 * discrete Gaussian (noise.c; num/den from privacy.c).  MRF_EINVAL when the
 * variance is outside the sampler's range.
 */
MrfStatus	MrfMeasureGaussian(const int64_t *x, int64_t cells, uint64_t num,
							   uint64_t den, MrfRng *rng, double *y);

/*
 * The exponential mechanism over candidates 0..count-1 with eligible[c]
 * nonzero (eligible may be NULL: all): argmax of scale * score[c] + Gumbel,
 * which draws c with probability proportional to exp(scale * score[c])
 * (scale from privacy.c, e.g. MrfMstSelectionScale).  -1 if none is
 * eligible or the scale is not finite and positive.
 */
int			MrfExponentialSelect(const double *score, const uint8_t *eligible,
								 int count, double scale, MrfRng *rng);

/* ---- estimate from noisy measurements ---- */

/*
 * A noisy marginal: the table over vars (sorted, a subset of clique
 * `clique` of the estimator's set), cells prod card over vars; y its noisy
 * values; precision[c] = 1 / variance of cell c (NULL: 1 / sigma2 for
 * every cell).
 */
#define MRF_MEASURE_MAX_VARS 8
typedef struct MrfMeasurement
{
	int			clique;
	int			size;
	int			vars[MRF_MEASURE_MAX_VARS];
	const double *y;
	const double *precision;
	double		sigma2;
} MrfMeasurement;

typedef struct MrfEstimateOptions
{
	int			iterations;		/* mirror-descent steps (default 1000) */
	int			warm_start;		/* start from the logpot passed in (AIM's rounds), not 0 */
	MrfBpOptions bp;			/* inference engine (exact on a junction tree) */
} MrfEstimateOptions;

void		MrfEstimateDefaultOptions(MrfEstimateOptions *opt);

typedef struct MrfEstimateReport
{
	int			iterations;		/* steps taken */
	double		loss_start;		/* 0.5 sum precision (x - y)^2 at the start */
	double		loss;			/* and at the end */
	int64_t		evaluations;	/* marginal inferences (line search included) */
	int			exact;			/* inference was exact */
} MrfEstimateReport;

/*
 * Post-processing: log-potentials (set->cells) of the model whose clique
 * marginals, scaled to n rows, minimise 0.5 sum over measurements and cells
 * of precision (x - y)^2, where x is the model's marginal over the
 * measurement's variables (Private-PGM's L2 loss, i.e. the Gaussian
 * likelihood).  Entropic mirror descent on the log-potentials with an
 * Armijo line search (McKenna, Sheldon, Miklau ICML 2019, Alg. 1), from the
 * uniform model (or, with opt->warm_start, from the log-potentials in logpot).  card[i] (p entries) gives the alphabets; the set must use
 * the same (set->card when it has one).
 */
MrfStatus	MrfEstimate(const MrfCliqueSet *set, const int *card,
						const MrfMeasurement *meas, int nmeas, int64_t n,
						const MrfEstimateOptions *opt, const MrfEnv *env,
						double *logpot, MrfEstimateReport *rep);

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
MrfStatus	MrfMstLearn(const uint8_t *rows, int64_t n, int p, const int *card,
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
 * variable over ccard), selects p-1 edges of a spanning tree with
 * MrfExponentialSelect at scale, score = L1 between a pair's table and
 * n times the product of its one-way estimates.
 */
MrfStatus	MrfMstSelectTree(int p, const int *ccard, const int64_t *pair_offset,
							 const int64_t *two, const double *const *prob,
							 int64_t n, double scale, MrfRng *rng,
							 const MrfEnv *env, int *edges);

/*
 * The weighted projection of one noisy one-way table onto {m >= 0, sum m =
 * n}: minimises sum precision[a] (m[a] - y[a])^2 (the maximum-likelihood
 * one-way estimate of an independent variable); out gets m / n.
 */
void		MrfProjectOneWay(const double *y, const double *precision, int cells,
							 int64_t n, double *out);

#endif
