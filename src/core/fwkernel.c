/*
 * fwkernel.c - the fused pass and the exact integer score product of the
 * Frank-Wolfe solver, portable and vectorised (see fwkernel.h).
 *
 * Quantised gradient weights.  For the logistic loss the gradient weight of
 * row m in problem k is G = y sigmoid(-y a) = y (1 - y tanh(a/2)) / 2.  The
 * solver uses the integer
 *     Gq = y * clamp(trunc(64 - 63.5 y t), 0, 127),   t = tanh~(a/2),
 * i.e. y round(127 (1 - y t) / 2) rounded half up, with tanh~ the [7/6] Pade
 * approximant on the clamped margin |a| <= 9 (within 4.2e-5 of tanh there;
 * 127 sigmoid(-9) = 0.016 rounds to 0 as the true value does beyond).  So
 * |Gq| <= 127 for every input bit pattern (the clamp works on the magnitude
 * bits: NaN and infinity lie above 9, and the integer is clamped besides),
 * and Gq is within 0.51 of 127 G.  Accuracy affects only the optimisation;
 * privacy needs only |Gq| <= 127 (fw.c, privacy.c).
 *
 * Identical results on every path.  The scalar, AVX2 and AVX-512 passes
 * perform the same single-precision operations in the same order on every
 * element (multiplications and additions as written, IEEE division, the
 * same truncation), and the core is compiled with -ffp-contract=off so that
 * no path fuses a multiply-add.  The products are integer sums, exact on
 * every path (bounds in fw.c).
 */
#include <string.h>

#include <cblas.h>

#include "fwkernel.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define FWK_X86 1
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#ifdef MRF_HAVE_DNNL
#include <dnnl.h>
#include <omp.h>
#endif

/* 0x41100000 is the IEEE single bit pattern of 9.0: margins clamp there. */
#define FWK_CLAMP_BITS ((int32_t) 0x41100000)
#define FWK_MAG_MASK ((int32_t) 0x7fffffff)
#define FWK_SIGN_MASK ((int32_t) 0x80000000)

/* Pade tanh of half the clamped margin (see the file comment). */
static inline float
FwkTanhHalf(float a)
{
	int32_t		bits;
	int32_t		mag;
	float		x;
	float		x2;

	memcpy(&bits, &a, sizeof(bits));
	mag = bits & FWK_MAG_MASK;
	mag = mag < FWK_CLAMP_BITS ? mag : FWK_CLAMP_BITS;
	bits = mag | (bits & FWK_SIGN_MASK);
	memcpy(&x, &bits, sizeof(x));
	x = 0.5f * x;
	x2 = x * x;
	return x * (135135.0f + x2 * (17325.0f + x2 * (378.0f + x2))) /
		(135135.0f + x2 * (62370.0f + x2 * (3150.0f + x2 * 28.0f)));
}

/* Gq of one element: the definition every vector path reproduces. */
static inline int
FwkWeightInline(int y, float a)
{
	float		t = FwkTanhHalf(a);
	float		yt = (float) y * t;
	int			ti = (int) (64.0f - 63.5f * yt);

	ti = ti > 0 ? ti : 0;
	ti = ti < FWK_Q ? ti : FWK_Q;
	return y * ti;
}

/* The exported form of FwkWeightInline. */
int
FwkWeight(int y, float a)
{
	return FwkWeightInline(y, a);
}

/* Where row r of problem k goes in G. */
static inline size_t
FwkGIndex(const FwkPass *p, int ldg, int k, int r)
{
	if (p->interleaved)
		return ((size_t) (r >> 2) * (size_t) p->qpad + (size_t) k) * 4 + (size_t) (r & 3);
	return (size_t) k * (size_t) ldg + (size_t) r;
}

/* Rows [r0, r1) of problem k, one element at a time; returns the G sum. */
static int64_t
FwkFusedScalarRange(const FwkPass *p, const uint8_t *xb, int ldxb, int k,
					float *mb, int64_t ldm, int r0, int r1, int8_t *g, int ldg)
{
	float	   *a = mb + (size_t) k * (size_t) ldm;
	const uint8_t *yp = xb + (size_t) p->ypos[k] * (size_t) ldxb;
	int			comp = p->yneg[k] == MRF_FW_COMPLEMENT;
	const uint8_t *yn = comp ? yp : xb + (size_t) p->yneg[k] * (size_t) ldxb;
	const uint8_t *xs = NULL;
	float		c = 0.0f;
	int64_t		sum = 0;
	int			r;

	if (p->mode == FWK_UPDATE)
	{
		xs = xb + (size_t) p->sel_j[k] * (size_t) ldxb;
		c = p->coef[k];
	}
	for (r = r0; r < r1; r++)
	{
		int			y;
		int			gv;

		if (p->mode == FWK_INIT)
			a[r] = 0.0f;
		else if (p->mode == FWK_UPDATE)
		{
			int			xv = p->x_signed ? 2 * (int) xs[r] - 1 : (int) xs[r];
			float		t1 = p->keep * a[r];
			float		t2 = c * (float) xv;

			a[r] = t1 + t2;
		}
		y = comp ? 2 * (int) yp[r] - 1 : (int) yp[r] - (int) yn[r];
		gv = FwkWeightInline(y, a[r]);
		g[FwkGIndex(p, ldg, k, r)] = (int8_t) gv;
		sum += gv;
	}
	return sum;
}

/* Zero G for the rows that pad the block to a multiple of 4. */
static void
FwkZeroTail(const FwkPass *p, int rows, int8_t *g, int ldg)
{
	int			rows4 = (rows + 3) & ~3;
	int			k;
	int			r;

	for (k = 0; k < p->q; k++)
		for (r = rows; r < rows4; r++)
			g[FwkGIndex(p, ldg, k, r)] = 0;
}

/* Bytes 0/1 of the 8 bits of an index, as one little-endian word. */
static uint64_t FwkByteTable[256];

/* Fills FwkByteTable (idempotent; every thread computes the same words). */
static void
FwkByteTableInit(void)
{
	int			i;
	int			b;

	if (FwkByteTable[255] != 0)
		return;
	for (i = 0; i < 256; i++)
	{
		uint64_t	w = 0;

		for (b = 0; b < 8; b++)
			w |= (uint64_t) ((i >> b) & 1) << (8 * b);
		FwkByteTable[i] = w;
	}
}

/* The portable unpack: eight bytes per table lookup. */
static void
FwkUnpackScalar(const uint64_t *bits, int64_t xwords, int64_t word0, int d,
				int words, uint8_t *xb, int ldxb)
{
	int			j;
	int			w;
	int			i;

	for (j = 0; j < d; j++)
	{
		const uint64_t *col = bits + (size_t) j * (size_t) xwords + word0;
		uint8_t    *out = xb + (size_t) j * (size_t) ldxb;

		for (w = 0; w < words; w++)
			for (i = 0; i < 8; i++)
			{
				uint64_t	v = FwkByteTable[(col[w] >> (8 * i)) & 0xff];

				memcpy(out + 64 * w + 8 * i, &v, 8);
			}
	}
}

/* Elements per inner loop of fixed length, which GCC vectorises at -O2. */
#define FWK_LANES 8

/*
 * Cloned for AVX2 as the former float path was: the portable pass then runs
 * at least as fast as it did wherever it runs (results are identical: no
 * FMA either way).
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FWK_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define FWK_CLONES
#endif

/* a = keep a + c X_sel over r8 rows (a multiple of 2 FWK_LANES), vectorisable. */
FWK_CLONES
static void
FwkUpdatePlain(float *restrict a, const uint8_t *restrict xs, int r8, int xmul,
			   int xoff, float keep, float c)
{
	int			r;
	int			i;

	for (r = 0; r < r8; r += 2 * FWK_LANES)
		for (i = 0; i < 2 * FWK_LANES; i++)
		{
			float		t1 = keep * a[r + i];
			float		t2 = c * (float) (xmul * (int) xs[r + i] - xoff);

			a[r + i] = t1 + t2;
		}
}

/* G over r8 rows (a multiple of 2 FWK_LANES), vectorisable; returns its sum. */
FWK_CLONES
static int64_t
FwkWeightsPlain(const float *restrict a, const uint8_t *restrict yp,
				const uint8_t *restrict yn, int r8, int ymul, int yoff, int ynm,
				int8_t *restrict g)
{
	int64_t		sum = 0;
	int			r;
	int			i;

	for (r = 0; r < r8; r += 2 * FWK_LANES)
	{
		int32_t		part[2 * FWK_LANES];
		int32_t		tot = 0;

		for (i = 0; i < 2 * FWK_LANES; i++)
		{
			int			y = ymul * (int) yp[r + i] - yoff - ynm * (int) yn[r + i];

			part[i] = FwkWeightInline(y, a[r + i]);
		}
		for (i = 0; i < 2 * FWK_LANES; i++)
		{
			g[r + i] = (int8_t) part[i];
			tot += part[i];
		}
		sum += tot;
	}
	return sum;
}

/*
 * The portable fused pass.  The plain layout (the sgemm kernel's) runs in
 * fixed-length inner loops that GCC vectorises with the baseline SSE2; the
 * element operations are FwkFusedScalarRange's, in the same order.
 */
static void
FwkFusedScalar(const FwkPass *p, const uint8_t *xb, int ldxb, float *mb, int64_t ldm,
   int rows,
   int8_t *g, int ldg,
			   int64_t *colsum)
{
	int			k;

	for (k = 0; k < p->q; k++)
	{
		float	   *a = mb + (size_t) k * (size_t) ldm;
		const uint8_t *yp = xb + (size_t) p->ypos[k] * (size_t) ldxb;
		int			comp = p->yneg[k] == MRF_FW_COMPLEMENT;
		const uint8_t *yn = comp ? yp : xb + (size_t) p->yneg[k] * (size_t) ldxb;
		int			r8 = p->interleaved ? 0 : rows & ~(2 * FWK_LANES - 1);
		int64_t		sum = 0;

		if (r8 > 0)
		{
			if (p->mode == FWK_UPDATE)
				FwkUpdatePlain(a, xb + (size_t) p->sel_j[k] * (size_t) ldxb,
							   r8, p->x_signed ? 2 : 1, p->x_signed ? 1 : 0,
							   p->keep, p->coef[k]);
			else if (p->mode == FWK_INIT)
				memset(a, 0, sizeof(float) * (size_t) r8);
			sum = FwkWeightsPlain(a, yp, yn, r8, comp ? 2 : 1, comp ? 1 : 0,
								  comp ? 0 : 1, g + (size_t) k * (size_t) ldg);
		}
		colsum[k] += sum + FwkFusedScalarRange(p, xb, ldxb, k, mb, ldm, r8, rows, g, ldg);
	}
	FwkZeroTail(p, rows, g, ldg);
}

#ifdef FWK_X86

#define FWK_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
#define FWK_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))
#define FWK_AVX2 __attribute__((target("avx2")))

/*
 * The fused pass streams every margin once per iteration (4 bytes read and
 * written per row and problem, tens of MB: from L3 or memory), with much
 * arithmetic per cache line, and the margins of a block are contiguous
 * across problems.  The hardware prefetchers restart at every 4 KiB page;
 * a software prefetch 2 KiB ahead (measured on an Intel Xeon with AMX:
 * the pass 1.3-1.7x faster than without, 2 KiB better than 1, 4 or 8)
 * keeps the loads from waiting.  A hint only: results do not change.
 */
#define FWK_PREFETCH_BYTES 2048
#define FWK_PREFETCH_MARGINS(p) \
	_mm_prefetch((const char *) (p) + FWK_PREFETCH_BYTES, _MM_HINT_T0)

/* The AVX-512 unpack: one masked byte broadcast per 64 rows. */
FWK_AVX512
static void
FwkUnpackAvx512(const uint64_t *bits, int64_t xwords, int64_t word0, int d,
				int words, uint8_t *xb, int ldxb)
{
	int			j;
	int			w;

	for (j = 0; j < d; j++)
	{
		const uint64_t *col = bits + (size_t) j * (size_t) xwords + word0;
		uint8_t    *out = xb + (size_t) j * (size_t) ldxb;

		for (w = 0; w < words; w++)
			_mm512_storeu_si512(out + 64 * w,
								_mm512_maskz_set1_epi8((__mmask64) col[w], 1));
	}
}

/* The AVX2 unpack: 32 rows per step (byte shuffle, bit test). */
FWK_AVX2
static void
FwkUnpackAvx2(const uint64_t *bits, int64_t xwords, int64_t word0, int d,
			  int words, uint8_t *xb, int ldxb)
{
	const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
											2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
	const __m256i select = _mm256_set1_epi64x((int64_t) 0x8040201008040201ULL);
	const __m256i one = _mm256_set1_epi8(1);
	int			j;
	int			w;
	int			h;

	for (j = 0; j < d; j++)
	{
		const uint64_t *col = bits + (size_t) j * (size_t) xwords + word0;
		uint8_t    *out = xb + (size_t) j * (size_t) ldxb;

		for (w = 0; w < words; w++)
			for (h = 0; h < 2; h++)
			{
				__m256i		v = _mm256_set1_epi32((int32_t) (uint32_t) (col[w] >> (32 * h)));

				v = _mm256_shuffle_epi8(v, spread);
				v = _mm256_cmpeq_epi8(_mm256_and_si256(v, select), select);
				_mm256_storeu_si256((__m256i *) (out + 64 * w + 32 * h),
									_mm256_and_si256(v, one));
			}
	}
}

/* The fused pass, 16 rows per step (the tail as FwkFusedScalarRange). */
FWK_AVX512
static void
FwkFusedAvx512(const FwkPass *p, const uint8_t *xb, int ldxb, float *mb, int64_t ldm,
   int rows,
   int8_t *g, int ldg,
			   int64_t *colsum)
{
	const __m512i one = _mm512_set1_epi32(1);
	const __m512i zero = _mm512_setzero_si512();
	const __m512i qmax = _mm512_set1_epi32(FWK_Q);
	const __m512i magmask = _mm512_set1_epi32(FWK_MAG_MASK);
	const __m512i signmask = _mm512_set1_epi32(FWK_SIGN_MASK);
	const __m512i clampv = _mm512_set1_epi32(FWK_CLAMP_BITS);
	const __m512 keep = _mm512_set1_ps(p->keep);
	int			rows16 = rows & ~15;
	int			k;

	for (k = 0; k < p->q; k++)
	{
		float	   *a = mb + (size_t) k * (size_t) ldm;
		const uint8_t *yp = xb + (size_t) p->ypos[k] * (size_t) ldxb;
		int			comp = p->yneg[k] == MRF_FW_COMPLEMENT;
		const uint8_t *yn = comp ? yp : xb + (size_t) p->yneg[k] * (size_t) ldxb;
		const uint8_t *xs = p->mode == FWK_UPDATE ?
			xb + (size_t) p->sel_j[k] * (size_t) ldxb : NULL;
		__m512		cv = _mm512_set1_ps(p->mode == FWK_UPDATE ? p->coef[k] : 0.0f);
		__m512i		cs = zero;
		int			r;

		for (r = 0; r < rows16; r += 16)
		{
			__m512		av;
			__m512i		yi;
			__m512i		bits;
			__m512		xv;
			__m512		x2;
			__m512		num;
			__m512		den;
			__m512		t;
			__m512i		ti;
			__m512i		gi;
			__m128i		gb;

			FWK_PREFETCH_MARGINS(a + r);
			if (p->mode == FWK_INIT)
			{
				av = _mm512_setzero_ps();
				_mm512_storeu_ps(a + r, av);
			}
			else if (p->mode == FWK_UPDATE)
			{
				__m512i		xb = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *) (xs + r)));

				if (p->x_signed)
					xb = _mm512_sub_epi32(_mm512_add_epi32(xb, xb), one);
				av = _mm512_add_ps(_mm512_mul_ps(keep, _mm512_loadu_ps(a + r)),
								   _mm512_mul_ps(cv, _mm512_cvtepi32_ps(xb)));
				_mm512_storeu_ps(a + r, av);
			}
			else
				av = _mm512_loadu_ps(a + r);

			yi = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *) (yp + r)));
			if (comp)
				yi = _mm512_sub_epi32(_mm512_add_epi32(yi, yi), one);
			else
				yi = _mm512_sub_epi32(yi, _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *) (yn + r))));

			bits = _mm512_castps_si512(av);
			bits = _mm512_or_si512(_mm512_min_epi32(_mm512_and_si512(bits, magmask), clampv),
								   _mm512_and_si512(bits, signmask));
			xv = _mm512_mul_ps(_mm512_set1_ps(0.5f), _mm512_castsi512_ps(bits));
			x2 = _mm512_mul_ps(xv, xv);
			num = _mm512_mul_ps(xv, _mm512_add_ps(_mm512_set1_ps(135135.0f),
												  _mm512_mul_ps(x2, _mm512_add_ps(_mm512_set1_ps(17325.0f),
																				  _mm512_mul_ps(x2, _mm512_add_ps(_mm512_set1_ps(378.0f), x2))))));
			den = _mm512_add_ps(_mm512_set1_ps(135135.0f),
								_mm512_mul_ps(x2, _mm512_add_ps(_mm512_set1_ps(62370.0f),
																_mm512_mul_ps(x2, _mm512_add_ps(_mm512_set1_ps(3150.0f),
																								_mm512_mul_ps(x2, _mm512_set1_ps(28.0f)))))));
			t = _mm512_div_ps(num, den);
			t = _mm512_mul_ps(_mm512_cvtepi32_ps(yi), t);
			ti = _mm512_cvttps_epi32(_mm512_sub_ps(_mm512_set1_ps(64.0f),
												   _mm512_mul_ps(_mm512_set1_ps(63.5f), t)));
			ti = _mm512_min_epi32(_mm512_max_epi32(ti, zero), qmax);
			gi = _mm512_mullo_epi32(yi, ti);
			cs = _mm512_add_epi32(cs, gi);
			gb = _mm512_cvtepi32_epi8(gi);
			if (p->interleaved)
			{
				int8_t	   *dst = g + ((size_t) (r >> 2) * (size_t) p->qpad + (size_t) k) * 4;
				size_t		step = (size_t) p->qpad * 4;

				_mm_storeu_si32(dst, gb);
				_mm_storeu_si32(dst + step, _mm_srli_si128(gb, 4));
				_mm_storeu_si32(dst + 2 * step, _mm_srli_si128(gb, 8));
				_mm_storeu_si32(dst + 3 * step, _mm_srli_si128(gb, 12));
			}
			else
				_mm_storeu_si128((__m128i *) (g + (size_t) k * (size_t) ldg + r), gb);
		}
		colsum[k] += _mm512_reduce_add_epi32(cs);
		if (rows16 < rows)
			colsum[k] += FwkFusedScalarRange(p, xb, ldxb, k, mb, ldm, rows16, rows, g, ldg);
	}
	FwkZeroTail(p, rows, g, ldg);
}

/* The fused pass, 8 rows per step (the tail as FwkFusedScalarRange). */
FWK_AVX2
static void
FwkFusedAvx2(const FwkPass *p, const uint8_t *xb, int ldxb, float *mb, int64_t ldm,
   int rows,
   int8_t *g, int ldg,
			 int64_t *colsum)
{
	const __m256i one = _mm256_set1_epi32(1);
	const __m256i zero = _mm256_setzero_si256();
	const __m256i qmax = _mm256_set1_epi32(FWK_Q);
	const __m256i magmask = _mm256_set1_epi32(FWK_MAG_MASK);
	const __m256i signmask = _mm256_set1_epi32(FWK_SIGN_MASK);
	const __m256i clampv = _mm256_set1_epi32(FWK_CLAMP_BITS);
	const __m256i pack = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
										  0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
	const __m256 keep = _mm256_set1_ps(p->keep);
	int			rows8 = rows & ~7;
	int			k;

	for (k = 0; k < p->q; k++)
	{
		float	   *a = mb + (size_t) k * (size_t) ldm;
		const uint8_t *yp = xb + (size_t) p->ypos[k] * (size_t) ldxb;
		int			comp = p->yneg[k] == MRF_FW_COMPLEMENT;
		const uint8_t *yn = comp ? yp : xb + (size_t) p->yneg[k] * (size_t) ldxb;
		const uint8_t *xs = p->mode == FWK_UPDATE ?
			xb + (size_t) p->sel_j[k] * (size_t) ldxb : NULL;
		__m256		cv = _mm256_set1_ps(p->mode == FWK_UPDATE ? p->coef[k] : 0.0f);
		__m256i		cs = zero;
		int			r;
		int32_t		lanes[8];
		int64_t		sum = 0;
		int			i;

		for (r = 0; r < rows8; r += 8)
		{
			__m256		av;
			__m256i		yi;
			__m256i		bits;
			__m256		xv;
			__m256		x2;
			__m256		num;
			__m256		den;
			__m256		t;
			__m256i		ti;
			__m256i		gi;
			__m256i		gp;
			int32_t		lo;
			int32_t		hi;

			FWK_PREFETCH_MARGINS(a + r);
			if (p->mode == FWK_INIT)
			{
				av = _mm256_setzero_ps();
				_mm256_storeu_ps(a + r, av);
			}
			else if (p->mode == FWK_UPDATE)
			{
				__m256i		xb = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *) (xs + r)));

				if (p->x_signed)
					xb = _mm256_sub_epi32(_mm256_add_epi32(xb, xb), one);
				av = _mm256_add_ps(_mm256_mul_ps(keep, _mm256_loadu_ps(a + r)),
								   _mm256_mul_ps(cv, _mm256_cvtepi32_ps(xb)));
				_mm256_storeu_ps(a + r, av);
			}
			else
				av = _mm256_loadu_ps(a + r);

			yi = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *) (yp + r)));
			if (comp)
				yi = _mm256_sub_epi32(_mm256_add_epi32(yi, yi), one);
			else
				yi = _mm256_sub_epi32(yi, _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *) (yn + r))));

			bits = _mm256_castps_si256(av);
			bits = _mm256_or_si256(_mm256_min_epi32(_mm256_and_si256(bits, magmask), clampv),
								   _mm256_and_si256(bits, signmask));
			xv = _mm256_mul_ps(_mm256_set1_ps(0.5f), _mm256_castsi256_ps(bits));
			x2 = _mm256_mul_ps(xv, xv);
			num = _mm256_mul_ps(xv, _mm256_add_ps(_mm256_set1_ps(135135.0f),
												  _mm256_mul_ps(x2, _mm256_add_ps(_mm256_set1_ps(17325.0f),
																				  _mm256_mul_ps(x2, _mm256_add_ps(_mm256_set1_ps(378.0f), x2))))));
			den = _mm256_add_ps(_mm256_set1_ps(135135.0f),
								_mm256_mul_ps(x2, _mm256_add_ps(_mm256_set1_ps(62370.0f),
																_mm256_mul_ps(x2, _mm256_add_ps(_mm256_set1_ps(3150.0f),
																								_mm256_mul_ps(x2, _mm256_set1_ps(28.0f)))))));
			t = _mm256_div_ps(num, den);
			t = _mm256_mul_ps(_mm256_cvtepi32_ps(yi), t);
			ti = _mm256_cvttps_epi32(_mm256_sub_ps(_mm256_set1_ps(64.0f),
												   _mm256_mul_ps(_mm256_set1_ps(63.5f), t)));
			ti = _mm256_min_epi32(_mm256_max_epi32(ti, zero), qmax);
			gi = _mm256_mullo_epi32(yi, ti);
			cs = _mm256_add_epi32(cs, gi);
			/* low byte of each lane: rows r..r+3 in lo, r+4..r+7 in hi */
			gp = _mm256_shuffle_epi8(gi, pack);
			lo = _mm256_extract_epi32(gp, 0);
			hi = _mm256_extract_epi32(gp, 4);
			if (p->interleaved)
			{
				int8_t	   *dst = g + ((size_t) (r >> 2) * (size_t) p->qpad + (size_t) k) * 4;

				memcpy(dst, &lo, 4);
				memcpy(dst + (size_t) p->qpad * 4, &hi, 4);
			}
			else
			{
				int8_t	   *dst = g + (size_t) k * (size_t) ldg + r;

				memcpy(dst, &lo, 4);
				memcpy(dst + 4, &hi, 4);
			}
		}
		_mm256_storeu_si256((__m256i *) lanes, cs);
		for (i = 0; i < 8; i++)
			sum += lanes[i];
		colsum[k] += sum;
		if (rows8 < rows)
			colsum[k] += FwkFusedScalarRange(p, xb, ldxb, k, mb, ldm, rows8, rows, g, ldg);
	}
	FwkZeroTail(p, rows, g, ldg);
}

/*
 * One VNNI tile: rows j0..j0+J-1 of C against problems k0..k0+16V-1.  Every
 * product x * G is u8 {0, 1} times s8, and vpdpbusd adds four of them to
 * an int32 lane without saturation: exact.
 */
FWK_VNNI
static inline __attribute__((always_inline)) void
FwkVnniTile(const uint8_t *x, int64_t ldx, int64_t start, int j0, const int J,
			int rows4, const int8_t *g, int qpad, int k0, const int V, int32_t *c)
{
	__m512i		acc[6][4];
	const uint8_t *xr[6];
	int			jj;
	int			v;
	int			r;

#pragma GCC unroll 6
	for (jj = 0; jj < J; jj++)
	{
		xr[jj] = x + (size_t) (j0 + jj) * (size_t) ldx + start;
#pragma GCC unroll 4
		for (v = 0; v < V; v++)
			acc[jj][v] = _mm512_loadu_si512(c + (size_t) (j0 + jj) * qpad + k0 + 16 * v);
	}
	for (r = 0; r < rows4; r += 4)
	{
		const int8_t *gr = g + ((size_t) (r >> 2) * (size_t) qpad + (size_t) k0) * 4;
		__m512i		gv[4];

#pragma GCC unroll 4
		for (v = 0; v < V; v++)
			gv[v] = _mm512_loadu_si512(gr + 64 * v);
	#pragma GCC unroll 6
	for (jj = 0; jj < J; jj++)
		{
			int32_t		xw;
			__m512i		b;

			memcpy(&xw, xr[jj] + r, 4);
			b = _mm512_set1_epi32(xw);
	#pragma GCC unroll 4
		for (v = 0; v < V; v++)
				acc[jj][v] = _mm512_dpbusd_epi32(acc[jj][v], b, gv[v]);
		}
	}
#pragma GCC unroll 6
	for (jj = 0; jj < J; jj++)
#pragma GCC unroll 4
		for (v = 0; v < V; v++)
			_mm512_storeu_si512(c + (size_t) (j0 + jj) * qpad + k0 + 16 * v, acc[jj][v]);
}

#define FWK_VNNI_CASE(J, V) \
	case (J) * 8 + (V): \
		FwkVnniTile(x, ldx, start, j0, J, rows4, g, qpad, k0, V, c); \
		break

/* The AVX-512 VNNI product: tiles of 6 rows of C by 64 problems. */
FWK_VNNI
static void
FwkGemmVnni(const void *xv, int64_t ldx, int64_t start, int d, int rows4,
			const int8_t *g, int ldg, int q, int qpad, int32_t *c, void *scratch)
{
	const uint8_t *x = (const uint8_t *) xv;
	int			k0;
	int			j0;

	(void) ldg;
	(void) q;
	(void) scratch;
	for (k0 = 0; k0 < qpad; k0 += 64)
	{
		int			V = (qpad - k0) / 16 < 4 ? (qpad - k0) / 16 : 4;

		for (j0 = 0; j0 < d; j0 += 6)
		{
			int			J = d - j0 < 6 ? d - j0 : 6;

			switch (J * 8 + V)
			{
					FWK_VNNI_CASE(1, 1);
					FWK_VNNI_CASE(1, 2);
					FWK_VNNI_CASE(1, 3);
					FWK_VNNI_CASE(1, 4);
					FWK_VNNI_CASE(2, 1);
					FWK_VNNI_CASE(2, 2);
					FWK_VNNI_CASE(2, 3);
					FWK_VNNI_CASE(2, 4);
					FWK_VNNI_CASE(3, 1);
					FWK_VNNI_CASE(3, 2);
					FWK_VNNI_CASE(3, 3);
					FWK_VNNI_CASE(3, 4);
					FWK_VNNI_CASE(4, 1);
					FWK_VNNI_CASE(4, 2);
					FWK_VNNI_CASE(4, 3);
					FWK_VNNI_CASE(4, 4);
					FWK_VNNI_CASE(5, 1);
					FWK_VNNI_CASE(5, 2);
					FWK_VNNI_CASE(5, 3);
					FWK_VNNI_CASE(5, 4);
					FWK_VNNI_CASE(6, 1);
					FWK_VNNI_CASE(6, 2);
					FWK_VNNI_CASE(6, 3);
					FWK_VNNI_CASE(6, 4);
			}
		}
	}
}

/*
 * AMX.  TDPBUSD multiplies a tile of u8 (16 rows of C by 64 rows of X: the
 * block's bytes as they are, xb[j * ldx + r]) by a tile of s8 (16 groups of
 * 4 rows by 16 problems: G's interleaved layout as it is) and adds groups
 * of four products into int32 lanes without saturation, as vpdpbusd does:
 * exact under the same bounds.  The tile registers hold 2 x 2 tiles of C
 * over all of a block's rows; whole 16 x 16 tiles only, so the rows of C
 * beyond the last multiple of 16 and the block's rows beyond the last
 * multiple of 64 go to the VNNI kernel (every AMX CPU has AVX-512 VNNI).
 */
#define FWK_AMX __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,amx-tile,amx-int8")))

/* Linux: XFEATURE_XTILEDATA and the arch_prctl that requests it. */
#define FWK_XFEATURE_XTILEDATA 18
#define FWK_ARCH_REQ_XCOMP_PERM 0x1023

/* The tile configuration: palette 1, every tile 16 rows of 64 bytes. */
typedef struct FwkTileConfig
{
	uint8_t		palette;
	uint8_t		start_row;
	uint8_t		reserved[14];
	uint16_t	colsb[16];
	uint8_t		rows[16];
} FwkTileConfig;

/* The compiler does not know the tile instructions touch memory. */
#define FWK_MEMORY_BARRIER() __asm__ volatile("" ::: "memory")

/*
 * One pass of 2 x 2 C tiles (C rows j0.., problems k0..) over rows
 * [0, rows64): tiles 0-3 hold C, 4-5 X, 6-7 G.  J and K say which of the
 * second row / column of tiles exist (1 or 2).
 */
FWK_AMX
static inline __attribute__((always_inline)) void
FwkAmxTiles(const uint8_t *x, int64_t ldx, int j0, const int J, int rows64,
			const int8_t *g, int qpad, int k0, const int K, int32_t *c)
{
	int32_t    *c00 = c + (size_t) j0 * qpad + k0;
	int32_t    *c10 = c00 + (size_t) 16 * qpad;
	const int64_t cstride = (int64_t) qpad * 4;
	const int64_t gstride = (int64_t) qpad * 4;
	const uint8_t *x0 = x + (size_t) j0 * ldx;
	const uint8_t *x1 = x0 + (size_t) 16 * ldx;
	int			r;

	_tile_loadd(0, c00, cstride);
	if (K == 2)
		_tile_loadd(1, c00 + 16, cstride);
	if (J == 2)
	{
		_tile_loadd(2, c10, cstride);
		if (K == 2)
			_tile_loadd(3, c10 + 16, cstride);
	}
	for (r = 0; r < rows64; r += 64)
	{
		const int8_t *gr = g + ((size_t) (r >> 2) * (size_t) qpad + (size_t) k0) * 4;
		int			i;

		/*
		 * The next step's tiles, one line per tile row, into L1 (the tile
		 * loads come from L2 otherwise; measured here: the product 1.2-1.3x
		 * faster at p = 100 and 400).  A hint: past the block it is harmless.
		 */
		for (i = 0; i < 16; i++)
		{
			_mm_prefetch((const char *) (x0 + r + 64 + (size_t) i * ldx), _MM_HINT_T0);
			if (J == 2)
				_mm_prefetch((const char *) (x1 + r + 64 + (size_t) i * ldx), _MM_HINT_T0);
			_mm_prefetch((const char *) (gr + (size_t) (16 + i) * gstride), _MM_HINT_T0);
			if (K == 2)
				_mm_prefetch((const char *) (gr + (size_t) (16 + i) * gstride + 64), _MM_HINT_T0);
		}
		_tile_loadd(4, x0 + r, ldx);
		_tile_loadd(6, gr, gstride);
		_tile_dpbusd(0, 4, 6);
		if (K == 2)
		{
			_tile_loadd(7, gr + 64, gstride);
			_tile_dpbusd(1, 4, 7);
		}
		if (J == 2)
		{
			_tile_loadd(5, x1 + r, ldx);
			_tile_dpbusd(2, 5, 6);
			if (K == 2)
				_tile_dpbusd(3, 5, 7);
		}
	}
	_tile_stored(0, c00, cstride);
	if (K == 2)
		_tile_stored(1, c00 + 16, cstride);
	if (J == 2)
	{
		_tile_stored(2, c10, cstride);
		if (K == 2)
			_tile_stored(3, c10 + 16, cstride);
	}
}

/* The AMX product: whole tiles by AMX, the edges by the VNNI kernel. */
FWK_AMX
static void
FwkGemmAmx(const void *xv, int64_t ldx, int64_t start, int d, int rows4,
		   const int8_t *g, int ldg, int q, int qpad, int32_t *c, void *scratch)
{
	const uint8_t *x = (const uint8_t *) xv + start;
	int			d16 = d & ~15;
	int			rows64 = rows4 & ~63;
	FwkTileConfig cfg;
	int			t;
	int			j0;
	int			k0;

	if (d16 > 0 && rows64 > 0)
	{
		memset(&cfg, 0, sizeof(cfg));
		cfg.palette = 1;
		for (t = 0; t < 8; t++)
		{
			cfg.colsb[t] = 64;
			cfg.rows[t] = 16;
		}
		_tile_loadconfig(&cfg);
		FWK_MEMORY_BARRIER();
		for (j0 = 0; j0 < d16; j0 += 32)
		{
			int			J = d16 - j0 >= 32 ? 2 : 1;

			for (k0 = 0; k0 < qpad; k0 += 32)
			{
				int			K = qpad - k0 >= 32 ? 2 : 1;

				if (J == 2 && K == 2)
					FwkAmxTiles(x, ldx, j0, 2, rows64, g, qpad, k0, 2, c);
				else if (J == 2)
					FwkAmxTiles(x, ldx, j0, 2, rows64, g, qpad, k0, 1, c);
				else if (K == 2)
					FwkAmxTiles(x, ldx, j0, 1, rows64, g, qpad, k0, 2, c);
				else
					FwkAmxTiles(x, ldx, j0, 1, rows64, g, qpad, k0, 1, c);
			}
		}
		/* the tile state is large: give it back before the thread moves on */
		_tile_release();
		FWK_MEMORY_BARRIER();
	}
	/* the rows of C beyond d16, over the AMX rows */
	if (d16 < d && rows64 > 0)
		FwkGemmVnni(x + (size_t) d16 * ldx, ldx, 0, d - d16, rows64, g, ldg, q, qpad,
					c + (size_t) d16 * qpad, scratch);
	/* every row of C, over the block's rows beyond rows64 */
	if (rows64 < rows4)
		FwkGemmVnni(x, ldx, rows64, d, rows4 - rows64,
					g + (size_t) (rows64 >> 2) * (size_t) qpad * 4, ldg, q, qpad, c, scratch);
}

/*
 * One AVX2 tile: J rows of C against 16 problems.  vpmaddubsw adds two
 * products u8 {0, 1} x s8 into int16 (at most 254 in magnitude: no
 * saturation), vpmaddwd adds pairs of those into int32: exact.
 */
FWK_AVX2
static inline __attribute__((always_inline)) void
FwkAvx2Tile(const uint8_t *x, int64_t ldx, int64_t start, int j0, const int J,
			int rows4, const int8_t *g, int qpad, int k0, int32_t *c)
{
	const __m256i ones = _mm256_set1_epi16(1);
	__m256i		acc[4][2];
	const uint8_t *xr[4];
	int			jj;
	int			r;

#pragma GCC unroll 4
	for (jj = 0; jj < J; jj++)
	{
		xr[jj] = x + (size_t) (j0 + jj) * (size_t) ldx + start;
		acc[jj][0] = _mm256_loadu_si256((const __m256i *) (c + (size_t) (j0 + jj) * qpad + k0));
		acc[jj][1] = _mm256_loadu_si256((const __m256i *) (c + (size_t) (j0 + jj) * qpad + k0 + 8));
	}
	for (r = 0; r < rows4; r += 4)
	{
		const int8_t *gr = g + ((size_t) (r >> 2) * (size_t) qpad + (size_t) k0) * 4;
		__m256i		g0 = _mm256_loadu_si256((const __m256i *) gr);
		__m256i		g1 = _mm256_loadu_si256((const __m256i *) (gr + 32));

	#pragma GCC unroll 4
	for (jj = 0; jj < J; jj++)
		{
			int32_t		xw;
			__m256i		b;

			memcpy(&xw, xr[jj] + r, 4);
			b = _mm256_set1_epi32(xw);
			acc[jj][0] = _mm256_add_epi32(acc[jj][0],
										  _mm256_madd_epi16(_mm256_maddubs_epi16(b, g0), ones));
			acc[jj][1] = _mm256_add_epi32(acc[jj][1],
										  _mm256_madd_epi16(_mm256_maddubs_epi16(b, g1), ones));
		}
	}
#pragma GCC unroll 4
	for (jj = 0; jj < J; jj++)
	{
		_mm256_storeu_si256((__m256i *) (c + (size_t) (j0 + jj) * qpad + k0), acc[jj][0]);
		_mm256_storeu_si256((__m256i *) (c + (size_t) (j0 + jj) * qpad + k0 + 8), acc[jj][1]);
	}
}

/* The AVX2 product: tiles of 4 rows of C by 16 problems. */
FWK_AVX2
static void
FwkGemmAvx2(const void *xv, int64_t ldx, int64_t start, int d, int rows4,
			const int8_t *g, int ldg, int q, int qpad, int32_t *c, void *scratch)
{
	const uint8_t *x = (const uint8_t *) xv;
	int			k0;
	int			j0;

	(void) ldg;
	(void) q;
	(void) scratch;
	for (k0 = 0; k0 < qpad; k0 += 16)
		for (j0 = 0; j0 < d; j0 += 4)
		{
			switch (d - j0 < 4 ? d - j0 : 4)
			{
				case 1:
					FwkAvx2Tile(x, ldx, start, j0, 1, rows4, g, qpad, k0, c);
					break;
				case 2:
					FwkAvx2Tile(x, ldx, start, j0, 2, rows4, g, qpad, k0, c);
					break;
				case 3:
					FwkAvx2Tile(x, ldx, start, j0, 3, rows4, g, qpad, k0, c);
					break;
				default:
					FwkAvx2Tile(x, ldx, start, j0, 4, rows4, g, qpad, k0, c);
					break;
			}
		}
}

#endif							/* FWK_X86 */

/* Rows per block of the sgemm path: 127 * 4096 < 2^24 keeps float sums exact. */
#define FWK_SGEMM_ROWS 4096

_Static_assert((int64_t) FWK_SGEMM_ROWS * FWK_Q < ((int64_t) 1 << 24),
			   "sgemm block sums must stay exact in float");

/*
 * The portable product: float sgemm on the block (G plain) against the
 * solver's float copy of X (as the float path before it: no conversion per
 * block, so this path is as fast as that one was).  Every partial
 * sum is an integer of magnitude at most 127 * FWK_SGEMM_ROWS < 2^24, exact
 * in float whatever order BLAS adds in.
 */
static void
FwkGemmSgemm(const void *xv, int64_t ldx, int64_t start, int d, int rows4,
			 const int8_t *g, int ldg, int q, int qpad, int32_t *c, void *scratch)
{
	const float *xf = (const float *) xv;
	float	   *gf = (float *) scratch;
	float	   *cf = gf + (size_t) q * FWK_SGEMM_ROWS;
	int			i;
	int			j;
	int			k;
	int			r;

	/* fixed-length inner loops: GCC vectorises them at -O2 */
	for (k = 0; k < q; k++)
	{
		const int8_t *gk = g + (size_t) k * ldg;
		float	   *fk = gf + (size_t) k * FWK_SGEMM_ROWS;

		for (r = 0; r + FWK_LANES <= rows4; r += FWK_LANES)
			for (i = 0; i < FWK_LANES; i++)
				fk[r + i] = (float) gk[r + i];
		for (; r < rows4; r++)
			fk[r] = (float) gk[r];
	}
	cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, q, d, rows4,
				1.0f, gf, FWK_SGEMM_ROWS, xf + start, (int) ldx, 0.0f, cf, q);
	for (j = 0; j < d; j++)
		for (k = 0; k < q; k++)
			c[(size_t) j * qpad + k] += (int32_t) cf[(size_t) j * q + k];
}

#ifdef MRF_HAVE_DNNL

/* Rows per block of the oneDNN path: larger blocks amortise its call cost. */
#define FWK_DNNL_ROWS 2048

/*
 * oneDNN's u8 x s8 -> s32 product on the block (G plain).  Exact: integer
 * arithmetic throughout; without VNNI oneDNN adds pairs of products in
 * int16 with saturation, and a pair here is at most 2 * 127 in magnitude.
 */
static void
FwkGemmDnnl(const void *xv, int64_t ldx, int64_t start, int d, int rows4,
			const int8_t *g, int ldg, int q, int qpad, int32_t *c, void *scratch)
{
	const uint8_t *x = (const uint8_t *) xv;
	int32_t    *tmp = (int32_t *) scratch;
	const int32_t co = 0;
	int			j;
	int			k;

	dnnl_gemm_u8s8s32('N', 'T', 'F', d, q, rows4, 1.0f, x + start, ldx, 0,
					  g, ldg, 0, 0.0f, tmp, q, &co);
	for (j = 0; j < d; j++)
		for (k = 0; k < q; k++)
			c[(size_t) j * qpad + k] += tmp[(size_t) j * q + k];
}
#endif

/* CPU features, read once. */
static int
FwkHasAvx2(void)
{
#ifdef FWK_X86
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
#else
	return 0;
#endif
}

static int
FwkHasAvx512(void)
{
#ifdef FWK_X86
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		__builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#else
	return 0;
#endif
}

static int
FwkHasVnni(void)
{
#ifdef FWK_X86
	return FwkHasAvx512() && __builtin_cpu_supports("avx512vnni");
#else
	return 0;
#endif
}

#ifdef FWK_X86
/*
 * Whether this thread may use the AMX tile data: asks Linux once per thread
 * (arch_prctl ARCH_REQ_XCOMP_PERM; the grant is the process's, asking again
 * is harmless), then checks that XCR0 enables the tile state (bits 17, 18).
 * Without the grant the first tile instruction would raise SIGILL.
 */
static int
FwkAmxPermitted(void)
{
	static __thread int state;	/* 0 unknown, 1 yes, -1 no */
	uint32_t	xlo;
	uint32_t	xhi;

	if (state != 0)
		return state > 0;
	state = -1;
#ifdef __linux__
	if (syscall(SYS_arch_prctl, FWK_ARCH_REQ_XCOMP_PERM, FWK_XFEATURE_XTILEDATA) != 0)
		return 0;
	__asm__ volatile("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
	(void) xhi;
	if ((xlo & (3u << 17)) != (3u << 17))
		return 0;
	state = 1;
#else
	(void) xlo;
	(void) xhi;
#endif
	return state > 0;
}
#endif

/*
 * AMX-TILE and AMX-INT8 (CPUID.(7,0):EDX bits 24, 25), with OSXSAVE, the
 * VNNI kernel the edges use, and the OS's permission in this thread.
 */
static int
FwkHasAmx(void)
{
#ifdef FWK_X86
	unsigned int a;
	unsigned int b;
	unsigned int c;
	unsigned int d;

	if (!FwkHasVnni())
		return 0;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)))
		return 0;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) ||
		(d & (3u << 24)) != (3u << 24))
		return 0;
	return FwkAmxPermitted();
#else
	return 0;
#endif
}

/* Whether this CPU and build can run a kernel. */
int
MrfFwKernelAvailable(MrfFwKernel kernel)
{
	switch (kernel)
	{
		case MRF_FW_KERNEL_AUTO:
		case MRF_FW_KERNEL_SGEMM:
			return 1;
		case MRF_FW_KERNEL_AVX2:
			return FwkHasAvx2();
		case MRF_FW_KERNEL_VNNI:
			return FwkHasVnni();
		case MRF_FW_KERNEL_AMX:
			return FwkHasAmx();
		case MRF_FW_KERNEL_DNNL:
#ifdef MRF_HAVE_DNNL
			return FwkHasAvx2();
#else
			return 0;
#endif
	}
	return 0;
}

/* The fastest available kernel (measured: bench/run_core_bench.sh). */
MrfFwKernel
MrfFwAutoKernel(void)
{
	if (FwkHasAmx())
		return MRF_FW_KERNEL_AMX;
	if (FwkHasVnni())
		return MRF_FW_KERNEL_VNNI;
	if (FwkHasAvx2())
		return MRF_FW_KERNEL_AVX2;
	return MRF_FW_KERNEL_SGEMM;
}

/* Names for benchmark output. */
const char *
MrfFwKernelName(MrfFwKernel kernel)
{
	switch (kernel)
	{
		case MRF_FW_KERNEL_AUTO:
			return "auto";
		case MRF_FW_KERNEL_SGEMM:
			return "sgemm";
		case MRF_FW_KERNEL_AVX2:
			return "avx2";
		case MRF_FW_KERNEL_VNNI:
			return "avx512-vnni";
		case MRF_FW_KERNEL_AMX:
			return "amx";
		case MRF_FW_KERNEL_DNNL:
			return "onednn";
	}
	return "unknown";
}

/* The fused pass that goes with the CPU's widest vectors. */
static FwkFusedFn
FwkBestFused(void)
{
#ifdef FWK_X86
	if (FwkHasAvx512())
		return FwkFusedAvx512;
	if (FwkHasAvx2())
		return FwkFusedAvx2;
#endif
	return FwkFusedScalar;
}

/* The unpack that goes with the CPU's widest vectors. */
static FwkUnpackFn
FwkBestUnpack(void)
{
#ifdef FWK_X86
	if (FwkHasAvx512())
		return FwkUnpackAvx512;
	if (FwkHasAvx2())
		return FwkUnpackAvx2;
#endif
	return FwkUnpackScalar;
}

/* Fills info for a kernel; returns 0 when it is not available here. */
int
FwkResolve(MrfFwKernel want, FwkKernelInfo *info)
{
	MrfFwKernel kind = want == MRF_FW_KERNEL_AUTO ? MrfFwAutoKernel() : want;

	memset(info, 0, sizeof(*info));
	FwkByteTableInit();
	(void) FwkBestFused;
	(void) FwkBestUnpack;
	if (!MrfFwKernelAvailable(kind))
		return 0;
	info->kind = kind;
	switch (kind)
	{
#ifdef FWK_X86
		case MRF_FW_KERNEL_VNNI:
			info->fused = FwkFusedAvx512;
			info->gemm = FwkGemmVnni;
			info->unpack = FwkUnpackAvx512;
			info->interleaved = 1;
			info->block_rows = 512;
			info->qalign = 16;
			return 1;
		case MRF_FW_KERNEL_AMX:
			info->fused = FwkFusedAvx512;
			info->gemm = FwkGemmAmx;
			info->unpack = FwkUnpackAvx512;
			info->interleaved = 1;
			info->block_rows = 512;
			info->qalign = 16;
			return 1;
		case MRF_FW_KERNEL_AVX2:
			info->fused = FwkFusedAvx2;
			info->gemm = FwkGemmAvx2;
			info->unpack = FwkUnpackAvx2;
			info->interleaved = 1;
			info->block_rows = 512;
			info->qalign = 16;
			return 1;
#endif
#ifdef MRF_HAVE_DNNL
		case MRF_FW_KERNEL_DNNL:
			info->fused = FwkBestFused();
			info->unpack = FwkBestUnpack();
			info->gemm = FwkGemmDnnl;
			info->interleaved = 0;
			info->block_rows = FWK_DNNL_ROWS;
			info->qalign = 1;
			return 1;
#endif
		default:
			info->fused = FwkFusedScalar;
			info->unpack = FwkUnpackScalar;
			info->gemm = FwkGemmSgemm;
			info->interleaved = 0;
			info->block_rows = FWK_SGEMM_ROWS;
			info->qalign = 1;
			info->float_x = 1;
			return 1;
	}
}

/* Per-thread scratch of the product (beyond G and C, which fw.c sizes). */
size_t
FwkScratchBytes(const FwkKernelInfo *info, int d, int q)
{
	switch (info->kind)
	{
		case MRF_FW_KERNEL_SGEMM:
		case MRF_FW_KERNEL_AUTO:
			return sizeof(float) * ((size_t) q * FWK_SGEMM_ROWS + (size_t) d * q);
		case MRF_FW_KERNEL_DNNL:
			return sizeof(int32_t) * (size_t) d * q;
		default:
			return 0;
	}
}

/*
 * oneDNN runs on OpenMP: one OpenMP thread per calling thread, since fw.c
 * splits the rows itself.
 */
void
FwkThreadInit(const FwkKernelInfo *info)
{
#ifdef FWK_X86
	/* the grant is the process's; a thread asks before its first tile */
	if (info->kind == MRF_FW_KERNEL_AMX)
		(void) FwkAmxPermitted();
#endif
#ifdef MRF_HAVE_DNNL
	if (info->kind == MRF_FW_KERNEL_DNNL)
		omp_set_num_threads(1);
#else
	(void) info;
#endif
}
