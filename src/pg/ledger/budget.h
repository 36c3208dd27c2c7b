/*
 * ledger/budget.h - reading a relation's budget: its row, who may read it, and
 * the largest release that fits (ledger/budget.c, which also holds the
 * owner-facing SQL functions).
 */
#ifndef MRF_PG_BUDGET_H
#define MRF_PG_BUDGET_H

#include "postgres.h"

#include "core/privacy.h"

/* Which amount MrfLargestFit finds. */
typedef enum MrfFitKind
{
	MRF_FIT_ZCDP,				/* rho of a zCDP release */
	MRF_FIT_PURE,				/* epsilon of a pure release */
	MRF_FIT_APPROX_EPSILON,		/* epsilon of an (epsilon, delta) release at a delta */
	MRF_FIT_APPROX_DELTA		/* delta of one with the smallest positive epsilon */
} MrfFitKind;

/*
 * Reads relid's budget row (spent sums rounded up to doubles) under the
 * active snapshot, inside SPI_connect; false when relid is not protected.
 */
bool		MrfReadBudget(Oid relid, MrfBudget *budget);

/*
 * Whether role may read relid's budget: its owner (or a member), a role
 * granted learning from it, or a superuser.  Inside SPI_connect.
 */
bool		MrfMayReadBudget(Oid relid, Oid role);

/*
 * The largest amount of a kind that fits relid's budget (as read into
 * budget) now, 0 when none does: found in doubles (privacy.c), then confirmed
 * by the charge worker's own exact condition, stepping down if need be, so
 * a release of exactly that amount is admitted.
 */
double		MrfLargestFit(Oid relid, const MrfBudget *budget, MrfFitKind kind, double delta);

/*
 * The same for the protected path (mrf_learn_*_from), as the caller types
 * it: the largest amount whose charge, the count of substituted rows' share
 * included (privacy.c), fits now.  A request of exactly that is admitted.
 */
double		MrfLargestFitFrom(Oid relid, const MrfBudget *budget, MrfFitKind kind, double delta);

/*
 * The largest delta of an (epsilon, delta) release at this epsilon that
 * fits relid's budget now (by the charge worker's condition), 0 if none.
 */
double		MrfLargestDeltaAt(Oid relid, double epsilon);

#endif
