/*
 * test_fw.c - the private Frank-Wolfe solver: the selection law against the
 * calibrated mechanisms (chi-square, with negative controls), exactness of the
 * quantised scores, optimisation on a logistic model, memory and polling.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "fw.h"
#include "fwkernel.h"
#include "harness.h"

/* Runs of the one-step solver for the selection histograms. */
#define SELECTION_RUNS 200000

/* p-value below which a calibration is rejected. */
#define P_REJECT 1e-4

/*
 * Six rows, three coordinates: column sums of y * x_j are 6, 2 and -4, so the
 * vertices +-e_j have distinct scores.  Bytes: 1 for +1, 0 for -1; y is
 * x_0 itself (ypos 0, complement).
 */
static const float SelY[6] = {1, 1, 1, -1, -1, 1};
static const uint8_t SelX[64 * 3] = {
	1, 1, 1, 0, 0, 1, [64] = 1, 1, 0, 1, 0, 1, [128] = 0, 0, 0, 0, 1, 0
};

/* x_mj as +-1. */
static int
SelXSigned(int j, int m)
{
	return 2 * SelX[j * 64 + m] - 1;
}

/*
 * The solver's bit columns of d byte columns of ldx (a multiple of 64):
 * bit m % 64 of word j * ldx / 64 + m / 64 is x[j * ldx + m].  Freed by
 * the caller.
 */
static uint64_t *
ToBits(const uint8_t *x, int64_t ldx, int d)
{
	int64_t		xwords = ldx / 64;
	uint64_t   *bits = calloc((size_t) xwords * d, sizeof(uint64_t));
	int64_t		m;
	int			j;

	for (j = 0; j < d; j++)
		for (m = 0; m < ldx; m++)
			if (x[(size_t) j * ldx + m])
				bits[(size_t) j * xwords + m / 64] |= (uint64_t) 1 << (m % 64);
	return bits;
}

/* Candidate index of vertex sign * e_j: 2j for +, 2j+1 for -. */
static int
VertexIndex(int j, int sign)
{
	return 2 * j + (sign < 0);
}

/*
 * Scores of the six vertices at w = 0, by hand: the quantised gradient
 * weight there is round(127 y / 2) rounded half up, 64 y, so
 * u(+-R e_j) = +-R sum_m 64 y_m x_mj / 127.
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
			s += SelY[m] * SelXSigned(j, m) * 64.0 / 127.0;
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
	static const int ypos[1] = {0};
	static const int yneg[1] = {MRF_FW_COMPLEMENT};
	uint64_t   *selbits = ToBits(SelX, 64, 3);
	MrfFwProblem prob;
	MrfRng		rng;
	double		w[3];
	long		run;
	int			clean = 1;

	memset(&prob, 0, sizeof(prob));
	prob.n = 6;
	prob.d = 3;
	prob.q = 1;
	prob.x = selbits;
	prob.xwords = 1;
	prob.x_signed = 1;
	prob.ypos = ypos;
	prob.yneg = yneg;
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
		{
			free(selbits);
			return 0;
		}
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
	free(selbits);
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

/* The quantised gradient weight against 127 y sigmoid(-y a). */
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
			int			g = MrfFwQuantizedWeight(s, a);
			double		exact = MRF_FW_QUANTUM * s / (1.0 + exp(s * (double) a));
			double		err = fabs(g - exact);

			worst = err > worst ? err : worst;
			bounded &= abs(g) <= MRF_FW_QUANTUM;
		}
	}
	CHECK_MSG(worst <= 0.51, "quantisation error %.4f", worst);
	CHECK(bounded);
	CHECK(MRF_FW_QUANTUM == 127);
	CHECK(MrfFwQuantizedWeight(1, 0.0f) == 64);
	CHECK(MrfFwQuantizedWeight(-1, 0.0f) == -64);
	CHECK(MrfFwQuantizedWeight(0, 3.0f) == 0);
	CHECK(MrfFwQuantizedWeight(1, -100.0f) == MRF_FW_QUANTUM);
	CHECK(MrfFwQuantizedWeight(1, 100.0f) == 0);
	CHECK(MrfFwQuantizedWeight(-1, 100.0f) == -MRF_FW_QUANTUM);
	/* 127 sigmoid(-5) = 0.85 rounds to 1; the clamp at |a| = 9 */
	CHECK(MrfFwQuantizedWeight(1, 5.0f) == 1);
	CHECK(MrfFwQuantizedWeight(1, 9.0f) == 0);
	CHECK(MrfFwQuantizedWeight(1, 3e38f) == 0);
	CHECK(MrfFwQuantizedWeight(1, -INFINITY) == MRF_FW_QUANTUM);
	CHECK(MrfFwQuantizedWeight(-1, INFINITY) == -MRF_FW_QUANTUM);
	CHECK(abs(MrfFwQuantizedWeight(1, NAN)) <= MRF_FW_QUANTUM);
	CHECK(abs(MrfFwQuantizedWeight(-1, -NAN)) <= MRF_FW_QUANTUM);
}

/* Random {0, 1} bytes, d columns of ldx (padding rows hold junk 1s). */
static uint8_t *
RandomBytes(int64_t n, int64_t ldx, int d, MrfRng *rng)
{
	uint8_t    *x = malloc((size_t) ldx * d);
	int64_t		m;
	int			j;

	for (j = 0; j < d; j++)
		for (m = 0; m < ldx; m++)
			x[(size_t) j * ldx + m] = m < n ? (uint8_t) MrfRngBelow(rng, 2) : 1;
	return x;
}

/*
 * Scores must be exact integers on every kernel and thread count: equal to
 * naive int64 sums, signed and 0/1 designs, complement and two-column
 * labels, sums far beyond 2^24 (a column of ones and a saturated problem),
 * and a row count that is not a multiple of any block or vector width.
 */
static void
TestScoreExactness(void)
{
	const int64_t n = 200003;
	const int	d = 40;
	const int	q = 30;
	int64_t		ldx = MrfFwRowStride(n);
	MrfRng		rng;
	uint8_t    *x;
	uint64_t   *xbits;
	float	   *a = malloc(sizeof(float) * ldx * q);
	uint8_t    *allowed = malloc((size_t) d * q);
	int64_t    *s = malloc(sizeof(int64_t) * d * q);
	int64_t    *naive = malloc(sizeof(int64_t) * d * q);
	int		   *g = malloc(sizeof(int) * n);
	int			ypos[30];
	int			yneg[30];
	MrfFwProblem prob;
	int			sgn;
	int64_t		m;
	int			j;
	int			k;
	int			kinds = 0;

	MrfRngInitSeeded(&rng, 21);
	x = RandomBytes(n, ldx, d, &rng);
	for (m = 0; m < ldx * q; m++)
		a[m] = (float) (24.0 * MrfRngUniform(&rng) - 12.0);
	for (m = 0; m < n; m++)
	{
		x[m] = 1;				/* column 0: ones */
		a[m] = -20.0f;			/* problem 0: saturated at +127 */
	}
	for (k = 0; k < q; k++)
	{
		ypos[k] = k == 0 ? 0 : (int) MrfRngBelow(&rng, d);
		yneg[k] = k % 2 == 0 ? MRF_FW_COMPLEMENT : (int) MrfRngBelow(&rng, d);
	}
	memset(allowed, 1, (size_t) d * q);
	memset(&prob, 0, sizeof(prob));
	prob.n = n;
	prob.d = d;
	prob.q = q;
	xbits = ToBits(x, ldx, d);
	prob.x = xbits;
	prob.xwords = ldx / 64;
	prob.ypos = ypos;
	prob.yneg = yneg;
	prob.allowed = allowed;
	prob.radius = 1.0;
	prob.iterations = 2;
	prob.rho_problem = 1.0;

	for (sgn = 0; sgn <= 1; sgn++)
	{
		int			kind;

		prob.x_signed = sgn;
		for (k = 0; k < q; k++)
		{
			const uint8_t *yp = x + (size_t) ypos[k] * ldx;

			for (m = 0; m < n; m++)
			{
				int			y = yneg[k] == MRF_FW_COMPLEMENT ? 2 * yp[m] - 1 :
					yp[m] - x[(size_t) yneg[k] * ldx + m];

				g[m] = MrfFwQuantizedWeight(y, a[(size_t) k * ldx + m]);
			}
			for (j = 0; j < d; j++)
			{
				int64_t		sum = 0;

				for (m = 0; m < n; m++)
					sum += (int64_t) g[m] * (sgn ? 2 * x[(size_t) j * ldx + m] - 1 : x[(size_t) j * ldx + m]);
				naive[(size_t) k * d + j] = sum;
			}
		}
		CHECK(naive[0] == (int64_t) MRF_FW_QUANTUM * n);
		for (kind = 1; kind < MRF_FW_KERNEL_COUNT; kind++)
		{
			int			threads;

			if (!MrfFwKernelAvailable((MrfFwKernel) kind))
				continue;
			kinds += sgn == 0;
			prob.kernel = (MrfFwKernel) kind;
			for (threads = 1; threads <= 3; threads++)
			{
				MrfFwSetThreads(threads);
				memset(s, 0x5a, sizeof(int64_t) * d * q);
				CHECK(MrfFwScores(&prob, a, ldx, &MrfMallocEnv, s) == MRF_OK);
				CHECK_MSG(memcmp(s, naive, sizeof(int64_t) * d * q) == 0,
						  "kernel %s, %d threads, signed %d: scores differ from the naive sums",
						  MrfFwKernelName((MrfFwKernel) kind), threads, sgn);
			}
		}
	}
	MrfFwSetThreads(1);
	/* the portable kernel and at least one vector kernel on x86-64 */
	CHECK(MrfFwKernelAvailable(MRF_FW_KERNEL_SGEMM));
#if defined(__x86_64__)
	CHECK(kinds >= 2);
#endif
	free(x);
	free(xbits);
	free(a);
	free(allowed);
	free(s);
	free(naive);
	free(g);
}

/*
 * Data from a logistic model with known weights inside the L1 ball; column
 * d - 1 is the intercept and column d the label (not a coordinate).
 */
static void
LogisticData(int64_t n, int64_t ldx, int d, const double *wstar, MrfRng *rng,
			 uint8_t *x)
{
	int64_t		m;
	int			j;

	memset(x, 0, (size_t) ldx * (d + 1));
	for (m = 0; m < n; m++)
	{
		double		a = 0;

		for (j = 0; j < d; j++)
		{
			x[j * ldx + m] = j == d - 1 ? 1 : (uint8_t) MrfRngBelow(rng, 2);
			a += wstar[j] * (2 * x[j * ldx + m] - 1);
		}
		x[d * ldx + m] = MrfRngUniform(rng) < 1.0 / (1.0 + exp(-a)) ? 1 : 0;
	}
}

/* Calls of EveryThird. */
static int	PendingCalls;

/* pending callback for the tests: true every third call. */
static int
EveryThird(void *ctx)
{
	(void) ctx;
	return ++PendingCalls % 3 == 0;
}

/*
 * With a huge budget the solver is plain Frank-Wolfe and must find the
 * logistic regression weights; also: memory equals the declared workspace,
 * everything is freed, polls are counted, and neither the kernel, the thread
 * count nor a cancel check that stops the threads changes the result.
 */
static void
TestSolveAccuracy(void)
{
	const int64_t n = 40000;
	const int	d = 5;
	const double wstar[5] = {0.8, -0.5, 0.0, 0.3, 0.2};
	int64_t		ldx = MrfFwRowStride(n);
	uint8_t    *x = malloc((size_t) ldx * (d + 1));
	uint64_t   *xbits;
	uint8_t		allowed[6] = {1, 1, 1, 1, 1, 0};
	int			ypos[1] = {5};
	int			yneg[1] = {MRF_FW_COMPLEMENT};
	double		w[6];
	double		w2[6];
	double		worst = 0;
	struct
	{
		CountingEnv ce;
	}			pc;
	MrfEnv		env;
	MrfFwProblem prob;
	MrfRng		rng;
	int64_t		nblocks;
	int			kind;
	int			j;

	MrfRngInitSeeded(&rng, 31);
	LogisticData(n, ldx, d, wstar, &rng, x);

	memset(&prob, 0, sizeof(prob));
	prob.n = n;
	prob.d = d + 1;
	prob.q = 1;
	xbits = ToBits(x, ldx, d + 1);
	prob.x = xbits;
	prob.xwords = ldx / 64;
	prob.x_signed = 1;
	prob.ypos = ypos;
	prob.yneg = yneg;
	prob.allowed = allowed;
	prob.radius = 2.0;
	prob.iterations = 1500;
	prob.rho_problem = 1e9;
	prob.mechanism = MRF_MECH_EXPONENTIAL;

	MrfFwSetThreads(1);
	CountingEnvInit(&pc.ce, &env);
	MrfRngInitSeeded(&rng, 32);
	CHECK(MrfFwSolve(&prob, &rng, &env, w) == MRF_OK);
	for (j = 0; j < d; j++)
		worst = fabs(w[j] - wstar[j]) > worst ? fabs(w[j] - wstar[j]) : worst;
	CHECK_MSG(worst < 0.08, "Frank-Wolfe weights off by %.3f", worst);
	CHECK(w[d] == 0.0);
	CHECK(pc.ce.allocs == pc.ce.frees && pc.ce.live == 0);
	CHECK_MSG(pc.ce.peak == MrfFwWorkspaceBytes(n, d + 1, 1), "peak %zu vs declared %zu",
			  pc.ce.peak, MrfFwWorkspaceBytes(n, d + 1, 1));
	/* one poll per iteration, progress counted in blocks of rows */
	CHECK(pc.ce.polls == (long) (prob.iterations - 1));
	CHECK(pc.ce.last_done == pc.ce.last_total && pc.ce.last_total % (prob.iterations - 1) == 0);
	nblocks = pc.ce.last_total / (prob.iterations - 1);
	CHECK(nblocks >= 1);

	/* every kernel, 1-3 threads, and cancel checks that stop the threads */
	for (kind = 1; kind < MRF_FW_KERNEL_COUNT; kind++)
	{
		int			threads;

		if (!MrfFwKernelAvailable((MrfFwKernel) kind))
			continue;
		prob.kernel = (MrfFwKernel) kind;
		for (threads = 1; threads <= 3; threads++)
		{
			MrfFwSetThreads(threads);
			CountingEnvInit(&pc.ce, &env);
			PendingCalls = 0;
			env.pending = EveryThird;
			MrfRngInitSeeded(&rng, 32);
			CHECK(MrfFwSolve(&prob, &rng, &env, w2) == MRF_OK);
			CHECK_MSG(memcmp(w, w2, sizeof(w)) == 0, "kernel %s, %d threads: weights differ",
					  MrfFwKernelName((MrfFwKernel) kind), threads);
			CHECK(pc.ce.allocs == pc.ce.frees && pc.ce.live == 0);
			/* stopped passes polled besides the one poll per iteration */
			CHECK(pc.ce.polls > (long) (prob.iterations - 1));
		}
	}
	prob.kernel = MRF_FW_KERNEL_AUTO;
	MrfFwSetThreads(1);

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
				a += w[j] * (2 * x[j * ldx + m] - 1);
			loss += log1p(exp(-(2 * x[d * ldx + m] - 1) * a));
		}
		CHECK(loss < loss0 * 0.95);
	}

	free(x);
	free(xbits);
}

/*
 * Bit-identical models whatever the kernel, thread count and row order: a
 * private solve (noise matters) of many problems, signed and 0/1 designs,
 * with n not a multiple of any block or vector width.
 */
static void
TestSolveIdentical(void)
{
	const int64_t n = 30011;
	const int	d = 23;
	const int	q = 21;
	int64_t		ldx = MrfFwRowStride(n);
	MrfRng		rng;
	uint8_t    *x;
	uint8_t    *xp;
	uint64_t   *xbits;
	uint64_t   *xpbits;
	int64_t    *perm = malloc(sizeof(int64_t) * n);
	uint8_t    *allowed = malloc((size_t) d * q);
	double	   *w0 = malloc(sizeof(double) * d * q);
	double	   *w1 = malloc(sizeof(double) * d * q);
	int			ypos[21];
	int			yneg[21];
	MrfFwProblem prob;
	int64_t		m;
	int			sgn;
	int			j;
	int			k;

	MrfRngInitSeeded(&rng, 51);
	x = RandomBytes(n, ldx, d, &rng);
	xp = malloc((size_t) ldx * d);
	/* correlated columns so that the solve has something to find */
	for (m = 0; m < n; m++)
		for (j = 1; j < d; j++)
			if (MrfRngBelow(&rng, 4) != 0)
				x[(size_t) j * ldx + m] = x[(size_t) (j - 1) * ldx + m];
	for (m = 0; m < n; m++)
		perm[m] = m;
	for (m = n - 1; m > 0; m--)
	{
		int64_t		r = (int64_t) MrfRngBelow(&rng, (uint64_t) m + 1);
		int64_t		t = perm[m];

		perm[m] = perm[r];
		perm[r] = t;
	}
	for (j = 0; j < d; j++)
		for (m = 0; m < ldx; m++)
			xp[(size_t) j * ldx + m] = m < n ? x[(size_t) j * ldx + perm[m]] : 0;
	for (k = 0; k < q; k++)
	{
		ypos[k] = k;
		yneg[k] = k % 3 == 0 ? MRF_FW_COMPLEMENT : k + 1;
		for (j = 0; j < d; j++)
			allowed[(size_t) k * d + j] = j != k && j != k + 1;
	}
	memset(&prob, 0, sizeof(prob));
	prob.n = n;
	prob.d = d;
	prob.q = q;
	xbits = ToBits(x, ldx, d);
	xpbits = ToBits(xp, ldx, d);
	prob.xwords = ldx / 64;
	prob.ypos = ypos;
	prob.yneg = yneg;
	prob.allowed = allowed;
	prob.radius = 3.0;
	prob.iterations = 40;
	prob.rho_problem = 0.5;
	prob.mechanism = MRF_MECH_EXPONENTIAL;

	for (sgn = 0; sgn <= 1; sgn++)
	{
		int			kind;
		int			nonzero = 0;

		prob.x_signed = sgn;
		prob.x = xbits;
		prob.kernel = MRF_FW_KERNEL_SGEMM;
		MrfFwSetThreads(1);
		MrfRngInitSeeded(&rng, 52);
		CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w0) == MRF_OK);
		for (m = 0; m < d * q; m++)
			nonzero += w0[m] != 0.0;
		CHECK(nonzero > q);
		for (kind = 1; kind < MRF_FW_KERNEL_COUNT; kind++)
		{
			int			threads;

			if (!MrfFwKernelAvailable((MrfFwKernel) kind))
				continue;
			prob.kernel = (MrfFwKernel) kind;
			for (threads = 1; threads <= 2; threads++)
			{
				int			order;

				MrfFwSetThreads(threads);
				for (order = 0; order <= 1; order++)
				{
					prob.x = order ? xpbits : xbits;
					MrfRngInitSeeded(&rng, 52);
					CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w1) == MRF_OK);
					CHECK_MSG(memcmp(w0, w1, sizeof(double) * d * q) == 0,
							  "kernel %s, %d threads, permuted %d, signed %d: model differs",
							  MrfFwKernelName((MrfFwKernel) kind), threads, order, sgn);
				}
			}
		}
	}
	MrfFwSetThreads(1);
	free(x);
	free(xp);
	free(xbits);
	free(xpbits);
	free(perm);
	free(allowed);
	free(w0);
	free(w1);
}

/* Preconditions are checked, not assumed. */
static void
TestSolveInvalid(void)
{
	/* rows 0..3 of two columns; bits of rows 4 and above are not data */
	uint64_t	x[2] = {0x9 | 0xf0, 0xd | 0xff00};
	uint8_t		allowed[2] = {1, 0};
	uint8_t		none[2] = {0, 0};
	int			ypos[1] = {1};
	int			yneg[1] = {MRF_FW_COMPLEMENT};
	double		w[2];
	double		w2[2];
	MrfFwProblem prob;
	MrfRng		rng;

	MrfRngInitSeeded(&rng, 41);
	memset(&prob, 0, sizeof(prob));
	prob.n = 4;
	prob.d = 2;
	prob.q = 1;
	prob.x = x;
	prob.xwords = 1;
	prob.x_signed = 1;
	prob.ypos = ypos;
	prob.yneg = yneg;
	prob.allowed = allowed;
	prob.radius = 1.0;
	prob.iterations = 3;
	prob.rho_problem = 1.0;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_OK);
	x[0] = 0x9;
	x[1] = 0xd;
	MrfRngInitSeeded(&rng, 41);
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w2) == MRF_OK);
	CHECK(memcmp(w, w2, sizeof(w)) == 0);

	ypos[0] = 2;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
	ypos[0] = 1;
	yneg[0] = -2;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
	yneg[0] = MRF_FW_COMPLEMENT;
	prob.allowed = none;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
	prob.allowed = allowed;
	prob.iterations = 1;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
	prob.iterations = 3;
	prob.xwords = 0;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
	prob.xwords = 1;
	prob.n = 65;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
	prob.n = 4;
	prob.rho_problem = 0.0;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
	prob.rho_problem = 1.0;
	prob.radius = INFINITY;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
	prob.radius = 1.0;
	prob.mechanism = (MrfMechanism) 9;
	CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w) == MRF_EINVAL);
}

/*
 * The kernel choice against the CPU flags Linux reports (an independent
 * source: /proc/cpuinfo lists amx_tile and amx_int8 only when the CPU has
 * them and the kernel supports their state): AUTO picks AMX exactly when it
 * is there, and a CPU without AMX keeps the choice it had before AMX.
 */
static void
TestKernelChoice(void)
{
	FILE	   *f = fopen("/proc/cpuinfo", "r");
	char		line[8192];
	int			flags_seen = 0;
	int			amx = 0;
	int			vnni = 0;
	struct utsname un;
	int			major = 0;
	int			minor = 0;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "flags", 5) == 0)
		{
			flags_seen = 1;
			amx = strstr(line, " amx_tile") != NULL && strstr(line, " amx_int8") != NULL;
			vnni = strstr(line, " avx512_vnni") != NULL;
			break;
		}
	if (f != NULL)
		fclose(f);
	CHECK(MrfFwKernelAvailable(MrfFwAutoKernel()));
	CHECK(MrfFwAutoKernel() != MRF_FW_KERNEL_AUTO);
#if defined(__x86_64__) && defined(__linux__)
	CHECK(flags_seen);
	printf("# cpu flags: amx %d, avx512_vnni %d; auto kernel %s\n", amx, vnni,
		   MrfFwKernelName(MrfFwAutoKernel()));
	/* Linux grants the tile state from 5.16 on (arch_prctl ARCH_REQ_XCOMP_PERM) */
	if (uname(&un) == 0 && sscanf(un.release, "%d.%d", &major, &minor) == 2 &&
		major * 100 + minor < 516)
		amx = 0;
	CHECK_MSG(MrfFwKernelAvailable(MRF_FW_KERNEL_AMX) == (amx && vnni),
			  "amx available %d, cpu flags amx %d vnni %d",
			  MrfFwKernelAvailable(MRF_FW_KERNEL_AMX), amx, vnni);
	CHECK(MrfFwKernelAvailable(MRF_FW_KERNEL_VNNI) == vnni);
	CHECK(MrfFwAutoKernel() == (amx && vnni ? MRF_FW_KERNEL_AMX :
								vnni ? MRF_FW_KERNEL_VNNI :
								MrfFwKernelAvailable(MRF_FW_KERNEL_AVX2) ? MRF_FW_KERNEL_AVX2 :
								MRF_FW_KERNEL_SGEMM));
#else
	(void) un;
	(void) major;
	(void) minor;
	(void) flags_seen;
	(void) amx;
	(void) vnni;
	CHECK(!MrfFwKernelAvailable(MRF_FW_KERNEL_AMX));
#endif
}

/*
 * The selection's noise drawn on several threads (each its range of
 * problems, its copy of the stream moved on to where the serial loop is)
 * gives the serial selections and leaves the generator where the serial
 * loop does: models and the generator's next words equal bit for bit for
 * 1-7 threads, both mechanisms, problems with one candidate and many, a
 * selection above the default size and a tiny one run in parallel.
 */
static void
TestSelectParallel(void)
{
	const int64_t n = 20000;
	const int	d = 90;
	const int	q = 100;
	int64_t		ldx = MrfFwRowStride(n);
	MrfRng		rng;
	uint8_t    *x;
	uint64_t   *xbits;
	uint8_t    *allowed = malloc((size_t) d * q);
	double	   *w0 = malloc(sizeof(double) * d * q);
	double	   *w1 = malloc(sizeof(double) * d * q);
	int			ypos[100];
	int			yneg[100];
	MrfFwProblem prob;
	int64_t		m;
	int			j;
	int			k;

	MrfRngInitSeeded(&rng, 61);
	x = RandomBytes(n, ldx, d, &rng);
	for (m = 0; m < n; m++)
		for (j = 1; j < d; j++)
			if (MrfRngBelow(&rng, 3) != 0)
				x[(size_t) j * ldx + m] = x[(size_t) (j - 1) * ldx + m];
	/* uneven candidates: some problems one, the others about 3/4 of d */
	for (k = 0; k < q; k++)
	{
		ypos[k] = k % d;
		yneg[k] = k % 2 ? MRF_FW_COMPLEMENT : (k + 1) % d;
		for (j = 0; j < d; j++)
			allowed[(size_t) k * d + j] = k % 17 == 3 ? j == (k + 5) % d :
				j != ypos[k] && j != yneg[k] && MrfRngBelow(&rng, 4) != 0;
	}
	xbits = ToBits(x, ldx, d);
	memset(&prob, 0, sizeof(prob));
	prob.n = n;
	prob.x = xbits;
	prob.xwords = ldx / 64;
	prob.x_signed = 1;
	prob.ypos = ypos;
	prob.yneg = yneg;
	prob.allowed = allowed;
	prob.radius = 3.0;
	prob.iterations = 12;
	prob.rho_problem = 0.5;
	CHECK((int64_t) q * d >= MRF_FW_SELECT_MIN_WORK);

	for (int mech = 0; mech < 2; mech++)
		for (int small = 0; small <= 1; small++)
		{
			uint64_t	next0[4];

			prob.mechanism = mech ? MRF_MECH_LAPLACE : MRF_MECH_EXPONENTIAL;
			/* small: three problems of four coordinates, always parallel */
			prob.q = small ? 3 : q;
			prob.d = small ? 4 : d;
			if (small)
			{
				for (k = 0; k < 3; k++)
				{
					ypos[k] = k;
					yneg[k] = MRF_FW_COMPLEMENT;
					for (j = 0; j < 4; j++)
						allowed[(size_t) k * 4 + j] = j != k;
				}
				MrfFwSetSelectMinWork(0);
			}
			MrfFwSetThreads(1);
			MrfRngInitSeeded(&rng, 62 + mech);
			CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w0) == MRF_OK);
			for (int i = 0; i < 4; i++)
				next0[i] = MrfRngU64(&rng);
			for (int threads = 2; threads <= 7; threads++)
			{
				int			same = 1;

				MrfFwSetThreads(threads);
				MrfRngInitSeeded(&rng, 62 + mech);
				CHECK(MrfFwSolve(&prob, &rng, &MrfMallocEnv, w1) == MRF_OK);
				for (int i = 0; i < 4; i++)
					same &= MrfRngU64(&rng) == next0[i];
				CHECK_MSG(memcmp(w0, w1, sizeof(double) * prob.d * prob.q) == 0,
						  "mechanism %d, small %d, %d threads: model differs", mech, small, threads);
				CHECK_MSG(same, "mechanism %d, small %d, %d threads: the generator is elsewhere",
						  mech, small, threads);
			}
			MrfFwSetSelectMinWork(MRF_FW_SELECT_MIN_WORK);
			MrfFwSetThreads(1);
		}
	free(x);
	free(xbits);
	free(allowed);
	free(w0);
	free(w1);
}

/* The Frank-Wolfe tests. */
void
TestFw(void)
{
	TestQuantizedWeight();
	TestKernelChoice();
	TestScoreExactness();
	TestExponentialSelection();
	TestLaplaceSelection();
	TestSolveAccuracy();
	TestSolveIdentical();
	TestSelectParallel();
	TestSolveInvalid();
}
