/*
 * env.c - the host interface of the numerical core: allocation and polling go
 * through an MrfEnv so that PostgreSQL can supply palloc and interrupts, and
 * tests can supply calloc.
 */
#include <stdlib.h>

#include "env.h"

/* Allocates through the host so that memory dies with the host's context. */
void *
MrfAlloc(const MrfEnv *env, size_t bytes)
{
	/* A zero-byte request still yields a distinct pointer for uniform frees. */
	if (bytes == 0)
		bytes = 1;
	return env->alloc(env->ctx, bytes);
}

/* Memory the caller overwrites entirely: the host need not zero it. */
void *
MrfAllocUninit(const MrfEnv *env, size_t bytes)
{
	if (env->alloc_uninit == NULL)
		return MrfAlloc(env, bytes);
	if (bytes == 0)
		bytes = 1;
	return env->alloc_uninit(env->ctx, bytes);
}

/* Releases through the host; NULL is accepted so cleanup paths stay simple. */
void
MrfFree(const MrfEnv *env, void *ptr)
{
	if (ptr != NULL)
		env->release(env->ctx, ptr);
}

/* Gives the host a chance to cancel; may not return. */
void
MrfPoll(const MrfEnv *env, int64_t done, int64_t total)
{
	if (env->poll != NULL)
		env->poll(env->ctx, done, total);
}

/* calloc, because the contract promises zeroed memory. */
static void *
MallocEnvAlloc(void *ctx, size_t bytes)
{
	(void) ctx;
	return calloc(1, bytes);
}

/* free, the counterpart of MallocEnvAlloc. */
static void
MallocEnvRelease(void *ctx, void *ptr)
{
	(void) ctx;
	free(ptr);
}

const MrfEnv MrfMallocEnv = {MallocEnvAlloc, MallocEnvRelease, NULL, NULL, NULL, NULL};
