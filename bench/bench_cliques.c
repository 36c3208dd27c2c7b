/*
 * bench_cliques.c - the synthetic study of Bernstein et al. 2017, Sec. 4.1,
 * on the clique learner of the core: for each epsilon and n, a fresh model
 * (Dirichlet(1) potentials on a 10-node chain of triples or a connected ER
 * graph), n exact samples, one release, then naive MLE and CGM-EM on the
 * same noisy tables; KL(true || learned) by enumeration and fit times.
 *
 *   bench_cliques [--graph chain|er] [--k K] [--reps R] [--seed S]
 *                 [--eps 0.1,0.3,1,3] [--n 1000,10000,100000]
 *
 * One line per (epsilon, n), "key=value" fields for run_cliques_bench.sh.
 * The generator is seeded: the figures are about accuracy and speed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "cliques.h"
#include "cliques_synth.h"

#define MAX_GRID 16
#define MAX_REPS 100

/* Parses a comma-separated list of numbers; returns the count. */
static int
ParseList(const char *s, double *out, int max)
{
	int			n = 0;
	char	   *end;

	while (*s && n < max)
	{
		out[n++] = strtod(s, &end);
		if (end == s)
			return -1;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* Mean of v. */
static double
Mean(const double *v, int n)
{
	double		s = 0.0;
	int			i;

	for (i = 0; i < n; i++)
		s += v[i];
	return s / n;
}

/* Runs the grid and prints one line per cell. */
int
main(int argc, char **argv)
{
	SynthGraph	graph = SYNTH_CHAIN;
	int			k = 2;
	int			reps = 5;
	uint64_t	seed = 1;
	double		eps[MAX_GRID] = {0.1, 0.3, 1, 3};
	double		ns[MAX_GRID] = {1000, 10000, 100000};
	int			neps = 4;
	int			nns = 3;
	MrfCliquesOptions opt;
	int			emPlain = 0;
	int			emIterations = 0;
	int			i;
	int			e;
	int			j;

	for (i = 1; i + 1 < argc; i += 2)
	{
		if (strcmp(argv[i], "--graph") == 0)
			graph = strcmp(argv[i + 1], "er") == 0 ? SYNTH_ER : SYNTH_CHAIN;
		else if (strcmp(argv[i], "--k") == 0)
			k = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--reps") == 0)
			reps = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--seed") == 0)
			seed = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--eps") == 0)
			neps = ParseList(argv[i + 1], eps, MAX_GRID);
		else if (strcmp(argv[i], "--n") == 0)
			nns = ParseList(argv[i + 1], ns, MAX_GRID);
		else if (strcmp(argv[i], "--em-plain") == 0)
			emPlain = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--em-iterations") == 0)
			emIterations = atoi(argv[i + 1]);
		else
		{
			fprintf(stderr, "bench_cliques: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (k < 2 || k > 3 || reps < 1 || reps > MAX_REPS || neps < 1 || nns < 1)
	{
		fprintf(stderr, "bench_cliques: need k in 2..3 (k^10 <= 2^16 for exact sampling), 1..%d reps and non-empty grids\n", MAX_REPS);
		return 2;
	}
	MrfCliquesDefaultOptions(&opt);
	opt.em_plain = emPlain;
	if (emIterations > 0)
		opt.em_iterations = emIterations;

	for (e = 0; e < neps; e++)
		for (j = 0; j < nns; j++)
		{
			double		kn[MAX_REPS];
			double		kc[MAX_REPS];
			double		kp[MAX_REPS];
			double		tn[MAX_REPS];
			double		tc[MAX_REPS];
			double		ratio[MAX_REPS];
			double		iters[MAX_REPS];
			double		chg[MAX_REPS];
			long		ecap = 0;
			int			conv = 0;
			int			wins = 0;
			int			m = 0;
			MrfRng		rng;
			int			r;

			/* the same models at every grid point, so rows compare */
			MrfRngInitSeeded(&rng, seed);
			for (r = 0; r < reps; r++)
			{
				MrfCliqueSet *set = NULL;
				double	   *truth;
				SynthTrial	t;

				if (SynthCliques(graph, 10, k, &rng, &set) != MRF_OK)
					return 1;
				m += set->m;
				truth = malloc(sizeof(double) * (size_t) set->cells);
				SynthPotentials(set, &rng, truth);
				if (SynthRun(set, truth, (int64_t) ns[j], eps[e], &opt, &rng, &t) != MRF_OK)
				{
					fprintf(stderr, "bench_cliques: trial failed\n");
					return 1;
				}
				kn[r] = t.kl_naive;
				kc[r] = t.kl_cgm;
				kp[r] = t.kl_nonprivate;
				tn[r] = t.sec_naive;
				tc[r] = t.sec_cgm;
				ratio[r] = t.sec_cgm / (t.sec_naive > 1e-7 ? t.sec_naive : 1e-7);
				iters[r] = t.rep_cgm.em_iterations;
				chg[r] = t.rep_cgm.em_change;
				ecap += t.rep_cgm.estep_capped;
				conv += t.rep_cgm.converged;
				wins += t.kl_cgm < t.kl_naive;
				free(truth);
				MrfCliqueSetFree(&MrfMallocEnv, set);
			}
			printf("graph=%s k=%d eps=%g n=%.0f reps=%d cliques=%.1f "
				   "kl_naive_mean=%.4g kl_cgm_mean=%.4g kl_np_mean=%.4g "
				   "kl_naive_median=%.4g kl_cgm_median=%.4g kl_np_median=%.4g "
				   "cgm_wins=%d ms_naive=%.3g ms_cgm=%.3g ratio=%.3g em_iter=%.0f converged=%d em_change=%.3g estep_capped=%ld\n",
				   graph == SYNTH_CHAIN ? "chain" : "er", k, eps[e], ns[j], reps,
				   (double) m / reps, Mean(kn, reps), Mean(kc, reps), Mean(kp, reps),
				   Median(kn, reps), Median(kc, reps), Median(kp, reps), wins,
				   1e3 * Median(tn, reps), 1e3 * Median(tc, reps), Median(ratio, reps),
				   Median(iters, reps), conv, Median(chg, reps), ecap);
			fflush(stdout);
		}
	return 0;
}
