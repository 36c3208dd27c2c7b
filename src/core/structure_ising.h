/*
 * structure_ising.h - the Ising block learner of structure learning
 * (L1-constrained logistic regression per node, Wu-Sanghavi-Dimakis 2019,
 * solved to a duality-gap tolerance), the release in one call, the planning
 * of the rows needed, and the zCDP threshold variant.
 */
#ifndef MRF_STRUCTURE_ISING_H
#define MRF_STRUCTURE_ISING_H

#include <stddef.h>
#include <stdint.h>

#include "env.h"
#include "ising.h"
#include "logreg.h"
#include "noise.h"
#include "structure.h"

/* How the two estimates A_ij (node i's regression) and A_ji combine. */
typedef enum MrfEdgeRule
{
	MRF_EDGE_AVERAGE = 0,		/* |(A_ij + A_ji) / 2| >= eta / 2 (default) */
	MRF_EDGE_AND = 1,			/* both |A_ij| and |A_ji| >= eta / 2 */
	MRF_EDGE_OR = 2				/* either */
} MrfEdgeRule;

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
 * Planning: rows per block for the non-private Ising learner on a model of
 * width `width` at radius 2 lambda, sized so that the stable mode at its
 * default m releases the exact graph about 90% of the time:
 * C e^(A w) min(lambda / w, 2)^B ln(2p) / eta^2 with constants fitted to
 * measurements (see structure_ising.c).  -1 if invalid; -2 when lambda is
 * below the width (a biased block learner: no number of rows is enough).
 */
int64_t		MrfIsingBlockRowsNeededWidth(int p, double eta, double width, double lambda);

/* The width mrf_structure_rows_needed plans for when none is given. */
#define MRF_STRUCTURE_PLAN_WIDTH 2.0

/* The width exponent A of the plan (structure_ising.c), for messages. */
#define MRF_ISING_PLAN_A 0.95

/* The same for a model as wide as lambda allows (width = lambda). */
int64_t		MrfIsingBlockRowsNeeded(int p, double eta, double lambda);

/* Planning: rows for a release, blocks (0: default) times the above. */
int64_t		MrfStructurePlanRowsIsing(int p, double eta, double lambda,
									  double epsilon, double delta, int blocks);

/*
 * The zCDP alternative (method 'threshold', privacy.md 7): MrfIsingLearn under
 * opt (rho-zCDP), then the edges of the estimate at eta / 2 by rule; only
 * post-processing after the private learner.
 */
MrfStatus	MrfStructureThresholdIsing(const uint64_t *bits, int64_t n, int p,
									   const MrfIsingOptions *opt, double eta,
									   MrfEdgeRule rule, MrfRng *rng,
									   const MrfEnv *env, MrfStructure *out);

/*
 * The same from the Frank-Wolfe score sums of each iteration (distributed
 * learning, ising.h MrfIsingLearnParts): with the parts' sums of a
 * partition of the n rows, the structure and the random draws are
 * MrfStructureThresholdIsing's on those rows, bit for bit.
 */
MrfStatus	MrfStructureThresholdIsingParts(MrfFwScoresFn scores_fn, void *arg, int64_t n,
											int p, const MrfIsingOptions *opt, double eta,
											MrfEdgeRule rule, MrfRng *rng,
											const MrfEnv *env, MrfStructure *out);

#endif
