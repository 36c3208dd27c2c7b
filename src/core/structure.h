/*
 * structure.h - structure learning under (epsilon, delta)-DP by the stable
 * mode over disjoint blocks (Zhang et al. 2020, Section 6 and Lemma 6.1;
 * SPEC.md 4.5), and the zCDP alternative that thresholds private parameters.
 *
 * The pieces:
 *   - MrfStructure: a canonical structure, the sorted list of its items
 *     (edges, or the monomials of a t-wise model), so that two blocks that
 *     learned the same graph hold identical word arrays;
 *   - MrfBlockLearner: the non-private learner run on each block, a function
 *     pointer that maps a block of rows to items (Ising, pairwise k-ary and
 *     binary t-wise learners below, all on one batched FISTA solver);
 *   - MrfStableModeSelect: the private selection from a histogram of block
 *     outputs, the only step that touches privacy;
 *   - MrfStructureLearn: blocks, learners, histogram, selection;
 *   - the Ising block learner (L1-constrained logistic regression per node,
 *     Wu-Sanghavi-Dimakis 2019, solved to a duality-gap tolerance), the
 *     default block count and a planning function for the rows needed.
 */
#ifndef MRF_STRUCTURE_H
#define MRF_STRUCTURE_H

#include <stddef.h>
#include <stdint.h>

#include "env.h"
#include "ising.h"
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

/* ---- Ising (Wu-Sanghavi-Dimakis block learner) ---- */

/* How the two estimates A_ij (node i's regression) and A_ji combine. */
typedef enum MrfEdgeRule
{
	MRF_EDGE_AVERAGE = 0,		/* |(A_ij + A_ji) / 2| >= eta / 2 (default) */
	MRF_EDGE_AND = 1,			/* both |A_ij| and |A_ji| >= eta / 2 */
	MRF_EDGE_OR = 2				/* either */
} MrfEdgeRule;

/* Default duality-gap tolerance of the node regressions (average loss). */
#define MRF_LOGREG_TOLERANCE 1e-7

/* Default iteration cap of the node regressions. */
#define MRF_LOGREG_MAX_ITERATIONS 3000

/* What the solver did (for tests and benchmarks; nothing private). */
typedef struct MrfLogregStats
{
	int			iterations;		/* accelerated steps taken, the largest node */
	int			unconverged;	/* nodes stopped by the cap */
	double		max_gap;		/* largest final duality gap */
} MrfLogregStats;

/*
 * Non-private: for every node i, minimises the average logistic loss of z_i
 * on [z_-i, 1] over ||w||_1 <= radius (w_i fixed at 0) by accelerated
 * projected gradient, until the Frank-Wolfe duality gap is at most tol.
 * w is p x (p+1), row i = node i's weights (last entry: the intercept).
 * tol <= 0 and max_iter <= 0 select the defaults; stats may be NULL.
 */
MrfStatus	MrfIsingNodeRegressions(const uint64_t *bits, int64_t n, int p,
									double radius, double tol, int max_iter,
									const MrfEnv *env, double *w,
									MrfLogregStats *stats);

/* Bytes of working memory of MrfIsingNodeRegressions. */
size_t		MrfIsingNodeRegressionsBytes(int p, int64_t n);

/*
 * The same solver on any design: x is n x d column-major; task c (ntasks
 * of them) minimises the average logistic loss of y[c] (n entries, +-1, or
 * 0 for a row that is not part of the task) over the coordinates with
 * allowed[c d + j] != 0, ||w_c||_1 <= radius.  w is ntasks x d.  Used by
 * the Ising, pairwise and t-wise block learners.
 */
MrfStatus	MrfLogregBatch(const double *x, int64_t n, int d, int ntasks,
						   const double *const *y, const uint8_t *allowed,
						   double radius, double tol, int max_iter,
						   const MrfEnv *env, double *w, MrfLogregStats *stats);

/* Bytes of working memory of MrfLogregBatch (beyond x, y, allowed and w). */
size_t		MrfLogregBatchBytes(int64_t n, int d, int ntasks);

/*
 * Edges of the directed estimates A (p x p row-major, row i from node i's
 * regression; the diagonal is ignored): {i, j} is an edge when rule accepts
 * A_ij and A_ji at eta / 2.  Appends to out and canonicalises it.
 */
MrfStatus	MrfIsingEdgesFromWeights(const double *A, int p, double eta,
									 MrfEdgeRule rule, const MrfEnv *env,
									 MrfStructure *out);

typedef struct MrfIsingBlockOptions
{
	int			p;
	double		eta;			/* public lower bound on |A_ij| of an edge */
	double		lambda;			/* public width bound: radius 2 lambda */
	MrfEdgeRule rule;
	double		tolerance;		/* 0: MRF_LOGREG_TOLERANCE */
	int			max_iterations; /* 0: MRF_LOGREG_MAX_ITERATIONS */
	MrfLogregStats *stats;		/* if not NULL: the last call's statistics */
} MrfIsingBlockOptions;

/* The Ising block learner (an MrfBlockLearnFn over packed rows). */
MrfStatus	MrfIsingBlockLearn(const void *arg, const void *rows, int64_t nrows,
							   const MrfEnv *env, MrfStructure *out);

/* Fills learner to run MrfIsingBlockLearn with opt (which must outlive it). */
/*
 * The L1 radius of the block learners' node regressions, 2 lambda k (k = 1
 * for binary models); NaN when it is not finite and positive.
 */
double		MrfStructureBlockRadius(double lambda, int k);

void		MrfIsingBlockLearner(const MrfIsingBlockOptions *opt,
								 MrfBlockLearner *learner);

/*
 * The Ising release in one call: packed rows (rows.h) through the block
 * learner with the default rule and tolerance.
 */
MrfStatus	MrfStructureLearnIsing(const uint64_t *bits, int64_t n, int p,
								   double eta, double lambda,
								   const MrfStructureOptions *opt, MrfRng *rng,
								   const MrfEnv *env, MrfStructure *out,
								   int *released);

/* Bytes of working memory of MrfStructureLearnIsing. */
size_t		MrfStructureIsingWorkspaceBytes(int p, int64_t n, int m);

/*
 * Planning: rows per block for the non-private Ising learner to find the
 * exact graph with probability about 0.6 (what the default m assumes),
 * C lambda^2 e^(12 lambda) ln(2p) / eta^4 in the Wu-Sanghavi-Dimakis form,
 * with C fitted to experiments at lambda = 1 (see structure.c; very
 * conservative for larger lambda).  -1 if invalid.
 */
int64_t		MrfIsingBlockRowsNeeded(int p, double eta, double lambda);

/* Planning: rows for a release, blocks (0: default) times the above. */
int64_t		MrfStructurePlanRowsIsing(int p, double eta, double lambda,
									  double epsilon, double delta, int blocks);

/* ---- pairwise k-ary (one-vs-one regressions of Wu-Sanghavi-Dimakis) ---- */

typedef struct MrfPairwiseBlockOptions
{
	int			p;
	int			k;				/* alphabet 2..MRF_PAIRWISE_MAX_K */
	double		eta;			/* edge if max_ab |W_ij(a, b)| >= eta / 2 */
	double		lambda;			/* width bound: radius 2 lambda k, as pairwise.c */
	double		tolerance;		/* 0: MRF_LOGREG_TOLERANCE */
	int			max_iterations; /* 0: MRF_LOGREG_MAX_ITERATIONS */
	MrfLogregStats *stats;		/* if not NULL: the last call's statistics */
} MrfPairwiseBlockOptions;

/*
 * The pairwise block learner over byte rows (p bytes, values 0..k-1): per
 * node i and ordered pair u != v, the L1-constrained logistic regression of
 * [z_i = u] against [z_i = v] on the rows with z_i in {u, v}, on the one-hot
 * of the other variables (pairwise.h's design), to the duality-gap
 * tolerance; MrfPairwiseRecover turns the weights into centred W (both
 * directions), and {i, j} is an edge when max_ab |(W_ij(a, b) + W_ji(b, a))
 * / 2| >= eta / 2.
 */
MrfStatus	MrfPairwiseBlockLearn(const void *arg, const void *rows, int64_t nrows,
								  const MrfEnv *env, MrfStructure *out);

/* Fills learner to run MrfPairwiseBlockLearn with opt (which must outlive it). */
void		MrfPairwiseBlockLearner(const MrfPairwiseBlockOptions *opt,
									MrfBlockLearner *learner);

/* Bytes of working memory of a pairwise release (n rows, m blocks). */
size_t		MrfStructurePairwiseWorkspaceBytes(int p, int k, int64_t n, int m);

/* ---- binary t-wise (node regressions on monomials of order < t) ---- */

typedef struct MrfTwiseBlockOptions
{
	int			p;
	int			t;				/* order, 2..min(p, MRF_TWISE_MAX_ORDER) */
	double		eta;			/* monomial if |c_I| >= eta / 2 */
	double		lambda;			/* width bound max_i ||d_i h||_1: radius 2 lambda */
	double		tolerance;		/* 0: MRF_LOGREG_TOLERANCE */
	int			max_iterations; /* 0: MRF_LOGREG_MAX_ITERATIONS */
	MrfLogregStats *stats;		/* if not NULL: the last call's statistics */
} MrfTwiseBlockOptions;

/*
 * The t-wise block learner over packed binary rows: per node i, the
 * L1-constrained logistic regression of z_i on the products prod_{j in S}
 * z_j of every set S of size 0..t-1 of the other variables (twise.h's
 * design), to the duality-gap tolerance.  P(z_i | z_-i) is exactly
 * logistic there with weights 2 c_{S + i}, so c_I is estimated by every
 * member of I; their average is compared with eta / 2 for every I of size
 * 2..t, and the items are the maximal ones among those kept (fields, the
 * sets of size 1, are not part of a structure).
 */
MrfStatus	MrfTwiseBlockLearn(const void *arg, const void *rows, int64_t nrows,
							   const MrfEnv *env, MrfStructure *out);

/* Fills learner to run MrfTwiseBlockLearn with opt (which must outlive it). */
void		MrfTwiseBlockLearner(const MrfTwiseBlockOptions *opt,
								 MrfBlockLearner *learner);

/*
 * The zCDP alternative (method 'threshold', SPEC 4.5): MrfIsingLearn under
 * opt (rho-zCDP), then the edges of the estimate at eta / 2 by rule; only
 * post-processing after the private learner.
 */
MrfStatus	MrfStructureThresholdIsing(const uint64_t *bits, int64_t n, int p,
									   const MrfIsingOptions *opt, double eta,
									   MrfEdgeRule rule, MrfRng *rng,
									   const MrfEnv *env, MrfStructure *out);

#endif
