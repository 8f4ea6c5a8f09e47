/* pane_find_classes.c — what find matches of a region, kept small: each
 * region's class, an index into the distinct (path, detail, type, has
 * children) of the snapshot's regions, 2 bytes a region, made while
 * nobody types. Contract: panes.h (details_find_*).
 *
 * Why: a find matches every region (pane_find.c), and read the path,
 * detail, type and children of each from its 176-byte record: two cache
 * lines a region, 38% of a find of a million regions (perf, 2026-11-30).
 * Paths are interned and details mostly constants or a few per process,
 * so a million regions have some thousands of classes: find matches each
 * class's texts once, then reads 2 bytes a region.
 *
 * A class is its texts' addresses, not their contents (two equal texts
 * at two addresses are two classes: only more of them). Past
 * FIND_CLASSES_MAX classes a region is FIND_CLASS_RECORD (find reads its
 * record). Made once a snapshot (details_free lets it go), not under
 * --watch, not with VMSCOPE_SORT_RECORDS=1 (the tests' way to the
 * records).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "panes/panes.h"

/* The hash of a class's key (Fibonacci hashing of its addresses). */
static uint32_t class_hash(const struct find_class *c, unsigned bits)
{
	uint64_t h = (uint64_t)(uintptr_t)c->path * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(uintptr_t)c->detail * 0xc2b2ae3d27d4eb4full;
	h ^= (uint64_t)(c->type | (unsigned)c->kids << 8) *
	     0x165667b19e3779f9ull;
	return (uint32_t)(h >> (64 - bits));
}

static bool same_class(const struct find_class *a, const struct find_class *b)
{
	return a->path == b->path && a->detail == b->detail &&
	       a->type == b->type && a->kids == b->kids;
}

/* An open-addressed table of class indexes + 1 (0: empty), 2^bits of
 * them, at most half full. */
struct table {
	uint32_t *slot;
	unsigned bits;
};

static bool table_grow(struct table *t, const struct find_class *cls,
		       size_t ncls)
{
	unsigned bits = t->bits ? t->bits + 1 : 10;
	uint32_t *slot = calloc((size_t)1 << bits, sizeof(*slot));
	uint32_t mask = ((uint32_t)1 << bits) - 1;
	size_t i;

	if (!slot)
		return false;
	for (i = 0; i < ncls; i++) {
		uint32_t h = class_hash(&cls[i], bits);

		while (slot[h])
			h = (h + 1) & mask;
		slot[h] = (uint32_t)i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->bits = bits;
	return true;
}

void details_find_warm(struct ui *u)
{
	struct details *d = det_of(u);
	const struct vms_snapshot *s = u->snap;
	struct find_class *cls = NULL, key, *grown;
	struct table t = { NULL, 0 };
	size_t n, ncls = 0, cap = 0, i;
	uint16_t *id, last = FIND_CLASS_RECORD;

	if (!s || u->watching || !s->nregions || d->find_cls ||
	    d->find_cls_tried || details_keep_nothing())
		return;
	d->find_cls_tried = true; /* out of memory: not tried each idle */
	n = s->nregions;
	id = malloc(n * sizeof(*id));
	if (!id || !table_grow(&t, NULL, 0))
		goto fail;
	for (i = 0; i < n; i++) {
		const struct vms_region *g = &s->regions[i];
		uint32_t mask = ((uint32_t)1 << t.bits) - 1, h;

		key = (struct find_class){ g->path, g->detail, g->type,
					   g->nchildren > 0 };
		/* neighbours mostly share theirs (an image's mappings) */
		if (last != FIND_CLASS_RECORD && same_class(&cls[last], &key)) {
			id[i] = last;
			continue;
		}
		for (h = class_hash(&key, t.bits); t.slot[h];
		     h = (h + 1) & mask)
			if (same_class(&cls[t.slot[h] - 1], &key))
				break;
		if (t.slot[h]) {
			id[i] = last = (uint16_t)(t.slot[h] - 1);
			continue;
		}
		if (ncls == FIND_CLASSES_MAX) { /* full: read from its record */
			id[i] = FIND_CLASS_RECORD;
			continue;
		}
		if (ncls == cap) {
			cap = cap ? 2 * cap : 256;
			grown = realloc(cls, cap * sizeof(*cls));
			if (!grown)
				goto fail;
			cls = grown;
		}
		cls[ncls] = key;
		t.slot[h] = (uint32_t)++ncls;
		id[i] = last = (uint16_t)(ncls - 1);
		if (2 * ncls > ((size_t)1 << t.bits) &&
		    !table_grow(&t, cls, ncls))
			goto fail;
	}
	free(t.slot);
	d->find_cls = id;
	d->find_classes = cls;
	d->nfind_classes = ncls;
	return;
fail:
	free(t.slot);
	free(cls);
	free(id);
}

void details_find_free(struct details *d)
{
	free(d->find_cls);
	free(d->find_classes);
	d->find_cls = NULL;
	d->find_classes = NULL;
	d->nfind_classes = 0;
	d->find_cls_tried = false;
}
