/* step_allocator.c — the "allocator" step: which allocator the process's
 * malloc is, from the dynamic symbols of its images (the executable first,
 * as the dynamic linker looks): the image that defines malloc, and what
 * else it exports (mallctl: jemalloc; MallocExtension_*: gperftools
 * tcmalloc; mi_malloc: mimalloc; gnu_get_libc_version: glibc). A jemalloc
 * linked in under a prefix (je_mallctl, as Redis's own copy) is reported
 * too, without providing malloc. Fills s->allocator, or leaves it NULL
 * when the process has only glibc's malloc.
 *
 * Its heap, with memory (the target held): jemalloc 5's and mimalloc
 * 2's regions are found in unclaimed anonymous memory by their own headers
 * (alloc_jemalloc.c, alloc_mimalloc.c); gperftools tcmalloc's is the brk
 * heap where glibc's malloc never ran, and what its spans cover, found
 * through its page map (alloc_tcmalloc.c), beside its own count of bytes
 * taken from the system (the exported TCMalloc_SystemTaken). What is not
 * found is said in s->allocator->partial. See steps.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/heaps/alloc_heap.h"
#include "analyze/rtheap.h"
#include "analyze/rtscan.h"
#include "analyze/steps.h"
#include "elf/elfimage.h"
#include "model/source.h"

static const struct {
	const char *sym, *name;
} sigs[] = {
	{ "mallctl", "jemalloc" },
	{ "je_mallctl", "jemalloc" },
	{ "_rjem_mallctl", "jemalloc" },
	{ "MallocExtension_GetNumericProperty", "tcmalloc" },
	{ "tc_malloc", "tcmalloc" },
	{ "mi_malloc", "mimalloc" },
	{ "gnu_get_libc_version", "glibc" },
};
#define NSIGS (sizeof(sigs) / sizeof(sigs[0]))

/* The defined dynamic symbol name of image im, with its file open through
 * the source; false when there is none (or no file). */
static bool image_symbol(struct vms_snapshot *s, const struct vms_image *im,
			 const char *name, struct elfimage_sym *sym, int *fd,
			 struct elfimage_src *src)
{
	struct vms_error e;

	*fd = -1;
	if (!im->elf || !im->elf->is_image)
		return false;
	*fd = vms_source_open_file(s, &s->regions[im->first_region]);
	return *fd >= 0 && elfimage_src_fd(*fd, src, &e) == 0 &&
	       elfimage_symbol(im->elf, src, name, sym);
}

/* What mi_version() returns, read from its code in the file; -1. */
static int mi_version_of(struct vms_snapshot *s, const struct vms_image *im)
{
	struct elfimage_sym sym;
	struct elfimage_src src;
	unsigned char code[8];
	uint64_t off;
	int fd, v = -1;

	if (image_symbol(s, im, "mi_version", &sym, &fd, &src) &&
	    elfimage_vaddr_offset(im->elf, &src, sym.value, sizeof(code),
				  &off) &&
	    elfimage_src_read(&src, off, code, sizeof(code)) == sizeof(code))
		v = rtheap_mi_version(code, sizeof(code), im->elf->machine);
	if (fd >= 0)
		close(fd);
	return v;
}

/* Where gperftools keeps its count of the bytes it took from the system,
 * a variable it exports (TCMalloc_SystemTaken): its runtime address, 0
 * when it has none. */
static uint64_t tc_taken_at(struct vms_snapshot *s, const struct vms_image *im)
{
	struct elfimage_sym sym;
	struct elfimage_src src;
	int fd;
	bool ok =
		image_symbol(s, im, "TCMalloc_SystemTaken", &sym, &fd, &src) &&
		sym.size == sizeof(uint64_t);

	if (fd >= 0)
		close(fd);
	return ok ? im->bias + sym.value : 0;
}

/* That count, read in the snapshot's memory; -1. */
static int64_t tc_system_taken(struct vms_snapshot *s, uint64_t at)
{
	uint64_t v;

	if (!at || !rtscan_read(s, at, &v, sizeof(v)) || v > INT64_MAX)
		return -1;
	return (int64_t)v;
}

/* tcmalloc takes memory with sbrk first: where glibc's malloc never ran,
 * the brk heap is tcmalloc's (*brk_heap then; else NULL). What it maps
 * besides is found through its page map (alloc_tcmalloc.c). */
static const char *tc_brk(struct vms_snapshot *s, struct vms_allocator *al,
			  struct vms_heap **brk_heap)
{
	struct vms_heap *h = NULL;
	size_t i;

	*brk_heap = NULL;
	for (i = 0; i < s->nheaps; i++)
		if (strcmp(s->heaps[i].kind, "glibc-main") == 0)
			h = &s->heaps[i];
	if (h && (!s->glibc || !s->glibc->empty))
		return "the brk heap is glibc's (or not known not to be)";
	if (!h)
		return NULL;
	h->kind = "tcmalloc";
	*brk_heap = h;
	for (i = 0; i < s->nregions; i++)
		if (step_path_is(&s->regions[i], "[heap]")) {
			s->regions[i].detail = "tcmalloc (brk heap)";
			al->heap += vms_region_size(&s->regions[i]);
			al->nregions++;
		}
	return NULL;
}

/* What is not shown of tcmalloc's memory: its own count of the bytes it
 * took from the system (TCMalloc_SystemTaken: it leaves out the bytes it
 * added to align what sbrk gave, some KiB) beside the regions typed its
 * heap, and what the page map's walk could not do. */
static const char *tc_partial(struct vms_snapshot *s,
			      const struct vms_allocator *al,
			      const char *brk_why, const char *map_why)
{
	char missing[160] = "";
	const char *taken = al->system < 0
				    ? "its count of bytes taken from the "
				      "system (TCMalloc_SystemTaken) could "
				      "not be read"
				    : "";

	if (al->system > 0 && (uint64_t)al->system > al->heap)
		snprintf(missing, sizeof(missing),
			 "%llu of the %llu bytes it took from the system are "
			 "not located",
			 (unsigned long long)((uint64_t)al->system - al->heap),
			 (unsigned long long)al->system);
	if (!*taken && !*missing && !brk_why && !map_why)
		return NULL;
	return arena_printf(&s->arena, "%s%s%s%s%s%s%s", taken,
			    *taken && *missing ? "; " : "", missing,
			    (*taken || *missing) && brk_why ? "; " : "",
			    brk_why ? brk_why : "",
			    (*taken || *missing || brk_why) && map_why ? "; "
								       : "",
			    map_why ? map_why : "");
}

/* What the allocator's file says, read before the target is held: the
 * files are not the target's memory. */
struct file_facts {
	int mi_version; /* mi_version()'s value, -1 */
	uint64_t tc_taken_at; /* TCMalloc_SystemTaken's address, 0 */
};

static struct file_facts file_facts(struct vms_snapshot *s,
				    const struct vms_allocator *al,
				    const struct vms_image *im)
{
	struct file_facts f = { -1, 0 };

	if (strcmp(al->name, "mimalloc") == 0)
		f.mi_version = mi_version_of(s, im);
	else if (strcmp(al->name, "tcmalloc") == 0)
		f.tc_taken_at = tc_taken_at(s, im);
	return f;
}

/* The heap of the allocator al names (in image im), in s's memory
 * (held). */
static int find_heap(struct vms_snapshot *s, struct vms_allocator *al,
		     const struct vms_image *im, const struct file_facts *f)
{
	struct alloc_marks m = { s, NULL, 0, NULL };
	const char *map_why;
	struct vms_heap *brk_heap = NULL;
	const char *brk_why = NULL;
	bool oom, tcmalloc = strcmp(al->name, "tcmalloc") == 0;
	int rc = -1;

	if (tcmalloc) {
		al->system = tc_system_taken(s, f->tc_taken_at);
		brk_why = tc_brk(s, al, &brk_heap);
	}
	m.runs = rtscan_runs(s, &m.nruns, &oom);
	m.mark = calloc(s->nregions ? s->nregions : 1, 1);
	if (oom || !m.mark)
		goto out;
	if (tcmalloc) {
		rc = alloc_tcmalloc(&m, al, im, brk_heap, &map_why);
		if (rc == 0)
			al->partial = tc_partial(s, al, brk_why, map_why);
	} else if (strcmp(al->name, "jemalloc") == 0) {
		rc = alloc_jemalloc(&m, al);
	} else {
		rc = alloc_mimalloc(&m, al, f->mi_version);
	}
out:
	free(m.mark);
	return rc;
}

/* The allocator im has (any image when im is NULL; glibc left out). */
static const char *sig_of(struct vms_snapshot *s, const struct vms_image *im,
			  const char **found_by, const struct vms_image **at)
{
	const char *names[NSIGS + 1];
	size_t k, n = 0, w;

	for (k = 0; k < NSIGS; k++)
		if (im || strcmp(sigs[k].name, "glibc") != 0)
			names[n++] = sigs[k].sym;
	names[n] = NULL;
	if (im ? !rtscan_image_defines(s, im, names, &w)
	       : !(im = rtscan_defines(s, names, &w)))
		return NULL;
	*at = im;
	*found_by = names[w];
	for (k = 0; strcmp(sigs[k].sym, names[w]) != 0; k++)
		;
	return sigs[k].name;
}

/* The image whose malloc the process calls: the executable's own, else
 * the one of a library with a known allocator, else (NULL) libc's. The
 * dynamic linker takes the executable, then preloads and libraries
 * breadth first; libc comes after the allocator a program links. */
static const struct vms_image *malloc_image(struct vms_snapshot *s,
					    const char **name,
					    const char **found_by,
					    const struct vms_image **at)
{
	static const char *const mal[] = { "malloc", NULL };
	size_t pass, i, w;

	*name = NULL;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < s->nimages; i++) {
			const struct vms_image *im = &s->images[i];
			bool exe = s->proc.exe && im->path &&
				   strcmp(im->path, s->proc.exe) == 0;

			if (exe != (pass == 0) ||
			    !rtscan_image_defines(s, im, mal, &w))
				continue;
			*name = sig_of(s, im, found_by, at);
			if (exe || (*name && strcmp(*name, "glibc") != 0))
				return im;
		}
	*name = NULL;
	return NULL;
}

static int step_allocator_run(struct vms_snapshot *s, unsigned have,
			      struct vms_error *err)
{
	const struct vms_image *prov, *at = NULL;
	struct vms_allocator *al;
	const char *name, *found_by = NULL;
	struct file_facts facts;
	int rc;

	s->allocator = NULL;
	if (!(have & VMS_SRC_MEMORY)) {
		/* a snapshot file kept what was found with memory */
		int k = vms_source_restore(s, "allocator", err);

		if (k != 0)
			return k < 0 ? -1 : 0;
	}
	prov = malloc_image(s, &name, &found_by, &at);
	if (!name || strcmp(name, "glibc") == 0) {
		/* glibc's malloc; a jemalloc under a prefix beside it? */
		name = sig_of(s, NULL, &found_by, &at);
		if (!name)
			return 0;
		prov = NULL;
	}
	al = arena_alloc(&s->arena, sizeof(*al));
	if (!al)
		return step_nomem(err, "allocator");
	memset(al, 0, sizeof(*al));
	al->name = name;
	al->found_by = found_by;
	al->provides_malloc = prov != NULL;
	al->metadata = -1;
	al->image = at->path;
	al->system = -1;
	s->allocator = al;
	if (!(have & VMS_SRC_MEMORY)) {
		al->partial = "its heap was not looked for: no memory to read";
		return 0;
	}
	facts = file_facts(s, al, at);
	vms_source_hold(s, true);
	rc = find_heap(s, al, at, &facts);
	vms_source_hold(s, false);
	return rc < 0 ? step_nomem(err, "allocator") : 0;
}

/* What a snapshot file keeps of it (model/kept.h). */
static const struct vms_kept kept = {
	.step = "allocator",
	.allocator = true,
};

const struct vms_step vms_step_allocator = {
	.name = "allocator",
	.doing = "finding the allocator's heap",
	.run = step_allocator_run,
	.kept = &kept,
};
