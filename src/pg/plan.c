/*
 * plan.c - a release's charge from its learner and options alone (plan.h).
 */
#include "postgres.h"

#include "core/privacy.h"
#include "pg/learners.h"
#include "pg/plan.h"

/* Every learner's options-only plan, by SQL name. */
static const struct
{
	const char *learner;
	MrfPlanFn	plan;
}			Plans[] = {
	{"mrf_learn_ising", MrfIsingPlan},
	{"mrf_learn_pairwise", MrfPairwisePlan},
	{"mrf_learn_twise", MrfTwisePlan},
	{"mrf_learn_structure", MrfStructurePlan},
	{"mrf_learn_cliques", MrfCliquesPlan},
};

/* The learner's name less a "_from" or "_agg" suffix. */
static char *
BaseName(const char *learner)
{
	size_t		len = strlen(learner);

	if (len > 5 && strcmp(learner + len - 5, "_from") == 0)
		return pnstrdup(learner, len - 5);
	if (len > 4 && strcmp(learner + len - 4, "_agg") == 0)
		return pnstrdup(learner, len - 4);
	return pstrdup(learner);
}

/* See plan.h. */
void
MrfPlanCharge(const char *learner, Jsonb *options, bool protected_path, MrfCharge *charge)
{
	char	   *base = BaseName(learner);

	for (int i = 0; i < lengthof(Plans); i++)
		if (strcmp(Plans[i].learner, base) == 0)
		{
			Plans[i].plan(options, charge);
			if (protected_path)
				MrfSubstitutedCountCharge(charge);
			return;
		}
	elog(ERROR, "%s has no charge plan", learner);
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
			charge->rho = MrfComposeUp(charge->rho, MrfSubstitutedCountShare(charge->rho));
			break;
		case MRF_NOTION_PURE:
		case MRF_NOTION_APPROX:
			charge->epsilon = MrfComposeUp(charge->epsilon,
										   MrfSubstitutedCountShare(charge->epsilon));
			break;
	}
}

/* Whether two charges are the same amounts. */
bool
MrfChargeEqual(const MrfCharge *a, const MrfCharge *b)
{
	return a->notion == b->notion && a->rho == b->rho && a->epsilon == b->epsilon &&
		a->delta == b->delta;
}

/* See plan.h. */
void
MrfChargeZcdp(MrfCharge *charge, const char *learner, double rho)
{
	memset(charge, 0, sizeof(*charge));
	charge->learner = learner;
	charge->notion = MRF_NOTION_ZCDP;
	charge->rho = rho;
}
