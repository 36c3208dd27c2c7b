/*
 * protected/learn_from.c - the protected path: mrf_learn_<kind>_from(relation, column,
 * <options>) lets a role that was granted learning, but may not SELECT the
 * relation, learn from it.  They check the grant of the role that called
 * them, plan the release from the options and the schema, and commit its
 * charge (in a transaction of its own, through the charge worker) before
 * anything of the relation is read: a count is a read too.  Only then is
 * the relation counted and read, n settled in the ledger, the learner run
 * and the model returned.
 *
 * The functions run as their caller (SECURITY INVOKER with a fixed
 * search_path).  Only what reads the relation runs with other rights: the
 * relation owner's, in a security-restricted operation with search_path =
 * pg_catalog, pg_temp, as REFRESH MATERIALIZED VIEW does (protected/owner.c).
 * A SECURITY DEFINER function could not tell who called it (a definer's
 * wrapper would spend another role's grant) and would run any code the
 * relation executes (an owner's functions, an FDW) with the extension
 * owner's rights.
 *
 * Charging before reading makes every observation of the read cost a
 * release (privacy.md 9.4): a call over budget is refused before its first
 * row is read, and a read that is cancelled, times out, fails or is
 * refused for n (memory, too few rows) was paid for.  The charge depends on
 * the options alone (driver/plan.h), so it is the same whatever the read
 * finds; what depends on n (the ledger's rows_read) is settled after the
 * count.  It also makes every observation of a learner's running time cost
 * a release (the stable mode's block solvers stop at a tolerance on the raw
 * rows).  It does not make that time private; the threat model (docs/ledger.md)
 * says so.
 *
 * Privacy unit: one row of the relation.  Nothing here may raise an error
 * that depends on the data: p comes from the column's type or the caller,
 * and a row that cannot be read (NULL, wrong length or shape, value outside
 * the alphabet, a value of another type) is replaced by a fixed row of -1s,
 * which is a function of that row alone, so replace-one neighbours stay
 * neighbours.  Every release carries a noisy count of those rows (its cost
 * charged on top of the learner's: MrfSubstitutedCount* in privacy.c), and
 * a NOTICE, sent after the charge, says when it exceeds 1% of n.
 *
 * Sources whose read could fail on their data are refused from the schema
 * before anything is charged or read (MrfRefuseFallibleSources: foreign
 * tables, and relations that force row-level security on their owner):
 * whether such a read fails is a deterministic function of the data, which
 * no charge would make private.  What is left can fail only for reasons
 * outside the data's control (corruption, the owner's own privileges); the
 * read runs in a subtransaction and any error there is withheld (the
 * charge is already committed), and one fixed error says that the relation
 * could not be read.
 *
 * The call is the aggregate driver's shape: check the grant, plan, choose
 * the routes that may serve (public values), charge, count, settle, plan
 * with n, run, annotate.  Routes are protected/route.h's descriptors: the
 * local read here, the Citus ones in citus/from_routes.c.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "core/noise.h"
#include "core/privacy.h"
#include "core/rows.h"
#include "pg/citus/cluster.h"
#include "pg/driver/aggregates.h"
#include "pg/driver/learners.h"
#include "pg/driver/plan.h"
#include "pg/driver/read_binary.h"
#include "pg/driver/run.h"
#include "pg/ledger/catalog.h"
#include "pg/ledger/ledger.h"
#include "pg/ledger/worker.h"
#include "pg/model/model.h"
#include "pg/model/names.h"
#include "pg/protected/owner.h"
#include "pg/protected/route.h"
#include "pg/sqlapi/options.h"

/*
 * Builds the options document from the named arguments after (relation,
 * column); variables and columns, which say what is read rather than how it
 * is learned, are returned apart.
 */
static Jsonb *
OptionsFromArguments(FunctionCallInfo fcinfo, int32 *variables, ArrayType **columns)
{
	HeapTuple	proctup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fcinfo->flinfo->fn_oid));
	Oid		   *argtypes;
	char	  **argnames;
	char	   *argmodes;
	int			nargs;
	const char **names;
	Datum	   *values;
	bool	   *nulls;
	int			n = 0;

	if (!HeapTupleIsValid(proctup))
		elog(ERROR, "cache lookup failed for function %u", fcinfo->flinfo->fn_oid);
	nargs = get_func_arg_info(proctup, &argtypes, &argnames, &argmodes);
	ReleaseSysCache(proctup);
	if (argnames == NULL || nargs != PG_NARGS())
		elog(ERROR, "protected learner functions need named parameters");

	names = palloc(sizeof(char *) * nargs);
	values = palloc(sizeof(Datum) * nargs);
	nulls = palloc(sizeof(bool) * nargs);
	*variables = -1;
	*columns = NULL;
	for (int i = 2; i < nargs; i++)
	{
		if (strcmp(argnames[i], "variables") == 0)
		{
			if (!PG_ARGISNULL(i))
				*variables = PG_GETARG_INT32(i);
			continue;
		}
		if (strcmp(argnames[i], "columns") == 0)
		{
			/* not a learner option: which of the relation's columns are read */
			if (!PG_ARGISNULL(i))
				*columns = PG_GETARG_ARRAYTYPE_P(i);
			continue;
		}
		names[n] = argnames[i];
		values[n] = PG_GETARG_DATUM(i);
		nulls[n] = PG_ARGISNULL(i);
		n++;
	}
	return MrfOptionsBuild(n, names, values, nulls);
}

/*
 * An alias for the relation that no column of it is named: an unqualified
 * name in the select list resolves to a column first, so "SELECT t FROM rel
 * AS t" would read a column named t as if it were the row.
 */
static char *
RowAlias(Oid relid)
{
	char	   *alias = pstrdup("mrfdp_row");

	for (int i = 1; get_attnum(relid, alias) != InvalidAttrNumber; i++)
		alias = psprintf("mrfdp_row_%d", i);
	return alias;
}

/*
 * The whole row of a Citus table, built from its columns as a value of the
 * table's own row type: a shard Citus reads on this node (a reference
 * table's replica, a Citus local table, the coordinator's shards) yields
 * rows of the shard's row type, another type, which the lenient reader
 * would count as unreadable (every row substituted).
 */
static char *
CitusWholeRow(Oid relid, const char *alias)
{
	StringInfoData buf;
	TupleDesc	desc = lookup_rowtype_tupdesc(get_rel_type_id(relid), -1);
	bool		first = true;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "ROW(");
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		/* dropped columns: the cast to the row type fills them with NULL */
		if (att->attisdropped)
			continue;
		appendStringInfo(&buf, "%s%s.%s", first ? "" : ", ", quote_identifier(alias),
						 quote_identifier(NameStr(att->attname)));
		first = false;
	}
	ReleaseTupleDesc(desc);
	appendStringInfo(&buf, ")::%s",
					 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
												get_rel_name(relid)));
	return buf.data;
}

/*
 * Option columns: the read selects the columns alone ("<alias>.a, <alias>.b"),
 * so no other column of the relation is read; each row's record is formed
 * from them (MrfOwnerReadRows).  On Citus the gathered read ships only these.
 */
static char *
ColumnList(TupleDesc row, const char *alias)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < row->natts; i++)
		appendStringInfo(&buf, "%s%s.%s", i > 0 ? ", " : "", quote_identifier(alias),
						 quote_identifier(NameStr(TupleDescAttr(row, i)->attname)));
	return buf.data;
}

/*
 * Option columns: the record type of the named columns (MrfColumnsRowType),
 * from the schema, before the charge; *attnums gets their attribute numbers.
 */
static TupleDesc
ColumnsRow(MrfFromCall *fc, const char *column, ArrayType *columns, AttrNumber **attnums)
{
	Datum	   *elems;
	bool	   *elemnulls;
	int			n;
	const char **names;

	if (column != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s takes a column_name or option columns, not both", fc->fname),
				 errhint("Pass NULL as column_name with columns => ARRAY[...].")));
	if (ARR_NDIM(columns) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s: option columns is a one-dimensional array of column names", fc->fname)));
	deconstruct_array(columns, TEXTOID, -1, false, TYPALIGN_INT, &elems, &elemnulls, &n);
	names = palloc(sizeof(char *) * Max(n, 1));
	for (int i = 0; i < n; i++)
		names[i] = elemnulls[i] ? NULL : TextDatumGetCString(elems[i]);
	*attnums = palloc(sizeof(AttrNumber) * Max(n, 1));
	return MrfColumnsRowType(fc->relid, names, n, *attnums, fc->fname);
}

/*
 * The hint of the substituted-rows notice, for the rows' form: rows of
 * columns have no variables => or -1/+1 coding to check, but NULLs (option
 * nulls) and values outside their column's alphabet.
 */
static int
SubstitutedHint(const MrfRowsState *state)
{
	if (state->format == MRF_ROWS_BITS && state->reader.form == MRF_INPUT_RECORD)
		return errhint("Check NULLs: a row of boolean columns holding a NULL cannot be read (the k-ary learners, e.g. mrf_learn_pairwise_from, read NULLs with option nulls).");
	if (state->format != MRF_ROWS_BITS && state->kreader.form == MRF_KARY_RECORD)
		return errhint("Check NULLs (option nulls => 'category', or a value, reads them) and values outside their column's alphabet (an enum's labels, the values of option domains or of a CHECK constraint, a NaN outside every bin).");
	return errhint("Check variables => (every row must have exactly that many values), NULLs, and values outside the alphabet (-1/+1 or booleans; 0 .. k - 1 for k-ary learners).");
}

/*
 * The noisy count of substituted rows (privacy.c), released with the model:
 * a discrete Gaussian for zCDP learners, a discrete Laplace otherwise, at
 * the share of the learner's budget charged for it.  Drawn after the charge
 * and after learning, from a generator of its own, so the learner's draws
 * (and its model under mrfdp.test_seed) are those of the aggregate path.
 * Returns false when the share is too small for the samplers (nothing is
 * released; the share was charged anyway); *meta gets the JSON member.
 */
static bool
NoisySubstitutedCount(const MrfCharge *learner_charge, int64 substituted, int64 n,
					  const char *learner, int64 *noisy, double *sd, StringInfo meta)
{
	bool		zcdp = learner_charge->notion == MRF_NOTION_ZCDP;
	double		share = MrfSubstitutedCountShare(zcdp ? learner_charge->rho : learner_charge->epsilon);
	uint64_t	num;
	uint64_t	den;
	MrfRun		run;
	int64_t		z;

	if ((zcdp ? MrfSubstitutedCountGaussian(share, &num, &den)
		 : MrfSubstitutedCountLaplace(share, &num, &den)) != 0)
	{
		appendStringInfo(meta, "{\"noisy_count\": null, \"mechanism\": \"none\", \"%s\": %s, "
						 "\"reason\": \"budget too small for the count's noise\"}",
						 zcdp ? "rho" : "epsilon", MrfDoubleText(share));
		return false;
	}
	MrfRunBegin(&run, learner);
	z = zcdp ? MrfRngDiscreteGaussian(&run.rng, num, den) : MrfRngDiscreteLaplace(&run.rng, num, den);
	MrfRunEnd(&run);
	if (z == MRF_NOISE_INVALID)
		elog(ERROR, "invalid noise parameters for the count of substituted rows");
	/* clamping to [0, n] is post-processing (n is public) */
	*noisy = Max(0, Min(n, substituted + z));
	/* the noise's standard deviation (the discrete Laplace's, about sqrt(2) t) */
	*sd = zcdp ? sqrt((double) num / (double) den) : sqrt(2.0) * (double) num / (double) den;
	appendStringInfo(meta, "{\"noisy_count\": " INT64_FORMAT ", \"mechanism\": \"%s\", \"%s\": %s, \"%s\": %s}",
					 *noisy, zcdp ? "discrete gaussian" : "discrete laplace",
					 zcdp ? "rho" : "epsilon", MrfDoubleText(share),
					 zcdp ? "variance" : "scale", MrfDoubleText((double) num / (double) den));
	return true;
}

/* A copy of model whose metadata has one more member, "key": value (JSON). */
static MrfModel *
ModelWithMeta(MrfModel *model, const char *key, const char *value)
{
	Jsonb	   *meta = MrfModelMeta(model);
	char	   *member = psprintf("{\"%s\": %s}", key, value);
	Jsonb	   *more = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(member)));
	MrfModel   *copy;

	meta = DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, JsonbPGetDatum(meta),
											  JsonbPGetDatum(more)));
	copy = MrfModelCreate((MrfKind) model->kind, model->p, model->k, model->t, model->nparams,
						  model->flags, meta);
	memcpy(copy->params, model->params, sizeof(double) * model->nparams);
	return copy;
}

/*
 * Sets up the call's reader from the schema (the sample's type, p and k)
 * and the options, and plans the shape: everything p and k refuse is
 * refused before the charge.
 */
static void
SetUpReader(MrfFromCall *fc, const char *column, ArrayType *columns, int32 variables,
			Jsonb *options)
{
	MrfPlan    *plan = fc->plan;
	MrfRowsState *state;
	int32		typmod = -1;
	int			p;
	AttrNumber *attnums = NULL;

	if (columns != NULL)
	{
		/* option columns: a record of those columns, from the schema */
		fc->columns_row = ColumnsRow(fc, column, columns, &attnums);
		fc->typid = RECORDOID;
		typmod = fc->columns_row->tdtypmod;
	}
	else if (column == NULL)
		fc->typid = get_rel_type_id(fc->relid);
	else
	{
		AttrNumber	attnum = get_attnum(fc->relid, column);
		Oid			collid;

		if (attnum == InvalidAttrNumber || attnum < 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of relation %s does not exist", column,
							get_rel_name(fc->relid))));
		get_atttypetypmodcoll(fc->relid, attnum, &fc->typid, &typmod, &collid);
	}
	if (!OidIsValid(fc->typid))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("relation %s has no row type", get_rel_name(fc->relid))));
	fc->format = MrfPlanRowsFormat(plan);
	state = fc->state = MrfRowsStateCreate(fc->cxt, fc->format);
	MrfRowsStateInitReader(state, fc->typid, &plan->opt, fc->cxt, fc->learner);
	if (fc->columns_row != NULL && fc->format == MRF_ROWS_BITS)
		MrfBinaryReaderSetColumns(&state->reader, fc->columns_row);
	else if (fc->columns_row != NULL)
		MrfKaryReaderSetColumns(&state->kreader, fc->columns_row, fc->relid, attnums);
	if (fc->columns_row != NULL)
		p = fc->columns_row->natts; /* the schema's count, as a row type's */
	else
		p = fc->format == MRF_ROWS_BITS ? MrfBinaryTypeWidth(fc->typid, typmod) :
			MrfKaryTypeWidth(fc->typid);
	if (p < 0 && variables < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s needs the number of variables for a column of type %s",
						fc->fname, format_type_be(fc->typid)),
				 errdetail("On the protected path the number of variables must not come from the data."),
				 errhint("Pass variables => p.")));
	if (p >= 0 && variables >= 0 && variables != p)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("variables => %d does not match the %d variables of %s",
						variables, p, fc->columns_row != NULL ? "option columns" :
						psprintf("type %s", format_type_be(fc->typid)))));
	if (p < 0)
		p = variables;
	if (p < 2 || p > MRF_MAX_VARIABLES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s takes from 2 to %d variables", fc->fname, MRF_MAX_VARIABLES)));
	fc->p = p;
	/* row types are loaded and checked here, from the schema */
	if (fc->format == MRF_ROWS_BITS)
		MrfBinaryReaderSetLenient(&state->reader, p);
	else
		MrfKaryReaderSetLenient(&state->kreader, p);
	MrfRowsStateSetShape(state, p, fc->format == MRF_ROWS_BITS ? 2 : state->kreader.k);
	state->options = options;
	/* per-variable alphabets, names and labels: from the schema */
	if (fc->format != MRF_ROWS_BITS)
		state->alphabets = MrfKaryReaderAlphabets(&state->kreader, fc->cxt);
	state->variables = fc->format == MRF_ROWS_BITS ? MrfBinaryReaderVariables(&state->reader) :
		MrfKaryReaderVariables(&state->kreader);
	state->source = MrfSourceOfColumn(fc->relid, column, state->variables);
	state->plan = plan;
	/* p and k are public here: what they refuse is refused before the charge */
	MrfPlanAlphabets(plan, state->alphabets, state->p);
	plan->variables = state->variables;
	MrfPlanShape(plan, state->p, state->k);
}

/*
 * Everything decided before the charge, from public facts only: the
 * caller's grant, the sources the read would scan, the options (the plan
 * and the charge, the substituted-rows count included), the reader and
 * the shape from the schema, and the read's query.  The whole row is read
 * through an alias no column can shadow.
 */
static void
FromCallBegin(FunctionCallInfo fcinfo, MrfFromCall *fc, MrfPlan *plan)
{
	char	   *column = NULL;
	int32		variables;
	ArrayType  *columns;
	Jsonb	   *options;
	const MrfLearner *learner;

	memset(fc, 0, sizeof(*fc));
	/* SECURITY INVOKER: the current user is whoever called us, wrappers included. */
	fc->caller = GetUserId();
	fc->fname = get_func_name(fcinfo->flinfo->fn_oid);
	fc->cxt = CurrentMemoryContext;
	fc->plan = plan;
	learner = MrfLearnerFind(fc->fname);
	if (learner == NULL)
		elog(ERROR, "%s has no protected-path learner", fc->fname);
	fc->learner = pnstrdup(fc->fname, strlen(fc->fname) - strlen("_from"));

	/*
	 * The read as the owner sets search_path and row_security, which
	 * PostgreSQL forbids during a parallel operation: called there (from a
	 * function declared PARALLEL SAFE), every read failed after its charge.
	 */
	if (IsInParallelMode())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s cannot run during a parallel operation", fc->fname),
				 errdetail("Its read as the relation's owner changes settings, which PostgreSQL forbids there. Nothing was read or charged."),
				 errhint("Call it from a function declared PARALLEL UNSAFE, as it is itself.")));
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s needs a relation", fc->fname)));
	fc->relid = PG_GETARG_OID(0);
	if (!PG_ARGISNULL(1))
		column = text_to_cstring(PG_GETARG_TEXT_PP(1));

	MrfCheckLearningGrant(fc->relid, fc->caller);
	MrfRefuseFallibleSources(fc->relid, fc->fname);
	MrfRefuseOwnerWithoutLogin(fc->relid, fc->fname);
	options = OptionsFromArguments(fcinfo, &variables, &columns);
	MrfPlanBegin(plan, learner, options);
	fc->total = plan->charge;
	MrfSubstitutedCountCharge(&fc->total);
	SetUpReader(fc, column, columns, variables, options);

	fc->alias = RowAlias(fc->relid);
	fc->sample_expr = fc->columns_row != NULL ? ColumnList(fc->columns_row, fc->alias) :
		column ? quote_identifier(column) :
		MrfCitusIsCitusTable(fc->relid) ? CitusWholeRow(fc->relid, fc->alias) :
		quote_identifier(fc->alias);
	fc->from = psprintf("%s AS %s",
						quote_qualified_identifier(get_namespace_name(get_rel_namespace(fc->relid)),
												   get_rel_name(fc->relid)),
						quote_identifier(fc->alias));
	fc->sql = psprintf("SELECT %s FROM %s", fc->sample_expr, fc->from);
}

/* The local read serves every call: it is the route of last resort. */
static void *
LocalPrepare(MrfFromCall *fc)
{
	return fc;
}

/*
 * The local read: every row through a cursor as the relation's owner
 * (protected/owner.c), packed here; counting is reading.  Rows that would
 * not fit mrfdp.max_learner_memory end the read (after the charge).
 */
static void
LocalCount(MrfFromCall *fc, void *arg)
{
	MrfOwnerCall call;
	MrfReadOutcome outcome;

	MrfOwnerCallInit(&call, fc->relid, fc->sql, fc->cxt);
	call.typid = fc->typid;
	call.columns = fc->columns_row;
	call.state = fc->state;
	call.p = fc->p;
	outcome = MrfAsOwner(&call, MrfOwnerReadRows);
	MrfOwnerOutcomeCheck(&call, outcome, fc->fname);
	if (outcome == MRF_READ_OUT_OF_MEMORY)
		MrfCheckMemory(fc->learner, MrfRowsStateBytes(fc->state, fc->state->n + 1));
	fc->n = fc->state->n;
	fc->substituted = call.substituted;
}

static bool
LocalTakes(MrfFromCall *fc, void *arg)
{
	return true;
}

static const MrfFromRoute LocalRoute = {
	"local read", LocalPrepare, LocalCount, LocalTakes, NULL
};

/* The routes, in the order they are offered the call; the local read last. */
static const MrfFromRoute *const Routes[] = {
	&MrfCitusFwRoute, &MrfCitusStableRoute, &LocalRoute
};

/*
 * Refuses, before the charge, a plan that no number of rows could fit in
 * mrfdp.max_learner_memory: its memory at n = 1 (the learners' memory grows
 * with n) is over the limit, a fact of the options, p and k alone (a
 * clique engine, say).  Only for the local read: a distributed route plans
 * the coordinator's memory otherwise.  A plan that n = 1 refuses for
 * another reason is left to the count.
 */
static void
RefuseWhatNoRowsFit(const MrfPlan *plan)
{
	MrfPlan		one = *plan;

	one.n = 1;
	one.iterations = 0;
	one.memory = 0;
	one.distributed = false;
	if (plan->learner->plan(&one) == NULL)
		MrfCheckMemory(one.run_name, one.memory);
}

/* Every error after the charge says that the release was charged. */
static void
ChargedContext(void *arg)
{
	errcontext("%s charged the release's privacy budget before reading the relation",
			   (const char *) arg);
}

/*
 * The release: the noisy count of substituted rows (drawn only now, after
 * the charge), its NOTICE, the names and the width NOTICE; NULL for a
 * learner's "nothing", explained by the learner.
 */
static Datum
Release(FunctionCallInfo fcinfo, MrfFromCall *fc, MrfModel *model)
{
	MrfPlan    *plan = fc->plan;
	StringInfoData count_meta;
	int64		noisy = 0;
	double		noise_sd = 0;
	bool		counted;

	initStringInfo(&count_meta);
	counted = NoisySubstitutedCount(&plan->charge, fc->substituted, fc->n, fc->learner, &noisy,
									&noise_sd, &count_meta);

	/*
	 * Say so when more than 1% of the rows were replaced, with confidence: the
	 * noisy count must exceed 1% of n by twice the noise's standard deviation,
	 * so that noise alone rarely raises it (below 2.5% of releases when at
	 * most 1% of the rows were replaced).  Post-processing of the count.
	 */
	if (counted && (double) noisy > (double) fc->n / 100.0 + 2.0 * noise_sd)
		ereport(NOTICE,
				(errmsg("about " INT64_FORMAT " of the " INT64_FORMAT " rows of %s could not be read and were replaced by a fixed row",
						noisy, fc->n, get_rel_name(fc->relid)),
				 errdetail("The count is noisy (standard deviation %.1f; it is part of the release: \"substituted_rows\" in the model's metadata) and exceeds 1%% of the rows.",
						   noise_sd),
				 SubstitutedHint(fc->state)));
	if (model == NULL)
	{
		/* "Nothing" is a release too: charged above, explained only now. */
		if (plan->learner->released_nothing != NULL)
			plan->learner->released_nothing(plan);
		PG_RETURN_NULL();
	}
	model = MrfModelWithNames(model, fc->state->variables, fc->state->source);
	MrfWidthNotice(model);
	PG_RETURN_POINTER(ModelWithMeta(model, "substituted_rows", count_meta.data));
}

PG_FUNCTION_INFO_V1(mrf_learn_from);
/* mrf_learn_<kind>_from(relation, column_name, <options>): the protected path. */
Datum
mrf_learn_from(PG_FUNCTION_ARGS)
{
	MrfFromCall fc;
	MrfPlan		plan;
	void	   *args[lengthof(Routes)];
	int			r;
	MrfLedgerReceipt receipt;
	ErrorContextCallback charged;
	MrfModel   *model;

	/* grant, plan, reader and query: public facts only, nothing read */
	FromCallBegin(fcinfo, &fc, &plan);
	/* the routes that may serve the call: public facts only */
	for (r = 0; r < lengthof(Routes); r++)
		args[r] = Routes[r]->prepare(&fc);
	for (r = 0; r < lengthof(Routes) - 1 && args[r] == NULL; r++)
		;
	if (r == lengthof(Routes) - 1)
		RefuseWhatNoRowsFit(&plan);

	/*
	 * The planned charge, committed before anything of the relation is read
	 * (a call over budget is refused here), in the charge worker's own
	 * transaction: the caller's ROLLBACK, a cancel or an error from here on
	 * cannot undo it.  rows_read is -1 until the count settles it.
	 */
	fc.total.rows = -1;
	MrfChargeRelation(fc.relid, fc.caller, &fc.total, &receipt);
	charged.callback = ChargedContext;
	charged.arg = (void *) fc.fname;
	charged.previous = error_context_stack;
	error_context_stack = &charged;

	/* count (a read: after the charge); the first route that takes n learns */
	for (r = 0; r < lengthof(Routes); r++)
	{
		if (args[r] == NULL)
			continue;
		Routes[r]->count(&fc, args[r]);
		if (fc.n == 0 || Routes[r]->takes(&fc, args[r]))
			break;
	}
	MrfSettleRows(&receipt, &fc.total, fc.n);
	if (fc.n == 0)
	{
		error_context_stack = charged.previous;
		PG_RETURN_NULL();		/* n is public: an empty relation releases nothing */
	}

	/* plan with n (public), then learn */
	MrfPlanRows(&plan, fc.n);
	model = Routes[r]->run != NULL ? Routes[r]->run(&fc, args[r]) : MrfPlanRun(&plan, fc.state);
	error_context_stack = charged.previous;
	return Release(fcinfo, &fc, model);
}
