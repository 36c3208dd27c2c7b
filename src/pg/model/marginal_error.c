/*
 * model/marginal_error.c - a model's exact marginals of any set of its variables:
 * mrf_marginal (one set, as rows), and mrf_marginal_error and
 * mrf_marginal_errors: the L1 error of a model's marginals of every set of one, two, three
 * (the ways asked) variables against a relation's rows: clique models, and
 * Ising and pairwise models through their clique form.
 *
 * Not private and not charged: it reads the relation with the caller's
 * rights (SECURITY INVOKER, SPI), so only someone who may SELECT the rows
 * gets an answer, and every call says so in a NOTICE.  The model's
 * marginals are exact (one pass over the states of a small model, else the
 * model's junction tree calibrated once and each set eliminated from it,
 * MrfBpSetMarginal); the rows' values are mapped to the model's codes by its labels
 * (the text form of each value, as the learners read enums, booleans and
 * declared domains), by integer codes when the model has no labels, and a
 * NULL to the model's NULL-labelled value (nulls => 'category').
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "core/bp.h"
#include "core/cliques.h"
#include "core/workload.h"
#include "pg/driver/learners.h"
#include "pg/model/model.h"
#include "pg/model/names.h"
#include "pg/driver/run.h"

/*
 * Models of at most this many states get their marginals by enumeration:
 * 2^18 states times the 833 sets of 17 variables is about 2e8 steps (well
 * under a second), where a junction tree per set of a dense 17-variable
 * Ising model took 148 s.
 */
#define WORKLOAD_ENUM_STATES ((int64) 1 << 18)

/* What palloc adds to each small chunk (its header), counted in the memory plan. */
#define WORKLOAD_CHUNK_HEADER 16

/* Rows fetched from the relation per batch. */
#define WORKLOAD_BATCH 10000

/* Codes the reading query gives for a NULL and for a value with no code. */
#define WORKLOAD_NULL (-1)
#define WORKLOAD_UNKNOWN (-2)

/* Every set of the workload and its tables. */
typedef struct Workload
{
	int			nsets;
	int		   *way;			/* nsets: the set's size */
	int		  **vars;			/* nsets: ascending 0-based variables */
	int64	   *offset;			/* nsets + 1: the set's cells in marg/counts */
	double	   *marg;			/* the model's marginals */
	int64	   *counts;			/* the rows' counts */
} Workload;

/* The function's name in messages (both entry points share the code). */
static const char *const WorkloadFn = "mrf_marginal_error";

/* The ways asked that have sets, ascending and distinct (1..p). */
static int *
WorkloadWays(ArrayType *arr, int p, int *nways)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	bool		seen[MRF_MODEL_MAX_P + 1];
	int		   *ways;
	int			w = 0;

	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s: ways must be a one-dimensional array", WorkloadFn)));
	deconstruct_array(arr, INT4OID, sizeof(int32), true, TYPALIGN_INT, &elems, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: ways must list at least one size of marginal", WorkloadFn)));
	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < n; i++)
	{
		int			v;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s: ways must not contain NULL", WorkloadFn)));
		v = DatumGetInt32(elems[i]);
		if (v < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: ways lists %d, but a marginal has at least one variable", WorkloadFn, v),
					 errdetail("A way is the number of variables of a marginal.")));
		/* a model of fewer variables has no sets of that size (the default asks for 3) */
		if (v <= p)
			seen[v] = true;
	}
	ways = palloc(sizeof(int) * n);
	for (int v = 1; v <= p; v++)
		if (seen[v])
			ways[w++] = v;
	*nways = w;
	return ways;
}

/* C(p, w) as a double (for the size check before enumerating). */
static double
Binomial(int p, int w)
{
	double		b = 1.0;

	for (int i = 1; i <= w; i++)
		b = b * (p - w + i) / i;
	return b;
}

/* Lists every set of each way, lexicographically, with their table offsets. */
static void
WorkloadSets(Workload *wl, const int *ways, int nways, const MrfCliqueSet *set)
{
	double		nsets = 0;
	double		book;
	int			s = 0;
	int64		cells = 0;

	for (int i = 0; i < nways; i++)
		nsets += Binomial(set->p, ways[i]);
	if (nsets > 1e7)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the ways asked make %.0f marginals, more than 10,000,000", WorkloadFn,
						nsets),
				 errhint("Ask for fewer ways (ways => '{1,2,3}' is the usual workload).")));
	/*
	 * The sets' bookkeeping is planned before it is allocated: at 1e7 sets it
	 * alone is several hundred MB (a way, an offset, a pointer, an L1 error
	 * and a palloc'd variable list with its chunk header per set).
	 */
	book = 0;
	for (int i = 0; i < nways; i++)
		book += Binomial(set->p, ways[i]) *
			(double) (sizeof(int) + sizeof(int *) + sizeof(int64) + sizeof(double) +
					  WORKLOAD_CHUNK_HEADER + MAXALIGN(sizeof(int) * ways[i]));
	MrfCheckMemory(WorkloadFn, book);
	wl->nsets = (int) nsets;
	wl->way = palloc(sizeof(int) * (wl->nsets + 1));
	wl->vars = palloc(sizeof(int *) * (wl->nsets + 1));
	wl->offset = palloc(sizeof(int64) * (wl->nsets + 1));
	for (int i = 0; i < nways; i++)
	{
		int			w = ways[i];
		int		   *c = palloc(sizeof(int) * w);

		for (int j = 0; j < w; j++)
			c[j] = j;
		for (;;)
		{
			int			j;
			int64		t = MrfVarsCells(set->card, w, c, PG_INT64_MAX / 4);

			if (t < 0 || cells > PG_INT64_MAX / 4 - t)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("%s: the marginals asked have too many cells", WorkloadFn)));
			wl->way[s] = w;
			wl->vars[s] = palloc(sizeof(int) * w);
			memcpy(wl->vars[s], c, sizeof(int) * w);
			wl->offset[s] = cells;
			cells += t;
			s++;
			/* the next w-subset of 0..p-1 */
			for (j = w - 1; j >= 0 && c[j] == set->p - w + j; j--)
				;
			if (j < 0)
				break;
			c[j]++;
			for (j++; j < w; j++)
				c[j] = c[j - 1] + 1;
		}
		CHECK_FOR_INTERRUPTS();
	}
	wl->offset[s] = cells;
	/* the model's marginals and the rows' counts, a double and an int64 a cell */
	MrfCheckMemory(WorkloadFn, book + 16.0 * (double) cells);
	wl->marg = palloc_extended(sizeof(double) * (cells + 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	wl->counts = palloc_extended(sizeof(int64) * (cells + 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
}

/* Text of a set's variables for messages: "party, vote" or "1, 2". */
static char *
SetText(const MrfNames *names, int w, const int *vars)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int j = 0; j < w; j++)
	{
		if (j > 0)
			appendStringInfoString(&buf, ", ");
		if (names->present && names->names[vars[j]] != NULL)
			appendStringInfoString(&buf, names->names[vars[j]]);
		else
			appendStringInfo(&buf, "%d", vars[j] + 1);
	}
	return buf.data;
}

/*
 * The model as a clique set and log-potential tables: a clique model's own,
 * an Ising or pairwise model's clique form (core/workload.c); other kinds
 * are refused.
 */
static MrfCliqueSet *
WorkloadCliqueFormOf(MrfModel *model, double **logpot, const char *fn)
{
	MrfCliqueSet *set = NULL;
	int			status = MRF_OK;

	switch ((MrfKind) model->kind)
	{
		case MRF_KIND_CLIQUES:
			*logpot = MrfCliquesModelTables(model);
			return MrfCliquesModelSet(model);
		case MRF_KIND_ISING:
			status = MrfIsingAsCliques(MrfIsingWeights(model), MrfIsingFields(model), model->p,
									   &MrfPallocEnv, &set, logpot);
			break;
		case MRF_KIND_PAIRWISE:
			{
				int		   *card = palloc(sizeof(int) * model->p);
				size_t		wcells = (size_t) model->p * model->p * model->k * model->k;

				for (int i = 0; i < model->p; i++)
					card[i] = MrfModelAlphabet(model, i);
				/* pairwise.c's layout: W (p^2 k^2), then theta (p k) */
				status = MrfPairwiseAsCliques(model->params, model->params + wcells, model->p,
											  model->k, card, &MrfPallocEnv, &set, logpot);
				break;
			}
		default:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s does not apply to models of kind %s", fn,
							MrfKindName(model->kind)),
					 errdetail("It compares exact marginals, which clique, Ising and pairwise models give here."),
					 errhint("Compare samples of the model instead (mrf_sample).")));
	}
	if (status == MRF_ENOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in %s", fn)));
	if (status != MRF_OK)
		elog(ERROR, "%s: the model has no clique form (status %d)", fn, status);
	return set;
}

/*
 * A model's exact marginals of any set: its clique form, and either
 * enumeration of its states (a small model) or its junction tree calibrated
 * once, each set then eliminated from it (MrfBpSetMarginal).
 */
typedef struct ModelMarginals
{
	const char *fn;				/* the SQL function, for messages */
	MrfCliqueSet *set;
	double	   *logpot;
	MrfBp	   *bp;				/* NULL: enumerate */
	int64		max_cells;		/* the largest table of an elimination */
} ModelMarginals;

/* The model's clique form and, unless it is small, its calibrated junction tree. */
static void
ModelMarginalsBegin(ModelMarginals *mm, MrfCliqueSet *set, double *logpot, const char *fn)
{
	MrfBpOptions bp;
	double	   *cmarg;
	int			status;

	mm->fn = fn;
	mm->set = set;
	mm->logpot = logpot;
	mm->bp = NULL;
	/* two tables of an elimination (a product and its sum) within mrfdp.max_learner_memory */
	mm->max_cells = (int64) ((double) MrfMaxLearnerMemory * 1024.0 / (2.0 * sizeof(double)));
	if (MrfCliqueSetStates(set, WORKLOAD_ENUM_STATES) >= 0)
		return;
	memset(&bp, 0, sizeof(bp));
	bp.mode = MRF_INFER_EXACT;
	status = MrfBpBuild(set, &bp, &MrfPallocEnv, &mm->bp);
	if (status == MRF_EINVAL)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the model has no junction tree within %lld cells", fn,
						(long long) MRF_BP_DEFAULT_MAX_EXACT_CELLS),
				 errdetail("Its marginals would need loopy belief propagation, which is approximate; %s gives exact marginals only.",
						   fn),
				 errhint("A model with fewer or smaller cliques (a sparser graph) has exact marginals.")));
	if (status != MRF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in %s", fn)));
	cmarg = palloc_extended(sizeof(double) * (set->cells + 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	status = MrfBpMarginals(mm->bp, logpot, cmarg, NULL);
	if (status != MRF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s: the model's potentials are not finite numbers", fn)));
	pfree(cmarg);
}

/* The marginal of vars (ascending) into out, or an error naming the set. */
static void
ModelMarginalOf(ModelMarginals *mm, int size, const int *vars, double *out,
				const MrfNames *names)
{
	int64		need = 0;
	int			status;

	if (mm->bp == NULL)
	{
		int64		offset[2] = {0, MrfVarsCells(mm->set->card, size, vars, PG_INT64_MAX)};

		status = MrfSubsetMarginalsEnumerate(mm->set, mm->logpot, 1, &size, &vars, offset,
											 WORKLOAD_ENUM_STATES, &MrfPallocEnv, out);
	}
	else
		status = MrfBpSetMarginal(mm->bp, size, vars, mm->max_cells, out, &need);
	if (status == MRF_EINVAL && need > 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the marginal of (%s) needs a table of %lld cells", mm->fn,
						SetText(names, size, vars), (long long) need),
				 errdetail("mrfdp.max_learner_memory allows tables of %lld cells (two of them, 8 bytes a cell).",
						   (long long) mm->max_cells),
				 errhint("Ask for fewer or smaller variables, or raise mrfdp.max_learner_memory.")));
	if (status != MRF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in %s", mm->fn)));
}

/*
 * The model's exact marginal of every set of the workload: by one pass over
 * the states of a small model (at most WORKLOAD_ENUM_STATES), else from one
 * calibration of the junction tree.
 */
static void
WorkloadModelMarginals(Workload *wl, MrfCliqueSet *set, double *logpot, const MrfNames *names)
{
	ModelMarginals mm;
	int			status;

	if (MrfCliqueSetStates(set, WORKLOAD_ENUM_STATES) >= 0)
	{
		status = MrfSubsetMarginalsEnumerate(set, logpot, wl->nsets, wl->way,
											 (const int *const *) wl->vars, wl->offset,
											 WORKLOAD_ENUM_STATES, &MrfPallocEnv, wl->marg);
		if (status != MRF_OK)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory in %s", WorkloadFn)));
		return;
	}
	ModelMarginalsBegin(&mm, set, logpot, WorkloadFn);
	for (int s = 0; s < wl->nsets; s++)
	{
		ModelMarginalOf(&mm, wl->way[s], wl->vars[s], wl->marg + wl->offset[s], names);
		if ((s & 15) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	MrfBpFree(mm.bp);
}

/* The relation's column `name`: its number, or an error naming it. */
static AttrNumber
WorkloadColumn(Oid relid, const char *name)
{
	AttrNumber	att = get_attnum(relid, name);

	if (att <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("%s: column \"%s\" of relation \"%s\" does not exist", WorkloadFn, name,
						get_rel_name(relid)),
				 errhint("Give the relation's columns that hold the model's variables in columns.")));
	return att;
}

/*
 * The reading query's expression of variable i from the value expression
 * val: the model's code (0-based), WORKLOAD_NULL for a NULL the model has no
 * value for, WORKLOAD_UNKNOWN for a value it has no code for.
 */
static void
AppendCodeExpr(StringInfo q, const MrfNames *names, int i, int card, const char *val)
{
	int			nullcode = WORKLOAD_NULL;

	if (names->present && names->labels[i] != NULL)
	{
		bool		first = true;

		for (int a = 0; a < names->nlabels[i]; a++)
			if (names->labels[i][a] == NULL)
				nullcode = a;
		appendStringInfo(q, "CASE WHEN (%s) IS NULL THEN %d ELSE coalesce(pg_catalog.array_position(ARRAY[",
						 val, nullcode);
		for (int a = 0; a < names->nlabels[i]; a++)
		{
			if (!first)
				appendStringInfoString(q, ", ");
			first = false;
			/* a NULL label never equals a value: the NULL case is above */
			appendStringInfoString(q, names->labels[i][a] != NULL
								   ? quote_literal_cstr(names->labels[i][a]) : "NULL");
		}
		appendStringInfo(q, "]::pg_catalog.text[], (%s)::pg_catalog.text) - 1, %d) END",
						 val, WORKLOAD_UNKNOWN);
	}
	else
	{
		/* codes: integers 0..card - 1, or false/true for a two-valued variable */
		appendStringInfo(q, "CASE WHEN (%s) IS NULL THEN %d"
						 " WHEN (%s)::pg_catalog.text OPERATOR(pg_catalog.~) '^[0-9]{1,3}$'"
						 " THEN ((%s)::pg_catalog.text)::pg_catalog.int4",
						 val, WORKLOAD_NULL, val, val);
		if (card == 2)
			appendStringInfo(q, " WHEN (%s)::pg_catalog.text OPERATOR(pg_catalog.=) 'false' THEN 0"
							 " WHEN (%s)::pg_catalog.text OPERATOR(pg_catalog.=) 'true' THEN 1",
							 val, val);
		appendStringInfo(q, " ELSE %d END", WORKLOAD_UNKNOWN);
	}
}

/*
 * The query reading every variable's code from the relation: variable i
 * from column col[i], or element i + 1 of one array column (array true).
 */
static char *
WorkloadQuery(Oid relid, const MrfModel *model, const MrfNames *names, char **col, bool array)
{
	StringInfoData q;

	initStringInfo(&q);
	appendStringInfoString(&q, "SELECT ");
	for (int i = 0; i < model->p; i++)
	{
		char	   *val;

		if (i > 0)
			appendStringInfoString(&q, ", ");
		if (array)
			val = psprintf("%s[%d]", quote_identifier(col[0]), i + 1);
		else
			val = psprintf("%s", quote_identifier(col[i]));
		AppendCodeExpr(&q, names, i, MrfModelAlphabet(model, i), val);
	}
	appendStringInfo(&q, " FROM %s",
					 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
												get_rel_name(relid)));
	return q.data;
}

/* Errors for a row's code c of variable i that is not one of the model's. */
static void
WorkloadBadCode(const MrfModel *model, const MrfNames *names, char **col, bool array,
				int i, int c)
{
	const char *column = array ? psprintf("%s[%d]", col[0], i + 1) : col[i];

	if (c == WORKLOAD_NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: column \"%s\" has a NULL, and the model has no value for NULL",
						WorkloadFn, column),
				 errhint("Filter or recode the rows (a view), or compare a model learned with nulls => 'category'.")));
	if (names->present && names->labels[i] != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("%s: column \"%s\" has a value that is not one of the model's labels",
						WorkloadFn, column),
				 errdetail("The model's variable %d has the labels of the type or declared domain it was learned from.",
						   i + 1),
				 errhint("Filter or recode the rows (a view) so that every value is a label of the model.")));
	ereport(ERROR,
			(errcode(ERRCODE_CHECK_VIOLATION),
			 errmsg("%s: column \"%s\" has a value outside the model's codes 0..%d",
					WorkloadFn, column, MrfModelAlphabet(model, i) - 1),
			 errdetail("The model has no labels for variable %d, so its values are read as integer codes.",
					   i + 1)));
}

/* Reads the relation once and counts every set's table; returns n. */
static int64
WorkloadCount(Workload *wl, const MrfModel *model, const MrfNames *names, const char *query,
			  char **col, bool array)
{
	int			p = model->p;
	int		   *card = palloc(sizeof(int) * p);
	MrfCode    *rows = palloc(sizeof(MrfCode) * (size_t) p * WORKLOAD_BATCH);
	SPIPlanPtr	plan;
	Portal		portal;
	int64		n = 0;

	for (int i = 0; i < p; i++)
		card[i] = MrfModelAlphabet(model, i);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = SPI_prepare(query, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "%s: preparing the reading query failed: %s", WorkloadFn,
			 SPI_result_code_string(SPI_result));
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	for (;;)
	{
		uint64		got;

		SPI_cursor_fetch(portal, true, WORKLOAD_BATCH);
		got = SPI_processed;
		if (got == 0)
			break;
		for (uint64 r = 0; r < got; r++)
		{
			HeapTuple	tup = SPI_tuptable->vals[r];

			for (int i = 0; i < p; i++)
			{
				bool		isnull;
				int			c = DatumGetInt32(SPI_getbinval(tup, SPI_tuptable->tupdesc, i + 1,
															&isnull));

				if (isnull || c < 0 || c >= card[i])
					WorkloadBadCode(model, names, col, array, i, isnull ? WORKLOAD_UNKNOWN : c);
				rows[r * p + i] = (MrfCode) c;
			}
		}
		for (int s = 0; s < wl->nsets; s++)
		{
			if (MrfSubsetCountAdd(rows, (int64) got, p, card, wl->way[s], wl->vars[s],
								  wl->counts + wl->offset[s]) != MRF_OK)
				elog(ERROR, "%s: a code outside its alphabet", WorkloadFn);
			if ((s & 63) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		n += (int64) got;
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();
	return n;
}

/*
 * Maps the relation's columns to the model's variables: col[i] is the
 * column of variable i (or col[0] an array column of all of them, *array).
 */
static char **
WorkloadColumns(Oid relid, const MrfModel *model, const MrfNames *names, ArrayType *columns,
				bool *array)
{
	int			p = model->p;
	char	  **col = palloc0(sizeof(char *) * p);
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	*array = false;
	if (columns == NULL)
	{
		for (int i = 0; i < p; i++)
		{
			if (!names->present || names->names[i] == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s: the model records no column name for variable %d", WorkloadFn,
								i + 1),
						 errdetail("Models learned from arrays have no column names."),
						 errhint("Give the relation's columns in columns, one per variable in the model's order, or one array column.")));
			col[i] = names->names[i];
		}
	}
	else
	{
		if (ARR_NDIM(columns) > 1)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("%s: columns must be a one-dimensional array", WorkloadFn)));
		deconstruct_array(columns, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
		for (int j = 0; j < n; j++)
			if (nulls[j])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("%s: columns must not contain NULL", WorkloadFn)));
		if (n == 1 && p > 1)
		{
			/* one array column holds every variable, as the learners' int[] rows */
			char	   *name = TextDatumGetCString(elems[0]);

			if (!type_is_array(get_atttype(relid, WorkloadColumn(relid, name))))
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("%s: one column for a model of %d variables must be an array",
								WorkloadFn, p),
						 errhint("Give one column per variable, or one array column whose element i is variable i.")));
			col[0] = name;
			*array = true;
			return col;
		}
		if (n != p)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: columns lists %d columns, but the model has %d variables", WorkloadFn,
							n, p),
					 errhint("Give one column per variable, or one array column.")));
		for (int j = 0; j < n; j++)
		{
			char	   *name = TextDatumGetCString(elems[j]);
			int			i = j;

			if (names->present && names->names[j] != NULL)
			{
				/* the model knows its columns: match by name, in any order */
				for (i = 0; i < p; i++)
					if (names->names[i] != NULL && strcmp(names->names[i], name) == 0)
						break;
				if (i == p)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("%s: column \"%s\" is not a variable of the model", WorkloadFn,
									name),
							 errdetail("The model's variables are the columns it was learned from (mrf_variables)."),
							 errhint("Rename the relation's columns in a view to the model's names.")));
			}
			if (col[i] != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s: column \"%s\" is given twice", WorkloadFn, name)));
			col[i] = name;
		}
	}
	for (int i = 0; i < p; i++)
		(void) WorkloadColumn(relid, col[i]);
	return col;
}

/*
 * The whole computation: the model's marginals, the rows' counts and each
 * set's L1 error into *l1; NULL when an argument is NULL.
 */
static Workload *
WorkloadRun(FunctionCallInfo fcinfo, MrfNames **names_out, double **l1, int64 *n_out)
{
	MrfModel   *model;
	Oid			relid;
	MrfNames   *names;
	Workload   *wl;
	int		   *ways;
	int			nways;
	char	  **col;
	bool		array;
	char	   *query;
	int64		n;
	MrfCliqueSet *set;
	double	   *logpot;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(3))
		return NULL;
	model = PG_GETARG_MRF_P(0);
	relid = PG_GETARG_OID(1);
	/* one output column a variable: PostgreSQL's target-list limit */
	if (model->p > MaxTupleAttributeNumber)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s compares models of at most %d variables, and this model has %d",
						WorkloadFn, MaxTupleAttributeNumber, model->p),
				 errdetail("It reads every variable of the model as one column of one query, and a query returns at most %d columns.",
						   MaxTupleAttributeNumber)));
	set = WorkloadCliqueFormOf(model, &logpot, WorkloadFn);
	if (get_rel_name(relid) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("%s: relation with OID %u does not exist", WorkloadFn, relid)));
	names = MrfNamesOf(model);
	ways = WorkloadWays(PG_GETARG_ARRAYTYPE_P(3), model->p, &nways);
	col = WorkloadColumns(relid, model, names, PG_ARGISNULL(2) ? NULL : PG_GETARG_ARRAYTYPE_P(2),
						  &array);
	query = WorkloadQuery(relid, model, names, col, array);
	wl = palloc0(sizeof(Workload));
	WorkloadSets(wl, ways, nways, set);
	ereport(NOTICE,
			(errmsg("%s reads relation \"%s\" directly: its result is not differentially private and is not charged to any budget",
					WorkloadFn, get_rel_name(relid)),
			 errdetail("It compares the model with the rows themselves, with the caller's right to SELECT them.")));
	/*
	 * The rows first: a role that may not SELECT them is refused (42501)
	 * before the model's marginals, which crafted model text can make cost
	 * minutes of CPU.
	 */
	n = WorkloadCount(wl, model, names, query, col, array);
	WorkloadModelMarginals(wl, set, logpot, names);
	/* finite model text can still overflow (weights near 1e308): no NaN passes */
	for (int64 c = 0; c < wl->offset[wl->nsets]; c++)
		if (!isfinite(wl->marg[c]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s: the model's marginals are not finite numbers", WorkloadFn),
					 errdetail("Its parameters are too large for exact inference in double precision."),
					 errhint("Compare a model with parameters of moderate size.")));
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: relation \"%s\" has no rows to compare with", WorkloadFn,
						get_rel_name(relid))));
	*l1 = palloc(sizeof(double) * (wl->nsets + 1));
	for (int s = 0; s < wl->nsets; s++)
		(*l1)[s] = MrfMarginalL1(wl->marg + wl->offset[s], wl->counts + wl->offset[s], n,
								 wl->offset[s + 1] - wl->offset[s]);
	*names_out = names;
	*n_out = n;
	return wl;
}

PG_FUNCTION_INFO_V1(mrf_marginal_errors);
/* One row (way, variables, names, l1) per set of the workload. */
Datum
mrf_marginal_errors(PG_FUNCTION_ARGS)
{
	MrfNames   *names;
	double	   *l1;
	int64		n;
	Workload   *wl;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	wl = WorkloadRun(fcinfo, &names, &l1, &n);
	if (wl == NULL)
		return (Datum) 0;
	for (int s = 0; s < wl->nsets; s++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};
		int			w = wl->way[s];
		Datum	   *v = palloc(sizeof(Datum) * w);
		Datum	   *nm = palloc(sizeof(Datum) * w);
		bool	   *nmnull = palloc(sizeof(bool) * w);
		int			dims[1] = {w};
		int			lbs[1] = {1};

		for (int j = 0; j < w; j++)
		{
			int			i = wl->vars[s][j];

			v[j] = Int32GetDatum(i + 1);
			nmnull[j] = !names->present || names->names[i] == NULL;
			nm[j] = nmnull[j] ? (Datum) 0 : CStringGetTextDatum(names->names[i]);
		}
		values[0] = Int32GetDatum(w);
		values[1] = PointerGetDatum(construct_array(v, w, INT4OID, sizeof(int32), true,
													TYPALIGN_INT));
		values[2] = PointerGetDatum(construct_md_array(nm, nmnull, 1, dims, lbs, TEXTOID, -1,
													   false, TYPALIGN_INT));
		values[3] = Float8GetDatum(l1[s]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		pfree(v);
		pfree(nm);
		pfree(nmnull);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mrf_marginal_error);
/* One row (way, marginals, mean_l1, max_l1) per way asked. */
Datum
mrf_marginal_error(PG_FUNCTION_ARGS)
{
	MrfNames   *names;
	double	   *l1;
	int64		n;
	Workload   *wl;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	wl = WorkloadRun(fcinfo, &names, &l1, &n);
	if (wl == NULL)
		return (Datum) 0;
	for (int s = 0; s < wl->nsets;)
	{
		int			w = wl->way[s];
		int			count = 0;
		double		sum = 0.0;
		double		mx = 0.0;
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		for (; s < wl->nsets && wl->way[s] == w; s++, count++)
		{
			sum += l1[s];
			if (l1[s] > mx)
				mx = l1[s];
		}
		values[0] = Int32GetDatum(w);
		values[1] = Int32GetDatum(count);
		values[2] = Float8GetDatum(sum / count);
		values[3] = Float8GetDatum(mx);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* prod card[vars[i]] as a double (for a message about a table too large to count in int64). */
static double
VarsCellsDouble(const int *card, int n, const int *vars)
{
	double		c = 1.0;

	for (int j = 0; j < n; j++)
		c *= card[vars[j]];
	return c;
}

/* The variable that a name of columns stands for, 0-based; errors for an unknown one. */
static int
MarginalVariable(const MrfModel *model, const MrfNames *names, const char *name)
{
	char	   *end;
	long		i;

	for (int v = 0; v < model->p; v++)
		if (names->present && names->names[v] != NULL && strcmp(names->names[v], name) == 0)
			return v;
	/* a variable without a name (a model learned from arrays): its 1-based number */
	i = strtol(name, &end, 10);
	if (*name != '\0' && *end == '\0' && i >= 1 && i <= model->p &&
		(!names->present || names->names[i - 1] == NULL))
		return (int) i - 1;
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_COLUMN),
			 errmsg("mrf_marginal: \"%s\" is not a variable of the model", name),
			 errdetail("The model's variables are the columns it was learned from, or their numbers 1..%d when it has no names.",
					   model->p),
			 errhint("mrf_variables(model) lists them.")));
	pg_unreachable();
}

/*
 * The model's exact marginal over the variables named in columns: one row
 * (clique, assignment, probability) per cell, the variables 1-based and
 * ascending, as mrf_marginals gives a clique's.
 */
static Datum
MarginalCodes(PG_FUNCTION_ARGS)
{
	MrfModel   *model = PG_GETARG_MRF_P(0);
	ArrayType  *columns = PG_GETARG_ARRAYTYPE_P(1);
	ReturnSetInfo *rsinfo;
	MrfNames   *names;
	MrfCliqueSet *set;
	double	   *logpot;
	ModelMarginals mm;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int		   *vars;
	bool	   *seen;
	int64		cells;
	double	   *out;
	int			digits[64];
	Datum		vd[64];
	Datum		clique;

	if (ARR_NDIM(columns) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("mrf_marginal: columns must be a one-dimensional array")));
	deconstruct_array(columns, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mrf_marginal: columns must name at least one variable")));
	set = WorkloadCliqueFormOf(model, &logpot, "mrf_marginal");
	names = MrfNamesOf(model);
	vars = palloc(sizeof(int) * n);
	seen = palloc0(sizeof(bool) * model->p);
	for (int j = 0; j < n; j++)
	{
		char	   *name;
		int			v;

		if (nulls[j])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("mrf_marginal: columns must not contain NULL")));
		name = TextDatumGetCString(elems[j]);
		v = MarginalVariable(model, names, name);
		if (seen[v])
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_COLUMN),
					 errmsg("mrf_marginal: variable \"%s\" is named twice", name),
					 errhint("Name each variable once.")));
		seen[v] = true;
	}
	/* ascending: the layout of a clique's table */
	n = 0;
	for (int v = 0; v < model->p; v++)
		if (seen[v])
			vars[n++] = v;
	cells = MrfVarsCells(set->card, n, vars, PG_INT64_MAX / 4);
	if (n > 64 || cells < 0 ||
		(double) cells * (sizeof(double) * 2) > (double) MrfMaxLearnerMemory * 1024.0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("mrf_marginal: the marginal of (%s) has too many cells", SetText(names, n, vars)),
				 errdetail("Its table would have %.0f cells, and mrfdp.max_learner_memory (%d kB) allows %lld.",
						   VarsCellsDouble(set->card, n, vars),
						   MrfMaxLearnerMemory,
						   (long long) ((double) MrfMaxLearnerMemory * 1024.0 / (2.0 * sizeof(double)))),
				 errhint("Ask for fewer or smaller variables, or raise mrfdp.max_learner_memory.")));
	ModelMarginalsBegin(&mm, set, logpot, "mrf_marginal");
	out = palloc_extended(sizeof(double) * (cells + 1), MCXT_ALLOC_HUGE);
	ModelMarginalOf(&mm, n, vars, out, names);
	if (mm.bp != NULL)
		MrfBpFree(mm.bp);
	for (int64 x = 0; x < cells; x++)
		if (!isfinite(out[x]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("mrf_marginal: the model's marginals are not finite numbers"),
					 errdetail("Its parameters are too large for exact inference in double precision.")));

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	for (int j = 0; j < n; j++)
	{
		vd[j] = Int32GetDatum(vars[j] + 1);
		digits[j] = 0;
	}
	clique = PointerGetDatum(construct_array(vd, n, INT4OID, sizeof(int32), true, TYPALIGN_INT));
	for (int64 x = 0; x < cells; x++)
	{
		Datum		row[3];
		bool		rnull[3] = {false, false, false};

		for (int j = 0; j < n; j++)
			vd[j] = Int32GetDatum(digits[j]);
		row[0] = clique;
		row[1] = PointerGetDatum(construct_array(vd, n, INT4OID, sizeof(int32), true, TYPALIGN_INT));
		row[2] = Float8GetDatum(out[x]);
		MrfPutRow(rsinfo, row, rnull);
		pfree(DatumGetPointer(row[1]));
		for (int j = n - 1; j >= 0; j--)
		{
			if (++digits[j] < set->card[vars[j]])
				break;
			digits[j] = 0;
		}
		if ((x & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mrf_marginal);
/* The exact marginal of any set of a model's variables, with names and labels. */
Datum
mrf_marginal(PG_FUNCTION_ARGS)
{
	return MrfNamedRows(fcinfo, MarginalCodes, MRF_NAMED_TABLE);
}
