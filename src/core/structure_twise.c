/*
 * structure_twise.c - the binary t-wise block learner of structure
 * learning: node regressions on the monomials of order below t on one
 * block, the maximal monomials read off at eta / 2 (privacy.md 7).
 * Non-private: structure.c's stable mode is what makes the release private.
 */
#include <math.h>
#include <string.h>

#include "logreg.h"
#include "rows.h"
#include "sizes.h"
#include "structure_twise.h"
#include "twise.h"

/* X (n x d), the masks, p node weights, the sets' averages, the solver. */
static size_t
TwiseBlockWorkspace(const void *arg, int64_t nrows)
{
	const MrfTwiseBlockOptions *opt = arg;
	int64_t		d = MrfSubsetCount(opt->p, opt->t - 1);
	int64_t		c = MrfSubsetCount(opt->p, opt->t);
	size_t		p = (size_t) opt->p;
	size_t		total = 0;

	if (d < 1 || c < 1 || d > 0x7fffffff)
		return SIZE_MAX;
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul((size_t) nrows, (size_t) d + p + 1),
											   sizeof(double)));
	total = MrfSizeAdd(total, MrfSizeMul(p, (size_t) d + sizeof(double *)));
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul(p, (size_t) d), sizeof(double)));
	total = MrfSizeAdd(total, MrfSizeMul((size_t) c, 2 * sizeof(double) + 1));
	total = MrfSizeAdd(total, MrfLogregBatchBytes(nrows, (int) d, opt->p));
	return total;
}

/* 1 if the sorted set a (size ka) is a subset of the sorted set b (size kb). */
static int
SortedSubset(const int *a, int ka, const int *b, int kb)
{
	int			x = 0;
	int			y;

	for (y = 0; y < kb && x < ka; y++)
		if (b[y] == a[x])
			x++;
	return x == ka;
}

/*
 * Node regressions on the monomial design, radius 2 lambda (the width
 * bound: ||w_i||_1 = 2 ||d_i h||_1); the estimate of c_I averages w_i[I - i]
 * / 2 over i in I; kept sets of size 2..t, then only the maximal ones.
 */
MrfStatus
MrfTwiseBlockLearn(const void *arg, const void *rows, int64_t nrows,
				   const MrfEnv *env, MrfStructure *out)
{
	const MrfTwiseBlockOptions *opt = arg;
	double	   *base = NULL;
	double	   *x = NULL;
	uint8_t    *allowed = NULL;
	const double **y = NULL;
	double	   *w = NULL;
	double	   *sum = NULL;
	uint8_t    *kept = NULL;
	MrfStatus	st = MRF_OK;
	int64_t		d;
	int64_t		ncoef;
	int64_t		col;
	int			vars[MRF_TWISE_MAX_ORDER + 1];
	int			sub[MRF_TWISE_MAX_ORDER + 1];
	int			size;
	int			p;
	int			t;
	int			i;

	if (opt == NULL || rows == NULL || env == NULL || out == NULL || nrows < 1 ||
		nrows > (int64_t) 0x7fffffff)
		return MRF_EINVAL;
	p = opt->p;
	t = opt->t;
	if (p < 2 || t < 2 || t > p || t > MRF_TWISE_MAX_ORDER || out->p != p ||
		isnan(MrfStructureBlockRadius(opt->lambda, 1)) ||
		!isfinite(opt->eta) || opt->eta <= 0.0)
		return MRF_EINVAL;
	d = MrfSubsetCount(p, t - 1);
	ncoef = MrfSubsetCount(p, t);
	if (d < 1 || ncoef < 1 || d > 0x7fffffff / p)
		return MRF_EINVAL;

	base = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) nrows, (size_t) p + 1), sizeof(double)));
	x = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) nrows, (size_t) d), sizeof(double)));
	allowed = MrfAlloc(env, MrfSizeMul((size_t) p, (size_t) d));
	y = MrfAlloc(env, MrfSizeMul((size_t) p, sizeof(double *)));
	w = MrfAlloc(env, MrfSizeMul(MrfSizeMul((size_t) p, (size_t) d), sizeof(double)));
	sum = MrfAlloc(env, MrfSizeMul((size_t) ncoef, sizeof(double)));
	kept = MrfAlloc(env, (size_t) ncoef);
	if (base == NULL || x == NULL || allowed == NULL || y == NULL || w == NULL ||
		sum == NULL || kept == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}

	/* the design: column index(S) = prod_{j in S} z_j, in twise.h's order */
	MrfBitsToColumnsDouble(rows, nrows, p, base);
	size = 0;
	col = 0;
	do
	{
		double	   *xc = x + (size_t) col * (size_t) nrows;
		int64_t		m;
		int			s;

		for (m = 0; m < nrows; m++)
			xc[m] = 1.0;
		for (s = 0; s < size; s++)
		{
			const double *zc = base + (size_t) vars[s] * (size_t) nrows;

			for (m = 0; m < nrows; m++)
				xc[m] *= zc[m];
		}
		for (i = 0; i < p; i++)
		{
			int			has = 0;

			for (s = 0; s < size; s++)
				has |= vars[s] == i;
			allowed[(size_t) i * d + col] = (uint8_t) !has;
		}
		col++;
	} while (MrfSubsetNext(p, t - 1, vars, &size));
	for (i = 0; i < p; i++)
		y[i] = x + (size_t) (1 + i) * (size_t) nrows;	/* the column of {i} */

	st = MrfLogregBatch(x, nrows, (int) d, p, y, allowed, 2.0 * opt->lambda,
						opt->tolerance, opt->max_iterations, env, w, opt->stats);
	if (st != MRF_OK)
		goto done;

	/* c_I estimates: node i's weight of S gives I = S + i, averaged over I's members */
	memset(sum, 0, sizeof(double) * (size_t) ncoef);
	memset(kept, 0, (size_t) ncoef);
	for (i = 0; i < p; i++)
	{
		size = 0;
		col = 0;
		do
		{
			double		wi = w[(size_t) i * d + col];

			if (size >= 1 && wi != 0.0 && allowed[(size_t) i * d + col])
			{
				int			s;
				int			k = 0;
				int64_t		idx;

				for (s = 0; s < size; s++)
				{
					if (k == s && vars[s] > i)
						sub[k++] = i;
					sub[k++] = vars[s];
				}
				if (k == size)
					sub[k++] = i;
				idx = MrfSubsetIndex(p, sub, size + 1);
				if (idx > 0)
					sum[idx] += wi / 2.0;
			}
			col++;
		} while (MrfSubsetNext(p, t - 1, vars, &size));
	}
	size = 0;
	col = 0;
	while (MrfSubsetNext(p, t, vars, &size))
	{
		col++;
		if (size >= 2 && fabs(sum[col] / (double) size) >= opt->eta / 2.0)
			kept[col] = 1;
	}
	/* maximal kept sets: no kept strict superset (sets are tiny, t <= 16) */
	size = 0;
	col = 0;
	while (MrfSubsetNext(p, t, vars, &size))
	{
		int64_t		col2 = 0;
		int			size2 = 0;
		int			maximal = 1;

		col++;
		if (!kept[col])
			continue;
		while (maximal && MrfSubsetNext(p, t, sub, &size2))
		{
			col2++;
			if (size2 > size && kept[col2] && SortedSubset(vars, size, sub, size2))
				maximal = 0;
		}
		if (maximal)
		{
			int32_t		item[MRF_TWISE_MAX_ORDER];
			int			s;

			for (s = 0; s < size; s++)
				item[s] = vars[s];
			st = MrfStructureAdd(out, env, size, item);
			if (st != MRF_OK)
				goto done;
		}
	}
	st = MrfStructureCanonicalize(out, env);

done:
	MrfFree(env, kept);
	MrfFree(env, sum);
	MrfFree(env, w);
	MrfFree(env, y);
	MrfFree(env, allowed);
	MrfFree(env, x);
	MrfFree(env, base);
	return st;
}

/* Packed binary rows, as the Ising block learner. */
void
MrfTwiseBlockLearner(const MrfTwiseBlockOptions *opt, MrfBlockLearner *learner)
{
	memset(learner, 0, sizeof(*learner));
	learner->learn = MrfTwiseBlockLearn;
	learner->arg = opt;
	learner->p = opt->p;
	learner->row_bytes = sizeof(uint64_t) * (size_t) MrfBitWords(opt->p);
	learner->workspace = TwiseBlockWorkspace;
	learner->min_rows = 2 * MrfTwiseFeatureCount(opt->p, opt->t);
}
