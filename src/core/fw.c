/*
 * fw.c - batched private Frank-Wolfe (privacy.md 3; Zhang et al. 2020, Alg 1).
 *
 * All q problems share the design matrix X (n x d, stored as bits; fw.h).  The state of problem k is its iterate w_k and its margins
 * a_k = X w_k.  One pass over the rows per iteration, block by block of
 * rows, first applies the previous step to the margins and forms the
 * quantised gradient weights G (fwkernel.c, one fused pass), then adds the
 * block's X^T G to integer score sums (the kernel chosen for this CPU), so
 * the data are streamed once per iteration.  The rows are split across
 * threads, each its own contiguous blocks.
 *
 * Exactness of the scores, which the sensitivity bound relies on.  For the
 * logistic loss the sum score of vertex s = +-R e_j of problem k is
 *     u(s) = +-R sum_m G_mk X_mj,   G_mk = y_mk sigmoid(-y_mk a_mk).
 * We replace G by the integer Gq with |Gq| <= Q = 127 = MRF_FW_QUANTUM
 * (fwkernel.c) and use u(s) = +-R S_jk / Q with S = X^T Gq computed in
 * integers: with b in {0, 1} the stored bits, S = B^T Gq when X = B and
 * S = 2 B^T Gq - 1^T Gq when X = 2B - 1.  Every kernel adds the products
 * b Gq (|b Gq| <= 127) exactly: int32 sums over at most FW_FLUSH_ROWS rows
 * (127 * 2^24 < 2^31, flushed into int64 before that), and the sgemm path's
 * float partial sums stay below 2^24 (fwkernel.c); the int64 totals are
 * exact below 2^63 / 127 rows.  Integer addition is associative, so S does
 * not depend on the kernel, the blocking, the thread count or the order of
 * the rows.  Bits are 0 or 1 and the label columns exist (checked), so
 * y in {-1, 0, 1}, |X_mj| <= 1 and row m's contribution to
 * every score is exactly R Gq X_mj / Q, of magnitude at most R, a function
 * of row m and the previously released selections only; replacing one row
 * moves every score by at most 2R = MrfFwScoreSensitivity(R), with no
 * floating-point slack.  (The margins carry float rounding, but each margin
 * is computed from its own row only, by the same operations on every path,
 * which is all the argument needs.)
 *
 * Threads (workers.c's pass, each thread its own contiguous blocks).  Only
 * the calling thread calls the host (allocation, polling): the other
 * threads live for one pass of one iteration and touch only memory
 * allocated before they start.  The caller checks env->pending between its
 * own blocks; when a cancel is pending it stops the threads, joins them and
 * only then polls (which may not return); if the poll returns, the pass
 * resumes with the blocks not yet done.
 */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "fw.h"
#include "fwkernel.h"
#include "sizes.h"
#include "workers.h"

/* Rows after which a thread's int32 sums go into int64: 127 * 2^24 < 2^31. */
#define FW_FLUSH_ROWS ((int64_t) 1 << 24)

_Static_assert(FW_FLUSH_ROWS * MRF_FW_QUANTUM < ((int64_t) 1 << 31),
			   "int32 block sums must not overflow");
_Static_assert(MRF_FW_QUANTUM == FWK_Q, "one quantum");

/* The process's thread setting (MrfFwSetThreads). */
static int	FwThreadCount = 1;

/* The kernel of problems that leave it AUTO (MrfFwForceKernel). */
static MrfFwKernel FwDefaultKernel = MRF_FW_KERNEL_AUTO;

/* Benchmarks and tests: the kernel of every later AUTO solve. */
void
MrfFwForceKernel(MrfFwKernel kernel)
{
	FwDefaultKernel = kernel;
}

/* Sets the thread count of later solves. */
void
MrfFwSetThreads(int threads)
{
	FwThreadCount = threads < 1 ? 1 : threads > MRF_FW_MAX_THREADS ? MRF_FW_MAX_THREADS : threads;
}

/* The thread count of solves. */
int
MrfFwThreads(void)
{
	return FwThreadCount;
}

/* n rounded up to 64. */
int64_t
MrfFwRowStride(int64_t n)
{
	return n < 0 ? -1 : (n + 63) & ~(int64_t) 63;
}

/* ceil(n / 64). */
int64_t
MrfFwColumnWords(int64_t n)
{
	return n < 0 ? -1 : (n + 63) / 64;
}

/* The exported weight, for tests. */
int
MrfFwQuantizedWeight(int y, float margin)
{
	return FwkWeight(y, margin);
}

/* q rounded up to the kernel's alignment. */
static int
FwQPad(const FwkKernelInfo *info, int q)
{
	return (q + info->qalign - 1) / info->qalign * info->qalign;
}

/* Scratch of one thread. */
typedef struct FwThread
{
	struct FwShared *sh;
	uint8_t    *xb;				/* X of one block as bytes, d x block_rows */
	int8_t	   *g;				/* G of one block */
	int32_t    *c;				/* d x qpad partial sums */
	int64_t    *colsum;			/* q: sums of G per problem */
	void	   *scratch;		/* the kernel's */
	int64_t		unflushed;		/* rows added to c since the last flush */
} FwThread;

/* What every thread of a solve shares. */
typedef struct FwShared
{
	const MrfFwProblem *prob;
	const MrfEnv *env;
	FwkKernelInfo kinfo;
	FwkPass		pass;
	int			qpad;
	int64_t		nblocks;
	float	   *margins;		/* the margins of block b at margins + b * mblock */
	int64_t		mblock;			/* floats per block: q x ldm */
	int64_t		ldm;			/* of one block: element (k, r) at k * ldm + r */
	float	   *xf;				/* float_x kernels: X as 0/1 floats, ld xf_ld */
	int64_t		xf_ld;
	FwThread   *threads;
	MrfWorkers	workers;		/* a pass: each thread its own contiguous blocks */
	pthread_mutex_t lock;
	int64_t    *acc;			/* d x qpad: exact totals of the pass */
	int64_t    *colsum;			/* q */
} FwShared;

/* Rows of the solver's margins: n rounded up to whole blocks. */
static int64_t
FwMarginRows(const FwkKernelInfo *info, int64_t n)
{
	return (n + info->block_rows - 1) / info->block_rows * info->block_rows;
}

/* Bytes of one thread's scratch for a kernel. */
static size_t
FwThreadBytes(const FwkKernelInfo *info, int d, int q)
{
	size_t		qpad = (size_t) FwQPad(info, q);
	size_t		total = 0;

	total = MrfSizeAdd(total, MrfSizeMul((size_t) info->block_rows, (size_t) d));
	total = MrfSizeAdd(total, MrfSizeMul((size_t) info->block_rows, qpad));
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul((size_t) d, qpad), sizeof(int32_t)));
	total = MrfSizeAdd(total, MrfSizeMul((size_t) q, sizeof(int64_t)));
	total = MrfSizeAdd(total, FwkScratchBytes(info, d, q));
	return total;
}

/* Bytes a solve with this kernel and thread count allocates. */
static size_t
FwSolveBytes(const FwkKernelInfo *info, int64_t n, int d, int q, int threads)
{
	size_t		qpad = (size_t) FwQPad(info, q);
	size_t		total = 0;
	size_t		each = FwThreadBytes(info, d, q);

	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul((size_t) FwMarginRows(info, n), (size_t) q), sizeof(float)));
	if (info->float_x)
		total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul((size_t) FwMarginRows(info, n), (size_t) d), sizeof(float)));
	total = MrfSizeAdd(total, MrfSizeMul(MrfSizeMul((size_t) d, qpad), sizeof(int64_t)));
	total = MrfSizeAdd(total, MrfSizeMul((size_t) q, sizeof(int64_t)));
	total = MrfSizeAdd(total, MrfSizeMul((size_t) q, 2 * sizeof(int) + sizeof(float)));
	total = MrfSizeAdd(total, MrfSizeMul((size_t) threads, sizeof(FwThread)));
	total = MrfSizeAdd(total, MrfSizeMul((size_t) threads, each));
	return total;
}

/*
 * What a solve with the kernel the learners use (AUTO) allocates at the
 * current thread setting: exact when there are at least as many blocks of
 * rows as threads, an upper bound otherwise.
 */
size_t
MrfFwWorkspaceBytes(int64_t n, int d, int q)
{
	FwkKernelInfo info;

	if (n < 0 || d < 0 || q < 0 || !FwkResolve(FwDefaultKernel, &info))
		return SIZE_MAX;
	return FwSolveBytes(&info, n, d, q, FwThreadCount);
}

/*
 * Checks the structural preconditions that need no data pass: the sizes,
 * the label columns, and that every problem has a vertex.
 */
static MrfStatus
FwCheckProblems(const MrfFwProblem *prob)
{
	int			k;

	if (prob == NULL || prob->ypos == NULL || prob->yneg == NULL || prob->allowed == NULL)
		return MRF_EINVAL;
	if (prob->n < 1 || prob->n > INT_MAX || prob->d < 1 || prob->q < 1)
		return MRF_EINVAL;
	if ((int64_t) prob->d * prob->q > INT_MAX)
		return MRF_EINVAL;
	for (k = 0; k < prob->q; k++)
	{
		const uint8_t *al = prob->allowed + (size_t) k * prob->d;
		int			j;
		int			any = 0;

		if (prob->ypos[k] < 0 || prob->ypos[k] >= prob->d ||
			(prob->yneg[k] != MRF_FW_COMPLEMENT &&
			 (prob->yneg[k] < 0 || prob->yneg[k] >= prob->d)))
			return MRF_EINVAL;
		for (j = 0; j < prob->d; j++)
			any |= al[j] != 0;
		if (!any)
			return MRF_EINVAL;
	}
	return MRF_OK;
}

/* FwCheckProblems, and the design matrix is there. */
static MrfStatus
FwCheckShape(const MrfFwProblem *prob)
{
	if (prob == NULL || prob->x == NULL || prob->xwords < MrfFwColumnWords(prob->n))
		return MRF_EINVAL;
	return FwCheckProblems(prob);
}

/* Adds a thread's int32 sums into the shared totals and clears them. */
static void
FwFlush(FwThread *th)
{
	FwShared   *sh = th->sh;
	size_t		cells = (size_t) sh->prob->d * (size_t) sh->qpad;
	size_t		i;
	int			k;

	pthread_mutex_lock(&sh->lock);
	for (i = 0; i < cells; i++)
		sh->acc[i] += th->c[i];
	for (k = 0; k < sh->prob->q; k++)
		sh->colsum[k] += th->colsum[k];
	pthread_mutex_unlock(&sh->lock);
	memset(th->c, 0, cells * sizeof(int32_t));
	memset(th->colsum, 0, (size_t) sh->prob->q * sizeof(int64_t));
	th->unflushed = 0;
}

/*
 * The margins of block b: the solver keeps each block's margins contiguous
 * (one stream per block for the prefetcher); MrfFwScores's caller keeps them
 * column-major.
 */
static float *
FwBlockMargins(const FwShared *sh, int64_t b)
{
	if (sh->mblock > 0)
		return sh->margins + b * sh->mblock;
	return sh->margins + b * sh->kinfo.block_rows;
}

/* One block: the fused pass, then the product. */
static void
FwDoBlock(FwThread *th, int64_t b)
{
	FwShared   *sh = th->sh;
	const MrfFwProblem *prob = sh->prob;
	int			R = sh->kinfo.block_rows;
	int64_t		start = b * R;
	int			rows = (int) (prob->n - start < R ? prob->n - start : R);
	int			rows4 = (rows + 3) & ~3;

	if (th->unflushed + R > FW_FLUSH_ROWS)
		FwFlush(th);
	sh->kinfo.unpack(prob->x, prob->xwords, start / 64, prob->d, (rows + 63) / 64,
					 th->xb, R);
	sh->kinfo.fused(&sh->pass, th->xb, R, FwBlockMargins(sh, b), sh->ldm, rows, th->g, R,
					th->colsum);
	if (sh->kinfo.float_x)
		sh->kinfo.gemm(sh->xf, sh->xf_ld, start, prob->d, rows4, th->g, R,
					   prob->q, sh->qpad, th->c, th->scratch);
	else
		sh->kinfo.gemm(th->xb, R, 0, prob->d, rows4, th->g, R,
					   prob->q, sh->qpad, th->c, th->scratch);
	th->unflushed += R;
}

/* MrfWorkers' item: block b on thread th. */
static void
FwItem(void *arg, int th, int64_t b)
{
	FwShared   *sh = (FwShared *) arg;

	FwDoBlock(&sh->threads[th], b);
}

/* MrfWorkers' run end: the thread's sums into the totals. */
static void
FwRunEnd(void *arg, int th)
{
	FwFlush(&((FwShared *) arg)->threads[th]);
}

/* MrfWorkers' thread start: the kernel's per-thread state. */
static void
FwThreadInit(void *arg, int th)
{
	(void) th;
	FwkThreadInit(&((FwShared *) arg)->kinfo);
}

/*
 * One pass over all blocks with the pass settings in sh: totals in sh->acc
 * and sh->colsum.  Polls (with no other thread running) only if a cancel
 * stopped the pass; progress is done + blocks so far out of total.
 */
static void
FwPass(FwShared *sh, int64_t done, int64_t total)
{
	memset(sh->acc, 0, (size_t) sh->prob->d * sh->qpad * sizeof(int64_t));
	memset(sh->colsum, 0, (size_t) sh->prob->q * sizeof(int64_t));
	MrfWorkersPass(&sh->workers, done, total);
}

/* Everything a solve or a score evaluation allocates. */
typedef struct FwWork
{
	FwShared	sh;
	FwThread   *threads;
	int			nthreads;
	float	   *margins;
	int		   *sel_j;
	int		   *sel_sign;
	float	   *coef;
	int			lock_ready;
} FwWork;

/* Releases whatever FwWorkAlloc obtained. */
static void
FwWorkFree(FwWork *work, const MrfEnv *env)
{
	int			i;

	if (work->threads != NULL)
		for (i = 0; i < work->nthreads; i++)
		{
			MrfFree(env, work->threads[i].xb);
			MrfFree(env, work->threads[i].g);
			MrfFree(env, work->threads[i].c);
			MrfFree(env, work->threads[i].colsum);
			MrfFree(env, work->threads[i].scratch);
		}
	MrfFree(env, work->threads);
	MrfFree(env, work->sh.xf);
	MrfFree(env, work->sh.acc);
	MrfFree(env, work->sh.colsum);
	MrfFree(env, work->margins);
	MrfFree(env, work->sel_j);
	MrfFree(env, work->sel_sign);
	MrfFree(env, work->coef);
	if (work->lock_ready)
		pthread_mutex_destroy(&work->sh.lock);
	memset(work, 0, sizeof(*work));
}

/* X as 0/1 floats for the sgemm kernel, zero beyond row n. */
static void
FwFloatX(const MrfFwProblem *prob, float *xf, int64_t ld)
{
	int			j;

	for (j = 0; j < prob->d; j++)
	{
		const uint64_t *col = prob->x + (size_t) j * (size_t) prob->xwords;
		float	   *out = xf + (size_t) j * (size_t) ld;
		int64_t		m;

		for (m = 0; m < ld; m++)
			out[m] = m < prob->n ? (float) ((col[m / 64] >> (m % 64)) & 1) : 0.0f;
	}
}

/*
 * Allocates the scratch and splits the blocks among the threads;
 * with_margins = 0 when the caller supplies margins.
 */
static MrfStatus
FwWorkAlloc(FwWork *work, const MrfFwProblem *prob, int with_margins,
			const MrfEnv *env)
{
	FwShared   *sh = &work->sh;
	int			d = prob->d;
	int			q = prob->q;
	size_t		cells;
	int			i;
	int			ok;

	memset(work, 0, sizeof(*work));
	if (!FwkResolve(prob->kernel != MRF_FW_KERNEL_AUTO ? prob->kernel : FwDefaultKernel,
					&sh->kinfo))
		return MRF_EINVAL;
	sh->prob = prob;
	sh->env = env;
	sh->qpad = FwQPad(&sh->kinfo, q);
	sh->nblocks = (prob->n + sh->kinfo.block_rows - 1) / sh->kinfo.block_rows;
	if (pthread_mutex_init(&sh->lock, NULL) != 0)
		return MRF_ENOMEM;
	work->lock_ready = 1;
	cells = (size_t) d * (size_t) sh->qpad;
	work->nthreads = FwThreadCount < sh->nblocks ? FwThreadCount : (int) sh->nblocks;

	/* every margin is written in the first pass (FWK_INIT) */
	if (with_margins)
		work->margins = MrfAllocUninit(env, MrfSizeMul(MrfSizeMul((size_t) FwMarginRows(&sh->kinfo, prob->n),
															(size_t) q), sizeof(float)));
	if (sh->kinfo.float_x)
	{
		/* every float is written below */
		sh->xf_ld = FwMarginRows(&sh->kinfo, prob->n);
		sh->xf = MrfAllocUninit(env, MrfSizeMul(MrfSizeMul((size_t) sh->xf_ld, (size_t) d), sizeof(float)));
		if (sh->xf != NULL)
			FwFloatX(prob, sh->xf, sh->xf_ld);
	}
	sh->acc = MrfAlloc(env, MrfSizeMul(cells, sizeof(int64_t)));
	sh->colsum = MrfAlloc(env, MrfSizeMul((size_t) q, sizeof(int64_t)));
	work->sel_j = MrfAlloc(env, (size_t) q * sizeof(int));
	work->sel_sign = MrfAlloc(env, (size_t) q * sizeof(int));
	work->coef = MrfAlloc(env, (size_t) q * sizeof(float));
	work->threads = MrfAlloc(env, (size_t) work->nthreads * sizeof(FwThread));
	ok = (!with_margins || work->margins != NULL) && (!sh->kinfo.float_x || sh->xf != NULL) &&
		sh->acc != NULL &&
		sh->colsum != NULL && work->sel_j != NULL && work->sel_sign != NULL &&
		work->coef != NULL && work->threads != NULL;
	for (i = 0; ok && i < work->nthreads; i++)
	{
		FwThread   *th = &work->threads[i];

		th->sh = sh;
		/* every byte a block's kernels read is unpacked first */
		th->xb = MrfAllocUninit(env, MrfSizeMul((size_t) sh->kinfo.block_rows, (size_t) d));
		/* zeroed: the padding problems of G are never written */
		th->g = MrfAlloc(env, MrfSizeMul((size_t) sh->kinfo.block_rows, (size_t) sh->qpad));
		th->c = MrfAlloc(env, MrfSizeMul(cells, sizeof(int32_t)));
		th->colsum = MrfAlloc(env, MrfSizeMul((size_t) q, sizeof(int64_t)));
		if (FwkScratchBytes(&sh->kinfo, d, q) > 0)
			th->scratch = MrfAllocUninit(env, FwkScratchBytes(&sh->kinfo, d, q));
		ok = th->xb != NULL && th->g != NULL && th->c != NULL && th->colsum != NULL &&
			(th->scratch != NULL || FwkScratchBytes(&sh->kinfo, d, q) == 0);
	}
	if (!ok)
	{
		FwWorkFree(work, env);
		return MRF_ENOMEM;
	}
	sh->threads = work->threads;
	MrfWorkersInit(&sh->workers, env, work->nthreads, sh->nblocks, 0);
	sh->workers.arg = sh;
	sh->workers.item = FwItem;
	sh->workers.run_end = FwRunEnd;
	sh->workers.thread_init = FwThreadInit;
	FwkThreadInit(&sh->kinfo);
	return MRF_OK;
}

/* The exact integer score S_jk of the last pass (see the file comment). */
static inline int64_t
FwScore(const FwShared *sh, int j, int k)
{
	int64_t		s = sh->acc[(size_t) j * sh->qpad + k];

	return sh->prob->x_signed ? 2 * s - sh->colsum[k] : s;
}

/* S[j + k d] for all scores of the last pass. */
static void
FwExactScores(const FwWork *work, int64_t *scores)
{
	const MrfFwProblem *prob = work->sh.prob;
	int			j;
	int			k;

	for (k = 0; k < prob->q; k++)
		for (j = 0; j < prob->d; j++)
			scores[(size_t) k * prob->d + j] = FwScore(&work->sh, j, k);
}

/*
 * The pass settings shared by MrfFwScores and MrfFwSolve; blocked: the
 * solver's own block-contiguous margins, else column-major with ld ldm.
 */
static void
FwPassInit(FwWork *work, float *margins, int64_t ldm, int blocked)
{
	const MrfFwProblem *prob = work->sh.prob;
	FwkPass    *pass = &work->sh.pass;

	work->sh.margins = margins;
	if (blocked)
	{
		work->sh.ldm = work->sh.kinfo.block_rows;
		work->sh.mblock = (int64_t) prob->q * work->sh.kinfo.block_rows;
	}
	else
	{
		work->sh.ldm = ldm;
		work->sh.mblock = 0;
	}

	memset(pass, 0, sizeof(*pass));
	pass->x_signed = prob->x_signed != 0;
	pass->ypos = prob->ypos;
	pass->yneg = prob->yneg;
	pass->q = prob->q;
	pass->qpad = work->sh.qpad;
	pass->coef = work->coef;
	pass->sel_j = work->sel_j;
	pass->interleaved = work->sh.kinfo.interleaved;
}

/* Exact integer scores at the given margins (no update), for tests. */
MrfStatus
MrfFwScores(const MrfFwProblem *prob, const float *margins, int64_t ldm,
			const MrfEnv *env, int64_t *scores)
{
	FwWork		work;
	MrfStatus	st;

	st = FwCheckShape(prob);
	if (st != MRF_OK)
		return st;
	if (margins == NULL || scores == NULL || ldm < prob->n)
		return MRF_EINVAL;
	st = FwWorkAlloc(&work, prob, 0, env);
	if (st != MRF_OK)
		return st;
	/* FWK_READ never writes the margins */
	FwPassInit(&work, (float *) margins, ldm, 0);
	work.sh.pass.mode = FWK_READ;
	FwPass(&work.sh, 0, 0);
	FwExactScores(&work, scores);
	FwWorkFree(&work, env);
	return MRF_OK;
}

/*
 * Private selection for problems k0 .. k1-1 from the last pass's scores (sh)
 * or from scores (S[j + k d], sh NULL): one noise draw per allowed candidate
 * (j, sign), in a fixed order, so the number of draws does not depend on the
 * data.  The exponential mechanism is Gumbel-max on c u(s); the Laplace one
 * is report-noisy-max with scale b (both from privacy.c).  Scores are exact
 * integers below 2^53, so their doubles are exact.  Every draw takes one
 * MrfRngU64, i.e. FW_WORDS_PER_CANDIDATE stream words per allowed j.
 */
static void
FwSelectRange(const MrfFwProblem *prob, const FwShared *sh, const int64_t *scores,
			  int k0, int k1, int *sel_j, int *sel_sign, MrfRng *rng, double unit,
			  double laplace_scale)
{
	const int	d = prob->d;
	int			k;

	for (k = k0; k < k1; k++)
	{
		const uint8_t *al = prob->allowed + (size_t) k * d;
		double		best = -INFINITY;
		int			best_j = -1;
		int			best_sign = 1;
		int			j;

		for (j = 0; j < d; j++)
		{
			int			sign;

			if (!al[j])
				continue;
			for (sign = 1; sign >= -1; sign -= 2)
			{
				double		noise;
				double		v;

				if (prob->mechanism == MRF_MECH_EXPONENTIAL)
					noise = MrfRngGumbel(rng);
				else
					noise = MrfRngLaplace(rng, laplace_scale);
				v = sign * (double) (sh != NULL ? FwScore(sh, j, k) :
									 scores[(size_t) k * d + j]) * unit + noise;
				if (v > best)
				{
					best = v;
					best_j = j;
					best_sign = sign;
				}
			}
		}
		sel_j[k] = best_j;
		sel_sign[k] = best_sign;
	}
}

/* Stream words of one allowed candidate: two signs, one MrfRngU64 (two words) each. */
#define FW_WORDS_PER_CANDIDATE 4

/*
 * Candidates (q d) below which the selection stays on one thread, where
 * starting and joining a thread would cost about what it saves: with no
 * threshold, 2-thread Ising iterations (n = 100k, AMX) took the serial
 * selection's time at p = 50 and 100 and 5% less at p = 200 (alternating
 * runs); at p = 400 the selection was 9% of an iteration.
 */
static int64_t FwSelectMinWork = MRF_FW_SELECT_MIN_WORK;

/* Tests: the q d from which the selection runs on several threads. */
void
MrfFwSetSelectMinWork(int64_t candidates)
{
	FwSelectMinWork = candidates < 0 ? 0 : candidates;
}

/* One thread's share of a parallel selection: problems [k0, k1), its own copy of the stream. */
typedef struct FwSelectTask
{
	const MrfFwProblem *prob;
	const FwShared *sh;
	const int64_t *scores;
	int			k0;
	int			k1;
	int		   *sel_j;
	int		   *sel_sign;
	double		unit;
	double		laplace_scale;
	MrfRng		rng;
} FwSelectTask;

/* MrfWorkers' item: task i's problems. */
static void
FwSelectItem(void *arg, int th, int64_t i)
{
	FwSelectTask *task = (FwSelectTask *) arg + i;

	(void) th;
	FwSelectRange(task->prob, task->sh, task->scores, task->k0, task->k1, task->sel_j,
				  task->sel_sign, &task->rng, task->unit, task->laplace_scale);
}

/* Allowed candidates of problem k. */
static int64_t
FwAllowedCount(const MrfFwProblem *prob, int k)
{
	const uint8_t *al = prob->allowed + (size_t) k * prob->d;
	int64_t		c = 0;

	for (int j = 0; j < prob->d; j++)
		c += al[j] != 0;
	return c;
}

/*
 * The selection of every problem (FwSelectRange), on up to nthreads threads
 * with the same draws as on one: each thread takes a contiguous range of
 * problems (about equal numbers of candidates) and a copy of rng moved on
 * (MrfRngSkip) to the stream word at which the serial loop starts that
 * range; afterwards rng is moved past all the draws.  So the selections and
 * rng's later output are the serial ones bit for bit, for any thread count.
 * Small selections (q d below FwSelectMinWork) and one thread run the serial
 * loop itself.
 */
static void
FwSelect(const MrfFwProblem *prob, const FwShared *sh, const int64_t *scores,
		 int *sel_j, int *sel_sign, MrfRng *rng, double unit, double laplace_scale,
		 int nthreads)
{
	FwSelectTask tasks[MRF_FW_MAX_THREADS];
	MrfWorkers	workers;
	int64_t		total = 0;
	int64_t		done = 0;
	int			ntasks;
	int			i;
	int			k;

	if (nthreads > prob->q)
		nthreads = prob->q;
	if (nthreads > MRF_FW_MAX_THREADS)
		nthreads = MRF_FW_MAX_THREADS;
	if (nthreads <= 1 || (int64_t) prob->q * prob->d < FwSelectMinWork)
	{
		FwSelectRange(prob, sh, scores, 0, prob->q, sel_j, sel_sign, rng, unit,
					  laplace_scale);
		return;
	}

	for (k = 0; k < prob->q; k++)
		total += FwAllowedCount(prob, k);
	/* task i starts at the first problem where i/nthreads of the candidates are done */
	ntasks = 0;
	k = 0;
	for (i = 0; i < nthreads && k < prob->q; i++)
	{
		FwSelectTask *task = &tasks[ntasks++];
		int64_t		until = total * (i + 1) / nthreads;

		task->prob = prob;
		task->sh = sh;
		task->scores = scores;
		task->sel_j = sel_j;
		task->sel_sign = sel_sign;
		task->unit = unit;
		task->laplace_scale = laplace_scale;
		task->rng = *rng;
		MrfRngSkip(&task->rng, (uint64_t) done * FW_WORDS_PER_CANDIDATE);
		task->k0 = k;
		/* at least one problem each; the last task takes the rest */
		do
			done += FwAllowedCount(prob, k++);
		while (k < prob->q && (done < until || i == nthreads - 1));
		task->k1 = k;
	}

	/*
	 * one task a thread, run to the end (no env: no cancel stops it, so the
	 * generator copies are always wiped below)
	 */
	MrfWorkersInit(&workers, NULL, ntasks, ntasks, 0);
	workers.arg = tasks;
	workers.item = FwSelectItem;
	MrfWorkersPass(&workers, 0, 0);
	MrfRngSkip(rng, (uint64_t) total * FW_WORDS_PER_CANDIDATE);
	/* the tasks' generator copies hold the release's key: wiped as MrfRunEnd wipes rng */
	explicit_bzero(tasks, sizeof(tasks[0]) * ntasks);
}

/*
 * The calibration of a solve from its public parameters (every constant from
 * privacy.c): the score sensitivity du, the per-step eps0, the exponential
 * mechanism's integer-score multiplier unit and the Laplace scale.  MRF_EINVAL
 * when any of them is not finite (a radius so large, or a budget so small,
 * that the noise cannot be represented).
 */
static MrfStatus
FwCalibrate(double radius, double rho_problem, int iterations, MrfMechanism mechanism,
			double *du, double *eps0, double *unit, double *laplace_scale)
{
	if (iterations < 2 ||
		(mechanism != MRF_MECH_EXPONENTIAL && mechanism != MRF_MECH_LAPLACE))
		return MRF_EINVAL;
	*du = MrfFwScoreSensitivity(radius);
	*eps0 = MrfFwStepEpsilon(mechanism, MrfFwStepRho(rho_problem, iterations));
	*laplace_scale = 0.0;
	if (mechanism == MRF_MECH_EXPONENTIAL)
		*unit = MrfFwExponentialScale(*eps0, *du) * radius / MRF_FW_QUANTUM;
	else
	{
		*laplace_scale = MrfFwLaplaceScale(*eps0, *du);
		*unit = radius / MRF_FW_QUANTUM;
		if (!isfinite(*laplace_scale) || !(*laplace_scale > 0.0))
			return MRF_EINVAL;
	}
	if (!isfinite(*unit) || !isfinite(*du) || !isfinite(*eps0))
		return MRF_EINVAL;
	return MRF_OK;
}

/* Whether a solve with these public parameters can be calibrated (FwCalibrate). */
MrfStatus
MrfFwCheckCalibration(double radius, double rho_problem, int iterations,
					  MrfMechanism mechanism)
{
	double		du;
	double		eps0;
	double		unit;
	double		laplace_scale;

	return FwCalibrate(radius, rho_problem, iterations, mechanism,
					   &du, &eps0, &unit, &laplace_scale);
}

/* w <- (1 - mu) w + mu s, s the selected vertex of each problem. */
static void
FwStep(const MrfFwProblem *prob, double mu, const int *sel_j, const int *sel_sign, double *w)
{
	for (int k = 0; k < prob->q; k++)
	{
		double	   *wk = w + (size_t) k * prob->d;

		for (int j = 0; j < prob->d; j++)
			wk[j] *= 1.0 - mu;
		wk[sel_j[k]] += mu * sel_sign[k] * prob->radius;
	}
}

/* privacy.md 3: w_1 = 0, T-1 private steps with mu_t = 2/(t+2), output w_T. */
MrfStatus
MrfFwSolve(const MrfFwProblem *prob, MrfRng *rng, const MrfEnv *env,
		   double *w)
{
	FwWork		work;
	MrfStatus	st;
	double		du;
	double		eps0;
	double		unit;
	double		laplace_scale = 0.0;
	int64_t		nblocks;
	int64_t		total;
	int			iters;
	int			t;
	int			k;

	st = FwCheckShape(prob);
	if (st != MRF_OK)
		return st;
	if (rng == NULL || w == NULL)
		return MRF_EINVAL;
	st = FwCalibrate(prob->radius, prob->rho_problem, prob->iterations, prob->mechanism,
					 &du, &eps0, &unit, &laplace_scale);
	if (st != MRF_OK)
		return st;
	st = FwWorkAlloc(&work, prob, 1, env);
	if (st != MRF_OK)
		return st;
	FwPassInit(&work, work.margins, 0, 1);

	memset(w, 0, (size_t) prob->d * prob->q * sizeof(double));
	iters = prob->iterations;
	nblocks = work.sh.nblocks;
	total = (int64_t) (iters - 1) * nblocks;

	for (t = 1; t < iters; t++)
	{
		/* the step chosen in iteration t-1 reaches the margins in this pass */
		double		mu_prev = 2.0 / (t + 1);
		double		mu = 2.0 / (t + 2);

		if (t > 1)
		{
			for (k = 0; k < prob->q; k++)
				work.coef[k] = (float) (mu_prev * work.sel_sign[k] * prob->radius);
			work.sh.pass.mode = FWK_UPDATE;
			work.sh.pass.keep = (float) (1.0 - mu_prev);
		}
		else
			work.sh.pass.mode = FWK_INIT;
		FwPass(&work.sh, (int64_t) (t - 1) * nblocks, total);
		FwSelect(prob, &work.sh, NULL, work.sel_j, work.sel_sign, rng, unit, laplace_scale,
				 work.nthreads);
		FwStep(prob, mu, work.sel_j, work.sel_sign, w);
		MrfPoll(env, (int64_t) t * nblocks, total);
	}

	FwWorkFree(&work, env);
	return MRF_OK;
}

/*
 * The pass settings of iteration t (1-based) as MrfFwSolve sets them: w_1 = 0
 * at t = 1; else the step of iteration t-1 (selections sel_j, sel_sign)
 * reaches the margins.
 */
static void
FwPassOfIteration(FwWork *work, int t, const int *sel_j, const int *sel_sign)
{
	const MrfFwProblem *prob = work->sh.prob;

	if (t > 1)
	{
		double		mu_prev = 2.0 / (t + 1);

		for (int k = 0; k < prob->q; k++)
		{
			work->sel_j[k] = sel_j[k];
			work->sel_sign[k] = sel_sign[k];
			work->coef[k] = (float) (mu_prev * sel_sign[k] * prob->radius);
		}
		work->sh.pass.mode = FWK_UPDATE;
		work->sh.pass.keep = (float) (1.0 - mu_prev);
	}
	else
		work->sh.pass.mode = FWK_INIT;
}

/*
 * The margin update of one pass without the product: the fused pass of each
 * block on the calling thread (its G and column sums are discarded).
 */
static void
FwMarginsOnly(FwWork *work)
{
	FwShared   *sh = &work->sh;
	FwThread   *th = &work->threads[0];
	const MrfFwProblem *prob = sh->prob;
	int			R = sh->kinfo.block_rows;

	for (int64_t b = 0; b < sh->nblocks; b++)
	{
		int64_t		start = b * R;
		int			rows = (int) (prob->n - start < R ? prob->n - start : R);

		sh->kinfo.unpack(prob->x, prob->xwords, start / 64, prob->d, (rows + 63) / 64,
						 th->xb, R);
		sh->kinfo.fused(&sh->pass, th->xb, R, FwBlockMargins(sh, b), sh->ldm, rows, th->g, R,
						th->colsum);
		if (b % 64 == 63)
			MrfPoll(sh->env, 0, 0);
	}
	memset(th->colsum, 0, (size_t) prob->q * sizeof(int64_t));
}

/* A part's solver state between iterations (fw.h). */
struct MrfFwPart
{
	MrfFwProblem prob;			/* a copy: the work points at it */
	FwWork		work;			/* margins at iteration t (n > 0) */
	int			t;
	const MrfEnv *env;
};

/* See fw.h. */
MrfStatus
MrfFwPartOpen(const MrfFwProblem *prob, const MrfEnv *env, MrfFwPart **out)
{
	MrfFwPart  *part;
	MrfStatus	st;

	*out = NULL;
	if (prob == NULL || prob->d < 1 || prob->q < 1 || prob->n < 0)
		return MRF_EINVAL;
	if (prob->n > 0 && (st = FwCheckShape(prob)) != MRF_OK)
		return st;
	part = MrfAlloc(env, sizeof(MrfFwPart));
	if (part == NULL)
		return MRF_ENOMEM;
	part->prob = *prob;
	part->env = env;
	part->t = 0;
	if (prob->n > 0)
	{
		st = FwWorkAlloc(&part->work, &part->prob, 1, env);
		if (st != MRF_OK)
		{
			MrfFree(env, part);
			return st;
		}
		FwPassInit(&part->work, part->work.margins, 0, 1);
	}
	*out = part;
	return MRF_OK;
}

/* See fw.h. */
int
MrfFwPartIteration(const MrfFwPart *part)
{
	return part->t;
}

/* See fw.h. */
MrfStatus
MrfFwPartAdvance(MrfFwPart *part, int t, const int *sel_j, const int *sel_sign,
				 int64_t *scores)
{
	return MrfFwPartAdvanceFrom(part, t, 1, sel_j, sel_sign, scores);
}

/* See fw.h. */
MrfStatus
MrfFwPartAdvanceFrom(MrfFwPart *part, int t, int first, const int *sel_j, const int *sel_sign,
					 int64_t *scores)
{
	const MrfFwProblem *prob = &part->prob;

	/* the selections of iterations part->t .. t-1 are needed: first .. t-1 must hold them */
	if (scores == NULL || t <= part->t || first < 1 || (t > 1 && first > (part->t > 1 ? part->t : 1)) ||
		(t > 1 && (sel_j == NULL || sel_sign == NULL)))
		return MRF_EINVAL;
	for (int s = 0; s < (t - first) * prob->q; s++)
		if (sel_j[s] < 0 || sel_j[s] >= prob->d || (sel_sign[s] != 1 && sel_sign[s] != -1))
			return MRF_EINVAL;
	if (prob->n == 0)
	{
		/* no rows: no contribution */
		memset(scores, 0, (size_t) prob->d * prob->q * sizeof(int64_t));
		part->t = t;
		return MRF_OK;
	}
	/* the margins of iteration s from those of s-1, exactly as MrfFwSolve */
	for (int s = part->t + 1; s < t; s++)
	{
		FwPassOfIteration(&part->work, s, s > 1 ? sel_j + (size_t) (s - 1 - first) * prob->q : NULL,
						  s > 1 ? sel_sign + (size_t) (s - 1 - first) * prob->q : NULL);
		FwMarginsOnly(&part->work);

		/*
		 * A part of fewer than 64 blocks never polls in FwMarginsOnly, and t
		 * comes from a step anyone can pass (up to 10^6 iterations): poll
		 * once per replayed iteration, or a forged step held a backend
		 * deaf to cancels for minutes.
		 */
		MrfPoll(part->env, 0, 0);
	}
	FwPassOfIteration(&part->work, t, t > 1 ? sel_j + (size_t) (t - 1 - first) * prob->q : NULL,
					  t > 1 ? sel_sign + (size_t) (t - 1 - first) * prob->q : NULL);
	FwPass(&part->work.sh, 0, 0);
	FwExactScores(&part->work, scores);
	part->t = t;
	return MRF_OK;
}

/* See fw.h. */
void
MrfFwPartClose(MrfFwPart *part)
{
	const MrfEnv *env;

	if (part == NULL)
		return;
	env = part->env;
	if (part->prob.n > 0)
		FwWorkFree(&part->work, env);
	MrfFree(env, part);
}

/* See fw.h. */
MrfStatus
MrfFwPartScores(const MrfFwProblem *prob, int t, const int *sel_j, const int *sel_sign,
				const MrfEnv *env, int64_t *scores)
{
	MrfFwPart  *part;
	MrfStatus	st;

	if (t < 1)
		return MRF_EINVAL;
	st = MrfFwPartOpen(prob, env, &part);
	if (st != MRF_OK)
		return st;
	st = MrfFwPartAdvance(part, t, sel_j, sel_sign, scores);
	MrfFwPartClose(part);
	return st;
}

/* See fw.h: MrfFwSolve's iterations with the score sums from scores_fn. */
MrfStatus
MrfFwSolveParts(const MrfFwProblem *prob, MrfFwScoresFn scores_fn, void *arg,
				MrfRng *rng, const MrfEnv *env, double *w)
{
	MrfStatus	st;
	double		du;
	double		eps0;
	double		unit;
	double		laplace_scale = 0.0;
	int			iters;
	int		   *sel_j = NULL;
	int		   *sel_sign = NULL;
	int64_t    *scores = NULL;

	st = FwCheckProblems(prob);
	if (st != MRF_OK)
		return st;
	if (scores_fn == NULL || rng == NULL || w == NULL)
		return MRF_EINVAL;
	st = FwCalibrate(prob->radius, prob->rho_problem, prob->iterations, prob->mechanism,
					 &du, &eps0, &unit, &laplace_scale);
	if (st != MRF_OK)
		return st;
	iters = prob->iterations;
	sel_j = MrfAlloc(env, MrfSizeMul((size_t) (iters - 1), (size_t) prob->q * sizeof(int)));
	sel_sign = MrfAlloc(env, MrfSizeMul((size_t) (iters - 1), (size_t) prob->q * sizeof(int)));
	scores = MrfAlloc(env, MrfSizeMul((size_t) prob->d * prob->q, sizeof(int64_t)));
	if (sel_j == NULL || sel_sign == NULL || scores == NULL)
	{
		st = MRF_ENOMEM;
		goto done;
	}
	memset(w, 0, (size_t) prob->d * prob->q * sizeof(double));
	for (int t = 1; t < iters; t++)
	{
		double		mu = 2.0 / (t + 2);
		int		   *sj = sel_j + (size_t) (t - 1) * prob->q;
		int		   *ss = sel_sign + (size_t) (t - 1) * prob->q;

		/* the selections of iterations 1 .. t-1 give iteration t's margins */
		st = scores_fn(arg, t, sel_j, sel_sign, scores);
		if (st != MRF_OK)
			goto done;
		FwSelect(prob, NULL, scores, sj, ss, rng, unit, laplace_scale, FwThreadCount);
		FwStep(prob, mu, sj, ss, w);
		MrfPoll(env, t, iters - 1);
	}
done:
	MrfFree(env, sel_j);
	MrfFree(env, sel_sign);
	MrfFree(env, scores);
	return st;
}
