/*
 * structure_pairwise.h - the pairwise k-ary block learner of structure
 * learning (one-vs-one regressions of Wu-Sanghavi-Dimakis).
 */
#ifndef MRF_STRUCTURE_PAIRWISE_H
#define MRF_STRUCTURE_PAIRWISE_H

#include <stddef.h>
#include <stdint.h>

#include "env.h"
#include "logreg.h"
#include "structure.h"

typedef struct MrfPairwiseBlockOptions
{
	int			p;
	int			k;				/* alphabet 2..MRF_PAIRWISE_MAX_K (the largest k_i) */
	const uint8_t *kv;			/* per-variable alphabets (p entries, 2..k, the
								 * largest k), or NULL: every variable has k */
	double		eta;			/* edge if max_ab |W_ij(a, b)| >= eta / 2 */
	double		lambda;			/* width bound: radius 2 lambda k, as pairwise.c */
	double		tolerance;		/* 0: MRF_LOGREG_TOLERANCE */
	int			max_iterations; /* 0: MRF_LOGREG_MAX_ITERATIONS */
	MrfLogregStats *stats;		/* if not NULL: the last call's statistics */
} MrfPairwiseBlockOptions;

/*
 * The pairwise block learner over byte rows (p bytes, values 0..k_i - 1):
 * per node i and ordered pair u != v of its own values, the L1-constrained logistic regression of
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

/* The same with per-variable alphabets kv (NULL: every variable has k). */
size_t		MrfStructurePairwiseWorkspaceBytesAlphabets(int p, int k, const uint8_t *kv,
														int64_t n, int m);

#endif
