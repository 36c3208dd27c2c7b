/*
 * bench_pairwise.c - benchmark of the private pairwise k-ary learner
 * (Zhang et al. 2020, Algorithm 3) of the numerical core against its BLAS
 * floor.
 *
 *   (a) data: n samples of p variables over k values drawn with
 *       MrfPairwiseSample (Gibbs above k^p = 2^16) from a chain of cyclic
 *       blocks or a random sparse model, or read from a .npy;
 *   (b) the BLAS floor: one cblas_sgemm X^T G of shape d x n times n x q,
 *       d = p k + 1 one-hot columns and the intercept, q = p k (k-1)
 *       regressions: the product every Frank-Wolfe iteration needs.  Also
 *       the same product in the 8192-row blocks fw.c uses (its exactness
 *       argument needs them), to separate blocking from the rest;
 *   (c) MrfPairwiseLearn: total, per iteration (mean and median of the
 *       iterations, from the solver's progress polls), the ratio to the
 *       floor, the core's peak allocation against MrfPairwiseWorkspaceBytes,
 *       the process's peak RSS, and the largest error against the centred
 *       true model.
 *
 * Data (n x p uint8) and the true model (1 x (p^2 k^2 + p k): W in the
 * layout of pairwise.h, then theta, centred) can be written as .npy files so
 * that bench/pairwise_numpy.py runs on the same samples.  Output lines
 * are "key: value".  The learner runs with a seeded generator (repeatable
 * timing; not private) and one OpenBLAS thread unless --threads says
 * otherwise, as bench_core does.
 *
 *   make -C bench run-pairwise      data, floor, C core and NumPy
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
#include "pairwise.h"
#include "sample.h"

/* Rows per sgemm in fw.c (FW_CHUNK there); only the blocked floor uses it. */
#define BENCH_FW_CHUNK 8192

/* Most iterations whose boundaries are timestamped. */
#define BENCH_MAX_MARKS 100000

typedef struct BenchOptions
{
	int			p;
	int			k;
	int64_t		n;
	double		rho;
	double		lambda;
	int			iterations;		/* 0: the learner's default */
	const char *model;			/* chain | sparse */
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
 * An environment that measures the core: allocations carry a 16-byte size
 * header so that live and peak bytes can be counted, and every poll that
 * closes an iteration is timestamped, so that per-iteration times (and
 * their median, robust to the noise of a shared machine) can be separated
 * from the setup before the first iteration.
 */
typedef struct BenchEnvCtx
{
	BenchMemory mem;		/* first: BenchAlloc counts here */
	int64_t		selections;		/* T - 1 */
	double	   *marks;			/* time at which iteration t ended */
	int			nmarks;
	double		start;			/* time the learner was called */
} BenchEnvCtx;

/*
 * fw.c reports progress in row blocks with total = (T - 1) x blocks per
 * iteration; the first poll at each multiple t x blocks (after iteration
 * t's scores, before its selection) is timestamped, so consecutive marks
 * are one whole iteration apart.
 */
static void
BenchPoll(void *ctx, int64_t done, int64_t total)
{
	BenchEnvCtx *c = ctx;
	int64_t		per;

	if (c->selections <= 0 || total <= 0 || total % c->selections != 0)
		return;
	per = total / c->selections;
	if (done % per == 0 && done / per == c->nmarks + 1 &&
		c->nmarks < BENCH_MAX_MARKS)
		c->marks[c->nmarks++] = Now();
}

/* ---- .npy files (format version 1.0) ---- */

/* ---- data ---- */

/*
 * True model, centred (MrfPairwiseCentre): a chain whose blocks are the
 * cyclic pattern +-s on (a, a) and -+s on (a, a+1 mod k), s in U[0.2, 0.5]
 * with a random sign; or a random sparse graph of about 1.5 edges per node
 * with random blocks of entries U[-0.5, 0.5].  Fields U[-0.2, 0.2].  Then
 * scaled so that the width lambda(W, theta) is at most 0.9 lambda (the
 * learner's public bound must hold for its guarantee).
 */
static void
BuildModel(const BenchOptions *o, MrfRng *rng, double *W, double *theta)
{
	const int	p = o->p;
	const int	k = o->k;
	size_t		cells = (size_t) p * p * k * k;
	double		width = 0.0;
	int			i;
	int			j;
	int			a;
	int			b;

	for (i = 0; i < p; i++)
	{
		for (a = 0; a < k; a++)
			theta[(size_t) i * k + a] = 0.2 * (2.0 * MrfRngUniform(rng) - 1.0);
		for (j = i + 1; j < p; j++)
		{
			int			chain = strcmp(o->model, "chain") == 0;
			double		s = (0.2 + 0.3 * MrfRngUniform(rng)) *
				(MrfRngBelow(rng, 2) ? 1.0 : -1.0);

			if (chain ? j != i + 1 : MrfRngBelow(rng, (uint64_t) p) >= 3)
				continue;
			for (a = 0; a < k; a++)
				for (b = 0; b < k; b++)
				{
					double		v;

					if (chain)
						v = b == a ? s : b == (a + 1) % k ? -s : 0.0;
					else
						v = 0.5 * (2.0 * MrfRngUniform(rng) - 1.0);
					W[MrfPairwiseAt(p, k, i, j, a, b)] = v;
					W[MrfPairwiseAt(p, k, j, i, b, a)] = v;
				}
		}
	}
	if (MrfPairwiseCentre(W, theta, p, k) != MRF_OK)
		Die("MrfPairwiseCentre failed", NULL);
	for (i = 0; i < p; i++)
		for (a = 0; a < k; a++)
		{
			double		row = fabs(theta[(size_t) i * k + a]);

			for (j = 0; j < p; j++)
			{
				double		m = 0.0;

				for (b = 0; b < k && j != i; b++)
					m = fmax(m, fabs(W[MrfPairwiseAt(p, k, i, j, a, b)]));
				row += m;
			}
			width = fmax(width, row);
		}
	if (width > 0.9 * o->lambda)
	{
		double		scale = 0.9 * o->lambda / width;
		size_t		c;

		for (c = 0; c < cells; c++)
			W[c] *= scale;
		for (c = 0; c < (size_t) p * k; c++)
			theta[c] *= scale;
	}
	printf("true_width: %.4f\n", fmin(width, 0.9 * o->lambda));
}

/* ---- the BLAS floor ---- */

/*
 * Seconds of cblas_sgemm C = X^T G with X the real one-hot design n x d and
 * G n x q integers of the size fw.c uses (|G| <= 2^11), column-major as in
 * the core; the median and the best of reps timed calls after a warm-up.
 * rows_per_call = n: one call (the floor); BENCH_FW_CHUNK: fw.c's blocks,
 * their float results added into a double accumulator as fw.c does.
 */
static void
TimeFloor(const uint8_t *z, int64_t n, int p, int k, int reps, int rowsPerCall,
		  MrfRng *rng, double *median, double *best)
{
	int			d = p * k + 1;
	int			q = p * k * (k - 1);
	float	   *x = XCalloc((size_t) n * d, sizeof(float));
	float	   *g = XCalloc((size_t) n * q, sizeof(float));
	float	   *c = XCalloc((size_t) d * q, sizeof(float));
	double	   *acc = XCalloc((size_t) d * q, sizeof(double));
	double	   *times = XCalloc((size_t) reps, sizeof(double));
	int64_t		m;
	int			j;
	int			r;

	for (j = 0; j < p; j++)
		for (m = 0; m < n; m++)
			x[((size_t) j * k + z[(size_t) m * p + j]) * n + m] = 1.0f;
	for (m = 0; m < n; m++)
		x[(size_t) p * k * n + m] = 1.0f;
	for (m = 0; m < n * q; m++)
		g[m] = (float) ((int) MrfRngBelow(rng, 4097) - 2048);

	*best = INFINITY;
	for (r = -1; r < reps; r++)
	{
		double		t0 = Now();
		double		dt;
		int64_t		start;

		for (start = 0; start < n; start += rowsPerCall)
		{
			int			rows = (int) (n - start < rowsPerCall ? n - start : rowsPerCall);
			size_t		i;

			cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, d, q, rows,
						1.0f, x + start, (int) n, g + start, (int) n, 0.0f, c, d);
			if (rowsPerCall < n)
				for (i = 0; i < (size_t) d * q; i++)
					acc[i] += (double) c[i];
		}
		dt = Now() - t0;
		if (r < 0)
			continue;			/* warm-up: page faults, thread start */
		times[r] = dt;
		if (dt < *best)
			*best = dt;
	}
	*median = Median(times, reps);
	free(x);
	free(g);
	free(c);
	free(acc);
	free(times);
}

/* ---- command line ---- */

/* Prints the usage and exits. */
static void
Usage(void)
{
	fprintf(stderr,
			"usage: bench_pairwise [--p 30] [--k 4] [--n 50000] [--rho 1] [--lambda 1]\n"
			"                      [--iterations T] [--model chain|sparse]\n"
			"                      [--burn-in 200] [--thin 2] [--seed 1]\n"
			"                      [--data in.npy [--true-model model.npy]]\n"
			"                      [--out data.npy] [--out-model model.npy]\n"
			"                      [--threads 1] [--reps 10] [--skip-floor] [--skip-learn]\n");
	exit(2);
}

/* Fills the options from argv. */
static void
ParseOptions(int argc, char **argv, BenchOptions *o)
{
	int			i;

	o->p = 30;
	o->k = 4;
	o->n = 50000;
	o->rho = 1.0;
	o->lambda = 1.0;
	o->iterations = 0;
	o->model = "chain";
	o->burnIn = 200;
	o->thin = 2;
	o->seed = 1;
	o->dataIn = o->modelIn = o->dataOut = o->modelOut = NULL;
	o->threads = 1;
	o->reps = 10;
	o->skipFloor = o->skipLearn = 0;

	for (i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (strcmp(a, "--p") == 0)
			o->p = (int) NumberArg(argc, argv, &i);
		else if (strcmp(a, "--k") == 0)
			o->k = (int) NumberArg(argc, argv, &i);
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
	if (o->p < 2 || o->k < 2 || o->k > MRF_PAIRWISE_MAX_K || o->n < 1 ||
		o->n > INT32_MAX || o->threads < 1 || o->reps < 1)
		Die("need p >= 2, 2 <= k <= 255, 1 <= n < 2^31, threads >= 1, reps >= 1", NULL);
	if (strcmp(o->model, "chain") != 0 && strcmp(o->model, "sparse") != 0)
		Die("unknown model", o->model);
}

/* Runs the three parts and prints key: value lines. */
int
main(int argc, char **argv)
{
	BenchOptions o;
	MrfRng		rng;
	uint8_t    *z;
	double	   *trueW = NULL;
	double	   *trueTheta = NULL;
	double		floorS = 0.0;
	int64_t		n;
	int			p;
	int			k;
	size_t		cells;
	double		t0;

	ParseOptions(argc, argv, &o);
	openblas_set_num_threads(o.threads);
	MrfRngInitSeeded(&rng, o.seed);
	k = o.k;

	/* (a) the data; k always comes from the command line, never the data */
	t0 = Now();
	if (o.dataIn != NULL)
	{
		int64_t		cols;
		int64_t		m;

		z = NpyRead(o.dataIn, "|u1", 1, &n, &cols);
		if (cols < 2)
			Die("need at least 2 columns", o.dataIn);
		p = (int) cols;
		for (m = 0; m < n * p; m++)
			if (z[m] >= k)
				Die("a value is outside 0..k-1", o.dataIn);
		printf("data: %s\n", o.dataIn);
		cells = (size_t) p * p * k * k;
		if (o.modelIn != NULL)
		{
			int64_t		mrows;
			int64_t		mcols;

			trueW = NpyRead(o.modelIn, "<f8", sizeof(double), &mrows, &mcols);
			if (mrows != 1 || mcols != (int64_t) (cells + (size_t) p * k))
				Die("the true model must be 1 x (p^2 k^2 + p k)", o.modelIn);
			trueTheta = trueW + cells;
		}
	}
	else
	{
		MrfStatus	st;

		n = o.n;
		p = o.p;
		cells = (size_t) p * p * k * k;
		z = XCalloc((size_t) n * p, 1);
		trueW = XCalloc(cells + (size_t) p * k, sizeof(double));
		trueTheta = trueW + cells;
		BuildModel(&o, &rng, trueW, trueTheta);
		st = MrfPairwiseSample(trueW, trueTheta, p, k, n, o.burnIn, o.thin, &rng,
							   &MrfMallocEnv, z);
		if (st != MRF_OK)
			Die("MrfPairwiseSample failed", NULL);
		printf("data: %s model, burn-in %d, thin %d\n", o.model, o.burnIn, o.thin);
	}
	printf("p: %d\nk: %d\nn: %lld\n", p, k, (long long) n);
	printf("d: %d\nq: %d\n", p * k + 1, p * k * (k - 1));
	printf("data_s: %.3f\n", Now() - t0);
	if (o.dataOut != NULL)
		NpyWrite(o.dataOut, "|u1", n, p, z, 1);
	if (o.modelOut != NULL && trueW != NULL)
		NpyWrite(o.modelOut, "<f8", 1, (int64_t) (cells + (size_t) p * k), trueW,
				 sizeof(double));
	printf("blas_threads: %d\n", o.threads);

	/* (b) the floor, in one call and in fw.c's blocks */
	if (!o.skipFloor)
	{
		double		med;
		double		best;
		double		gflop = 2.0 * (p * k + 1) * (double) (p * k * (k - 1)) * n / 1e9;

		TimeFloor(z, n, p, k, o.reps, (int) n, &rng, &med, &best);
		floorS = med;
		printf("floor_sgemm_ms: %.3f\n", 1000.0 * med);
		printf("floor_sgemm_best_ms: %.3f\n", 1000.0 * best);
		printf("floor_gflops: %.1f\n", gflop / med);
		TimeFloor(z, n, p, k, o.reps, BENCH_FW_CHUNK, &rng, &med, &best);
		printf("floor_blocked_sgemm_ms: %.3f\n", 1000.0 * med);
		printf("floor_blocked_sgemm_best_ms: %.3f\n", 1000.0 * best);
	}

	/* (c) the learner */
	if (!o.skipLearn)
	{
		MrfPairwiseOptions opt;
		BenchEnvCtx ctx;
		MrfEnv		env = {BenchAlloc, BenchRelease, BenchPoll, &ctx, NULL, NULL};
		double	   *W = XCalloc(cells, sizeof(double));
		double	   *theta = XCalloc((size_t) p * k, sizeof(double));
		double	   *steps;
		double		rssBefore;
		double		end;
		int			T;
		int			s;
		MrfStatus	st;

		memset(&opt, 0, sizeof(opt));
		opt.rho = o.rho;
		opt.lambda = o.lambda;
		opt.iterations = o.iterations;
		opt.mechanism = MRF_MECH_EXPONENTIAL;
		opt.symmetrize = 1;
		T = MrfPairwiseIterations(&opt, p, k, n);
		if (T < 2)
			Die("invalid learner options", NULL);
		if (o.iterations == 0)
			printf("default_iterations: %d\n", T);

		memset(&ctx, 0, sizeof(ctx));
		ctx.selections = T - 1;
		ctx.marks = XCalloc(BENCH_MAX_MARKS, sizeof(double));
		rssBefore = PeakRssMiB();
		ctx.start = Now();
		st = MrfPairwiseLearn(z, n, p, k, &opt, &rng, &env, W, theta);
		end = Now();
		if (st != MRF_OK)
			Die("MrfPairwiseLearn failed", NULL);

		printf("iterations: %d\nselections: %d\n", T, T - 1);
		printf("learn_s: %.3f\n", end - ctx.start);
		printf("per_iteration_ms: %.3f\n", 1000.0 * (end - ctx.start) / (T - 1));
		if (ctx.nmarks >= 2)
		{
			steps = XCalloc((size_t) ctx.nmarks, sizeof(double));
			for (s = 1; s < ctx.nmarks; s++)
				steps[s - 1] = ctx.marks[s] - ctx.marks[s - 1];
			printf("steady_iteration_ms: %.3f\n",
				   1000.0 * (ctx.marks[ctx.nmarks - 1] - ctx.marks[0]) / (ctx.nmarks - 1));
			printf("median_iteration_ms: %.3f\n", 1000.0 * Median(steps, ctx.nmarks - 1));
			/* setup (X, labels, mask) plus the first pass's scores */
			printf("first_scores_s: %.3f\n", ctx.marks[0] - ctx.start);
			free(steps);
		}
		if (floorS > 0.0)
		{
			printf("floor_total_s: %.3f\n", floorS * (T - 1));
			printf("ratio_to_floor: %.2f\n", (end - ctx.start) / (T - 1) / floorS);
		}
		printf("core_peak_alloc_mib: %.1f\n", (double) ctx.mem.peak / (1 << 20));
		printf("core_workspace_estimate_mib: %.1f\n",
			   (double) MrfPairwiseWorkspaceBytes(p, k, n) / (1 << 20));
		printf("core_leaked_bytes: %zu\n", ctx.mem.live);
		printf("peak_rss_before_learn_mib: %.1f\n", rssBefore);
		printf("peak_rss_mib: %.1f\n", PeakRssMiB());
		if (trueW != NULL)
		{
			double		errW = 0.0;
			double		errTheta = 0.0;
			size_t		c;

			for (c = 0; c < cells; c++)
				errW = fmax(errW, fabs(W[c] - trueW[c]));
			for (c = 0; c < (size_t) p * k; c++)
				errTheta = fmax(errTheta, fabs(theta[c] - trueTheta[c]));
			printf("max_abs_error_W: %.4f\nmax_abs_error_theta: %.4f\n", errW, errTheta);
		}
		free(ctx.marks);
		free(W);
		free(theta);
	}

	free(z);
	free(trueW);				/* trueTheta points into it */
	return 0;
}
