/*
 * dirichlet.h - Gamma and Dirichlet draws on top of MrfRngUniform, for
 * synthetic models (random clique potentials in tests and benchmarks).
 * They release nothing private, so floating point is fine here.
 */
#ifndef MRF_DIRICHLET_H
#define MRF_DIRICHLET_H

#include <stdint.h>

#include "noise.h"

/* Standard normal by the Box-Muller transform of two uniforms. */
double		MrfRngNormal(MrfRng *rng);

/* Gamma(shape, 1), shape > 0 (Marsaglia-Tsang 2000); NaN for bad shape. */
double		MrfRngGamma(MrfRng *rng, double shape);

/* out ~ Dirichlet(alpha, ..., alpha) over len >= 1 cells; -1 on bad input. */
int			MrfRngDirichlet(MrfRng *rng, double alpha, int64_t len, double *out);

#endif
