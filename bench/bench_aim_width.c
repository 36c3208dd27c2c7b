/*
 * bench_aim_width.c - AIM and MST at the width of real tables: time and
 * workload error of both learners on the same rows, in the same process
 * (so the ratio of their times is measured under the same load).
 *
 * Data: p columns with alphabets cycling 2, 3, 4, 5, tree-shaped: column
 * v >= 1 has a parent u < v drawn once (seeded); z_v copies z_u mod
 * card[v] with probability s, else is uniform; z_0 is uniform.  On such
 * data AIM can measure the very pairs MST does.
 *
 * Error: the mean L1 distance between the model's marginal and the rows'
 * empirical one over every 2-way marginal (and, with --three, every 3-way
 * one), as mrf_marginal_error reports it.
 *
 *   ./bench_aim_width [--p 48] [--n 10000] [--rho 1 | --epsilon E --delta D] [--seed 1]
 *       [--strength 0.7] [--rounds 0] [--one-way 0] [--three] [--no-mst] [--no-aim]
 *       [--no-error]  (skip the workload error, printed as nan: the learners' time alone)
 *       [--schedule auto|seeded|paper] [--seed-share 0]  (AIM's budget schedule; 0: the core's)
 *       [--seed-select 0]  (of the seed's share, its selections'; 0: the core's)
 *       [--stop F]  (round_stop_fraction; default the core's)
 *       [--reference]  (score candidates by building each model: the slow reference)
 *       [--data file.npy]  (uint8 rows n x p; alphabets from the data)
 *       [--alphabets k1,k2,..]  (with --data: the columns' public alphabets)
 *       [--cells N]  (AIM's max_model_cells; default the core's)
 *       [--pairs C]  (AIM's workload: every pair of at most C cells, as
 *                     private-pgm's aim.py builds its own; default mrfdp's)
 *       [--gaps]  (cancel latency: the longest wall time between two polls
 *                  of each learner, with the call stacks of both polls;
 *                  addr2line -f -e bench_aim_width ADDR names them)
 *       [--threads 1,2,..]  (AIM once per count, in this order, on the same rows:
 *                            wall and CPU seconds of each, and whether every
 *                            round's scores and the release match the first's)
 *
 * --epsilon E --delta D: rho is the largest whose conversion to
 * (epsilon, delta)-DP is at most E (MrfZcdpForDp, as the SQL learners
 * convert epsilon and delta).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "aim.h"
#include "bench_util.h"
#include "bp.h"
#include "cliques.h"
#include "mst.h"
#include "noise.h"
#include "privacy.h"
#include "workload.h"

/* Samples n rows of the random tree. */
static void
Sample(int p, const int *card, double s, int64_t n, MrfRng *rng, MrfCode *rows)
{
	int		   *parent = XCalloc(p, sizeof(int));

	for (int v = 1; v < p; v++)
	{
		parent[v] = (int) (MrfRngUniform(rng) * v);
		if (parent[v] >= v)
			parent[v] = v - 1;
	}
	for (int64_t r = 0; r < n; r++)
	{
		MrfCode    *z = rows + r * p;

		for (int v = 0; v < p; v++)
		{
			int			u = (int) (MrfRngUniform(rng) * card[v]);

			if (u >= card[v])
				u = card[v] - 1;
			if (v >= 1 && MrfRngUniform(rng) < s)
				u = z[parent[v]] % card[v];
			z[v] = (MrfCode) u;
		}
	}
	free(parent);
}

/*
 * Mean L1 over every pair (and every triple with three): one calibration
 * of the model, then each set's marginal by elimination on the tree.
 */
static void
WorkloadError(const MrfCode *rows, int64_t n, int p, const int *card,
			  const MrfCliqueSet *set, const double *logpot, int three,
			  double *e2, double *e3)
{
	MrfBpOptions bo;
	MrfBp	   *bp = NULL;
	double	   *cm = XCalloc(set->cells + 1, sizeof(double));
	int64_t		largest = 1;
	double	   *marg;
	int64_t    *counts;
	double		sum2 = 0,
				sum3 = 0;
	int64_t		c2 = 0,
				c3 = 0;

	/* the largest table asked for: the three (or two) largest alphabets */
	{
		int			top[3] = {1, 1, 1};

		for (int v = 0; v < p; v++)
			for (int j = 0; j < 3; j++)
				if (card[v] > top[j])
				{
					for (int l = 2; l > j; l--)
						top[l] = top[l - 1];
					top[j] = card[v];
					break;
				}
		largest = (int64_t) top[0] * top[1] * (three ? top[2] : 1);
	}
	marg = XCalloc(largest, sizeof(double));
	counts = XCalloc(largest, sizeof(int64_t));
	memset(&bo, 0, sizeof(bo));
	bo.mode = MRF_INFER_EXACT;
	bo.max_exact_cells = (int64_t) 1 << 26;
	if (MrfBpBuild(set, &bo, &MrfMallocEnv, &bp) != MRF_OK ||
		MrfBpMarginals(bp, logpot, cm, NULL) != MRF_OK)
		Die("inference failed", NULL);
	for (int a = 0; a < p; a++)
		for (int b = a + 1; b < p; b++)
			for (int c = b; c < (three ? p : b + 1); c++)
			{
				/* c == b stands for the pair {a, b} */
				int			vars[3] = {a, b, c};
				int			size = c == b ? 2 : 3;
				int64_t		cells = MrfVarsCells(card, size, vars, INT64_MAX);
				double		l1;

				memset(counts, 0, sizeof(int64_t) * cells);
				int64_t		need = 0;

				if (MrfSubsetCountAdd(rows, n, p, card, size, vars, counts) != MRF_OK)
					Die("counts failed", NULL);
				/*
				 * The elimination over the junction tree can need a table far
				 * larger than the marginal (Adult: 151 million cells for
				 * age x fnlwgt x hours-per-week): allowed up to 2^28 cells.
				 */
				if (MrfBpSetMarginal(bp, size, vars, 0, marg, &need) != MRF_OK &&
					(need <= bo.max_exact_cells || need > ((int64_t) 1 << 28) ||
					 MrfBpSetMarginal(bp, size, vars, need, marg, NULL) != MRF_OK))
					Die("marginal failed", NULL);
				l1 = MrfMarginalL1(marg, counts, n, cells);
				if (size == 2)
				{
					sum2 += l1;
					c2++;
				}
				else
				{
					sum3 += l1;
					c3++;
				}
			}
	*e2 = sum2 / (double) (c2 > 0 ? c2 : 1);
	*e3 = c3 > 0 ? sum3 / (double) c3 : NAN;
	MrfBpFree(bp);
	free(cm);
	free(marg);
	free(counts);
}

/* Progress so far, for the trace (env.poll). */
#define GAP_FRAMES 6

typedef struct Trace
{
	BenchMemory mem;
	double		t0;
	int64_t		last;
	int			verbose;
	int			gaps;			/* --gaps: time every poll */
	double		last_poll;		/* when the last poll returned */
	double		max_gap;
	void	   *prev[GAP_FRAMES];	/* the last poll's stack */
	int			nprev;
	void	   *from[GAP_FRAMES];	/* the stacks of the polls around the longest gap */
	void	   *to[GAP_FRAMES];
	int			nfrom;
	int			nto;
} Trace;

/* Prints the longest gap between two polls and both polls' stacks, then resets. */
static void
GapReport(Trace *t, const char *learner)
{
	if (!t->gaps)
		return;
	fflush(stdout);
	printf("# %s: longest work between two polls %.1f ms; from", learner, 1e3 * t->max_gap);
	for (int i = 1; i < t->nfrom + t->nto; i++)
	{
		void	   *a = i < t->nfrom ? t->from[i] : t->to[i - t->nfrom];
		Dl_info		info;

		if (i == t->nfrom)
			printf(" to");
		else if (dladdr(a, &info) != 0)
			printf(" 0x%lx", (unsigned long) ((char *) a - (char *) info.dli_fbase));
	}
	printf("\n");
	fflush(stdout);
	t->max_gap = 0;
	t->nprev = 0;
	t->last_poll = 0;
}

static void
TracePoll(void *ctx, int64_t done, int64_t total)
{
	Trace	   *t = ctx;

	if (t->gaps)
	{
		double		now = Now();

		if (t->last_poll > 0 && now - t->last_poll > t->max_gap)
		{
			t->max_gap = now - t->last_poll;
			memcpy(t->from, t->prev, sizeof(t->prev));
			t->nfrom = t->nprev;
			t->nto = backtrace(t->to, GAP_FRAMES);
			if (t->max_gap > 0.05)
				GapReport(t, "so far");	/* now: a long run may not end */
		}
		t->nprev = backtrace(t->prev, GAP_FRAMES);
		t->last_poll = Now();
	}

	if (t->verbose && total > 0 && done / 1000 != t->last / 1000)
	{
		fprintf(stderr, "  %lld of %lld units at %.1f s\n", (long long) done,
				(long long) total, Now() - t->t0);
		t->last = done;
	}
}

/* User plus system CPU seconds of the whole process (every thread). */
static double
CpuSeconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double) ru.ru_utime.tv_sec + 1e-6 * (double) ru.ru_utime.tv_usec +
		(double) ru.ru_stime.tv_sec + 1e-6 * (double) ru.ru_stime.tv_usec;
}

int
main(int argc, char **argv)
{
	int			p = 48;
	int64_t		n = 10000;
	double		rho = 1.0;
	double		epsilon = 0.0;
	double		delta = 0.0;
	double		s = 0.7;
	int			seed = 1;
	int			rounds = 0;
	int			three = 0;
	int			error = 1;
	int			run_mst = 1;
	int			run_aim = 1;
	int			verbose = 0;
	double		stop = -1;		/* -1: the core's default */
	double		share = 0;		/* one_way_share; 0: the core's */
	int64_t		cells = 0;		/* max_model_cells; 0: the core's */
	double		seed_share = 0; /* seeded schedule: the seed's share; 0: the core's */
	double		seed_select = 0;	/* of the seed's share, its selections'; 0: the core's */
	int			schedule = MRF_AIM_SCHEDULE_AUTO;
	int			reference = 0;
	const char *data = NULL;
	const char *alphabets = NULL;	/* with --data: "k1,k2,...", else from the data */
	int64_t		pairs_cells = 0;	/* > 0: workload of every pair up to so many cells */
	int		   *card;
	MrfCode    *rows;
	Trace		trace = {0};
	MrfEnv		env;
	double		mst_time = NAN,
				aim_time = NAN;
	int			threads[16] = {0};	/* 0: the core's default (MrfFwThreads(), 1 here) */
	int			nthreads = 1;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--p") == 0)
			p = (int) NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--n") == 0)
			n = (int64_t) NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--rho") == 0)
			rho = NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--epsilon") == 0)
			epsilon = NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--delta") == 0)
			delta = NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--seed") == 0)
			seed = (int) NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--strength") == 0)
			s = NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--rounds") == 0)
			rounds = (int) NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--one-way") == 0)
			share = NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--seed-share") == 0)
			seed_share = NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--seed-select") == 0)
			seed_select = NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--schedule") == 0 && i + 1 < argc)
		{
			i++;
			if (strcmp(argv[i], "seeded") == 0)
				schedule = MRF_AIM_SCHEDULE_SEEDED;
			else if (strcmp(argv[i], "paper") == 0)
				schedule = MRF_AIM_SCHEDULE_PAPER;
			else if (strcmp(argv[i], "auto") == 0)
				schedule = MRF_AIM_SCHEDULE_AUTO;
			else
				Die("--schedule: auto, seeded or paper", argv[i]);
		}
		else if (strcmp(argv[i], "--stop") == 0)
			stop = NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--reference") == 0)
			reference = 1;
		else if (strcmp(argv[i], "--three") == 0)
			three = 1;
		else if (strcmp(argv[i], "--no-mst") == 0)
			run_mst = 0;
		else if (strcmp(argv[i], "--no-error") == 0)
			error = 0;
		else if (strcmp(argv[i], "--no-aim") == 0)
			run_aim = 0;
		else if (strcmp(argv[i], "--verbose") == 0)
			verbose = 1;
		else if (strcmp(argv[i], "--gaps") == 0)
			trace.gaps = 1;
		else if (strcmp(argv[i], "--cells") == 0)
			cells = (int64_t) NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--data") == 0 && i + 1 < argc)
			data = argv[++i];
		else if (strcmp(argv[i], "--alphabets") == 0 && i + 1 < argc)
			alphabets = argv[++i];
		else if (strcmp(argv[i], "--pairs") == 0)
			pairs_cells = (int64_t) NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
		{
			char	   *c = argv[++i];

			for (nthreads = 0; nthreads < 16 && *c;)
			{
				char	   *end;
				long		t = strtol(c, &end, 10);

				if (end == c || t < 1 || t > 64)
					Die("--threads: counts 1..64 separated by commas", argv[i]);
				threads[nthreads++] = (int) t;
				c = end + (*end == ',');
			}
		}
		else
			Die("unknown argument", argv[i]);
	}
	if (epsilon > 0.0 || delta > 0.0)
	{
		rho = MrfZcdpForDp(epsilon, delta);
		if (!(rho > 0.0))
			Die("--epsilon and --delta: no zCDP budget fits", NULL);
	}
	if (data != NULL)
	{
		int64_t		cols;

		uint8_t    *bytes = NpyRead(data, "|u1", 1, &n, &cols);

		p = (int) cols;
		rows = XCalloc((size_t) n * p, sizeof(MrfCode));
		for (int64_t r = 0; r < n * p; r++)
			rows[r] = bytes[r];
		free(bytes);
		card = XCalloc(p, sizeof(int));
		for (int64_t r = 0; r < n * p; r++)
			if (rows[r] + 1 > card[r % p])
				card[r % p] = rows[r] + 1;
		for (int v = 0; v < p; v++)
			if (card[v] < 2)
				card[v] = 2;
		if (alphabets != NULL)
		{
			const char *c = alphabets;

			for (int v = 0; v < p; v++)
			{
				char	   *end;
				long		k = strtol(c, &end, 10);

				if (end == c || k < card[v] || k > 256 || (*end != ',' && v < p - 1))
					Die("--alphabets: one size a column, each at least its largest value + 1", alphabets);
				card[v] = (int) k;
				c = end + (*end == ',');
			}
		}
	}
	else
	{
		MrfRng		rng;

		if (p < 2 || p > 4096)
			Die("--p must be 2..4096", NULL);
		card = XCalloc(p, sizeof(int));
		for (int v = 0; v < p; v++)
			card[v] = 2 + v % 4;
		rows = XCalloc((size_t) n * p, sizeof(MrfCode));
		MrfRngInitSeeded(&rng, 20261128);
		Sample(p, card, s, n, &rng, rows);
	}
	trace.verbose = verbose;
	memset(&env, 0, sizeof(env));
	env.alloc = BenchAlloc;
	env.release = BenchRelease;
	env.poll = TracePoll;
	env.ctx = &trace;

	printf("# p %d, n %lld, rho %g, seed %d%s; error: mean L1 over every 2-way%s marginal; "
		   "schedule signal %.0f (auto: [MMSM22]'s from %.0f)\n",
		   p, (long long) n, rho, seed, data ? " (data file)" : "", three ? " and 3-way" : "",
		   MrfAimScheduleSignal(rho, n, p), MRF_AIM_PAPER_SIGNAL);
	printf("%-5s %-9s %-8s %-9s %-9s %-10s\n", "algo", "seconds", "rounds", "err2", "err3",
		   "tree_cells");
	if (run_mst)
	{
		MrfMstOptions opt;
		MrfMstReport rp;
		MrfRng		rng;
		int		   *edges = XCalloc(2 * (p - 1), sizeof(int));
		double	   *logpot = XCalloc(MrfMstMaxTreeCells(p, card) + 1, sizeof(double));
		int		   *start = XCalloc(p, sizeof(int));
		MrfCliqueSet *set = NULL;
		double		e2,
					e3;

		MrfMstDefaultOptions(&opt);
		opt.rho = rho;
		MrfRngInitSeeded(&rng, seed);
		trace.t0 = Now();
		if (MrfMstLearn(rows, n, p, card, &opt, &rng, &env, edges, logpot, &rp) != MRF_OK)
			Die("MrfMstLearn failed", NULL);
		mst_time = Now() - trace.t0;
		GapReport(&trace, "mst");
		for (int e = 0; e < p; e++)
			start[e] = 2 * e;
		if (MrfCliqueSetBuildAlphabets(p, card, p - 1, start, edges, INT64_MAX,
									   &MrfMallocEnv, &set) != MRF_OK)
			Die("tree set failed", NULL);
		e2 = e3 = NAN;
		if (error)
			WorkloadError(rows, n, p, card, set, logpot, three, &e2, &e3);
		printf("%-5s %-9.3f %-8d %-9.5f %-9.5f %-10lld\n", "mst", mst_time, p - 1, e2, e3,
			   (long long) set->cells);
		fflush(stdout);
		MrfCliqueSetFree(&MrfMallocEnv, set);
		free(edges);
		free(logpot);
		free(start);
	}
	for (int ti = 0; run_aim && ti < nthreads; ti++)
	{
		MrfAimOptions opt;
		MrfAimReport rp;
		MrfRng		rng;
		MrfCliqueSet *set = NULL;
		double	   *logpot = NULL;
		int		   *wstart = NULL;
		int		   *wvar = NULL;
		double		e2,
					e3;
		double		cpu0;
		static uint64_t first_digest;
		static double first_e2;

		MrfAimDefaultOptions(&opt);
		opt.rho = rho;
		opt.rounds = rounds;
		opt.one_way_share = share;
		if (cells > 0)
			opt.max_model_cells = cells;
		opt.seed_share = seed_share;
		opt.seed_select_share = seed_select;
		opt.schedule = schedule;
		if (stop >= 0)
			opt.round_stop_fraction = stop;
		opt.reference_scoring = reference;
		if (pairs_cells > 0)
		{
			wstart = XCalloc((size_t) p * (p - 1) / 2 + 1, sizeof(int));
			wvar = XCalloc((size_t) p * (p - 1), sizeof(int));
			for (int a = 0; a < p; a++)
				for (int b = a + 1; b < p; b++)
					if ((int64_t) card[a] * card[b] <= pairs_cells)
					{
						wvar[2 * opt.nworkload] = a;
						wvar[2 * opt.nworkload + 1] = b;
						opt.nworkload++;
						wstart[opt.nworkload] = 2 * opt.nworkload;
					}
			if (opt.nworkload == 0)
				Die("--pairs: no pair that small", NULL);
			opt.wstart = wstart;
			opt.wvar = wvar;
		}
		opt.threads = threads[ti];
		MrfRngInitSeeded(&rng, seed);
		cpu0 = CpuSeconds();
		trace.t0 = Now();
		if (MrfAimLearn(rows, n, p, card, &opt, &rng, &env, &set, &logpot, &rp) != MRF_OK)
			Die("MrfAimLearn failed", NULL);
		aim_time = Now() - trace.t0;
		cpu0 = CpuSeconds() - cpu0;
		GapReport(&trace, "aim");
		e2 = e3 = NAN;
		if (error)
			WorkloadError(rows, n, p, card, set, logpot, three, &e2, &e3);
		printf("%-5s %-9.3f %-8d %-9.5f %-9.5f %-10lld\n", "aim", aim_time, rp.rounds, e2, e3,
			   (long long) rp.tree_cells);
		printf("# aim: %lld estimator steps, %d annealed, %d candidates, one-way rho %.4g, "
			   "seed %d pairs rho %.4g sigma2 %.4g, sigma2 %.4g .. %.4g, epsilon %.4g .. %.4g, used %.6g\n",
			   (long long) rp.steps, rp.annealed, rp.candidates, rp.rho_one_way, rp.seed_pairs,
			   rp.rho_seed, rp.sigma2_seed, rp.sigma2_first, rp.sigma2_last, rp.epsilon_first,
			   rp.epsilon_last, rp.rho_used);
		if (ti == 0)
		{
			first_digest = rp.score_digest;
			first_e2 = e2;
		}
		printf("# aim threads %d: wall %.3f s, cpu %.3f s, %lld candidates scored again on the "
			   "caller's thread, scores digest %016llx (%s the first run's)\n",
			   opt.threads > 0 ? opt.threads : 1, aim_time, cpu0, (long long) rp.scored_on_host,
			   (unsigned long long) rp.score_digest,
			   rp.score_digest == first_digest && e2 == first_e2 ? "same as" : "DIFFERENT from");
		fflush(stdout);
		MrfCliqueSetFree(&env, set);
		MrfFree(&env, logpot);
		free(wstart);
		free(wvar);
	}
	if (run_mst && run_aim)
		printf("# time ratio aim / mst: %.1f\n", aim_time / mst_time);
	free(rows);
	free(card);
	return 0;
}
