/*
 * bench_twise.c - benchmark of the private binary t-wise learner
 * (Algorithm 4, objective l1) of the numerical core against its BLAS floor.
 *
 *   (a) data: n samples of p variables drawn with MrfTwiseSample (Gibbs
 *       above p = 16) from a random sparse t-wise model, or read from a .npy;
 *   (b) the BLAS floor: one cblas_sgemm X^T G of shape D x n times n x p,
 *       D = MrfTwiseFeatureCount(p, t), the product every Frank-Wolfe
 *       iteration needs, over several repetitions (mean and best);
 *   (c) MrfTwiseLearn: total, per iteration, steady-state iteration, the
 *       ratio to the floor, the core's peak allocation against
 *       MrfTwiseWorkspaceBytes, the process's peak RSS, and the largest
 *       coefficient error against the true model.
 *
 * Data and the true coefficients (1 x MrfTwiseCoefCount(p, t), in the order
 * of twise.h) can be written as .npy files so that bench/twise_numpy.py
 * runs on the same samples.  Output lines are "key: value".  The learner
 * runs with a seeded generator (repeatable timing; not private) and one
 * OpenBLAS thread unless --threads says otherwise, as bench_core does.
 *
 *   make -C bench run-twise      data, floor, C core and NumPy
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <cblas.h>

#include "bench_util.h"
#include "env.h"
#include "noise.h"
#include "rows.h"
#include "sample.h"
#include "twise.h"

typedef struct BenchOptions
{
	int			p;
	int			t;
	int64_t		n;
	double		rho;
	double		lambda;
	int			iterations;		/* 0: the learner's default */
	int			burnIn;
	int			thin;
	uint64_t	seed;
	const char *dataIn;
	const char *modelIn;
	const char *dataOut;
	const char *modelOut;
	int			threads;
	int			reps;
	int			skipFloor;
	int			skipLearn;
} BenchOptions;

/*
 * An environment that measures the core: a 16-byte size header per block
 * for live and peak bytes, and timestamps of the polls, so that the steady
 * iteration time excludes the setup (design, checks) before iteration 1.
 */
typedef struct BenchEnvCtx
{
	BenchMemory mem;		/* first: BenchAlloc counts here */
	int64_t		selections;		/* T - 1 */
	double		firstIterationEnd;
	double		lastPoll;
} BenchEnvCtx;

/*
 * fw.c reports progress with total = (T - 1) x units per iteration; the
 * first time done reaches one iteration's worth marks the end of
 * iteration 1 (the l1 learner polls from fw.c only).
 */
static void
BenchPoll(void *ctx, int64_t done, int64_t total)
{
	BenchEnvCtx *c = ctx;
	double		now = Now();

	c->lastPoll = now;
	if (c->firstIterationEnd == 0.0 && c->selections > 0 && total > 0 &&
		total % c->selections == 0 && done >= total / c->selections)
		c->firstIterationEnd = now;
}

/* ---- .npy files (format version 1.0), as in bench_core.c ---- */

/* ---- data ---- */

/*
 * A random sparse t-wise model (here t <= 3 terms are drawn): a triangle on
 * every third node {i, i+1, i+2} with weight +-U[0.2, 0.4], a chain of pairs
 * {i, i+1} with +-U[0.1, 0.3], fields U[-0.1, 0.1]; scaled so that its width
 * max_i sum_{J containing i} |c_J| is at most 0.9 lambda (the learner's
 * public bound must hold for its guarantee).
 */
static void
BuildModel(const BenchOptions *o, MrfRng *rng, double *coef)
{
	const int	p = o->p;
	double	   *width = XCalloc((size_t) p, sizeof(double));
	double		top = 0.0;
	int64_t		count = MrfTwiseCoefCount(p, o->t);
	int			vars[3];
	int			i;
	int64_t		c;

	for (i = 0; i < p; i++)
	{
		double		sign = MrfRngBelow(rng, 2) ? 1.0 : -1.0;

		vars[0] = i;
		coef[MrfSubsetIndex(p, vars, 1)] = 0.1 * (2.0 * MrfRngUniform(rng) - 1.0);
		if (i + 1 < p)
		{
			vars[1] = i + 1;
			coef[MrfSubsetIndex(p, vars, 2)] = sign * (0.1 + 0.2 * MrfRngUniform(rng));
		}
		if (o->t >= 3 && i % 3 == 0 && i + 2 < p)
		{
			vars[1] = i + 1;
			vars[2] = i + 2;
			coef[MrfSubsetIndex(p, vars, 3)] =
				(MrfRngBelow(rng, 2) ? 1.0 : -1.0) * (0.2 + 0.2 * MrfRngUniform(rng));
		}
	}
	for (c = 1; c < count; c++)
	{
		int			v[MRF_TWISE_MAX_ORDER];
		int			k = MrfSubsetVars(p, c, v);
		int			j;

		for (j = 0; j < k; j++)
			width[v[j]] += fabs(coef[c]);
	}
	for (i = 0; i < p; i++)
		top = width[i] > top ? width[i] : top;
	if (top > 0.9 * o->lambda)
		for (c = 1; c < count; c++)
			coef[c] *= 0.9 * o->lambda / top;
	free(width);
}

/* ---- the BLAS floor ---- */

/*
 * Seconds of one cblas_sgemm C = X^T G, X n x D, G n x p, column-major as
 * in the core: the mean over reps timed calls after a warm-up, the fastest
 * in *best.  X holds the real design (products of the data columns), G
 * integers of the size fw.c uses (|G| <= 2^11).
 */
static double
TimeFloor(const int8_t *z, int64_t n, int p, int t, int reps, MrfRng *rng,
		  double *best)
{
	int64_t		d = MrfTwiseFeatureCount(p, t);
	float	   *x = XCalloc((size_t) n * d, sizeof(float));
	float	   *g = XCalloc((size_t) n * p, sizeof(float));
	float	   *c = XCalloc((size_t) d * p, sizeof(float));
	int			vars[MRF_TWISE_MAX_ORDER];
	int			k = 0;
	int64_t		col = 0;
	double		sum = 0.0;
	int64_t		m;
	int			j;
	int			r;

	for (m = 0; m < n; m++)
		x[m] = 1.0f;
	while (MrfSubsetNext(p, t - 1, vars, &k))
	{
		col++;
		for (m = 0; m < n; m++)
		{
			float		v = 1.0f;

			for (j = 0; j < k; j++)
				v *= (float) z[(size_t) m * p + vars[j]];
			x[(size_t) col * n + m] = v;
		}
	}
	for (m = 0; m < n * p; m++)
		g[m] = (float) ((int) MrfRngBelow(rng, 4097) - 2048);

	*best = INFINITY;
	for (r = -1; r < reps; r++)
	{
		double		t0 = Now();
		double		dt;

		cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int) d, p, (int) n,
					1.0f, x, (int) n, g, (int) n, 0.0f, c, (int) d);
		dt = Now() - t0;
		if (r < 0)
			continue;			/* warm-up: page faults, thread start */
		sum += dt;
		if (dt < *best)
			*best = dt;
	}
	free(x);
	free(g);
	free(c);
	return sum / reps;
}

/* ---- command line ---- */

/* Prints the usage and exits. */
static void
Usage(void)
{
	fprintf(stderr,
			"usage: bench_twise [--p 20] [--t 3] [--n 50000] [--rho 1] [--lambda 1]\n"
			"                   [--iterations T] [--burn-in 200] [--thin 2] [--seed 1]\n"
			"                   [--data in.npy [--true-model coef.npy]]\n"
			"                   [--out data.npy] [--out-model coef.npy]\n"
			"                   [--threads 1] [--reps 10] [--skip-floor] [--skip-learn]\n");
	exit(2);
}

/* Fills the options from argv. */
static void
ParseOptions(int argc, char **argv, BenchOptions *o)
{
	int			i;

	memset(o, 0, sizeof(*o));
	o->p = 20;
	o->t = 3;
	o->n = 50000;
	o->rho = 1.0;
	o->lambda = 1.0;
	o->burnIn = 200;
	o->thin = 2;
	o->seed = 1;
	o->threads = 1;
	o->reps = 10;
	for (i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (strcmp(a, "--p") == 0)
			o->p = (int) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--t") == 0)
			o->t = (int) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--n") == 0)
			o->n = (int64_t) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--rho") == 0)
			o->rho = NumberArg(argc, argv, &i);
		else if (strcmp(a, "--lambda") == 0)
			o->lambda = NumberArg(argc, argv, &i);
		else if (strcmp(a, "--iterations") == 0)
			o->iterations = (int) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--burn-in") == 0)
			o->burnIn = (int) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--thin") == 0)
			o->thin = (int) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--seed") == 0)
			o->seed = (uint64_t) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--threads") == 0)
			o->threads = (int) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--reps") == 0)
			o->reps = (int) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--skip-floor") == 0)
			o->skipFloor = 1;
		else if (strcmp(a, "--skip-learn") == 0)
			o->skipLearn = 1;
		else if (i + 1 < argc && strcmp(a, "--data") == 0)
			o->dataIn = argv[++i];
		else if (i + 1 < argc && strcmp(a, "--true-model") == 0)
			o->modelIn = argv[++i];
		else if (i + 1 < argc && strcmp(a, "--out") == 0)
			o->dataOut = argv[++i];
		else if (i + 1 < argc && strcmp(a, "--out-model") == 0)
			o->modelOut = argv[++i];
		else
			Usage();
	}
	if (o->p < 2 || o->t < 2 || o->t > o->p || o->n < 1 || o->n > INT32_MAX ||
		o->threads < 1 || o->reps < 1)
		Die("need p >= 2, 2 <= t <= p, 1 <= n < 2^31, threads >= 1, reps >= 1", NULL);
}

/* Runs the three parts and prints key: value lines. */
int
main(int argc, char **argv)
{
	BenchOptions o;
	MrfRng		rng;
	int8_t	   *z;
	double	   *truth = NULL;
	int64_t		n;
	int64_t		count;
	double		floorS = 0.0;
	double		t0;
	int			p;

	ParseOptions(argc, argv, &o);
	openblas_set_num_threads(o.threads);
	MrfRngInitSeeded(&rng, o.seed);

	/* (a) the data */
	t0 = Now();
	if (o.dataIn != NULL)
	{
		int64_t		cols;

		z = NpyRead(o.dataIn, "|i1", 1, &n, &cols);
		if (cols < o.t)
			Die("fewer columns than t", o.dataIn);
		p = (int) cols;
		count = MrfTwiseCoefCount(p, o.t);
		printf("data: %s\n", o.dataIn);
		if (o.modelIn != NULL)
		{
			int64_t		mrows;
			int64_t		mcols;

			truth = NpyRead(o.modelIn, "<f8", sizeof(double), &mrows, &mcols);
			if (mrows != 1 || mcols != count)
				Die("the true model must be 1 x MrfTwiseCoefCount(p, t)", o.modelIn);
		}
	}
	else
	{
		n = o.n;
		p = o.p;
		count = MrfTwiseCoefCount(p, o.t);
		z = XCalloc((size_t) n * p, 1);
		truth = XCalloc((size_t) count, sizeof(double));
		BuildModel(&o, &rng, truth);
		if (MrfTwiseSample(truth, p, o.t, n, o.burnIn, o.thin, &rng, &MrfMallocEnv,
						   z) != MRF_OK)
			Die("MrfTwiseSample failed", NULL);
		printf("data: random sparse t-wise model, %s sampling (burn-in %d, thin %d)\n",
			   p <= MRF_EXACT_MAX_P ? "exact" : "Gibbs", o.burnIn, o.thin);
	}
	printf("p: %d\nt: %d\nn: %lld\nfeatures: %lld\n", p, o.t, (long long) n,
		   (long long) MrfTwiseFeatureCount(p, o.t));
	printf("data_s: %.3f\n", Now() - t0);
	if (o.dataOut != NULL)
		NpyWrite(o.dataOut, "|i1", n, p, z, 1);
	if (o.modelOut != NULL && truth != NULL)
		NpyWrite(o.modelOut, "<f8", 1, count, truth, sizeof(double));
	printf("blas_threads: %d\n", o.threads);

	/* (b) the floor */
	if (!o.skipFloor)
	{
		double		bestS;
		double		d = (double) MrfTwiseFeatureCount(p, o.t);

		floorS = TimeFloor(z, n, p, o.t, o.reps, &rng, &bestS);
		printf("floor_sgemm_ms: %.3f\n", 1000.0 * floorS);
		printf("floor_sgemm_best_ms: %.3f\n", 1000.0 * bestS);
		printf("floor_gflops: %.1f\n", 2.0 * d * p * (double) n / floorS / 1e9);
	}

	/* (c) the learner */
	if (!o.skipLearn)
	{
		MrfTwiseOptions opt;
		BenchEnvCtx ctx;
		MrfEnv		env = {BenchAlloc, BenchRelease, BenchPoll, &ctx, NULL, NULL};
		uint64_t   *bits = PackRows(z, n, p);
		double	   *coef = XCalloc((size_t) count, sizeof(double));
		double		rssBefore;
		double		start;
		double		end;
		int			T;
		MrfProblem	problem;

		memset(&opt, 0, sizeof(opt));
		opt.t = o.t;
		opt.rho = o.rho;
		opt.lambda = o.lambda;
		opt.iterations = o.iterations;
		opt.mechanism = MRF_MECH_EXPONENTIAL;
		opt.objective = MRF_TWISE_L1;
		problem = MrfTwiseValidate(&opt, p, n);
		if (problem != NULL)
			Die(problem, NULL);
		T = MrfTwiseIterations(&opt, p, n);

		memset(&ctx, 0, sizeof(ctx));
		ctx.selections = T - 1;
		rssBefore = PeakRssMiB();
		start = Now();
		if (MrfTwiseLearn(bits, n, p, &opt, &rng, &env, coef) != MRF_OK)
			Die("MrfTwiseLearn failed", NULL);
		end = Now();

		printf("iterations: %d\nselections: %d\n", T, T - 1);
		printf("learn_s: %.3f\n", end - start);
		printf("per_iteration_ms: %.3f\n", 1000.0 * (end - start) / (T - 1));
		if (ctx.firstIterationEnd > 0.0 && T > 2)
			printf("steady_iteration_ms: %.3f\n",
				   1000.0 * (ctx.lastPoll - ctx.firstIterationEnd) / (T - 2));
		if (floorS > 0.0)
		{
			printf("floor_total_s: %.3f\n", floorS * (T - 1));
			printf("ratio_to_floor: %.2f\n", (end - start) / (T - 1) / floorS);
		}
		printf("core_peak_alloc_mib: %.1f\n", (double) ctx.mem.peak / (1 << 20));
		printf("core_workspace_estimate_mib: %.1f\n",
			   (double) MrfTwiseWorkspaceBytes(&opt, p, n) / (1 << 20));
		printf("core_leaked_bytes: %zu\n", ctx.mem.live);
		printf("peak_rss_before_learn_mib: %.1f\n", rssBefore);
		printf("peak_rss_mib: %.1f\n", PeakRssMiB());
		if (truth != NULL)
		{
			double		err = 0.0;
			int64_t		c;

			for (c = 1; c < count; c++)
				err = fmax(err, fabs(coef[c] - truth[c]));
			printf("max_abs_error_coef: %.4f\n", err);
		}
		free(bits);
		free(coef);
	}
	free(z);
	free(truth);
	return 0;
}
