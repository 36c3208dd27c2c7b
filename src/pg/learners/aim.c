/*
 * aim.c - AIM (McKenna, Mullins, Sheldon, Miklau 2022; privacy.md 13) from
 * byte rows of per-variable alphabets to a released clique model, for the
 * aggregate's final function and the protected path.  The model is of kind
 * cliques (the maximal measured marginals), as MST's; the workload names
 * columns, resolved against the rows' public names when the plan learns p.
 */
#include "postgres.h"

#include <math.h>
#include <unistd.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "core/aim.h"
#include "core/bp.h"
#include "core/cliques.h"
#include "core/privacy.h"
#include "pg/driver/aggregates.h"
#include "pg/driver/learners.h"
#include "pg/model/model.h"
#include "pg/sqlapi/options.h"
#include "pg/driver/plan.h"
#include "pg/driver/run.h"

/* Options accepted by mrf_learn_aim. */
#define AIM_OPTIONS (MRF_OPT_RHO | MRF_OPT_EPSILON | MRF_OPT_DELTA | MRF_OPT_K | \
					 MRF_OPT_ITERATIONS | MRF_OPT_DOMAINS | MRF_OPT_BINS | MRF_OPT_NULLS | \
					 MRF_OPT_WORKLOAD | MRF_OPT_ROUNDS | MRF_OPT_ONE_WAY_SHARE | \
					 MRF_OPT_MAX_MODEL_CELLS | MRF_OPT_COORDINATOR_MODEL_CELLS | MRF_OPT_SCHEDULE)

/*
 * Most variables: every round triangulates the model plus each candidate
 * (min-fill, p^3 a candidate), and the default workload holds every pair.
 */
#define AIM_MAX_VARIABLES 256

/*
 * Most cells of the model's junction tree by default: 2^16 (time: every
 * estimator step and every candidate's score runs inference on it; at p =
 * 10, k = 4 a learn took 19 s of CPU at this cap, see docs/learners/aim.md),
 * and at most a quarter of mrfdp.max_learner_memory at the estimator's
 * bytes a cell, the bound of option max_model_cells too.
 */
#define AIM_MAX_MODEL_CELLS ((int64) 1 << 16)
#define AIM_BYTES_PER_MODEL_CELL 160.0

/*
 * A counts state (Citus workers count the tables AIM may read, so tables
 * travel instead of rows: citus/state.c) holds at most MRF_COUNTS_MAX_CELLS
 * cells (driver/learners.h), and, for the default workload,
 * whose every triple may be read, at most AIM_COUNTS_MAX_DEFAULT_TABLES
 * tables (every row adds into each: 1,024 is p = 18's one-ways, pairs and
 * triples; a given workload's tables are those one node counts anyway).
 * Beyond either, the workers ship packed rows (as before).
 */
#define AIM_COUNTS_MAX_DEFAULT_TABLES 1024

/* The typed options of a plan. */
typedef struct AimParams
{
	double		rho;
	int			iterations;
	int			rounds;			/* T; 0: MrfAimRounds(p) */
	double		one_way_share;	/* of rho, the one-ways; 0: [MMSM22]'s 0.9 p / T */
	int			schedule;		/* MRF_AIM_SCHEDULE_*: option schedule (default auto) */
	/* the workload, resolved once p and the names are known (0: the default) */
	int			nworkload;
	int		   *wstart;
	int		   *wvar;
	int64		max_model_cells;
	int64		max_candidate_cells;
	int			skipped;		/* workload marginals over the model's cap, skipped */
	/* a counts state's tables (AimTables), planned once: -1 none (rows travel) */
	bool		tables_planned;
	int64		table_cells;
	MrfAimTables tables;
} AimParams;

/* Each variable's alphabet as the core's card array (palloc). */
static int *
AimCard(int p, int k, const uint16 *alphabets)
{
	int		   *card = palloc(sizeof(int) * p);

	for (int i = 0; i < p; i++)
		card[i] = alphabets != NULL ? alphabets[i] : k;
	return card;
}

/* The most model cells this node's mrfdp.max_learner_memory allows (a quarter of it). */
static int64
AimModelCellsBound(void)
{
	return (int64) fmax(1.0, floor((double) MrfMaxLearnerMemory * 1024.0 / 4.0 / AIM_BYTES_PER_MODEL_CELL));
}

/*
 * The caps under mrfdp.max_learner_memory: a quarter of it each, for the
 * model and for the candidates' tables.  The model's is option
 * max_model_cells when given (refused above that quarter, naming the
 * setting: an explicit request is never silently lowered), else at most
 * AIM_MAX_MODEL_CELLS: this node's quarter, or on Citus the coordinator's
 * (coordinator_model_cells, AimClusterOptions), so that every node skips
 * the same workload marginals and counts the same tables; the memory of the
 * model is planned where it is built (AimPlan), so a larger cap than this
 * node's quarter is refused there, never here.  From the options and the
 * settings only, before any row is read.
 */
static MrfRefusal *
AimCaps(const MrfOptions *opt, const char *learner, int64 *max_model_cells,
		int64 *max_candidate_cells)
{
	double		limit = (double) MrfMaxLearnerMemory * 1024.0;
	int64		bound = AimModelCellsBound();

	*max_candidate_cells = (int64) floor(limit / 4.0 / sizeof(int64));
	*max_model_cells = Min(AIM_MAX_MODEL_CELLS, bound);
	if (opt->given & MRF_OPT_COORDINATOR_MODEL_CELLS)
		*max_model_cells = Min(AIM_MAX_MODEL_CELLS, (int64) opt->coordinator_model_cells);
	if (opt->given & MRF_OPT_MAX_MODEL_CELLS)
	{
		if (opt->max_model_cells > bound)
			return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
							 psprintf("max_model_cells = %d is more than mrfdp.max_learner_memory allows", opt->max_model_cells),
							 psprintf("%s plans %.0f bytes a junction-tree cell and gives the model a quarter of mrfdp.max_learner_memory (%d kB): at most " INT64_FORMAT " cells.",
									  learner, AIM_BYTES_PER_MODEL_CELL, MrfMaxLearnerMemory, bound),
							 psprintf("Ask for at most " INT64_FORMAT " cells, or have a superuser raise mrfdp.max_learner_memory.", bound));
		*max_model_cells = opt->max_model_cells;
	}
	return NULL;
}

static int64 AimFirstRowsAtSignal(double rho, int p, double threshold);

/*
 * The rates of a release of rho over p variables with T = rounds and the
 * one-way share (0: the schedule's defaults, MrfAimBudget), checked as
 * MrfAimLearn will check them, from public values only: every rate's
 * noise must be within the samplers' range.  The seeded schedule
 * (privacy.md 13) takes any T from 1 and any share below 1 and composes
 * them to exactly rho; [MMSM22]'s without a share needs T above 0.9 p
 * (the automatic schedule then runs the seeded one; asked for by name, the
 * option is refused).
 */
static MrfRefusal *
AimRates(const char *learner, double rho, int p, int rounds, double share, int schedule)
{
	MrfAimOptions ao;
	MrfAimBudgetPlan b;
	uint64		num,
				den;
	int64		tiers[5] = {1, 0, 0, 0, INT64_MAX};
	int			ntiers = schedule == MRF_AIM_SCHEDULE_PAPER ? 1 : 5;

	if (schedule == MRF_AIM_SCHEDULE_PAPER && share == 0.0 && rounds > 0 && 0.9 * p >= rounds)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "invalid value for option \"rounds\"",
						 psprintf("Under schedule 'paper' each of the %d one-way marginals costs 0.9 rho / T, so T must be above %g; %d rounds would spend more than rho on them.",
								  p, 0.9 * p, rounds),
						 "Give more rounds or a one_way_share, or use schedule 'auto' or 'seeded'.");
	/*
	 * The rates depend on n (counted later, after the charge on the
	 * protected path) through the signal (MrfAimScheduleSignal): the
	 * automatic schedule picks [MMSM22]'s from MRF_AIM_PAPER_SIGNAL on, and
	 * the seeded schedule's shares and T step at MRF_AIM_SEED_LOW_SIGNAL
	 * and MRF_AIM_SEED_MID_SIGNAL (MrfAimSeedShares).  Within a tier they
	 * do not depend on n, so every tier is checked at its first row count:
	 * the middle tier's seed measures its pairs at 0.2925 rho against the
	 * lowest tier's 0.3, and a rho between the two passed a check of the
	 * smallest and largest n only, then failed after the charge on a
	 * relation of some 350 million rows.  [MMSM22]'s schedule by name does
	 * not depend on n.
	 */
	tiers[1] = AimFirstRowsAtSignal(rho, p, MRF_AIM_SEED_LOW_SIGNAL);
	tiers[2] = AimFirstRowsAtSignal(rho, p, MRF_AIM_SEED_MID_SIGNAL);
	tiers[3] = AimFirstRowsAtSignal(rho, p, MRF_AIM_PAPER_SIGNAL);
	MrfAimDefaultOptions(&ao);
	ao.rho = rho;
	ao.rounds = rounds;
	ao.one_way_share = share;
	ao.schedule = schedule;
	for (int t = 0; t < ntiers; t++)
	{
		/* 0: no row count reaches that signal */
		if (tiers[t] < 1)
			continue;
		ao.n = tiers[t];
		if (MrfAimBudget(p, &ao, &b) == 0 &&
			MrfAimGaussianVariance(b.rho_one, &num, &den) == 0 &&
			MrfAimGaussianVariance(b.rho_measure, &num, &den) == 0 &&
			isfinite(MrfAimSelectionScale(b.rho_select, 1.0)) &&
			(!b.seeded || (MrfMstGaussianVariance(p - 1, b.rho_seed_measure, &num, &den) == 0 &&
						   isfinite(MrfMstSelectionScale(b.rho_seed_select, p - 1)))))
			continue;
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "invalid value for option \"rho\"",
						 psprintf("With %d variables and %d rounds, rho = %g needs discrete Gaussian noise of variance above the sampler's limit of 2^40.",
								  p, b.rounds, rho),
						 "Raise rho, or learn from fewer variables or with fewer rounds.");
	}
	return NULL;
}

/* The core's options of a planned release (p known; the workload resolved). */
static void
AimCoreOptions(const AimParams *ap, MrfAimOptions *ao)
{
	MrfAimDefaultOptions(ao);
	ao->rho = ap->rho;
	ao->rounds = ap->rounds;
	ao->one_way_share = ap->one_way_share;
	ao->schedule = ap->schedule;
	ao->max_model_cells = ap->max_model_cells;
	ao->max_candidate_cells = ap->max_candidate_cells;
	/* the core's default steps after each round (docs/learners/aim.md, "AIM's defaults"), at most iterations */
	ao->round_iterations = Min(ao->round_iterations, ap->iterations);
	ao->estimate.iterations = ap->iterations;
	ao->nworkload = ap->nworkload;
	ao->wstart = ap->wstart;
	ao->wvar = ap->wvar;
}

/*
 * The options of mrf_learn_aim, from the document alone: validated, typed
 * and charged: rho, the whole budget (privacy.md 13).
 */
static MrfRefusal *
AimOptions(MrfPlan *plan)
{
	const MrfOptions *opt = &plan->opt;
	const char *learner = plan->learner->name;
	AimParams  *ap = palloc0(sizeof(AimParams));
	double		m,
				s;

	MRF_REFUSE_IF(MrfOptionsCheckAllowed(opt, AIM_OPTIONS, learner));
	MRF_REFUSE_IF(MrfOptionsZcdpBudget(opt, learner, &ap->rho));
	if (MrfAimInitialRates(ap->rho, MrfAimRounds(2), &m, &s) != 0)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "invalid value for option \"rho\"",
						 psprintf("%s spreads rho over its rounds; rho = %g cannot be split.", learner, ap->rho),
						 NULL);
	/* the final estimate's steps: the defaults table's 1000 (sqlapi/options.c) unless given */
	ap->iterations = (int) MrfOptionDefaultNumber(learner, "iterations");
	/* its range (1 to MRF_ESTIMATE_MAX_ITERATIONS): MrfOptionsCheckAllowed's */
	if (opt->given & MRF_OPT_ITERATIONS)
		ap->iterations = opt->iterations;
	/* rounds and one_way_share: their ranges are the options table's; with p, AimRates */
	if (opt->given & MRF_OPT_ROUNDS)
		ap->rounds = opt->rounds;
	if (opt->given & MRF_OPT_ONE_WAY_SHARE)
		ap->one_way_share = opt->one_way_share;
	/*
	 * the budget schedule: a word of the options table's (auto, seeded,
	 * paper), given or its default there (plan.c fills the defaults in)
	 */
	ap->schedule = strcmp(opt->schedule, "paper") == 0 ? MRF_AIM_SCHEDULE_PAPER :
		strcmp(opt->schedule, "seeded") == 0 ? MRF_AIM_SCHEDULE_SEEDED : MRF_AIM_SCHEDULE_AUTO;
	MRF_REFUSE_IF(AimCaps(opt, learner, &ap->max_model_cells, &ap->max_candidate_cells));
	plan->params = ap;
	MrfChargeZcdp(&plan->charge, learner, ap->rho);
	return NULL;
}

static int64 AimTableCells(const MrfPlan *plan);

/* The name of variable i in the rows' names (model/names.h's JSON array), or NULL. */
static char **
VariableNames(const char *variables, int p)
{
	char	  **names = palloc0(sizeof(char *) * p);
	Jsonb	   *jb;

	if (variables == NULL)
		return names;
	jb = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(variables)));
	if (!JB_ROOT_IS_ARRAY(jb))
		return names;
	for (int i = 0; i < p && i < (int) JB_ROOT_COUNT(jb); i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(&jb->root, i);
		JsonbValue *name;

		if (v == NULL || v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
			continue;
		name = getKeyJsonValueFromContainer(v->val.binary.data, "name", 4, NULL);
		if (name != NULL && name->type == jbvString)
			names[i] = pnstrdup(name->val.string.val, name->val.string.len);
	}
	return names;
}

/* The text of workload marginal w, for messages. */
static char *
MarginalText(Jsonb *workload, int w)
{
	JsonbValue *m = getIthJsonbValueFromContainer(&workload->root, w);

	return JsonbToCString(NULL, m->val.binary.data, -1);
}

/*
 * Resolves the workload against the rows' columns: names to 0-based
 * variables, numbers from 1; refuses unknown columns, repeated columns or
 * marginals.  A marginal whose table exceeds the model's cap is skipped
 * with a NOTICE (as Private-PGM skips marginals over its max_cells; the
 * sizes are public), and a workload left empty is refused.
 */
static MrfRefusal *
ResolveWorkload(MrfPlan *plan, AimParams *ap, const int *card)
{
	const char *learner = plan->learner->name;
	Jsonb	   *wl = plan->opt.workload;
	int			n = JB_ROOT_COUNT(wl);
	char	  **names = VariableNames(plan->variables, plan->p);
	int			why;
	int			bad;
	int		   *orig = palloc(sizeof(int) * (n + 1));	/* kept marginal -> its place in wl */
	int			kept = 0;
	int			first_skipped = -1;

	ap->wstart = palloc(sizeof(int) * (n + 1));
	ap->wvar = palloc(sizeof(int) * (n * MRF_AIM_MAX_MARGINAL_VARS + 1));
	ap->wstart[0] = 0;
	ap->skipped = 0;
	for (int w = 0; w < n; w++)
	{
		JsonbValue *m = getIthJsonbValueFromContainer(&wl->root, w);
		int			size = JsonContainerSize(m->val.binary.data);
		int64		cells;

		for (int i = 0; i < size; i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(m->val.binary.data, i);
			int			v = -1;

			if (e->type == jbvString)
			{
				char	   *col = pnstrdup(e->val.string.val, e->val.string.len);

				for (int j = 0; j < plan->p && v < 0; j++)
					if (names[j] != NULL && strcmp(names[j], col) == 0)
						v = j;
				if (v < 0)
					return MrfRefuse(ERRCODE_UNDEFINED_COLUMN,
									 psprintf("workload of %s names column \"%s\", which the rows do not have", learner, col),
									 psprintf("Marginal %d, %s, names it.", w + 1, MarginalText(wl, w)),
									 names[0] == NULL ? "Rows without column names (arrays) number their variables from 1 instead." : NULL);
			}
			else
			{
				double		d = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
																   NumericGetDatum(e->val.numeric)));

				if (d < 1 || d > plan->p)
					return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
									 "invalid value for option \"workload\"",
									 psprintf("Marginal %d, %s, names a variable outside 1..%d.",
											  w + 1, MarginalText(wl, w), plan->p),
									 NULL);
				v = (int) d - 1;
			}
			ap->wvar[ap->wstart[kept] + i] = v;
		}
		ap->wstart[kept + 1] = ap->wstart[kept] + size;
		/* sorted, as the core takes them */
		for (int i = ap->wstart[kept] + 1; i < ap->wstart[kept + 1]; i++)
			for (int j = i; j > ap->wstart[kept] && ap->wvar[j - 1] > ap->wvar[j]; j--)
			{
				int			t = ap->wvar[j];

				ap->wvar[j] = ap->wvar[j - 1];
				ap->wvar[j - 1] = t;
			}
		cells = MrfVarsCells(card, size, ap->wvar + ap->wstart[kept], ap->max_model_cells);
		if (cells < 0)
		{
			if (first_skipped < 0)
				first_skipped = w;
			ap->skipped++;
			continue;
		}
		orig[kept++] = w;
	}
	if (kept == 0 && ap->skipped > 0)
		return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
						 psprintf("every marginal of the workload of %s is too large", learner),
						 psprintf("Marginal %d, %s, has a table of more than " INT64_FORMAT " cells, the model's limit under mrfdp.max_learner_memory.",
								  first_skipped + 1, MarginalText(wl, first_skipped), (int64) ap->max_model_cells),
						 "Use marginals over fewer columns or smaller alphabets.");
	if (ap->skipped > 0)
		ereport(NOTICE,
				(errmsg("%s skips %d marginal%s of the workload over the model's limit of " INT64_FORMAT " cells",
						learner, ap->skipped, ap->skipped == 1 ? "" : "s", (int64) ap->max_model_cells),
				 errdetail("Marginal %d, %s, is the first skipped; the release measures the others.",
						   first_skipped + 1, MarginalText(wl, first_skipped)),
				 errhint("Raise mrfdp.max_learner_memory, or use marginals over fewer columns or smaller alphabets.")));
	ap->nworkload = kept;
	bad = MrfAimWorkloadCheck(plan->p, kept, ap->wstart, ap->wvar, &why);
	if (bad > 0 && kept > 0)
		bad = orig[bad - 1] + 1;
	if (bad > 0)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "invalid value for option \"workload\"",
						 why == 3 ? psprintf("Marginal %d, %s, repeats the columns of an earlier marginal.",
											 bad, MarginalText(wl, bad - 1)) :
						 psprintf("Marginal %d, %s, names the same column twice.",
								  bad, MarginalText(wl, bad - 1)),
						 why == 3 ? "List each marginal once; the order of its columns does not matter." : NULL);
	return NULL;
}

/*
 * The model starts as the one-way marginals (a junction tree of sum k_i
 * cells, fewer once rare values merge), and the learner fails when even
 * that passes the cap: a cap below sum k_i is refused here, from the
 * alphabets and the options, before anything is read or charged (it
 * failed after the charge, the budget spent and nothing released).
 * Given, the option is wrong (22023); the default, the memory setting is
 * too small (54000, naming it).
 */
static MrfRefusal *
AimOneWaysFit(const MrfPlan *plan, const AimParams *ap, const int *card)
{
	const char *learner = plan->learner->name;
	int64		cells = 0;

	for (int i = 0; i < plan->p; i++)
		cells += card[i];
	if (ap->max_model_cells >= cells)
		return NULL;
	if (plan->opt.given & MRF_OPT_MAX_MODEL_CELLS)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 "invalid value for option \"max_model_cells\"",
						 psprintf("%s's model starts from the one-way marginals of the %d columns, " INT64_FORMAT " cells; max_model_cells = " INT64_FORMAT " cannot hold them.",
								  learner, plan->p, cells, ap->max_model_cells),
						 psprintf("Ask for at least " INT64_FORMAT " cells.", cells));
	return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
					 psprintf("mrfdp.max_learner_memory is too small for the model of %s", learner),
					 psprintf("The model starts from the one-way marginals of the %d columns, " INT64_FORMAT " cells; a quarter of mrfdp.max_learner_memory (%d kB) at %.0f bytes a cell holds " INT64_FORMAT ".",
							  plan->p, cells, MrfMaxLearnerMemory, AIM_BYTES_PER_MODEL_CELL,
							  ap->max_model_cells),
					 "Have a superuser raise mrfdp.max_learner_memory, or learn from fewer columns.");
}

/*
 * Plans an AIM release: with p and the alphabets, what they refuse (one
 * variable, too many, a budget whose noise leaves the sampler's range, a
 * workload naming unknown columns or too large a marginal); with n, the
 * memory of the run.
 */
static MrfRefusal *
AimPlan(MrfPlan *plan)
{
	AimParams  *ap = plan->params;
	const char *learner = plan->learner->name;
	int			p = plan->p;
	int		   *card;
	MrfAimOptions ao;
	int			ncand;

	if (p < 2)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s needs at least 2 variables", learner),
						 psprintf("The rows have %d variable; a workload of marginals needs two or more.", p),
						 NULL);
	if (p > AIM_MAX_VARIABLES)
		return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
						 psprintf("%s learns from at most %d variables", learner, AIM_MAX_VARIABLES),
						 psprintf("The rows have %d variables; every round triangulates the model with each candidate marginal.", p),
						 "Use mrf_learn_mst for wider tables.");
	if (plan->k < 2 || plan->k > MRF_MAX_ALPHABET)
		return MrfRefuse(ERRCODE_INVALID_PARAMETER_VALUE,
						 psprintf("%s takes k from 2 to %d", learner, MRF_MAX_ALPHABET), NULL, NULL);
	card = AimCard(p, plan->k, plan->alphabets);
	MRF_REFUSE_IF(AimRates(learner, ap->rho, p, ap->rounds, ap->one_way_share, ap->schedule));
	MRF_REFUSE_IF(AimOneWaysFit(plan, ap, card));
	if (plan->opt.given & MRF_OPT_WORKLOAD && ap->wstart == NULL)
		MRF_REFUSE_IF(ResolveWorkload(plan, ap, card));
	if (MrfAimClosureCells(p, card, ap->nworkload, ap->wstart, ap->wvar,
						   ap->max_candidate_cells, &ncand) < 0)
		return MrfRefuse(ERRCODE_PROGRAM_LIMIT_EXCEEDED,
						 psprintf("the workload's tables of %s would be too large", learner),
						 psprintf("The marginals of the workload and their subsets hold more than " INT64_FORMAT " cells, a quarter of mrfdp.max_learner_memory.",
								  (int64) ap->max_candidate_cells),
						 "Use fewer or smaller marginals.");
	if (plan->n == 0)
		return NULL;
	AimCoreOptions(ap, &ao);
	ao.n = plan->n;				/* the automatic schedule's T depends on it */
	plan->iterations = ap->iterations;
	/* the run's input: the rows, or the tables counted where they are (Citus) */
	plan->memory = (plan->counts ? (double) sizeof(int64) * AimTableCells(plan) :
					(double) sizeof(MrfCode) * plan->n * p) + MrfAimWorkspaceBytes(p, card, &ao);
	return NULL;
}

/*
 * See driver/learners.h: the cells of the tables a counts state holds (every
 * one-way, and the workload's closure or, by default, every pair and
 * triple), or -1 when they pass MRF_COUNTS_MAX_CELLS or, for the default
 * workload, AIM_COUNTS_MAX_DEFAULT_TABLES: then rows travel.  A function
 * of the options, p and the alphabets only (not of a node's settings), so
 * every worker and the coordinator decide alike; the memory the tables
 * take is checked against mrfdp.max_learner_memory where they are
 * allocated, and counted in the release's plan.
 */
static int64
AimTableCells(const MrfPlan *plan)
{
	AimParams  *ap = plan->params;

	if (!ap->tables_planned)
	{
		int		   *card = AimCard(plan->p, plan->k, plan->alphabets);
		int64		cells;

		if (plan->p < 2 || ap->max_candidate_cells < 1)
			elog(ERROR, "%s: tables asked for before the plan knows p", plan->learner->name);
		cells = MrfAimTablesPlan(plan->p, card, ap->nworkload, ap->wstart, ap->wvar,
								 ap->nworkload > 0 ? INT64_MAX : AIM_COUNTS_MAX_DEFAULT_TABLES,
								 MRF_COUNTS_MAX_CELLS, &MrfPallocEnv, &ap->tables);
		if (cells == -2)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory in %s", plan->learner->name)));
		ap->table_cells = cells < 0 ? -1 : cells;
		ap->tables_planned = true;
		pfree(card);
	}
	return ap->table_cells;
}

/* See driver/learners.h: adds the tables of n byte rows into counts. */
static void
AimCountRows(const MrfPlan *plan, const MrfCode *rows, int64 n, int64 *counts)
{
	const AimParams *ap = plan->params;
	int		   *card = AimCard(plan->p, plan->k, plan->alphabets);

	if (AimTableCells(plan) < 0)
		elog(ERROR, "%s: rows counted without tables", plan->learner->name);
	MrfAimTablesCount(&ap->tables, rows, n, plan->p, card, counts);
	pfree(card);
}

/* Learns an AIM model from byte rows, rho-zCDP. */
static MrfModel *
AimRun(MrfPlan *plan, const MrfRowsState *rows, MrfRun *run)
{
	const AimParams *ap = plan->params;
	int64		n = plan->n;
	int			p = plan->p;
	int		   *card = AimCard(p, plan->k, rows->alphabets);
	MrfAimOptions ao;
	MrfAimReport rep;
	MrfCliqueSet *set = NULL;
	double	   *logpot = NULL;
	StringInfoData meta;

	/* the rows' alphabets are the plan's (both from the rows' type) */
	if ((rows->alphabets == NULL) != (plan->alphabets == NULL) ||
		(rows->alphabets != NULL && memcmp(rows->alphabets, plan->alphabets, sizeof(uint16) * p) != 0))
		elog(ERROR, "%s: the rows' alphabets are not the plan's", plan->learner->name);
	AimCoreOptions(ap, &ao);
	if (rows->counts != NULL)
	{
		/* tables counted where the rows are (Citus): the same candidates' tables */
		if (rows->ncells != AimTableCells(plan))
			elog(ERROR, "%s: counts of %lld cells for tables of %lld", plan->learner->name,
				 (long long) rows->ncells, (long long) AimTableCells(plan));
		MrfRunCheck(run, MrfAimLearnTables(&ap->tables, rows->counts, n, p, card, &ao, &run->rng,
										   &run->env, &set, &logpot, &rep));
	}
	else
		MrfRunCheck(run, MrfAimLearn(MrfRowsCodes(rows), n, p, card, &ao, &run->rng, &run->env,
									 &set, &logpot, &rep));

	MrfPlanMetaBegin(&meta, plan, run, "mckenna2022-aim");
	/* the T and shares used, given or the schedule's defaults (MrfAimBudget) */
	appendStringInfo(&meta, ", \"rounds\": %d, \"max_rounds\": %d, \"rounds_given\": %s, \"annealed\": %d",
					 rep.rounds, rep.max_rounds, ap->rounds > 0 ? "true" : "false", rep.annealed);
	appendStringInfo(&meta, ", \"one_way_share\": %s, \"one_way_share_given\": %s",
					 MrfDoubleText(rep.one_way_share), ap->one_way_share > 0.0 ? "true" : "false");
	/* the MST-seeded schedule's seed: its share, pairs and noise (privacy.md 13) */
	appendStringInfo(&meta, ", \"schedule\": \"%s\", \"seed_share\": %s, \"seed_select_share\": %s, \"seed_pairs\": %d, \"rho_seed\": %s, \"sigma2_seed\": %s",
					 rep.schedule == MRF_AIM_SCHEDULE_SEEDED ? "mst-seeded" : "mmsm22", MrfDoubleText(rep.seed_share),
					 MrfDoubleText(rep.seed_select_share), rep.seed_pairs, MrfDoubleText(rep.rho_seed),
					 rep.seed_pairs > 0 ? MrfDoubleText(rep.sigma2_seed) : "null");
	/* the automatic schedule's signal of public sizes (privacy.c MrfAimScheduleSignal) */
	appendStringInfo(&meta, ", \"schedule_signal\": %s, \"schedule_option\": \"%s\"",
					 MrfDoubleText(MrfAimScheduleSignal(ap->rho, n, p)),
					 ap->schedule == MRF_AIM_SCHEDULE_PAPER ? "paper" :
					 ap->schedule == MRF_AIM_SCHEDULE_SEEDED ? "seeded" : "auto");
	/* the core's running sum at the end (rounded up at each step): rho when the last round ran */
	appendStringInfo(&meta, ", \"rho_one_way\": %s, \"rho_spent\": %s",
					 MrfDoubleText(rep.rho_one_way), MrfDoubleText(rep.rho_used));
	appendStringInfo(&meta, ", \"compressed_variables\": %d, \"merged_values\": %d",
					 rep.compressed, rep.rare_values);
	appendStringInfo(&meta, ", \"mechanism\": \"discrete-gaussian\", \"l2_sensitivity_per_table\": %s",
					 MrfDoubleText(sqrt(MrfMarginalSquaredSensitivity())));
	appendStringInfo(&meta, ", \"sigma2_first\": %s, \"sigma2_last\": %s",
					 MrfDoubleText(rep.sigma2_first), MrfDoubleText(rep.sigma2_last));
	appendStringInfo(&meta, ", \"selection\": {\"mechanism\": \"exponential\", \"epsilon_first\": %s, \"epsilon_last\": %s, \"quality_sensitivity\": \"2 max weight\"}",
					 MrfDoubleText(rep.epsilon_first), MrfDoubleText(rep.epsilon_last));
	appendStringInfo(&meta, ", \"workload\": {\"given\": %s, \"marginals\": %d, \"skipped\": %d, \"candidates\": %d, \"triples_added\": %d, \"triples_skipped\": %d}",
					 ap->nworkload > 0 ? "true" : "false", ap->nworkload, ap->skipped, rep.candidates,
					 rep.triples, rep.triples_skipped);
	appendStringInfo(&meta, ", \"max_model_cells\": " INT64_FORMAT ", \"max_model_cells_given\": %s, \"junction_tree_cells\": " INT64_FORMAT,
					 (int64) ap->max_model_cells,
					 (plan->opt.given & MRF_OPT_MAX_MODEL_CELLS) ? "true" : "false", (int64) rep.tree_cells);
	appendStringInfo(&meta, ", \"estimation\": {\"method\": \"mirror-descent\", \"iterations\": %d, \"max_iterations\": %d, \"round_iterations\": %d, \"inference\": \"%s\", \"loss\": ",
					 rep.estimate.iterations, ap->iterations, ao.round_iterations,
					 rep.estimate.exact ? "exact" : "loopy");
	MrfJsonAppendDouble(&meta, rep.estimate.loss);
	appendStringInfoChar(&meta, '}');
	appendStringInfo(&meta, ", \"cliques\": %d, \"cells\": " INT64_FORMAT, set->m, (int64) set->cells);
	{
		MrfModel   *model = MrfCliquesModelOf(set, logpot, run->not_private ? MRF_FLAG_NOT_PRIVATE : 0,
											  MrfMetaFinish(&meta));

		MrfCliqueSetFree(&run->env, set);
		MrfFree(&run->env, logpot);
		return model;
	}
}

/*
 * See driver/learners.h: this node's (the coordinator's) default model
 * cap, for every Citus node to plan with (AimCaps).
 */
static char *
AimClusterOptions(void)
{
	return psprintf("{\"coordinator_model_cells\": " INT64_FORMAT "}",
					Min(AIM_MAX_MODEL_CELLS, AimModelCellsBound()));
}

const MrfLearner MrfAimLearner = {
	"mrf_learn_aim", MRF_ROWS_CODES, NULL, AimOptions, AimPlan, AimRun, NULL,
	AimTableCells, AimCountRows, NULL, NULL, AimClusterOptions
};

PG_FUNCTION_INFO_V1(mrf_aim_accum);
/*
 * Transition: plans at the first row of each group (option errors, the
 * workload's columns and the budget refused at the first row, not after
 * the scan), then stores bytes.
 */
Datum
mrf_aim_accum(PG_FUNCTION_ARGS)
{
	return MrfRowsAccum(fcinfo, &MrfAimLearner, MRF_ROWS_CODES);
}

PG_FUNCTION_INFO_V1(mrf_aim_final);
/* Final: learns, charges the statement's relations, then releases. */
Datum
mrf_aim_final(PG_FUNCTION_ARGS)
{
	return MrfAggregateRelease(fcinfo, &MrfAimLearner);
}

/*
 * The scoring threads a release starting now would use
 * (mrfdp.learner_threads), for the plan's time: at most the machine's
 * online cores, since threads past them add no speed.
 */
static int
AimPlanThreads(void)
{
	int			threads = MrfLearnerThreadCount();
	long		cores = sysconf(_SC_NPROCESSORS_ONLN);

	return cores >= 1 && cores < threads ? (int) cores : threads;
}

/*
 * The smallest row count whose signal (MrfAimScheduleSignal) is at least
 * threshold for p columns at rho, or 0 when none is representable: where
 * the plan without n says a tier of the schedule starts.  Public sizes only.
 */
static int64
AimFirstRowsAtSignal(double rho, int p, double threshold)
{
	double		per_row = MrfAimScheduleSignal(rho, 1, p);
	double		first;
	int64		n;

	if (!(per_row > 0.0) || !isfinite(per_row))
		return 0;
	first = ceil(threshold / per_row);
	if (!(first < (double) PG_INT64_MAX / 2))
		return 0;
	n = Max((int64) first - 1, 1);
	/* the quotient's rounding: step to the first n the comparison itself accepts */
	while (!(MrfAimScheduleSignal(rho, n, p) >= threshold))
		n++;
	while (n > 1 && MrfAimScheduleSignal(rho, n - 1, p) >= threshold)
		n--;
	return n;
}

/*
 * The plan function without n under the automatic schedule: the smallest
 * row count at which the release would run [MMSM22]'s schedule (the
 * signal's threshold, MrfAimAutoPaper, and the fallback to the seeded one
 * when [MMSM22]'s cannot spend the rounds, as MrfAimBudget resolves them), or
 * 0 when no row count would.  Public sizes only.
 */
static int64
AimPaperFromRows(int p, const MrfAimOptions *given)
{
	MrfAimOptions o = *given;
	MrfAimBudgetPlan b;
	int64		n = AimFirstRowsAtSignal(given->rho, p, MRF_AIM_PAPER_SIGNAL);

	if (n < 1)
		return 0;
	o.schedule = MRF_AIM_SCHEDULE_AUTO;
	o.n = n;
	if (MrfAimBudget(p, &o, &b) != 0 || b.schedule != MRF_AIM_SCHEDULE_PAPER)
		return 0;
	return n;
}

PG_FUNCTION_INFO_V1(mrf_learn_aim_plan);
/*
 * mrf_learn_aim_plan(alphabets int[], rho float8, n bigint, rounds int,
 * one_way_share float8, max_model_cells int): what mrf_learn_aim would do
 * with columns of these alphabets and these options, from public sizes
 * only: no relation is named, no row read, nothing charged.  The options
 * go through the release's own plan (AimOptions, AimPlan: the same
 * refusals, rounds, rates and caps; privacy.c); the time is the core's
 * rough model (MrfAimPlan) on mrfdp.learner_threads threads; with n, the
 * memory the release would plan.
 * Arguments past the third are read only when the SQL definition has them.
 */
Datum
mrf_learn_aim_plan(PG_FUNCTION_ARGS)
{
	const char *learner = "mrf_learn_aim_plan";
	static const char *const names[] = {"rho", "rounds", "one_way_share", "max_model_cells", "schedule"};
	Datum		values[5];
	bool		isnull[5];
	ArrayType  *arr;
	int			p;
	int		   *card;
	uint16	   *alphabets;
	int			k = 2;
	MrfPlan		plan;
	AimParams  *ap;
	MrfAimOptions ao;
	MrfAimPlanReport pr;
	StringInfoData out;
	Datum	   *elems;
	bool	   *nulls;
	int64		paper_from = 0;
	int64		middle_from = 0;
	int64		even_below = 0;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s needs the columns' alphabets", learner),
				 errhint("Pass one alphabet size a column, e.g. ARRAY[2, 3, 4].")));
	if (PG_ARGISNULL(1) || !(PG_GETARG_FLOAT8(1) > 0) || !isfinite(PG_GETARG_FLOAT8(1)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for option \"rho\""),
				 errdetail("%s needs a positive, finite zCDP budget rho.", learner),
				 errhint("mrf_dp_to_zcdp converts an (epsilon, delta) budget.")));
	arr = PG_GETARG_ARRAYTYPE_P(0);
	/* one size a column: a 2-D array is refused, never read flattened */
	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s: alphabets must be a one-dimensional array", learner),
				 errdetail("The array given has %d dimensions.", ARR_NDIM(arr)),
				 errhint("Pass one alphabet size a column, e.g. ARRAY[2, 3, 4].")));
	deconstruct_array(arr, INT4OID, 4, true, TYPALIGN_INT, &elems, &nulls, &p);
	card = palloc(sizeof(int) * Max(p, 1));
	alphabets = palloc(sizeof(uint16) * Max(p, 1));
	for (int i = 0; i < p; i++)
	{
		int			a = nulls[i] ? 0 : DatumGetInt32(elems[i]);

		if (a < 2 || a > MRF_MAX_ALPHABET)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid alphabet for column %d", i + 1),
					 errdetail("Alphabet sizes run from 2 to %d; column %d has %s.", MRF_MAX_ALPHABET, i + 1,
							   nulls[i] ? "NULL" : psprintf("%d", a))));
		card[i] = a;
		alphabets[i] = (uint16) a;
		k = Max(k, a);
	}
	/* the options as a release's document: the same checks, in the same order */
	for (int i = 0; i < lengthof(names); i++)
	{
		int			arg = i == 0 ? 1 : 2 + i;

		isnull[i] = arg >= PG_NARGS() || PG_ARGISNULL(arg);
		values[i] = isnull[i] ? (Datum) 0 : PG_GETARG_DATUM(arg);
	}
	MrfPlanBegin(&plan, &MrfAimLearner,
				 MrfOptionsBuild(lengthof(names), names, values, isnull));
	MrfPlanAlphabets(&plan, alphabets, p);
	MrfPlanShape(&plan, p, k);
	ap = plan.params;
	AimCoreOptions(ap, &ao);
	ao.threads = AimPlanThreads();
	/*
	 * The automatic schedule needs n: without it, the seeded schedule's plan
	 * (small n's), and below the first n at which [MMSM22]'s would run
	 * (AimPaperFromRows), so that the answer never hides the other schedule.
	 */
	if (!PG_ARGISNULL(2))
		ao.n = PG_GETARG_INT64(2);
	else if (ao.schedule == MRF_AIM_SCHEDULE_AUTO)
	{
		paper_from = AimPaperFromRows(p, &ao);
		ao.schedule = MRF_AIM_SCHEDULE_SEEDED;
	}

	/*
	 * The seeded schedule's shares follow the signal too (MrfAimSeedShares):
	 * without n the plan gives the tier between its two thresholds, and says
	 * from which row count the middle tier runs and below which the even
	 * split does, up to the first row count of [MMSM22]'s.
	 */
	if (PG_ARGISNULL(2) && ao.schedule == MRF_AIM_SCHEDULE_SEEDED)
	{
		middle_from = AimFirstRowsAtSignal(ao.rho, p, MRF_AIM_SEED_MID_SIGNAL);
		even_below = AimFirstRowsAtSignal(ao.rho, p, MRF_AIM_SEED_LOW_SIGNAL);
		if (paper_from > 0 && middle_from >= paper_from)
			middle_from = 0;
	}
	if (!PG_ARGISNULL(2) && ao.n < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid row count " INT64_FORMAT, (int64) ao.n),
				 errdetail("n, when given, is a positive public row count.")));
	if (MrfAimPlan(p, card, &ao, &pr) != MRF_OK)
		elog(ERROR, "%s: the core refused a plan its checks passed", learner);
	initStringInfo(&out);
	appendStringInfo(&out, "{\"learner\": \"mrf_learn_aim\", \"charged\": false, \"variables\": %d, \"rho\": %s",
					 p, MrfDoubleText(ap->rho));
	appendStringInfo(&out, ", \"max_rounds\": %d, \"rounds_given\": %s, \"rho_one_way\": %s, \"one_way_share\": %s",
					 pr.max_rounds, ap->rounds > 0 ? "true" : "false", MrfDoubleText(pr.rho_one_way),
					 MrfDoubleText(pr.one_way_share));
	appendStringInfo(&out, ", \"schedule\": \"%s\", \"seed_share\": %s, \"seed_select_share\": %s, \"rho_seed\": %s",
					 pr.schedule == MRF_AIM_SCHEDULE_SEEDED ? "mst-seeded" : "mmsm22", MrfDoubleText(pr.seed_share),
					 MrfDoubleText(pr.seed_select_share), MrfDoubleText(pr.rho_seed));
	appendStringInfo(&out, ", \"schedule_signal\": %s",
					 PG_ARGISNULL(2) ? "null" : MrfDoubleText(MrfAimScheduleSignal(ap->rho, ao.n, p)));
	if (paper_from > 0)
		appendStringInfo(&out, ", \"paper_schedule_from_rows\": " INT64_FORMAT, paper_from);
	else
		appendStringInfoString(&out, ", \"paper_schedule_from_rows\": null");
	appendStringInfoString(&out, ", \"seed_middle_from_rows\": ");
	if (middle_from > 0)
		appendStringInfo(&out, INT64_FORMAT, middle_from);
	else
		appendStringInfoString(&out, "null");
	appendStringInfoString(&out, ", \"seed_even_split_below_rows\": ");
	if (even_below > 0)
		appendStringInfo(&out, INT64_FORMAT, even_below);
	else
		appendStringInfoString(&out, "null");
	appendStringInfo(&out, ", \"sigma2_first\": %s, \"epsilon_first\": %s",
					 MrfDoubleText(pr.sigma2_first), MrfDoubleText(pr.epsilon_first));
	appendStringInfo(&out, ", \"candidates\": %d, \"candidate_cells\": " INT64_FORMAT ", \"max_candidate_cells\": " INT64_FORMAT,
					 pr.candidates, (int64) pr.candidate_cells, (int64) ao.max_candidate_cells);
	appendStringInfo(&out, ", \"max_model_cells\": " INT64_FORMAT ", \"modelled_tree_cells\": " INT64_FORMAT,
					 (int64) ao.max_model_cells, (int64) pr.model_cells);
	appendStringInfo(&out, ", \"threads\": %d, \"seconds_per_round\": %s, \"seconds_max\": %s",
					 pr.threads, MrfDoubleText(pr.seconds_per_round), MrfDoubleText(pr.seconds_max));
	if (!PG_ARGISNULL(2))
	{
		int64		n = ao.n;	/* checked positive above */

		/* the release's memory plan with n (AimPlan), reported, not enforced */
		plan.n = n;
		{
			MrfRefusal *refusal = MrfAimLearner.plan(&plan);

			if (refusal != NULL)
				MrfRaise(refusal);
		}
		appendStringInfo(&out, ", \"rows\": " INT64_FORMAT ", \"memory_bytes\": %.0f, \"fits_memory\": %s",
						 n, plan.memory, MrfMemoryFits(plan.memory) ? "true" : "false");
	}
	appendStringInfoChar(&out, '}');
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data)));
}
