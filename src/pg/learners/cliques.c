/*
 * cliques.c - clique models of known structure learned from noisy
 * sufficient statistics under epsilon-DP (Bernstein et al. 2017; privacy.md 8
 * and 5): the learner shared by the aggregate's final function and the
 * protected path, the model kind (JSON text form, sampling) and the
 * kind-specific accessors mrf_potentials and mrf_marginals.
 *
 * Parameters of a clique model, as doubles (m cliques, s = sum of their
 * sizes, cells = sum over cliques of prod_{i in C} k_i, k_i the alphabet of
 * variable i):
 *
 *   params[0]                    m
 *   params[1 .. m]               |C_1| .. |C_m|
 *   params[m + 1 .. m + s]       the variables of each clique in turn,
 *                                0-based, ascending within a clique
 *   params[m + s + 1 ..]         the log-potential tables, clique by clique,
 *                                each prod k_i cells row-major over the
 *                                clique's ascending variables (the first
 *                                variable is the most significant digit,
 *                                each digit in its variable's own base)
 *   last p (MRF_FLAG_ALPHABETS)  k_1 .. k_p, when some k_i < k
 *
 * which is the core's layout (bp.h), so the tables go to the core as they
 * are.  The JSON text form lists "cliques" 1-based, "log_potentials" as one
 * array per clique in the same order and, when the alphabets differ,
 * "alphabets" (as a pairwise model's); texts without it have k values per
 * variable, as every clique model before per-variable alphabets.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/tuplestore.h"

#include "core/cliques.h"
#include "core/sample.h"
#include "core/privacy.h"
#include "pg/driver/aggregates.h"
#include "pg/ledger/ledger.h"
#include "pg/driver/learners.h"
#include "pg/model/model.h"
#include "pg/model/names.h"
#include "pg/sqlapi/options.h"
#include "pg/driver/plan.h"
#include "pg/driver/run.h"

/* Options accepted by mrf_learn_cliques. */
#define CLIQUES_OPTIONS (MRF_OPT_EPSILON | MRF_OPT_K | MRF_OPT_CLIQUES | MRF_OPT_METHOD | \
						 MRF_OPT_TOLERANCE | MRF_OPT_EM_ITERATIONS | MRF_OPT_DOMAINS | MRF_OPT_BINS | \
						 MRF_OPT_NULLS)

/*
 * Most table cells a clique model may hold over all its cliques: 2^24
 * doubles are 128 MB in binary form and well under the 1 GB limit of the
 * model's JSON text (about 25 bytes a cell), which pg_dump and the binary
 * protocol both go through.
 */
#define CLIQUES_MAX_MODEL_CELLS ((int64) 1 << 24)

/* Most cliques a model document may list (the options' limit as well). */
#define CLIQUES_MAX_CLIQUES 10000

/* Number of cliques of a clique model. */
static inline int
CliquesCount(const MrfModel *model)
{
	return (int) model->params[0];
}

/* Total variables over all cliques (s). */
static int
CliquesVarTotal(const MrfModel *model)
{
	int			m = CliquesCount(model);
	int			s = 0;

	for (int c = 0; c < m; c++)
		s += (int) model->params[1 + c];
	return s;
}

/* The log-potential tables of a clique model. */
static double *
CliquesTables(MrfModel *model)
{
	return model->params + 1 + CliquesCount(model) + CliquesVarTotal(model);
}

/* Flattens a clique model's cliques into the core's start/var arrays (palloc). */
static void
CliquesFlatten(const MrfModel *model, int **start, int **var)
{
	int			m = CliquesCount(model);
	int			s = CliquesVarTotal(model);

	*start = palloc(sizeof(int) * (m + 1));
	*var = palloc(sizeof(int) * (s + 1));
	(*start)[0] = 0;
	for (int c = 0; c < m; c++)
		(*start)[c + 1] = (*start)[c] + (int) model->params[1 + c];
	for (int i = 0; i < s; i++)
		(*var)[i] = (int) model->params[1 + m + i];
}

/* Each variable's alphabet as the core's card array (palloc): k_i, or k for all. */
static int *
CliquesCard(int p, int k, const uint16 *alphabets)
{
	int		   *card = palloc(sizeof(int) * p);

	for (int i = 0; i < p; i++)
		card[i] = alphabets != NULL ? alphabets[i] : k;
	return card;
}

/* A model's alphabets as the core's card array (palloc). */
static int *
CliquesModelCard(const MrfModel *model)
{
	int		   *card = palloc(sizeof(int) * model->p);

	for (int i = 0; i < model->p; i++)
		card[i] = MrfModelAlphabet(model, i);
	return card;
}

/* The core's clique set of a model (valid by construction). */
static MrfCliqueSet *
CliquesSetOf(const MrfModel *model, const MrfEnv *env)
{
	int		   *start;
	int		   *var;
	MrfCliqueSet *set;
	int			status;

	CliquesFlatten(model, &start, &var);
	status = MrfCliqueSetBuildAlphabets(model->p, CliquesModelCard(model), CliquesCount(model),
										start, var, CLIQUES_MAX_MODEL_CELLS, env, &set);
	if (status == MRF_ENOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory reading a clique model")));
	if (status != MRF_OK)
		elog(ERROR, "clique model with invalid cliques");
	return set;
}

/*
 * A model with the given (valid) clique set and zeroed tables; the
 * alphabets follow the tables when they differ (a set with one alphabet
 * gives the model it always gave).
 */
static MrfModel *
CliquesModelCreate(const MrfCliqueSet *set, uint16 flags, Jsonb *meta)
{
	int			m = set->m;
	int			s = set->start[m];
	bool		mixed = !MrfCliqueSetUniform(set);
	MrfModel   *model;

	model = MrfModelCreate(MRF_KIND_CLIQUES, set->p, set->k, 0,
						   (int) (1 + m + s + set->cells + (mixed ? set->p : 0)),
						   flags | (mixed ? MRF_FLAG_ALPHABETS : 0), meta);
	model->params[0] = m;
	for (int c = 0; c < m; c++)
		model->params[1 + c] = set->start[c + 1] - set->start[c];
	for (int i = 0; i < s; i++)
		model->params[1 + m + i] = set->var[i];
	for (int i = 0; mixed && i < set->p; i++)
		model->params[model->nparams - set->p + i] = set->card[i];
	return model;
}

/* See driver/learners.h. */
MrfModel *
MrfCliquesModelOf(const MrfCliqueSet *set, const double *logpot, uint16 flags, Jsonb *meta)
{
	MrfModel   *model = CliquesModelCreate(set, flags, meta);

	memcpy(CliquesTables(model), logpot, sizeof(double) * set->cells);
	return model;
}

/* The text "[a, b, c]" of clique c of the options, 1-based, for messages. */
static char *
CliqueText(const MrfOptions *opt, int c)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '[');
	for (int i = 0; i < opt->clique_size[c]; i++)
		appendStringInfo(&buf, "%s%d", i ? ", " : "", opt->clique_vars[c][i] + 1);
	appendStringInfoChar(&buf, ']');
	return buf.data;
}

/* The cells of clique c of the options as text: "k^size", or "2 x 3 x 5" when mixed. */
static char *
CliqueCellsText(const MrfOptions *opt, int c, int k, const int *card)
{
	StringInfoData buf;
	bool		mixed = false;

	for (int i = 0; i < opt->clique_size[c]; i++)
		mixed |= card[opt->clique_vars[c][i]] != k;
	if (!mixed)
		return psprintf("%d^%d", k, opt->clique_size[c]);
	initStringInfo(&buf);
	for (int i = 0; i < opt->clique_size[c]; i++)
		appendStringInfo(&buf, "%s%d", i ? " x " : "", card[opt->clique_vars[c][i]]);
	return buf.data;
}

/*
 * Validates the cliques option against p and the alphabets (k for every
 * variable when alphabets is NULL), with refusals naming the clique
 * (options are public, so quoting them leaks nothing), and fills the core's
 * start/var/card arrays.
 */
static MrfRefusal *
CliquesCheckOption(const MrfOptions *opt, int p, int k, const uint16 *alphabets,
				   const char *learner, int **start_out, int **var_out, int **card_out)
{
	int			m = opt->ncliques;
	int		   *start = palloc(sizeof(int) * (m + 1));
	int		   *var;
	int			bad;
	MrfProblem	problem;

	start[0] = 0;
	for (int c = 0; c < m; c++)
		start[c + 1] = start[c] + opt->clique_size[c];
	var = palloc(sizeof(int) * (start[m] + 1));
	for (int c = 0; c < m; c++)
		memcpy(var + start[c], opt->clique_vars[c], sizeof(int) * opt->clique_size[c]);
	*start_out = start;
	*var_out = var;
	*card_out = CliquesCard(p, k, alphabets);

	problem = MrfCliqueSetCheckAlphabets(p, *card_out, m, start, var, CLIQUES_MAX_MODEL_CELLS, &bad);
	if (problem == NULL)
		return NULL;
	if (problem == MrfCliquesOutOfRange)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "invalid value for option \"cliques\"",
						 psprintf("Clique %d, %s, names a variable outside 1..%d: the samples have %d variables.",
								  bad + 1, CliqueText(opt, bad), p, p),
						 NULL);
	if (problem == MrfCliquesRepeatedVariable)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "invalid value for option \"cliques\"",
						 psprintf("Clique %d, %s, names the same variable twice.",
								  bad + 1, CliqueText(opt, bad)),
						 NULL);
	if (problem == MrfCliquesDuplicateClique)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "invalid value for option \"cliques\"",
						 psprintf("Clique %d, %s, repeats the variables of an earlier clique.",
								  bad + 1, CliqueText(opt, bad)),
						 "List each clique once; the order of its variables does not matter.");
	if (problem == MrfCliquesTableTooLarge)
		return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
						 psprintf("the table of a clique of %s would be too large", learner),
						 psprintf("Clique %d, %s, has a table of %s cells; a clique model holds at most " INT64_FORMAT " cells.",
								  bad + 1, CliqueText(opt, bad),
								  CliqueCellsText(opt, bad, k, *card_out),
								  CLIQUES_MAX_MODEL_CELLS),
						 "Use smaller cliques or fewer values per variable.");
	if (problem == MrfCliquesTotalTooLarge)
		return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
						 psprintf("the clique tables of %s would be too large", learner),
						 psprintf("The tables of all cliques together exceed " INT64_FORMAT " cells.",
								  CLIQUES_MAX_MODEL_CELLS),
						 "Use fewer or smaller cliques.");
	return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
					 "invalid value for option \"cliques\"",
					 psprintf("%s.", problem), NULL);
}

/*
 * The options of mrf_learn_cliques, from the document alone: validated,
 * typed (MrfCliquesOptions) and charged.
 */
static MrfRefusal *
CliquesOptions(MrfPlan *plan)
{
	const MrfOptions *opt = &plan->opt;
	const char *learner = plan->learner->name;
	MrfCliquesOptions *co = palloc0(sizeof(MrfCliquesOptions));
	uint64		num;
	uint64		den;

	if (opt->given & (MRF_OPT_RHO | MRF_OPT_DELTA))
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s takes a pure differential privacy budget", learner),
						 "The learner is epsilon-DP: it takes neither rho nor delta.",
						 "Pass epsilon => ....");
	MRF_REFUSE_IF(MrfOptionsCheckAllowed(opt, CLIQUES_OPTIONS, learner));
	MRF_REFUSE_IF(MrfOptionsRequire(opt, MRF_OPT_CLIQUES | MRF_OPT_EPSILON, learner));

	MrfCliquesDefaultOptions(co);
	co->epsilon = opt->epsilon;
	if (strcmp(opt->method, "cgm") == 0)
		co->method = MRF_CLIQUES_CGM;
	else if (strcmp(opt->method, "naive") == 0)
		co->method = MRF_CLIQUES_NAIVE;
	else
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "invalid value for option \"method\"",
						 psprintf("%s takes method 'cgm' or 'naive'.", learner), NULL);
	if (co->method == MRF_CLIQUES_NAIVE &&
		(opt->given & (MRF_OPT_TOLERANCE | MRF_OPT_EM_ITERATIONS)))
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "options \"tolerance\" and \"em_iterations\" apply only to method 'cgm'",
						 "The naive method runs no EM iterations.", NULL);
	co->em_tolerance = opt->tolerance;
	co->em_iterations = opt->em_iterations;
	/* the core's own calibration: the noise scale 2 |cliques| / epsilon */
	if (MrfCliquesNoiseScale(co->epsilon, opt->ncliques, &num, &den) != 0)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "invalid value for option \"epsilon\"",
						 psprintf("With %d cliques, epsilon = %g needs discrete Laplace noise of scale %g, above the sampler's limit of 2^40.",
								  opt->ncliques, co->epsilon, MrfCliquesSensitivity(opt->ncliques) / co->epsilon),
						 "Raise epsilon, or learn fewer cliques.");
	plan->params = co;
	memset(&plan->charge, 0, sizeof(plan->charge));
	plan->charge.learner = learner;
	plan->charge.notion = MRF_NOTION_PURE;
	plan->charge.epsilon = co->epsilon;
	return NULL;
}

/*
 * The clique set of a plan with p and its alphabets, whose options were
 * accepted: the one layout of the tables (prod k_i cells per clique), for
 * the run and for the tables counted where the rows are (CliquesCountRows),
 * which must agree cell for cell.
 */
static MrfStatus
CliquesPlanSet(const MrfPlan *plan, const MrfEnv *env, MrfCliqueSet **set)
{
	int		   *start;
	int		   *var;
	int		   *card;

	if (CliquesCheckOption(&plan->opt, plan->p, plan->k, plan->alphabets, plan->learner->name,
						   &start, &var, &card) != NULL)
		elog(ERROR, "%s: cliques its plan accepted were refused", plan->learner->name);
	return MrfCliqueSetBuildAlphabets(plan->p, card, plan->opt.ncliques, start, var,
									  CLIQUES_MAX_MODEL_CELLS, env, set);
}

/*
 * The bytes of the run's input: the rows, or their tables and the noisy
 * tables when the run gets tables counted where the rows are (Citus).
 */
static double
CliquesInputBytes(const MrfPlan *plan, const MrfCliqueSet *set)
{
	if (plan->counts)
		return 2.0 * sizeof(int64) * (double) MrfCliqueSetCells(set);
	return (double) sizeof(MrfCode) * plan->n * plan->p;
}

/*
 * Plans a clique release: with p and the alphabets (public: the rows' types
 * and declared domains), the cliques against them (refusals name the
 * clique: options are public); with n, the exact memory of the run (rows,
 * inference engine, output tables, all from the real per-variable table
 * sizes), so that the protected path refuses an oversized engine before it
 * charges, not after.
 */
static MrfRefusal *
CliquesPlan(MrfPlan *plan)
{
	const MrfOptions *opt = &plan->opt;
	const MrfCliquesOptions *co = plan->params;
	MrfCliqueSet *set;
	size_t		workspace;
	int		   *start;
	int		   *var;
	int		   *card;

	MRF_REFUSE_IF(CliquesCheckOption(opt, plan->p, plan->k, plan->alphabets, plan->learner->name,
									 &start, &var, &card));
	if (plan->n == 0)
		return NULL;
	if (CliquesPlanSet(plan, &MrfPallocEnv, &set) != MRF_OK)
		elog(ERROR, "%s: could not lay out the cliques its options accepted", plan->learner->name);
	if (MrfCliquesWorkspaceBytes(set, co, &MrfPallocEnv, &workspace) != MRF_OK)
		return MrfRefuse(ERRCODE_OUT_OF_MEMORY,
						 psprintf("%s could not build its inference engine", plan->learner->name),
						 "The engine for these cliques does not fit in memory.",
						 "Use smaller or fewer cliques.");
	plan->memory = CliquesInputBytes(plan, set) + (double) workspace +
		(double) MrfCliqueSetCells(set) * sizeof(double);
	MrfCliqueSetFree(&MrfPallocEnv, set);
	return NULL;
}

/* CliquesPlanSet in palloc'd memory, erroring when it cannot be built. */
static MrfCliqueSet *
CliquesPlanSetOrError(const MrfPlan *plan)
{
	MrfCliqueSet *set;

	if (CliquesPlanSet(plan, &MrfPallocEnv, &set) != MRF_OK)
		elog(ERROR, "%s: could not lay out the cliques its options accepted", plan->learner->name);
	return set;
}

/* Learns a clique model from byte rows (Bernstein et al. 2017), epsilon-DP. */
static MrfModel *
CliquesRun(MrfPlan *plan, const MrfRowsState *rows, MrfRun *run)
{
	const MrfCliquesOptions *co = plan->params;
	int64		n = plan->n;
	int			p = plan->p;
	const char *learner = plan->learner->name;
	MrfCliquesReport rep;
	MrfCliqueSet *set;
	MrfModel   *model;
	StringInfoData meta;
	double	   *logpot;
	size_t		workspace;

	/* the rows' alphabets are the plan's (both from the rows' type) */
	if ((rows->alphabets == NULL) != (plan->alphabets == NULL) ||
		(rows->alphabets != NULL && memcmp(rows->alphabets, plan->alphabets, sizeof(uint16) * p) != 0))
		elog(ERROR, "%s: the rows' alphabets are not the plan's", learner);
	MrfRunCheck(run, CliquesPlanSet(plan, &run->env, &set));
	/* The plan checked this figure before any charge; it cannot grow here. */
	MrfRunCheck(run, MrfCliquesWorkspaceBytes(set, co, &run->env, &workspace));
	if (CliquesInputBytes(plan, set) + (double) workspace + (double) set->cells * sizeof(double) >
		plan->memory)
		elog(ERROR, "%s: the run needs more memory than its plan", learner);

	logpot = MemoryContextAllocHuge(run->mcxt, sizeof(double) * (set->cells + 1));
	if (rows->counts != NULL)
	{
		/* tables counted where the rows are (Citus): MrfCliquesLearn's last two steps */
		int64	   *noisy = MemoryContextAllocHuge(run->mcxt, sizeof(int64) * (set->cells + 1));

		if (rows->ncells != set->cells)
			elog(ERROR, "%s: counts of %lld cells for tables of %lld", learner,
				 (long long) rows->ncells, (long long) set->cells);
		MrfRunCheck(run, MrfCliquesRelease(rows->counts, set, co->epsilon, &run->rng, noisy, NULL));
		MrfRunCheck(run, MrfCliquesFit(noisy, n, set, co, &run->env, logpot, &rep));
	}
	else
		MrfRunCheck(run, MrfCliquesLearn(MrfRowsCodes(rows), n, set, co, &run->rng, &run->env,
										 logpot, NULL, &rep));

	MrfPlanMetaBegin(&meta, plan, run, "bernstein2017");
	appendStringInfo(&meta, ", \"method\": \"%s\"", co->method == MRF_CLIQUES_CGM ? "cgm" : "naive");
	appendStringInfo(&meta, ", \"cliques\": %d, \"cells\": " INT64_FORMAT, set->m, (int64) set->cells);
	/* Replace-one: 2 |cliques|; the paper's add/remove relation would give |cliques|. */
	appendStringInfo(&meta, ", \"mechanism\": \"discrete-laplace\", \"l1_sensitivity\": %s",
					 MrfDoubleText(rep.sensitivity));
	appendStringInfo(&meta, ", \"noise_scale\": %s", MrfDoubleText(rep.noise_scale));
	appendStringInfo(&meta, ", \"inference\": \"%s\", \"decomposable\": %s, \"pseudocount\": %s",
					 rep.exact ? "exact" : "loopy", rep.decomposable ? "true" : "false",
					 MrfDoubleText(co->pseudocount));
	if (co->method == MRF_CLIQUES_CGM)
	{
		appendStringInfo(&meta, ", \"em\": {\"iterations\": %d, \"max_iterations\": %d, \"converged\": %s",
						 rep.em_iterations, co->em_iterations, rep.converged ? "true" : "false");
		appendStringInfoString(&meta, ", \"change\": ");
		MrfJsonAppendDouble(&meta, rep.em_change);
		appendStringInfo(&meta, ", \"tolerance\": %s, \"estep_sweeps\": " INT64_FORMAT
						 ", \"estep_capped\": %d, \"naive_fallback\": %s}",
						 MrfDoubleText(co->em_tolerance), (int64) rep.estep_sweeps,
						 rep.estep_capped, rep.naive_fallback ? "true" : "false");
	}
	else
		appendStringInfo(&meta, ", \"fit_converged\": %s", rep.converged ? "true" : "false");

	model = CliquesModelCreate(set, run->not_private ? MRF_FLAG_NOT_PRIVATE : 0,
							   MrfMetaFinish(&meta));
	memcpy(CliquesTables(model), logpot, sizeof(double) * set->cells);
	return model;
}

/* See driver/learners.h: the cells of every clique's table. */
static int64
CliquesTableCells(const MrfPlan *plan)
{
	MrfCliqueSet *set = CliquesPlanSetOrError(plan);
	int64		cells = MrfCliqueSetCells(set);

	MrfCliqueSetFree(&MrfPallocEnv, set);
	return cells;
}

/* See driver/learners.h: adds the clique tables of n rows into counts. */
static void
CliquesCountRows(const MrfPlan *plan, const MrfCode *rows, int64 n, int64 *counts)
{
	MrfCliqueSet *set = CliquesPlanSetOrError(plan);
	int64		cells = MrfCliqueSetCells(set);
	int64	   *part = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * (cells + 1));

	if (MrfCliquesCount(rows, n, set, part) != MRF_OK)
		elog(ERROR, "%s: a row value outside its alphabet", plan->learner->name);
	for (int64 x = 0; x < cells; x++)
		counts[x] += part[x];
	pfree(part);
	MrfCliqueSetFree(&MrfPallocEnv, set);
}

const MrfLearner MrfCliquesLearner = {
	"mrf_learn_cliques", MRF_ROWS_CODES, NULL, CliquesOptions, CliquesPlan, CliquesRun, NULL,
	CliquesTableCells, CliquesCountRows
};

PG_FUNCTION_INFO_V1(mrf_cliques_accum);
/*
 * Transition: plans at the first row of each group, window aggregates
 * included (option errors and the budget refused at the first row, not
 * after the scan), then stores bytes.
 */
Datum
mrf_cliques_accum(PG_FUNCTION_ARGS)
{
	return MrfRowsAccum(fcinfo, &MrfCliquesLearner, MRF_ROWS_CODES);
}

PG_FUNCTION_INFO_V1(mrf_cliques_final);
/* Final: learns, charges the statement's relations, then releases. */
Datum
mrf_cliques_final(PG_FUNCTION_ARGS)
{
	return MrfAggregateRelease(fcinfo, &MrfCliquesLearner);
}

/*
 * The "cliques" (1-based), "log_potentials" and, with per-variable
 * alphabets, "alphabets" members of the document.
 */
static void
CliquesWriteJson(StringInfo buf, MrfModel *model)
{
	int			m = CliquesCount(model);
	const double *var = model->params + 1 + m;
	const double *table = CliquesTables(model);

	appendStringInfoString(buf, ", \"cliques\": [");
	for (int c = 0, v = 0; c < m; c++)
	{
		int			size = (int) model->params[1 + c];

		appendStringInfoString(buf, c ? ", [" : "[");
		for (int i = 0; i < size; i++, v++)
			appendStringInfo(buf, "%s%d", i ? ", " : "", (int) var[v] + 1);
		appendStringInfoChar(buf, ']');
	}
	appendStringInfoString(buf, "], \"log_potentials\": [");
	for (int c = 0, v = 0; c < m; c++)
	{
		int			size = (int) model->params[1 + c];
		int64		cells = 1;

		for (int i = 0; i < size; i++, v++)
			cells *= MrfModelAlphabet(model, (int) var[v]);
		if (c > 0)
			appendStringInfoString(buf, ", ");
		MrfJsonAppendVector(buf, table, (int) cells);
		table += cells;
	}
	appendStringInfoChar(buf, ']');
	MrfJsonAppendAlphabets(buf, model);
}

/*
 * Copies a table listed row-major over the clique's variables in the order
 * given (given[0..size-1]) into the layout over the ascending variables
 * (sorted[0..size-1]); digit v runs over card[v] values (card by variable).
 */
static void
CliquesPermuteTable(const int *card, int size, const int *given, const int *sorted,
					const double *in, double *out)
{
	int			pos[64];		/* digit of given[i] in the sorted layout */
	int			digits[64];
	int64		cells = 1;

	for (int i = 0; i < size; i++)
	{
		cells *= card[given[i]];
		for (int j = 0; j < size; j++)
			if (sorted[j] == given[i])
				pos[i] = j;
	}
	memset(digits, 0, sizeof(digits));
	for (int64 x = 0; x < cells; x++)
	{
		int64		g = 0;

		for (int i = 0; i < size; i++)
			g = g * card[given[i]] + digits[pos[i]];
		out[x] = in[g];
		/* next sorted-layout index: the last digit is the least significant */
		for (int j = size - 1; j >= 0; j--)
		{
			if (++digits[j] < card[sorted[j]])
				break;
			digits[j] = 0;
		}
	}
}

/*
 * A clique model from its document; validates the cliques and every table.
 * Without "alphabets" every variable has k values (every older text).
 */
static MrfModel *
CliquesReadJson(JsonbContainer *root, int p, Jsonb *meta)
{
	JsonbValue	v;
	JsonbValue	lp;
	JsonbContainer *outer;
	int			k = MrfJsonGetInt(root, "k", 2, MRF_CODE_CARD_MAX);
	int		   *card = MrfJsonReadAlphabets(root, p, k);
	int			m;
	int		   *start;
	int		   *var;
	int			bad;
	MrfProblem	problem;
	MrfCliqueSet *set;
	MrfModel   *model;
	double	   *table;

	if (!MrfJsonGetKey(root, "cliques", &v) || v.type != jbvBinary ||
		!JsonContainerIsArray(v.val.binary.data))
		MrfModelMalformed("Member \"cliques\" must be an array of arrays of variable numbers.");
	outer = v.val.binary.data;
	m = JsonContainerSize(outer);
	if (m < 1 || m > CLIQUES_MAX_CLIQUES)
		MrfModelMalformed(psprintf("Member \"cliques\" must list from 1 to %d cliques.",
								   CLIQUES_MAX_CLIQUES));
	start = palloc(sizeof(int) * (m + 1));
	start[0] = 0;
	for (int c = 0; c < m; c++)
	{
		JsonbValue *cl = getIthJsonbValueFromContainer(outer, c);

		if (cl == NULL || cl->type != jbvBinary || !JsonContainerIsArray(cl->val.binary.data) ||
			JsonContainerSize(cl->val.binary.data) < 1 || JsonContainerSize(cl->val.binary.data) > 62)
			MrfModelMalformed("Each clique must be an array of 1 to 62 variable numbers.");
		start[c + 1] = start[c] + JsonContainerSize(cl->val.binary.data);
	}
	var = palloc(sizeof(int) * (start[m] + 1));
	for (int c = 0; c < m; c++)
	{
		JsonbValue *cl = getIthJsonbValueFromContainer(outer, c);

		for (int i = 0; i < start[c + 1] - start[c]; i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(cl->val.binary.data, i);
			double		d;

			if (e == NULL || e->type != jbvNumeric)
				MrfModelMalformed("Clique variables must be numbers from 1 to p.");
			d = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(e->val.numeric)));
			if (d != floor(d) || d < 1 || d > p)
				MrfModelMalformed(psprintf("Clique %d must list integers from 1 to p = %d.", c + 1, p));
			var[start[c] + i] = (int) d - 1;
		}
	}
	if (card == NULL)
		card = CliquesCard(p, k, NULL);
	problem = MrfCliqueSetCheckAlphabets(p, card, m, start, var, CLIQUES_MAX_MODEL_CELLS, &bad);
	if (problem != NULL)
		MrfModelMalformed(psprintf("Clique %d: %s.", bad + 1, problem));
	if (MrfCliqueSetBuildAlphabets(p, card, m, start, var, CLIQUES_MAX_MODEL_CELLS, &MrfPallocEnv,
								   &set) != MRF_OK)
		MrfModelMalformed("The cliques could not be laid out.");

	if (!MrfJsonGetKey(root, "log_potentials", &lp) || lp.type != jbvBinary ||
		!JsonContainerIsArray(lp.val.binary.data) ||
		JsonContainerSize(lp.val.binary.data) != (uint32) m)
		MrfModelMalformed(psprintf("Member \"log_potentials\" must be an array with one table per clique (%d).", m));
	model = CliquesModelCreate(set, 0, meta);
	table = CliquesTables(model);
	for (int c = 0; c < m; c++)
	{
		int			size = start[c + 1] - start[c];
		int64		cells = set->offset[c + 1] - set->offset[c];
		double	   *given = palloc(sizeof(double) * cells);

		MrfJsonReadVector(getIthJsonbValueFromContainer(lp.val.binary.data, c), (int) cells,
						  given, "log_potentials");
		CliquesPermuteTable(card, size, var + start[c], set->var + set->start[c], given,
							table + set->offset[c]);
		pfree(given);
	}
	MrfCliqueSetFree(&MrfPallocEnv, set);
	return model;
}

/* Samples with values 0..k_i - 1 for variable i. */
static int
CliquesSample(MrfModel *model, int64 n, const MrfSampleOptions *opt, MrfRng *rng,
			  const MrfEnv *env, int32 *out, MrfSampler *used)
{
	MrfCliqueSet *set = CliquesSetOf(model, env);
	MrfCode    *raw = MrfAlloc(env, sizeof(MrfCode) * ((size_t) n * model->p + 1));
	int			status;

	if (raw == NULL)
		return MRF_ENOMEM;
	status = MrfCliquesSampleWith(set, CliquesTables(model), n, opt, rng, env, raw, used);
	for (int64 i = 0; status == MRF_OK && i < n * model->p; i++)
		out[i] = raw[i];
	MrfFree(env, raw);
	MrfCliqueSetFree(env, set);
	return status;
}

/* mrf_edges and mrf_fields do not apply: the dispatcher raises the error. */
const MrfKindOps MrfCliquesOps = {
	MRF_KIND_CLIQUES, CliquesWriteJson, CliquesReadJson, NULL, NULL, CliquesSample
};

/* Errors unless model is a clique model. */
static void
RequireCliques(const MrfModel *model, const char *fn)
{
	if (model->kind != MRF_KIND_CLIQUES)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s does not apply to models of kind %s", fn, MrfKindName(model->kind)),
				 errhint("%s reads clique models (mrf_learn_cliques).", fn)));
}

/*
 * One row (clique, assignment, value) per cell of every table in values;
 * each variable's code runs over its own alphabet.
 */
static void
CliquesTableRows(MrfModel *model, const double *values, ReturnSetInfo *rsinfo)
{
	int			m = CliquesCount(model);
	const int  *card = CliquesModelCard(model);
	const double *var = model->params + 1 + m;
	int64		cell = 0;
	Datum		elems[64];

	for (int c = 0, v = 0; c < m; c++)
	{
		int			size = (int) model->params[1 + c];
		int			digits[64];
		int			kc[64];		/* the alphabet of each of the clique's variables */
		int64		cells = 1;
		Datum		clique;

		for (int i = 0; i < size; i++)
		{
			elems[i] = Int32GetDatum((int32) var[v + i] + 1);
			kc[i] = card[(int) var[v + i]];
			cells *= kc[i];
		}
		v += size;
		clique = PointerGetDatum(construct_array(elems, size, INT4OID, sizeof(int32), true,
												 TYPALIGN_INT));
		memset(digits, 0, sizeof(digits));
		for (int64 x = 0; x < cells; x++, cell++)
		{
			Datum		row[3];
			bool		nulls[3] = {false, false, false};

			for (int i = 0; i < size; i++)
				elems[i] = Int32GetDatum(digits[i]);
			row[0] = clique;
			row[1] = PointerGetDatum(construct_array(elems, size, INT4OID, sizeof(int32), true,
													 TYPALIGN_INT));
			row[2] = Float8GetDatum(values[cell]);
			MrfPutRow(rsinfo, row, nulls);
			pfree(DatumGetPointer(row[1]));
			for (int j = size - 1; j >= 0; j--)
			{
				if (++digits[j] < kc[j])
					break;
				digits[j] = 0;
			}
			if ((x & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
		}
	}
}

/* Log-potential tables (clique, assignment, log_potential): 1-based variables, values 0..k_i-1. */
static Datum
PotentialCodes(PG_FUNCTION_ARGS)
{
	MrfModel   *model = PG_GETARG_MRF_P(0);

	RequireCliques(model, "mrf_potentials");
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	CliquesTableRows(model, CliquesTables(model), (ReturnSetInfo *) fcinfo->resultinfo);
	return (Datum) 0;
}

/*
 * Clique marginals (clique, assignment, probability) of the model: exact on
 * a junction tree, loopy belief propagation (approximate) otherwise.
 */
static Datum
MarginalCodes(PG_FUNCTION_ARGS)
{
	MrfModel   *model = PG_GETARG_MRF_P(0);
	MrfCliqueSet *set;
	double	   *marg;
	int			status;

	RequireCliques(model, "mrf_marginals");
	set = CliquesSetOf(model, &MrfPallocEnv);
	marg = palloc_extended(sizeof(double) * (set->cells + 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	status = MrfCliquesMarginals(set, CliquesTables(model), NULL, &MrfPallocEnv, marg, NULL);
	if (status == MRF_ENOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in mrf_marginals")));
	if (status != MRF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("mrf_marginals failed with internal status %d", status)));
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	CliquesTableRows(model, marg, (ReturnSetInfo *) fcinfo->resultinfo);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mrf_potentials);
/* Log-potential tables with the clique's names and the assignment's labels. */
Datum
mrf_potentials(PG_FUNCTION_ARGS)
{
	return MrfNamedRows(fcinfo, PotentialCodes, MRF_NAMED_TABLE);
}

PG_FUNCTION_INFO_V1(mrf_marginals);
/* Clique marginals with the clique's names and the assignment's labels. */
Datum
mrf_marginals(PG_FUNCTION_ARGS)
{
	return MrfNamedRows(fcinfo, MarginalCodes, MRF_NAMED_TABLE);
}

/* A clique model's clique set (palloc'd) for readers outside this file. */
MrfCliqueSet *
MrfCliquesModelSet(const MrfModel *model)
{
	return CliquesSetOf(model, &MrfPallocEnv);
}

/* A clique model's log-potential tables, in the core's layout. */
double *
MrfCliquesModelTables(MrfModel *model)
{
	return CliquesTables(model);
}
