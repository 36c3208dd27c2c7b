/*
 * dirichlet.c - Gamma variates by Marsaglia and Tsang, "A Simple Method for
 * Generating Gamma Variables" (ACM TOMS 2000), and Dirichlet vectors as
 * normalised Gamma variates.  Uniforms come from MrfRngUniform (never 0 or
 * 1), so every logarithm below is finite.
 */
#include <math.h>

#include "dirichlet.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* One of the two Box-Muller outputs; the other is dropped for simplicity. */
double
MrfRngNormal(MrfRng *rng)
{
	double		u1 = MrfRngUniform(rng);
	double		u2 = MrfRngUniform(rng);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/*
 * Marsaglia-Tsang for shape >= 1: with d = shape - 1/3 and c = 1/sqrt(9d),
 * accept d v for v = (1 + c x)^3 when log u < x^2/2 + d - d v + d log v.
 * Shape < 1 uses Gamma(shape) = Gamma(shape + 1) U^(1/shape) (the paper's
 * boost), in the log domain so that tiny shapes do not underflow to 0 early.
 */
double
MrfRngGamma(MrfRng *rng, double shape)
{
	double		d;
	double		c;

	if (!(shape > 0.0) || !isfinite(shape))
		return NAN;
	if (shape < 1.0)
	{
		double		g = MrfRngGamma(rng, shape + 1.0);

		return exp(log(g) + log(MrfRngUniform(rng)) / shape);
	}
	d = shape - 1.0 / 3.0;
	c = 1.0 / sqrt(9.0 * d);
	for (;;)
	{
		double		x = MrfRngNormal(rng);
		double		v = 1.0 + c * x;
		double		u;

		if (v <= 0.0)
			continue;
		v = v * v * v;
		u = MrfRngUniform(rng);
		if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
			return d * v;
	}
}

/* Normalised independent Gamma(alpha) draws are Dirichlet(alpha). */
int
MrfRngDirichlet(MrfRng *rng, double alpha, int64_t len, double *out)
{
	double		sum = 0.0;
	int64_t		i;

	if (len < 1 || !(alpha > 0.0) || !isfinite(alpha))
		return -1;
	for (i = 0; i < len; i++)
	{
		out[i] = MrfRngGamma(rng, alpha);
		sum += out[i];
	}
	for (i = 0; i < len; i++)
		out[i] /= sum;
	return 0;
}
