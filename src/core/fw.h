/*
 * fw.h - private Frank-Wolfe (Zhang et al. 2020, Algorithm 1, in the rigorous
 * form of privacy.md 3) for many L1-constrained logistic regressions that
 * share one design matrix, advanced together.
 *
 * Problem q minimises sum_m log(1 + exp(-y_mq <w_q, x_m>)) over
 * ||w_q||_1 <= radius, with vertices +-radius e_j for the allowed coordinates
 * j.  Rows with y_mq = 0 take no part in problem q.  Every iteration computes
 * all gradients with one exact integer matrix product X^T G (fwkernel.h)
 * and selects one vertex per problem with a private mechanism.
 */
#ifndef MRF_FW_H
#define MRF_FW_H

#include <stdint.h>

#include "env.h"
#include "noise.h"
#include "privacy.h"

/* yneg value meaning "y = 2 x_ypos - 1" (a +-1 label read off one column). */
#define MRF_FW_COMPLEMENT (-1)

/* The score-product kernels; MRF_FW_KERNEL_AUTO picks from the CPU. */
typedef enum MrfFwKernel
{
	MRF_FW_KERNEL_AUTO = 0,
	MRF_FW_KERNEL_SGEMM = 1,	/* portable: float sgemm on exact integers */
	MRF_FW_KERNEL_AVX2 = 2,		/* hand-written AVX2 int8 kernel */
	MRF_FW_KERNEL_VNNI = 3,		/* hand-written AVX-512 VNNI int8 kernel */
	MRF_FW_KERNEL_DNNL = 4,		/* oneDNN dnnl_gemm_u8s8s32 */
	MRF_FW_KERNEL_AMX = 5		/* hand-written AMX int8 tile kernel */
} MrfFwKernel;

#define MRF_FW_KERNEL_COUNT 6

/*
 * Most Frank-Wolfe iterations a caller may give (option iterations, from 2:
 * T - 1 private selections; the options table's range).  The default T
 * from public sizes is not capped by it.
 */
#define MRF_FW_MAX_ITERATIONS 1000000

/*
 * The design matrix is stored as bits: column j holds x_mj in bit m % 64 of
 * x[j * xwords + m / 64].  With x_signed, the entry the regressions see is
 * X_mj = 2 x_mj - 1 (in {-1, 1}); otherwise X_mj = x_mj (in {0, 1}).
 * The label of problem k is read off the same bits:
 *     y_mk = x_m,ypos[k] - x_m,yneg[k]    (in {-1, 0, 1}), or
 *     y_mk = 2 x_m,ypos[k] - 1            when yneg[k] == MRF_FW_COMPLEMENT.
 * xwords is at least MrfFwColumnWords(n); bits of rows n and above are
 * never read as data (they may hold anything).
 */
typedef struct MrfFwProblem
{
	int64_t		n;				/* rows (public) */
	int			d;				/* coordinates */
	int			q;				/* problems */
	const uint64_t *x;			/* d columns of xwords words of bits */
	int64_t		xwords;
	int			x_signed;
	const int  *ypos;			/* q label columns */
	const int  *yneg;			/* q: second label column or MRF_FW_COMPLEMENT */
	const uint8_t *allowed;		/* d x q, column-major: 1 if e_j is a vertex of q */
	double		radius;			/* R: the L1 radius */
	int			iterations;		/* T >= 2: T-1 private selections */
	double		rho_problem;	/* zCDP budget of each problem */
	MrfMechanism mechanism;
	MrfFwKernel kernel;			/* AUTO unless a test forces one */
} MrfFwProblem;

/*
 * Gradient weights are quantised to integers of magnitude at most
 * MRF_FW_QUANTUM (127, one signed byte) and multiplied with X in exact
 * integer arithmetic; a score in loss units is radius * S / MRF_FW_QUANTUM,
 * where S is the exact integer sum computed by MrfFwScores.
 */
#define MRF_FW_QUANTUM 127

/* n rounded up to 64 (the solver's margins are stored with this stride). */
int64_t		MrfFwRowStride(int64_t n);

/* The smallest xwords for n rows: words of 64 bits per column. */
int64_t		MrfFwColumnWords(int64_t n);

/*
 * The quantised gradient weight of one row of one problem at margin a = <w,x>:
 * round(127 * y * sigmoid(-y a)) up to the rational tanh (error below 0.51),
 * in [-127, 127]; 0 when y = 0.  Exposed for tests.
 */
int			MrfFwQuantizedWeight(int y, float margin);

/*
 * Benchmarks and tests: the kernel every later solve whose problem says
 * AUTO uses (AUTO restores the CPU's choice).  Results do not depend on it.
 */
void		MrfFwForceKernel(MrfFwKernel kernel);

/*
 * Integer score sums S[j + k d] = sum_m MrfFwQuantizedWeight(y_mk, a_mk) X_mj
 * for margins a (n x q, column-major, ld ldm), computed exactly as MrfFwSolve
 * does (prob->kernel, MrfFwThreads()).  Exposed for tests.
 */
MrfStatus	MrfFwScores(const MrfFwProblem *prob, const float *margins,
						int64_t ldm, const MrfEnv *env, int64_t *scores);

/*
 * Whether MrfFwSolve can calibrate a problem with these public parameters
 * (every noise scale finite): MRF_OK, or MRF_EINVAL as MrfFwSolve would
 * return.  Learners check it before reading any data.
 */
MrfStatus	MrfFwCheckCalibration(double radius, double rho_problem, int iterations,
								  MrfMechanism mechanism);

/*
 * Bytes of working memory MrfFwSolve needs beyond its inputs and output
 * with the kernel AUTO picks and the scratch of MrfFwThreads() threads.
 */
size_t		MrfFwWorkspaceBytes(int64_t n, int d, int q);

/* Most threads a solve uses. */
#define MRF_FW_MAX_THREADS 64

/*
 * The number of threads every later solve in this process uses (each its own
 * blocks of rows; 1 by default, clamped to 1..MRF_FW_MAX_THREADS).  The host
 * sets it from its configuration; workspace sizes count it.
 */
void		MrfFwSetThreads(int threads);
int			MrfFwThreads(void);

/*
 * Tests: the number of candidates (q d) from which a selection with more
 * than one thread draws its noise on several threads (the same draws;
 * MRF_FW_SELECT_MIN_WORK by default, 0 always).
 */
#define MRF_FW_SELECT_MIN_WORK 8192
void		MrfFwSetSelectMinWork(int64_t candidates);

/*
 * Runs T-1 private selections for every problem; writes w_T of problem q to
 * w[q * d .. q * d + d - 1].  Uses MrfFwThreads() threads (each its own
 * blocks of rows); only the calling thread calls env's functions, and it
 * polls once per iteration (and when env->pending says so, after stopping
 * the other threads), never while another thread runs.  Preconditions
 * (checked, MRF_EINVAL otherwise): label columns in range; every problem
 * has an allowed coordinate; n <= INT_MAX; xwords >= MrfFwColumnWords(n);
 * radius, rho_problem finite and > 0; T >= 2.
 */
MrfStatus	MrfFwSolve(const MrfFwProblem *prob, MrfRng *rng, const MrfEnv *env,
					   double *w);

/*
 * Distributed Frank-Wolfe (docs/citus_fw.md).  Iteration t's score sums S
 * (S[j + k d], the exact integers MrfFwSolve selects from) are sums over
 * rows of terms that depend on one row and the selections of iterations
 * 1..t-1 only, so they can be computed on any partition of the rows and
 * added: MrfFwPartScores gives one part's sums (prob->x and prob->n are the
 * part's rows, n may be 0; sel_j, sel_sign hold (t-1) x q selections,
 * iteration s's at (s-1) q), replaying the margins from w_1 = 0 with the
 * same single-precision operations as MrfFwSolve (one margin pass per
 * earlier iteration, one product).  MrfFwSolveParts runs MrfFwSolve's
 * iterations on prob (prob->x unused, n the total rows) with the sums
 * scores_fn returns for each t; with scores_fn adding MrfFwPartScores over
 * the parts, w and the random draws are MrfFwSolve's bit for bit.  A
 * status other than MRF_OK from scores_fn ends the solve with it.
 */
typedef MrfStatus (*MrfFwScoresFn) (void *arg, int t, const int *sel_j,
									const int *sel_sign, int64_t *scores);

MrfStatus	MrfFwPartScores(const MrfFwProblem *prob, int t, const int *sel_j,
							const int *sel_sign, const MrfEnv *env, int64_t *scores);

/*
 * A part that keeps its margins between iterations (a worker's cache):
 * MrfFwPartAdvance gives the sums of iteration t > the part's iteration,
 * replaying only the iterations it has not seen (none when it is at t-1),
 * with MrfFwPartScores's result.  prob's arrays must outlive the part; all
 * memory comes from env at MrfFwPartOpen.  MrfFwPartScores is Open,
 * Advance, Close.
 */
typedef struct MrfFwPart MrfFwPart;

MrfStatus	MrfFwPartOpen(const MrfFwProblem *prob, const MrfEnv *env, MrfFwPart **out);
MrfStatus	MrfFwPartAdvance(MrfFwPart *part, int t, const int *sel_j, const int *sel_sign,
							 int64_t *scores);

/*
 * MrfFwPartAdvance with the selections of iterations first .. t-1 only
 * (first at most the part's iteration, or 1): a kept part one iteration
 * behind needs only the last ones.
 */
MrfStatus	MrfFwPartAdvanceFrom(MrfFwPart *part, int t, int first, const int *sel_j,
								 const int *sel_sign, int64_t *scores);
int			MrfFwPartIteration(const MrfFwPart *part);
void		MrfFwPartClose(MrfFwPart *part);
MrfStatus	MrfFwSolveParts(const MrfFwProblem *prob, MrfFwScoresFn scores_fn, void *arg,
							MrfRng *rng, const MrfEnv *env, double *w);

#endif
