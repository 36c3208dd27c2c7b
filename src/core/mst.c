/*
 * mst.c - MST (mst.h; privacy.md 12); its measure, select and estimate
 * steps are estimate.c's.
 */
#include <math.h>
#include <string.h>

#include "cliques.h"
#include "mst.h"
#include "privacy.h"

/* See mst.h. */
int64_t
MrfMstOneWayCells(int p, const int *card)
{
	int64_t		cells = 0;

	for (int i = 0; i < p; i++)
		cells += card[i];
	return cells;
}

/* See mst.h. */
int64_t
MrfMstTwoWayCells(int p, const int *card, int64_t *pair_offset)
{
	int64_t		cells = 0;
	int64_t		e = 0;

	for (int i = 0; i < p; i++)
		for (int j = i + 1; j < p; j++)
		{
			if (pair_offset)
				pair_offset[e] = cells;
			e++;
			cells += (int64_t) card[i] * card[j];
		}
	if (pair_offset)
		pair_offset[e] = cells;
	return cells;
}

/*
 * See mst.h.  Row-outer, pair-inner: the tables of 20 variables of up to 6
 * values are about 60 kB of counters, which stay in the L2 cache, so each
 * row costs p (p-1)/2 increments and no second pass.
 */
MrfStatus
MrfMstCount(const MrfCode *rows, int64_t n, int p, const int *card,
			const MrfEnv *env, int64_t *one, int64_t *two)
{
	int64_t    *oneoff;
	int64_t    *pairoff;
	int64_t		npairs = (int64_t) p * (p - 1) / 2;
	int64_t		block;
	MrfStatus	status = MRF_OK;

	if (p < 1 || n < 0)
		return MRF_EINVAL;
	oneoff = MrfAlloc(env, sizeof(int64_t) * (p + 1));
	pairoff = MrfAlloc(env, sizeof(int64_t) * (npairs + 1));
	if (!oneoff || !pairoff)
	{
		status = MRF_ENOMEM;
		goto done;
	}
	oneoff[0] = 0;
	for (int i = 0; i < p; i++)
		oneoff[i + 1] = oneoff[i] + card[i];
	MrfMstTwoWayCells(p, card, pairoff);
	memset(one, 0, sizeof(int64_t) * oneoff[p]);
	if (two)
		memset(two, 0, sizeof(int64_t) * pairoff[npairs]);

	/* rows between polls: a row is p (p + 1) / 2 increments (400 columns: 13 rows) */
	block = MrfPollEvery(p + (two ? npairs : 0));
	for (int64_t r0 = 0; r0 < n; r0 += block)
	{
		int64_t		r1 = r0 + block < n ? r0 + block : n;

		for (int64_t r = r0; r < r1; r++)
		{
			const MrfCode *z = rows + r * p;

			for (int i = 0; i < p; i++)
				if (z[i] >= card[i])
				{
					status = MRF_EINVAL;
					goto done;
				}
			for (int i = 0; i < p; i++)
				one[oneoff[i] + z[i]]++;
			if (two == NULL)
				continue;
			for (int i = 0, e = 0; i < p - 1; i++)
			{
				int64_t		zi = z[i];

				for (int j = i + 1; j < p; j++, e++)
					two[pairoff[e] + zi * card[j] + z[j]]++;
			}
		}
		MrfPoll(env, r1, n);
	}
done:
	MrfFree(env, oneoff);
	MrfFree(env, pairoff);
	return status;
}

/* A disjoint-set forest over p variables: the root of v. */
static int
FindRoot(int *parent, int v)
{
	while (parent[v] != v)
	{
		parent[v] = parent[parent[v]];
		v = parent[v];
	}
	return v;
}

/*
 * Whether key[a] ranks above key[b] in the selections' order: the larger
 * key first, the lower pair index on a tie (a tie has probability 0).
 */
static inline int
RanksAbove(const double *key, int32_t a, int32_t b)
{
	return key[a] > key[b] || (key[a] == key[b] && a < b);
}

/* Restores the max-heap order of heap[0..size) below position at. */
static void
SiftDown(const double *key, int32_t *heap, int64_t size, int64_t at)
{
	int32_t		moving = heap[at];

	for (;;)
	{
		int64_t		child = 2 * at + 1;

		if (child >= size)
			break;
		if (child + 1 < size && RanksAbove(key, heap[child + 1], heap[child]))
			child++;
		if (!RanksAbove(key, heap[child], moving))
			break;
		heap[at] = heap[child];
		at = child;
	}
	heap[at] = moving;
}

/*
 * See mst.h.  The selections as one draw (privacy.md 12, "The selections
 * as one draw"): each given pair e gets one Gumbel G_e, and the pairs are
 * taken in decreasing order of scale q_e + G_e, each kept when it joins
 * two trees and fits max_cells (Kruskal's order).  The kept sequence has
 * the law of the sequential mechanisms, one MrfExponentialSelect at scale
 * per kept pair over the pairs that then join two trees and fit: a pair
 * that does not is never eligible again (trees only merge, the cells only
 * grow), and by the exponential race behind Gumbel-max the first of the
 * still eligible pairs to come is e with probability proportional to
 * exp(scale q_e), whatever came before.  So the privacy is the sequential
 * mechanisms' (section 12's M2, as charged), and the work is
 * O(p^2 log p) instead of O(p^3): one Gumbel a pair instead of one a pair
 * per edge.
 */
MrfStatus
MrfMstSelectForest(int p, const int *ccard, const int64_t *const *pair,
				   const double *const *prob, int64_t n, double scale, int64_t max_cells,
				   const int64_t *progress, MrfRng *rng, const MrfEnv *env, int *edges,
				   int *nedges, int *selections)
{
	int64_t		cells = 0;
	int64_t		npairs = (int64_t) p * (p - 1) / 2;
	int64_t		given = 0;
	double	   *key;
	int32_t    *heap;
	int		   *pi;
	int		   *pj;
	int		   *root;
	int64_t		work = 0;
	MrfStatus	status = MRF_OK;

	*nedges = 0;
	if (selections != NULL)
		*selections = 0;
	if (p < 2 || npairs > (int64_t) 1 << 30)
		return MRF_EINVAL;
	key = MrfAlloc(env, sizeof(double) * npairs);
	heap = MrfAlloc(env, sizeof(int32_t) * npairs);
	pi = MrfAlloc(env, sizeof(int) * npairs);
	pj = MrfAlloc(env, sizeof(int) * npairs);
	root = MrfAlloc(env, sizeof(int) * p);
	if (!key || !heap || !pi || !pj || !root)
	{
		status = MRF_ENOMEM;
		goto done;
	}

	/*
	 * the quality of every given pair (L1 between its table and the product
	 * model), and its key: scale times the quality plus its one Gumbel
	 */
	for (int i = 0, e = 0; i < p; i++)
		for (int j = i + 1; j < p; j++, e++)
		{
			const int64_t *t = pair[e];
			double		l1 = 0.0;

			pi[e] = i;
			pj[e] = j;
			key[e] = 0.0;
			if (t == NULL)
				continue;
			if (!isfinite(scale) || scale <= 0.0)
			{
				status = MRF_EINVAL;
				goto done;
			}
			MrfPollWork(env, &work, (int64_t) ccard[i] * ccard[j]);
			for (int a = 0; a < ccard[i]; a++)
				for (int b = 0; b < ccard[j]; b++)
					l1 += fabs((double) t[a * ccard[j] + b] -
							   (double) n * prob[i][a] * prob[j][b]);

			/*
			 * a NaN key compares neither above nor below any other, so the
			 * heap would hold no order and the pairs would not come out in
			 * Kruskal's order of the keys, the order the law rests on
			 */
			if (!isfinite(l1))
			{
				status = MRF_EINVAL;
				goto done;
			}
			key[e] = scale * l1 + MrfRngGumbel(rng);
			heap[given++] = e;
		}
	for (int64_t at = given / 2 - 1; at >= 0; at--)
		SiftDown(key, heap, given, at);
	for (int v = 0; v < p; v++)
		root[v] = v;

	/*
	 * the given pairs by decreasing key, each kept when it joins two trees
	 * and keeps the forest's tables within max_cells, until p - 1 are kept
	 * or none is left
	 */
	while (given > 0 && *nedges < p - 1)
	{
		int32_t		e = heap[0];
		int			a = FindRoot(root, pi[e]);
		int			b = FindRoot(root, pj[e]);
		int64_t		ecells = (int64_t) ccard[pi[e]] * ccard[pj[e]];

		heap[0] = heap[--given];
		SiftDown(key, heap, given, 0);
		MrfPollWork(env, &work, 32);
		if (a == b || (max_cells > 0 && cells + ecells > max_cells))
			continue;
		/* one exponential mechanism's pick, counted as the sequential form counts it */
		if (selections != NULL)
			(*selections)++;
		edges[2 * *nedges] = pi[e];
		edges[2 * *nedges + 1] = pj[e];
		(*nedges)++;
		cells += ecells;
		root[a] = b;
		if (progress != NULL)
			MrfPoll(env, progress[0], progress[1]);
		else
			MrfPoll(env, *nedges, p - 1);
	}
done:
	MrfFree(env, key);
	MrfFree(env, heap);
	MrfFree(env, pi);
	MrfFree(env, pj);
	MrfFree(env, root);
	return status;
}

/* See mst.h: every pair given, so a spanning tree (p - 1 edges). */
MrfStatus
MrfMstSelectTree(int p, const int *ccard, const int64_t *pair_offset,
				 const int64_t *two, const double *const *prob, int64_t n,
				 double scale, MrfRng *rng, const MrfEnv *env, int *edges)
{
	int64_t		npairs = (int64_t) p * (p - 1) / 2;
	const int64_t **pair;
	int			nedges = 0;
	MrfStatus	status;

	if (p < 2 || npairs > (int64_t) 1 << 30)
		return MRF_EINVAL;
	pair = MrfAlloc(env, sizeof(int64_t *) * npairs);
	if (pair == NULL)
		return MRF_ENOMEM;
	for (int64_t e = 0; e < npairs; e++)
		pair[e] = two + pair_offset[e];
	status = MrfMstSelectForest(p, ccard, pair, prob, n, scale, 0, NULL, rng, env, edges,
								&nedges, NULL);
	MrfFree(env, pair);
	if (status == MRF_OK && nedges != p - 1)
		status = MRF_EINVAL;
	return status;
}

/* ---- MST ---- */

/* See mst.h. */
void
MrfMstDefaultOptions(MrfMstOptions *opt)
{
	memset(opt, 0, sizeof(*opt));
	MrfEstimateDefaultOptions(&opt->estimate);
}

/* See mst.h. */
int64_t
MrfMstTreeCells(int p, const int *card, const int *edges)
{
	int64_t		cells = 0;

	for (int e = 0; e < p - 1; e++)
		cells += (int64_t) card[edges[2 * e]] * card[edges[2 * e + 1]];
	return cells;
}

/* See mst.h: (p - 1) times the product of the two largest alphabets. */
int64_t
MrfMstMaxTreeCells(int p, const int *card)
{
	int			top = 0;
	int			second = 0;

	for (int i = 0; i < p; i++)
	{
		if (card[i] > top)
		{
			second = top;
			top = card[i];
		}
		else if (card[i] > second)
			second = card[i];
	}
	return (int64_t) (p - 1) * top * second;
}

/* See mst.h. */
size_t
MrfMstWorkspaceBytes(int p, const int *card)
{
	double		one = (double) MrfMstOneWayCells(p, card);
	double		two = (double) MrfMstTwoWayCells(p, card, NULL);
	double		tree = (double) MrfMstMaxTreeCells(p, card);
	double		pairs = (double) p * (p - 1) / 2 + 1;
	double		bytes;

	/*
	 * Original and compressed two-way counts (int64; the compressed ones
	 * live on to the end), the one-way counts, noisy values, precisions,
	 * estimates and maps (a handful of doubles per one-way cell), the pair
	 * offsets and selection scratch (about 40 bytes a pair), and per cell of
	 * the tree's tables 14 doubles and 3 int32: the tree's counts, their
	 * noisy values and the estimate's log-potentials (3), the estimator's 4
	 * working copies and its scratch of the largest measurement (1), the
	 * junction tree engine (5 tables, MrfBpGetInfo's bytes, and 1 for its
	 * separators and marginals' scratch), and the estimator's maps (int32
	 * per cell and measurement: at most 3 per pair).  Measured against a
	 * counting allocator (test_mst TestWorkspacePlan): 2 columns of 600
	 * values that nothing merges take 8 bytes a two-way cell and 116 a tree
	 * cell at the estimate; 10 doubles a tree cell (before) planned 1.15
	 * times too little there.
	 */
	bytes = 2.0 * two * sizeof(int64_t) + 8.0 * one * sizeof(double) + 48.0 * pairs +
		tree * (sizeof(double) * 14.0 + sizeof(int32_t) * 3.0) + 4096.0 * (p + 1);
	return bytes > (double) SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t) bytes;
}

/* Frees MrfMstLearn's allocations. */
typedef struct MstScratch
{
	int64_t    *one;
	int64_t    *two;
	int64_t    *pairoff;
	int64_t    *cpairoff;
	int64_t    *ctwo;
	int64_t    *ctree;
	double	   *y1;
	double	   *cy1;
	double	   *cprec1;
	double	   *prob1;
	double	   *y2;
	double	   *theta;
	double	  **prob;
	int		   *oneoff;
	int		   *ccard;
	int		   *coneoff;
	int		   *map;
	int		   *rare;
	int		   *owner;
	int		   *start;
	int		   *var;
	MrfMeasurement *meas;
	MrfCliqueSet *set;
} MstScratch;

/* Releases every buffer of s. */
static void
MstScratchFree(const MrfEnv *env, MstScratch *s)
{
	MrfFree(env, s->one);
	MrfFree(env, s->two);
	MrfFree(env, s->pairoff);
	MrfFree(env, s->cpairoff);
	MrfFree(env, s->ctwo);
	MrfFree(env, s->ctree);
	MrfFree(env, s->y1);
	MrfFree(env, s->cy1);
	MrfFree(env, s->cprec1);
	MrfFree(env, s->prob1);
	MrfFree(env, s->y2);
	MrfFree(env, s->theta);
	MrfFree(env, s->prob);
	MrfFree(env, s->oneoff);
	MrfFree(env, s->ccard);
	MrfFree(env, s->coneoff);
	MrfFree(env, s->map);
	MrfFree(env, s->rare);
	MrfFree(env, s->owner);
	MrfFree(env, s->start);
	MrfFree(env, s->var);
	MrfFree(env, s->meas);
	if (s->set)
		MrfCliqueSetFree(env, s->set);
}

/* Allocates n doubles or int64s through env into *out; 0 or -1. */
#define ALLOC_INTO(out, bytes) \
	do { if (((out) = MrfAlloc(env, (bytes))) == NULL) { status = MRF_ENOMEM; goto done; } } while (0)

/*
 * MST from the rows (rows != NULL: counted here) or from their one- and
 * two-way tables (one_in, two_in: counted elsewhere, e.g. on Citus workers);
 * every step after the counting reads only the tables, so both give the
 * same model and draws.
 */
static MrfStatus
MstLearn(const MrfCode *rows, const int64_t *one_in, const int64_t *two_in, int64_t n,
		 int p, const int *card, const MrfMstOptions *opt, MrfRng *rng,
		 const MrfEnv *env, int *edges, double *logpot, MrfMstReport *rep)
{
	const int64_t *one = NULL;
	const int64_t *two = NULL;
	MstScratch	s;
	MrfStatus	status = MRF_OK;
	int64_t		npairs = (int64_t) p * (p - 1) / 2;
	int64_t		one_cells;
	int64_t		two_cells;
	int64_t		ctwo_cells;
	uint64_t	num1,
				den1,
				num2,
				den2;
	double		sigma1;
	double		scale;
	int			nmeas = 0;
	int64_t		work = 0;		/* since the last poll (MrfPollWork) */

	memset(&s, 0, sizeof(s));
	memset(rep, 0, sizeof(*rep));
	if (p < 2 || n < 1 || npairs > ((int64_t) 1 << 30) ||
		opt->estimate.iterations < 1 || opt->estimate.iterations > MRF_ESTIMATE_MAX_ITERATIONS)
		return MRF_EINVAL;
	for (int i = 0; i < p; i++)
		if (card[i] < 2 || card[i] > MRF_CODE_CARD_MAX)
			return MRF_EINVAL;

	/* the budget: split, variances, selection scale (privacy.c) */
	if (MrfMstSplit(opt->rho, &rep->rho_one_way, &rep->rho_select, &rep->rho_two_way) != 0 ||
		MrfMstGaussianVariance(p, rep->rho_one_way, &num1, &den1) != 0 ||
		MrfMstGaussianVariance(p - 1, rep->rho_two_way, &num2, &den2) != 0)
		return MRF_EINVAL;
	rep->sigma2_one_way = (double) num1 / (double) den1;
	rep->sigma2_two_way = (double) num2 / (double) den2;
	rep->select_epsilon = MrfMstSelectionEpsilon(rep->rho_select, p - 1);
	scale = MrfMstSelectionScale(rep->rho_select, p - 1);
	rep->select_scale = scale;
	if (!isfinite(scale) || scale <= 0.0)
		return MRF_EINVAL;
	sigma1 = sqrt(rep->sigma2_one_way);

	one_cells = MrfMstOneWayCells(p, card);
	two_cells = MrfMstTwoWayCells(p, card, NULL);
	if (rows != NULL)
	{
		ALLOC_INTO(s.one, sizeof(int64_t) * one_cells);
		ALLOC_INTO(s.two, sizeof(int64_t) * (two_cells + 1));
	}
	ALLOC_INTO(s.pairoff, sizeof(int64_t) * (npairs + 1));
	ALLOC_INTO(s.cpairoff, sizeof(int64_t) * (npairs + 1));
	ALLOC_INTO(s.y1, sizeof(double) * one_cells);
	ALLOC_INTO(s.cy1, sizeof(double) * one_cells);
	ALLOC_INTO(s.cprec1, sizeof(double) * one_cells);
	ALLOC_INTO(s.prob1, sizeof(double) * one_cells);
	ALLOC_INTO(s.prob, sizeof(double *) * p);
	ALLOC_INTO(s.oneoff, sizeof(int) * (p + 1));
	ALLOC_INTO(s.coneoff, sizeof(int) * (p + 1));
	ALLOC_INTO(s.ccard, sizeof(int) * p);
	ALLOC_INTO(s.map, sizeof(int) * one_cells);
	ALLOC_INTO(s.rare, sizeof(int) * p);
	ALLOC_INTO(s.owner, sizeof(int) * p);
	s.oneoff[0] = 0;
	for (int i = 0; i < p; i++)
		s.oneoff[i + 1] = s.oneoff[i] + card[i];
	MrfMstTwoWayCells(p, card, s.pairoff);

	/* 1. one scan: every one-way and two-way table (or the caller's) */
	if (rows != NULL)
	{
		status = MrfMstCount(rows, n, p, card, env, s.one, s.two);
		if (status != MRF_OK)
			goto done;
		one = s.one;
		two = s.two;
	}
	else
	{
		one = one_in;
		two = two_in;
	}

	/* 2. measure every one-way marginal (rho_one_way) */
	status = MrfMeasureGaussian(one, one_cells, num1, den1, rng, s.y1);
	if (status != MRF_OK)
		goto done;

	/* 3. compress rare values (post-processing of the noisy counts) */
	MrfCompressRare(p, card, s.oneoff, s.y1, sigma1, s.map, s.ccard, s.rare);
	s.coneoff[0] = 0;
	for (int i = 0; i < p; i++)
	{
		double	   *cy = s.cy1 + s.coneoff[i];
		double	   *cw = s.cprec1 + s.coneoff[i];

		s.coneoff[i + 1] = s.coneoff[i] + s.ccard[i];
		for (int a = 0; a < s.ccard[i]; a++)
			cy[a] = 0.0;
		for (int a = 0; a < card[i]; a++)
			cy[s.map[s.oneoff[i] + a]] += s.y1[s.oneoff[i] + a];
		/* a merged code sums rare[i] noisy cells: rare[i] times the variance */
		for (int a = 0; a < s.ccard[i]; a++)
			cw[a] = 1.0 / rep->sigma2_one_way;
		if (s.rare[i] > 0)
		{
			cw[s.ccard[i] - 1] /= (double) s.rare[i];
			rep->compressed++;
			rep->rare_values += s.rare[i];
		}
		/* the one-way estimates the selection compares pairs with */
		s.prob[i] = s.prob1 + s.coneoff[i];
		MrfProjectOneWay(cy, cw, s.ccard[i], n, s.prob[i]);
	}

	/* 4. the compressed two-way tables (a function of the counts and maps) */
	ctwo_cells = MrfMstTwoWayCells(p, s.ccard, s.cpairoff);
	ALLOC_INTO(s.ctwo, sizeof(int64_t) * (ctwo_cells + 1));
	for (int i = 0, e = 0; i < p; i++)
		for (int j = i + 1; j < p; j++, e++)
		{
			const int64_t *t = two + s.pairoff[e];
			int64_t    *ct = s.ctwo + s.cpairoff[e];
			const int  *mi = s.map + s.oneoff[i];
			const int  *mj = s.map + s.oneoff[j];

			MrfPollWork(env, &work, (int64_t) card[i] * card[j]);
			for (int a = 0; a < card[i]; a++)
				for (int b = 0; b < card[j]; b++)
					ct[(int64_t) mi[a] * s.ccard[j] + mj[b]] += t[(int64_t) a * card[j] + b];
		}
	MrfFree(env, s.two);
	s.two = NULL;
	two = NULL;

	/* 5. select a spanning tree (rho_select) */
	status = MrfMstSelectTree(p, s.ccard, s.cpairoff, s.ctwo, (const double *const *) s.prob,
							  n, scale, rng, env, edges);
	if (status != MRF_OK)
		goto done;

	/* 6. measure the tree's pairs (rho_two_way) */
	{
		int64_t		tree_cells = MrfMstTreeCells(p, s.ccard, edges);
		int64_t		at = 0;

		ALLOC_INTO(s.ctree, sizeof(int64_t) * (tree_cells + 1));
		ALLOC_INTO(s.y2, sizeof(double) * (tree_cells + 1));
		for (int e = 0; e < p - 1; e++)
		{
			int			i = edges[2 * e];
			int			j = edges[2 * e + 1];
			int64_t		cells = (int64_t) s.ccard[i] * s.ccard[j];

			memcpy(s.ctree + at, s.ctwo + s.cpairoff[MrfMstPairIndex(p, i, j)],
				   sizeof(int64_t) * cells);
			at += cells;
		}
		status = MrfMeasureGaussian(s.ctree, tree_cells, num2, den2, rng, s.y2);
		if (status != MRF_OK)
			goto done;
	}

	/* 7. estimate (post-processing): the tree's cliques, every measurement */
	ALLOC_INTO(s.start, sizeof(int) * p);
	ALLOC_INTO(s.var, sizeof(int) * 2 * p);
	ALLOC_INTO(s.meas, sizeof(MrfMeasurement) * (2 * p));
	for (int i = 0; i < p; i++)
		s.owner[i] = -1;
	for (int e = 0; e < p - 1; e++)
	{
		s.start[e] = 2 * e;
		s.var[2 * e] = edges[2 * e];
		s.var[2 * e + 1] = edges[2 * e + 1];
		if (s.owner[edges[2 * e]] < 0)
			s.owner[edges[2 * e]] = e;
		if (s.owner[edges[2 * e + 1]] < 0)
			s.owner[edges[2 * e + 1]] = e;
	}
	s.start[p - 1] = 2 * (p - 1);
	status = MrfCliqueSetBuildAlphabets(p, s.ccard, p - 1, s.start, s.var, 0, env, &s.set);
	if (status != MRF_OK)
		goto done;
	for (int i = 0; i < p; i++)
	{
		MrfMeasurement *m = &s.meas[nmeas++];

		m->clique = s.owner[i];
		m->size = 1;
		m->vars[0] = i;
		m->y = s.cy1 + s.coneoff[i];
		m->precision = s.cprec1 + s.coneoff[i];
		m->sigma2 = rep->sigma2_one_way;
	}
	for (int e = 0; e < p - 1; e++)
	{
		MrfMeasurement *m = &s.meas[nmeas++];

		m->clique = e;
		m->size = 2;
		m->vars[0] = s.set->var[s.set->start[e]];
		m->vars[1] = s.set->var[s.set->start[e] + 1];
		m->y = s.y2 + s.set->offset[e];
		m->precision = NULL;
		m->sigma2 = rep->sigma2_two_way;
	}
	ALLOC_INTO(s.theta, sizeof(double) * (s.set->cells + 1));
	status = MrfEstimate(s.set, s.ccard, s.meas, nmeas, n, &opt->estimate, env, s.theta,
						 &rep->estimate);
	if (status != MRF_OK)
		goto done;

	/*
	 * 8. back to the original alphabets: a merged code's mass is spread
	 * evenly over its rare values (MST's undo_compress), by subtracting
	 * log rare[i] once, in the first clique holding variable i.
	 */
	{
		int64_t		at = 0;

		for (int e = 0; e < p - 1; e++)
		{
			int			i = edges[2 * e];
			int			j = edges[2 * e + 1];
			const double *th = s.theta + s.set->offset[e];
			const int  *mi = s.map + s.oneoff[i];
			const int  *mj = s.map + s.oneoff[j];

			MrfPollWork(env, &work, (int64_t) card[i] * card[j]);
			for (int a = 0; a < card[i]; a++)
				for (int b = 0; b < card[j]; b++)
				{
					double		v = th[(int64_t) mi[a] * s.ccard[j] + mj[b]];

					if (s.owner[i] == e && s.rare[i] > 0 && mi[a] == s.ccard[i] - 1)
						v -= log((double) s.rare[i]);
					if (s.owner[j] == e && s.rare[j] > 0 && mj[b] == s.ccard[j] - 1)
						v -= log((double) s.rare[j]);
					logpot[at++] = v;
				}
		}
	}
done:
	MstScratchFree(env, &s);
	return status;
}

/* See mst.h. */
MrfStatus
MrfMstLearn(const MrfCode *rows, int64_t n, int p, const int *card,
			const MrfMstOptions *opt, MrfRng *rng, const MrfEnv *env, int *edges,
			double *logpot, MrfMstReport *rep)
{
	if (rows == NULL)
		return MRF_EINVAL;
	return MstLearn(rows, NULL, NULL, n, p, card, opt, rng, env, edges, logpot, rep);
}

/* See mst.h. */
MrfStatus
MrfMstLearnCounts(const int64_t *one, const int64_t *two, int64_t n, int p,
				  const int *card, const MrfMstOptions *opt, MrfRng *rng,
				  const MrfEnv *env, int *edges, double *logpot, MrfMstReport *rep)
{
	if (one == NULL || two == NULL)
		return MRF_EINVAL;
	return MstLearn(NULL, one, two, n, p, card, opt, rng, env, edges, logpot, rep);
}
