/*
 * driver/aggregates.c - what every learner's aggregate shares: the body of the
 * transitions (MrfRowsAccum; each learner's own transition, in its file,
 * names the learner, so every form plans at its first row), combine,
 * serialize and deserialize, and the body of the final functions.
 *
 * Rows are packed while the scan runs (bits for binary learners, bytes for
 * k-ary ones); all learning happens in the final functions (one per learner,
 * in its own file), the only place noise is drawn.  Combine and the serial
 * forms let parallel workers scan and pack rows.
 */
#include "postgres.h"

#include "fmgr.h"
#include "libpq/pqformat.h"
#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "core/rows.h"
#include "pg/driver/aggregates.h"
#include "pg/citus/cluster.h"
#include "pg/driver/learners.h"
#include "pg/model/names.h"
#include "pg/sqlapi/options.h"
#include "pg/driver/plan.h"
#include "pg/driver/run.h"

/* See driver/aggregates.h. */
MemoryContext
MrfAggregateContext(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggctx;

	if (!AggCheckCallContext(fcinfo, &aggctx))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s called in non-aggregate context", fn)));
	return aggctx;
}

/* The learner's SQL name (the aggregate's, less "_agg"), for messages. */
const char *
MrfAggregateLearnerName(FunctionCallInfo fcinfo)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	char	   *name = aggref ? get_func_name(aggref->aggfnoid) : NULL;
	size_t		len;

	if (name == NULL)
		return "mrfdp learner";
	len = strlen(name);
	if (len > 4 && strcmp(name + len - 4, "_agg") == 0)
		name[len - 4] = '\0';
	return name;
}

/* A new empty state in the given (aggregate) context. */
MrfRowsState *
MrfRowsStateCreate(MemoryContext cxt, MrfRowFormat format)
{
	MrfRowsState *state = MemoryContextAllocZero(cxt, sizeof(MrfRowsState));

	state->format = format;
	state->p = -1;
	return state;
}

/* Fixes p (and k) and the row size. */
void
MrfRowsStateSetShape(MrfRowsState *state, int p, int k)
{
	state->p = p;
	state->k = k;
	state->row_bytes = state->format == MRF_ROWS_BITS ? sizeof(uint64) * MrfBitWords(p) :
		state->format == MRF_ROWS_CODES ? sizeof(MrfCode) * (Size) p : (Size) p;
}

/* See driver/aggregates.h. */
void
MrfRowsStateInitReader(MrfRowsState *state, Oid typid, const MrfOptions *opt, MemoryContext cxt,
					   const char *learner)
{
	if (state->format == MRF_ROWS_BITS)
	{
		MrfBinaryReaderInit(&state->reader, typid, cxt, learner);
		return;
	}
	MrfKaryReaderInit(&state->kreader, typid, (opt->given & MRF_OPT_K) ? opt->k : 0,
					  state->format == MRF_ROWS_CODES, cxt, learner);
	if (opt->domains != NULL)
		MrfKaryReaderSetDomains(&state->kreader, opt->domains);
	if (opt->given & MRF_OPT_NULLS)
		MrfKaryReaderSetNulls(&state->kreader, opt->nulls);
}

/*
 * Grows the row storage to hold at least `rows` rows, under the memory limit:
 * beyond it, an error names learner, or, with learner NULL, false is
 * returned and nothing changes.
 */
static bool
Reserve(MrfRowsState *state, MemoryContext cxt, int64 rows, const char *learner)
{
	int64		cap;
	Size		bytes;

	if (rows <= state->capacity)
		return true;
	cap = Max(rows, Max(1024, state->capacity * 2));
	bytes = (Size) cap * state->row_bytes;
	if (learner == NULL && !MrfMemoryFits((double) bytes))
		return false;
	MrfCheckMemory(learner, (double) bytes);
	if (state->rows == NULL)
		state->rows = MemoryContextAllocHuge(cxt, bytes);
	else
		state->rows = repalloc_huge(state->rows, bytes);
	state->capacity = cap;
	return true;
}

/* See driver/aggregates.h. */
void
MrfRowsStateReserve(MrfRowsState *state, MemoryContext cxt, int64 rows, const char *learner)
{
	(void) Reserve(state, cxt, rows, learner);
}

/* Room for one more row, zeroed, growing geometrically under the memory limit. */
void *
MrfRowsStateAppend(MrfRowsState *state, MemoryContext cxt, const char *learner)
{
	char	   *slot;

	(void) Reserve(state, cxt, state->n + 1, learner);
	slot = state->rows + (Size) state->n++ * state->row_bytes;
	memset(slot, 0, state->row_bytes);
	return slot;
}

/* As MrfRowsStateAppend, but NULL (nothing added) beyond the memory limit. */
void *
MrfRowsStateTryAppend(MrfRowsState *state, MemoryContext cxt)
{
	char	   *slot;

	if (!Reserve(state, cxt, state->n + 1, NULL))
		return NULL;
	slot = state->rows + (Size) state->n++ * state->row_bytes;
	memset(slot, 0, state->row_bytes);
	return slot;
}

/* The bytes the row storage would need for `rows` rows (for messages). */
double
MrfRowsStateBytes(const MrfRowsState *state, int64 rows)
{
	return (double) Max(rows, Max(1024, state->capacity * 2)) * state->row_bytes;
}

/* Raises the error for options that vary from row to row. */
static void
pg_attribute_noreturn()
OptionsVary(const char *learner)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s needs the same options for every row", learner),
			 errdetail("The options argument is not a constant."),
			 errhint("Pass constants or query parameters to mrf_options().")));
}

/*
 * The options argument must be a constant or a query parameter: options that
 * vary from row to row would make the learner's budget data-dependent.
 * Returns false when that cannot be seen from the plan (window aggregates
 * have no Aggref; a column may carry them): the caller then compares every
 * row's options with the first's.
 */
static bool
CheckOptionsConstant(FunctionCallInfo fcinfo, const char *learner)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	TargetEntry *tle;

	if (aggref == NULL || list_length(aggref->args) < 2)
		return false;
	tle = (TargetEntry *) lsecond(aggref->args);
	if (IsA(tle->expr, Const))
		return true;
	if (IsA(tle->expr, Param) && ((Param *) tle->expr)->paramkind == PARAM_EXTERN)
		return true;

	/*
	 * A plain column: Citus ships each row with its options to the
	 * coordinator (the aggregate's arguments become columns of its scan).
	 * Every row's options are then compared with the first row's, which
	 * planned the charge.
	 */
	if (IsA(tle->expr, Var))
		return false;
	OptionsVary(learner);
}

/* Errors for a NULL sample, and for options that differ from the first row's. */
static void
CheckRow(FunctionCallInfo fcinfo, MrfRowsState *state, const char *learner)
{
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s does not accept NULL samples", learner),
				 errhint("Filter out NULL rows, e.g. WHERE x IS NOT NULL.")));
	if (state->options_per_row)
	{
		Jsonb	   *row_options = PG_ARGISNULL(2) ? NULL : PG_GETARG_JSONB_P(2);

		if (row_options == NULL || VARSIZE(row_options) != VARSIZE(state->options) ||
			memcmp(row_options, state->options, VARSIZE(row_options)) != 0)
			OptionsVary(learner);
	}
}

/*
 * Errors, before any learning, when a release with this charge would not
 * fit the budget of a protected relation the transaction has read so far:
 * at each group's first row, and again at its final function (a hash
 * aggregate sees every group's first row before any group is released).
 * Cheap when nothing protected was read (one look per statement).  The
 * charge at release still re-checks atomically.  Window aggregates too:
 * their transition names the learner (each learner has its own).
 */
static void
CheckBudgetBeforeLearning(const MrfCharge *charge)
{
	if (!MrfStatementReadsProtected(charge->learner))
		return;
	MrfCheckStatementBudget(charge);
}

/*
 * The plan of a state: the one made at its first row, or, when that row's
 * transition could not know the learner (0.1.0's shared transitions used as
 * window aggregates, before ALTER EXTENSION mrfdp UPDATE) or the state was
 * rebuilt from parallel workers' partial states, one made now from its
 * options and shape.  The only place the driver reads the aggregate state's
 * options and shape.
 */
static MrfPlan *
StatePlan(MrfRowsState *state, const MrfLearner *learner, MemoryContext cxt)
{
	if (state->plan == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);
		MrfPlan    *plan = palloc(sizeof(MrfPlan));

		if (state->options == NULL)
			elog(ERROR, "%s: an aggregate state without options", learner->name);
		MrfPlanBegin(plan, learner, state->options);
		if (state->p > 0)
		{
			MrfPlanAlphabets(plan, state->alphabets, state->p);
			plan->variables = state->variables;
			MrfPlanShape(plan, state->p, state->k);
		}
		state->plan = plan;
		MemoryContextSwitchTo(old);
	}
	if (state->plan->learner != learner)
		elog(ERROR, "%s got the aggregate state of %s", learner->name, state->plan->learner->name);
	return state->plan;
}

/* The first call of a transition function: state, constant options, plan. */
static MrfRowsState *
StateStart(FunctionCallInfo fcinfo, const MrfLearner *learner, MrfRowFormat format,
		   MemoryContext aggctx)
{
	const char *name = learner ? learner->name :
		MemoryContextStrdup(aggctx, MrfAggregateLearnerName(fcinfo));
	MrfRowsState *state = MrfRowsStateCreate(aggctx, format);
	MemoryContext old;

	state->options_per_row = !CheckOptionsConstant(fcinfo, name);
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s needs options", name),
				 errhint("Pass mrf_options(rho => ...).")));
	old = MemoryContextSwitchTo(aggctx);
	state->options = DatumGetJsonbPCopy(PG_GETARG_DATUM(2));
	MemoryContextSwitchTo(old);
	state->reader.learner = name;
	state->kreader.learner = name;
	if (learner != NULL)
	{
		/* parse once, plan from the options: every option error before the scan */
		(void) StatePlan(state, learner, aggctx);
		state->format = MrfPlanRowsFormat(state->plan);
		CheckBudgetBeforeLearning(&state->plan->charge);
	}
	return state;
}

/*
 * Keeps the names and labels of the first row's type (model/names.h), and the
 * relation it is the row type of: public facts of the query's types.
 */
static void
StateNames(MrfRowsState *state, MemoryContext aggctx, char *variables, Oid rowtype)
{
	char	   *source = OidIsValid(rowtype) ? MrfSourceOfRowType(rowtype, variables) : NULL;

	state->variables = variables ? MemoryContextStrdup(aggctx, variables) : NULL;
	state->source = source ? MemoryContextStrdup(aggctx, source) : NULL;
}

/* See driver/aggregates.h. */
Datum
MrfRowsAccum(FunctionCallInfo fcinfo, const MrfLearner *learner, MrfRowFormat format)
{
	MemoryContext aggctx = MrfAggregateContext(fcinfo, "mrf_rows_accum");
	MrfRowsState *state = PG_ARGISNULL(0) ? NULL : (MrfRowsState *) PG_GETARG_POINTER(0);

	if (state == NULL)
	{
		MrfOptions	opt;
		const MrfOptions *o = NULL;

		/* the learner: given, or (0.1.0's shared transitions) the aggregate's */
		if (learner == NULL && AggGetAggref(fcinfo) != NULL)
			learner = MrfLearnerFind(MrfAggregateLearnerName(fcinfo));
		state = StateStart(fcinfo, learner, format, aggctx);
		if (state->plan != NULL)
			o = &state->plan->opt;
		else if (state->format != MRF_ROWS_BITS)
		{
			MrfOptionsParse(state->options, &opt);
			o = &opt;
		}
		MrfRowsStateInitReader(state, get_fn_expr_argtype(fcinfo->flinfo, 1), o, aggctx,
							   state->format == MRF_ROWS_BITS ? state->reader.learner :
							   state->kreader.learner);
	}
	CheckRow(fcinfo, state, state->reader.learner);

	if (state->p < 0)
	{
		/* The first row fixes p: read it into scratch space, then size and plan. */
		uint64		scratch[MRF_MAX_VARIABLES * sizeof(MrfCode) / sizeof(uint64) + 1];	/* bits, bytes or codes */
		uint8	   *bytes = (uint8 *) scratch;

		memset(scratch, 0, sizeof(scratch));
		if (state->format == MRF_ROWS_BITS)
		{
			MrfBinaryReadRow(&state->reader, PG_GETARG_DATUM(1), scratch);
			MrfRowsStateSetShape(state, state->reader.p, 2);
			StateNames(state, aggctx, MrfBinaryReaderVariables(&state->reader),
					   state->reader.tupdesc ? state->reader.tupdesc->tdtypeid : InvalidOid);
		}
		else
		{
			MrfKaryReadRow(&state->kreader, PG_GETARG_DATUM(1), bytes);
			MrfRowsStateSetShape(state, state->kreader.p, state->kreader.k);
			state->alphabets = MrfKaryReaderAlphabets(&state->kreader, aggctx);
			StateNames(state, aggctx, MrfKaryReaderVariables(&state->kreader),
					   state->kreader.tupdesc ? state->kreader.tupdesc->tdtypeid : InvalidOid);
		}
		if (state->plan != NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(aggctx);

			MrfPlanAlphabets(state->plan, state->alphabets, state->p);
			state->plan->variables = state->variables;
			MrfPlanShape(state->plan, state->p, state->k);
			MemoryContextSwitchTo(old);
		}
		memcpy(MrfRowsStateAppend(state, aggctx, state->reader.learner), scratch, state->row_bytes);
	}
	else if (state->format == MRF_ROWS_BITS)
		MrfBinaryReadRow(&state->reader, PG_GETARG_DATUM(1),
						 MrfRowsStateAppend(state, aggctx, state->reader.learner));
	else
		MrfKaryReadRow(&state->kreader, PG_GETARG_DATUM(1),
					   MrfRowsStateAppend(state, aggctx, state->reader.learner));
	PG_RETURN_POINTER(state);
}

/*
 * 0.1.0's transitions, shared by several learners, kept for its SQL
 * definitions until ALTER EXTENSION mrfdp UPDATE: the learner is the
 * aggregate's, and a window aggregate (no Aggref) is planned at its final
 * function.  0.2.0's aggregates each have their learner's transition.
 */
PG_FUNCTION_INFO_V1(mrf_bits_accum);
/* Transition of 0.1.0's binary learners: packs one sample as bits. */
Datum
mrf_bits_accum(PG_FUNCTION_ARGS)
{
	return MrfRowsAccum(fcinfo, NULL, MRF_ROWS_BITS);
}

PG_FUNCTION_INFO_V1(mrf_bytes_accum);
/* Transition of 0.1.0's k-ary learners: stores one sample as bytes 0..k-1. */
Datum
mrf_bytes_accum(PG_FUNCTION_ARGS)
{
	return MrfRowsAccum(fcinfo, NULL, MRF_ROWS_BYTES);
}

/* Appends src's rows to dst (same format, shape and options). */
static void
MergeState(MrfRowsState *dst, const MrfRowsState *src, MemoryContext aggctx)
{
	const char *learner = "mrfdp learner";

	if (src == NULL || src->n == 0)
		return;
	if (dst->options == NULL)
		dst->options = DatumGetJsonbPCopy(PointerGetDatum(src->options));
	else if (VARSIZE(dst->options) != VARSIZE(src->options) ||
			 memcmp(dst->options, src->options, VARSIZE(dst->options)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s needs the same options for every row", learner)));
	if (dst->p < 0)
	{
		dst->format = src->format;
		MrfRowsStateSetShape(dst, src->p, src->k);
	}
	else if (dst->p != src->p || dst->k != src->k || dst->format != src->format)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("every sample must have the same number of variables"),
				 errdetail("Samples of %d and of %d variables were both seen.", dst->p, src->p)));

	if (dst->alphabets == NULL && src->alphabets != NULL)
	{
		dst->alphabets = MemoryContextAlloc(aggctx, sizeof(uint16) * src->p);
		memcpy(dst->alphabets, src->alphabets, sizeof(uint16) * src->p);
	}
	if (dst->variables == NULL && src->variables != NULL)
		dst->variables = MemoryContextStrdup(aggctx, src->variables);
	if (dst->source == NULL && src->source != NULL)
		dst->source = MemoryContextStrdup(aggctx, src->source);
	(void) Reserve(dst, aggctx, dst->n + src->n, learner);
	memcpy(dst->rows + (Size) dst->n * dst->row_bytes, src->rows, (Size) src->n * src->row_bytes);
	dst->n += src->n;
}

PG_FUNCTION_INFO_V1(mrf_rows_combine);
/* Combine: concatenates two partial states. */
Datum
mrf_rows_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = MrfAggregateContext(fcinfo, "mrf_rows_combine");
	MrfRowsState *a = PG_ARGISNULL(0) ? NULL : (MrfRowsState *) PG_GETARG_POINTER(0);
	MrfRowsState *b = PG_ARGISNULL(1) ? NULL : (MrfRowsState *) PG_GETARG_POINTER(1);
	MemoryContext old;

	if (b == NULL)
		PG_RETURN_POINTER(a);
	old = MemoryContextSwitchTo(aggctx);
	if (a == NULL)
		a = MrfRowsStateCreate(aggctx, b->format);
	MergeState(a, b, aggctx);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(a);
}

PG_FUNCTION_INFO_V1(mrf_rows_serialize);
/* Appends a string that may be NULL (length -1). */
static void
SendString(StringInfo buf, const char *s)
{
	if (s == NULL)
		pq_sendint32(buf, -1);
	else
	{
		pq_sendint32(buf, strlen(s));
		pq_sendbytes(buf, s, strlen(s));
	}
}

/* Reads a string written by SendString into cxt. */
static char *
GetString(StringInfo buf, MemoryContext cxt)
{
	int			len = pq_getmsgint(buf, 4);
	char	   *s;

	if (len < 0)
		return NULL;
	s = MemoryContextAlloc(cxt, len + 1);
	pq_copymsgbytes(buf, s, len);
	s[len] = '\0';
	return s;
}

/* Serialize: format, p, k, n, options, rows, names, source, alphabets. */
Datum
mrf_rows_serialize(PG_FUNCTION_ARGS)
{
	MrfRowsState *state = (MrfRowsState *) PG_GETARG_POINTER(0);
	StringInfoData buf;
	Size		nbytes = state->p > 0 ? (Size) state->n * state->row_bytes : 0;

	(void) MrfAggregateContext(fcinfo, "mrf_rows_serialize");
	pq_begintypsend(&buf);
	pq_sendint32(&buf, state->format);
	pq_sendint32(&buf, state->p);
	pq_sendint32(&buf, state->k);
	pq_sendint64(&buf, state->n);
	if (state->options != NULL)
	{
		pq_sendint32(&buf, VARSIZE(state->options));
		pq_sendbytes(&buf, (const char *) state->options, VARSIZE(state->options));
	}
	else
		pq_sendint32(&buf, 0);
	if (nbytes > 0)
		pq_sendbytes(&buf, state->rows, nbytes);
	SendString(&buf, state->variables);
	SendString(&buf, state->source);
	pq_sendint8(&buf, state->alphabets != NULL);
	for (int i = 0; state->alphabets != NULL && i < state->p; i++)
		pq_sendint16(&buf, state->alphabets[i]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

PG_FUNCTION_INFO_V1(mrf_rows_deserialize);
/* Deserialize: the inverse of mrf_rows_serialize, into the aggregate context. */
Datum
mrf_rows_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = MrfAggregateContext(fcinfo, "mrf_rows_deserialize");
	bytea	   *data = PG_GETARG_BYTEA_PP(0);
	StringInfoData buf;
	MrfRowsState *state;
	int			format;
	int			p;
	int			k;
	int			optlen;
	Size		nbytes;

	buf.data = VARDATA_ANY(data);
	buf.len = VARSIZE_ANY_EXHDR(data);
	buf.maxlen = buf.len;
	buf.cursor = 0;

	format = pq_getmsgint(&buf, 4);
	state = MrfRowsStateCreate(aggctx, (MrfRowFormat) format);
	p = pq_getmsgint(&buf, 4);
	k = pq_getmsgint(&buf, 4);
	if (p > 0)
		MrfRowsStateSetShape(state, p, k);
	state->n = pq_getmsgint64(&buf);
	optlen = pq_getmsgint(&buf, 4);
	if (optlen > 0)
	{
		state->options = MemoryContextAlloc(aggctx, optlen);
		pq_copymsgbytes(&buf, (char *) state->options, optlen);
	}
	nbytes = p > 0 ? (Size) state->n * state->row_bytes : 0;
	if (nbytes > 0)
	{
		state->rows = MemoryContextAllocHuge(aggctx, nbytes);
		pq_copymsgbytes(&buf, state->rows, nbytes);
	}
	state->capacity = state->n;
	state->variables = GetString(&buf, aggctx);
	state->source = GetString(&buf, aggctx);
	if (pq_getmsgbyte(&buf) != 0 && p > 0)
	{
		state->alphabets = MemoryContextAlloc(aggctx, sizeof(uint16) * p);
		for (int i = 0; i < p; i++)
			state->alphabets[i] = (uint16) pq_getmsgint(&buf, 2);
	}
	pq_getmsgend(&buf);
	PG_RETURN_POINTER(state);
}

/*
 * Byte rows as code rows, for a whole-table learner whose rows were packed
 * before its plan was known (0.1.0's shared k-ary transition used as a
 * window aggregate, planned only at the final function).
 */
static void
WidenToCodes(MrfRowsState *state, MemoryContext cxt, const char *learner)
{
	const uint8 *bytes = (const uint8 *) state->rows;
	MrfCode    *codes;
	Size		values = (Size) state->n * state->p;

	MrfCheckMemory(learner, (double) values * sizeof(MrfCode));
	codes = MemoryContextAllocHuge(cxt, Max(values, 1) * sizeof(MrfCode));
	for (Size i = 0; i < values; i++)
		codes[i] = bytes[i];
	if (state->rows != NULL)
		pfree(state->rows);
	state->rows = (char *) codes;
	state->format = MRF_ROWS_CODES;
	state->row_bytes = sizeof(MrfCode) * (Size) state->p;
	state->capacity = state->n;
}

/* The body of every learner's final function (see driver/learners.h). */
Datum
MrfAggregateRelease(FunctionCallInfo fcinfo, const MrfLearner *learner)
{
	MemoryContext aggctx = MrfAggregateContext(fcinfo, "a learner's final function");
	MrfRowsState *state = PG_ARGISNULL(0) ? NULL : (MrfRowsState *) PG_GETARG_POINTER(0);
	MrfPlan    *plan;
	MrfModel   *model;

	if (state == NULL || state->n == 0)
		PG_RETURN_NULL();
	/* off the Citus coordinator nothing could be charged: refuse before learning */
	MrfCitusRefuseOffCoordinator(learner->name);
	plan = StatePlan(state, learner, aggctx);
	CheckBudgetBeforeLearning(&plan->charge);
	if (state->format == MRF_ROWS_BYTES && MrfPlanRowsFormat(plan) == MRF_ROWS_CODES)
		WidenToCodes(state, aggctx, learner->name);
	if (state->format != MrfPlanRowsFormat(plan))
		elog(ERROR, "%s got rows in the wrong format", learner->name);
	MrfPlanRows(plan, state->n);
	model = MrfModelWithNames(MrfPlanRun(plan, state), state->variables, state->source);
	/* Charge before release: this returns only once the charge is committed. */
	MrfChargeStatement(&plan->charge);
	if (model == NULL)
	{
		/* "Nothing" is a release too: charged above, explained only now. */
		if (learner->released_nothing != NULL)
			learner->released_nothing(plan);
		PG_RETURN_NULL();
	}
	MrfWidthNotice(model);
	PG_RETURN_POINTER(model);
}
