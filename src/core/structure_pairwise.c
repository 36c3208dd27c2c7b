/*
 * structure_pairwise.c - the pairwise k-ary block learner of structure
 * learning: the one-vs-one node regressions of Wu, Sanghavi and Dimakis on
 * one block, the edges read off at eta / 2 (privacy.md 7).  Non-private:
 * structure.c's stable mode is what makes the release private.
 */
#include <math.h>
#include <string.h>

#include "logreg.h"
#include "pairwise.h"
#include "sizes.h"
#include "structure_pairwise.h"

/*
 * The design of a block's problem (pairwise.h's per-variable layout; with
 * one alphabet it is pairwise.c's numbering): variable j's value b is
 * column col[j] + b, the constant col[p]; node i's pair (u, v) is
 * regression prob[i] + u (k_i - 1) + (v < u ? v : v - 1).
 */
typedef struct BlockLayout
{
	int		   *col;			/* p + 1 */
	int		   *prob;			/* p + 1 */
	int		   *kv;				/* p */
} BlockLayout;

/* Fills the layout (3 p + 2 ints at buf); 0 if the alphabets are invalid or the problem too large. */
static int
LayoutOf(const MrfPairwiseBlockOptions *opt, int *buf, BlockLayout *lay)
{
	int64_t		d = 0;
	int64_t		q = 0;
	int			top = 0;

	if (opt->p < 2 || opt->k < 2 || opt->k > MRF_PAIRWISE_MAX_K)
		return 0;
	lay->col = buf;
	lay->prob = buf + opt->p + 1;
	lay->kv = buf + 2 * (opt->p + 1);
	for (int i = 0; i < opt->p; i++)
	{
		int			ki = opt->kv != NULL ? opt->kv[i] : opt->k;

		if (ki < 2 || ki > opt->k)
			return 0;
		top = ki > top ? ki : top;
		lay->kv[i] = ki;
		lay->col[i] = (int) d;
		lay->prob[i] = (int) q;
		d += ki;
		q += (int64_t) ki * (ki - 1);
		if (d > 0x7fffffff || q > 0x7fffffff)
			return 0;
	}
	lay->col[opt->p] = (int) d;
	lay->prob[opt->p] = (int) q;
	return top == opt->k && q <= 0x7fffffff / (d + 1);
}

/* Regression (i, u, v) of the layout. */
static inline int
LayoutTask(const BlockLayout *lay, int i, int u, int v)
{
	return lay->prob[i] + u * (lay->kv[i] - 1) + (v < u ? v : v - 1);
}

/* X, the labels, masks, weights, W and theta, and the solver's memory. */
static size_t
PairwiseBlockWorkspace(const void *arg, int64_t nrows)
{
	const MrfPairwiseBlockOptions *opt = arg;
	size_t		p = (size_t) opt->p;
	size_t		k = (size_t) opt->k;
	size_t		d = p * k + 1;
	size_t		q = p * k * (k - 1);
	size_t		total = 0;

	if (opt->kv != NULL)
	{
		d = 1;
		q = 0;
		for (size_t i = 0; i < p; i++)
		{
			d += opt->kv[i];
			q += (size_t) opt->kv[i] * (opt->kv[i] - 1);
		}
	}
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul((size_t) nrows, d + q), sizeof(double)));
	total = MrfSizeAdd(total, MrfSizeMul(q, d + sizeof(double *)));
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul(q, d), sizeof(double)));
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul(p * p, k * k), sizeof(double)));
	total = MrfSizeAdd(total, MrfSizeMul(p * k, sizeof(double)));
	total = MrfSizeAdd(total, MrfSizeMul(3 * p + 2, sizeof(int)));
	total = MrfSizeAdd(total, MrfLogregBatchBytes(nrows, (int) d, (int) q));
	return total;
}

/*
 * The one-vs-one regressions of Wu, Sanghavi and Dimakis (2019, Section 4;
 * the non-private form of Zhang et al.'s Algorithm 3): on the rows with
 * z_i in {u, v}, P(z_i = u | z_i in {u, v}, z_-i) is exactly logistic in the
 * one-hot of z_-i, with weights W_ij(u, .) - W_ij(v, .), so every
 * regression is well specified.  The design and the radius 2 lambda k are
 * pairwise.c's, and MrfPairwiseRecover (no symmetrisation) gives the
 * centred W_ij from node i's side and W_ji from node j's; the edge test
 * averages the two as the Ising learner does.
 */
MrfStatus
MrfPairwiseBlockLearn(const void *arg, const void *rows, int64_t nrows,
					  const MrfEnv *env, MrfStructure *out)
{
	const MrfPairwiseBlockOptions *opt = arg;
	const uint8_t *z = rows;
	BlockLayout layout;
	const BlockLayout *lay = &layout;
	int		   *laybuf = NULL;
	double	   *x = NULL;
	double	   *ybuf = NULL;
	const double **y = NULL;
	uint8_t    *allowed = NULL;
	double	   *w = NULL;
	double	   *W = NULL;
	double	   *theta = NULL;
	MrfStatus	st = MRF_OK;
	int			p;
	int			k;
	int			d;
	int			q;
	int			i;
	int			j;
	int64_t		m;

	if (opt == NULL || rows == NULL || env == NULL || out == NULL || nrows < 1 ||
		nrows > (int64_t) 0x7fffffff)
		return MRF_EINVAL;
	p = opt->p;
	k = opt->k;
	if (p < 2 || k < 2 || k > MRF_PAIRWISE_MAX_K || out->p != p ||
		isnan(MrfStructureBlockRadius(opt->lambda, k)) ||
		!isfinite(opt->eta) || opt->eta <= 0.0)
		return MRF_EINVAL;
	laybuf = MrfAlloc(env, MrfSizeMul(3 * (size_t) p + 2, sizeof(int)));
	if (laybuf == NULL)
		return MRF_ENOMEM;
	if (!LayoutOf(opt, laybuf, &layout))
	{
		st = MRF_EINVAL;
		goto done;
	}
	d = lay->col[p] + 1;
	q = lay->prob[p];
	for (m = 0; m < nrows * p; m++)
		if (z[m] >= lay->kv[m % p])
		{
			st = MRF_EINVAL;	/* the caller checks the alphabets */
			goto done;
		}

	x = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) nrows, (size_t) d), sizeof(double)));
	ybuf = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) nrows, (size_t) q), sizeof(double)));
	y = MrfAlloc(env, MrfSizeMul((size_t) q, sizeof(double *)));
	allowed = MrfAlloc(env, MrfSizeMul((size_t) q, (size_t) d));
	w = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) q, (size_t) d), sizeof(double)));
	W = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) p * p, (size_t) k * k), sizeof(double)));
	theta = MrfAlloc(env, MrfSizeMul((size_t) p * k, sizeof(double)));
	if (x == NULL || ybuf == NULL || y == NULL || allowed == NULL || w == NULL ||
		W == NULL || theta == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}
	memset(x, 0, sizeof(double) * (size_t) nrows * d);
	memset(ybuf, 0, sizeof(double) * (size_t) nrows * q);
	for (m = 0; m < nrows; m++)
	{
		x[(size_t) (d - 1) * nrows + m] = 1.0;
		for (i = 0; i < p; i++)
		{
			int			a = z[(size_t) m * p + i];
			int			v;

			x[((size_t) lay->col[i] + a) * nrows + m] = 1.0;
			/* row m is the u of the pairs (a, v) and the v of (v, a) */
			for (v = 0; v < lay->kv[i]; v++)
			{
				if (v == a)
					continue;
				ybuf[(size_t) LayoutTask(lay, i, a, v) * nrows + m] = 1.0;
				ybuf[(size_t) LayoutTask(lay, i, v, a) * nrows + m] = -1.0;
			}
		}
	}
	for (i = 0; i < p; i++)
		for (j = lay->prob[i]; j < lay->prob[i + 1]; j++)
		{
			int			c;

			y[j] = ybuf + (size_t) j * nrows;
			for (c = 0; c < d; c++)
				allowed[(size_t) j * d + c] = (uint8_t) (c < lay->col[i] || c >= lay->col[i + 1]);
		}
	st = MrfLogregBatch(x, nrows, d, q, y, allowed, 2.0 * opt->lambda * k,
						opt->tolerance, opt->max_iterations, env, w, opt->stats);
	if (st != MRF_OK)
		goto done;
	st = opt->kv != NULL ? MrfPairwiseRecoverAlphabets(w, p, k, opt->kv, 0, env, W, theta) :
		MrfPairwiseRecover(w, p, k, 0, W, theta);
	if (st != MRF_OK)
		goto done;
	for (i = 0; i < p; i++)
		for (j = i + 1; j < p; j++)
		{
			double		best = 0.0;
			int			a;
			int			b;

			/* over the values each variable has (the other cells are 0) */
			for (a = 0; a < lay->kv[i]; a++)
				for (b = 0; b < lay->kv[j]; b++)
				{
					double		avg = 0.5 * (W[MrfPairwiseAt(p, k, i, j, a, b)] +
											 W[MrfPairwiseAt(p, k, j, i, b, a)]);

					best = fabs(avg) > best ? fabs(avg) : best;
				}
			if (best >= opt->eta / 2.0)
			{
				int32_t		vars[2];

				vars[0] = i;
				vars[1] = j;
				st = MrfStructureAdd(out, env, 2, vars);
				if (st != MRF_OK)
					goto done;
			}
		}
	st = MrfStructureCanonicalize(out, env);

done:
	MrfFree(env, theta);
	MrfFree(env, W);
	MrfFree(env, w);
	MrfFree(env, allowed);
	MrfFree(env, y);
	MrfFree(env, ybuf);
	MrfFree(env, x);
	MrfFree(env, laybuf);
	return st;
}

/* Byte rows: p bytes each (pairwise.h's layout). */
void
MrfPairwiseBlockLearner(const MrfPairwiseBlockOptions *opt, MrfBlockLearner *learner)
{
	memset(learner, 0, sizeof(*learner));
	learner->learn = MrfPairwiseBlockLearn;
	learner->arg = opt;
	learner->p = opt->p;
	learner->row_bytes = (size_t) opt->p;
	learner->workspace = PairwiseBlockWorkspace;
	/*
	 * a regression (u, v) sees about 2/k of the rows, over p k + 1 columns
	 * (sum_j k_j + 1 with per-variable alphabets; public either way)
	 */
	if (opt->kv == NULL)
		learner->min_rows = (int64_t) opt->k * ((int64_t) opt->p * opt->k + 1);
	else
	{
		int64_t		d = 1;

		for (int i = 0; i < opt->p; i++)
			d += opt->kv[i];
		learner->min_rows = (int64_t) opt->k * d;
	}
}

/* Shuffle, block, histogram, and a block graph of at most all p (p-1)/2 edges. */
size_t
MrfStructurePairwiseWorkspaceBytes(int p, int k, int64_t n, int m)
{
	return MrfStructurePairwiseWorkspaceBytesAlphabets(p, k, NULL, n, m);
}

/* The same with per-variable alphabets kv (NULL: every variable has k). */
size_t
MrfStructurePairwiseWorkspaceBytesAlphabets(int p, int k, const uint8_t *kv, int64_t n, int m)
{
	MrfPairwiseBlockOptions bopt;
	MrfBlockLearner learner;

	if (p < 2 || k < 2 || k > MRF_PAIRWISE_MAX_K || n < 0 || m < 1)
		return SIZE_MAX;
	memset(&bopt, 0, sizeof(bopt));
	bopt.p = p;
	bopt.k = k;
	bopt.kv = kv;
	MrfPairwiseBlockLearner(&bopt, &learner);
	return MrfStructureWorkspaceBytes(&learner, n, m,
									  3 * ((int64_t) p * (p - 1) / 2));
}
