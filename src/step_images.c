/* step_images.c — the "images" step: which file mappings are ELF
 * executables or shared libraries (libelf says so, never the name), the
 * anonymous .bss tail the loader maps after one, and each image region's
 * children, its ELF sections. One libelf parse per distinct file. Files are
 * opened only through the source (the very file mapped); when one cannot
 * be opened, the ELF headers the loader left in the first mapping are read
 * from memory if the source has it. See steps.h.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfimage.h"
#include "source.h"
#include "steps.h"

/* ---- the image cache: one libelf parse per distinct file ---- */

struct image_ent {
	const char *path; /* interned: pointer equality is string equality */
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	bool tried, opened, from_memory;
	struct elfimage im;
};

struct image_cache {
	struct image_ent *v;
	size_t n, cap;
};

/* The file cannot be opened (deleted without the right to map_files,
 * another mount namespace): the loader's first mapping still holds the ELF
 * and program headers. Confirms an image from there; its sections are in
 * the file only, so it gets none. */
static void image_from_memory(struct vms_snapshot *s, struct image_ent *e,
			      const struct vms_region *r)
{
	enum { HDR_MAX = 16384 };
	unsigned char *buf = malloc(HDR_MAX);
	size_t want = vms_region_size(r) < HDR_MAX ? vms_region_size(r)
						   : HDR_MAX;
	struct vms_error ignore;
	ssize_t got;

	if (!buf)
		return;
	got = vms_source_read(s, r->start, buf, want, &ignore);
	if (got > 0 &&
	    elfimage_parse(buf, (size_t)got, &s->arena, &e->im, &ignore) == 0 &&
	    e->im.is_image) {
		e->from_memory = true;
		/* Sections come from the section header table, which is not
		 * loaded: whatever libelf found past the buffer is not to be
		 * trusted. */
		e->im.nsec = 0;
	}
	free(buf);
}

static struct image_ent *image_lookup(struct vms_snapshot *s,
				      struct image_cache *c,
				      unsigned have, const struct vms_region *r)
{
	struct image_ent *e;
	size_t i;
	int fd;

	for (i = 0; i < c->n; i++) {
		e = &c->v[i];
		if (e->path == r->path && e->inode == r->inode &&
		    e->dev_major == r->dev_major && e->dev_minor == r->dev_minor)
			return e;
	}
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 64;
		struct image_ent *nv = realloc(c->v, ncap * sizeof(*nv));

		if (!nv)
			return NULL;
		c->v = nv;
		c->cap = ncap;
	}
	e = &c->v[c->n++];
	memset(e, 0, sizeof(*e));
	e->path = r->path;
	e->inode = r->inode;
	e->dev_major = r->dev_major;
	e->dev_minor = r->dev_minor;
	e->tried = true;
	fd = vms_source_open_file(s, r);
	if (fd >= 0) {
		struct vms_error ignore;

		/* A file libelf cannot read is simply not an image. */
		if (elfimage_load(fd, &s->arena, &e->im, &ignore) == 0)
			e->opened = true;
		close(fd);
	} else if (r->offset == 0 && (have & VMS_SRC_MEMORY)) {
		image_from_memory(s, e, r);
	}
	return e;
}

static int add_section_children(struct vms_snapshot *s, struct vms_region *r,
				const struct elfimage *im, uint64_t bias)
{
	size_t i, k = 0;

	for (i = 0; i < im->nsec; i++) {
		uint64_t a = im->sec[i].addr + bias;
		uint64_t b = a + im->sec[i].size;

		if (b > a && a < r->end && b > r->start)
			k++;
	}
	if (!k)
		return 0;
	r->children = arena_alloc(&s->arena, k * sizeof(*r->children));
	if (!r->children)
		return -1;
	for (i = 0; i < im->nsec; i++) {
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

/* The anonymous tail an image's loader maps for .bss beyond the file. */
static bool is_bss_tail(const struct vms_region *prev,
			const struct vms_region *r, const struct image_ent *e,
			uint64_t bias)
{
	uint64_t end = elfimage_end(&e->im) + bias;

	/* The whole region within the image's extent (page-rounded): the
	 * kernel may merge an unrelated anonymous mapping onto the tail. */
	end = (end + 4095) & ~(uint64_t)4095;
	return prev && prev->end == r->start && !r->path &&
	       !(r->perms & VMS_PERM_SHARED) && (r->perms & VMS_PERM_W) &&
	       r->end <= end;
}

int step_images_run(struct vms_snapshot *s, unsigned have,
		    struct vms_error *err)
{
	struct image_cache cache = { 0 };
	struct image_ent *last = NULL, *group = NULL;
	uint64_t last_bias = 0, group_bias = 0;
	size_t i;
	int rc = -1;

	for (i = 0; i < s->nregions; i++) {
		struct vms_region *r = &s->regions[i];
		struct image_ent *e;
		uint64_t bias;

		if (last && is_bss_tail(i ? &s->regions[i - 1] : NULL, r, last,
					last_bias)) {
			r->type = VMS_T_IMAGE;
			r->detail = s->regions[i - 1].path;
			if (add_section_children(s, r, &last->im, last_bias) < 0)
				goto out;
			continue;
		}
		last = NULL;
		if (!r->path || r->path[0] != '/' || r->inode == 0 ||
		    step_is_shmem(s, r))
			continue;
		e = image_lookup(s, &cache, have, r);
		if (!e)
			goto out;
		if (!e->opened && e->from_memory &&
		    (e == group ||
		     elfimage_bias(&e->im, r->start, r->offset, &bias))) {
			/* Confirmed from memory: an image, without sections. */
			r->type = VMS_T_IMAGE;
			r->flags |= VMS_RF_IMAGE_UNOPENED;
			r->detail = r->path;
			r->build_id = e->im.build_id;
			if (e != group)
				group_bias = bias;
			last = group = e;
			last_bias = group_bias;
			continue;
		}
		if (!e->opened) {
			/* Cannot look inside: an executable mapping of a file
			 * is most likely an image, but we do not guess; mark
			 * it so the user sees why it is a mapped file. */
			r->type = VMS_T_MAPPED_FILE;
			r->flags |= VMS_RF_IMAGE_UNOPENED;
			r->detail = r->path;
			continue;
		}
		/* One bias per mapped image: taken from its first mapping
		 * (offset 0 lies in exactly one PT_LOAD), reused for the
		 * others, whose offsets may sit in a page two segments
		 * share. */
		if (e == group && r->start >= group_bias) {
			bias = group_bias;
		} else if (!e->im.is_image ||
			   !elfimage_bias(&e->im, r->start, r->offset, &bias)) {
			r->type = VMS_T_MAPPED_FILE;
			r->detail = r->path;
			continue;
		}
		r->type = VMS_T_IMAGE;
		r->detail = r->path;
		r->build_id = e->im.build_id;
		if (add_section_children(s, r, &e->im, bias) < 0)
			goto out;
		last = group = e;
		last_bias = group_bias = bias;
	}
	rc = 0;
out:
	free(cache.v);
	return rc < 0 ? step_nomem(err, "images") : 0;
}

