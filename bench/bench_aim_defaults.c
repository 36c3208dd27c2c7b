/*
 * bench_aim_defaults.c - the study behind AIM's two defaults (issue 12):
 * the estimator steps after each round (MrfAimOptions.round_iterations,
 * AIM_ROUND_ITERATIONS in src/pg/learners/aim.c) and the junction tree's cap
 * (max_model_cells, AIM_MAX_MODEL_CELLS).  Same data, same seeds (so the
 * same noise draws up to where the settings make the runs diverge) for
 * every setting; error is the workload error of mrf_marginal_error: the
 * mean L1 distance between the model's marginal and the table's empirical
 * one over every 2-way and every 3-way marginal.
 *
 * Data: p variables, cardinalities cycling 2, 3, 4; variable v >= 2 takes
 * (z_{v-1} + z_{v-2}) mod card[v] with probability s, else uniform
 * (triangles {v-2, v-1, v}); z_0 uniform, z_1 copies z_0 mod card[1] with
 * probability s.
 *
 *   ./bench_aim_defaults [--p 8] [--n 20000] [--reps 2] [--strength 0.6]
 *       [--caps]   (also max_model_cells 2^14, 2^18 at round_iterations 25)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aim.h"
#include "bench_util.h"
#include "cliques.h"
#include "noise.h"
#include "workload.h"

/* Samples n rows of the triangle chain. */
static void
Sample(int p, const int *card, double s, int64_t n, MrfRng *rng, MrfCode *rows)
{
	for (int64_t r = 0; r < n; r++)
	{
		MrfCode    *z = rows + r * p;

		for (int v = 0; v < p; v++)
		{
			int			u = (int) (MrfRngUniform(rng) * card[v]);

			if (u >= card[v])
				u = card[v] - 1;
			if (v >= 1 && MrfRngUniform(rng) < s)
				u = (z[v - 1] + (v >= 2 ? z[v - 2] : 0)) % card[v];
			z[v] = (MrfCode) u;
		}
	}
}

/* Mean L1 over every pair and every triple, against the rows' counts. */
static double
WorkloadError(const MrfCode *rows, int64_t n, int p, const int *card,
			  const MrfCliqueSet *set, const double *logpot)
{
	double		sum = 0;
	int			count = 0;
	double		marg[64];
	int64_t		counts[64];
	int			vars[3];

	/* c == p stands for the pair {a, b} */
	for (int a = 0; a < p; a++)
		for (int b = a + 1; b < p; b++)
			for (int c = b + 1; c <= p; c++)
			{
				int			size = c == p ? 2 : 3;
				int64_t		cells = 1;

				vars[0] = a;
				vars[1] = b;
				vars[2] = c;
				for (int i = 0; i < size; i++)
					cells *= card[vars[i]];
				memset(counts, 0, sizeof(counts));
				if (MrfSubsetCountAdd(rows, n, p, card, size, vars, counts) != MRF_OK ||
					MrfSubsetMarginal(set, logpot, NULL, size, vars, NULL, &MrfMallocEnv, marg) != MRF_OK)
					Die("marginal failed", NULL);
				sum += MrfMarginalL1(marg, counts, n, cells);
				count++;
			}
	return sum / count;
}

int
main(int argc, char **argv)
{
	int			p = 8;
	int64_t		n = 20000;
	int			reps = 2;
	double		s = 0.6;
	int			caps = 0;
	static const int iters[] = {10, 25, 100, 250};
	static const double rhos[] = {0.1, 1.0, 10.0};
	int			card[64];
	MrfCode    *rows;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--p") == 0)
			p = (int) NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--n") == 0)
			n = (int64_t) NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--reps") == 0)
			reps = (int) NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--strength") == 0)
			s = NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--caps") == 0)
			caps = 1;
		else
			Die("unknown argument", argv[i]);
	}
	if (p < 3 || p > 64)
		Die("--p must be 3..64", NULL);
	for (int v = 0; v < p; v++)
		card[v] = 2 + v % 3;
	rows = XCalloc((size_t) n * p, sizeof(MrfCode));
	{
		MrfRng		rng;

		MrfRngInitSeeded(&rng, 20261126);
		Sample(p, card, s, n, &rng, rows);
	}
	printf("# p %d (k 2,3,4 cycling), n %lld, strength %.2f, %d reps; error: mean L1 over all 2- and 3-way marginals\n",
		   p, (long long) n, s, reps);
	printf("%-6s %-10s %-6s %-10s %-10s %-8s %-8s\n",
		   "rho", "cap", "iters", "error", "sd", "sec", "rounds");
	for (int r = 0; r < 3; r++)
	{
		int			nset = 4 + (caps ? 2 : 0);

		for (int k = 0; k < nset; k++)
		{
			int			it = k < 4 ? iters[k] : 25;
			int64_t		cap = k < 4 ? ((int64_t) 1 << 16) : k == 4 ? ((int64_t) 1 << 14) : ((int64_t) 1 << 18);
			double		esum = 0,
						esq = 0,
						tsum = 0;
			int			rounds = 0;

			for (int rep = 0; rep < reps; rep++)
			{
				MrfAimOptions opt;
				MrfAimReport rp;
				MrfRng		rng;
				MrfCliqueSet *set = NULL;
				double	   *logpot = NULL;
				double		t0,
							e;

				MrfAimDefaultOptions(&opt);
				opt.rho = rhos[r];
				opt.round_iterations = it;
				opt.max_model_cells = cap;
				MrfRngInitSeeded(&rng, 1000 + rep);
				t0 = Now();
				if (MrfAimLearn(rows, n, p, card, &opt, &rng, &MrfMallocEnv, &set, &logpot, &rp) != MRF_OK)
					Die("MrfAimLearn failed", NULL);
				tsum += Now() - t0;
				e = WorkloadError(rows, n, p, card, set, logpot);
				esum += e;
				esq += e * e;
				rounds += rp.rounds;
				MrfCliqueSetFree(&MrfMallocEnv, set);
				MrfFree(&MrfMallocEnv, logpot);
			}
			printf("%-6g 2^%-8d %-6d %-10.4f %-10.4f %-8.2f %-8.1f\n", rhos[r],
				   (int) round(log2((double) cap)), it, esum / reps,
				   sqrt(fmax(0, esq / reps - (esum / reps) * (esum / reps))),
				   tsum / reps, (double) rounds / reps);
			fflush(stdout);
		}
	}
	free(rows);
	return 0;
}
