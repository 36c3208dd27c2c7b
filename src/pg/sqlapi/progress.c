/*
 * sqlapi/progress.c - one slot per backend in shared memory telling which learner
 * runs and how far it is, so a monitoring query can watch long runs.
 *
 * Each slot has a single writer (its backend); readers take what they see.
 * A torn read can only mix two progress figures of the same run.
 *
 * Progress is a side channel of the data (how fast a solver converges), so
 * readers see it as pg_stat_activity shows queries: only the runs of roles
 * whose privileges they have, unless they have pg_read_all_stats.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/backendid.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "pg/sqlapi/progress.h"

typedef struct MrfProgressSlot
{
	volatile int pid;			/* 0: free */
	Oid			role;			/* the role that started the learner */
	char		learner[NAMEDATALEN];
	volatile int64 done;
	volatile int64 total;
	TimestampTz started;
	volatile TimestampTz phase_started; /* of the phase done and total count */
} MrfProgressSlot;

static MrfProgressSlot *ProgressSlots = NULL;
static int	ProgressSlotCount = 0;
static bool ProgressCallbackRegistered = false;

/* Size of the slot array. */
static Size
ProgressShmemSize(void)
{
	return mul_size(MaxBackends + 1, sizeof(MrfProgressSlot));
}

/* See sqlapi/progress.h. */
void
MrfProgressShmemRequest(void)
{
	RequestAddinShmemSpace(ProgressShmemSize());
}

/* See sqlapi/progress.h. */
void
MrfProgressShmemStartup(void)
{
	bool		found;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	ProgressSlots = ShmemInitStruct("mrfdp progress", ProgressShmemSize(), &found);
	if (!found)
		memset(ProgressSlots, 0, ProgressShmemSize());
	ProgressSlotCount = MaxBackends + 1;
	LWLockRelease(AddinShmemInitLock);
}

/* This backend's slot, or NULL without shared memory. */
static MrfProgressSlot *
MySlot(void)
{
	if (ProgressSlots == NULL || MyBackendId <= 0 || MyBackendId >= ProgressSlotCount)
		return NULL;
	return &ProgressSlots[MyBackendId];
}

/* Frees the slot when a transaction ends, also by error or cancel. */
static void
ProgressXactCallback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_COMMIT ||
		event == XACT_EVENT_PARALLEL_ABORT || event == XACT_EVENT_PARALLEL_COMMIT)
		MrfProgressEnd();
}

/* This backend starts a learner. */
void
MrfProgressStart(const char *learner)
{
	MrfProgressSlot *slot = MySlot();

	if (slot == NULL)
		return;
	if (!ProgressCallbackRegistered)
	{
		RegisterXactCallback(ProgressXactCallback, NULL);
		ProgressCallbackRegistered = true;
	}
	slot->pid = 0;
	slot->role = GetUserId();
	strlcpy(slot->learner, learner, NAMEDATALEN);
	slot->done = 0;
	slot->total = 0;
	slot->started = GetCurrentTimestamp();
	slot->phase_started = slot->started;
	pg_write_barrier();
	slot->pid = MyProcPid;
}

/* Records progress. */
void
MrfProgressUpdate(int64 done, int64 total, TimestampTz phase_started)
{
	MrfProgressSlot *slot = MySlot();

	if (slot == NULL || slot->pid != MyProcPid)
		return;
	slot->phase_started = phase_started;
	slot->done = done;
	slot->total = total;
}

/* See sqlapi/progress.h. */
double
MrfProgressSecondsLeft(double elapsed, int64 done, int64 total)
{
	if (!(elapsed >= MRF_PROGRESS_ESTIMATE_SECONDS) || done <= 0 || total <= 0 || done > total ||
		(double) done * MRF_PROGRESS_ESTIMATE_PARTS < (double) total)
		return -1.0;
	return elapsed * (double) (total - done) / (double) done;
}

/* Frees this backend's slot. */
void
MrfProgressEnd(void)
{
	MrfProgressSlot *slot = MySlot();

	if (slot != NULL && slot->pid == MyProcPid)
		slot->pid = 0;
}

PG_FUNCTION_INFO_V1(mrf_progress);
/*
 * The learners running now that the caller may watch: pid, learner, done,
 * total, percent, started and, from the current phase's pace, seconds_left
 * (NULL before an estimate; MrfProgressSecondsLeft).  A catalog whose
 * mrf_progress has no seventh column (before ALTER EXTENSION UPDATE) gets
 * six.
 */
Datum
mrf_progress(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		read_all = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);

	if (ProgressSlots == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("mrf_progress needs mrfdp in shared_preload_libraries"),
				 errhint("Add mrfdp to shared_preload_libraries and restart the server; NOTICE progress (mrfdp.progress) works without it.")));
	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < ProgressSlotCount; i++)
	{
		MrfProgressSlot copy;
		Datum		values[7];
		bool		nulls[7] = {false, false, false, false, false, false, true};
		double		left;

		if (ProgressSlots[i].pid == 0)
			continue;
		pg_read_barrier();
		memcpy(&copy, &ProgressSlots[i], sizeof(copy));
		if (copy.pid == 0)
			continue;
		if (!read_all && !has_privs_of_role(GetUserId(), copy.role))
			continue;
		copy.learner[NAMEDATALEN - 1] = '\0';
		values[0] = Int32GetDatum(copy.pid);
		values[1] = CStringGetTextDatum(copy.learner);
		values[2] = Int64GetDatum(copy.done);
		values[3] = Int64GetDatum(copy.total);
		if (copy.total > 0)
			values[4] = Float8GetDatum(100.0 * (double) copy.done / (double) copy.total);
		else
			nulls[4] = true;
		values[5] = TimestampTzGetDatum(copy.started);
		left = MrfProgressSecondsLeft((double) (GetCurrentTimestamp() - copy.phase_started) / 1e6,
									  copy.done, copy.total);
		if (left >= 0.0 && rsinfo->setDesc->natts >= 7)
		{
			values[6] = Float8GetDatum(left);
			nulls[6] = false;
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
