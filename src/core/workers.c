/*
 * workers.c - a learner's threads inside the host's process (workers.h):
 * the pass the Frank-Wolfe solver's row blocks and selections and AIM's
 * candidate scoring run on, and the per-thread arenas that let a thread
 * allocate without calling the host.
 */
#include <signal.h>
#include <string.h>

#include "workers.h"

/* See workers.h. */
void
MrfWorkersInit(MrfWorkers *w, const MrfEnv *env, int nthreads, int64_t nitems, int dynamic)
{
	memset(w, 0, sizeof(*w));
	if (nthreads > MRF_WORKERS_MAX)
		nthreads = MRF_WORKERS_MAX;
	if (nthreads > nitems)
		nthreads = (int) nitems;
	if (nthreads < 1)
		nthreads = 1;
	w->env = env;
	w->nthreads = nthreads;
	w->nitems = nitems;
	w->dynamic = dynamic;
	atomic_init(&w->cursor, 0);
	atomic_init(&w->stop, 0);
	for (int i = 0; i < nthreads; i++)
	{
		w->worker[i].w = w;
		w->worker[i].index = i;
		w->worker[i].begin = nitems * i / nthreads;
		w->worker[i].end = nitems * (i + 1) / nthreads;
	}
}

/* The next item of thread wk, or -1 when it has none left. */
static int64_t
NextItem(MrfWorker *wk)
{
	MrfWorkers *w = wk->w;

	if (w->dynamic)
	{
		int64_t		i = atomic_fetch_add(&w->cursor, 1);

		return i < w->nitems ? i : -1;
	}
	return wk->next < wk->end ? wk->next++ : -1;
}

/* A thread's run of items until none is left or a cancel stops the pass. */
static void
Run(MrfWorker *wk)
{
	MrfWorkers *w = wk->w;
	const MrfEnv *env = w->env;

	while (!atomic_load_explicit(&w->stop, memory_order_relaxed))
	{
		int64_t		i = NextItem(wk);

		if (i < 0)
			break;
		w->item(w->arg, wk->index, i);
		/* the host is asked on its own thread only, and polled after the join */
		if (wk->index == 0 && env != NULL && env->pending != NULL && env->pending(env->ctx))
			atomic_store(&w->stop, 1);
	}
	if (w->run_end != NULL)
		w->run_end(w->arg, wk->index);
}

/* pthread entry of the other threads. */
static void *
ThreadMain(void *arg)
{
	MrfWorker  *wk = (MrfWorker *) arg;

	if (wk->w->thread_init != NULL)
		wk->w->thread_init(wk->w->arg, wk->index);
	Run(wk);
	return NULL;
}

/* Items not done yet. */
static int64_t
Left(MrfWorkers *w)
{
	int64_t		left = 0;

	if (w->dynamic)
	{
		int64_t		taken = atomic_load(&w->cursor);

		return w->nitems - (taken < w->nitems ? taken : w->nitems);
	}
	for (int i = 0; i < w->nthreads; i++)
		left += w->worker[i].end - w->worker[i].next;
	return left;
}

/* Whether thread i has an item to start on. */
static int
HasWork(MrfWorkers *w, int i)
{
	return w->dynamic ? atomic_load(&w->cursor) < w->nitems :
		w->worker[i].next < w->worker[i].end;
}

/* See workers.h. */
void
MrfWorkersPass(MrfWorkers *w, int64_t done, int64_t total)
{
	int			i;

	atomic_store(&w->cursor, 0);
	for (i = 0; i < w->nthreads; i++)
		w->worker[i].next = w->worker[i].begin;
	for (;;)
	{
		int			started[MRF_WORKERS_MAX];
		int64_t		left;
		sigset_t	all;
		sigset_t	old;

		atomic_store(&w->stop, 0);
		/* the other threads take no signals: the host handles them here */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		for (i = 1; i < w->nthreads; i++)
			started[i] = HasWork(w, i) &&
				pthread_create(&w->worker[i].tid, NULL, ThreadMain, &w->worker[i]) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);

		Run(&w->worker[0]);
		/* a thread that could not start runs here */
		for (i = 1; i < w->nthreads; i++)
			if (!started[i] && !atomic_load(&w->stop))
				Run(&w->worker[i]);
		for (i = 1; i < w->nthreads; i++)
			if (started[i])
				pthread_join(w->worker[i].tid, NULL);

		left = Left(w);
		if (left == 0)
			return;
		/* nothing else runs now: the poll may leave by longjmp */
		MrfPoll(w->env, done + w->nitems - left, total);
	}
}

/* Bytes in front of each arena allocation: where the arena stood before it, and after. */
#define ARENA_HEADER 16
#define ARENA_ALIGN(x) (((x) + 15) & ~(size_t) 15)

/* An arena allocation; zero: whether to clear it. */
static void *
ArenaTake(MrfArena *arena, size_t bytes, int zero)
{
	size_t		need = ARENA_HEADER + ARENA_ALIGN(bytes);
	size_t	   *hdr;
	char	   *ptr;

	if (bytes > arena->size || need > arena->size - arena->used)
		return NULL;
	hdr = (size_t *) (arena->base + arena->used);
	ptr = arena->base + arena->used + ARENA_HEADER;
	hdr[0] = arena->used;
	arena->used += need;
	hdr[1] = arena->used;
	if (zero)
		memset(ptr, 0, bytes);
	return ptr;
}

static void *
ArenaAlloc(void *ctx, size_t bytes)
{
	return ArenaTake((MrfArena *) ctx, bytes, 1);
}

static void *
ArenaAllocUninit(void *ctx, size_t bytes)
{
	return ArenaTake((MrfArena *) ctx, bytes, 0);
}

/* The latest allocation gives its bytes back; any other waits for the reset. */
static void
ArenaRelease(void *ctx, void *ptr)
{
	MrfArena   *arena = (MrfArena *) ctx;
	size_t	   *hdr = (size_t *) ((char *) ptr - ARENA_HEADER);

	if (hdr[1] == arena->used)
		arena->used = hdr[0];
}

/* See workers.h. */
MrfStatus
MrfArenaInit(MrfArena *arena, size_t bytes, const MrfEnv *host)
{
	memset(arena, 0, sizeof(*arena));
	/* the block is cleared as it is handed out */
	arena->base = MrfAllocUninit(host, bytes);
	if (arena->base == NULL)
		return MRF_ENOMEM;
	arena->size = bytes;
	arena->env.alloc = ArenaAlloc;
	arena->env.alloc_uninit = ArenaAllocUninit;
	arena->env.release = ArenaRelease;
	arena->env.ctx = arena;
	return MRF_OK;
}

/* See workers.h. */
void
MrfArenaReset(MrfArena *arena)
{
	arena->used = 0;
}

/* See workers.h. */
void
MrfArenaFree(MrfArena *arena, const MrfEnv *host)
{
	MrfFree(host, arena->base);
	memset(arena, 0, sizeof(*arena));
}
