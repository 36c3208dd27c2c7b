/*
 * bench_mst_estimators.c - MST's estimation step (issue 12 item 1): from the
 * same private measurements (one-way and two-way discrete Gaussian tables,
 * the same exponential-mechanism tree), Private-PGM's mirror descent
 * (MrfEstimate, all measurements, Gaussian likelihood) against the
 * project's clique fits on the tree's noisy two-way tables (MrfCliquesFit:
 * CGM-EM, whose E-step assumes Laplace noise, here of the same variance, and
 * naive MLE).  Error: KL(truth || model) by enumeration and the largest
 * error of a pair marginal of the tree; time of each fit.
 *
 * Data: a tree over p variables with k values each (variable v copies its
 * parent's value with probability s, else uniform; the parent of v is a
 * random earlier variable), n rows sampled from it.  Everything private runs
 * once per repetition; the three estimators read the same noisy tables.
 *
 *   ./bench_mst_estimators [--p 8] [--k 3] [--reps 5] [--strength 0.5]
 *       [--iterations 1000]      (n in 1e3, 1e4, 1e5; rho in 0.01, 0.1, 1)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "cliques.h"
#include "mst.h"
#include "noise.h"
#include "privacy.h"

/* The true model's log-potentials over the tree's cliques (parent, child). */
static void
TrueModel(int p, int k, const int *par, double s, const MrfCliqueSet *set, double *logpot)
{
	for (int c = 0; c < set->m; c++)
	{
		int			i = set->var[set->start[c]];
		int			j = set->var[set->start[c] + 1];
		int			child = par[j] == i ? j : i;
		int			parent = child == j ? i : j;
		double	   *t = logpot + set->offset[c];

		for (int a = 0; a < k; a++)
			for (int b = 0; b < k; b++)
			{
				int			va = i == parent ? a : b;	/* parent's value */
				int			vb = i == parent ? b : a;	/* child's value */
				double		pr = (1.0 - s) / k + (vb == va ? s : 0.0);

				t[a * k + b] = log(pr);
				/* the root's uniform marginal is a constant: nothing to add */
			}
		(void) child;
	}
	(void) p;
}

/* Largest |marginal difference| over the cells of every clique. */
static double
MaxMarginalError(const MrfCliqueSet *set, const double *a, const double *b)
{
	double		worst = 0.0;

	for (int64_t c = 0; c < set->cells; c++)
		worst = fmax(worst, fabs(a[c] - b[c]));
	return worst;
}

/* The truth's marginals over est's cliques, by enumerating all k^p states. */
static void
TruthOver(const MrfCliqueSet *truth, const double *logpot, const MrfCliqueSet *est,
		  double *marg)
{
	int			p = truth->p;
	MrfCode    *z = XCalloc(p, sizeof(MrfCode));
	double		total = 0.0;
	int64_t		states = 1;

	for (int i = 0; i < p; i++)
		states *= truth->card[i];
	memset(marg, 0, sizeof(double) * est->cells);
	for (int64_t x = 0; x < states; x++)
	{
		double		w = exp(MrfCliquesScore(truth, logpot, z));

		total += w;
		for (int c = 0; c < est->m; c++)
			marg[est->offset[c] + MrfCliqueIndex(est, c, z)] += w;
		for (int i = p - 1; i >= 0; i--)
		{
			if (++z[i] < truth->card[i])
				break;
			z[i] = 0;
		}
	}
	for (int64_t c = 0; c < est->cells; c++)
		marg[c] /= total;
	free(z);
}

/* Runs the comparison grid and prints one table row per (n, rho). */
int
main(int argc, char **argv)
{
	int			p = 8;
	int			k = 3;
	int			reps = 5;
	double		s = 0.5;
	int			iterations = 1000;
	const int64_t ns[] = {1000, 10000, 100000};
	const double rhos[] = {0.01, 0.1, 1.0};
	MrfRng		rng;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--p") == 0)
			p = (int) NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--k") == 0)
			k = (int) NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--reps") == 0)
			reps = (int) NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--strength") == 0)
			s = NumberArg(argc, argv, &i);
		else if (strcmp(argv[i], "--iterations") == 0)
			iterations = (int) NumberArg(argc, argv, &i);
		else
			Die("unknown option", argv[i]);
	}
	MrfRngInitSeeded(&rng, 2021);
	printf("| n | rho | KL mirror descent | KL CGM-EM | KL naive | max marginal error MD / CGM / naive | ms MD / CGM / naive |\n");
	printf("|---|---|---:|---:|---:|---|---|\n");
	for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ni++)
		for (size_t ri = 0; ri < sizeof(rhos) / sizeof(rhos[0]); ri++)
		{
			int64_t		n = ns[ni];
			double		rho = rhos[ri];
			double		kl[3] = {0, 0, 0};
			double		me[3] = {0, 0, 0};
			double		ms[3] = {0, 0, 0};

			for (int rep = 0; rep < reps; rep++)
			{
				int		   *card = XCalloc(p, sizeof(int));
				int		   *par = XCalloc(p, sizeof(int));
				MrfCode    *rows = XCalloc((size_t) n * p, sizeof(MrfCode));
				int64_t		npairs = (int64_t) p * (p - 1) / 2;
				int64_t    *pairoff = XCalloc(npairs + 1, sizeof(int64_t));
				int64_t    *one;
				int64_t    *two;
				double	   *y1;
				double	   *prob;
				const double **probs = XCalloc(p, sizeof(double *));
				int		   *edges = XCalloc(2 * p, sizeof(int));
				int		   *start = XCalloc(p + 1, sizeof(int));
				int		   *tvar = XCalloc(2 * p, sizeof(int));
				MrfCliqueSet *est_set;
				MrfCliqueSet *true_set;
				double	   *true_logpot;
				double	   *true_marg;
				int64_t    *ctree;
				double	   *y2;
				int64_t    *noisy2;
				MrfMeasurement *meas = XCalloc(2 * p, sizeof(MrfMeasurement));
				double		r1,
							r2,
							r3;
				uint64_t	num1,
							den1,
							num2,
							den2;
				double		scale;

				for (int v = 0; v < p; v++)
				{
					card[v] = k;
					par[v] = v == 0 ? -1 : (int) MrfRngBelow(&rng, v);
				}
				for (int64_t r = 0; r < n; r++)
					for (int v = 0; v < p; v++)
						rows[r * p + v] = (MrfCode) (par[v] < 0 || MrfRngUniform(&rng) >= s ?
													 MrfRngBelow(&rng, k) : rows[r * p + par[v]]);
				/* the private steps, once: one-ways, tree, two-ways */
				MrfMstSplit(rho, &r1, &r2, &r3);
				MrfMstGaussianVariance(p, r1, &num1, &den1);
				MrfMstGaussianVariance(p - 1, r3, &num2, &den2);
				scale = MrfMstSelectionScale(r2, p - 1);
				MrfMstTwoWayCells(p, card, pairoff);
				one = XCalloc(MrfMstOneWayCells(p, card), sizeof(int64_t));
				two = XCalloc(pairoff[npairs] + 1, sizeof(int64_t));
				y1 = XCalloc(MrfMstOneWayCells(p, card), sizeof(double));
				prob = XCalloc(MrfMstOneWayCells(p, card), sizeof(double));
				if (MrfMstCount(rows, n, p, card, &MrfMallocEnv, one, two) != MRF_OK ||
					MrfMeasureGaussian(one, MrfMstOneWayCells(p, card), num1, den1, &rng, y1) != MRF_OK)
					Die("counting or measuring failed", NULL);
				for (int v = 0; v < p; v++)
				{
					MrfProjectOneWay(y1 + v * k, NULL, k, n, prob + v * k);
					probs[v] = prob + v * k;
				}
				if (MrfMstSelectTree(p, card, pairoff, two, probs, n, scale, &rng, &MrfMallocEnv,
									 edges) != MRF_OK)
					Die("selection failed", NULL);
				for (int e = 0; e <= p - 1; e++)
					start[e] = 2 * e;
				if (MrfCliqueSetBuildAlphabets(p, card, p - 1, start, edges, 0, &MrfMallocEnv,
											   &est_set) != MRF_OK)
					Die("clique set failed", NULL);
				ctree = XCalloc(est_set->cells + 1, sizeof(int64_t));
				y2 = XCalloc(est_set->cells + 1, sizeof(double));
				noisy2 = XCalloc(est_set->cells + 1, sizeof(int64_t));
				for (int e = 0; e < p - 1; e++)
					memcpy(ctree + est_set->offset[e],
						   two + pairoff[MrfMstPairIndex(p, edges[2 * e], edges[2 * e + 1])],
						   sizeof(int64_t) * k * k);
				if (MrfMeasureGaussian(ctree, est_set->cells, num2, den2, &rng, y2) != MRF_OK)
					Die("measuring failed", NULL);
				for (int64_t c = 0; c < est_set->cells; c++)
					noisy2[c] = (int64_t) y2[c];

				/* the truth, over its own tree */
				for (int v = 1; v < p; v++)
				{
					tvar[2 * (v - 1)] = par[v] < v ? par[v] : v;
					tvar[2 * (v - 1) + 1] = par[v] < v ? v : par[v];
				}
				if (MrfCliqueSetBuildAlphabets(p, card, p - 1, start, tvar, 0, &MrfMallocEnv,
											   &true_set) != MRF_OK)
					Die("true clique set failed", NULL);
				true_logpot = XCalloc(true_set->cells, sizeof(double));
				TrueModel(p, k, par, s, true_set, true_logpot);
				true_marg = XCalloc(est_set->cells, sizeof(double));

				for (int m = 0; m < 3; m++)
				{
					double	   *logpot = XCalloc(est_set->cells + 1, sizeof(double));
					double	   *marg = XCalloc(est_set->cells + 1, sizeof(double));
					double		t0 = Now();
					double		d;
					int			status;

					if (m == 0)
					{
						MrfEstimateOptions eo;
						MrfEstimateReport er;
						int			nm = 0;

						for (int v = 0; v < p; v++)
						{
							MrfMeasurement *x = &meas[nm++];

							x->clique = -1;
							for (int e = 0; e < p - 1 && x->clique < 0; e++)
								if (edges[2 * e] == v || edges[2 * e + 1] == v)
									x->clique = e;
							x->size = 1;
							x->vars[0] = v;
							x->y = y1 + v * k;
							x->precision = NULL;
							x->sigma2 = (double) num1 / den1;
						}
						for (int e = 0; e < p - 1; e++)
						{
							MrfMeasurement *x = &meas[nm++];

							x->clique = e;
							x->size = 2;
							x->vars[0] = edges[2 * e];
							x->vars[1] = edges[2 * e + 1];
							x->y = y2 + est_set->offset[e];
							x->precision = NULL;
							x->sigma2 = (double) num2 / den2;
						}
						MrfEstimateDefaultOptions(&eo);
						eo.iterations = iterations;
						status = MrfEstimate(est_set, card, meas, nm, n, &eo, &MrfMallocEnv, logpot, &er);
					}
					else
					{
						MrfCliquesOptions co;
						MrfCliquesReport cr;
						double		b = sqrt((double) num2 / den2 / 2.0);	/* Laplace of that variance */

						MrfCliquesDefaultOptions(&co);
						co.method = m == 1 ? MRF_CLIQUES_CGM : MRF_CLIQUES_NAIVE;
						co.epsilon = MrfCliquesSensitivity(p - 1) / b;
						status = MrfCliquesFit(noisy2, n, est_set, &co, &MrfMallocEnv, logpot, &cr);
					}
					ms[m] += (Now() - t0) * 1000.0;
					if (status != MRF_OK)
						Die("a fit failed", NULL);
					if (MrfCliquesKl(true_set, true_logpot, est_set, logpot, &MrfMallocEnv, &d) != MRF_OK)
						Die("KL failed", NULL);
					kl[m] += d;
					TruthOver(true_set, true_logpot, est_set, true_marg);
					MrfCliquesMarginals(est_set, logpot, NULL, &MrfMallocEnv, marg, NULL);
					me[m] += MaxMarginalError(est_set, marg, true_marg);
					free(logpot);
					free(marg);
				}
				free(card);
				free(par);
				free(rows);
				free(pairoff);
				free(one);
				free(two);
				free(y1);
				free(prob);
				free(probs);
				free(edges);
				free(start);
				free(tvar);
				free(ctree);
				free(y2);
				free(noisy2);
				free(meas);
				free(true_logpot);
				free(true_marg);
				MrfCliqueSetFree(&MrfMallocEnv, est_set);
				MrfCliqueSetFree(&MrfMallocEnv, true_set);
			}
			printf("| %lld | %g | %.4g | %.4g | %.4g | %.3f / %.3f / %.3f | %.1f / %.1f / %.1f |\n",
				   (long long) n, rho, kl[0] / reps, kl[1] / reps, kl[2] / reps,
				   me[0] / reps, me[1] / reps, me[2] / reps, ms[0] / reps, ms[1] / reps,
				   ms[2] / reps);
			fflush(stdout);
		}
	return 0;
}
