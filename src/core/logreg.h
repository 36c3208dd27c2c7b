/*
 * logreg.h - the batched L1-constrained logistic regression solver of the
 * structure block learners (accelerated projected gradient to a certified
 * duality gap; logreg.c describes it).  Non-private: it reads one block.
 */
#ifndef MRF_LOGREG_H
#define MRF_LOGREG_H

#include <stddef.h>
#include <stdint.h>

#include "env.h"

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
 * The solver on any design: x is n x d column-major; task c (ntasks
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

/* The gradient weights' exp of four values, as lanes (1) or scalars (0); unit tests. */
void		MrfLogregExp4(const double *x, int lanes, double *out);

#endif
