/*
 * twise.h - binary t-wise Markov random fields and their private learners
 * (Zhang et al. 2020, Algorithms 4 and 5; privacy.md 6).
 *
 * Model: P(z) proportional to exp(sum over sets I with 1 <= |I| <= t of
 * c_I prod_{i in I} z_i) over z in {-1,+1}^p.
 *
 * Monomials.  A set I of variables is a sorted index list v_1 < ... < v_k.
 * All sets of size at most m are numbered in graded co-lexicographic order:
 * first by size, then, within size k, by the combinatorial number system
 *     rank(I) = C(v_1, 1) + C(v_2, 2) + ... + C(v_k, k),
 * so index(I) = sum_{s < k} C(p, s) + rank(I).  The empty set is index 0,
 * the singletons {j} are indices 1 + j, then the pairs
 * {0,1}, {0,2}, {1,2}, {0,3}, ... and so on.  A model's coefficients are one
 * double array indexed this way, of length MrfSubsetCount(p, t); entry 0
 * (the empty monomial, a constant absorbed by the normaliser) is always 0.
 * The glue lists the monomials with MrfSubsetVars(p, index, vars).
 */
#ifndef MRF_TWISE_H
#define MRF_TWISE_H

#include <stddef.h>
#include <stdint.h>

#include "env.h"
#include "fw.h"
#include "noise.h"
#include "privacy.h"
#include "problem.h"

/* Largest order t accepted (sets of up to t indices live on the stack). */
#define MRF_TWISE_MAX_ORDER 16

/*
 * Largest p for which query_release 'pmw' keeps a distribution over all 2^p
 * points: 2^20 doubles are 8 MiB per array and a round costs about
 * p 2^p = 2e7 additions (a fast Walsh-Hadamard transform).
 */
#define MRF_TWISE_PMW_MAX_P 20

typedef enum MrfTwiseObjective
{
	MRF_TWISE_L1 = 0,			/* Algorithm 4: parameters in l1 distance */
	MRF_TWISE_LINF = 1			/* Algorithm 5: maximal monomials in l_inf */
} MrfTwiseObjective;

typedef enum MrfTwiseRelease
{
	MRF_TWISE_GAUSSIAN = 0,		/* discrete Gaussian on all parity sums */
	MRF_TWISE_PMW = 1			/* private multiplicative weights */
} MrfTwiseRelease;

typedef struct MrfTwiseOptions
{
	int			t;				/* order, 2 <= t <= min(p, MRF_TWISE_MAX_ORDER) */
	double		rho;			/* total zCDP budget */
	double		lambda;			/* public width bound: max_i ||d_i h||_1 */
	int			iterations;		/* Frank-Wolfe T; 0: the default */
	MrfMechanism mechanism;
	MrfTwiseObjective objective;
	MrfTwiseRelease release;	/* linf only */
	int64_t		query_rows;		/* linf: n2; 0: the default n / 2 */
	int			pmw_rounds;		/* pmw only; 0: the default */
} MrfTwiseOptions;

/*
 * What MrfTwiseValidate refuses before any data is read (problem.h).  The
 * glue adds the numbers from the count functions below.
 */
extern const char MrfTwiseBadArgument[];	/* NULL, p < 2, n < 1, n > INT_MAX, bad enum */
extern const char MrfTwiseBadBudget[];	/* rho or lambda not finite and positive */
extern const char MrfTwiseBadOrder[];	/* t < 2, t > p or t > MRF_TWISE_MAX_ORDER */
extern const char MrfTwiseBadIterations[];	/* iterations or pmw_rounds negative or 1 */
extern const char MrfTwiseTooManyFeatures[];	/* MrfTwiseFeatureCount > MrfTwiseMaxFeatures */
extern const char MrfTwiseBadSplit[];	/* linf: n1 or n2 would be empty */
extern const char MrfTwisePmwTooLarge[];	/* pmw with p > MRF_TWISE_PMW_MAX_P */
extern const char MrfTwiseNoiseTooLarge[];	/* discrete Gaussian variance beyond 2^40 */
extern const char MrfTwiseBadScale[];	/* the regressions' noise calibration overflows */

/* ---- subsets ---- */

/* Number of subsets of {0..p-1} of size 0..max_size; -1 on overflow. */
int64_t		MrfSubsetCount(int p, int max_size);

/* Graded colex index of the sorted set vars[0..k-1] of {0..p-1}; -1 if invalid. */
int64_t		MrfSubsetIndex(int p, const int *vars, int k);

/*
 * Writes the sorted members of the set with this index to vars (room for the
 * set's size, at most p) and returns the size; -1 if the index is invalid.
 */
int			MrfSubsetVars(int p, int64_t index, int *vars);

/*
 * Advances vars[0..*k-1] to the next set in index order among the sets of
 * size at most max_size (start from *k = 0, the empty set); returns 0 after
 * the last one.  Listing monomials this way costs O(1) amortised per set.
 */
int			MrfSubsetNext(int p, int max_size, int *vars, int *k);

/*
 * In-place unnormalised Walsh-Hadamard transform of 2^p values:
 * v'(m) = sum_x v(x) (-1)^popcount(m & x).  With state bit j = 1 for
 * z_j = +1, E[prod_{j in I} z_j] = (-1)^|I| v'(mask(I)) for a probability
 * vector v.
 */
void		MrfWalshHadamard(double *v, int p);

/* ---- sizes, for the glue's checks and messages ---- */

/* Columns of the shared design: sets of size 0..t-1 of all p variables. */
int64_t		MrfTwiseFeatureCount(int p, int t);

/* Largest feature count the solver accepts for p variables (BLAS int sizes). */
int64_t		MrfTwiseMaxFeatures(int p);

/* Length of the coefficient array: sets of size 0..t (entry 0 unused). */
int64_t		MrfTwiseCoefCount(int p, int t);

/* Parity queries Algorithm 5 releases: sets of size 1..t-1 (see twise.c). */
int64_t		MrfTwiseQueryCount(int p, int t);

/* Rows n2 that answer the parity queries (linf); n1 = n - n2. */
int64_t		MrfTwiseQueryRows(const MrfTwiseOptions *opt, int64_t n);

/* Frank-Wolfe iterations T of every node regression (resolves the default). */
int			MrfTwiseIterations(const MrfTwiseOptions *opt, int p, int64_t n);

/* PMW rounds (resolves the default); 0 when PMW is not used. */
int			MrfTwisePmwRounds(const MrfTwiseOptions *opt, int p, int64_t n);

/* Everything that can be refused before reading data: NULL, or the problem. */
MrfProblem	MrfTwiseValidate(const MrfTwiseOptions *opt, int p, int64_t n);

/* Peak bytes MrfTwiseLearn allocates (SIZE_MAX when it cannot fit). */
size_t		MrfTwiseWorkspaceBytes(const MrfTwiseOptions *opt, int p, int64_t n);

/*
 * The width max_i sum over the monomials I containing i of |c_I| (sizes
 * 1..t; the lambda the learner's radius 2 lambda bounds): post-processing
 * of an estimate.  -1 when p or t is out of range or memory is short.
 */
double		MrfTwiseWidth(const double *coef, int p, int t, const MrfEnv *env);

/* ---- learning ---- */

/*
 * Learns the coefficients (MrfTwiseCoefCount(p, opt->t) doubles, indexed as
 * in the file comment) from n packed rows (rows.h) under opt->rho zCDP.
 * MRF_EINVAL whenever MrfTwiseValidate refuses.  Neighbouring datasets
 * differ in one row (replace-one); n is public.
 */
MrfStatus	MrfTwiseLearn(const uint64_t *bits, int64_t n, int p,
						  const MrfTwiseOptions *opt, MrfRng *rng,
						  const MrfEnv *env, double *coef);

/*
 * Distributed learning (docs/citus_fw.md), objective l1 only (Algorithm
 * 5's query rows are the last n2 in order, which only the rows can tell;
 * MRF_EINVAL for linf): MrfTwiseLearn with the Frank-Wolfe score sums of
 * each iteration from scores_fn (fw.h, MrfFwSolveParts); when scores_fn
 * adds the parts' sums (fwdesign.h, MrfFwDesignPartScores of
 * MrfTwiseFwDesignOf's design) over a partition of the n rows, coef and the
 * random draws are MrfTwiseLearn's on those rows, bit for bit.
 */
MrfStatus	MrfTwiseLearnParts(MrfFwScoresFn scores_fn, void *arg, int64_t n, int p,
							   const MrfTwiseOptions *opt, MrfRng *rng, const MrfEnv *env,
							   double *coef);

/* The design (fwdesign.h) of the node regressions for p variables, order t and lambda. */
struct MrfFwDesign;
void		MrfTwiseFwDesignOf(int p, int t, double lambda, struct MrfFwDesign *design);

/* ---- the parity-query release of Algorithm 5, exposed for tests ---- */

/*
 * Integer parity sums S(I) = sum over rows of prod_{i in I} z_i for every set
 * of size 1..max_size, in index order: sums[index(I) - 1].
 */
MrfStatus	MrfTwiseParitySums(const uint64_t *bits, int64_t n, int p,
							   int max_size, const MrfEnv *env, int64_t *sums);

/*
 * Releases count integer sums, each of replace-one sensitivity 2, with the
 * discrete Gaussian at rho zCDP (variance from MrfParityGaussianVariance).
 */
MrfStatus	MrfTwiseGaussianRelease(const int64_t *sums, int64_t count,
									double rho, MrfRng *rng, int64_t *noisy);

/*
 * Private multiplicative weights over {-1,+1}^p for the sums of the sets of
 * size 1..max_size (in index order) over rows rows, at rho zCDP in the given
 * number of rounds.  Writes the estimated means Q_hat(I) = E[prod z_i] to
 * answers[index(I) - 1]; if selected is not NULL, the index of the set
 * measured in each round (part of the private transcript).
 */
MrfStatus	MrfTwisePmwRelease(int p, int max_size, const int64_t *sums,
							   int64_t rows, double rho, int rounds,
							   MrfRng *rng, const MrfEnv *env, double *answers,
							   int64_t *selected);

#endif
