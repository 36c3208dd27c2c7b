/*
 * test_mst.c - MST (mst.h): the one-scan counts, the calibration of the
 * selection step (a black-box chi-square test of the selected tree's law
 * against the exponential mechanism at MST's epsilon, with the add/remove
 * calibration as a negative control), the split and variances, recovery of
 * known trees with mixed alphabets, the estimator's fit, and compression.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliques.h"
#include "harness.h"
#include "mst.h"
#include "noise.h"
#include "privacy.h"

#define P_REJECT 1e-4

/* Counts against a brute-force tally, mixed alphabets. */
static void
TestCounts(void)
{
	int			card[5] = {2, 3, 5, 2, 7};
	int			p = 5;
	int64_t		n = 3001;
	MrfCode    *rows = malloc(sizeof(MrfCode) * n * p);
	int64_t		pairoff[11];
	int64_t		one[19];
	int64_t    *two;
	int64_t		cells2 = MrfMstTwoWayCells(p, card, pairoff);
	MrfRng		rng;
	int			ok = 1;

	MrfRngInitSeeded(&rng, 11);
	CHECK(MrfMstOneWayCells(p, card) == 19);
	CHECK(cells2 == 2 * 3 + 2 * 5 + 2 * 2 + 2 * 7 + 3 * 5 + 3 * 2 + 3 * 7 + 5 * 2 + 5 * 7 + 2 * 7);
	CHECK(MrfMstPairIndex(p, 0, 1) == 0 && MrfMstPairIndex(p, 1, 2) == 4 &&
		  MrfMstPairIndex(p, 3, 4) == 9);
	two = malloc(sizeof(int64_t) * cells2);
	for (int64_t r = 0; r < n * p; r++)
		rows[r] = (MrfCode) MrfRngBelow(&rng, card[r % p]);
	CHECK(MrfMstCount(rows, n, p, card, &MrfMallocEnv, one, two) == MRF_OK);
	for (int i = 0, off = 0; i < p; off += card[i], i++)
		for (int a = 0; a < card[i]; a++)
		{
			int64_t		c = 0;

			for (int64_t r = 0; r < n; r++)
				c += rows[r * p + i] == a;
			ok &= c == one[off + a];
		}
	for (int i = 0; i < p; i++)
		for (int j = i + 1; j < p; j++)
			for (int a = 0; a < card[i]; a++)
				for (int b = 0; b < card[j]; b++)
				{
					int64_t		c = 0;

					for (int64_t r = 0; r < n; r++)
						c += rows[r * p + i] == a && rows[r * p + j] == b;
					ok &= c == two[pairoff[MrfMstPairIndex(p, i, j)] + a * card[j] + b];
				}
	CHECK_MSG(ok, "one- and two-way counts differ from the brute-force tally");
	rows[7] = 9;
	CHECK(MrfMstCount(rows, n, p, card, &MrfMallocEnv, one, two) == MRF_EINVAL);
	free(rows);
	free(two);
}

/*
 * Whether k selections at epsilon e spend at most rho together, exactly:
 * k e^2 / 8 <= rho.  With e = me 2^(ee - 53) and rho = mr 2^(er - 53)
 * (integer significands from frexp) the test is k me^2 <= mr 2^s,
 * s = er - 2 ee + 56, in 128-bit integers (k < 2^21 keeps k me^2 below
 * 2^127).
 */
static int
SelectionsFit(double e, int k, double rho)
{
	int			ee,
				er;
	uint64_t	me = (uint64_t) ldexp(frexp(e, &ee), 53);
	uint64_t	mr = (uint64_t) ldexp(frexp(rho, &er), 53);
	unsigned __int128 lhs = (unsigned __int128) me * me * (unsigned) k;
	int			s = er - 2 * ee + 56;

	if (s >= 0)
		return s >= 75 || lhs <= ((unsigned __int128) mr << s);
	if (-s >= 64 || (lhs >> (127 + s)) != 0)
		return 0;				/* lhs 2^-s is above 2^64 > mr */
	return (lhs << -s) <= mr;
}

/*
 * MST's k selections (and AIM's seed's) never spend more than their share
 * together: k e^2 / 8 <= rho_select exactly for many (rho_select, k), e
 * within a few ulps of sqrt(8 rho_select / k).  Rounded to nearest, as
 * before, (0.1, 5) spends more: the negative control.
 */
static void
TestSelectionRounding(void)
{
	const double rhos[] = {0.1, 0.5, 1.0, 1.0 / 3.0, 0.02436 / 3.0, 1.539 / 4.0, 0.05,
	0.7, 2.0, 1e-9, 123.456, 3e-300, 4.9e-324 * 1e10};
	MrfRng		rng;
	int64_t		bad = 0,
				cases = 0;

	MrfRngInitSeeded(&rng, 91);
	CHECK_MSG(!SelectionsFit(sqrt(8.0 * (0.1 / 5)), 5, 0.1),
			  "round-to-nearest epsilon at (0.1, 5) exceeds its share (the check can fail)");
	CHECK(SelectionsFit(2.0, 1, 0.5) && !SelectionsFit(nextafter(2.0, 3.0), 1, 0.5));
	for (int t = 0; t < (int) (sizeof(rhos) / sizeof(rhos[0])) + 2000; t++)
	{
		double		rho = t < (int) (sizeof(rhos) / sizeof(rhos[0])) ? rhos[t] :
			ldexp(0.5 + 0.5 * MrfRngUniform(&rng), (int) (MrfRngUniform(&rng) * 60.0) - 40);

		for (int k = 1; k <= 1200; k += (k < 200 ? 1 : 37))
		{
			double		e = MrfMstSelectionEpsilon(rho, k);

			cases++;
			/* not far below either (a subnormal quotient has fewer bits) */
			if (!(isfinite(e) && SelectionsFit(e, k, rho) &&
				  (rho / k < DBL_MIN || e >= sqrt(8.0 * rho / k) * (1.0 - 1e-15))))
			{
				if (bad++ < 5)
					CHECK_MSG(0, "selections of %.17g over %d: e = %.17g", rho, k, e);
			}
			if (rho == 0.1 && k == 5)
				CHECK(MrfMstSelectionScale(rho, k) == e / 4.0);
		}
	}
	CHECK_MSG(bad == 0, "%lld of %lld (rho, k) over their share", (long long) bad,
			  (long long) cases);
}

/* The split, the variances and the selection's epsilon and scale. */
static void
TestCalibration(void)
{
	double		r1,
				r2,
				r3;
	uint64_t	num,
				den;
	const double rhos[] = {1e-6, 0.1, 1.0 / 3.0, 1.0, 3.0, 7.25, 1e6};

	for (size_t t = 0; t < sizeof(rhos) / sizeof(rhos[0]); t++)
	{
		double		rho = rhos[t];

		CHECK(MrfMstSplit(rho, &r1, &r2, &r3) == 0);
		/* the three parts never exceed rho, even in exact arithmetic */
		CHECK_MSG(r1 + r2 <= rho && (r1 + r2) + r3 <= rho && 3.0 * r1 <= rho &&
				  (long double) r1 * 3.0L <= (long double) rho,
				  "split of %.17g: %.17g x 3", rho, r1);
		CHECK(r1 > rho / 3.0 * (1.0 - 1e-15));
	}
	CHECK(MrfMstSplit(0.0, &r1, &r2, &r3) == -1);
	CHECK(MrfMstSplit(NAN, &r1, &r2, &r3) == -1);
	CHECK(MrfMstSplit(INFINITY, &r1, &r2, &r3) == -1);

	/* 20 one-way tables at rho 0.25: sigma^2 >= 2 * 20 / (2 * 0.25) = 80 */
	CHECK(MrfMstGaussianVariance(20, 0.25, &num, &den) == 0);
	CHECK((double) num / den >= 80.0 && (double) num / den <= 80.0 + 1e-5);
	CHECK(MrfMstGaussianVariance(19, 1.0 / 3.0, &num, &den) == 0);
	CHECK((long double) num / den >= 57.0L);
	CHECK(MrfMstGaussianVariance(0, 1.0, &num, &den) == -1);
	CHECK(MrfMstGaussianVariance(10, 0.0, &num, &den) == -1);
	CHECK(MrfMstGaussianVariance(10, 1e-12, &num, &den) == -1);
	CHECK(MrfMarginalSquaredSensitivity() == 2.0);
	CHECK(MrfMstQualitySensitivity() == 2.0);
	/* p - 1 = 4 rounds of rho 1 / 4 each: e = sqrt(8 / 4), scale e / 4 */
	CHECK_NEAR(MrfMstSelectionEpsilon(1.0, 4), sqrt(2.0), 1e-15);
	CHECK_NEAR(MrfMstSelectionScale(1.0, 4), sqrt(2.0) / 4.0, 1e-15);
	CHECK(isnan(MrfMstSelectionScale(0.0, 4)) && isnan(MrfMstSelectionScale(1.0, 0)));
}

/* Trees over p = 4 variables as bit sets of the 6 pairs. */
#define SEL_P 4
#define SEL_PAIRS 6
/* The forest law's cases: up to 6 variables, 15 pairs. */
#define FOREST_P 6
#define FOREST_PAIRS 15

/*
 * Whether adding pair e to the forest of pairs in mask joins two
 * components (p variables, npairs pairs, p at most FOREST_P).
 */
static int
JoinsComponents(int p, int npairs, int mask, int e, const int *pi, const int *pj)
{
	int			comp[FOREST_P];

	for (int v = 0; v < p; v++)
		comp[v] = v;
	for (int changed = 1; changed;)
	{
		changed = 0;
		for (int f = 0; f < npairs; f++)
			if ((mask >> f) & 1)
			{
				int			lo = comp[pi[f]] < comp[pj[f]] ? comp[pi[f]] : comp[pj[f]];

				if (comp[pi[f]] != lo || comp[pj[f]] != lo)
				{
					comp[pi[f]] = comp[pj[f]] = lo;
					changed = 1;
				}
			}
	}
	return comp[pi[e]] != comp[pj[e]];
}

/* Joins the trees of a and b in the forest root (parent links); 1 when they were apart. */
static int
JoinRoots(int *root, int a, int b)
{
	while (root[a] != a)
		a = root[a];
	while (root[b] != b)
		b = root[b];
	if (a == b)
		return 0;
	root[a] = b;
	return 1;
}

/*
 * Adds n rows to a ci x cj table: a uniform, b a's value mod cj with
 * probability copy / of, else uniform.
 */
static void
SamplePairTable(int64_t *t, int ci, int cj, int64_t n, int copy, int of, MrfRng *rng)
{
	for (int64_t r = 0; r < n; r++)
	{
		int			a = (int) MrfRngBelow(rng, ci);
		int			b = MrfRngBelow(rng, of) < (uint64_t) copy ? a % cj :
			(int) MrfRngBelow(rng, cj);

		t[a * cj + b]++;
	}
}

/* MST's quality of a pair: L1 between its table and n times the product of the one-ways. */
static double
PairQuality(const int64_t *t, int ci, int cj, int64_t n, const double *pa, const double *pb)
{
	double		q = 0.0;

	for (int a = 0; a < ci; a++)
		for (int b = 0; b < cj; b++)
			q += fabs((double) t[a * cj + b] - (double) n * pa[a] * pb[b]);
	return q;
}

/*
 * The exact law of the tree that p - 1 rounds of the exponential mechanism
 * (probability proportional to exp(c q) over the pairs joining two
 * components) select: prob[mask] over all sets of pairs, by recursion over
 * selection orders.
 */
static void
TreeLaw(const double *q, double c, const int *pi, const int *pj, int mask, double pr,
		int depth, double *prob)
{
	double		z = 0.0;

	if (depth == SEL_P - 1)
	{
		prob[mask] += pr;
		return;
	}
	for (int e = 0; e < SEL_PAIRS; e++)
		if (!((mask >> e) & 1) && JoinsComponents(SEL_P, SEL_PAIRS, mask, e, pi, pj))
			z += exp(c * q[e]);
	for (int e = 0; e < SEL_PAIRS; e++)
		if (!((mask >> e) & 1) && JoinsComponents(SEL_P, SEL_PAIRS, mask, e, pi, pj))
			TreeLaw(q, c, pi, pj, mask | (1 << e), pr * exp(c * q[e]) / z, depth + 1, prob);
}

/*
 * Black box: MrfMstSelectTree on fixed tables and one-way estimates; the
 * test computes the qualities itself (L1 between each table and n times
 * the product of the estimates), the exact law of the selected tree at
 * MST's calibration (e = sqrt(8 rho / (p - 1)), sensitivity 2 under
 * replace-one), and compares by chi-square over the 16 spanning trees.  The
 * add/remove calibration (sensitivity 1, twice the scale) and a split of
 * rho over one round only must be rejected.
 */
static void
TestSelectionLaw(void)
{
	int			ccard[SEL_P] = {2, 3, 2, 4};
	int64_t		pairoff[SEL_PAIRS + 1];
	int64_t    *two;
	double		probs_store[11];
	const double *prob[SEL_P];
	double		q[SEL_PAIRS];
	int			pi[SEL_PAIRS];
	int			pj[SEL_PAIRS];
	int64_t		n = 200;
	double		rho_select = 0.002;
	double		scale = MrfMstSelectionScale(rho_select, SEL_P - 1);
	double		law[1 << SEL_PAIRS];
	double		wrong[3][1 << SEL_PAIRS];
	double		wrong_scale[3];
	long		observed[16];
	double		expected[16];
	int			tree_mask[16];
	int			ntrees = 0;
	const int	runs = 60000;
	MrfRng		rng;
	double		stat;

	MrfMstTwoWayCells(SEL_P, ccard, pairoff);
	two = calloc(pairoff[SEL_PAIRS], sizeof(int64_t));
	MrfRngInitSeeded(&rng, 4242);
	/* one-way estimates, fixed */
	for (int i = 0, off = 0; i < SEL_P; off += ccard[i], i++)
	{
		double		s = 0.0;

		for (int a = 0; a < ccard[i]; a++)
			s += probs_store[off + a] = 1.0 + a;
		for (int a = 0; a < ccard[i]; a++)
			probs_store[off + a] /= s;
		prob[i] = probs_store + off;
	}
	/* tables of n rows each with dependence of different strength */
	for (int i = 0, e = 0; i < SEL_P; i++)
		for (int j = i + 1; j < SEL_P; j++, e++)
		{
			int64_t    *t = two + pairoff[e];

			pi[e] = i;
			pj[e] = j;
			SamplePairTable(t, ccard[i], ccard[j], n, e, 10, &rng);
			q[e] = PairQuality(t, ccard[i], ccard[j], n, prob[i], prob[j]);
		}
	CHECK_NEAR(scale, sqrt(8.0 * rho_select / (SEL_P - 1)) / 4.0, 1e-15);
	memset(law, 0, sizeof(law));
	TreeLaw(q, scale, pi, pj, 0, 1.0, 0, law);
	wrong_scale[0] = 2.0 * scale;	/* add/remove sensitivity 1 */
	wrong_scale[1] = sqrt(8.0 * rho_select) / 4.0;	/* rho_select on each round */
	wrong_scale[2] = 0.5 * scale;
	for (int w = 0; w < 3; w++)
	{
		memset(wrong[w], 0, sizeof(wrong[w]));
		TreeLaw(q, wrong_scale[w], pi, pj, 0, 1.0, 0, wrong[w]);
	}
	for (int mask = 0; mask < (1 << SEL_PAIRS); mask++)
		if (law[mask] > 0.0)
			tree_mask[ntrees++] = mask;
	CHECK(ntrees == 16);
	memset(observed, 0, sizeof(observed));
	for (int r = 0; r < runs; r++)
	{
		int			edges[2 * (SEL_P - 1)];
		int			mask = 0;

		if (MrfMstSelectTree(SEL_P, ccard, pairoff, two, prob, n, scale, &rng, &MrfMallocEnv,
							 edges) != MRF_OK)
		{
			CHECK(0);
			break;
		}
		for (int e = 0; e < SEL_P - 1; e++)
			mask |= 1 << MrfMstPairIndex(SEL_P, edges[2 * e], edges[2 * e + 1]);
		for (int t = 0; t < ntrees; t++)
			if (tree_mask[t] == mask)
				observed[t]++;
	}
	for (int t = 0; t < ntrees; t++)
		expected[t] = law[tree_mask[t]];
	stat = ChiSquareStatistic(observed, expected, ntrees, runs);
	CHECK_MSG(ChiSquareSurvival(stat, ntrees - 1) > P_REJECT,
			  "MST selection law: chi2 = %.2f (df %d)", stat, ntrees - 1);
	printf("# mst selection (p = 4, 16 trees, %d runs): chi2 %.2f (df %d); wrong laws:",
		   runs, stat, ntrees - 1);
	for (int w = 0; w < 3; w++)
	{
		double		ws;

		for (int t = 0; t < ntrees; t++)
			expected[t] = wrong[w][tree_mask[t]];
		ws = ChiSquareStatistic(observed, expected, ntrees, runs);
		CHECK_MSG(ChiSquareSurvival(ws, ntrees - 1) < 1e-12,
				  "negative control %d (scale %g) not rejected: chi2 = %.2f", w, wrong_scale[w], ws);
		printf(" %.0f", ws);
	}
	printf("\n");
	free(two);
}

/*
 * A forest selection's case: pair e (MrfMstPairIndex order) is given when
 * given[e], its table n rows of SamplePairTable(copy[e], of); the one-way
 * estimates of variable i are proportional to 1 + (a mod 3).
 */
typedef struct ForestCase
{
	const char *what;
	int			p;
	const int  *ccard;
	const int  *given;
	const int  *copy;
	int			of;
	int64_t		max_cells;
	double		rho_select;		/* the scale is MrfMstSelectionScale(rho_select, p - 1) */
	uint64_t	seed;
} ForestCase;

/* The pairs of a case, for ForestLaw. */
typedef struct ForestPairs
{
	int			p;
	int			npairs;
	int			base;			/* npairs + 1: a sequence's code has a digit a round */
	const double *q;
	const int  *pi;
	const int  *pj;
	const int  *given;
	const int  *pcells;
	int64_t		max_cells;
} ForestPairs;

/*
 * The exact law of the ordered pairs the sequential mechanisms select over
 * a forest's given pairs within max_cells: each round picks, with
 * probability proportional to exp(c q), one of the given pairs that join
 * two components and fit, until none does; prob[code] by sequence, code =
 * sum over rounds k of (pair + 1) base^k.
 */
static void
ForestLaw(const ForestPairs *f, double c, int mask, int64_t cells, int code, int depth,
		  double pr, double *prob)
{
	double		z = 0.0;
	int			step = 1;

	for (int k = 0; k < depth; k++)
		step *= f->base;
	for (int e = 0; e < f->npairs; e++)
		if (f->given[e] && !((mask >> e) & 1) &&
			JoinsComponents(f->p, f->npairs, mask, e, f->pi, f->pj) &&
			cells + f->pcells[e] <= f->max_cells)
			z += exp(c * f->q[e]);
	if (z == 0.0)
	{
		prob[code] += pr;
		return;
	}
	for (int e = 0; e < f->npairs; e++)
		if (f->given[e] && !((mask >> e) & 1) &&
			JoinsComponents(f->p, f->npairs, mask, e, f->pi, f->pj) &&
			cells + f->pcells[e] <= f->max_cells)
			ForestLaw(f, c, mask | (1 << e), cells + f->pcells[e], code + (e + 1) * step,
					  depth + 1, pr * exp(c * f->q[e]) / z, prob);
}

/*
 * Black box: MrfMstSelectForest, which takes the pairs in one draw
 * (Kruskal's order over scale q + Gumbel), against the exact law of the
 * sequential mechanisms it stands for, over the ordered sequence of pairs
 * it returns; chi-square over the sequences of expected count 5 or more
 * and the rest as one bin.  Twice the scale must be rejected, and so must
 * the law read in the reverse order (the order is part of the release:
 * AIM's seed adds the pairs in it).  Every length of sequence the law
 * gives 5 runs or more must occur and no other, and the case must have
 * two such lengths (the cap or the given pairs end some forests early).
 */
static void
ForestLawCase(const ForestCase *fc)
{
	int			p = fc->p;
	int			npairs = p * (p - 1) / 2;
	int			base = npairs + 1;
	int			pi[FOREST_PAIRS];
	int			pj[FOREST_PAIRS];
	int			pcells[FOREST_PAIRS];
	int			root[FOREST_P];
	int64_t    *tables[FOREST_PAIRS];
	const int64_t *pair[FOREST_PAIRS];
	double		store[FOREST_P * 8];
	const double *prob[FOREST_P];
	double		q[FOREST_PAIRS];
	int64_t		n = 200;
	double		scale = MrfMstSelectionScale(fc->rho_select, p - 1);
	ForestPairs fp;
	double	   *law;
	double	   *twice;
	double	   *reversed;
	long	   *observed;
	int		   *bin;
	long	   *obs;
	double	   *exp_law;
	double	   *exp_twice;
	double	   *exp_rev;
	double		len_law[FOREST_P] = {0};
	long		sizes[FOREST_P] = {0};
	int			maxlen = 0;
	int			ncodes = 1;
	int			nbins = 0;
	int			lengths = 0;
	const int	runs = 60000;
	MrfRng		rng;
	double		stat,
				stat_twice,
				stat_rev;

	CHECK(p >= 2 && p <= FOREST_P);
	MrfRngInitSeeded(&rng, fc->seed);
	for (int i = 0, off = 0; i < p; off += fc->ccard[i], i++)
	{
		double		s = 0.0;

		for (int a = 0; a < fc->ccard[i]; a++)
			s += store[off + a] = 1.0 + (a % 3);
		for (int a = 0; a < fc->ccard[i]; a++)
			store[off + a] /= s;
		prob[i] = store + off;
	}
	for (int v = 0; v < p; v++)
		root[v] = v;
	for (int i = 0, e = 0; i < p; i++)
		for (int j = i + 1; j < p; j++, e++)
		{
			int64_t    *t = calloc((size_t) fc->ccard[i] * fc->ccard[j], sizeof(int64_t));

			pi[e] = i;
			pj[e] = j;
			pcells[e] = fc->ccard[i] * fc->ccard[j];
			SamplePairTable(t, fc->ccard[i], fc->ccard[j], n, fc->copy[e], fc->of, &rng);
			q[e] = PairQuality(t, fc->ccard[i], fc->ccard[j], n, prob[i], prob[j]);
			tables[e] = t;
			pair[e] = fc->given[e] ? t : NULL;
			/* the longest sequence: p minus the given pairs' components */
			if (fc->given[e])
				maxlen += JoinRoots(root, i, j);
		}
	for (int k = 0; k < maxlen; k++)
		ncodes *= base;
	law = calloc(ncodes, sizeof(double));
	twice = calloc(ncodes, sizeof(double));
	reversed = calloc(ncodes, sizeof(double));
	observed = calloc(ncodes, sizeof(long));
	bin = calloc(ncodes, sizeof(int));
	obs = calloc(ncodes + 1, sizeof(long));
	exp_law = calloc(ncodes + 1, sizeof(double));
	exp_twice = calloc(ncodes + 1, sizeof(double));
	exp_rev = calloc(ncodes + 1, sizeof(double));
	fp.p = p;
	fp.npairs = npairs;
	fp.base = base;
	fp.q = q;
	fp.pi = pi;
	fp.pj = pj;
	fp.given = fc->given;
	fp.pcells = pcells;
	fp.max_cells = fc->max_cells > 0 ? fc->max_cells : INT64_MAX / 2;
	ForestLaw(&fp, scale, 0, 0, 0, 0, 1.0, law);
	ForestLaw(&fp, 2.0 * scale, 0, 0, 0, 0, 1.0, twice);
	for (int code = 0; code < ncodes; code++)
	{
		int			d[FOREST_P];
		int			len = 0;
		int			rev = 0;

		for (int c = code; c > 0; c /= base)
			d[len++] = c % base;
		for (int k = 0, step = 1; k < len; k++, step *= base)
			rev += d[len - 1 - k] * step;
		reversed[rev] += law[code];
		len_law[len] += law[code];
	}
	for (int r = 0; r < runs; r++)
	{
		int			edges[2 * FOREST_P];
		int			nedges = 0;
		int			selections = 0;
		int			code = 0;

		if (MrfMstSelectForest(p, fc->ccard, pair, prob, n, scale, fc->max_cells, NULL, &rng,
							   &MrfMallocEnv, edges, &nedges, &selections) != MRF_OK ||
			selections != nedges || nedges > maxlen)
		{
			CHECK_MSG(0, "%s: run %d: %d pairs, %d selections", fc->what, r, nedges, selections);
			break;
		}
		sizes[nedges]++;
		for (int k = 0, step = 1; k < nedges; k++, step *= base)
			code += (MrfMstPairIndex(p, edges[2 * k], edges[2 * k + 1]) + 1) * step;
		observed[code]++;
	}
	/* the lengths the law gives, and only those */
	for (int len = 0; len < p; len++)
	{
		CHECK_MSG(len_law[len] * runs >= 5.0 ? sizes[len] > 0 :
				  len_law[len] > 0.0 || sizes[len] == 0,
				  "%s: %ld forests of %d pairs, the law's share %g", fc->what, sizes[len], len,
				  len_law[len]);
		lengths += len_law[len] * runs >= 5.0;
	}
	CHECK(lengths >= 2);
	for (int code = 0; code < ncodes; code++)
		bin[code] = law[code] * runs >= 5.0 ? nbins++ : -1;
	for (int code = 0; code < ncodes; code++)
	{
		int			b = bin[code] >= 0 ? bin[code] : nbins;

		obs[b] += observed[code];
		exp_law[b] += law[code];
		exp_twice[b] += twice[code];
		exp_rev[b] += reversed[code];
	}
	/* the rest as a bin when it has sequences; no bin is empty under the law */
	if (exp_law[nbins] > 0.0)
		nbins++;
	else
		CHECK_MSG(obs[nbins] == 0, "%s: %ld runs gave sequences the law never gives",
				  fc->what, obs[nbins]);
	CHECK(nbins >= 10);
	stat = ChiSquareStatistic(obs, exp_law, nbins, runs);
	stat_twice = ChiSquareStatistic(obs, exp_twice, nbins, runs);
	stat_rev = 0.0;
	for (int b = 0; b < nbins; b++)
	{
		/* a sequence seen that the reversed law never gives: rejected outright */
		if (exp_rev[b] == 0.0)
			stat_rev = obs[b] > 0 ? INFINITY : stat_rev;
		else
			stat_rev += ((double) obs[b] - exp_rev[b] * runs) *
				((double) obs[b] - exp_rev[b] * runs) / (exp_rev[b] * runs);
	}
	CHECK_MSG(ChiSquareSurvival(stat, nbins - 1) > P_REJECT,
			  "MST forest law (%s): chi2 = %.2f (df %d)", fc->what, stat, nbins - 1);
	CHECK_MSG(ChiSquareSurvival(stat_twice, nbins - 1) < 1e-12,
			  "forest law (%s) at twice the scale not rejected: chi2 = %.2f", fc->what,
			  stat_twice);
	CHECK_MSG(isinf(stat_rev) || ChiSquareSurvival(stat_rev, nbins - 1) < 1e-12,
			  "forest law (%s) in reverse order not rejected: chi2 = %.2f", fc->what, stat_rev);
	printf("# mst forest (p = %d, %s, %d runs; forests of", p, fc->what, runs);
	for (int len = 0; len < p; len++)
		if (sizes[len] > 0)
			printf(" %d pairs %ld", len, sizes[len]);
	printf("): %d bins, chi2 %.2f (df %d); twice the scale %.0f, reversed %.0f\n",
		   nbins, stat, nbins - 1, stat_twice, stat_rev);
	for (int e = 0; e < npairs; e++)
		free(tables[e]);
	free(law);
	free(twice);
	free(reversed);
	free(observed);
	free(bin);
	free(obs);
	free(exp_law);
	free(exp_twice);
	free(exp_rev);
}

/*
 * MrfMstSelectForest's law (ForestLawCase) in two cases.  4 variables, the
 * pair {0, 1} not given and 20 cells at most: the cap ends some forests at
 * 2 pairs.  6 variables whose given pairs make two components, the 6 pairs
 * of {0, 1, 2, 3} and the pair {4, 5} of 16 cells, 30 cells at most: the
 * forest stops short of spanning whatever the cap (4 pairs at most), and
 * the cap keeps {4, 5} out when 3 pairs of the other component come first
 * and lets it in when it comes early, so a pair stays eligible through
 * some rounds and then drops out, while others stay.
 */
static void
TestForestLaw(void)
{
	static const int ccard4[4] = {2, 3, 2, 4};
	static const int given4[6] = {0, 1, 1, 1, 1, 1};
	static const int copy4[6] = {0, 2, 4, 6, 8, 10};
	static const int ccard6[6] = {2, 3, 2, 4, 4, 4};
	static const int given6[15] = {1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1};
	static const int copy6[15] = {1, 3, 5, 0, 0, 7, 9, 0, 0, 11, 0, 0, 0, 0, 6};
	const ForestCase cases[2] = {
		{"a pair not given, 20 cells at most", 4, ccard4, given4, copy4, 12, 20, 0.002, 4343},
		{"two components, 30 cells at most", 6, ccard6, given6, copy6, 12, 30, 0.003, 4444},
	};

	for (int c = 0; c < 2; c++)
		ForestLawCase(&cases[c]);
}

/*
 * MrfMstSelectForest where the Gumbels cannot reorder the pairs: pair e's
 * quality is 2 d_e for a permutation d of 1..npairs (a table at the
 * uniform one-ways' counts but two cells moved by d_e), so at scale 100
 * the keys' gaps are at least 200, and two of MrfRngGumbel's values differ
 * by less than 41 (they lie in [-3.61, 36.74]): the output must be
 * Kruskal's order by decreasing quality over the given pairs, each kept
 * when it joins two trees and fits max_cells, exactly (the heap's order,
 * at sizes the law tests never reach).  Random shapes (p 2..45 and 200,
 * alphabets of 2 or 3, a share of the pairs given, with and without a
 * cap) reach heaps of up to 19,900 pairs, given graphs of many components
 * and caps that end forests early.  Then the edge cases: p below 2, p = 2,
 * no pair given (an invalid scale is then never read, as in the sequential
 * form, which never drew), an invalid scale with pairs given, a one-way
 * estimate that is not a number, a cap below every pair, no cap.
 */
static void
TestForestOrder(void)
{
	const int	trials = 241;
	int			capped = 0;
	int			split = 0;
	int			largest = 0;
	MrfRng		shape;

	MrfRngInitSeeded(&shape, 4545);
	for (int trial = 0; trial < trials; trial++)
	{
		int			p = trial == trials - 1 ? 200 : 2 + (int) MrfRngBelow(&shape, 44);
		int			npairs = p * (p - 1) / 2;
		int64_t		n = 36 * ((int64_t) npairs + 2);
		double		share = (double[]) {1.0, 0.9, 0.5, 0.1}[MrfRngBelow(&shape, 4)];
		int		   *card = malloc(sizeof(int) * p);
		double	   *store = malloc(sizeof(double) * 3 * p);
		const double **prob = malloc(sizeof(double *) * p);
		int		   *d = malloc(sizeof(int) * npairs);
		int64_t    *tables = malloc(sizeof(int64_t) * 9 * npairs);
		const int64_t **pair = malloc(sizeof(int64_t *) * npairs);
		int		   *pi = malloc(sizeof(int) * npairs);
		int		   *pj = malloc(sizeof(int) * npairs);
		int		   *byq = malloc(sizeof(int) * npairs);
		int		   *root = malloc(sizeof(int) * p);
		int		   *want = malloc(sizeof(int) * 2 * p);
		int		   *edges = malloc(sizeof(int) * 2 * p);
		int64_t		max_cells = 0;
		int64_t		cells = 0;
		int			nwant = 0;
		int			nedges = -1;
		int			selections = -1;
		int			components = p;
		int			same = 1;
		MrfRng		rng;
		MrfStatus	st;

		for (int i = 0; i < p; i++)
		{
			card[i] = 2 + (int) MrfRngBelow(&shape, 2);
			for (int a = 0; a < card[i]; a++)
				store[3 * i + a] = 1.0 / card[i];
			prob[i] = store + 3 * i;
		}
		for (int e = 0; e < npairs; e++)
			d[e] = e + 1;
		for (int e = npairs - 1; e > 0; e--)
		{
			int			f = (int) MrfRngBelow(&shape, e + 1);
			int			x = d[e];

			d[e] = d[f];
			d[f] = x;
		}
		for (int v = 0; v < p; v++)
			root[v] = v;
		for (int i = 0, e = 0; i < p; i++)
			for (int j = i + 1; j < p; j++, e++)
			{
				int64_t    *t = tables + 9 * (int64_t) e;
				int			cells_ij = card[i] * card[j];

				pi[e] = i;
				pj[e] = j;
				for (int c = 0; c < cells_ij; c++)
					t[c] = n / cells_ij;
				t[0] += d[e];
				t[1] -= d[e];
				pair[e] = share >= 1.0 || MrfRngUniform(&shape) < share ? t : NULL;
				/* byq: the pairs by decreasing d */
				byq[npairs - d[e]] = e;
				if (pair[e] != NULL)
					components -= JoinRoots(root, i, j);
			}
		split += components > 1;
		if (MrfRngBelow(&shape, 2))
			max_cells = 4 + (int64_t) MrfRngBelow(&shape, 9 * (p - 1));
		/* Kruskal's order by decreasing quality, within the cap */
		for (int v = 0; v < p; v++)
			root[v] = v;
		for (int k = 0; k < npairs && nwant < p - 1; k++)
		{
			int			e = byq[k];
			int			a = pi[e],
						b = pj[e];
			int64_t		ecells = (int64_t) card[pi[e]] * card[pj[e]];

			if (pair[e] == NULL)
				continue;
			while (root[a] != a)
				a = root[a];
			while (root[b] != b)
				b = root[b];
			if (a == b || (max_cells > 0 && cells + ecells > max_cells))
				continue;
			root[a] = b;
			cells += ecells;
			want[2 * nwant] = pi[e];
			want[2 * nwant + 1] = pj[e];
			nwant++;
		}
		capped += nwant < p - components;
		MrfRngInitSeeded(&rng, 9000 + trial);
		st = MrfMstSelectForest(p, card, pair, prob, n, 100.0, max_cells, NULL, &rng,
								&MrfMallocEnv, edges, &nedges, &selections);
		for (int k = 0; k < nwant && k < nedges; k++)
			same &= edges[2 * k] == want[2 * k] && edges[2 * k + 1] == want[2 * k + 1];
		CHECK_MSG(st == MRF_OK && nedges == nwant && selections == nedges && same,
				  "forest order, trial %d (p %d, %lld cells at most, %d components): status %d, %d pairs (%d selections) against %d, %s",
				  trial, p, (long long) max_cells, components, (int) st, nedges, selections,
				  nwant, same ? "the same order" : "another order");
		if (npairs > largest)
			largest = npairs;
		free(card);
		free(store);
		free(prob);
		free(d);
		free(tables);
		free(pair);
		free(pi);
		free(pj);
		free(byq);
		free(root);
		free(want);
		free(edges);
	}
	CHECK(capped >= 20 && split >= 20);

	/* the edge cases */
	{
		int			card[3] = {2, 3, 2};
		double		store[7] = {0.5, 0.5, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0.5, 0.5};
		const double *prob[3] = {store, store + 2, store + 5};
		int64_t		t01[6] = {5, 1, 1, 1, 1, 1};
		int64_t		t02[4] = {1, 2, 3, 4};
		int64_t		t12[6] = {2, 1, 1, 2, 2, 2};
		const int64_t *all[3] = {t01, t02, t12};
		const int64_t *none[3] = {NULL, NULL, NULL};
		const double bad[4] = {0.0, -1.0, NAN, INFINITY};
		int			edges[4];
		int			nedges = -1;
		int			selections = -1;
		MrfRng		rng;

		MrfRngInitSeeded(&rng, 4646);
		CHECK(MrfMstSelectForest(1, card, all, prob, 10, 1.0, 0, NULL, &rng, &MrfMallocEnv,
								 edges, &nedges, &selections) == MRF_EINVAL &&
			  nedges == 0 && selections == 0);
		/* p = 2: the one pair, or none when it is not given */
		CHECK(MrfMstSelectForest(2, card, all, prob, 10, 1.0, 0, NULL, &rng, &MrfMallocEnv,
								 edges, &nedges, &selections) == MRF_OK &&
			  nedges == 1 && selections == 1 && edges[0] == 0 && edges[1] == 1);
		CHECK(MrfMstSelectForest(2, card, none, prob, 10, 1.0, 0, NULL, &rng, &MrfMallocEnv,
								 edges, &nedges, &selections) == MRF_OK &&
			  nedges == 0 && selections == 0);
		for (int b = 0; b < 4; b++)
		{
			CHECK(MrfMstSelectForest(3, card, none, prob, 12, bad[b], 0, NULL, &rng,
									 &MrfMallocEnv, edges, &nedges, &selections) == MRF_OK &&
				  nedges == 0 && selections == 0);
			CHECK(MrfMstSelectForest(3, card, all, prob, 12, bad[b], 0, NULL, &rng,
									 &MrfMallocEnv, edges, &nedges, &selections) == MRF_EINVAL &&
				  nedges == 0 && selections == 0);
		}
		/* a one-way estimate that is not a number: no order of the keys, refused */
		{
			double		nan2[2] = {0.5, NAN};
			const double *probnan[3] = {store, store + 2, nan2};

			CHECK(MrfMstSelectForest(3, card, all, probnan, 12, 1.0, 0, NULL, &rng,
									 &MrfMallocEnv, edges, &nedges, &selections) == MRF_EINVAL &&
				  nedges == 0 && selections == 0);
		}
		/* a cap below every pair's cells: nothing fits, nothing is selected */
		CHECK(MrfMstSelectForest(3, card, all, prob, 12, 1.0, 3, NULL, &rng, &MrfMallocEnv,
								 edges, &nedges, &selections) == MRF_OK &&
			  nedges == 0 && selections == 0);
		/* no cap (0): a spanning tree of the 3 */
		CHECK(MrfMstSelectForest(3, card, all, prob, 12, 1.0, 0, NULL, &rng, &MrfMallocEnv,
								 edges, &nedges, &selections) == MRF_OK &&
			  nedges == 2 && selections == 2);
	}
	printf("# mst forest order (scale 100, quality gaps 2): %d shapes of up to %d pairs Kruskal's, %d ended by the cap, %d of several components\n",
		   trials, largest, capped, split);
}

/*
 * Samples n rows of a tree model: variable 0 uniform, each other variable v
 * from its parent par[v]: with probability strength its value is the
 * parent's mod card[v], otherwise uniform.
 */
static void
SampleTree(int p, const int *card, const int *par, double strength, int64_t n, MrfRng *rng,
		   MrfCode *rows)
{
	for (int64_t r = 0; r < n; r++)
	{
		MrfCode    *z = rows + r * p;

		for (int v = 0; v < p; v++)
		{
			if (par[v] < 0 || MrfRngUniform(rng) >= strength)
				z[v] = (MrfCode) MrfRngBelow(rng, card[v]);
			else
				z[v] = (MrfCode) (z[par[v]] % card[v]);
		}
	}
}

/* Whether the selected edges are exactly the tree par (as unordered pairs). */
static int
SameTree(int p, const int *par, const int *edges)
{
	for (int e = 0; e < p - 1; e++)
	{
		int			i = edges[2 * e];
		int			j = edges[2 * e + 1];

		if (par[j] != i && par[i] != j)
			return 0;
	}
	return 1;
}

/*
 * Trees with mixed alphabets (2..6) are recovered exactly at large n and
 * rho, and the released model's pair marginals match the data's.
 */
static void
TestRecovery(void)
{
	/* parents listed before children; a tree that is no chain */
	int			card[8] = {3, 2, 6, 4, 5, 2, 3, 6};
	int			par[8] = {-1, 0, 0, 1, 1, 2, 3, 2};
	int			p = 8;
	int64_t		n = 60000;
	MrfCode    *rows = malloc(sizeof(MrfCode) * n * p);
	int			exact = 0;
	const int	reps = 4;
	double		worst = 0.0;
	MrfRng		rng;

	MrfRngInitSeeded(&rng, 77);
	for (int rep = 0; rep < reps; rep++)
	{
		MrfMstOptions opt;
		MrfMstReport report;
		int			edges[2 * 7];
		double	   *logpot = malloc(sizeof(double) * MrfMstMaxTreeCells(p, card));
		MrfCliqueSet *set;
		int			start[8];
		double	   *marg;

		SampleTree(p, card, par, 0.6, n, &rng, rows);
		MrfMstDefaultOptions(&opt);
		opt.rho = 10.0;
		CHECK(MrfMstLearn(rows, n, p, card, &opt, &rng, &MrfMallocEnv, edges, logpot, &report) == MRF_OK);
		exact += SameTree(p, par, edges);
		CHECK(report.rho_one_way + report.rho_select + report.rho_two_way <= 10.0);
		CHECK(report.estimate.exact == 1);
		CHECK(report.estimate.loss < report.estimate.loss_start);
		/* the model's pair marginals against the data's */
		for (int e = 0; e < p; e++)
			start[e] = 2 * e;
		CHECK(MrfCliqueSetBuildAlphabets(p, card, p - 1, start, edges, 0, &MrfMallocEnv, &set) == MRF_OK);
		CHECK(MrfMstTreeCells(p, card, edges) == set->cells);
		marg = malloc(sizeof(double) * set->cells);
		CHECK(MrfCliquesMarginals(set, logpot, NULL, &MrfMallocEnv, marg, NULL) == MRF_OK);
		for (int e = 0; e < p - 1; e++)
		{
			int			i = set->var[set->start[e]];
			int			j = set->var[set->start[e] + 1];

			for (int a = 0; a < card[i]; a++)
				for (int b = 0; b < card[j]; b++)
				{
					int64_t		c = 0;

					for (int64_t r = 0; r < n; r++)
						c += rows[r * p + i] == a && rows[r * p + j] == b;
					worst = fmax(worst, fabs(marg[set->offset[e] + a * card[j] + b] - (double) c / n));
				}
		}
		free(marg);
		MrfCliqueSetFree(&MrfMallocEnv, set);
		free(logpot);
	}
	CHECK_MSG(exact == reps, "true tree selected in %d of %d releases", exact, reps);
	/* noise sd at rho 10: sqrt(7 / 3.33) = 1.45 counts of 60000; the fit is that close */
	CHECK_MSG(worst < 0.002, "largest pair-marginal error %.5f", worst);
	printf("# mst recovery (p = 8, k 2..6, n = %lld, rho 10): %d of %d exact, max marginal error %.5f\n",
		   (long long) n, exact, reps, worst);
	free(rows);
}

/*
 * Rare values are merged and come back spread evenly; values that never
 * occur get little mass.  At rho 0.05 sigma_1 = sqrt(p / rho_1) = 17 for
 * p = 5, so counts below 52 are rare.
 */
static void
TestCompression(void)
{
	int			card[5] = {8, 2, 3, 2, 2};
	int			par[5] = {-1, 0, 0, 1, 2};
	int			p = 5;
	int64_t		n = 20000;
	MrfCode    *rows = malloc(sizeof(MrfCode) * n * p);
	MrfMstOptions opt;
	MrfMstReport report;
	int			edges[8];
	double	   *logpot = malloc(sizeof(double) * MrfMstMaxTreeCells(p, card));
	MrfCliqueSet *set;
	int			start[5] = {0, 2, 4, 6, 8};
	double	   *marg;
	MrfRng		rng;
	double		mass[8] = {0};

	MrfRngInitSeeded(&rng, 5);
	SampleTree(p, card, par, 0.5, n, &rng, rows);
	/* variable 0 uses only values 0..3: 4..7 never occur */
	for (int64_t r = 0; r < n; r++)
		rows[r * p] &= 3;
	MrfMstDefaultOptions(&opt);
	opt.rho = 0.05;
	CHECK(MrfMstLearn(rows, n, p, card, &opt, &rng, &MrfMallocEnv, edges, logpot, &report) == MRF_OK);
	CHECK(report.compressed >= 1 && report.rare_values >= 3);
	CHECK(MrfCliqueSetBuildAlphabets(p, card, p - 1, start, edges, 0, &MrfMallocEnv, &set) == MRF_OK);
	marg = malloc(sizeof(double) * set->cells);
	CHECK(MrfCliquesMarginals(set, logpot, NULL, &MrfMallocEnv, marg, NULL) == MRF_OK);
	for (int e = 0; e < p - 1; e++)
		if (set->var[set->start[e]] == 0)
		{
			int			kj = card[set->var[set->start[e] + 1]];

			for (int a = 0; a < 8; a++)
				for (int b = 0; b < kj; b++)
					mass[a] += marg[set->offset[e] + a * kj + b];
			break;
		}
	CHECK_MSG(mass[4] + mass[5] + mass[6] + mass[7] < 0.02, "mass of absent values %.4f",
			  mass[4] + mass[5] + mass[6] + mass[7]);
	/* merged values share their code's mass evenly */
	CHECK_NEAR(mass[5], mass[4], 1e-9);
	CHECK_NEAR(mass[7], mass[6], 1e-9);
	for (int a = 0; a < 4; a++)
		CHECK_NEAR(mass[a], 0.25, 0.03);
	MrfCliqueSetFree(&MrfMallocEnv, set);
	free(marg);
	free(logpot);
	free(rows);
}

/*
 * MST from tables counted elsewhere (Citus workers: the sum of two halves'
 * tables) is MST from the rows, bit for bit, with the same draws; a value
 * outside its alphabet is refused by the counting.
 */
static void
TestLearnCounts(void)
{
	int			card[5] = {8, 2, 3, 2, 2};
	int			par[5] = {-1, 0, 0, 1, 2};
	int			p = 5;
	int64_t		n = 5000;
	int64_t		half = 1999;
	MrfCode    *rows = malloc(sizeof(MrfCode) * n * p);
	int64_t		one_cells = MrfMstOneWayCells(p, card);
	int64_t		two_cells = MrfMstTwoWayCells(p, card, NULL);
	int64_t    *one = malloc(sizeof(int64_t) * one_cells * 2);
	int64_t    *two = malloc(sizeof(int64_t) * two_cells * 2);
	MrfMstOptions opt;
	MrfMstReport r1,
				r2;
	int			e1[8],
				e2[8];
	double	   *l1 = malloc(sizeof(double) * MrfMstMaxTreeCells(p, card));
	double	   *l2 = malloc(sizeof(double) * MrfMstMaxTreeCells(p, card));
	MrfRng		rng;

	MrfRngInitSeeded(&rng, 9);
	SampleTree(p, card, par, 0.5, n, &rng, rows);
	MrfMstDefaultOptions(&opt);
	opt.rho = 0.5;
	CHECK(MrfMstCount(rows, half, p, card, &MrfMallocEnv, one, two) == MRF_OK);
	CHECK(MrfMstCount(rows + half * p, n - half, p, card, &MrfMallocEnv, one + one_cells,
					  two + two_cells) == MRF_OK);
	for (int64_t c = 0; c < one_cells; c++)
		one[c] += one[one_cells + c];
	for (int64_t c = 0; c < two_cells; c++)
		two[c] += two[two_cells + c];
	MrfRngInitSeeded(&rng, 31);
	CHECK(MrfMstLearn(rows, n, p, card, &opt, &rng, &MrfMallocEnv, e1, l1, &r1) == MRF_OK);
	MrfRngInitSeeded(&rng, 31);
	CHECK(MrfMstLearnCounts(one, two, n, p, card, &opt, &rng, &MrfMallocEnv, e2, l2, &r2) == MRF_OK);
	CHECK(memcmp(e1, e2, sizeof(e1)) == 0);
	CHECK(memcmp(l1, l2, sizeof(double) * MrfMstTreeCells(p, card, e1)) == 0);
	CHECK(r1.estimate.iterations == r2.estimate.iterations && r1.rare_values == r2.rare_values);
	CHECK(MrfMstLearnCounts(NULL, two, n, p, card, &opt, &rng, &MrfMallocEnv, e2, l2, &r2) == MRF_EINVAL);
	/* the estimate's steps: 1 to MRF_ESTIMATE_MAX_ITERATIONS (option iterations' range) */
	opt.estimate.iterations = 1;
	CHECK(MrfMstLearnCounts(one, two, n, p, card, &opt, &rng, &MrfMallocEnv, e2, l2, &r2) == MRF_OK);
	CHECK(r2.estimate.iterations == 1);
	opt.estimate.iterations = 0;
	CHECK(MrfMstLearnCounts(one, two, n, p, card, &opt, &rng, &MrfMallocEnv, e2, l2, &r2) == MRF_EINVAL);
	opt.estimate.iterations = MRF_ESTIMATE_MAX_ITERATIONS + 1;
	CHECK(MrfMstLearn(rows, n, p, card, &opt, &rng, &MrfMallocEnv, e2, l2, &r2) == MRF_EINVAL);
	rows[3 * p + 1] = 2;
	CHECK(MrfMstCount(rows, n, p, card, &MrfMallocEnv, one, two) == MRF_EINVAL);
	free(rows);
	free(one);
	free(two);
	free(l1);
	free(l2);
}

/* The estimator against a closed form: one variable, one measurement. */
static void
TestEstimateOneWay(void)
{
	int			card[2] = {3, 2};
	int			start[2] = {0, 2};
	int			var[2] = {0, 1};
	double		y[3] = {600.0, 300.0, 100.0};
	double		y2[6] = {300, 300, 150, 150, 50, 50};
	MrfMeasurement meas[2];
	MrfEstimateOptions opt;
	MrfEstimateReport rep;
	MrfCliqueSet *set;
	double		logpot[6];
	double		marg[6];
	double		proj[3];

	CHECK(MrfCliqueSetBuildAlphabets(2, card, 1, start, var, 0, &MrfMallocEnv, &set) == MRF_OK);
	memset(meas, 0, sizeof(meas));
	meas[0].clique = 0;
	meas[0].size = 1;
	meas[0].vars[0] = 0;
	meas[0].y = y;
	meas[0].sigma2 = 4.0;
	meas[1].clique = 0;
	meas[1].size = 2;
	meas[1].vars[0] = 0;
	meas[1].vars[1] = 1;
	meas[1].y = y2;
	meas[1].sigma2 = 4.0;
	MrfEstimateDefaultOptions(&opt);
	CHECK(MrfEstimate(set, card, meas, 2, 1000, &opt, &MrfMallocEnv, logpot, &rep) == MRF_OK);
	CHECK(MrfCliquesMarginals(set, logpot, NULL, &MrfMallocEnv, marg, NULL) == MRF_OK);
	/* consistent measurements: the estimate reproduces them */
	for (int c = 0; c < 6; c++)
		CHECK_NEAR(marg[c] * 1000.0, y2[c], 0.05);
	CHECK(rep.loss < 1e-3 && rep.exact == 1);
	/* a measurement outside the clique is refused */
	meas[1].vars[1] = 2;
	CHECK(MrfEstimate(set, card, meas, 2, 1000, &opt, &MrfMallocEnv, logpot, &rep) == MRF_EINVAL);
	MrfCliqueSetFree(&MrfMallocEnv, set);

	/* the weighted projection: negative values clipped, total n */
	{
		double		yy[3] = {-50.0, 700.0, 400.0};

		MrfProjectOneWay(yy, NULL, 3, 1000, proj);
		CHECK_NEAR(proj[0], 0.0, 1e-12);
		CHECK_NEAR(proj[1], 0.65, 1e-9);
		CHECK_NEAR(proj[2], 0.35, 1e-9);
	}
}

/*
 * The memory plan against the real peak (a counting allocator) over many
 * random shapes: narrow and wide columns (up to 1,500 values, Zipf tails
 * that compression merges), rows and tables counted elsewhere; the release
 * over the rows' alphabets within MrfMstMaxTreeCells, the plan's bound.
 */
static void
TestWorkspacePlan(void)
{
	enum
	{
		SHAPES = 160, NMAX = 60000, PMAX = 10
	};
	MrfCode    *rows = malloc(sizeof(MrfCode) * NMAX * PMAX);
	MrfRng		shape;
	int			runs = 0;
	int			compressed = 0;
	double		worst = 0.0;
	int			worst_shape = -1;

	MrfRngInitSeeded(&shape, 777);
	for (int s = 0; s < SHAPES; s++)
	{
		/* one shape in four of 2 columns: the tree is every pair, the plan's tightest case */
		int			p = MrfRngU64(&shape) % 4 == 0 ? 2 : 3 + (int) (MrfRngU64(&shape) % (PMAX - 2));
		int			card[PMAX];
		int64_t		n = (int64_t[]) {30, 400, 3000, NMAX}[MrfRngU64(&shape) % 4];
		int			counted = (int) (MrfRngU64(&shape) % 2);
		int			flat = (int) (MrfRngU64(&shape) % 3 == 0);
		int			wide = 0;
		int			edges[2 * PMAX];
		MrfMstOptions opt;
		MrfMstReport rep;
		CountingEnv ce;
		MrfEnv		env;
		MrfRng		rng;
		MrfStatus	st;
		double		planned;
		int64_t    *counts = NULL;
		int64_t		one_cells;
		double	   *logpot;

		for (int i = 0; i < p; i++)
		{
			int			kind = (int) (MrfRngU64(&shape) % 4);

			/* at most two wide columns: the tree's tables stay within tens of MB */
			if (kind == 0 && wide++ < 2)
				card[i] = 100 + (int) (MrfRngU64(&shape) % (flat ? 601 : 1401));
			else
				card[i] = kind <= 1 ? 10 + (int) (MrfRngU64(&shape) % 60) :
					2 + (int) (MrfRngU64(&shape) % 6);
		}
		/* Zipf-like values, each column a noisy copy of the one before */
		for (int64_t r = 0; r < n; r++)
			for (int i = 0; i < p; i++)
			{
				double		u = MrfRngUniform(&shape);
				int			v = flat ? (int) MrfRngBelow(&shape, card[i]) :
					(int) floor(pow((double) card[i] + 1.0, u)) - 1;

				if (i > 0 && MrfRngUniform(&shape) < 0.5)
					v = rows[r * p + i - 1];
				rows[r * p + i] = (MrfCode) (v % card[i]);
			}
		MrfMstDefaultOptions(&opt);
		opt.rho = (double[]) {0.01, 0.5, 20.0}[MrfRngU64(&shape) % 3];
		opt.estimate.iterations = 30;
		one_cells = MrfMstOneWayCells(p, card);
		if (counted)
		{
			counts = calloc(one_cells + MrfMstTwoWayCells(p, card, NULL) + 1, sizeof(int64_t));
			CHECK(MrfMstCount(rows, n, p, card, &MrfMallocEnv, counts, counts + one_cells) == MRF_OK);
		}
		planned = (double) MrfMstWorkspaceBytes(p, card);
		logpot = malloc(sizeof(double) * (MrfMstMaxTreeCells(p, card) + 1));
		CountingEnvInit(&ce, &env);
		MrfRngInitSeeded(&rng, 300 + s);
		st = counted ?
			MrfMstLearnCounts(counts, counts + one_cells, n, p, card, &opt, &rng, &env, edges,
							  logpot, &rep) :
			MrfMstLearn(rows, n, p, card, &opt, &rng, &env, edges, logpot, &rep);
		CHECK_MSG(st == MRF_OK, "shape %d: status %d", s, (int) st);
		if (st == MRF_OK)
		{
			runs++;
			compressed += rep.compressed > 0;
			if ((double) ce.peak / planned > worst)
			{
				worst = (double) ce.peak / planned;
				worst_shape = s;
			}
			CHECK_MSG((double) ce.peak <= planned,
					  "shape %d (p %d, n %lld, rho %g, counted %d, %d compressed, %d merged): peak %zu above the plan %.0f",
					  s, p, (long long) n, opt.rho, counted, rep.compressed, rep.rare_values,
					  ce.peak, planned);
			CHECK_MSG(MrfMstTreeCells(p, card, edges) <= MrfMstMaxTreeCells(p, card),
					  "shape %d: the release has %lld cells, the bound %lld", s,
					  (long long) MrfMstTreeCells(p, card, edges),
					  (long long) MrfMstMaxTreeCells(p, card));
		}
		CHECK_MSG(ce.live == 0, "shape %d: %zu bytes left allocated", s, ce.live);
		free(logpot);
		free(counts);
	}
	printf("# mst workspace plan: %d runs (%d compressed), largest peak/plan %.3f (shape %d)\n",
		   runs, compressed, worst, worst_shape);
	CHECK(runs == SHAPES && compressed >= SHAPES / 4);
	free(rows);
}

/* One MST release of a sweep: from the rows or from their tables; or the counting. */
typedef struct MstOomCase
{
	const MrfCode *rows;
	const int64_t *counts;		/* one-way then two-way tables, or NULL: the rows */
	int64_t		n;
	int			p;
	const int  *card;
	MrfMstOptions opt;
	uint64_t	seed;
	int			compressed;		/* the unrefused run's report */
	int64_t    *tables;			/* not NULL: only MrfMstCount into these */
	int		   *edges;
	double	   *logpot;
} MstOomCase;

static MrfStatus
MstOomRelease(void *arg, const MrfEnv *env)
{
	MstOomCase *c = arg;
	MrfMstReport rep;
	MrfRng		rng;
	MrfStatus	st;

	if (c->tables != NULL)
		return MrfMstCount(c->rows, c->n, c->p, c->card, env, c->tables,
						   c->tables + MrfMstOneWayCells(c->p, c->card));
	MrfRngInitSeeded(&rng, c->seed);
	st = c->counts != NULL ?
		MrfMstLearnCounts(c->counts, c->counts + MrfMstOneWayCells(c->p, c->card), c->n, c->p,
						  c->card, &c->opt, &rng, env, c->edges, c->logpot, &rep) :
		MrfMstLearn(c->rows, c->n, c->p, c->card, &c->opt, &rng, env, c->edges, c->logpot, &rep);
	if (st == MRF_OK)
		c->compressed = rep.compressed;
	return st;
}

/*
 * Every allocation of an MST release refused in turn (harness.h's sweep):
 * from the rows and from their tables, with and without rare values
 * compressed (a column of 12 values, four of them rare, at rho 0.05); and
 * the tables' one scan (a Citus worker's).
 */
static void
TestOutOfMemory(void)
{
	int			card[5] = {12, 2, 3, 2, 3};
	int			par[5] = {-1, 0, 0, 1, 2};
	int			p = 5;
	int64_t		n = 3000;
	MrfCode    *rows = malloc(sizeof(MrfCode) * n * p);
	int64_t		one_cells = MrfMstOneWayCells(p, card);
	int64_t    *counts = calloc(one_cells + MrfMstTwoWayCells(p, card, NULL), sizeof(int64_t));
	int64_t    *scan = calloc(one_cells + MrfMstTwoWayCells(p, card, NULL), sizeof(int64_t));
	int			edges[8];
	double	   *logpot = malloc(sizeof(double) * MrfMstMaxTreeCells(p, card));
	long		refused = 0;
	double		seconds = 0.0;
	int			compressed = 0;
	MrfRng		rng;

	MrfRngInitSeeded(&rng, 4242);
	SampleTree(p, card, par, 0.5, n, &rng, rows);
	/* values 8..11 of the first column are rare */
	for (int64_t r = 0; r < n; r++)
		if (rows[r * p] >= 8 && r % 40 != 0)
			rows[r * p] -= 8;
	CHECK(MrfMstCount(rows, n, p, card, &MrfMallocEnv, counts, counts + one_cells) == MRF_OK);
	for (int shape = 0; shape < 5; shape++)
	{
		MstOomCase c;
		OomSweepResult res;

		memset(&c, 0, sizeof(c));
		c.rows = rows;
		c.counts = shape % 2 ? counts : NULL;
		c.n = n;
		c.p = p;
		c.card = card;
		MrfMstDefaultOptions(&c.opt);
		c.opt.rho = shape < 2 ? 0.05 : 50.0;
		c.opt.estimate.iterations = 10;
		c.seed = 61 + shape;
		c.edges = edges;
		c.logpot = logpot;
		c.tables = shape == 4 ? scan : NULL;
		res = OomSweep(shape == 4 ? "mst counts" : shape % 2 ? "mst from tables" : "mst from rows",
					   MstOomRelease, &c);
		refused += res.refused;
		seconds += res.seconds;
		compressed += c.compressed > 0;
	}
	printf("# mst out of memory: %ld refused requests over 4 releases and a scan in %.2f s, each a clean MRF_ENOMEM (%d compressed)\n",
		   refused, seconds, compressed);
	CHECK(compressed == 2 && refused > 40);
	free(rows);
	free(counts);
	free(scan);
	free(logpot);
}

/* The test group. */
void
TestMst(void)
{
	TestOutOfMemory();
	TestCounts();
	TestCalibration();
	TestSelectionRounding();
	TestSelectionLaw();
	TestForestLaw();
	TestForestOrder();
	TestEstimateOneWay();
	TestRecovery();
	TestCompression();
	TestLearnCounts();
	TestWorkspacePlan();
}
