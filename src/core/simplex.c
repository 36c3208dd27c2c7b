/*
 * simplex.c - projection onto the probability simplex by sorting (Duchi et
 * al. 2008, Figure 1): with u the entries in decreasing order, the projection
 * is max(v - tau, 0) where tau = (sum_{j <= r} u_j - 1) / r and r is the
 * largest index with u_r > (sum_{j <= r} u_j - 1) / r.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "simplex.h"

/* Descending order for qsort; the order of equal values does not matter. */
static int
CompareDescending(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x < y) - (x > y);
}

/*
 * The sort costs O(len log len); the tables projected here are small (k^|C|
 * cells), so the expected-linear pivot variant of the paper is not worth it.
 */
MrfStatus
MrfSimplexProject(const double *v, int64_t len, double *out, const MrfEnv *env)
{
	double	   *u;
	double		cum = 0.0;
	double		tau = 0.0;
	int64_t		j;

	if (len < 1)
		return MRF_EINVAL;
	for (j = 0; j < len; j++)
		if (!isfinite(v[j]))
			return MRF_EINVAL;
	u = MrfAlloc(env, sizeof(double) * (size_t) len);
	if (u == NULL)
		return MRF_ENOMEM;
	memcpy(u, v, sizeof(double) * (size_t) len);
	qsort(u, (size_t) len, sizeof(double), CompareDescending);

	/*
	 * The condition holds for j = 1 and, once false, stays false (u is
	 * decreasing), so the last index where it holds fixes tau.
	 */
	for (j = 0; j < len; j++)
	{
		double		t;

		cum += u[j];
		t = (cum - 1.0) / (double) (j + 1);
		if (u[j] > t)
			tau = t;
		else
			break;
	}
	MrfFree(env, u);
	for (j = 0; j < len; j++)
	{
		double		w = v[j] - tau;

		out[j] = w > 0.0 ? w : 0.0;
	}
	return MRF_OK;
}
