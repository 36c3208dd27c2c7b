/*
 * fwkernel.h - the inner loops of the Frank-Wolfe solver (fw.c): the fused
 * pass over a block of rows (margin update and quantised gradient weights)
 * and the exact integer score product X_block^T G, each in a portable form
 * and in AVX2 / AVX-512 (and for the product AMX) forms chosen at run time
 * from the CPU.
 *
 * Every variant computes bit-identical results: the fused passes perform
 * the same IEEE single operations in the same order on every element (no
 * contraction into FMA: the core is built with -ffp-contract=off), and the
 * products are exact integer sums (see fw.c for the bounds).
 */
#ifndef MRF_FWKERNEL_H
#define MRF_FWKERNEL_H

#include <stdint.h>

#include "fw.h"

/* Whether this CPU (and build) can run a kernel; AUTO is always available. */
int			MrfFwKernelAvailable(MrfFwKernel kernel);

/* The kernel AUTO resolves to on this CPU. */
MrfFwKernel MrfFwAutoKernel(void);

/* A kernel's name, for benchmarks and messages. */
const char *MrfFwKernelName(MrfFwKernel kernel);

/* Largest |G| entry: one signed byte. */
#define FWK_Q 127

/* What the fused pass of one iteration reads and writes (shared by threads). */
typedef struct FwkPass
{
	int			x_signed;
	const int  *ypos;
	const int  *yneg;
	int			q;
	int			qpad;			/* G's problem stride in the interleaved layout */
	int			mode;			/* FWK_READ, FWK_INIT or FWK_UPDATE */
	float		keep;			/* 1 - mu of the previous step */
	const float *coef;			/* q: mu R sign of the previous step */
	const int  *sel_j;			/* q: its coordinate */
	int			interleaved;	/* G layout: see FwkKernelInfo */
} FwkPass;

#define FWK_READ 0				/* margins are read only (MrfFwScores) */
#define FWK_INIT 1				/* margins are set to 0 (w_1 = 0) */
#define FWK_UPDATE 2			/* a = keep a + coef X_sel, then G */

/*
 * One fused pass over a block of rows for all problems, whose X bytes are
 * xb[j * ldxb + r] and margins mb[k * ldm + r] (r < rows): margins per mode,
 * then G
 * (rows rounded up to 4, the extra rows 0) and, for each problem,
 * colsum[k] += the sum of its G entries (needed with x_signed).
 * G layout: interleaved, G[((r / 4) * qpad + k) * 4 + r % 4]; plain,
 * G[k * ldg + r].
 */
typedef void (*FwkFusedFn) (const FwkPass *pass, const uint8_t *xb, int ldxb,
							float *mb, int64_t ldm, int rows, int8_t *g, int ldg,
							int64_t *colsum);

/*
 * X bytes of one block: xb[j * ldxb + 64 w + b] = bit b of word
 * bits[j * xwords + word0 + w], for j < d and w < words.
 */
typedef void (*FwkUnpackFn) (const uint64_t *bits, int64_t xwords, int64_t word0,
							 int d, int words, uint8_t *xb, int ldxb);

/*
 * c[j * qpad + k] += sum over the block's rows r < rows4 of
 * x[j * ldx + start + r] * G(r, k), for j < d, k < q (qpad >= q; entries
 * k >= q of c may be written with zeros' sums).  rows4 is a multiple of 4.
 * x is the block's bytes (start 0), or for a float_x kernel the solver's
 * float copy of all of X (0/1 entries, ld ldx).
 */
typedef void (*FwkGemmFn) (const void *x, int64_t ldx, int64_t start, int d,
						   int rows4, const int8_t *g, int ldg, int q, int qpad,
						   int32_t *c, void *scratch);

typedef struct FwkKernelInfo
{
	MrfFwKernel kind;
	FwkFusedFn	fused;
	FwkGemmFn	gemm;
	FwkUnpackFn unpack;
	int			interleaved;	/* G in the interleaved layout (else plain) */
	int			block_rows;		/* rows per block (a multiple of 64) */
	int			qalign;			/* qpad = q rounded up to this */
	int			float_x;		/* the product reads a float copy of X (sgemm) */
} FwkKernelInfo;

/* The kernel to run: a forced one if available, else the CPU's best. */
int			FwkResolve(MrfFwKernel want, FwkKernelInfo *info);

/* Scratch bytes the gemm of a kernel needs per thread for d x q blocks. */
size_t		FwkScratchBytes(const FwkKernelInfo *info, int d, int q);

/* Called once in each thread that will call info's gemm. */
void		FwkThreadInit(const FwkKernelInfo *info);

/* The quantised weight of one element (the portable definition). */
int			FwkWeight(int y, float a);

#endif
