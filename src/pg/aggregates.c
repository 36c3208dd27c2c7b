/*
 * aggregates.c - transition, combine, serialize and deserialize functions of
 * the binary learners' aggregates, and their final functions.
 *
 * Rows are packed as bits while the scan runs; all learning happens in the
 * final function, which is the only place noise is drawn.  Combine and the
 * serial forms let parallel workers scan and pack rows.
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
#include "pg/aggregates.h"
#include "pg/options.h"
#include "pg/release.h"

/* The aggregate memory context, or an error when not called as an aggregate. */
static MemoryContext
AggregateContext(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggctx;

	if (!AggCheckCallContext(fcinfo, &aggctx))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s called in non-aggregate context", fn)));
	return aggctx;
}

/* The learner's SQL name (the aggregate's, less "_agg"), for messages. */
static const char *
LearnerName(FunctionCallInfo fcinfo)
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
MrfBitsState *
MrfBitsStateCreate(MemoryContext aggctx)
{
	MrfBitsState *state = MemoryContextAllocZero(aggctx, sizeof(MrfBitsState));

	state->p = -1;
	return state;
}

/* Room for one more (unzeroed) row, growing geometrically under the memory limit. */
uint64 *
MrfBitsStateAppend(MrfBitsState *state, MemoryContext aggctx, const char *learner)
{
	if (state->n == state->capacity)
	{
		int64		cap = state->capacity == 0 ? 1024 : state->capacity * 2;
		Size		bytes = (Size) cap * state->words * sizeof(uint64);

		MrfCheckMemory(learner, (double) bytes);
		if (state->bits == NULL)
			state->bits = MemoryContextAllocHuge(aggctx, bytes);
		else
			state->bits = repalloc_huge(state->bits, bytes);
		state->capacity = cap;
	}
	return state->bits + (Size) state->n++ * state->words;
}

/*
 * The options argument must be a constant or a query parameter: options that
 * vary from row to row would make the learner's budget data-dependent.
 */
static void
CheckOptionsConstant(FunctionCallInfo fcinfo, const char *learner)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	TargetEntry *tle;

	if (aggref == NULL || list_length(aggref->args) < 2)
		return;
	tle = (TargetEntry *) lsecond(aggref->args);
	if (IsA(tle->expr, Const))
		return;
	if (IsA(tle->expr, Param) && ((Param *) tle->expr)->paramkind == PARAM_EXTERN)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s needs the same options for every row", learner),
			 errdetail("The options argument is not a constant."),
			 errhint("Pass constants or query parameters to mrf_options().")));
}

PG_FUNCTION_INFO_V1(mrf_bits_accum);
/* Transition: packs one sample. */
Datum
mrf_bits_accum(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = AggregateContext(fcinfo, "mrf_bits_accum");
	MrfBitsState *state = PG_ARGISNULL(0) ? NULL : (MrfBitsState *) PG_GETARG_POINTER(0);
	uint64		scratch[(MRF_MAX_VARIABLES + 63) / 64];
	uint64	   *slot;

	if (state == NULL)
	{
		const char *learner = LearnerName(fcinfo);
		MemoryContext old;

		state = MrfBitsStateCreate(aggctx);
		CheckOptionsConstant(fcinfo, learner);
		if (PG_ARGISNULL(2))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s needs options", learner),
					 errhint("Pass mrf_options(rho => ...).")));
		old = MemoryContextSwitchTo(aggctx);
		state->options = DatumGetJsonbPCopy(PG_GETARG_DATUM(2));
		MemoryContextSwitchTo(old);
		MrfBinaryReaderInit(&state->reader, get_fn_expr_argtype(fcinfo->flinfo, 1),
							aggctx, MemoryContextStrdup(aggctx, learner));
		state->reader_ready = true;
	}

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s does not accept NULL samples", state->reader.learner),
				 errhint("Filter out NULL rows, e.g. WHERE x IS NOT NULL.")));

	if (state->p < 0)
	{
		/* The first row fixes p: read it into scratch space, then size the state. */
		memset(scratch, 0, sizeof(scratch));
		MrfBinaryReadRow(&state->reader, PG_GETARG_DATUM(1), scratch);
		state->p = state->reader.p;
		state->words = MrfBitWords(state->p);
		slot = MrfBitsStateAppend(state, aggctx, state->reader.learner);
		memcpy(slot, scratch, sizeof(uint64) * state->words);
	}
	else
	{
		slot = MrfBitsStateAppend(state, aggctx, state->reader.learner);
		memset(slot, 0, sizeof(uint64) * state->words);
		MrfBinaryReadRow(&state->reader, PG_GETARG_DATUM(1), slot);
	}
	PG_RETURN_POINTER(state);
}

/* Appends src's rows to dst (same p and options). */
static void
MergeState(MrfBitsState *dst, const MrfBitsState *src, MemoryContext aggctx)
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
		dst->p = src->p;
		dst->words = src->words;
	}
	else if (dst->p != src->p)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("every sample must have the same number of variables"),
				 errdetail("Samples of %d and of %d variables were both seen.", dst->p, src->p)));

	if (dst->n + src->n > dst->capacity)
	{
		int64		cap = Max(dst->n + src->n, dst->capacity * 2);
		Size		bytes = (Size) cap * dst->words * sizeof(uint64);

		MrfCheckMemory(learner, (double) bytes);
		if (dst->bits == NULL)
			dst->bits = MemoryContextAllocHuge(aggctx, bytes);
		else
			dst->bits = repalloc_huge(dst->bits, bytes);
		dst->capacity = cap;
	}
	memcpy(dst->bits + (Size) dst->n * dst->words, src->bits,
		   (Size) src->n * src->words * sizeof(uint64));
	dst->n += src->n;
}

PG_FUNCTION_INFO_V1(mrf_bits_combine);
/* Combine: concatenates two partial states. */
Datum
mrf_bits_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = AggregateContext(fcinfo, "mrf_bits_combine");
	MrfBitsState *a = PG_ARGISNULL(0) ? NULL : (MrfBitsState *) PG_GETARG_POINTER(0);
	MrfBitsState *b = PG_ARGISNULL(1) ? NULL : (MrfBitsState *) PG_GETARG_POINTER(1);
	MemoryContext old;

	if (b == NULL)
		PG_RETURN_POINTER(a);
	old = MemoryContextSwitchTo(aggctx);
	if (a == NULL)
		a = MrfBitsStateCreate(aggctx);
	MergeState(a, b, aggctx);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(a);
}

PG_FUNCTION_INFO_V1(mrf_bits_serialize);
/* Serialize: p, n, options, packed rows. */
Datum
mrf_bits_serialize(PG_FUNCTION_ARGS)
{
	MrfBitsState *state = (MrfBitsState *) PG_GETARG_POINTER(0);
	StringInfoData buf;
	Size		nbytes = (Size) Max(state->n, 0) * Max(state->words, 0) * sizeof(uint64);

	(void) AggregateContext(fcinfo, "mrf_bits_serialize");
	pq_begintypsend(&buf);
	pq_sendint32(&buf, state->p);
	pq_sendint64(&buf, state->n);
	if (state->options != NULL)
	{
		pq_sendint32(&buf, VARSIZE(state->options));
		pq_sendbytes(&buf, (const char *) state->options, VARSIZE(state->options));
	}
	else
		pq_sendint32(&buf, 0);
	if (nbytes > 0)
		pq_sendbytes(&buf, (const char *) state->bits, nbytes);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

PG_FUNCTION_INFO_V1(mrf_bits_deserialize);
/* Deserialize: the inverse of mrf_bits_serialize, into the aggregate context. */
Datum
mrf_bits_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = AggregateContext(fcinfo, "mrf_bits_deserialize");
	bytea	   *data = PG_GETARG_BYTEA_PP(0);
	StringInfoData buf;
	MrfBitsState *state = MrfBitsStateCreate(aggctx);
	int			optlen;
	Size		nbytes;

	buf.data = VARDATA_ANY(data);
	buf.len = VARSIZE_ANY_EXHDR(data);
	buf.maxlen = buf.len;
	buf.cursor = 0;

	state->p = pq_getmsgint(&buf, 4);
	state->n = pq_getmsgint64(&buf);
	state->words = state->p > 0 ? MrfBitWords(state->p) : 0;
	optlen = pq_getmsgint(&buf, 4);
	if (optlen > 0)
	{
		state->options = MemoryContextAlloc(aggctx, optlen);
		pq_copymsgbytes(&buf, (char *) state->options, optlen);
	}
	nbytes = (Size) state->n * state->words * sizeof(uint64);
	if (nbytes > 0)
	{
		state->bits = MemoryContextAllocHuge(aggctx, nbytes);
		pq_copymsgbytes(&buf, (char *) state->bits, nbytes);
	}
	state->capacity = state->n;
	pq_getmsgend(&buf);
	PG_RETURN_POINTER(state);
}
