/*
 * citus/state.c - learner aggregates whose state Citus can combine: the
 * workers pack their shards' rows, and packed rows travel
 * to the coordinator instead of tuples.
 *
 * Citus splits an aggregate into worker_partial_agg / coord_combine_agg only
 * when its state type is not a pseudo-type such as internal; the state then
 * travels as the type's text output.  So each learner has a sibling,
 * mrf_learn_<kind>_citus_agg(anyelement, jsonb), whose state type is bytea,
 * held while it grows as an expanded object (no copy per row) around the
 * same MrfRowsState the learners read, and flattened only when it leaves the
 * backend: [magic, format, p, k, n, options as JSON text, rows] (rows in
 * the format's layout: bits, bytes, or MrfCode values for the whole-table
 * learners; native byte order, which the magic number checks).  Its final
 * function is the learner's own driver (MrfAggregateRelease): planning,
 * charging and releasing are exactly the internal-state aggregate's, on the
 * node that runs the final function, which Citus puts on the coordinator
 * (and which refuses anywhere else, citus/cluster.c).  mrfdp's planner hook (citus/cluster.c)
 * puts the sibling in place of the learner's aggregate in query levels that
 * read a Citus table.
 *
 * A learner that reads only exact contingency tables (driver/learners.h:
 * table_cells, count_rows; the clique and MST learners) keeps counts instead: its
 * state counts the rows it is given into the tables its options fix (in
 * batches), travels as [magic, format, p, k, n, options, cells, counts],
 * and states combine by adding counts.  The coordinator then draws the noise
 * and charges exactly as for rows (integer sums: the model is bit for bit
 * the one-node model), and what travels is the size of the tables, not of
 * the rows.
 *
 * A flat state reaches the combine or final function from another node, or
 * from anyone who calls coord_combine_agg() with a text of their own, so it
 * is checked in full before use: its sizes, every value of a k-ary row
 * below k, the unused bits of a binary row zero, and the options parsed again from
 * their text.  Options must be the same in every row and every state.
 */
#include "postgres.h"

#include "common/int.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "core/rows.h"
#include "pg/driver/aggregates.h"
#include "pg/citus/cluster.h"
#include "pg/driver/learners.h"
#include "pg/driver/plan.h"

#define SHIPPED_MAGIC 0x4d524653	/* "MRFS" in native byte order */
#define COUNTS_MAGIC 0x4d524643		/* "MRFC": a counts state */
#define SHIPPED_HEADER (4 + 4 + 4 + 4 + 8 + 4)

/* Rows a counts state holds before counting them: 64 KB to 64 MB of them. */
#define COUNTS_BATCH_MIN_BYTES ((Size) 64 << 10)
#define COUNTS_BATCH_MAX_BYTES ((Size) 64 << 20)

/*
 * The expanded form of a state: the rows, and the options' text once known.
 * A counts state (counts != NULL) holds in rows only the batch of rows not
 * yet counted; counted rows are in counts.
 */
typedef struct ShippedState
{
	ExpandedObjectHeader hdr;
	MrfRowsState *rows;
	char	   *options_text;	/* JSON text of rows->options, for the flat form */
	int32		options_len;
	int64	   *counts;			/* the learner's tables, or NULL (a rows state) */
	int64		ncells;
	int64		counted;		/* rows in counts */
	int64		batch;			/* rows to gather before counting them */
} ShippedState;

static void BadState(const char *detail) pg_attribute_noreturn();
static Size ShippedFlatSize(ExpandedObjectHeader *eohptr);
static void ShippedFlatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods ShippedMethods = {
	ShippedFlatSize,
	ShippedFlatten
};

/*
 * The learner of the SQL function being called, named
 * mrf_learn_<kind>_citus_<role>: Citus calls the transition and final
 * functions itself, where no Aggref of ours tells the aggregate.
 */
static const MrfLearner *
CalledLearner(FunctionCallInfo fcinfo)
{
	char	   *name = get_func_name(fcinfo->flinfo->fn_oid);
	char	   *cut = name ? strstr(name, "_citus_") : NULL;
	const MrfLearner *learner;

	if (cut == NULL)
		elog(ERROR, "mrfdp: a Citus state function with an unexpected name");
	*cut = '\0';
	learner = MrfLearnerFind(name);
	if (learner == NULL)
		elog(ERROR, "mrfdp: no learner \"%s\"", name);
	return learner;
}

/* A new empty expanded state in a context of its own under aggctx. */
static ShippedState *
ShippedNew(MemoryContext aggctx, MrfRowFormat format)
{
	MemoryContext cxt = AllocSetContextCreate(aggctx, "mrfdp Citus state",
											  ALLOCSET_DEFAULT_SIZES);
	ShippedState *s = MemoryContextAllocZero(cxt, sizeof(ShippedState));

	EOH_init_header(&s->hdr, &ShippedMethods, cxt);
	s->rows = MrfRowsStateCreate(cxt, format);
	return s;
}

/* Sets the state's options (a copy in its context) and their text. */
static void
ShippedSetOptions(ShippedState *s, Jsonb *options)
{
	MemoryContext old = MemoryContextSwitchTo(s->hdr.eoh_context);

	s->rows->options = DatumGetJsonbPCopy(PointerGetDatum(options));
	s->options_text = JsonbToCString(NULL, &s->rows->options->root, VARSIZE(s->rows->options));
	s->options_len = strlen(s->options_text);
	MemoryContextSwitchTo(old);
}

/* Counts the batch of a counts state into its tables. */
static void
CountsFlush(ShippedState *s)
{
	MrfRowsState *rows = s->rows;

	if (s->counts == NULL || rows->n == 0)
		return;
	if (rows->plan == NULL)
		elog(ERROR, "mrfdp: a counts state with rows but no plan");
	/* every cell is at most counted: a sum that fits bounds them all */
	if (pg_add_s64_overflow(s->counted, rows->n, &s->counted))
		BadState("The state counts more rows than a count can hold.");
	rows->plan->learner->count_rows(rows->plan, MrfRowsCodes(rows), rows->n, s->counts);
	rows->n = 0;
}

/*
 * Rows to gather before counting them: a batch at least as large as the
 * tables (so adding a batch's tables costs no more than counting it), within
 * 64 KB and 64 MB.
 */
static int64
CountsBatch(int64 ncells, Size row_bytes)
{
	Size		batch_bytes = Min(Max(COUNTS_BATCH_MIN_BYTES, (Size) ncells * sizeof(int64)),
								  COUNTS_BATCH_MAX_BYTES);

	return Max(1, (int64) (batch_bytes / row_bytes));
}

/*
 * Turns a planned state whose learner reads only tables (and that has its
 * first row's shape) into a counts state.
 */
static void
CountsStart(ShippedState *s)
{
	const MrfLearner *learner = s->rows->plan->learner;

	if (learner->table_cells == NULL || s->counts != NULL)
		return;
	/* count_rows reads code rows (driver/learners.h) */
	if (s->rows->format != MRF_ROWS_CODES)
		elog(ERROR, "%s: tables are counted from code rows only", learner->name);
	s->ncells = learner->table_cells(s->rows->plan);
	if (s->ncells < 0)
	{
		/* tables too many or too large for a state (the options say so): rows travel */
		s->ncells = 0;
		return;
	}
	s->batch = CountsBatch(s->ncells, s->rows->row_bytes);

	/*
	 * Everything the state holds at once, checked in one sum before any of
	 * it is allocated (CountsStart runs at the first row, before that row
	 * is stored: no row storage yet):
	 *
	 * - its tables: ncells + 1 counts;
	 * - the tables count_rows fills for one batch before adding them, as
	 * many (the clique learner's and MST's; AIM's counts into the state's
	 * tables, for which this term is a margin);
	 * - the batch of rows gathered before they are counted: the row storage,
	 * reserved here for the whole batch so that it never grows past what
	 * was checked (a batch is counted as soon as it is full).
	 *
	 * The batch is at least the tables' size, so the rows are about a third
	 * of the sum; checked alone while they grew by doubling past the batch,
	 * they let a worker hold up to about twice what the check of the
	 * tables allowed for.
	 */
	Assert(s->rows->capacity == 0);
	MrfCheckMemory(learner->name,
				   2.0 * sizeof(int64) * (double) (s->ncells + 1) +
				   MrfRowsStateBytes(s->rows, s->batch));
	s->counts = MemoryContextAllocHuge(s->hdr.eoh_context, sizeof(int64) * (s->ncells + 1));
	memset(s->counts, 0, sizeof(int64) * (s->ncells + 1));
	MrfRowsStateReserve(s->rows, s->hdr.eoh_context, s->batch, learner->name);
}

/* See ShippedMethods. */
static Size
ShippedFlatSize(ExpandedObjectHeader *eohptr)
{
	ShippedState *s = (ShippedState *) eohptr;

	if (s->counts != NULL)
	{
		CountsFlush(s);
		return VARHDRSZ + SHIPPED_HEADER + s->options_len + 8 + (Size) s->ncells * sizeof(int64);
	}
	return VARHDRSZ + SHIPPED_HEADER + s->options_len +
		(s->rows->p > 0 ? (Size) s->rows->n * s->rows->row_bytes : 0);
}

/* See ShippedMethods: the flat bytea. */
static void
ShippedFlatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	ShippedState *s = (ShippedState *) eohptr;
	char	   *out = (char *) result + VARHDRSZ;
	uint32		magic = SHIPPED_MAGIC;
	int32		format = s->rows->format;
	int32		p = s->rows->p;
	int32		k = s->rows->k;
	int64		n = s->rows->n;
	Size		rows = p > 0 ? (Size) n * s->rows->row_bytes : 0;

	Assert(allocated_size == ShippedFlatSize(eohptr));
	SET_VARSIZE(result, allocated_size);
	if (s->counts != NULL)
	{
		magic = COUNTS_MAGIC;
		n = s->counted;
		rows = 0;
	}
	memcpy(out, &magic, 4);
	memcpy(out + 4, &format, 4);
	memcpy(out + 8, &p, 4);
	memcpy(out + 12, &k, 4);
	memcpy(out + 16, &n, 8);
	memcpy(out + 24, &s->options_len, 4);
	out += SHIPPED_HEADER;
	if (s->options_len > 0)
		memcpy(out, s->options_text, s->options_len);
	out += s->options_len;
	if (s->counts != NULL)
	{
		memcpy(out, &s->ncells, 8);
		memcpy(out + 8, s->counts, (Size) s->ncells * sizeof(int64));
	}
	else if (rows > 0)
		memcpy(out, s->rows->rows, rows);
}

/* Raises the error for a flat state that is not one this library wrote. */
static void
BadState(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid mrfdp aggregate state"),
			 errdetail("%s", detail)));
}

/*
 * A counts state from its flat form, checked: its sizes, and every count
 * between 0 and n (the learner checks the number of cells against the
 * tables its options fix before it reads them).
 */
static ShippedState *
CountsFromFlat(bytea *flat, MemoryContext aggctx)
{
	const char *in = VARDATA_ANY(flat);
	Size		len = VARSIZE_ANY_EXHDR(flat);
	int32		format;
	int32		p;
	int32		k;
	int64		n;
	int32		optlen;
	int64		ncells;
	ShippedState *s;
	char	   *text;

	memcpy(&format, in + 4, 4);
	memcpy(&p, in + 8, 4);
	memcpy(&k, in + 12, 4);
	memcpy(&n, in + 16, 8);
	memcpy(&optlen, in + 24, 4);
	if (format != MRF_ROWS_CODES || p < 1 || p > MRF_MAX_VARIABLES || n < 1 || k < 2 || k > MRF_MAX_ALPHABET)
		BadState("The state's shape is out of range.");
	if (optlen < 2 || (Size) optlen > len - SHIPPED_HEADER ||
		len - SHIPPED_HEADER - optlen < 8)
		BadState("The state's length does not match its contents.");
	memcpy(&ncells, in + SHIPPED_HEADER + optlen, 8);
	if (ncells < 1 || (uint64) ncells > (len - SHIPPED_HEADER - optlen - 8) / sizeof(int64) ||
		len != SHIPPED_HEADER + optlen + 8 + (Size) ncells * sizeof(int64))
		BadState("The state's length does not match its contents.");

	s = ShippedNew(aggctx, MRF_ROWS_CODES);
	text = palloc(optlen + 1);
	memcpy(text, in + SHIPPED_HEADER, optlen);
	text[optlen] = '\0';
	ShippedSetOptions(s, DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text))));
	pfree(text);
	MrfRowsStateSetShape(s->rows, p, k);
	s->ncells = ncells;
	s->counted = n;
	s->counts = MemoryContextAllocHuge(s->hdr.eoh_context, sizeof(int64) * (ncells + 1));
	memcpy(s->counts, in + SHIPPED_HEADER + optlen + 8, (Size) ncells * sizeof(int64));
	for (int64 x = 0; x < ncells; x++)
		if (s->counts[x] < 0 || s->counts[x] > n)
			BadState("A count lies outside 0 .. n.");
	s->batch = CountsBatch(ncells, s->rows->row_bytes);
	return s;
}

/*
 * An expanded state from a flat one, checked in full: the learners index
 * tables by the rows' values, so no value may lie outside the alphabet.
 */
static ShippedState *
ShippedFromFlat(bytea *flat, MemoryContext aggctx, const char *learner)
{
	const char *in = VARDATA_ANY(flat);
	Size		len = VARSIZE_ANY_EXHDR(flat);
	uint32		magic;
	int32		format;
	int32		p;
	int32		k;
	int64		n;
	int32		optlen;
	ShippedState *s;
	char	   *text;
	Size		row_bytes;

	if (len < SHIPPED_HEADER)
		BadState("The state is too short.");
	memcpy(&magic, in, 4);
	memcpy(&format, in + 4, 4);
	memcpy(&p, in + 8, 4);
	memcpy(&k, in + 12, 4);
	memcpy(&n, in + 16, 8);
	memcpy(&optlen, in + 24, 4);
	if (magic == COUNTS_MAGIC)
		return CountsFromFlat(flat, aggctx);
	if (magic != SHIPPED_MAGIC)
		BadState("The state was not written by this version of mrfdp on a machine of this byte order.");
	if (format != MRF_ROWS_BITS && format != MRF_ROWS_BYTES && format != MRF_ROWS_CODES)
		BadState("The state's row format is unknown.");
	if (p < 1 || p > MRF_MAX_VARIABLES || n < 1 ||
		(format == MRF_ROWS_BITS ? k != 2 :
		 (k < 2 || k > (format == MRF_ROWS_CODES ? MRF_MAX_ALPHABET : MRF_MAX_BYTE_ALPHABET))))
		BadState("The state's shape is out of range.");
	row_bytes = format == MRF_ROWS_BITS ? sizeof(uint64) * MrfBitWords(p) :
		format == MRF_ROWS_CODES ? sizeof(MrfCode) * (Size) p : (Size) p;
	if (optlen < 2 || (Size) optlen > len - SHIPPED_HEADER ||
		(uint64) n > (len - SHIPPED_HEADER - optlen) / row_bytes ||
		len != SHIPPED_HEADER + optlen + (Size) n * row_bytes)
		BadState("The state's length does not match its contents.");

	s = ShippedNew(aggctx, (MrfRowFormat) format);
	text = palloc(optlen + 1);
	memcpy(text, in + SHIPPED_HEADER, optlen);
	text[optlen] = '\0';
	ShippedSetOptions(s, DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text))));
	pfree(text);
	MrfRowsStateSetShape(s->rows, p, k);
	in += SHIPPED_HEADER + optlen;
	for (int64 r = 0; r < n; r++, in += row_bytes)
	{
		char	   *slot = MrfRowsStateAppend(s->rows, s->hdr.eoh_context, learner);

		memcpy(slot, in, row_bytes);
		if (format == MRF_ROWS_BYTES)
		{
			for (int j = 0; j < p; j++)
				if ((uint8) slot[j] >= k)
					BadState("A row holds a value outside its alphabet.");
		}
		else if (format == MRF_ROWS_CODES)
		{
			const MrfCode *z = (const MrfCode *) slot;

			for (int j = 0; j < p; j++)
				if (z[j] >= k)
					BadState("A row holds a value outside its alphabet.");
		}
		else if (p % 64 != 0)
		{
			uint64		last;

			memcpy(&last, slot + row_bytes - sizeof(uint64), sizeof(uint64));
			if ((last >> (p % 64)) != 0)
				BadState("A row has bits set beyond its variables.");
		}
	}
	return s;
}

/* The expanded state a state datum holds: this backend's own, or one made from a flat state. */
static ShippedState *
ShippedFromDatum(Datum d, MemoryContext aggctx, const char *learner)
{
	if (VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(d);

		if (eoh->eoh_methods == &ShippedMethods)
			return (ShippedState *) eoh;
	}
	return ShippedFromFlat(DatumGetByteaPP(d), aggctx, learner);
}

/*
 * The type of the sample argument: from the call's expression, or, when
 * Citus's worker_partial_agg calls the transition, from its ROW(sample,
 * options) argument.
 */
Oid
MrfCitusSampleType(FunctionCallInfo fcinfo)
{
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, 1);
	Aggref	   *aggref;

	if (OidIsValid(typid))
		return typid;
	aggref = AggGetAggref(fcinfo);
	if (aggref != NULL && list_length(aggref->args) == 2)
	{
		Expr	   *arg = ((TargetEntry *) lsecond(aggref->args))->expr;

		/* ROW(sample, options) or, for the scores aggregate, ROW(sample, step, tableoid) */
		if (IsA(arg, RowExpr) && list_length(((RowExpr *) arg)->args) >= 2)
			return exprType(linitial(((RowExpr *) arg)->args));
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("could not determine the type of the samples")));
}

/*
 * Plans a state from its options (at its first row, or once after it was
 * rebuilt from a flat form) and prepares its readers for samples of typid;
 * a state that has rows keeps their width and alphabet.
 */
static void
ShippedPrepare(ShippedState *s, const MrfLearner *learner, Oid typid)
{
	MrfRowsState *state = s->rows;
	MemoryContext old = MemoryContextSwitchTo(s->hdr.eoh_context);
	MrfPlan    *plan = palloc(sizeof(MrfPlan));
	MrfRowFormat format;

	/* every option error before the scan */
	MrfPlanBegin(plan, learner, state->options);
	format = MrfPlanRowsFormat(plan);
	if (state->p > 0 && state->format != format)
		BadState("The state's row format is not its learner's.");
	state->format = format;
	state->reader.learner = learner->name;
	state->kreader.learner = learner->name;
	if (format == MRF_ROWS_BITS)
		MrfBinaryReaderInit(&state->reader, typid, s->hdr.eoh_context, learner->name);
	else
		MrfKaryReaderInit(&state->kreader, typid,
						  (plan->opt.given & MRF_OPT_K) ? plan->opt.k : 0,
						  format == MRF_ROWS_CODES, s->hdr.eoh_context, learner->name);
	if (state->p > 0)
	{
		/* later samples must have the width and alphabet of the rows already in */
		state->reader.p = state->p;
		state->kreader.p = state->p;
		if (format != MRF_ROWS_BITS && state->kreader.k != 0 && state->kreader.k != state->k)
			BadState("The state's alphabet is not its samples'.");
		MrfPlanShape(plan, state->p, state->k);
		/*
		 * A counts state (from a flat form: another node's, or a role's own
		 * initial state) is counted into with this plan's tables: they must
		 * be the state's, before a row is counted into them.
		 */
		if (s->counts != NULL &&
			(learner->table_cells == NULL || learner->table_cells(plan) != s->ncells))
			BadState("The state's tables are not the ones its options give.");
	}
	state->plan = plan;
	MemoryContextSwitchTo(old);
}

/*
 * Called as its own aggregate (not through Citus's worker_partial_agg,
 * whose options the coordinator's planner hook checked), the options
 * argument must be a constant, a query parameter or a column, as for the
 * internal-state aggregates; every row's is then compared with the first's.
 */
static void
CheckOptionsArgument(FunctionCallInfo fcinfo, const MrfLearner *learner)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	char	   *name;
	Expr	   *arg;

	if (aggref == NULL || list_length(aggref->args) != 2)
		return;
	name = get_func_name(aggref->aggfnoid);
	if (name == NULL || strstr(name, "_citus_agg") == NULL)
		return;
	arg = lsecond_node(TargetEntry, aggref->args)->expr;
	if (IsA(arg, Const) || IsA(arg, Var) ||
		(IsA(arg, Param) && ((Param *) arg)->paramkind == PARAM_EXTERN))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s needs the same options for every row", learner->name),
			 errdetail("The options argument is not a constant."),
			 errhint("Pass constants or query parameters to mrf_options().")));
}

PG_FUNCTION_INFO_V1(mrf_citus_accum);
/* Transition: packs one sample into the expanded state (options the same in every row). */
Datum
mrf_citus_accum(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = MrfAggregateContext(fcinfo, "mrf_citus_accum");
	const MrfLearner *learner = CalledLearner(fcinfo);
	ShippedState *s;
	MrfRowsState *state;
	Jsonb	   *options;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s does not accept NULL samples", learner->name),
				 errhint("Filter out NULL rows, e.g. WHERE x IS NOT NULL.")));
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s needs options", learner->name),
				 errhint("Pass mrf_options(rho => ...).")));
	options = PG_GETARG_JSONB_P(2);

	if (PG_ARGISNULL(0))
	{
		CheckOptionsArgument(fcinfo, learner);
		s = ShippedNew(aggctx, MRF_ROWS_BITS);
		ShippedSetOptions(s, options);
	}
	else
	{
		s = ShippedFromDatum(PG_GETARG_DATUM(0), aggctx, learner->name);
		if (VARSIZE(options) != VARSIZE(s->rows->options) ||
			memcmp(options, s->rows->options, VARSIZE(options)) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s needs the same options for every row", learner->name),
					 errdetail("The options argument is not a constant."),
					 errhint("Pass constants or query parameters to mrf_options().")));
	}
	state = s->rows;
	if (state->plan == NULL)
		ShippedPrepare(s, learner, MrfCitusSampleType(fcinfo));

	if (state->p < 0)
	{
		/* The first row fixes p: read it into scratch space, then size and plan. */
		uint64		scratch[MRF_MAX_VARIABLES * sizeof(MrfCode) / sizeof(uint64) + 1];
		MemoryContext old;

		memset(scratch, 0, sizeof(scratch));
		if (state->format == MRF_ROWS_BITS)
		{
			MrfBinaryReadRow(&state->reader, PG_GETARG_DATUM(1), scratch);
			MrfRowsStateSetShape(state, state->reader.p, 2);
		}
		else
		{
			MrfKaryReadRow(&state->kreader, PG_GETARG_DATUM(1), scratch);
			MrfRowsStateSetShape(state, state->kreader.p, state->kreader.k);
		}
		old = MemoryContextSwitchTo(s->hdr.eoh_context);
		MrfPlanShape(state->plan, state->p, state->k);
		CountsStart(s);
		MemoryContextSwitchTo(old);
		memcpy(MrfRowsStateAppend(state, s->hdr.eoh_context, learner->name), scratch,
			   state->row_bytes);
	}
	else if (state->format == MRF_ROWS_BITS)
		MrfBinaryReadRow(&state->reader, PG_GETARG_DATUM(1),
						 MrfRowsStateAppend(state, s->hdr.eoh_context, learner->name));
	else
		MrfKaryReadRow(&state->kreader, PG_GETARG_DATUM(1),
					   MrfRowsStateAppend(state, s->hdr.eoh_context, learner->name));

	/*
	 * A row type fixes its alphabet only at its first row, after a state
	 * from a flat form fixed the state's: the values just read lie below
	 * the reader's k, which must be the state's.
	 */
	if (state->format != MRF_ROWS_BITS && state->kreader.k != state->k)
		BadState("The state's alphabet is not its samples'.");
	if (s->counts != NULL && state->n >= s->batch)
	{
		MemoryContext old = MemoryContextSwitchTo(s->hdr.eoh_context);

		CountsFlush(s);
		MemoryContextSwitchTo(old);
	}
	PG_RETURN_DATUM(EOHPGetRWDatum(&s->hdr));
}

PG_FUNCTION_INFO_V1(mrf_citus_combine);
/* Combine: appends the second state's rows to the first's (same options and shape). */
Datum
mrf_citus_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = MrfAggregateContext(fcinfo, "mrf_citus_combine");
	const char *learner = "mrfdp learner";
	ShippedState *a;
	ShippedState *b;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		a = ShippedFromDatum(PG_GETARG_DATUM(0), aggctx, learner);
		PG_RETURN_DATUM(EOHPGetRWDatum(&a->hdr));
	}
	b = ShippedFromDatum(PG_GETARG_DATUM(1), aggctx, learner);
	if (PG_ARGISNULL(0))
		PG_RETURN_DATUM(EOHPGetRWDatum(&b->hdr));
	a = ShippedFromDatum(PG_GETARG_DATUM(0), aggctx, learner);
	if (a->options_len != b->options_len ||
		memcmp(a->options_text, b->options_text, a->options_len) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s needs the same options for every row", learner)));
	if ((a->counts != NULL) != (b->counts != NULL))
		BadState("A state of counts cannot be combined with a state of rows.");
	if (a->counts != NULL)
	{
		if (a->rows->p != b->rows->p || a->rows->k != b->rows->k || a->ncells != b->ncells)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("every sample must have the same number of variables"),
					 errdetail("Samples of %d and of %d variables were both seen.",
							   a->rows->p, b->rows->p)));
		CountsFlush(a);
		CountsFlush(b);
		/* every cell is at most its state's count: a sum that fits bounds them all */
		if (pg_add_s64_overflow(a->counted, b->counted, &a->counted))
			BadState("The states count more rows than a count can hold.");
		for (int64 x = 0; x < a->ncells; x++)
			a->counts[x] += b->counts[x];
	}
	else if (b->rows->n > 0)
	{
		if (a->rows->format != b->rows->format || a->rows->p != b->rows->p ||
			a->rows->k != b->rows->k)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("every sample must have the same number of variables"),
					 errdetail("Samples of %d and of %d variables were both seen.",
							   a->rows->p, b->rows->p)));
		for (int64 r = 0; r < b->rows->n; r++)
			memcpy(MrfRowsStateAppend(a->rows, a->hdr.eoh_context, learner),
				   b->rows->rows + (Size) r * b->rows->row_bytes, b->rows->row_bytes);
	}
	PG_RETURN_DATUM(EOHPGetRWDatum(&a->hdr));
}

/*
 * Hands a counts state's tables to the learner's driver in place of rows:
 * counts whatever rows are left, plans the release for tables (the memory
 * of tables, not rows) and checks the tables' size against the plan's (a
 * state from another node or a user must match the options).
 */
static void
CountsPrepareRelease(ShippedState *s, const MrfLearner *learner, MemoryContext aggctx)
{
	MrfRowsState *rows = s->rows;
	MemoryContext old = MemoryContextSwitchTo(aggctx);
	MrfPlan    *plan = palloc(sizeof(MrfPlan));

	if (learner->table_cells == NULL)
		BadState("The state holds counts, which its learner does not read.");
	MrfPlanBegin(plan, learner, rows->options);
	plan->counts = true;
	MrfPlanShape(plan, rows->p, rows->k);
	if (learner->table_cells(plan) != s->ncells)
		BadState("The state's tables are not the ones its options give.");
	/* the rows not yet counted, into tables now known to be the plan's */
	CountsFlush(s);
	rows->plan = plan;
	rows->counts = s->counts;
	rows->ncells = s->ncells;
	rows->n = s->counted;
	MemoryContextSwitchTo(old);
}

PG_FUNCTION_INFO_V1(mrf_citus_final);
/*
 * Final: the learner's driver on the packed rows, exactly as the
 * internal-state aggregate's final function runs it (plan, budget check,
 * learn, charge before release).
 */
Datum
mrf_citus_final(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = MrfAggregateContext(fcinfo, "mrf_citus_final");
	const MrfLearner *learner = CalledLearner(fcinfo);
	ShippedState *s;
	LOCAL_FCINFO(inner, 1);
	Datum		result;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = ShippedFromDatum(PG_GETARG_DATUM(0), aggctx, learner->name);
	if (s->counts != NULL)
		CountsPrepareRelease(s, learner, aggctx);
	InitFunctionCallInfoData(*inner, fcinfo->flinfo, 1, fcinfo->fncollation,
							 fcinfo->context, NULL);
	inner->args[0].value = PointerGetDatum(s->rows);
	inner->args[0].isnull = false;
	result = MrfAggregateRelease(inner, learner);
	fcinfo->isnull = inner->isnull;
	/* true counts must not outlive the release (as in the core's learner) */
	if (s->counts != NULL)
		memset(s->counts, 0, sizeof(int64) * s->ncells);
	return result;
}
