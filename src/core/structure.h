/*
 * structure.h - structure learning under (epsilon, delta)-DP by the stable
 * mode over disjoint blocks (Zhang et al. 2020, Section 6 and Lemma 6.1;
 * privacy.md 7), and the zCDP alternative that thresholds private parameters.
 *
 * The pieces:
 *   - MrfStructure: a canonical structure, the sorted list of its items
 *     (edges, or the monomials of a t-wise model), so that two blocks that
 *     learned the same graph hold identical word arrays;
 *   - MrfBlockLearner: the non-private learner run on each block, a function
 *     pointer that maps a block of rows to items (the Ising, pairwise k-ary
 *     and binary t-wise learners of structure_ising.h, structure_pairwise.h
 *     and structure_twise.h, all on logreg.h's batched FISTA solver);
 *   - MrfStableModeSelect: the private selection from a histogram of block
 *     outputs, the only step that touches privacy;
 *   - MrfStructureLearn: blocks, learners, histogram, selection, and the
 *     default block count.
 */
#ifndef MRF_STRUCTURE_H
#define MRF_STRUCTURE_H

#include <stddef.h>
#include <stdint.h>

#include "env.h"
#include "noise.h"

/*
 * A structure over variables 0..p-1.  words holds nitems items, each as
 * [size, v_1, ..., v_size]; in canonical form v_1 < ... < v_size within an
 * item, and items are sorted by size, then lexicographically, without
 * repeats.  For a graph every item is an edge [2, i, j] with i < j, so the
 * canonical form is the sorted edge list.  Walk it with
 *     for (w = 0; w < s->nwords; w += 1 + s->words[w]) ...
 * Memory comes from the MrfEnv given to the functions below.
 */
typedef struct MrfStructure
{
	int			p;
	int32_t		nitems;
	int64_t		nwords;
	int64_t		capacity;		/* words allocated */
	int32_t    *words;
} MrfStructure;

/* An empty structure over p variables (no allocation). */
void		MrfStructureInit(MrfStructure *s, int p);

/* Releases the words; s stays usable (empty). */
void		MrfStructureFree(MrfStructure *s, const MrfEnv *env);

/* Appends one item of size variables, in any order (canonicalise later). */
MrfStatus	MrfStructureAdd(MrfStructure *s, const MrfEnv *env, int size,
							const int32_t *vars);

/*
 * Sorts the variables of each item, sorts the items and drops repeated
 * ones.  MRF_EINVAL if an item is empty, names a variable outside 0..p-1 or
 * names one variable twice (a learner bug).
 */
MrfStatus	MrfStructureCanonicalize(MrfStructure *s, const MrfEnv *env);

/* 1 if a and b hold the same words (both canonical), else 0. */
int			MrfStructureEqual(const MrfStructure *a, const MrfStructure *b);

/* A 64-bit hash of the words (FNV-1a); equal structures hash equally. */
uint64_t	MrfStructureHash(const MrfStructure *s);

/* Number of edges (items of size 2). */
int64_t		MrfStructureEdgeCount(const MrfStructure *s);

/* 1 if the canonical structure s contains edge {i, j}, else 0. */
int			MrfStructureHasEdge(const MrfStructure *s, int i, int j);

/*
 * A non-private structure learner for one block: reads nrows contiguous rows
 * of the learner's row_bytes each and appends its items to out (initialised
 * empty over p variables by the caller, who canonicalises afterwards).  It
 * must depend on its own block only; it may poll env.  nrows may be small
 * (any value >= 1); a learner must then still return MRF_OK, whatever graph
 * it finds, because a data-dependent failure would itself leak.
 */
typedef MrfStatus (*MrfBlockLearnFn) (const void *arg, const void *rows,
									  int64_t nrows, const MrfEnv *env,
									  MrfStructure *out);

typedef struct MrfBlockLearner
{
	MrfBlockLearnFn learn;
	const void *arg;			/* the learner's options */
	int			p;				/* variables */
	size_t		row_bytes;		/* bytes per row, e.g. 8 * MrfBitWords(p) */
	/* bytes of working memory of one call on nrows rows; may be NULL */
	size_t		(*workspace) (const void *arg, int64_t nrows);

	/*
	 * Blocks of fewer rows release nothing (0: no minimum): a node
	 * regression with fewer than twice as many rows as coefficients is
	 * nearly separable, and a generous radius then drives block after block
	 * to the same complete graph (the defaults study: a 6-chain in blocks of 3 rows
	 * at lambda 8 gave the complete graph in 24 of 94 blocks).
	 */
	int64_t		min_rows;
} MrfBlockLearner;

typedef struct MrfStructureOptions
{
	double		epsilon;
	double		delta;
	int			blocks;			/* m; 0: MrfStructureDefaultBlocks */
} MrfStructureOptions;

/*
 * The stable-mode selection on a histogram: counts[g] >= 1 is the number of
 * blocks that produced candidate g (k candidates, k >= 0).  Writes the
 * released candidate to *winner, or -1 for none.  Noisy counts never leave
 * this function.  MRF_EINVAL on invalid epsilon/delta or a count below 1.
 */
MrfStatus	MrfStableModeSelect(const int64_t *counts, int k, double epsilon,
								double delta, MrfRng *rng, int *winner);

/*
 * Default m: the smallest m such that a structure found by 60% of the blocks
 * has a count of at least twice tau (MrfStableModeThreshold).  -1 if invalid.
 */
int			MrfStructureDefaultBlocks(double epsilon, double delta);

/* Rows of block k (0-based) when n rows are split into m blocks. */
int64_t		MrfStructureBlockRows(int64_t n, int m, int k);

/*
 * Bytes of working memory of MrfStructureLearn beyond its input, for n rows
 * and m blocks, when each block's structure has at most max_block_words
 * words (p (p - 1) / 2 edges take 3 p (p - 1) / 2).
 */
size_t		MrfStructureWorkspaceBytes(const MrfBlockLearner *learner, int64_t n,
									   int m, int64_t max_block_words);

/*
 * The release: n >= m rows (row k starts at k * learner->row_bytes), each
 * block a uniformly random subset (secure shuffle from rng), the learner on
 * each, then MrfStableModeSelect.  On MRF_OK, *released is 1 and out holds
 * the canonical structure (out must be initialised; its old words are
 * freed), or *released is 0 and out is empty.  MRF_EINVAL for invalid
 * options or n < m (public values only).  Polls env with (work done, total).
 */
MrfStatus	MrfStructureLearn(const void *rows, int64_t n,
							  const MrfBlockLearner *learner,
							  const MrfStructureOptions *opt, MrfRng *rng,
							  const MrfEnv *env, MrfStructure *out,
							  int *released);

/* ---- blocks cut where the rows are (Citus shards; privacy.md 7.3) ---- */

/*
 * The per-shard selection: as MrfStableModeSelect, calibrated for one
 * replaced row changing two blocks (MrfStableShardNoise, -Threshold).
 */
MrfStatus	MrfStableShardSelect(const int64_t *counts, int k, double epsilon,
								 double delta, MrfRng *rng, int *winner);

/* Default total block count for the per-shard threshold: ceil(2 tau / 0.6). */
int			MrfStructureDefaultBlocksShards(double epsilon, double delta);

/*
 * One block: its nrows rows (row_bytes each, overwritten) shuffled
 * uniformly with rng, then the learner and canonicalisation into out.
 * *learned is 0 (out empty) when the block abstains: fewer than
 * max(1, learner->min_rows) rows.
 */
MrfStatus	MrfStructureLearnBlock(void *rows, int64_t nrows,
								   const MrfBlockLearner *learner, MrfRng *rng,
								   const MrfEnv *env, MrfStructure *out,
								   int *learned);

/*
 * The release from nblocks canonical block structures over out->p
 * variables (consumed): counted, then MrfStableShardSelect.  *released and
 * out as MrfStructureLearn.
 */
MrfStatus	MrfStructureSelectShards(MrfStructure *blocks, int nblocks,
									 double epsilon, double delta, MrfRng *rng,
									 const MrfEnv *env, MrfStructure *out,
									 int *released);

/*
 * The L1 radius of the block learners' node regressions, 2 lambda k (k = 1
 * for binary models); NaN when it is not finite and positive.
 */
double		MrfStructureBlockRadius(double lambda, int k);

#endif
