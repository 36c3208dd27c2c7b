/*
 * structure.c - structure learning by the stable mode over disjoint blocks
 * (Zhang et al. 2020, Lemma 6.1; SPEC.md 4.5), with the Ising block learner
 * of Wu, Sanghavi and Dimakis (NeurIPS 2019), and the zCDP threshold variant.
 *
 * Privacy lives in three places only: the block assignment (a secure shuffle
 * that never looks at the data), MrfStableModeSelect (discrete Laplace
 * noise and the threshold, calibrated in privacy.c with the proof), and the
 * rule that each block learner reads its own block and nothing else.
 * Everything in between is non-private computation on one block.
 *
 * Block assignment.  A uniformly random permutation from the caller's
 * MrfRng (Fisher-Yates with unbiased MrfRngBelow), cut into m blocks whose
 * sizes depend on n and m only.  We prefer it to cutting by row position for
 * two reasons.  Accuracy: tables are often stored in an order that follows
 * the data (clustered, appended by site or time, or a Gibbs chain whose
 * consecutive samples are correlated), and contiguous blocks would then
 * disagree for reasons that have nothing to do with sampling noise.
 * Semantics: with a shuffle the output distribution depends only on the
 * multiset of rows, so the row order that a parallel scan happens to
 * deliver does not matter, and "replace one row" needs no notion of
 * position.  For every fixed permutation, replacing one row changes exactly
 * one block, which is all the proof in privacy.c needs; the permutation is
 * independent of the data, so the bound holds for the mixture too.
 *
 * Known side channel (documented, not closed): the run time of the
 * non-private solver depends on the data (it stops at a duality-gap
 * tolerance), as does the number of distinct block graphs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "pairwise.h"
#include "privacy.h"
#include "rows.h"
#include "structure.h"
#include "twise.h"

/* Multiplies sizes, saturating at SIZE_MAX so that overflow reads as "too big". */
static size_t
StructSizeMul(size_t a, size_t b)
{
	if (a != 0 && b > SIZE_MAX / a)
		return SIZE_MAX;
	return a * b;
}

/* Adds sizes, saturating at SIZE_MAX. */
static size_t
StructSizeAdd(size_t a, size_t b)
{
	if (b > SIZE_MAX - a)
		return SIZE_MAX;
	return a + b;
}

/* ---------------------------------------------------------------------- */
/* Canonical structures                                                    */
/* ---------------------------------------------------------------------- */

/* An empty structure: no words, nothing allocated. */
void
MrfStructureInit(MrfStructure *s, int p)
{
	memset(s, 0, sizeof(*s));
	s->p = p;
}

/* Frees the words and leaves an empty structure over the same p. */
void
MrfStructureFree(MrfStructure *s, const MrfEnv *env)
{
	int			p = s->p;

	MrfFree(env, s->words);
	MrfStructureInit(s, p);
}

/* Grows the word array geometrically so that appends are amortised O(1). */
static MrfStatus
StructureReserve(MrfStructure *s, const MrfEnv *env, int64_t words)
{
	int64_t		cap;
	int32_t    *grown;

	if (words <= s->capacity)
		return MRF_OK;
	cap = s->capacity < 64 ? 64 : s->capacity;
	while (cap < words)
		cap *= 2;
	grown = MrfAlloc(env, StructSizeMul((size_t) cap, sizeof(int32_t)));
	if (grown == NULL)
		return MRF_ENOMEM;
	if (s->nwords > 0)
		memcpy(grown, s->words, sizeof(int32_t) * (size_t) s->nwords);
	MrfFree(env, s->words);
	s->words = grown;
	s->capacity = cap;
	return MRF_OK;
}

/* Appends [size, vars...]; validation waits for canonicalisation. */
MrfStatus
MrfStructureAdd(MrfStructure *s, const MrfEnv *env, int size,
				const int32_t *vars)
{
	MrfStatus	st;

	if (size < 1 || vars == NULL)
		return MRF_EINVAL;
	st = StructureReserve(s, env, s->nwords + 1 + size);
	if (st != MRF_OK)
		return st;
	s->words[s->nwords] = size;
	memcpy(s->words + s->nwords + 1, vars, sizeof(int32_t) * (size_t) size);
	s->nwords += 1 + size;
	s->nitems++;
	return MRF_OK;
}

/* Items order by size first, so all edges precede all triangles, etc. */
static int
CompareItems(const int32_t *a, const int32_t *b)
{
	int			k;

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	for (k = 1; k <= a[0]; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

/* qsort adaptor: the array holds pointers to items. */
static int
CompareItemPointers(const void *a, const void *b)
{
	return CompareItems(*(const int32_t *const *) a, *(const int32_t *const *) b);
}

/*
 * Sorts each item's variables (insertion sort: items are tiny), sorts the
 * items through an array of pointers, and copies them once into a fresh
 * array, skipping repeats.
 */
MrfStatus
MrfStructureCanonicalize(MrfStructure *s, const MrfEnv *env)
{
	const int32_t **items = NULL;
	int32_t    *out = NULL;
	int64_t		w;
	int64_t		k;
	int64_t		nout = 0;
	int32_t		kept = 0;
	int32_t		count = 0;

	if (s->nitems == 0)
		return MRF_OK;
	items = MrfAlloc(env, StructSizeMul((size_t) s->nitems, sizeof(*items)));
	if (items == NULL)
		return MRF_ENOMEM;
	for (w = 0; w < s->nwords; w += 1 + s->words[w])
	{
		int32_t    *it = s->words + w;
		int			a;

		if (it[0] < 1 || w + 1 + it[0] > s->nwords || count >= s->nitems)
			goto invalid;
		for (a = 1; a <= it[0]; a++)
		{
			int32_t		v = it[a];
			int			b = a - 1;

			if (v < 0 || v >= s->p)
				goto invalid;
			while (b >= 1 && it[b] > v)
			{
				it[b + 1] = it[b];
				b--;
			}
			it[b + 1] = v;
		}
		for (a = 2; a <= it[0]; a++)
			if (it[a] == it[a - 1])
				goto invalid;
		items[count++] = it;
	}
	if (count != s->nitems)
		goto invalid;
	qsort(items, (size_t) count, sizeof(*items), CompareItemPointers);

	out = MrfAlloc(env, StructSizeMul((size_t) s->nwords, sizeof(int32_t)));
	if (out == NULL)
	{
		MrfFree(env, items);
		return MRF_ENOMEM;
	}
	for (k = 0; k < count; k++)
	{
		if (k > 0 && CompareItems(items[k], items[k - 1]) == 0)
			continue;
		memcpy(out + nout, items[k], sizeof(int32_t) * (size_t) (1 + items[k][0]));
		nout += 1 + items[k][0];
		kept++;
	}
	MrfFree(env, items);
	MrfFree(env, s->words);
	s->words = out;
	s->capacity = s->nwords;
	s->nwords = nout;
	s->nitems = kept;
	return MRF_OK;

invalid:
	MrfFree(env, items);
	return MRF_EINVAL;
}

/* Canonical forms make equality a word comparison. */
int
MrfStructureEqual(const MrfStructure *a, const MrfStructure *b)
{
	if (a->p != b->p || a->nitems != b->nitems || a->nwords != b->nwords)
		return 0;
	if (a->nwords == 0)
		return 1;
	return memcmp(a->words, b->words, sizeof(int32_t) * (size_t) a->nwords) == 0;
}

/*
 * FNV-1a over the words and p.  Only a bucket index: the histogram always
 * confirms with MrfStructureEqual, so collisions cost time, never merge two
 * different graphs.
 */
uint64_t
MrfStructureHash(const MrfStructure *s)
{
	uint64_t	h = 0xcbf29ce484222325ULL;
	int64_t		w;

	h = (h ^ (uint32_t) s->p) * 0x100000001b3ULL;
	for (w = 0; w < s->nwords; w++)
		h = (h ^ (uint32_t) s->words[w]) * 0x100000001b3ULL;
	return h;
}

/* Counts the items of size 2. */
int64_t
MrfStructureEdgeCount(const MrfStructure *s)
{
	int64_t		w;
	int64_t		edges = 0;

	for (w = 0; w < s->nwords; w += 1 + s->words[w])
		edges += s->words[w] == 2;
	return edges;
}

/* A linear scan: callers are tests and glue that read a few edges. */
int
MrfStructureHasEdge(const MrfStructure *s, int i, int j)
{
	int64_t		w;
	int			lo = i < j ? i : j;
	int			hi = i < j ? j : i;

	for (w = 0; w < s->nwords; w += 1 + s->words[w])
		if (s->words[w] == 2 && s->words[w + 1] == lo && s->words[w + 2] == hi)
			return 1;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The stable mode                                                         */
/* ---------------------------------------------------------------------- */

/*
 * SPEC 4.5 with the exact discrete Laplace (privacy.c has the proof): one
 * independent draw per observed candidate, survivors at count + Z >= tau,
 * the largest survivor wins, ties uniformly at random.  The tie rule uses
 * fresh randomness only, so it is post-processing of the noisy counts.
 * Every candidate gets its draw whether or not it could win, so that the
 * noise of one candidate never depends on another's count.
 */
MrfStatus
MrfStableModeSelect(const int64_t *counts, int k, double epsilon,
					double delta, MrfRng *rng, int *winner)
{
	int64_t		tau = MrfStableModeThreshold(epsilon, delta);
	uint64_t	num;
	uint64_t	den;
	int64_t		best_value = 0;
	int			best = -1;
	uint64_t	ties = 0;
	int			g;

	if (winner == NULL || rng == NULL || k < 0 || (k > 0 && counts == NULL))
		return MRF_EINVAL;
	*winner = -1;
	if (tau < 0 || MrfStableModeNoise(epsilon, &num, &den) != 0)
		return MRF_EINVAL;
	for (g = 0; g < k; g++)
		if (counts[g] < 1 || counts[g] > ((int64_t) 1 << 40))
			return MRF_EINVAL;

	for (g = 0; g < k; g++)
	{
		int64_t		z = MrfRngDiscreteLaplace(rng, num, den);
		int64_t		noisy;

		if (z == MRF_NOISE_INVALID)
			return MRF_EINVAL;
		/* |z| beyond 2^62 has probability below exp(-2^40): saturate */
		if (__builtin_add_overflow(counts[g], z, &noisy))
			noisy = z > 0 ? INT64_MAX : INT64_MIN;
		if (noisy < tau)
			continue;
		if (best < 0 || noisy > best_value)
		{
			best = g;
			best_value = noisy;
			ties = 1;
		}
		else if (noisy == best_value)
		{
			/* reservoir: each of the tied candidates wins with 1/ties */
			ties++;
			if (MrfRngBelow(rng, ties) == 0)
				best = g;
		}
	}
	*winner = best;
	return MRF_OK;
}

/*
 * SPEC 4.5: a structure found by a fraction 0.6 of the blocks should clear
 * tau with a margin of about tau, i.e. 0.6 m >= 2 tau.  The margin covers
 * both the binomial spread of the number of successful blocks and the noise
 * (standard deviation sqrt(2) s, s = 2/epsilon, well below tau).
 */
#define STRUCTURE_MODE_FRACTION 0.6
#define STRUCTURE_MODE_MARGIN 2.0

/* ceil(2 tau / 0.6) from public values only. */
int
MrfStructureDefaultBlocks(double epsilon, double delta)
{
	int64_t		tau = MrfStableModeThreshold(epsilon, delta);
	double		m;

	if (tau < 0)
		return -1;
	m = ceil(STRUCTURE_MODE_MARGIN * (double) tau / STRUCTURE_MODE_FRACTION - 1e-9);
	if (!(m < 1e9))
		return -1;
	return (int) m;
}

/* The first n mod m blocks get one row more; sizes depend on n and m only. */
int64_t
MrfStructureBlockRows(int64_t n, int m, int k)
{
	if (n < 0 || m < 1 || k < 0 || k >= m)
		return -1;
	return n / m + (k < n % m ? 1 : 0);
}

/* Offset of block k's first row in the shuffled order. */
static int64_t
BlockStart(int64_t n, int m, int k)
{
	int64_t		r = n % m;

	return (int64_t) k * (n / m) + (k < r ? k : r);
}

/* One histogram cell: a distinct block structure and how many blocks gave it. */
typedef struct HistEntry
{
	MrfStructure s;
	uint64_t	hash;
	int64_t		count;
} HistEntry;

/*
 * The permutation, one block's rows, the learner, and the histogram: at most
 * m distinct structures of max_block_words words and an index of 2^k >= 2m
 * slots.
 */
size_t
MrfStructureWorkspaceBytes(const MrfBlockLearner *learner, int64_t n, int m,
						   int64_t max_block_words)
{
	size_t		total = 0;
	int64_t		bmax;
	size_t		slots = 1;

	if (learner == NULL || n < 0 || m < 1 || max_block_words < 0)
		return SIZE_MAX;
	bmax = MrfStructureBlockRows(n, m, 0);
	while (slots < 2 * (size_t) m)
		slots *= 2;
	total = StructSizeAdd(total, StructSizeMul((size_t) n, sizeof(int64_t)));
	total = StructSizeAdd(total, StructSizeMul((size_t) bmax, learner->row_bytes));
	if (learner->workspace != NULL)
		total = StructSizeAdd(total, learner->workspace(learner->arg, bmax));
	total = StructSizeAdd(total, StructSizeMul((size_t) m, sizeof(HistEntry) + sizeof(int64_t)));
	total = StructSizeAdd(total, StructSizeMul(slots, sizeof(int)));
	/* each stored structure, and the learner's list before canonicalisation */
	total = StructSizeAdd(total,
						  StructSizeMul(StructSizeMul((size_t) m + 2, (size_t) max_block_words),
										2 * sizeof(int32_t)));
	return total;
}

/*
 * A block learner's polls reach the host (so cancellation still works inside
 * a block) but report only the blocks finished, never the solver's own
 * progress: how fast a block's regressions converge depends on its rows, and
 * the host shows progress to other sessions (mrf_progress) and in NOTICEs.
 */
typedef struct BlockEnvCtx
{
	const MrfEnv *parent;
	int64_t		done;			/* blocks finished */
	int64_t		total;			/* blocks */
} BlockEnvCtx;

/* Forwards allocation to the host. */
static void *
BlockEnvAlloc(void *ctx, size_t bytes)
{
	const MrfEnv *parent = ((BlockEnvCtx *) ctx)->parent;

	return parent->alloc(parent->ctx, bytes);
}

/* Forwards release to the host. */
static void
BlockEnvRelease(void *ctx, void *ptr)
{
	const MrfEnv *parent = ((BlockEnvCtx *) ctx)->parent;

	parent->release(parent->ctx, ptr);
}

/* Polls the host with the blocks finished, ignoring the block's own figures. */
static void
BlockEnvPoll(void *ctx, int64_t done, int64_t total)
{
	BlockEnvCtx *bc = ctx;

	(void) done;
	(void) total;
	MrfPoll(bc->parent, bc->done, bc->total);
}

/* Fisher-Yates with unbiased draws: every permutation equally likely. */
static void
ShufflePositions(int64_t *perm, int64_t n, MrfRng *rng)
{
	int64_t		i;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--)
	{
		int64_t		j = (int64_t) MrfRngBelow(rng, (uint64_t) i + 1);
		int64_t		t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
}

/*
 * Looks s up in the open-addressing index (linear probing); on a hit the
 * count grows and s is freed, on a miss s moves into a new entry.
 */
static void
HistogramAdd(HistEntry *entries, int *nentries, int *slots, size_t mask,
			 MrfStructure *s, const MrfEnv *env)
{
	uint64_t	h = MrfStructureHash(s);
	size_t		at = (size_t) h & mask;

	for (;;)
	{
		int			e = slots[at];

		if (e < 0)
			break;
		if (entries[e].hash == h && MrfStructureEqual(&entries[e].s, s))
		{
			entries[e].count++;
			MrfStructureFree(s, env);
			return;
		}
		at = (at + 1) & mask;
	}
	slots[at] = *nentries;
	entries[*nentries].s = *s;
	entries[*nentries].hash = h;
	entries[*nentries].count = 1;
	(*nentries)++;
	MrfStructureInit(s, s->p);
}

/*
 * The released copy holds the graph and nothing else: the stored entry's
 * capacity is the pre-deduplication size of the first block that produced
 * it, a detail of the data that must not travel with the release.
 */
static MrfStatus
StructureCopyExact(const MrfStructure *src, const MrfEnv *env, MrfStructure *dst)
{
	MrfStructureInit(dst, src->p);
	dst->words = MrfAlloc(env, StructSizeMul((size_t) src->nwords, sizeof(int32_t)));
	if (dst->words == NULL)
		return MRF_ENOMEM;
	if (src->nwords > 0)
		memcpy(dst->words, src->words, sizeof(int32_t) * (size_t) src->nwords);
	dst->nwords = src->nwords;
	dst->nitems = src->nitems;
	dst->capacity = src->nwords;
	return MRF_OK;
}

/*
 * The release (SPEC 4.5): shuffle, learn each block on a copy of its rows,
 * count identical canonical structures, select privately.  Counts stay in
 * this function and are wiped before it returns.
 */
MrfStatus
MrfStructureLearn(const void *rows, int64_t n, const MrfBlockLearner *learner,
				  const MrfStructureOptions *opt, MrfRng *rng,
				  const MrfEnv *env, MrfStructure *out, int *released)
{
	MrfStatus	st = MRF_OK;
	int64_t    *perm = NULL;
	unsigned char *block = NULL;
	HistEntry  *entries = NULL;
	int64_t    *counts = NULL;
	int		   *slots = NULL;
	size_t		nslots = 1;
	int			nentries = 0;
	int			winner = -1;
	int64_t		bmax;
	int			m;
	int			k;
	size_t		i;
	MrfEnv		benv;
	BlockEnvCtx bctx;

	if (released != NULL)
		*released = 0;
	if (rows == NULL || learner == NULL || learner->learn == NULL ||
		learner->p < 1 || learner->row_bytes == 0 || opt == NULL ||
		rng == NULL || env == NULL || out == NULL || released == NULL)
		return MRF_EINVAL;
	if (MrfStableModeThreshold(opt->epsilon, opt->delta) < 0 || opt->blocks < 0)
		return MRF_EINVAL;
	m = opt->blocks > 0 ? opt->blocks : MrfStructureDefaultBlocks(opt->epsilon, opt->delta);
	if (m < 1 || n < m)
		return MRF_EINVAL;
	MrfStructureFree(out, env);
	out->p = learner->p;

	bmax = MrfStructureBlockRows(n, m, 0);
	while (nslots < 2 * (size_t) m)
		nslots *= 2;
	perm = MrfAlloc(env, StructSizeMul((size_t) n, sizeof(int64_t)));
	block = MrfAlloc(env, StructSizeMul((size_t) bmax, learner->row_bytes));
	entries = MrfAlloc(env, StructSizeMul((size_t) m, sizeof(HistEntry)));
	counts = MrfAlloc(env, StructSizeMul((size_t) m, sizeof(int64_t)));
	slots = MrfAlloc(env, StructSizeMul(nslots, sizeof(int)));
	if (perm == NULL || block == NULL || entries == NULL || counts == NULL ||
		slots == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}
	for (i = 0; i < nslots; i++)
		slots[i] = -1;

	ShufflePositions(perm, n, rng);

	bctx.parent = env;
	bctx.done = 0;
	bctx.total = m;
	benv.alloc = BlockEnvAlloc;
	benv.release = BlockEnvRelease;
	benv.poll = BlockEnvPoll;
	benv.ctx = &bctx;

	for (k = 0; k < m; k++)
	{
		int64_t		start = BlockStart(n, m, k);
		int64_t		len = MrfStructureBlockRows(n, m, k);
		int64_t		r;
		MrfStructure s;

		for (r = 0; r < len; r++)
			memcpy(block + (size_t) r * learner->row_bytes,
				   (const unsigned char *) rows + (size_t) perm[start + r] * learner->row_bytes,
				   learner->row_bytes);
		MrfStructureInit(&s, learner->p);
		st = learner->learn(learner->arg, block, len, &benv, &s);
		if (st == MRF_OK)
			st = MrfStructureCanonicalize(&s, env);
		if (st != MRF_OK)
		{
			MrfStructureFree(&s, env);
			goto done;
		}
		HistogramAdd(entries, &nentries, slots, nslots - 1, &s, env);
		bctx.done = k + 1;
		MrfPoll(env, bctx.done, bctx.total);
	}

	for (k = 0; k < nentries; k++)
		counts[k] = entries[k].count;
	st = MrfStableModeSelect(counts, nentries, opt->epsilon, opt->delta, rng, &winner);
	if (st == MRF_OK && winner >= 0)
	{
		st = StructureCopyExact(&entries[winner].s, env, out);
		*released = st == MRF_OK;
	}

done:
	if (entries != NULL)
		for (k = 0; k < nentries; k++)
			MrfStructureFree(&entries[k].s, env);
	if (counts != NULL)
		memset(counts, 0, sizeof(int64_t) * (size_t) m);
	if (entries != NULL)
		memset(entries, 0, sizeof(HistEntry) * (size_t) m);
	MrfFree(env, slots);
	MrfFree(env, counts);
	MrfFree(env, entries);
	MrfFree(env, block);
	MrfFree(env, perm);
	return st;
}

/* ---------------------------------------------------------------------- */
/* The Ising node regressions (non-private)                                */
/* ---------------------------------------------------------------------- */

/*
 * Solver: accelerated projected gradient (FISTA, Beck-Teboulle 2009) on the
 * average logistic loss over the L1 ball, all p node problems advanced
 * together so that every gradient is one dgemm X^T G.
 *   - Projection onto {||w||_1 <= R} by Michelot's algorithm (the
 *     pivot-free variant of Duchi et al. 2008; Condat 2016 proves it exact):
 *     linear per pass, a few passes, no sort.
 *   - Step 1/L with L = 1.02 lambda_max(X^T X / n) / 4, which bounds the
 *     Hessian (sigmoid' <= 1/4); lambda_max by power iteration on the Gram
 *     matrix.  The Rayleigh quotient can only underestimate, hence the
 *     factor and the guard below.
 *   - Adaptive restart (O'Donoghue-Candes 2015, gradient scheme): momentum
 *     resets when it points uphill, which gives linear convergence on the
 *     locally strongly convex problems we see.
 *   - Every LOGREG_CHECK_EVERY steps the same dgemm also takes the gradient
 *     at the iterate w itself, giving the Frank-Wolfe duality gap
 *     <g, w> + R ||g||_inf >= f(w) - f*, a certified bound; a node stops
 *     when it is at most tol and leaves the batch.  The loss is evaluated at
 *     the same time; if it rose since the last check, that node's L doubles
 *     and its momentum resets (a step too long for the true curvature).
 * Tolerance: the default 1e-7 (average loss) keeps the weights within about
 * sqrt(2 tol / kappa) ~ 1e-3 of the optimum for restricted curvature kappa
 * around 0.2, far below the sampling error of any block and below the
 * threshold eta / 2 by orders of magnitude.  The cap
 * (MRF_LOGREG_MAX_ITERATIONS) returns the last iterate, never an error.
 *
 * Margins a = X w are kept per node and updated sparsely (projected
 * iterates have few non-zeros), so the one dense product per step is the
 * gradient.  Double precision throughout: the gap is a difference of sums
 * of n terms and must resolve 1e-7.
 */
#define LOGREG_CHECK_EVERY 10
#define LOGREG_L_SAFETY 1.02
#define LOGREG_POWER_ITERATIONS 300

/* Unpacks n packed rows into n x (p + 1) doubles, column-major, last column 1. */
static void
BitsToColumnsDouble(const uint64_t *bits, int64_t n, int p, double *x)
{
	int			words = MrfBitWords(p);
	int64_t		m;
	int			j;

	for (j = 0; j < p; j++)
	{
		double	   *col = x + (size_t) j * (size_t) n;
		int			word = j >> 6;
		int			shift = j & 63;

		for (m = 0; m < n; m++)
			col[m] = (double) (2 * (int) ((bits[(size_t) m * words + word] >> shift) & 1) - 1);
	}
	for (m = 0; m < n; m++)
		x[(size_t) p * (size_t) n + m] = 1.0;
}

/*
 * Largest eigenvalue of the symmetric d x d matrix gram (upper triangle) by
 * power iteration; returns the Rayleigh quotient of the last iterate, a lower
 * bound.  v and u are scratch of d doubles.
 */
static double
PowerIteration(const double *gram, int d, double *v, double *u)
{
	double		lambda = 0.0;
	int			it;
	int			j;

	/* a fixed non-symmetric start keeps clear of special eigenvectors */
	for (j = 0; j < d; j++)
		v[j] = 1.0 + 0.01 * (double) (j % 7);
	for (it = 0; it < LOGREG_POWER_ITERATIONS; it++)
	{
		double		norm;
		double		next;

		norm = cblas_dnrm2(d, v, 1);
		if (!(norm > 0.0))
			return 0.0;
		cblas_dscal(d, 1.0 / norm, v, 1);
		cblas_dsymv(CblasColMajor, CblasUpper, d, 1.0, gram, d, v, 1, 0.0, u, 1);
		next = cblas_ddot(d, v, 1, u, 1);
		memcpy(v, u, sizeof(double) * (size_t) d);
		if (it > 20 && fabs(next - lambda) <= 1e-12 * next)
		{
			lambda = next;
			break;
		}
		lambda = next;
	}
	return lambda;
}

/*
 * Projects v (d entries, those not allowed forced to 0) onto {||w||_1 <= R}:
 * w = sign(v) max(|v| - theta, 0) with theta found by Michelot's
 * iteration, which only ever raises theta towards its exact value.  buf is
 * scratch of d doubles.
 */
static void
ProjectL1Ball(double *v, int d, const uint8_t *allowed, double radius, double *buf)
{
	double		sum = 0.0;
	double		theta;
	int			cnt = 0;
	int			j;

	for (j = 0; j < d; j++)
	{
		if (!allowed[j])
			v[j] = 0.0;
		sum += fabs(v[j]);
	}
	if (sum <= radius)
		return;
	for (j = 0; j < d; j++)
		if (v[j] != 0.0)
			buf[cnt++] = fabs(v[j]);
	theta = (sum - radius) / cnt;
	for (;;)
	{
		int			kept = 0;
		double		s = 0.0;

		for (j = 0; j < cnt; j++)
			if (buf[j] > theta)
			{
				buf[kept++] = buf[j];
				s += buf[j];
			}
		if (kept == cnt || kept == 0)
			break;
		cnt = kept;
		theta = (s - radius) / cnt;
	}
	for (j = 0; j < d; j++)
	{
		double		a = fabs(v[j]) - theta;

		v[j] = a > 0.0 ? copysign(a, v[j]) : 0.0;
	}
}

/* margins = X w for one node, touching only the non-zero coordinates. */
static void
SparseMargins(const double *x, int64_t n, int d, const double *w, double *margins)
{
	int			j;

	memset(margins, 0, sizeof(double) * (size_t) n);
	for (j = 0; j < d; j++)
		if (w[j] != 0.0)
			cblas_daxpy((int) n, w[j], x + (size_t) j * (size_t) n, 1, margins, 1);
}

/* The Gram matrix, weight sets, 2 margin columns, G and grad per task. */
size_t
MrfLogregBatchBytes(int64_t n, int d, int ntasks)
{
	size_t		dd;
	size_t		q;
	size_t		total = 0;

	if (d < 1 || ntasks < 1 || n < 0)
		return SIZE_MAX;
	dd = (size_t) d;
	q = (size_t) ntasks;
	total = StructSizeAdd(total, StructSizeMul(StructSizeMul(dd, dd), sizeof(double)));
	total = StructSizeAdd(total, StructSizeMul(StructSizeMul(2 * dd, q), sizeof(double)));
	total = StructSizeAdd(total, StructSizeMul(StructSizeMul((size_t) n, 4 * q), sizeof(double)));
	total = StructSizeAdd(total, StructSizeMul(StructSizeMul(dd, 2 * q), sizeof(double)));
	total = StructSizeAdd(total, StructSizeMul(q, 5 * sizeof(double) + 2 * sizeof(double *) +
											   3 * sizeof(int)));
	total = StructSizeAdd(total, StructSizeMul(4 * dd, sizeof(double)));
	return total;
}

/* X, the targets and masks, and the batched solver's memory. */
size_t
MrfIsingNodeRegressionsBytes(int p, int64_t n)
{
	size_t		d;
	size_t		total = 0;

	if (p < 1 || n < 0)
		return SIZE_MAX;
	d = (size_t) p + 1;
	total = StructSizeAdd(total, StructSizeMul(StructSizeMul((size_t) n, d), sizeof(double)));
	total = StructSizeAdd(total, StructSizeMul(StructSizeMul(d, (size_t) p), 1));
	total = StructSizeAdd(total, StructSizeMul((size_t) p, sizeof(double *)));
	total = StructSizeAdd(total, MrfLogregBatchBytes(n, (int) d, p));
	return total;
}

/*
 * Gradient weights -y sigmoid(-y a) inv_n of one task at margins a (or
 * a + beta (a - a_prev)); a row with y = 0 is outside the task and gets 0.
 */
static void
GradientWeights(const double *y, const double *a, const double *a_prev,
				double beta, int64_t n, double inv_n, double *g)
{
	int64_t		m;

	if (beta == 0.0)
		for (m = 0; m < n; m++)
			g[m] = -y[m] * inv_n / (1.0 + exp(y[m] * a[m]));
	else
		for (m = 0; m < n; m++)
		{
			double		am = a[m] + beta * (a[m] - a_prev[m]);

			g[m] = -y[m] * inv_n / (1.0 + exp(y[m] * am));
		}
}

/* Average logistic loss of one task at margins a over its rows (y != 0), stably. */
static double
AverageLoss(const double *y, const double *a, int64_t n, double inv_n)
{
	double		sum = 0.0;
	int64_t		m;

	for (m = 0; m < n; m++)
	{
		double		t = -y[m] * a[m];

		if (y[m] == 0.0)
			continue;
		sum += t > 0.0 ? t + log1p(exp(-t)) : log1p(exp(t));
	}
	return sum * inv_n;
}

/*
 * The batched FISTA described above, on any design: task c minimises the
 * average logistic loss of y[c] (entries +-1, or 0 for a row outside the
 * task) over the coordinates allowed[c d + j] != 0.  The step bound of a
 * task that uses a fraction f of the rows is the full design's over f
 * (lambda_max of a row subset's Gram matrix is at most the full one's).
 */
MrfStatus
MrfLogregBatch(const double *x, int64_t n, int d, int p,
			   const double *const *y, const uint8_t *allowed, double radius,
			   double tol, int max_iter, const MrfEnv *env, double *w,
			   MrfLogregStats *stats)
{
	MrfStatus	st = MRF_OK;
	double	   *gram = NULL;
	double	   *wprev = NULL;
	double	   *ybuf = NULL;
	double	   *mpool = NULL;
	double	   *g = NULL;
	double	   *grad = NULL;
	double	   *nodebuf = NULL;
	double	  **mcur = NULL;
	double	  **mprev = NULL;
	double	   *scratch = NULL;
	double		L0;
	int		   *active = NULL;
	int		   *converged = NULL;
	int		   *node_iters = NULL;
	double	   *t = NULL;
	double	   *L = NULL;
	double	   *last_loss = NULL;
	double	   *gap = NULL;
	int			nactive;
	int			iter;
	int			i;

	double	   *inv_n = NULL;

	if (x == NULL || y == NULL || allowed == NULL || env == NULL || w == NULL ||
		p < 1 || d < 1 || n < 1 || n > (int64_t) 0x7fffffff ||
		!isfinite(radius) || radius <= 0.0)
		return MRF_EINVAL;
	if (!(tol > 0.0))
		tol = MRF_LOGREG_TOLERANCE;
	if (max_iter <= 0)
		max_iter = MRF_LOGREG_MAX_ITERATIONS;

	gram = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) d, (size_t) d), sizeof(double)));
	wprev = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) d, (size_t) p), sizeof(double)));
	ybuf = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) d, (size_t) p), sizeof(double)));
	mpool = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) n, 2 * (size_t) p),
										sizeof(double)));
	g = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) n, 2 * (size_t) p), sizeof(double)));
	grad = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) d, 2 * (size_t) p), sizeof(double)));
	nodebuf = MrfAlloc(env, StructSizeMul((size_t) p, 5 * sizeof(double)));
	mcur = MrfAlloc(env, StructSizeMul((size_t) p, sizeof(double *)));
	mprev = MrfAlloc(env, StructSizeMul((size_t) p, sizeof(double *)));
	active = MrfAlloc(env, StructSizeMul((size_t) p, 3 * sizeof(int)));
	scratch = MrfAlloc(env, StructSizeMul(4 * (size_t) d, sizeof(double)));
	if (gram == NULL || wprev == NULL || ybuf == NULL ||
		mpool == NULL || g == NULL || grad == NULL || nodebuf == NULL ||
		mcur == NULL || mprev == NULL || active == NULL || scratch == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}
	converged = active + p;
	node_iters = active + 2 * p;
	t = nodebuf;
	L = nodebuf + p;
	last_loss = nodebuf + 2 * p;
	gap = nodebuf + 3 * p;
	inv_n = nodebuf + 4 * p;

	cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, d, (int) n, 1.0 / (double) n,
				x, (int) n, 0.0, gram, d);
	L0 = LOGREG_L_SAFETY * PowerIteration(gram, d, scratch, scratch + d) / 4.0;
	if (!(L0 > 0.0))
		L0 = (double) d / 4.0;	/* the trivial bound: every entry is +-1 */

	/* w = 0 and its margins 0 */
	memset(w, 0, sizeof(double) * (size_t) d * p);
	memset(wprev, 0, sizeof(double) * (size_t) d * p);
	for (i = 0; i < p; i++)
	{
		int64_t		rows = 0;
		int64_t		m;

		mcur[i] = mpool + (size_t) (2 * i) * (size_t) n;
		mprev[i] = mpool + (size_t) (2 * i + 1) * (size_t) n;
		t[i] = 1.0;
		for (m = 0; m < n; m++)
			rows += y[i][m] != 0.0;
		inv_n[i] = rows > 0 ? 1.0 / (double) rows : 0.0;
		L[i] = rows > 0 ? L0 * (double) n / (double) rows : L0;
		last_loss[i] = INFINITY;
		gap[i] = INFINITY;
		active[i] = i;
		converged[i] = 0;
		node_iters[i] = 0;
	}
	nactive = p;

	for (iter = 0; iter < max_iter && nactive > 0; iter++)
	{
		int			check = iter % LOGREG_CHECK_EVERY == 0;
		int			cols = check ? 2 * nactive : nactive;
		int			c;
		int			kept = 0;

		for (c = 0; c < nactive; c++)
		{
			int			node = active[c];
			double		tn = 0.5 * (1.0 + sqrt(1.0 + 4.0 * t[node] * t[node]));
			double		beta = (t[node] - 1.0) / tn;

			GradientWeights(y[node], mcur[node], mprev[node], beta, n, inv_n[node],
							g + (size_t) c * n);
			if (check)
				GradientWeights(y[node], mcur[node], NULL, 0.0, n, inv_n[node],
								g + (size_t) (nactive + c) * n);
		}
		cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, d, cols, (int) n, 1.0,
					x, (int) n, g, (int) n, 0.0, grad, d);

		for (c = 0; c < nactive; c++)
		{
			int			node = active[c];
			double	   *wi = w + (size_t) node * d;
			double	   *wpi = wprev + (size_t) node * d;
			const double *gstep = grad + (size_t) c * d;
			double	   *v = ybuf + (size_t) node * d;
			double		tn = 0.5 * (1.0 + sqrt(1.0 + 4.0 * t[node] * t[node]));
			double		beta = (t[node] - 1.0) / tn;
			double		uphill = 0.0;
			double	   *swap;
			int			j;

			if (check)
			{
				const double *gw = grad + (size_t) (nactive + c) * d;
				double		inner = 0.0;
				double		gmax = 0.0;
				double		loss = AverageLoss(y[node], mcur[node], n, inv_n[node]);

				for (j = 0; j < d; j++)
				{
					if (!allowed[(size_t) node * d + j])
						continue;
					inner += gw[j] * wi[j];
					gmax = fabs(gw[j]) > gmax ? fabs(gw[j]) : gmax;
				}
				gap[node] = inner + radius * gmax;
				if (gap[node] <= tol)
				{
					converged[node] = 1;
					continue;
				}
				if (loss > last_loss[node])
				{
					/* steps too long for the true curvature: halve them, no momentum */
					L[node] *= 2.0;
					beta = 0.0;
					tn = 1.0;
					gstep = gw;
				}
				last_loss[node] = loss;
			}
			for (j = 0; j < d; j++)
				v[j] = wi[j] + beta * (wi[j] - wpi[j]) - gstep[j] / L[node];
			ProjectL1Ball(v, d, allowed + (size_t) node * d, radius, scratch);

			/* restart test: (y - z) . (z - w) > 0 means momentum went uphill */
			for (j = 0; j < d; j++)
			{
				double		yj = wi[j] + beta * (wi[j] - wpi[j]);

				uphill += (yj - v[j]) * (v[j] - wi[j]);
			}
			t[node] = uphill > 0.0 ? 1.0 : tn;

			memcpy(wpi, wi, sizeof(double) * (size_t) d);
			memcpy(wi, v, sizeof(double) * (size_t) d);
			swap = mprev[node];
			mprev[node] = mcur[node];
			mcur[node] = swap;
			SparseMargins(x, n, d, wi, mcur[node]);
			node_iters[node] = iter + 1;
			active[kept++] = node;
		}
		nactive = kept;
		MrfPoll(env, iter + 1, max_iter);
	}

	if (stats != NULL)
	{
		memset(stats, 0, sizeof(*stats));
		for (i = 0; i < p; i++)
		{
			if (node_iters[i] > stats->iterations)
				stats->iterations = node_iters[i];
			stats->unconverged += !converged[i];
			if (gap[i] > stats->max_gap)
				stats->max_gap = gap[i];
		}
	}

done:
	MrfFree(env, scratch);
	MrfFree(env, active);
	MrfFree(env, mprev);
	MrfFree(env, mcur);
	MrfFree(env, nodebuf);
	MrfFree(env, grad);
	MrfFree(env, g);
	MrfFree(env, mpool);
	MrfFree(env, ybuf);
	MrfFree(env, wprev);
	MrfFree(env, gram);
	return st;
}

/* Node i's task: z_i on [z_-i, 1], the column i itself masked out. */
MrfStatus
MrfIsingNodeRegressions(const uint64_t *bits, int64_t n, int p, double radius,
						double tol, int max_iter, const MrfEnv *env, double *w,
						MrfLogregStats *stats)
{
	const int	d = p + 1;
	MrfStatus	st;
	double	   *x = NULL;
	uint8_t    *allowed = NULL;
	const double **y = NULL;
	int			i;
	int			j;

	if (bits == NULL || env == NULL || w == NULL || p < 2 || n < 1 ||
		n > (int64_t) 0x7fffffff || !isfinite(radius) || radius <= 0.0)
		return MRF_EINVAL;
	x = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) n, (size_t) d), sizeof(double)));
	allowed = MrfAlloc(env, StructSizeMul((size_t) d, (size_t) p));
	y = MrfAlloc(env, StructSizeMul((size_t) p, sizeof(double *)));
	if (x == NULL || allowed == NULL || y == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}
	BitsToColumnsDouble(bits, n, p, x);
	for (i = 0; i < p; i++)
	{
		y[i] = x + (size_t) i * (size_t) n;
		for (j = 0; j < d; j++)
			allowed[(size_t) i * d + j] = j != i;
	}
	st = MrfLogregBatch(x, n, d, p, y, allowed, radius, tol, max_iter, env, w, stats);

done:
	MrfFree(env, y);
	MrfFree(env, allowed);
	MrfFree(env, x);
	return st;
}

/* ---------------------------------------------------------------------- */
/* Ising edges, the block learner, planning, and the threshold variant      */
/* ---------------------------------------------------------------------- */

/*
 * Wu-Sanghavi-Dimakis guarantee |A_hat_ij - A_ij| < eta / 2 for every
 * ordered pair once the block is large enough, from both node i's and node
 * j's regression.  The average of two estimates within eta / 2 of A_ij is
 * within eta / 2 too, so AVERAGE recovers the graph whenever both
 * directions would, and it halves the variance of the estimate that is
 * compared with eta / 2 (the same symmetrisation as ising.c); it is the
 * default.  AND is the conservative rule (fewer false edges, more missed
 * ones), OR the liberal one.  An edge exactly at eta / 2 counts.
 */
MrfStatus
MrfIsingEdgesFromWeights(const double *A, int p, double eta, MrfEdgeRule rule,
						 const MrfEnv *env, MrfStructure *out)
{
	double		cut = eta / 2.0;
	int			i;
	int			j;

	if (A == NULL || env == NULL || out == NULL || p < 2 || out->p != p ||
		!isfinite(eta) || eta <= 0.0)
		return MRF_EINVAL;
	if (rule != MRF_EDGE_AVERAGE && rule != MRF_EDGE_AND && rule != MRF_EDGE_OR)
		return MRF_EINVAL;
	for (i = 0; i < p; i++)
		for (j = i + 1; j < p; j++)
		{
			double		aij = A[(size_t) i * p + j];
			double		aji = A[(size_t) j * p + i];
			int			edge;

			switch (rule)
			{
				case MRF_EDGE_AND:
					edge = fabs(aij) >= cut && fabs(aji) >= cut;
					break;
				case MRF_EDGE_OR:
					edge = fabs(aij) >= cut || fabs(aji) >= cut;
					break;
				default:
					edge = fabs(0.5 * (aij + aji)) >= cut;
					break;
			}
			if (edge)
			{
				int32_t		vars[2];
				MrfStatus	st;

				vars[0] = i;
				vars[1] = j;
				st = MrfStructureAdd(out, env, 2, vars);
				if (st != MRF_OK)
					return st;
			}
		}
	return MrfStructureCanonicalize(out, env);
}

/* The weights of the regressions and the p x p directed estimate. */
static size_t
IsingBlockWorkspace(const void *arg, int64_t nrows)
{
	const MrfIsingBlockOptions *opt = arg;
	size_t		p = (size_t) opt->p;
	size_t		total;

	total = MrfIsingNodeRegressionsBytes(opt->p, nrows);
	total = StructSizeAdd(total, StructSizeMul(StructSizeMul(p, p + 1), sizeof(double)));
	total = StructSizeAdd(total, StructSizeMul(StructSizeMul(p, p), sizeof(double)));
	return total;
}

/*
 * Node regressions with radius 2 lambda (the width bound: ||w||_1 =
 * 2 (sum_j |A_ij| + |theta_i|) <= 2 lambda), A = w / 2 as in ising.c, then
 * the edges at eta / 2.
 */
MrfStatus
MrfIsingBlockLearn(const void *arg, const void *rows, int64_t nrows,
				   const MrfEnv *env, MrfStructure *out)
{
	const MrfIsingBlockOptions *opt = arg;
	double	   *w = NULL;
	double	   *A = NULL;
	MrfStatus	st;
	int			p;
	int			i;
	int			j;

	if (opt == NULL || rows == NULL || env == NULL || out == NULL || nrows < 1)
		return MRF_EINVAL;
	p = opt->p;
	if (p < 2 || out->p != p || isnan(MrfStructureBlockRadius(opt->lambda, 1)) ||
		!isfinite(opt->eta) || opt->eta <= 0.0)
		return MRF_EINVAL;
	w = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) p, (size_t) p + 1), sizeof(double)));
	A = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) p, (size_t) p), sizeof(double)));
	if (w == NULL || A == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}
	st = MrfIsingNodeRegressions(rows, nrows, p, 2.0 * opt->lambda, opt->tolerance,
								 opt->max_iterations, env, w, opt->stats);
	if (st != MRF_OK)
		goto done;
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			A[(size_t) i * p + j] = j == i ? 0.0 : w[(size_t) i * (p + 1) + j] / 2.0;
	st = MrfIsingEdgesFromWeights(A, p, opt->eta, opt->rule, env, out);

done:
	MrfFree(env, A);
	MrfFree(env, w);
	return st;
}

/*
 * The L1 radius of the block learners' node regressions: 2 lambda for binary
 * models (k = 1), 2 lambda k for the one-vs-one k-ary regressions; NaN when
 * it is not finite and positive (the learners refuse such a lambda, and the
 * glue checks it before charging).
 */
double
MrfStructureBlockRadius(double lambda, int k)
{
	double		radius = 2.0 * lambda * (double) k;

	if (!isfinite(lambda) || !(lambda > 0.0) || k < 1 || !isfinite(radius))
		return NAN;
	return radius;
}

/* Packed binary rows: MrfBitWords(p) words each. */
void
MrfIsingBlockLearner(const MrfIsingBlockOptions *opt, MrfBlockLearner *learner)
{
	memset(learner, 0, sizeof(*learner));
	learner->learn = MrfIsingBlockLearn;
	learner->arg = opt;
	learner->p = opt->p;
	learner->row_bytes = sizeof(uint64_t) * (size_t) MrfBitWords(opt->p);
	learner->workspace = IsingBlockWorkspace;
}

/* The release with the default rule and solver settings. */
MrfStatus
MrfStructureLearnIsing(const uint64_t *bits, int64_t n, int p, double eta,
					   double lambda, const MrfStructureOptions *opt,
					   MrfRng *rng, const MrfEnv *env, MrfStructure *out,
					   int *released)
{
	MrfIsingBlockOptions bopt;
	MrfBlockLearner learner;

	if (released != NULL)
		*released = 0;
	if (p < 2 || !isfinite(eta) || eta <= 0.0 || isnan(MrfStructureBlockRadius(lambda, 1)))
		return MRF_EINVAL;
	memset(&bopt, 0, sizeof(bopt));
	bopt.p = p;
	bopt.eta = eta;
	bopt.lambda = lambda;
	bopt.rule = MRF_EDGE_AVERAGE;
	MrfIsingBlockLearner(&bopt, &learner);
	return MrfStructureLearn(bits, n, &learner, opt, rng, env, out, released);
}

/* Shuffle, block, histogram, and a block graph of at most all p (p-1)/2 edges. */
size_t
MrfStructureIsingWorkspaceBytes(int p, int64_t n, int m)
{
	MrfIsingBlockOptions bopt;
	MrfBlockLearner learner;

	if (p < 2 || n < 0 || m < 1)
		return SIZE_MAX;
	memset(&bopt, 0, sizeof(bopt));
	bopt.p = p;
	MrfIsingBlockLearner(&bopt, &learner);
	return MrfStructureWorkspaceBytes(&learner, n, m,
									  3 * ((int64_t) p * (p - 1) / 2));
}

/* ---------------------------------------------------------------------- */
/* The pairwise k-ary block learner                                        */
/* ---------------------------------------------------------------------- */

/* Regression (i, u, v) in pairwise.c's numbering (MrfPairwiseRecover reads it). */
static int
PairwiseTask(int k, int i, int u, int v)
{
	return (i * k + u) * (k - 1) + (v < u ? v : v - 1);
}

/* X, the labels, masks, weights, W and theta, and the solver's memory. */
static size_t
PairwiseBlockWorkspace(const void *arg, int64_t nrows)
{
	const MrfPairwiseBlockOptions *opt = arg;
	size_t		p = (size_t) opt->p;
	size_t		k = (size_t) opt->k;
	size_t		d = p * k + 1;
	size_t		q = p * k * (k - 1);
	size_t		total = 0;

	total = StructSizeAdd(total, StructSizeMul(StructSizeMul((size_t) nrows, d + q), sizeof(double)));
	total = StructSizeAdd(total, StructSizeMul(q, d + sizeof(double *)));
	total = StructSizeAdd(total, StructSizeMul(StructSizeMul(q, d), sizeof(double)));
	total = StructSizeAdd(total, StructSizeMul(StructSizeMul(p * p, k * k), sizeof(double)));
	total = StructSizeAdd(total, StructSizeMul(p * k, sizeof(double)));
	total = StructSizeAdd(total, MrfLogregBatchBytes(nrows, (int) d, (int) q));
	return total;
}

/*
 * The one-vs-one regressions of Wu, Sanghavi and Dimakis (2019, Section 4;
 * the non-private form of Zhang et al.'s Algorithm 3): on the rows with
 * z_i in {u, v}, P(z_i = u | z_i in {u, v}, z_-i) is exactly logistic in the
 * one-hot of z_-i, with weights W_ij(u, .) - W_ij(v, .), so every
 * regression is well specified.  The design and the radius 2 lambda k are
 * pairwise.c's, and MrfPairwiseRecover (no symmetrisation) gives the
 * centred W_ij from node i's side and W_ji from node j's; the edge test
 * averages the two as the Ising learner does.
 */
MrfStatus
MrfPairwiseBlockLearn(const void *arg, const void *rows, int64_t nrows,
					  const MrfEnv *env, MrfStructure *out)
{
	const MrfPairwiseBlockOptions *opt = arg;
	const uint8_t *z = rows;
	double	   *x = NULL;
	double	   *ybuf = NULL;
	const double **y = NULL;
	uint8_t    *allowed = NULL;
	double	   *w = NULL;
	double	   *W = NULL;
	double	   *theta = NULL;
	MrfStatus	st = MRF_OK;
	int			p;
	int			k;
	int			d;
	int			q;
	int			i;
	int			j;
	int64_t		m;

	if (opt == NULL || rows == NULL || env == NULL || out == NULL || nrows < 1 ||
		nrows > (int64_t) 0x7fffffff)
		return MRF_EINVAL;
	p = opt->p;
	k = opt->k;
	if (p < 2 || k < 2 || k > MRF_PAIRWISE_MAX_K || out->p != p ||
		(int64_t) p * k * (k - 1) > 0x7fffffff / ((int64_t) p * k + 1) ||
		isnan(MrfStructureBlockRadius(opt->lambda, k)) ||
		!isfinite(opt->eta) || opt->eta <= 0.0)
		return MRF_EINVAL;
	d = p * k + 1;
	q = p * k * (k - 1);
	for (m = 0; m < nrows * p; m++)
		if (z[m] >= k)
			return MRF_EINVAL;	/* the caller checks the alphabet */

	x = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) nrows, (size_t) d), sizeof(double)));
	ybuf = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) nrows, (size_t) q), sizeof(double)));
	y = MrfAlloc(env, StructSizeMul((size_t) q, sizeof(double *)));
	allowed = MrfAlloc(env, StructSizeMul((size_t) q, (size_t) d));
	w = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) q, (size_t) d), sizeof(double)));
	W = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) p * p, (size_t) k * k), sizeof(double)));
	theta = MrfAlloc(env, StructSizeMul((size_t) p * k, sizeof(double)));
	if (x == NULL || ybuf == NULL || y == NULL || allowed == NULL || w == NULL ||
		W == NULL || theta == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}
	memset(x, 0, sizeof(double) * (size_t) nrows * d);
	memset(ybuf, 0, sizeof(double) * (size_t) nrows * q);
	for (m = 0; m < nrows; m++)
	{
		x[(size_t) (d - 1) * nrows + m] = 1.0;
		for (i = 0; i < p; i++)
		{
			int			a = z[(size_t) m * p + i];
			int			v;

			x[((size_t) i * k + a) * nrows + m] = 1.0;
			/* row m is the u of the pairs (a, v) and the v of (v, a) */
			for (v = 0; v < k; v++)
			{
				if (v == a)
					continue;
				ybuf[(size_t) PairwiseTask(k, i, a, v) * nrows + m] = 1.0;
				ybuf[(size_t) PairwiseTask(k, i, v, a) * nrows + m] = -1.0;
			}
		}
	}
	for (j = 0; j < q; j++)
	{
		int			node = j / (k * (k - 1));
		int			c;

		y[j] = ybuf + (size_t) j * nrows;
		for (c = 0; c < d; c++)
			allowed[(size_t) j * d + c] = (uint8_t) (c / k != node);
	}
	st = MrfLogregBatch(x, nrows, d, q, y, allowed, 2.0 * opt->lambda * k,
						opt->tolerance, opt->max_iterations, env, w, opt->stats);
	if (st != MRF_OK)
		goto done;
	st = MrfPairwiseRecover(w, p, k, 0, W, theta);
	if (st != MRF_OK)
		goto done;
	for (i = 0; i < p; i++)
		for (j = i + 1; j < p; j++)
		{
			double		best = 0.0;
			int			a;
			int			b;

			for (a = 0; a < k; a++)
				for (b = 0; b < k; b++)
				{
					double		avg = 0.5 * (W[MrfPairwiseAt(p, k, i, j, a, b)] +
											 W[MrfPairwiseAt(p, k, j, i, b, a)]);

					best = fabs(avg) > best ? fabs(avg) : best;
				}
			if (best >= opt->eta / 2.0)
			{
				int32_t		vars[2];

				vars[0] = i;
				vars[1] = j;
				st = MrfStructureAdd(out, env, 2, vars);
				if (st != MRF_OK)
					goto done;
			}
		}
	st = MrfStructureCanonicalize(out, env);

done:
	MrfFree(env, theta);
	MrfFree(env, W);
	MrfFree(env, w);
	MrfFree(env, allowed);
	MrfFree(env, y);
	MrfFree(env, ybuf);
	MrfFree(env, x);
	return st;
}

/* Byte rows: p bytes each (pairwise.h's layout). */
void
MrfPairwiseBlockLearner(const MrfPairwiseBlockOptions *opt, MrfBlockLearner *learner)
{
	memset(learner, 0, sizeof(*learner));
	learner->learn = MrfPairwiseBlockLearn;
	learner->arg = opt;
	learner->p = opt->p;
	learner->row_bytes = (size_t) opt->p;
	learner->workspace = PairwiseBlockWorkspace;
}

/* Shuffle, block, histogram, and a block graph of at most all p (p-1)/2 edges. */
size_t
MrfStructurePairwiseWorkspaceBytes(int p, int k, int64_t n, int m)
{
	MrfPairwiseBlockOptions bopt;
	MrfBlockLearner learner;

	if (p < 2 || k < 2 || k > MRF_PAIRWISE_MAX_K || n < 0 || m < 1)
		return SIZE_MAX;
	memset(&bopt, 0, sizeof(bopt));
	bopt.p = p;
	bopt.k = k;
	MrfPairwiseBlockLearner(&bopt, &learner);
	return MrfStructureWorkspaceBytes(&learner, n, m,
									  3 * ((int64_t) p * (p - 1) / 2));
}

/* ---------------------------------------------------------------------- */
/* The binary t-wise block learner                                         */
/* ---------------------------------------------------------------------- */

/* X (n x d), the masks, p node weights, the sets' averages, the solver. */
static size_t
TwiseBlockWorkspace(const void *arg, int64_t nrows)
{
	const MrfTwiseBlockOptions *opt = arg;
	int64_t		d = MrfSubsetCount(opt->p, opt->t - 1);
	int64_t		c = MrfSubsetCount(opt->p, opt->t);
	size_t		p = (size_t) opt->p;
	size_t		total = 0;

	if (d < 1 || c < 1 || d > 0x7fffffff)
		return SIZE_MAX;
	total = StructSizeAdd(total, StructSizeMul(StructSizeMul((size_t) nrows, (size_t) d + p + 1),
											   sizeof(double)));
	total = StructSizeAdd(total, StructSizeMul(p, (size_t) d + sizeof(double *)));
	total = StructSizeAdd(total, StructSizeMul(StructSizeMul(p, (size_t) d), sizeof(double)));
	total = StructSizeAdd(total, StructSizeMul((size_t) c, 2 * sizeof(double) + 1));
	total = StructSizeAdd(total, MrfLogregBatchBytes(nrows, (int) d, opt->p));
	return total;
}

/* 1 if the sorted set a (size ka) is a subset of the sorted set b (size kb). */
static int
SortedSubset(const int *a, int ka, const int *b, int kb)
{
	int			x = 0;
	int			y;

	for (y = 0; y < kb && x < ka; y++)
		if (b[y] == a[x])
			x++;
	return x == ka;
}

/*
 * Node regressions on the monomial design, radius 2 lambda (the width
 * bound: ||w_i||_1 = 2 ||d_i h||_1); the estimate of c_I averages w_i[I - i]
 * / 2 over i in I; kept sets of size 2..t, then only the maximal ones.
 */
MrfStatus
MrfTwiseBlockLearn(const void *arg, const void *rows, int64_t nrows,
				   const MrfEnv *env, MrfStructure *out)
{
	const MrfTwiseBlockOptions *opt = arg;
	double	   *base = NULL;
	double	   *x = NULL;
	uint8_t    *allowed = NULL;
	const double **y = NULL;
	double	   *w = NULL;
	double	   *sum = NULL;
	uint8_t    *kept = NULL;
	MrfStatus	st = MRF_OK;
	int64_t		d;
	int64_t		ncoef;
	int64_t		col;
	int			vars[MRF_TWISE_MAX_ORDER + 1];
	int			sub[MRF_TWISE_MAX_ORDER + 1];
	int			size;
	int			p;
	int			t;
	int			i;

	if (opt == NULL || rows == NULL || env == NULL || out == NULL || nrows < 1 ||
		nrows > (int64_t) 0x7fffffff)
		return MRF_EINVAL;
	p = opt->p;
	t = opt->t;
	if (p < 2 || t < 2 || t > p || t > MRF_TWISE_MAX_ORDER || out->p != p ||
		isnan(MrfStructureBlockRadius(opt->lambda, 1)) ||
		!isfinite(opt->eta) || opt->eta <= 0.0)
		return MRF_EINVAL;
	d = MrfSubsetCount(p, t - 1);
	ncoef = MrfSubsetCount(p, t);
	if (d < 1 || ncoef < 1 || d > 0x7fffffff / p)
		return MRF_EINVAL;

	base = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) nrows, (size_t) p + 1), sizeof(double)));
	x = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) nrows, (size_t) d), sizeof(double)));
	allowed = MrfAlloc(env, StructSizeMul((size_t) p, (size_t) d));
	y = MrfAlloc(env, StructSizeMul((size_t) p, sizeof(double *)));
	w = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) p, (size_t) d), sizeof(double)));
	sum = MrfAlloc(env, StructSizeMul((size_t) ncoef, sizeof(double)));
	kept = MrfAlloc(env, (size_t) ncoef);
	if (base == NULL || x == NULL || allowed == NULL || y == NULL || w == NULL ||
		sum == NULL || kept == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}

	/* the design: column index(S) = prod_{j in S} z_j, in twise.h's order */
	BitsToColumnsDouble(rows, nrows, p, base);
	size = 0;
	col = 0;
	do
	{
		double	   *xc = x + (size_t) col * (size_t) nrows;
		int64_t		m;
		int			s;

		for (m = 0; m < nrows; m++)
			xc[m] = 1.0;
		for (s = 0; s < size; s++)
		{
			const double *zc = base + (size_t) vars[s] * (size_t) nrows;

			for (m = 0; m < nrows; m++)
				xc[m] *= zc[m];
		}
		for (i = 0; i < p; i++)
		{
			int			has = 0;

			for (s = 0; s < size; s++)
				has |= vars[s] == i;
			allowed[(size_t) i * d + col] = (uint8_t) !has;
		}
		col++;
	} while (MrfSubsetNext(p, t - 1, vars, &size));
	for (i = 0; i < p; i++)
		y[i] = x + (size_t) (1 + i) * (size_t) nrows;	/* the column of {i} */

	st = MrfLogregBatch(x, nrows, (int) d, p, y, allowed, 2.0 * opt->lambda,
						opt->tolerance, opt->max_iterations, env, w, opt->stats);
	if (st != MRF_OK)
		goto done;

	/* c_I estimates: node i's weight of S gives I = S + i, averaged over I's members */
	memset(sum, 0, sizeof(double) * (size_t) ncoef);
	memset(kept, 0, (size_t) ncoef);
	for (i = 0; i < p; i++)
	{
		size = 0;
		col = 0;
		do
		{
			double		wi = w[(size_t) i * d + col];

			if (size >= 1 && wi != 0.0 && allowed[(size_t) i * d + col])
			{
				int			s;
				int			k = 0;
				int64_t		idx;

				for (s = 0; s < size; s++)
				{
					if (k == s && vars[s] > i)
						sub[k++] = i;
					sub[k++] = vars[s];
				}
				if (k == size)
					sub[k++] = i;
				idx = MrfSubsetIndex(p, sub, size + 1);
				if (idx > 0)
					sum[idx] += wi / 2.0;
			}
			col++;
		} while (MrfSubsetNext(p, t - 1, vars, &size));
	}
	size = 0;
	col = 0;
	while (MrfSubsetNext(p, t, vars, &size))
	{
		col++;
		if (size >= 2 && fabs(sum[col] / (double) size) >= opt->eta / 2.0)
			kept[col] = 1;
	}
	/* maximal kept sets: no kept strict superset (sets are tiny, t <= 16) */
	size = 0;
	col = 0;
	while (MrfSubsetNext(p, t, vars, &size))
	{
		int64_t		col2 = 0;
		int			size2 = 0;
		int			maximal = 1;

		col++;
		if (!kept[col])
			continue;
		while (maximal && MrfSubsetNext(p, t, sub, &size2))
		{
			col2++;
			if (size2 > size && kept[col2] && SortedSubset(vars, size, sub, size2))
				maximal = 0;
		}
		if (maximal)
		{
			int32_t		item[MRF_TWISE_MAX_ORDER];
			int			s;

			for (s = 0; s < size; s++)
				item[s] = vars[s];
			st = MrfStructureAdd(out, env, size, item);
			if (st != MRF_OK)
				goto done;
		}
	}
	st = MrfStructureCanonicalize(out, env);

done:
	MrfFree(env, kept);
	MrfFree(env, sum);
	MrfFree(env, w);
	MrfFree(env, y);
	MrfFree(env, allowed);
	MrfFree(env, x);
	MrfFree(env, base);
	return st;
}

/* Packed binary rows, as the Ising block learner. */
void
MrfTwiseBlockLearner(const MrfTwiseBlockOptions *opt, MrfBlockLearner *learner)
{
	memset(learner, 0, sizeof(*learner));
	learner->learn = MrfTwiseBlockLearn;
	learner->arg = opt;
	learner->p = opt->p;
	learner->row_bytes = sizeof(uint64_t) * (size_t) MrfBitWords(opt->p);
	learner->workspace = TwiseBlockWorkspace;
}

/*
 * Planning constant C of MrfIsingBlockRowsNeeded, fitted by experiment, not
 * derived.  test/bench/bench_structure.c measured the block size at which
 * the block learner finds the exact graph of a chain (coupling 0.5 = eta,
 * lambda = 1, no fields; Gibbs samples) in 60% of blocks: about 305 rows at
 * p = 50 and 526 at p = 200 (grids of ratio 1.15, 30-40 blocks per size),
 * i.e. C = 2.5e-5 and 3.4e-5.  3.5e-5 covers both.  Caveats, honestly:
 * only lambda = 1 was calibrated; the e^(12 lambda) factor of the theorem
 * is a worst case, so for wider models the plan is very conservative (the
 * 4 x 4 grid and the star of the unit tests need 10 to 10^5 times fewer
 * rows than planned); and from p = 50 to 200 the measured need grew a
 * little faster than ln(2p) (1.7x against 1.3x), so far beyond p = 200 the
 * plan may be short.
 */
#define ISING_PLAN_CONSTANT 3.5e-5

/*
 * Wu-Sanghavi-Dimakis (2019, Theorem 2 for k = 2; Zhang et al. 2020
 * Theorem 3.8 with alpha = eta / 2): n = O(lambda^2 e^(12 lambda) ln(p) /
 * eta^4) rows make every |A_hat_ij - A_ij| < eta / 2 with constant
 * probability.  The theorem's constant is not useful in practice, so
 * ISING_PLAN_CONSTANT is fitted to measurements (target: exact graph in 60%
 * of blocks, the fraction the default m is designed for); ln(2p) keeps
 * p = 2 sane.
 */
int64_t
MrfIsingBlockRowsNeeded(int p, double eta, double lambda)
{
	double		rows;

	if (p < 2 || !isfinite(eta) || eta <= 0.0 || !isfinite(lambda) || lambda <= 0.0)
		return -1;
	rows = ceil(ISING_PLAN_CONSTANT * lambda * lambda * exp(12.0 * lambda) *
				log(2.0 * p) / pow(eta, 4.0));
	if (!(rows < 9e18))
		return -1;
	return rows < 1.0 ? 1 : (int64_t) rows;
}

/* m blocks of the rows one block needs. */
int64_t
MrfStructurePlanRowsIsing(int p, double eta, double lambda, double epsilon,
						  double delta, int blocks)
{
	int64_t		per = MrfIsingBlockRowsNeeded(p, eta, lambda);
	int			m = blocks > 0 ? blocks : MrfStructureDefaultBlocks(epsilon, delta);

	if (per < 0 || m < 1 || blocks < 0 || MrfStableModeThreshold(epsilon, delta) < 0)
		return -1;
	if (per > INT64_MAX / m)
		return -1;
	return per * m;
}

/*
 * SPEC 4.5 'threshold': the private learner spends rho (zCDP); reading off
 * the edges at eta / 2 is post-processing.  The estimate is taken
 * unsymmetrised so that the rule sees both directions (with symmetrize on,
 * every rule reduces to AVERAGE).
 */
MrfStatus
MrfStructureThresholdIsing(const uint64_t *bits, int64_t n, int p,
						   const MrfIsingOptions *opt, double eta,
						   MrfEdgeRule rule, MrfRng *rng, const MrfEnv *env,
						   MrfStructure *out)
{
	MrfIsingOptions o;
	double	   *A = NULL;
	double	   *theta = NULL;
	MrfStatus	st;

	if (opt == NULL || out == NULL || env == NULL || p < 2 || !isfinite(eta) || eta <= 0.0)
		return MRF_EINVAL;
	MrfStructureFree(out, env);
	out->p = p;
	o = *opt;
	o.symmetrize = 0;
	A = MrfAlloc(env, StructSizeMul(StructSizeMul((size_t) p, (size_t) p), sizeof(double)));
	theta = MrfAlloc(env, StructSizeMul((size_t) p, sizeof(double)));
	if (A == NULL || theta == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}
	st = MrfIsingLearn(bits, n, p, &o, rng, env, A, theta);
	if (st == MRF_OK)
		st = MrfIsingEdgesFromWeights(A, p, eta, rule, env, out);

done:
	MrfFree(env, theta);
	MrfFree(env, A);
	return st;
}
