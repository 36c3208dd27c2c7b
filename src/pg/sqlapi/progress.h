/*
 * sqlapi/progress.h - learner progress in shared memory, readable by mrf_progress()
 * from any session.  Needs mrfdp in shared_preload_libraries; elsewhere the
 * calls are no-ops and mrf_progress() explains.
 */
#ifndef MRF_PG_PROGRESS_H
#define MRF_PG_PROGRESS_H

#include "postgres.h"

/*
 * The bodies of the shared-memory hooks (hooks.c, installed during shared
 * preload only): ask for the slots, then create or attach to them.
 */
void		MrfProgressShmemRequest(void);
void		MrfProgressShmemStartup(void);

/* This backend starts a learner. */
void		MrfProgressStart(const char *learner);

/* This backend's learner has done `done` of `total` units. */
void		MrfProgressUpdate(int64 done, int64 total);

/* This backend's learner finished (or its transaction ended). */
void		MrfProgressEnd(void);

#endif
