/* step_images.c — the "images" step: which file mappings are ELF
 * executables or shared libraries (the ELF reader says so, never the name),
 * the anonymous .bss tail the loader maps after one, each image region's
 * children (its ELF sections), and the list of mapped images with their
 * load bias (s->images). See steps.h.
 *
 * Bounded by what the target holds, not by what its files claim:
 *  - each distinct file is read once (a hash on path, device and inode)
 *    and its reader summary, sections included, is shared by all its
 *    mappings; the reader caps what it keeps per file (elfimage.h); with
 *    a run's cache (s->src.elfcache: vmscope --all), once for all the
 *    captures of the run, the file known by its stat alone;
 *  - a region gets at most IMAGE_CHILDREN_MAX sections as children, and
 *    the snapshot at most IMAGE_CHILDREN_BUDGET in all; what is left out
 *    is said in a note of the step (vms_snapshot_note).
 * Files are opened only through the source (the very file mapped); when
 * one cannot be opened, the ELF headers the loader left in the first
 * mapping are read from memory if the source has it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/steps.h"
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "elf/elfcache.h"
#include "elf/elfimage.h"
#include "model/source.h"

/* Sections a region shows as children (real images have tens at most). */
#define IMAGE_CHILDREN_MAX 64
/* Section children in a snapshot of n regions. */
#define IMAGE_CHILDREN_BUDGET(n) (16384 + 8 * (n))

/* ---- the image cache: one read per distinct file ---- */

struct image_ent {
	const char *path; /* interned: pointer equality is string equality */
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	bool opened, from_memory;
	/* in the snapshot's arena (or the run's cache): shared, kept */
	const struct elfimage *im;
	size_t first_region;
};

struct image_cache {
	struct image_ent *v;
	size_t n, cap;
	size_t *slot; /* open addressing: index + 1, 0 empty */
	size_t nslot; /* a power of two, > 2 n */
};

static size_t ent_hash(const char *path, uint64_t inode, uint32_t maj,
		       uint32_t min)
{
	uint64_t h = (uint64_t)(uintptr_t)path * 0x9e3779b97f4a7c15ull;

	h ^= (inode + ((uint64_t)maj << 32 | min)) * 0xc2b2ae3d27d4eb4full;
	return (size_t)(h ^ (h >> 29));
}

static bool ent_is(const struct image_ent *e, const struct vms_region *r)
{
	return e->path == r->path && e->inode == r->inode &&
	       e->dev_major == r->dev_major && e->dev_minor == r->dev_minor;
}

static int cache_grow(struct image_cache *c)
{
	size_t ncap = c->cap ? c->cap * 2 : 64, nslot = ncap * 4, i;
	struct image_ent *nv = realloc(c->v, ncap * sizeof(*nv));
	size_t *ns;

	if (!nv)
		return -1;
	c->v = nv;
	c->cap = ncap;
	ns = calloc(nslot, sizeof(*ns));
	if (!ns)
		return -1;
	for (i = 0; i < c->n; i++) {
		const struct image_ent *e = &c->v[i];
		size_t h = ent_hash(e->path, e->inode, e->dev_major,
				    e->dev_minor) &
			   (nslot - 1);

		while (ns[h])
			h = (h + 1) & (nslot - 1);
		ns[h] = i + 1;
	}
	free(c->slot);
	c->slot = ns;
	c->nslot = nslot;
	return 0;
}

/* The file cannot be opened (deleted without the right to map_files,
 * another mount namespace): the loader's first mapping still holds the ELF
 * and program headers. Confirms an image from there; its sections are in
 * the file only, so it gets none. */
static void image_from_memory(struct vms_snapshot *s, struct image_ent *e,
			      struct elfimage *im, const struct vms_region *r)
{
	enum { HDR_MAX = 16384 };
	unsigned char *buf = malloc(HDR_MAX);
	size_t want =
		vms_region_size(r) < HDR_MAX ? vms_region_size(r) : HDR_MAX;
	struct vms_error ignore;
	ssize_t got;

	if (!buf)
		return;
	got = vms_source_read(s, r->start, buf, want, &ignore);
	if (got > 0 &&
	    elfimage_parse(buf, (size_t)got, &s->arena, im, &ignore) == 0 &&
	    im->is_image) {
		e->from_memory = true;
		/* Sections come from the section header table, which is not
		 * loaded: whatever was found past the buffer is not to be
		 * trusted. */
		im->nsec = 0;
	}
	free(buf);
}

/* The file behind r from the run's cache, read into it on its first
 * mapping in the run; NULL when it cannot be (the caller reads it). A
 * mapping of a file seen mapped before in the run (the same device,
 * inode and path in maps) is answered without a stat; a deleted file's
 * is not kept (its inode may be freed, and reused, before the next). */
static const struct elfimage *cached(struct vms_snapshot *s,
				     const struct vms_region *r)
{
	struct elfcache *c = s->src.elfcache;
	const struct elfimage *im;
	bool keep = !(r->flags & VMS_RF_DELETED);
	struct stat st;
	int fd;

	if (keep && (im = elfcache_find_mapped(c, r->dev_major, r->dev_minor,
					       r->inode, r->path)) != NULL)
		return im;
	if (vms_source_stat_file(s, r, &st) < 0)
		return NULL;
	im = elfcache_find(c, &st);
	if (!im) {
		/* keyed by the file read, whatever it became since the
		 * stat: st is now the stat of the descriptor opened */
		fd = vms_source_open_file(s, r, &st);
		if (fd < 0)
			return NULL;
		im = elfcache_add(c, &st, fd); /* fd is the cache's */
	}
	/* kept for the mapping where the file is the one mapped: its
	 * device and inode are r's */
	if (keep && st.st_ino == r->inode && major(st.st_dev) == r->dev_major &&
	    minor(st.st_dev) == r->dev_minor)
		elfcache_keep_mapped(c, r->dev_major, r->dev_minor, r->inode,
				     r->path, im);
	return im;
}

static struct image_ent *image_lookup(struct vms_snapshot *s,
				      struct image_cache *c, unsigned have,
				      const struct vms_region *r)
{
	struct image_ent *e;
	struct elfimage *im;
	struct stat st;
	size_t h;
	int fd, kept;

	if (c->nslot) {
		h = ent_hash(r->path, r->inode, r->dev_major, r->dev_minor) &
		    (c->nslot - 1);
		for (; c->slot[h]; h = (h + 1) & (c->nslot - 1))
			if (ent_is(&c->v[c->slot[h] - 1], r))
				return &c->v[c->slot[h] - 1];
	}
	if (c->n == c->cap && cache_grow(c) < 0)
		return NULL;
	e = &c->v[c->n++];
	memset(e, 0, sizeof(*e));
	e->path = r->path;
	e->inode = r->inode;
	e->dev_major = r->dev_major;
	e->dev_minor = r->dev_minor;
	h = ent_hash(r->path, r->inode, r->dev_major, r->dev_minor) &
	    (c->nslot - 1);
	while (c->slot[h])
		h = (h + 1) & (c->nslot - 1);
	c->slot[h] = c->n;
	e->first_region = (size_t)(r - s->regions);
	if (s->src.elfcache && (e->im = cached(s, r)) != NULL) {
		e->opened = true;
		return e;
	}
	im = arena_alloc(&s->arena, sizeof(*im));
	if (!im)
		return NULL;
	e->im = im;
	/* A source without files may have kept what was read in them. */
	kept = vms_source_elf(s, r, im);
	if (kept == -1)
		return NULL;
	if (kept >= 0) {
		e->opened = kept == VMS_FILE_OPENED;
		e->from_memory = kept == VMS_FILE_FROM_MEMORY;
		return e;
	}
	fd = vms_source_open_file(s, r, &st);
	if (fd >= 0) {
		struct vms_error ignore;

		/* A file the reader cannot read is simply not an image. */
		if (elfimage_load(fd, &st, &s->arena, im, &ignore) == 0)
			e->opened = true;
		close(fd);
	} else if (r->offset == 0 && (have & VMS_SRC_MEMORY)) {
		image_from_memory(s, e, im, r);
	}
	return e;
}

/* ---- the step ---- */

struct images_run {
	struct vms_snapshot *s;
	size_t budget; /* section children left */
	size_t capped_regions, capped_files, capped_notes;
	struct vms_image *img; /* grown here, copied to the arena at the end */
	size_t nimg, capimg;
};

/* Children of r: the sections of im that overlap it (clipped), at most
 * IMAGE_CHILDREN_MAX and what the budget has left. */
static int add_section_children(struct images_run *run, struct vms_region *r,
				const struct elfimage *im, uint64_t bias)
{
	size_t i, k = 0, want;

	for (i = 0; i < im->nsec; i++) {
		uint64_t a = im->sec[i].addr + bias;
		uint64_t b = a + im->sec[i].size;

		if (b > a && a < r->end && b > r->start)
			k++;
	}
	want = k;
	if (k > IMAGE_CHILDREN_MAX)
		k = IMAGE_CHILDREN_MAX;
	if (k > run->budget)
		k = run->budget;
	if (k < want)
		run->capped_regions++;
	if (!k)
		return 0;
	r->children = arena_alloc(&run->s->arena, k * sizeof(*r->children));
	if (!r->children)
		return -1;
	run->budget -= k;
	for (i = 0; i < im->nsec && r->nchildren < k; i++) {
		uint64_t a = im->sec[i].addr + bias;
		uint64_t b = a + im->sec[i].size;

		if (b <= a || a >= r->end || b <= r->start)
			continue; /* outside, or a size that wraps */
		r->children[r->nchildren].name = im->sec[i].name;
		r->children[r->nchildren].start = a < r->start ? r->start : a;
		r->children[r->nchildren].end = b > r->end ? r->end : b;
		r->nchildren++;
	}
	return 0;
}

/* Does a mapping at r->start of file offset r->offset belong to the load
 * of this image with this bias? Its offset and address must be those of
 * one PT_LOAD, displaced by the bias (a second load of the same file, or
 * another mapping of it, is not). */
static bool bias_fits(const struct elfimage *im, const struct vms_region *r,
		      uint64_t bias)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t vaddr = r->start - bias;
	size_t i;

	for (i = 0; i < im->nload; i++) {
		const struct elfimage_load *l = &im->load[i];

		if (vaddr >= (l->vaddr & ~(page - 1)) &&
		    vaddr < l->vaddr + l->memsz &&
		    r->offset - vaddr == l->offset - l->vaddr)
			return true;
	}
	return false;
}

/* The anonymous tail an image's loader maps for .bss beyond the file. */
static bool is_bss_tail(const struct vms_region *prev,
			const struct vms_region *r, const struct elfimage *im,
			uint64_t bias)
{
	uint64_t end = elfimage_end(im) + bias;

	/* The whole region within the image's extent (page-rounded): the
	 * kernel may merge an unrelated anonymous mapping onto the tail. */
	end = (end + 4095) & ~(uint64_t)4095;
	return prev && prev->end == r->start && !r->path &&
	       !(r->perms & VMS_PERM_SHARED) && (r->perms & VMS_PERM_W) &&
	       r->end <= end;
}

/* Region i belongs to the current load (cur) or starts a new one. */
static int note_load(struct images_run *run, const struct image_ent *e,
		     size_t i, uint64_t bias, bool same_load)
{
	const struct vms_region *r = &run->s->regions[i];
	struct vms_image *m;

	if (same_load && run->nimg) {
		m = &run->img[run->nimg - 1];
		m->end = r->end;
		m->nregions = i + 1 - m->first_region;
		return 0;
	}
	if (run->nimg == run->capimg) {
		size_t ncap = run->capimg ? run->capimg * 2 : 32;
		struct vms_image *nv = realloc(run->img, ncap * sizeof(*nv));

		if (!nv)
			return -1;
		run->img = nv;
		run->capimg = ncap;
	}
	m = &run->img[run->nimg++];
	*m = (struct vms_image){ r->path,	  r->start, r->end, bias,
				 e->im->build_id, e->im,    i,	    1 };
	return 0;
}

static int finish(struct images_run *run, struct image_cache *c)
{
	struct vms_snapshot *s = run->s;
	char why[300];
	size_t i;

	for (i = 0; i < c->n; i++) {
		run->capped_files += c->v[i].im->sec_capped;
		run->capped_notes += c->v[i].im->notes_capped;
	}
	/* The files looked into, for whoever keeps the snapshot. */
	if (c->n) {
		s->files = arena_alloc(&s->arena, c->n * sizeof(*s->files));
		if (!s->files)
			return -1;
		for (i = 0; i < c->n; i++) {
			const struct image_ent *e = &c->v[i];

			s->files[i].first_region = e->first_region;
			s->files[i].read = e->opened ? VMS_FILE_OPENED
					   : e->from_memory
						   ? VMS_FILE_FROM_MEMORY
						   : VMS_FILE_UNREAD;
			s->files[i].elf =
				e->opened || e->from_memory ? e->im : NULL;
		}
		s->nfiles = c->n;
	}
	if (run->nimg) {
		s->images =
			arena_alloc(&s->arena, run->nimg * sizeof(*s->images));
		if (!s->images)
			return -1;
		memcpy(s->images, run->img, run->nimg * sizeof(*s->images));
		s->nimages = run->nimg;
	}
	if (run->capped_regions) {
		snprintf(why, sizeof(why),
			 "sections of %zu image regions not all shown (at "
			 "most %d a region, %zu in all)",
			 run->capped_regions, IMAGE_CHILDREN_MAX,
			 (size_t)IMAGE_CHILDREN_BUDGET(s->nregions));
		if (vms_snapshot_note(s, "images", why) < 0)
			return -1;
	}
	if (run->capped_files) {
		snprintf(why, sizeof(why),
			 "%zu files have more allocated sections than are "
			 "kept (%d a file, of the first %d headers)",
			 run->capped_files, ELFIMAGE_MAX_SECTIONS,
			 ELFIMAGE_MAX_SHDRS);
		if (vms_snapshot_note(s, "images", why) < 0)
			return -1;
	}
	if (run->capped_notes) {
		snprintf(why, sizeof(why),
			 "notes of %zu files read only up to %d bytes",
			 run->capped_notes, ELFIMAGE_MAX_NOTE_BYTES);
		if (vms_snapshot_note(s, "images", why) < 0)
			return -1;
	}
	return 0;
}

static int images_scan(struct images_run *run, struct image_cache *cache,
		       unsigned have)
{
	struct vms_snapshot *s = run->s;
	struct image_ent *last = NULL, *group = NULL;
	uint64_t last_bias = 0, group_bias = 0;
	size_t i;

	for (i = 0; i < s->nregions; i++) {
		struct vms_region *r = &s->regions[i];
		struct image_ent *e;
		uint64_t bias;
		bool same;

		if (last && is_bss_tail(i ? &s->regions[i - 1] : NULL, r,
					last->im, last_bias)) {
			r->type = VMS_T_IMAGE;
			r->detail = s->regions[i - 1].path;
			/* the loader maps it charged to the commit limit (no
			 * MAP_NORESERVE): where VmFlags are not known (a
			 * core), this says so */
			if ((!r->vmflags || !*r->vmflags) &&
			    (r->perms & VMS_PERM_W))
				r->vmflags_mask |= VMS_VF_AC;
			if (add_section_children(run, r, last->im, last_bias) <
				    0 ||
			    note_load(run, last, i, last_bias, true) < 0)
				return -1;
			continue;
		}
		last = NULL;
		/* the classify step told files apart from shared memory
		 * and from anonymous memory named by a file (a private
		 * /dev/zero, MAP_HUGETLB) */
		if (!r->path || r->path[0] != '/' || r->inode == 0 ||
		    r->type != VMS_T_MAPPED_FILE)
			continue;
		e = image_lookup(s, cache, have, r);
		if (!e)
			return -1;
		if (!e->im->is_image || (!e->opened && !e->from_memory)) {
			/* Not ELF, or cannot look inside: an executable
			 * mapping of a file is most likely an image, but we do
			 * not guess; mark it so the user sees why it is a
			 * mapped file. */
			r->type = VMS_T_MAPPED_FILE;
			r->detail = r->path;
			if (!e->opened && !e->from_memory)
				r->flags |= VMS_RF_IMAGE_UNOPENED;
			continue;
		}
		/* One bias per load of an image: the current load's, when
		 * this mapping fits it (its offset may sit in a page two
		 * segments share), else this mapping's own. */
		same = e == group && bias_fits(e->im, r, group_bias);
		if (same)
			bias = group_bias;
		else if (!elfimage_bias(e->im, r->start, r->offset, &bias)) {
			r->type = VMS_T_MAPPED_FILE;
			r->detail = r->path;
			if (!e->opened)
				r->flags |= VMS_RF_IMAGE_UNOPENED;
			continue;
		}
		r->type = VMS_T_IMAGE;
		r->detail = r->path;
		r->build_id = e->im->build_id;
		if (!e->opened)
			r->flags |= VMS_RF_IMAGE_UNOPENED; /* from memory */
		else if (add_section_children(run, r, e->im, bias) < 0)
			return -1;
		if (note_load(run, e, i, bias, same) < 0)
			return -1;
		last = group = e;
		last_bias = group_bias = bias;
	}
	return 0;
}

static int step_images_run(struct vms_snapshot *s, unsigned have,
			   struct vms_error *err)
{
	struct image_cache cache = { 0 };
	struct images_run run = { 0 };
	int rc;

	run.s = s;
	run.budget = IMAGE_CHILDREN_BUDGET(s->nregions);
	s->images = NULL;
	s->nimages = 0;
	s->files = NULL;
	s->nfiles = 0;
	rc = images_scan(&run, &cache, have);
	if (rc == 0)
		rc = finish(&run, &cache);
	free(run.img);
	free(cache.v);
	free(cache.slot);
	return rc < 0 ? step_nomem(err, "images") : 0;
}

const struct vms_step vms_step_images = {
	.name = "images",
	.doing = "reading ELF images",
	.wants = VMS_SRC_ELF,
	.run = step_images_run,
};
