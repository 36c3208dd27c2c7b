/*
 * structure_twise.h - the binary t-wise block learner of structure learning
 * (node regressions on the monomials of order below t).
 */
#ifndef MRF_STRUCTURE_TWISE_H
#define MRF_STRUCTURE_TWISE_H

#include <stddef.h>
#include <stdint.h>

#include "env.h"
#include "logreg.h"
#include "structure.h"

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

#endif
