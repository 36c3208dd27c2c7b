/*
 * test_ising.c - the private Ising learner on data drawn exactly from a known
 * chain model (enumerated here, independent of sample.c).
 */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "fw.h"
#include "fwkernel.h"
#include "ising.h"
#include "rows.h"

#define CHAIN_P 8
#define CHAIN_N 20000
#define CHAIN_COUPLING 0.4
#define CHAIN_SEEDS 3

/* Chain couplings 0.4 and alternating fields 0.1: width 0.9 <= lambda = 1. */
static void
ChainModel(double *A, double *theta)
{
	int			i;

	memset(A, 0, sizeof(double) * CHAIN_P * CHAIN_P);
	for (i = 0; i + 1 < CHAIN_P; i++)
	{
		A[i * CHAIN_P + i + 1] = CHAIN_COUPLING;
		A[(i + 1) * CHAIN_P + i] = CHAIN_COUPLING;
	}
	for (i = 0; i < CHAIN_P; i++)
		theta[i] = i % 2 ? 0.1 : -0.1;
}

/*
 * Exact sampling: the probability of each of the 2^p states, then inversion
 * of the cumulative distribution with a uniform.  State bit j = 1 means
 * z_j = +1, the same layout as the packed rows.
 */
static void
ExactSample(const double *A, const double *theta, int64_t n, MrfRng *rng,
			uint64_t *bits)
{
	const int	states = 1 << CHAIN_P;
	double		cdf[1 << CHAIN_P];
	double		total = 0;
	int			s;
	int64_t		m;

	for (s = 0; s < states; s++)
	{
		double		e = 0;
		int			i;
		int			j;

		for (i = 0; i < CHAIN_P; i++)
		{
			int			zi = (s >> i) & 1 ? 1 : -1;

			e += theta[i] * zi;
			for (j = i + 1; j < CHAIN_P; j++)
				e += A[i * CHAIN_P + j] * zi * ((s >> j) & 1 ? 1 : -1);
		}
		total += exp(e);
		cdf[s] = total;
	}
	for (m = 0; m < n; m++)
	{
		double		u = MrfRngUniform(rng) * total;
		int			lo = 0;
		int			hi = states - 1;

		while (lo < hi)
		{
			int			mid = (lo + hi) / 2;

			if (cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		bits[m] = (uint64_t) lo;
	}
}

/* Largest absolute entry-wise difference, scaled and/or negated estimate. */
static double
MaxError(const double *est, const double *truth, int len, double factor)
{
	double		worst = 0;
	int			i;

	for (i = 0; i < len; i++)
	{
		double		e = fabs(factor * est[i] - truth[i]);

		worst = e > worst ? e : worst;
	}
	return worst;
}

/*
 * Accuracy at a large budget within 0.15 (a missing factor 1/2 is off by
 * 0.4, a wrong sign by 0.8), symmetry, and more error at a small budget,
 * averaged over seeds.
 */
static void
TestChainAccuracy(void)
{
	double		A[CHAIN_P * CHAIN_P];
	double		theta[CHAIN_P];
	double		Ah[CHAIN_P * CHAIN_P];
	double		th[CHAIN_P];
	uint64_t   *bits = malloc(sizeof(uint64_t) * CHAIN_N);
	MrfIsingOptions opt;
	MrfRng		rng;
	double		err_big = 0;
	double		err_small = 0;
	int			threads = openblas_get_num_threads();
	int			seed;

	ChainModel(A, theta);
	memset(&opt, 0, sizeof(opt));
	opt.lambda = 1.0;
	opt.mechanism = MRF_MECH_EXPONENTIAL;
	opt.symmetrize = 1;

	/* small problems: threads only add overhead */
	openblas_set_num_threads(1);
	for (seed = 0; seed < CHAIN_SEEDS; seed++)
	{
		double		e;
		int			sym = 1;
		int			i;
		int			j;

		MrfRngInitSeeded(&rng, 100 + seed);
		ExactSample(A, theta, CHAIN_N, &rng, bits);

		opt.rho = 50.0;
		CHECK(MrfIsingLearn(bits, CHAIN_N, CHAIN_P, &opt, &rng, &MrfMallocEnv,
							Ah, th) == MRF_OK);
		e = MaxError(Ah, A, CHAIN_P * CHAIN_P, 1.0);
		CHECK_MSG(e < 0.15, "rho 50, seed %d: max |A_hat - A| = %.3f", seed, e);
		CHECK_MSG(MaxError(th, theta, CHAIN_P, 1.0) < 0.15,
				  "rho 50: theta off by %.3f", MaxError(th, theta, CHAIN_P, 1.0));
		/* negative controls: the bound rejects a doubled or negated estimate */
		CHECK(MaxError(Ah, A, CHAIN_P * CHAIN_P, 2.0) > 0.15);
		CHECK(MaxError(Ah, A, CHAIN_P * CHAIN_P, -1.0) > 0.15);
		for (i = 0; i < CHAIN_P; i++)
		{
			sym &= Ah[i * CHAIN_P + i] == 0.0;
			for (j = 0; j < CHAIN_P; j++)
				sym &= Ah[i * CHAIN_P + j] == Ah[j * CHAIN_P + i];
		}
		CHECK(sym);
		err_big += e;

		opt.rho = 0.01;
		CHECK(MrfIsingLearn(bits, CHAIN_N, CHAIN_P, &opt, &rng, &MrfMallocEnv,
							Ah, th) == MRF_OK);
		err_small += MaxError(Ah, A, CHAIN_P * CHAIN_P, 1.0);
	}
	openblas_set_num_threads(threads);
	CHECK_MSG(err_big < err_small, "mean error at rho 50 (%.3f) not below rho 0.01 (%.3f)",
			  err_big / CHAIN_SEEDS, err_small / CHAIN_SEEDS);
	printf("# ising chain p=%d n=%d: mean max error %.3f (rho 50), %.3f (rho 0.01)\n",
		   CHAIN_P, CHAIN_N, err_big / CHAIN_SEEDS, err_small / CHAIN_SEEDS);
	free(bits);
}

/* Options, iteration count, workspace, symmetrize off, and invalid input. */
static void
TestIsingInterface(void)
{
	const int64_t n = 500;
	const int	p = 5;
	uint64_t   *bits = malloc(sizeof(uint64_t) * n);
	double		Ah[25];
	double		th[5];
	MrfIsingOptions opt;
	MrfRng		rng;
	CountingEnv ce;
	MrfEnv		env;
	int64_t		m;
	int			i;
	int			diag = 1;
	int			asym = 0;

	MrfRngInitSeeded(&rng, 200);
	for (m = 0; m < n; m++)
		bits[m] = MrfRngU64(&rng) & 31;

	memset(&opt, 0, sizeof(opt));
	opt.rho = 1.0;
	opt.lambda = 1.0;
	opt.mechanism = MRF_MECH_LAPLACE;
	opt.symmetrize = 0;
	/*
	 * R = 2, rho_node = 0.2: the paper's ceil((2 * 500 * sqrt(0.2))^(2/3)) =
	 * 59, and the learner runs a quarter of it (MRF_ISING_T_FRACTION), 15
	 */
	CHECK(MrfFwDefaultIterations(2.0, n, 0.2) == 59);
	CHECK(MrfIsingIterations(&opt, p, n) == 15);
	opt.iterations = 7;
	CHECK(MrfIsingIterations(&opt, p, n) == 7);
	opt.iterations = 1;
	CHECK(MrfIsingIterations(&opt, p, n) == -1);
	CHECK(MrfIsingLearn(bits, n, p, &opt, &rng, &MrfMallocEnv, Ah, th) == MRF_EINVAL);
	opt.iterations = 0;

	/* X is one bit per row and coordinate */
	CHECK(MrfIsingWorkspaceBytes(p, n) >=
		  sizeof(uint64_t) * (size_t) ((n + 63) / 64) * (p + 1) + MrfFwWorkspaceBytes(n, p + 1, p));

	/* the declared workspace is the peak, and all of it is returned */
	CountingEnvInit(&ce, &env);
	CHECK(MrfIsingLearn(bits, n, p, &opt, &rng, &env, Ah, th) == MRF_OK);
	CHECK_MSG(ce.peak == MrfIsingWorkspaceBytes(p, n), "peak %zu, declared %zu",
			  ce.peak, MrfIsingWorkspaceBytes(p, n));
	CHECK(ce.live == 0 && ce.allocs == ce.frees);
	CHECK(ce.polls > 0 && ce.last_done == ce.last_total);
	for (i = 0; i < p; i++)
	{
		int			j;

		diag &= Ah[i * p + i] == 0.0;
		for (j = 0; j < p; j++)
			asym |= Ah[i * p + j] != Ah[j * p + i];
	}
	CHECK(diag);
	CHECK(asym);

	opt.rho = 0.0;
	CHECK(MrfIsingLearn(bits, n, p, &opt, &rng, &MrfMallocEnv, Ah, th) == MRF_EINVAL);
	opt.rho = 1.0;
	opt.lambda = NAN;
	CHECK(MrfIsingLearn(bits, n, p, &opt, &rng, &MrfMallocEnv, Ah, th) == MRF_EINVAL);
	opt.lambda = 1.0;
	CHECK(MrfIsingLearn(bits, n, 1, &opt, &rng, &MrfMallocEnv, Ah, th) == MRF_EINVAL);

	/* the validation the glue runs before charging refuses what the learner refuses */
	CHECK(MrfIsingValidate(&opt, p, n) == NULL);
	opt.lambda = 1e308;			/* R = 2 lambda overflows */
	CHECK(MrfIsingValidate(&opt, p, n) == MrfIsingBadScale);
	CHECK(MrfIsingLearn(bits, n, p, &opt, &rng, &MrfMallocEnv, Ah, th) == MRF_EINVAL);
	opt.lambda = 1e300;			/* finite R, but Laplace scale 4 R / eps0 overflows */
	opt.rho = 1e-300;
	CHECK(MrfIsingValidate(&opt, p, n) == MrfIsingBadScale);
	CHECK(MrfIsingLearn(bits, n, p, &opt, &rng, &MrfMallocEnv, Ah, th) == MRF_EINVAL);
	opt.mechanism = MRF_MECH_EXPONENTIAL;	/* the exponential scale stays finite */
	CHECK(MrfIsingValidate(&opt, p, n) == NULL);
	opt.rho = 1.0;
	opt.lambda = 1.0;
	CHECK(MrfIsingValidate(&opt, p, 0) == MrfIsingBadArgument);
	opt.iterations = 1;
	CHECK(MrfIsingValidate(&opt, p, n) == MrfIsingBadIterations);
	opt.iterations = 0;
	CHECK(MrfFwCheckCalibration(2.0, 0.1, 10, MRF_MECH_LAPLACE) == MRF_OK);
	CHECK(MrfFwCheckCalibration(INFINITY, 0.1, 10, MRF_MECH_LAPLACE) == MRF_EINVAL);
	CHECK(MrfFwCheckCalibration(2.0, 0.1, 1, MRF_MECH_LAPLACE) == MRF_EINVAL);
	free(bits);
}

/* The Ising tests. */
void
TestIsing(void)
{
	TestIsingInterface();
	TestChainAccuracy();
}
