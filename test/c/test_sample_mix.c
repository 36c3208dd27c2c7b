/*
 * test_sample_mix.c - the chain sampler (parallel tempering over several
 * chains, sample.c) on models with well-separated modes that no exact
 * sampler reaches: dense all-pairs ("Curie-Weiss") Ising, Potts (pairwise
 * k-ary) and t-wise models, whose exact mode probabilities have closed forms
 * in the counts of each value (every variable plays the same role), so the
 * exact answers are computed here without sample.c and for more variables
 * than enumeration allows.  Each seed's share of rows in a mode must be
 * near the exact share; one Gibbs chain per call (the sampler before) put
 * 0% or 100% of every seed's rows in one mode and fails every check.  Then
 * the split R-hat: above MRF_SAMPLE_RHAT_LIMIT when chains cannot agree,
 * at most that when they mix, NaN for too few draws.
 *
 * Bounds: rows of one chain are correlated, so a seed's share varies more
 * than a binomial one: over 40 seeds of the 31-spin model the deviations
 * had about 1.9 binomial standard deviations rms, so MIX_SDS binomial
 * standard deviations are about 4 real ones.  A stuck chain is 40 or more
 * binomial standard deviations off.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "noise.h"
#include "sample.h"
#include "twise.h"

void		TestSampleMix(void);


/* Binomial standard deviations a seed's count may be off. */
#define MIX_SDS 8.0

/* Rows per seed, and seeds. */
#define MIX_ROWS 2000
#define MIX_SEEDS 8

/* log of the binomial coefficient C(n, k). */
static double
LogChoose(int n, int k)
{
	return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0);
}

/*
 * Exact probability that more than half of p spins are +1 in the model with
 * log-weight logw(M) + log C(p, k) for k spins at +1 (M = 2k - p), and the
 * exact mean spin E[M] / p.
 */
static void
SpinCountExact(int p, double (*logw) (int p, int M, const double *c),
			   const double *c, double *majority, double *mean)
{
	double		mx = -INFINITY;
	double		z = 0.0;
	double		maj = 0.0;
	double		m1 = 0.0;
	int			k;

	for (k = 0; k <= p; k++)
	{
		double		lw = LogChoose(p, k) + logw(p, 2 * k - p, c);

		mx = lw > mx ? lw : mx;
	}
	for (k = 0; k <= p; k++)
	{
		double		w = exp(LogChoose(p, k) + logw(p, 2 * k - p, c) - mx);

		z += w;
		if (2 * k > p)
			maj += w;
		m1 += w * (2 * k - p);
	}
	*majority = maj / z;
	*mean = m1 / z / p;
}

/* Curie-Weiss: all pairs at c[0], every field c[1]: c0 (M^2 - p) / 2 + c1 M. */
static double
CurieWeissLogW(int p, int M, const double *c)
{
	return c[0] * ((double) M * M - p) / 2.0 + c[1] * M;
}

/*
 * All pairs at c[0] and all triples at c[1]: the sums of z_i z_j and of
 * z_i z_j z_k over pairs and triples are e2 = (M^2 - p) / 2 and
 * e3 = (M^3 - 3 p M + 2 M) / 6 (Newton's identities, z_i^2 = 1).
 */
static double
PairsTriplesLogW(int p, int M, const double *c)
{
	double		m = M;

	return c[0] * (m * m - p) / 2.0 + c[1] * (m * m * m - 3.0 * p * m + 2.0 * m) / 6.0;
}

/* Rows (n x p spins) with more +1 than -1, and the mean spin. */
static void
SpinRowsStats(const int8_t *rows, long n, int p, long *majority, double *mean)
{
	long		total = 0;

	*majority = 0;
	for (long m = 0; m < n; m++)
	{
		int			sum = 0;

		for (int i = 0; i < p; i++)
			sum += rows[m * p + i];
		*majority += sum > 0;
		total += sum;
	}
	*mean = (double) total / ((double) n * p);
}

/* Checks a seed's count against n times the exact share. */
static void
CheckShare(const char *what, int seed, long count, long n, double exact)
{
	double		sd = sqrt(n * exact * (1.0 - exact));

	CHECK_MSG(fabs(count - n * exact) <= MIX_SDS * sd + 1.0,
			  "%s, seed %d: %ld of %ld rows, exact %.1f (bound %.1f)", what, seed, count, n,
			  n * exact, MIX_SDS * sd + 1.0);
}

/* A dense p-spin model: all pairs at coupling, every field at field. */
static void
CurieWeiss(int p, double coupling, double field, double *A, double *theta)
{
	for (int i = 0; i < p; i++)
	{
		theta[i] = field;
		for (int j = 0; j < p; j++)
			A[i * p + j] = i == j ? 0.0 : coupling;
	}
}

/*
 * 31 spins, all pairs at 0.12 (no junction tree within the limit: the
 * triangulation is one 2^31-cell clique), with no field (two modes of
 * equal mass, share 1/2 by symmetry) and with a field of 0.01 tilting the
 * +1 mode to 0.650 (closed form), through MrfIsingSample's defaults
 * (burn-in 1000, thin 10), 8 seeds each.  The mean spin is checked too
 * (exact 0 and 0.2996): a row's mean spin is near +-1, so it moves about
 * twice as far as the majority share, plus 0.02 for the spread within a
 * mode; a stuck chain is off by about 1.
 */
static void
TestIsingModes(void)
{
	const int	p = 31;
	const double fields[2] = {0.0, 0.01};
	double	   *A = malloc(sizeof(double) * p * p);
	double	   *theta = malloc(sizeof(double) * p);
	int8_t	   *rows = malloc((size_t) MIX_ROWS * p);

	for (int f = 0; f < 2; f++)
	{
		double		c[2] = {0.12, fields[f]};
		double		share;
		double		meanExact;

		SpinCountExact(p, CurieWeissLogW, c, &share, &meanExact);
		if (f == 0)
			CHECK_NEAR(share, 0.5, 1e-12);
		CurieWeiss(p, 0.12, fields[f], A, theta);
		for (int seed = 1; seed <= MIX_SEEDS; seed++)
		{
			MrfRng		rng;
			long		majority;
			double		mean;

			MrfRngInitSeeded(&rng, 2300 + seed);
			CHECK(MrfIsingSample(A, theta, p, MIX_ROWS, 1000, 10, &rng, &MrfMallocEnv, rows) == MRF_OK);
			SpinRowsStats(rows, MIX_ROWS, p, &majority, &mean);
			CheckShare(f == 0 ? "Ising, symmetric" : "Ising, field 0.01", seed, majority,
					   MIX_ROWS, share);
			/* the mean moves twice as far as the share, plus the spread within a mode */
			CHECK_MSG(fabs(mean - meanExact) <= 2.0 * (MIX_SDS * sqrt(share * (1 - share) / MIX_ROWS)) + 0.02,
					  "Ising, field %.2f, seed %d: mean spin %.4f, exact %.4f", fields[f], seed,
					  mean, meanExact);
		}
	}
	free(A);
	free(theta);
	free(rows);
}

/* A Potts model: all pairs with S(a, b) = coupling when a = b, field on value 0. */
static void
Potts(int p, int k, double coupling, double field, double *W, double *theta)
{
	memset(W, 0, sizeof(double) * p * p * k * k);
	memset(theta, 0, sizeof(double) * p * k);
	for (int i = 0; i < p; i++)
	{
		theta[i * k] = field;
		for (int j = 0; j < p; j++)
			for (int a = 0; i != j && a < k; a++)
				W[(((size_t) i * p + j) * k + a) * k + a] = coupling;
	}
}

/*
 * A Potts model: 20 variables of 3 values, all pairs with S(a, b) = 0.4 when
 * a = b (3^20 states, no junction tree within the limit), field 0.03 on
 * value 0 of every variable: three modes (most variables at one value),
 * value 0's the heaviest.  The exact probability that more than half the
 * variables take value v sums the multinomial over the value counts
 * (n0, n1, n2): log-weight log(p! / (n0! n1! n2!)) + 0.4 sum_a C(n_a, 2)
 * + 0.03 n0.  Checked for each value, 8 seeds.
 */
static void
TestPottsModes(void)
{
	const int	p = 20;
	const int	k = 3;
	const double coupling = 0.4;
	const double field = 0.03;
	double	   *W = calloc((size_t) p * p * k * k, sizeof(double));
	double	   *theta = calloc((size_t) p * k, sizeof(double));
	uint8_t    *rows = malloc((size_t) MIX_ROWS * p);
	double		exact[3] = {0.0, 0.0, 0.0};
	double		z = 0.0;
	double		mx = -INFINITY;

	for (int pass = 0; pass < 2; pass++)
		for (int n0 = 0; n0 <= p; n0++)
			for (int n1 = 0; n0 + n1 <= p; n1++)
			{
				int			n[3] = {n0, n1, p - n0 - n1};
				double		lw = lgamma(p + 1.0) + field * n0;

				for (int a = 0; a < 3; a++)
					lw += coupling * n[a] * (n[a] - 1) / 2.0 - lgamma(n[a] + 1.0);
				if (pass == 0)
				{
					mx = lw > mx ? lw : mx;
					continue;
				}
				z += exp(lw - mx);
				for (int a = 0; a < 3; a++)
					if (2 * n[a] > p)
						exact[a] += exp(lw - mx);
			}
	for (int a = 0; a < 3; a++)
		exact[a] /= z;
	CHECK_MSG(exact[0] > 0.45 && exact[1] > 0.25 && fabs(exact[1] - exact[2]) < 1e-12,
			  "Potts exact shares %.4f %.4f %.4f", exact[0], exact[1], exact[2]);

	Potts(p, k, coupling, field, W, theta);
	for (int seed = 1; seed <= MIX_SEEDS; seed++)
	{
		MrfRng		rng;
		long		count[3] = {0, 0, 0};

		MrfRngInitSeeded(&rng, 2310 + seed);
		CHECK(MrfPairwiseSample(W, theta, p, k, MIX_ROWS, 1000, 10, &rng, &MrfMallocEnv, rows) == MRF_OK);
		for (long m = 0; m < MIX_ROWS; m++)
		{
			int			n[3] = {0, 0, 0};

			for (int i = 0; i < p; i++)
				n[rows[m * p + i]]++;
			for (int a = 0; a < 3; a++)
				count[a] += 2 * n[a] > p;
		}
		for (int a = 0; a < 3; a++)
			CheckShare(a == 0 ? "Potts, value 0" : a == 1 ? "Potts, value 1" : "Potts, value 2",
					   seed, count[a], MIX_ROWS, exact[a]);
	}
	free(W);
	free(theta);
	free(rows);
}

/*
 * A t-wise model beyond enumeration: 17 spins, all pairs at 0.2 and all
 * 680 triples at 0.0007 (t = 3), which tilt the +1 mode to 0.720 (closed
 * form in M through e2 and e3), 8 seeds.
 */
static void
TestTwiseModes(void)
{
	const int	p = 17;
	const int	t = 3;
	const double c[2] = {0.2, 0.0007};
	int64_t		count = MrfTwiseCoefCount(p, t);
	double	   *coef = calloc((size_t) count, sizeof(double));
	int8_t	   *rows = malloc((size_t) MIX_ROWS * p);
	int			vars[MRF_TWISE_MAX_ORDER];
	double		share;
	double		meanExact;
	int64_t		x = 0;
	int			size = 0;

	SpinCountExact(p, PairsTriplesLogW, c, &share, &meanExact);
	CHECK_NEAR(share, 0.7195, 0.0001);
	while (MrfSubsetNext(p, t, vars, &size))
	{
		x++;
		coef[x] = size == 2 ? c[0] : size == 3 ? c[1] : 0.0;
	}
	CHECK(x + 1 == count);
	for (int seed = 1; seed <= MIX_SEEDS; seed++)
	{
		MrfRng		rng;
		long		majority;
		double		mean;

		MrfRngInitSeeded(&rng, 2320 + seed);
		CHECK(MrfTwiseSample(coef, p, t, MIX_ROWS, 1000, 10, &rng, &MrfMallocEnv, rows) == MRF_OK);
		SpinRowsStats(rows, MIX_ROWS, p, &majority, &mean);
		CheckShare("t-wise, pairs and triples", seed, majority, MIX_ROWS, share);
	}
	free(coef);
	free(rows);
}

/* The chain sampler on an Ising model with its report. */
static MrfStatus
IsingChains(const double *A, const double *theta, int p, long n, int burn_in,
			int thin, uint64_t seed, int8_t *rows, MrfChainReport *report)
{
	MrfSampleOptions opt = {burn_in, thin, 0, 0, report};
	MrfSampler	used = MRF_SAMPLER_TREE;
	MrfRng		rng;
	MrfStatus	status;

	MrfRngInitSeeded(&rng, seed);
	status = MrfIsingSampleWith(A, theta, p, n, &opt, &rng, &MrfMallocEnv, rows, &used);
	CHECK(status != MRF_OK || used == MRF_SAMPLER_CHAINS);
	return status;
}

/*
 * The split R-hat.  Chains that mix (the 31-spin model at the defaults,
 * 8 seeds): at most MRF_SAMPLE_RHAT_LIMIT.  Chains that cannot agree: a
 * Potts model of 30 variables of 10 values, all pairs at 0.8, ten modes
 * and a strongly first-order transition between them and the hot replicas
 * (no swap across it is accepted): with no burn-in and 20 rounds a chain,
 * and at the defaults, each chain keeps the modes it fell into and the
 * R-hat is above the limit.  A weakly coupled model (strength below 1/2)
 * runs one temperature.  Too few rows for halves of 10 draws: NaN.
 */
static void
TestSplitRhat(void)
{
	const int	p = 31;
	const int	q = 30;
	const int	k = 10;
	double	   *A = malloc(sizeof(double) * p * p);
	double	   *theta = calloc(p, sizeof(double));
	double	   *W = malloc(sizeof(double) * q * q * k * k);
	double	   *field = malloc(sizeof(double) * q * k);
	int8_t	   *rows = malloc((size_t) MIX_ROWS * p);
	uint8_t    *values = malloc((size_t) MIX_ROWS * q);
	MrfChainReport report;

	CurieWeiss(p, 0.12, 0.0, A, theta);
	for (int seed = 1; seed <= MIX_SEEDS; seed++)
	{
		CHECK(IsingChains(A, theta, p, MIX_ROWS, 1000, 10, 2330 + seed, rows, &report) == MRF_OK);
		CHECK_MSG(report.rhat <= MRF_SAMPLE_RHAT_LIMIT && report.rhat >= 0.99,
				  "seed %d: mixing chains have split R-hat %.4f (spin %d)", seed, report.rhat,
				  report.rhat_variable);
		CHECK(report.chains == MRF_SAMPLE_CHAINS && report.temperatures > 1 &&
			  report.beta_min < 0.2 && report.swap_rate > 0.1);
	}

	Potts(q, k, 0.8, 0.0, W, field);
	for (int seed = 1; seed <= 4; seed++)
	{
		MrfSampleOptions opt = {0, 1, 0, 0, &report};
		MrfSampler	used = MRF_SAMPLER_TREE;
		MrfRng		rng;

		MrfRngInitSeeded(&rng, 2340 + seed);
		CHECK(MrfPairwiseSampleWith(W, field, q, k, 80, &opt, &rng, &MrfMallocEnv, values,
									&used) == MRF_OK && used == MRF_SAMPLER_CHAINS);
		CHECK_MSG(report.rhat > MRF_SAMPLE_RHAT_LIMIT && report.rhat_variable >= 0 &&
				  report.rhat_variable < q && report.rhat_value >= 0 && report.rhat_value < k,
				  "Potts, no burn-in, seed %d: split R-hat %.4f at variable %d value %d", seed,
				  report.rhat, report.rhat_variable, report.rhat_value);
	}
	{
		MrfSampleOptions opt = {1000, 10, 0, 0, &report};
		MrfRng		rng;

		MrfRngInitSeeded(&rng, 2345);
		CHECK(MrfPairwiseSampleWith(W, field, q, k, MIX_ROWS, &opt, &rng, &MrfMallocEnv, values,
									NULL) == MRF_OK);
		CHECK_MSG(report.rhat > MRF_SAMPLE_RHAT_LIMIT && report.swap_rate < 0.05,
				  "Potts at the defaults: split R-hat %.4f, swaps %.4f", report.rhat,
				  report.swap_rate);
	}

	/* couplings of 0.01: strength 0.3, one temperature, agreement */
	CurieWeiss(p, 0.01, 0.1, A, theta);
	CHECK(IsingChains(A, theta, p, MIX_ROWS, 100, 2, 2346, rows, &report) == MRF_OK);
	CHECK(report.temperatures == 1 && report.beta_min == 1.0 && isnan(report.swap_rate));
	CHECK_MSG(report.rhat <= MRF_SAMPLE_RHAT_LIMIT, "weak model: split R-hat %.4f", report.rhat);

	/* 40 rows over 4 chains, thin 1: halves of 5 draws */
	CHECK(IsingChains(A, theta, p, 40, 0, 1, 2347, rows, &report) == MRF_OK);
	CHECK(isnan(report.rhat) && report.rhat_variable == -1);

	free(A);
	free(theta);
	free(W);
	free(field);
	free(rows);
	free(values);
}

/* The chain sampler's test group. */
void
TestSampleMix(void)
{
	TestIsingModes();
	TestPottsModes();
	TestTwiseModes();
	TestSplitRhat();
}
