/*
 * harness.c - counters, the runner, and the chi-square helpers shared by the
 * tests.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

int			TestPassed = 0;
int			TestFailed = 0;

/* Failures are printed as they happen so that the log shows their order. */
void
TestRecord(int ok, const char *file, int line, const char *what)
{
	if (ok)
		TestPassed++;
	else
	{
		TestFailed++;
		printf("FAIL %s:%d: %s\n", file, line, what);
	}
}

/*
 * Regularised lower incomplete gamma P(a, x) by its power series, which
 * converges for every x; Q = 1 - P is accurate enough for the p-value
 * thresholds used here (around 1e-4).
 */
static double
LowerGammaRegularised(double a, double x)
{
	double		term;
	double		sum;
	int			n;

	if (x <= 0.0)
		return 0.0;
	term = 1.0 / a;
	sum = term;
	for (n = 1; n < 100000; n++)
	{
		term *= x / (a + n);
		sum += term;
		if (term < sum * 1e-17)
			break;
	}
	return exp(a * log(x) - x - lgamma(a) + log(sum));
}

/* P(chi2_df >= x) = Q(df/2, x/2). */
double
ChiSquareSurvival(double x, int df)
{
	double		q = 1.0 - LowerGammaRegularised(0.5 * df, 0.5 * x);

	return q < 0.0 ? 0.0 : q;
}

/* Sum over cells of (O - E)^2 / E. */
double
ChiSquareStatistic(const long *observed, const double *prob, int k, long n)
{
	double		stat = 0.0;
	int			i;

	for (i = 0; i < k; i++)
	{
		double		e = prob[i] * (double) n;
		double		diff = (double) observed[i] - e;

		stat += diff * diff / e;
	}
	return stat;
}

/*
 * Allocates with a size header so that frees can be accounted.  Atomic
 * counters, so that threads may share one environment (a learner's own
 * threads take memory from arenas the caller allocated, workers.h; a
 * test's threads need not).
 */
static void *
CountingAlloc(void *ctx, size_t bytes)
{
	CountingEnv *ce = ctx;
	size_t	   *p;
	size_t		live;
	size_t		peak;

	if (__atomic_add_fetch(&ce->requests, 1, __ATOMIC_SEQ_CST) == ce->fail_at ||
		bytes > SIZE_MAX - sizeof(size_t) * 2)
		return NULL;
	p = calloc(1, bytes + sizeof(size_t) * 2);
	if (p == NULL)
		return NULL;
	p[0] = bytes;
	live = __atomic_add_fetch(&ce->live, bytes, __ATOMIC_SEQ_CST);
	peak = __atomic_load_n(&ce->peak, __ATOMIC_RELAXED);
	while (live > peak &&
		   !__atomic_compare_exchange_n(&ce->peak, &peak, live, 0,
										__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		;
	__atomic_add_fetch(&ce->allocs, 1, __ATOMIC_SEQ_CST);
	return p + 2;
}

/* Frees and accounts. */
static void
CountingRelease(void *ctx, void *ptr)
{
	CountingEnv *ce = ctx;
	size_t	   *p = (size_t *) ptr - 2;

	__atomic_sub_fetch(&ce->live, p[0], __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&ce->frees, 1, __ATOMIC_SEQ_CST);
	free(p);
}

/* Records the progress reported by the core. */
static void
CountingPoll(void *ctx, int64_t done, int64_t total)
{
	CountingEnv *ce = ctx;

	ce->polls++;
	ce->last_done = done;
	ce->last_total = total;
}

/* Resets ce and points env's callbacks at it. */
void
CountingEnvInit(CountingEnv *ce, MrfEnv *env)
{
	memset(ce, 0, sizeof(*ce));
	env->alloc = CountingAlloc;
	env->release = CountingRelease;
	env->poll = CountingPoll;
	env->ctx = ce;
	env->pending = NULL;
	env->alloc_uninit = NULL;
}

/*
 * One run of a sweep with request fail_at refused (0: none); checks that
 * every block came back.  Returns the status and the requests made.
 */
static MrfStatus
OomRun(const char *what, OomRelease release, void *arg, long fail_at, long *requests)
{
	CountingEnv ce;
	MrfEnv		env;
	MrfStatus	st;

	CountingEnvInit(&ce, &env);
	ce.fail_at = fail_at;
	st = release(arg, &env);
	*requests = ce.requests;
	CHECK_MSG(ce.live == 0 && ce.allocs == ce.frees,
			  "%s, request %ld refused (status %d): %ld blocks (%zu bytes) not handed back",
			  what, fail_at, (int) st, ce.allocs - ce.frees, ce.live);
	return st;
}

/* Seconds since t0 (CLOCK_MONOTONIC). */
static double
SecondsSince(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double) (t1.tv_sec - t0->tv_sec) + 1e-9 * (double) (t1.tv_nsec - t0->tv_nsec);
}

/*
 * The release once without refusals, from t0 on: it must succeed, and its
 * requests are counted into res.  Whether there is anything to refuse.
 */
static int
OomBaseline(const char *what, OomRelease release, void *arg, struct timespec *t0,
			OomSweepResult *res)
{
	MrfStatus	st;

	clock_gettime(CLOCK_MONOTONIC, t0);
	st = OomRun(what, release, arg, 0, &res->requests);
	CHECK_MSG(st == MRF_OK, "%s: status %d without refusals", what, (int) st);
	return st == MRF_OK && res->requests > 0;
}

/* Refuses each request of the release in turn. */
OomSweepResult
OomSweep(const char *what, OomRelease release, void *arg)
{
	OomSweepResult res = {0, 0, 0, 0.0};
	struct timespec t0;
	MrfStatus	st;

	if (!OomBaseline(what, release, arg, &t0, &res))
		return res;
	for (long k = 1; k <= res.requests; k++)
	{
		long		made;

		st = OomRun(what, release, arg, k, &made);
		CHECK_MSG(st == MRF_ENOMEM, "%s, request %ld of %ld refused: status %d",
				  what, k, res.requests, (int) st);
		res.refused++;
		res.reached += made >= k;
	}
	res.seconds = SecondsSince(&t0);
	return res;
}

/* Refuses a sample of request numbers, several times each. */
OomSweepResult
OomSweepSampled(const char *what, OomRelease release, void *arg, int samples, int repeats)
{
	OomSweepResult res = {0, 0, 0, 0.0};
	struct timespec t0;
	MrfStatus	st;

	if (!OomBaseline(what, release, arg, &t0, &res))
		return res;
	for (int s = 0; s < samples; s++)
	{
		/* spread over 1..requests, the first and the last included */
		long		k = samples == 1 ? 1 :
			1 + (long) ((double) (res.requests - 1) * s / (samples - 1) + 0.5);

		for (int r = 0; r < repeats; r++)
		{
			long		made;

			st = OomRun(what, release, arg, k, &made);
			CHECK_MSG(made >= k ? st == MRF_ENOMEM : st == MRF_OK,
					  "%s, request %ld of about %ld refused (%ld made): status %d",
					  what, k, res.requests, made, (int) st);
			res.refused++;
			res.reached += made >= k;
		}
	}
	res.seconds = SecondsSince(&t0);
	return res;
}

/* Whether name is one of the comma-separated names of list. */
static int
GroupListed(const char *list, const char *name)
{
	size_t		len = strlen(name);

	for (const char *at = list; at != NULL; at = strchr(at, ','))
	{
		if (*at == ',')
			at++;
		if (strncmp(at, name, len) == 0 && (at[len] == ',' || at[len] == '\0'))
			return 1;
	}
	return 0;
}

/* Runs each group, timing it, then prints the closing line. */
int
main(void)
{
	struct
	{
		const char *name;
		void		(*fn) (void);
	}			groups[] = {
		{"noise", TestNoise},
		{"privacy", TestPrivacy},
		{"rows", TestRows},
		{"fw", TestFw},
		{"ising", TestIsing},
		{"fwparts", TestFwParts},
		{"sample", TestSample},
		{"sample_tree", TestSampleTree},
		{"allocate", TestAllocate},
		{"sample_mix", TestSampleMix},
		{"cliques", TestCliques},
		{"pairwise", TestPairwise},
		{"structure", TestStructure},
		{"structure_plan", TestStructurePlan},
		{"twise", TestTwise},
		{"mst", TestMst},
		{"workload", TestWorkload},
		{"aim", TestAim},
	};
	size_t		i;
	/* MRF_CTEST_GROUPS="sample,sample_tree" runs only those groups (while working on them) */
	const char *only = getenv("MRF_CTEST_GROUPS");

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
	{
		struct timespec t0;

		if (only != NULL && !GroupListed(only, groups[i].name))
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		groups[i].fn();
		printf("# %s: %.2f s\n", groups[i].name, SecondsSince(&t0));
	}
	printf("%d passed, %d failed\n", TestPassed, TestFailed);
	return TestFailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
