/*
 * aggregates.h - the aggregate state shared by the binary learners: samples
 * packed one bit per variable in the aggregate's memory context.
 */
#ifndef MRF_PG_AGGREGATES_H
#define MRF_PG_AGGREGATES_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "pg/input.h"

typedef struct MrfBitsState
{
	int			p;				/* variables; -1 until the first row */
	int			words;			/* 64-bit words per row */
	int64		n;				/* rows stored */
	int64		capacity;		/* rows allocated */
	uint64	   *bits;			/* n x words */
	Jsonb	   *options;		/* the options document, the same for every row */
	bool		reader_ready;
	MrfBinaryReader reader;
} MrfBitsState;

/* A new empty state in the given (aggregate) context. */
MrfBitsState *MrfBitsStateCreate(MemoryContext cxt);

/* Room for one more row (not zeroed), under mrfdp.max_learner_memory. */
uint64	   *MrfBitsStateAppend(MrfBitsState *state, MemoryContext cxt, const char *learner);

#endif
