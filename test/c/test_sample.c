/*
 * test_sample.c - the Ising sampler (sample.c): exact enumeration against the
 * exact distribution (chi-square, with negative controls that show the test
 * can fail), Gibbs sampling against closed-form chain correlations and
 * against brute-force moments just above the enumeration limit, the
 * burn-in and thinning schedule, argument validation, reproducibility,
 * polling and memory balance.
 *
 * Exact probabilities here are computed independently of sample.c, straight
 * from P(z) proportional to exp(sum_{i<j} S_ij z_i z_j + sum_i theta_i z_i),
 * S = (A + A^T) / 2.  Every run uses a fixed seed; thresholds are set so that
 * a correct sampler fails with probability about 1e-4 per check or less.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cliques.h"
#include "harness.h"
#include "noise.h"
#include "sample.h"
#include "twise.h"

void		TestSample(void);

/* A correct sampler's chi-square p-value falls below this about 1e-4 of the time. */
#define P_REJECT 1e-4

/* Draws of the exact-enumeration tests. */
#define EXACT_DRAWS 200000

/*
 * MrfIsingSample with the chain forced (a junction tree of at most one cell
 * never fits): the chain's own tests, now that tree-shaped models are
 * sampled exactly through their junction tree (test_sample_tree.c).
 */
static MrfStatus
IsingGibbs(const double *A, const double *theta, int p, int64_t n, int burn_in,
		   int thin, MrfRng *rng, const MrfEnv *env, int8_t *out)
{
	MrfSampleOptions opt = {burn_in, thin, 1, 0, NULL};
	MrfSampler	used = MRF_SAMPLER_TREE;
	MrfStatus	status = MrfIsingSampleWith(A, theta, p, n, &opt, rng, env, out, &used);

	CHECK(status != MRF_OK || used == MRF_SAMPLER_CHAINS);
	return status;
}

/* Log-weights of all 2^p states (bit i of the index set means z_i = +1), normalised. */
static void
ExactProbabilities(const double *A, const double *theta, int p, double *prob)
{
	long		states = 1L << p;
	double		maxLog = -INFINITY;
	double		sum = 0.0;
	long		s;

	for (s = 0; s < states; s++)
	{
		double		logw = 0.0;
		int			i;
		int			j;

		for (i = 0; i < p; i++)
		{
			int			zi = ((s >> i) & 1) ? 1 : -1;

			logw += theta[i] * zi;
			for (j = i + 1; j < p; j++)
			{
				int			zj = ((s >> j) & 1) ? 1 : -1;

				logw += 0.5 * (A[i * p + j] + A[j * p + i]) * zi * zj;
			}
		}
		prob[s] = logw;
		if (logw > maxLog)
			maxLog = logw;
	}
	for (s = 0; s < states; s++)
	{
		prob[s] = exp(prob[s] - maxLog);
		sum += prob[s];
	}
	for (s = 0; s < states; s++)
		prob[s] /= sum;
}

/* State index of a sample row, in the convention of ExactProbabilities. */
static long
RowState(const int8_t *row, int p)
{
	long		s = 0;
	int			i;

	for (i = 0; i < p; i++)
		if (row[i] > 0)
			s |= 1L << i;
	return s;
}

/* Counts the states of n rows; returns 0 if any value is not -1/+1. */
static int
CountStates(const int8_t *rows, long n, int p, long *counts)
{
	long		m;
	int			i;

	memset(counts, 0, sizeof(long) * (1UL << p));
	for (m = 0; m < n; m++)
	{
		for (i = 0; i < p; i++)
			if (rows[m * p + i] != 1 && rows[m * p + i] != -1)
				return 0;
		counts[RowState(rows + m * p, p)]++;
	}
	return 1;
}

/* Chi-square p-value of sample rows against a distribution over 2^p states. */
static double
StatesPValue(const int8_t *rows, long n, int p, const double *prob)
{
	long	   *counts = malloc(sizeof(long) * (1UL << p));
	double		pvalue = 0.0;

	if (CountStates(rows, n, p, counts))
		pvalue = ChiSquareSurvival(ChiSquareStatistic(counts, prob, 1 << p, n),
								   (1 << p) - 1);
	free(counts);
	return pvalue;
}

/*
 * p = 4, exact path.  A is stored asymmetrically (A_01 = 0.6, A_10 = 0.2,
 * so S_01 = 0.4; A_23 only above the diagonal) with a nonzero diagonal, so
 * the test also checks that A is read symmetrised and the diagonal ignored.
 * Negative controls: the same chi-square must reject samples of a model
 * whose coupling S_01 is 0.05 larger, and must reject the true samples
 * against the distribution that reads only the upper triangle of A.
 */
static void
TestExactEnumeration(void)
{
	const int	p = 4;
	double		A[16] = {
		2.0, 0.6, 0.0, 0.2,
		0.2, 0.0, -0.3, 0.0,
		0.0, -0.3, 5.0, 0.5,
		0.2, 0.0, 0.0, -1.0
	};
	double		theta[4] = {0.3, -0.2, 0.0, 0.1};
	double		Upper[16];
	double		prob[16];
	double		probUpper[16];
	int8_t	   *rows = malloc((size_t) EXACT_DRAWS * p);
	MrfRng		rng;
	double		pv;
	int			i;
	int			j;

	ExactProbabilities(A, theta, p, prob);

	MrfRngInitSeeded(&rng, 101);
	CHECK(MrfIsingSample(A, theta, p, EXACT_DRAWS, 0, 1, &rng, &MrfMallocEnv,
						 rows) == MRF_OK);
	pv = StatesPValue(rows, EXACT_DRAWS, p, prob);
	CHECK_MSG(pv > P_REJECT, "exact sampler vs exact probabilities: p-value %.3g", pv);

	/* Negative control 1: upper-triangle-only reading (S_01 = 0.6, S_23 = 0.5). */
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			Upper[i * p + j] = j > i ? 2.0 * A[i * p + j] : 0.0;
	ExactProbabilities(Upper, theta, p, probUpper);
	pv = StatesPValue(rows, EXACT_DRAWS, p, probUpper);
	CHECK_MSG(pv < 1e-12, "control: unsymmetrised reading not rejected, p-value %.3g", pv);

	/* Negative control 2: samples of a slightly different model (S_01 = 0.45). */
	A[1] += 0.1;
	MrfRngInitSeeded(&rng, 102);
	CHECK(MrfIsingSample(A, theta, p, EXACT_DRAWS, 0, 1, &rng, &MrfMallocEnv,
						 rows) == MRF_OK);
	pv = StatesPValue(rows, EXACT_DRAWS, p, prob);
	CHECK_MSG(pv < 1e-6, "control: perturbed model not rejected, p-value %.3g", pv);

	free(rows);
}

/* p = 1 and a model with extreme fields: no NaN, all mass where it belongs. */
static void
TestExactEdgeCases(void)
{
	const long	n = 50000;
	double		A1 = 0.0;
	double		theta1 = 0.5;
	double		A2[4] = {0.0, 40.0, 40.0, 0.0};
	double		theta2[2] = {400.0, 0.0};
	int8_t	   *rows = malloc((size_t) n * 2);
	MrfRng		rng;
	long		plus = 0;
	long		m;
	int			allPlus = 1;

	MrfRngInitSeeded(&rng, 103);
	CHECK(MrfIsingSample(&A1, &theta1, 1, n, 0, 1, &rng, &MrfMallocEnv, rows) == MRF_OK);
	for (m = 0; m < n; m++)
		plus += rows[m] > 0;
	/* P(+1) = sigmoid(2 theta) = 0.7311; binomial standard error 0.002 */
	CHECK_NEAR((double) plus / n, 1.0 / (1.0 + exp(-1.0)), 0.01);

	/* exp(440) would overflow without the log-sum-exp normaliser */
	CHECK(MrfIsingSample(A2, theta2, 2, n, 0, 1, &rng, &MrfMallocEnv, rows) == MRF_OK);
	for (m = 0; m < 2 * n; m++)
		allPlus &= rows[m] == 1;
	CHECK_MSG(allPlus, "state (+1,+1) has probability 1 - 1e-35 but was missed");
	free(rows);
}

/* Mean over the chain's edges of E[z_i z_{i+lag}], estimated from rows. */
static double
ChainCorrelation(const int8_t *rows, long n, int p, int lag, double *worst,
				 double expected)
{
	double		total = 0.0;
	int			i;

	*worst = 0.0;
	for (i = 0; i + lag < p; i++)
	{
		long		sum = 0;
		long		m;
		double		c;

		for (m = 0; m < n; m++)
			sum += rows[m * p + i] * rows[m * p + i + lag];
		c = (double) sum / n;
		if (fabs(c - expected) > *worst)
			*worst = fabs(c - expected);
		total += c;
	}
	return total / (p - lag);
}

/*
 * Gibbs path, p = 20 chain with S_{i,i+1} = 0.4 and no fields.  For an open
 * chain E[z_i z_{i+k}] = tanh(0.4)^k exactly, and E[z_i] = 0.  A is stored
 * symmetrically (both A_{i,i+1} and A_{i+1,i} are 0.4).  With n = 40000 kept
 * states the standard error of one edge's correlation is about 0.005 (the
 * chain mixes in a few sweeps at this coupling, and thin = 2) and that of
 * the mean over the 19 edges about 0.0012; the bounds are 0.03 for any
 * single edge and 0.006 for the mean.  Negative control: the same estimate
 * must miss tanh(0.38) by more than the bound, so a sampler whose coupling
 * is off by 0.02 fails.
 */
static void
TestGibbsChain(void)
{
	const int	p = 20;
	const long	n = 40000;
	const double coupling = 0.4;
	double	   *A = calloc((size_t) p * p, sizeof(double));
	double	   *theta = calloc(p, sizeof(double));
	int8_t	   *rows = malloc((size_t) n * p);
	MrfRng		rng;
	double		worst;
	double		mean;
	double		worstMean = 0.0;
	int			i;

	for (i = 0; i + 1 < p; i++)
	{
		A[i * p + i + 1] = coupling;
		A[(i + 1) * p + i] = coupling;
	}
	MrfRngInitSeeded(&rng, 104);
	CHECK(IsingGibbs(A, theta, p, n, 1000, 2, &rng, &MrfMallocEnv, rows) == MRF_OK);

	mean = ChainCorrelation(rows, n, p, 1, &worst, tanh(coupling));
	CHECK_NEAR(mean, tanh(coupling), 0.006);
	CHECK_MSG(worst < 0.03, "one edge's correlation is off by %.4f", worst);

	mean = ChainCorrelation(rows, n, p, 2, &worst, pow(tanh(coupling), 2));
	CHECK_NEAR(mean, pow(tanh(coupling), 2), 0.006);
	CHECK_MSG(worst < 0.03, "one lag-2 correlation is off by %.4f", worst);

	for (i = 0; i < p; i++)
	{
		long		sum = 0;
		long		m;

		for (m = 0; m < n; m++)
			sum += rows[m * p + i];
		if (fabs((double) sum / n) > worstMean)
			worstMean = fabs((double) sum / n);
	}
	/* sd of a mean is about 0.009 (variance inflated by the chain's neighbours) */
	CHECK_MSG(worstMean < 0.05, "a mean is %.4f, expected 0", worstMean);

	/* Negative control: the estimator separates 0.4 from 0.38. */
	mean = ChainCorrelation(rows, n, p, 1, &worst, tanh(0.38));
	CHECK_MSG(fabs(mean - tanh(0.38)) > 0.006,
			  "control: coupling 0.38 not distinguished from 0.4 (%.4f)", mean);

	free(A);
	free(theta);
	free(rows);
}

/*
 * Gibbs path with fields and mixed-sign couplings at p = 17, one above the
 * enumeration limit, so the test can still enumerate the exact moments.
 * The couplings form a ring with chords, stored asymmetrically (only above
 * the diagonal, doubled) to exercise the symmetrised reading on this path.
 * Every mean and pairwise correlation must be within 0.04 of the exact
 * value (about 6 standard errors at n = 40000 kept states, thin = 3); the
 * moments span roughly [-0.6, 0.6], so a sign or factor-2 error in the
 * conditional breaks many of them.
 */
static void
TestGibbsVsExact(void)
{
	const int	p = 17;
	const long	n = 40000;
	long		states = 1L << p;
	double	   *A = calloc((size_t) p * p, sizeof(double));
	double	   *theta = calloc(p, sizeof(double));
	double	   *prob = malloc(sizeof(double) * states);
	double	   *exactMoment = calloc((size_t) p * p, sizeof(double));
	int8_t	   *rows = malloc((size_t) n * p);
	MrfRng		rng;
	double		worst = 0.0;
	int			worstI = 0;
	int			worstJ = 0;
	long		s;
	long		m;
	int			i;
	int			j;

	for (i = 0; i < p; i++)
	{
		int			next = (i + 1) % p;
		int			chord = (i + 5) % p;

		/* only the upper triangle is set; the sampler halves A_ij + A_ji */
		A[(i < next ? i : next) * p + (i < next ? next : i)] += 2.0 * ((i % 3 == 0) ? -0.3 : 0.35);
		if (i % 4 == 0)
			A[(i < chord ? i : chord) * p + (i < chord ? chord : i)] += 2.0 * 0.25;
		theta[i] = 0.1 * ((i % 5) - 2);
	}

	/* exact E[z_i z_j] (i != j) and E[z_i] (on the diagonal) */
	ExactProbabilities(A, theta, p, prob);
	for (s = 0; s < states; s++)
		for (i = 0; i < p; i++)
		{
			int			zi = ((s >> i) & 1) ? 1 : -1;

			exactMoment[i * p + i] += prob[s] * zi;
			for (j = i + 1; j < p; j++)
				exactMoment[i * p + j] += prob[s] * zi * (((s >> j) & 1) ? 1 : -1);
		}

	MrfRngInitSeeded(&rng, 105);
	CHECK(IsingGibbs(A, theta, p, n, 500, 3, &rng, &MrfMallocEnv, rows) == MRF_OK);
	for (i = 0; i < p; i++)
		for (j = i; j < p; j++)
		{
			long		sum = 0;
			double		diff;

			for (m = 0; m < n; m++)
				sum += (i == j) ? rows[m * p + i] : rows[m * p + i] * rows[m * p + j];
			diff = fabs((double) sum / n - exactMoment[i * p + j]);
			if (diff > worst)
			{
				worst = diff;
				worstI = i;
				worstJ = j;
			}
		}
	CHECK_MSG(worst < 0.04, "moment (%d, %d) is off by %.4f", worstI, worstJ, worst);

	free(A);
	free(theta);
	free(prob);
	free(exactMoment);
	free(rows);
}

/* Bad arguments get MRF_EINVAL before anything is written. */
static void
TestSampleArguments(void)
{
	double		A[4] = {0.0, 0.1, 0.1, 0.0};
	double		theta[2] = {0.0, 0.0};
	int8_t		out[8] = {0};
	MrfRng		rng;

	MrfRngInitSeeded(&rng, 106);
	CHECK(MrfIsingSample(NULL, theta, 2, 4, 0, 1, &rng, &MrfMallocEnv, out) == MRF_EINVAL);
	CHECK(MrfIsingSample(A, NULL, 2, 4, 0, 1, &rng, &MrfMallocEnv, out) == MRF_EINVAL);
	CHECK(MrfIsingSample(A, theta, 2, 4, 0, 1, NULL, &MrfMallocEnv, out) == MRF_EINVAL);
	CHECK(MrfIsingSample(A, theta, 2, 4, 0, 1, &rng, NULL, out) == MRF_EINVAL);
	CHECK(MrfIsingSample(A, theta, 2, 4, 0, 1, &rng, &MrfMallocEnv, NULL) == MRF_EINVAL);
	CHECK(MrfIsingSample(A, theta, 0, 4, 0, 1, &rng, &MrfMallocEnv, out) == MRF_EINVAL);
	CHECK(MrfIsingSample(A, theta, 2, -1, 0, 1, &rng, &MrfMallocEnv, out) == MRF_EINVAL);
	CHECK(MrfIsingSample(A, theta, 2, 4, -1, 1, &rng, &MrfMallocEnv, out) == MRF_EINVAL);
	CHECK(MrfIsingSample(A, theta, 2, 4, 0, 0, &rng, &MrfMallocEnv, out) == MRF_EINVAL);
	CHECK(MrfIsingSample(A, theta, 2, INT64_MAX / 2 + 1, 0, 1, &rng, &MrfMallocEnv, out) == MRF_EINVAL);
	A[1] = NAN;
	CHECK(MrfIsingSample(A, theta, 2, 4, 0, 1, &rng, &MrfMallocEnv, out) == MRF_EINVAL);
	A[1] = 0.1;
	theta[0] = INFINITY;
	CHECK(MrfIsingSample(A, theta, 2, 4, 0, 1, &rng, &MrfMallocEnv, out) == MRF_EINVAL);
	theta[0] = 0.0;
	CHECK(out[0] == 0);
	/* n = 0 is valid and writes nothing, even without an output buffer */
	CHECK(MrfIsingSample(A, theta, 2, 0, 0, 1, &rng, &MrfMallocEnv, NULL) == MRF_OK);
}

/* Book-keeping of an environment that counts allocations and polls. */
typedef struct CountingCtx
{
	long		live;			/* allocations not yet released */
	long		polls;
	int			monotone;		/* done never decreased */
	int64_t		lastDone;
	int64_t		lastTotal;
} CountingCtx;

/* calloc that counts live blocks. */
static void *
CountingAlloc(void *ctx, size_t bytes)
{
	((CountingCtx *) ctx)->live++;
	return calloc(1, bytes);
}

/* free that counts live blocks. */
static void
CountingRelease(void *ctx, void *ptr)
{
	((CountingCtx *) ctx)->live--;
	free(ptr);
}

/* Records the progress reports. */
static void
CountingPoll(void *ctx, int64_t done, int64_t total)
{
	CountingCtx *c = ctx;

	if (done < c->lastDone || done > total)
		c->monotone = 0;
	c->lastDone = done;
	c->lastTotal = total;
	c->polls++;
}

/*
 * Both paths free what they allocate, report monotone progress that ends at
 * done == total, and reproduce their output from the same seed.
 */
static void
TestSampleHousekeeping(void)
{
	const int	ps[2] = {6, 40};
	int			k;

	for (k = 0; k < 2; k++)
	{
		const int	p = ps[k];
		const long	n = 5000;
		double	   *A = calloc((size_t) p * p, sizeof(double));
		double	   *theta = calloc(p, sizeof(double));
		int8_t	   *first = malloc((size_t) n * p);
		int8_t	   *second = malloc((size_t) n * p);
		CountingCtx ctx = {0, 0, 1, 0, 0};
		MrfEnv		env = {CountingAlloc, CountingRelease, CountingPoll, &ctx, NULL, NULL};
		MrfRng		rng;
		int			i;

		for (i = 0; i + 1 < p; i++)
			A[i * p + i + 1] = 0.3;
		theta[0] = 0.2;

		MrfRngInitSeeded(&rng, 107);
		CHECK(MrfIsingSample(A, theta, p, n, 100, 3, &rng, &env, first) == MRF_OK);
		CHECK_MSG(ctx.live == 0, "p = %d: %ld allocations not released", p, ctx.live);
		CHECK_MSG(ctx.polls >= 2 && ctx.monotone && ctx.lastDone == ctx.lastTotal,
				  "p = %d: polls %ld, monotone %d, last %lld of %lld", p, ctx.polls,
				  ctx.monotone, (long long) ctx.lastDone, (long long) ctx.lastTotal);

		MrfRngInitSeeded(&rng, 107);
		CHECK(MrfIsingSample(A, theta, p, n, 100, 3, &rng, &env, second) == MRF_OK);
		CHECK(memcmp(first, second, (size_t) n * p) == 0);
		MrfRngInitSeeded(&rng, 108);
		CHECK(MrfIsingSample(A, theta, p, n, 100, 3, &rng, &env, second) == MRF_OK);
		CHECK(memcmp(first, second, (size_t) n * p) != 0);

		free(A);
		free(theta);
		free(first);
		free(second);
	}
}

/*
 * The chain sampler's schedule: with the same seed, the states kept with
 * burn-in b and thinning k are, for row m, chain m mod C's state after round
 * b + k (m / C + 1) - 1 of the run that keeps every round without burn-in
 * (its row r C + c is chain c after round r).  This pins burn-in, thinning
 * and the interleaving of the chains exactly (moment tests cannot see them).
 * The chain 0.5-coupled model is tempered (its strength is 1), so the
 * ladder runs too.
 */
static void
TestGibbsSchedule(void)
{
	const int	p = 30;
	const long	n = 201;
	const int	burnIn = 7;
	const int	thin = 3;
	const int	chains = MRF_SAMPLE_CHAINS;
	const long	every = chains * (burnIn + thin * ((n + chains - 1) / chains));
	double	   *A = calloc((size_t) p * p, sizeof(double));
	double	   *theta = calloc(p, sizeof(double));
	int8_t	   *all = malloc((size_t) every * p);
	int8_t	   *kept = malloc((size_t) n * p);
	MrfChainReport report;
	MrfSampleOptions opt = {burnIn, thin, 1, 0, &report};
	MrfRng		rng;
	long		m;
	int			same = 1;
	int			i;

	for (i = 0; i + 1 < p; i++)
		A[i * p + i + 1] = A[(i + 1) * p + i] = 0.5;
	MrfRngInitSeeded(&rng, 109);
	CHECK(IsingGibbs(A, theta, p, every, 0, 1, &rng, &MrfMallocEnv, all) == MRF_OK);
	MrfRngInitSeeded(&rng, 109);
	CHECK(MrfIsingSampleWith(A, theta, p, n, &opt, &rng, &MrfMallocEnv, kept, NULL) == MRF_OK);
	for (m = 0; m < n; m++)
		same &= memcmp(kept + m * p,
					   all + ((burnIn + thin * (m / chains + 1) - 1) * chains + m % chains) * p,
					   p) == 0;
	CHECK_MSG(same, "kept states are not every %d-th round after %d rounds", thin, burnIn);
	CHECK_MSG(report.chains == chains && report.temperatures >= 2,
			  "%d chains of %d temperatures", report.chains, report.temperatures);

	free(A);
	free(theta);
	free(all);
	free(kept);
}

/*
 * The chain samplers refuse a model whose conditionals overflow: 20
 * variables, variable 0 tied to every other by a parameter of 1e308 (each
 * finite, their sum past double precision), the exact samplers' junction
 * tree forbidden (max_tree_cells 1) so that every kind takes its chains.
 * Each gets MRF_ERANGE, as the exact samplers do, where the chains drew
 * from NaN weights (a spin chain's sigmoid of NaN is always -1); at 1e300 a
 * parameter (a sum far below the limit) the same models sample.
 */
static void
TestChainOverflow(void)
{
	enum
	{
		P = 20,
		N = 40
	};
	MrfSampleOptions opt = {10, 1, 1, 0, NULL};
	MrfEnv		env = MrfMallocEnv;
	double	   *A = calloc((size_t) P * P, sizeof(double));
	double	   *theta = calloc((size_t) P * 2, sizeof(double));
	double	   *W = calloc((size_t) P * P * 4, sizeof(double));
	double	   *coef = calloc((size_t) MrfTwiseCoefCount(P, 2), sizeof(double));
	double	   *logpot = calloc((size_t) (P - 1) * 4, sizeof(double));
	int			start[P];
	int			var[2 * (P - 1)];
	int8_t	   *spins = malloc((size_t) N * P);
	uint8_t    *values = malloc((size_t) N * P);
	MrfCode    *codes = malloc(sizeof(MrfCode) * N * P);
	MrfCliqueSet *set = NULL;

	for (int j = 0; j < P - 1; j++)
	{
		start[j] = 2 * j;
		var[2 * j] = 0;
		var[2 * j + 1] = j + 1;
	}
	start[P - 1] = 2 * (P - 1);
	CHECK(MrfCliqueSetBuild(P, 2, P - 1, start, var, 0, &env, &set) == MRF_OK);
	for (int big = 0; big < 2 && set != NULL; big++)
	{
		double		x = big ? 1e308 : 1e300;
		MrfStatus	want = big ? MRF_ERANGE : MRF_OK;
		MrfSampler	used = MRF_SAMPLER_NONE;
		MrfRng		rng;

		MrfRngInitSeeded(&rng, 11);
		for (int j = 1; j < P; j++)
		{
			int			pair[2] = {0, j};

			A[j] = A[(size_t) j * P] = x;
			W[(((size_t) 0 * P + j) * 2 + 1) * 2 + 1] = x;
			W[(((size_t) j * P + 0) * 2 + 1) * 2 + 1] = x;
			coef[MrfSubsetIndex(P, pair, 2)] = x;
			logpot[(size_t) (j - 1) * 4] = x;
		}
		CHECK_MSG(MrfIsingSampleWith(A, theta, P, N, &opt, &rng, &env, spins, &used) == want &&
				  used == MRF_SAMPLER_CHAINS, "Ising at %g (sampler %s)", x, MrfSamplerName(used));
		used = MRF_SAMPLER_NONE;
		CHECK_MSG(MrfPairwiseSampleWith(W, theta, P, 2, N, &opt, &rng, &env, values, &used) == want &&
				  used == MRF_SAMPLER_CHAINS, "pairwise at %g (sampler %s)", x, MrfSamplerName(used));
		used = MRF_SAMPLER_NONE;
		CHECK_MSG(MrfTwiseSampleWith(coef, P, 2, N, &opt, &rng, &env, spins, &used) == want,
				  "t-wise at %g", x);
		CHECK_MSG(MrfCliquesSampleWith(set, logpot, N, &opt, &rng, &env, codes, &used) == want &&
				  used == MRF_SAMPLER_CHAINS, "cliques at %g (sampler %s)", x, MrfSamplerName(used));
	}
	if (set != NULL)
		MrfCliqueSetFree(&env, set);
	free(A);
	free(theta);
	free(W);
	free(coef);
	free(logpot);
	free(spins);
	free(values);
	free(codes);
}

/*
 * Tempering swaps read U's running sums: with one coupling of 1e300 (a
 * bound the chains accept) beside a chain of ordinary ones, the ordinary
 * terms rounded away, every swap was accepted and replica 0's rows came
 * from hotter replicas (neighbours on the chain equal 0.63 of the time
 * instead of 0.95).  Such a model's swaps take U's difference term by
 * term, and it keeps its temperatures: the Ising and pairwise chains' rows
 * match the chain's exact pair law, 3 seeds.
 */
static void
TestChainSwapPrecision(void)
{
	enum
	{
		P = 20,
		N = 6000
	};
	MrfEnv		env = MrfMallocEnv;
	double	   *A = calloc((size_t) P * P, sizeof(double));
	double	   *theta = calloc((size_t) P * 2, sizeof(double));
	double	   *W = calloc((size_t) P * P * 4, sizeof(double));
	int8_t	   *spins = malloc((size_t) N * P);
	uint8_t    *values = malloc((size_t) N * P);
	double		J = 1.5;
	double		want = exp(J) / (exp(J) + exp(-J));
	double		worst = 0.0;

	A[1] = A[P] = 1e300;
	W[(((size_t) 0 * P + 1) * 2 + 1) * 2 + 1] = 1e300;
	W[(((size_t) 1 * P + 0) * 2 + 1) * 2 + 1] = 1e300;
	for (int i = 2; i + 1 < P; i++)
	{
		A[(size_t) i * P + i + 1] = A[(size_t) (i + 1) * P + i] = J;
		/* pairwise: 2 J on equal values is the Ising coupling J up to a constant */
		for (int a = 0; a < 2; a++)
		{
			W[(((size_t) i * P + i + 1) * 2 + a) * 2 + a] = 2.0 * J;
			W[(((size_t) (i + 1) * P + i) * 2 + a) * 2 + a] = 2.0 * J;
		}
	}
	for (int seed = 1; seed <= 3; seed++)
	{
		MrfChainReport rep;
		MrfSampleOptions opt = {100, 1, 1, 0, &rep};
		MrfSampler	used = MRF_SAMPLER_NONE;
		MrfRng		rng;
		long		eq = 0;
		double		share;

		MrfRngInitSeeded(&rng, 40 + seed);
		CHECK(MrfIsingSampleWith(A, theta, P, N, &opt, &rng, &env, spins, &used) == MRF_OK &&
			  used == MRF_SAMPLER_CHAINS);
		for (int r = 0; r < N; r++)
			for (int i = 2; i + 1 < P; i++)
				eq += spins[(size_t) r * P + i] == spins[(size_t) r * P + i + 1];
		share = (double) eq / N / (P - 3);
		worst = fmax(worst, fabs(share - want));
		CHECK_MSG(fabs(share - want) < 0.015 && rep.temperatures > 1,
				  "Ising seed %d: neighbours equal %.4f, exact %.4f, %d temperatures",
				  seed, share, want, rep.temperatures);
		eq = 0;
		used = MRF_SAMPLER_NONE;
		CHECK(MrfPairwiseSampleWith(W, theta, P, 2, N, &opt, &rng, &env, values, &used) == MRF_OK &&
			  used == MRF_SAMPLER_CHAINS);
		for (int r = 0; r < N; r++)
			for (int i = 2; i + 1 < P; i++)
				eq += values[(size_t) r * P + i] == values[(size_t) r * P + i + 1];
		share = (double) eq / N / (P - 3);
		worst = fmax(worst, fabs(share - want));
		CHECK_MSG(fabs(share - want) < 0.015 && rep.temperatures > 1,
				  "pairwise seed %d: neighbours equal %.4f, exact %.4f, %d temperatures",
				  seed, share, want, rep.temperatures);
	}
	printf("# sample: swap precision (coupling 1e300 beside a chain at %.1f): largest error of the neighbours' share %.4f\n",
		   J, worst);
	free(A);
	free(theta);
	free(W);
	free(spins);
	free(values);
}

/*
 * A two-mode model beside a huge coupling keeps its tempering: 20 spins all
 * coupled at J = 0.2 (modes "mostly +1" and "mostly -1", about 28 nats
 * apart, so a chain at beta 1 stays in the mode it starts in) with a field
 * h = 0.025 that makes "+1" the likelier, and spins 0 and 1 tied by a
 * coupling of 1e7 that both modes satisfy, which passes the running sums'
 * precision (CHAIN_SWAP_MAX_ENERGY).  The share of rows with more +1 than
 * -1 against its closed form (spins 0 and 1 equal; ties count half), for
 * the Ising, pairwise, clique and t-wise (t = 2) chains (a seed each;
 * 10,300 rounds of 32 temperatures, about 5 s a kind): within 0.05 over the rows and within
 * 0.2 in each chain's own rows (a chain that never leaves its mode has 0
 * or 1).
 */
static void
TestChainHugeCouplingModes(void)
{
	enum
	{
		P = 20,
		N = 8000
	};
	MrfEnv		env = MrfMallocEnv;
	const double J = 0.2;
	const double h = 0.025;
	const double big = 1e7;
	double	   *A = calloc((size_t) P * P, sizeof(double));
	double	   *theta = calloc(P, sizeof(double));
	double	   *ptheta = calloc((size_t) P * 2, sizeof(double));
	double	   *W = calloc((size_t) P * P * 4, sizeof(double));
	double	   *coef = calloc((size_t) MrfTwiseCoefCount(P, 2), sizeof(double));
	int			m = P + P * (P - 1) / 2;
	int		   *start = malloc(sizeof(int) * (m + 1));
	int		   *var = malloc(sizeof(int) * 2 * m);
	MrfCliqueSet *set = NULL;
	double	   *logpot;
	int8_t	   *spins = malloc((size_t) N * P);
	MrfCode    *codes = malloc(sizeof(MrfCode) * N * P);
	double		up = 0.0;
	double		total = 0.0;
	double		worst = 0.0;
	double		worst_chain = 0.0;
	int			c = 0;

	/* the closed form: s the tied pair's spin, u of the 18 others +1 */
	for (int s = -1; s <= 1; s += 2)
		for (int u = 0; u <= P - 2; u++)
		{
			double		M = 2.0 * s + 2.0 * u - (P - 2);
			double		w = exp(lgamma(P - 1.0) - lgamma(u + 1.0) - lgamma(P - 1.0 - u) +
								J * (M * M - P) / 2.0 + h * M);

			total += w;
			up += M > 0 ? w : (M == 0 ? 0.5 * w : 0.0);
		}
	up /= total;

	start[0] = 0;
	for (int i = 0; i < P; i++)
	{
		theta[i] = h;
		ptheta[2 * i + 1] = 2.0 * h;
		coef[MrfSubsetIndex(P, &i, 1)] = h;
		var[start[c]] = i;
		start[c + 1] = start[c] + 1;
		c++;
	}
	for (int i = 0; i < P; i++)
		for (int j = i + 1; j < P; j++)
		{
			double		Jij = i == 0 && j == 1 ? big : J;
			int			pair[2] = {i, j};

			A[(size_t) i * P + j] = A[(size_t) j * P + i] = Jij;
			coef[MrfSubsetIndex(P, pair, 2)] = Jij;
			for (int a = 0; a < 2; a++)
			{
				/* pairwise: 2 J on equal values is the Ising coupling J up to a constant */
				W[(((size_t) i * P + j) * 2 + a) * 2 + a] = 2.0 * Jij;
				W[(((size_t) j * P + i) * 2 + a) * 2 + a] = 2.0 * Jij;
			}
			var[start[c]] = i;
			var[start[c] + 1] = j;
			start[c + 1] = start[c] + 2;
			c++;
		}
	CHECK(MrfCliqueSetBuild(P, 2, m, start, var, 0, &env, &set) == MRF_OK);
	logpot = calloc(set->cells + 1, sizeof(double));
	for (int q = 0; q < set->m; q++)
	{
		double	   *t = logpot + set->offset[q];

		if (set->start[q + 1] - set->start[q] == 1)
			t[1] = 2.0 * h;
		else
		{
			int			i = set->var[set->start[q]];
			int			j = set->var[set->start[q] + 1];

			t[0] = t[3] = 2.0 * (i + j == 1 && i * j == 0 ? big : J);
		}
	}

	for (int kind = 0; kind < 4; kind++)
		for (int seed = 1; seed <= 1; seed++)
		{
			MrfChainReport rep;
			MrfSampleOptions opt = {300, 5, 1, 0, &rep};
			MrfSampler	used = MRF_SAMPLER_NONE;
			MrfRng		rng;
			double		share = 0.0;
			double		chain[MRF_SAMPLE_CHAINS] = {0};
			MrfStatus	st;
			const char *name = (const char *[]) {"Ising", "pairwise", "cliques", "t-wise"}[kind];

			MrfRngInitSeeded(&rng, 70 + 10 * kind + seed);
			memset(&rep, 0, sizeof(rep));
			if (kind == 0)
				st = MrfIsingSampleWith(A, theta, P, N, &opt, &rng, &env, spins, &used);
			else if (kind == 1)
				st = MrfPairwiseSampleWith(W, ptheta, P, 2, N, &opt, &rng, &env,
										   (uint8_t *) spins, &used);
			else if (kind == 2)
				st = MrfCliquesSampleWith(set, logpot, N, &opt, &rng, &env, codes, &used);
			else
				st = MrfTwiseSampleWith(coef, P, 2, N, &opt, &rng, &env, spins, &used);
			CHECK_MSG(st == MRF_OK && used == MRF_SAMPLER_CHAINS, "%s seed %d: status %d, sampler %d",
					  name, seed, (int) st, (int) used);
			if (st != MRF_OK)
				continue;
			for (int r = 0; r < N; r++)
			{
				int			M = 0;
				double		plus;

				for (int i = 0; i < P; i++)
				{
					int			one = kind == 0 || kind == 3 ? spins[(size_t) r * P + i] > 0 :
						kind == 1 ? spins[(size_t) r * P + i] == 1 : codes[(size_t) r * P + i] == 1;

					M += one ? 1 : -1;
				}
				plus = M > 0 ? 1.0 : (M == 0 ? 0.5 : 0.0);
				share += plus / N;
				/* row r comes from chain r mod MRF_SAMPLE_CHAINS */
				chain[r % MRF_SAMPLE_CHAINS] += plus * MRF_SAMPLE_CHAINS / N;
			}
			worst = fmax(worst, fabs(share - up));
			CHECK_MSG(fabs(share - up) < 0.05,
					  "%s seed %d: share of mostly +1 rows %.4f, exact %.4f (%d temperatures, swap rate %.3f, R-hat %.3g)",
					  name, seed, share, up, rep.temperatures, rep.swap_rate, rep.rhat);
			for (int q = 0; q < MRF_SAMPLE_CHAINS; q++)
			{
				worst_chain = fmax(worst_chain, fabs(chain[q] - up));
				CHECK_MSG(fabs(chain[q] - up) < 0.2,
						  "%s seed %d: chain %d's share of mostly +1 rows %.4f, exact %.4f (%d temperatures)",
						  name, seed, q, chain[q], up, rep.temperatures);
			}
		}
	printf("# sample: two modes beside a coupling of %g: exact share %.4f, largest error %.4f over the rows, %.4f in one chain\n",
		   big, up, worst, worst_chain);
	MrfCliqueSetFree(&env, set);
	free(logpot);
	free(A);
	free(theta);
	free(ptheta);
	free(W);
	free(coef);
	free(start);
	free(var);
	free(spins);
	free(codes);
}

/* One sampler run of a sweep: a model kind, its size and its sampler's options. */
typedef struct SampleOomCase
{
	int			kind;			/* 0 Ising, 1 pairwise, 2 t-wise, 3 cliques */
	int			p;
	int64_t		n;
	MrfSampleOptions opt;
	const double *A;
	const double *theta;
	const double *W;
	const double *coef;
	const MrfCliqueSet *set;
	const double *logpot;
	void	   *out;
	MrfSampler	used;			/* the sampler of the last run that succeeded */
} SampleOomCase;

static MrfStatus
SampleOomRelease(void *arg, const MrfEnv *env)
{
	SampleOomCase *c = arg;
	MrfSampler	used = MRF_SAMPLER_NONE;
	MrfStatus	st;
	MrfRng		rng;

	MrfRngInitSeeded(&rng, 808);
	switch (c->kind)
	{
		case 0:
			st = MrfIsingSampleWith(c->A, c->theta, c->p, c->n, &c->opt, &rng, env, c->out,
									&used);
			break;
		case 1:
			st = MrfPairwiseSampleWith(c->W, c->theta, c->p, 2, c->n, &c->opt, &rng, env,
									   c->out, &used);
			break;
		case 2:
			st = MrfTwiseSampleWith(c->coef, c->p, 2, c->n, &c->opt, &rng, env, c->out,
									&used);
			break;
		default:
			st = MrfCliquesSampleWith(c->set, c->logpot, c->n, &c->opt, &rng, env, c->out,
									  &used);
			break;
	}
	if (st == MRF_OK)
		c->used = used;
	return st;
}

/*
 * Every allocation of a sampler's run refused in turn (harness.h's sweep):
 * a star of 14 variables (enumerated) and of 20 (the chain sampler with
 * tempering and its R-hat, the junction tree sampler, allocation through
 * the junction tree), for each model kind that has the sampler.
 */
static void
TestSampleOutOfMemory(void)
{
	enum
	{
		P = 20,
		N = 30
	};
	/* the models of 14 (enumerated) and of P variables: a star, each its own arrays */
	const int	size[2] = {14, P};
	double	   *A[2];
	double	   *theta[2];
	double	   *W[2];
	double	   *coef[2];
	double	   *logpot = calloc((size_t) (P - 1) * 4, sizeof(double));
	int			start[P];
	int			var[2 * (P - 1)];
	void	   *out = malloc(sizeof(MrfCode) * N * P);
	MrfCliqueSet *set[2] = {NULL, NULL};
	MrfChainReport report;
	long		refused = 0;
	double		seconds = 0.0;
	int			sweeps = 0;
	int			samplers[5] = {0};

	for (int z = 0; z < 2; z++)
	{
		int			p = size[z];

		A[z] = calloc((size_t) p * p, sizeof(double));
		theta[z] = calloc((size_t) p * 2, sizeof(double));
		W[z] = calloc((size_t) p * p * 4, sizeof(double));
		coef[z] = calloc((size_t) MrfTwiseCoefCount(p, 2), sizeof(double));
		for (int j = 1; j < p; j++)
		{
			int			pair[2] = {0, j};
			double		x = 0.3 + 0.05 * j;

			A[z][j] = A[z][(size_t) j * p] = x;
			theta[z][j] = 0.1;
			W[z][(((size_t) 0 * p + j) * 2 + 1) * 2 + 1] = x;
			W[z][(((size_t) j * p + 0) * 2 + 1) * 2 + 1] = x;
			coef[z][MrfSubsetIndex(p, pair, 2)] = x;
		}
	}
	for (int j = 1; j < P; j++)
	{
		start[j - 1] = 2 * (j - 1);
		var[2 * (j - 1)] = 0;
		var[2 * (j - 1) + 1] = j;
		logpot[(size_t) (j - 1) * 4] = 0.3 + 0.05 * j;
	}
	start[P - 1] = 2 * (P - 1);
	/* the 14-variable star is the first 13 pairs */
	CHECK(MrfCliqueSetBuild(14, 2, 13, start, var, 0, &MrfMallocEnv, &set[0]) == MRF_OK);
	CHECK(MrfCliqueSetBuild(P, 2, P - 1, start, var, 0, &MrfMallocEnv, &set[1]) == MRF_OK);
	for (int kind = 0; kind < 4 && set[0] != NULL && set[1] != NULL; kind++)
		for (int sampler = 0; sampler < 4; sampler++)
		{
			static const char *const kinds[4] = {"ising", "pairwise", "t-wise", "cliques"};
			SampleOomCase c;
			OomSweepResult res;
			char		what[80];
			int			z = sampler != 0;

			/* t-wise models have neither a junction tree nor allocation */
			if (kind == 2 && sampler >= 2)
				continue;
			memset(&c, 0, sizeof(c));
			c.kind = kind;
			/*
			 * 0: enumeration (14 variables); 1: the chains (a junction tree
			 * of one cell never fits); 2: the tree; 3: allocation
			 */
			c.p = size[z];
			c.n = N;
			c.opt.burn_in = 20;
			c.opt.thin = 2;
			c.opt.max_tree_cells = sampler == 1 ? 1 : 0;
			c.opt.allocate = sampler == 3;
			c.opt.report = &report;
			c.A = A[z];
			c.theta = theta[z];
			c.W = W[z];
			c.coef = coef[z];
			c.set = set[z];
			c.logpot = logpot;
			c.out = out;
			c.used = MRF_SAMPLER_NONE;
			snprintf(what, sizeof(what), "%s sampler %d", kinds[kind], sampler);
			res = OomSweep(what, SampleOomRelease, &c);
			refused += res.refused;
			seconds += res.seconds;
			sweeps++;
			samplers[c.used]++;
		}
	printf("# sample out of memory: %ld refused requests over %d runs in %.2f s, each a clean MRF_ENOMEM; samplers: %d exact, %d tree, %d chains, %d allocate\n",
		   refused, sweeps, seconds, samplers[MRF_SAMPLER_ENUMERATE], samplers[MRF_SAMPLER_TREE],
		   samplers[MRF_SAMPLER_CHAINS], samplers[MRF_SAMPLER_ALLOCATE]);
	CHECK(sweeps == 14 && samplers[MRF_SAMPLER_ENUMERATE] == 4 && samplers[MRF_SAMPLER_TREE] == 3 &&
		  samplers[MRF_SAMPLER_CHAINS] == 4 && samplers[MRF_SAMPLER_ALLOCATE] == 3);
	MrfCliqueSetFree(&MrfMallocEnv, set[0]);
	MrfCliqueSetFree(&MrfMallocEnv, set[1]);
	for (int z = 0; z < 2; z++)
	{
		free(A[z]);
		free(theta[z]);
		free(W[z]);
		free(coef[z]);
	}
	free(logpot);
	free(out);
}

/* The sampler's test group. */
void
TestSample(void)
{
	TestSampleOutOfMemory();
	TestSampleArguments();
	TestExactEnumeration();
	TestExactEdgeCases();
	TestGibbsChain();
	TestGibbsVsExact();
	TestGibbsSchedule();
	TestSampleHousekeeping();
	TestChainOverflow();
	TestChainSwapPrecision();
	TestChainHugeCouplingModes();
}
