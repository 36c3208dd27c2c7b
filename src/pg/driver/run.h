/*
 * driver/run.h - what every learner does between its rows and the model it
 * releases: the memory limit, the random generator, the core's environment
 * (memory context, interrupts, progress) and the model's metadata.
 */
#ifndef MRF_PG_RELEASE_H
#define MRF_PG_RELEASE_H

#include "postgres.h"

#include "datatype/timestamp.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "core/env.h"
#include "core/noise.h"

/* mrfdp.test_seed: -1 (off) or a seed that makes learners reproducible and not private. */
extern int	MrfTestSeed;

/* mrfdp.max_learner_memory, in kB: the largest working set a learner may plan. */
extern int	MrfMaxLearnerMemory;

/* mrfdp.progress: emit NOTICEs while learning. */
extern bool MrfProgress;

/* mrfdp.learner_threads: Frank-Wolfe (and OpenBLAS) threads a learner may use in this backend. */
extern int	MrfLearnerThreads;

/* The thread count a learner starting now uses (mrfdp.learner_threads, or its alias mrfdp.blas_threads). */
extern int	MrfLearnerThreadCount(void);

/* Defines the settings above (called from _PG_init). */
void		MrfRunInit(void);

typedef struct MrfRun
{
	MemoryContext mcxt;			/* first (the allocator finds it there): all
								 * core allocations; freed by MrfRunEnd */
	const char *learner;		/* SQL name, for messages */
	MrfEnv		env;
	MrfRng		rng;
	bool		not_private;	/* a test seed keyed the generator */
	int64		last_percent;	/* progress already reported */
	int64		last_done;		/* the last progress figure (a smaller one starts a phase) */
	TimestampTz phase_started;	/* when the current phase's figures began */
	TimestampTz started;		/* when the run began */
} MrfRun;

/*
 * The core's environment for work outside a learner run (reading a model's
 * document, a clique model's accessors): palloc'd, zeroed, in
 * CurrentMemoryContext, so an error frees it all; its poll honours cancel.
 * A run's environment allocates the same way in the run's own context.
 */
extern const MrfEnv MrfPallocEnv;

/* Whether planned_bytes fits mrfdp.max_learner_memory. */
bool		MrfMemoryFits(double planned_bytes);

/* Errors unless planned_bytes fits mrfdp.max_learner_memory. */
void		MrfCheckMemory(const char *learner, double planned_bytes);

/* Starts a learner run: context, environment, generator, BLAS threads. */
void		MrfRunBegin(MrfRun *run, const char *learner);

/* Raises the error matching a core status other than MRF_OK. */
void		MrfRunCheck(MrfRun *run, int status);

/* Frees what the run allocated. */
void		MrfRunEnd(MrfRun *run);

/*
 * Starts the metadata document of a release: learner, neighbour relation,
 * privacy status, creation time.  Callers append ", \"key\": value" members
 * and close it with MrfMetaFinish.
 */
void		MrfMetaBegin(StringInfo buf, const MrfRun *run, const char *algorithm,
						 int64 rows);
Jsonb	   *MrfMetaFinish(StringInfo buf);

/*
 * An estimate whose width reaches this fraction of lambda sits at the bound
 * (the defaults study): the Frank-Wolfe iterate lies on the L1 sphere of radius
 * 2 lambda when lambda is below the model's width, and well inside it
 * otherwise (bench/bench_defaults.c).
 */
#define MRF_WIDTH_AT_BOUND 0.9

/*
 * Appends the width of the released estimate against lambda: "width",
 * "width_to_lambda" and "width_at_bound" (post-processing of the release).
 */
void		MrfMetaAppendWidth(StringInfo buf, double width, double lambda);

/*
 * The NOTICE for a model whose metadata says "width_at_bound": sent only
 * after the release is charged (the width is part of the release).
 */
struct MrfModel;
void		MrfWidthNotice(const struct MrfModel *model);

#endif
