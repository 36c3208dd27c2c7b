/*
 * citus/fw.c - distributed Frank-Wolfe on Citus (docs/citus_fw.md): the exact integer score sums of one Frank-Wolfe
 * iteration of any Frank-Wolfe learner's problem (core/fwdesign.h: Ising,
 * pairwise k-ary, t-wise) as an aggregate Citus splits over the shards,
 * mrfdp_internal.mrf_fw_ising_scores_agg (binary rows) or mrf_fw_kary_scores_agg
 * (k-ary rows) (sample, step, tableoid).
 *
 * The driver (protected/learn_from.c, the mrf_learn_*_from functions of the learners
 * with an fw_design, on a distributed table) runs the aggregate once to
 * count the rows, charges, then once per iteration t with step = [the
 * design (kind, p, k, t-wise order, radius, per-variable alphabets), t,
 * the selections of iterations 1 .. t-1].  Each worker reads its shards'
 * rows with the protected path's lenient reader of the design's rows (a
 * row it cannot read becomes the fixed row, and is counted) in batches of
 * a fixed size (its memory depends on the design, not on how many rows its
 * shards hold), and its partial state, when Citus ships it, is that part's
 * score sums (MrfFwDesignPartScores per batch: the design's X of the
 * batch, the margins replayed from w_1 = 0 with the selections, then one
 * product): [magic "MRFU", d, q, t, n, substituted, fingerprint, d q int64 sums].  A worker backend keeps the batches of the
 * shards it served, best-effort (below), so that a later iteration only
 * counts a kept shard's rows and moves its margins one step.  States add.  Integer sums over any partition of
 * the rows are the one-node sums, so the selections, the noise (drawn only
 * on the coordinator, by the driver) and the model are the one-node
 * learner's bit for bit, and so is the privacy proof.
 *
 * Workers release nothing: the final function returns the sums only inside
 * the driver's call (a backend flag), and refuses anywhere else, so nobody
 * reads exact sums through it; the driver charges once, before the first
 * iteration, on the coordinator.  A flat state is checked before it is
 * added (sizes, n and the substituted count, every sum within 127 n).
 */
#include "postgres.h"

#include <math.h>

#include "access/tsmapi.h"
#include "common/hashfn.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "nodes/execnodes.h"
#include "optimizer/optimizer.h"
#include "utils/rel.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "nodes/pg_list.h"

#include "core/fw.h"
#include "core/fwdesign.h"
#include "core/ising.h"
#include "core/pairwise.h"
#include "core/rows.h"
#include "pg/driver/aggregates.h"
#include "pg/citus/cluster.h"
#include "pg/driver/read_binary.h"
#include "pg/driver/learners.h"
#include "pg/sqlapi/options.h"
#include "pg/driver/run.h"

#define STEP_MAGIC 0x4d524654	/* "MRFT": a step with every selection */
#define STEP_LAST_MAGIC 0x4d524656	/* "MRFV": a step with the last selections only */
#define SUMS_MAGIC 0x4d524655	/* "MRFU": score sums */
#define STEP_HEADER 48
#define SUMS_HEADER (4 + 4 + 4 + 4 + 8 + 8 + 8)

/*
 * Rows a part packs before it adds their score sums and starts again.  A
 * part's memory is then a function of p alone: a shard's size is a
 * function of the data (the hash of each row's distribution column), so a
 * worker that kept its shard's rows, and refused them above its memory
 * limit, failed or not depending on the rows (after the charge).  Integer
 * sums over any partition of the rows are the one-node sums.
 */
#define FW_BATCH_ROWS 8192

/*
 * The smallest batch a part halves its batch to when FW_BATCH_ROWS rows do
 * not fit this worker's mrfdp.max_learner_memory: the coordinator plans
 * only its own memory, so a worker that refused its batch did so after the
 * charge (seen: every node at 1 MB, Ising p = 30, charged and withheld).
 */
#define FW_BATCH_MIN_ROWS 64

/* What a part of a batch of rows rows needs (rows, the design's part, two sums). */
static double
FwBatchBytes(const MrfFwDesign *design, int d, int q, Size row_bytes, int rows)
{
	return (double) rows * row_bytes + (double) MrfFwDesignPartBytes(design, rows) +
		2.0 * sizeof(int64) * d * q;
}

/* mrfdp.distributed_frank_wolfe */
int			MrfDistributedFw = MRF_DFW_AUTO;

static const struct config_enum_entry DistributedFwOptions[] = {
	{"auto", MRF_DFW_AUTO, false},
	{"on", MRF_DFW_ON, false},
	{"off", MRF_DFW_OFF, false},
	{NULL, 0, false}
};

/* Whether the driver's aggregate call is running in this backend. */
static bool DriverActive = false;

static void FwXactCallback(XactEvent event, void *arg);

/* Defines mrfdp.distributed_frank_wolfe. */
void
MrfCitusFwInit(void)
{
	DefineCustomEnumVariable("mrfdp.distributed_frank_wolfe",
							 "Whether the Frank-Wolfe learners' mrf_learn_*_from functions run over a distributed table's shards.",
							 "Ising, pairwise, t-wise (objective l1) and structure's threshold method. With auto, a Citus distributed table is learned where its rows are (each iteration's exact score sums as a distributed aggregate) when its rows would not fit mrfdp.max_learner_memory on the coordinator or a cost model (n, p, the iterations, the shards and nodes) predicts it faster; on always does so, off never. The model and the charge are the same either way.",
							 &MrfDistributedFw, MRF_DFW_AUTO, DistributedFwOptions,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	RegisterXactCallback(FwXactCallback, NULL);
}

/*
 * A step: what every worker needs for iteration t (palloc'd bytea): [magic
 * "MRFT", kind, p, k, order, t, radius, learn, has_kv, pad, kv (p bytes
 * when has_kv), sel_j and sel_sign ((t-1) q int32 each)].  With last (t >=
 * 2; magic "MRFV"), the selections of iteration t-1 only (q each): enough
 * for a part kept at iteration t-1, and a step whose size does not grow
 * with t (the whole history, sent to every shard, made T iterations cost
 * O(T^2 q)).
 */
bytea *
MrfFwStepCreate(uint64 learn, const MrfFwDesign *design, int t, bool last, const int *sel_j,
				const int *sel_sign)
{
	int			d;
	int			q;
	Size		sel;
	Size		kvlen = design->kv != NULL ? design->p : 0;
	bytea	   *step;
	char	   *out;
	int32		head[6] = {last && t > 1 ? STEP_LAST_MAGIC : STEP_MAGIC, design->kind, design->p,
	design->k, design->order, t};
	int32		has_kv[2] = {design->kv != NULL, 0};

	if (MrfFwDesignSizes(design, &d, &q) != MRF_OK)
		elog(ERROR, "mrfdp: invalid Frank-Wolfe design");
	sel = (Size) (t > 1 ? (last ? 1 : t - 1) : 0) * q * sizeof(int32);
	step = palloc(VARHDRSZ + STEP_HEADER + kvlen + 2 * sel);
	out = VARDATA(step);
	SET_VARSIZE(step, VARHDRSZ + STEP_HEADER + kvlen + 2 * sel);
	memcpy(out, head, 24);
	memcpy(out + 24, &design->radius, 8);
	memcpy(out + 32, &learn, 8);
	memcpy(out + 40, has_kv, 8);
	if (kvlen > 0)
		memcpy(out + STEP_HEADER, design->kv, kvlen);
	if (sel > 0)
	{
		memcpy(out + STEP_HEADER + kvlen, sel_j, sel);
		memcpy(out + STEP_HEADER + kvlen + sel, sel_sign, sel);
	}
	return step;
}

/* A step read back, checked (a step is a query parameter anyone can pass). */
typedef struct FwStep
{
	uint64		learn;			/* the release's random id (the workers' cache key) */
	MrfFwDesign design;			/* its kv, if any, in the state's context */
	int			d;
	int			q;
	int			t;
	int			first;			/* the iteration of the first selections held (1, or t-1 in a last step) */
	int		   *sel_j;
	int		   *sel_sign;
} FwStep;

/* Raises the error for a state or step this library did not write. */
static void
pg_attribute_noreturn()
BadFwState(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid mrfdp score state"),
			 errdetail("%s", detail)));
}

/* Reads a step into st (its alphabets and selections point into copies in cxt). */
static void
StepRead(bytea *step, MemoryContext cxt, FwStep *st)
{
	const char *in = VARDATA_ANY(step);
	Size		len = VARSIZE_ANY_EXHDR(step);
	int32		head[6];
	int32		has_kv[2];
	Size		kvlen;
	Size		sel;

	if (len < STEP_HEADER)
		BadFwState("The step is too short.");
	memcpy(head, in, 24);
	memset(&st->design, 0, sizeof(st->design));
	memcpy(&st->design.radius, in + 24, 8);
	memcpy(&st->learn, in + 32, 8);
	memcpy(has_kv, in + 40, 8);
	if ((head[0] != (int32) STEP_MAGIC && (head[0] != (int32) STEP_LAST_MAGIC || head[5] < 2)) ||
		head[2] < 2 || head[2] > MRF_MAX_VARIABLES ||
		head[5] < 0 || head[5] > 1000000 || (has_kv[0] != 0 && has_kv[0] != 1) ||
		(has_kv[0] && head[1] != MRF_FW_DESIGN_PAIRWISE))
		BadFwState("The step's header is out of range.");
	st->design.kind = (MrfFwDesignKind) head[1];
	st->design.p = head[2];
	st->design.k = head[3];
	st->design.order = head[4];
	st->t = head[5];
	st->first = head[0] == (int32) STEP_LAST_MAGIC ? st->t - 1 : 1;
	kvlen = has_kv[0] ? st->design.p : 0;
	if (len < STEP_HEADER + kvlen)
		BadFwState("The step is too short.");
	if (kvlen > 0)
	{
		uint8	   *kv = MemoryContextAlloc(cxt, kvlen);

		memcpy(kv, in + STEP_HEADER, kvlen);
		st->design.kv = kv;
	}
	if (MrfFwDesignSizes(&st->design, &st->d, &st->q) != MRF_OK)
		BadFwState("The step's design is out of range.");
	sel = (Size) (st->t > 1 ? st->t - st->first : 0) * st->q * sizeof(int32);
	if (len != STEP_HEADER + kvlen + 2 * sel)
		BadFwState("The step's length does not match its iteration.");
	st->sel_j = MemoryContextAlloc(cxt, sel + 1);
	st->sel_sign = MemoryContextAlloc(cxt, sel + 1);
	memcpy(st->sel_j, in + STEP_HEADER + kvlen, sel);
	memcpy(st->sel_sign, in + STEP_HEADER + kvlen + sel, sel);
	for (Size i = 0; i < sel / sizeof(int32); i++)
		if (st->sel_j[i] < 0 || st->sel_j[i] >= st->d || (st->sel_sign[i] != 1 && st->sel_sign[i] != -1))
			BadFwState("A selection is out of range.");
}

/* The learner whose rows a design reads (messages of the readers and memory checks). */
static const char *
DesignLearner(const MrfFwDesign *design)
{
	switch (design->kind)
	{
		case MRF_FW_DESIGN_PAIRWISE:
			return "mrf_learn_pairwise";
		case MRF_FW_DESIGN_TWISE:
			return "mrf_learn_twise";
		default:
			return "mrf_learn_ising";
	}
}

/*
 * The workers' cache (docs/citus_fw.md section 3, "Cached"), best-effort:
 * a backend keeps the shards it served in the current learn, batch by
 * batch (each batch converted once, with its margins), while they fit its
 * mrfdp.max_learner_memory together; a shard that does not fit is simply
 * not kept (never an error: a shard's size depends on the data).  A later
 * iteration that finds its shard kept whole moves each batch's margins one
 * step, and reads no row when the scan is mrf_fw_kept (below; else it
 * counts the shard's rows against the kept ones).  One learn at a time per backend: a new learn id frees
 * the previous learn's parts.  A miss (another backend, a parallel scan, a
 * part whose update was interrupted) replays the margins from the rows,
 * which gives the same sums.
 */
typedef struct CachedPart
{
	Oid			shard;			/* the relation the rows came from (tableoid) */
	int64		n;
	int64		substituted;
	uint64		fingerprint;	/* of the rows kept (RowFingerprint) */
	List	   *batches;		/* of MrfFwDesignPart, in the order of the rows */
	bool		complete;		/* every row of the shard is in batches */
	bool		busy;			/* an update started and did not finish (an error):
								 * its margins may be half updated, never read again */
	int			claimed;		/* the iteration whose scan stops after one row
								 * (mrf_fw_kept), or 0 */
	bool		served;			/* the claimed scan's row reached the aggregate */
} CachedPart;

static MemoryContext CacheCxt = NULL;
static uint64 CacheLearn = 0;
static List *CacheParts = NIL;	/* of CachedPart, in CacheCxt */
static double CacheBytes = 0;	/* planned bytes of every kept batch */

/* The cache of learn (emptied when it held another learn's parts). */
static void
CacheUse(uint64 learn)
{
	if (CacheCxt != NULL && CacheLearn == learn)
		return;
	if (CacheCxt != NULL)
		MemoryContextDelete(CacheCxt);
	CacheCxt = AllocSetContextCreate(TopMemoryContext, "mrfdp Frank-Wolfe parts",
									 ALLOCSET_DEFAULT_SIZES);
	CacheLearn = learn;
	CacheParts = NIL;
	CacheBytes = 0;
}

/*
 * See citus/cluster.h.  The driver's own backend serves the coordinator's shards
 * (Citus's local execution): what it kept there is the protected rows'
 * converted form in the analyst's process, so it goes when the learn ends.
 */
void
MrfFwCacheForget(void)
{
	if (CacheCxt != NULL)
		MemoryContextDelete(CacheCxt);
	CacheCxt = NULL;
	CacheLearn = 0;
	CacheParts = NIL;
	CacheBytes = 0;
}

/* The usable kept part of shard in learn, or NULL. */
static CachedPart *
CacheFind(uint64 learn, Oid shard)
{
	ListCell   *lc;

	if (CacheCxt == NULL || CacheLearn != learn || !OidIsValid(shard))
		return NULL;
	foreach(lc, CacheParts)
	{
		CachedPart *c = lfirst(lc);

		if (c->shard == shard && c->complete && !c->busy)
			return c;
	}
	return NULL;
}

/*
 * The kept part of shard in learn that a step of iteration t holding the
 * selections from iteration first on can move without its rows, or NULL.
 */
static CachedPart *
CacheHit(uint64 learn, Oid shard, int t, int first)
{
	CachedPart *c = CacheFind(learn, shard);
	ListCell   *lb;

	if (c == NULL || t < 2 || IsInParallelMode())
		return NULL;
	/* the step holds the selections from iteration first: the part must be there */
	foreach(lb, c->batches)
		if (MrfFwDesignPartIteration(lfirst(lb)) >= t || MrfFwDesignPartIteration(lfirst(lb)) < first)
			return NULL;
	return c;
}

/* Forgets shard's kept part, if any (its memory returns with the learn's context). */
static void
CacheDrop(Oid shard)
{
	ListCell   *lc;

	foreach(lc, CacheParts)
	{
		CachedPart *c = lfirst(lc);

		if (c->shard == shard)
		{
			ListCell   *lb;

			foreach(lb, c->batches)
				MrfFwDesignPartClose(lfirst(lb));
			CacheParts = foreach_delete_current(CacheParts, lc);
		}
	}
}

/*
 * The expanded state: a part's packed rows (until it is shipped), or its
 * sums (once computed or read from a flat state).
 */
typedef struct FwState
{
	ExpandedObjectHeader hdr;
	FwStep		step;
	Oid			shard;			/* tableoid of the rows, when given */
	bool		skip;			/* rows a last step cannot use: not counted */
	CachedPart *hit;			/* this shard kept whole from an earlier iteration */
	bool		claimed;		/* and its scan stopped after one row (mrf_fw_kept):
								 * its row count is the kept one */
	CachedPart *keep;			/* this shard being kept, batch by batch, or NULL */
	int64		n;
	int64		substituted;
	uint64		fingerprint;	/* the sum of its rows' RowFingerprint, mod 2^64 */
	/* rows: the current batch of at most FW_BATCH_ROWS, row_bytes each */
	uint8	   *rows;
	Size		row_bytes;
	int64		batch;			/* rows in the batch */
	int			batch_rows;		/* the batch's size: FW_BATCH_ROWS, or less where it does not fit */
	bool		reading;		/* a transition's state (readers set up) */
	MrfBinaryReader reader;		/* binary designs */
	MrfKaryReader kreader;		/* the pairwise design */
	/* the sums of the batches added so far, or NULL */
	int64	   *partial;
	/* sums: (p + 1) p, or NULL until computed */
	int64	   *sums;
} FwState;

/*
 * A row's fingerprint, as read (codes or bits, the substituted row
 * included): the driver compares the sum over the rows of every read with
 * the counting pass's, so that a learn whose rows changed between two
 * iterations (an UPDATE that keeps their number) fails instead of mixing two
 * versions of the rows.  Sums are order-free, as the shards' parts are.
 */
static uint64
RowFingerprint(const uint8 *row, Size row_bytes)
{
	return hash_bytes_extended(row, (int) row_bytes, UINT64CONST(0x6d72666470));
}

static Size FwFlatSize(ExpandedObjectHeader *eohptr);
static void FwFlatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods FwMethods = {
	FwFlatSize,
	FwFlatten
};

/* Cells of the sums: d x q. */
static Size
SumCells(const FwStep *step)
{
	return (Size) step->d * step->q;
}

/* Adds the score sums of the rows of the current batch to the part's and empties it. */
static void
FwAddBatch(FwState *s)
{
	int64	   *batch;

	if (s->batch == 0)
		return;
	if (s->partial == NULL)
		s->partial = MemoryContextAllocZero(s->hdr.eoh_context, sizeof(int64) * SumCells(&s->step));
	batch = palloc(sizeof(int64) * SumCells(&s->step));
	if (s->keep != NULL)
	{
		/* keep this batch too, if the kept batches still fit; else keep none of the shard */
		double		bytes = (double) MrfFwDesignPartBytes(&s->step.design, s->batch);

		if (MrfMemoryFits(CacheBytes + bytes))
		{
			MemoryContext old = MemoryContextSwitchTo(CacheCxt);
			MrfFwDesignPart *part;

			if (MrfFwDesignPartOpen(&s->step.design, s->rows, s->batch, &MrfPallocEnv, &part) != MRF_OK)
				elog(ERROR, "mrfdp: a batch of a shard could not be kept");
			s->keep->batches = lappend(s->keep->batches, part);
			MemoryContextSwitchTo(old);
			CacheBytes += bytes;
			if (MrfFwDesignPartAdvanceFrom(part, s->step.t, s->step.first, s->step.sel_j,
										   s->step.sel_sign, batch) != MRF_OK)
				elog(ERROR, "mrfdp: the score sums of a part could not be computed");
			goto add;
		}
		CacheDrop(s->shard);
		s->keep = NULL;
	}
	if (MrfFwDesignPartScores(&s->step.design, s->rows, s->batch, s->step.t, s->step.sel_j,
							  s->step.sel_sign, &MrfPallocEnv, batch) != MRF_OK)
		elog(ERROR, "mrfdp: the score sums of a part could not be computed");
add:
	for (Size c = 0; c < SumCells(&s->step); c++)
		s->partial[c] += batch[c];
	pfree(batch);
	s->batch = 0;
}

/* Computes a rows state's sums for its step (t >= 1); t = 0 has none. */
static void
FwComputeSums(FwState *s)
{
	if (s->sums != NULL || s->step.t < 1)
		return;
	if (s->n > INT_MAX)
		BadFwState("The part's row count is out of range.");
	if (s->hit != NULL)
	{
		/* the shard's rows as the first iteration read them, each batch one step on */
		int64	   *batch = palloc(sizeof(int64) * SumCells(&s->step));
		ListCell   *lb;

		if (s->claimed)
			s->n = s->hit->n;
		if (s->hit->n != s->n)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("a shard changed during a distributed learn")));
		s->substituted = s->hit->substituted;
		s->fingerprint = s->hit->fingerprint;
		s->sums = MemoryContextAllocZero(s->hdr.eoh_context, sizeof(int64) * SumCells(&s->step));
		s->hit->busy = true;
		foreach(lb, s->hit->batches)
		{
			if (MrfFwDesignPartAdvanceFrom(lfirst(lb), s->step.t, s->step.first, s->step.sel_j,
										   s->step.sel_sign, batch) != MRF_OK)
				elog(ERROR, "mrfdp: the score sums of a kept part could not be computed");
			for (Size c = 0; c < SumCells(&s->step); c++)
				s->sums[c] += batch[c];
		}
		s->hit->busy = false;
		pfree(batch);
		return;
	}
	FwAddBatch(s);
	if (s->keep != NULL)
	{
		s->keep->n = s->n;
		s->keep->substituted = s->substituted;
		s->keep->fingerprint = s->fingerprint;
		s->keep->complete = true;
		s->keep->busy = false;
	}
	s->sums = s->partial != NULL ? s->partial :
		MemoryContextAllocZero(s->hdr.eoh_context, sizeof(int64) * SumCells(&s->step));
	s->partial = NULL;
	if (s->rows != NULL)
		pfree(s->rows);
	s->rows = NULL;
}

/* See FwMethods. */
static Size
FwFlatSize(ExpandedObjectHeader *eohptr)
{
	FwState    *s = (FwState *) eohptr;

	return VARHDRSZ + SUMS_HEADER + (s->step.t >= 1 ? SumCells(&s->step) * sizeof(int64) : 0);
}

/* See FwMethods: the part's sums, computed here when it leaves the backend. */
static void
FwFlatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	FwState    *s = (FwState *) eohptr;
	char	   *out = (char *) result + VARHDRSZ;
	int32		head[4] = {SUMS_MAGIC, s->step.d, s->step.q, s->step.t};

	FwComputeSums(s);
	SET_VARSIZE(result, allocated_size);
	memcpy(out, head, 16);
	memcpy(out + 16, &s->n, 8);
	memcpy(out + 24, &s->substituted, 8);
	memcpy(out + 32, &s->fingerprint, 8);
	if (s->step.t >= 1)
		memcpy(out + SUMS_HEADER, s->sums, SumCells(&s->step) * sizeof(int64));
}

/* A new state for step in a context of its own under aggctx. */
static FwState *
FwNew(MemoryContext aggctx)
{
	MemoryContext cxt = AllocSetContextCreate(aggctx, "mrfdp score state", ALLOCSET_DEFAULT_SIZES);
	FwState    *s = MemoryContextAllocZero(cxt, sizeof(FwState));

	EOH_init_header(&s->hdr, &FwMethods, cxt);
	return s;
}

/* A sums state from its flat form, checked. */
static FwState *
FwFromFlat(bytea *flat, MemoryContext aggctx)
{
	const char *in = VARDATA_ANY(flat);
	Size		len = VARSIZE_ANY_EXHDR(flat);
	int32		head[4];
	FwStep		step;
	FwState    *s;

	if (len < SUMS_HEADER)
		BadFwState("The state is too short.");
	memcpy(head, in, 16);
	memset(&step, 0, sizeof(step));
	step.d = head[1];
	step.q = head[2];
	step.t = head[3];
	if (head[0] != (int32) SUMS_MAGIC || step.d < 1 || step.q < 1 || step.d > INT_MAX / step.q ||
		step.t < 0)
		BadFwState("The state's header is out of range.");
	if (len != SUMS_HEADER + (step.t >= 1 ? SumCells(&step) * sizeof(int64) : 0))
		BadFwState("The state's length does not match its contents.");
	s = FwNew(aggctx);
	s->step = step;
	memcpy(&s->n, in + 16, 8);
	memcpy(&s->substituted, in + 24, 8);
	memcpy(&s->fingerprint, in + 32, 8);
	if (s->n < 0 || s->n > INT_MAX || s->substituted < 0 || s->substituted > s->n)
		BadFwState("The state's row counts are out of range.");
	if (step.t >= 1)
	{
		s->sums = MemoryContextAllocHuge(s->hdr.eoh_context, sizeof(int64) * SumCells(&s->step));
		memcpy(s->sums, in + SUMS_HEADER, SumCells(&s->step) * sizeof(int64));
		/* each row adds at most 127 to a sum in magnitude (fw.c) */
		for (Size c = 0; c < SumCells(&s->step); c++)
			if (s->sums[c] > MRF_FW_QUANTUM * s->n || s->sums[c] < -MRF_FW_QUANTUM * s->n)
				BadFwState("A score sum exceeds what its rows can add.");
	}
	return s;
}

/* The expanded state a datum holds: this backend's own, or one from a flat state. */
static FwState *
FwFromDatum(Datum d, MemoryContext aggctx)
{
	if (VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(d);

		if (eoh->eoh_methods == &FwMethods)
			return (FwState *) eoh;
	}
	return FwFromFlat(DatumGetByteaPP(d), aggctx);
}

PG_FUNCTION_INFO_V1(mrf_fw_scores_accum);
/*
 * Transition: reads one sample as the protected path does (an unreadable
 * sample, NULL included, becomes the fixed row and is counted) and packs
 * it into the current batch; a full batch's score sums are added to the
 * part's (FW_BATCH_ROWS: the memory checked against mrfdp.max_learner_memory
 * is one batch's, whatever the shard's size).
 */
Datum
mrf_fw_scores_accum(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = MrfAggregateContext(fcinfo, "mrf_fw_scores_accum");
	FwState    *s;
	uint8	   *slot;
	bool		read;

	if (PG_ARGISNULL(2))
		BadFwState("The step is NULL.");
	if (PG_ARGISNULL(0))
	{
		MemoryContext old;

		s = FwNew(aggctx);
		StepRead(PG_GETARG_BYTEA_PP(2), s->hdr.eoh_context, &s->step);
		old = MemoryContextSwitchTo(s->hdr.eoh_context);
		/* the protected path's lenient readers, as the one-node read (protected/learn_from.c) */
		if (s->step.design.kind == MRF_FW_DESIGN_PAIRWISE)
		{
			MrfKaryReaderInit(&s->kreader, MrfCitusSampleType(fcinfo), s->step.design.k, false,
							  s->hdr.eoh_context, DesignLearner(&s->step.design));
			MrfKaryReaderSetLenient(&s->kreader, s->step.design.p);
		}
		else
		{
			MrfBinaryReaderInit(&s->reader, MrfCitusSampleType(fcinfo), s->hdr.eoh_context,
								DesignLearner(&s->step.design));
			MrfBinaryReaderSetLenient(&s->reader, s->step.design.p);
		}
		s->reading = true;
		s->row_bytes = MrfFwDesignRowBytes(&s->step.design);
		MemoryContextSwitchTo(old);
		if (PG_NARGS() > 3 && !PG_ARGISNULL(3))
			s->shard = PG_GETARG_OID(3);
		/*
		 * a parallel scan's process sees part of the shard: nothing kept or
		 * read back; a step with the last selections only cannot replay the
		 * rows of a shard not kept here: it adds nothing (the driver sees
		 * fewer rows than it counted and sends the whole step)
		 */
		s->skip = s->step.first > 1;
		if (s->step.t >= 1 && OidIsValid(s->shard) && !IsInParallelMode())
		{
			CachedPart *c = CacheHit(s->step.learn, s->shard, s->step.t, s->step.first);

			if (c != NULL)
			{
				s->hit = c;
				s->skip = false;
				/* the scan (mrf_fw_kept) stops once this row is here */
				s->claimed = c->claimed == s->step.t;
				c->served = s->claimed;
			}
			else if (!s->skip)
			{
				/* keep this shard's batches as they are computed (best-effort) */
				CacheUse(s->step.learn);
				CacheDrop(s->shard);
				old = MemoryContextSwitchTo(CacheCxt);
				s->keep = palloc0(sizeof(CachedPart));
				s->keep->shard = s->shard;
				s->keep->busy = true;
				CacheParts = lappend(CacheParts, s->keep);
				MemoryContextSwitchTo(old);
			}
		}
	}
	else
	{
		s = FwFromDatum(PG_GETARG_DATUM(0), aggctx);
		if (s->sums != NULL || !s->reading)
			BadFwState("Rows cannot be added to a state of sums.");
	}
	if (s->skip)
		PG_RETURN_DATUM(EOHPGetRWDatum(&s->hdr));
	if (s->hit != NULL)
	{
		/* the shard is kept whole: its rows are only counted (unless the scan stopped) */
		if (!s->claimed)
			s->n++;
		PG_RETURN_DATUM(EOHPGetRWDatum(&s->hdr));
	}
	if (s->step.t == 0)
	{
		/* the counting step keeps no rows: one row of scratch */
		if (s->rows == NULL)
			s->rows = MemoryContextAlloc(s->hdr.eoh_context, s->row_bytes);
		slot = s->rows;
	}
	else
	{
		if (s->rows == NULL)
		{
			/*
			 * One batch: what a part needs is a function of the design and
			 * this node's setting only, never of the shard's rows.  Halved
			 * until it fits (the sums of any partition of the rows are the
			 * same), refused only below FW_BATCH_MIN_ROWS.
			 */
			s->batch_rows = FW_BATCH_ROWS;
			while (s->batch_rows > FW_BATCH_MIN_ROWS &&
				   !MrfMemoryFits(FwBatchBytes(&s->step.design, s->step.d, s->step.q, s->row_bytes, s->batch_rows)))
				s->batch_rows /= 2;
			MrfCheckMemory(DesignLearner(&s->step.design),
						   FwBatchBytes(&s->step.design, s->step.d, s->step.q, s->row_bytes, s->batch_rows));
			s->rows = MemoryContextAllocHuge(s->hdr.eoh_context,
											 (Size) s->batch_rows * s->row_bytes);
		}
		else if (s->batch == s->batch_rows)
			FwAddBatch(s);
		slot = s->rows + s->batch * s->row_bytes;
	}
	memset(slot, 0, s->row_bytes);
	if (s->step.design.kind == MRF_FW_DESIGN_PAIRWISE)
		read = MrfKaryReadRowLenient(&s->kreader, PG_GETARG_DATUM(1), PG_ARGISNULL(1), slot);
	else
		read = MrfBinaryReadRowLenient(&s->reader, PG_GETARG_DATUM(1), PG_ARGISNULL(1),
									   (uint64 *) slot, MrfBitWords(s->step.design.p));
	if (!read)
		s->substituted++;
	s->fingerprint += RowFingerprint(slot, s->row_bytes);
	if (s->step.t >= 1)
		s->batch++;
	s->n++;
	PG_RETURN_DATUM(EOHPGetRWDatum(&s->hdr));
}

/* Adds b into a (both sums of the same step). */
static void
FwAdd(FwState *a, FwState *b)
{
	if (a->step.d != b->step.d || a->step.q != b->step.q || a->step.t != b->step.t)
		BadFwState("The states are of different steps.");
	if (a->step.t >= 1)
		for (Size c = 0; c < SumCells(&a->step); c++)
			a->sums[c] += b->sums[c];
	a->n += b->n;
	a->substituted += b->substituted;
	a->fingerprint += b->fingerprint;
	if (a->n > INT_MAX)
		BadFwState("The states' row counts are out of range.");
}

PG_FUNCTION_INFO_V1(mrf_fw_scores_combine);
/* Combine: adds the parts' sums (a part still holding rows computes its sums first). */
Datum
mrf_fw_scores_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = MrfAggregateContext(fcinfo, "mrf_fw_scores_combine");
	FwState    *a;
	FwState    *b;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		a = FwFromDatum(PG_GETARG_DATUM(0), aggctx);
		PG_RETURN_DATUM(EOHPGetRWDatum(&a->hdr));
	}
	b = FwFromDatum(PG_GETARG_DATUM(1), aggctx);
	if (PG_ARGISNULL(0))
		PG_RETURN_DATUM(EOHPGetRWDatum(&b->hdr));
	a = FwFromDatum(PG_GETARG_DATUM(0), aggctx);
	FwComputeSums(a);
	FwComputeSums(b);
	FwAdd(a, b);
	PG_RETURN_DATUM(EOHPGetRWDatum(&a->hdr));
}

PG_FUNCTION_INFO_V1(mrf_fw_scores_final);
/*
 * Final: the sums, as a flat state, only to the driver's call on the
 * coordinator; anywhere else a refusal (exact statistics of the rows are
 * not released).
 */
Datum
mrf_fw_scores_final(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = MrfAggregateContext(fcinfo, "mrf_fw_scores_final");
	FwState    *s;
	Size		size;
	bytea	   *out;

	if (!DriverActive)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("the Frank-Wolfe scores aggregates are called only by the mrf_learn_*_from functions"),
				 errdetail("Their result is exact statistics of the rows, which are released only with noise."),
				 errhint("Call mrf_learn_ising_from, mrf_learn_pairwise_from, mrf_learn_twise_from or mrf_learn_structure_from on the distributed table.")));
	MrfCitusRefuseOffCoordinator("mrf_learn_*_from");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = FwFromDatum(PG_GETARG_DATUM(0), aggctx);
	size = FwFlatSize(&s->hdr);
	out = palloc(size);
	FwFlatten(&s->hdr, out, size);
	PG_RETURN_BYTEA_P(out);
}

/* See citus/cluster.h. */
void
MrfFwDriverCall(bool active)
{
	DriverActive = active;
}

/* See citus/cluster.h. */
void
MrfFwSumsRead(bytea *flat, int d, int q, int t, int64 *n, int64 *substituted, uint64 *fingerprint,
			  int64 *sums)
{
	FwState    *s = FwFromFlat(flat, CurrentMemoryContext);

	if (s->step.d != d || s->step.q != q || s->step.t != t)
		BadFwState("The sums are not of the step the driver sent.");
	*n = s->n;
	*substituted = s->substituted;
	*fingerprint = s->fingerprint;
	if (t >= 1)
		memcpy(sums, s->sums, SumCells(&s->step) * sizeof(int64));
	MemoryContextDelete(s->hdr.eoh_context);
}

/* mrf_fw_kary_codes's reader, kept across calls (fn_extra). */
typedef struct KaryCodes
{
	Oid			typid;
	int			p;
	int			k;
	Jsonb	   *domains;		/* copies of the options the reader was set up with */
	char	   *nulls;
	MrfKaryReader reader;
	uint8	   *row;
} KaryCodes;

/* Whether two optional jsonb values are the same bytes. */
static bool
SameJsonb(const Jsonb *a, const Jsonb *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return VARSIZE(a) == VARSIZE(b) && memcmp(a, b, VARSIZE(a)) == 0;
}

/*
 * The options domains and nulls of a mrf_fw_kary_codes call, checked by the
 * options parser as a learner's are (the reader trusts them: a domain that
 * is not an array of values was read as one, and crashed the backend).
 * Anyone can call the function with any jsonb, so nothing here is trusted.
 */
static void
KaryCodesOptions(Jsonb *domains, const char *nulls, Jsonb **checked_domains, char **checked_nulls)
{
	StringInfoData doc;
	MrfOptions	opt;

	*checked_domains = NULL;
	*checked_nulls = NULL;
	if (domains == NULL && nulls == NULL)
		return;
	initStringInfo(&doc);
	appendStringInfoChar(&doc, '{');
	if (domains != NULL)
		appendStringInfo(&doc, "\"domains\": %s",
						 JsonbToCString(NULL, &domains->root, VARSIZE(domains)));
	if (nulls != NULL)
	{
		appendStringInfoString(&doc, domains != NULL ? ", \"nulls\": " : "\"nulls\": ");
		escape_json(&doc, nulls);
	}
	appendStringInfoChar(&doc, '}');
	MrfOptionsParse(DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(doc.data))), &opt);
	*checked_domains = opt.domains;
	*checked_nulls = (opt.given & MRF_OPT_NULLS) ? opt.nulls : NULL;
}

PG_FUNCTION_INFO_V1(mrf_fw_kary_codes);
/*
 * The codes of one k-ary sample of a type that has no scores aggregate
 * (rows of columns, enum arrays: Citus splits an aggregate only for its
 * exact argument types), as the protected path's lenient reader reads it
 * for p variables with the options k (0 when not given), domains and nulls
 * (NULL when not given): a smallint[] of p codes, or NULL when the reader
 * cannot read it; mrf_fw_kary_scores_agg(smallint[]) then reads the
 * codes back unchanged, and a NULL as the fixed row, counted, as the
 * one-node read does.  The driver's query wraps such samples in it, on the
 * workers.  A function of its argument alone: it tells its caller nothing
 * the caller could not read.
 */
Datum
mrf_fw_kary_codes(PG_FUNCTION_ARGS)
{
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, 0);
	KaryCodes  *kc = fcinfo->flinfo->fn_extra;
	int			p;
	int			k;
	Jsonb	   *domains = PG_NARGS() > 3 && !PG_ARGISNULL(3) ? PG_GETARG_JSONB_P(3) : NULL;
	char	   *nulls = PG_NARGS() > 4 && !PG_ARGISNULL(4) ? text_to_cstring(PG_GETARG_TEXT_PP(4)) : NULL;
	Datum	   *elems;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("mrf_fw_kary_codes needs p and k")));
	p = PG_GETARG_INT32(1);
	k = PG_GETARG_INT32(2);
	if (p < 2 || p > MRF_MAX_VARIABLES || k < 0 || k == 1 || k > MRF_PAIRWISE_MAX_K ||
		!OidIsValid(typid))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mrf_fw_kary_codes takes 2 to %d variables and k 0 (from the type) or 2 to %d",
						MRF_MAX_VARIABLES, MRF_PAIRWISE_MAX_K)));
	if (kc == NULL || kc->typid != typid || kc->p != p || kc->k != k ||
		!SameJsonb(kc->domains, domains) ||
		(kc->nulls == NULL ? nulls != NULL : nulls == NULL || strcmp(kc->nulls, nulls) != 0))
	{
		MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
		Jsonb	   *checked_domains;
		char	   *checked_nulls;

		/* as protected/learn_from.c sets up the one-node reader, from options checked as its are */
		KaryCodesOptions(domains, nulls, &checked_domains, &checked_nulls);
		kc = palloc0(sizeof(KaryCodes));
		kc->typid = typid;
		kc->p = p;
		kc->k = k;
		if (domains != NULL)
		{
			kc->domains = palloc(VARSIZE(domains));
			memcpy(kc->domains, domains, VARSIZE(domains));
		}
		kc->nulls = nulls ? pstrdup(nulls) : NULL;
		MrfKaryReaderInit(&kc->reader, typid, k, false, fcinfo->flinfo->fn_mcxt, "mrf_learn_pairwise");
		if (checked_domains != NULL)
			MrfKaryReaderSetDomains(&kc->reader, checked_domains);
		if (checked_nulls != NULL)
			MrfKaryReaderSetNulls(&kc->reader, checked_nulls);
		MrfKaryReaderSetLenient(&kc->reader, p);
		kc->row = palloc(p);
		MemoryContextSwitchTo(old);
		fcinfo->flinfo->fn_extra = kc;
	}
	if (!MrfKaryReadRowLenient(&kc->reader, PG_ARGISNULL(0) ? (Datum) 0 : PG_GETARG_DATUM(0),
							   PG_ARGISNULL(0), kc->row))
		PG_RETURN_NULL();
	elems = palloc(sizeof(Datum) * p);
	for (int i = 0; i < p; i++)
		elems[i] = Int16GetDatum(kc->row[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(elems, p, INT2OID, sizeof(int16), true, TYPALIGN_SHORT));
}

/* mrf_fw_binary_codes's reader, kept across calls (fn_extra). */
typedef struct BinaryCodes
{
	Oid			typid;
	int			p;
	MrfBinaryReader reader;
	uint64	   *row;
} BinaryCodes;

PG_FUNCTION_INFO_V1(mrf_fw_binary_codes);
/*
 * The binary counterpart of mrf_fw_kary_codes, for samples of a type that
 * has no scores aggregate (rows of boolean columns): the boolean[] of the p
 * values the protected path's lenient reader reads (element j true where
 * variable j is +1), or NULL when it cannot read the sample;
 * mrf_fw_ising_scores_agg(boolean[]) reads them back into the same bits,
 * and a NULL as the fixed row, counted.  A function of its argument alone.
 */
Datum
mrf_fw_binary_codes(PG_FUNCTION_ARGS)
{
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, 0);
	BinaryCodes *bc = fcinfo->flinfo->fn_extra;
	int			p;
	Datum	   *elems;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("mrf_fw_binary_codes needs p")));
	p = PG_GETARG_INT32(1);
	if (p < 2 || p > MRF_MAX_VARIABLES || !OidIsValid(typid))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mrf_fw_binary_codes takes 2 to %d variables", MRF_MAX_VARIABLES)));
	if (bc == NULL || bc->typid != typid || bc->p != p)
	{
		MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);

		/* as protected/learn_from.c sets up the one-node reader */
		bc = palloc0(sizeof(BinaryCodes));
		bc->typid = typid;
		bc->p = p;
		MrfBinaryReaderInit(&bc->reader, typid, fcinfo->flinfo->fn_mcxt, "mrf_learn_ising");
		MrfBinaryReaderSetLenient(&bc->reader, p);
		bc->row = palloc(sizeof(uint64) * MrfBitWords(p));
		MemoryContextSwitchTo(old);
		fcinfo->flinfo->fn_extra = bc;
	}
	memset(bc->row, 0, sizeof(uint64) * MrfBitWords(p));
	if (!MrfBinaryReadRowLenient(&bc->reader, PG_ARGISNULL(0) ? (Datum) 0 : PG_GETARG_DATUM(0),
								 PG_ARGISNULL(0), bc->row, MrfBitWords(p)))
		PG_RETURN_NULL();
	elems = palloc(sizeof(Datum) * p);
	for (int j = 0; j < p; j++)
		elems[j] = BoolGetDatum(MrfBitGet(bc->row, j));
	PG_RETURN_ARRAYTYPE_P(construct_array(elems, p, BOOLOID, 1, true, TYPALIGN_CHAR));
}

/*
 * The kept-parts scan, TABLESAMPLE mrfdp_internal.mrf_fw_kept(step) (docs/citus_fw.md
 * section 3): the driver reads the shards through it.  On a shard whose
 * part this backend keeps and can move to the step's iteration (CacheHit)
 * the scan stops after the first row, which only names the shard to the
 * aggregate (its tableoid): the iteration reads no other tuple.  Anywhere
 * else (a miss: another backend, a part not kept, a parallel worker, a
 * plain table) it returns every row, as a sequential scan does, and the
 * aggregate replays.  A step of iteration MRF_FW_STEP_FORGET returns no row and
 * frees the learn's kept parts in this backend (the driver's last query).
 * By hand it returns rows of a table its caller can SELECT, nothing more.
 */
typedef struct KeptScan
{
	uint64		learn;
	int			t;
	int			first;			/* see FwStep */
	Oid			shard;
	bool		kept;			/* stop after the part's row */
	BlockNumber next_block;
	OffsetNumber next_offset;
} KeptScan;

/* Reads the learn id and iteration of a step (the header every step starts with). */
static void
StepKey(bytea *step, uint64 *learn, int *t, int *first)
{
	const char *in = VARDATA_ANY(step);
	int32		head[6];

	if (VARSIZE_ANY_EXHDR(step) < STEP_HEADER)
		BadFwState("The step is too short.");
	memcpy(head, in, 24);
	if (head[0] != (int32) STEP_MAGIC && head[0] != (int32) STEP_LAST_MAGIC)
		BadFwState("The step's header is out of range.");
	memcpy(learn, in + 32, 8);
	*t = head[5];
	*first = head[0] == (int32) STEP_LAST_MAGIC ? head[5] - 1 : 1;
}

/* See TsmRoutine: planned as a whole scan (what a miss reads). */
static void
KeptSampleSize(PlannerInfo *root, RelOptInfo *baserel, List *paramexprs, BlockNumber *pages,
			   double *tuples)
{
	*pages = baserel->pages;
	*tuples = baserel->tuples;
}

/* See TsmRoutine. */
static void
KeptInit(SampleScanState *node, int eflags)
{
	node->tsm_state = palloc0(sizeof(KeptScan));
}

/* See TsmRoutine: decides, once per scan, whether the shard's part is kept. */
static void
KeptBegin(SampleScanState *node, Datum *params, int nparams, uint32 seed)
{
	KeptScan   *k = node->tsm_state;
	CachedPart *c;

	StepKey(DatumGetByteaPP(params[0]), &k->learn, &k->t, &k->first);
	k->shard = RelationGetRelid(node->ss.ss_currentRelation);
	k->next_block = 0;
	k->next_offset = InvalidOffsetNumber;
	k->kept = false;
	if (k->t == MRF_FW_STEP_FORGET)
	{
		if (CacheLearn == k->learn)
			MrfFwCacheForget();
		return;
	}
	c = CacheHit(k->learn, k->shard, k->t, k->first);
	if (c != NULL)
	{
		c->claimed = k->t;
		c->served = false;
		k->kept = true;
	}
}

/* Whether a kept scan has delivered its row. */
static bool
KeptDone(KeptScan *k)
{
	CachedPart *c;

	if (k->t == MRF_FW_STEP_FORGET)
		return true;
	if (!k->kept)
		return k->first > 1;	/* a last step cannot replay: the driver sends the whole step */
	c = CacheFind(k->learn, k->shard);
	/* a part gone meanwhile: the aggregate has its row or errs on the count */
	return c == NULL || c->claimed != k->t || c->served;
}

/* See TsmRoutine: the blocks in order, none once done. */
static BlockNumber
KeptNextBlock(SampleScanState *node, BlockNumber nblocks)
{
	KeptScan   *k = node->tsm_state;

	if (KeptDone(k) || k->next_block >= nblocks)
		return InvalidBlockNumber;
	k->next_offset = InvalidOffsetNumber;
	return k->next_block++;
}

/* See TsmRoutine: every tuple of the block, none once done. */
static OffsetNumber
KeptNextTuple(SampleScanState *node, BlockNumber blockno, OffsetNumber maxoffset)
{
	KeptScan   *k = node->tsm_state;

	if (KeptDone(k))
		return InvalidOffsetNumber;
	k->next_offset = k->next_offset == InvalidOffsetNumber ? FirstOffsetNumber :
		OffsetNumberNext(k->next_offset);
	if (k->next_offset > maxoffset)
		return InvalidOffsetNumber;
	return k->next_offset;
}

PG_FUNCTION_INFO_V1(mrf_fw_kept_handler);
/* The tablesample method mrfdp_internal.mrf_fw_kept(step bytea). */
Datum
mrf_fw_kept_handler(PG_FUNCTION_ARGS)
{
	TsmRoutine *tsm = makeNode(TsmRoutine);

	tsm->parameterTypes = list_make1_oid(BYTEAOID);
	tsm->repeatable_across_queries = false;
	tsm->repeatable_across_scans = false;
	tsm->SampleScanGetSampleSize = KeptSampleSize;
	tsm->InitSampleScan = KeptInit;
	tsm->BeginSampleScan = KeptBegin;
	tsm->NextSampleBlock = KeptNextBlock;
	tsm->NextSampleTuple = KeptNextTuple;
	tsm->EndSampleScan = NULL;
	PG_RETURN_POINTER(tsm);
}

/* Frees the kept parts when the transaction that kept them ends (a worker's part of the learn's). */
static void
FwXactCallback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
			MrfFwCacheForget();
			break;
		default:
			break;
	}
}
