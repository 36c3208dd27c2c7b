/*
 * workload.h - the marginals of arbitrary variable sets under a clique model
 * (exact inference) and their L1 distance to a table's empirical marginals:
 * the workload error of mrf_marginal_error.
 *
 * Non-private: the counts come from the rows themselves.  The L1 error of a
 * set S is sum_x |mu_S(x) - N_S(x) / n| over the cells x of S's table, mu_S
 * the model's marginal and N_S the table's counts: twice the total
 * variation distance, between 0 and 2.  Tables are row-major over S's
 * variables in ascending order, each digit in its variable's own base (the
 * clique layout of bp.h).
 */
#ifndef MRF_WORKLOAD_H
#define MRF_WORKLOAD_H

#include <stdint.h>

#include "bp.h"
#include "env.h"

/*
 * Exact marginal of the size variables vars (ascending, distinct, in
 * 0..set->p - 1) under the model (set, logpot) into out (prod card[vars[i]]
 * cells).  cmarg (set->cells, may be NULL) is the model's clique marginals
 * from exact inference: a set inside a clique is read off them.  Any other
 * set: the model's junction tree is calibrated and the set's marginal
 * eliminated from it (MrfBpSetMarginal; for many sets, build the engine
 * once and call that directly).  MRF_EINVAL for invalid vars, or when the
 * model's junction tree or the set's tables would exceed
 * bp->max_exact_cells (bp may be NULL: the default).
 */
MrfStatus	MrfSubsetMarginal(const MrfCliqueSet *set, const double *logpot,
							  const double *cmarg, int size, const int *vars,
							  const MrfBpOptions *bp, const MrfEnv *env,
							  double *out);

/*
 * Exact marginals of nsets sets at once by enumerating every state of the
 * model (prod card[i], at most max_states, else MRF_EINVAL): set s has
 * sizes[s] ascending variables vars[s] and its table at out + offset[s].
 * One pass over the states: cheaper than a junction tree per set when the
 * model is small and dense (an Ising model of 17 variables).
 */
MrfStatus	MrfSubsetMarginalsEnumerate(const MrfCliqueSet *set, const double *logpot,
										int nsets, const int *sizes,
										const int *const *vars, const int64_t *offset,
										int64_t max_states, const MrfEnv *env,
										double *out);

/*
 * Adds the table of vars (ascending) over n rows (MrfCode, n x p,
 * row-major, z_i < card[i]) to counts; MRF_EINVAL if a value is out of
 * range (counts may then be partly updated).
 */
MrfStatus	MrfSubsetCountAdd(const MrfCode *rows, int64_t n, int p,
							  const int *card, int size, const int *vars,
							  int64_t *counts);

/*
 * The clique form of an Ising model P(z) proportional to exp(sum_i theta_i
 * z_i + sum_{i<j} S_ij z_i z_j), S = (A + A^T) / 2 (A p x p row-major, as
 * the sampler reads it), spins coded 0 for -1 and 1 for +1: a singleton
 * clique per variable (-theta_i, theta_i), then a pair per nonzero S_ij
 * (S_ij z_i z_j).  *set and *logpot are allocated from env.
 */
MrfStatus	MrfIsingAsCliques(const double *A, const double *theta, int p,
							  const MrfEnv *env, MrfCliqueSet **set,
							  double **logpot);

/*
 * The clique form of a pairwise k-ary model P(z) proportional to
 * exp(sum_{i<j} W_ij(z_i, z_j) + sum_i theta_i(z_i)) (pairwise.h's layout,
 * W read symmetrised as the sampler does, (W_ij(a, b) + W_ji(b, a)) / 2),
 * variable i taking card[i] <= k values: a singleton per variable, then a
 * pair per block with a nonzero cell.
 */
MrfStatus	MrfPairwiseAsCliques(const double *W, const double *theta, int p,
								 int k, const int *card, const MrfEnv *env,
								 MrfCliqueSet **set, double **logpot);

/* sum_x |marg[x] - counts[x] / n| over cells cells (n > 0). */
double		MrfMarginalL1(const double *marg, const int64_t *counts, int64_t n,
						  int64_t cells);

#endif
