/*
 * sample.h - drawing samples from a model of every kind (Ising, t-wise,
 * pairwise, cliques): exact enumeration for few states; exact forward
 * sampling through a junction tree for clique, pairwise and Ising models
 * whose graph triangulates within a cell limit (MrfBpSample); otherwise
 * MRF_SAMPLE_CHAINS Gibbs chains, each with parallel tempering over a
 * ladder of temperatures, and a split R-hat over the chains (sample.c
 * explains the sampler).
 */
#ifndef MRF_SAMPLE_H
#define MRF_SAMPLE_H

#include <stdint.h>

#include "bp.h"
#include "env.h"
#include "noise.h"

/* Which sampler drew the rows, for the caller to report. */
typedef enum MrfSampler
{
	MRF_SAMPLER_ENUMERATE = 0,	/* exact: every state enumerated */
	MRF_SAMPLER_TREE = 1,		/* exact: forward sampling on a junction tree */
	MRF_SAMPLER_CHAINS = 2,		/* chains with parallel tempering: burn_in and thin apply */
	MRF_SAMPLER_ALLOCATE = 3,	/* counts allocated through a junction tree */
	MRF_SAMPLER_NONE = 4		/* allocation asked for, but no junction tree fits: no rows */
} MrfSampler;

/* Name of a sampler, for messages and metadata ("exact", "junction tree", ...). */
const char *MrfSamplerName(MrfSampler sampler);

/* Independent chains of the chain sampler (split R-hat compares them). */
#define MRF_SAMPLE_CHAINS 4

/* Most temperatures in one chain's ladder. */
#define MRF_SAMPLE_MAX_TEMPERATURES 32

/* Fewest draws per half-chain for a split R-hat (NaN below). */
#define MRF_SAMPLE_RHAT_MIN_DRAWS 10

/* Split R-hat above which the chains disagree (Vehtari et al. 2021 use 1.01; Gelman et al. 1.1). */
#define MRF_SAMPLE_RHAT_LIMIT 1.05

/*
 * What the chain sampler did, for the caller to report.  rhat is the
 * largest split R-hat over the chains of any value indicator (for spins:
 * z_i = +1) over the draws of replica 0 after burn-in, rhat_variable and
 * rhat_value (a code) where it is; rhat is NaN when a half-chain has fewer
 * than MRF_SAMPLE_RHAT_MIN_DRAWS draws.  swap_rate is the lowest mean
 * acceptance of swaps between neighbouring temperatures (NaN with one).
 */
typedef struct MrfChainReport
{
	int			chains;
	int			temperatures;
	double		beta_min;
	double		swap_rate;
	double		rhat;
	int			rhat_variable;
	int			rhat_value;
} MrfChainReport;

/*
 * How a model is sampled: the chain sampler's burn-in rounds and thinning
 * (used only when no exact sampler applies: a round is one sweep of every
 * replica of every chain and one pass of swaps), and the largest junction
 * tree (cells of all its cluster tables) the exact tree sampler may build;
 * 0 means MRF_SAMPLE_TREE_MAX_CELLS.  MrfBpSampleBytes and the engine's
 * bytes come to about 48 bytes a cell.  With allocate, the clique, pairwise
 * and Ising samplers (the *SampleWith functions) allocate counts through the
 * junction tree instead of drawing rows (MrfBpAllocate, whatever the
 * model's size: enumeration is skipped), and return MRF_OK with *used
 * MRF_SAMPLER_NONE and no rows when no junction tree fits: a chain cannot
 * allocate.  report (may be NULL) gets the chain sampler's diagnostics when
 * it runs.
 */
typedef struct MrfSampleOptions
{
	int			burn_in;
	int			thin;
	int64_t		max_tree_cells;
	int			allocate;		/* 1: MrfBpAllocate's rows, or none (MRF_SAMPLER_NONE) */
	MrfChainReport *report;
} MrfSampleOptions;

#define MRF_SAMPLE_TREE_MAX_CELLS ((int64_t) 1 << 22)

/* Largest p sampled exactly by enumerating all 2^p states. */
#define MRF_EXACT_MAX_P 16

/*
 * Draws n samples of the Ising model (A p x p row-major, theta p) into out
 * (n x p, row-major, values -1/+1).  p <= MRF_EXACT_MAX_P enumerates exactly;
 * otherwise the chain sampler runs burn_in rounds, then keeps one state of
 * each chain every thin rounds.  A is read symmetrised: (A_ij + A_ji) / 2.
 */
MrfStatus	MrfIsingSample(const double *A, const double *theta, int p, int64_t n,
						   int burn_in, int thin, MrfRng *rng, const MrfEnv *env,
						   int8_t *out);

/*
 * MrfIsingSample with options, and the exact tree sampler between
 * enumeration and the chains: a model of more than MRF_EXACT_MAX_P spins
 * whose nonzero couplings triangulate within opt->max_tree_cells is sampled
 * exactly through its clique form (MrfIsingAsCliques).  *used (may be NULL)
 * gets the sampler that ran.
 */
MrfStatus	MrfIsingSampleWith(const double *A, const double *theta, int p, int64_t n,
							   const MrfSampleOptions *opt, MrfRng *rng,
							   const MrfEnv *env, int8_t *out, MrfSampler *used);

/*
 * Draws n samples of the binary t-wise model P(z) proportional to
 * exp(sum_J coef[index(J)] prod_{j in J} z_j) into out (n x p, row-major,
 * values -1/+1), coef holding MrfTwiseCoefCount(p, t) doubles in the order
 * of twise.h (entry 0, the constant, is ignored).  1 <= t <= p.
 * p <= MRF_EXACT_MAX_P enumerates exactly; otherwise the chain sampler as
 * in MrfIsingSample, where the conditional of z_i uses every monomial that
 * contains i.
 */
MrfStatus	MrfTwiseSample(const double *coef, int p, int t, int64_t n,
						   int burn_in, int thin, MrfRng *rng, const MrfEnv *env,
						   int8_t *out);

/* MrfTwiseSample with options; *used (may be NULL) gets the sampler. */
MrfStatus	MrfTwiseSampleWith(const double *coef, int p, int t, int64_t n,
							   const MrfSampleOptions *opt, MrfRng *rng,
							   const MrfEnv *env, int8_t *out, MrfSampler *used);

/* Largest number of states k^p sampled exactly by enumeration (2^16). */
#define MRF_PAIRWISE_EXACT_MAX_STATES 65536

/*
 * Draws n samples of the pairwise k-ary model P(z) proportional to
 * exp(sum_{i<j} W_ij(z_i, z_j) + sum_i theta_i(z_i)) into out (n x p,
 * row-major, values 0..k-1), W and theta laid out as in pairwise.h.  W is
 * read symmetrised, (W_ij(a, b) + W_ji(b, a)) / 2, with diagonal blocks
 * ignored; 2 <= k <= 255.  k^p <= MRF_PAIRWISE_EXACT_MAX_STATES enumerates
 * exactly; otherwise the chain sampler as in MrfIsingSample.
 */
MrfStatus	MrfPairwiseSample(const double *W, const double *theta, int p, int k,
							  int64_t n, int burn_in, int thin, MrfRng *rng,
							  const MrfEnv *env, uint8_t *out);

/* MrfPairwiseSample with options and the exact tree sampler, as MrfIsingSampleWith. */
MrfStatus	MrfPairwiseSampleWith(const double *W, const double *theta, int p, int k,
								  int64_t n, const MrfSampleOptions *opt, MrfRng *rng,
								  const MrfEnv *env, uint8_t *out, MrfSampler *used);

/* Most states (prod card[i]) that MrfCliquesSample enumerates. */
#define MRF_CLIQUES_EXACT_SAMPLE_STATES ((int64_t) 1 << 16)

/*
 * n samples (n x p, row-major) of the clique model with log-potentials
 * logpot (bp.h's layout), z_i < set->card[i]: exact when the states,
 * prod card[i], are at most MRF_CLIQUES_EXACT_SAMPLE_STATES; otherwise the
 * chain sampler as in MrfIsingSample.
 */
MrfStatus	MrfCliquesSample(const MrfCliqueSet *set, const double *logpot,
							 int64_t n, int burn_in, int thin, MrfRng *rng,
							 const MrfEnv *env, MrfCode *out);

/*
 * MrfCliquesSample with options, and the exact tree sampler between
 * enumeration and the chains: a model of more states whose junction tree fits
 * opt->max_tree_cells (MST's trees, AIM's and known-structure models) is
 * sampled exactly (MrfBpSample).  *used (may be NULL) gets the sampler.
 */
MrfStatus	MrfCliquesSampleWith(const MrfCliqueSet *set, const double *logpot,
								 int64_t n, const MrfSampleOptions *opt,
								 MrfRng *rng, const MrfEnv *env, MrfCode *out,
								 MrfSampler *used);

#endif
