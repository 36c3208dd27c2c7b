/*
 * plan.h - what a release will cost, known before a single row is read.
 *
 * A release's charge depends on its learner and its options only (never on
 * the data, nor on n or p), so both paths can know it up front: the
 * protected path charges it before reading (and charges it even when the
 * owner-rights read fails), and the aggregate path can check the budget at
 * its first row.  The learners compute their charge with the same functions
 * (each learner's Plan function in learners.h), so a planned charge is, bit
 * for bit, the one a release spends.
 */
#ifndef MRF_PG_PLAN_H
#define MRF_PG_PLAN_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "pg/ledger.h"

/*
 * Validates every option of learner (its SQL name, e.g. "mrf_learn_ising";
 * a "_from" or "_agg" suffix is ignored) and fills charge: learner, notion,
 * rho, epsilon, delta; rows is 0 (not known yet).  Errors, charging nothing,
 * for any option the learner would refuse on its own (checks that need p or
 * n stay with the learner's plan pass).  protected_path adds the cost of the
 * noisy count of substituted rows that every _from release carries
 * (MrfSubstitutedCountCharge).
 */
void		MrfPlanCharge(const char *learner, Jsonb *options, bool protected_path,
						  MrfCharge *charge);

/*
 * Adds the cost of the protected path's noisy count of substituted rows to
 * a learner's charge (calibration: MrfSubstitutedCount* in privacy.c).
 */
void		MrfSubstitutedCountCharge(MrfCharge *charge);

/* Whether two charges are the same amounts (notion, rho, epsilon, delta). */
bool		MrfChargeEqual(const MrfCharge *a, const MrfCharge *b);

/* Sets *charge to a zCDP release of rho by learner (nothing else charged). */
void		MrfChargeZcdp(MrfCharge *charge, const char *learner, double rho);

#endif
