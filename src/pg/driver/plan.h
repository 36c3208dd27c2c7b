/*
 * driver/plan.h - the one driver of every learner (driver/learners.h): options parsed
 * once, a plan from them and the public sizes, the memory check, the run,
 * the common metadata.  Charging is the caller's (the aggregate path charges
 * the statement's relations before release, the protected path the relation
 * it read before learning); both charge plan->charge, known before a single
 * row is read: a release's charge depends on its learner and options only.
 */
#ifndef MRF_PG_PLAN_H
#define MRF_PG_PLAN_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "pg/driver/learners.h"
#include "pg/ledger/ledger.h"

/* The learner of a SQL name; a "_from" or "_agg" suffix is ignored.  NULL if none. */
const MrfLearner *MrfLearnerFind(const char *name);

/*
 * Parses options once (defaults filled in) and lets the learner validate
 * them and set the charge.  Errors, charging nothing, for any option the
 * learner refuses on its own.
 */
void		MrfPlanBegin(MrfPlan *plan, const MrfLearner *learner, Jsonb *options);

/*
 * Begins the plan of learner on options already parsed for another learner
 * that delegates to it, less the options named by drop (the delegating
 * learner's own), with learner's defaults for what is left out.
 */
MrfRefusal *MrfPlanDelegate(MrfPlan *inner, const MrfLearner *learner, const MrfOptions *opt,
							uint32 drop);

/* The rows' format the plan learns from. */
MrfRowFormat MrfPlanRowsFormat(const MrfPlan *plan);

/* Plans with p and k (the first row, or the schema): errors for what they refuse. */
void		MrfPlanShape(MrfPlan *plan, int p, int k);

/*
 * Records the per-variable alphabets of p variables (public: from the types and options)
 * before MrfPlanShape, so that the plan sizes the run from them; plan->kv
 * gets them as bytes when each fits one (the byte rows' readers refuse
 * more), for the Frank-Wolfe learners' designs, in the current memory
 * context (the plan's).
 */
void		MrfPlanAlphabets(MrfPlan *plan, const uint16 *alphabets, int p);

/*
 * Plans with n (every row in): errors for what n refuses, sets the
 * iterations, and checks the working memory against mrfdp.max_learner_memory.
 */
void		MrfPlanRows(MrfPlan *plan, int64 n);

/* Runs the planned learner on rows (state->n = plan->n); NULL: "nothing" released. */
MrfModel   *MrfPlanRun(MrfPlan *plan, const MrfRowsState *rows);

/*
 * Starts a model's metadata: the common members (MrfMetaBegin) and the
 * privacy notion with its amounts, from the plan's charge (and epsilon and
 * delta when a zCDP budget was converted from them).
 */
void		MrfPlanMetaBegin(StringInfo buf, const MrfPlan *plan, const MrfRun *run,
							 const char *algorithm);

/* The options every Frank-Wolfe learner (Zhang et al. 2020) takes. */
typedef struct MrfFwOptions
{
	double		rho;			/* the zCDP budget (rho, or converted from epsilon and delta) */
	double		lambda;
	int			iterations;		/* 0: the learner's default */
	MrfMechanism mechanism;
} MrfFwOptions;

/*
 * The first step of a Frank-Wolfe learner's options: refuses options it
 * does not take (allowed) and missing ones it needs (required), then reads
 * the zCDP budget, lambda, iterations and mechanism into *fw.
 */
MrfRefusal *MrfPlanFwOptions(const MrfPlan *plan, uint32 allowed, uint32 required,
							 MrfFwOptions *fw);

/*
 * The last step: refuses a lambda whose regressions' L1 radius,
 * radius_per_lambda * lambda, overflows (what the options alone tell of the
 * core's calibration check), keeps the learner's typed options as
 * plan->params and charges fw->rho.
 */
MrfRefusal *MrfPlanFwCharge(MrfPlan *plan, void *params, const MrfFwOptions *fw,
							double radius_per_lambda);

/*
 * Validates every option of learner (its SQL name; a "_from" or "_agg"
 * suffix is ignored) and fills charge (rows 0).  protected_path adds the
 * cost of the noisy count of substituted rows that every _from release
 * carries (MrfSubstitutedCountCharge).
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
