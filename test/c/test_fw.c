/*
 * test_fw.c - the private Frank-Wolfe solver: the selection law against the
 * calibrated mechanisms (chi-square, with negative controls), exactness of the
 * quantised scores, optimisation on a logistic model, memory and polling.
 */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "fw.h"
#include "harness.h"

/* Runs of the one-step solver for the selection histograms. */
#define SELECTION_RUNS 200000

/* p-value below which a calibration is rejected. */
#define P_REJECT 1e-4

/*
 * Six rows, three coordinates: column sums of y * x_j are 6, 2 and -4, so the
 * vertices +-e_j have distinct scores.
 */
static const float SelY[6] = {1, 1, 1, -1, -1, 1};
static const float SelX[18] = {
	1, 1, 1, -1, -1, 1,			/* x_0 = y: sum y x_0 = 6 */
	1, 1, -1, 1, -1, 1,			/* agrees on 4 rows: 2 */
	-1, -1, -1, -1, 1, -1		/* agrees on 1 row: -4 */
};

/* Candidate index of vertex sign * e_j: 2j for +, 2j+1 for -. */
static int
VertexIndex(int j, int sign)
{
	return 2 * j + (sign < 0);
}

/*
 * Scores of the six vertices at w = 0, by hand: the logistic gradient weight
 * there is y sigmoid(0) = y/2 (exactly 2^10 y after quantisation), so
 * u(+-R e_j) = +-R sum_m (y_m / 2) x_mj.
 */
static void
SelectionScores(double radius, double *u)
{
	int			j;
	int			m;

	for (j = 0; j < 3; j++)
	{
		double		s = 0;

		for (m = 0; m < 6; m++)
			s += SelY[m] * SelX[j * 6 + m] / 2.0;
		u[VertexIndex(j, 1)] = radius * s;
		u[VertexIndex(j, -1)] = -radius * s;
	}
}

/* Law of argmax(c u + Gumbel): proportional to exp(c u). */
static void
ExponentialLaw(const double *u, int k, double c, double *prob)
{
	double		z = 0;
	int			i;

	for (i = 0; i < k; i++)
		z += exp(c * u[i]);
	for (i = 0; i < k; i++)
		prob[i] = exp(c * u[i]) / z;
}

/* Laplace density and distribution function with scale b. */
static double
LapPdf(double x, double b)
{
	return exp(-fabs(x) / b) / (2.0 * b);
}

static double
LapCdf(double x, double b)
{
	return x < 0 ? 0.5 * exp(x / b) : 1.0 - 0.5 * exp(-x / b);
}

/* Integrand of P(candidate c wins): its density times the others' CDFs. */
static double
NoisyMaxIntegrand(const double *u, int k, double b, int c, double z)
{
	double		v = LapPdf(z - u[c], b);
	int			l;

	for (l = 0; l < k; l++)
		if (l != c)
			v *= LapCdf(z - u[l], b);
	return v;
}

static int
CompareDouble(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

/*
 * Law of argmax(u + Laplace(b)) by numerical integration: composite Simpson
 * between the kinks u_l (the integrand is smooth in between) over
 * [min u - 60b, max u + 60b], outside of which the mass is below e^-60.
 */
static void
NoisyMaxLaw(const double *u, int k, double b, double *prob)
{
	double		pts[16];
	int			npts = 0;
	int			c;
	int			i;

	for (i = 0; i < k; i++)
		pts[npts++] = u[i];
	qsort(pts, npts, sizeof(double), CompareDouble);
	pts[npts] = pts[npts - 1] + 60 * b;
	memmove(pts + 1, pts, sizeof(double) * (npts + 1));
	pts[0] = pts[1] - 60 * b;
	npts += 2;

	for (c = 0; c < k; c++)
	{
		double		total = 0;

		for (i = 0; i + 1 < npts; i++)
		{
			const int	steps = 4000;
			double		lo = pts[i];
			double		h = (pts[i + 1] - lo) / steps;
			double		s;
			int			t;

			if (h <= 0)
				continue;
			s = NoisyMaxIntegrand(u, k, b, c, lo) +
				NoisyMaxIntegrand(u, k, b, c, pts[i + 1]);
			for (t = 1; t < steps; t++)
				s += (t % 2 ? 4 : 2) * NoisyMaxIntegrand(u, k, b, c, lo + t * h);
			total += s * h / 3.0;
		}
		prob[c] = total;
	}
}

/* Histogram of the vertex chosen by one private step over many streams. */
static int
SelectionHistogram(MrfMechanism mech, double radius, double rho, long *counts)
{
	static const uint8_t allowed[3] = {1, 1, 1};
	MrfFwProblem prob;
	MrfRng		rng;
	double		w[3];
	long		run;
	int			clean = 1;

	memset(&prob, 0, sizeof(prob));
	prob.n = 6;
	prob.d = 3;
	prob.q = 1;
	prob.x = SelX;
	prob.y = SelY;
	prob.ldy = 6;
	prob.allowed = allowed;
	prob.radius = radius;
	prob.iterations = 2;
	prob.rho_problem = rho;
	prob.mechanism = mech;

	memset(counts, 0, sizeof(long) * 6);
	for (run = 0; run < SELECTION_RUNS; run++)
	{
		int			nonzero = 0;
		int			j;

		MrfRngInitSeeded(&rng, 0x5e1ec7000000ULL + (uint64_t) run);
		if (MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) != MRF_OK)
			return 0;
		/* w_2 = (1 - 2/3) w_1 + (2/3) s_1 with w_1 = 0 */
		for (j = 0; j < 3; j++)
		{
			if (w[j] == 0.0)
				continue;
			nonzero++;
			clean &= fabs(fabs(w[j]) - 2.0 * radius / 3.0) < 1e-12;
			counts[VertexIndex(j, w[j] > 0 ? 1 : -1)]++;
		}
		clean &= nonzero == 1;
	}
	return clean;
}

/*
 * The exponential mechanism must pick s with probability proportional to
 * exp(eps0 u(s) / (2 Du)), eps0 = sqrt(8 rho_step), Du = 2R.  With R = 1 and
 * rho = 0.5 (one step) that is exp(u / 2).  Negative controls: the laws with
 * the multiplier doubled or halved are rejected by the same test.
 */
static void
TestExponentialSelection(void)
{
	const double radius = 1.0;
	const double rho = 0.5;
	double		u[6];
	double		prob[6];
	long		counts[6];
	double		c;
	double		stat;

	SelectionScores(radius, u);
	CHECK(SelectionHistogram(MRF_MECH_EXPONENTIAL, radius, rho, counts));

	/* independent of privacy.c: sqrt(8 * 0.5) / (2 * 2 * 1) */
	c = 2.0 / 4.0;
	ExponentialLaw(u, 6, c, prob);
	stat = ChiSquareStatistic(counts, prob, 6, SELECTION_RUNS);
	CHECK_MSG(ChiSquareSurvival(stat, 5) > P_REJECT,
			  "exponential selection: chi2 = %.2f (df 5)", stat);

	ExponentialLaw(u, 6, 2.0 * c, prob);
	stat = ChiSquareStatistic(counts, prob, 6, SELECTION_RUNS);
	CHECK_MSG(ChiSquareSurvival(stat, 5) < 1e-12,
			  "negative control (2c) not rejected: chi2 = %.2f", stat);
	ExponentialLaw(u, 6, 0.5 * c, prob);
	stat = ChiSquareStatistic(counts, prob, 6, SELECTION_RUNS);
	CHECK_MSG(ChiSquareSurvival(stat, 5) < 1e-12,
			  "negative control (c/2) not rejected: chi2 = %.2f", stat);
}

/*
 * Report-noisy-max with Laplace(2 Du / eps0), eps0 = sqrt(2 rho_step): with
 * R = 1, rho = 0.5 the scale is 4.  The law is integrated numerically; the
 * negative control is the too-small scale Du / eps0 = 2.
 */
static void
TestLaplaceSelection(void)
{
	const double radius = 1.0;
	const double rho = 0.5;
	double		u[6];
	double		prob[6];
	long		counts[6];
	double		stat;
	double		sum = 0;
	int			i;

	SelectionScores(radius, u);
	CHECK(SelectionHistogram(MRF_MECH_LAPLACE, radius, rho, counts));

	NoisyMaxLaw(u, 6, 4.0, prob);
	for (i = 0; i < 6; i++)
		sum += prob[i];
	CHECK_NEAR(sum, 1.0, 1e-9);
	stat = ChiSquareStatistic(counts, prob, 6, SELECTION_RUNS);
	CHECK_MSG(ChiSquareSurvival(stat, 5) > P_REJECT,
			  "Laplace selection: chi2 = %.2f (df 5)", stat);

	NoisyMaxLaw(u, 6, 2.0, prob);
	stat = ChiSquareStatistic(counts, prob, 6, SELECTION_RUNS);
	CHECK_MSG(ChiSquareSurvival(stat, 5) < 1e-12,
			  "negative control (scale Du/eps0) not rejected: chi2 = %.2f", stat);
}

/* The quantised gradient weight against 2^11 y sigmoid(-y a). */
static void
TestQuantizedWeight(void)
{
	double		worst = 0;
	int			bounded = 1;
	int			i;

	for (i = -20000; i <= 20000; i++)
	{
		float		a = (float) (i * 1e-3);
		int			s;

		for (s = -1; s <= 1; s += 2)
		{
			int			g = MrfFwQuantizedWeight((float) s, a);
			double		exact = MRF_FW_QUANTUM * s / (1.0 + exp(s * (double) a));
			double		err = fabs(g - exact);

			worst = err > worst ? err : worst;
			bounded &= abs(g) <= MRF_FW_QUANTUM;
		}
	}
	CHECK_MSG(worst <= 1.0 + 1e-9, "quantisation error %.4f", worst);
	CHECK(bounded);
	CHECK(MrfFwQuantizedWeight(1.0f, 0.0f) == MRF_FW_QUANTUM / 2);
	CHECK(MrfFwQuantizedWeight(-1.0f, 0.0f) == -MRF_FW_QUANTUM / 2);
	CHECK(MrfFwQuantizedWeight(0.0f, 3.0f) == 0);
	CHECK(MrfFwQuantizedWeight(1.0f, -100.0f) == MRF_FW_QUANTUM);
	CHECK(MrfFwQuantizedWeight(1.0f, 100.0f) == 0);
	CHECK(MrfFwQuantizedWeight(-1.0f, 100.0f) == -MRF_FW_QUANTUM);
	/* the clamp sits at |a| = 9 and catches any bit pattern */
	CHECK(MrfFwQuantizedWeight(1.0f, 8.0f) == 1);
	CHECK(MrfFwQuantizedWeight(1.0f, 9.0f) == 0);
	CHECK(MrfFwQuantizedWeight(1.0f, 3e38f) == 0);
	CHECK(MrfFwQuantizedWeight(1.0f, -INFINITY) == MRF_FW_QUANTUM);
	CHECK(MrfFwQuantizedWeight(-1.0f, INFINITY) == -MRF_FW_QUANTUM);
	CHECK(abs(MrfFwQuantizedWeight(1.0f, NAN)) <= MRF_FW_QUANTUM);
	CHECK(abs(MrfFwQuantizedWeight(-1.0f, -NAN)) <= MRF_FW_QUANTUM);
}

/*
 * Scores from chunked sgemm must be exact integers: the same bits with one or
 * two BLAS threads, and equal to a naive double sum.
 */
static void
TestScoreExactness(void)
{
	const int64_t n = 50000;
	const int	d = 40;
	const int	q = 30;
	float	   *x = malloc(sizeof(float) * n * d);
	float	   *y = malloc(sizeof(float) * n * q);
	float	   *a = malloc(sizeof(float) * n * q);
	uint8_t    *allowed = malloc((size_t) d * q);
	double	   *s1 = malloc(sizeof(double) * d * q);
	double	   *s2 = malloc(sizeof(double) * d * q);
	double	   *naive = calloc((size_t) d * q, sizeof(double));
	int		   *g = malloc(sizeof(int) * n * q);
	MrfFwProblem prob;
	MrfRng		rng;
	int64_t		m;
	int			j;
	int			k;
	int			exact = 1;
	int			threads = openblas_get_num_threads();

	MrfRngInitSeeded(&rng, 21);
	for (m = 0; m < n * d; m++)
		x[m] = (float) ((int) MrfRngBelow(&rng, 3) - 1);
	for (m = 0; m < n * q; m++)
	{
		y[m] = (float) ((int) MrfRngBelow(&rng, 3) - 1);
		a[m] = (float) (24.0 * MrfRngUniform(&rng) - 12.0);
	}
	/* one column of ones and one saturated problem: sums far beyond 2^24 */
	for (m = 0; m < n; m++)
	{
		x[m] = 1.0f;
		y[m] = 1.0f;
		a[m] = -20.0f;
	}
	memset(allowed, 1, (size_t) d * q);

	memset(&prob, 0, sizeof(prob));
	prob.n = n;
	prob.d = d;
	prob.q = q;
	prob.x = x;
	prob.y = y;
	prob.ldy = n;
	prob.allowed = allowed;
	prob.radius = 1.0;
	prob.iterations = 2;
	prob.rho_problem = 1.0;

	openblas_set_num_threads(1);
	CHECK(MrfFwScores(&prob, a, n, &MrfMallocEnv, s1) == MRF_OK);
	openblas_set_num_threads(2);
	CHECK(MrfFwScores(&prob, a, n, &MrfMallocEnv, s2) == MRF_OK);
	openblas_set_num_threads(threads);
	CHECK(memcmp(s1, s2, sizeof(double) * d * q) == 0);

	for (k = 0; k < q; k++)
		for (m = 0; m < n; m++)
			g[k * n + m] = MrfFwQuantizedWeight(y[k * n + m], a[k * n + m]);
	for (k = 0; k < q; k++)
		for (j = 0; j < d; j++)
		{
			double		s = 0;

			for (m = 0; m < n; m++)
				s += (double) g[k * n + m] * x[j * n + m];
			naive[k * d + j] = s;
			exact &= s == s1[k * d + j];
		}
	CHECK(exact);
	CHECK(s1[0] == (double) MRF_FW_QUANTUM * n);

	free(x);
	free(y);
	free(a);
	free(allowed);
	free(s1);
	free(s2);
	free(naive);
	free(g);
}

/* Data from a logistic model with known weights inside the L1 ball. */
static void
LogisticData(int64_t n, int d, const double *wstar, MrfRng *rng, float *x,
			 float *y)
{
	int64_t		m;
	int			j;

	for (m = 0; m < n; m++)
	{
		double		a = 0;

		for (j = 0; j < d; j++)
		{
			x[j * n + m] = j == d - 1 ? 1.0f : (MrfRngBelow(rng, 2) ? 1.0f : -1.0f);
			a += wstar[j] * x[j * n + m];
		}
		y[m] = MrfRngUniform(rng) < 1.0 / (1.0 + exp(-a)) ? 1.0f : -1.0f;
	}
}

/*
 * With a huge budget the solver is plain Frank-Wolfe and must find the
 * logistic regression weights; also: memory equals the declared workspace,
 * everything is freed, polls are counted, and thread count does not change
 * the result.
 */
static void
TestSolveAccuracy(void)
{
	const int64_t n = 40000;
	const int	d = 5;
	const double wstar[5] = {0.8, -0.5, 0.0, 0.3, 0.2};
	float	   *x = malloc(sizeof(float) * n * d);
	float	   *y = malloc(sizeof(float) * n);
	uint8_t		allowed[5] = {1, 1, 1, 1, 1};
	double		w[5];
	double		w2[5];
	double		worst = 0;
	CountingEnv ce;
	MrfEnv		env;
	MrfFwProblem prob;
	MrfRng		rng;
	int			threads = openblas_get_num_threads();
	int			j;

	MrfRngInitSeeded(&rng, 31);
	LogisticData(n, d, wstar, &rng, x, y);

	memset(&prob, 0, sizeof(prob));
	prob.n = n;
	prob.d = d;
	prob.q = 1;
	prob.x = x;
	prob.y = y;
	prob.ldy = n;
	prob.allowed = allowed;
	prob.radius = 2.0;
	prob.iterations = 1500;
	prob.rho_problem = 1e9;
	prob.mechanism = MRF_MECH_EXPONENTIAL;

	CountingEnvInit(&ce, &env);

	openblas_set_num_threads(1);
	MrfRngInitSeeded(&rng, 32);
	CHECK(MrfFwSolve(&prob, &rng, &env, w) == MRF_OK);
	for (j = 0; j < d; j++)
		worst = fabs(w[j] - wstar[j]) > worst ? fabs(w[j] - wstar[j]) : worst;
	CHECK_MSG(worst < 0.08, "Frank-Wolfe weights off by %.3f", worst);
	CHECK(ce.allocs == ce.frees && ce.live == 0);
	CHECK_MSG(ce.peak == MrfFwWorkspaceBytes(n, d, 1), "peak %zu vs declared %zu",
			  ce.peak, MrfFwWorkspaceBytes(n, d, 1));
	/* five blocks of rows: five polls per block pass plus one per iteration */
	CHECK(ce.polls == (long) (prob.iterations - 1) * 6);
	CHECK(ce.last_done == ce.last_total && ce.last_total == (int64_t) (prob.iterations - 1) * 5);

	openblas_set_num_threads(2);
	MrfRngInitSeeded(&rng, 32);
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w2) == MRF_OK);
	openblas_set_num_threads(threads);
	CHECK(memcmp(w, w2, sizeof(w)) == 0);

	/* the Laplace mechanism also converges with a huge budget */
	prob.mechanism = MRF_MECH_LAPLACE;
	MrfRngInitSeeded(&rng, 33);
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w2) == MRF_OK);
	worst = 0;
	for (j = 0; j < d; j++)
		worst = fabs(w2[j] - wstar[j]) > worst ? fabs(w2[j] - wstar[j]) : worst;
	CHECK_MSG(worst < 0.08, "Frank-Wolfe (Laplace) weights off by %.3f", worst);

	/* a wrong-signed gradient would move away from w*: the loss must drop */
	{
		double		loss0 = n * log(2.0);
		double		loss = 0;
		int64_t		m;

		for (m = 0; m < n; m++)
		{
			double		a = 0;

			for (j = 0; j < d; j++)
				a += w[j] * x[j * n + m];
			loss += log1p(exp(-y[m] * a));
		}
		CHECK(loss < loss0 * 0.95);
	}

	free(x);
	free(y);
}

/* Preconditions are checked, not assumed. */
static void
TestSolveInvalid(void)
{
	float		x[4] = {1, -1, 0, 1};
	float		y[4] = {1, -1, 1, 1};
	uint8_t		allowed[1] = {1};
	uint8_t		none[1] = {0};
	double		w[1];
	MrfFwProblem prob;
	MrfRng		rng;

	MrfRngInitSeeded(&rng, 41);
	memset(&prob, 0, sizeof(prob));
	prob.n = 4;
	prob.d = 1;
	prob.q = 1;
	prob.x = x;
	prob.y = y;
	prob.ldy = 4;
	prob.allowed = allowed;
	prob.radius = 1.0;
	prob.iterations = 3;
	prob.rho_problem = 1.0;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_OK);

	x[2] = 0.5f;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
	x[2] = 0.0f;
	y[1] = 2.0f;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
	y[1] = -1.0f;
	prob.allowed = none;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
	prob.allowed = allowed;
	prob.iterations = 1;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
	prob.iterations = 3;
	prob.ldy = 3;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
	prob.ldy = 4;
	prob.rho_problem = 0.0;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
	prob.rho_problem = 1.0;
	prob.radius = INFINITY;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
	prob.radius = 1.0;
	prob.mechanism = (MrfMechanism) 9;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
}

/* The Frank-Wolfe tests. */
void
TestFw(void)
{
	TestQuantizedWeight();
	TestScoreExactness();
	TestExponentialSelection();
	TestLaplaceSelection();
	TestSolveAccuracy();
	TestSolveInvalid();
}
