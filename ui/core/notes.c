/* notes.c — a snapshot's notes for the screen (notes.h). */
#include "core/notes.h"

#include <stdio.h>
#include <string.h>

#include "export/export_util.h"
#include "model/totals.h"

/* The summary row a step's note touches: the type its part of the
 * snapshot makes (the heaps, a runtime's managed heap, the stacks, the
 * images), else the Total. */
static int step_type(const char *step)
{
	static const struct {
		const char *step;
		int type;
	} t[] = {
		{ "heaps", VMS_T_HEAP },      { "malloc", VMS_T_HEAP },
		{ "allocator", VMS_T_HEAP },  { "jvm", VMS_T_MANAGED_HEAP },
		{ "go", VMS_T_MANAGED_HEAP }, { "dotnet", VMS_T_MANAGED_HEAP },
		{ "v8", VMS_T_MANAGED_HEAP }, { "cpython", VMS_T_MANAGED_HEAP },
		{ "stacks", VMS_T_STACK },    { "images", VMS_T_IMAGE },
	};
	size_t i;

	for (i = 0; step && i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(step, t[i].step) == 0)
			return t[i].type;
	return -1;
}

struct gather {
	struct ui_note *out;
	size_t max, n;
};

/* The next note (NULL past max: only counted). */
static struct ui_note *add(struct gather *g, const char *from, const char *why,
			   int type)
{
	struct ui_note *n = g->n < g->max ? &g->out[g->n] : NULL;

	g->n++;
	if (!n)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->from = from;
	n->why = why;
	n->type = type;
	return n;
}

/* The kernel's totals, when the regions do not add up to them. */
static void kernel_note(const struct vms_snapshot *s, struct gather *g)
{
	char why[200];
	struct ui_note *n;

	if (totals_check_rollup(s, why, sizeof(why)) != 0)
		return;
	n = add(g, "kernel", NULL, -1);
	if (n)
		export_rollup_check(s, n->own, sizeof(n->own));
}

/* The heaps a walk left partial, each with its segments. */
static void heap_notes(const struct vms_snapshot *s, struct gather *g)
{
	size_t i;

	if (s->glibc && s->glibc->partial)
		add(g, "malloc", s->glibc->partial, VMS_T_HEAP);
	if (s->allocator && s->allocator->partial) {
		struct ui_note *n = add(g, "allocator", NULL, VMS_T_HEAP);

		if (n)
			snprintf(n->own, sizeof(n->own), "%s: %s",
				 s->allocator->name, s->allocator->partial);
	}
	for (i = 0; i < s->nheaps; i++) {
		const struct vms_heap *h = &s->heaps[i];
		struct ui_note *n;

		if (!h->glibc || !h->glibc->partial)
			continue;
		n = add(g, "heap", NULL, VMS_T_HEAP);
		if (!n)
			continue;
		snprintf(n->own, sizeof(n->own), "%s at 0x%llx: %s", h->kind,
			 (unsigned long long)h->id, h->glibc->partial);
		n->segs = h->segs;
		n->nsegs = h->nsegs;
	}
}

size_t ui_notes(const struct vms_snapshot *s, struct ui_note *out, size_t max)
{
	struct gather g = { out, max, 0 };
	size_t i;

	if (!s)
		return 0;
	if (s->cap.partial)
		add(&g, "capture", s->cap.partial, -1);
	for (i = 0; i < s->nnotes; i++) {
		int type = step_type(s->notes[i].step);
		struct ui_note *n =
			add(&g, s->notes[i].step, s->notes[i].why, type);
		size_t k;

		/* a runtime's note is about its managed heaps, if any */
		for (k = 0; n && type == VMS_T_MANAGED_HEAP && k < s->nmanaged;
		     k++)
			if (s->managed[k].runtime &&
			    strcmp(s->managed[k].runtime, n->from) == 0 &&
			    n->start == n->end) {
				n->start = s->managed[k].start;
				n->end = s->managed[k].end;
			}
	}
	kernel_note(s, &g);
	heap_notes(s, &g);
	return g.n;
}

const char *ui_note_text(const struct ui_note *n)
{
	return n->why ? n->why : n->own;
}

int ui_note_of_type(const struct ui_note *n, size_t count, int type)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (n[i].type == type)
			return (int)i;
	return -1;
}

int ui_note_of_span(const struct ui_note *n, size_t count, uint64_t start,
		    uint64_t end)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < count; i++) {
		if (n[i].start < end && start < n[i].end)
			return (int)i;
		for (k = 0; k < n[i].nsegs; k++)
			if (n[i].segs[k].start < end &&
			    start < n[i].segs[k].end)
				return (int)i;
	}
	return -1;
}
