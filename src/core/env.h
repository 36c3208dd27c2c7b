/*
 * env.h - what the pure-C learners need from their host.
 *
 * The numerical core never includes PostgreSQL headers.  The host (the
 * PostgreSQL glue or a C test) hands in an allocator and a poll callback.
 * Under PostgreSQL the allocator is palloc in a dedicated memory context and
 * the poll callback runs CHECK_FOR_INTERRUPTS(), which may longjmp out of the
 * core; that is safe because all core memory belongs to that context.
 */
#ifndef MRF_ENV_H
#define MRF_ENV_H

#include <stddef.h>
#include <stdint.h>

typedef struct MrfEnv
{
	/* Returns zeroed memory or NULL; NULL makes the core return MRF_ENOMEM. */
	void	   *(*alloc) (void *ctx, size_t bytes);
	void		(*release) (void *ctx, void *ptr);
	/* Called between units of work; may not return (cancel). May be NULL. */
	void		(*poll) (void *ctx, int64_t done, int64_t total);
	void	   *ctx;

	/*
	 * Optional (NULL in a short initialiser).  pending: whether poll has
	 * something to do (a cancel), called on the host's thread without side
	 * effects, so that a learner running threads can stop them before it
	 * polls (a poll may not return).  alloc_uninit: like alloc but the
	 * memory need not be zeroed (buffers the core overwrites); NULL means
	 * alloc.
	 */
	int			(*pending) (void *ctx);
	void	   *(*alloc_uninit) (void *ctx, size_t bytes);
} MrfEnv;

/* Status codes of core functions. */
typedef enum MrfStatus
{
	MRF_OK = 0,
	MRF_ENOMEM = 1,
	MRF_EINVAL = 2,
	MRF_ERNG = 3,				/* the operating system's secure source failed */
	MRF_ERANGE = 4				/* a model's numbers overflow double precision
								 * (its distribution is not finite) */
} MrfStatus;

/* Allocation helpers that go through the environment. */
void	   *MrfAlloc(const MrfEnv *env, size_t bytes);
void	   *MrfAllocUninit(const MrfEnv *env, size_t bytes);
void		MrfFree(const MrfEnv *env, void *ptr);
void		MrfPoll(const MrfEnv *env, int64_t done, int64_t total);

/*
 * The work between two polls in loops whose items differ in size: about
 * this many simple operations (a table increment, a message's cell), a
 * few milliseconds, so that a cancel lands within well under 100 ms of
 * work.  MrfPollEvery(work): how many items of `work` operations each to
 * do between two polls (at least one).
 */
#define MRF_POLL_WORK ((int64_t) 1 << 20)

static inline int64_t
MrfPollEvery(int64_t work)
{
	return work >= MRF_POLL_WORK ? 1 : MRF_POLL_WORK / (work > 0 ? work : 1);
}

/*
 * In a loop over items of varying work: adds an item's work to *work and
 * polls (an interrupt check, no progress figure) once it reaches
 * MRF_POLL_WORK.
 */
static inline void
MrfPollWork(const MrfEnv *env, int64_t *work, int64_t add)
{
	*work += add;
	if (*work >= MRF_POLL_WORK)
	{
		*work = 0;
		MrfPoll(env, 0, 0);
	}
}

/* An environment backed by calloc/free with no poll; for tests and benchmarks. */
extern const MrfEnv MrfMallocEnv;

#endif
