/*
 * cliques_synth.c - the synthetic models and trials of the clique learner's
 * tests and benchmark (Bernstein et al. 2017, Sec. 4.1).
 *
 * The paper's potentials are Dirichlet(1) draws on each table; they are
 * drawn here with the Marsaglia-Tsang Gamma sampler of dirichlet.c (Gamma(1)
 * normalised), on uniforms from the ChaCha20 generator.  Data come from the
 * exact sampler (k^p <= 2^16 at p = 10, k <= 3).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cliques_synth.h"
#include "dirichlet.h"
#include "sample.h"

/* Seconds of the monotonic clock. */
static double
Now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* Whether the graph on p nodes with the given edges is connected (union-find-free BFS). */
static int
Connected(int p, const int *edges, int ne)
{
	int			seen[256] = {0};
	int			queue[256];
	int			head = 0;
	int			tail = 0;
	int			count = 1;

	seen[0] = 1;
	queue[tail++] = 0;
	while (head < tail)
	{
		int			v = queue[head++];
		int			e;

		for (e = 0; e < ne; e++)
		{
			int			a = edges[2 * e];
			int			b = edges[2 * e + 1];
			int			w = a == v ? b : (b == v ? a : -1);

			if (w >= 0 && !seen[w])
			{
				seen[w] = 1;
				count++;
				queue[tail++] = w;
			}
		}
	}
	return count == p;
}

/* Chain triples or a connected ER graph's edges as the clique list. */
MrfStatus
SynthCliques(SynthGraph graph, int p, int k, MrfRng *rng, MrfCliqueSet **out)
{
	int			start[256 * 128 + 1];
	int			var[256 * 256];
	int			m = 0;
	int			i;
	int			j;

	if (p < 3 || p > 64)
		return MRF_EINVAL;
	if (graph == SYNTH_CHAIN)
	{
		for (i = 0; i + 2 < p; i++)
		{
			start[m] = 3 * m;
			var[3 * m] = i;
			var[3 * m + 1] = i + 1;
			var[3 * m + 2] = i + 2;
			m++;
		}
		start[m] = 3 * m;
	}
	else
	{
		int			edges[64 * 64];

		do
		{
			m = 0;
			for (i = 0; i < p; i++)
				for (j = i + 1; j < p; j++)
					if (MrfRngUniform(rng) < SYNTH_ER_PROB)
					{
						edges[2 * m] = i;
						edges[2 * m + 1] = j;
						m++;
					}
		} while (!Connected(p, edges, m));
		for (i = 0; i < m; i++)
		{
			start[i] = 2 * i;
			var[2 * i] = edges[2 * i];
			var[2 * i + 1] = edges[2 * i + 1];
		}
		start[m] = 2 * m;
	}
	return MrfCliqueSetBuild(p, k, m, start, var, 0, &MrfMallocEnv, out);
}

/* psi_C = log phi_C with phi_C ~ Dirichlet(1, ..., 1) over the table. */
void
SynthPotentials(const MrfCliqueSet *set, MrfRng *rng, double *logpot)
{
	int			c;
	int64_t		x;

	for (c = 0; c < set->m; c++)
	{
		int64_t		off = set->offset[c];
		int64_t		len = set->offset[c + 1] - off;

		MrfRngDirichlet(rng, 1.0, len, logpot + off);
		for (x = 0; x < len; x++)
			logpot[off + x] = log(logpot[off + x]);
	}
}

/* Sample, count, release once, fit both ways plus the non-private reference. */
MrfStatus
SynthRun(const MrfCliqueSet *set, const double *truth, int64_t n,
		 double epsilon, const MrfCliquesOptions *opt, MrfRng *rng,
		 SynthTrial *out)
{
	MrfCode    *rows = malloc(sizeof(MrfCode) * (size_t) n * (size_t) set->p);
	int64_t    *counts = malloc(sizeof(int64_t) * (size_t) set->cells);
	int64_t    *noisy = malloc(sizeof(int64_t) * (size_t) set->cells);
	double	   *fit = malloc(sizeof(double) * (size_t) set->cells);
	MrfCliquesOptions o = *opt;
	MrfStatus	st;
	double		t0;

	memset(out, 0, sizeof(*out));
	if (rows == NULL || counts == NULL || noisy == NULL || fit == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}
	o.epsilon = epsilon;
	st = MrfCliquesSample(set, truth, n, 0, 1, rng, &MrfMallocEnv, rows);
	if (st == MRF_OK)
		st = MrfCliquesCount(rows, n, set, counts);
	if (st == MRF_OK)
		st = MrfCliquesRelease(counts, set, epsilon, rng, noisy, NULL);
	if (st != MRF_OK)
		goto done;

	o.method = MRF_CLIQUES_NAIVE;
	t0 = Now();
	st = MrfCliquesFit(noisy, n, set, &o, &MrfMallocEnv, fit, &out->rep_naive);
	out->sec_naive = Now() - t0;
	if (st == MRF_OK)
		st = MrfCliquesKl(set, truth, set, fit, &MrfMallocEnv, &out->kl_naive);
	if (st != MRF_OK)
		goto done;

	o.method = MRF_CLIQUES_CGM;
	t0 = Now();
	st = MrfCliquesFit(noisy, n, set, &o, &MrfMallocEnv, fit, &out->rep_cgm);
	out->sec_cgm = Now() - t0;
	if (st == MRF_OK)
		st = MrfCliquesKl(set, truth, set, fit, &MrfMallocEnv, &out->kl_cgm);
	if (st != MRF_OK)
		goto done;

	/*
	 * The non-private MLE: the true marginals with the same pseudo-count (all
	 * cliques of a graph have one size here, so they still agree).
	 */
	{
		double	   *marg = malloc(sizeof(double) * (size_t) set->cells);
		int			c;
		int64_t		x;

		if (marg == NULL)
		{
			st = MRF_ENOMEM;
			goto done;
		}
		for (c = 0; c < set->m; c++)
		{
			double		len = (double) (set->offset[c + 1] - set->offset[c]);

			for (x = set->offset[c]; x < set->offset[c + 1]; x++)
				marg[x] = ((double) counts[x] + o.pseudocount) /
					((double) n + o.pseudocount * len);
		}
		st = MrfCliquesFitMarginals(marg, set, &o, &MrfMallocEnv, fit, NULL);
		free(marg);
	}
	if (st == MRF_OK)
		st = MrfCliquesKl(set, truth, set, fit, &MrfMallocEnv, &out->kl_nonprivate);

done:
	free(rows);
	free(counts);
	free(noisy);
	free(fit);
	return st;
}
