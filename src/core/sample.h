/*
 * sample.h - drawing samples from a model of every kind (Ising, t-wise,
 * pairwise, cliques): exact enumeration for few states, one Gibbs chain
 * otherwise.
 */
#ifndef MRF_SAMPLE_H
#define MRF_SAMPLE_H

#include <stdint.h>

#include "bp.h"
#include "env.h"
#include "noise.h"

/* Largest p sampled exactly by enumerating all 2^p states. */
#define MRF_EXACT_MAX_P 16

/*
 * Draws n samples of the Ising model (A p x p row-major, theta p) into out
 * (n x p, row-major, values -1/+1).  p <= MRF_EXACT_MAX_P enumerates exactly;
 * otherwise one Gibbs chain runs burn_in sweeps, then keeps one state every
 * thin sweeps.  A is read symmetrised: (A_ij + A_ji) / 2.
 */
MrfStatus	MrfIsingSample(const double *A, const double *theta, int p, int64_t n,
						   int burn_in, int thin, MrfRng *rng, const MrfEnv *env,
						   int8_t *out);

/*
 * Draws n samples of the binary t-wise model P(z) proportional to
 * exp(sum_J coef[index(J)] prod_{j in J} z_j) into out (n x p, row-major,
 * values -1/+1), coef holding MrfTwiseCoefCount(p, t) doubles in the order
 * of twise.h (entry 0, the constant, is ignored).  1 <= t <= p.
 * p <= MRF_EXACT_MAX_P enumerates exactly; otherwise one Gibbs chain as in
 * MrfIsingSample, where the conditional of z_i uses every monomial that
 * contains i.
 */
MrfStatus	MrfTwiseSample(const double *coef, int p, int t, int64_t n,
						   int burn_in, int thin, MrfRng *rng, const MrfEnv *env,
						   int8_t *out);

/* Largest number of states k^p sampled exactly by enumeration (2^16). */
#define MRF_PAIRWISE_EXACT_MAX_STATES 65536

/*
 * Draws n samples of the pairwise k-ary model P(z) proportional to
 * exp(sum_{i<j} W_ij(z_i, z_j) + sum_i theta_i(z_i)) into out (n x p,
 * row-major, values 0..k-1), W and theta laid out as in pairwise.h.  W is
 * read symmetrised, (W_ij(a, b) + W_ji(b, a)) / 2, with diagonal blocks
 * ignored; 2 <= k <= 255.  k^p <= MRF_PAIRWISE_EXACT_MAX_STATES enumerates
 * exactly; otherwise one Gibbs chain as in MrfIsingSample (burn_in sweeps,
 * then one state every thin sweeps).
 */
MrfStatus	MrfPairwiseSample(const double *W, const double *theta, int p, int k,
							  int64_t n, int burn_in, int thin, MrfRng *rng,
							  const MrfEnv *env, uint8_t *out);

/* Most states (prod card[i]) that MrfCliquesSample draws exactly; Gibbs above. */
#define MRF_CLIQUES_EXACT_SAMPLE_STATES ((int64_t) 1 << 16)

/*
 * n samples (n x p, row-major) of the clique model with log-potentials
 * logpot (bp.h's layout), z_i < set->card[i]: exact when the states,
 * prod card[i], are at most MRF_CLIQUES_EXACT_SAMPLE_STATES; otherwise one
 * Gibbs chain from a uniform start, burn_in sweeps, then one sample every
 * thin sweeps.
 */
MrfStatus	MrfCliquesSample(const MrfCliqueSet *set, const double *logpot,
							 int64_t n, int burn_in, int thin, MrfRng *rng,
							 const MrfEnv *env, uint8_t *out);

#endif
