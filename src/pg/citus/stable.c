/*
 * citus/stable.c - the stable mode's blocks cut where the rows are
 * (docs/privacy.md 7.3): mrfdp_internal.mrf_stable_blocks_agg(sample, step,
 * tableoid), an aggregate Citus splits over the shards.
 *
 * The driver (protected/learn_from.c, mrf_learn_structure_from on a distributed table)
 * counts the rows, charges, then runs this aggregate once, as the table's
 * owner, with step = [p, model, t, eta, lambda, b blocks per shard, the row
 * cap c per block].  Every shard's rows (told apart by their tableoid, so
 * that however Citus groups them a block never mixes two shards) go each to
 * a block drawn uniformly from the shard's b, from this backend's CSPRNG;
 * each block keeps a uniformly random subset of at most c of them
 * (reservoir).  When the state leaves the backend (Citus ships it, or the
 * final function reads it) each block's kept rows are shuffled and learned
 * by the non-private block learner; the state then holds only the blocks'
 * canonical structures (an abstaining block none), with the shards' row
 * counts.  The coordinator counts, noises and thresholds (structure.c,
 * MrfStructureSelectShards, calibrated in privacy.c for one replaced row
 * changing two blocks).
 *
 * Nothing here releases: the final function returns the structures only
 * inside the driver's call (a backend flag) and refuses anywhere else.  A
 * role that calls worker_partial_agg on it by hand learns non-private
 * structures of rows it can SELECT anyway (EXECUTE cannot be revoked: Citus
 * checks it for the calling role); on a protected table it cannot read the
 * shard.  A flat state is checked before it is combined (sizes, counts,
 * canonical structures within p, at most b per shard, no shard twice).
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "access/parallel.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/xlog.h"
#include "catalog/pg_namespace.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/guc.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "core/noise.h"
#include "core/rows.h"
#include "core/structure.h"
#include "core/pairwise.h"
#include "core/structure_ising.h"
#include "core/structure_pairwise.h"
#include "core/structure_twise.h"
#include "core/twise.h"
#include "pg/driver/aggregates.h"
#include "pg/citus/cluster.h"
#include "pg/driver/read_binary.h"
#include "pg/driver/read_kary.h"
#include "pg/driver/run.h"

#define BSTEP_MAGIC 0x4d524653	/* "MRFS": a step */
#define BLOCKS_MAGIC 0x4d524642 /* "MRFB": blocks' structures */
#define BSTEP_HEADER (4 + 4 + 4 + 4 + 4 + 4 + 8 + 8 + 8)
#define BLOCKS_HEADER (4 + 4 + 4 + 4 + 4 + 8 + 8)

/* mrfdp.distributed_stable_blocks */
int			MrfDistributedStable = MRF_DFW_AUTO;

static const struct config_enum_entry DistributedStableOptions[] = {
	{"auto", MRF_DFW_AUTO, false},
	{"on", MRF_DFW_ON, false},
	{"off", MRF_DFW_OFF, false},
	{NULL, 0, false}
};

/* Whether the driver's aggregate call is running in this backend. */
static bool DriverActive = false;

/* Defines mrfdp.distributed_stable_blocks. */
void
MrfCitusStableInit(void)
{
	DefineCustomEnumVariable("mrfdp.distributed_stable_blocks",
							 "Whether mrf_learn_structure_from cuts the stable mode's blocks on a distributed table's shards.",
							 "With auto, a Citus distributed table's blocks are cut and learned where its rows are when the packed rows would not fit mrfdp.max_learner_memory on the coordinator; on always does so, off never. Cutting per shard needs twice the noise and a higher threshold (a replaced row may move between shards), so about twice the blocks.",
							 &MrfDistributedStable, MRF_DFW_AUTO, DistributedStableOptions,
							 PGC_USERSET, 0, NULL, NULL, NULL);
}

/* See citus/cluster.h. */
void
MrfStableDriverCall(bool active)
{
	DriverActive = active;
}

/* Raises the error for a state or step this library did not write. */
static void
pg_attribute_noreturn()
BadBlocksState(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid mrfdp blocks state"),
			 errdetail("%s", detail)));
}

/* See citus/cluster.h. */
bytea *
MrfStableStepCreate(const MrfStableStep *st)
{
	bytea	   *step = palloc(VARHDRSZ + BSTEP_HEADER);
	char	   *out = VARDATA(step);
	uint32		magic = BSTEP_MAGIC;
	int32		v[5] = {st->p, st->model, st->t, st->blocks, st->k};

	SET_VARSIZE(step, VARHDRSZ + BSTEP_HEADER);
	memcpy(out, &magic, 4);
	memcpy(out + 4, v, 20);
	memcpy(out + 24, &st->cap, 8);
	memcpy(out + 32, &st->eta, 8);
	memcpy(out + 40, &st->lambda, 8);
	return step;
}

/* Reads a step, checked (a step is a query parameter anyone can pass). */
static void
StepRead(bytea *step, MrfStableStep *st)
{
	const char *in = VARDATA_ANY(step);
	uint32		magic;
	int32		v[5];

	if (VARSIZE_ANY_EXHDR(step) != BSTEP_HEADER)
		BadBlocksState("The step's length is wrong.");
	memcpy(&magic, in, 4);
	memcpy(v, in + 4, 20);
	memcpy(&st->cap, in + 24, 8);
	memcpy(&st->eta, in + 32, 8);
	memcpy(&st->lambda, in + 40, 8);
	st->p = v[0];
	st->model = v[1];
	st->t = v[2];
	st->blocks = v[3];
	st->k = v[4];
	if (magic != BSTEP_MAGIC || st->p < 2 || st->p > MRF_MAX_VARIABLES ||
		(st->model != MRF_STABLE_ISING && st->model != MRF_STABLE_TWISE &&
		 st->model != MRF_STABLE_PAIRWISE) ||
		(st->model == MRF_STABLE_PAIRWISE ? st->k < 2 || st->k > MRF_PAIRWISE_MAX_K : st->k != 2) ||
		(st->model == MRF_STABLE_TWISE && (st->t < 2 || st->t > MRF_TWISE_MAX_ORDER || st->t > st->p)) ||
		st->blocks < 1 || st->blocks > 1000000 || st->cap < 0 || st->cap > INT_MAX ||
		(st->cap == 0 && st->blocks != 1) ||
		!isfinite(st->eta) || !(st->eta > 0) || !isfinite(2.0 * st->lambda) || !(st->lambda > 0))
		BadBlocksState("The step's header is out of range.");
}

/* The block learners' options (one is used; they must outlive the learner). */
typedef struct StepOptions
{
	MrfIsingBlockOptions iopt;
	MrfTwiseBlockOptions topt;
	MrfPairwiseBlockOptions popt;
} StepOptions;

/* Bytes of one row: packed bits, or one byte per variable (pairwise). */
static Size
StepRowBytes(const MrfStableStep *st)
{
	return st->model == MRF_STABLE_PAIRWISE ? (Size) st->p : (Size) MrfBitWords(st->p) * sizeof(uint64);
}

/* The block learner of a step (its options in *o, which must outlive it). */
static void
StepLearner(const MrfStableStep *st, StepOptions *o, MrfBlockLearner *learner)
{
	MrfIsingBlockOptions *iopt = &o->iopt;
	MrfTwiseBlockOptions *topt = &o->topt;

	memset(o, 0, sizeof(*o));
	if (st->model == MRF_STABLE_PAIRWISE)
	{
		/* integer arrays only: every variable has the alphabet k (kv NULL) */
		o->popt.p = st->p;
		o->popt.k = st->k;
		o->popt.eta = st->eta;
		o->popt.lambda = st->lambda;
		MrfPairwiseBlockLearner(&o->popt, learner);
	}
	else if (st->model == MRF_STABLE_TWISE)
	{
		topt->p = st->p;
		topt->t = st->t;
		topt->eta = st->eta;
		topt->lambda = st->lambda;
		MrfTwiseBlockLearner(topt, learner);
	}
	else
	{
		iopt->p = st->p;
		iopt->eta = st->eta;
		iopt->lambda = st->lambda;
		iopt->rule = MRF_EDGE_AVERAGE;
		MrfIsingBlockLearner(iopt, learner);
	}
}

/* See citus/cluster.h. */
int64
MrfStableMinRows(const MrfStableStep *st)
{
	StepOptions o;
	MrfBlockLearner learner;

	StepLearner(st, &o, &learner);
	return learner.min_rows;
}

/* See citus/cluster.h: b c packed rows, the learner's workspace on c rows, the structures. */
double
MrfStableShardBytes(const MrfStableStep *st)
{
	StepOptions o;
	MrfBlockLearner learner;
	double		item_words = st->model == MRF_STABLE_TWISE ?
		Min((double) MrfSubsetCount(st->p, st->t) * (st->t + 1), 1e15) :
		1.5 * st->p * (st->p - 1);

	StepLearner(st, &o, &learner);
	return (double) st->blocks * st->cap * StepRowBytes(st) +
		2.0 * st->blocks * sizeof(int64) +
		(learner.workspace != NULL ? (double) learner.workspace(learner.arg, st->cap) : 0.0) +
		(double) st->blocks * (item_words * 2 * sizeof(int32) + sizeof(MrfStructure));
}

/* One shard's part: its blocks' reservoirs, then its blocks' structures. */
typedef struct ShardPart
{
	uint64		node;			/* the reading node's system identifier: shard OIDs are per node */
	Oid			shard;			/* tableoid of its rows */
	int64		n;
	int64		substituted;
	int64	   *seen;			/* rows sent to each block */
	int64	   *kept;			/* rows kept by each block (<= cap) */
	unsigned char *rows;		/* blocks x cap rows, or NULL once learned */
	int			nstructs;		/* learned: the blocks that did not abstain */
	MrfStructure *structs;
} ShardPart;

/* The expanded state: parts of rows (this backend's), or parts of structures. */
typedef struct BlocksState
{
	ExpandedObjectHeader hdr;
	MrfStableStep step;
	bool		has_step;
	MrfBinaryReader reader;
	MrfKaryReader kreader;		/* pairwise */
	bool		has_reader;
	MrfRng		rng;
	bool		has_rng;
	List	   *parts;			/* of ShardPart, in hdr.eoh_context */
	ShardPart  *last;			/* the part of the previous row */
	unsigned char *scratch;		/* one row */
} BlocksState;

static Size BlocksFlatSize(ExpandedObjectHeader *eohptr);
static void BlocksFlatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods BlocksMethods = {
	BlocksFlatSize,
	BlocksFlatten
};

/* A new state in a context of its own under aggctx. */
static BlocksState *
BlocksNew(MemoryContext aggctx)
{
	MemoryContext cxt = AllocSetContextCreate(aggctx, "mrfdp blocks state", ALLOCSET_DEFAULT_SIZES);
	BlocksState *s = MemoryContextAllocZero(cxt, sizeof(BlocksState));

	EOH_init_header(&s->hdr, &BlocksMethods, cxt);
	return s;
}

/* The state's generator, keyed from getrandom(2) at first use (never leaves the backend). */
static MrfRng *
BlocksRng(BlocksState *s)
{
	if (!s->has_rng)
	{
		if (MrfRngInitSecure(&s->rng) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("could not seed the random generator")));
		s->has_rng = true;
	}
	return &s->rng;
}

/* Learns every block of part (rows freed), appending the non-abstaining structures. */
static void
PartLearn(BlocksState *s, ShardPart *part)
{
	StepOptions o;
	MrfBlockLearner learner;
	Size		rb = StepRowBytes(&s->step);
	MemoryContext old;

	if (part->rows == NULL)
		return;
	StepLearner(&s->step, &o, &learner);
	old = MemoryContextSwitchTo(s->hdr.eoh_context);
	part->structs = palloc0(sizeof(MrfStructure) * s->step.blocks);
	part->nstructs = 0;
	for (int j = 0; j < s->step.blocks; j++)
	{
		int			learned = 0;
		MrfStructure *out = &part->structs[part->nstructs];

		CHECK_FOR_INTERRUPTS();
		MrfStructureInit(out, s->step.p);
		if (MrfStructureLearnBlock(part->rows + (Size) j * s->step.cap * rb, part->kept[j],
								   &learner, BlocksRng(s), &MrfPallocEnv, out,
								   &learned) != MRF_OK)
			elog(ERROR, "mrfdp: a block's structure could not be learned");
		if (learned)
			part->nstructs++;
	}
	pfree(part->rows);
	part->rows = NULL;
	MemoryContextSwitchTo(old);
}

/* Learns every part still holding rows. */
static void
BlocksLearn(BlocksState *s)
{
	ListCell   *lc;

	foreach(lc, s->parts)
		PartLearn(s, lfirst(lc));
}

/* See BlocksMethods. */
static Size
BlocksFlatSize(ExpandedObjectHeader *eohptr)
{
	BlocksState *s = (BlocksState *) eohptr;
	Size		size = VARHDRSZ + BLOCKS_HEADER;
	ListCell   *lc;

	BlocksLearn(s);
	foreach(lc, s->parts)
	{
		ShardPart  *part = lfirst(lc);

		size += 8 + 4 + 4 + 8 + 8;
		for (int i = 0; i < part->nstructs; i++)
			size += 4 + 4 + sizeof(int32) * part->structs[i].nwords;
	}
	return size;
}

/* See BlocksMethods: [header, per part: oid, nstructs, n, substituted, per structure: nitems, nwords, words]. */
static void
BlocksFlatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	BlocksState *s = (BlocksState *) eohptr;
	char	   *out = (char *) result + VARHDRSZ;
	uint32		magic = BLOCKS_MAGIC;
	int32		v[3] = {s->step.p, s->step.blocks, list_length(s->parts)};
	int64		n = 0;
	int64		substituted = 0;
	ListCell   *lc;

	BlocksLearn(s);
	SET_VARSIZE(result, allocated_size);
	foreach(lc, s->parts)
	{
		ShardPart  *part = lfirst(lc);

		n += part->n;
		substituted += part->substituted;
	}
	memcpy(out, &magic, 4);
	memcpy(out + 4, v, 12);
	memset(out + 16, 0, 4);
	memcpy(out + 20, &n, 8);
	memcpy(out + 28, &substituted, 8);
	out += BLOCKS_HEADER;
	foreach(lc, s->parts)
	{
		ShardPart  *part = lfirst(lc);
		uint32		oid = part->shard;
		int32		ns = part->nstructs;

		memcpy(out, &part->node, 8);
		memcpy(out + 8, &oid, 4);
		memcpy(out + 12, &ns, 4);
		memcpy(out + 16, &part->n, 8);
		memcpy(out + 24, &part->substituted, 8);
		out += 32;
		for (int i = 0; i < ns; i++)
		{
			int32		h[2] = {part->structs[i].nitems, (int32) part->structs[i].nwords};

			memcpy(out, h, 8);
			memcpy(out + 8, part->structs[i].words, sizeof(int32) * h[1]);
			out += 8 + sizeof(int32) * h[1];
		}
	}
}

/* A state of structures from its flat form, checked. */
static BlocksState *
BlocksFromFlat(bytea *flat, MemoryContext aggctx)
{
	const char *in = VARDATA_ANY(flat);
	const char *end = in + VARSIZE_ANY_EXHDR(flat);
	uint32		magic;
	int32		v[3];
	int64		n;
	int64		substituted;
	int64		sum_n = 0;
	int64		sum_sub = 0;
	BlocksState *s;
	MemoryContext old;

	if (end - in < BLOCKS_HEADER)
		BadBlocksState("The state is too short.");
	memcpy(&magic, in, 4);
	memcpy(v, in + 4, 12);
	memcpy(&n, in + 20, 8);
	memcpy(&substituted, in + 28, 8);
	if (magic != BLOCKS_MAGIC || v[0] < 2 || v[0] > MRF_MAX_VARIABLES || v[1] < 1 ||
		v[1] > 1000000 || v[2] < 0 || v[2] > 1000000)
		BadBlocksState("The state's header is out of range.");
	s = BlocksNew(aggctx);
	s->step.p = v[0];
	s->step.blocks = v[1];
	in += BLOCKS_HEADER;
	old = MemoryContextSwitchTo(s->hdr.eoh_context);
	for (int k = 0; k < v[2]; k++)
	{
		ShardPart  *part = palloc0(sizeof(ShardPart));
		uint32		oid;
		int32		ns;

		if (end - in < 32)
			BadBlocksState("The state is truncated.");
		memcpy(&part->node, in, 8);
		memcpy(&oid, in + 8, 4);
		memcpy(&ns, in + 12, 4);
		memcpy(&part->n, in + 16, 8);
		memcpy(&part->substituted, in + 24, 8);
		in += 32;
		if (ns < 0 || ns > s->step.blocks || part->n < 0 || part->n > INT64CONST(1) << 48 ||
			part->substituted < 0 || part->substituted > part->n || ns > part->n)
			BadBlocksState("A shard's counts are out of range.");
		part->shard = oid;
		part->nstructs = ns;
		part->structs = palloc0(sizeof(MrfStructure) * Max(ns, 1));
		for (int i = 0; i < ns; i++)
		{
			int32		h[2];
			MrfStructure *st = &part->structs[i];
			MrfStructure copy;

			if (end - in < 8)
				BadBlocksState("The state is truncated.");
			memcpy(h, in, 8);
			in += 8;
			if (h[0] < 0 || h[1] < 0 || (Size) (end - in) < sizeof(int32) * (Size) h[1])
				BadBlocksState("A structure's size is out of range.");
			MrfStructureInit(st, s->step.p);
			st->words = palloc(sizeof(int32) * Max(h[1], 1));
			memcpy(st->words, in, sizeof(int32) * h[1]);
			st->nwords = h[1];
			st->nitems = h[0];
			st->capacity = h[1];
			in += sizeof(int32) * h[1];
			/* canonical: canonicalising a copy changes nothing (and checks every variable) */
			MrfStructureInit(&copy, s->step.p);
			copy.words = palloc(sizeof(int32) * Max(h[1], 1));
			memcpy(copy.words, st->words, sizeof(int32) * h[1]);
			copy.nwords = h[1];
			copy.capacity = h[1];
			{
				int64		items = 0;

				for (int64 w = 0; w < copy.nwords; w += 1 + copy.words[w])
				{
					if (copy.words[w] < 1 || copy.words[w] > copy.nwords - w - 1)
						BadBlocksState("A structure's item is out of range.");
					items++;
				}
				copy.nitems = (int32) items;
			}
			if (copy.nitems != h[0] ||
				MrfStructureCanonicalize(&copy, &MrfPallocEnv) != MRF_OK ||
				!MrfStructureEqual(&copy, st))
				BadBlocksState("A structure is not canonical.");
			pfree(copy.words);
		}
		sum_n += part->n;
		sum_sub += part->substituted;
		s->parts = lappend(s->parts, part);
	}
	MemoryContextSwitchTo(old);
	if (in != end || sum_n != n || sum_sub != substituted)
		BadBlocksState("The state's length or totals do not match its contents.");
	return s;
}

/* The state a datum holds: this backend's own, or one from a flat state. */
static BlocksState *
BlocksFromDatum(Datum d, MemoryContext aggctx)
{
	if (VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(d);

		if (eoh->eoh_methods == &BlocksMethods)
			return (BlocksState *) eoh;
	}
	return BlocksFromFlat(DatumGetByteaPP(d), aggctx);
}

/* The part of shard in s (rows phase), created (memory checked) at its first row. */
static ShardPart *
PartFor(BlocksState *s, Oid shard)
{
	ListCell   *lc;
	ShardPart  *part;
	MemoryContext old;
	Size		rb = StepRowBytes(&s->step);

	if (s->last != NULL && s->last->shard == shard)
		return s->last;
	foreach(lc, s->parts)
	{
		part = lfirst(lc);
		if (part->shard == shard && part->node == GetSystemIdentifier())
		{
			if (part->rows == NULL && s->step.cap > 0)
				BadBlocksState("Rows cannot be added to a shard already learned.");
			return s->last = part;
		}
	}
	/* a function of p, b and c only: no refusal depends on a shard's size */
	if (s->step.cap > 0)
		MrfCheckMemory("mrf_learn_structure", MrfStableShardBytes(&s->step));
	old = MemoryContextSwitchTo(s->hdr.eoh_context);
	part = palloc0(sizeof(ShardPart));
	part->node = GetSystemIdentifier();
	part->shard = shard;
	part->seen = palloc0(sizeof(int64) * s->step.blocks);
	part->kept = palloc0(sizeof(int64) * s->step.blocks);
	/* the counting step (c = 0) keeps no row */
	if (s->step.cap > 0)
		part->rows = MemoryContextAllocHuge(s->hdr.eoh_context,
											(Size) s->step.blocks * s->step.cap * rb);
	s->parts = lappend(s->parts, part);
	MemoryContextSwitchTo(old);
	return s->last = part;
}

PG_FUNCTION_INFO_V1(mrf_stable_blocks_accum);
/*
 * Transition: reads one sample as the protected path does (an unreadable
 * sample, NULL included, becomes the fixed row and is counted), sends it
 * to a uniformly drawn block of its shard and keeps it there by reservoir
 * sampling (privacy.md 7.3, mechanism steps 1 and 2).
 */
Datum
mrf_stable_blocks_accum(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = MrfAggregateContext(fcinfo, "mrf_stable_blocks_accum");
	BlocksState *s;
	ShardPart  *part;
	Size		rb;
	bool		read;
	int64		j;
	int64		slot;
	MrfRng	   *rng;

	if (PG_ARGISNULL(2))
		BadBlocksState("The step is NULL.");
	if (PG_ARGISNULL(3))
		BadBlocksState("The shard (tableoid) is NULL.");
	/* a parallel worker sees part of a shard: its blocks would be cut twice */
	if (IsParallelWorker())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("mrf_stable_blocks_agg cannot run in a parallel worker")));
	if (PG_ARGISNULL(0))
	{
		MemoryContext old;

		s = BlocksNew(aggctx);
		StepRead(PG_GETARG_BYTEA_PP(2), &s->step);
		s->has_step = true;
		old = MemoryContextSwitchTo(s->hdr.eoh_context);
		if (s->step.model == MRF_STABLE_PAIRWISE)
		{
			MrfKaryReaderInit(&s->kreader, MrfCitusSampleType(fcinfo), s->step.k, false,
							  s->hdr.eoh_context, "mrf_learn_structure");
			MrfKaryReaderSetLenient(&s->kreader, s->step.p);
		}
		else
		{
			MrfBinaryReaderInit(&s->reader, MrfCitusSampleType(fcinfo), s->hdr.eoh_context,
								"mrf_learn_structure");
			MrfBinaryReaderSetLenient(&s->reader, s->step.p);
		}
		s->has_reader = true;
		s->scratch = palloc(StepRowBytes(&s->step));
		MemoryContextSwitchTo(old);
	}
	else
	{
		s = BlocksFromDatum(PG_GETARG_DATUM(0), aggctx);
		if (!s->has_reader)
			BadBlocksState("Rows cannot be added to a state of structures.");
	}
	rb = StepRowBytes(&s->step);
	part = PartFor(s, PG_GETARG_OID(3));
	memset(s->scratch, 0, rb);
	if (s->step.model == MRF_STABLE_PAIRWISE)
		read = MrfKaryReadRowLenient(&s->kreader, PG_GETARG_DATUM(1), PG_ARGISNULL(1), s->scratch);
	else
		read = MrfBinaryReadRowLenient(&s->reader, PG_GETARG_DATUM(1), PG_ARGISNULL(1),
									   (uint64 *) s->scratch, rb / sizeof(uint64));
	if (!read)
		part->substituted++;
	part->n++;
	if (s->step.cap == 0)
		PG_RETURN_DATUM(EOHPGetRWDatum(&s->hdr));	/* the counting step */
	rng = BlocksRng(s);
	j = (int64) MrfRngBelow(rng, (uint64) s->step.blocks);
	part->seen[j]++;
	if (part->kept[j] < s->step.cap)
		slot = part->kept[j]++;
	else
	{
		/* Algorithm R: the block keeps a uniform subset of the rows sent to it */
		slot = (int64) MrfRngBelow(rng, (uint64) part->seen[j]);
		if (slot >= s->step.cap)
			PG_RETURN_DATUM(EOHPGetRWDatum(&s->hdr));
	}
	memcpy(part->rows + ((Size) j * s->step.cap + slot) * rb, s->scratch, rb);
	PG_RETURN_DATUM(EOHPGetRWDatum(&s->hdr));
}

/* Moves b's parts into a (both learned), refusing a shard seen twice. */
static void
BlocksAdd(BlocksState *a, BlocksState *b)
{
	ListCell   *lb;

	if (a->step.p != b->step.p || a->step.blocks != b->step.blocks)
		BadBlocksState("The states are of different steps.");
	foreach(lb, b->parts)
	{
		ShardPart  *pb = lfirst(lb);
		ShardPart  *copy;
		ListCell   *la;
		MemoryContext old;

		foreach(la, a->parts)
			if (((ShardPart *) lfirst(la))->shard == pb->shard &&
				((ShardPart *) lfirst(la))->node == pb->node)
				BadBlocksState("Two states hold rows of the same shard.");
		old = MemoryContextSwitchTo(a->hdr.eoh_context);
		copy = palloc0(sizeof(ShardPart));
		*copy = *pb;
		copy->seen = copy->kept = NULL;
		copy->rows = NULL;
		copy->structs = palloc0(sizeof(MrfStructure) * Max(pb->nstructs, 1));
		for (int i = 0; i < pb->nstructs; i++)
		{
			MrfStructure *st = &copy->structs[i];

			*st = pb->structs[i];
			st->words = palloc(sizeof(int32) * Max(st->nwords, 1));
			memcpy(st->words, pb->structs[i].words, sizeof(int32) * st->nwords);
			st->capacity = st->nwords;
		}
		a->parts = lappend(a->parts, copy);
		MemoryContextSwitchTo(old);
	}
}

PG_FUNCTION_INFO_V1(mrf_stable_blocks_combine);
/* Combine: the parts' structures side by side (a part still holding rows learns first). */
Datum
mrf_stable_blocks_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = MrfAggregateContext(fcinfo, "mrf_stable_blocks_combine");
	BlocksState *a;
	BlocksState *b;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		a = BlocksFromDatum(PG_GETARG_DATUM(0), aggctx);
		PG_RETURN_DATUM(EOHPGetRWDatum(&a->hdr));
	}
	b = BlocksFromDatum(PG_GETARG_DATUM(1), aggctx);
	if (PG_ARGISNULL(0))
		PG_RETURN_DATUM(EOHPGetRWDatum(&b->hdr));
	a = BlocksFromDatum(PG_GETARG_DATUM(0), aggctx);
	BlocksLearn(a);
	BlocksLearn(b);
	BlocksAdd(a, b);
	PG_RETURN_DATUM(EOHPGetRWDatum(&a->hdr));
}

PG_FUNCTION_INFO_V1(mrf_stable_blocks_final);
/*
 * Final: the blocks' structures, as a flat state, only to the driver's
 * call on the coordinator; anywhere else a refusal (non-private
 * structures of blocks of rows are released only through the noisy
 * counts).
 */
Datum
mrf_stable_blocks_final(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = MrfAggregateContext(fcinfo, "mrf_stable_blocks_final");
	BlocksState *s;
	Size		size;
	bytea	   *out;

	if (!DriverActive)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("mrf_stable_blocks_agg is called only by mrf_learn_structure_from"),
				 errdetail("Its result is the non-private structures of blocks of rows, which are released only through noisy counts."),
				 errhint("Call mrf_learn_structure_from on the distributed table.")));
	MrfCitusRefuseOffCoordinator("mrf_learn_structure");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = BlocksFromDatum(PG_GETARG_DATUM(0), aggctx);
	size = BlocksFlatSize(&s->hdr);
	out = palloc(size);
	BlocksFlatten(&s->hdr, out, size);
	PG_RETURN_BYTEA_P(out);
}

/* See citus/cluster.h. */
void
MrfStableBlocksRead(bytea *flat, int p, int blocks, int64 *n, int64 *substituted,
					MrfStructure **structs, int *nstructs)
{
	BlocksState *s = BlocksFromFlat(flat, CurrentMemoryContext);
	ListCell   *lc;
	int			total = 0;
	int			k = 0;

	if (s->step.p != p || s->step.blocks != blocks)
		BadBlocksState("The structures are not of the step the driver sent.");
	*n = 0;
	*substituted = 0;
	foreach(lc, s->parts)
	{
		ShardPart  *part = lfirst(lc);
		ListCell   *lo;

		/* no shard twice (the combine refuses it too, on any path) */
		foreach(lo, s->parts)
			if (lo != lc && ((ShardPart *) lfirst(lo))->shard == part->shard &&
				((ShardPart *) lfirst(lo))->node == part->node)
				BadBlocksState("Two parts hold rows of the same shard.");
		*n += part->n;
		*substituted += part->substituted;
		total += part->nstructs;
	}
	*structs = palloc0(sizeof(MrfStructure) * Max(total, 1));
	foreach(lc, s->parts)
	{
		ShardPart  *part = lfirst(lc);

		for (int i = 0; i < part->nstructs; i++)
		{
			MrfStructure *st = &(*structs)[k++];

			*st = part->structs[i];
			st->words = palloc(sizeof(int32) * Max(st->nwords, 1));
			memcpy(st->words, part->structs[i].words, sizeof(int32) * st->nwords);
		}
	}
	*nstructs = total;
	MemoryContextDelete(s->hdr.eoh_context);
}

/* See citus/cluster.h: the rows of pg_dist_shard for relid (0 without Citus). */
int
MrfCitusShardCount(Oid relid)
{
	Oid			catalog = get_relname_relid("pg_dist_shard", PG_CATALOG_NAMESPACE);
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	int			count = 0;

	if (!OidIsValid(catalog))
		return 0;
	rel = table_open(catalog, AccessShareLock);
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	while (HeapTupleIsValid(systable_getnext(scan)))
		count++;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return count;
}
