/* hsstructs.c — the Java heap's reservation from HotSpot's VMStructs. See
 * hsstructs.h. */
#include "analyze/runtimes/hsstructs.h"

#include <string.h>

#define TOP (1ull << 47) /* above any x86-64 user address */

/* The entries looked for. */
enum { UNIVERSE_HEAP, HEAP_RESERVED, REGION_START, REGION_WORDS, NWANT };

static const char *const want_type[NWANT] = { "Universe", "CollectedHeap",
					      "MemRegion", "MemRegion" };
static const char *const want_field[NWANT] = { "_collectedHeap", "_reserved",
					       "_start", "_word_size" };

static bool read_u64(hsstructs_read_fn rd, void *ctx, uint64_t addr,
		     uint64_t *v)
{
	return rd(ctx, addr, v, sizeof(*v));
}

/* Reads the name at addr into buf (NUL-terminated; at most
 * HSSTRUCTS_NAME - 1 bytes, not past the page it starts in unless the
 * page ends before its NUL): false when nothing came. */
static bool read_name(hsstructs_read_fn rd, void *ctx, uint64_t addr,
		      uint64_t page, char *buf)
{
	size_t n = HSSTRUCTS_NAME - 1, left = (size_t)(page - addr % page);

	if (!addr)
		return false;
	if (left < n && rd(ctx, addr, buf, left) && memchr(buf, 0, left))
		return true;
	if (!rd(ctx, addr, buf, n))
		return false;
	buf[n] = 0;
	return true;
}

static bool layout_ok(const struct hsstructs_layout *l)
{
	const uint64_t f[5] = { l->type_name, l->field_name, l->is_static,
				l->offset, l->address };
	size_t i;

	if (!l->table || l->table >= TOP || l->stride < 40 || l->stride > 256)
		return false;
	for (i = 0; i < 5; i++)
		if (f[i] + (i == 2 ? 4 : 8) > l->stride)
			return false;
	return true;
}

int hsstructs_heap(const struct hsstructs_layout *l, hsstructs_read_fn rd,
		   void *ctx, uint64_t page, uint64_t *start, uint64_t *end,
		   const char **why)
{
	uint64_t got[NWANT] = { 0 }, heap, words, base;
	bool have[NWANT] = { false };
	size_t i, k, nhave = 0;

	*why = "its VMStructs table (gHotSpotVMStructs) has an entry layout "
	       "vmscope does not know";
	if (!layout_ok(l))
		return -1;
	*why = "its VMStructs table cannot be read";
	for (i = 0; i < HSSTRUCTS_MAX && nhave < NWANT; i++) {
		uint64_t e = l->table + i * l->stride, tn, fn, v;
		char tname[HSSTRUCTS_NAME], fname[HSSTRUCTS_NAME];
		int32_t is_static;

		if (!read_u64(rd, ctx, e + l->type_name, &tn))
			return -1;
		if (!tn)
			break;
		if (!read_name(rd, ctx, tn, page, tname))
			return -1;
		for (k = 0; k < NWANT; k++)
			if (!have[k] && strcmp(tname, want_type[k]) == 0)
				break;
		if (k == NWANT)
			continue;
		if (!read_u64(rd, ctx, e + l->field_name, &fn) ||
		    !read_name(rd, ctx, fn, page, fname))
			return -1;
		for (; k < NWANT; k++)
			if (!have[k] && strcmp(tname, want_type[k]) == 0 &&
			    strcmp(fname, want_field[k]) == 0)
				break;
		if (k == NWANT)
			continue;
		if (!rd(ctx, e + l->is_static, &is_static, sizeof(is_static)))
			return -1;
		if ((is_static != 0) != (k == UNIVERSE_HEAP))
			continue; /* not the field looked for */
		if (!read_u64(rd, ctx, e + (is_static ? l->address : l->offset),
			      &v))
			return -1;
		got[k] = v;
		have[k] = true;
		nhave++;
	}
	*why = "its VMStructs table has no Universe::_collectedHeap, "
	       "CollectedHeap::_reserved or MemRegion";
	if (nhave < NWANT || got[HEAP_RESERVED] > 4096 ||
	    got[REGION_START] > 64 || got[REGION_WORDS] > 64)
		return -1;
	*why = "the JVM has no heap yet (Universe::_collectedHeap is null)";
	if (!read_u64(rd, ctx, got[UNIVERSE_HEAP], &heap) || !heap)
		return -1;
	*why = "its heap's reserved region (CollectedHeap::_reserved) cannot be "
	       "read";
	base = heap + got[HEAP_RESERVED];
	if (!read_u64(rd, ctx, base + got[REGION_START], start) ||
	    !read_u64(rd, ctx, base + got[REGION_WORDS], &words))
		return -1;
	*why = "its heap's reserved region (CollectedHeap::_reserved) is no "
	       "range of pages";
	if (!words || words > TOP / 8 || *start >= TOP ||
	    *start + words * 8 > TOP || *start % page || (words * 8) % page)
		return -1;
	*end = *start + words * 8;
	return 0;
}
