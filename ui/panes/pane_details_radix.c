/* pane_details_radix.c — the stable LSD radix sorts of the details' top
 * rows by 64-bit keys (pane_details_sort.c gathers the keys and picks
 * one): the keys packed with their rows into 8 bytes where they fit, else
 * (key, row) pairs. Contract: panes.h (details_radix_*).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "panes/panes.h"

/* A row's key and the row as row_bits() has it, for the radix sort of
 * keys too wide to pack with their rows (words alone: made in place
 * from the keys, below). */
struct rkey {
	uint64_t k, r;
};

/* Stable LSD radix sort of a by k into a, tmp as large: a byte a pass,
 * the eight counts made in one read of the keys, a pass whose byte is
 * the same in every key skipped (a figure's top bytes mostly are). O(n):
 * a million rows sort in some four passes over 16 MB, where qsort's
 * twenty million comparisons took 0.5 s. */
static void radix_sort(struct rkey *a, struct rkey *tmp, size_t n)
{
	size_t count[8][256];
	struct rkey *from = a, *to = tmp;
	unsigned byte, b;
	size_t i;

	if (n < 2)
		return;
	memset(count, 0, sizeof(count));
	for (i = 0; i < n; i++)
		for (byte = 0; byte < 8; byte++)
			count[byte][(a[i].k >> (8 * byte)) & 0xff]++;
	for (byte = 0; byte < 8; byte++) {
		size_t *c = count[byte], at = 0;
		unsigned shift = 8 * byte;

		if (c[(a[0].k >> shift) & 0xff] == n)
			continue;
		for (b = 0; b < 256; b++) {
			size_t k = c[b];

			c[b] = at;
			at += k;
		}
		for (i = 0; i < n; i++)
			to[c[(from[i].k >> shift) & 0xff]++] = from[i];
		from = to;
		to = from == a ? tmp : a;
	}
	if (from != a)
		memcpy(a, from, n * sizeof(*a));
}

/* A top row as the bits of a packed key (below the key's): its kind
 * and index (a top row's depth and child are 0). */
static inline uint64_t row_bits(struct drow r, unsigned ib)
{
	return (uint64_t)r.kind << ib | r.idx;
}

unsigned details_radix_bits(uint64_t v)
{
	return v ? 64u - (unsigned)__builtin_clzll(v) : 0;
}

enum { DIGIT_MAX = 11 }; /* bits a pass of the packed sort at most */

/* The row a packed word carries (row_bits). */
static inline struct drow row_of(uint64_t w, unsigned ib)
{
	return (struct drow){ (uint32_t)(w & (((uint64_t)1 << ib) - 1)),
			      (uint8_t)((w >> ib) & 7), 0, 0 };
}

/* The keys in p (the key's kb bits from bit lo) packed there with their
 * rows (above the row's pb bits: row_bits) and sorted into sorted (tops
 * itself, or another array as large), tmp as large as p to work in: a
 * stable LSD radix sort over the key's bits alone, DIGIT_MAX bits a pass
 * at most, counted as they are packed, a pass whose digit is the same in
 * every key skipped, the last writing the rows themselves. The rows below
 * the key are carried, never compared: equal keys stay in the order
 * given. 8 bytes a row moved where the pairs' sort moves 16, and no array
 * of the sort's written that the rows do not need: on this project's VM
 * a first write of memory left alone a while costs 1-2 ms a megabyte
 * (docs/benchmarks.md). */
void details_radix_packed(uint64_t *p, const struct drow *tops, uint64_t *tmp,
			  struct drow *sorted, size_t n, unsigned lo,
			  unsigned kb, unsigned ib)
{
	static uint32_t count[64 / DIGIT_MAX + 1][1u << DIGIT_MAX];
	unsigned passes = (kb + DIGIT_MAX - 1) / DIGIT_MAX, w, d, b, nb;
	unsigned pb = ib + 3, last = 0;
	uint64_t *from = p, *to = tmp, *t;
	uint64_t mask, kmask = kb ? (((uint64_t)1 << (kb - 1)) << 1) - 1 : 0;
	bool moves[64 / DIGIT_MAX + 1] = { false }, any = false;
	size_t i;

	if (!passes) { /* every key alike: the order given */
		memmove(sorted, tops, n * sizeof(*sorted));
		return;
	}
	w = (kb + passes - 1) / passes;
	nb = 1u << w;
	mask = nb - 1;
	memset(count, 0, sizeof(count));
	for (i = 0; i < n; i++) {
		uint64_t k = (p[i] >> lo) & kmask;

		p[i] = k << pb | row_bits(tops[i], ib);
		for (d = 0; d < passes; d++)
			count[d][(k >> (d * w)) & mask]++;
	}
	for (d = 0; d < passes; d++) {
		moves[d] = count[d][(p[0] >> (pb + d * w)) & mask] != n;
		if (moves[d]) {
			last = d;
			any = true;
		}
	}
	if (!any) { /* cannot be: the keys differ in their lowest bit */
		for (i = 0; i < n; i++)
			sorted[i] = row_of(p[i], ib);
		return;
	}
	for (d = 0; d <= last; d++) {
		uint32_t *c = count[d], at = 0;
		unsigned shift = pb + d * w;

		if (!moves[d])
			continue;
		for (b = 0; b < nb; b++) {
			uint32_t k = c[b];

			c[b] = at;
			at += k;
		}
		if (d == last) {
			for (i = 0; i < n; i++)
				sorted[c[(from[i] >> shift) & mask]++] =
					row_of(from[i], ib);
			return;
		}
		for (i = 0; i < n; i++)
			to[c[(from[i] >> shift) & mask]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
}

/* The keys in p, too wide to pack with their rows, made (key, row) pairs
 * in place (p has room for 16 bytes a row; each pair is written where
 * only keys already read lie: backwards) and sorted with tmp as large as
 * the pairs, into sorted. */
void details_radix_pairs(uint64_t *p, const struct drow *tops, uint64_t *tmp,
			 struct drow *sorted, size_t n, unsigned ib)
{
	struct rkey *rk = (struct rkey *)(void *)p;
	size_t i;

	for (i = n; i-- > 0;) {
		uint64_t k = p[i];

		p[2 * i + 1] = row_bits(tops[i], ib);
		p[2 * i] = k;
	}
	radix_sort(rk, (struct rkey *)(void *)tmp, n);
	for (i = 0; i < n; i++)
		sorted[i] = row_of(rk[i].r, ib);
}
