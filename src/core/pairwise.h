/*
 * pairwise.h - pairwise k-ary Markov random fields and their private learner
 * (Zhang et al. 2020, Algorithm 3; privacy.md 5).
 *
 * Model over z in {0, ..., k-1}^p:
 *     P(z) proportional to exp(sum_{i<j} W_ij(z_i, z_j) + sum_i theta_i(z_i)).
 * Storage: W dense, W[((i p + j) k + a) k + b] = W_ij(a, b) (MrfPairwiseAt),
 * p^2 k^2 doubles, with W_ji(b, a) = W_ij(a, b) and zero diagonal blocks;
 * theta[i k + a] = theta_i(a), p k doubles.
 *
 * Centring convention of every W and theta this module outputs: the one the
 * paper assumes without loss of generality (Section 3.3 and its footnote 2;
 * Eq. (1)): every row and every column of every block sums to zero,
 *     sum_b W_ij(a, b) = 0  and  sum_a W_ij(a, b) = 0,
 * and every field sums to zero, sum_a theta_i(a) = 0.  Every model has
 * exactly one such representative (MrfPairwiseCentre computes it), and the
 * learner's guarantees are about it.  With symmetrize = 0 the learner
 * returns W_ij (from node i's regressions) and W_ji (from node j's) as two
 * separate centred estimates; readers such as the sampler use their average.
 * Rows are uint8_t, row-major (n x p), values 0..k-1; k is public (the
 * declared alphabet, never inferred from the data), 2 <= k <= 255.
 */
#ifndef MRF_PAIRWISE_H
#define MRF_PAIRWISE_H

#include <stddef.h>
#include <stdint.h>

#include "env.h"
#include "fw.h"
#include "noise.h"
#include "privacy.h"
#include "problem.h"

/* Largest alphabet: values are stored as uint8_t. */
#define MRF_PAIRWISE_MAX_K 255

typedef struct MrfPairwiseOptions
{
	double		rho;			/* total zCDP budget */
	double		lambda;			/* public width bound lambda(W, theta) */
	int			iterations;		/* Frank-Wolfe T; 0: the default */
	MrfMechanism mechanism;
	int			symmetrize;		/* average W_ij and W_ji^T (free) */
} MrfPairwiseOptions;

/* What MrfPairwiseValidate refuses before any data is read (problem.h). */
extern const char MrfPairwiseBadArgument[];	/* NULL options, p < 2, n < 1, n > INT_MAX */
extern const char MrfPairwiseBadAlphabet[];	/* k < 2 or k > MRF_PAIRWISE_MAX_K */
extern const char MrfPairwiseBadBudget[];	/* rho or lambda not finite and positive */
extern const char MrfPairwiseBadIterations[];	/* iterations negative or 1 */
extern const char MrfPairwiseBadMechanism[];
extern const char MrfPairwiseTooManyFeatures[];	/* coordinates x problems > INT_MAX */
extern const char MrfPairwiseBadScale[];	/* the noise calibration overflows (lambda too large, rho too small) */

/* Offset of W_ij(a, b) in the dense layout above. */
static inline size_t
MrfPairwiseAt(int p, int k, int i, int j, int a, int b)
{
	return (((size_t) i * p + j) * k + a) * k + b;
}

/* Checks sizes and options without touching data: NULL, or the problem. */
MrfProblem	MrfPairwiseValidate(const MrfPairwiseOptions *opt, int p, int k, int64_t n);

/*
 * Regressions: p k (k-1), one per node i and ordered pair u != v.  Problem
 * (i, u, v) has index (i k + u)(k - 1) + (v < u ? v : v - 1).
 */
int64_t		MrfPairwiseProblemCount(int p, int k);

/* Coordinates of the shared design matrix: the p k one-hot columns and 1. */
int64_t		MrfPairwiseCoordinateCount(int p, int k);

/* Iterations the learner will run (resolves the default); -1 if invalid. */
int			MrfPairwiseIterations(const MrfPairwiseOptions *opt, int p, int k,
								  int64_t n);

/*
 * Bytes of working memory MrfPairwiseLearn needs for n rows (the peak of its
 * allocations, bounded above over the kernels; SIZE_MAX on overflow).
 * Dominated by 4 n p k (k-1) bytes: the solver's margins, one float per row
 * and regression; for p = 30, k = 4, n = 50000 that is 72 MB (the one-hot X
 * is n (p k + 1) bits = 0.8 MB; the labels are read off X).
 */
size_t		MrfPairwiseWorkspaceBytes(int p, int k, int64_t n);

/* The same with per-variable alphabets kv (below; NULL: every variable has k). */
size_t		MrfPairwiseWorkspaceBytesAlphabets(int p, int k, const uint8_t *kv, int64_t n);

/*
 * The batched Frank-Wolfe problem of Algorithm 3, built from the data: the
 * one-hot design matrix, the labels of every regression, the allowed
 * coordinates, the radius R = 2 lambda k, the per-regression budget and T.
 * Exposed so that tests can check what the solver is given; the arrays
 * belong to the setup.
 */
typedef struct MrfPairwiseSetup
{
	MrfFwProblem fw;
	int			p;
	int			k;
	uint64_t   *x;				/* one-hot bits, d columns of fw.xwords words */
	int		   *ypos;			/* label columns of each regression */
	int		   *yneg;
	uint8_t    *allowed;
} MrfPairwiseSetup;

/* Builds the setup; MRF_EINVAL for invalid options or a value >= k. */
MrfStatus	MrfPairwisePrepare(const uint8_t *z, int64_t n, int p, int k,
							   const MrfPairwiseOptions *opt, const MrfEnv *env,
							   MrfPairwiseSetup *setup);

/* Releases the arrays of a setup (safe on a zeroed or released one). */
void		MrfPairwiseReleaseSetup(MrfPairwiseSetup *setup, const MrfEnv *env);

/*
 * Post-processing: W and theta (centred, see above) from the solver's
 * weights w (problem q at w[q d .. q d + d - 1], d coordinates), by Eq. (1)
 * and W_ij(u, :) = (1/k) sum_v U_uv(j, :).  Reads nothing but w.
 */
MrfStatus	MrfPairwiseRecover(const double *w, int p, int k, int symmetrize,
							   double *W, double *theta);

/*
 * Learns W and theta from n rows under opt->rho zCDP: Prepare, MrfFwSolve,
 * Recover.
 */
MrfStatus	MrfPairwiseLearn(const uint8_t *z, int64_t n, int p, int k,
							 const MrfPairwiseOptions *opt, MrfRng *rng,
							 const MrfEnv *env, double *W, double *theta);

/*
 * Per-variable alphabets (kv: p entries, each 2..k, the largest k; NULL:
 * every variable has k values).  The layout keeps stride k; cells of values
 * a >= k_i are 0 and never occur.  Node i runs k_i (k_i - 1) regressions on
 * sum_j k_j + 1 one-hot coordinates.
 */
int64_t		MrfPairwiseProblemCountAlphabets(int p, int k, const uint8_t *kv);
int64_t		MrfPairwiseCoordinateCountAlphabets(int p, int k, const uint8_t *kv);
int			MrfPairwiseIterationsAlphabets(const MrfPairwiseOptions *opt, int p, int k,
										   const uint8_t *kv, int64_t n);
/*
 * MrfPairwiseRecover over the per-variable layout: regression (i, u, v) is
 * sum_{j<i} k_j (k_j - 1) + u (k_i - 1) + (v < u ? v : v - 1), and variable
 * j's value b is coordinate sum_{l<j} k_l + b, the constant the last of
 * d = sum_j k_j + 1.  Reads nothing but w.
 */
MrfStatus	MrfPairwiseRecoverAlphabets(const double *w, int p, int k, const uint8_t *kv,
										int symmetrize, const MrfEnv *env, double *W,
										double *theta);
MrfStatus	MrfPairwiseLearnAlphabets(const uint8_t *z, int64_t n, int p, int k,
									  const uint8_t *kv, const MrfPairwiseOptions *opt,
									  MrfRng *rng, const MrfEnv *env, double *W,
									  double *theta);

/*
 * Rewrites any model (W read symmetrised, (W_ij(a, b) + W_ji(b, a)) / 2) in
 * place into the centred representative of the same distribution.
 */
MrfStatus	MrfPairwiseCentre(double *W, double *theta, int p, int k);

/*
 * The width lambda(W, theta) = max_i (sum_{j != i} max_ab |W_ij(a, b)| +
 * max_a |theta_i(a)|) of Zhang et al. (2020, Section 3.3), W read as
 * stored (block i, j from node i's side); post-processing of an estimate.
 */
double		MrfPairwiseWidth(const double *W, const double *theta, int p, int k);

/*
 * Distributed learning (docs/citus_fw.md): MrfPairwiseLearnAlphabets with
 * the Frank-Wolfe score sums of each iteration from scores_fn (fw.h,
 * MrfFwSolveParts) instead of rows; when scores_fn adds the parts' sums
 * (fwdesign.h, MrfFwDesignPartScores of MrfPairwiseFwDesignOf's design) over
 * a partition of the n rows, W, theta and the random draws are
 * MrfPairwiseLearnAlphabets's on those rows, bit for bit.
 */
MrfStatus	MrfPairwiseLearnParts(MrfFwScoresFn scores_fn, void *arg, int64_t n, int p, int k,
								  const uint8_t *kv, const MrfPairwiseOptions *opt, MrfRng *rng,
								  const MrfEnv *env, double *W, double *theta);

/* The design (fwdesign.h) of the learner's problem (kv: NULL or p alphabets, kept by reference). */
struct MrfFwDesign;
void		MrfPairwiseFwDesignOf(int p, int k, const uint8_t *kv, double lambda,
								  struct MrfFwDesign *design);

#endif
