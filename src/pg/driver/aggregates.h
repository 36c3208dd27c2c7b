/*
 * driver/aggregates.h - the aggregate state shared by every learner: samples packed
 * in the aggregate's memory context, one bit per variable for binary
 * learners (MRF_ROWS_BITS, rows.h layout), one byte per variable for the
 * Frank-Wolfe k-ary learners (MRF_ROWS_BYTES, values 0..k-1) or one MrfCode
 * per variable for the whole-table learners (MRF_ROWS_CODES: cliques, MST,
 * AIM).
 */
#ifndef MRF_PG_AGGREGATES_H
#define MRF_PG_AGGREGATES_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/jsonb.h"

#include "core/fw.h"
#include "pg/driver/read_binary.h"
#include "pg/driver/read_kary.h"
#include "pg/sqlapi/options.h"

struct MrfStableStep;
struct MrfStructure;

/*
 * The stable mode's blocks cut where the rows are (citus/stable.c): runs
 * the step over the shards and returns the non-abstaining blocks'
 * canonical structures (palloc'd, *nstructs of them).
 */
typedef void (*MrfStableBlocksFn) (void *arg, const struct MrfStableStep *step,
								   struct MrfStructure **structs, int *nstructs);

typedef enum MrfRowFormat
{
	MRF_ROWS_BITS = 1,
	MRF_ROWS_BYTES = 2,
	MRF_ROWS_CODES = 3
} MrfRowFormat;

typedef struct MrfRowsState
{
	MrfRowFormat format;
	int			p;				/* variables; -1 until the first row */
	int			k;				/* alphabet size (bytes and codes formats) */
	uint16	   *alphabets;		/* bytes, codes: each variable's k_i (p entries), NULL when all are k */
	Size		row_bytes;		/* bytes per stored row */
	int64		n;				/* rows stored */
	int64		capacity;		/* rows allocated */
	char	   *rows;			/* n x row_bytes */
	Jsonb	   *options;		/* the options document, the same for every row */
	bool		options_per_row;	/* not provably constant: compare every row's */
	struct MrfPlan *plan;		/* planned at the first row (learner known), else NULL */
	char	   *variables;		/* names and labels from the rows' type (model/names.h), or NULL */
	char	   *source;			/* the relation the rows' type belongs to (model/names.h), or NULL */
	MrfBinaryReader reader;		/* bits format */
	MrfKaryReader kreader;		/* bytes and codes formats */
	/* Instead of rows (rows NULL): the learner's exact tables of n rows (driver/learners.h) */
	int64	   *counts;
	int64		ncells;
	/*
	 * Instead of rows (distributed Frank-Wolfe, citus/fw.c): each iteration's
	 * exact score sums over n rows, computed where the rows are (core/fw.h).
	 */
	MrfFwScoresFn fw_scores;
	void	   *fw_arg;
	/*
	 * Instead of rows (the stable mode's blocks on the shards,
	 * citus/stable.c): the non-abstaining blocks' structures, cut and
	 * learned where the rows are.
	 */
	MrfStableBlocksFn stable_blocks;
	void	   *stable_arg;
} MrfRowsState;

/* Packed binary rows of a bits state (rows.h layout). */
static inline const uint64 *
MrfRowsBits(const MrfRowsState *state)
{
	return (const uint64 *) state->rows;
}

/* Rows of a bytes state (n x p, values 0..k-1). */
static inline const uint8 *
MrfRowsBytes(const MrfRowsState *state)
{
	Assert(state->format == MRF_ROWS_BYTES);
	return (const uint8 *) state->rows;
}

/* Rows of a codes state (n x p, z_i < k_i). */
static inline const MrfCode *
MrfRowsCodes(const MrfRowsState *state)
{
	Assert(state->format == MRF_ROWS_CODES);
	return (const MrfCode *) state->rows;
}

/* A new empty state in the given (aggregate) context. */
MrfRowsState *MrfRowsStateCreate(MemoryContext cxt, MrfRowFormat format);

/* Fixes p (and k) and the row size. */
void		MrfRowsStateSetShape(MrfRowsState *state, int p, int k);

/*
 * Sets up the state's reader (of its format) for samples of typid, with
 * the options that shape it (k, domains and nulls; opt may be NULL for
 * binary rows): the one set-up of the aggregates and the protected path.
 */
void		MrfRowsStateInitReader(MrfRowsState *state, Oid typid, const MrfOptions *opt,
								   MemoryContext cxt, const char *learner);

/*
 * Room for at least `rows` rows at once, under mrfdp.max_learner_memory (an
 * error naming learner beyond it): the storage grows, if it must, to what
 * MrfRowsStateBytes(state, rows) said before the call, and appending then
 * does not grow it while n stays at most `rows`.
 */
void		MrfRowsStateReserve(MrfRowsState *state, MemoryContext cxt, int64 rows,
								const char *learner);

/* Room for one more row, zeroed, under mrfdp.max_learner_memory. */
void	   *MrfRowsStateAppend(MrfRowsState *state, MemoryContext cxt, const char *learner);

/*
 * As MrfRowsStateAppend, but NULL, adding nothing, when the row would not
 * fit under the limit (the protected path's read stops, then errors outside
 * the owner's read); MrfRowsStateBytes is the need to report.
 */
void	   *MrfRowsStateTryAppend(MrfRowsState *state, MemoryContext cxt);
double		MrfRowsStateBytes(const MrfRowsState *state, int64 rows);

/* The learner's SQL name (the aggregate's, less "_agg"), for messages. */
const char *MrfAggregateLearnerName(FunctionCallInfo fcinfo);

struct MrfLearner;

/*
 * The transition of every learner's aggregate: packs one sample.  At the
 * first row it parses the options once, plans the release with p and k and
 * checks the budget (so every option error surfaces before the scan) when
 * the learner is known: given (each learner's own transition), or found
 * from the aggregate's name (0.1.0's shared transitions; a window aggregate
 * has none, and its plan then waits for the final function).  format: the
 * rows' format when no plan decides it.
 */
Datum		MrfRowsAccum(FunctionCallInfo fcinfo, const struct MrfLearner *learner,
						 MrfRowFormat format);

/*
 * The body of every learner's final function: plans (unless the first row
 * did), checks, learns, charges the statement's relations (returning only
 * once the charge is committed), then releases.
 */
Datum		MrfAggregateRelease(FunctionCallInfo fcinfo, const struct MrfLearner *learner);

/* The aggregate memory context; errors when fn is not called as an aggregate. */
MemoryContext MrfAggregateContext(FunctionCallInfo fcinfo, const char *fn);

#endif
