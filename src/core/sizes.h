/*
 * sizes.h - saturating size arithmetic for working-memory plans and
 * allocations: an overflow reads as SIZE_MAX ("too big"), which every
 * allocator refuses and every memory check rejects.
 */
#ifndef MRF_SIZES_H
#define MRF_SIZES_H

#include <stddef.h>
#include <stdint.h>

/* Multiplies sizes, saturating at SIZE_MAX so that overflow reads as "too big". */
static inline size_t
MrfSizeMul(size_t a, size_t b)
{
	if (a != 0 && b > SIZE_MAX / a)
		return SIZE_MAX;
	return a * b;
}

/* Adds sizes, saturating at SIZE_MAX. */
static inline size_t
MrfSizeAdd(size_t a, size_t b)
{
	if (b > SIZE_MAX - a)
		return SIZE_MAX;
	return a + b;
}

#endif
