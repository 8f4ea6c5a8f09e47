/* step_allocator.c — the "allocator" step: which allocator the process's
 * malloc is, from the dynamic symbols of its images (the executable first,
 * as the dynamic linker looks): the image that defines malloc, and what
 * else it exports, matched against the table of allocators
 * (allocators.h: jemalloc, tcmalloc, mimalloc, and the C library's). A
 * jemalloc linked in under a prefix (je_mallctl, as Redis's own copy) is
 * reported too, without providing malloc. Fills s->allocator, or leaves it
 * NULL when the process has only glibc's malloc.
 *
 * Its heap, with memory (the target held): the row's facts are read from
 * its file first, then its find looks in unclaimed anonymous memory
 * (alloc_heap.h). What is not found is said in s->allocator->partial. See
 * steps.h.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/heaps/alloc_heap.h"
#include "analyze/rtscan.h"
#include "analyze/steps.h"
#include "model/source.h"

/* The allocators, one row each (allocators.h), in the order their
 * signatures are looked for: X(NAME) is the row alloc_kind_NAME that
 * alloc_NAME.c defines (glibc's: below). The C library's comes last. */
#define VMS_ALLOCATORS(X)                                                      \
	X(jemalloc)                                                            \
	X(tcmalloc)                                                            \
	X(mimalloc)                                                            \
	X(glibc)

#define ALLOC_DECL(name) extern const struct alloc_kind alloc_kind_##name;
#define ALLOC_ROW(name) &alloc_kind_##name,
VMS_ALLOCATORS(ALLOC_DECL)

const struct alloc_kind *const alloc_kinds[] = { VMS_ALLOCATORS(ALLOC_ROW)
							 NULL };

/* glibc's malloc: the "malloc" step's (step_malloc.c), never a record
 * here (no find); its row tells a process whose malloc is the C
 * library's. */
static const char *const glibc_syms[] = { "gnu_get_libc_version", NULL };
const struct alloc_kind alloc_kind_glibc = {
	.name = "glibc",
	.syms = glibc_syms,
	.how = "its arenas walked by the malloc step",
};

const struct alloc_kind *alloc_kind_find(const char *name)
{
	size_t i;

	for (i = 0; name && alloc_kinds[i]; i++)
		if (strcmp(alloc_kinds[i]->name, name) == 0)
			return alloc_kinds[i];
	return NULL;
}

/* Every row's signatures, in the table's order; the C library's only when
 * libc is true. */
#define MAX_SIGS 64

static size_t all_sigs(const char *names[MAX_SIGS + 1],
		       const struct alloc_kind *rows[MAX_SIGS], bool libc)
{
	size_t k, j, n = 0;

	for (k = 0; alloc_kinds[k]; k++)
		for (j = 0; (libc || alloc_kinds[k]->find) &&
			    alloc_kinds[k]->syms[j] && n < MAX_SIGS;
		     j++) {
			rows[n] = alloc_kinds[k];
			names[n++] = alloc_kinds[k]->syms[j];
		}
	names[n] = NULL;
	return n;
}

/* The allocator im has (any image when im is NULL; the C library's left
 * out then). */
static const struct alloc_kind *sig_of(struct vms_snapshot *s,
				       const struct vms_image *im,
				       const char **found_by,
				       const struct vms_image **at)
{
	const char *names[MAX_SIGS + 1];
	const struct alloc_kind *rows[MAX_SIGS];
	size_t w;

	all_sigs(names, rows, im != NULL);
	if (im ? !rtscan_image_defines(s, im, names, &w)
	       : !(im = rtscan_defines(s, names, &w)))
		return NULL;
	*at = im;
	*found_by = names[w];
	return rows[w];
}

/* The heap of the allocator row k names (in image im), in s's memory:
 * its file's facts first, then the target held. */
static int find_heap(struct vms_snapshot *s, const struct alloc_kind *k,
		     struct vms_allocator *al, const struct vms_image *im)
{
	struct alloc_marks m = { .s = s };
	void *facts = calloc(1, k->facts_size ? k->facts_size : 1);
	bool oom = !facts;
	int rc = -1;

	if (facts && k->facts)
		k->facts(s, im, facts);
	vms_source_hold(s, true);
	if (!oom)
		m.runs = rtscan_runs(s, &m.nruns, &oom);
	m.mark = oom ? NULL : calloc(s->nregions ? s->nregions : 1, 1);
	if (!oom && m.mark)
		rc = k->find(&m, al, im, facts);
	vms_source_hold(s, false);
	alloc_marks_fini(&m);
	free(m.mark);
	free(facts);
	return rc;
}

static const char *const malloc_names[] = { "malloc", NULL };

/* The image whose malloc the process calls: the executable's own, else
 * the one of a library with a known allocator, else (NULL) libc's. The
 * dynamic linker takes the executable, then preloads and libraries
 * breadth first; libc comes after the allocator a program links. */
static const struct vms_image *malloc_image(struct vms_snapshot *s,
					    const struct alloc_kind **kind,
					    const char **found_by,
					    const struct vms_image **at)
{
	size_t pass, i, w;

	*kind = NULL;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < s->nimages; i++) {
			const struct vms_image *im = &s->images[i];
			bool exe = s->proc.exe && im->path &&
				   strcmp(im->path, s->proc.exe) == 0;

			if (exe != (pass == 0) ||
			    !rtscan_image_defines(s, im, malloc_names, &w))
				continue;
			*kind = sig_of(s, im, found_by, at);
			if (exe || (*kind && (*kind)->find))
				return im;
		}
	*kind = NULL;
	return NULL;
}

static int step_allocator_run(struct vms_snapshot *s, unsigned have,
			      struct vms_error *err)
{
	const struct vms_image *prov, *at = NULL;
	const struct alloc_kind *kind;
	struct vms_allocator *al;
	const char *found_by = NULL;

	s->allocator = NULL;
	if (!(have & VMS_SRC_MEMORY)) {
		/* a snapshot file kept what was found with memory */
		int k = vms_source_restore(s, "allocator", err);

		if (k != 0)
			return k < 0 ? -1 : 0;
	}
	prov = malloc_image(s, &kind, &found_by, &at);
	if (!kind || !kind->find) {
		/* the C library's malloc; a jemalloc under a prefix beside
		 * it? */
		kind = sig_of(s, NULL, &found_by, &at);
		if (!kind)
			return 0;
		prov = NULL;
	}
	al = arena_alloc(&s->arena, sizeof(*al));
	if (!al)
		return step_nomem(err, "allocator");
	memset(al, 0, sizeof(*al));
	al->name = kind->name;
	al->found_by = found_by;
	al->provides_malloc = prov != NULL;
	al->metadata = -1;
	al->image = at->path;
	al->system = -1;
#define UNKNOWN(f, label) al->f = -1;
	VMS_ALLOC_FIGURE_LIST(UNKNOWN)
#undef UNKNOWN
	s->allocator = al;
	if (!(have & VMS_SRC_MEMORY)) {
		al->partial = "its heap was not looked for: no memory to read";
		return 0;
	}
	return find_heap(s, kind, al, at) < 0 ? step_nomem(err, "allocator")
					      : 0;
}

/* What a snapshot file keeps of it (model/kept.h). */
static const struct vms_kept kept = {
	.step = "allocator",
	.allocator = true,
};

/* malloc_image's list, then each row's (sig_of's lists are of these). */
static void step_allocator_asks(void (*add)(void *ctx,
					    const char *const *names),
				void *ctx)
{
	size_t k;

	add(ctx, malloc_names);
	for (k = 0; alloc_kinds[k]; k++)
		add(ctx, alloc_kinds[k]->syms);
}

const struct vms_step vms_step_allocator = {
	.name = "allocator",
	.doing = "finding the allocator's heap",
	.run = step_allocator_run,
	.kept = &kept,
	.asks = step_allocator_asks,
};
