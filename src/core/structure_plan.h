/*
 * structure_plan.h - how many rows the stable mode's pairwise and t-wise
 * block learners need (the defaults study), beside the Ising plan of
 * structure_ising.h: fitted to measured exact recovery, not derived.
 */
#ifndef MRF_STRUCTURE_PLAN_H
#define MRF_STRUCTURE_PLAN_H

#include <stdint.h>

/*
 * Rows per block for the pairwise block learner (alphabet k, radius
 * 2 k lambda) on a model of width `width` whose weakest edge has largest
 * entry eta, sized like the Ising plan for a 90% exact release at the
 * default block count.  -1 if invalid; -2 when lambda is well below the
 * width (no number of rows is enough).
 */
int64_t		MrfPairwiseBlockRowsNeeded(int p, int k, double eta, double width,
									   double lambda);

/* The same for the t-wise block learner of order t (radius 2 lambda). */
int64_t		MrfTwiseBlockRowsNeeded(int p, int t, double eta, double width,
									double lambda);

#endif
