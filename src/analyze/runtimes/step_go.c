/* step_go.c — the "go" step: a Go program's heap arenas, typed managed
 * heap of runtime "go", and what its runtime says is in them. See
 * steps.h.
 *
 * A process is a Go program when one of its images has Go's own sections
 * (.go.buildinfo, .note.go.buildid: the images step's ELF summaries, so a
 * snapshot file or a core tells it too) or a region Go 1.25+ named
 * ("[anon: Go: ...]"). Its heap lives in 64 MiB arenas, reserved first at
 * the runtime's hints (src/runtime/malloc.go, mallocinit): i<<40 |
 * 0x00c0<<32 on amd64 and most others, i<<40 | 0x0040<<32 on arm64, for i
 * from 0 to 0x7f. An arena is the run of adjacent private anonymous
 * regions starting at a hint (its used part rw-p, the rest of the
 * reservation ---p), cut at its last 64 MiB boundary. Committed bytes are
 * the rw part the runtime has mapped (sysMap): MemStats.HeapSys plus the
 * stack spans it took from the heap (StackInuse). Arenas the runtime had
 * to place elsewhere (a hint taken) are found only by Go 1.25's names
 * (classify).
 *
 * Used, with memory of one instant (-F, -b fork, a core): runtime.mheap_'s
 * spans walked (goheap.h), HeapAlloc as ReadMemStats says it, with parts
 * "heap" (HeapInuse, HeapAlloc) and "stacks" (StackInuse). The layout is
 * read from the program's DWARF before the target is held (a big Go
 * program's DWARF takes libdw some 170 ms); without DWARF, from a table
 * per Go version, and mheap_.allspans is looked for in the program's
 * memory, held. A snapshot file keeps what was found (snapfile_kept.c).
 */
#include <string.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analyze/rtscan.h"
#include "analyze/runtimes/goheap.h"
#include "analyze/steps.h"
#include "elf/elfimage.h"
#include "model/managed.h"
#include "model/source.h"

#define ARENA (64ull << 20)
#define HINTS 0x80

/* The image with Go's sections (*im, NULL when only a name told), or
 * false when the process is no Go program. */
static bool go_image(const struct vms_snapshot *s, const struct vms_image **im)
{
	size_t i, k;

	*im = NULL;
	for (i = 0; i < s->nimages; i++) {
		const struct elfimage *e = s->images[i].elf;

		for (k = 0; e && k < e->nsec; k++)
			if (e->sec[k].name &&
			    (strcmp(e->sec[k].name, ".go.buildinfo") == 0 ||
			     strcmp(e->sec[k].name, ".note.go.buildid") == 0)) {
				*im = &s->images[i];
				return true;
			}
	}
	for (i = 0; i < s->nregions; i++)
		if (step_path_starts(&s->regions[i], "[anon: Go: ") ||
		    step_path_starts(&s->regions[i], "[anon:Go: "))
			return true;
	return false;
}

static int note(struct vms_snapshot *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int note(struct vms_snapshot *s, const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return vms_snapshot_note(s, "go", buf);
}

/* The runtime records a span in allspans when it carves it from fresh
 * memory, before it writes it: a P keeps up to 128 such spans at hand, on
 * pages never written. Those read as zeros (state mSpanDead), not as
 * unread. */
static bool read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return rtscan_read_unswapped(ctx, addr, buf, len);
}

static int progress(void *ctx, uint64_t done, uint64_t total)
{
	return vms_source_progress(ctx, "reading Go's spans", (size_t)done,
				   (size_t)total);
}

/* The program's layout, from its file: 0, or -1 with why. */
static int layout_of(struct vms_snapshot *s, const struct vms_image *im,
		     struct goheap_layout *L, char *why, size_t len)
{
	int fd = vms_source_open_file(s, &s->regions[im->first_region], NULL),
	    rc;

	if (fd < 0) {
		snprintf(why, len, "its file cannot be opened");
		return -1;
	}
	rc = goheap_layout_fd(fd, L, why, len);
	close(fd);
	return rc;
}

static int by_start(const void *a, const void *b)
{
	const struct goheap_range *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* The go entry of range r gets what its spans add up to. */
static int fill(struct vms_snapshot *s, const struct goheap_range *r,
		const char *figures)
{
	struct vms_managed *m = managed_find(s, "go", r->start, r->end);
	struct vms_managed_part *p;

	if (!m)
		return 0;
	p = arena_alloc(&s->arena, 2 * sizeof(*p));
	if (!p)
		return -1;
	p[0] = (struct vms_managed_part){ "heap", (int64_t)r->sums.heap_inuse,
					  (int64_t)r->sums.heap_alloc, -1,
					  true };
	p[1] = (struct vms_managed_part){ "stacks",
					  (int64_t)r->sums.stack_inuse, -1, -1,
					  true };
	m->used = (int64_t)r->sums.heap_alloc;
	m->figures = figures;
	m->parts = p;
	m->nparts = 2;
	return 0;
}

static void append(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Adds to the message in why[len]. */
static void append(char *why, size_t len, const char *fmt, ...)
{
	size_t used = strlen(why);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(why + used, len - used, fmt, ap);
	va_end(ap);
}

/* Bytes of the program's writable memory searched for allspans at most
 * (go 1.19's goheap: 300 KiB). */
#define MAX_RW (64u << 20)

/* Without DWARF: the layout of the program's Go version, if known, and
 * allspans found in its writable memory (read held). 0 with *at and
 * *figures, or -1 with why; -2 on out of memory. */
static int stripped(struct vms_snapshot *s, const struct vms_image *im,
		    const struct goheap_range *ranges, size_t nranges,
		    struct goheap_layout *L, uint64_t *at, const char **figures,
		    char *why, size_t len)
{
	unsigned char bi[96];
	char version[32];
	const char *w = NULL;
	struct rtscan_rw rw;
	uint64_t lo, hi;
	size_t k;
	int got;

	vms_source_hold(s, true); /* what follows reads the memory */
	for (k = 0; k < im->elf->nsec; k++)
		if (im->elf->sec[k].name &&
		    strcmp(im->elf->sec[k].name, ".go.buildinfo") == 0)
			break;
	if (k == im->elf->nsec ||
	    !rtscan_read(s, im->bias + im->elf->sec[k].addr, bi, sizeof(bi)) ||
	    !goheap_buildinfo_version(bi, sizeof(bi), version,
				      sizeof(version))) {
		/* (a 32-bit program's, pointer size 4, is not read either) */
		append(why, len, ", and its Go version was not read");
		return -1;
	}
	if (!goheap_layout_known(version, L)) {
		append(why, len, ", and %s's layout is not known here",
		       version);
		return -1;
	}
	if (!rtscan_image_rw(s, im, MAX_RW, &lo, &hi)) {
		append(why, len, ", and its writable memory was not found");
		return -1;
	}
	/* (its pages not in RAM zeros, never written: rtscan.h) */
	got = rtscan_rw_read(s, lo, hi, &rw);
	if (got < 0)
		return -2;
	if (!got) {
		rtscan_rw_fini(&rw);
		append(why, len, ", and its writable memory could not be read");
		return -1;
	}
	*at = goheap_find_allspans(L, rw.w, rw.nw, lo, ranges, nranges,
				   read_mem, s, &w);
	rtscan_rw_fini(&rw);
	if (!*at) {
		append(why, len, "; %s", w);
		return -1;
	}
	*figures = arena_printf(&s->arena,
				"runtime.mheap_ spans (%s layout, no DWARF)",
				version);
	return *figures ? 0 : -2;
}

/* The go entries' ranges, sorted (the walk looks them up by binary
 * search); NULL on out of memory. */
static struct goheap_range *go_ranges(const struct vms_snapshot *s, size_t *n)
{
	struct goheap_range *r;
	size_t i;

	*n = 0;
	for (i = 0; i < s->nmanaged; i++)
		*n += strcmp(s->managed[i].runtime, "go") == 0;
	r = calloc(*n ? *n : 1, sizeof(*r));
	if (!r)
		return NULL;
	for (i = 0, *n = 0; i < s->nmanaged; i++)
		if (strcmp(s->managed[i].runtime, "go") == 0)
			r[(*n)++] = (struct goheap_range){
				.start = s->managed[i].start,
				.end = s->managed[i].end
			};
	qsort(r, *n, sizeof(*r), by_start);
	return r;
}

/* Fills the go entries' used and parts from the spans of runtime.mheap_:
 * 0, or -1 on out of memory. */
static int go_used(struct vms_snapshot *s, unsigned have,
		   const struct vms_image *im)
{
	struct goheap_layout L;
	struct goheap_range *ranges;
	struct goheap_walk w;
	const char *figures = "runtime.mheap_ spans (DWARF)";
	char why[300];
	uint64_t at = 0;
	size_t i, n;
	int rc = 0;

	if (!im)
		return note(s, "heap in use not read: no image with Go's "
			       "sections among the images");
	if (!(have & VMS_SRC_MEMORY))
		return note(s, "heap in use not read: %s",
			    s->src.no_memory ? s->src.no_memory
					     : "no memory to read");
	if (!(have & VMS_SRC_CONSISTENT))
		return note(s, "heap in use not read: the memory is not of one "
			       "instant (-F or -b fork hold it still)");
	ranges = go_ranges(s, &n);
	if (!ranges)
		return -1;
	/* the DWARF before the hold: it is the file, not the memory */
	if (layout_of(s, im, &L, why, sizeof(why)) == 0) {
		at = L.mheap + im->bias;
	} else {
		rc = stripped(s, im, ranges, n, &L, &at, &figures, why,
			      sizeof(why));
		if (rc < 0) {
			free(ranges);
			return rc == -2 ? -1
					: note(s, "heap in use not read: %s",
					       why);
		}
	}
	vms_source_hold(s, true);
	if (goheap_walk(&L, at, read_mem, progress, s, ranges, n, &w) < 0) {
		free(ranges);
		return note(s, "heap in use not read: %s", w.why);
	}
	for (i = 0; i < n && rc == 0; i++)
		rc = fill(s, &ranges[i], figures);
	free(ranges);
	if (rc < 0)
		return -1;
	if (w.why &&
	    note(s, "partial: %llu of %llu spans not sane, %llu unread",
		 (unsigned long long)w.bad, (unsigned long long)w.nspans,
		 (unsigned long long)w.unread) < 0)
		return -1;
	if (w.outside &&
	    note(s,
		 "%llu spans lie outside the arenas found, %llu bytes in "
		 "use in them (%llu in all)",
		 (unsigned long long)w.outside,
		 (unsigned long long)w.outside_alloc,
		 (unsigned long long)w.all.heap_alloc) < 0)
		return -1;
	return 0;
}

/* The arena run at hint h: [first, end) region indexes; false if none. */
static bool arena_at(const struct vms_snapshot *s, uint64_t h, size_t *first,
		     size_t *end)
{
	ptrdiff_t i = vms_snapshot_find_index(s, h);
	unsigned perms;
	size_t j, run;

	if (i < 0 || s->regions[i].start != h ||
	    !managed_plain_anon(&s->regions[i]))
		return false;
	run = managed_run(s, (size_t)i, managed_plain_anon, &perms);
	/* Cut at its last 64 MiB boundary (a neighbour merged in). */
	for (j = run; j > (size_t)i && (s->regions[j - 1].end - h) % ARENA; j--)
		;
	*first = (size_t)i;
	*end = j > (size_t)i ? j : run;
	return true;
}

static int step_go_run(struct vms_snapshot *s, unsigned have,
		       struct vms_error *err)
{
	static const uint64_t base[] = { 0x00c0ull << 32, 0x0040ull << 32 };
	const struct vms_image *im;
	size_t b, i, k, first, end;

	if (!go_image(s, &im))
		return 0;
	/* A source without memory may have kept what the step found. */
	if (!(have & VMS_SRC_MEMORY)) {
		int kept = vms_source_restore(s, "go", err);

		if (kept)
			return kept < 0 ? -1 : 0;
	}
	for (b = 0; b < sizeof(base) / sizeof(base[0]); b++) {
		for (i = 0; i < HINTS; i++) {
			uint64_t h = (uint64_t)i << 40 | base[b];
			uint64_t e;

			if (!arena_at(s, h, &first, &end))
				continue;
			e = s->regions[end - 1].end;
			for (k = first; k < end; k++) {
				s->regions[k].type = VMS_T_MANAGED_HEAP;
				s->regions[k].detail = "Go heap arena";
			}
			if (!managed_find(s, "go", h, e) &&
			    !managed_add(s, "go", h, e))
				return step_nomem(err, "go");
		}
	}
	if (go_used(s, have, im) < 0)
		return step_nomem(err, "go");
	return 0;
}

/* What a snapshot file keeps of it (model/kept.h). */
static const struct vms_kept kept = {
	.step = "go",
	.runtime = "go",
};

const struct vms_step vms_step_go = {
	.name = "go",
	.doing = "reading Go's heap",
	.run = step_go_run,
	.kept = &kept,
};
