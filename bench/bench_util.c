/*
 * bench_util.c - what the core benchmarks share: wall time and peak RSS,
 * dying with a message, allocation that counts live and peak bytes (the
 * core's environment), .npy files for the NumPy baselines, packing +-1
 * rows, number arguments and medians.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>


#include "bench_util.h"
#include "rows.h"

/* Seconds on the monotonic clock. */
double
Now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* Peak resident set size of this process so far, in MiB. */
double
PeakRssMiB(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double) ru.ru_maxrss / 1024.0;	/* ru_maxrss is in KiB on Linux */
}

/* Prints a message, prefixed with the benchmark's name, and exits. */
void
Die(const char *msg, const char *arg)
{
	fprintf(stderr, "%s: %s%s%s\n", program_invocation_short_name, msg,
			arg ? ": " : "", arg ? arg : "");
	exit(2);
}

/* calloc that dies on failure (the benchmark's own buffers). */
void *
XCalloc(size_t count, size_t size)
{
	void	   *p = calloc(count, size);

	if (p == NULL)
		Die("out of memory", NULL);
	return p;
}

/* qsort comparator for doubles. */
int
CompareDouble(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

/* Median of count values (sorts them in place). */
double
Median(double *v, int count)
{
	if (count < 1)
		return NAN;
	qsort(v, (size_t) count, sizeof(double), CompareDouble);
	return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

#define BENCH_HEADER 16

/* calloc with a size header, counting live and peak bytes. */
void *
BenchAlloc(void *ctx, size_t bytes)
{
	BenchMemory *c = ctx;
	char	   *p;

	if (bytes > SIZE_MAX - BENCH_HEADER)
		return NULL;
	p = calloc(1, bytes + BENCH_HEADER);
	if (p == NULL)
		return NULL;
	memcpy(p, &bytes, sizeof(bytes));
	c->live += bytes;
	if (c->live > c->peak)
		c->peak = c->live;
	return p + BENCH_HEADER;
}

/* free of a BenchAlloc block. */
void
BenchRelease(void *ctx, void *ptr)
{
	BenchMemory *c = ctx;
	char	   *p = (char *) ptr - BENCH_HEADER;
	size_t		bytes;

	memcpy(&bytes, p, sizeof(bytes));
	c->live -= bytes;
	free(p);
}

/* ---- .npy files (format version 1.0) ---- */

/*
 * Writes a C-order 2-d array.  Header: magic, version 1.0, a little-endian
 * uint16 length, then a Python dict literal padded with spaces and ended by
 * a newline so that the data start on a 64-byte boundary.
 */
void
NpyWrite(const char *path, const char *descr, int64_t rows, int64_t cols,
		 const void *data, size_t itemSize)
{
	FILE	   *f = fopen(path, "wb");
	char		dict[256];
	int			len;
	int			total;
	unsigned char prefix[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};

	if (f == NULL)
		Die("cannot write", path);
	len = snprintf(dict, sizeof(dict),
				   "{'descr': '%s', 'fortran_order': False, 'shape': (%lld, %lld), }",
				   descr, (long long) rows, (long long) cols);
	total = 10 + len + 1;
	total = (total + 63) / 64 * 64;
	memset(dict + len, ' ', (size_t) (total - 10 - len - 1));
	dict[total - 10 - 1] = '\n';
	prefix[8] = (unsigned char) ((total - 10) & 0xff);
	prefix[9] = (unsigned char) ((total - 10) >> 8);
	if (fwrite(prefix, 1, 10, f) != 10 ||
		fwrite(dict, 1, (size_t) (total - 10), f) != (size_t) (total - 10) ||
		fwrite(data, itemSize, (size_t) (rows * cols), f) != (size_t) (rows * cols) ||
		fclose(f) != 0)
		Die("write failed", path);
}

/*
 * Reads a C-order 2-d .npy of the given dtype (descr such as "|i1", "|u1" or
 * "<f8", as NpyWrite or numpy.save writes it); returns malloc'd data.
 */
void *
NpyRead(const char *path, const char *descr, size_t itemSize, int64_t *rows,
		int64_t *cols)
{
	FILE	   *f = fopen(path, "rb");
	unsigned char prefix[10];
	char		dict[4096];
	char		want[32];
	size_t		hlen;
	const char *shape;
	long long	r;
	long long	c;
	void	   *data;

	if (f == NULL)
		Die("cannot read", path);
	if (fread(prefix, 1, 10, f) != 10 || memcmp(prefix + 1, "NUMPY", 5) != 0 ||
		prefix[6] != 1)
		Die("not a version 1 .npy file", path);
	hlen = (size_t) prefix[8] | ((size_t) prefix[9] << 8);
	if (hlen >= sizeof(dict) || fread(dict, 1, hlen, f) != hlen)
		Die("bad .npy header", path);
	dict[hlen] = '\0';
	snprintf(want, sizeof(want), "'%s'", descr);
	if (strstr(dict, want) == NULL || strstr(dict, "'fortran_order': False") == NULL)
		Die("unexpected dtype or order (want C order)", path);
	shape = strstr(dict, "'shape': (");
	if (shape == NULL || sscanf(shape, "'shape': (%lld, %lld)", &r, &c) != 2 ||
		r < 1 || c < 1 || c > 100000000 || r > INT32_MAX)
		Die("expected a 2-d array", path);
	data = XCalloc((size_t) (r * c), itemSize);
	if (fread(data, itemSize, (size_t) (r * c), f) != (size_t) (r * c))
		Die("short .npy file", path);
	fclose(f);
	*rows = r;
	*cols = c;
	return data;
}

/* Packs +-1 rows into the bit layout of rows.h. */
uint64_t *
PackRows(const int8_t *z, int64_t n, int p)
{
	int			words = MrfBitWords(p);
	uint64_t   *bits = XCalloc((size_t) n * words, sizeof(uint64_t));
	int64_t		m;
	int			j;

	for (m = 0; m < n; m++)
		for (j = 0; j < p; j++)
		{
			if (z[(size_t) m * p + j] > 0)
				MrfBitSet(bits + (size_t) m * words, j);
			else if (z[(size_t) m * p + j] != -1)
				Die("data values must be -1 or +1", NULL);
		}
	return bits;
}

/* Parses a number argument or exits. */
double
NumberArg(int argc, char **argv, int *i)
{
	char	   *end;
	double		v;

	if (*i + 1 >= argc)
		Die("a value is missing after", argv[*i]);
	errno = 0;
	v = strtod(argv[++*i], &end);
	if (errno != 0 || *end != '\0')
		Die("not a number", argv[*i]);
	return v;
}
