/*
 * simplex.h - Euclidean projection onto the probability simplex (Duchi,
 * Shalev-Shwartz, Singer, Chandra, "Efficient Projections onto the l1-Ball for
 * Learning in High Dimensions", ICML 2008, Figure 1).
 */
#ifndef MRF_SIMPLEX_H
#define MRF_SIMPLEX_H

#include <stdint.h>

#include "env.h"

/*
 * out = argmin ||out - v||_2 subject to out >= 0, sum(out) = 1, for len >= 1
 * finite values (out may alias v).  MRF_EINVAL on len < 1 or a non-finite
 * entry, MRF_ENOMEM if the sort buffer cannot be allocated.
 */
MrfStatus	MrfSimplexProject(const double *v, int64_t len, double *out,
							  const MrfEnv *env);

#endif
