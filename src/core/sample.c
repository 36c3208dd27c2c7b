/*
 * sample.c - drawing samples from a model of every kind: exact enumeration
 * when there are few states, forward sampling through a junction tree when
 * one fits, and otherwise several chains with parallel tempering (RunChains,
 * the one driver of every kind's sweep), with a split R-hat over the chains.
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
 *   - RunChains: the chain sampler (chains, temperatures, swaps, burn-in,
 *     thinning, polling, diagnostics), shared by the Ising, t-wise,
 *     pairwise and clique chains, each of which gives it a sweep at a
 *     temperature (ChainKind).
 *
 * Randomness comes from the caller's MrfRng only.  Sampling releases nothing
 * about private data (the model is already released), so the generator's
 * privacy mode does not matter here; a seeded generator makes the output
 * reproducible.
 */
#include <float.h>
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
		case MRF_SAMPLER_CHAINS:
			return "parallel tempering";
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
 * Approximate multiply-adds of chain work between two polls.  A sweep costs
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
 * MRF_ERANGE when the weights overflow (finite parameters near 1e308 sum
 * to an infinite log-weight, and inf - inf is NaN): a NaN distribution
 * would be drawn from as if it were some other one.
 */
static MrfStatus
LogWeightsToCdf(double *w, int64_t count)
{
	double		maxLog = w[0];
	double		sum = 0.0;
	double		logZ;
	int64_t		s;

	for (s = 1; s < count; s++)
		if (w[s] > maxLog)
			maxLog = w[s];
	if (!isfinite(maxLog))
		return MRF_ERANGE;
	for (s = 0; s < count; s++)
		sum += exp(w[s] - maxLog);
	logZ = maxLog + log(sum);

	sum = 0.0;
	for (s = 0; s < count; s++)
	{
		sum += exp(w[s] - logZ);
		w[s] = sum;
	}
	return isfinite(sum) && sum > 0.0 ? MRF_OK : MRF_ERANGE;
}

/* The largest absolute value of x[0..count-1] (NaN if any is NaN). */
static double
MaxAbs(const double *x, int64_t count)
{
	double		m = 0.0;

	for (int64_t i = 0; i < count; i++)
	{
		if (isnan(x[i]))
			return NAN;
		m = fmax(m, fabs(x[i]));
	}
	return m;
}

/* The larger of two bounds, NaN if either is (fmax would drop it). */
static double
LargerBound(double a, double b)
{
	return isnan(a) || isnan(b) ? NAN : fmax(a, b);
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
 * ---- the chain sampler: parallel tempering over several chains ----
 *
 * A model that can be sampled neither by enumeration nor through a junction
 * tree is sampled by MRF_SAMPLE_CHAINS independent chains, each a ladder of
 * replicas at inverse temperatures 1 = beta_0 > beta_1 > ... > beta_{R-1}
 * (parallel tempering, Swendsen and Wang 1986, Geyer 1991; Earl and Deem
 * 2005 review it).  Replica r targets
 *
 *     pi_r(z) proportional to exp(F(z) + beta_r U(z)),
 *
 * F the fields (one-variable terms: Ising and t-wise order-1 terms,
 * pairwise theta, one-variable cliques) and U every coupling (terms of two
 * or more variables).  Only the couplings are tempered: the hottest replica
 * is then a weakly coupled model that a Gibbs sweep mixes fast, while the
 * fields, which no mode separation comes from, add no variance to the swap
 * ratios.  Each round sweeps every replica of every chain once (one
 * systematic-scan Gibbs sweep at its beta) and then proposes swaps of the
 * states of neighbouring replicas, even pairs on even rounds and odd pairs
 * on odd rounds (the deterministic even-odd scheme: Okabe et al. 2001,
 * Syed et al. 2022), each accepted with probability
 *
 *     min(1, exp((beta_r - beta_{r+1}) (U(z_{r+1}) - U(z_r)))),
 *
 * the Metropolis ratio of the product target, so every replica keeps its
 * pi_r and replica 0 the model itself.  U(z_{r+1}) - U(z_r) is read off
 * the replicas' running sums of U, or, for a model whose couplings pass
 * CHAIN_SWAP_MAX_ENERGY, summed term by term over the two states
 * (ChainKind.swap_energy).  A chain stuck in one mode at beta
 * 1 gets a state from the hot end, where the modes connect.
 *
 * The ladder: beta_{R-1} = min(1, 1 / (2 L)), L the largest over variables
 * of the summed influence bounds of the other variables on it (Ising:
 * sum_j |S_ij|; see each kind's strength).  Below that, Dobrushin's
 * uniqueness condition holds with coefficient 1/2 and a Gibbs sweep
 * contracts (Dobrushin 1970; Dyer, Goldberg and Jerrum 2009 for the sweep),
 * so the hot replica mixes in a few sweeps.  A model whose L is at most 1/2
 * is that fast at beta 1: one replica a chain.  Otherwise R temperatures
 * evenly spaced in log beta, R - 1 = ceil(log(1 / beta_min) sqrt(p) / 2)
 * (clamped to MRF_SAMPLE_MAX_TEMPERATURES): the energy's standard deviation
 * grows as sqrt(p), so neighbouring betas must come closer as 1 / sqrt(p)
 * for swaps to be accepted.
 *
 * The schedule: burn_in rounds, then one row from replica 0 of each chain
 * every thin rounds, rows interleaved (row m from chain m mod C).
 */

/*
 * One kind's chain as the driver sees it.  sweep runs a systematic scan of
 * state z at inverse temperature beta and returns the change of U(z);
 * couplings is U(z); swap_energy is U(w) - U(z) summed, compensated, over
 * the terms where z and w differ (a huge term alike in both states adds
 * exactly 0); start draws a uniform state; keep writes z as one output
 * row; code is variable i's value 0..card-1 (for the diagnostics).
 */
typedef struct ChainKind
{
	double		(*sweep) (const void *model, void *z, double beta, MrfRng *rng);
	double		(*couplings) (const void *model, const void *z);
	double		(*swap_energy) (const void *model, const void *z, const void *w);
	void		(*start) (const void *model, void *z, MrfRng *rng);
	void		(*keep) (const void *model, const void *z, void *row);
	int			(*code) (const void *z, int i);
	const void *model;
	int			p;
	const int  *card;			/* p alphabets, or NULL: every variable has k */
	int			k;
	size_t		state_bytes;
	size_t		row_bytes;
	int64_t		work;			/* multiply-adds of one sweep (for polling) */
	double		strength;		/* L: the largest summed influence on a variable */
	double		bound;			/* the largest sum of |parameters| a conditional adds */
} ChainKind;

/*
 * A conditional's log-weights are sums of the model's parameters: when the
 * largest sum of their absolute values stays below this, no partial sum
 * overflows (beta <= 1) and neither does the difference of two log-weights
 * a draw takes (DrawTempered's normalisation, the spin chains' 2 h), so no
 * conditional is NaN.  Above it (finite parameters near 1e308) the chains
 * refuse the model with MRF_ERANGE, as the exact samplers do, instead of
 * drawing from NaN weights.
 */
#define CHAIN_MAX_BOUND (DBL_MAX / 4.0)

/*
 * A swap's ratio reads U(z_{r+1}) - U(z_r) off the replicas' running sums
 * U; those are exact to about |U| DBL_EPSILON a round, |U| at most p bound
 * / 2 (every coupling counted in two conditionals or more).  A model whose
 * couplings pass this (one coupling of 1e300 beside ordinary ones, say)
 * would round the ordinary terms away, its swaps then accepted whatever
 * their ratio and replica 0 no longer keeping the model (a 20-spin chain
 * at coupling 1.5 beside one of 1e300 drew neighbours equal 0.63 of the
 * time instead of 0.95).  Such a model's swaps take the difference term by
 * term instead (ChainKind.swap_energy; a term alike in both states adds
 * nothing, so a huge coupling both states satisfy leaves the ordinary
 * terms exact), a pass over the couplings a swap; below the bound the
 * running sums, within 1e-9 a round, cost nothing.  Running one
 * temperature instead left a two-mode model in the mode each chain started
 * in (20 spins at coupling 0.2 beside one of 1e7: every chain's rows all
 * in one mode, R-hat infinite; test_sample TestChainHugeCouplingModes).
 */
#define CHAIN_SWAP_MAX_ENERGY (1e-9 / DBL_EPSILON)

/*
 * Adds x to the compensated sum (*sum, *comp) (Neumaier 1974,
 * "Rundungsfehleranalyse einiger Verfahren zur Summation endlicher
 * Summen", ZAMM 54): the bits a large term rounds away are kept in *comp,
 * so a huge term and its opposite cancel without taking the ordinary terms
 * with them.  The sum is *sum + *comp; NaN (opposite infinities) when the
 * terms overflow.
 */
static inline void
SwapSum(double *sum, double *comp, double x)
{
	double		t = *sum + x;

	if (fabs(*sum) >= fabs(x))
		*comp += (*sum - t) + x;
	else
		*comp += (x - t) + *sum;
	*sum = t;
}

/* One replica: its state and its couplings U. */
typedef struct Replica
{
	void	   *z;
	double		u;
} Replica;

/* Variable i's alphabet. */
static inline int
KindCard(const ChainKind *kind, int i)
{
	return kind->card != NULL ? kind->card[i] : kind->k;
}

/* See the ladder above: R betas into beta (at most MRF_SAMPLE_MAX_TEMPERATURES). */
static int
ChainLadder(double strength, int p, double *beta)
{
	double		betaMin;
	double		span;
	double		want;
	int			rungs;
	int			r;

	beta[0] = 1.0;
	if (!(strength > 0.5))
		return 1;
	betaMin = 0.5 / strength;
	span = log(1.0 / betaMin);
	/* capped as a double: only a value within int's range may be cast */
	want = 1.0 + ceil(span * sqrt((double) p) / 2.0);
	rungs = want < MRF_SAMPLE_MAX_TEMPERATURES ? (int) want : MRF_SAMPLE_MAX_TEMPERATURES;
	if (rungs < 2)
		rungs = 2;
	for (r = 1; r < rungs; r++)
		beta[r] = exp(-span * r / (rungs - 1));
	return rungs;
}

/*
 * Split R-hat (Gelman et al., Bayesian Data Analysis, 3rd ed., 11.4) of
 * every value indicator of every variable over the 2C half-chains of
 * draws draws each: the square root of (W (N - 1) / N + B / N) / W, W the
 * mean within-sequence variance, B / N the variance of the sequence means.
 * count holds, per sequence, the draws of each (variable, value) at
 * offset[i] + value.  An indicator constant in every sequence is skipped;
 * one constant within sequences but different between them is infinite.
 */
static void
SplitRhat(const ChainKind *kind, const int64_t *count, const int64_t *offset,
		  int64_t stats, int sequences, int64_t draws, MrfChainReport *report)
{
	double		n = (double) draws;
	int			i;

	report->rhat = draws >= MRF_SAMPLE_RHAT_MIN_DRAWS ? 1.0 : NAN;
	report->rhat_variable = -1;
	report->rhat_value = -1;
	if (draws < MRF_SAMPLE_RHAT_MIN_DRAWS)
		return;
	for (i = 0; i < kind->p; i++)
	{
		/* a binary variable's two indicators have the same R-hat */
		int			first = KindCard(kind, i) == 2 ? 1 : 0;

		for (int a = first; a < KindCard(kind, i); a++)
		{
			double		grand = 0.0;
			double		within = 0.0;
			double		between = 0.0;
			double		rhat;
			int			s;

			for (s = 0; s < sequences; s++)
				grand += (double) count[s * stats + offset[i] + a] / n;
			grand /= sequences;
			for (s = 0; s < sequences; s++)
			{
				double		mean = (double) count[s * stats + offset[i] + a] / n;

				within += mean * (1.0 - mean) * n / (n - 1.0);
				between += (mean - grand) * (mean - grand);
			}
			within /= sequences;
			between /= sequences - 1;
			if (within <= 0.0)
				rhat = between > 0.0 ? INFINITY : 1.0;
			else
				rhat = sqrt(((n - 1.0) / n * within + between) / within);
			if (report->rhat_variable < 0 || rhat > report->rhat)
			{
				report->rhat = rhat;
				report->rhat_variable = i;
				report->rhat_value = a;
			}
		}
	}
}

/*
 * The chain sampler (see above): n rows into out, the diagnostics into
 * report (may be NULL).  Polls by work done rather than by rounds.
 */
static MrfStatus
RunChains(const ChainKind *kind, int64_t n, int burn_in, int thin,
		  MrfRng *rng, const MrfEnv *env, void *out, MrfChainReport *report)
{
	const int	chains = MRF_SAMPLE_CHAINS;
	double		beta[MRF_SAMPLE_MAX_TEMPERATURES];
	int			rungs;
	int64_t		perChain = (n + chains - 1) / chains;
	int64_t		kept = perChain * (int64_t) thin;
	int64_t		rounds = (int64_t) burn_in + kept;
	int64_t		half = kept / 2;
	int64_t		roundWork;
	int64_t		roundsPerPoll;
	int64_t		stats = 0;
	int64_t    *offset;
	int64_t    *count;
	int64_t		tried[MRF_SAMPLE_MAX_TEMPERATURES];
	double		accepted[MRF_SAMPLE_MAX_TEMPERATURES];
	Replica    *rep;
	char	   *states;
	int64_t		t;
	int			c;
	int			r;
	int			i;
	int			precise;

	if (!(kind->bound <= CHAIN_MAX_BOUND))
		return MRF_ERANGE;

	/*
	 * The ladder after the refusal: a model whose couplings sum past DBL_MAX
	 * has an infinite strength (at most the bound), whose ladder would cast
	 * an infinite rung count to int, which C leaves undefined.
	 */
	rungs = ChainLadder(kind->strength, kind->p, beta);
	/* running sums whose differences would round ordinary terms away: term by term */
	precise = !(0.5 * kind->p * kind->bound <= CHAIN_SWAP_MAX_ENERGY);
	offset = MrfAlloc(env, sizeof(int64_t) * ((size_t) kind->p + 1));
	if (offset == NULL)
		return MRF_ENOMEM;
	for (i = 0; i < kind->p; i++)
	{
		offset[i] = stats;
		stats += KindCard(kind, i);
	}
	offset[kind->p] = stats;
	count = MrfAlloc(env, sizeof(int64_t) * (size_t) (2 * chains) * (size_t) stats);
	rep = MrfAlloc(env, sizeof(Replica) * (size_t) chains * rungs);
	states = MrfAlloc(env, kind->state_bytes * (size_t) chains * rungs);
	if (count == NULL || rep == NULL || states == NULL)
	{
		MrfFree(env, offset);
		MrfFree(env, count);
		MrfFree(env, rep);
		MrfFree(env, states);
		return MRF_ENOMEM;
	}
	memset(tried, 0, sizeof(tried));
	memset(accepted, 0, sizeof(accepted));
	for (c = 0; c < chains * rungs; c++)
	{
		rep[c].z = states + (size_t) c * kind->state_bytes;
		kind->start(kind->model, rep[c].z, rng);
		rep[c].u = kind->couplings(kind->model, rep[c].z);
	}

	/* a term-by-term swap is about a sweep's work: rungs / 2 of them a round */
	roundWork = kind->work * chains * (rungs + (precise ? rungs / 2 : 0));
	roundsPerPoll = MRF_GIBBS_POLL_WORK / (roundWork > 0 ? roundWork : 1);
	if (roundsPerPoll < 1)
		roundsPerPoll = 1;
	MrfPoll(env, 0, rounds);
	for (t = 0; t < rounds; t++)
	{
		for (c = 0; c < chains; c++)
		{
			Replica    *ladder = rep + (size_t) c * rungs;

			for (r = 0; r < rungs; r++)
				ladder[r].u += kind->sweep(kind->model, ladder[r].z, beta[r], rng);
			for (r = (int) (t & 1); r + 1 < rungs; r += 2)
			{
				double		du = precise ?
					kind->swap_energy(kind->model, ladder[r].z, ladder[r + 1].z) :
					ladder[r + 1].u - ladder[r].u;
				double		logRatio = (beta[r] - beta[r + 1]) * du;

				/*
				 * NaN (terms past DBL_MAX both ways) is NaN both ways: never
				 * swapped, which keeps the product target
				 */
				double		accept = logRatio >= 0.0 ? 1.0 :
					(logRatio < 0.0 ? exp(logRatio) : 0.0);

				tried[r]++;
				accepted[r] += accept;
				if (MrfRngUniform(rng) < accept)
				{
					Replica		swap = ladder[r];

					ladder[r] = ladder[r + 1];
					ladder[r + 1] = swap;
				}
			}
		}
		if (t >= burn_in)
		{
			int64_t		after = t - burn_in;
			int			seq = after < half ? 0 : (after >= kept - half ? 1 : -1);

			/* the draws of each half-chain, for the split R-hat */
			for (c = 0; seq >= 0 && c < chains; c++)
			{
				int64_t    *row = count + (size_t) (2 * c + seq) * stats;

				for (i = 0; i < kind->p; i++)
					row[offset[i] + kind->code(rep[(size_t) c * rungs].z, i)]++;
			}
			if ((after + 1) % thin == 0)
				for (c = 0; c < chains; c++)
				{
					int64_t		m = (after / thin) * chains + c;

					if (m < n)
						kind->keep(kind->model, rep[(size_t) c * rungs].z,
								   (char *) out + (size_t) m * kind->row_bytes);
				}
		}
		if ((t + 1) % roundsPerPoll == 0)
			MrfPoll(env, t + 1, rounds);
	}
	MrfPoll(env, rounds, rounds);

	if (report != NULL)
	{
		report->chains = chains;
		report->temperatures = rungs;
		report->beta_min = beta[rungs - 1];
		report->swap_rate = rungs > 1 ? 1.0 : NAN;
		for (r = 0; r + 1 < rungs; r++)
			if (tried[r] > 0 && accepted[r] / tried[r] < report->swap_rate)
				report->swap_rate = accepted[r] / tried[r];
		SplitRhat(kind, count, offset, stats, 2 * chains, half, report);
	}
	MrfFree(env, offset);
	MrfFree(env, count);
	MrfFree(env, rep);
	MrfFree(env, states);
	return MRF_OK;
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
	if (LogWeightsToCdf(cdf, states) != MRF_OK)
	{
		MrfFree(env, cdf);
		return MRF_ERANGE;
	}

	DrawSpinStates(cdf, states, p, n, rng, env, out);

	MrfFree(env, cdf);
	return MRF_OK;
}

/* An Ising model as its chains see it: the couplings and the fields. */
typedef struct IsingChain
{
	const MrfNeighbours *nb;
	const double *theta;
} IsingChain;

/*
 * One systematic-scan sweep at inverse temperature beta: for i = 0..p-1
 * resample z_i from P(z_i = +1 | rest) = sigmoid(2 (theta_i + beta c_i)),
 * c_i = sum_j S_ij z_j; U changes by (z_i' - z_i) c_i.  The coupling sum
 * is recomputed from the neighbours at every update rather than maintained
 * incrementally, so no rounding drift accumulates over long chains.
 * 1 / (1 + exp(-2h)) is safe at both ends in IEEE arithmetic (exp
 * overflows to inf, giving 0).
 */
static double
IsingSweep(const void *model, void *state, double beta, MrfRng *rng)
{
	const IsingChain *chain = model;
	const MrfNeighbours *nb = chain->nb;
	double	   *z = state;
	double		du = 0.0;
	int			i;

	for (i = 0; i < nb->p; i++)
	{
		double		c = 0.0;
		double		zi;
		int64_t		k;

		for (k = nb->start[i]; k < nb->start[i + 1]; k++)
			c += nb->weight[k] * z[nb->col[k]];
		zi = (MrfRngUniform(rng) < 1.0 / (1.0 + exp(-2.0 * (chain->theta[i] + beta * c)))) ? 1.0 : -1.0;
		du += (zi - z[i]) * c;
		z[i] = zi;
	}
	return du;
}

/* U(z) = sum_{i<j} S_ij z_i z_j. */
static double
IsingCouplings(const void *model, const void *state)
{
	const MrfNeighbours *nb = ((const IsingChain *) model)->nb;
	const double *z = state;
	double		u = 0.0;
	int			i;

	for (i = 0; i < nb->p; i++)
		for (int64_t k = nb->start[i]; k < nb->start[i + 1]; k++)
			if (nb->col[k] > i)
				u += nb->weight[k] * z[i] * z[nb->col[k]];
	return u;
}

/* U(w) - U(z) term by term (ChainKind.swap_energy). */
static double
IsingSwapEnergy(const void *model, const void *from, const void *to)
{
	const MrfNeighbours *nb = ((const IsingChain *) model)->nb;
	const double *z = from;
	const double *w = to;
	double		sum = 0.0;
	double		comp = 0.0;

	for (int i = 0; i < nb->p; i++)
		for (int64_t k = nb->start[i]; k < nb->start[i + 1]; k++)
		{
			int			j = nb->col[k];

			if (j > i && w[i] * w[j] != z[i] * z[j])
				SwapSum(&sum, &comp, nb->weight[k] * (w[i] * w[j] - z[i] * z[j]));
		}
	return sum + comp;
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
IsingKeep(const void *model, const void *state, void *row)
{
	SpinsKeep(state, ((const IsingChain *) model)->nb->p, row);
}

/* A uniformly random start of a +-1 chain. */
static void
SpinsStart(double *z, int p, MrfRng *rng)
{
	int			i;

	for (i = 0; i < p; i++)
		z[i] = (MrfRngBelow(rng, 2) == 1) ? 1.0 : -1.0;
}

/* A uniformly random start of an Ising chain. */
static void
IsingStart(const void *model, void *state, MrfRng *rng)
{
	SpinsStart(state, ((const IsingChain *) model)->nb->p, rng);
}

/* The code of a spin: 1 for +1, 0 for -1 (as the clique form codes it). */
static int
SpinCode(const void *state, int i)
{
	return ((const double *) state)[i] > 0.0;
}

/*
 * Dobrushin's influence bound of spin j on spin i is tanh(|S_ij|) <= |S_ij|;
 * the strength is the largest sum over j.
 */
static double
IsingStrength(const MrfNeighbours *nb)
{
	double		strength = 0.0;
	int			i;

	for (i = 0; i < nb->p; i++)
	{
		double		sum = 0.0;

		for (int64_t k = nb->start[i]; k < nb->start[i + 1]; k++)
			sum += fabs(nb->weight[k]);
		if (sum > strength)
			strength = sum;
	}
	return strength;
}

/* The chain sampler (RunChains) on an Ising model. */
static MrfStatus
SampleIsingChains(const MrfNeighbours *nb, const double *theta, int p,
				  int64_t n, int burn_in, int thin, MrfRng *rng,
				  const MrfEnv *env, int8_t *out, MrfChainReport *report)
{
	IsingChain	model = {nb, theta};
	ChainKind	kind;

	memset(&kind, 0, sizeof(kind));
	kind.sweep = IsingSweep;
	kind.couplings = IsingCouplings;
	kind.swap_energy = IsingSwapEnergy;
	kind.start = IsingStart;
	kind.keep = IsingKeep;
	kind.code = SpinCode;
	kind.model = &model;
	kind.p = p;
	kind.k = 2;
	kind.state_bytes = sizeof(double) * (size_t) p;
	kind.row_bytes = (size_t) p;
	kind.work = (int64_t) p + nb->nnz;
	kind.strength = IsingStrength(nb);
	for (int i = 0; i < p; i++)
	{
		double		sum = fabs(theta[i]);

		for (int64_t k = nb->start[i]; k < nb->start[i + 1]; k++)
			sum += fabs(nb->weight[k]);
		kind.bound = LargerBound(kind.bound, sum);
	}
	return RunChains(&kind, n, burn_in, thin, rng, env, out, report);
}

/* Draws n samples of an Ising model (MrfIsingSampleWith with no report). */
MrfStatus
MrfIsingSample(const double *A, const double *theta, int p, int64_t n,
			   int burn_in, int thin, MrfRng *rng, const MrfEnv *env,
			   int8_t *out)
{
	MrfSampleOptions opt = {burn_in, thin, 0, 0, NULL};

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
		status = SampleIsingChains(&nb, theta, p, n, burn_in, thin, rng, env,
								   out, opt->report);
	if (used != NULL)
		*used = p <= MRF_EXACT_MAX_P ? MRF_SAMPLER_ENUMERATE : MRF_SAMPLER_CHAINS;

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
	if (LogWeightsToCdf(w, states) != MRF_OK)
	{
		MrfFree(env, w);
		return MRF_ERANGE;
	}

	DrawSpinStates(w, states, p, n, rng, env, out);
	MrfFree(env, w);
	return MRF_OK;
}

/* A t-wise model as its chains see it: the monomials by node. */
typedef struct TwiseChain
{
	const TwiseIncidence *inc;
	int			p;
} TwiseChain;

/*
 * One systematic-scan sweep at inverse temperature beta: z_i from
 * sigmoid(2 (f_i + beta c_i)), f_i the order-1 coefficient of i and c_i the
 * sum over i's larger monomials; U changes by (z_i' - z_i) c_i.  The sums
 * are recomputed from the monomials of i at every update (no drift).
 */
static double
TwiseSweep(const void *model, void *state, double beta, MrfRng *rng)
{
	const TwiseChain *chain = model;
	const TwiseIncidence *inc = chain->inc;
	double	   *z = state;
	double		du = 0.0;
	int			i;

	for (i = 0; i < chain->p; i++)
	{
		double		f = 0.0;
		double		c = 0.0;
		double		zi;
		int64_t		e;

		for (e = inc->start[i]; e < inc->start[i + 1]; e++)
		{
			const int  *v = inc->vars + inc->first[e];
			double		term = inc->coef[e];
			int			l;

			if (inc->count[e] == 0)
			{
				f += term;
				continue;
			}
			for (l = 0; l < inc->count[e]; l++)
				term *= z[v[l]];
			c += term;
		}
		zi = (MrfRngUniform(rng) < 1.0 / (1.0 + exp(-2.0 * (f + beta * c)))) ? 1.0 : -1.0;
		du += (zi - z[i]) * c;
		z[i] = zi;
	}
	return du;
}

/*
 * U(z) = sum over monomials J of two or more variables of c_J prod z_J:
 * each is listed once per member, so each member adds its share 1 / |J|.
 */
static double
TwiseCouplings(const void *model, const void *state)
{
	const TwiseChain *chain = model;
	const TwiseIncidence *inc = chain->inc;
	const double *z = state;
	double		u = 0.0;
	int			i;

	for (i = 0; i < chain->p; i++)
		for (int64_t e = inc->start[i]; e < inc->start[i + 1]; e++)
		{
			const int  *v = inc->vars + inc->first[e];
			double		term = inc->coef[e] * z[i];

			if (inc->count[e] == 0)
				continue;
			for (int l = 0; l < inc->count[e]; l++)
				term *= z[v[l]];
			u += term / (inc->count[e] + 1);
		}
	return u;
}

/* U(w) - U(z) term by term, each monomial's share per member as TwiseCouplings. */
static double
TwiseSwapEnergy(const void *model, const void *from, const void *to)
{
	const TwiseChain *chain = model;
	const TwiseIncidence *inc = chain->inc;
	const double *z = from;
	const double *w = to;
	double		sum = 0.0;
	double		comp = 0.0;

	for (int i = 0; i < chain->p; i++)
		for (int64_t e = inc->start[i]; e < inc->start[i + 1]; e++)
		{
			const int  *v = inc->vars + inc->first[e];
			double		pz = z[i];
			double		pw = w[i];

			if (inc->count[e] == 0)
				continue;
			for (int l = 0; l < inc->count[e]; l++)
			{
				pz *= z[v[l]];
				pw *= w[v[l]];
			}
			if (pw != pz)
				SwapSum(&sum, &comp, inc->coef[e] * (pw - pz) / (inc->count[e] + 1));
		}
	return sum + comp;
}

/* A t-wise chain's state as one output row. */
static void
TwiseKeep(const void *model, const void *state, void *row)
{
	SpinsKeep(state, ((const TwiseChain *) model)->p, row);
}

/* A uniformly random start of a t-wise chain. */
static void
TwiseStart(const void *model, void *state, MrfRng *rng)
{
	SpinsStart(state, ((const TwiseChain *) model)->p, rng);
}

/*
 * Flipping z_j moves 2 (f_i + c_i) by 4 |c_J| for each monomial J holding i
 * and j, so Dobrushin's bound of j's influence on i is at most the sum of
 * those |c_J|; summed over j, each monomial of i counts |J| - 1 times.
 */
static double
TwiseStrength(const TwiseIncidence *inc, int p)
{
	double		strength = 0.0;
	int			i;

	for (i = 0; i < p; i++)
	{
		double		sum = 0.0;

		for (int64_t e = inc->start[i]; e < inc->start[i + 1]; e++)
			sum += fabs(inc->coef[e]) * inc->count[e];
		if (sum > strength)
			strength = sum;
	}
	return strength;
}

/* The chain sampler (RunChains) on a t-wise model. */
static MrfStatus
SampleTwiseChains(const TwiseIncidence *inc, int p, int64_t n, int burn_in,
				  int thin, MrfRng *rng, const MrfEnv *env, int8_t *out,
				  MrfChainReport *report)
{
	TwiseChain	model = {inc, p};
	ChainKind	kind;

	memset(&kind, 0, sizeof(kind));
	kind.sweep = TwiseSweep;
	kind.couplings = TwiseCouplings;
	kind.swap_energy = TwiseSwapEnergy;
	kind.start = TwiseStart;
	kind.keep = TwiseKeep;
	kind.code = SpinCode;
	kind.model = &model;
	kind.p = p;
	kind.k = 2;
	kind.state_bytes = sizeof(double) * (size_t) p;
	kind.row_bytes = (size_t) p;
	kind.work = inc->work;
	kind.strength = TwiseStrength(inc, p);
	for (int i = 0; i < p; i++)
	{
		double		sum = 0.0;

		for (int64_t e = inc->start[i]; e < inc->start[i + 1]; e++)
			sum += fabs(inc->coef[e]);
		kind.bound = LargerBound(kind.bound, sum);
	}
	return RunChains(&kind, n, burn_in, thin, rng, env, out, report);
}

/* Draws n samples of a t-wise model, exactly for small p, by chains otherwise. */
MrfStatus
MrfTwiseSample(const double *coef, int p, int t, int64_t n, int burn_in,
			   int thin, MrfRng *rng, const MrfEnv *env, int8_t *out)
{
	MrfSampleOptions opt = {burn_in, thin, 0, 0, NULL};

	return MrfTwiseSampleWith(coef, p, t, n, &opt, rng, env, out, NULL);
}

/* See sample.h. */
MrfStatus
MrfTwiseSampleWith(const double *coef, int p, int t, int64_t n,
				   const MrfSampleOptions *opt, MrfRng *rng, const MrfEnv *env,
				   int8_t *out, MrfSampler *used)
{
	int			burn_in = opt->burn_in;
	int			thin = opt->thin;
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
	if (used != NULL)
		*used = p <= MRF_EXACT_MAX_P ? MRF_SAMPLER_ENUMERATE : MRF_SAMPLER_CHAINS;
	if (n == 0)
		return MRF_OK;

	if (p <= MRF_EXACT_MAX_P)
		return SampleTwiseExact(coef, p, t, n, rng, env, out);

	status = TwiseIncidenceBuild(coef, p, t, env, &inc);
	if (status != MRF_OK)
		return status;
	status = SampleTwiseChains(&inc, p, n, burn_in, thin, rng, env, out, opt->report);
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
	if (LogWeightsToCdf(cdf, states) != MRF_OK)
	{
		MrfFree(env, z);
		MrfFree(env, cdf);
		return MRF_ERANGE;
	}

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

/* A pairwise model as its chains see it: the blocks by node and the fields. */
typedef struct PairwiseChain
{
	const PairwiseNeighbours *nb;
	const double *theta;
} PairwiseChain;

/*
 * A categorical draw from log-weights f[a] + beta c[a], a < k (w: k
 * doubles of scratch).
 */
static int
DrawTempered(const double *f, const double *c, double beta, int k,
			 double *w, MrfRng *rng)
{
	int			a;

	for (a = 0; a < k; a++)
		w[a] = f[a] + beta * c[a];
	/* cannot fail: RunChains refused a model whose conditionals could overflow (CHAIN_MAX_BOUND) */
	(void) LogWeightsToCdf(w, k);
	return (int) DrawFromCdf(w, k, rng);
}

/*
 * One systematic-scan sweep at inverse temperature beta: z_i drawn from
 * log-weights theta_i(a) + beta c_i(a), c_i(a) = sum_j S_ij(a, z_j)
 * recomputed from the neighbours at every update (no drift); U changes by
 * c_i(z_i') - c_i(z_i).
 */
static double
PairwiseSweep(const void *model, void *state, double beta, MrfRng *rng)
{
	const PairwiseChain *chain = model;
	const PairwiseNeighbours *nb = chain->nb;
	const int	k = nb->k;
	uint8_t    *z = state;
	double		c[256];
	double		w[256];
	double		du = 0.0;
	int			i;

	for (i = 0; i < nb->p; i++)
	{
		int64_t		e;
		int			a;

		memset(c, 0, sizeof(double) * k);
		for (e = nb->start[i]; e < nb->start[i + 1]; e++)
		{
			const double *terms = nb->block + (size_t) e * k * k +
				(size_t) z[nb->col[e]] * k;

			for (a = 0; a < k; a++)
				c[a] += terms[a];
		}
		a = DrawTempered(chain->theta + (size_t) i * k, c, beta, k, w, rng);
		du += c[a] - c[z[i]];
		z[i] = (uint8_t) a;
	}
	return du;
}

/* U(z) = sum_{i<j} S_ij(z_i, z_j). */
static double
PairwiseCouplings(const void *model, const void *state)
{
	const PairwiseNeighbours *nb = ((const PairwiseChain *) model)->nb;
	const int	k = nb->k;
	const uint8_t *z = state;
	double		u = 0.0;
	int			i;

	for (i = 0; i < nb->p; i++)
		for (int64_t e = nb->start[i]; e < nb->start[i + 1]; e++)
			if (nb->col[e] > i)
				u += nb->block[(size_t) e * k * k + (size_t) z[nb->col[e]] * k + z[i]];
	return u;
}

/* U(w) - U(z) term by term (ChainKind.swap_energy). */
static double
PairwiseSwapEnergy(const void *model, const void *from, const void *to)
{
	const PairwiseNeighbours *nb = ((const PairwiseChain *) model)->nb;
	const int	k = nb->k;
	const uint8_t *z = from;
	const uint8_t *w = to;
	double		sum = 0.0;
	double		comp = 0.0;

	for (int i = 0; i < nb->p; i++)
		for (int64_t e = nb->start[i]; e < nb->start[i + 1]; e++)
		{
			const double *b = nb->block + (size_t) e * k * k;
			int			j = nb->col[e];

			if (j > i && (z[i] != w[i] || z[j] != w[j]))
				SwapSum(&sum, &comp, b[(size_t) w[j] * k + w[i]] - b[(size_t) z[j] * k + z[i]]);
		}
	return sum + comp;
}

/* A chain of byte values (pairwise) as one output row. */
static void
ValuesKeep(const uint8_t *z, int p, void *row)
{
	memcpy(row, z, (size_t) p);
}

/* A pairwise chain's state as one output row. */
static void
PairwiseKeep(const void *model, const void *state, void *row)
{
	ValuesKeep(state, ((const PairwiseChain *) model)->nb->p, row);
}

/* A uniformly random start of a chain of values 0..k-1. */
static void
ValuesStart(uint8_t *z, int p, int k, MrfRng *rng)
{
	int			i;

	for (i = 0; i < p; i++)
		z[i] = (uint8_t) MrfRngBelow(rng, (uint64_t) k);
}

/* A uniformly random start of a pairwise chain. */
static void
PairwiseStart(const void *model, void *state, MrfRng *rng)
{
	const PairwiseNeighbours *nb = ((const PairwiseChain *) model)->nb;

	ValuesStart(state, nb->p, nb->k, rng);
}

/* The code of a byte value. */
static int
ValueCode(const void *state, int i)
{
	return ((const uint8_t *) state)[i];
}

/*
 * Dobrushin's influence bound of z_j on z_i: changing z_j from b to b' moves
 * i's log-weights by d(a) = S_ij(a, b) - S_ij(a, b'), which moves its
 * conditional by at most tanh(osc(d) / 4) <= osc(d) / 4 in total variation
 * (osc: largest minus smallest entry).  Up to 16 values the largest osc(d)
 * is computed; above, twice the block's range bounds it.  The strength is
 * the largest sum over j.
 */
static double
PairwiseStrength(const PairwiseNeighbours *nb)
{
	const int	k = nb->k;
	double		strength = 0.0;
	int			i;

	for (i = 0; i < nb->p; i++)
	{
		double		sum = 0.0;

		for (int64_t e = nb->start[i]; e < nb->start[i + 1]; e++)
		{
			const double *blk = nb->block + (size_t) e * k * k;
			double		osc = 0.0;

			if (k <= 16)
				for (int b = 0; b < k; b++)
					for (int b2 = b + 1; b2 < k; b2++)
					{
						double		lo = INFINITY;
						double		hi = -INFINITY;

						for (int a = 0; a < k; a++)
						{
							double		d = blk[(size_t) b * k + a] - blk[(size_t) b2 * k + a];

							lo = d < lo ? d : lo;
							hi = d > hi ? d : hi;
						}
						osc = hi - lo > osc ? hi - lo : osc;
					}
			else
			{
				double		lo = INFINITY;
				double		hi = -INFINITY;

				for (size_t x = 0; x < (size_t) k * k; x++)
				{
					lo = blk[x] < lo ? blk[x] : lo;
					hi = blk[x] > hi ? blk[x] : hi;
				}
				osc = 2.0 * (hi - lo);
			}
			sum += osc / 4.0;
		}
		if (sum > strength)
			strength = sum;
	}
	return strength;
}

/* The chain sampler (RunChains) on a pairwise model. */
static MrfStatus
SamplePairwiseChains(const PairwiseNeighbours *nb, const double *theta,
					 int64_t n, int burn_in, int thin, MrfRng *rng,
					 const MrfEnv *env, uint8_t *out, MrfChainReport *report)
{
	PairwiseChain model = {nb, theta};
	ChainKind	kind;

	memset(&kind, 0, sizeof(kind));
	kind.sweep = PairwiseSweep;
	kind.couplings = PairwiseCouplings;
	kind.swap_energy = PairwiseSwapEnergy;
	kind.start = PairwiseStart;
	kind.keep = PairwiseKeep;
	kind.code = ValueCode;
	kind.model = &model;
	kind.p = nb->p;
	kind.k = nb->k;
	kind.state_bytes = (size_t) nb->p;
	kind.row_bytes = (size_t) nb->p;
	kind.work = ((int64_t) nb->p + nb->nnz) * nb->k;
	kind.strength = PairwiseStrength(nb);
	for (int i = 0; i < nb->p; i++)
	{
		double		sum = MaxAbs(theta + (size_t) i * nb->k, nb->k);

		for (int64_t e = nb->start[i]; e < nb->start[i + 1]; e++)
			sum += MaxAbs(nb->block + (size_t) e * nb->k * nb->k, (int64_t) nb->k * nb->k);
		kind.bound = LargerBound(kind.bound, sum);
	}
	return RunChains(&kind, n, burn_in, thin, rng, env, out, report);
}

/* Draws n samples of a pairwise model (MrfPairwiseSampleWith with no report). */
MrfStatus
MrfPairwiseSample(const double *W, const double *theta, int p, int k,
				  int64_t n, int burn_in, int thin, MrfRng *rng,
				  const MrfEnv *env, uint8_t *out)
{
	MrfSampleOptions opt = {burn_in, thin, 0, 0, NULL};

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
		status = SamplePairwiseChains(&nb, theta, n, burn_in, thin, rng, env,
									  out, opt->report);
	if (used != NULL)
		*used = states > 0 ? MRF_SAMPLER_ENUMERATE : MRF_SAMPLER_CHAINS;
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
	int64_t		s;
	int64_t		r;

	if (cdf == NULL)
		return MRF_ENOMEM;
	memset(z, 0, sizeof(z));
	for (s = 0; s < states; s++)
	{
		cdf[s] = MrfCliquesScore(set, logpot, z);
		MrfCliquesNextStateAlphabets(z, set->p, set->card);
	}
	if (LogWeightsToCdf(cdf, states) != MRF_OK)
	{
		MrfFree(env, cdf);
		return MRF_ERANGE;
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
 * A clique model as its chains see it: for each variable v the cliques that
 * hold it (slots istart[v] .. istart[v + 1] - 1: clique iclq[s], where v's
 * digit has stride istride[s] in its table).
 */
typedef struct CliquesChain
{
	const MrfCliqueSet *set;
	const double *logpot;
	int		   *istart;			/* p + 1 */
	int		   *iclq;			/* slots */
	int64_t    *istride;		/* slots */
	double	   *scratch;		/* 3 k: one conditional's terms (sweeps run one at a time) */
} CliquesChain;

/* Frees the chain's arrays (safe on a partly built one). */
static void
CliquesChainFree(const MrfEnv *env, CliquesChain *chain)
{
	MrfFree(env, chain->istart);
	MrfFree(env, chain->iclq);
	MrfFree(env, chain->istride);
	MrfFree(env, chain->scratch);
}

/* Variables of clique c. */
static inline int
CliqueSize(const MrfCliqueSet *set, int c)
{
	return set->start[c + 1] - set->start[c];
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

	memset(chain, 0, sizeof(*chain));
	chain->set = set;
	chain->logpot = logpot;
	chain->istart = MrfAlloc(env, sizeof(int) * ((size_t) p + 1));
	chain->iclq = MrfAlloc(env, sizeof(int) * (size_t) (nslots > 0 ? nslots : 1));
	chain->istride = MrfAlloc(env, sizeof(int64_t) * (size_t) (nslots > 0 ? nslots : 1));
	chain->scratch = MrfAlloc(env, sizeof(double) * 3 * (size_t) set->k);
	if (chain->istart == NULL || chain->iclq == NULL || chain->istride == NULL ||
		chain->scratch == NULL)
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
 * One systematic-scan sweep at inverse temperature beta: z_v drawn from
 * log-weights f(a) + beta c(a), f from v's one-variable cliques and c from
 * its larger ones; U changes by c(z_v') - c(z_v).
 */
static double
CliquesSweep(const void *model, void *state, double beta, MrfRng *rng)
{
	const CliquesChain *chain = model;
	const MrfCliqueSet *set = chain->set;
	const double *logpot = chain->logpot;
	MrfCode    *z = state;
	double	   *f = chain->scratch;
	double	   *c = f + set->k;
	double	   *w = c + set->k;
	double		du = 0.0;
	int			v;

	for (v = 0; v < set->p; v++)
	{
		int			k = set->card[v];
		int			a;
		int			s;

		for (a = 0; a < k; a++)
			f[a] = c[a] = 0.0;
		for (s = chain->istart[v]; s < chain->istart[v + 1]; s++)
		{
			int			cc = chain->iclq[s];
			int64_t		base = set->offset[cc] + MrfCliqueIndex(set, cc, z) -
				(int64_t) z[v] * chain->istride[s];
			double	   *to = CliqueSize(set, cc) == 1 ? f : c;

			for (a = 0; a < k; a++)
				to[a] += logpot[base + a * chain->istride[s]];
		}
		a = DrawTempered(f, c, beta, k, w, rng);
		du += c[a] - c[z[v]];
		z[v] = (MrfCode) a;
	}
	return du;
}

/* U(z): the log-potentials of the cliques of two or more variables at z. */
static double
CliquesCouplings(const void *model, const void *state)
{
	const CliquesChain *chain = model;
	const MrfCliqueSet *set = chain->set;
	double		u = 0.0;

	for (int c = 0; c < set->m; c++)
		if (CliqueSize(set, c) > 1)
			u += chain->logpot[set->offset[c] + MrfCliqueIndex(set, c, state)];
	return u;
}

/* U(w) - U(z) term by term (ChainKind.swap_energy). */
static double
CliquesSwapEnergy(const void *model, const void *from, const void *to)
{
	const CliquesChain *chain = model;
	const MrfCliqueSet *set = chain->set;
	double		sum = 0.0;
	double		comp = 0.0;

	for (int c = 0; c < set->m; c++)
		if (CliqueSize(set, c) > 1)
		{
			int64_t		a = MrfCliqueIndex(set, c, from);
			int64_t		b = MrfCliqueIndex(set, c, to);

			if (a != b)
				SwapSum(&sum, &comp, chain->logpot[set->offset[c] + b] -
						chain->logpot[set->offset[c] + a]);
		}
	return sum + comp;
}

/* A clique chain's state as one output row. */
static void
CliquesKeep(const void *model, const void *state, void *row)
{
	memcpy(row, state, sizeof(MrfCode) * (size_t) ((const CliquesChain *) model)->set->p);
}

/* The code of a clique chain's variable. */
static int
CliquesCode(const void *state, int i)
{
	return ((const MrfCode *) state)[i];
}

/* A uniform start over each variable's own values. */
static void
CliquesStart(const void *model, void *state, MrfRng *rng)
{
	const MrfCliqueSet *set = ((const CliquesChain *) model)->set;
	MrfCode    *z = state;

	for (int i = 0; i < set->p; i++)
		z[i] = (MrfCode) MrfRngBelow(rng, (uint64_t) set->card[i]);
}

/*
 * Dobrushin's influence bound of one member of a clique on another is at
 * most half the range of the clique's table (a change of the member moves
 * the other's log-weights by d(a) with osc(d) at most twice the range, and
 * the bound is osc(d) / 4); v's strength sums that over the other members
 * of its cliques of two or more variables.
 */
static double
CliquesStrength(const CliquesChain *chain)
{
	const MrfCliqueSet *set = chain->set;
	double		strength = 0.0;

	for (int v = 0; v < set->p; v++)
	{
		double		sum = 0.0;

		for (int s = chain->istart[v]; s < chain->istart[v + 1]; s++)
		{
			int			cc = chain->iclq[s];
			double		lo = INFINITY;
			double		hi = -INFINITY;

			if (CliqueSize(set, cc) == 1)
				continue;
			for (int64_t x = set->offset[cc]; x < set->offset[cc + 1]; x++)
			{
				lo = chain->logpot[x] < lo ? chain->logpot[x] : lo;
				hi = chain->logpot[x] > hi ? chain->logpot[x] : hi;
			}
			sum += (CliqueSize(set, cc) - 1) * (hi - lo) / 2.0;
		}
		if (sum > strength)
			strength = sum;
	}
	return strength;
}

/* The chain sampler (RunChains) on a clique model. */
static MrfStatus
SampleCliquesChains(const MrfCliqueSet *set, const double *logpot, int64_t n,
					int burn_in, int thin, MrfRng *rng, const MrfEnv *env,
					MrfCode *out, MrfChainReport *report)
{
	CliquesChain model;
	ChainKind	kind;
	MrfStatus	status;

	status = CliquesChainBuild(set, logpot, env, &model);
	if (status != MRF_OK)
		return status;
	memset(&kind, 0, sizeof(kind));
	kind.sweep = CliquesSweep;
	kind.couplings = CliquesCouplings;
	kind.swap_energy = CliquesSwapEnergy;
	kind.start = CliquesStart;
	kind.keep = CliquesKeep;
	kind.code = CliquesCode;
	kind.model = &model;
	kind.p = set->p;
	kind.card = set->card;
	kind.k = set->k;
	kind.state_bytes = sizeof(MrfCode) * (size_t) set->p;
	kind.row_bytes = sizeof(MrfCode) * (size_t) set->p;
	kind.work = ((int64_t) set->p + set->start[set->m]) * set->k;
	kind.strength = CliquesStrength(&model);
	for (int v = 0; v < set->p; v++)
	{
		double		sum = 0.0;

		for (int sl = model.istart[v]; sl < model.istart[v + 1]; sl++)
		{
			int			cc = model.iclq[sl];

			sum += MaxAbs(logpot + set->offset[cc], set->offset[cc + 1] - set->offset[cc]);
		}
		kind.bound = LargerBound(kind.bound, sum);
	}
	status = RunChains(&kind, n, burn_in, thin, rng, env, out, report);
	CliquesChainFree(env, &model);
	return status;
}

/* Draws n samples of a clique model (MrfCliquesSampleWith with no report). */
MrfStatus
MrfCliquesSample(const MrfCliqueSet *set, const double *logpot, int64_t n,
				 int burn_in, int thin, MrfRng *rng, const MrfEnv *env,
				 MrfCode *out)
{
	MrfSampleOptions opt = {burn_in, thin, 0, 0, NULL};

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

	if (n < 0 || set->k > MRF_CODE_CARD_MAX)
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
		*used = MRF_SAMPLER_CHAINS;
	return SampleCliquesChains(set, logpot, n, burn_in < 0 ? 0 : burn_in,
							   thin < 1 ? 1 : thin, rng, env, out, opt->report);
}
