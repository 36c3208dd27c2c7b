/*
 * structure.c - structure learning by the stable mode over disjoint blocks
 * (Zhang et al. 2020, Lemma 6.1; privacy.md 7): canonical structures, the
 * block assignment, the histogram and the private selection.  The block
 * learners live in structure_ising.c, structure_pairwise.c and
 * structure_twise.c, their shared solver in logreg.c.
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

#include "privacy.h"
#include "sizes.h"
#include "structure.h"

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
	grown = MrfAlloc(env, MrfSizeMul((size_t) cap, sizeof(int32_t)));
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
	items = MrfAlloc(env, MrfSizeMul((size_t) s->nitems, sizeof(*items)));
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

	out = MrfAlloc(env, MrfSizeMul((size_t) s->nwords, sizeof(int32_t)));
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
 * privacy.md 7 with the exact discrete Laplace (privacy.c has the proof): one
 * independent draw per observed candidate, survivors at count + Z >= tau,
 * the largest survivor wins, ties uniformly at random.  The tie rule uses
 * fresh randomness only, so it is post-processing of the noisy counts.
 * Every candidate gets its draw whether or not it could win, so that the
 * noise of one candidate never depends on another's count.  tau and the
 * scale num/den come calibrated from the callers (one node, or per shard),
 * with the status of the noise's calibration; arguments are checked here.
 */
static MrfStatus
StableSelect(const int64_t *counts, int k, int64_t tau, int noise_status, uint64_t num,
			 uint64_t den, MrfRng *rng, int *winner)
{
	int64_t		best_value = 0;
	int			best = -1;
	uint64_t	ties = 0;
	int			g;

	if (winner == NULL || rng == NULL || k < 0 || (k > 0 && counts == NULL))
		return MRF_EINVAL;
	*winner = -1;
	if (tau < 0 || noise_status != 0)
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

/* The one-node calibration (privacy.md 7.1): one replaced row changes one block. */
MrfStatus
MrfStableModeSelect(const int64_t *counts, int k, double epsilon,
					double delta, MrfRng *rng, int *winner)
{
	uint64_t	num = 0;
	uint64_t	den = 0;
	int			noise_status = MrfStableModeNoise(epsilon, &num, &den);

	return StableSelect(counts, k, MrfStableModeThreshold(epsilon, delta), noise_status,
						num, den, rng, winner);
}

/* Blocks cut per shard (privacy.md 7.3): one replaced row changes two blocks. */
MrfStatus
MrfStableShardSelect(const int64_t *counts, int k, double epsilon,
					 double delta, MrfRng *rng, int *winner)
{
	uint64_t	num = 0;
	uint64_t	den = 0;
	int			noise_status = MrfStableShardNoise(epsilon, &num, &den);

	return StableSelect(counts, k, MrfStableShardThreshold(epsilon, delta), noise_status,
						num, den, rng, winner);
}

/*
 * privacy.md 7: a structure found by a fraction 0.6 of the blocks should clear
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

/* ceil(2 tau / 0.6) with the per-shard threshold (privacy.md 7.3), public values only. */
int
MrfStructureDefaultBlocksShards(double epsilon, double delta)
{
	int64_t		tau = MrfStableShardThreshold(epsilon, delta);
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
	total = MrfSizeAdd(total, MrfSizeMul((size_t) n, sizeof(int64_t)));
	total = MrfSizeAdd(total, MrfSizeMul((size_t) bmax, learner->row_bytes));
	if (learner->workspace != NULL)
		total = MrfSizeAdd(total, learner->workspace(learner->arg, bmax));
	total = MrfSizeAdd(total, MrfSizeMul((size_t) m, sizeof(HistEntry) + sizeof(int64_t)));
	total = MrfSizeAdd(total, MrfSizeMul(slots, sizeof(int)));
	/* each stored structure, and the learner's list before canonicalisation */
	total = MrfSizeAdd(total,
						  MrfSizeMul(MrfSizeMul((size_t) m + 2, (size_t) max_block_words),
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
	dst->words = MrfAlloc(env, MrfSizeMul((size_t) src->nwords, sizeof(int32_t)));
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
 * The release (privacy.md 7): shuffle, learn each block on a copy of its rows,
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
	/* public values only (n, m, the learner's size): no block is learned */
	if (MrfStructureBlockRows(n, m, m - 1) < learner->min_rows)
		return MRF_OK;

	bmax = MrfStructureBlockRows(n, m, 0);
	while (nslots < 2 * (size_t) m)
		nslots *= 2;
	perm = MrfAlloc(env, MrfSizeMul((size_t) n, sizeof(int64_t)));
	block = MrfAlloc(env, MrfSizeMul((size_t) bmax, learner->row_bytes));
	entries = MrfAlloc(env, MrfSizeMul((size_t) m, sizeof(HistEntry)));
	counts = MrfAlloc(env, MrfSizeMul((size_t) m, sizeof(int64_t)));
	slots = MrfAlloc(env, MrfSizeMul(nslots, sizeof(int)));
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

/*
 * One block cut where its rows are (privacy.md 7.3): the rows, in whatever
 * order they arrived, are put in a uniformly random order (Fisher-Yates
 * from rng), so that the block's structure is a function of the block's
 * multiset of rows and fresh randomness only, then learned and
 * canonicalised.  A block of fewer than max(1, min_rows) rows abstains
 * (*learned 0, out empty): a function of its size alone.
 */
MrfStatus
MrfStructureLearnBlock(void *rows, int64_t nrows, const MrfBlockLearner *learner,
					   MrfRng *rng, const MrfEnv *env, MrfStructure *out, int *learned)
{
	unsigned char *r = rows;
	unsigned char *tmp;
	size_t		rb;
	MrfStatus	st;

	if (learned != NULL)
		*learned = 0;
	if (learner == NULL || learner->learn == NULL || learner->row_bytes == 0 ||
		rng == NULL || env == NULL || out == NULL || learned == NULL || nrows < 0 ||
		(nrows > 0 && rows == NULL))
		return MRF_EINVAL;
	MrfStructureFree(out, env);
	out->p = learner->p;
	if (nrows < 1 || nrows < learner->min_rows)
		return MRF_OK;
	rb = learner->row_bytes;
	tmp = MrfAlloc(env, rb);
	if (tmp == NULL)
		return MRF_ENOMEM;
	for (int64_t i = nrows - 1; i > 0; i--)
	{
		int64_t		j = (int64_t) MrfRngBelow(rng, (uint64_t) i + 1);

		if (j == i)
			continue;
		memcpy(tmp, r + (size_t) i * rb, rb);
		memcpy(r + (size_t) i * rb, r + (size_t) j * rb, rb);
		memcpy(r + (size_t) j * rb, tmp, rb);
	}
	MrfFree(env, tmp);
	st = learner->learn(learner->arg, rows, nrows, env, out);
	if (st == MRF_OK)
		st = MrfStructureCanonicalize(out, env);
	if (st != MRF_OK)
	{
		MrfStructureFree(out, env);
		return st;
	}
	*learned = 1;
	return MRF_OK;
}

/*
 * The release from blocks learned where their rows are (privacy.md 7.3):
 * identical canonical structures counted, then the per-shard selection.
 * The blocks' structures are consumed (each freed or moved and freed);
 * the counts are wiped before returning.
 */
MrfStatus
MrfStructureSelectShards(MrfStructure *blocks, int nblocks, double epsilon, double delta,
						 MrfRng *rng, const MrfEnv *env, MrfStructure *out, int *released)
{
	MrfStatus	st = MRF_OK;
	HistEntry  *entries = NULL;
	int64_t    *counts = NULL;
	int		   *slots = NULL;
	size_t		nslots = 1;
	int			nentries = 0;
	int			winner = -1;
	int			p;

	if (released != NULL)
		*released = 0;
	if ((nblocks > 0 && blocks == NULL) || nblocks < 0 || rng == NULL || env == NULL ||
		out == NULL || released == NULL)
		return MRF_EINVAL;
	if (MrfStableShardThreshold(epsilon, delta) < 0)
		return MRF_EINVAL;
	p = out->p;
	MrfStructureFree(out, env);
	out->p = p;
	while (nslots < 2 * (size_t) (nblocks > 0 ? nblocks : 1))
		nslots *= 2;
	entries = MrfAlloc(env, MrfSizeMul((size_t) nblocks + 1, sizeof(HistEntry)));
	counts = MrfAlloc(env, MrfSizeMul((size_t) nblocks + 1, sizeof(int64_t)));
	slots = MrfAlloc(env, MrfSizeMul(nslots, sizeof(int)));
	if (entries == NULL || counts == NULL || slots == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < nslots; i++)
		slots[i] = -1;
	for (int b = 0; b < nblocks; b++)
	{
		if (blocks[b].p != p)
		{
			st = MRF_EINVAL;
			goto done;
		}
		HistogramAdd(entries, &nentries, slots, nslots - 1, &blocks[b], env);
	}
	for (int e = 0; e < nentries; e++)
		counts[e] = entries[e].count;
	st = MrfStableShardSelect(counts, nentries, epsilon, delta, rng, &winner);
	if (st == MRF_OK && winner >= 0)
	{
		st = StructureCopyExact(&entries[winner].s, env, out);
		*released = st == MRF_OK;
	}

done:
	for (int b = 0; b < nblocks; b++)
		MrfStructureFree(&blocks[b], env);
	if (entries != NULL)
		for (int e = 0; e < nentries; e++)
			MrfStructureFree(&entries[e].s, env);
	if (counts != NULL)
		memset(counts, 0, sizeof(int64_t) * ((size_t) nblocks + 1));
	if (entries != NULL)
		memset(entries, 0, sizeof(HistEntry) * ((size_t) nblocks + 1));
	MrfFree(env, slots);
	MrfFree(env, counts);
	MrfFree(env, entries);
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
