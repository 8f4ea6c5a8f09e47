#include "classify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfimage.h"
#include "sampler.h"

/* glibc: HEAP_MAX_SIZE = 2 * DEFAULT_MMAP_THRESHOLD_MAX = 64 MiB on LP64. */
#define ARENA_HEAP_MAX (64ull << 20)

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
	got = vms_snapshot_read(s, r->start, buf, want, &ignore);
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
				      const struct classify_ops *ops,
				      const struct vms_region *r)
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
	fd = ops->open_image ? ops->open_image(ops->ctx, r) : -1;
	if (fd >= 0) {
		struct vms_error ignore;

		/* A file libelf cannot read is simply not an image. */
		if (elfimage_load(fd, &s->arena, &e->im, &ignore) == 0)
			e->opened = true;
		close(fd);
	} else if (r->offset == 0 && ops->read_memory) {
		image_from_memory(s, e, r);
	}
	return e;
}

/* ---- small predicates ---- */

static bool path_is(const struct vms_region *r, const char *p)
{
	return r->path && strcmp(r->path, p) == 0;
}

static bool path_starts(const struct vms_region *r, const char *p)
{
	return r->path && strncmp(r->path, p, strlen(p)) == 0;
}

/* Shared memory with no file of its own on disk. */
static bool is_shmem(const struct classify_ops *ops,
		     const struct vms_region *r)
{
	long magic;

	if (path_starts(r, "[anon_shmem:"))
		return true;
	if (!r->path || r->path[0] != '/')
		return false;
	if (path_starts(r, "/memfd:") || path_starts(r, "/SYSV") ||
	    path_starts(r, "/dev/shm/"))
		return true;
	/* shared anonymous memory is a shmem file named /dev/zero */
	if (path_starts(r, "/dev/zero"))
		return r->perms & VMS_PERM_SHARED;
	if (r->dev_major != 0)
		return false;
	/* Major 0 is tmpfs, but also btrfs, NFS, FUSE, overlay...: ask the
	 * file system when it can be asked. */
	magic = ops->fs_magic ? ops->fs_magic(ops->ctx, r) : 0;
	if (magic)
		return magic == 0x01021994 /* TMPFS_MAGIC */ ||
		       magic == 0x858458f6 /* RAMFS_MAGIC */ ||
		       (unsigned long)magic == 0x958458f6ul /* HUGETLBFS */;
	return r->perms & VMS_PERM_SHARED;
}

/* A runtime-named managed heap: Go 1.25 "[anon: Go: heap]", ART
 * "[anon:dalvik-main space]", ... Returns the runtime or NULL. */
static const char *managed_runtime(const struct vms_region *r)
{
	static const struct {
		const char *prefix, *runtime;
	} tab[] = {
		{ "[anon: Go: heap", "go" },  { "[anon:Go: heap", "go" },
		{ "[anon:dalvik-", "art" },   { "[anon: dalvik-", "art" },
		{ "[anon:v8 ", "v8" },        { "[anon: v8 ", "v8" },
		{ "[anon: Java heap", "jvm" }, { "[anon:Java heap", "jvm" },
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (path_starts(r, tab[i].prefix))
			return tab[i].runtime;
	return NULL;
}

/* "[anon:NAME]" / "[anon: NAME]" -> NAME, in the arena. */
static const char *anon_name(struct vms_snapshot *s,
			     const struct vms_region *r)
{
	const char *p = r->path + 6; /* past "[anon:" */
	size_t n;

	if (*p == ' ')
		p++;
	n = strlen(p);
	if (n && p[n - 1] == ']')
		n--;
	return arena_strndup(&s->arena, p, n);
}

/* ---- images ---- */

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

static int classify_images(struct vms_snapshot *s,
			   const struct classify_ops *ops)
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
		    is_shmem(ops, r))
			continue;
		e = image_lookup(s, &cache, ops, r);
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
	return rc;
}

/* ---- heaps ---- */

bool classify_heap_info_ok(const void *buf, size_t len, uint64_t start,
			   uint64_t rw_size, uint64_t *arena)
{
	uint64_t h[4]; /* ar_ptr, prev, size, mprotect_size */

	if (len < sizeof(h))
		return false;
	memcpy(h, buf, sizeof(h));
	if (h[2] == 0 || h[2] > ARENA_HEAP_MAX || h[3] < h[2] ||
	    h[3] > ARENA_HEAP_MAX || h[3] != rw_size)
		return false;
	if (h[1] == 0) {
		/* First heap of an arena: its malloc_state follows the
		 * heap_info header (32 or 48 bytes, by glibc version). */
		if (h[0] < start + 16 || h[0] > start + 128)
			return false;
	} else if (h[1] % ARENA_HEAP_MAX != 0 || h[1] == start) {
		return false;
	}
	*arena = h[0];
	return true;
}

static int add_heap(struct vms_snapshot *s, size_t *cap, const char *kind,
		    uint64_t id, uint64_t start, uint64_t end)
{
	struct vms_heap *h = NULL;
	size_t i;

	for (i = 0; i < s->nheaps; i++)
		if (s->heaps[i].id == id && strcmp(s->heaps[i].kind, kind) == 0)
			h = &s->heaps[i];
	if (!h) {
		if (s->nheaps == *cap) {
			size_t ncap = *cap ? *cap * 2 : 8;
			struct vms_heap *nh =
				arena_alloc(&s->arena, ncap * sizeof(*nh));

			if (!nh)
				return -1;
			if (s->nheaps)
				memcpy(nh, s->heaps, s->nheaps * sizeof(*nh));
			s->heaps = nh;
			*cap = ncap;
		}
		h = &s->heaps[s->nheaps++];
		memset(h, 0, sizeof(*h));
		h->kind = kind;
		h->id = id;
		h->in_use = h->free = h->chunks = h->free_chunks = h->top =
			h->mmapped = -1;
	}
	{
		struct vms_heap_seg *ns =
			arena_alloc(&s->arena, (h->nsegs + 1) * sizeof(*ns));

		if (!ns)
			return -1;
		if (h->nsegs)
			memcpy(ns, h->segs, h->nsegs * sizeof(*ns));
		ns[h->nsegs].start = start;
		ns[h->nsegs].end = end;
		h->segs = ns;
		h->nsegs++;
	}
	return 0;
}

static int heaps_scan(struct vms_snapshot *s, const struct classify_ops *ops,
		      bool *held)
{
	size_t i, cap = 0;

	for (i = 0; i < s->nregions; i++) {
		struct vms_region *r = &s->regions[i];
		struct vms_region *next =
			i + 1 < s->nregions ? &s->regions[i + 1] : NULL;
		uint64_t rw = vms_region_size(r), arena = r->start;
		bool by_header = false;

		if (path_is(r, "[heap]")) {
			r->type = VMS_T_HEAP;
			r->detail = "main arena (brk heap)";
			if (add_heap(s, &cap, "glibc-main", r->start, r->start,
				     r->end) < 0)
				return -1;
			continue;
		}
		/* Non-main arena heap: 64 MiB-aligned, anonymous,
		 * MAP_NORESERVE, rw-p followed by the ---p rest of its
		 * 64 MiB reservation (or all of it rw). */
		if (r->path || r->type != VMS_T_PRIVATE_DATA ||
		    r->start % ARENA_HEAP_MAX != 0 ||
		    r->perms != (VMS_PERM_R | VMS_PERM_W) ||
		    !(r->vmflags_mask & VMS_VF_NR) || rw > ARENA_HEAP_MAX)
			continue;
		if (rw < ARENA_HEAP_MAX &&
		    !(next && next->start == r->end && !next->path &&
		      next->perms == 0 &&
		      vms_region_size(next) + rw == ARENA_HEAP_MAX))
			continue;
		if (ops->read_memory) {
			unsigned char hdr[32];
			struct vms_error e;
			ssize_t got;

			/* one stop of the target for all the headers */
			if (!*held)
				vms_snapshot_hold(s, true);
			*held = true;
			got = vms_snapshot_read(s, r->start, hdr, sizeof(hdr),
						&e);

			if (got == (ssize_t)sizeof(hdr)) {
				if (!classify_heap_info_ok(hdr, sizeof(hdr),
							   r->start, rw, &arena))
					continue; /* read, and not a heap */
				by_header = true;
			}
		}
		r->type = VMS_T_HEAP;
		r->detail = by_header
				    ? arena_printf(&s->arena, "arena 0x%llx",
						   (unsigned long long)arena)
				    : "arena (by shape; header not read)";
		if (!r->detail ||
		    add_heap(s, &cap, "glibc-arena", arena, r->start,
			     rw < ARENA_HEAP_MAX ? next->end : r->end) < 0)
			return -1;
		if (rw < ARENA_HEAP_MAX) {
			next->type = VMS_T_HEAP;
			next->detail = "arena heap, reserved";
			i++;
		}
	}
	return 0;
}

static int classify_heaps(struct vms_snapshot *s,
			  const struct classify_ops *ops)
{
	bool held = false;
	int rc = heaps_scan(s, ops, &held);

	if (held)
		vms_snapshot_hold(s, false);
	return rc;
}

/* ---- stacks ---- */

static int classify_stacks(struct vms_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->nthreads; i++) {
		struct vms_thread *t = &s->threads[i];
		ptrdiff_t k = t->sp ? vms_snapshot_find_index(s, t->sp) : -1;
		struct vms_region *r, *below;
		uint64_t sp_page;

		if (k < 0) {
			/* sp unknown: the main thread's stack is [stack] */
			if (t->tid != s->proc.pid)
				continue;
			for (k = 0; k < (ptrdiff_t)s->nregions; k++)
				if (path_is(&s->regions[k], "[stack]"))
					break;
			if (k == (ptrdiff_t)s->nregions)
				continue;
		}
		r = &s->regions[k];
		t->stack_start = r->start;
		t->stack_end = r->end;
		/* A runtime may run threads on stacks inside its own heap
		 * (Go's g0 stacks, coroutines in malloc'd memory): the region
		 * keeps its type; the thread still names it. */
		if (r->type != VMS_T_PRIVATE_DATA && r->type != VMS_T_STACK)
			continue;
		r->type = VMS_T_STACK;
		r->detail = arena_printf(&s->arena, "thread %d (%s)",
					 (int)t->tid, t->name ? t->name : "?");
		if (!r->detail)
			return -1;
		if (t->sp >= r->start && t->sp < r->end && !r->children) {
			sp_page = t->sp & ~(s->cap.page_size - 1);
			r->children = arena_alloc(&s->arena,
						  2 * sizeof(*r->children));
			if (!r->children)
				return -1;
			r->children[0] = (struct vms_child){ "unused", r->start,
							     sp_page };
			r->children[1] =
				(struct vms_child){ "used", sp_page, r->end };
			r->nchildren = sp_page > r->start ? 2 : 1;
			if (r->nchildren == 1)
				r->children[0] = r->children[1];
		}
		below = k > 0 ? &s->regions[k - 1] : NULL;
		/* The guard: PROT_NONE, anonymous, right below, and not
		 * already something else (an arena's reserved tail under a
		 * stack made with pthread_attr_setstack). */
		if (below && below->end == r->start && below->perms == 0 &&
		    !below->path && below->type == VMS_T_PRIVATE_DATA) {
			below->type = VMS_T_STACK;
			below->flags |= VMS_RF_GUARD;
			below->detail = arena_printf(&s->arena,
						     "guard of thread %d",
						     (int)t->tid);
			if (!below->detail)
				return -1;
		}
	}
	/* [stack] is the main thread's even when its sp was elsewhere. */
	for (i = 0; i < s->nregions; i++)
		if (path_is(&s->regions[i], "[stack]") &&
		    s->regions[i].type != VMS_T_STACK) {
			s->regions[i].type = VMS_T_STACK;
			s->regions[i].detail = "[stack]";
		}
	return 0;
}

/* ---- the rest, by what maps shows ---- */

static int classify_base(struct vms_snapshot *s,
			 const struct classify_ops *ops)
{
	size_t i, mcap = 0;

	for (i = 0; i < s->nregions; i++) {
		struct vms_region *r = &s->regions[i];
		const char *rt;

		r->type = VMS_T_PRIVATE_DATA;
		/* Derived state is rebuilt from scratch: classifying twice
		 * gives the same snapshot. */
		r->detail = NULL;
		r->children = NULL;
		r->nchildren = 0;
		r->build_id = NULL;
		r->flags &= (uint16_t)~(VMS_RF_GUARD | VMS_RF_IMAGE_UNOPENED);
		if (!r->path)
			continue;
		if (is_shmem(ops, r)) {
			r->type = VMS_T_SHAREABLE;
			r->detail = r->path;
		} else if (path_is(r, "[vdso]") || path_is(r, "[vsyscall]")) {
			r->type = VMS_T_IMAGE;
			r->detail = r->path;
		} else if ((rt = managed_runtime(r))) {
			r->type = VMS_T_MANAGED_HEAP;
			r->detail = anon_name(s, r);
			if (!r->detail)
				return -1;
			if (s->nmanaged == mcap) {
				size_t nc = mcap ? mcap * 2 : 16;
				struct vms_managed *nm = arena_alloc(
					&s->arena, nc * sizeof(*nm));

				if (!nm)
					return -1;
				if (s->nmanaged)
					memcpy(nm, s->managed,
					       s->nmanaged * sizeof(*nm));
				s->managed = nm;
				mcap = nc;
			}
			s->managed[s->nmanaged++] = (struct vms_managed){
				rt, r->start, r->end, vms_region_size(r),
				r->c.rss + r->c.swap
			};
		} else if (path_starts(r, "[anon:")) {
			r->detail = anon_name(s, r);
			if (!r->detail)
				return -1;
		} else if (r->path[0] == '[') {
			r->detail = r->path;
		} else if (r->path[0] == '/') {
			r->type = VMS_T_MAPPED_FILE; /* images: see below */
			r->detail = r->path;
		}
		if (r->vmflags_mask & (VMS_VF_IO | VMS_VF_PF))
			r->flags |= VMS_RF_UNREADABLE;
	}
	return 0;
}

int classify_snapshot(struct vms_snapshot *s, const struct classify_ops *ops,
		      struct vms_error *err)
{
	if (classify_base(s, ops) < 0 || classify_images(s, ops) < 0 ||
	    classify_heaps(s, ops) < 0 || classify_stacks(s) < 0)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory classifying regions");
	return 0;
}
