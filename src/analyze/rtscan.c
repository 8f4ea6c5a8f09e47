/* rtscan.c — what the heap recognisers share (rtscan.h). */
#include "analyze/rtscan.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf/elfcache.h"
#include "elf/elfimage.h"
#include "model/source.h"

struct any_of {
	const char *const *names;
	size_t which;
};

static int any_match(void *ctx, const struct elfimage_sym *y)
{
	struct any_of *f = ctx;
	size_t k;

	if (y->shndx == SHN_UNDEF)
		return 0;
	for (k = 0; f->names[k]; k++)
		if (strcmp(y->name, f->names[k]) == 0) {
			f->which = k;
			return 1;
		}
	return 0;
}

int rtscan_image_fd(struct vms_snapshot *s, const struct vms_image *im,
		    bool *own)
{
	int fd = im->elf ? elfcache_fd(s->src.elfcache, im->elf) : -1;

	*own = fd < 0;
	return fd >= 0 ? fd
		       : vms_source_open_file(s, &s->regions[im->first_region],
					      NULL);
}

bool rtscan_image_defines(struct vms_snapshot *s, const struct vms_image *im,
			  const char *const *names, size_t *which)
{
	struct any_of f = { names, 0 };
	struct elfimage_src src;
	struct vms_error e;
	bool found = false, own;
	int fd, rc = -1, known;

	if (!im->elf || !im->elf->is_image || !im->elf->dynsym.size)
		return false;
	/* The same file asked the same by an earlier capture of the run. */
	known = elfcache_defines(s->src.elfcache, im->elf, names, which);
	if (known >= 0)
		return known == 1;
	fd = rtscan_image_fd(s, im, &own);
	if (fd < 0)
		return false;
	/* One pass over the table for all the names; with a run's cache,
	 * one for all the lists the run asks of this file. */
	if (elfimage_src_fd(fd, &src, &e) == 0) {
		rc = elfcache_defines_in(s->src.elfcache, im->elf, &src, names,
					 &f.which);
		if (rc < 0)
			rc = elfimage_symbols(im->elf, &src, any_match, &f);
	}
	if (rc == 1) {
		*which = f.which;
		found = true;
	}
	if (own)
		close(fd);
	if (rc >= 0) /* an answer of the file's, not of memory running out */
		elfcache_defines_keep(s->src.elfcache, im->elf, names, found,
				      f.which);
	return found;
}

const struct vms_image *rtscan_defines(struct vms_snapshot *s,
				       const char *const *names, size_t *which)
{
	size_t pass, i;

	/* The dynamic linker looks in the executable first. */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < s->nimages; i++) {
			const struct vms_image *im = &s->images[i];
			bool exe = s->proc.exe && im->path &&
				   strcmp(im->path, s->proc.exe) == 0;

			if (exe == (pass == 0) &&
			    rtscan_image_defines(s, im, names, which))
				return im;
		}
	return NULL;
}

int rtscan_gate(struct vms_snapshot *s, unsigned have, const char *step,
		const char *const *names, const char *what)
{
	char why[200];
	size_t which;
	struct vms_error e;

	/* A source without memory may have kept what the step found. */
	if (!(have & VMS_SRC_MEMORY)) {
		int k = vms_source_restore(s, step, &e);

		if (k != 0)
			return k < 0 ? -1 : 0;
	}
	if (!rtscan_defines(s, names, &which))
		return 0;
	if (have & VMS_SRC_MEMORY)
		return 1;
	snprintf(why, sizeof(why), "%s not looked for: %s", what,
		 s->src.no_memory ? s->src.no_memory : "no memory to read");
	return vms_snapshot_note(s, step, why) < 0 ? -1 : 0;
}

static bool unclaimed(const struct vms_region *r)
{
	return r->type == VMS_T_PRIVATE_DATA && !r->path &&
	       !(r->perms & VMS_PERM_SHARED) && (r->perms & VMS_PERM_R) &&
	       !(r->flags & VMS_RF_UNREADABLE);
}

struct rtscan_run *rtscan_runs(struct vms_snapshot *s, size_t *n, bool *oom)
{
	struct rtscan_run *runs;
	size_t i, k = 0, cap = 0;

	*n = 0;
	*oom = false;
	for (i = 0; i < s->nregions; i++)
		if (unclaimed(&s->regions[i]))
			cap++;
	if (!cap)
		return NULL;
	runs = arena_alloc(&s->arena, cap * sizeof(*runs));
	if (!runs) {
		*oom = true;
		return NULL;
	}
	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];

		if (!unclaimed(r))
			continue;
		if (k && runs[k - 1].last + 1 == i &&
		    runs[k - 1].end == r->start) {
			runs[k - 1].last = i;
			runs[k - 1].end = r->end;
			continue;
		}
		runs[k++] = (struct rtscan_run){ i, i, r->start, r->end };
	}
	*n = k;
	return runs;
}

const struct rtscan_run *rtscan_run_of(const struct rtscan_run *runs, size_t n,
				       uint64_t addr, uint64_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (runs[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || runs[lo].start > addr || len > runs[lo].end - addr)
		return NULL;
	return &runs[lo];
}

bool rtscan_read(struct vms_snapshot *s, uint64_t addr, void *buf, size_t len)
{
	struct vms_error e;

	return vms_source_read(s, addr, buf, len, &e) == (ssize_t)len;
}

/* Reads [addr, addr + len) with the pages the source has not as zeros;
 * false when the first page is not there and first is required. With
 * absent_only, a page is taken as zeros only where the source says it is
 * not present (never written, or swapped: the caller rules that out),
 * not where the read failed otherwise (a clone gone, a dead target). */
static bool read_filling(struct vms_snapshot *s, uint64_t addr, void *buf,
			 size_t len, bool first, bool absent_only)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	unsigned char *b = buf;
	size_t done = 0;

	while (done < len) {
		struct vms_error e;
		ssize_t got = vms_source_read(s, addr + done, b + done,
					      len - done, &e);
		uint64_t at;
		unsigned char present = 1;
		size_t skip;

		done += got > 0 ? (size_t)got : 0;
		if (done == len)
			break;
		at = addr + done;
		if (first && addr / page == at / page)
			return false; /* the first page is not there */
		if (absent_only && (vms_source_present(s, at - at % page, 1,
						       &present, &e) < 0 ||
				    present))
			return false;
		/* the page that stopped the read: zeros to its end */
		skip = (size_t)(page - at % page);
		if (skip > len - done)
			skip = len - done;
		memset(b + done, 0, skip);
		done += skip;
	}
	return true;
}

bool rtscan_read_zeros(struct vms_snapshot *s, uint64_t addr, void *buf,
		       size_t len)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t n = (size_t)(len / page), i;
	unsigned char *ok;
	struct vms_error e;
	ssize_t got;

	/* Whole pages (an image's writable memory): the source's read of
	 * pages, one read of the page tables and one a run of pages in
	 * RAM, instead of a read a page that is not. */
	if (addr % page || len % page || !n || s->cap.page_size != page ||
	    !(ok = malloc(n)))
		return read_filling(s, addr, buf, len, true, false);
	got = vms_source_read_pages(s, addr, buf, n, ok, &e);
	if (got < 0) {
		free(ok);
		return read_filling(s, addr, buf, len, true, false);
	}
	for (i = 0; i < n && ok[0]; i++)
		if (!ok[i])
			memset((unsigned char *)buf + i * page, 0, page);
	i = ok[0];
	free(ok);
	return i;
}

/* Words of zeros that cost nothing until touched: a mapping of its own,
 * not malloc's (glibc serves a block of up to 32 MiB from its heap once
 * it has freed a mapped one that large, and its calloc then clears it:
 * 1.2 MB of libjemalloc's 2.2 MB measured), in small pages (only those
 * read are touched). NULL when none could be had. */
static uint64_t *zero_words(size_t n)
{
	void *p = mmap(NULL, n * 8, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, n * 8, MADV_NOHUGEPAGE);
	return p;
}

int rtscan_rw_read(struct vms_snapshot *s, uint64_t lo, uint64_t hi,
		   struct rtscan_rw *rw)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct vms_error e;
	bool pages = hi > lo && !(lo % page) && !((hi - lo) % page) &&
		     s->cap.page_size == page;
	size_t i;

	memset(rw, 0, sizeof(*rw));
	rw->lo = lo;
	rw->hi = hi > lo ? hi : lo;
	rw->nw = (size_t)((rw->hi - lo) / 8);
	/* pages of the source's: one read of the page tables, and one read
	 * a run of pages in RAM; else one stretch, read as
	 * rtscan_read_zeros() reads it */
	rw->step = pages ? (size_t)(page / 8) : rw->nw + 1;
	rw->nok = pages ? (size_t)((hi - lo) / page) : 1;
	rw->w = zero_words(rw->nw + 1); /* the + 1: an odd tail's bytes */
	rw->ok = calloc(rw->nok, 1);
	if (!rw->w || !rw->ok) {
		rtscan_rw_fini(rw);
		return -1;
	}
	if (pages &&
	    vms_source_read_pages(s, lo, rw->w, rw->nok, rw->ok, &e) >= 0) {
		if (rw->ok[0])
			return 1;
		for (i = 0; i < rw->nok; i++) /* what came is not kept */
			if (rw->ok[i])
				memset(rw->w + i * rw->step, 0, page);
		memset(rw->ok, 0, rw->nok);
		return 0;
	}
	rw->step = rw->nw + 1;
	rw->nok = 1;
	if (rw->hi > lo &&
	    read_filling(s, lo, rw->w, rw->hi - lo, true, false)) {
		rw->ok[0] = 1;
		return 1;
	}
	memset(rw->w, 0, rw->nw * 8 + 8);
	rw->ok[0] = 0;
	return 0;
}

bool rtscan_rw_next(const struct rtscan_rw *rw, size_t *k, size_t *end)
{
	size_t i, j;

	if (!rw->nok) /* none read (or a struct never read into) */
		return false;
	i = *k / rw->step;
	while (i < rw->nok && !rw->ok[i])
		i++;
	if (*k < i * rw->step)
		*k = i * rw->step;
	if (i >= rw->nok || *k >= rw->nw)
		return false;
	for (j = i; j < rw->nok && rw->ok[j]; j++)
		;
	*end = j * rw->step < rw->nw ? j * rw->step : rw->nw;
	return true;
}

void rtscan_rw_fini(struct rtscan_rw *rw)
{
	if (rw->w)
		munmap(rw->w, (rw->nw + 1) * 8);
	free(rw->ok);
	rw->w = NULL;
	rw->ok = NULL;
	rw->nw = rw->nok = 0;
}

bool rtscan_read_unswapped(struct vms_snapshot *s, uint64_t addr, void *buf,
			   size_t len)
{
	ptrdiff_t i;
	const struct vms_region *r;

	if (rtscan_read(s, addr, buf, len))
		return true;
	i = vms_snapshot_find_index(s, addr);
	if (i < 0 || s->cap.no_counters)
		return false;
	r = &s->regions[i];
	/* anonymous: no path, or the kernel's own ([heap], [stack]) */
	if ((r->path && r->path[0] != '[') || (r->perms & VMS_PERM_SHARED) ||
	    !(r->perms & VMS_PERM_R) || (r->flags & VMS_RF_UNREADABLE) ||
	    r->c.swap || addr + len < addr || addr + len > r->end)
		return false;
	return read_filling(s, addr, buf, len, false, true);
}

bool rtscan_image_rw(const struct vms_snapshot *s, const struct vms_image *im,
		     uint64_t max, uint64_t *lo, uint64_t *hi)
{
	size_t k;

	*lo = *hi = 0;
	for (k = im->first_region; k < s->nregions; k++) {
		const struct vms_region *r = &s->regions[k];
		bool mine =
			r->path && im->path && strcmp(r->path, im->path) == 0;

		if (!mine && !(r->start == *hi && *hi && !r->path &&
			       (r->perms & VMS_PERM_W)))
			break;
		if ((r->perms & (VMS_PERM_R | VMS_PERM_W)) !=
		    (VMS_PERM_R | VMS_PERM_W))
			continue;
		if (!*lo)
			*lo = r->start;
		else if (r->start != *hi)
			break;
		*hi = r->end;
	}
	return *lo && *hi - *lo <= max;
}
