/*
 * bench_structure.c - benchmark of structure learning by the stable mode
 * (src/core/structure.c) on Ising models.
 *
 *   (a) the non-private block learner alone: for a coarse geometric grid of
 *       block sizes b, the fraction q(b) of independent blocks on which it
 *       finds the exact graph, with its time and solver iterations;
 *   (b) from q(b), the probability that a release with the default m
 *       returns the exact graph, P(Bin(m, q) + Z >= tau) (exact noise law;
 *       it ignores wrong graphs that agree often enough to compete, which
 *       the measurement in (c) checks);
 *   (c) end-to-end releases (MrfStructureLearnIsing) at n = m * b90, the
 *       smallest grid size whose predicted success is at least 0.9: the
 *       measured exact-recovery rate and the time of one release;
 *   (d) the planning function's estimate next to the measured rows, and the
 *       constant C that would make the plan hit q = 0.6 exactly (what
 *       ISING_PLAN_CONSTANT in structure.c is calibrated from).
 *
 * Models: a chain with coupling c (width 2c, lambda = 2c, eta = c), or a
 * sqrt(p) x sqrt(p) grid with couplings +-c.  Data: Gibbs sampling
 * (MrfIsingSample, burn-in 1000, thinning 10 sweeps) for p > 16; blocks of
 * (a) are consecutive stretches of one chain, slightly correlated, so q is
 * if anything underestimated.
 *
 * Usage: bench_structure [--p 50] [--model chain|grid] [--coupling 0.5]
 *        [--epsilon 1] [--delta 1e-6] [--blocks-per-size 30] [--releases 5]
 *        [--bmin 100] [--bmax 4000] [--ratio 1.5] [--threads 2] [--seed 1]
 * Output lines are "key: value".  The learner runs with a seeded generator:
 * the figures are about speed and accuracy, and a seed makes runs repeatable.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>

#include "bench_util.h"
#include "env.h"
#include "noise.h"
#include "privacy.h"
#include "rows.h"
#include "sample.h"
#include "structure.h"
#include "structure_ising.h"

typedef struct BenchOptions
{
	int			p;
	const char *model;
	double		coupling;
	double		epsilon;
	double		delta;
	int			blocksPerSize;
	int			releases;
	int64_t		bmin;
	int64_t		bmax;
	double		ratio;
	int			threads;
	uint64_t	seed;
} BenchOptions;

/* Sets A_ij = A_ji = c. */
static void
SetEdge(double *A, int p, int i, int j, double c)
{
	A[(size_t) i * p + j] = c;
	A[(size_t) j * p + i] = c;
}

/*
 * The model's couplings, the true graph, and its public bounds: eta = c,
 * lambda = the largest row sum of |A| (no fields).
 */
static void
BuildModel(const BenchOptions *o, double *A, double *lambda)
{
	int			p = o->p;
	double		c = o->coupling;
	int			i;

	memset(A, 0, sizeof(double) * (size_t) p * p);
	if (strcmp(o->model, "chain") == 0)
	{
		for (i = 0; i + 1 < p; i++)
			SetEdge(A, p, i, i + 1, c);
	}
	else if (strcmp(o->model, "grid") == 0)
	{
		int			side = (int) lround(sqrt((double) p));
		int			r;
		int			q;

		if (side * side != p)
			Die("--model grid needs a square p", NULL);
		for (r = 0; r < side; r++)
			for (q = 0; q < side; q++)
			{
				if (q + 1 < side)
					SetEdge(A, p, r * side + q, r * side + q + 1, c);
				if (r + 1 < side)
					SetEdge(A, p, r * side + q, r * side + q + side, (r + q) % 2 ? c : -c);
			}
	}
	else
		Die("unknown --model", NULL);
	*lambda = 0.0;
	for (i = 0; i < p; i++)
	{
		double		row = 0.0;
		int			j;

		for (j = 0; j < p; j++)
			row += fabs(A[(size_t) i * p + j]);
		*lambda = row > *lambda ? row : *lambda;
	}
}

/* n samples, packed. */
static uint64_t *
DrawPacked(const double *A, const double *theta, int p, int64_t n, MrfRng *rng)
{
	int			words = MrfBitWords(p);
	int8_t	   *z = malloc((size_t) n * p);
	uint64_t   *bits = calloc((size_t) n * words, sizeof(uint64_t));
	int64_t		r;
	int			j;

	if (z == NULL || bits == NULL)
		Die("out of memory", NULL);
	if (MrfIsingSample(A, theta, p, n, 1000, 10, rng, &MrfMallocEnv, z) != MRF_OK)
		Die("sampling failed", NULL);
	for (r = 0; r < n; r++)
		for (j = 0; j < p; j++)
			if (z[(size_t) r * p + j] > 0)
				MrfBitSet(bits + (size_t) r * words, j);
	free(z);
	return bits;
}

/* ln C(m, c) q^c (1-q)^(m-c), the binomial log-probability. */
static double
LogBinomial(int m, int c, double q)
{
	if (q <= 0.0)
		return c == 0 ? 0.0 : -INFINITY;
	if (q >= 1.0)
		return c == m ? 0.0 : -INFINITY;
	return lgamma(m + 1.0) - lgamma(c + 1.0) - lgamma(m - c + 1.0) +
		c * log(q) + (m - c) * log1p(-q);
}

/*
 * P(Bin(m, q) + Z >= tau), Z the stable mode's discrete Laplace:
 * P(Z >= k) = e^(-a k) / (1 + e^-a) for k >= 0 and 1 - P(Z >= 1 - k)
 * for k < 0.
 */
static double
PredictedRelease(int m, double q, double epsilon, double delta)
{
	uint64_t	num;
	uint64_t	den;
	int64_t		tau = MrfStableModeThreshold(epsilon, delta);
	double		a;
	double		total = 0.0;
	int			c;

	MrfStableModeNoise(epsilon, &num, &den);
	a = (double) den / (double) num;
	for (c = 0; c <= m; c++)
	{
		int64_t		k = tau - c;
		double		tail = k >= 0 ? exp(-a * k) / (1.0 + exp(-a)) :
			1.0 - exp(-a * (1 - k)) / (1.0 + exp(-a));

		total += exp(LogBinomial(m, c, q)) * tail;
	}
	return total;
}

/* Parses the command line into o (defaults first). */
static void
ParseArgs(int argc, char **argv, BenchOptions *o)
{
	int			i;

	o->p = 50;
	o->model = "chain";
	o->coupling = 0.5;
	o->epsilon = 1.0;
	o->delta = 1e-6;
	o->blocksPerSize = 30;
	o->releases = 5;
	o->bmin = 100;
	o->bmax = 4000;
	o->ratio = 1.5;
	o->threads = 2;
	o->seed = 1;
	for (i = 1; i + 1 < argc; i += 2)
	{
		const char *k = argv[i];
		const char *v = argv[i + 1];

		if (strcmp(k, "--p") == 0)
			o->p = atoi(v);
		else if (strcmp(k, "--model") == 0)
			o->model = v;
		else if (strcmp(k, "--coupling") == 0)
			o->coupling = atof(v);
		else if (strcmp(k, "--epsilon") == 0)
			o->epsilon = atof(v);
		else if (strcmp(k, "--delta") == 0)
			o->delta = atof(v);
		else if (strcmp(k, "--blocks-per-size") == 0)
			o->blocksPerSize = atoi(v);
		else if (strcmp(k, "--releases") == 0)
			o->releases = atoi(v);
		else if (strcmp(k, "--bmin") == 0)
			o->bmin = atoll(v);
		else if (strcmp(k, "--bmax") == 0)
			o->bmax = atoll(v);
		else if (strcmp(k, "--ratio") == 0)
			o->ratio = atof(v);
		else if (strcmp(k, "--threads") == 0)
			o->threads = atoi(v);
		else if (strcmp(k, "--seed") == 0)
			o->seed = strtoull(v, NULL, 10);
		else
			Die("unknown option", NULL);
	}
	if (i != argc)
		Die("options come in pairs", NULL);
	if (o->p < 2 || o->blocksPerSize < 1 || o->releases < 0 || o->bmin < 1 ||
		o->bmax < o->bmin || !(o->ratio > 1.0) || o->threads < 1)
		Die("invalid options", NULL);
}

/* (a)-(d) of the file comment. */
int
main(int argc, char **argv)
{
	BenchOptions o;
	double	   *A;
	double	   *theta;
	double		lambda;
	double		eta;
	MrfStructure truth;
	MrfIsingBlockOptions bopt;
	MrfLogregStats stats;
	MrfRng		rng;
	int			m;
	int			words;
	int64_t		b;
	int64_t		b60 = -1;
	int64_t		b90 = -1;
	int64_t		plan_block;
	int64_t		plan_rows;

	ParseArgs(argc, argv, &o);
	openblas_set_num_threads(o.threads);
	A = calloc((size_t) o.p * o.p, sizeof(double));
	theta = calloc((size_t) o.p, sizeof(double));
	if (A == NULL || theta == NULL)
		Die("out of memory", NULL);
	BuildModel(&o, A, &lambda);
	eta = fabs(o.coupling);
	words = MrfBitWords(o.p);
	m = MrfStructureDefaultBlocks(o.epsilon, o.delta);
	if (m < 1)
		Die("invalid epsilon or delta", NULL);

	MrfStructureInit(&truth, o.p);
	if (MrfIsingEdgesFromWeights(A, o.p, eta, MRF_EDGE_AVERAGE, &MrfMallocEnv, &truth) != MRF_OK)
		Die("true graph", NULL);
	memset(&bopt, 0, sizeof(bopt));
	bopt.p = o.p;
	bopt.eta = eta;
	bopt.lambda = lambda;
	bopt.rule = MRF_EDGE_AVERAGE;
	bopt.stats = &stats;

	printf("model: %s\np: %d\ncoupling: %g\nedges: %d\nlambda: %g\neta: %g\n",
		   o.model, o.p, o.coupling, truth.nitems, lambda, eta);
	printf("epsilon: %g\ndelta: %g\ntau: %lld\nblocks: %d\nthreads: %d\n",
		   o.epsilon, o.delta, (long long) MrfStableModeThreshold(o.epsilon, o.delta), m,
		   o.threads);
	MrfRngInitSeeded(&rng, o.seed);

	/* (a), (b): the block learner alone on a geometric grid of sizes */
	for (b = o.bmin; b <= o.bmax; b = (int64_t) ceil((double) b * o.ratio))
	{
		uint64_t   *bits = DrawPacked(A, theta, o.p, b * o.blocksPerSize, &rng);
		int			exact = 0;
		int			maxit = 0;
		double		t0 = Now();
		double		q;
		double		pr;
		int			k;

		for (k = 0; k < o.blocksPerSize; k++)
		{
			MrfStructure s;

			MrfStructureInit(&s, o.p);
			if (MrfIsingBlockLearn(&bopt, bits + (size_t) k * b * words, b, &MrfMallocEnv,
								   &s) != MRF_OK)
				Die("block learner failed", NULL);
			exact += MrfStructureEqual(&s, &truth);
			maxit = stats.iterations > maxit ? stats.iterations : maxit;
			MrfStructureFree(&s, &MrfMallocEnv);
		}
		q = (double) exact / o.blocksPerSize;
		pr = PredictedRelease(m, q, o.epsilon, o.delta);
		printf("block: b %lld exact %d/%d seconds_per_block %.4f max_iterations %d "
			   "predicted_release %.3f\n", (long long) b, exact, o.blocksPerSize,
			   (Now() - t0) / o.blocksPerSize, maxit, pr);
		fflush(stdout);
		free(bits);
		if (b60 < 0 && q >= 0.6)
			b60 = b;
		if (b90 < 0 && pr >= 0.9)
			b90 = b;
		if (q >= 0.9 && b60 >= 0 && b90 >= 0)
			break;
	}

	/* (c): releases at m * b90 */
	if (b90 > 0 && o.releases > 0)
	{
		int64_t		n = (int64_t) m * b90;
		uint64_t   *bits;
		MrfStructureOptions sopt;
		int			exact = 0;
		int			none = 0;
		double		seconds = 0.0;
		double		t0 = Now();
		int			r;

		memset(&sopt, 0, sizeof(sopt));
		sopt.epsilon = o.epsilon;
		sopt.delta = o.delta;
		for (r = 0; r < o.releases; r++)
		{
			MrfStructure s;
			int			released = 0;
			double		t1;

			bits = DrawPacked(A, theta, o.p, n, &rng);
			MrfStructureInit(&s, o.p);
			t1 = Now();
			if (MrfStructureLearnIsing(bits, n, o.p, eta, lambda, &sopt, &rng, &MrfMallocEnv,
									   &s, &released) != MRF_OK)
				Die("release failed", NULL);
			seconds += Now() - t1;
			exact += released && MrfStructureEqual(&s, &truth);
			none += !released;
			MrfStructureFree(&s, &MrfMallocEnv);
			free(bits);
		}
		printf("release: n %lld (b90 %lld x m %d) exact %d/%d none %d\n", (long long) n,
			   (long long) b90, m, exact, o.releases, none);
		printf("release_seconds: %.2f\n", seconds / o.releases);
		printf("release_wall_including_sampling: %.1f\n", Now() - t0);
	}
	else if (o.releases > 0)
		printf("release: no grid size reached a predicted 0.9 (raise --bmax)\n");

	/* (d): the planning function */
	plan_block = MrfIsingBlockRowsNeeded(o.p, eta, lambda);
	plan_rows = MrfStructurePlanRowsIsing(o.p, eta, lambda, o.epsilon, o.delta, 0);
	printf("rows_needed_90 (predicted from q): %lld\n", b90 > 0 ? (long long) (b90 * m) : -1LL);
	printf("plan_rows: %lld (block %lld)\n", (long long) plan_rows, (long long) plan_block);
	if (b60 > 0)
		printf("block_rows_q60: %lld\nfitted_constant: %.4g\n", (long long) b60,
			   (double) b60 * pow(eta, 4.0) /
			   (lambda * lambda * exp(12.0 * lambda) * log(2.0 * o.p)));
	MrfStructureFree(&truth, &MrfMallocEnv);
	free(theta);
	free(A);
	return 0;
}
