/*
 * test_twise.c - the binary t-wise learners (twise.c: Algorithms 4 and 5 of
 * Zhang et al. 2020), their parity-query releases and the t-wise sampler.
 *
 * Exact probabilities and moments here come from direct enumeration of all
 * 2^p states, written independently of twise.c and sample.c.  Every run uses
 * a fixed seed; thresholds are set so that a correct implementation fails
 * with probability about 1e-4 per check or less, and every calibration test
 * has a negative control that shows it can fail.
 */
#include <cblas.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "noise.h"
#include "privacy.h"
#include "rows.h"
#include "sample.h"
#include "twise.h"

/* p-value below which a calibration is rejected. */
#define P_REJECT 1e-4

/* Runs of the one-step selection histograms. */
#define SELECTION_RUNS 100000

/* The known t = 3 model of the accuracy tests. */
#define ACC_P 7
#define ACC_T 3
#define ACC_N 40000
#define ACC_SEEDS 3

/* ---- helpers ---- */

/* Coefficient index of the sorted set vars[0..k-1], asserting validity. */
static int64_t
SetIndex(int p, const int *vars, int k)
{
	int64_t		index = MrfSubsetIndex(p, vars, k);

	if (index < 0)
	{
		printf("FAIL: bad set in a test model\n");
		exit(1);
	}
	return index;
}

/* Sets the coefficient of a monomial given as a sorted list. */
static void
SetCoef(double *coef, int p, int k, const int *vars, double value)
{
	coef[SetIndex(p, vars, k)] = value;
}

/* Product of the spins of set c (decoded) in state s (bit j set: z_j = +1). */
static int
StateParity(int p, int64_t c, long s)
{
	int			vars[MRF_TWISE_MAX_ORDER + 1];
	int			k = MrfSubsetVars(p, c, vars);
	int			prod = 1;
	int			j;

	for (j = 0; j < k; j++)
		prod *= ((s >> vars[j]) & 1) ? 1 : -1;
	return prod;
}

/* Exact state probabilities of a t-wise model, by direct enumeration. */
static void
TwiseProbabilities(const double *coef, int p, int t, double *prob)
{
	long		states = 1L << p;
	int64_t		count = MrfTwiseCoefCount(p, t);
	double		top = -INFINITY;
	double		total = 0.0;
	long		s;

	for (s = 0; s < states; s++)
	{
		double		e = 0.0;
		int64_t		c;

		for (c = 1; c < count; c++)
			if (coef[c] != 0.0)
				e += coef[c] * StateParity(p, c, s);
		prob[s] = e;
		top = e > top ? e : top;
	}
	for (s = 0; s < states; s++)
	{
		prob[s] = exp(prob[s] - top);
		total += prob[s];
	}
	for (s = 0; s < states; s++)
		prob[s] /= total;
}

/* Exact parity means E[prod_{j in set c} z_j] for all sets of size <= m. */
static void
ExactMeans(const double *prob, int p, int m, double *mean)
{
	int64_t		count = MrfSubsetCount(p, m);
	int64_t		c;

	for (c = 0; c < count; c++)
	{
		double		e = 0.0;
		long		s;

		for (s = 0; s < (1L << p); s++)
			e += prob[s] * StateParity(p, c, s);
		mean[c] = e;
	}
}

/* Packs n x p rows of +-1 into the bit layout of rows.h. */
static uint64_t *
PackRows(const int8_t *z, int64_t n, int p)
{
	int			words = MrfBitWords(p);
	uint64_t   *bits = calloc((size_t) n * words, sizeof(uint64_t));
	int64_t		m;
	int			j;

	for (m = 0; m < n; m++)
		for (j = 0; j < p; j++)
			if (z[m * p + j] > 0)
				MrfBitSet(bits + m * words, j);
	return bits;
}

/* Largest |factor * est - truth| over the entries c = 1..count-1. */
static double
MaxCoefError(const double *est, const double *truth, int64_t count, double factor)
{
	double		worst = 0.0;
	int64_t		c;

	for (c = 1; c < count; c++)
	{
		double		e = fabs(factor * est[c] - truth[c]);

		worst = e > worst ? e : worst;
	}
	return worst;
}

/* Options with the given objective and budget, everything else default. */
static MrfTwiseOptions
Options(MrfTwiseObjective objective, MrfTwiseRelease release, double rho,
		double lambda, int t)
{
	MrfTwiseOptions opt;

	memset(&opt, 0, sizeof(opt));
	opt.t = t;
	opt.rho = rho;
	opt.lambda = lambda;
	opt.mechanism = MRF_MECH_EXPONENTIAL;
	opt.objective = objective;
	opt.release = release;
	return opt;
}

/* ---- subset indexing ---- */

/*
 * Round trip for every p <= 9 and size bound: the iterator visits the sets
 * in index order, sorted, sizes non-decreasing; MrfSubsetIndex and
 * MrfSubsetVars agree with it and with each other; the counts match; known
 * indices of the graded colex order; invalid sets are refused.
 */
static void
TestSubsetIndexing(void)
{
	int			p;
	int			ok = 1;
	int			vars[MRF_TWISE_MAX_ORDER + 1];
	int			back[64];
	int			k;
	const int	pair02[2] = {0, 2};
	const int	pair12[2] = {1, 2};
	const int	pair03[2] = {0, 3};
	const int	triple[3] = {1, 3, 4};
	const int	unsorted[2] = {2, 1};
	const int	dup[2] = {1, 1};
	const int	out[2] = {1, 7};
	int64_t		idx;
	MrfRng		rng;
	int			r;

	for (p = 1; p <= 9; p++)
	{
		int			m;

		for (m = 0; m <= p; m++)
		{
			int64_t		c = 0;
			int			last_k = 0;

			k = 0;
			/* the empty set first */
			ok &= MrfSubsetIndex(p, vars, 0) == 0;
			ok &= MrfSubsetVars(p, 0, back) == 0;
			while (MrfSubsetNext(p, m, vars, &k))
			{
				int			j;
				int			kb;

				c++;
				ok &= k >= last_k && k <= m;
				last_k = k;
				for (j = 1; j < k; j++)
					ok &= vars[j] > vars[j - 1];
				ok &= MrfSubsetIndex(p, vars, k) == c;
				kb = MrfSubsetVars(p, c, back);
				ok &= kb == k;
				for (j = 0; j < k && kb == k; j++)
					ok &= back[j] == vars[j];
			}
			ok &= c + 1 == MrfSubsetCount(p, m);
		}
	}
	CHECK_MSG(ok, "subset enumeration, index and decoding disagree");

	/* graded colex: {}, {0}..{p-1}, then {0,1}, {0,2}, {1,2}, {0,3}, ... */
	CHECK(MrfSubsetIndex(10, pair02, 2) == 11 + 1);
	CHECK(MrfSubsetIndex(10, pair12, 2) == 11 + 2);
	CHECK(MrfSubsetIndex(10, pair03, 2) == 11 + 3);
	/* {1,3,4}: 1 + 10 + 45 (sizes 0..2) + C(1,1) + C(3,2) + C(4,3) = 64 */
	CHECK(MrfSubsetIndex(10, triple, 3) == 64);
	CHECK(MrfSubsetVars(10, 64, back) == 3 && back[0] == 1 && back[1] == 3 &&
		  back[2] == 4);
	CHECK(MrfSubsetIndex(10, unsorted, 2) == -1);
	CHECK(MrfSubsetIndex(10, dup, 2) == -1);
	CHECK(MrfSubsetIndex(7, out, 2) == -1);
	CHECK(MrfSubsetVars(5, 32, back) == -1);	/* 2^5 sets: 0..31 */
	CHECK(MrfSubsetVars(5, 31, back) == 5);

	CHECK(MrfSubsetCount(20, 2) == 211);
	CHECK(MrfTwiseFeatureCount(20, 3) == 211);
	CHECK(MrfTwiseCoefCount(20, 3) == 1351);
	CHECK(MrfTwiseQueryCount(20, 3) == 210);
	CHECK(MrfSubsetCount(6, 6) == 64);
	CHECK(MrfSubsetCount(200, 100) == -1);	/* overflow, not wrap-around */

	/* large p: random sets survive the round trip */
	MrfRngInitSeeded(&rng, 401);
	ok = 1;
	for (r = 0; r < 2000; r++)
	{
		const int	bigp = 5000;
		int			kk = 1 + (int) MrfRngBelow(&rng, 4);
		int			j;

		for (j = 0; j < kk; j++)
		{
			int			v;
			int			l;
			int			fresh;

			do
			{
				v = (int) MrfRngBelow(&rng, bigp);
				fresh = 1;
				for (l = 0; l < j; l++)
					fresh &= vars[l] != v;
			} while (!fresh);
			/* insertion keeps vars sorted */
			for (l = j; l > 0 && vars[l - 1] > v; l--)
				vars[l] = vars[l - 1];
			vars[l] = v;
		}
		idx = MrfSubsetIndex(bigp, vars, kk);
		ok &= idx > 0 && MrfSubsetVars(bigp, idx, back) == kk;
		for (j = 0; j < kk; j++)
			ok &= back[j] == vars[j];
	}
	CHECK_MSG(ok, "round trip failed for p = 5000");
}

/* ---- the sampler ---- */

/*
 * p = 4, t = 3 on the exact path: state frequencies against the enumerated
 * law (chi-square); negative controls: the law with the triangle
 * coefficient's sign flipped, and with every coefficient doubled.
 */
static void
TestSampleExact(void)
{
	const int	p = 4;
	const int	t = 3;
	const long	n = 200000;
	const int	tri[3] = {0, 1, 3};
	const int	pair[2] = {1, 2};
	const int	f0[1] = {0};
	const int	f2[1] = {2};
	double		coef[15];
	double		alt[15];
	double		prob[16];
	long		counts[16];
	int8_t	   *rows = malloc((size_t) n * p);
	MrfRng		rng;
	double		pv;
	long		m;
	int			c;

	memset(coef, 0, sizeof(coef));
	CHECK(MrfTwiseCoefCount(p, t) == 15);
	SetCoef(coef, p, 3, tri, 0.5);
	SetCoef(coef, p, 2, pair, -0.4);
	SetCoef(coef, p, 1, f0, 0.3);
	SetCoef(coef, p, 1, f2, -0.2);

	MrfRngInitSeeded(&rng, 411);
	CHECK(MrfTwiseSample(coef, p, t, n, 0, 1, &rng, &MrfMallocEnv, rows) == MRF_OK);
	memset(counts, 0, sizeof(counts));
	for (m = 0; m < n; m++)
	{
		long		s = 0;
		int			j;

		for (j = 0; j < p; j++)
			s |= rows[m * p + j] > 0 ? 1L << j : 0;
		counts[s]++;
	}
	TwiseProbabilities(coef, p, t, prob);
	pv = ChiSquareSurvival(ChiSquareStatistic(counts, prob, 16, n), 15);
	CHECK_MSG(pv > P_REJECT, "t-wise exact sampler: p-value %.3g", pv);

	memcpy(alt, coef, sizeof(coef));
	alt[SetIndex(p, tri, 3)] = -0.5;
	TwiseProbabilities(alt, p, t, prob);
	pv = ChiSquareSurvival(ChiSquareStatistic(counts, prob, 16, n), 15);
	CHECK_MSG(pv < 1e-12, "control: flipped triangle not rejected, p-value %.3g", pv);
	for (c = 0; c < 15; c++)
		alt[c] = 2.0 * coef[c];
	TwiseProbabilities(alt, p, t, prob);
	pv = ChiSquareSurvival(ChiSquareStatistic(counts, prob, 16, n), 15);
	CHECK_MSG(pv < 1e-12, "control: doubled model not rejected, p-value %.3g", pv);
	free(rows);
}

/*
 * p = 18 > MRF_EXACT_MAX_P, so Gibbs: a triangle, a pair and two fields
 * among nodes 0..3, and a field on an isolated node.  Moments of the block come from
 * enumerating its 16 states; an isolated node with field f has mean
 * tanh(f).  Tolerances allow for the chain's autocorrelation (5 standard
 * errors of n / 4 effective draws).
 */
static void
TestSampleGibbs(void)
{
	const int	p = 18;
	const int	t = 3;
	const long	n = 40000;
	const int	tri[3] = {0, 1, 2};
	const int	pair[2] = {2, 3};
	const int	f1[1] = {1};
	const int	f2[1] = {2};
	const int	f10[1] = {10};
	const int	pair01[2] = {0, 1};
	double	   *coef = calloc((size_t) MrfTwiseCoefCount(p, t), sizeof(double));
	double		block[15];
	double		prob[16];
	double		mean[11];
	int8_t	   *rows = malloc((size_t) n * p);
	double		m012 = 0;
	double		m23 = 0;
	double		m01 = 0;
	double		m1 = 0;
	double		m10 = 0;
	double		se = 5.0 / sqrt(n / 4.0);
	MrfRng		rng;
	long		m;

	SetCoef(coef, p, 3, tri, 0.6);
	SetCoef(coef, p, 2, pair, 0.5);
	SetCoef(coef, p, 1, f1, 0.3);
	SetCoef(coef, p, 1, f2, 0.3);
	SetCoef(coef, p, 1, f10, -0.7);

	memset(block, 0, sizeof(block));
	SetCoef(block, 4, 3, tri, 0.6);
	SetCoef(block, 4, 2, pair, 0.5);
	SetCoef(block, 4, 1, f1, 0.3);
	SetCoef(block, 4, 1, f2, 0.3);
	TwiseProbabilities(block, 4, 3, prob);
	ExactMeans(prob, 4, 2, mean);

	MrfRngInitSeeded(&rng, 421);
	CHECK(MrfTwiseSample(coef, p, t, n, 200, 2, &rng, &MrfMallocEnv, rows) == MRF_OK);
	for (m = 0; m < n; m++)
	{
		const int8_t *z = rows + m * p;

		m012 += z[0] * z[1] * z[2];
		m23 += z[2] * z[3];
		m01 += z[0] * z[1];
		m1 += z[1];
		m10 += z[10];
	}
	{
		double		e012 = 0;
		long		s;

		for (s = 0; s < 16; s++)
			e012 += prob[s] * StateParity(4, SetIndex(4, tri, 3), s);
		CHECK_NEAR(m012 / n, e012, se);
	}
	CHECK_NEAR(m23 / n, mean[SetIndex(4, pair, 2)], se);
	CHECK_NEAR(m01 / n, mean[SetIndex(4, pair01, 2)], se);
	CHECK_NEAR(m1 / n, mean[SetIndex(4, f1, 1)], se);
	CHECK_NEAR(m10 / n, tanh(-0.7), se);
	/* the triangle matters: without it E[z0 z1] would be 0 */
	CHECK(fabs(mean[SetIndex(4, pair01, 2)]) > 3 * se);

	/* invalid arguments */
	CHECK(MrfTwiseSample(coef, p, 0, 10, 0, 1, &rng, &MrfMallocEnv, rows) == MRF_EINVAL);
	CHECK(MrfTwiseSample(coef, p, p + 1, 10, 0, 1, &rng, &MrfMallocEnv, rows) == MRF_EINVAL);
	CHECK(MrfTwiseSample(coef, p, t, 10, 0, 0, &rng, &MrfMallocEnv, rows) == MRF_EINVAL);
	coef[5] = NAN;
	CHECK(MrfTwiseSample(coef, p, t, 10, 0, 1, &rng, &MrfMallocEnv, rows) == MRF_EINVAL);
	free(coef);
	free(rows);
}

/* ---- accuracy on a known t = 3 model ---- */

/*
 * p = 7: triangle {0,1,2} = 0.5 with the pair {0,1} = 0.2 inside it, a path
 * 2-3-4 (+0.4, -0.4), an isolated pair {5,6} = 0.3, and fields 0.2 on 1,
 * 0.4 on 2, 0.2 on 4.  Width max_i ||d_i h||_1 = 1.3 (node 2) <= lambda =
 * 1.4.  The fields make the parity means nonzero, so that Algorithm 5's
 * correction terms matter (the target of {0,1} is 0.42, its coefficient 0.2).
 */
static void
AccuracyModel(double *coef)
{
	const int	tri[3] = {0, 1, 2};
	const int	p01[2] = {0, 1};
	const int	p23[2] = {2, 3};
	const int	p34[2] = {3, 4};
	const int	p56[2] = {5, 6};
	const int	f1[1] = {1};
	const int	f2[1] = {2};
	const int	f4[1] = {4};

	memset(coef, 0, sizeof(double) * (size_t) MrfTwiseCoefCount(ACC_P, ACC_T));
	SetCoef(coef, ACC_P, 3, tri, 0.5);
	SetCoef(coef, ACC_P, 2, p01, 0.2);
	SetCoef(coef, ACC_P, 2, p23, 0.4);
	SetCoef(coef, ACC_P, 2, p34, -0.4);
	SetCoef(coef, ACC_P, 2, p56, 0.3);
	SetCoef(coef, ACC_P, 1, f1, 0.2);
	SetCoef(coef, ACC_P, 1, f2, 0.4);
	SetCoef(coef, ACC_P, 1, f4, 0.2);
}

/*
 * What Algorithm 5 estimates for J with smallest element i and I = J \ {i}:
 * E[d_I d_i h(Z)] = sum over I' disjoint from J of c(J u I') E[chi_I'(Z)].
 * It equals c(J) for maximal monomials; maximal[c] records which J are
 * (no superset of size <= t has a nonzero coefficient).
 */
static void
LinfTarget(const double *coef, const double *prob, double *target, int *maximal)
{
	int64_t		count = MrfTwiseCoefCount(ACC_P, ACC_T);
	double	   *mean = malloc(sizeof(double) * (size_t) count);
	int64_t		c;

	ExactMeans(prob, ACC_P, ACC_T, mean);
	for (c = 1; c < count; c++)
	{
		int			vc[MRF_TWISE_MAX_ORDER + 1];
		int			kc = MrfSubsetVars(ACC_P, c, vc);
		uint32_t	mc = 0;
		int64_t		e;
		int			j;

		for (j = 0; j < kc; j++)
			mc |= 1u << vc[j];
		target[c] = 0.0;
		maximal[c] = 1;
		for (e = 1; e < count; e++)
		{
			int			ve[MRF_TWISE_MAX_ORDER + 1];
			int			ke = MrfSubsetVars(ACC_P, e, ve);
			uint32_t	me = 0;
			int			rest[MRF_TWISE_MAX_ORDER + 1];
			int			kr = 0;

			for (j = 0; j < ke; j++)
				me |= 1u << ve[j];
			if ((me & mc) != mc)
				continue;		/* e must contain c */
			if (e != c && coef[e] != 0.0)
				maximal[c] = 0;
			for (j = 0; j < ke; j++)
				if (!(mc & (1u << ve[j])))
					rest[kr++] = ve[j];
			target[c] += coef[e] * mean[SetIndex(ACC_P, rest, kr)];
		}
	}
	free(mean);
}

/* Draws the accuracy data with MrfTwiseSample (exact path). */
static uint64_t *
AccuracyData(const double *coef, uint64_t seed)
{
	int8_t	   *z = malloc((size_t) ACC_N * ACC_P);
	uint64_t   *bits;
	MrfRng		rng;

	MrfRngInitSeeded(&rng, seed);
	if (MrfTwiseSample(coef, ACC_P, ACC_T, ACC_N, 0, 1, &rng, &MrfMallocEnv, z) != MRF_OK)
	{
		printf("FAIL: MrfTwiseSample\n");
		exit(1);
	}
	bits = PackRows(z, ACC_N, ACC_P);
	free(z);
	return bits;
}

/*
 * The estimate with every size class shifted by one index (an off-by-one in
 * the enumeration): must miss the bound the real estimate meets.
 */
static double
ShiftedError(const double *est, const double *truth, int64_t count)
{
	double	   *shifted = calloc((size_t) count, sizeof(double));
	double		e;
	int64_t		c;

	for (c = 1; c + 1 < count; c++)
		shifted[c] = est[c + 1];
	e = MaxCoefError(shifted, truth, count, 1.0);
	free(shifted);
	return e;
}

/*
 * Both objectives at a large budget, and both against a small one over a few
 * seeds.  Bounds: 0.08 on every coefficient for l1 (a missing /2 is off by
 * 0.5 on the triangle, a shifted index by at least 0.2); 0.08 for linf
 * against its target E[d_I d_i h] on every monomial, which differs from the
 * raw coefficients by 0.22 on {0,1}: the l1 output cannot pass as linf
 * output, nor the reverse.
 */
static void
TestAccuracy(void)
{
	int64_t		count = MrfTwiseCoefCount(ACC_P, ACC_T);
	double	   *coef = malloc(sizeof(double) * (size_t) count);
	double	   *est = malloc(sizeof(double) * (size_t) count);
	double	   *target = malloc(sizeof(double) * (size_t) count);
	int		   *maximal = malloc(sizeof(int) * (size_t) count);
	double		prob[1 << ACC_P];
	double		err_l1_big = 0;
	double		err_l1_small = 0;
	double		err_inf_big = 0;
	double		err_inf_small = 0;
	double		gap = 0;
	int			threads = openblas_get_num_threads();
	int			seed;
	int64_t		c;

	AccuracyModel(coef);
	TwiseProbabilities(coef, ACC_P, ACC_T, prob);
	LinfTarget(coef, prob, target, maximal);
	for (c = 1; c < count; c++)
	{
		gap = fabs(target[c] - coef[c]) > gap ? fabs(target[c] - coef[c]) : gap;
		if (maximal[c] && fabs(target[c] - coef[c]) > 1e-12)
			CHECK_MSG(0, "maximal monomial %lld: target %.4f != coefficient %.4f",
					  (long long) c, target[c], coef[c]);
	}
	CHECK_MSG(gap > 0.2, "the linf target must differ from the coefficients (gap %.3f)", gap);

	openblas_set_num_threads(1);
	for (seed = 0; seed < ACC_SEEDS; seed++)
	{
		uint64_t   *bits = AccuracyData(coef, 500 + seed);
		MrfTwiseOptions opt;
		MrfRng		rng;
		double		e;

		MrfRngInitSeeded(&rng, 600 + seed);

		/* Algorithm 4 */
		opt = Options(MRF_TWISE_L1, MRF_TWISE_GAUSSIAN, 50.0, 1.4, ACC_T);
		opt.iterations = 700;
		CHECK(MrfTwiseLearn(bits, ACC_N, ACC_P, &opt, &rng, &MrfMallocEnv, est) == MRF_OK);
		e = MaxCoefError(est, coef, count, 1.0);
		CHECK_MSG(e < 0.08, "l1, rho 50, seed %d: max error %.3f", seed, e);
		CHECK(MaxCoefError(est, coef, count, 2.0) > 0.08);
		CHECK(ShiftedError(est, coef, count) > 0.08);
		CHECK(MaxCoefError(est, target, count, 1.0) > 0.08);
		CHECK(est[0] == 0.0);
		err_l1_big += e;

		opt.rho = 0.05;
		opt.iterations = 0;
		CHECK(MrfTwiseLearn(bits, ACC_N, ACC_P, &opt, &rng, &MrfMallocEnv, est) == MRF_OK);
		err_l1_small += MaxCoefError(est, coef, count, 1.0);

		/* Algorithm 5 with the Gaussian release */
		opt = Options(MRF_TWISE_LINF, MRF_TWISE_GAUSSIAN, 50.0, 1.4, ACC_T);
		opt.iterations = 700;
		CHECK(MrfTwiseLearn(bits, ACC_N, ACC_P, &opt, &rng, &MrfMallocEnv, est) == MRF_OK);
		e = MaxCoefError(est, target, count, 1.0);
		CHECK_MSG(e < 0.08, "linf, rho 50, seed %d: max error vs target %.3f", seed, e);
		CHECK(MaxCoefError(est, target, count, 2.0) > 0.08);
		CHECK(ShiftedError(est, target, count) > 0.08);
		CHECK(MaxCoefError(est, coef, count, 1.0) > 0.08);
		{
			double		worst = 0;

			for (c = 1; c < count; c++)
				if (maximal[c] && fabs(est[c] - coef[c]) > worst)
					worst = fabs(est[c] - coef[c]);
			CHECK_MSG(worst < 0.08, "linf: maximal monomials off by %.3f", worst);
		}
		err_inf_big += e;

		opt.rho = 0.05;
		opt.iterations = 0;
		CHECK(MrfTwiseLearn(bits, ACC_N, ACC_P, &opt, &rng, &MrfMallocEnv, est) == MRF_OK);
		err_inf_small += MaxCoefError(est, target, count, 1.0);

		/* Algorithm 5 with PMW, once */
		if (seed == 0)
		{
			opt = Options(MRF_TWISE_LINF, MRF_TWISE_PMW, 50.0, 1.4, ACC_T);
			opt.iterations = 700;
			CHECK(MrfTwiseLearn(bits, ACC_N, ACC_P, &opt, &rng, &MrfMallocEnv, est) == MRF_OK);
			e = MaxCoefError(est, target, count, 1.0);
			CHECK_MSG(e < 0.15, "linf with PMW, rho 50: max error vs target %.3f", e);
			printf("# twise linf (pmw, %d rounds) rho 50: max error %.3f\n",
				   MrfTwisePmwRounds(&opt, ACC_P, ACC_N), e);
		}
		free(bits);
	}
	openblas_set_num_threads(threads);

	CHECK_MSG(err_l1_big < err_l1_small, "l1: error at rho 50 (%.3f) not below rho 0.05 (%.3f)",
			  err_l1_big / ACC_SEEDS, err_l1_small / ACC_SEEDS);
	CHECK_MSG(err_inf_big < err_inf_small, "linf: error at rho 50 (%.3f) not below rho 0.05 (%.3f)",
			  err_inf_big / ACC_SEEDS, err_inf_small / ACC_SEEDS);
	printf("# twise p=%d t=%d n=%d: mean max error l1 %.3f (rho 50) %.3f (rho 0.05); "
		   "linf %.3f (rho 50) %.3f (rho 0.05)\n", ACC_P, ACC_T, ACC_N,
		   err_l1_big / ACC_SEEDS, err_l1_small / ACC_SEEDS,
		   err_inf_big / ACC_SEEDS, err_inf_small / ACC_SEEDS);
	free(coef);
	free(est);
	free(target);
	free(maximal);
}

/* ---- the Gaussian release of parity sums ---- */

/* P(X = x) of the discrete Gaussian with variance parameter s2, |x| <= range. */
static void
DiscreteGaussianPmf(double s2, int range, double *pmf)
{
	double		total = 0.0;
	int			x;

	for (x = -range; x <= range; x++)
	{
		pmf[x + range] = exp(-(double) x * x / (2.0 * s2));
		total += pmf[x + range];
	}
	for (x = 0; x <= 2 * range; x++)
		pmf[x] /= total;
}

/*
 * The calibration sigma^2 >= (2 sqrt(Q))^2 / (2 rho) = 2Q/rho, rounded up by
 * at most 2^-19; then the released noise (sums of zeros) against the exact
 * discrete Gaussian: mean, variance and a chi-square over bins of |x| in
 * units of sigma (tails included).  Negative controls: the laws for
 * sensitivity sqrt(Q) (add/remove thinking) and for rho not halved.
 */
static void
TestGaussianRelease(void)
{
	const int64_t queries = 10;
	const double rho = 0.5;
	const long	draws = 20000;
	const double s2 = 2.0 * queries / rho;	/* 40, independent of privacy.c */
	const int	range = 80;
	int64_t		sums[10];
	int64_t		noisy[10];
	double		pmf[161];
	double		bins[6];
	double		edges[6] = {0, 3, 6, 10, 14, 19};	/* |x| < 3, [3,6), ... >= 19 */
	long		counts[6];
	uint64_t	num;
	uint64_t	den;
	double		sum = 0;
	double		sumsq = 0;
	double		exact_var = 0;
	double		n_total = (double) draws * queries;
	double		stat;
	MrfRng		rng;
	long		r;
	int			x;
	int			b;
	int			ok = 1;

	CHECK(MrfParityGaussianVariance(queries, rho, &num, &den) == 0);
	CHECK_MSG((double) num / den >= s2 && (double) num / den <= s2 + ldexp(1.0, -19),
			  "sigma^2 = %llu/%llu for 2Q/rho = %.1f", (unsigned long long) num,
			  (unsigned long long) den, s2);
	/* rounding up: a tiny variance and a huge one */
	CHECK(MrfParityGaussianVariance(1, 1e12, &num, &den) == 0 && num >= 1 &&
		  (double) num / den >= 2e-12);
	CHECK(MrfParityGaussianVariance(3, 1e-9, &num, &den) == 0 &&
		  (double) num / den >= 6e9);
	CHECK(MrfParityGaussianVariance(1000, 1e-12, &num, &den) == -1);
	CHECK(MrfParityGaussianVariance(0, 1.0, &num, &den) == -1);
	CHECK(MrfParityGaussianVariance(4, 0.0, &num, &den) == -1);

	memset(sums, 0, sizeof(sums));
	memset(counts, 0, sizeof(counts));
	MrfRngInitSeeded(&rng, 431);
	CHECK(MrfTwiseGaussianRelease(sums, queries, 0.0, &rng, noisy) == MRF_EINVAL);
	for (r = 0; r < draws; r++)
	{
		int			q;

		ok &= MrfTwiseGaussianRelease(sums, queries, rho, &rng, noisy) == MRF_OK;
		for (q = 0; q < queries; q++)
		{
			double		v = (double) noisy[q];
			double		a = fabs(v);

			sum += v;
			sumsq += v * v;
			for (b = 5; b > 0 && a < edges[b]; b--)
				;
			counts[b]++;
		}
	}
	CHECK(ok);

	DiscreteGaussianPmf(s2, range, pmf);
	for (x = -range; x <= range; x++)
		exact_var += pmf[x + range] * x * x;
	CHECK_NEAR(sum / n_total, 0.0, 5.0 * sqrt(s2 / n_total));
	/* sd of the sample variance: sigma^2 sqrt(2 / N) */
	CHECK_NEAR(sumsq / n_total, exact_var, 5.0 * exact_var * sqrt(2.0 / n_total));

	memset(bins, 0, sizeof(bins));
	for (x = -range; x <= range; x++)
	{
		for (b = 5; b > 0 && abs(x) < edges[b]; b--)
			;
		bins[b] += pmf[x + range];
	}
	stat = ChiSquareStatistic(counts, bins, 6, (long) n_total);
	CHECK_MSG(ChiSquareSurvival(stat, 5) > P_REJECT, "noise bins: chi2 = %.2f (df 5)", stat);

	/* sensitivity sqrt(Q) instead of 2 sqrt(Q): sigma^2 = Q / (2 rho) = 10 */
	DiscreteGaussianPmf(queries / (2.0 * rho), range, pmf);
	memset(bins, 0, sizeof(bins));
	for (x = -range; x <= range; x++)
	{
		for (b = 5; b > 0 && abs(x) < edges[b]; b--)
			;
		bins[b] += pmf[x + range];
	}
	stat = ChiSquareStatistic(counts, bins, 6, (long) n_total);
	CHECK_MSG(ChiSquareSurvival(stat, 5) < 1e-12, "control (sensitivity sqrt Q) not rejected: chi2 = %.2f", stat);

	/* rho spent whole by the queries of Algorithm 5 (should be rho/2): sigma^2 x 1/2 */
	DiscreteGaussianPmf(s2 / 2.0, range, pmf);
	memset(bins, 0, sizeof(bins));
	for (x = -range; x <= range; x++)
	{
		for (b = 5; b > 0 && abs(x) < edges[b]; b--)
			;
		bins[b] += pmf[x + range];
	}
	stat = ChiSquareStatistic(counts, bins, 6, (long) n_total);
	CHECK_MSG(ChiSquareSurvival(stat, 5) < 1e-12, "control (sigma^2 / 2) not rejected: chi2 = %.2f", stat);

	/* the learner's split: rho/2 for the queries, rho/(2p) per node */
	CHECK_NEAR(MrfTwiseQueryRho(0.8), 0.4, 1e-15);
	CHECK_NEAR(MrfTwiseNodeRho(0.8, 4, 1), 0.1, 1e-15);
	CHECK_NEAR(MrfTwiseNodeRho(0.8, 4, 0), 0.2, 1e-15);
	CHECK_NEAR(MrfPmwStepRho(0.8, 4), 0.1, 1e-15);
}

/* ---- selections: chi-square with negative controls ---- */

/*
 * Six rows of three variables: the label of node 0 is z_0, its candidate
 * features are the sets avoiding 0: {}, {1}, {2}, {1,2}.
 */
static const int8_t SelRows[18] = {
	1, 1, -1,
	1, 1, 1,
	1, -1, -1,
	-1, 1, -1,
	-1, -1, 1,
	1, 1, 1
};

/*
 * One Frank-Wolfe step of the l1 learner (T = 2), node 0: the law of the
 * vertex over its 8 candidates must be proportional to exp(c u) with
 * u(+-R e_K) = +-R sum_m (z_m0 / 2) chi_K(z_m), c = eps0 / (2 Du),
 * eps0 = sqrt(8 rho / p), Du = 2R, R = 2 lambda.  Node 0's choice shows in
 * the monomial {0} u K, of value +-R/3 (w_2 = (2/3) s_1, halved).
 * Negative controls: rho not divided by p, and Du = R.
 */
static void
TestLearnerSelection(void)
{
	const int	p = 3;
	const double lambda = 0.5;
	const double rho = 0.375;	/* rho / p = 1/8: eps0 = 1 */
	const double radius = 2.0 * lambda;
	const int	sets[4][2] = {{0, 0}, {1, 0}, {2, 0}, {1, 2}};
	const int	sizes[4] = {0, 1, 1, 2};
	uint64_t   *bits = PackRows(SelRows, 6, p);
	double		u[8];
	double		prob[8];
	long		counts[8];
	double		coef[8];
	int64_t		mono[4];
	MrfTwiseOptions opt = Options(MRF_TWISE_L1, MRF_TWISE_GAUSSIAN, rho, lambda, 3);
	MrfRng		rng;
	double		c;
	double		z;
	double		stat;
	long		run;
	int			clean = 1;
	int			k;

	opt.iterations = 2;
	for (k = 0; k < 4; k++)
	{
		int			jv[3];
		int			j;
		double		s = 0;

		jv[0] = 0;
		for (j = 0; j < sizes[k]; j++)
			jv[1 + j] = sets[k][j];
		mono[k] = SetIndex(p, jv, sizes[k] + 1);
		for (j = 0; j < 6; j++)
		{
			double		chi = 1.0;
			int			l;

			for (l = 0; l < sizes[k]; l++)
				chi *= SelRows[j * 3 + sets[k][l]];
			s += SelRows[j * 3] / 2.0 * chi;
		}
		u[2 * k] = radius * s;
		u[2 * k + 1] = -radius * s;
	}

	memset(counts, 0, sizeof(counts));
	for (run = 0; run < SELECTION_RUNS; run++)
	{
		int			hits = 0;

		MrfRngInitSeeded(&rng, 0x7715e1000000ULL + (uint64_t) run);
		if (MrfTwiseLearn(bits, 6, p, &opt, &rng, &MrfMallocEnv, coef) != MRF_OK)
		{
			clean = 0;
			break;
		}
		for (k = 0; k < 4; k++)
		{
			double		v = coef[mono[k]];

			if (v == 0.0)
				continue;
			hits++;
			clean &= fabs(fabs(v) - radius / 3.0) < 1e-12;
			counts[2 * k + (v < 0)]++;
		}
		clean &= hits == 1;
	}
	CHECK_MSG(clean, "node 0 did not show exactly one vertex of size R/3");

	/* independent of privacy.c: sqrt(8 / 8) / (2 * 2R) */
	c = 1.0 / (4.0 * radius);
	z = 0;
	for (k = 0; k < 8; k++)
		z += exp(c * u[k]);
	for (k = 0; k < 8; k++)
		prob[k] = exp(c * u[k]) / z;
	stat = ChiSquareStatistic(counts, prob, 8, SELECTION_RUNS);
	CHECK_MSG(ChiSquareSurvival(stat, 7) > P_REJECT, "twise selection: chi2 = %.2f (df 7)", stat);

	/* rho not split over the p nodes: eps0 = sqrt(8 rho) */
	c = sqrt(8.0 * rho) / (4.0 * radius);
	z = 0;
	for (k = 0; k < 8; k++)
		z += exp(c * u[k]);
	for (k = 0; k < 8; k++)
		prob[k] = exp(c * u[k]) / z;
	stat = ChiSquareStatistic(counts, prob, 8, SELECTION_RUNS);
	CHECK_MSG(ChiSquareSurvival(stat, 7) < 1e-12, "control (rho not / p) not rejected: chi2 = %.2f", stat);

	/* Du = R instead of 2R */
	c = 1.0 / (2.0 * radius);
	z = 0;
	for (k = 0; k < 8; k++)
		z += exp(c * u[k]);
	for (k = 0; k < 8; k++)
		prob[k] = exp(c * u[k]) / z;
	stat = ChiSquareStatistic(counts, prob, 8, SELECTION_RUNS);
	CHECK_MSG(ChiSquareSurvival(stat, 7) < 1e-12, "control (Du = R) not rejected: chi2 = %.2f", stat);
	free(bits);
}

/*
 * One PMW round on a tiny dataset: the uniform start answers 0 everywhere,
 * so query I is selected with probability proportional to
 * exp(c S(I)) + exp(-c S(I)), c = eps0 / (2 * 2), eps0 = sqrt(8 rho / 2)
 * (one round: two mechanisms of rho/2).  Negative controls: the whole rho
 * for the selection, and sensitivity 1.
 */
static void
TestPmwSelection(void)
{
	const int	p = 3;
	const double rho = 0.25;	/* rho_step = 1/8: eps0 = 1, c = 1/4 */
	static const int8_t rows[24] = {
		1, 1, 1,
		1, 1, -1,
		1, -1, 1,
		1, 1, 1,
		1, 1, -1,
		-1, 1, 1,
		1, 1, 1,
		1, -1, -1
	};
	uint64_t   *bits = PackRows(rows, 8, p);
	int64_t		sums[6];
	double		answers[6];
	double		prob[6];
	long		counts[6];
	int64_t		selected;
	double		c;
	double		z;
	double		stat;
	long		run;
	int			ok = 1;
	int			q;

	CHECK(MrfTwiseParitySums(bits, 8, p, 2, &MrfMallocEnv, sums) == MRF_OK);
	/* by hand: S({0}) = 6, S({1}) = 4, S({2}) = 2, S({0,1}) = 2, S({0,2}) = 0, S({1,2}) = 2 */
	CHECK(sums[0] == 6 && sums[1] == 4 && sums[2] == 2);
	CHECK(sums[3] == 2 && sums[4] == 0 && sums[5] == 2);

	memset(counts, 0, sizeof(counts));
	for (run = 0; run < SELECTION_RUNS; run++)
	{
		MrfRng		rng;

		MrfRngInitSeeded(&rng, 0x9a3e000000ULL + (uint64_t) run);
		ok &= MrfTwisePmwRelease(p, 2, sums, 8, rho, 1, &rng, &MrfMallocEnv,
								 answers, &selected) == MRF_OK;
		ok &= selected >= 1 && selected <= 6;
		if (ok)
			counts[selected - 1]++;
	}
	CHECK(ok);

	c = sqrt(8.0 * rho / 2.0) / 4.0;
	z = 0;
	for (q = 0; q < 6; q++)
		z += 2.0 * cosh(c * sums[q]);
	for (q = 0; q < 6; q++)
		prob[q] = 2.0 * cosh(c * sums[q]) / z;
	stat = ChiSquareStatistic(counts, prob, 6, SELECTION_RUNS);
	CHECK_MSG(ChiSquareSurvival(stat, 5) > P_REJECT, "PMW selection: chi2 = %.2f (df 5)", stat);

	c = sqrt(8.0 * rho) / 4.0;
	z = 0;
	for (q = 0; q < 6; q++)
		z += 2.0 * cosh(c * sums[q]);
	for (q = 0; q < 6; q++)
		prob[q] = 2.0 * cosh(c * sums[q]) / z;
	stat = ChiSquareStatistic(counts, prob, 6, SELECTION_RUNS);
	CHECK_MSG(ChiSquareSurvival(stat, 5) < 1e-12, "control (whole rho) not rejected: chi2 = %.2f", stat);

	c = sqrt(8.0 * rho / 2.0) / 2.0;
	z = 0;
	for (q = 0; q < 6; q++)
		z += 2.0 * cosh(c * sums[q]);
	for (q = 0; q < 6; q++)
		prob[q] = 2.0 * cosh(c * sums[q]) / z;
	stat = ChiSquareStatistic(counts, prob, 6, SELECTION_RUNS);
	CHECK_MSG(ChiSquareSurvival(stat, 5) < 1e-12, "control (sensitivity 1) not rejected: chi2 = %.2f", stat);
	free(bits);
}

/* ---- PMW accuracy and limits ---- */

/*
 * With a large budget PMW's answers approach the empirical means; p = 21 is
 * refused by every entry point, p = 20 is accepted by the validation.
 */
static void
TestPmwLimits(void)
{
	const int	p = 6;
	const int64_t n = 20000;
	const int	tri[3] = {0, 1, 2};
	const int	pair[2] = {3, 4};
	const int	f5[1] = {5};
	int64_t		count = MrfTwiseCoefCount(p, 3);
	double	   *coef = calloc((size_t) count, sizeof(double));
	int8_t	   *z = malloc((size_t) n * p);
	uint64_t   *bits;
	int64_t		sums[21];
	double		answers[21];
	double		worst = 0;
	MrfTwiseOptions opt;
	MrfRng		rng;
	int			q;

	SetCoef(coef, p, 3, tri, 0.5);
	SetCoef(coef, p, 2, pair, 0.6);
	SetCoef(coef, p, 1, f5, 0.4);
	MrfRngInitSeeded(&rng, 441);
	CHECK(MrfTwiseSample(coef, p, 3, n, 0, 1, &rng, &MrfMallocEnv, z) == MRF_OK);
	bits = PackRows(z, n, p);
	CHECK(MrfTwiseParitySums(bits, n, p, 2, &MrfMallocEnv, sums) == MRF_OK);
	CHECK(MrfTwisePmwRelease(p, 2, sums, n, 20.0, 40, &rng, &MrfMallocEnv, answers,
							 NULL) == MRF_OK);
	for (q = 0; q < 21; q++)
	{
		double		e = fabs(answers[q] - (double) sums[q] / n);

		worst = e > worst ? e : worst;
	}
	CHECK_MSG(worst < 0.03, "PMW answers off by %.4f", worst);
	printf("# pmw p=%d, 21 queries, 40 rounds, rho 20: max answer error %.4f\n", p, worst);

	opt = Options(MRF_TWISE_LINF, MRF_TWISE_PMW, 1.0, 1.0, 3);
	CHECK(MrfTwiseValidate(&opt, MRF_TWISE_PMW_MAX_P, 1000) == NULL);
	CHECK(MrfTwiseValidate(&opt, MRF_TWISE_PMW_MAX_P + 1, 1000) == MrfTwisePmwTooLarge);
	CHECK(MrfTwiseWorkspaceBytes(&opt, MRF_TWISE_PMW_MAX_P + 1, 1000) == SIZE_MAX);
	{
		uint64_t	one = 0;
		double		out[300];

		CHECK(MrfTwiseLearn(&one, 1, MRF_TWISE_PMW_MAX_P + 1, &opt, &rng, &MrfMallocEnv,
							out) == MRF_EINVAL);
		CHECK(MrfTwisePmwRelease(MRF_TWISE_PMW_MAX_P + 1, 1, sums, n, 1.0, 1, &rng,
								 &MrfMallocEnv, out, NULL) == MRF_EINVAL);
	}
	/* the Gaussian release has no such limit */
	opt.release = MRF_TWISE_GAUSSIAN;
	CHECK(MrfTwiseValidate(&opt, MRF_TWISE_PMW_MAX_P + 1, 1000) == NULL);
	free(coef);
	free(z);
	free(bits);
}

/* ---- interface ---- */

/*
 * Validation codes and messages, iteration and round defaults, the declared
 * workspace equal to the peak allocation, no leaks, polls, and refusal of
 * invalid input.
 */
static void
TestInterface(void)
{
	const int	p = 5;
	const int64_t n = 600;
	uint64_t   *bits = malloc(sizeof(uint64_t) * n);
	double		coef[26];
	MrfTwiseOptions opt = Options(MRF_TWISE_L1, MRF_TWISE_GAUSSIAN, 1.0, 1.0, 3);
	CountingEnv ce;
	MrfEnv		env;
	MrfRng		rng;
	int64_t		m;
	int			check;
	int			mode;

	MrfRngInitSeeded(&rng, 451);
	for (m = 0; m < n; m++)
		bits[m] = MrfRngU64(&rng) & 31;

	CHECK(MrfTwiseCoefCount(p, 3) == 26);
	/*
	 * R = 2, rho_node = 0.2: the paper's ceil((2 * 600 * sqrt(0.2))^(2/3)) =
	 * 67, a quarter of it (MRF_TWISE_T_FRACTION) is 17
	 */
	CHECK(MrfTwiseIterations(&opt, p, n) == 17);
	opt.objective = MRF_TWISE_LINF;
	/* n1 = 300, rho_node = 0.1: ceil((2 * 300 * sqrt(0.1))^(2/3)) = 34, 9 */
	CHECK(MrfTwiseIterations(&opt, p, n) == 9);
	CHECK(MrfTwiseQueryRows(&opt, n) == 300);
	opt.query_rows = 100;
	CHECK(MrfTwiseQueryRows(&opt, n) == 100);
	opt.query_rows = 0;
	CHECK(MrfTwisePmwRounds(&opt, p, n) == 0);
	opt.release = MRF_TWISE_PMW;
	CHECK(MrfTwisePmwRounds(&opt, p, n) >= 1 && MrfTwisePmwRounds(&opt, p, n) <= 15);
	opt.pmw_rounds = 7;
	CHECK(MrfTwisePmwRounds(&opt, p, n) == 7);

	/* declared workspace is the peak, everything is freed, progress ends at its total */
	for (mode = 0; mode < 3; mode++)
	{
		opt = Options(mode == 0 ? MRF_TWISE_L1 : MRF_TWISE_LINF,
					  mode == 2 ? MRF_TWISE_PMW : MRF_TWISE_GAUSSIAN, 1.0, 1.0, 3);
		CountingEnvInit(&ce, &env);
		CHECK(MrfTwiseLearn(bits, n, p, &opt, &rng, &env, coef) == MRF_OK);
		CHECK_MSG(ce.peak == MrfTwiseWorkspaceBytes(&opt, p, n),
				  "mode %d: peak %zu, declared %zu", mode, ce.peak,
				  MrfTwiseWorkspaceBytes(&opt, p, n));
		CHECK(ce.live == 0 && ce.allocs == ce.frees);
		CHECK(ce.polls > 0 && ce.last_done == ce.last_total);
	}

	/* refusals, each with its code and a message */
	opt = Options(MRF_TWISE_L1, MRF_TWISE_GAUSSIAN, 1.0, 1.0, 3);
	CHECK(MrfTwiseValidate(&opt, p, n) == NULL);
	CHECK(MrfTwiseValidate(&opt, 1, n) == MrfTwiseBadArgument);
	CHECK(MrfTwiseValidate(&opt, p, 0) == MrfTwiseBadArgument);
	opt.t = 1;
	CHECK(MrfTwiseValidate(&opt, p, n) == MrfTwiseBadOrder);
	opt.t = 6;
	CHECK(MrfTwiseValidate(&opt, p, n) == MrfTwiseBadOrder);
	opt.t = 5;
	CHECK(MrfTwiseValidate(&opt, p, n) == NULL);
	opt.t = 3;
	opt.rho = NAN;
	CHECK(MrfTwiseValidate(&opt, p, n) == MrfTwiseBadBudget);
	opt.rho = 1.0;
	opt.lambda = 0.0;
	CHECK(MrfTwiseValidate(&opt, p, n) == MrfTwiseBadBudget);
	opt.lambda = 1.0;
	opt.iterations = 1;
	CHECK(MrfTwiseValidate(&opt, p, n) == MrfTwiseBadIterations);
	CHECK(MrfTwiseLearn(bits, n, p, &opt, &rng, &MrfMallocEnv, coef) == MRF_EINVAL);
	opt.iterations = 0;
	opt.lambda = 1e308;			/* R = 2 lambda overflows */
	CHECK(MrfTwiseValidate(&opt, p, n) == MrfTwiseBadScale);
	CHECK(MrfTwiseLearn(bits, n, p, &opt, &rng, &MrfMallocEnv, coef) == MRF_EINVAL);
	opt.lambda = 1.0;
	opt.objective = MRF_TWISE_LINF;
	opt.query_rows = n;
	CHECK(MrfTwiseValidate(&opt, p, n) == MrfTwiseBadSplit);
	opt.query_rows = -3;
	CHECK(MrfTwiseValidate(&opt, p, n) == MrfTwiseBadSplit);
	opt.query_rows = 0;
	opt.rho = 1e-12;			/* 2 * 15 / (1e-12 / 2) > 2^40 */
	CHECK(MrfTwiseValidate(&opt, p, n) == MrfTwiseNoiseTooLarge);
	opt.rho = 1.0;
	opt.objective = (MrfTwiseObjective) 7;
	CHECK(MrfTwiseValidate(&opt, p, n) == MrfTwiseBadArgument);
	opt.objective = MRF_TWISE_L1;
	/* p = 2000, t = 4: C(2000, 3) = 1.33e9 columns, far above INT_MAX / p */
	opt.t = 4;
	CHECK(MrfTwiseValidate(&opt, 2000, n) == MrfTwiseTooManyFeatures);
	CHECK(MrfTwiseFeatureCount(2000, 4) > MrfTwiseMaxFeatures(2000));
	CHECK(MrfTwiseWorkspaceBytes(&opt, 2000, n) > ((size_t) 1 << 32));
	/* every problem is its own lower-case sentence, without a period (problem.h) */
	{
		const char *const all[] = {
			MrfTwiseBadArgument, MrfTwiseBadBudget, MrfTwiseBadOrder, MrfTwiseBadIterations,
			MrfTwiseTooManyFeatures, MrfTwiseBadSplit, MrfTwisePmwTooLarge,
			MrfTwiseNoiseTooLarge, MrfTwiseBadScale
		};

		for (check = 0; check < (int) (sizeof(all) / sizeof(all[0])); check++)
		{
			size_t		len = strlen(all[check]);

			CHECK(len > 4 && all[check][0] >= 'a' && all[check][0] <= 'z' && all[check][len - 1] != '.');
			for (int other = 0; other < check; other++)
				CHECK(strcmp(all[check], all[other]) != 0);
		}
	}

	/* Laplace mechanism and t = 2 run too */
	opt = Options(MRF_TWISE_L1, MRF_TWISE_GAUSSIAN, 1.0, 1.0, 2);
	opt.mechanism = MRF_MECH_LAPLACE;
	CHECK(MrfTwiseLearn(bits, n, p, &opt, &rng, &MrfMallocEnv, coef) == MRF_OK);
	CHECK(MrfTwiseLearn(NULL, n, p, &opt, &rng, &MrfMallocEnv, coef) == MRF_EINVAL);
	free(bits);
}

/* The t-wise tests. */
void
TestTwise(void)
{
	TestSubsetIndexing();
	TestInterface();
	TestSampleExact();
	TestSampleGibbs();
	TestGaussianRelease();
	TestLearnerSelection();
	TestPmwSelection();
	TestPmwLimits();
	TestAccuracy();
}
