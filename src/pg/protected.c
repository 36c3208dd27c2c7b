/*
 * protected.c - the protected path: mrf_learn_<kind>_from(relation, column,
 * <options>) lets a role that was granted learning, but may not SELECT the
 * relation, learn from it.  They check the grant of the role that called
 * them, charge the relation (in a transaction of its own) as soon as n is
 * known and before any learning, then stream nothing more: the learner runs
 * on rows already read, and the model is returned last.
 *
 * The functions run as their caller (SECURITY INVOKER with a fixed
 * search_path).  Only the cursor that reads the relation runs with other
 * rights: the relation owner's, in a security-restricted operation with
 * search_path = pg_catalog, pg_temp, as REFRESH MATERIALIZED VIEW does.  A
 * SECURITY DEFINER function could not tell who called it (a definer's
 * wrapper would spend another role's grant) and would run any code the
 * relation executes (an owner's functions, an FDW) with the extension
 * owner's rights.
 *
 * Charging before learning closes a side channel: some learners' running
 * time depends on the data (the stable mode's block solvers, CGM's EM), and
 * an analyst who could cancel before an after-learning charge would measure
 * it for free.
 *
 * Privacy unit: one row of the relation.  Nothing here may raise an error
 * that depends on the data: p comes from the column's type or the caller,
 * and a row that cannot be read (NULL, wrong length, value outside the
 * alphabet) is replaced by a fixed row of -1s, which is a function of that
 * row alone, so replace-one neighbours stay neighbours.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "core/rows.h"
#include "pg/aggregates.h"
#include "pg/input.h"
#include "pg/learners.h"
#include "pg/ledger.h"
#include "pg/options.h"
#include "pg/plan.h"

/* Rows fetched from the cursor at a time. */
#define FETCH_ROWS 10000

/* Every learner of the protected path: one line per learner. */
static const MrfProtectedLearner ProtectedLearners[] = {
	{"mrf_learn_ising_from", MRF_ROWS_BITS, MrfIsingLearnState},
	{"mrf_learn_structure_from", MRF_ROWS_BITS, MrfStructureLearnState, MrfStructureReleasedNothing, true},
	{"mrf_learn_twise_from", MRF_ROWS_BITS, MrfTwiseLearnState},
	{"mrf_learn_pairwise_from", MRF_ROWS_BYTES, MrfPairwiseLearnState},
	{"mrf_learn_cliques_from", MRF_ROWS_BYTES, MrfCliquesLearnState},
};

/* The protected-path entry of a function, by its SQL name. */
static const MrfProtectedLearner *
FindProtectedLearner(const char *fname)
{
	for (int i = 0; i < lengthof(ProtectedLearners); i++)
		if (strcmp(ProtectedLearners[i].function, fname) == 0)
			return &ProtectedLearners[i];
	elog(ERROR, "%s has no protected-path learner", fname);
	return NULL;
}

/* Builds the options document from the named arguments after (relation, column). */
static Jsonb *
OptionsFromArguments(FunctionCallInfo fcinfo, int32 *variables)
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
	for (int i = 2; i < nargs; i++)
	{
		if (strcmp(argnames[i], "variables") == 0)
		{
			if (!PG_ARGISNULL(i))
				*variables = PG_GETARG_INT32(i);
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
 * Reads the relation through a cursor as its owner, in a security-restricted
 * operation with a fixed search_path; every row goes through the lenient
 * reader (no error can depend on the data).
 */
static void
ReadAsOwner(Oid relid, const char *sql, MrfRowsState *state, MemoryContext cxt,
			const char *learner, int p)
{
	HeapTuple	reltup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;
	Oid			save_user;
	int			save_sec;
	int			save_nestlevel;

	if (!HeapTupleIsValid(reltup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	owner = ((Form_pg_class) GETSTRUCT(reltup))->relowner;
	ReleaseSysCache(reltup);

	GetUserIdAndSecContext(&save_user, &save_sec);
	SetUserIdAndSecContext(owner, save_sec | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	save_nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	PG_TRY();
	{
		Portal		portal;

		SPI_connect();
		portal = SPI_cursor_open_with_args(NULL, sql, 0, NULL, NULL, NULL, true, 0);
		for (;;)
		{
			SPI_cursor_fetch(portal, true, FETCH_ROWS);
			if (SPI_processed == 0)
				break;
			for (uint64 r = 0; r < SPI_processed; r++)
			{
				bool		isnull;
				Datum		value = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull);
				void	   *slot = MrfRowsStateAppend(state, cxt, learner);

				if (state->format == MRF_ROWS_BITS)
					(void) MrfBinaryReadRowLenient(&state->reader, value, isnull, slot, MrfBitWords(p));
				else
					(void) MrfKaryReadRowLenient(&state->kreader, value, isnull, slot);
			}
			SPI_freetuptable(SPI_tuptable);
			CHECK_FOR_INTERRUPTS();
		}
		SPI_cursor_close(portal);
		SPI_finish();
	}
	PG_FINALLY();
	{
		AtEOXact_GUC(false, save_nestlevel);
		SetUserIdAndSecContext(save_user, save_sec);
	}
	PG_END_TRY();
}

PG_FUNCTION_INFO_V1(mrf_learn_from);
/* mrf_learn_<kind>_from(relation, column_name, <options>): the protected path. */
Datum
mrf_learn_from(PG_FUNCTION_ARGS)
{
	/* SECURITY INVOKER: the current user is whoever called us, wrappers included. */
	Oid			caller = GetUserId();
	char	   *fname = get_func_name(fcinfo->flinfo->fn_oid);
	char	   *learner;
	Oid			relid;
	char	   *column = NULL;
	Oid			typid;
	int32		typmod;
	int32		variables;
	int			p;
	Jsonb	   *options;
	MrfOptions	opt;
	MrfRowsState *state;
	MemoryContext cxt = CurrentMemoryContext;
	char	   *sql;
	MrfModel   *model;
	MrfCharge	charge;
	MrfCharge	planned;
	MrfCharge	options_charge;
	const MrfProtectedLearner *entry = FindProtectedLearner(fname);
	MrfRowFormat format;

	learner = pnstrdup(fname, strlen(fname) - strlen("_from"));
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s needs a relation", fname)));
	relid = PG_GETARG_OID(0);
	if (!PG_ARGISNULL(1))
		column = text_to_cstring(PG_GETARG_TEXT_PP(1));

	/* Everything checked before a single row is read depends on public facts only. */
	MrfCheckLearningGrant(relid, caller);
	options = OptionsFromArguments(fcinfo, &variables);
	MrfOptionsParse(options, &opt);
	MrfPlanCharge(learner, options, false, &options_charge);

	if (column == NULL)
	{
		typid = get_rel_type_id(relid);
		typmod = -1;
	}
	else
	{
		AttrNumber	attnum = get_attnum(relid, column);
		Oid			collid;

		if (attnum == InvalidAttrNumber || attnum < 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of relation %s does not exist", column, get_rel_name(relid))));
		get_atttypetypmodcoll(relid, attnum, &typid, &typmod, &collid);
	}
	format = entry->format;
	if (entry->bytes_for_pairwise_model && (opt.given & MRF_OPT_MODEL) &&
		strcmp(opt.model, "pairwise") == 0)
		format = MRF_ROWS_BYTES;
	state = MrfRowsStateCreate(cxt, format);
	if (format == MRF_ROWS_BITS)
	{
		MrfBinaryReaderInit(&state->reader, typid, cxt, learner);
		p = MrfBinaryTypeWidth(typid, typmod);
	}
	else
	{
		MrfKaryReaderInit(&state->kreader, typid, (opt.given & MRF_OPT_K) ? opt.k : 0,
						  cxt, learner);
		p = MrfKaryTypeWidth(typid);
	}
	if (p < 0 && variables < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s needs the number of variables for a column of type %s",
						fname, format_type_be(typid)),
				 errdetail("On the protected path the number of variables must not come from the data."),
				 errhint("Pass variables => p.")));
	if (p >= 0 && variables >= 0 && variables != p)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("variables => %d does not match the %d variables of type %s",
						variables, p, format_type_be(typid))));
	if (p < 0)
		p = variables;
	if (p < 2 || p > MRF_MAX_VARIABLES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s takes from 2 to %d variables", fname, MRF_MAX_VARIABLES)));
	if (format == MRF_ROWS_BITS)
		MrfBinaryReaderSetLenient(&state->reader, p);
	else
		MrfKaryReaderSetLenient(&state->kreader, p);
	MrfRowsStateSetShape(state, p, format == MRF_ROWS_BITS ? 2 : state->kreader.k);
	state->options = options;

	/* Stream the column through a cursor as the relation's owner (see the header). */
	sql = psprintf("SELECT %s FROM %s AS t",
				   column ? quote_identifier(column) : "t",
				   quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
											  get_rel_name(relid)));
	ReadAsOwner(relid, sql, state, cxt, learner, p);

	if (state->n == 0)
		PG_RETURN_NULL();		/* n is public: an empty relation releases nothing */
	if (format == MRF_ROWS_BYTES)
		state->k = state->kreader.k;	/* rows of enums: fixed by the row type */

	/*
	 * Charge before learning.  A first pass of the learner validates every
	 * option and limit and fills in the charge without touching the rows
	 * (plan_only), so a refused call charges nothing; the charge is then
	 * committed, and only then does the learner run.
	 */
	state->plan_only = true;
	(void) entry->learn(state, &planned);
	state->plan_only = false;
	if (!MrfChargeEqual(&planned, &options_charge))
		elog(ERROR, "%s plans other amounts from its options than from its rows; nothing is charged",
			 learner);
	MrfChargeRelation(relid, caller, &planned);

	model = entry->learn(state, &charge);
	if (!MrfChargeEqual(&charge, &planned))
		elog(ERROR, "%s spent other amounts than it was charged for; nothing is released",
			 learner);
	if (model == NULL)
	{
		/* "Nothing" is a release too: charged above, explained only now. */
		if (entry->released_nothing != NULL)
			entry->released_nothing(state);
		PG_RETURN_NULL();
	}
	PG_RETURN_POINTER(model);
}
