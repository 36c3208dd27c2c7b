/*
 * sample.c - drawing samples from a model of every kind: exact enumeration
 * when there are few states, one Gibbs chain (RunGibbs, the one driver of
 * every kind's sweep) otherwise.
 *
 * Ising model: P(z) proportional to exp(sum_{i<j} S_ij z_i z_j + sum_i theta_i z_i)
 * over z in {-1,+1}^p, where S = (A + A^T) / 2 with its diagonal ignored.
 *
 * The code is split so that a pairwise k-ary sampler can reuse its parts:
 *   - MrfNeighbours: the symmetrised couplings as a compressed sparse row
 *     list, so a Gibbs update costs the degree of the node, not p;
 *   - LogWeightsToCdf / DrawFromCdf: a categorical draw from unnormalised
 *     log-weights (the 2^p states here; k^p states, or the k values of one
 *     Gibbs conditional, for a k-ary model);
 *   - RunGibbs: the Gibbs driver's schedule (burn-in, thinning, polling),
 *     shared by the Ising, t-wise, pairwise and clique chains.
 *
 * Randomness comes from the caller's MrfRng only.  Sampling releases nothing
 * about private data (the model is already released), so the generator's
 * privacy mode does not matter here; a seeded generator makes the output
 * reproducible.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cliques.h"
#include "sample.h"
#include "twise.h"
#include "workload.h"

/* See sample.h. */
const char *
MrfSamplerName(MrfSampler sampler)
{
	switch (sampler)
	{
		case MRF_SAMPLER_ENUMERATE:
			return "exact (enumeration)";
		case MRF_SAMPLER_TREE:
			return "exact (junction tree)";
		case MRF_SAMPLER_GIBBS:
			return "gibbs";
		case MRF_SAMPLER_ALLOCATE:
			return "allocated (junction tree)";
		case MRF_SAMPLER_NONE:
			return "none";
	}
	return "unknown";
}

/*
 * Exact rows of a clique model through its junction tree, when one fits
 * max_cells: *done 1 and the rows in out, drawn (MrfBpSample) or, with
 * allocate, allocated (MrfBpAllocate); *done 0 (and MRF_OK) when the
 * triangulation is larger, for the caller's chain.
 */
static MrfStatus
SampleTree(const MrfCliqueSet *set, const double *logpot, int64_t n,
		   int64_t max_cells, int allocate, MrfRng *rng, const MrfEnv *env,
		   MrfCode *out, int *done)
{
	MrfBpOptions bopt;
	MrfBp	   *bp = NULL;
	MrfStatus	status;

	*done = 0;
	memset(&bopt, 0, sizeof(bopt));
	bopt.mode = MRF_INFER_EXACT;
	bopt.max_exact_cells = max_cells > 0 ? max_cells : MRF_SAMPLE_TREE_MAX_CELLS;
	status = MrfBpBuild(set, &bopt, env, &bp);
	if (status == MRF_EINVAL)
		return MRF_OK;			/* no junction tree within the limit */
	if (status != MRF_OK)
		return status;
	status = allocate ? MrfBpAllocate(bp, logpot, n, rng, out) :
		MrfBpSample(bp, logpot, n, rng, out);
	MrfBpFree(bp);
	if (status == MRF_OK)
		*done = 1;
	return status;
}

/* What ran once SampleTree has been tried: the tree's sampler, or none when allocating. */
static MrfSampler
TreeSampler(const MrfSampleOptions *opt, int done)
{
	if (!opt->allocate)
		return MRF_SAMPLER_TREE;
	return done ? MRF_SAMPLER_ALLOCATE : MRF_SAMPLER_NONE;
}

/*
 * Approximate multiply-adds of Gibbs work between two polls.  A sweep costs
 * about p + nnz, so polling by work rather than by sweep count keeps cancel
 * responsive for dense models (p = 2000 is 4M per sweep) without polling
 * after every sweep of a tiny chain.
 */
#define MRF_GIBBS_POLL_WORK ((int64_t) 1 << 20)

/* Exact draws between two polls. */
#define MRF_EXACT_POLL_DRAWS 1024

/*
 * Symmetrised off-diagonal couplings in compressed sparse row form: the
 * neighbours of node i are col[start[i] .. start[i + 1] - 1] with weights
 * weight[...].  Zero couplings are left out.
 */
typedef struct MrfNeighbours
{
	int			p;
	int64_t		nnz;
	int64_t    *start;			/* p + 1 */
	int		   *col;			/* nnz */
	double	   *weight;			/* nnz */
} MrfNeighbours;

/* Releases the arrays of a neighbour list (safe on a partly built one). */
static void
NeighboursFree(const MrfEnv *env, MrfNeighbours *nb)
{
	MrfFree(env, nb->start);
	MrfFree(env, nb->col);
	MrfFree(env, nb->weight);
	memset(nb, 0, sizeof(*nb));
}

/* Coupling S_ij = (A_ij + A_ji) / 2, halved first so that it cannot overflow. */
static inline double
Symmetric(const double *A, int p, int i, int j)
{
	return 0.5 * A[(int64_t) i * p + j] + 0.5 * A[(int64_t) j * p + i];
}

/* Builds the neighbour list of S = (A + A^T) / 2, skipping the diagonal. */
static MrfStatus
NeighboursBuild(const double *A, int p, const MrfEnv *env, MrfNeighbours *nb)
{
	int64_t		nnz = 0;
	int64_t		k;
	int			i;
	int			j;

	memset(nb, 0, sizeof(*nb));
	nb->p = p;

	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			if (i != j && Symmetric(A, p, i, j) != 0.0)
				nnz++;

	nb->start = MrfAlloc(env, sizeof(int64_t) * ((size_t) p + 1));
	/* Allocate at least one element so that an empty graph is not NULL. */
	nb->col = MrfAlloc(env, sizeof(int) * (size_t) (nnz > 0 ? nnz : 1));
	nb->weight = MrfAlloc(env, sizeof(double) * (size_t) (nnz > 0 ? nnz : 1));
	if (nb->start == NULL || nb->col == NULL || nb->weight == NULL)
	{
		NeighboursFree(env, nb);
		return MRF_ENOMEM;
	}

	k = 0;
	for (i = 0; i < p; i++)
	{
		nb->start[i] = k;
		for (j = 0; j < p; j++)
		{
			double		s;

			if (i == j)
				continue;
			s = Symmetric(A, p, i, j);
			if (s != 0.0)
			{
				nb->col[k] = j;
				nb->weight[k] = s;
				k++;
			}
		}
	}
	nb->start[p] = k;
	nb->nnz = k;
	return MRF_OK;
}

/*
 * Turns count unnormalised log-weights into a cumulative distribution in
 * place: subtracting the maximum and dividing by the sum is the log-sum-exp
 * normaliser, so no exponential overflows and the largest weight is exact.
 * The last entry is 1 up to rounding; DrawFromCdf does not rely on it.
 */
static void
LogWeightsToCdf(double *w, int64_t count)
{
	double		maxLog = w[0];
	double		sum = 0.0;
	double		logZ;
	int64_t		s;

	for (s = 1; s < count; s++)
		if (w[s] > maxLog)
			maxLog = w[s];
	for (s = 0; s < count; s++)
		sum += exp(w[s] - maxLog);
	logZ = maxLog + log(sum);

	sum = 0.0;
	for (s = 0; s < count; s++)
	{
		sum += exp(w[s] - logZ);
		w[s] = sum;
	}
}

/*
 * Draws an index from a cumulative distribution: the first s with
 * cdf[s] > u * cdf[count - 1], by binary search.  Scaling u by the last entry
 * absorbs the rounding of the normalisation.  The product can still round up
 * to cdf[count - 1] (and MrfRngUniform itself can round to 1), so u is kept
 * strictly below it; with u in (0, cdf[count - 1]) a state of zero
 * probability (cdf[s] == cdf[s - 1], or cdf[0] == 0) is never returned.
 */
static int64_t
DrawFromCdf(const double *cdf, int64_t count, MrfRng *rng)
{
	double		total = cdf[count - 1];
	double		u = MrfRngUniform(rng) * total;
	int64_t		lo = 0;
	int64_t		hi = count - 1;

	if (u >= total)
		u = nextafter(total, 0.0);
	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * A Gibbs chain as the one driver below sees it: sweep advances the chain's
 * state by one systematic scan, keep writes the state into one output row
 * of row_bytes bytes, work is the multiply-adds of one sweep (for polling).
 */
typedef struct GibbsChain
{
	void		(*sweep) (void *state, MrfRng *rng);
	void		(*keep) (const void *state, void *row);
	void	   *state;
	size_t		row_bytes;
	int64_t		work;
} GibbsChain;

/*
 * The schedule of every Gibbs sampler: from the chain's start, burn_in
 * sweeps, then one kept state every thin sweeps, n of them; polls by work
 * done rather than by sweeps.
 */
static void
RunGibbs(const GibbsChain *chain, int64_t n, int burn_in, int thin,
		 MrfRng *rng, const MrfEnv *env, void *out)
{
	int64_t		totalSweeps = (int64_t) burn_in + n * (int64_t) thin;
	int64_t		sweepsPerPoll;
	int64_t		done = 0;
	int64_t		m;

	sweepsPerPoll = MRF_GIBBS_POLL_WORK / (chain->work > 0 ? chain->work : 1);
	if (sweepsPerPoll < 1)
		sweepsPerPoll = 1;

	MrfPoll(env, 0, totalSweeps);
	for (; done < burn_in; done++)
	{
		chain->sweep(chain->state, rng);
		if ((done + 1) % sweepsPerPoll == 0)
			MrfPoll(env, done + 1, totalSweeps);
	}
	for (m = 0; m < n; m++)
	{
		int			t;

		for (t = 0; t < thin; t++)
		{
			chain->sweep(chain->state, rng);
			done++;
			if (done % sweepsPerPoll == 0)
				MrfPoll(env, done, totalSweeps);
		}
		chain->keep(chain->state, (char *) out + (size_t) m * chain->row_bytes);
	}
	MrfPoll(env, totalSweeps, totalSweeps);
}

/* Spin of node i in enumeration state s: bit i set means +1. */
static inline int
StateSpin(int64_t s, int i)
{
	return ((s >> i) & 1) ? 1 : -1;
}

/*
 * n exact draws of binary states from their cumulative distribution, each
 * written as p spins (state s: bit i set is +1); the Ising and t-wise
 * exact samplers share it.
 */
static void
DrawSpinStates(const double *cdf, int64_t states, int p, int64_t n,
			   MrfRng *rng, const MrfEnv *env, int8_t *out)
{
	int64_t		m;

	for (m = 0; m < n; m++)
	{
		int8_t	   *row = out + m * p;
		int64_t		s;
		int			i;

		if (m % MRF_EXACT_POLL_DRAWS == 0)
			MrfPoll(env, m, n);
		s = DrawFromCdf(cdf, states, rng);
		for (i = 0; i < p; i++)
			row[i] = (int8_t) StateSpin(s, i);
	}
	MrfPoll(env, n, n);
}

/* Exact sampling by enumerating all 2^p states (p <= MRF_EXACT_MAX_P). */
static MrfStatus
SampleIsingExact(const MrfNeighbours *nb, const double *theta, int p,
				 int64_t n, MrfRng *rng, const MrfEnv *env, int8_t *out)
{
	int64_t		states = (int64_t) 1 << p;
	double	   *cdf;
	int64_t		s;

	cdf = MrfAlloc(env, sizeof(double) * (size_t) states);
	if (cdf == NULL)
		return MRF_ENOMEM;

	/* Unnormalised log-probability of every state; each edge counted once. */
	for (s = 0; s < states; s++)
	{
		double		logw = 0.0;
		int			i;

		for (i = 0; i < p; i++)
		{
			int			zi = StateSpin(s, i);
			double		pair = 0.0;
			int64_t		k;

			for (k = nb->start[i]; k < nb->start[i + 1]; k++)
				if (nb->col[k] > i)
					pair += nb->weight[k] * StateSpin(s, nb->col[k]);
			logw += zi * (theta[i] + pair);
		}
		cdf[s] = logw;
	}
	LogWeightsToCdf(cdf, states);

	DrawSpinStates(cdf, states, p, n, rng, env, out);

	MrfFree(env, cdf);
	return MRF_OK;
}

/* An Ising chain: the couplings, the fields and the current spins (+-1). */
typedef struct IsingChain
{
	const MrfNeighbours *nb;
	const double *theta;
	double	   *z;
} IsingChain;

/*
 * One systematic-scan Gibbs sweep: for i = 0..p-1 resample z_i from
 * P(z_i = +1 | rest) = sigmoid(2 h_i), h_i = sum_j S_ij z_j + theta_i.
 * The field is recomputed from the neighbours at every update rather than
 * maintained incrementally, so no rounding drift accumulates over long
 * chains.  1 / (1 + exp(-2h)) is safe at both ends in IEEE arithmetic
 * (exp overflows to inf, giving 0).
 */
static void
IsingGibbsSweep(void *state, MrfRng *rng)
{
	IsingChain *chain = state;
	const MrfNeighbours *nb = chain->nb;
	double	   *z = chain->z;
	int			i;

	for (i = 0; i < nb->p; i++)
	{
		double		h = chain->theta[i];
		double		probPlus;
		int64_t		k;

		for (k = nb->start[i]; k < nb->start[i + 1]; k++)
			h += nb->weight[k] * z[nb->col[k]];
		probPlus = 1.0 / (1.0 + exp(-2.0 * h));
		z[i] = (MrfRngUniform(rng) < probPlus) ? 1.0 : -1.0;
	}
}

/* The spins of a +-1 chain as one int8 row. */
static void
SpinsKeep(const double *z, int p, int8_t *row)
{
	int			i;

	for (i = 0; i < p; i++)
		row[i] = (int8_t) (z[i] > 0.0 ? 1 : -1);
}

/* An Ising chain's state as one output row. */
static void
IsingKeep(const void *state, void *row)
{
	const IsingChain *chain = state;

	SpinsKeep(chain->z, chain->nb->p, row);
}

/* A uniformly random start of a +-1 chain. */
static void
SpinsStart(double *z, int p, MrfRng *rng)
{
	int			i;

	for (i = 0; i < p; i++)
		z[i] = (MrfRngBelow(rng, 2) == 1) ? 1.0 : -1.0;
}

/* Gibbs sampling from a uniformly random start (RunGibbs's schedule). */
static MrfStatus
SampleIsingGibbs(const MrfNeighbours *nb, const double *theta, int p,
				 int64_t n, int burn_in, int thin, MrfRng *rng,
				 const MrfEnv *env, int8_t *out)
{
	IsingChain	state;
	GibbsChain	chain;

	state.nb = nb;
	state.theta = theta;
	state.z = MrfAlloc(env, sizeof(double) * (size_t) p);
	if (state.z == NULL)
		return MRF_ENOMEM;
	chain.sweep = IsingGibbsSweep;
	chain.keep = IsingKeep;
	chain.state = &state;
	chain.row_bytes = (size_t) p;
	chain.work = (int64_t) p + nb->nnz;
	SpinsStart(state.z, p, rng);
	RunGibbs(&chain, n, burn_in, thin, rng, env, out);
	MrfFree(env, state.z);
	return MRF_OK;
}

/* Draws n samples of an Ising model, exactly for small p, by Gibbs otherwise. */
MrfStatus
MrfIsingSample(const double *A, const double *theta, int p, int64_t n,
			   int burn_in, int thin, MrfRng *rng, const MrfEnv *env,
			   int8_t *out)
{
	MrfSampleOptions opt = {burn_in, thin, 0, 0};

	return MrfIsingSampleWith(A, theta, p, n, &opt, rng, env, out, NULL);
}

/* See sample.h. */
MrfStatus
MrfIsingSampleWith(const double *A, const double *theta, int p, int64_t n,
				   const MrfSampleOptions *opt, MrfRng *rng, const MrfEnv *env,
				   int8_t *out, MrfSampler *used)
{
	int			burn_in = opt->burn_in;
	int			thin = opt->thin;
	MrfNeighbours nb;
	MrfStatus	status;
	int64_t		k;
	int			i;

	if (A == NULL || theta == NULL || rng == NULL || env == NULL)
		return MRF_EINVAL;
	if (p < 1 || n < 0 || burn_in < 0 || thin < 1)
		return MRF_EINVAL;
	if (n > 0 && out == NULL)
		return MRF_EINVAL;
	/* n * p output cells and burn_in + n * thin sweeps must fit in int64. */
	if (n > INT64_MAX / p || n > (INT64_MAX - burn_in) / thin)
		return MRF_EINVAL;
	for (i = 0; i < p; i++)
		if (!isfinite(theta[i]))
			return MRF_EINVAL;
	for (k = 0; k < (int64_t) p * p; k++)
		if (!isfinite(A[k]))
			return MRF_EINVAL;

	if (n == 0)
		return MRF_OK;

	if (p > MRF_EXACT_MAX_P || opt->allocate)
	{
		MrfCliqueSet *set = NULL;
		double	   *logpot = NULL;
		MrfCode    *codes;
		int			done = 0;

		/* the clique form codes -1 as 0 and +1 as 1 */
		codes = MrfAllocUninit(env, sizeof(MrfCode) * (size_t) n * p);
		if (codes == NULL)
			return MRF_ENOMEM;
		status = MrfIsingAsCliques(A, theta, p, env, &set, &logpot);
		if (status == MRF_OK)
			status = SampleTree(set, logpot, n, opt->max_tree_cells, opt->allocate, rng, env,
								codes, &done);
		if (status == MRF_OK && done)
			for (int64_t c = 0; c < n * p; c++)
				out[c] = codes[c] ? 1 : -1;
		MrfFree(env, codes);
		MrfFree(env, logpot);
		if (set != NULL)
			MrfCliqueSetFree(env, set);
		if (status != MRF_OK || done || opt->allocate)
		{
			if (used != NULL)
				*used = TreeSampler(opt, done);
			return status;
		}
	}

	status = NeighboursBuild(A, p, env, &nb);
	if (status != MRF_OK)
		return status;

	if (p <= MRF_EXACT_MAX_P)
		status = SampleIsingExact(&nb, theta, p, n, rng, env, out);
	else
		status = SampleIsingGibbs(&nb, theta, p, n, burn_in, thin, rng, env,
								  out);
	if (used != NULL)
		*used = p <= MRF_EXACT_MAX_P ? MRF_SAMPLER_ENUMERATE : MRF_SAMPLER_GIBBS;

	NeighboursFree(env, &nb);
	return status;
}

/*
 * ---- binary t-wise models ----
 *
 * P(z) proportional to exp(sum_J c_J prod_{j in J} z_j), with the
 * coefficients indexed as in twise.h.  P(z_i = +1 | rest) = sigmoid(2 d_i h),
 * d_i h = sum over J containing i of c_J prod_{j in J, j != i} z_j, so a
 * Gibbs update of node i needs exactly the monomials that contain i.
 */

/*
 * The nonzero monomials by node: entries start[i] .. start[i + 1] - 1 belong
 * to node i; entry e has coefficient coef[e] and the other members
 * vars[first[e] .. first[e] + count[e] - 1].
 */
typedef struct TwiseIncidence
{
	int64_t    *start;			/* p + 1 */
	double	   *coef;			/* entries */
	int64_t    *first;			/* entries */
	int		   *count;			/* entries */
	int		   *vars;			/* sum of count */
	int64_t		entries;
	int64_t		work;			/* multiply-adds of one sweep */
} TwiseIncidence;

/* Releases the arrays of an incidence list (safe on a partly built one). */
static void
TwiseIncidenceFree(const MrfEnv *env, TwiseIncidence *inc)
{
	MrfFree(env, inc->start);
	MrfFree(env, inc->coef);
	MrfFree(env, inc->first);
	MrfFree(env, inc->count);
	MrfFree(env, inc->vars);
	memset(inc, 0, sizeof(*inc));
}

/*
 * Two passes over the monomials in index order: count the entries of each
 * node, then fill them, each monomial once per member.
 */
static MrfStatus
TwiseIncidenceBuild(const double *coef, int p, int t, const MrfEnv *env,
					TwiseIncidence *inc)
{
	int			vars[MRF_TWISE_MAX_ORDER];
	int64_t    *fill;
	int64_t		nvars = 0;
	int64_t		pos = 0;
	int64_t		c;
	int			k;
	int			i;
	int			pass;

	memset(inc, 0, sizeof(*inc));
	inc->start = MrfAlloc(env, sizeof(int64_t) * ((size_t) p + 1));
	fill = MrfAlloc(env, sizeof(int64_t) * (size_t) p);
	if (inc->start == NULL || fill == NULL)
	{
		MrfFree(env, fill);
		TwiseIncidenceFree(env, inc);
		return MRF_ENOMEM;
	}
	for (pass = 0; pass < 2; pass++)
	{
		k = 0;
		c = 0;
		while (MrfSubsetNext(p, t, vars, &k))
		{
			int			j;

			c++;
			if (coef[c] == 0.0)
				continue;
			for (j = 0; j < k; j++)
			{
				if (pass == 0)
				{
					inc->start[vars[j] + 1]++;
					nvars += k - 1;
				}
				else
				{
					int64_t		e = fill[vars[j]]++;
					int			l;
					int			o = 0;

					inc->coef[e] = coef[c];
					inc->first[e] = pos;
					inc->count[e] = k - 1;
					for (l = 0; l < k; l++)
						if (l != j)
							inc->vars[pos + o++] = vars[l];
					pos += k - 1;
				}
			}
		}
		if (pass == 1)
			break;
		for (i = 0; i < p; i++)
			inc->start[i + 1] += inc->start[i];
		inc->entries = inc->start[p];
		inc->work = p + inc->entries + nvars;
		memcpy(fill, inc->start, sizeof(int64_t) * (size_t) p);
		/* at least one element each, so that an empty model is not NULL */
		inc->coef = MrfAlloc(env, sizeof(double) * (size_t) (inc->entries > 0 ? inc->entries : 1));
		inc->first = MrfAlloc(env, sizeof(int64_t) * (size_t) (inc->entries > 0 ? inc->entries : 1));
		inc->count = MrfAlloc(env, sizeof(int) * (size_t) (inc->entries > 0 ? inc->entries : 1));
		inc->vars = MrfAlloc(env, sizeof(int) * (size_t) (nvars > 0 ? nvars : 1));
		if (inc->coef == NULL || inc->first == NULL || inc->count == NULL ||
			inc->vars == NULL)
		{
			MrfFree(env, fill);
			TwiseIncidenceFree(env, inc);
			return MRF_ENOMEM;
		}
	}
	MrfFree(env, fill);
	return MRF_OK;
}

/*
 * Exact sampling.  The log-weight of state s is sum_J c_J chi_J(s) with
 * chi_J(s) = (-1)^|J \ s|, which is the Walsh-Hadamard transform of
 * g(mask(J)) = (-1)^|J| c_J: O(p 2^p) whatever the number of monomials.
 */
static MrfStatus
SampleTwiseExact(const double *coef, int p, int t, int64_t n, MrfRng *rng,
				 const MrfEnv *env, int8_t *out)
{
	int			vars[MRF_TWISE_MAX_ORDER];
	int64_t		states = (int64_t) 1 << p;
	double	   *w;
	int64_t		c = 0;
	int			k = 0;

	w = MrfAlloc(env, sizeof(double) * (size_t) states);
	if (w == NULL)
		return MRF_ENOMEM;
	while (MrfSubsetNext(p, t, vars, &k))
	{
		int64_t		mask = 0;
		int			j;

		c++;
		for (j = 0; j < k; j++)
			mask |= (int64_t) 1 << vars[j];
		w[mask] = (k % 2 ? -1.0 : 1.0) * coef[c];
	}
	MrfWalshHadamard(w, p);
	LogWeightsToCdf(w, states);

	DrawSpinStates(w, states, p, n, rng, env, out);
	MrfFree(env, w);
	return MRF_OK;
}

/* A t-wise chain: the monomials by node and the current spins (+-1). */
typedef struct TwiseChain
{
	const TwiseIncidence *inc;
	int			p;
	double	   *z;
} TwiseChain;

/*
 * One systematic-scan sweep: z_i from sigmoid(2 d_i h), the field
 * recomputed from the monomials of i at every update (no drift).
 */
static void
TwiseGibbsSweep(void *state, MrfRng *rng)
{
	TwiseChain *chain = state;
	const TwiseIncidence *inc = chain->inc;
	double	   *z = chain->z;
	int			i;

	for (i = 0; i < chain->p; i++)
	{
		double		h = 0.0;
		int64_t		e;

		for (e = inc->start[i]; e < inc->start[i + 1]; e++)
		{
			const int  *v = inc->vars + inc->first[e];
			double		term = inc->coef[e];
			int			l;

			for (l = 0; l < inc->count[e]; l++)
				term *= z[v[l]];
			h += term;
		}
		z[i] = (MrfRngUniform(rng) < 1.0 / (1.0 + exp(-2.0 * h))) ? 1.0 : -1.0;
	}
}

/* A t-wise chain's state as one output row. */
static void
TwiseKeep(const void *state, void *row)
{
	const TwiseChain *chain = state;

	SpinsKeep(chain->z, chain->p, row);
}

/* Gibbs sampling from a uniformly random start (RunGibbs's schedule). */
static MrfStatus
SampleTwiseGibbs(const TwiseIncidence *inc, int p, int64_t n, int burn_in,
				 int thin, MrfRng *rng, const MrfEnv *env, int8_t *out)
{
	TwiseChain	state;
	GibbsChain	chain;

	state.inc = inc;
	state.p = p;
	state.z = MrfAlloc(env, sizeof(double) * (size_t) p);
	if (state.z == NULL)
		return MRF_ENOMEM;
	chain.sweep = TwiseGibbsSweep;
	chain.keep = TwiseKeep;
	chain.state = &state;
	chain.row_bytes = (size_t) p;
	chain.work = inc->work;
	SpinsStart(state.z, p, rng);
	RunGibbs(&chain, n, burn_in, thin, rng, env, out);
	MrfFree(env, state.z);
	return MRF_OK;
}

/* Draws n samples of a t-wise model, exactly for small p, by Gibbs otherwise. */
MrfStatus
MrfTwiseSample(const double *coef, int p, int t, int64_t n, int burn_in,
			   int thin, MrfRng *rng, const MrfEnv *env, int8_t *out)
{
	TwiseIncidence inc;
	MrfStatus	status;
	int64_t		count;
	int64_t		c;

	if (coef == NULL || rng == NULL || env == NULL)
		return MRF_EINVAL;
	if (p < 1 || t < 1 || t > p || t > MRF_TWISE_MAX_ORDER || n < 0 ||
		burn_in < 0 || thin < 1)
		return MRF_EINVAL;
	if (n > 0 && out == NULL)
		return MRF_EINVAL;
	if (n > INT64_MAX / p || n > (INT64_MAX - burn_in) / thin)
		return MRF_EINVAL;
	count = MrfTwiseCoefCount(p, t);
	if (count < 0)
		return MRF_EINVAL;
	for (c = 1; c < count; c++)
		if (!isfinite(coef[c]))
			return MRF_EINVAL;
	if (n == 0)
		return MRF_OK;

	if (p <= MRF_EXACT_MAX_P)
		return SampleTwiseExact(coef, p, t, n, rng, env, out);

	status = TwiseIncidenceBuild(coef, p, t, env, &inc);
	if (status != MRF_OK)
		return status;
	status = SampleTwiseGibbs(&inc, p, n, burn_in, thin, rng, env, out);
	TwiseIncidenceFree(env, &inc);
	return status;
}

/*
 * ---- pairwise k-ary models ----
 *
 * P(z) proportional to exp(sum_{i<j} S_ij(z_i, z_j) + sum_i theta_i(z_i))
 * with S_ij(a, b) = (W_ij(a, b) + W_ji(b, a)) / 2, so that a stored W that
 * is not exactly symmetric still defines one model (as for Ising).  The
 * conditional of z_i is categorical with log-weights
 * theta_i(a) + sum_{j != i} S_ij(a, z_j), which needs only the nonzero
 * blocks of node i.
 */

/*
 * Nonzero symmetrised blocks by node: entries start[i] .. start[i + 1] - 1
 * belong to node i; entry e pairs it with col[e] and holds
 * block[e k^2 + b k + a] = S_{i,col[e]}(a, b), transposed so that the k
 * log-weight terms for a given z_j are contiguous.
 */
typedef struct PairwiseNeighbours
{
	int			p;
	int			k;
	int64_t		nnz;
	int64_t    *start;			/* p + 1 */
	int		   *col;			/* nnz */
	double	   *block;			/* nnz k^2 */
} PairwiseNeighbours;

/* Releases the arrays of a block list (safe on a partly built one). */
static void
PairwiseNeighboursFree(const MrfEnv *env, PairwiseNeighbours *nb)
{
	MrfFree(env, nb->start);
	MrfFree(env, nb->col);
	MrfFree(env, nb->block);
	memset(nb, 0, sizeof(*nb));
}

/* S_ij(a, b), halved first so that it cannot overflow. */
static inline double
PairwiseSymmetric(const double *W, int p, int k, int i, int j, int a, int b)
{
	return 0.5 * W[(((size_t) i * p + j) * k + a) * k + b] +
		0.5 * W[(((size_t) j * p + i) * k + b) * k + a];
}

/* Whether the symmetrised block (i, j) has a nonzero entry. */
static int
PairwiseBlockNonzero(const double *W, int p, int k, int i, int j)
{
	int			a;
	int			b;

	for (a = 0; a < k; a++)
		for (b = 0; b < k; b++)
			if (PairwiseSymmetric(W, p, k, i, j, a, b) != 0.0)
				return 1;
	return 0;
}

/* Two passes: count the nonzero blocks, then copy them transposed. */
static MrfStatus
PairwiseNeighboursBuild(const double *W, int p, int k, const MrfEnv *env,
						PairwiseNeighbours *nb)
{
	size_t		kk = (size_t) k * k;
	int64_t		nnz = 0;
	int64_t		e = 0;
	int			i;
	int			j;

	memset(nb, 0, sizeof(*nb));
	nb->p = p;
	nb->k = k;
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			if (i != j && PairwiseBlockNonzero(W, p, k, i, j))
				nnz++;

	nb->start = MrfAlloc(env, sizeof(int64_t) * ((size_t) p + 1));
	/* at least one element each, so that an empty graph is not NULL */
	nb->col = MrfAlloc(env, sizeof(int) * (size_t) (nnz > 0 ? nnz : 1));
	nb->block = MrfAlloc(env, sizeof(double) * kk * (size_t) (nnz > 0 ? nnz : 1));
	if (nb->start == NULL || nb->col == NULL || nb->block == NULL)
	{
		PairwiseNeighboursFree(env, nb);
		return MRF_ENOMEM;
	}
	for (i = 0; i < p; i++)
	{
		nb->start[i] = e;
		for (j = 0; j < p; j++)
		{
			double	   *blk;
			int			a;
			int			b;

			if (i == j || !PairwiseBlockNonzero(W, p, k, i, j))
				continue;
			nb->col[e] = j;
			blk = nb->block + (size_t) e * kk;
			for (a = 0; a < k; a++)
				for (b = 0; b < k; b++)
					blk[(size_t) b * k + a] = PairwiseSymmetric(W, p, k, i, j, a, b);
			e++;
		}
	}
	nb->start[p] = e;
	nb->nnz = e;
	return MRF_OK;
}

/* k^p if it is at most limit, else -1 (no overflow on the way). */
static int64_t
PairwiseStateCount(int p, int k, int64_t limit)
{
	int64_t		states = 1;
	int			i;

	for (i = 0; i < p; i++)
	{
		if (states > limit / k)
			return -1;
		states *= k;
	}
	return states;
}

/*
 * Exact sampling over all k^p states (at most
 * MRF_PAIRWISE_EXACT_MAX_STATES).  State s has z_i = digit i of s in base
 * k; the states are visited with an odometer, so z never has to be
 * decoded, and each pair is counted once (col > i).
 */
static MrfStatus
SamplePairwiseExact(const PairwiseNeighbours *nb, const double *theta,
					int64_t states, int64_t n, MrfRng *rng, const MrfEnv *env,
					uint8_t *out)
{
	const int	p = nb->p;
	const int	k = nb->k;
	double	   *cdf;
	int		   *z;
	int64_t		s;
	int64_t		m;
	int			i;

	cdf = MrfAlloc(env, sizeof(double) * (size_t) states);
	z = MrfAlloc(env, sizeof(int) * (size_t) p);
	if (cdf == NULL || z == NULL)
	{
		MrfFree(env, cdf);
		MrfFree(env, z);
		return MRF_ENOMEM;
	}

	for (s = 0; s < states; s++)
	{
		double		logw = 0.0;

		for (i = 0; i < p; i++)
		{
			int64_t		e;

			logw += theta[(size_t) i * k + z[i]];
			for (e = nb->start[i]; e < nb->start[i + 1]; e++)
				if (nb->col[e] > i)
					logw += nb->block[(size_t) e * k * k +
									  (size_t) z[nb->col[e]] * k + z[i]];
		}
		cdf[s] = logw;
		/* next state: increment the base-k odometer */
		for (i = 0; i < p && ++z[i] == k; i++)
			z[i] = 0;
	}
	LogWeightsToCdf(cdf, states);

	for (m = 0; m < n; m++)
	{
		uint8_t    *row = out + m * p;

		if (m % MRF_EXACT_POLL_DRAWS == 0)
			MrfPoll(env, m, n);
		s = DrawFromCdf(cdf, states, rng);
		for (i = 0; i < p; i++)
		{
			row[i] = (uint8_t) (s % k);
			s /= k;
		}
	}
	MrfPoll(env, n, n);

	MrfFree(env, z);
	MrfFree(env, cdf);
	return MRF_OK;
}

/*
 * A pairwise chain: the blocks by node, the fields, the current values and
 * k doubles of scratch for one conditional.
 */
typedef struct PairwiseChain
{
	const PairwiseNeighbours *nb;
	const double *theta;
	uint8_t    *z;
	double	   *logw;
} PairwiseChain;

/*
 * One systematic-scan sweep: z_i drawn from its categorical conditional,
 * the log-weights recomputed from the neighbours at every update (no
 * drift).
 */
static void
PairwiseGibbsSweep(void *state, MrfRng *rng)
{
	PairwiseChain *chain = state;
	const PairwiseNeighbours *nb = chain->nb;
	const int	k = nb->k;
	uint8_t    *z = chain->z;
	double	   *logw = chain->logw;
	int			i;

	for (i = 0; i < nb->p; i++)
	{
		int64_t		e;
		int			a;

		memcpy(logw, chain->theta + (size_t) i * k, sizeof(double) * k);
		for (e = nb->start[i]; e < nb->start[i + 1]; e++)
		{
			const double *terms = nb->block + (size_t) e * k * k +
				(size_t) z[nb->col[e]] * k;

			for (a = 0; a < k; a++)
				logw[a] += terms[a];
		}
		LogWeightsToCdf(logw, k);
		z[i] = (uint8_t) DrawFromCdf(logw, k, rng);
	}
}

/* A chain of byte values (pairwise) as one output row. */
static void
ValuesKeep(const uint8_t *z, int p, void *row)
{
	memcpy(row, z, (size_t) p);
}

/* A pairwise chain's state as one output row. */
static void
PairwiseKeep(const void *state, void *row)
{
	const PairwiseChain *chain = state;

	ValuesKeep(chain->z, chain->nb->p, row);
}

/* A uniformly random start of a chain of values 0..k-1. */
static void
ValuesStart(uint8_t *z, int p, int k, MrfRng *rng)
{
	int			i;

	for (i = 0; i < p; i++)
		z[i] = (uint8_t) MrfRngBelow(rng, (uint64_t) k);
}

/* Gibbs sampling from a uniformly random start (RunGibbs's schedule). */
static MrfStatus
SamplePairwiseGibbs(const PairwiseNeighbours *nb, const double *theta,
					int64_t n, int burn_in, int thin, MrfRng *rng,
					const MrfEnv *env, uint8_t *out)
{
	const int	p = nb->p;
	const int	k = nb->k;
	PairwiseChain state;
	GibbsChain	chain;

	state.nb = nb;
	state.theta = theta;
	state.z = MrfAlloc(env, (size_t) p);
	state.logw = MrfAlloc(env, sizeof(double) * (size_t) k);
	if (state.z == NULL || state.logw == NULL)
	{
		MrfFree(env, state.z);
		MrfFree(env, state.logw);
		return MRF_ENOMEM;
	}
	chain.sweep = PairwiseGibbsSweep;
	chain.keep = PairwiseKeep;
	chain.state = &state;
	chain.row_bytes = (size_t) p;
	chain.work = ((int64_t) p + nb->nnz) * k;
	ValuesStart(state.z, p, k, rng);
	RunGibbs(&chain, n, burn_in, thin, rng, env, out);
	MrfFree(env, state.logw);
	MrfFree(env, state.z);
	return MRF_OK;
}

/* Draws n samples of a pairwise model, exactly for small k^p, by Gibbs otherwise. */
MrfStatus
MrfPairwiseSample(const double *W, const double *theta, int p, int k,
				  int64_t n, int burn_in, int thin, MrfRng *rng,
				  const MrfEnv *env, uint8_t *out)
{
	MrfSampleOptions opt = {burn_in, thin, 0, 0};

	return MrfPairwiseSampleWith(W, theta, p, k, n, &opt, rng, env, out, NULL);
}

/* See sample.h. */
MrfStatus
MrfPairwiseSampleWith(const double *W, const double *theta, int p, int k,
					  int64_t n, const MrfSampleOptions *opt, MrfRng *rng,
					  const MrfEnv *env, uint8_t *out, MrfSampler *used)
{
	int			burn_in = opt->burn_in;
	int			thin = opt->thin;
	PairwiseNeighbours nb;
	MrfStatus	status;
	int64_t		states;
	int64_t		c;
	int64_t		cells;

	if (W == NULL || theta == NULL || rng == NULL || env == NULL)
		return MRF_EINVAL;
	if (p < 1 || k < 2 || k > 255 || n < 0 || burn_in < 0 || thin < 1)
		return MRF_EINVAL;
	if (n > 0 && out == NULL)
		return MRF_EINVAL;
	/* n p output cells, burn_in + n thin sweeps and p^2 k^2 weights fit */
	if (n > INT64_MAX / p || n > (INT64_MAX - burn_in) / thin ||
		(int64_t) p > INT64_MAX / ((int64_t) p * k * k))
		return MRF_EINVAL;
	cells = (int64_t) p * p * k * k;
	for (c = 0; c < cells; c++)
		if (!isfinite(W[c]))
			return MRF_EINVAL;
	for (c = 0; c < (int64_t) p * k; c++)
		if (!isfinite(theta[c]))
			return MRF_EINVAL;
	if (n == 0)
		return MRF_OK;

	states = PairwiseStateCount(p, k, MRF_PAIRWISE_EXACT_MAX_STATES);
	if (states <= 0 || opt->allocate)
	{
		MrfCliqueSet *set = NULL;
		double	   *logpot = NULL;
		int		   *card = MrfAllocUninit(env, sizeof(int) * (size_t) p);
		MrfCode    *codes = MrfAllocUninit(env, sizeof(MrfCode) * (size_t) n * p);
		int			done = 0;

		if (card == NULL || codes == NULL)
		{
			MrfFree(env, card);
			MrfFree(env, codes);
			return MRF_ENOMEM;
		}
		for (int i = 0; i < p; i++)
			card[i] = k;
		status = MrfPairwiseAsCliques(W, theta, p, k, card, env, &set, &logpot);
		if (status == MRF_OK)
			status = SampleTree(set, logpot, n, opt->max_tree_cells, opt->allocate, rng, env,
								codes, &done);
		/* the clique rows' codes as the pairwise rows' bytes (k <= 255) */
		if (status == MRF_OK && done)
			for (int64_t c = 0; c < n * p; c++)
				out[c] = (uint8_t) codes[c];
		MrfFree(env, codes);
		MrfFree(env, logpot);
		if (set != NULL)
			MrfCliqueSetFree(env, set);
		MrfFree(env, card);
		if (status != MRF_OK || done || opt->allocate)
		{
			if (used != NULL)
				*used = TreeSampler(opt, done);
			return status;
		}
	}
	status = PairwiseNeighboursBuild(W, p, k, env, &nb);
	if (status != MRF_OK)
		return status;
	if (states > 0)
		status = SamplePairwiseExact(&nb, theta, states, n, rng, env, out);
	else
		status = SamplePairwiseGibbs(&nb, theta, n, burn_in, thin, rng, env,
									 out);
	if (used != NULL)
		*used = states > 0 ? MRF_SAMPLER_ENUMERATE : MRF_SAMPLER_GIBBS;
	PairwiseNeighboursFree(env, &nb);
	return status;
}

/*
 * ---- clique models ----
 *
 * P(z) proportional to exp(sum_C psi_C(z_C)) over z with z_i in
 * {0..card[i]-1}, the log-potentials laid out as in bp.h.  The conditional
 * of z_v, over v's own card[v] values, involves only the cliques that hold
 * v.
 */

/* Index of the first cumulative weight at or above u * total (binary search). */
static int64_t
CliquesDrawCdf(const double *cdf, int64_t len, double u)
{
	double		target = u * cdf[len - 1];
	int64_t		lo = 0;
	int64_t		hi = len - 1;

	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (cdf[mid] < target)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Exact draws by inversion of the cumulative distribution over all states. */
static MrfStatus
SampleCliquesExact(const MrfCliqueSet *set, const double *logpot,
				   int64_t states, int64_t n, MrfRng *rng, const MrfEnv *env,
				   MrfCode *out)
{
	double	   *cdf = MrfAlloc(env, sizeof(double) * (size_t) states);
	MrfCode		z[256];
	double		mx = -INFINITY;
	double		acc = 0.0;
	int64_t		s;
	int64_t		r;

	if (cdf == NULL)
		return MRF_ENOMEM;
	memset(z, 0, sizeof(z));
	for (s = 0; s < states; s++)
	{
		cdf[s] = MrfCliquesScore(set, logpot, z);
		mx = cdf[s] > mx ? cdf[s] : mx;
		MrfCliquesNextStateAlphabets(z, set->p, set->card);
	}
	for (s = 0; s < states; s++)
	{
		acc += exp(cdf[s] - mx);
		cdf[s] = acc;
	}
	for (r = 0; r < n; r++)
	{
		int64_t		idx = CliquesDrawCdf(cdf, states, MrfRngUniform(rng));
		MrfCode    *row = out + r * set->p;
		int			j;

		for (j = set->p - 1; j >= 0; j--)
		{
			row[j] = (MrfCode) (idx % set->card[j]);
			idx /= set->card[j];
		}
		if ((r & 1023) == 1023)
			MrfPoll(env, r, n);
	}
	MrfFree(env, cdf);
	return MRF_OK;
}

/*
 * A clique chain: the model, for each variable v the cliques that hold it
 * (slots istart[v] .. istart[v + 1] - 1: clique iclq[s], where v's digit
 * has stride istride[s] in its table), the current values and k doubles
 * of scratch.
 */
typedef struct CliquesChain
{
	const MrfCliqueSet *set;
	const double *logpot;
	int		   *istart;			/* p + 1 */
	int		   *iclq;			/* slots */
	int64_t    *istride;		/* slots */
	MrfCode    *z;				/* p */
	double		w[256];
} CliquesChain;

/* Frees the chain's arrays (safe on a partly built one). */
static void
CliquesChainFree(const MrfEnv *env, CliquesChain *chain)
{
	MrfFree(env, chain->istart);
	MrfFree(env, chain->iclq);
	MrfFree(env, chain->istride);
	MrfFree(env, chain->z);
}

/* The incidence lists: a count per variable, then (clique, stride) slots. */
static MrfStatus
CliquesChainBuild(const MrfCliqueSet *set, const double *logpot,
				  const MrfEnv *env, CliquesChain *chain)
{
	int			p = set->p;
	int			nslots = set->start[set->m];
	int		   *fill;
	int			c;
	int			j;

	memset(chain, 0, offsetof(CliquesChain, w));
	chain->set = set;
	chain->logpot = logpot;
	chain->istart = MrfAlloc(env, sizeof(int) * ((size_t) p + 1));
	chain->iclq = MrfAlloc(env, sizeof(int) * (size_t) (nslots > 0 ? nslots : 1));
	chain->istride = MrfAlloc(env, sizeof(int64_t) * (size_t) (nslots > 0 ? nslots : 1));
	chain->z = MrfAlloc(env, sizeof(MrfCode) * (size_t) p);
	if (chain->istart == NULL || chain->iclq == NULL || chain->istride == NULL ||
		chain->z == NULL)
	{
		CliquesChainFree(env, chain);
		return MRF_ENOMEM;
	}
	for (c = 0; c < set->m; c++)
		for (j = set->start[c]; j < set->start[c + 1]; j++)
			chain->istart[set->var[j] + 1]++;
	for (j = 0; j < p; j++)
		chain->istart[j + 1] += chain->istart[j];
	fill = MrfAlloc(env, sizeof(int) * (size_t) p);
	if (fill == NULL)
	{
		CliquesChainFree(env, chain);
		return MRF_ENOMEM;
	}
	for (c = 0; c < set->m; c++)
	{
		int64_t		stride = 1;

		for (j = set->start[c + 1] - 1; j >= set->start[c]; j--)
		{
			int			v = set->var[j];
			int			slot = chain->istart[v] + fill[v]++;

			chain->iclq[slot] = c;
			chain->istride[slot] = stride;
			stride *= set->card[v];
		}
	}
	MrfFree(env, fill);
	return MRF_OK;
}

/*
 * One systematic-scan sweep: z_v drawn from its categorical conditional,
 * the log-weights summed from the tables of v's cliques.
 */
static void
CliquesGibbsSweep(void *state, MrfRng *rng)
{
	CliquesChain *chain = state;
	const MrfCliqueSet *set = chain->set;
	const double *logpot = chain->logpot;
	MrfCode    *z = chain->z;
	double	   *w = chain->w;
	int			v;

	for (v = 0; v < set->p; v++)
	{
		int			k = set->card[v];
		double		mx = -INFINITY;
		double		acc = 0.0;
		double		u;
		int			a;
		int			s;

		for (a = 0; a < k; a++)
			w[a] = 0.0;
		for (s = chain->istart[v]; s < chain->istart[v + 1]; s++)
		{
			int			cc = chain->iclq[s];
			int64_t		base = set->offset[cc] + MrfCliqueIndex(set, cc, z) -
				(int64_t) z[v] * chain->istride[s];

			for (a = 0; a < k; a++)
				w[a] += logpot[base + a * chain->istride[s]];
		}
		for (a = 0; a < k; a++)
			mx = w[a] > mx ? w[a] : mx;
		for (a = 0; a < k; a++)
		{
			acc += exp(w[a] - mx);
			w[a] = acc;
		}
		u = MrfRngUniform(rng) * acc;
		for (a = 0; a < k - 1 && w[a] < u; a++)
			;
		z[v] = (MrfCode) a;
	}
}

/* A clique chain's state as one output row. */
static void
CliquesKeep(const void *state, void *row)
{
	const CliquesChain *chain = state;

	memcpy(row, chain->z, sizeof(MrfCode) * (size_t) chain->set->p);
}

/* Gibbs sampling from a uniformly random start (RunGibbs's schedule). */
static MrfStatus
SampleCliquesGibbs(const MrfCliqueSet *set, const double *logpot, int64_t n,
				   int burn_in, int thin, MrfRng *rng, const MrfEnv *env,
				   MrfCode *out)
{
	CliquesChain state;
	GibbsChain	chain;
	MrfStatus	status;

	status = CliquesChainBuild(set, logpot, env, &state);
	if (status != MRF_OK)
		return status;
	chain.sweep = CliquesGibbsSweep;
	chain.keep = CliquesKeep;
	chain.state = &state;
	chain.row_bytes = sizeof(MrfCode) * (size_t) set->p;
	chain.work = ((int64_t) set->p + set->start[set->m]) * set->k;
	/* a uniform start over each variable's own values (ValuesStart when one alphabet) */
	for (int i = 0; i < set->p; i++)
		state.z[i] = (MrfCode) MrfRngBelow(rng, (uint64_t) set->card[i]);
	RunGibbs(&chain, n, burn_in, thin, rng, env, out);
	CliquesChainFree(env, &state);
	return MRF_OK;
}

/* Exact below MRF_CLIQUES_EXACT_SAMPLE_STATES states, Gibbs above. */
MrfStatus
MrfCliquesSample(const MrfCliqueSet *set, const double *logpot, int64_t n,
				 int burn_in, int thin, MrfRng *rng, const MrfEnv *env,
				 MrfCode *out)
{
	MrfSampleOptions opt = {burn_in, thin, 0, 0};

	return MrfCliquesSampleWith(set, logpot, n, &opt, rng, env, out, NULL);
}

/* See sample.h. */
MrfStatus
MrfCliquesSampleWith(const MrfCliqueSet *set, const double *logpot, int64_t n,
					 const MrfSampleOptions *opt, MrfRng *rng, const MrfEnv *env,
					 MrfCode *out, MrfSampler *used)
{
	int			burn_in = opt->burn_in;
	int			thin = opt->thin;
	int64_t		states;
	int64_t		x;
	int			done = 0;
	MrfStatus	status;

	if (n < 0 || set->k > 256)
		return MRF_EINVAL;
	for (x = 0; x < set->cells; x++)
		if (!isfinite(logpot[x]))
			return MRF_EINVAL;
	if (n == 0)
		return MRF_OK;
	states = set->p <= 256 ? MrfCliqueSetStates(set, MRF_CLIQUES_EXACT_SAMPLE_STATES) : -1;
	if (states > 0 && !opt->allocate)
	{
		if (used != NULL)
			*used = MRF_SAMPLER_ENUMERATE;
		return SampleCliquesExact(set, logpot, states, n, rng, env, out);
	}
	status = SampleTree(set, logpot, n, opt->max_tree_cells, opt->allocate, rng, env, out,
						&done);
	if (status != MRF_OK || done || opt->allocate)
	{
		if (used != NULL)
			*used = TreeSampler(opt, done);
		return status;
	}
	if (used != NULL)
		*used = MRF_SAMPLER_GIBBS;
	return SampleCliquesGibbs(set, logpot, n, burn_in < 0 ? 0 : burn_in,
							  thin < 1 ? 1 : thin, rng, env, out);
}
