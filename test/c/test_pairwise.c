/*
 * test_pairwise.c - the private pairwise k-ary learner (Zhang et al. 2020,
 * Algorithm 3) and its sampler: the problem handed to the solver (labels,
 * one-hot features, mask, radius, budget split), exact recovery from
 * population weights, the centring convention, the selection law (chi-square
 * with negative controls), exact and Gibbs sampling against enumeration
 * done here, and accuracy on a k = 3 chain and a k = 4 grid.
 */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pairwise.h"
#include "sample.h"

/* p-value below which a distribution is rejected. */
#define P_REJECT 1e-4

/* Runs of the one-step solver for the selection histograms. */
#define SELECTION_RUNS 100000

/* Frank-Wolfe iterations of the accuracy runs (see TestChainAccuracy). */
#define ACCURACY_T 200

/* Bound on max |W_hat - W| and max |theta_hat - theta| at a large budget. */
#define ACCURACY_BOUND 0.15

/* Offset of W_ij(a, b), written out here rather than taken from pairwise.h. */
static size_t
At(int p, int k, int i, int j, int a, int b)
{
	return (((size_t) i * p + j) * k + a) * k + b;
}

/* Log-weight of state z: theta plus (W_ij(a,b) + W_ji(b,a)) / 2 over i < j. */
static double
LogWeight(const double *W, const double *theta, int p, int k, const int *z)
{
	double		e = 0.0;
	int			i;
	int			j;

	for (i = 0; i < p; i++)
	{
		e += theta[i * k + z[i]];
		for (j = i + 1; j < p; j++)
			e += 0.5 * W[At(p, k, i, j, z[i], z[j])] +
				0.5 * W[At(p, k, j, i, z[j], z[i])];
	}
	return e;
}

/* Advances a base-k odometer; returns 0 after the last state. */
static int
NextState(int *z, int p, int k)
{
	int			i;

	for (i = 0; i < p; i++)
	{
		if (++z[i] < k)
			return 1;
		z[i] = 0;
	}
	return 0;
}

/* Probabilities of all k^p states, state index = sum_i z_i k^i. */
static void
ExactLaw(const double *W, const double *theta, int p, int k, double *prob,
		 long states)
{
	int			z[32] = {0};
	double		maxw = -INFINITY;
	double		total = 0.0;
	long		s = 0;

	do
	{
		prob[s] = LogWeight(W, theta, p, k, z);
		maxw = prob[s] > maxw ? prob[s] : maxw;
		s++;
	} while (NextState(z, p, k));
	for (s = 0; s < states; s++)
	{
		prob[s] = exp(prob[s] - maxw);
		total += prob[s];
	}
	for (s = 0; s < states; s++)
		prob[s] /= total;
}

/* Largest absolute difference of factor * est and truth. */
static double
MaxError(const double *est, const double *truth, size_t len, double factor)
{
	double		worst = 0.0;
	size_t		c;

	for (c = 0; c < len; c++)
	{
		double		e = fabs(factor * est[c] - truth[c]);

		worst = e > worst ? e : worst;
	}
	return worst;
}

/* The paper's width: max over i, a of sum_j max_b |W_ij(a,b)| + |theta_i(a)|. */
static double
Width(const double *W, const double *theta, int p, int k)
{
	double		width = 0.0;
	int			i;
	int			a;

	for (i = 0; i < p; i++)
		for (a = 0; a < k; a++)
		{
			double		row = fabs(theta[i * k + a]);
			int			j;

			for (j = 0; j < p; j++)
			{
				double		m = 0.0;
				int			b;

				if (j == i)
					continue;
				for (b = 0; b < k; b++)
					m = fmax(m, fabs(W[At(p, k, i, j, a, b)]));
				row += m;
			}
			width = fmax(width, row);
		}
	return width;
}

/* Largest |row sum|, |column sum| of any block and |field sum|. */
static double
CentringDefect(const double *W, const double *theta, int p, int k)
{
	double		worst = 0.0;
	int			i;
	int			j;
	int			a;
	int			b;

	for (i = 0; i < p; i++)
	{
		double		f = 0.0;

		for (a = 0; a < k; a++)
			f += theta[i * k + a];
		worst = fmax(worst, fabs(f));
		for (j = 0; j < p; j++)
			for (a = 0; a < k; a++)
			{
				double		r = 0.0;
				double		c = 0.0;

				for (b = 0; b < k; b++)
				{
					r += W[At(p, k, i, j, a, b)];
					c += W[At(p, k, i, j, b, a)];
				}
				worst = fmax(worst, fmax(fabs(r), fabs(c)));
			}
	}
	return worst;
}

/* Whether W_ji = W_ij^T exactly and the diagonal blocks are zero. */
static int
IsSymmetric(const double *W, int p, int k)
{
	int			ok = 1;
	int			i;
	int			j;
	int			a;
	int			b;

	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			for (a = 0; a < k; a++)
				for (b = 0; b < k; b++)
					ok &= i == j ? W[At(p, k, i, i, a, b)] == 0.0 :
						W[At(p, k, i, j, a, b)] == W[At(p, k, j, i, b, a)];
	return ok;
}

/* Uniform in [-1, 1) from the test's generator. */
static double
Signed(MrfRng *rng)
{
	return 2.0 * MrfRngUniform(rng) - 1.0;
}

/*
 * A k x k block with rows and columns summing to zero and W != W^T: the
 * cyclic pattern s on the diagonal, -s on (a, a+1 mod k).  Transposing it
 * or shifting its columns moves entries by s.
 */
static void
SetCyclicBlock(double *W, int p, int k, int i, int j, double s)
{
	int			a;

	for (a = 0; a < k; a++)
	{
		W[At(p, k, i, j, a, a)] = s;
		W[At(p, k, i, j, a, (a + 1) % k)] = -s;
		W[At(p, k, j, i, a, a)] = s;
		W[At(p, k, j, i, (a + 1) % k, a)] = -s;
	}
}

/*
 * Adds a row offset r_a and a column offset c_b to block (i, j) (and its
 * mirror) and compensates in theta_i and theta_j: the same distribution in
 * another, uncentred, parametrisation.
 */
static void
Uncentre(double *W, double *theta, int p, int k, int i, int j, MrfRng *rng,
		 double size)
{
	double		r[8];
	double		c[8];
	int			a;
	int			b;

	for (a = 0; a < k; a++)
	{
		r[a] = size * Signed(rng);
		c[a] = size * Signed(rng);
	}
	r[0] = size;				/* at least one offset of the full size */
	for (a = 0; a < k; a++)
		for (b = 0; b < k; b++)
		{
			W[At(p, k, i, j, a, b)] += r[a] + c[b];
			W[At(p, k, j, i, b, a)] += r[a] + c[b];
		}
	for (a = 0; a < k; a++)
	{
		theta[i * k + a] -= r[a];
		theta[j * k + a] -= c[a];
	}
}

/* ---- what the solver is given ---- */

/*
 * Validation codes, counts, the default T, the declared workspace (the
 * exact peak), polling, invalid data, and the output convention with and
 * without symmetrisation.
 */
static void
TestPairwiseInterface(void)
{
	const int	p = 3;
	const int	k = 3;
	const int64_t n = 500;
	uint8_t    *z = malloc((size_t) n * p);
	double		W[3 * 3 * 3 * 3];
	double		theta[9];
	MrfPairwiseOptions opt;
	MrfRng		rng;
	CountingEnv ce;
	MrfEnv		env;
	int64_t		m;
	int			expectT;

	MrfRngInitSeeded(&rng, 300);
	for (m = 0; m < n * p; m++)
		z[m] = (uint8_t) MrfRngBelow(&rng, 3);

	memset(&opt, 0, sizeof(opt));
	opt.rho = 1.0;
	opt.lambda = 1.0;
	opt.mechanism = MRF_MECH_EXPONENTIAL;
	CHECK(MrfPairwiseValidate(&opt, p, k, n) == NULL);
	CHECK(MrfPairwiseValidate(NULL, p, k, n) == MrfPairwiseBadArgument);
	CHECK(MrfPairwiseValidate(&opt, 1, k, n) == MrfPairwiseBadArgument);
	CHECK(MrfPairwiseValidate(&opt, p, k, 0) == MrfPairwiseBadArgument);
	CHECK(MrfPairwiseValidate(&opt, p, 1, n) == MrfPairwiseBadAlphabet);
	CHECK(MrfPairwiseValidate(&opt, p, 256, n) == MrfPairwiseBadAlphabet);
	CHECK(MrfPairwiseValidate(&opt, p, 255, n) == NULL);
	CHECK(MrfPairwiseValidate(&opt, 100000, 255, n) == MrfPairwiseTooManyFeatures);
	opt.rho = INFINITY;
	CHECK(MrfPairwiseValidate(&opt, p, k, n) == MrfPairwiseBadBudget);
	opt.rho = 1.0;
	opt.lambda = 0.0;
	CHECK(MrfPairwiseValidate(&opt, p, k, n) == MrfPairwiseBadBudget);
	opt.lambda = 1.0;
	opt.iterations = 1;
	CHECK(MrfPairwiseValidate(&opt, p, k, n) == MrfPairwiseBadIterations);
	CHECK(MrfPairwiseIterations(&opt, p, k, n) == -1);
	opt.iterations = 0;
	/* a lambda whose radius 2 lambda k, or Laplace scale, overflows */
	opt.lambda = 1e308;
	CHECK(MrfPairwiseValidate(&opt, p, k, n) == MrfPairwiseBadScale);
	opt.lambda = 1e300;
	opt.rho = 1e-300;
	opt.mechanism = MRF_MECH_LAPLACE;
	CHECK(MrfPairwiseValidate(&opt, p, k, n) == MrfPairwiseBadScale);
	opt.mechanism = MRF_MECH_EXPONENTIAL;
	opt.lambda = 1.0;
	opt.rho = 1.0;
	opt.mechanism = (MrfMechanism) 7;
	CHECK(MrfPairwiseValidate(&opt, p, k, n) == MrfPairwiseBadMechanism);
	opt.mechanism = MRF_MECH_EXPONENTIAL;

	CHECK(MrfPairwiseProblemCount(p, k) == 18);
	CHECK(MrfPairwiseCoordinateCount(p, k) == 10);
	/*
	 * R = 2 lambda k = 6, rho' = rho / (k p) = 1/9: a quarter
	 * (MRF_PAIRWISE_T_FRACTION) of the paper's T
	 */
	expectT = (int) ceil(0.25 * ceil(pow(6.0 * 500.0 * sqrt(1.0 / 9.0), 2.0 / 3.0)) - 1e-9);
	CHECK_MSG(MrfPairwiseIterations(&opt, p, k, n) == expectT, "T = %d, expected %d",
			  MrfPairwiseIterations(&opt, p, k, n), expectT);
	/* per-variable alphabets take the same fraction (all k here: the same T) */
	{
		uint8_t		kv[3];

		memset(kv, k, sizeof(kv));
		CHECK_MSG(MrfPairwiseIterationsAlphabets(&opt, p, k, kv, n) == expectT,
				  "T with alphabets = %d, expected %d",
				  MrfPairwiseIterationsAlphabets(&opt, p, k, kv, n), expectT);
	}
	opt.iterations = 9;
	CHECK(MrfPairwiseIterations(&opt, p, k, n) == 9);
	opt.iterations = 0;

	/* the declared workspace is the exact peak, and all of it comes back */
	opt.symmetrize = 1;
	CountingEnvInit(&ce, &env);
	CHECK(MrfPairwiseLearn(z, n, p, k, &opt, &rng, &env, W, theta) == MRF_OK);
	CHECK_MSG(ce.peak == MrfPairwiseWorkspaceBytes(p, k, n), "peak %zu, declared %zu",
			  ce.peak, MrfPairwiseWorkspaceBytes(p, k, n));
	CHECK(ce.live == 0 && ce.allocs == ce.frees);
	CHECK(ce.polls > 0 && ce.last_done == ce.last_total);
	CHECK(IsSymmetric(W, p, k));
	CHECK_MSG(CentringDefect(W, theta, p, k) < 1e-12, "centring defect %.3g",
			  CentringDefect(W, theta, p, k));
	CHECK(MrfPairwiseWorkspaceBytes(p, k, -1) == SIZE_MAX);
	/* the honest formula's leading term: the margins, 4 n p k (k-1) */
	CHECK(MrfPairwiseWorkspaceBytes(30, 4, 50000) > (size_t) 4 * 50000 * 360);

	opt.symmetrize = 0;
	CHECK(MrfPairwiseLearn(z, n, p, k, &opt, &rng, &MrfMallocEnv, W, theta) == MRF_OK);
	CHECK(!IsSymmetric(W, p, k));
	CHECK(CentringDefect(W, theta, p, k) < 1e-12);

	/* a value outside the alphabet, and bad arguments */
	z[n * p - 1] = 3;
	CHECK(MrfPairwiseLearn(z, n, p, k, &opt, &rng, &MrfMallocEnv, W, theta) == MRF_EINVAL);
	z[n * p - 1] = 0;
	CHECK(MrfPairwiseLearn(z, n, p, k, &opt, NULL, &MrfMallocEnv, W, theta) == MRF_EINVAL);
	opt.rho = -1.0;
	CHECK(MrfPairwiseLearn(z, n, p, k, &opt, &rng, &MrfMallocEnv, W, theta) == MRF_EINVAL);
	free(z);
}

/* Bit m of column c of a setup's design matrix. */
static int
PairwiseBit(const MrfPairwiseSetup *s, int c, int64_t m)
{
	return (int) ((s->x[(size_t) c * s->fw.xwords + m / 64] >> (m % 64)) & 1);
}

/*
 * The setup against definitions written out here: one-hot columns and the
 * intercept, y = +1 / -1 / 0 for every (i, u, v) at its documented index,
 * variable i's block masked, R = 2 lambda k, rho' = rho / (k p).  The
 * budgets of all p k (k-1) regressions add up to (k-1) rho: a row costs
 * at most p k of them at full rate (privacy.c; test_privacy.c checks the
 * per-pair composition).
 */
static void
TestPairwiseSetup(void)
{
	const int	p = 4;
	const int	k = 3;
	const int64_t n = 50;
	const int	d = p * k + 1;
	const int	q = p * k * (k - 1);
	uint8_t		z[50 * 4];
	MrfPairwiseOptions opt;
	MrfPairwiseSetup s;
	MrfRng		rng;
	int			xok = 1;
	int			yok = 1;
	int			mok = 1;
	int64_t		m;
	int			i;
	int			u;
	int			v;
	int			j;
	double		total;

	MrfRngInitSeeded(&rng, 301);
	for (m = 0; m < n * p; m++)
		z[m] = (uint8_t) MrfRngBelow(&rng, 3);
	memset(&opt, 0, sizeof(opt));
	opt.rho = 2.5;
	opt.lambda = 0.7;
	opt.mechanism = MRF_MECH_LAPLACE;

	CHECK(MrfPairwisePrepare(z, n, p, k, &opt, &MrfMallocEnv, &s) == MRF_OK);
	CHECK(s.fw.n == n && s.fw.d == d && s.fw.q == q && s.fw.xwords == MrfFwColumnWords(n));
	CHECK(s.fw.x == s.x && s.fw.ypos == s.ypos && s.fw.yneg == s.yneg &&
		  s.fw.allowed == s.allowed && s.fw.x_signed == 0);
	CHECK_NEAR(s.fw.radius, 2.0 * 0.7 * 3, 1e-15);
	CHECK_NEAR(s.fw.rho_problem, 2.5 / (3.0 * 4.0), 1e-15);
	CHECK(s.fw.mechanism == MRF_MECH_LAPLACE);
	CHECK(s.fw.iterations == MrfPairwiseIterations(&opt, p, k, n));

	total = q * s.fw.rho_problem;
	CHECK_NEAR(total, opt.rho * (k - 1), 1e-12);
	/* the worst neighbouring pair: p k regressions' worth */
	CHECK(p * k * s.fw.rho_problem <= opt.rho * (1.0 + 1e-15));
	CHECK_NEAR(MrfPairwiseProblemRho(2.5, 4, 3), 2.5 / 12.0, 1e-15);
	CHECK(isnan(MrfPairwiseProblemRho(0.0, 4, 3)));
	CHECK(isnan(MrfPairwiseProblemRho(1.0, 4, 1)));

	for (m = 0; m < n; m++)
	{
		for (j = 0; j < p; j++)
		{
			int			b;

			for (b = 0; b < k; b++)
				xok &= PairwiseBit(&s, j * k + b, m) == (z[m * p + j] == b ? 1 : 0);
		}
		xok &= PairwiseBit(&s, p * k, m) == 1;
	}
	CHECK(xok);
	for (i = 0; i < p; i++)
		for (u = 0; u < k; u++)
			for (v = 0; v < k; v++)
			{
				int			c = (i * k + u) * (k - 1) + (v < u ? v : v - 1);

				if (u == v)
					continue;
				for (m = 0; m < n; m++)
				{
					int			zi = z[m * p + i];
					int			want = zi == u ? 1 : zi == v ? -1 : 0;
					int			got = PairwiseBit(&s, s.ypos[c], m) - PairwiseBit(&s, s.yneg[c], m);

					yok &= got == want;
				}
				for (j = 0; j < d; j++)
					mok &= s.allowed[(size_t) c * d + j] == (j < i * k || j >= (i + 1) * k);
			}
	CHECK(yok);
	CHECK(mok);
	MrfPairwiseReleaseSetup(&s, &MrfMallocEnv);
	CHECK(s.x == NULL && s.ypos == NULL && s.yneg == NULL && s.allowed == NULL);
}

/* ---- recovery and centring, without noise ---- */

/* A random model with every block and field centred (via MrfPairwiseCentre). */
static void
RandomCentredModel(int p, int k, MrfRng *rng, double *W, double *theta)
{
	int			i;
	int			j;
	int			a;
	int			b;

	memset(W, 0, sizeof(double) * p * p * k * k);
	for (i = 0; i < p; i++)
	{
		for (a = 0; a < k; a++)
			theta[i * k + a] = Signed(rng);
		for (j = i + 1; j < p; j++)
			for (a = 0; a < k; a++)
				for (b = 0; b < k; b++)
				{
					W[At(p, k, i, j, a, b)] = Signed(rng);
					W[At(p, k, j, i, b, a)] = W[At(p, k, i, j, a, b)];
				}
	}
	MrfPairwiseCentre(W, theta, p, k);
}

/*
 * The population weights of every regression (Lemma 3.5), each in a random
 * gauge (a constant moved between each block and the intercept, which no
 * margin can see), must give back the centred truth exactly.  This pins the
 * problem index, the block indexing, Eq. (1), the 1/k average over v and
 * the treatment of the intercept.  Negative control: weights built from the
 * transposed blocks miss by far.
 */
static void
TestPairwiseRecoverExact(void)
{
	const int	p = 4;
	const int	k = 4;
	const int	d = p * k + 1;
	const int	q = p * k * (k - 1);
	double	   *W = malloc(sizeof(double) * p * p * k * k);
	double	   *Wh = malloc(sizeof(double) * p * p * k * k);
	double		theta[16];
	double		th[16];
	double	   *w = malloc(sizeof(double) * d * q);
	double	   *wt = malloc(sizeof(double) * d * q);
	MrfRng		rng;
	int			i;
	int			u;
	int			v;

	MrfRngInitSeeded(&rng, 302);
	RandomCentredModel(p, k, &rng, W, theta);
	CHECK(CentringDefect(W, theta, p, k) < 1e-12);
	memset(w, 0, sizeof(double) * d * q);
	memset(wt, 0, sizeof(double) * d * q);
	for (i = 0; i < p; i++)
		for (u = 0; u < k; u++)
			for (v = 0; v < k; v++)
			{
				int			c = (i * k + u) * (k - 1) + (v < u ? v : v - 1);
				double	   *wc = w + (size_t) c * d;
				double	   *tc = wt + (size_t) c * d;
				int			j;
				int			b;

				if (u == v)
					continue;
				wc[p * k] = tc[p * k] = theta[i * k + u] - theta[i * k + v];
				for (j = 0; j < p; j++)
				{
					double		gauge = 3.0 * Signed(&rng);

					if (j == i)
						continue;
					for (b = 0; b < k; b++)
					{
						wc[j * k + b] = W[At(p, k, i, j, u, b)] - W[At(p, k, i, j, v, b)] + gauge;
						tc[j * k + b] = W[At(p, k, i, j, b, u)] - W[At(p, k, i, j, b, v)];
					}
					wc[p * k] -= gauge;
				}
			}

	CHECK(MrfPairwiseRecover(w, p, k, 0, Wh, th) == MRF_OK);
	CHECK_MSG(MaxError(Wh, W, (size_t) p * p * k * k, 1.0) < 1e-12,
			  "exact recovery off by %.3g", MaxError(Wh, W, (size_t) p * p * k * k, 1.0));
	CHECK(MaxError(th, theta, (size_t) p * k, 1.0) < 1e-12);
	CHECK(MrfPairwiseRecover(w, p, k, 1, Wh, th) == MRF_OK);
	CHECK(MaxError(Wh, W, (size_t) p * p * k * k, 1.0) < 1e-12);
	CHECK(IsSymmetric(Wh, p, k));
	CHECK(MrfPairwiseRecover(wt, p, k, 0, Wh, th) == MRF_OK);
	CHECK(MaxError(Wh, W, (size_t) p * p * k * k, 1.0) > 0.3);
	free(W);
	free(Wh);
	free(w);
	free(wt);
}

/*
 * MrfPairwiseCentre on an asymmetric, uncentred model: the result is
 * centred and symmetric, defines the same distribution (log-weights differ
 * by one constant over all k^p states), and centring again changes nothing.
 */
static void
TestPairwiseCentre(void)
{
	const int	p = 3;
	const int	k = 3;
	double		W[81];
	double		theta[9];
	double		C[81];
	double		ct[9];
	double		C2[81];
	double		ct2[9];
	int			z[3] = {0, 0, 0};
	double		shift = NAN;
	double		worst = 0.0;
	MrfRng		rng;
	int			c;

	MrfRngInitSeeded(&rng, 303);
	for (c = 0; c < 81; c++)
		W[c] = Signed(&rng);
	for (c = 0; c < 9; c++)
		theta[c] = Signed(&rng);
	memcpy(C, W, sizeof(W));
	memcpy(ct, theta, sizeof(theta));
	CHECK(MrfPairwiseCentre(C, ct, p, k) == MRF_OK);
	CHECK(CentringDefect(C, ct, p, k) < 1e-12);
	CHECK(IsSymmetric(C, p, k));
	do
	{
		double		diff = LogWeight(W, theta, p, k, z) - LogWeight(C, ct, p, k, z);

		if (isnan(shift))
			shift = diff;
		worst = fmax(worst, fabs(diff - shift));
	} while (NextState(z, p, k));
	CHECK_MSG(worst < 1e-12, "centring changed the distribution: %.3g", worst);
	memcpy(C2, C, sizeof(C));
	memcpy(ct2, ct, sizeof(ct));
	CHECK(MrfPairwiseCentre(C2, ct2, p, k) == MRF_OK);
	CHECK(MaxError(C2, C, 81, 1.0) < 1e-14 && MaxError(ct2, ct, 9, 1.0) < 1e-14);
	CHECK(MrfPairwiseCentre(C2, ct2, p, 1) == MRF_EINVAL);
}

/* ---- the selection law ---- */

/*
 * Ten rows of p = 2 variables over k = 3 values.  For regression (0, 0, 1)
 * the sums sum_m y_m x_mj over the allowed coordinates (z_1 = 0, 1, 2, the
 * intercept) are 3, 0, -1, 2; for (1, 2, 0) they are -2, 2, -1, -1.
 */
static const uint8_t SelRows[20] = {
	0, 0, 0, 0, 0, 1, 0, 2, 1, 2, 1, 2, 1, 1, 2, 0, 2, 1, 0, 0
};

/* Law proportional to exp(c u) over the 2 (k + 1) vertices of a regression. */
static void
VertexLaw(const double *sums, double radius, double c, double *prob)
{
	double		total = 0.0;
	int			j;

	for (j = 0; j < 8; j++)
	{
		/* u(+-R e_j) = +-R sum_m (y_m / 2) x_mj at w = 0 */
		double		u = (j % 2 ? -1.0 : 1.0) * radius * sums[j / 2] / 2.0;

		prob[j] = exp(c * u);
		total += prob[j];
	}
	for (j = 0; j < 8; j++)
		prob[j] /= total;
}

/*
 * Sums sum_m y_m x_mj for regression (i, u, v) of the selection rows,
 * computed from the rows here, over node 1-i's three columns and the
 * intercept.
 */
static void
SelectionSums(int i, int u, int v, double *sums)
{
	int			m;

	memset(sums, 0, sizeof(double) * 4);
	for (m = 0; m < 10; m++)
	{
		int			zi = SelRows[m * 2 + i];
		int			y = zi == u ? 1 : zi == v ? -1 : 0;

		sums[SelRows[m * 2 + 1 - i]] += y;
		sums[3] += y;
	}
}

/*
 * One private step (T = 2) of the pairwise learner's own solver input,
 * repeated over many seeds; the histogram of the vertex chosen by
 * regressions (0, 0, 1) and (1, 2, 0) must follow
 * exp(eps0 u / (2 Du)), eps0 = sqrt(8 rho / (k p)), Du = 2R, R = 2 lambda k
 * (written out here, not taken from privacy.c).  rho = 6 gives rho' = 1.
 * Negative controls: the same histograms against the laws of the split that
 * ignores the row-set changes (rho / (2p): only the two regressions whose
 * label flips counted), of the 4k - 6 count at full cost (rho / ((4k-6) p)),
 * of the paper's rho / (k^2 p) and of rho / p are rejected.
 */
static void
TestPairwiseSelection(void)
{
	const int	p = 2;
	const int	k = 3;
	const double rho = 6.0;
	const double lambda = 0.5;
	const double radius = 2.0 * lambda * k;
	static const int probs[2][3] = {{0, 0, 1}, {1, 2, 0}};
	MrfPairwiseOptions opt;
	MrfPairwiseSetup s;
	MrfRng		rng;
	double		w[7 * 12];
	long		counts[2][8];
	int			clean = 1;
	long		run;
	int			t;

	memset(&opt, 0, sizeof(opt));
	opt.rho = rho;
	opt.lambda = lambda;
	opt.iterations = 2;
	opt.mechanism = MRF_MECH_EXPONENTIAL;
	CHECK(MrfPairwisePrepare(SelRows, 10, p, k, &opt, &MrfMallocEnv, &s) == MRF_OK);
	memset(counts, 0, sizeof(counts));
	for (run = 0; run < SELECTION_RUNS && clean; run++)
	{
		MrfRngInitSeeded(&rng, 0x9a1e000000ULL + (uint64_t) run);
		if (MrfFwSolve(&s.fw, &rng, &MrfMallocEnv, w) != MRF_OK)
		{
			clean = 0;
			break;
		}
		for (t = 0; t < 2; t++)
		{
			int			i = probs[t][0];
			int			u = probs[t][1];
			int			v = probs[t][2];
			const double *wc = w + ((i * k + u) * (k - 1) + (v < u ? v : v - 1)) * 7;
			int			other = 1 - i;
			int			nonzero = 0;
			int			j;

			/* w_2 = (2/3) s_1: one allowed coordinate at +-2R/3 */
			for (j = 0; j < 7; j++)
			{
				int			slot;

				if (wc[j] == 0.0)
					continue;
				nonzero++;
				clean &= fabs(fabs(wc[j]) - 2.0 * radius / 3.0) < 1e-12;
				if (j == 6)
					slot = 3;
				else if (j / k == other)
					slot = j % k;
				else
				{
					clean = 0;	/* the masked block of node i */
					continue;
				}
				counts[t][2 * slot + (wc[j] < 0)]++;
			}
			clean &= nonzero == 1;
		}
	}
	CHECK(clean);
	MrfPairwiseReleaseSetup(&s, &MrfMallocEnv);

	for (t = 0; t < 2; t++)
	{
		double		sums[4];
		double		prob[8];
		double		stat;
		double		c = sqrt(8.0 * rho / (k * p)) / (2.0 * 2.0 * radius);
		static const double wrong[4] = {2, 4 * 3 - 6, 3 * 3, 1};
		int			w;

		SelectionSums(probs[t][0], probs[t][1], probs[t][2], sums);
		VertexLaw(sums, radius, c, prob);
		stat = ChiSquareStatistic(counts[t], prob, 8, SELECTION_RUNS);
		CHECK_MSG(ChiSquareSurvival(stat, 7) > P_REJECT,
				  "selection of (%d,%d,%d): chi2 = %.2f (df 7)", probs[t][0],
				  probs[t][1], probs[t][2], stat);
		printf("# pairwise selection (%d,%d,%d): chi2 %.2f (df 7); wrong splits:",
			   probs[t][0], probs[t][1], probs[t][2], stat);

		/* rho / (2p), rho / ((4k-6) p), rho / (k^2 p), rho / p */
		for (w = 0; w < 4; w++)
		{
			c = sqrt(8.0 * rho / (wrong[w] * p)) / (2.0 * 2.0 * radius);
			VertexLaw(sums, radius, c, prob);
			stat = ChiSquareStatistic(counts[t], prob, 8, SELECTION_RUNS);
			CHECK_MSG(ChiSquareSurvival(stat, 7) < 1e-12,
					  "negative control rho/(%g p) not rejected: chi2 = %.2f",
					  wrong[w], stat);
			printf(" %.0f", stat);
		}
		printf("\n");
	}
}

/*
 * Learn is Prepare + MrfFwSolve + Recover (the path the selection test
 * exercises): same seed, same output, bit for bit.
 */
static void
TestPairwiseLearnPath(void)
{
	const int	p = 2;
	const int	k = 3;
	MrfPairwiseOptions opt;
	MrfPairwiseSetup s;
	MrfRng		rng;
	double		w[7 * 12];
	double		W1[36];
	double		t1[6];
	double		W2[36];
	double		t2[6];

	memset(&opt, 0, sizeof(opt));
	opt.rho = 1.0;
	opt.lambda = 0.5;
	opt.iterations = 20;
	opt.symmetrize = 1;
	CHECK(MrfPairwisePrepare(SelRows, 10, p, k, &opt, &MrfMallocEnv, &s) == MRF_OK);
	MrfRngInitSeeded(&rng, 304);
	CHECK(MrfFwSolve(&s.fw, &rng, &MrfMallocEnv, w) == MRF_OK);
	CHECK(MrfPairwiseRecover(w, p, k, 1, W1, t1) == MRF_OK);
	MrfPairwiseReleaseSetup(&s, &MrfMallocEnv);
	MrfRngInitSeeded(&rng, 304);
	CHECK(MrfPairwiseLearn(SelRows, 10, p, k, &opt, &rng, &MrfMallocEnv, W2, t2) == MRF_OK);
	CHECK(memcmp(W1, W2, sizeof(W1)) == 0 && memcmp(t1, t2, sizeof(t1)) == 0);
}

/* ---- the sampler ---- */

/*
 * Exact enumeration (k^p = 27): the histogram of all states against the law
 * computed here, from a stored W that is not symmetric (the sampler must
 * read (W_ij(a,b) + W_ji(b,a)) / 2).  Negative control: the law that reads
 * only the upper blocks W_ij, i < j, is rejected.
 */
static void
TestPairwiseSampleExact(void)
{
	const int	p = 3;
	const int	k = 3;
	const long	n = 200000;
	double		W[81];
	double		theta[9];
	double		upper[81];
	double		prob[27];
	long		counts[27] = {0};
	uint8_t    *out = malloc((size_t) n * p);
	MrfRng		rng;
	CountingEnv ce;
	MrfEnv		env;
	double		stat;
	int			inrange = 1;
	long		m;
	int			i;
	int			j;
	int			c;

	MrfRngInitSeeded(&rng, 305);
	for (c = 0; c < 81; c++)
		W[c] = Signed(&rng);
	for (c = 0; c < 9; c++)
		theta[c] = 0.5 * Signed(&rng);
	memcpy(upper, W, sizeof(W));
	for (i = 0; i < p; i++)
		for (j = 0; j < i; j++)
		{
			int			a;
			int			b;

			for (a = 0; a < k; a++)
				for (b = 0; b < k; b++)
					upper[At(p, k, i, j, a, b)] = upper[At(p, k, j, i, b, a)];
		}

	CountingEnvInit(&ce, &env);
	CHECK(MrfPairwiseSample(W, theta, p, k, n, 0, 1, &rng, &env, out) == MRF_OK);
	CHECK(ce.live == 0 && ce.polls > 0 && ce.last_done == ce.last_total);
	for (m = 0; m < n; m++)
	{
		const uint8_t *r = out + m * p;

		inrange &= r[0] < k && r[1] < k && r[2] < k;
		counts[(r[0] + k * r[1] + k * k * r[2]) % 27]++;
	}
	CHECK(inrange);
	ExactLaw(W, theta, p, k, prob, 27);
	stat = ChiSquareStatistic(counts, prob, 27, n);
	CHECK_MSG(ChiSquareSurvival(stat, 26) > P_REJECT, "exact sampler: chi2 = %.2f (df 26)",
			  stat);
	printf("# pairwise exact sampler: chi2 %.2f (df 26)", stat);
	ExactLaw(upper, theta, p, k, prob, 27);
	stat = ChiSquareStatistic(counts, prob, 27, n);
	CHECK_MSG(ChiSquareSurvival(stat, 26) < 1e-12,
			  "negative control (upper blocks only) not rejected: chi2 = %.2f", stat);
	printf(", upper-blocks law %.0f\n", stat);

	/* invalid input */
	CHECK(MrfPairwiseSample(W, theta, p, 1, 1, 0, 1, &rng, &MrfMallocEnv, out) == MRF_EINVAL);
	CHECK(MrfPairwiseSample(W, theta, p, k, 1, 0, 0, &rng, &MrfMallocEnv, out) == MRF_EINVAL);
	CHECK(MrfPairwiseSample(W, theta, p, k, 1, 0, 1, &rng, &MrfMallocEnv, NULL) == MRF_EINVAL);
	CHECK(MrfPairwiseSample(W, theta, p, k, 0, 0, 1, &rng, &MrfMallocEnv, NULL) == MRF_OK);
	W[5] = NAN;
	CHECK(MrfPairwiseSample(W, theta, p, k, 1, 0, 1, &rng, &MrfMallocEnv, out) == MRF_EINVAL);
	free(out);
}

/* Exact P(z_i = a, z_j = b) for all i < j by enumeration (prob: k^p states). */
static void
PairMarginals(const double *prob, int p, int k, double *marg)
{
	int			z[32] = {0};
	long		s = 0;

	memset(marg, 0, sizeof(double) * p * p * k * k);
	do
	{
		int			i;
		int			j;

		for (i = 0; i < p; i++)
			for (j = i + 1; j < p; j++)
				marg[At(p, k, i, j, z[i], z[j])] += prob[s];
		s++;
	} while (NextState(z, p, k));
}

/*
 * Gibbs just above the enumeration limit (k = 3, p = 11: 177147 states): a
 * chain with two chords, random centred blocks scaled to 0.8 and fields.
 * Every pairwise marginal within 0.02 of enumeration (about seven standard
 * errors at this effective sample size).  Negative control: the model with
 * every block transposed has marginals that the samples miss by more.
 */
static void
TestPairwiseSampleGibbs(void)
{
	const int	p = 11;
	const int	k = 3;
	const long	n = 20000;
	const long	states = 177147;
	const size_t cells = (size_t) p * p * k * k;
	double	   *W = calloc(cells, sizeof(double));
	double	   *Wt = calloc(cells, sizeof(double));
	double	   *full = malloc(sizeof(double) * cells);
	double		theta[33];
	double		fullTheta[33];
	double	   *prob = malloc(sizeof(double) * states);
	double	   *exact = malloc(sizeof(double) * cells);
	double	   *other = malloc(sizeof(double) * cells);
	double	   *emp = calloc(cells, sizeof(double));
	uint8_t    *out = malloc((size_t) n * p);
	MrfRng		rng;
	double		err = 0.0;
	double		errOther = 0.0;
	size_t		c;
	long		m;
	int			i;
	int			j;
	int			a;
	int			b;

	MrfRngInitSeeded(&rng, 306);
	RandomCentredModel(p, k, &rng, full, fullTheta);
	for (i = 0; i < p; i++)
	{
		for (a = 0; a < k; a++)
			theta[i * k + a] = 0.5 * fullTheta[i * k + a];
		for (j = 0; j < p; j++)
		{
			int			edge = j == i + 1 || i == j + 1 || (i == 0 && j == 5) ||
				(i == 5 && j == 0) || (i == 3 && j == 9) || (i == 9 && j == 3);

			if (!edge)
				continue;
			for (a = 0; a < k; a++)
				for (b = 0; b < k; b++)
				{
					W[At(p, k, i, j, a, b)] = 0.8 * full[At(p, k, i, j, a, b)];
					Wt[At(p, k, i, j, b, a)] = W[At(p, k, i, j, a, b)];
				}
		}
	}

	CHECK(MrfPairwiseSample(W, theta, p, k, n, 500, 3, &rng, &MrfMallocEnv, out) == MRF_OK);
	for (m = 0; m < n; m++)
		for (i = 0; i < p; i++)
			for (j = i + 1; j < p; j++)
				emp[At(p, k, i, j, out[m * p + i], out[m * p + j])] += 1.0 / n;
	ExactLaw(W, theta, p, k, prob, states);
	PairMarginals(prob, p, k, exact);
	ExactLaw(Wt, theta, p, k, prob, states);
	PairMarginals(prob, p, k, other);
	for (c = 0; c < cells; c++)
	{
		err = fmax(err, fabs(emp[c] - exact[c]));
		errOther = fmax(errOther, fabs(emp[c] - other[c]));
	}
	CHECK_MSG(err < 0.02, "Gibbs pairwise marginals off by %.4f", err);
	CHECK_MSG(errOther > 0.05, "negative control (transposed blocks) within %.4f", errOther);
	printf("# pairwise gibbs k=3 p=11 n=%ld: max marginal error %.4f (transposed model %.4f)\n",
		   n, err, errOther);
	free(W);
	free(Wt);
	free(full);
	free(prob);
	free(exact);
	free(other);
	free(emp);
	free(out);
}

/* ---- accuracy ---- */

/*
 * Errors of one learned model: against the centred truth, and against the
 * wrong answers a broken learner would produce.
 */
typedef struct AccuracyErrors
{
	double		W;				/* max |W_hat - W| */
	double		theta;			/* max |theta_hat - theta| */
	double		uncentred;		/* against the parametrisation sampled from */
	double		transposed;		/* against W_ij^T in place of W_ij */
	double		shifted;		/* against columns b and b+1 mod k swapped */
	double		scaled;			/* k W_hat: the average over v not divided */
} AccuracyErrors;

/* Fills e for the estimate (Wh, th) of the centred truth (W, theta). */
static void
Errors(const double *Wh, const double *th, const double *W,
	   const double *theta, const double *Wraw, int p, int k,
	   AccuracyErrors *e)
{
	size_t		cells = (size_t) p * p * k * k;
	int			i;
	int			j;
	int			a;
	int			b;

	e->W = MaxError(Wh, W, cells, 1.0);
	e->theta = MaxError(th, theta, (size_t) p * k, 1.0);
	e->uncentred = MaxError(Wh, Wraw, cells, 1.0);
	e->scaled = MaxError(Wh, W, cells, (double) k);
	e->transposed = 0.0;
	e->shifted = 0.0;
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			for (a = 0; a < k; a++)
				for (b = 0; b < k; b++)
				{
					double		h = Wh[At(p, k, i, j, a, b)];

					e->transposed = fmax(e->transposed, fabs(h - W[At(p, k, i, j, b, a)]));
					e->shifted = fmax(e->shifted,
									  fabs(h - W[At(p, k, i, j, a, (b + 1) % k)]));
				}
}

/*
 * One accuracy experiment: data drawn exactly (MrfPairwiseSample) from the
 * uncentred parametrisation Wraw, learned at rho_big and rho_small over
 * several seeds; the estimate at rho_big must meet ACCURACY_BOUND for W and
 * theta, every wrong answer must miss it, and the mean error must grow as
 * rho falls (rho_mid = 0: two levels only).
 */
static void
AccuracyRun(const char *name, const double *W, const double *theta,
			const double *Wraw, const double *thetaRaw, int p, int k,
			int64_t n, double lambda, double rho_big, double rho_mid,
			double rho_small, int seeds, uint64_t seed0)
{
	const size_t cells = (size_t) p * p * k * k;
	double	   *Wh = malloc(sizeof(double) * cells);
	double		th[64];
	uint8_t    *z = malloc((size_t) n * p);
	MrfPairwiseOptions opt;
	MrfRng		rng;
	double		errBig = 0.0;
	double		errMid = 0.0;
	double		errSmall = 0.0;
	double		thetaBig = 0.0;
	double		control = INFINITY;
	int			seed;

	memset(&opt, 0, sizeof(opt));
	opt.lambda = lambda;
	opt.iterations = ACCURACY_T;
	opt.mechanism = MRF_MECH_EXPONENTIAL;
	opt.symmetrize = 1;
	for (seed = 0; seed < seeds; seed++)
	{
		AccuracyErrors e;

		MrfRngInitSeeded(&rng, seed0 + seed);
		CHECK(MrfPairwiseSample(Wraw, thetaRaw, p, k, n, 0, 1, &rng, &MrfMallocEnv, z) == MRF_OK);

		opt.rho = rho_big;
		CHECK(MrfPairwiseLearn(z, n, p, k, &opt, &rng, &MrfMallocEnv, Wh, th) == MRF_OK);
		Errors(Wh, th, W, theta, Wraw, p, k, &e);
		CHECK_MSG(e.W < ACCURACY_BOUND, "%s rho %g seed %d: max |W_hat - W| = %.3f",
				  name, rho_big, seed, e.W);
		CHECK_MSG(e.theta < ACCURACY_BOUND, "%s rho %g seed %d: max |theta_hat - theta| = %.3f",
				  name, rho_big, seed, e.theta);
		/* negative controls: each wrong answer misses the same bound */
		CHECK_MSG(e.uncentred > ACCURACY_BOUND, "%s: uncentred truth within %.3f", name,
				  e.uncentred);
		CHECK_MSG(e.transposed > ACCURACY_BOUND, "%s: transposed truth within %.3f", name,
				  e.transposed);
		CHECK_MSG(e.shifted > ACCURACY_BOUND, "%s: shifted truth within %.3f", name,
				  e.shifted);
		CHECK_MSG(e.scaled > ACCURACY_BOUND, "%s: k W_hat within %.3f", name, e.scaled);
		CHECK(CentringDefect(Wh, th, p, k) < 1e-12 && IsSymmetric(Wh, p, k));
		errBig += e.W;
		thetaBig += e.theta;
		control = fmin(control, fmin(fmin(e.uncentred, e.transposed),
									 fmin(e.shifted, e.scaled)));

		if (rho_mid > 0.0)
		{
			opt.rho = rho_mid;
			CHECK(MrfPairwiseLearn(z, n, p, k, &opt, &rng, &MrfMallocEnv, Wh, th) == MRF_OK);
			Errors(Wh, th, W, theta, Wraw, p, k, &e);
			errMid += e.W;
		}
		opt.rho = rho_small;
		CHECK(MrfPairwiseLearn(z, n, p, k, &opt, &rng, &MrfMallocEnv, Wh, th) == MRF_OK);
		Errors(Wh, th, W, theta, Wraw, p, k, &e);
		errSmall += e.W;
	}
	if (rho_mid > 0.0)
	{
		CHECK_MSG(errBig < errMid && errMid < errSmall,
				  "%s: mean errors %.3f, %.3f, %.3f at rho %g, %g, %g do not grow", name,
				  errBig / seeds, errMid / seeds, errSmall / seeds, rho_big, rho_mid,
				  rho_small);
		printf("# pairwise %s: mean max error W %.3f at rho %g\n", name, errMid / seeds,
			   rho_mid);
	}
	CHECK_MSG(errBig < errSmall, "%s: mean error at rho %g (%.3f) not below rho %g (%.3f)",
			  name, rho_big, errBig / seeds, rho_small, errSmall / seeds);
	printf("# pairwise %s k=%d p=%d n=%lld T=%d: mean max error W %.3f theta %.3f (rho %g), "
		   "W %.3f (rho %g); smallest wrong-answer error %.3f\n", name, k, p,
		   (long long) n, ACCURACY_T, errBig / seeds, thetaBig / seeds, rho_big,
		   errSmall / seeds, rho_small, control);
	free(Wh);
	free(z);
}

/*
 * k = 3 chain of p = 7 nodes, cyclic blocks of strength +-0.5 (entries
 * 0.5, -0.5 and 0: transposing or shifting a block moves entries by 0.5),
 * fields 0.2 on one value.  Width 1.13 <= lambda = 1.2.  Data come from an
 * uncentred parametrisation of the same distribution (offsets up to 0.4).
 * T is fixed at ACCURACY_T: the default at rho = 100 is several thousand
 * iterations, too slow for a unit test, and T = 200 already meets the bound
 * with margin.
 */
static void
TestChainAccuracy(void)
{
	const int	p = 7;
	const int	k = 3;
	const size_t cells = (size_t) p * p * k * k;
	double	   *W = calloc(cells, sizeof(double));
	double	   *Wraw = malloc(sizeof(double) * cells);
	double		theta[21];
	double		thetaRaw[21];
	MrfRng		rng;
	int			i;
	int			a;

	for (i = 0; i < p; i++)
	{
		if (i + 1 < p)
			SetCyclicBlock(W, p, k, i, i + 1, i % 2 ? 0.5 : -0.5);
		for (a = 0; a < k; a++)
			theta[i * k + a] = (a == i % k ? 0.2 : 0.0) - 0.2 / k;
	}
	CHECK(CentringDefect(W, theta, p, k) < 1e-12);
	CHECK_MSG(Width(W, theta, p, k) <= 1.2, "width %.3f", Width(W, theta, p, k));
	memcpy(Wraw, W, sizeof(double) * cells);
	memcpy(thetaRaw, theta, sizeof(theta));
	MrfRngInitSeeded(&rng, 307);
	for (i = 0; i + 1 < p; i++)
		Uncentre(Wraw, thetaRaw, p, k, i, i + 1, &rng, 0.4);

	AccuracyRun("chain", W, theta, Wraw, thetaRaw, p, k, 20000, 1.2, 100.0, 3.0, 0.3, 3, 400);
	free(W);
	free(Wraw);
}

/*
 * k = 4 on a 2 x 3 grid (p = 6, 4^6 states, sampled exactly), cyclic
 * blocks of strength +-0.4, fields 0.2; width 1.35 <= lambda = 1.4.
 */
static void
TestGridAccuracy(void)
{
	const int	p = 6;
	const int	k = 4;
	const int	cols = 3;
	const size_t cells = (size_t) p * p * k * k;
	double	   *W = calloc(cells, sizeof(double));
	double	   *Wraw = malloc(sizeof(double) * cells);
	double		theta[24];
	double		thetaRaw[24];
	MrfRng		rng;
	int			i;
	int			a;

	for (i = 0; i < p; i++)
	{
		if (i % cols + 1 < cols)
			SetCyclicBlock(W, p, k, i, i + 1, i % 2 ? 0.4 : -0.4);
		if (i + cols < p)
			SetCyclicBlock(W, p, k, i, i + cols, 0.4);
		for (a = 0; a < k; a++)
			theta[i * k + a] = (a == i % k ? 0.2 : 0.0) - 0.2 / k;
	}
	CHECK(CentringDefect(W, theta, p, k) < 1e-12);
	CHECK_MSG(Width(W, theta, p, k) <= 1.4, "width %.3f", Width(W, theta, p, k));
	memcpy(Wraw, W, sizeof(double) * cells);
	memcpy(thetaRaw, theta, sizeof(theta));
	MrfRngInitSeeded(&rng, 308);
	for (i = 0; i < p; i++)
	{
		if (i % cols + 1 < cols)
			Uncentre(Wraw, thetaRaw, p, k, i, i + 1, &rng, 0.4);
		if (i + cols < p)
			Uncentre(Wraw, thetaRaw, p, k, i, i + cols, &rng, 0.4);
	}

	AccuracyRun("grid", W, theta, Wraw, thetaRaw, p, k, 25000, 1.4, 100.0, 0.0, 0.3, 2, 500);
	free(W);
	free(Wraw);
}

/* The pairwise tests. */
void
TestPairwise(void)
{
	int			threads = openblas_get_num_threads();

	/* small problems: BLAS threads only add overhead */
	openblas_set_num_threads(1);
	TestPairwiseInterface();
	TestPairwiseSetup();
	TestPairwiseRecoverExact();
	TestPairwiseCentre();
	TestPairwiseSelection();
	TestPairwiseLearnPath();
	TestPairwiseSampleExact();
	TestPairwiseSampleGibbs();
	TestChainAccuracy();
	TestGridAccuracy();
	openblas_set_num_threads(threads);
}
