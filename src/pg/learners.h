/*
 * learners.h - each learner from rows to a model, without charging: the
 * aggregate path and the protected path charge differently, then release.
 */
#ifndef MRF_PG_LEARNERS_H
#define MRF_PG_LEARNERS_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "core/ising.h"
#include "pg/aggregates.h"
#include "pg/ledger.h"
#include "pg/model.h"

/*
 * A learner: from the rows and options of a state (n >= 1) to a model, and
 * the charge that releasing it costs.  Charging and releasing are the
 * caller's: the aggregate's final function charges the statement's
 * relations, the protected path the one relation it read.
 */
typedef MrfModel *(*MrfLearnFn) (const MrfRowsState *state, MrfCharge *charge);

/*
 * A learner's plan: validates its options from the document alone (no row,
 * no p, no n) and fills the charge of a release (rows 0).  The learner
 * computes its own charge with the same code, so the two always agree.
 * Called through MrfPlanCharge (plan.h).
 */
typedef void (*MrfPlanFn) (Jsonb *options, MrfCharge *charge);

void		MrfIsingPlan(Jsonb *options, MrfCharge *charge);
void		MrfPairwisePlan(Jsonb *options, MrfCharge *charge);
void		MrfTwisePlan(Jsonb *options, MrfCharge *charge);
void		MrfStructurePlan(Jsonb *options, MrfCharge *charge);
void		MrfCliquesPlan(Jsonb *options, MrfCharge *charge);

/* How the protected path (protected.c) runs a learner. */
typedef struct MrfProtectedLearner
{
	const char *function;		/* SQL name, e.g. mrf_learn_ising_from */
	MrfRowFormat format;		/* bits or bytes rows */
	MrfLearnFn	learn;
	/*
	 * Optional: explains a NULL model (a learner that may release "nothing",
	 * such as the stable mode); called only after the charge committed.
	 */
	void		(*released_nothing) (const MrfRowsState *state);
	/* Rows are bytes when option model is 'pairwise' (structure learning). */
	bool		bytes_for_pairwise_model;
} MrfProtectedLearner;

/*
 * The body of every learner's final function: learns from the aggregate's
 * state, charges the statement's relations (returning only once the charge
 * is committed), then releases the model.  A learner may return NULL for a
 * release of "nothing"; released_nothing (optional) explains it afterwards.
 */
Datum		MrfAggregateRelease(FunctionCallInfo fcinfo, MrfLearnFn learn,
								void (*released_nothing) (const MrfRowsState *state));

/* Raises the error for a check MrfIsingValidate failed (nothing if valid). */
void		MrfIsingRefuse(MrfIsingCheck check, const MrfIsingOptions *io, int p, int64 n,
						   const char *learner);

/* The private Ising learner (Zhang et al. 2020, Algorithm 2). */
MrfModel   *MrfIsingLearnState(const MrfRowsState *state, MrfCharge *charge);

/* The private pairwise k-ary learner (Zhang et al. 2020, Algorithm 3). */
MrfModel   *MrfPairwiseLearnState(const MrfRowsState *state, MrfCharge *charge);

/* The private binary t-wise learner (Zhang et al. 2020, Algorithms 4 and 5). */
MrfModel   *MrfTwiseLearnState(const MrfRowsState *state, MrfCharge *charge);

/* Clique models from noisy sufficient statistics (Bernstein et al. 2017), epsilon-DP. */
MrfModel   *MrfCliquesLearnState(const MrfRowsState *state, MrfCharge *charge);

/*
 * Structure learning (Zhang et al. 2020, Section 6): the stable mode under
 * (epsilon, delta)-DP or the threshold method under zCDP.  NULL when the
 * stable mode released no graph (the charge is still due); then, once
 * charged, MrfStructureReleasedNothing explains why with a NOTICE.
 */
MrfModel   *MrfStructureLearnState(const MrfRowsState *state, MrfCharge *charge);
void		MrfStructureReleasedNothing(const MrfRowsState *state);

#endif
