/*
 * sqlapi/progress.h - learner progress in shared memory, readable by mrf_progress()
 * from any session.  Needs mrfdp in shared_preload_libraries; elsewhere the
 * calls are no-ops and mrf_progress() explains.
 */
#ifndef MRF_PG_PROGRESS_H
#define MRF_PG_PROGRESS_H

#include "postgres.h"

#include "datatype/timestamp.h"

/*
 * The bodies of the shared-memory hooks (hooks.c, installed during shared
 * preload only): ask for the slots, then create or attach to them.
 */
void		MrfProgressShmemRequest(void);
void		MrfProgressShmemStartup(void);

/* This backend starts a learner. */
void		MrfProgressStart(const char *learner);

/*
 * This backend's learner has done `done` of `total` units of the phase
 * (the scan, then the learner's own work) that began at phase_started.
 */
void		MrfProgressUpdate(int64 done, int64 total, TimestampTz phase_started);

/*
 * The seconds a phase that has run `elapsed` seconds and done `done` of
 * `total` units has left at its pace so far, or -1 before there is an
 * estimate: under MRF_PROGRESS_ESTIMATE_SECONDS of the phase, or under
 * 1/MRF_PROGRESS_ESTIMATE_PARTS of its work (AIM's total is an upper
 * bound that shrinks, so its estimate does too).  The one formula of
 * mrf_progress()'s seconds_left and the NOTICEs' time left.
 */
#define MRF_PROGRESS_ESTIMATE_SECONDS 1.0
#define MRF_PROGRESS_ESTIMATE_PARTS 100
double		MrfProgressSecondsLeft(double elapsed, int64 done, int64 total);

/* This backend's learner finished (or its transaction ended). */
void		MrfProgressEnd(void);

#endif
