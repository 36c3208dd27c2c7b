/*
 * options.h - learner options: the jsonb document built by mrf_options() and
 * its validation.  Every learner reads its options through here.
 */
#ifndef MRF_PG_OPTIONS_H
#define MRF_PG_OPTIONS_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "core/privacy.h"

/* Bits naming options, for the set a learner accepts. */
#define MRF_OPT_RHO			0x0001
#define MRF_OPT_EPSILON		0x0002
#define MRF_OPT_DELTA		0x0004
#define MRF_OPT_LAMBDA		0x0008
#define MRF_OPT_ITERATIONS	0x0010
#define MRF_OPT_MECHANISM	0x0020
#define MRF_OPT_SYMMETRIZE	0x0040

typedef struct MrfOptions
{
	uint32		given;			/* MRF_OPT_* bits present */
	double		rho;
	double		epsilon;
	double		delta;
	double		lambda;
	int			iterations;
	MrfMechanism mechanism;
	bool		symmetrize;
} MrfOptions;

/* Parses and validates an options document (every value checked). */
void		MrfOptionsParse(Jsonb *doc, MrfOptions *opt);

/* Builds a validated options document from named values (NULL: not given). */
Jsonb	   *MrfOptionsBuild(int n, const char *const *names, const Datum *values,
							const bool *nulls);

/* Rejects options the learner does not take. */
void		MrfOptionsCheckAllowed(const MrfOptions *opt, uint32 allowed,
								   const char *learner);

/*
 * The zCDP budget a zCDP learner may spend: rho, or the largest rho whose
 * tight conversion fits (epsilon, delta).  Exactly one form must be given.
 */
double		MrfOptionsZcdpBudget(const MrfOptions *opt, const char *learner);

/* Name of a mechanism as users write it. */
const char *MrfMechanismName(MrfMechanism mech);

#endif
