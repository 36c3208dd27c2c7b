/*
 * workload.c - exact marginals of arbitrary variable sets of a clique model
 * and their L1 error against counts (workload.h).
 */
#include <math.h>
#include <string.h>

#include "bp.h"
#include "cliques.h"
#include "workload.h"

/* Whether vars (ascending) lie inside clique c of set. */
static int
InsideClique(const MrfCliqueSet *set, int c, int size, const int *vars)
{
	int			i = set->start[c];
	int			j;

	for (j = 0; j < size; j++)
	{
		while (i < set->start[c + 1] && set->var[i] < vars[j])
			i++;
		if (i == set->start[c + 1] || set->var[i] != vars[j])
			return 0;
	}
	return 1;
}

/* The caller's inference options (or the defaults), exact inference only. */
static MrfBpOptions
ExactOptions(const MrfBpOptions *bp)
{
	MrfBpOptions o;

	memset(&o, 0, sizeof(o));
	if (bp != NULL)
		o = *bp;
	o.mode = MRF_INFER_EXACT;
	return o;
}

/* Sums the table of clique c (marg, set's layout) onto vars, a subset of it. */
static MrfStatus
MarginaliseClique(const MrfCliqueSet *set, int c, const double *marg, int size,
				  const int *vars, const MrfEnv *env, double *out)
{
	int64_t		cells = set->offset[c + 1] - set->offset[c];
	int64_t		sub = MrfVarsCells(set->card, size, vars, INT64_MAX);
	int32_t    *map = MrfAlloc(env, sizeof(int32_t) * (size_t) cells);
	int64_t		x;

	if (map == NULL)
		return MRF_ENOMEM;
	MrfSubsetIndexMap(set->card, set->start[c + 1] - set->start[c],
					  set->var + set->start[c], size, vars, map);
	memset(out, 0, sizeof(double) * (size_t) sub);
	for (x = 0; x < cells; x++)
		out[map[x]] += marg[set->offset[c] + x];
	MrfFree(env, map);
	return MRF_OK;
}

/*
 * The marginal of vars when no clique holds them: the cliques plus vars with
 * a zero table (the same distribution), calibrated exactly, vars' table read.
 */
static MrfStatus
AugmentedMarginal(const MrfCliqueSet *set, const double *logpot, int size,
				  const int *vars, const MrfBpOptions *bp, const MrfEnv *env,
				  double *out)
{
	int			m = set->m;
	int			s = set->start[m];
	int		   *start = MrfAlloc(env, sizeof(int) * ((size_t) m + 2));
	int		   *var = MrfAlloc(env, sizeof(int) * ((size_t) s + size));
	MrfCliqueSet *aug = NULL;
	double	   *lp = NULL;
	double	   *marg = NULL;
	MrfBpOptions o;
	MrfStatus	status;

	if (start == NULL || var == NULL)
	{
		status = MRF_ENOMEM;
		goto done;
	}
	memcpy(start, set->start, sizeof(int) * ((size_t) m + 1));
	start[m + 1] = s + size;
	memcpy(var, set->var, sizeof(int) * (size_t) s);
	memcpy(var + s, vars, sizeof(int) * (size_t) size);
	status = MrfCliqueSetBuildAlphabets(set->p, set->card, m + 1, start, var, 0, env, &aug);
	if (status != MRF_OK)
		goto done;
	lp = MrfAlloc(env, sizeof(double) * (size_t) aug->cells);
	marg = MrfAlloc(env, sizeof(double) * (size_t) aug->cells);
	if (lp == NULL || marg == NULL)
	{
		status = MRF_ENOMEM;
		goto done;
	}
	/* the first m tables keep their layout; the added one is zero (calloc) */
	memcpy(lp, logpot, sizeof(double) * (size_t) set->cells);
	o = ExactOptions(bp);
	status = MrfCliquesMarginals(aug, lp, &o, env, marg, NULL);
	if (status == MRF_OK)
		memcpy(out, marg + aug->offset[m],
			   sizeof(double) * (size_t) (aug->offset[m + 1] - aug->offset[m]));
done:
	MrfFree(env, marg);
	MrfFree(env, lp);
	if (aug != NULL)
		MrfCliqueSetFree(env, aug);
	MrfFree(env, var);
	MrfFree(env, start);
	return status;
}

/* Exact marginal of vars: read off a clique's marginal, else augmented. */
MrfStatus
MrfSubsetMarginal(const MrfCliqueSet *set, const double *logpot,
				  const double *cmarg, int size, const int *vars,
				  const MrfBpOptions *bp, const MrfEnv *env, double *out)
{
	int			c;
	int			j;

	if (set == NULL || size < 1 || size > set->p)
		return MRF_EINVAL;
	for (j = 0; j < size; j++)
		if (vars[j] < 0 || vars[j] >= set->p || (j > 0 && vars[j] <= vars[j - 1]))
			return MRF_EINVAL;
	if (cmarg != NULL)
		for (c = 0; c < set->m; c++)
			if (InsideClique(set, c, size, vars))
				return MarginaliseClique(set, c, cmarg, size, vars, env, out);
	for (c = 0; c < set->m; c++)
	{
		/* the same variable set as a clique: its table would be a duplicate */
		if (set->start[c + 1] - set->start[c] == size && InsideClique(set, c, size, vars))
		{
			MrfBpOptions o;
			double	   *marg = MrfAlloc(env, sizeof(double) * (size_t) set->cells);
			MrfStatus	status;

			if (marg == NULL)
				return MRF_ENOMEM;
			o = ExactOptions(bp);
			status = MrfCliquesMarginals(set, logpot, &o, env, marg, NULL);
			if (status == MRF_OK)
				memcpy(out, marg + set->offset[c],
					   sizeof(double) * (size_t) (set->offset[c + 1] - set->offset[c]));
			MrfFree(env, marg);
			return status;
		}
	}
	return AugmentedMarginal(set, logpot, size, vars, bp, env, out);
}

/* counts[index of the row's values of vars] += 1 for each row. */
MrfStatus
MrfSubsetCountAdd(const uint8_t *rows, int64_t n, int p, const int *card,
				  int size, const int *vars, int64_t *counts)
{
	int64_t		r;
	int			j;

	for (r = 0; r < n; r++)
	{
		const uint8_t *z = rows + r * p;
		int64_t		idx = 0;

		for (j = 0; j < size; j++)
		{
			if (z[vars[j]] >= card[vars[j]])
				return MRF_EINVAL;
			idx = idx * card[vars[j]] + z[vars[j]];
		}
		counts[idx]++;
	}
	return MRF_OK;
}

/* L1 distance between a normalised marginal and counts / n. */
double
MrfMarginalL1(const double *marg, const int64_t *counts, int64_t n, int64_t cells)
{
	double		l1 = 0.0;
	int64_t		x;

	for (x = 0; x < cells; x++)
		l1 += fabs(marg[x] - (double) counts[x] / (double) n);
	return l1;
}
