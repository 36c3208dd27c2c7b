/*
 * harness.h - a minimal unit-test harness for the numerical core: checks
 * count passes and failures, print every failure with its location, and the
 * runner ends with one line "N passed, N failed".
 */
#ifndef MRF_TEST_HARNESS_H
#define MRF_TEST_HARNESS_H

#include <math.h>
#include <stdio.h>

#include "env.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

extern int	TestPassed;
extern int	TestFailed;

/* Records one outcome; prints the failure with its source location. */
void		TestRecord(int ok, const char *file, int line, const char *what);

#define CHECK(cond) \
	TestRecord((cond) ? 1 : 0, __FILE__, __LINE__, #cond)

/* |a - b| <= tol, printing both values on failure. */
#define CHECK_NEAR(a, b, tol) \
	do { \
		double		check_a_ = (double) (a); \
		double		check_b_ = (double) (b); \
		double		check_t_ = (double) (tol); \
		int			check_ok_ = fabs(check_a_ - check_b_) <= check_t_; \
		TestRecord(check_ok_, __FILE__, __LINE__, #a " ~ " #b); \
		if (!check_ok_) \
			printf("    %s = %.10g, %s = %.10g, tolerance %.3g\n", \
				   #a, check_a_, #b, check_b_, check_t_); \
	} while (0)

/* A condition with a printf-style explanation on failure. */
#define CHECK_MSG(cond, ...) \
	do { \
		int			check_ok_ = (cond) ? 1 : 0; \
		TestRecord(check_ok_, __FILE__, __LINE__, #cond); \
		if (!check_ok_) \
		{ \
			printf("    "); \
			printf(__VA_ARGS__); \
			printf("\n"); \
		} \
	} while (0)

/* Upper tail P(chi2_df >= x) of the chi-square distribution. */
double		ChiSquareSurvival(double x, int df);

/*
 * Pearson chi-square of observed counts against expected probabilities over
 * k cells with total count n.
 */
double		ChiSquareStatistic(const long *observed, const double *prob, int k,
							   long n);

/* Allocation and poll accounting of a test environment. */
typedef struct CountingEnv
{
	size_t		live;
	size_t		peak;
	long		allocs;
	long		frees;
	long		polls;
	int64_t		last_done;
	int64_t		last_total;
	long		requests;		/* every request, refused or not */
	long		fail_at;		/* the request (from 1) refused as out of memory; 0: none */
} CountingEnv;

/*
 * Resets ce and points env's callbacks at it.  The counters are updated
 * atomically, so a learner's threads may share one CountingEnv (peak is
 * then only approximate); read them once the threads are joined.
 */
void		CountingEnvInit(CountingEnv *ce, MrfEnv *env);

/*
 * Out-of-memory sweeps.  Under PostgreSQL the core's allocator returns NULL
 * when memory runs out (MCXT_ALLOC_NO_OOM), so every allocation of a
 * release may fail after the budget was charged: the core must then return
 * MRF_ENOMEM, with no output, and hand back every block it took.
 *
 * A release under a sweep: runs once with env and returns its status.  On
 * MRF_OK it hands back (through env) whatever it returned; on any other
 * status it checks that its outputs are empty (NULL) itself.
 */
typedef MrfStatus (*OomRelease) (void *arg, const MrfEnv *env);

/* What a sweep did. */
typedef struct OomSweepResult
{
	long		requests;		/* allocation requests of the unrefused run */
	long		refused;		/* runs with one request refused */
	long		reached;		/* of those, runs that reached their refusal */
	double		seconds;		/* the sweep's time, the unrefused run's included */
} OomSweepResult;

/*
 * Runs release once unrefused (it must return MRF_OK) to count its
 * requests, then once for each request refused in turn: each must return
 * MRF_ENOMEM and hand back every block (live bytes 0, as many frees as
 * allocations).  what names the release in failures.
 */
OomSweepResult OomSweep(const char *what, OomRelease release, void *arg);

/*
 * For releases whose allocation order need not be the same from run to run
 * (threads): after the unrefused run, refuses `samples` request numbers
 * spread evenly over 1..requests, each `repeats` times; each run must
 * return MRF_ENOMEM, or MRF_OK if it never reached the refused request,
 * and hand back every block.
 */
OomSweepResult OomSweepSampled(const char *what, OomRelease release, void *arg,
							   int samples, int repeats);

/* The test groups, one per file. */
void		TestNoise(void);
void		TestPrivacy(void);
void		TestRows(void);
void		TestFw(void);
void		TestIsing(void);
void		TestFwParts(void);
void		TestSample(void);
void		TestSampleTree(void);
void		TestAllocate(void);
void		TestSampleMix(void);
void		TestCliques(void);
void		TestPairwise(void);
void		TestStructure(void);
void		TestStructurePlan(void);
void		TestTwise(void);
void		TestMst(void);
void		TestWorkload(void);
void		TestAim(void);

#endif
