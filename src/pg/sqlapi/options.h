/*
 * sqlapi/options.h - learner options: the jsonb document built by mrf_options() and
 * its validation.  Every learner reads its options through here; each takes
 * a subset (MrfOptionsCheckAllowed).
 */
#ifndef MRF_PG_OPTIONS_H
#define MRF_PG_OPTIONS_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "core/privacy.h"
#include "pg/driver/refusal.h"

/* Bits naming options, for the set a learner accepts. */
/*
 * Most values of one column's alphabet: MRF_MAX_ALPHABET for the
 * whole-table learners (cliques, MST, AIM), whose rows hold two-byte codes
 * (core/rows.h); MRF_MAX_BYTE_ALPHABET for the Frank-Wolfe learners
 * (pairwise, structure), whose rows hold bytes.  Declared domains, CHECK
 * lists, enums and bins up to the larger cap parse; the readers refuse a
 * column above its learner's cap.
 */
#define MRF_MAX_ALPHABET 4096
#define MRF_MAX_BYTE_ALPHABET 255

#define MRF_OPT_RHO				0x00001
#define MRF_OPT_EPSILON			0x00002
#define MRF_OPT_DELTA			0x00004
#define MRF_OPT_LAMBDA			0x00008
#define MRF_OPT_ITERATIONS		0x00010
#define MRF_OPT_MECHANISM		0x00020
#define MRF_OPT_SYMMETRIZE		0x00040
#define MRF_OPT_K				0x00080
#define MRF_OPT_T				0x00100
#define MRF_OPT_OBJECTIVE		0x00200
#define MRF_OPT_QUERY_RELEASE	0x00400
#define MRF_OPT_ETA				0x00800
#define MRF_OPT_BLOCKS			0x01000
#define MRF_OPT_MODEL			0x02000
#define MRF_OPT_METHOD			0x04000
#define MRF_OPT_CLIQUES			0x08000
#define MRF_OPT_TOLERANCE		0x10000
#define MRF_OPT_EM_ITERATIONS	0x20000
#define MRF_OPT_DOMAINS			0x40000
#define MRF_OPT_NULLS			0x80000
#define MRF_OPT_WORKLOAD		0x100000
#define MRF_OPT_BINS			0x200000
#define MRF_OPT_ROUNDS			0x400000
#define MRF_OPT_ONE_WAY_SHARE	0x800000
#define MRF_OPT_MAX_MODEL_CELLS	0x1000000
#define MRF_OPT_SCHEDULE		0x2000000
/*
 * Not a parameter of mrf_options: the Citus coordinator merges it into the
 * options it ships (MrfLearner.cluster_options), so that every node uses
 * the coordinator's default AIM model cap.  The top bit, apart from the
 * parameters' bits.
 */
#define MRF_OPT_COORDINATOR_MODEL_CELLS 0x80000000

/* Most rounds an AIM release may be given (option rounds; docs/learners/aim.md). */
#define MRF_MAX_AIM_ROUNDS 10000

/* Longest text of a choice option ('exponential'). */
#define MRF_OPT_CHOICE_LEN 16

typedef struct MrfOptions
{
	uint32		given;			/* MRF_OPT_* bits present */
	double		rho;
	double		epsilon;
	double		delta;
	double		lambda;
	double		eta;			/* public bound on the smallest edge weight */
	double		tolerance;		/* convergence tolerance (EM) */
	int			iterations;
	int			k;				/* alphabet size */
	int			t;				/* interaction order */
	int			blocks;			/* disjoint blocks of the stable mode */
	int			em_iterations;	/* cap on EM iterations */
	MrfMechanism mechanism;
	bool		symmetrize;
	char		objective[MRF_OPT_CHOICE_LEN];	/* 'l1' | 'linf' */
	char		query_release[MRF_OPT_CHOICE_LEN];	/* 'gaussian' | 'pmw' */
	char		model[MRF_OPT_CHOICE_LEN];	/* 'ising' | 'pairwise' | 'twise' */
	char		method[MRF_OPT_CHOICE_LEN];	/* learner-specific */
	int			ncliques;		/* cliques: 0-based variable lists */
	int		   *clique_size;
	int		  **clique_vars;
	Jsonb	   *domains;		/* declared domains: {"column": [value, ...], ...}, with
								 * each column of bins as {"column": {"bins": ...}} */
	Jsonb	   *bins;			/* option bins as given (also merged into domains) */
	char	   *nulls;			/* 'error', 'category' or a declared value */
	Jsonb	   *workload;		/* marginals: [[column name or 1-based number, ...], ...] */
	int			rounds;			/* AIM: T, the rounds at the initial rates */
	double		one_way_share;	/* AIM: the one-way marginals' part of rho */
	int			max_model_cells;	/* AIM: cap on the junction tree's cells */
	char		schedule[MRF_OPT_CHOICE_LEN];	/* AIM: 'auto' | 'seeded' | 'paper' */
	int			coordinator_model_cells;	/* AIM on Citus: the coordinator's default cap */
} MrfOptions;

/* Parses and validates an options document (every value checked). */
void		MrfOptionsParse(Jsonb *doc, MrfOptions *opt);

/*
 * Parses a learner's options document (SQL name, e.g. "mrf_learn_ising")
 * and fills every option not given with the learner's default (the
 * defaults table in sqlapi/options.c); opt->given keeps naming what the document
 * gave.
 */
void		MrfOptionsParseFor(Jsonb *doc, const char *learner, MrfOptions *opt);

/* Fills every option opt->given does not name with learner's default. */
void		MrfOptionsFillDefaults(MrfOptions *opt, const char *learner);

/* The JSON text of option's default for learner (sqlapi/options.c's table), or NULL. */
const char *MrfOptionDefault(const char *learner, const char *option);

/* The default of a numeric option for learner (the defaults table). */
double		MrfOptionDefaultNumber(const char *learner, const char *option);

/* Builds a validated options document from named values (NULL: not given). */
Jsonb	   *MrfOptionsBuild(int n, const char *const *names, const Datum *values,
							const bool *nulls);

/* Refuses options the learner does not take (driver/refusal.h: NULL if none). */
MrfRefusal *MrfOptionsCheckAllowed(const MrfOptions *opt, uint32 allowed,
								   const char *learner);

/* Refuses unless the options named by `required` are all given. */
MrfRefusal *MrfOptionsRequire(const MrfOptions *opt, uint32 required, const char *learner);

/*
 * The zCDP budget a zCDP learner may spend, in *rho: rho, or the largest rho
 * whose tight conversion fits (epsilon, delta).  Exactly one form must be
 * given.
 */
MrfRefusal *MrfOptionsZcdpBudget(const MrfOptions *opt, const char *learner, double *rho);

/* The refusal of a lambda whose noise calibration overflows. */
MrfRefusal *MrfOptionsLambdaTooLarge(const char *learner, double lambda);

/* The text of a declared domain value (a string, or a number as written), or NULL. */
char	   *MrfDomainValueText(JsonbValue *v);

/*
 * The labels of one column's declared domain (an array of values or an
 * integer range {"min": a, "max": b}) in code order, or NULL with *why
 * saying what is wrong (naming column).
 */
char	  **MrfDomainLabels(JsonbValue *v, const char *column, int *n, const char **why);

/* The bins of a domains entry {"bins": ...} (a binned column), or NULL. */
JsonbValue *MrfDomainBins(JsonbValue *v);

/* Whether a nulls option is a per-column policy (a JSON object), not one word. */
bool		MrfNullsPerColumn(const char *nulls);

/* Name of a mechanism as users write it. */
const char *MrfMechanismName(MrfMechanism mech);

#endif
