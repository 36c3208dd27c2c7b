/*
 * driver/plan.c - the one driver of every learner (driver/plan.h, driver/learners.h).
 */
#include "postgres.h"

#include <math.h>

#include "core/privacy.h"
#include "pg/driver/learners.h"
#include "pg/driver/plan.h"
#include "pg/driver/run.h"

/* Every learner, by SQL name: one line per learner. */
static const MrfLearner *const Learners[] = {
	&MrfIsingLearner,
	&MrfPairwiseLearner,
	&MrfTwiseLearner,
	&MrfStructureLearner,
	&MrfCliquesLearner,
	&MrfMstLearner,
	&MrfAimLearner,
};

/* Raises what a learner's check refused, if anything. */
static void
Check(MrfRefusal *refusal)
{
	if (refusal != NULL)
		MrfRaise(refusal);
}

/* See driver/plan.h. */
const MrfLearner *
MrfLearnerFind(const char *name)
{
	size_t		len = strlen(name);

	if (len > 5 && strcmp(name + len - 5, "_from") == 0)
		len -= 5;
	else if (len > 4 && strcmp(name + len - 4, "_agg") == 0)
		len -= 4;
	for (int i = 0; i < lengthof(Learners); i++)
		if (strlen(Learners[i]->name) == len && strncmp(Learners[i]->name, name, len) == 0)
			return Learners[i];
	return NULL;
}

/* See driver/plan.h. */
void
MrfPlanBegin(MrfPlan *plan, const MrfLearner *learner, Jsonb *options)
{
	memset(plan, 0, sizeof(*plan));
	plan->learner = learner;
	plan->run_name = learner->name;
	MrfOptionsParseFor(options, learner->name, &plan->opt);
	Check(learner->options(plan));
	plan->charge.learner = learner->name;
	plan->charge.rows = 0;
}

/* See driver/plan.h. */
MrfRefusal *
MrfPlanDelegate(MrfPlan *inner, const MrfLearner *learner, const MrfOptions *opt, uint32 drop)
{
	memset(inner, 0, sizeof(*inner));
	inner->learner = learner;
	inner->run_name = learner->name;
	inner->opt = *opt;
	inner->opt.given &= ~drop;
	MrfOptionsFillDefaults(&inner->opt, learner->name);
	MRF_REFUSE_IF(learner->options(inner));
	inner->charge.learner = learner->name;
	inner->charge.rows = 0;
	return NULL;
}

/* See driver/plan.h. */
MrfRowFormat
MrfPlanRowsFormat(const MrfPlan *plan)
{
	return plan->learner->rows_format ? plan->learner->rows_format(plan) : plan->learner->format;
}

/* See driver/plan.h. */
void
MrfPlanAlphabets(MrfPlan *plan, const uint16 *alphabets, int p)
{
	uint8	   *kv = NULL;

	plan->alphabets = alphabets;
	for (int i = 0; alphabets != NULL && i < p; i++)
	{
		if (alphabets[i] > MRF_MAX_BYTE_ALPHABET)
		{
			if (kv != NULL)
				pfree(kv);
			kv = NULL;
			break;
		}
		if (kv == NULL)
			kv = palloc(p);	/* the current context: the plan's, as every caller's */
		kv[i] = (uint8) alphabets[i];
	}
	plan->kv = kv;
}

/* See driver/plan.h. */
void
MrfPlanShape(MrfPlan *plan, int p, int k)
{
	plan->p = p;
	plan->k = k;
	plan->n = 0;
	Check(plan->learner->plan(plan));
}

/* See driver/plan.h. */
void
MrfPlanRows(MrfPlan *plan, int64 n)
{
	Assert(n > 0);
	plan->n = n;
	plan->iterations = 0;
	plan->memory = 0;
	Check(plan->learner->plan(plan));
	MrfCheckMemory(plan->run_name, plan->memory);
	plan->charge.rows = n;
}

/* See driver/learners.h. */
double
MrfPlanFwDistributedMemory(const MrfFwDesign *design, int iterations, double params)
{
	int			d;
	int			q;

	if (MrfFwDesignSizes(design, &d, &q) != MRF_OK)
		return INFINITY;
	return (double) iterations * q * 2 * sizeof(int) + 4.0 * d * q * sizeof(int64) +
		(double) d * q * sizeof(double) + params * sizeof(double);
}

/* See driver/plan.h. */
MrfModel *
MrfPlanRun(MrfPlan *plan, const MrfRowsState *rows)
{
	MrfRun		run;
	MrfModel   *model;

	Assert(rows->n == plan->n && rows->p == plan->p);
	MrfRunBegin(&run, plan->run_name);
	model = plan->learner->run(plan, rows, &run);
	MrfRunEnd(&run);
	return model;
}

/* See driver/plan.h. */
void
MrfPlanMetaBegin(StringInfo buf, const MrfPlan *plan, const MrfRun *run, const char *algorithm)
{
	const MrfCharge *charge = &plan->charge;

	MrfMetaBegin(buf, run, algorithm, plan->n);
	switch (charge->notion)
	{
		case MRF_NOTION_ZCDP:
			appendStringInfo(buf, ", \"notion\": \"zCDP\", \"rho\": %s", MrfDoubleText(charge->rho));
			if (plan->opt.given & MRF_OPT_EPSILON)
				appendStringInfo(buf, ", \"epsilon\": %s, \"delta\": %s",
								 MrfDoubleText(plan->opt.epsilon), MrfDoubleText(plan->opt.delta));
			break;
		case MRF_NOTION_PURE:
			appendStringInfo(buf, ", \"notion\": \"pure\", \"epsilon\": %s",
							 MrfDoubleText(charge->epsilon));
			break;
		case MRF_NOTION_APPROX:
			appendStringInfo(buf, ", \"notion\": \"approximate\", \"epsilon\": %s, \"delta\": %s",
							 MrfDoubleText(charge->epsilon), MrfDoubleText(charge->delta));
			break;
	}
}

/* See driver/plan.h. */
MrfRefusal *
MrfPlanFwOptions(const MrfPlan *plan, uint32 allowed, uint32 required, MrfFwOptions *fw)
{
	const MrfOptions *opt = &plan->opt;
	const char *learner = plan->learner->name;

	MRF_REFUSE_IF(MrfOptionsCheckAllowed(opt, allowed, learner));
	MRF_REFUSE_IF(MrfOptionsRequire(opt, required, learner));
	MRF_REFUSE_IF(MrfOptionsZcdpBudget(opt, learner, &fw->rho));
	fw->lambda = opt->lambda;
	fw->iterations = (opt->given & MRF_OPT_ITERATIONS) ? opt->iterations : 0;
	fw->mechanism = opt->mechanism;
	return NULL;
}

/* See driver/plan.h. */
MrfRefusal *
MrfPlanFwCharge(MrfPlan *plan, void *params, const MrfFwOptions *fw, double radius_per_lambda)
{
	if (!isfinite(radius_per_lambda * fw->lambda))
		return MrfOptionsLambdaTooLarge(plan->learner->name, fw->lambda);
	plan->params = params;
	MrfChargeZcdp(&plan->charge, plan->learner->name, fw->rho);
	return NULL;
}

/* See driver/plan.h. */
void
MrfPlanCharge(const char *learner, Jsonb *options, bool protected_path, MrfCharge *charge)
{
	const MrfLearner *l = MrfLearnerFind(learner);
	MrfPlan		plan;

	if (l == NULL)
		elog(ERROR, "%s has no charge plan", learner);
	MrfPlanBegin(&plan, l, options);
	*charge = plan.charge;
	if (protected_path)
		MrfSubstitutedCountCharge(charge);
}

/*
 * The release of the protected path is the learner's release followed by
 * the noisy count of substituted rows (privacy.c), so its charge composes
 * both: zCDP adds rho, pure DP and (epsilon, delta) add epsilon (basic
 * composition; the count itself has delta 0).  Sums are rounded up.
 */
void
MrfSubstitutedCountCharge(MrfCharge *charge)
{
	switch (charge->notion)
	{
		case MRF_NOTION_ZCDP:
			charge->typed = charge->rho;
			charge->rho = MrfComposeUp(charge->rho, MrfSubstitutedCountShare(charge->rho));
			break;
		case MRF_NOTION_PURE:
		case MRF_NOTION_APPROX:
			charge->typed = charge->epsilon;
			charge->epsilon = MrfComposeUp(charge->epsilon,
										   MrfSubstitutedCountShare(charge->epsilon));
			break;
	}
	/* a budget near the largest double: the share carries it past (an option's fact) */
	if (isinf(charge->rho) || isinf(charge->epsilon))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for option \"%s\"",
						charge->notion == MRF_NOTION_ZCDP ? "rho" : "epsilon"),
				 errdetail("With the share of 1/128 charged for the count of substituted rows, the charge exceeds the largest double precision number. Nothing was read or charged.")));
}

/* Whether two charges are the same amounts. */
bool
MrfChargeEqual(const MrfCharge *a, const MrfCharge *b)
{
	return a->notion == b->notion && a->rho == b->rho && a->epsilon == b->epsilon &&
		a->delta == b->delta;
}

/* See driver/plan.h. */
void
MrfChargeZcdp(MrfCharge *charge, const char *learner, double rho)
{
	memset(charge, 0, sizeof(*charge));
	charge->learner = learner;
	charge->notion = MRF_NOTION_ZCDP;
	charge->rho = rho;
}
