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
 * Exact marginal of vars: read off a clique's marginal when one holds them,
 * else by elimination on the calibrated junction tree (MrfBpSetMarginal).
 */
MrfStatus
MrfSubsetMarginal(const MrfCliqueSet *set, const double *logpot,
				  const double *cmarg, int size, const int *vars,
				  const MrfBpOptions *bp, const MrfEnv *env, double *out)
{
	MrfBpOptions o;
	MrfBp	   *engine = NULL;
	double	   *marg = NULL;
	MrfStatus	status;
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
	o = ExactOptions(bp);
	status = MrfBpBuild(set, &o, env, &engine);
	if (status != MRF_OK)
		return status;
	marg = MrfAlloc(env, sizeof(double) * (size_t) set->cells);
	if (marg == NULL)
		status = MRF_ENOMEM;
	else
		status = MrfBpMarginals(engine, logpot, marg, NULL);
	if (status == MRF_OK)
		status = MrfBpSetMarginal(engine, size, vars, 0, out, NULL);
	MrfFree(env, marg);
	MrfBpFree(engine);
	return status;
}

/* Every set's marginal from one pass over all states (log weights kept). */
MrfStatus
MrfSubsetMarginalsEnumerate(const MrfCliqueSet *set, const double *logpot,
							int nsets, const int *sizes, const int *const *vars,
							const int64_t *offset, int64_t max_states,
							const MrfEnv *env, double *out)
{
	int64_t		states = MrfCliqueSetStates(set, max_states);
	double	   *logw;
	MrfCode    *z;
	double		mx = -INFINITY;
	double		total = 0.0;
	int64_t		st;
	int			s;
	int64_t		step_cost = 1;
	int64_t		work = 0;

	if (states < 0)
		return MRF_EINVAL;
	logw = MrfAlloc(env, sizeof(double) * (size_t) states);
	z = MrfAlloc(env, sizeof(MrfCode) * (size_t) set->p);
	if (logw == NULL || z == NULL)
	{
		MrfFree(env, logw);
		MrfFree(env, z);
		return MRF_ENOMEM;
	}
	/* the states in MrfCliquesNextStateAlphabets' order, from all zeros */
	for (st = 0; st < states; st++)
	{
		logw[st] = MrfCliquesScore(set, logpot, z);
		if (logw[st] > mx)
			mx = logw[st];
		MrfCliquesNextStateAlphabets(z, set->p, set->card);
		if ((st & 4095) == 0)
			MrfPoll(env, st, states);
	}
	memset(out, 0, sizeof(double) * (size_t) offset[nsets]);
	memset(z, 0, sizeof(MrfCode) * (size_t) set->p);
	/* a state costs a step per variable of every set: poll every 2^22 steps */
	for (s = 0; s < nsets; s++)
		step_cost += sizes[s];
	for (st = 0; st < states; st++)
	{
		double		w = exp(logw[st] - mx);

		total += w;
		for (s = 0; s < nsets; s++)
		{
			int64_t		idx = 0;
			int			j;

			for (j = 0; j < sizes[s]; j++)
				idx = idx * set->card[vars[s][j]] + z[vars[s][j]];
			out[offset[s] + idx] += w;
		}
		MrfCliquesNextStateAlphabets(z, set->p, set->card);
		work += step_cost;
		if (work >= ((int64_t) 1 << 22))
		{
			MrfPoll(env, st, states);
			work = 0;
		}
	}
	for (st = 0; st < offset[nsets]; st++)
		out[st] /= total;
	MrfFree(env, logw);
	MrfFree(env, z);
	return MRF_OK;
}

/* counts[index of the row's values of vars] += 1 for each row. */
MrfStatus
MrfSubsetCountAdd(const MrfCode *rows, int64_t n, int p, const int *card,
				  int size, const int *vars, int64_t *counts)
{
	int64_t		r;
	int			j;

	for (r = 0; r < n; r++)
	{
		const MrfCode *z = rows + r * p;
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

/*
 * Builds the set of p singletons followed by the pairs (i, j) for which
 * pair(ctx, i, j) is true, each variable with card[i] values, and zeroed
 * tables for it.
 */
static MrfStatus
SingletonsAndPairs(int p, const int *card, int (*pair) (const void *ctx, int i, int j),
				   const void *ctx, const MrfEnv *env, MrfCliqueSet **set,
				   double **logpot)
{
	int			npairs = 0;
	int		   *start;
	int		   *var;
	int			c;
	int			i;
	int			j;
	MrfStatus	status;

	for (i = 0; i < p; i++)
		for (j = i + 1; j < p; j++)
			npairs += pair(ctx, i, j);
	start = MrfAlloc(env, sizeof(int) * ((size_t) p + npairs + 1));
	var = MrfAlloc(env, sizeof(int) * ((size_t) p + 2 * (size_t) npairs));
	if (start == NULL || var == NULL)
	{
		MrfFree(env, start);
		MrfFree(env, var);
		return MRF_ENOMEM;
	}
	for (c = 0; c < p; c++)
	{
		start[c] = c;
		var[c] = c;
	}
	for (i = 0; i < p; i++)
		for (j = i + 1; j < p; j++)
			if (pair(ctx, i, j))
			{
				var[p + 2 * (c - p)] = i;
				var[p + 2 * (c - p) + 1] = j;
				start[c] = p + 2 * (c - p);
				c++;
			}
	start[c] = p + 2 * npairs;
	status = MrfCliqueSetBuildAlphabets(p, card, p + npairs, start, var, 0, env, set);
	MrfFree(env, start);
	MrfFree(env, var);
	if (status != MRF_OK)
		return status;
	*logpot = MrfAlloc(env, sizeof(double) * (size_t) (*set)->cells);
	if (*logpot == NULL)
	{
		/* no half-built model: the caller sees NULL outputs on any failure */
		MrfCliqueSetFree(env, *set);
		*set = NULL;
		return MRF_ENOMEM;
	}
	return MRF_OK;
}

typedef struct IsingCtx
{
	const double *A;
	int			p;
} IsingCtx;

/* S_ij = (A_ij + A_ji) / 2. */
static double
IsingS(const IsingCtx *x, int i, int j)
{
	return 0.5 * (x->A[(size_t) i * x->p + j] + x->A[(size_t) j * x->p + i]);
}

/* Whether the Ising model couples i and j. */
static int
IsingPair(const void *ctx, int i, int j)
{
	return IsingS(ctx, i, j) != 0.0;
}

/* Singletons (-theta_i, theta_i), then S_ij z_i z_j per coupled pair. */
MrfStatus
MrfIsingAsCliques(const double *A, const double *theta, int p,
				  const MrfEnv *env, MrfCliqueSet **set, double **logpot)
{
	IsingCtx	x = {A, p};
	int		   *card = MrfAlloc(env, sizeof(int) * (size_t) (p > 0 ? p : 1));
	MrfStatus	status;
	int			c;

	*set = NULL;
	*logpot = NULL;
	if (card == NULL)
		return MRF_ENOMEM;
	for (c = 0; c < p; c++)
		card[c] = 2;
	status = SingletonsAndPairs(p, card, IsingPair, &x, env, set, logpot);
	MrfFree(env, card);
	if (status != MRF_OK)
		return status;
	for (c = 0; c < (*set)->m; c++)
	{
		double	   *t = *logpot + (*set)->offset[c];

		if (c < p)
		{
			t[0] = -theta[c];
			t[1] = theta[c];
		}
		else
		{
			double		s = IsingS(&x, (*set)->var[(*set)->start[c]],
								   (*set)->var[(*set)->start[c] + 1]);

			/* codes (a, b), spins 2a - 1 and 2b - 1 */
			t[0] = s;
			t[1] = -s;
			t[2] = -s;
			t[3] = s;
		}
	}
	return MRF_OK;
}

typedef struct PairwiseCtx
{
	const double *W;
	int			p;
	int			k;
	const int  *card;
} PairwiseCtx;

/* (W_ij(a, b) + W_ji(b, a)) / 2 in pairwise.h's layout. */
static double
PairwiseWbar(const PairwiseCtx *x, int i, int j, int a, int b)
{
	size_t		p = (size_t) x->p;
	size_t		k = (size_t) x->k;

	return 0.5 * (x->W[((i * p + j) * k + a) * k + b] + x->W[((j * p + i) * k + b) * k + a]);
}

/* Whether block (i, j) has a nonzero cell within the alphabets. */
static int
PairwisePair(const void *ctx, int i, int j)
{
	const PairwiseCtx *x = ctx;
	int			a;
	int			b;

	for (a = 0; a < x->card[i]; a++)
		for (b = 0; b < x->card[j]; b++)
			if (PairwiseWbar(x, i, j, a, b) != 0.0)
				return 1;
	return 0;
}

/* Singletons theta_i(a), then the symmetrised block of each coupled pair. */
MrfStatus
MrfPairwiseAsCliques(const double *W, const double *theta, int p, int k,
					 const int *card, const MrfEnv *env, MrfCliqueSet **set,
					 double **logpot)
{
	PairwiseCtx x = {W, p, k, card};
	MrfStatus	status;
	int			c;
	int			a;
	int			b;

	*set = NULL;
	*logpot = NULL;
	for (c = 0; c < p; c++)
		if (card[c] < 2 || card[c] > k)
			return MRF_EINVAL;
	status = SingletonsAndPairs(p, card, PairwisePair, &x, env, set, logpot);
	if (status != MRF_OK)
		return status;
	for (c = 0; c < (*set)->m; c++)
	{
		double	   *t = *logpot + (*set)->offset[c];

		if (c < p)
			for (a = 0; a < card[c]; a++)
				t[a] = theta[(size_t) c * k + a];
		else
		{
			int			i = (*set)->var[(*set)->start[c]];
			int			j = (*set)->var[(*set)->start[c] + 1];

			for (a = 0; a < card[i]; a++)
				for (b = 0; b < card[j]; b++)
					t[a * card[j] + b] = PairwiseWbar(&x, i, j, a, b);
		}
	}
	return MRF_OK;
}
