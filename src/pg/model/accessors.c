/*
 * model/accessors.c - set-returning functions that read a model as rows, and
 * sampling from a model; each dispatches to the model's kind.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"

#include "pg/driver/bins.h"
#include "pg/model/model.h"
#include "pg/model/names.h"
#include "pg/driver/run.h"

/* Errors for an accessor the model's kind does not have. */
static void
pg_attribute_noreturn()
NotForKind(const MrfModel *model, const char *fn)
{
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("%s does not apply to models of kind %s", fn, MrfKindName(model->kind))));
}

/* Edges (i, j, weight) with |weight| > threshold, 1-based. */
static Datum
EdgeCodes(PG_FUNCTION_ARGS)
{
	MrfModel   *model = PG_GETARG_MRF_P(0);
	double		threshold = PG_GETARG_FLOAT8(1);
	const MrfKindOps *ops = MrfKindOpsOf(model);

	if (ops->edges == NULL)
		NotForKind(model, "mrf_edges");
	if (isnan(threshold) || threshold < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("threshold must be a non-negative number")));
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	ops->edges(model, threshold, (ReturnSetInfo *) fcinfo->resultinfo);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mrf_edges);
/* Edges (i, j, weight, name_i, name_j). */
Datum
mrf_edges(PG_FUNCTION_ARGS)
{
	return MrfNamedRows(fcinfo, EdgeCodes, MRF_NAMED_EDGE);
}

/* External fields (i, a, theta). */
static Datum
FieldCodes(PG_FUNCTION_ARGS)
{
	MrfModel   *model = PG_GETARG_MRF_P(0);
	const MrfKindOps *ops = MrfKindOpsOf(model);

	if (ops->fields == NULL)
		NotForKind(model, "mrf_fields");
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	ops->fields(model, (ReturnSetInfo *) fcinfo->resultinfo);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(mrf_fields);
/* External fields (i, a, theta, name, label). */
Datum
mrf_fields(PG_FUNCTION_ARGS)
{
	return MrfNamedRows(fcinfo, FieldCodes, MRF_NAMED_FIELD);
}

/* Most samples one mrf_sample call may draw. */
#define MRF_MAX_SAMPLES 100000000

/* Bytes a junction-tree cell costs the exact sampler (engine and sampler tables). */
#define SAMPLE_TREE_BYTES_PER_CELL 64

/* Bytes a row costs allocation beyond its values (MrfBpAllocateBytes' per-row part). */
#define SAMPLE_ALLOCATE_BYTES_PER_ROW 16

/* Bytes of n rows of p values of a sampler's output (and allocation's row tables). */
static double
SampleRowBytes(int64 n, int p, bool allocate)
{
	return (double) n * ((double) p * (sizeof(int32) + 1) +
						 (allocate ? SAMPLE_ALLOCATE_BYTES_PER_ROW : 0));
}

/* Variable j of a model for a message: its quoted name, or its 1-based position. */
static char *
VariableText(const MrfModel *model, int j)
{
	MrfNames   *names = MrfNamesOf(model);

	if (names->present && names->names[j] != NULL)
		return psprintf("variable \"%s\"", names->names[j]);
	return psprintf("variable %d", j + 1);
}

/*
 * The chain sampler's report, as a NOTICE (the rows are all a caller gets:
 * there is no model metadata to write at sampling time).  Agreeing chains
 * get a NOTICE that says which sampler ran and its R-hat; chains that
 * disagree get one that says the rows may not represent the model, where,
 * and what to do.
 */
static void
ReportChains(const char *fn, const MrfModel *model, const MrfChainReport *report,
			 int burn_in, int thin, int64 max_cells)
{
	char	   *how = psprintf("%s drew the rows by parallel tempering: %d chains of %d temperature%s down to inverse temperature %.3g, burn_in %d rounds, thin %d",
							   fn, report->chains, report->temperatures,
							   report->temperatures == 1 ? "" : "s", report->beta_min,
							   burn_in, thin);
	char	   *why = psprintf("The model has no junction tree within %lld cells, so it cannot be sampled exactly.",
							   (long long) max_cells);
	char	   *swaps = isnan(report->swap_rate) ? "" :
		psprintf(" The lowest swap acceptance between neighbouring temperatures is %.2f.",
				 report->swap_rate);

	if (isnan(report->rhat))
		ereport(NOTICE,
				(errmsg("%s", how),
				 errdetail("%s Too few rows for a split R-hat over the chains: at thin %d it needs at least %d rows (%d rounds in each half of every chain).%s",
						   why, thin,
						   report->chains * ((2 * MRF_SAMPLE_RHAT_MIN_DRAWS + thin - 1) / thin),
						   MRF_SAMPLE_RHAT_MIN_DRAWS, swaps)));
	else if (report->rhat <= MRF_SAMPLE_RHAT_LIMIT)
		ereport(NOTICE,
				(errmsg("%s", how),
				 errdetail("%s The chains agree: the largest split R-hat over the chains is %.3f (%s).%s",
						   why, report->rhat, VariableText(model, report->rhat_variable), swaps)));
	else
	{
		const char *label = NULL;
		MrfNames   *names = MrfNamesOf(model);
		bool		binary = model->kind == MRF_KIND_ISING || model->kind == MRF_KIND_TWISE;

		if (!binary)
			label = MrfNamesLabel(names, model->kind, report->rhat_variable, report->rhat_value);
		ereport(NOTICE,
				(errmsg("the rows of %s may not represent the model: its chains disagree on %s (split R-hat %.2f, above %.2f)",
						fn, VariableText(model, report->rhat_variable), report->rhat,
						MRF_SAMPLE_RHAT_LIMIT),
				 binary ? errdetail("%s. %s The chains' shares of its values differ more than their draws vary within each chain: they sit in different modes.%s",
									how, why, swaps) :
				 errdetail("%s. %s The chains' shares of its value %s differ more than their draws vary within each chain: they sit in different modes.%s",
						   how, why,
						   label != NULL ? quote_literal_cstr(label) : psprintf("%d", report->rhat_value),
						   swaps),
				 errhint("Draw again with a larger burn_in and thin (ten times as large, say). If the swap acceptance is near 0, the temperatures do not connect the modes and longer chains help only slowly; a model learned with a smaller lambda has weaker couplings.")));
	}
}

/*
 * n rows of a model into out by the sampler sample.h chooses: exact
 * (enumeration, or forward sampling through a junction tree that fits what
 * mrfdp.max_learner_memory leaves beside the rows), else the chain sampler
 * with burn_in and thin.  Rows from the chain sampler get its report as a
 * NOTICE (ReportChains): only they depend on burn_in and thin, and only
 * they can miss modes.  The exact samplers say so at DEBUG1.  With
 * allocate, counts allocated through the junction tree (MrfBpAllocate), or
 * 0A000 when the model has none that fits.
 */
static void
SampleRows(const char *fn, MrfModel *model, const MrfKindOps *ops, int64 n, int burn_in,
		   int thin, bool allocate, MrfRun *run, int32 *out)
{
	MrfSampleOptions opt;
	MrfChainReport report;
	MrfSampler	used = MRF_SAMPLER_CHAINS;
	double		left = (double) MrfMaxLearnerMemory * 1024.0 -
		SampleRowBytes(n, model->p, allocate);

	memset(&opt, 0, sizeof(opt));
	memset(&report, 0, sizeof(report));
	opt.burn_in = burn_in;
	opt.thin = thin;
	opt.allocate = allocate ? 1 : 0;
	opt.max_tree_cells = (int64) Min((double) MRF_SAMPLE_TREE_MAX_CELLS,
									 Max(1.0, left / SAMPLE_TREE_BYTES_PER_CELL));
	opt.report = &report;
	MrfRunCheck(run, ops->sample(model, n, &opt, &run->rng, &run->env, out, &used));
	if (used == MRF_SAMPLER_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot allocate rows of this %s model", fn, MrfKindName(model->kind)),
				 model->kind == MRF_KIND_TWISE ?
				 errdetail("Allocation divides counts through a junction tree, and t-wise models have no clique form.") :
				 errdetail("Allocation divides counts through a junction tree, and the model has none within %lld cells.",
						   (long long) opt.max_tree_cells),
				 errhint("Use method => 'sample' (independent draws, or chains for such a model).")));
	if (n == 0)
		return;
	if (used == MRF_SAMPLER_CHAINS)
		ReportChains(fn, model, &report, burn_in, thin, opt.max_tree_cells);
	else
		ereport(DEBUG1,
				(errmsg("%s drew the rows by the sampler \"%s\"", fn, MrfSamplerName(used))));
}

PG_FUNCTION_INFO_V1(mrf_sample);
/* Samples from a model (SampleRows). */
Datum
mrf_sample(PG_FUNCTION_ARGS)
{
	MrfModel   *model;
	const MrfKindOps *ops;
	int32		n;
	int32		burn_in;
	int32		thin;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MrfRun		run;
	int32	   *out;
	Datum	   *elems;
	int			p;
	MemoryContext rowcxt;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("mrf_sample needs a model, n, burn_in and thin")));
	model = PG_GETARG_MRF_P(0);
	ops = MrfKindOpsOf(model);
	n = PG_GETARG_INT32(1);
	burn_in = PG_GETARG_INT32(2);
	thin = PG_GETARG_INT32(3);
	if (ops->sample == NULL)
		NotForKind(model, "mrf_sample");
	if (n < 0 || n > MRF_MAX_SAMPLES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be between 0 and %d", MRF_MAX_SAMPLES)));
	if (burn_in < 0 || thin < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("burn_in must be at least 0 and thin at least 1")));

	p = model->p;
	MrfCheckMemory("mrf_sample", SampleRowBytes(n, p, false));
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);

	MrfRunBegin(&run, "mrf_sample");
	/* Sampling from a released model is post-processing: any seed is fine. */
	if (!PG_ARGISNULL(4))
		MrfRngInitSeeded(&run.rng, (uint64) PG_GETARG_INT64(4));

	out = MemoryContextAllocHuge(run.mcxt, sizeof(int32) * ((Size) n * p + 1));
	SampleRows("mrf_sample", model, ops, n, burn_in, thin, false, &run, out);

	elems = palloc(sizeof(Datum) * p);

	/*
	 * Each row's array goes with it (the store keeps a copy: without the
	 * reset, 10^8 rows kept gigabytes of arrays), and a cancel lands while
	 * the store fills (writing 10^8 rows takes tens of seconds).
	 */
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "mrfdp sampled row",
								   ALLOCSET_DEFAULT_SIZES);
	for (int64 m = 0; m < n; m++)
	{
		MemoryContext old = MemoryContextSwitchTo(rowcxt);
		Datum		value;
		bool		isnull = false;

		for (int j = 0; j < p; j++)
			elems[j] = Int32GetDatum(out[m * p + j]);
		value = PointerGetDatum(construct_array(elems, p, INT4OID, sizeof(int32), true, TYPALIGN_INT));
		MemoryContextSwitchTo(old);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
		MemoryContextReset(rowcxt);
		if ((m & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	MemoryContextDelete(rowcxt);
	MrfRunEnd(&run);
	return (Datum) 0;
}

/* The value of code `code` of variable j as a Datum of a column's type, or NULL. */
static Datum
SynthValue(const MrfModel *model, const MrfNames *names, int j, int32 code, Oid typid,
		   FmgrInfo *input, Oid ioparam, int32 typmod, MrfRng *rng, bool *isnull)
{
	const char *label = MrfNamesLabel(names, model->kind, j, code);
	Oid			base = getBaseType(typid);
	bool		binary = model->kind == MRF_KIND_ISING || model->kind == MRF_KIND_TWISE;

	/*
	 * Every value, NULL included, goes through the column type's input
	 * function: for a domain that is domain_in, which enforces its NOT NULL
	 * and CHECK constraints (a value built here directly would bypass them
	 * and land in a table of that domain unchecked).
	 */
	if (names->present && names->labels[j] != NULL)
	{
		/* a labelled value; a NULL label is the 'category' of missing values */
		*isnull = (label == NULL);
		/* a bin of a column of a binnable type: a value of that type within the bin */
		if (label != NULL && names->nedges[j] > 0 && MrfBinScaleOf(base) != MRF_BIN_NONE)
			return InputFunctionCall(input, MrfBinValueText(base, names->edges[j],
															names->nedges[j], code, rng),
									 ioparam, typmod);
		return InputFunctionCall(input, (char *) label, ioparam, typmod);
	}
	*isnull = false;
	/* codes only: booleans from the coding, integers as the codes */
	if (base == BOOLOID)
		return InputFunctionCall(input, (char *) ((binary ? code > 0 : code != 0) ? "true" : "false"),
								 ioparam, typmod);
	return InputFunctionCall(input, psprintf("%d", code), ioparam, typmod);
}

PG_FUNCTION_INFO_V1(mrf_synthesize);
/*
 * n synthetic rows of the row type of the third argument (e.g. NULL::votes,
 * the source relation's row type): variable j goes to the j-th column, its
 * code turned into the column's type through the model's labels (booleans,
 * enum labels, declared values, NULL for a 'category' of missing values).
 * Sampling from a released model is post-processing: no budget.
 */
Datum
mrf_synthesize(PG_FUNCTION_ARGS)
{
	MrfModel   *model;
	const MrfKindOps *ops;
	int32		n;
	Oid			rowtype = get_fn_expr_argtype(fcinfo->flinfo, 2);
	TupleDesc	desc;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MrfNames   *names;
	MrfRun		run;
	int32	   *out;
	int		   *column;
	FmgrInfo   *inputs;
	Oid		   *ioparams;
	Datum	   *values;
	bool	   *nulls;
	int			p;
	int			width = 0;
	bool		allocate = false;
	MemoryContext rowcxt;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(4) || PG_ARGISNULL(5))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("mrf_synthesize needs a model, n, burn_in and thin")));
	if (PG_GETARG_INT32(4) < 0 || PG_GETARG_INT32(5) < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("burn_in must be at least 0 and thin at least 1")));
	/* method, read only when the SQL definition passes it */
	if (PG_NARGS() > 6)
	{
		const char *method;

		if (PG_ARGISNULL(6))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("method must be 'sample' or 'allocate', not NULL")));
		method = text_to_cstring(PG_GETARG_TEXT_PP(6));
		if (strcmp(method, "allocate") == 0)
			allocate = true;
		else if (strcmp(method, "sample") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("method must be 'sample' or 'allocate', not '%s'", method),
					 errhint("'sample' draws independent rows; 'allocate' divides n rows among the model's cells so that its marginals match up to rounding.")));
	}
	model = PG_GETARG_MRF_P(0);
	ops = MrfKindOpsOf(model);
	n = PG_GETARG_INT32(1);
	if (ops->sample == NULL)
		NotForKind(model, "mrf_synthesize");
	if (n < 0 || n > MRF_MAX_SAMPLES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be between 0 and %d", MRF_MAX_SAMPLES)));
	/* a domain over a row type: the rows would be the base type's, unchecked (and no SRF row) */
	if (!OidIsValid(rowtype) || !type_is_rowtype(rowtype) || getBaseType(rowtype) != rowtype ||
		rowtype == RECORDOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("mrf_synthesize needs a row type as its third argument"),
				 errhint("Pass NULL::a_table (the source relation's row type) or NULL::a_composite_type.")));
	p = model->p;
	names = MrfNamesOf(model);
	desc = lookup_rowtype_tupdesc_copy(getBaseType(rowtype), -1);
	column = palloc(sizeof(int) * p);
	inputs = palloc0(sizeof(FmgrInfo) * desc->natts);
	ioparams = palloc0(sizeof(Oid) * desc->natts);
	for (int c = 0; c < desc->natts; c++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, c);
		Oid			infunc;

		if (att->attisdropped)
			continue;
		if (width < p)
			column[width] = c;
		width++;
		getTypeInputInfo(att->atttypid, &infunc, &ioparams[c]);
		fmgr_info(infunc, &inputs[c]);
	}
	if (width != p)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("row type %s has %d columns and the model %d variables",
						format_type_be(rowtype), width, p)));
	for (int j = 0; j < p; j++)
	{
		const char *name = names->present ? names->names[j] : NULL;
		const char *att = NameStr(TupleDescAttr(desc, column[j])->attname);

		if (name != NULL && strcmp(name, att) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column %d of row type %s is \"%s\", but the model's variable %d is \"%s\"",
							column[j] + 1, format_type_be(rowtype), att, j + 1, name),
					 errhint("Pass the row type of the relation the model was learned from.")));
	}

	MrfCheckMemory("mrf_synthesize", SampleRowBytes(n, p, allocate));
	InitMaterializedSRF(fcinfo, 0);
	MrfRunBegin(&run, "mrf_synthesize");
	if (!PG_ARGISNULL(3))
		MrfRngInitSeeded(&run.rng, (uint64) PG_GETARG_INT64(3));
	out = MemoryContextAllocHuge(run.mcxt, sizeof(int32) * ((Size) n * p + 1));
	SampleRows("mrf_synthesize", model, ops, n, PG_GETARG_INT32(4), PG_GETARG_INT32(5), allocate,
			   &run, out);
	values = palloc0(sizeof(Datum) * desc->natts);
	nulls = palloc0(sizeof(bool) * desc->natts);
	for (int c = 0; c < desc->natts; c++)
		nulls[c] = true;
	/* what one row's input functions allocate goes with it (the store keeps a copy) */
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "mrfdp synthetic row",
								   ALLOCSET_DEFAULT_SIZES);
	for (int64 m = 0; m < n; m++)
	{
		MemoryContext old = MemoryContextSwitchTo(rowcxt);

		for (int j = 0; j < p; j++)
		{
			int			c = column[j];

			values[c] = SynthValue(model, names, j, out[m * p + j],
								   TupleDescAttr(desc, c)->atttypid, &inputs[c], ioparams[c],
								   TupleDescAttr(desc, c)->atttypmod, &run.rng, &nulls[c]);
		}
		MemoryContextSwitchTo(old);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		MemoryContextReset(rowcxt);
		if ((m & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	MemoryContextDelete(rowcxt);
	MrfRunEnd(&run);
	return (Datum) 0;
}
