/*
 * fuzz_driver.c - libFuzzer inside a real backend, for the fuzz build only.
 *
 * test/fuzz/run_fuzz.sh copies this file into a staged copy of the source
 * tree and builds that copy with clang's -fsanitize=fuzzer-no-link (plus
 * AddressSanitizer and UBSan), so the normal extension never contains it.
 * The SQL function mrf_fuzz(target, args) hands libFuzzer's driver a
 * callback that runs one input through the real parsers of the extension:
 * every ereport is caught in an internal subtransaction (as a plpgsql
 * exception block does) and is an expected outcome when its SQLSTATE class
 * says "bad input" (22, 42, 54, ...).  Crashes, sanitizer reports, internal
 * errors (XX000) and broken round trips abort the process, so libFuzzer
 * saves the input.
 *
 * Targets (the input is UTF-8 text; a NUL byte ends it, as SQL text would):
 *   model       the mrf type's text input, then every accessor, the output
 *               and binary forms, and a round trip that must be exact;
 *   options     any jsonb document as the aggregates receive it: parsed,
 *               then checked by every learner as it plans a release;
 *   cliques     a JSON clique list as the value of option "cliques": checked
 *               by the clique learner for two shapes, learned on a few rows
 *               when accepted, and the model round-tripped;
 *   mrf_options typed arguments of mrf_options(), one "name<TAB>value" per
 *               line (the value goes through the parameter type's input
 *               function, as a SQL literal would), then as "options";
 *   ising       mrf_ising(weights, fields): two lines of float8[] text.
 */
#include "postgres.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sanitizer/asan_interface.h>

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/syscache.h"

#include "pg/driver/aggregates.h"
#include "pg/driver/learners.h"
#include "pg/model/model.h"
#include "pg/sqlapi/options.h"
#include "pg/driver/plan.h"

extern int	LLVMFuzzerRunDriver(int *argc, char ***argv,
								int (*callback) (const uint8_t *data, size_t size));

extern Datum mrf_in(PG_FUNCTION_ARGS);
extern Datum mrf_out(PG_FUNCTION_ARGS);
extern Datum mrf_send(PG_FUNCTION_ARGS);
extern Datum mrf_recv(PG_FUNCTION_ARGS);
extern Datum mrf_info(PG_FUNCTION_ARGS);
extern Datum mrf_ising(PG_FUNCTION_ARGS);
extern int	MrfTestSeed;

/*
 * Red zones for palloc.  PostgreSQL's allocator carves small chunks out of
 * big malloc blocks, so AddressSanitizer alone misses an overrun that stays
 * inside a block.  The build renames the extension's calls of palloc and
 * friends (-Dpalloc=MrfFuzzPalloc, ...) to these wrappers: in the context of
 * one fuzz input they poison the bytes after each chunk up to its end.  That
 * context is deleted after every input (its blocks go back to malloc), so no
 * poison outlives it.
 */
#undef palloc
#undef palloc0
#undef palloc_extended
#undef repalloc
#undef repalloc_huge
#undef pfree
#undef MemoryContextAlloc
#undef MemoryContextAllocZero
#undef MemoryContextAllocHuge
#undef MemoryContextAllocExtended
extern void *palloc(Size size);
extern void *palloc0(Size size);
extern void *palloc_extended(Size size, int flags);
extern void *repalloc(void *pointer, Size size);
extern void *repalloc_huge(void *pointer, Size size);
extern void pfree(void *pointer);
extern void *MemoryContextAlloc(MemoryContext context, Size size);
extern void *MemoryContextAllocZero(MemoryContext context, Size size);
extern void *MemoryContextAllocHuge(MemoryContext context, Size size);
extern void *MemoryContextAllocExtended(MemoryContext context, Size size, int flags);

void	   *MrfFuzzPalloc(Size size);
void	   *MrfFuzzPalloc0(Size size);
void	   *MrfFuzzPallocExtended(Size size, int flags);
void	   *MrfFuzzRepalloc(void *pointer, Size size);
void	   *MrfFuzzRepallocHuge(void *pointer, Size size);
void		MrfFuzzPfree(void *pointer);
void	   *MrfFuzzMemoryContextAlloc(MemoryContext context, Size size);
void	   *MrfFuzzMemoryContextAllocZero(MemoryContext context, Size size);
void	   *MrfFuzzMemoryContextAllocHuge(MemoryContext context, Size size);
void	   *MrfFuzzMemoryContextAllocExtended(MemoryContext context, Size size, int flags);

#define FUZZ_REDZONE 32

/* The context of the input being run (red zones apply there only). */
static MemoryContext FuzzInputCxt = NULL;

/* Bytes of a chunk header, measured (GetMemoryChunkSpace counts it). */
static Size FuzzChunkHeader = 0;

/* Usable bytes of a chunk. */
static Size
ChunkCapacity(void *p)
{
	return GetMemoryChunkSpace(p) - FuzzChunkHeader;
}

/* Makes the first size bytes usable and poisons the rest of the chunk. */
static void *
Guarded(void *p, Size size)
{
	Size		cap;

	if (p == NULL)
		return NULL;
	cap = ChunkCapacity(p);
	ASAN_UNPOISON_MEMORY_REGION(p, cap);
	if (cap > size)
		ASAN_POISON_MEMORY_REGION((char *) p + size, cap - size);
	return p;
}

/* Lifts the poison of a chunk before it goes back to the allocator. */
static void
Unguard(void *p)
{
	if (p != NULL && FuzzInputCxt != NULL && GetMemoryChunkContext(p) == FuzzInputCxt)
		ASAN_UNPOISON_MEMORY_REGION(p, ChunkCapacity(p));
}

/* Allocation in a context, with a red zone when it is the input's. */
static void *
AllocIn(MemoryContext cxt, Size size, int flags)
{
	if (cxt != FuzzInputCxt || FuzzInputCxt == NULL)
		return MemoryContextAllocExtended(cxt, size, flags);
	return Guarded(MemoryContextAllocExtended(cxt, size + FUZZ_REDZONE, flags), size);
}

void *
MrfFuzzPalloc(Size size)
{
	return AllocIn(CurrentMemoryContext, size, 0);
}

void *
MrfFuzzPalloc0(Size size)
{
	return AllocIn(CurrentMemoryContext, size, MCXT_ALLOC_ZERO);
}

void *
MrfFuzzPallocExtended(Size size, int flags)
{
	return AllocIn(CurrentMemoryContext, size, flags);
}

void *
MrfFuzzMemoryContextAlloc(MemoryContext context, Size size)
{
	return AllocIn(context, size, 0);
}

void *
MrfFuzzMemoryContextAllocZero(MemoryContext context, Size size)
{
	return AllocIn(context, size, MCXT_ALLOC_ZERO);
}

void *
MrfFuzzMemoryContextAllocHuge(MemoryContext context, Size size)
{
	return AllocIn(context, size, MCXT_ALLOC_HUGE);
}

void *
MrfFuzzMemoryContextAllocExtended(MemoryContext context, Size size, int flags)
{
	return AllocIn(context, size, flags);
}

/* repalloc keeps the chunk's context; guarded when that is the input's. */
static void *
Realloc(void *pointer, Size size, bool huge)
{
	bool		ours = FuzzInputCxt != NULL && GetMemoryChunkContext(pointer) == FuzzInputCxt;

	if (!ours)
		return huge ? repalloc_huge(pointer, size) : repalloc(pointer, size);
	Unguard(pointer);
	return Guarded(huge ? repalloc_huge(pointer, size + FUZZ_REDZONE)
				   : repalloc(pointer, size + FUZZ_REDZONE), size);
}

void *
MrfFuzzRepalloc(void *pointer, Size size)
{
	return Realloc(pointer, size, false);
}

void *
MrfFuzzRepallocHuge(void *pointer, Size size)
{
	return Realloc(pointer, size, true);
}

void
MrfFuzzPfree(void *pointer)
{
	Unguard(pointer);
	pfree(pointer);
}

/* SQLSTATE classes an input may legitimately end with, per stage. */
#define ALLOW_INPUT		"22 42 54"
#define ALLOW_ACCESSOR	"22 42 54 0A 53"
#define ALLOW_LEARN		"22 42 54 0A 53"
#define ALLOW_NONE		""

/* Rows of the shapes the learners plan for. */
#define FUZZ_ROWS 24

/* The input being run, for reports. */
static const char *FuzzCurrentInput = "";
static const char *FuzzTargetName = "";

/* Reports a finding and aborts: libFuzzer writes the input out. */
static void
pg_attribute_noreturn()
Finding(const char *what, const char *detail)
{
	fprintf(stderr, "\n==mrf_fuzz== FINDING in target %s: %s\n==mrf_fuzz== %s\n==mrf_fuzz== input: %s\n",
			FuzzTargetName, what, detail ? detail : "", FuzzCurrentInput);
	fflush(stderr);
	abort();
}

/* Whether an error's SQLSTATE class is one of the allowed ones. */
static bool
ErrorAllowed(int sqlerrcode, const char *allowed)
{
	const char *code = unpack_sql_state(sqlerrcode);

	for (const char *a = allowed; *a; a++)
		if (a[0] != ' ' && a[0] == code[0] && a[1] == code[1])
			return true;
	return false;
}

typedef void (*FuzzStep) (void *arg);

/*
 * Runs one step in an internal subtransaction.  True when it returned;
 * false when it raised an allowed error; an error of any other class is a
 * finding.
 */
static bool
Guard(FuzzStep step, void *arg, const char *allowed, const char *what)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool ok = true;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		step(arg);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (!ErrorAllowed(edata->sqlerrcode, allowed))
			Finding(what, psprintf("SQLSTATE %s: %s (%s)", unpack_sql_state(edata->sqlerrcode),
								   edata->message, edata->detail ? edata->detail : ""));
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

/* ---------------------------------------------------------------- model */

typedef struct ModelStep
{
	char	   *text;			/* in */
	Datum		model;			/* out */
	char	   *out;
	bytea	   *bin;
} ModelStep;

static void
StepParse(void *arg)
{
	ModelStep  *s = arg;

	s->model = DirectFunctionCall1(mrf_in, CStringGetDatum(s->text));
}

static void
StepOutput(void *arg)
{
	ModelStep  *s = arg;

	s->out = DatumGetCString(DirectFunctionCall1(mrf_out, s->model));
}

static void
StepSend(void *arg)
{
	ModelStep  *s = arg;

	s->bin = DatumGetByteaPP(DirectFunctionCall1(mrf_send, s->model));
}

static void
StepRecv(void *arg)
{
	ModelStep  *s = arg;
	StringInfoData buf;

	buf.data = VARDATA_ANY(s->bin);
	buf.len = VARSIZE_ANY_EXHDR(s->bin);
	buf.maxlen = buf.len;
	buf.cursor = 0;
	s->model = DirectFunctionCall1(mrf_recv, PointerGetDatum(&buf));
}

static void
StepInfo(void *arg)
{
	ModelStep  *s = arg;

	(void) DirectFunctionCall1(mrf_info, s->model);
}

/* The accessors, run through SQL as users run them. */
static const char *const AccessorQueries[] = {
	"SELECT count(*) FROM mrf_edges($1)",
	"SELECT count(*) FROM mrf_edges($1, 0.5)",
	"SELECT count(*) FROM mrf_fields($1)",
	"SELECT count(*) FROM mrf_weights($1)",
	"SELECT count(*) FROM mrf_monomials($1)",
	"SELECT count(*) FROM mrf_potentials($1)",
	"SELECT count(*) FROM mrf_marginals($1)",
	"SELECT count(*) FROM mrf_variables($1)",
	"SELECT length(mrf_dot($1))",
	"SELECT length(mrf_dot($1, 0.5))",
	"SELECT $1::jsonb",
	"SELECT count(*) FROM mrf_sample($1, 3, burn_in => 2, thin => 1, seed => 1)",
};

#define NUM_ACCESSORS lengthof(AccessorQueries)

static SPIPlanPtr AccessorPlans[NUM_ACCESSORS];

typedef struct AccessorStep
{
	int			which;
	Datum		model;
} AccessorStep;

static void
StepAccessor(void *arg)
{
	AccessorStep *a = arg;
	int			rc;

	rc = SPI_execute_plan(AccessorPlans[a->which], &a->model, NULL, true, 0);
	if (rc < 0)
		elog(ERROR, "SPI_execute_plan failed: %s", SPI_result_code_string(rc));
	SPI_freetuptable(SPI_tuptable);
}

/* Prepares the accessor queries once per backend. */
static void
PrepareAccessors(void)
{
	Oid			mrftype = TypenameGetTypid("mrf");

	if (!OidIsValid(mrftype))
		elog(ERROR, "type mrf not found: CREATE EXTENSION mrfdp first");
	for (int i = 0; i < NUM_ACCESSORS; i++)
	{
		AccessorPlans[i] = SPI_prepare(AccessorQueries[i], 1, &mrftype);
		if (AccessorPlans[i] == NULL)
			elog(ERROR, "could not prepare %s", AccessorQueries[i]);
		SPI_keepplan(AccessorPlans[i]);
	}
}

/*
 * Whether two models are the same value: every header field, every parameter
 * (as numbers: -0 equals 0, which no text form can tell apart) and the
 * metadata bytes.
 */
static bool
SameModel(const MrfModel *a, const MrfModel *b)
{
	Jsonb	   *ma = MrfModelMeta(a);
	Jsonb	   *mb = MrfModelMeta(b);

	if (a->version != b->version || a->kind != b->kind || a->flags != b->flags ||
		a->p != b->p || a->k != b->k || a->t != b->t || a->nparams != b->nparams ||
		a->meta_offset != b->meta_offset || VARSIZE(a) != VARSIZE(b))
		return false;
	for (int i = 0; i < a->nparams; i++)
		if (!(a->params[i] == b->params[i]))
			return false;
	return VARSIZE(ma) == VARSIZE(mb) && memcmp(ma, mb, VARSIZE(ma)) == 0;
}

/*
 * Everything that takes a model, for a model the extension accepted: the
 * output must read back to the same value (text and binary), and every
 * accessor may only refuse cleanly.
 */
static void
CheckModel(Datum model)
{
	ModelStep	s = {0};
	ModelStep	again = {0};
	MrfModel   *m = DatumGetMrfModelP(model);
	MrfModel   *m2;

	s.model = model;
	if (!Guard(StepOutput, &s, "54", "output of an accepted model"))
		return;
	again.text = s.out;
	(void) Guard(StepParse, &again, ALLOW_NONE, "reading back the output of an accepted model");
	(void) Guard(StepOutput, &again, ALLOW_NONE, "output of a model read back");
	if (strcmp(s.out, again.out) != 0)
		Finding("round trip changed the text", psprintf("first: %s\nsecond: %s", s.out, again.out));
	m2 = DatumGetMrfModelP(again.model);
	if (!SameModel(m, m2))
		Finding("round trip changed the value", s.out);

	(void) Guard(StepInfo, &s, "54", "mrf_info");
	if (Guard(StepSend, &s, "54", "mrf_send"))
	{
		ModelStep	r = s;

		(void) Guard(StepRecv, &r, ALLOW_NONE, "mrf_recv of mrf_send");
		m2 = DatumGetMrfModelP(r.model);
		if (!SameModel(m, m2))
			Finding("binary round trip changed the value", s.out);
	}

	for (int i = 0; i < NUM_ACCESSORS; i++)
	{
		AccessorStep a = {i, model};

		/* Gibbs sweeps cost p^2 each: sample small models only. */
		if (strstr(AccessorQueries[i], "mrf_sample") && m->p > 64)
			continue;
		(void) Guard(StepAccessor, &a, ALLOW_ACCESSOR, AccessorQueries[i]);
	}
}

static void
TargetModel(char *text)
{
	ModelStep	s = {0};

	s.text = text;
	if (Guard(StepParse, &s, ALLOW_INPUT, "mrf text input"))
		CheckModel(s.model);

	/* The binary input: a version byte, then the same text. */
	{
		Size		len = strlen(text);
		bytea	   *bin = palloc(VARHDRSZ + 1 + len);

		SET_VARSIZE(bin, VARHDRSZ + 1 + len);
		VARDATA(bin)[0] = 1;
		memcpy(VARDATA(bin) + 1, text, len);
		s.bin = bin;
		(void) Guard(StepRecv, &s, ALLOW_INPUT, "mrf binary input");
	}
}

/* -------------------------------------------------------------- options */

typedef struct LearnerSpec
{
	const char *name;
	const MrfLearner *learner;
	int			p;
} LearnerSpec;

static const LearnerSpec Learners[] = {
	{"ising", &MrfIsingLearner, 4},
	{"pairwise", &MrfPairwiseLearner, 4},
	{"twise", &MrfTwiseLearner, 5},
	{"structure", &MrfStructureLearner, 5},
	{"cliques", &MrfCliquesLearner, 5},
};

typedef struct PlanStep
{
	Jsonb	   *doc;
	MrfOptions	opt;
	const LearnerSpec *learner;
	int			p;
	int			k;
	bool		learn;			/* learn for real (else plan only) */
	MrfModel   *model;			/* out, when learned */
	MrfCharge	charge;
} PlanStep;

static void
StepJsonb(void *arg)
{
	PlanStep   *s = arg;
	char	   *text = (char *) s->doc;

	s->doc = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
}

static void
StepOptionsParse(void *arg)
{
	PlanStep   *s = arg;

	MrfOptionsParse(s->doc, &s->opt);
}

/* A state as the aggregates would have it after FUZZ_ROWS rows of p variables. */
static MrfRowsState *
FuzzState(const PlanStep *s, MrfRowFormat format)
{
	MrfRowsState *state = MrfRowsStateCreate(CurrentMemoryContext, format);
	uint64		x = 0x9e3779b97f4a7c15ULL;

	state->reader.learner = s->learner->name;
	state->kreader.learner = s->learner->name;
	MrfRowsStateSetShape(state, s->p, format == MRF_ROWS_BITS ? 2 : s->k);
	state->options = s->doc;
	for (int r = 0; r < FUZZ_ROWS; r++)
	{
		char	   *row = MrfRowsStateAppend(state, CurrentMemoryContext, s->learner->name);

		for (int j = 0; j < s->p; j++)
		{
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			if (format == MRF_ROWS_BITS)
			{
				if ((x >> 33) & 1)
					((uint64 *) row)[j / 64] |= UINT64CONST(1) << (j % 64);
			}
			else
				((uint8 *) row)[j] = (uint8) ((x >> 33) % s->k);
		}
	}
	return state;
}

/*
 * The driver's plan of a release as both paths make it (driver/plan.h): options,
 * then p and k, then n; and, when learning, the run.
 */
static void
StepPlan(void *arg)
{
	PlanStep   *s = arg;
	MrfPlan		plan;
	MrfRowsState *state;

	MrfPlanBegin(&plan, s->learner->learner, s->doc);
	state = FuzzState(s, MrfPlanRowsFormat(&plan));
	MrfPlanShape(&plan, state->p, state->k);
	MrfPlanRows(&plan, state->n);
	s->charge = plan.charge;
	s->model = s->learn ? MrfPlanRun(&plan, state) : NULL;
	if (s->learn && s->model != NULL && s->charge.rows != FUZZ_ROWS)
		Finding("the charge counts another number of rows", psprintf("%ld, not %d", (long) s->charge.rows, FUZZ_ROWS));
}

typedef struct ChargeStep
{
	const char *learner;		/* SQL name */
	Jsonb	   *doc;
	bool		protected_path;
	MrfCharge	charge;			/* out */
} ChargeStep;

static void
StepPlanCharge(void *arg)
{
	ChargeStep *c = arg;

	MrfPlanCharge(c->learner, c->doc, c->protected_path, &c->charge);
}

/*
 * Reports what must not happen but is not a crash (an option a learner
 * refuses only after the release was charged): printed once per message and
 * written to soft-*.txt beside libFuzzer's artifacts; fuzzing goes on.
 */
static void
SoftFinding(const char *what, const char *message)
{
	static List *seen = NIL;
	ListCell   *lc;
	MemoryContext old;
	char		path[MAXPGPATH];
	FILE	   *f;

	foreach(lc, seen)
		if (strcmp((char *) lfirst(lc), message) == 0)
			return;
	old = MemoryContextSwitchTo(TopMemoryContext);
	seen = lappend(seen, pstrdup(message));
	MemoryContextSwitchTo(old);
	fprintf(stderr, "\n==mrf_fuzz== SOFT FINDING in target %s: %s\n==mrf_fuzz== %s\n==mrf_fuzz== input: %s\n",
			FuzzTargetName, what, message, FuzzCurrentInput);
	/* The backend runs in its data directory: write beside the artifacts. */
	snprintf(path, sizeof(path), "%s/soft-%s-%d-%d.txt",
			 getenv("MRFDP_FUZZ_ARTIFACTS") ? getenv("MRFDP_FUZZ_ARTIFACTS") : ".",
			 FuzzTargetName, (int) getpid(), list_length(seen));
	f = fopen(path, "w");
	if (f != NULL)
	{
		fprintf(f, "%s\n%s\n%s\n", what, message, FuzzCurrentInput);
		fclose(f);
	}
}

/*
 * Learning on 24 rows stays fast below these (else only the plans run): the
 * pairwise learner's work grows as k^2 (k = 145 took minutes under ASan).
 */
#define FUZZ_MAX_LEARN_ITERATIONS 2000
#define FUZZ_MAX_LEARN_EM_ITERATIONS 100
#define FUZZ_MAX_LEARN_K 6
/* The Frank-Wolfe learners run more iterations for larger budgets (rho 1e308: minutes). */
#define FUZZ_MAX_LEARN_BUDGET 64.0

/*
 * The options document, as every learner plans a release with it: the
 * options-only plan (MrfPlanCharge, before any row), the driver's plan with
 * p, k and n, and, when both accept, the release itself.  Refusals
 * are expected; the two plans must agree on the charge to the bit, and a
 * learner whose plan accepted must not fail afterwards (the release would
 * have been charged).
 */
static void
PlanAll(Jsonb *doc)
{
	PlanStep	s = {0};

	s.doc = doc;
	if (!Guard(StepOptionsParse, &s, "22", "options parse"))
		return;
	for (int i = 0; i < lengthof(Learners); i++)
	{
		PlanStep	plan = s;
		ChargeStep	c = {0};
		ChargeStep	cp = {0};
		bool		options_ok;
		bool		plan_ok;

		c.learner = psprintf("mrf_learn_%s", Learners[i].name);
		c.doc = doc;
		options_ok = Guard(StepPlanCharge, &c, ALLOW_INPUT, "options-only plan");
		cp = c;
		cp.protected_path = true;
		if (options_ok)
			(void) Guard(StepPlanCharge, &cp, ALLOW_NONE, "options-only plan of the protected path");

		plan.learner = &Learners[i];
		plan.p = Learners[i].p;
		plan.k = (s.opt.given & MRF_OPT_K) ? s.opt.k : 3;
		plan_ok = Guard(StepPlan, &plan, ALLOW_INPUT, psprintf("planning %s", Learners[i].name));
		if (plan_ok && !options_ok)
			Finding("the learner accepted options its options-only plan refused", c.learner);
		if (!plan_ok)
			continue;
		if (!MrfChargeEqual(&c.charge, &plan.charge))
			Finding("the options-only plan and the learner disagree on the charge",
					psprintf("%s: %d %.17g %.17g %.17g against %d %.17g %.17g %.17g", c.learner,
							 (int) c.charge.notion, c.charge.rho, c.charge.epsilon, c.charge.delta,
							 (int) plan.charge.notion, plan.charge.rho, plan.charge.epsilon,
							 plan.charge.delta));
		if (((s.opt.given & MRF_OPT_ITERATIONS) && s.opt.iterations > FUZZ_MAX_LEARN_ITERATIONS) ||
			((s.opt.given & MRF_OPT_EM_ITERATIONS) && s.opt.em_iterations > FUZZ_MAX_LEARN_EM_ITERATIONS) ||
			((s.opt.given & MRF_OPT_K) && s.opt.k > FUZZ_MAX_LEARN_K) ||
			((s.opt.given & MRF_OPT_RHO) && s.opt.rho > FUZZ_MAX_LEARN_BUDGET) ||
			((s.opt.given & MRF_OPT_EPSILON) && s.opt.epsilon > FUZZ_MAX_LEARN_BUDGET))
			continue;
		/* The plan accepted: the release may still refuse for want of memory only. */
		plan.learn = true;
		{
			MemoryContext cxt = CurrentMemoryContext;
			ResourceOwner owner = CurrentResourceOwner;

			BeginInternalSubTransaction(NULL);
			MemoryContextSwitchTo(cxt);
			PG_TRY();
			{
				StepPlan(&plan);
				ReleaseCurrentSubTransaction();
				MemoryContextSwitchTo(cxt);
				CurrentResourceOwner = owner;
			}
			PG_CATCH();
			{
				ErrorData  *edata;

				MemoryContextSwitchTo(cxt);
				edata = CopyErrorData();
				FlushErrorState();
				RollbackAndReleaseCurrentSubTransaction();
				MemoryContextSwitchTo(cxt);
				CurrentResourceOwner = owner;
				plan.model = NULL;
				if (!ErrorAllowed(edata->sqlerrcode, "53"))
					SoftFinding(psprintf("%s failed after its plan accepted the options", c.learner),
								psprintf("SQLSTATE %s: %s", unpack_sql_state(edata->sqlerrcode),
										 edata->message));
			}
			PG_END_TRY();
		}
		if (plan.model != NULL)
		{
			if (!MrfChargeEqual(&c.charge, &plan.charge))
				Finding("the release spent another amount than planned", c.learner);
			CheckModel(PointerGetDatum(plan.model));
		}
	}
}

static void
TargetOptions(char *text)
{
	PlanStep	s = {0};

	s.doc = (Jsonb *) text;
	if (Guard(StepJsonb, &s, ALLOW_INPUT, "jsonb input"))
		PlanAll(s.doc);
}

/* -------------------------------------------------------------- cliques */

/* Most table cells of the clique models the fuzzer learns (speed). */
#define FUZZ_MAX_LEARN_CELLS 4096

static void
TargetCliques(char *text)
{
	PlanStep	s = {0};
	static const int shapes[][2] = {{6, 2}, {4, 3}};

	s.doc = (Jsonb *) text;
	if (!Guard(StepJsonb, &s, ALLOW_INPUT, "jsonb input"))
		return;
	for (int i = 0; i < lengthof(shapes); i++)
	{
		for (int method = 0; method < 2; method++)
		{
			PlanStep	plan = {0};
			PlanStep	doc = {0};
			double		cells = 0;

			doc.doc = (Jsonb *) psprintf("{\"epsilon\": 1, \"k\": %d, \"cliques\": %s%s}",
										 shapes[i][1], JsonbToCString(NULL, &s.doc->root, VARSIZE(s.doc)),
										 method ? ", \"method\": \"cgm\", \"em_iterations\": 3" : "");
			if (!Guard(StepJsonb, &doc, ALLOW_INPUT, "clique options document"))
				return;
			plan.doc = doc.doc;
			if (!Guard(StepOptionsParse, &plan, "22", "options parse"))
				return;
			plan.learner = &Learners[4];
			plan.p = shapes[i][0];
			plan.k = shapes[i][1];
			if (!Guard(StepPlan, &plan, ALLOW_INPUT, "planning cliques"))
				continue;
			for (int c = 0; c < plan.opt.ncliques; c++)
				cells += pow(plan.k, plan.opt.clique_size[c]);
			if (cells > FUZZ_MAX_LEARN_CELLS)
				continue;
			/* Accepted by the plan: learning must not fail, and its model reads back. */
			plan.learn = true;
			(void) Guard(StepPlan, &plan, ALLOW_NONE, "learning cliques after the plan accepted them");
			if (plan.model != NULL)
				CheckModel(PointerGetDatum(plan.model));
		}
	}
}

/* ---------------------------------------------------------- mrf_options */

typedef struct CallStep
{
	FmgrInfo   *flinfo;
	int			nargs;
	Oid		   *types;
	char	  **values;			/* text of each argument, or NULL */
	Datum		result;
	bool		isnull;
} CallStep;

static void
StepCall(void *arg)
{
	CallStep   *c = arg;
	LOCAL_FCINFO(fcinfo, FUNC_MAX_ARGS);

	InitFunctionCallInfoData(*fcinfo, c->flinfo, c->nargs, InvalidOid, NULL, NULL);
	for (int i = 0; i < c->nargs; i++)
	{
		fcinfo->args[i].isnull = c->values[i] == NULL;
		fcinfo->args[i].value = (Datum) 0;
		if (c->values[i] != NULL)
		{
			Oid			infunc;
			Oid			ioparam;

			getTypeInputInfo(c->types[i], &infunc, &ioparam);
			fcinfo->args[i].value = OidInputFunctionCall(infunc, c->values[i], ioparam, -1);
		}
	}
	c->result = FunctionCallInvoke(fcinfo);
	c->isnull = fcinfo->isnull;
}

/* A function's parameter names (NULL when it has none). */
static char **
ParamNames(Oid fn, int *nargs, Oid **types)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	Oid		   *argtypes;
	char	  **argnames;
	char	   *argmodes;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for function %u", fn);
	*nargs = get_func_arg_info(tup, &argtypes, &argnames, &argmodes);
	*types = argtypes;
	ReleaseSysCache(tup);
	return argnames;
}

/* Looks up a function by name and argument count (the extension's). */
static Oid
FindFunction(const char *name, int nargs, const Oid *types)
{
	return LookupFuncName(list_make1(makeString(pstrdup(name))), nargs, types, false);
}

/*
 * Named arguments, one per line as "name<TAB>value"; lines without a tab,
 * unknown names and repeated names are skipped.  The replay test reads the
 * same format.
 */
static void
ParseNamedArgs(char *text, int nargs, char **names, char **values)
{
	char	   *line = text;

	while (line != NULL && *line != '\0')
	{
		char	   *next = strchr(line, '\n');
		char	   *tab;

		if (next != NULL)
			*next++ = '\0';
		tab = strchr(line, '\t');
		if (tab != NULL)
		{
			*tab = '\0';
			for (int i = 0; i < nargs; i++)
				if (names[i] != NULL && strcmp(names[i], line) == 0 && values[i] == NULL)
					values[i] = tab + 1;
		}
		line = next;
	}
}

static void
TargetMrfOptions(char *text)
{
	static Oid	fn = InvalidOid;
	static FmgrInfo flinfo;
	static int	nargs;
	static Oid *types;
	static char **names;
	CallStep	c = {0};

	if (!OidIsValid(fn))
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		/* mrf_options has one signature: find it by name (regproc). */
		fn = DatumGetObjectId(DirectFunctionCall1(regprocin, CStringGetDatum("mrf_options")));
		names = ParamNames(fn, &nargs, &types);
		fmgr_info(fn, &flinfo);
		MemoryContextSwitchTo(old);
	}
	c.flinfo = &flinfo;
	c.nargs = nargs;
	c.types = types;
	c.values = palloc0(sizeof(char *) * nargs);
	ParseNamedArgs(text, nargs, names, c.values);
	if (Guard(StepCall, &c, ALLOW_INPUT, "mrf_options") && !c.isnull)
		PlanAll(DatumGetJsonbP(c.result));
}

/* ---------------------------------------------------------------- ising */

static void
TargetIsing(char *text)
{
	static FmgrInfo flinfo;
	static bool ready = false;
	CallStep	c = {0};
	Oid			types[2] = {FLOAT8ARRAYOID, FLOAT8ARRAYOID};
	char	   *values[2] = {text, NULL};
	char	   *nl = strchr(text, '\n');

	if (!ready)
	{
		fmgr_info_cxt(FindFunction("mrf_ising", 2, types), &flinfo, TopMemoryContext);
		ready = true;
	}
	if (nl != NULL)
	{
		*nl = '\0';
		values[1] = nl + 1;
	}
	c.flinfo = &flinfo;
	c.nargs = 2;
	c.types = types;
	c.values = values;
	if (Guard(StepCall, &c, ALLOW_INPUT, "mrf_ising") && !c.isnull)
		CheckModel(c.result);
}

/* ------------------------------------------------------------- the driver */

typedef struct FuzzTarget
{
	const char *name;
	void		(*run) (char *text);
} FuzzTarget;

static const FuzzTarget Targets[] = {
	{"model", TargetModel},
	{"options", TargetOptions},
	{"cliques", TargetCliques},
	{"mrf_options", TargetMrfOptions},
	{"ising", TargetIsing},
};

static const FuzzTarget *FuzzCurrent = NULL;
static long FuzzInputs = 0;

/* libFuzzer's callback: one input, in a context deleted afterwards. */
static int
FuzzOne(const uint8_t *data, size_t size)
{
	MemoryContext old;
	char	   *text;
	int			result = 0;

	FuzzInputCxt = AllocSetContextCreate(TopTransactionContext, "mrf_fuzz input",
										 0, 16 * 1024, 8 * 1024 * 1024);
	old = MemoryContextSwitchTo(FuzzInputCxt);
	text = palloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	/* SQL text ends at a NUL and is valid in the database encoding. */
	if (!pg_verifymbstr(text, strlen(text), true))
		result = -1;
	else
	{
		FuzzCurrentInput = pstrdup(text);
		FuzzCurrent->run(text);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(FuzzInputCxt);
	FuzzInputCxt = NULL;
	FuzzCurrentInput = "";
	/* The backend's own memory must stay flat over millions of inputs. */
	if (++FuzzInputs % 200000 == 0)
		fprintf(stderr, "==mrf_fuzz== %ld inputs, backend memory %zu kB\n", FuzzInputs,
				MemoryContextMemAllocated(TopMemoryContext, true) / 1024);
	return result;
}

PG_FUNCTION_INFO_V1(mrf_fuzz);
/*
 * mrf_fuzz(target, args): runs libFuzzer on a target with libFuzzer's
 * command-line arguments; libFuzzer ends the process when it is done.
 */
Datum
mrf_fuzz(PG_FUNCTION_ARGS)
{
	char	   *target = text_to_cstring(PG_GETARG_TEXT_PP(0));
	ArrayType  *args = PG_GETARG_ARRAYTYPE_P(1);
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	int			argc;
	char	  **argv;
	void	   *probe;

	for (int i = 0; i < lengthof(Targets); i++)
		if (strcmp(Targets[i].name, target) == 0)
			FuzzCurrent = &Targets[i];
	if (FuzzCurrent == NULL)
		ereport(ERROR, (errmsg("unknown fuzz target \"%s\"", target)));
	FuzzTargetName = FuzzCurrent->name;

	deconstruct_array(args, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &nelems);
	argc = nelems;
	argv = palloc0(sizeof(char *) * (argc + 1));
	for (int i = 0; i < nelems; i++)
		argv[i] = nulls[i] ? "" : TextDatumGetCString(elems[i]);

	probe = MemoryContextAlloc(CurrentMemoryContext, 8);
	FuzzChunkHeader = GetMemoryChunkSpace(probe) - 8;
	pfree(probe);

	/*
	 * libFuzzer installs its signal handlers only over default ones: give it
	 * SIGALRM (its -timeout for a slow input) and SIGINT (a stop with final
	 * statistics).  This backend does nothing but fuzz until libFuzzer ends it.
	 */
	signal(SIGALRM, SIG_DFL);
	signal(SIGINT, SIG_DFL);

	MrfTestSeed = 1;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	PrepareAccessors();
	PG_RETURN_INT32(LLVMFuzzerRunDriver(&argc, &argv, FuzzOne));
}
