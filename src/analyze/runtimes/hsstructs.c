/* hsstructs.c — the Java heap's reservation, and the offsets of G1's
 * regions, from HotSpot's VMStructs. See hsstructs.h. */
#include "analyze/runtimes/hsstructs.h"

#include <string.h>

#define TOP (1ull << 47) /* above any x86-64 user address */
#define CHUNK 32 /* entries read at once */
#define MAX_STRIDE 256

/* Each entry's names: the type's (and a second, its later name, or
 * NULL), the field's; whether it is a static. */
static const struct want {
	const char *type, *type2, *field, *field2;
	bool is_static;
} wants[HS_NENTRIES] = {
	[HS_UNIVERSE_HEAP] = { "Universe", NULL, "_collectedHeap", NULL, true },
	[HS_HEAP_RESERVED] = { "CollectedHeap", NULL, "_reserved", NULL,
			       false },
	[HS_REGION_START] = { "MemRegion", NULL, "_start", NULL, false },
	[HS_REGION_WORDS] = { "MemRegion", NULL, "_word_size", NULL, false },
	[HS_HEAP_GC_ACTIVE] = { "CollectedHeap", NULL, "_is_gc_active",
				"_is_stw_gc_active", false },
	[HS_HEAP_COLLECTIONS] = { "CollectedHeap", NULL, "_total_collections",
				  NULL, false },
	[HS_G1_HRM] = { "G1CollectedHeap", NULL, "_hrm", NULL, false },
	[HS_HRM_REGIONS] = { "HeapRegionManager", "G1HeapRegionManager",
			     "_regions", NULL, false },
	[HS_TABLE_BASE] = { "G1HeapRegionTable", NULL, "_base", NULL, false },
	[HS_TABLE_LENGTH] = { "G1HeapRegionTable", NULL, "_length", NULL,
			      false },
	[HS_HR_GRAIN] = { "HeapRegion", "G1HeapRegion", "GrainBytes", NULL,
			  true },
	[HS_HR_BOTTOM] = { "HeapRegion", "G1HeapRegion", "_bottom", NULL,
			   false },
	[HS_HR_TOP] = { "HeapRegion", "G1HeapRegion", "_top", NULL, false },
	[HS_HR_END] = { "HeapRegion", "G1HeapRegion", "_end", NULL, false },
};

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

	if (!l->table || l->table >= TOP || l->stride < 40 ||
	    l->stride > MAX_STRIDE)
		return false;
	for (i = 0; i < 5; i++)
		if (f[i] + (i == 2 ? 4 : 8) > l->stride)
			return false;
	return true;
}

static bool type_is(const struct want *w, const char *t)
{
	return strcmp(t, w->type) == 0 ||
	       (w->type2 && strcmp(t, w->type2) == 0);
}

static bool field_is(const struct want *w, const char *f)
{
	return strcmp(f, w->field) == 0 ||
	       (w->field2 && strcmp(f, w->field2) == 0);
}

static uint64_t get64(const unsigned char *e, uint64_t off)
{
	uint64_t v;

	memcpy(&v, e + off, sizeof(v));
	return v;
}

/* Entry i of the table into e (stride bytes), read CHUNK at a time into
 * chunk (the last chunk of a table may end where memory does: then one
 * at a time). */
static bool entry_at(const struct hsstructs_layout *l, hsstructs_read_fn rd,
		     void *ctx, size_t i, unsigned char *chunk, size_t *from,
		     size_t *count, const unsigned char **e)
{
	if (i < *from || i >= *from + *count) {
		*from = i;
		*count = CHUNK;
		if (!rd(ctx, l->table + i * l->stride, chunk,
			CHUNK * l->stride)) {
			*count = 1;
			if (!rd(ctx, l->table + i * l->stride, chunk,
				l->stride))
				return false;
		}
	}
	*e = chunk + (i - *from) * l->stride;
	return true;
}

int hsstructs_read(const struct hsstructs_layout *l, hsstructs_read_fn rd,
		   void *ctx, uint64_t page, struct hsstructs *t,
		   const char **why)
{
	unsigned char chunk[CHUNK * MAX_STRIDE];
	char tname[HSSTRUCTS_NAME], fname[HSSTRUCTS_NAME];
	uint64_t last_tn = 0; /* entries of a type share its name's string */
	size_t i, k, nhave = 0, from = 0, count = 0;
	bool wanted = false;

	memset(t, 0, sizeof(*t));
	*why = "its VMStructs table (gHotSpotVMStructs) has an entry layout "
	       "vmscope does not know";
	if (!layout_ok(l))
		return -1;
	*why = "its VMStructs table cannot be read";
	for (i = 0; i < HSSTRUCTS_MAX && nhave < HS_NENTRIES; i++) {
		const unsigned char *e;
		uint64_t tn, fn;
		int32_t is_static;

		if (!entry_at(l, rd, ctx, i, chunk, &from, &count, &e))
			return -1;
		if (!(tn = get64(e, l->type_name)))
			break;
		if (tn != last_tn) {
			if (!read_name(rd, ctx, tn, page, tname))
				return -1;
			last_tn = tn;
			for (wanted = false, k = 0; k < HS_NENTRIES && !wanted;
			     k++)
				wanted = type_is(&wants[k], tname);
		}
		if (!wanted)
			continue;
		fn = get64(e, l->field_name);
		if (!read_name(rd, ctx, fn, page, fname))
			return -1;
		memcpy(&is_static, e + l->is_static, sizeof(is_static));
		for (k = 0; k < HS_NENTRIES; k++) {
			const struct want *w = &wants[k];

			if (t->have[k] || !type_is(w, tname) ||
			    !field_is(w, fname) ||
			    (is_static != 0) != w->is_static)
				continue;
			t->at[k] = get64(e, is_static ? l->address : l->offset);
			t->have[k] = true;
			nhave++;
		}
	}
	return 0;
}

int hsstructs_heap(const struct hsstructs *t, hsstructs_read_fn rd, void *ctx,
		   uint64_t page, uint64_t *heap, uint64_t *start,
		   uint64_t *end, const char **why)
{
	uint64_t words, base;

	*why = "its VMStructs table has no Universe::_collectedHeap, "
	       "CollectedHeap::_reserved or MemRegion";
	if (!t->have[HS_UNIVERSE_HEAP] || !t->have[HS_HEAP_RESERVED] ||
	    !t->have[HS_REGION_START] || !t->have[HS_REGION_WORDS] ||
	    t->at[HS_HEAP_RESERVED] > 4096 || t->at[HS_REGION_START] > 64 ||
	    t->at[HS_REGION_WORDS] > 64)
		return -1;
	*why = "the JVM has no heap yet (Universe::_collectedHeap is null)";
	if (!read_u64(rd, ctx, t->at[HS_UNIVERSE_HEAP], heap) || !*heap ||
	    *heap >= TOP)
		return -1;
	*why = "its heap's reserved region (CollectedHeap::_reserved) cannot be "
	       "read";
	base = *heap + t->at[HS_HEAP_RESERVED];
	if (!read_u64(rd, ctx, base + t->at[HS_REGION_START], start) ||
	    !read_u64(rd, ctx, base + t->at[HS_REGION_WORDS], &words))
		return -1;
	*why = "its heap's reserved region (CollectedHeap::_reserved) is no "
	       "range of pages";
	if (!words || words > TOP / 8 || *start >= TOP ||
	    *start + words * 8 > TOP || *start % page || (words * 8) % page)
		return -1;
	*end = *start + words * 8;
	return 0;
}
