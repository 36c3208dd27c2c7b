/*
 * bench_core.c - benchmark of the private Ising learner of the numerical
 * core (src/core) against its BLAS floor.
 *
 *   (a) data: n samples of p variables, drawn with MrfIsingSample (Gibbs;
 *       p = 100 is above the enumeration limit) from a chain or a random
 *       sparse Ising model, or i.i.d. uniform bits; or read from a .npy;
 *   (b) the BLAS floor: one cblas_sgemm X^T G of shape (p+1) x n times
 *       n x p, the product every Frank-Wolfe iteration needs, averaged
 *       over several repetitions;
 *   (c) MrfIsingLearn at rho, lambda and the default T: total, per
 *       iteration, the ratio to the floor, the core's own peak allocation
 *       and the process's peak RSS.
 *
 * The data (and the true model) can be written as .npy files so that
 * bench/ising_numpy.py runs on the same samples.  Output lines are
 * "key: value" for bench/run_core_bench.sh to parse.
 *
 * The learner runs with a seeded generator: the figures are about speed, and
 * a seed makes runs repeatable.  OpenBLAS runs on one thread unless
 * --threads says otherwise (one thread per backend is the extension's
 * default, docs/settings.md "Settings").
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
#include "fw.h"
#include "fwkernel.h"
#include "ising.h"
#include "noise.h"
#include "rows.h"
#include "sample.h"

typedef struct BenchOptions
{
	int			p;
	int64_t		n;
	double		rho;
	double		lambda;
	int			iterations;		/* 0: the learner's default */
	const char *model;			/* chain | sparse | iid */
	double		coupling;		/* chain coupling */
	int			burnIn;
	int			thin;
	uint64_t	seed;
	const char *dataIn;			/* read samples from this .npy */
	const char *modelIn;		/* read the true (A; theta) from this .npy */
	const char *dataOut;		/* write samples to this .npy */
	const char *modelOut;		/* write the true (A; theta) to this .npy */
	int			threads;
	int			learnerThreads;
	const char *kernel;			/* NULL: the CPU's choice */
	int			reps;
	int			skipFloor;
	int			skipLearn;
} BenchOptions;

/*
 * An environment that measures the core: allocations carry a 16-byte size
 * header so that live and peak bytes can be counted, and every poll is
 * timestamped so that the steady-state iteration time can be separated from
 * the setup (unpacking, checks) before the first iteration.
 */
typedef struct BenchEnvCtx
{
	BenchMemory mem;		/* first: BenchAlloc counts here */
	int64_t		selections;		/* T - 1 */
	double		firstIterationEnd;	/* time the first iteration's polls ended */
	double		lastPoll;
	int64_t		polls;
} BenchEnvCtx;

/*
 * Timestamps progress.  fw.c reports progress in units of its own choosing
 * (row blocks today) with total = (T - 1) x units per iteration; the first
 * time done reaches one iteration's worth marks the end of iteration 1.
 */
static void
BenchPoll(void *ctx, int64_t done, int64_t total)
{
	BenchEnvCtx *c = ctx;
	double		now = Now();

	c->polls++;
	c->lastPoll = now;
	if (c->firstIterationEnd == 0.0 && c->selections > 0 && total > 0 &&
		total % c->selections == 0 && done >= total / c->selections)
		c->firstIterationEnd = now;
}

/* ---- .npy files (format version 1.0) ---- */

/* ---- data ---- */

/*
 * True model: a chain with A_{i,i+1} = A_{i+1,i} = coupling (width
 * 2 x coupling), or a random sparse graph of about 1.5 edges per node with
 * weights +-U[0.2, 0.4] and small fields, scaled so that its width
 * max_i sum_j |A_ij| + |theta_i| is at most 0.9 lambda (the learner's
 * public width bound must hold for its guarantee).
 */
static void
BuildModel(const BenchOptions *o, MrfRng *rng, double *A, double *theta)
{
	const int	p = o->p;
	double		width = 0.0;
	int			i;
	int			j;

	if (strcmp(o->model, "chain") == 0)
	{
		for (i = 0; i + 1 < p; i++)
			A[(size_t) i * p + i + 1] = A[(size_t) (i + 1) * p + i] = o->coupling;
		return;
	}
	for (i = 0; i < p; i++)
	{
		theta[i] = 0.1 * (2.0 * MrfRngUniform(rng) - 1.0);
		for (j = i + 1; j < p; j++)
			if (MrfRngBelow(rng, (uint64_t) p) < 3)
			{
				double		w = (0.2 + 0.2 * MrfRngUniform(rng)) *
					(MrfRngBelow(rng, 2) ? 1.0 : -1.0);

				A[(size_t) i * p + j] = A[(size_t) j * p + i] = w;
			}
	}
	for (i = 0; i < p; i++)
	{
		double		row = fabs(theta[i]);

		for (j = 0; j < p; j++)
			row += fabs(A[(size_t) i * p + j]);
		if (row > width)
			width = row;
	}
	if (width > 0.9 * o->lambda)
	{
		double		scale = 0.9 * o->lambda / width;

		for (i = 0; i < p * p; i++)
			A[i] *= scale;
		for (i = 0; i < p; i++)
			theta[i] *= scale;
	}
}

/* ---- the BLAS floor ---- */

/*
 * Seconds of one cblas_sgemm C = X^T G with X n x (p+1) and G n x p,
 * column-major, the layout of the core: the mean over reps timed calls
 * (after one warm-up call), and the fastest call in *best.  G holds integers
 * of the size the core uses (|G| <= 2^11), X the data and a column of ones.
 */
static double
TimeFloor(const int8_t *z, int64_t n, int p, int reps, MrfRng *rng, double *best)
{
	int			d = p + 1;
	float	   *x = XCalloc((size_t) n * d, sizeof(float));
	float	   *g = XCalloc((size_t) n * p, sizeof(float));
	float	   *c = XCalloc((size_t) d * p, sizeof(float));
	double		sum = 0.0;
	int64_t		m;
	int			j;
	int			r;

	for (j = 0; j < p; j++)
		for (m = 0; m < n; m++)
		{
			x[(size_t) j * n + m] = (float) z[(size_t) m * p + j];
			g[(size_t) j * n + m] = (float) ((int) MrfRngBelow(rng, 4097) - 2048);
		}
	for (m = 0; m < n; m++)
		x[(size_t) p * n + m] = 1.0f;

	*best = INFINITY;
	for (r = -1; r < reps; r++)
	{
		double		t0 = Now();
		double		t;

		cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, d, p, (int) n,
					1.0f, x, (int) n, g, (int) n, 0.0f, c, d);
		t = Now() - t0;
		if (r < 0)
			continue;			/* warm-up: page faults, thread start */
		sum += t;
		if (t < *best)
			*best = t;
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
			"usage: bench_core [--p 100] [--n 100000] [--rho 1] [--lambda 1]\n"
			"                  [--iterations T] [--model chain|sparse|iid]\n"
			"                  [--coupling 0.4] [--burn-in 200] [--thin 2] [--seed 1]\n"
			"                  [--data in.npy [--true-model model.npy]]\n"
			"                  [--out data.npy] [--out-model model.npy]\n"
			"                  [--threads 1] [--learner-threads 1]\n"
			"                  [--kernel sgemm|avx2|avx512-vnni|amx|onednn]\n"
			"                  [--reps 10] [--skip-floor] [--skip-learn]\n");
	exit(2);
}

/* Fills the options from argv. */
static void
ParseOptions(int argc, char **argv, BenchOptions *o)
{
	int			i;

	o->p = 100;
	o->n = 100000;
	o->rho = 1.0;
	o->lambda = 1.0;
	o->iterations = 0;
	o->model = "chain";
	o->coupling = 0.4;
	o->burnIn = 200;
	o->thin = 2;
	o->seed = 1;
	o->dataIn = o->modelIn = o->dataOut = o->modelOut = NULL;
	o->threads = 1;
	o->learnerThreads = 1;
	o->kernel = NULL;
	o->reps = 10;
	o->skipFloor = o->skipLearn = 0;

	for (i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (strcmp(a, "--p") == 0)
			o->p = (int) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--n") == 0)
			o->n = (int64_t) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--rho") == 0)
			o->rho = NumberArg(argc, argv, &i);
		else if (strcmp(a, "--lambda") == 0)
			o->lambda = NumberArg(argc, argv, &i);
		else if (strcmp(a, "--iterations") == 0)
			o->iterations = (int) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--coupling") == 0)
			o->coupling = NumberArg(argc, argv, &i);
		else if (strcmp(a, "--burn-in") == 0)
			o->burnIn = (int) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--thin") == 0)
			o->thin = (int) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--seed") == 0)
			o->seed = (uint64_t) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--threads") == 0)
			o->threads = (int) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--learner-threads") == 0)
			o->learnerThreads = (int) NumberArg(argc, argv, &i);
		else if (i + 1 < argc && strcmp(a, "--kernel") == 0)
			o->kernel = argv[++i];
		else if (strcmp(a, "--reps") == 0)
			o->reps = (int) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--skip-floor") == 0)
			o->skipFloor = 1;
		else if (strcmp(a, "--skip-learn") == 0)
			o->skipLearn = 1;
		else if (i + 1 < argc && strcmp(a, "--model") == 0)
			o->model = argv[++i];
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
	if (o->p < 2 || o->n < 1 || o->n > INT32_MAX || o->threads < 1 || o->reps < 1)
		Die("need p >= 2, 1 <= n < 2^31, threads >= 1, reps >= 1", NULL);
	if (strcmp(o->model, "chain") != 0 && strcmp(o->model, "sparse") != 0 &&
		strcmp(o->model, "iid") != 0)
		Die("unknown model", o->model);
}

/* Runs the three parts and prints key: value lines. */
int
main(int argc, char **argv)
{
	BenchOptions o;
	MrfRng		rng;
	int8_t	   *z;
	double	   *trueA = NULL;
	double	   *trueTheta = NULL;
	double		floorS = 0.0;
	int64_t		n;
	int			p;
	double		t0;

	ParseOptions(argc, argv, &o);
	openblas_set_num_threads(o.threads);
	MrfRngInitSeeded(&rng, o.seed);

	/* (a) the data */
	t0 = Now();
	if (o.dataIn != NULL)
	{
		int64_t		cols;

		z = NpyRead(o.dataIn, "|i1", 1, &n, &cols);
		if (cols < 2)
			Die("need at least 2 columns", o.dataIn);
		p = (int) cols;
		printf("data: %s\n", o.dataIn);
		if (o.modelIn != NULL)
		{
			int64_t		mrows;
			int64_t		mcols;

			/* rows 0..p-1: A, row p: theta */
			trueA = NpyRead(o.modelIn, "<f8", sizeof(double), &mrows, &mcols);
			if (mrows != p + 1 || mcols != p)
				Die("the true model must be (p+1) x p", o.modelIn);
			trueTheta = trueA + (size_t) p * p;
		}
	}
	else
	{
		n = o.n;
		p = o.p;
		z = XCalloc((size_t) n * p, 1);
		if (strcmp(o.model, "iid") == 0)
		{
			int64_t		k;

			for (k = 0; k < n * p; k++)
				z[k] = (int8_t) (MrfRngBelow(&rng, 2) ? 1 : -1);
			printf("data: i.i.d. uniform bits\n");
		}
		else
		{
			MrfStatus	st;

			trueA = XCalloc((size_t) p * p, sizeof(double));
			trueTheta = XCalloc((size_t) p, sizeof(double));
			BuildModel(&o, &rng, trueA, trueTheta);
			st = MrfIsingSample(trueA, trueTheta, p, n, o.burnIn, o.thin, &rng,
								&MrfMallocEnv, z);
			if (st != MRF_OK)
				Die("MrfIsingSample failed", NULL);
			printf("data: %s model, %s sampling (burn-in %d, thin %d)\n", o.model,
				   p <= MRF_EXACT_MAX_P ? "exact" : "Gibbs", o.burnIn, o.thin);
		}
	}
	printf("p: %d\nn: %lld\n", p, (long long) n);
	printf("data_s: %.3f\n", Now() - t0);
	if (o.dataOut != NULL)
		NpyWrite(o.dataOut, "|i1", n, p, z, 1);
	if (o.modelOut != NULL && trueA != NULL)
	{
		/* rows 0..p-1: A, row p: theta (the layout ising_numpy.py reads) */
		double	   *model = XCalloc((size_t) (p + 1) * p, sizeof(double));

		memcpy(model, trueA, sizeof(double) * p * p);
		memcpy(model + (size_t) p * p, trueTheta, sizeof(double) * p);
		NpyWrite(o.modelOut, "<f8", p + 1, p, model, sizeof(double));
		free(model);
	}
	printf("blas_threads: %d\n", o.threads);
	MrfFwSetThreads(o.learnerThreads);
	printf("learner_threads: %d\n", MrfFwThreads());
	if (o.kernel == NULL)
		printf("kernel: %s\n", MrfFwKernelName(MrfFwAutoKernel()));
	else
	{
		int			k;

		for (k = 1; k < MRF_FW_KERNEL_COUNT; k++)
			if (strcmp(o.kernel, MrfFwKernelName((MrfFwKernel) k)) == 0)
				break;
		if (k == MRF_FW_KERNEL_COUNT || !MrfFwKernelAvailable((MrfFwKernel) k))
			Die("kernel not available", o.kernel);
		MrfFwForceKernel((MrfFwKernel) k);
		printf("kernel: %s\n", MrfFwKernelName((MrfFwKernel) k));
	}

	/* (b) the floor */
	if (!o.skipFloor)
	{
		double		bestS;

		floorS = TimeFloor(z, n, p, o.reps, &rng, &bestS);
		printf("floor_sgemm_ms: %.3f\n", 1000.0 * floorS);
		printf("floor_sgemm_best_ms: %.3f\n", 1000.0 * bestS);
		printf("floor_gflops: %.1f\n",
			   2.0 * (double) (p + 1) * p * (double) n / floorS / 1e9);
	}

	/* (c) the learner */
	if (!o.skipLearn)
	{
		MrfIsingOptions opt;
		BenchEnvCtx ctx;
		MrfEnv		env = {BenchAlloc, BenchRelease, BenchPoll, &ctx, NULL, NULL};
		uint64_t   *bits = PackRows(z, n, p);
		double	   *A = XCalloc((size_t) p * p, sizeof(double));
		double	   *theta = XCalloc((size_t) p, sizeof(double));
		double		rssBefore;
		double		start;
		double		end;
		int			T;
		MrfStatus	st;

		memset(&opt, 0, sizeof(opt));
		opt.rho = o.rho;
		opt.lambda = o.lambda;
		opt.iterations = o.iterations;
		opt.mechanism = MRF_MECH_EXPONENTIAL;
		opt.symmetrize = 1;
		T = MrfIsingIterations(&opt, p, n);
		if (T < 2)
			Die("invalid learner options", NULL);

		memset(&ctx, 0, sizeof(ctx));
		ctx.selections = T - 1;
		rssBefore = PeakRssMiB();
		start = Now();
		st = MrfIsingLearn(bits, n, p, &opt, &rng, &env, A, theta);
		end = Now();
		if (st != MRF_OK)
			Die("MrfIsingLearn failed", NULL);

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
			   (double) MrfIsingWorkspaceBytes(p, n) / (1 << 20));
		printf("core_leaked_bytes: %zu\n", ctx.mem.live);
		printf("core_bytes_per_row_variable: %.3f\n", (double) ctx.mem.peak / ((double) n * p));
		printf("peak_rss_before_learn_mib: %.1f\n", rssBefore);
		printf("peak_rss_mib: %.1f\n", PeakRssMiB());
		if (trueA != NULL)
		{
			double		errA = 0.0;
			double		errTheta = 0.0;
			int			k;

			for (k = 0; k < p * p; k++)
				errA = fmax(errA, fabs(A[k] - trueA[k]));
			for (k = 0; k < p; k++)
				errTheta = fmax(errTheta, fabs(theta[k] - trueTheta[k]));
			printf("max_abs_error_A: %.4f\nmax_abs_error_theta: %.4f\n", errA, errTheta);
		}
		free(bits);
		free(A);
		free(theta);
	}

	free(z);
	if (o.dataIn == NULL)
		free(trueTheta);		/* otherwise it points into trueA */
	free(trueA);
	return 0;
}
