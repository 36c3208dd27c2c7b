/*
 * bench_util.h - helpers shared by the core benchmarks (bench_util.c).
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Live and peak bytes of the core's allocations through BenchAlloc. */
typedef struct BenchMemory
{
	size_t		live;
	size_t		peak;
} BenchMemory;

/* Wall-clock seconds (monotonic). */
double		Now(void);

/* Peak resident set size of the process, MiB. */
double		PeakRssMiB(void);

/* Prints "<benchmark>: msg[: arg]" and exits with status 2. */
void		Die(const char *msg, const char *arg);

/* calloc that dies on failure (the benchmark's own buffers). */
void	   *XCalloc(size_t count, size_t size);

/* qsort comparison of doubles. */
int			CompareDouble(const void *a, const void *b);

/* Median of count values (sorts them in place); NaN when there are none. */
double		Median(double *v, int count);

/*
 * The core's allocator and deallocator (MrfEnv): ctx is a BenchMemory, or a
 * benchmark's context whose first member is one.
 */
void	   *BenchAlloc(void *ctx, size_t bytes);
void		BenchRelease(void *ctx, void *ptr);

/* Writes a C-order 2-d .npy array (descr such as "|i1" or "<f8"). */
void		NpyWrite(const char *path, const char *descr, int64_t rows, int64_t cols,
					 const void *data, size_t itemSize);

/* Reads a C-order 2-d .npy array of the given dtype; returns malloc'd data. */
void	   *NpyRead(const char *path, const char *descr, size_t itemSize, int64_t *rows,
					int64_t *cols);

/* Packs n rows of p values +-1 into rows.h's bit layout (dies on other values). */
uint64_t   *PackRows(const int8_t *z, int64_t n, int p);

/* The number after argv[*i] (advancing *i); dies if there is none. */
double		NumberArg(int argc, char **argv, int *i);

#endif
