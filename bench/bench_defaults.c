/*
 * bench_defaults.c - the study behind the learners' defaults (issue 10):
 * how lambda and the Frank-Wolfe iteration count T should be chosen when
 * the user gives only a budget, and how the stable-mode structure learner's
 * block regressions should be regularised.
 *
 *   --study ising     Ising models sampled exactly (p <= 16) or by long
 *                     Gibbs chains from four families (chain, mixed-sign
 *                     grid, random mixed-sign graph, dense mixed-sign
 *                     graph); for every (family, p, n, rho) cell the
 *                     private learner runs at today's setting (lambda 1,
 *                     T = ceil((2 lambda n sqrt(rho/p))^(2/3))), the paper's
 *                     oracle (lambda = the true width, the same formula) and
 *                     a sweep of lambda x (T as a fraction of the formula
 *                     at that lambda).  Error: max_{i<j} |A_hat_ij - A_ij|.
 *   --study pairwise  the same, smaller, for k = 3 and 4 (error: max |W_hat
 *                     - W| in the centred representation).
 *   --study twise     the same, smaller, for t = 3 (error: max |c_hat - c|
 *                     over the monomials of size 2..t).
 *   --study structure the stable mode's block learner alone (non-private:
 *                     the privacy of the stable mode is in the histogram):
 *                     the fraction of blocks of b rows that give exactly the
 *                     true graph, and the fraction that give some other
 *                     non-empty-disagreement graph, at several radii.
 *   --study structure-plan  one pairwise or t-wise family (--model, --families,
 *                     --p, --k, --scale, --lambdas, --bmin) at block sizes a
 *                     factor sqrt 2 apart, for the rows-needed plans of
 *                     structure_plan.c (run_structure_plan_study.sh).
 *
 * Every line of output is one fit, tab-separated, with a header line;
 * bench/defaults_table.py takes medians over the repeated releases and
 * writes the Markdown tables of the README.  --grid tiny checks the
 * pipeline in seconds; --grid full is the committed study (about 30
 * minutes of one core; run it under nice).  The learners run with seeded
 * generators so that a run is repeatable; OpenBLAS runs on one thread.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "ising.h"
#include "noise.h"
#include "pairwise.h"
#include "privacy.h"
#include "rows.h"
#include "sample.h"
#include "structure.h"
#include "structure_ising.h"
#include "structure_pairwise.h"
#include "structure_twise.h"
#include "twise.h"

extern void openblas_set_num_threads(int);

/* Prints a message and exits. */
static void
Die(const char *msg)
{
	fprintf(stderr, "bench_defaults: %s\n", msg);
	exit(2);
}

/* calloc that dies on failure. */
static void *
XCalloc(size_t count, size_t size)
{
	void	   *p = calloc(count, size);

	if (p == NULL)
		Die("out of memory");
	return p;
}

/* A uniform double in [0, 1) from the project's generator. */
static double
Uniform(MrfRng *rng)
{
	return MrfRngUniform(rng);
}

/* +1 or -1 with equal probability. */
static double
Sign(MrfRng *rng)
{
	return (MrfRngU64(rng) & 1) ? 1.0 : -1.0;
}

/* ---------------------------------------------------------------- Ising */

/*
 * A true Ising model of a family: chain (A_{i,i+1} = 0.5, width 1), grid
 * (r x c near-square lattice, +-0.5 at random: width 2), random (about 1.5 p
 * edges at random, +-U[0.3, 0.7]), dense (every pair, +-1.5/(p-1): width
 * 1.5), grid3 (the grid at +-0.75: width 3); fields U[-0.1, 0.1].
 */
static void
IsingFamily(const char *family, int p, MrfRng *rng, double *A, double *theta)
{
	memset(A, 0, sizeof(double) * p * p);
	if (strcmp(family, "chain") == 0)
	{
		for (int i = 0; i + 1 < p; i++)
			A[i * p + i + 1] = A[(i + 1) * p + i] = 0.5;
	}
	else if (strcmp(family, "grid") == 0 || strcmp(family, "grid3") == 0)
	{
		int			cols = (int) floor(sqrt((double) p));
		double		a = strcmp(family, "grid3") == 0 ? 0.75 : 0.5;

		while (p % cols != 0)
			cols--;
		for (int i = 0; i < p; i++)
		{
			int			r = i / cols;
			int			c = i % cols;

			if (c + 1 < cols)
				A[i * p + i + 1] = A[(i + 1) * p + i] = a * Sign(rng);
			if ((r + 1) * cols + c < p)
				A[i * p + i + cols] = A[(i + cols) * p + i] = a * Sign(rng);
		}
	}
	else if (strcmp(family, "random") == 0)
	{
		int			edges = (3 * p) / 2;

		for (int e = 0; e < edges; e++)
		{
			int			i = (int) MrfRngBelow(rng, (uint64_t) p);
			int			j = (int) MrfRngBelow(rng, (uint64_t) p);

			if (i == j || A[i * p + j] != 0.0)
			{
				e--;
				continue;
			}
			A[i * p + j] = A[j * p + i] = Sign(rng) * (0.3 + 0.4 * Uniform(rng));
		}
	}
	else if (strcmp(family, "dense") == 0)
	{
		for (int i = 0; i < p; i++)
			for (int j = i + 1; j < p; j++)
				A[i * p + j] = A[j * p + i] = Sign(rng) * 1.5 / (p - 1);
	}
	else
		Die("unknown family");
	for (int i = 0; i < p; i++)
		theta[i] = 0.2 * Uniform(rng) - 0.1;
}

/* The width max_i sum_j |A_ij| + |theta_i| (Zhang et al.'s lambda). */
static double
IsingWidth(const double *A, const double *theta, int p)
{
	double		w = 0.0;

	for (int i = 0; i < p; i++)
	{
		double		s = fabs(theta[i]);

		for (int j = 0; j < p; j++)
			s += fabs(A[i * p + j]);
		if (s > w)
			w = s;
	}
	return w;
}

/* Packs n x p values -1/+1 (or any sign) into rows.h's layout. */
static uint64_t *
PackRows(const int8_t *z, int64_t n, int p)
{
	int			words = MrfBitWords(p);
	uint64_t   *bits = XCalloc((size_t) n * words, sizeof(uint64_t));

	for (int64_t m = 0; m < n; m++)
		for (int j = 0; j < p; j++)
			if (z[m * p + j] > 0)
				MrfBitSet(bits + m * words, j);
	return bits;
}

/* Gibbs settings: long chains, well mixed for the widths studied. */
#define GIBBS_BURN_IN 2000
#define GIBBS_THIN 10

/* One configuration of the sweep: lambda (0: the true width) and T's factor. */
typedef struct Config
{
	const char *label;
	double		lambda;			/* 0: the true width (oracle) */
	double		tfactor;		/* T = ceil(tfactor * formula at lambda) */
} Config;

/*
 * The sweep: today's defaults, the oracle, and lambda in {2, 4, 8, 16} x T
 * at 1/2 .. 1/16 of the formula (but lambda 16 at 1/2, the costliest).
 */
static const double SweepLambdas[] = {2, 4, 8, 16};
static const double SweepFactors[] = {0.5, 0.25, 0.125, 0.0625};

/* The formula's T at a radius, budget and rows, scaled by f (at least 2). */
static int
ScaledIterations(double radius, int64_t n, double rho_node, double f)
{
	int			t = MrfFwDefaultIterations(radius, n, rho_node);
	double		s = ceil(f * (double) t - 1e-9);

	return s < 2.0 ? 2 : (int) s;
}

/* Max |A_hat_ij - A_ij| over i < j. */
static double
IsingError(const double *Ahat, const double *A, int p)
{
	double		e = 0.0;

	for (int i = 0; i < p; i++)
		for (int j = i + 1; j < p; j++)
		{
			double		d = fabs(Ahat[i * p + j] - A[i * p + j]);

			if (d > e)
				e = d;
		}
	return e;
}

typedef struct Cell
{
	int			p;
	int64_t		n;
	double		rho;
} Cell;

/* Runs the Ising sweep of one family over the cells; prints one line per fit. */
static void
IsingStudy(const char *family, const Cell *cells, int ncells, int reps, uint64_t seed)
{
	int			lastp = -1;
	double	   *A = NULL;
	double	   *theta = NULL;
	uint64_t   *bits = NULL;
	double		width = 0;

	for (int c = 0; c < ncells; c++)
	{
		int			p = cells[c].p;
		int64_t		n = cells[c].n;
		double		rho = cells[c].rho;
		int			nconf = 2 + (int) (sizeof(SweepLambdas) / sizeof(double) *
									   sizeof(SweepFactors) / sizeof(double));
		double	   *Ahat = XCalloc((size_t) p * p, sizeof(double));
		double	   *th = XCalloc((size_t) p, sizeof(double));

		if (p != lastp)
		{
			/* one data set per (family, p): the n_max rows, prefixes for smaller n */
			int64_t		nmax = 0;
			int8_t	   *z;
			MrfRng		rng;

			for (int d = c; d < ncells && cells[d].p == p; d++)
				if (cells[d].n > nmax)
					nmax = cells[d].n;
			free(A);
			free(theta);
			free(bits);
			A = XCalloc((size_t) p * p, sizeof(double));
			theta = XCalloc((size_t) p, sizeof(double));
			MrfRngInitSeeded(&rng, seed * 1000003u + (uint64_t) p * 7919u + (uint64_t) family[0] * 31u + strlen(family));
			IsingFamily(family, p, &rng, A, theta);
			width = IsingWidth(A, theta, p);
			z = XCalloc((size_t) nmax * p, sizeof(int8_t));
			if (MrfIsingSample(A, theta, p, nmax, GIBBS_BURN_IN, GIBBS_THIN, &rng,
							   &MrfMallocEnv, z) != MRF_OK)
				Die("sampling failed");
			bits = PackRows(z, nmax, p);
			free(z);
			lastp = p;
		}

		for (int k = 0; k < nconf; k++)
		{
			Config		cf;
			char		label[32];
			MrfIsingOptions io;

			if (k == 0)
				cf = (Config) {"today", 1.0, 1.0};
			else if (k == 1)
				cf = (Config) {"oracle", width, 1.0};
			else
			{
				int			nf = (int) (sizeof(SweepFactors) / sizeof(double));
				double		l = SweepLambdas[(k - 2) / nf];
				double		f = SweepFactors[(k - 2) % nf];

				snprintf(label, sizeof(label), "L%g/T%g", l, 1.0 / f);
				cf = (Config) {label, l, f};
				if (l * f > 4.0)
					continue;	/* lambda 16 at T/2: the costliest, never best in trials */
			}
			memset(&io, 0, sizeof(io));
			io.rho = rho;
			io.lambda = cf.lambda;
			io.mechanism = MRF_MECH_EXPONENTIAL;
			io.symmetrize = 1;
			io.iterations = ScaledIterations(2.0 * cf.lambda, n, rho / p, cf.tfactor);
			for (int r = 0; r < reps; r++)
			{
				MrfRng		lr;

				MrfRngInitSeeded(&lr, seed + 7777u * (uint64_t) (r + 1) + (uint64_t) c * 131u);
				if (MrfIsingLearn(bits, n, p, &io, &lr, &MrfMallocEnv, Ahat, th) != MRF_OK)
					Die("learning failed");
				printf("ising\t%s\t%d\t%lld\t%g\t%.3f\t%s\t%.4g\t%g\t%d\t%d\t%.5f\n",
					   family, p, (long long) n, rho, width, cf.label, cf.lambda,
					   cf.tfactor, io.iterations, r, IsingError(Ahat, A, p));
				fflush(stdout);
			}
		}
		free(Ahat);
		free(th);
	}
	free(A);
	free(theta);
	free(bits);
}

/* ------------------------------------------------------------- pairwise */

/*
 * A true pairwise k-ary model: chain or random graph (about 1.5 p edges),
 * each block W_ij(a, b) uniform in +-s/k^0 with s chosen so the centred
 * blocks have max entry about 0.5; fields U[-0.1, 0.1]; then centred.
 */
/* Couplings of the pairwise and t-wise families times this (--scale). */
static double KaryScale = 1.0;

/*
 * Structure studies: stop a lambda's block sizes after this many sizes in a
 * row with every block exact (0: never; --study structure-plan sets 2).
 */
static int	KaryStopAfter = 0;

static void
PairwiseFamily(const char *family, int p, int k, MrfRng *rng, double *W, double *theta)
{
	int			edges = strcmp(family, "chain") == 0 ? p - 1 : (3 * p) / 2;
	uint8_t    *adj = XCalloc((size_t) p * p, 1);

	memset(W, 0, sizeof(double) * p * p * k * k);
	for (int e = 0; e < edges; e++)
	{
		int			i,
					j;

		if (strcmp(family, "chain") == 0)
		{
			i = e;
			j = e + 1;
		}
		else
		{
			i = (int) MrfRngBelow(rng, (uint64_t) p);
			j = (int) MrfRngBelow(rng, (uint64_t) p);
			if (i == j || adj[i * p + j])
			{
				e--;
				continue;
			}
		}
		adj[i * p + j] = adj[j * p + i] = 1;
		for (int a = 0; a < k; a++)
			for (int b = 0; b < k; b++)
			{
				double		v = KaryScale * 0.6 * (2.0 * Uniform(rng) - 1.0);

				W[MrfPairwiseAt(p, k, i, j, a, b)] = v;
				W[MrfPairwiseAt(p, k, j, i, b, a)] = v;
			}
	}
	for (int i = 0; i < p * k; i++)
		theta[i] = 0.2 * Uniform(rng) - 0.1;
	if (MrfPairwiseCentre(W, theta, p, k) != MRF_OK)
		Die("centring failed");
	free(adj);
}

/* lambda(W, theta) = max_i sum_j max_ab |W_ij(a, b)| + max_a |theta_i(a)|. */
static double
PairwiseWidth(const double *W, const double *theta, int p, int k)
{
	double		w = 0.0;

	for (int i = 0; i < p; i++)
	{
		double		s = 0.0;

		for (int a = 0; a < k; a++)
			s = fmax(s, fabs(theta[i * k + a]));
		for (int j = 0; j < p; j++)
		{
			double		m = 0.0;

			for (int a = 0; a < k; a++)
				for (int b = 0; b < k; b++)
					m = fmax(m, fabs(W[MrfPairwiseAt(p, k, i, j, a, b)]));
			s += m;
		}
		w = fmax(w, s);
	}
	return w;
}

/* The pairwise sweep: fewer configurations (lambda 2, 4, 8 at T/2 .. T/8). */
static void
PairwiseStudy(const char *family, int p, int k, const int64_t *ns, int nn,
			  double rho, int reps, uint64_t seed)
{
	size_t		wsz = (size_t) p * p * k * k;
	double	   *W = XCalloc(wsz, sizeof(double));
	double	   *theta = XCalloc((size_t) p * k, sizeof(double));
	double	   *What = XCalloc(wsz, sizeof(double));
	double	   *th = XCalloc((size_t) p * k, sizeof(double));
	int64_t		nmax = ns[nn - 1];
	uint8_t    *z = XCalloc((size_t) nmax * p, 1);
	MrfRng		rng;
	double		width;
	static const double lams[] = {2, 4, 8};
	static const double facs[] = {0.5, 0.25, 0.125};

	MrfRngInitSeeded(&rng, seed * 1000003u + (uint64_t) p * 7919u + (uint64_t) k * 17u + strlen(family));
	PairwiseFamily(family, p, k, &rng, W, theta);
	width = PairwiseWidth(W, theta, p, k);
	if (MrfPairwiseSample(W, theta, p, k, nmax, GIBBS_BURN_IN, GIBBS_THIN, &rng,
						  &MrfMallocEnv, z) != MRF_OK)
		Die("pairwise sampling failed");
	for (int c = 0; c < nn; c++)
	{
		int64_t		n = ns[c];

		for (int cfi = 0; cfi < 2 + 9; cfi++)
		{
			MrfPairwiseOptions po;
			char		label[32];
			double		lam,
						f;
			int			t0;

			if (cfi == 0)
			{
				lam = 1.0;
				f = 1.0;
				snprintf(label, sizeof(label), "today");
			}
			else if (cfi == 1)
			{
				lam = width;
				f = 1.0;
				snprintf(label, sizeof(label), "oracle");
			}
			else
			{
				lam = lams[(cfi - 2) / 3];
				f = facs[(cfi - 2) % 3];
				snprintf(label, sizeof(label), "L%g/T%g", lam, 1.0 / f);
			}
			memset(&po, 0, sizeof(po));
			po.rho = rho;
			po.lambda = lam;
			po.mechanism = MRF_MECH_EXPONENTIAL;
			po.symmetrize = 1;
			/* the paper's T (the learner's own default is a fraction of it) */
			t0 = MrfFwDefaultIterations(2.0 * lam * k, n, MrfPairwiseProblemRho(rho, p, k));
			po.iterations = (int) fmax(2.0, ceil(f * t0 - 1e-9));
			for (int r = 0; r < reps; r++)
			{
				MrfRng		lr;
				double		e = 0.0;

				MrfRngInitSeeded(&lr, seed + 7777u * (uint64_t) (r + 1) + (uint64_t) c * 131u);
				if (MrfPairwiseLearn(z, n, p, k, &po, &lr, &MrfMallocEnv, What, th) != MRF_OK)
					Die("pairwise learning failed");
				for (size_t q = 0; q < wsz; q++)
					e = fmax(e, fabs(What[q] - W[q]));
				printf("pairwise\t%s-k%d\t%d\t%lld\t%g\t%.3f\t%s\t%.4g\t%g\t%d\t%d\t%.5f\n",
					   family, k, p, (long long) n, rho, width, label, lam, f,
					   po.iterations, r, e);
				fflush(stdout);
			}
		}
	}
	free(W);
	free(theta);
	free(What);
	free(th);
	free(z);
}

/* ---------------------------------------------------------------- t-wise */

/*
 * A true t-wise model (t = 3): a chain of triples {i, i+1, i+2} with
 * +-0.4, the chain's pairs at +-0.3, fields U[-0.1, 0.1]; family "random":
 * p / 2 triples drawn at random at +-0.4, each with its first pair at
 * +-0.3 (couplings times KaryScale).
 */
static void
TwiseFamilyOf(const char *family, int p, int t, MrfRng *rng, double *coef)
{
	int64_t		cc = MrfTwiseCoefCount(p, t);
	int			vars[3];

	memset(coef, 0, sizeof(double) * cc);
	for (int i = 0; i < p; i++)
		coef[1 + i] = 0.2 * Uniform(rng) - 0.1;
	if (strcmp(family, "random") == 0 && t >= 3)
	{
		for (int e = 0; e < p / 2; e++)
		{
			int			a = (int) MrfRngBelow(rng, (uint64_t) p);
			int			b = (int) MrfRngBelow(rng, (uint64_t) p);
			int			c = (int) MrfRngBelow(rng, (uint64_t) p);
			int			x;

			if (a == b || b == c || a == c)
			{
				e--;
				continue;
			}
			/* sorted */
			if (a > b)
				x = a, a = b, b = x;
			if (b > c)
				x = b, b = c, c = x;
			if (a > b)
				x = a, a = b, b = x;
			vars[0] = a;
			vars[1] = b;
			vars[2] = c;
			if (coef[MrfSubsetIndex(p, vars, 3)] != 0.0)
			{
				e--;
				continue;
			}
			coef[MrfSubsetIndex(p, vars, 3)] = KaryScale * 0.4 * Sign(rng);
			coef[MrfSubsetIndex(p, vars, 2)] = KaryScale * 0.3 * Sign(rng);
		}
		return;
	}
	for (int i = 0; i + 1 < p; i++)
	{
		vars[0] = i;
		vars[1] = i + 1;
		coef[MrfSubsetIndex(p, vars, 2)] = KaryScale * 0.3 * Sign(rng);
	}
	for (int i = 0; i + 2 < p && t >= 3; i += 2)
	{
		vars[0] = i;
		vars[1] = i + 1;
		vars[2] = i + 2;
		coef[MrfSubsetIndex(p, vars, 3)] = KaryScale * 0.4 * Sign(rng);
	}
}

/* The chain of triples (the learner study's family). */
static void
TwiseFamily(int p, int t, MrfRng *rng, double *coef)
{
	TwiseFamilyOf("chain", p, t, rng, coef);
}

/* max_i sum over monomials I containing i of |c_I| (sizes 1..t). */
static double
TwiseWidth(const double *coef, int p, int t)
{
	int			vars[MRF_TWISE_MAX_ORDER];
	int			k = 0;
	int64_t		idx = 0;
	double	   *s = XCalloc((size_t) p, sizeof(double));
	double		w = 0;

	while (MrfSubsetNext(p, t, vars, &k))
	{
		idx++;
		for (int a = 0; a < k; a++)
			s[vars[a]] += fabs(coef[idx]);
	}
	for (int i = 0; i < p; i++)
		w = fmax(w, s[i]);
	free(s);
	return w;
}

/* The t-wise sweep (objective l1), like PairwiseStudy. */
static void
TwiseStudy(int p, int t, const int64_t *ns, int nn, double rho, int reps, uint64_t seed)
{
	int64_t		cc = MrfTwiseCoefCount(p, t);
	double	   *coef = XCalloc((size_t) cc, sizeof(double));
	double	   *chat = XCalloc((size_t) cc, sizeof(double));
	int64_t		nmax = ns[nn - 1];
	int8_t	   *z = XCalloc((size_t) nmax * p, 1);
	uint64_t   *bits;
	MrfRng		rng;
	double		width;
	int64_t		first2 = 1 + p;	/* index of the first pair */
	static const double lams[] = {2, 4, 8};
	static const double facs[] = {0.5, 0.25, 0.125};

	MrfRngInitSeeded(&rng, seed * 1000003u + (uint64_t) p * 7919u + (uint64_t) t);
	TwiseFamily(p, t, &rng, coef);
	width = TwiseWidth(coef, p, t);
	if (MrfTwiseSample(coef, p, t, nmax, GIBBS_BURN_IN, GIBBS_THIN, &rng,
					   &MrfMallocEnv, z) != MRF_OK)
		Die("t-wise sampling failed");
	bits = PackRows(z, nmax, p);
	for (int c = 0; c < nn; c++)
	{
		int64_t		n = ns[c];

		for (int cfi = 0; cfi < 2 + 9; cfi++)
		{
			MrfTwiseOptions to;
			char		label[32];
			double		lam,
						f;
			int			t0;

			if (cfi == 0)
			{
				lam = 1.0;
				f = 1.0;
				snprintf(label, sizeof(label), "today");
			}
			else if (cfi == 1)
			{
				lam = width;
				f = 1.0;
				snprintf(label, sizeof(label), "oracle");
			}
			else
			{
				lam = lams[(cfi - 2) / 3];
				f = facs[(cfi - 2) % 3];
				snprintf(label, sizeof(label), "L%g/T%g", lam, 1.0 / f);
			}
			memset(&to, 0, sizeof(to));
			to.t = t;
			to.rho = rho;
			to.lambda = lam;
			to.mechanism = MRF_MECH_EXPONENTIAL;
			to.objective = MRF_TWISE_L1;
			t0 = MrfFwDefaultIterations(2.0 * lam, n, MrfTwiseNodeRho(rho, p, 0));
			to.iterations = (int) fmax(2.0, ceil(f * t0 - 1e-9));
			for (int r = 0; r < reps; r++)
			{
				MrfRng		lr;
				double		e = 0.0;

				MrfRngInitSeeded(&lr, seed + 7777u * (uint64_t) (r + 1) + (uint64_t) c * 131u);
				if (MrfTwiseLearn(bits, n, p, &to, &lr, &MrfMallocEnv, chat) != MRF_OK)
					Die("t-wise learning failed");
				for (int64_t q = first2; q < cc; q++)
					e = fmax(e, fabs(chat[q] - coef[q]));
				printf("twise\tchain-t%d\t%d\t%lld\t%g\t%.3f\t%s\t%.4g\t%g\t%d\t%d\t%.5f\n",
					   t, p, (long long) n, rho, width, label, lam, f,
					   to.iterations, r, e);
				fflush(stdout);
			}
		}
	}
	free(coef);
	free(chat);
	free(z);
	free(bits);
}

/* ------------------------------------------------------------- structure */

/*
 * The stable mode's block learner on blocks of b rows: for each radius
 * (given as lambda, radius 2 lambda) the fraction of disjoint blocks whose
 * graph is exactly the true one ("exact"), and the most frequent graph that
 * is not the truth ("wrong": how many blocks agree on it).  A wrong graph
 * that most blocks agree on is what the stable mode would release.
 * Prints: structure family p eta lambda b blocks exact_fraction
 * top_wrong_fraction.
 */
static void
StructureStudy(const char *family, int p, double eta, const double *lams, int nl,
			   const int64_t *bs, int nb, int blocks, uint64_t seed)
{
	double	   *A = XCalloc((size_t) p * p, sizeof(double));
	double	   *theta = XCalloc((size_t) p, sizeof(double));
	MrfStructure truth;
	MrfRng		rng;
	int64_t		nmax = 0;
	int8_t	   *z;
	uint64_t   *bits;
	int			words = MrfBitWords(p);

	for (int i = 0; i < nb; i++)
		nmax = bs[i] > nmax ? bs[i] : nmax;
	nmax *= blocks;
	MrfRngInitSeeded(&rng, seed * 1000003u + (uint64_t) p * 7919u + strlen(family) * 13u + (uint64_t) family[0]);
	IsingFamily(family, p, &rng, A, theta);
	z = XCalloc((size_t) nmax * p, 1);
	if (MrfIsingSample(A, theta, p, nmax, GIBBS_BURN_IN, GIBBS_THIN, &rng, &MrfMallocEnv, z) != MRF_OK)
		Die("sampling failed");
	bits = PackRows(z, nmax, p);
	free(z);
	MrfStructureInit(&truth, p);
	if (MrfIsingEdgesFromWeights(A, p, eta, MRF_EDGE_AVERAGE, &MrfMallocEnv, &truth) != MRF_OK)
		Die("truth failed");

	for (int li = 0; li < nl; li++)
		for (int bi = 0; bi < nb; bi++)
		{
			MrfIsingBlockOptions bopt;
			MrfStructure *got = XCalloc((size_t) blocks, sizeof(MrfStructure));
			int			exact = 0;
			int			topWrong = 0;

			memset(&bopt, 0, sizeof(bopt));
			bopt.p = p;
			bopt.eta = eta;
			bopt.lambda = lams[li];
			bopt.rule = MRF_EDGE_AVERAGE;
			for (int m = 0; m < blocks; m++)
			{
				MrfStructureInit(&got[m], p);
				if (MrfIsingBlockLearn(&bopt, bits + (size_t) m * bs[bi] * words, bs[bi],
									   &MrfMallocEnv, &got[m]) != MRF_OK)
					Die("block learning failed");
				if (MrfStructureEqual(&got[m], &truth))
					exact++;
			}
			for (int m = 0; m < blocks; m++)
			{
				int			same = 0;

				if (MrfStructureEqual(&got[m], &truth))
					continue;
				for (int o = 0; o < blocks; o++)
					if (MrfStructureEqual(&got[m], &got[o]))
						same++;
				if (same > topWrong)
					topWrong = same;
			}
			printf("structure\t%s\t%d\t%g\t%.3f\t%g\t%lld\t%d\t%.3f\t%.3f\n",
				   family, p, eta, IsingWidth(A, theta, p), lams[li], (long long) bs[bi],
				   blocks, (double) exact / blocks, (double) topWrong / blocks);
			fflush(stdout);
			for (int m = 0; m < blocks; m++)
				MrfStructureFree(&got[m], &MrfMallocEnv);
			free(got);
		}
	MrfStructureFree(&truth, &MrfMallocEnv);
	free(A);
	free(theta);
	free(bits);
}

/*
 * The pairwise and t-wise block learners the same way, on one family each
 * (pairwise: chain and random graphs of PairwiseFamily; t-wise: the chain of
 * triples of TwiseFamily), eta half the weakest true item's largest entry
 * times 2 (so the cut eta / 2 sits at half of it).  Prints: structure-kary
 * family p eta width lambda b blocks exact top_wrong.
 */
static void
StructureStudyKary(const char *family, int p, int k, int t, const double *lams, int nl,
				   const int64_t *bs, int nb, int blocks, uint64_t seed)
{
	MrfRng		rng;
	int64_t		nmax = 0;
	MrfStructure truth;
	void	   *rows;
	size_t		rowBytes;
	double		width;
	double		eta = 1e9;
	char		name[64];

	for (int i = 0; i < nb; i++)
		nmax = bs[i] > nmax ? bs[i] : nmax;
	nmax *= blocks;
	MrfRngInitSeeded(&rng, seed * 1000003u + (uint64_t) p * 7919u + (uint64_t) k * 17u + (uint64_t) t);
	MrfStructureInit(&truth, p);
	if (t == 0)
	{
		double	   *W = XCalloc((size_t) p * p * k * k, sizeof(double));
		double	   *theta = XCalloc((size_t) p * k, sizeof(double));
		uint8_t    *z = XCalloc((size_t) nmax * p, 1);

		PairwiseFamily(family, p, k, &rng, W, theta);
		width = PairwiseWidth(W, theta, p, k);
		for (int i = 0; i < p; i++)
			for (int j = i + 1; j < p; j++)
			{
				double		m = 0;

				for (int a = 0; a < k; a++)
					for (int b = 0; b < k; b++)
						m = fmax(m, fabs(W[MrfPairwiseAt(p, k, i, j, a, b)]));
				if (m > 1e-12)
					eta = fmin(eta, m);
			}
		for (int i = 0; i < p; i++)
			for (int j = i + 1; j < p; j++)
			{
				double		m = 0;

				for (int a = 0; a < k; a++)
					for (int b = 0; b < k; b++)
						m = fmax(m, fabs(W[MrfPairwiseAt(p, k, i, j, a, b)]));
				if (m >= eta / 2.0)
				{
					int32_t		v[2] = {i, j};

					MrfStructureAdd(&truth, &MrfMallocEnv, 2, v);
				}
			}
		if (MrfPairwiseSample(W, theta, p, k, nmax, GIBBS_BURN_IN, GIBBS_THIN, &rng,
							  &MrfMallocEnv, z) != MRF_OK)
			Die("pairwise sampling failed");
		rows = z;
		rowBytes = (size_t) p;
		snprintf(name, sizeof(name), "pairwise-%s-k%d", family, k);
		free(W);
		free(theta);
	}
	else
	{
		int64_t		cc = MrfTwiseCoefCount(p, t);
		double	   *coef = XCalloc((size_t) cc, sizeof(double));
		int8_t	   *z = XCalloc((size_t) nmax * p, 1);
		uint8_t    *kept = XCalloc((size_t) cc, 1);
		int			vars[MRF_TWISE_MAX_ORDER],
					sub[MRF_TWISE_MAX_ORDER];
		int			size = 0,
					size2;
		int64_t		col = 0,
					col2;

		TwiseFamilyOf(family, p, t, &rng, coef);
		width = TwiseWidth(coef, p, t);
		for (int64_t q = 1 + p; q < cc; q++)
			if (fabs(coef[q]) > 1e-12)
				eta = fmin(eta, fabs(coef[q]));
		while (MrfSubsetNext(p, t, vars, &size))
		{
			col++;
			kept[col] = size >= 2 && fabs(coef[col]) >= eta / 2.0;
		}
		size = 0;
		col = 0;
		while (MrfSubsetNext(p, t, vars, &size))
		{
			int			maximal = 1;

			col++;
			if (!kept[col])
				continue;
			size2 = 0;
			col2 = 0;
			while (maximal && MrfSubsetNext(p, t, sub, &size2))
			{
				int			a = 0;

				col2++;
				if (size2 <= size || !kept[col2])
					continue;
				for (int b = 0; b < size2 && a < size; b++)
					if (sub[b] == vars[a])
						a++;
				if (a == size)
					maximal = 0;
			}
			if (maximal)
			{
				int32_t		item[MRF_TWISE_MAX_ORDER];

				for (int s2 = 0; s2 < size; s2++)
					item[s2] = vars[s2];
				MrfStructureAdd(&truth, &MrfMallocEnv, size, item);
			}
		}
		if (MrfTwiseSample(coef, p, t, nmax, GIBBS_BURN_IN, GIBBS_THIN, &rng,
						   &MrfMallocEnv, z) != MRF_OK)
			Die("t-wise sampling failed");
		rows = PackRows(z, nmax, p);
		rowBytes = sizeof(uint64_t) * (size_t) MrfBitWords(p);
		snprintf(name, sizeof(name), "twise-%s-t%d", family, t);
		free(z);
		free(coef);
		free(kept);
	}
	MrfStructureCanonicalize(&truth, &MrfMallocEnv);

	for (int li = 0; li < nl; li++)
		for (int bi = 0, allExact = 0; bi < nb && (KaryStopAfter == 0 || allExact < KaryStopAfter); bi++)
		{
			MrfPairwiseBlockOptions popt;
			MrfTwiseBlockOptions topt;
			MrfStructure *got = XCalloc((size_t) blocks, sizeof(MrfStructure));
			int			exact = 0;
			int			topWrong = 0;

			memset(&popt, 0, sizeof(popt));
			popt.p = p;
			popt.k = k;
			popt.eta = eta;
			popt.lambda = lams[li];
			memset(&topt, 0, sizeof(topt));
			topt.p = p;
			topt.t = t;
			topt.eta = eta;
			topt.lambda = lams[li];
			for (int m = 0; m < blocks; m++)
			{
				const char *blk = (const char *) rows + (size_t) m * bs[bi] * rowBytes;
				MrfStatus	st;

				MrfStructureInit(&got[m], p);
				st = t == 0 ? MrfPairwiseBlockLearn(&popt, blk, bs[bi], &MrfMallocEnv, &got[m]) :
					MrfTwiseBlockLearn(&topt, blk, bs[bi], &MrfMallocEnv, &got[m]);
				if (st != MRF_OK)
					Die("block learning failed");
				if (MrfStructureEqual(&got[m], &truth))
					exact++;
			}
			for (int m = 0; m < blocks; m++)
			{
				int			same = 0;

				if (MrfStructureEqual(&got[m], &truth))
					continue;
				for (int o = 0; o < blocks; o++)
					if (MrfStructureEqual(&got[m], &got[o]))
						same++;
				if (same > topWrong)
					topWrong = same;
			}
			printf("structure-kary\t%s\t%d\t%.4g\t%.3f\t%g\t%lld\t%d\t%.3f\t%.3f\n",
				   name, p, eta, width, lams[li], (long long) bs[bi],
				   blocks, (double) exact / blocks, (double) topWrong / blocks);
			fflush(stdout);
			allExact = exact == blocks ? allExact + 1 : 0;
			for (int m = 0; m < blocks; m++)
				MrfStructureFree(&got[m], &MrfMallocEnv);
			free(got);
		}
	MrfStructureFree(&truth, &MrfMallocEnv);
	free(rows);
}

/* ------------------------------------------------------------------ main */

int
main(int argc, char **argv)
{
	const char *study = "ising";
	const char *grid = "tiny";
	const char *only = NULL;	/* structure: a comma-separated list of families */
	int			reps = 3;
	uint64_t	seed = 1;
	const char *planModel = "pairwise";	/* structure-plan: pairwise or twise */
	int			planP = 8;
	int			planK = 3;		/* pairwise: k; twise: t */
	double		planLams[8] = {2, 4, 8};
	double		planBmin = 250;
	int			planNl = 3;

	for (int i = 1; i < argc; i++)
	{
		if (i + 1 < argc && strcmp(argv[i], "--study") == 0)
			study = argv[++i];
		else if (i + 1 < argc && strcmp(argv[i], "--grid") == 0)
			grid = argv[++i];
		else if (i + 1 < argc && strcmp(argv[i], "--reps") == 0)
			reps = atoi(argv[++i]);
		else if (i + 1 < argc && strcmp(argv[i], "--families") == 0)
			only = argv[++i];
		else if (i + 1 < argc && strcmp(argv[i], "--seed") == 0)
			seed = strtoull(argv[++i], NULL, 10);
		else if (i + 1 < argc && strcmp(argv[i], "--lambdas") == 0)
		{
			char	   *end;
			const char *q = argv[++i];

			planNl = 0;
			while (*q && planNl < 8)
			{
				planLams[planNl++] = strtod(q, &end);
				q = *end == ',' ? end + 1 : end;
				if (end == q && *q)
					Die("bad --lambdas");
			}
		}
		else if (i + 1 < argc && strcmp(argv[i], "--bmin") == 0)
			planBmin = atof(argv[++i]);
		else if (i + 1 < argc && strcmp(argv[i], "--scale") == 0)
			KaryScale = atof(argv[++i]);
		else if (i + 1 < argc && strcmp(argv[i], "--model") == 0)
			planModel = argv[++i];
		else if (i + 1 < argc && strcmp(argv[i], "--p") == 0)
			planP = atoi(argv[++i]);
		else if (i + 1 < argc && strcmp(argv[i], "--k") == 0)
			planK = atoi(argv[++i]);
		else
		{
			fprintf(stderr, "usage: bench_defaults [--study ising|pairwise|twise|structure|structure-kary] "
					"[--grid tiny|full|large] [--reps 3] [--seed 1] [--families grid,grid3,random,chain]\n"
					"       bench_defaults --study structure-plan --model pairwise|twise --families chain|random "
					"--p 8 --k 3 (t for twise) [--lambdas 2,4,8] [--bmin 250] [--scale 1] [--seed 1]\n");
			return 2;
		}
	}
	openblas_set_num_threads(1);

	if (strcmp(study, "ising") == 0)
	{
		static const char *families[] = {"chain", "grid", "random", "dense"};
		Cell		cells[32];
		int			nc = 0;

		if (strcmp(grid, "tiny") == 0)
		{
			cells[nc++] = (Cell) {10, 2000, 1};
			cells[nc++] = (Cell) {10, 5000, 1};
		}
		else if (strcmp(grid, "large") == 0)
		{
			cells[nc++] = (Cell) {100, 20000, 1};
		}
		else
		{
			static const double rhos[] = {0.1, 1, 4};

			/*
			 * Cells sorted by p (one data set per family and p).  Trimmed to
			 * about 20 minutes of one core: n = 100000 only at p = 10 and
			 * rho = 0.1, n = 20000 at p = 30 only at rho = 1.
			 */
			for (int r = 0; r < 3; r++)
			{
				cells[nc++] = (Cell) {10, 5000, rhos[r]};
				cells[nc++] = (Cell) {10, 20000, rhos[r]};
				if (rhos[r] < 1)
					cells[nc++] = (Cell) {10, 100000, rhos[r]};
			}
			for (int r = 0; r < 3; r++)
			{
				cells[nc++] = (Cell) {30, 5000, rhos[r]};
				if (rhos[r] == 1)
					cells[nc++] = (Cell) {30, 20000, rhos[r]};
			}
		}
		printf("study\tfamily\tp\tn\trho\twidth\tconfig\tlambda\ttfactor\tT\trep\terror\n");
		for (int f = 0; f < 4; f++)
			IsingStudy(families[f], cells, nc, reps, seed);
	}
	else if (strcmp(study, "pairwise") == 0)
	{
		static const int64_t nsTiny[] = {5000};
		static const int64_t nsFull[] = {5000, 20000};
		const int64_t *ns = strcmp(grid, "tiny") == 0 ? nsTiny : nsFull;
		int			nn = strcmp(grid, "tiny") == 0 ? 1 : 2;

		printf("study\tfamily\tp\tn\trho\twidth\tconfig\tlambda\ttfactor\tT\trep\terror\n");
		PairwiseStudy("chain", 8, 3, ns, nn, 1.0, reps, seed);
		PairwiseStudy("random", 8, 3, ns, nn, 1.0, reps, seed);
		PairwiseStudy("chain", 6, 4, ns, nn, 1.0, reps, seed);
		PairwiseStudy("random", 6, 4, ns, nn, 1.0, reps, seed);
	}
	else if (strcmp(study, "twise") == 0)
	{
		static const int64_t nsTiny[] = {5000};
		static const int64_t nsFull[] = {5000, 20000};
		const int64_t *ns = strcmp(grid, "tiny") == 0 ? nsTiny : nsFull;
		int			nn = strcmp(grid, "tiny") == 0 ? 1 : 2;

		printf("study\tfamily\tp\tn\trho\twidth\tconfig\tlambda\ttfactor\tT\trep\terror\n");
		TwiseStudy(10, 3, ns, nn, 1.0, reps, seed);
		TwiseStudy(10, 3, ns, nn, 4.0, reps, seed);
	}
	else if (strcmp(study, "structure") == 0)
	{
		static const double lams[] = {1, 2, 4, 8};
		static const int64_t bsTiny[] = {500, 2000};
		static const int64_t bsFull[] = {250, 500, 1000, 2000, 4000, 8000};
		const int64_t *bs = strcmp(grid, "tiny") == 0 ? bsTiny : bsFull;
		int			nb = strcmp(grid, "tiny") == 0 ? 2 : 6;
		int			blocks = strcmp(grid, "tiny") == 0 ? 10 : 20;

		static const char *families[] = {"grid", "grid3", "random", "chain"};

		printf("study\tfamily\tp\teta\twidth\tlambda\tb\tblocks\texact\ttop_wrong\n");
		for (int f = 0; f < 4; f++)
			if (only == NULL || strstr(only, families[f]) != NULL)
				StructureStudy(families[f], 20, 0.5, lams, 4, bs, nb, blocks, seed);
	}
	else if (strcmp(study, "structure-kary") == 0)
	{
		static const double lams[] = {2, 4};
		static const int64_t bsTiny[] = {500};
		static const int64_t bsFull[] = {500, 1000, 2000, 4000, 8000};
		const int64_t *bs = strcmp(grid, "tiny") == 0 ? bsTiny : bsFull;
		int			nb = strcmp(grid, "tiny") == 0 ? 1 : 5;
		int			blocks = strcmp(grid, "tiny") == 0 ? 5 : 10;

		printf("study\tfamily\tp\teta\twidth\tlambda\tb\tblocks\texact\ttop_wrong\n");
		StructureStudyKary("chain", 8, 3, 0, lams, 2, bs, nb, blocks, seed);
		StructureStudyKary("random", 8, 3, 0, lams, 2, bs, nb, blocks, seed);
		StructureStudyKary("chain", 6, 4, 0, lams, 2, bs, nb, blocks, seed);
		StructureStudyKary("chain", 10, 2, 3, lams, 2, bs, nb, blocks, seed);
	}
	else if (strcmp(study, "structure-plan") == 0)
	{
		/*
		 * The rows-needed plan of pairwise and t-wise structures
		 * (structure_plan.c): one family, finer block sizes (a factor
		 * sqrt 2 from --bmin, 250, to 32,000), 20 blocks, --lambdas (2,4,8); a
		 * lambda's sizes stop at the first size with every block exact.
		 */
		int64_t		bs[15];
		int			nb = 0;

		for (double b = planBmin; b < 33000 && nb < 15; b *= M_SQRT2)
			bs[nb++] = (int64_t) llround(b);
		KaryStopAfter = 1;
		printf("study\tfamily\tp\teta\twidth\tlambda\tb\tblocks\texact\ttop_wrong\n");
		StructureStudyKary(only ? only : "chain", planP,
						   strcmp(planModel, "twise") == 0 ? 2 : planK,
						   strcmp(planModel, "twise") == 0 ? planK : 0,
						   planLams, planNl, bs, nb, 20, seed);
	}
	else
		Die("unknown study");
	return 0;
}
