/*
 * workload.h - the marginals of arbitrary variable sets under a clique model
 * (exact inference) and their L1 distance to a table's empirical marginals:
 * the workload error of mrf_marginal_error (issue 12 item 3).
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
 * set is added to the cliques with a zero potential and the junction tree
 * of the whole is calibrated (a triangulation when the cliques with it are
 * not decomposable).  MRF_EINVAL for invalid vars, or when that junction
 * tree would exceed bp->max_exact_cells (bp may be NULL: the default).
 */
MrfStatus	MrfSubsetMarginal(const MrfCliqueSet *set, const double *logpot,
							  const double *cmarg, int size, const int *vars,
							  const MrfBpOptions *bp, const MrfEnv *env,
							  double *out);

/*
 * Adds the table of vars (ascending) over n rows (uint8_t, n x p,
 * row-major, z_i < card[i]) to counts; MRF_EINVAL if a value is out of
 * range (counts may then be partly updated).
 */
MrfStatus	MrfSubsetCountAdd(const uint8_t *rows, int64_t n, int p,
							  const int *card, int size, const int *vars,
							  int64_t *counts);

/* sum_x |marg[x] - counts[x] / n| over cells cells (n > 0). */
double		MrfMarginalL1(const double *marg, const int64_t *counts, int64_t n,
						  int64_t cells);

#endif
