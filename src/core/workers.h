/*
 * workers.h - a learner's threads inside the host's process: a pass of work
 * items over threads, and per-thread arena environments.
 *
 * Only the calling thread talks to the host (allocation, polling).  The
 * other threads live for one pass, take no signals (the host's handlers run
 * on the calling thread) and touch only memory allocated before they start,
 * or a thread's own arena (MrfArena), itself allocated up front.  The
 * caller checks env->pending between its own items; when a cancel is
 * pending it stops the threads, joins them and only then polls (a poll may
 * not return); if the poll returns, the pass resumes with the items not yet
 * done.
 */
#ifndef MRF_WORKERS_H
#define MRF_WORKERS_H

#include <pthread.h>
#include <stdatomic.h>

#include "env.h"

/* Most threads of a pass. */
#define MRF_WORKERS_MAX 64

typedef struct MrfWorkers MrfWorkers;

/* One thread of a pass (private). */
typedef struct MrfWorker
{
	MrfWorkers *w;
	int			index;			/* 0: the calling thread */
	int64_t		begin;			/* static split: its items [begin, end) */
	int64_t		end;
	int64_t		next;			/* the next of them to do */
	pthread_t	tid;
} MrfWorker;

struct MrfWorkers
{
	const MrfEnv *env;			/* the host's: pending and poll, calling thread only */
	void	   *arg;
	/* item i, on thread th (0: the caller); required */
	void		(*item) (void *arg, int th, int64_t i);
	/* optional: first thing in a started thread */
	void		(*thread_init) (void *arg, int th);
	/* optional: after each of a thread's runs of items, a stopped one too */
	void		(*run_end) (void *arg, int th);
	int			nthreads;
	int			dynamic;		/* items from one shared cursor, in order */
	int64_t		nitems;
	/* private */
	atomic_llong cursor;		/* dynamic: the next item to take */
	atomic_int	stop;
	MrfWorker	worker[MRF_WORKERS_MAX];
};

/*
 * Sets up a pass of nitems items over nthreads threads (clamped to
 * 1..MRF_WORKERS_MAX and to nitems); dynamic 0: thread i takes the
 * contiguous items [nitems i / T, nitems (i + 1) / T), else each thread
 * takes the next item not yet taken.  The caller fills arg, item and the
 * optional callbacks.
 */
void		MrfWorkersInit(MrfWorkers *w, const MrfEnv *env, int nthreads, int64_t nitems,
						   int dynamic);

/*
 * Runs every item once (static split: restarting each thread at its
 * range's beginning); polls, with no other thread running, only when a
 * cancel stopped the pass, with progress done + items finished out of
 * total.
 */
void		MrfWorkersPass(MrfWorkers *w, int64_t done, int64_t total);

/*
 * A thread's arena: an environment whose allocations come from one block
 * allocated up front (zeroed unless asked not to, 16-byte aligned); a release
 * of the latest allocation gives its bytes back, any other waits for
 * MrfArenaReset, which frees everything; a request the block cannot hold returns NULL (the core
 * then returns MRF_ENOMEM and the caller may redo the work on its own
 * thread).  Its environment does not poll.
 */
typedef struct MrfArena
{
	MrfEnv		env;
	char	   *base;
	size_t		size;
	size_t		used;
} MrfArena;

/* Allocates the block (bytes) through host; MRF_ENOMEM if it cannot. */
MrfStatus	MrfArenaInit(MrfArena *arena, size_t bytes, const MrfEnv *host);
void		MrfArenaReset(MrfArena *arena);
void		MrfArenaFree(MrfArena *arena, const MrfEnv *host);

#endif
