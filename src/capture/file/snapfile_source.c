/* snapfile_source.c — the source of a loaded snapshot file (source.h): no
 * memory, no files, but what was kept of them when it was saved. The
 * images step asks it for each file's ELF summary (elf), the classify
 * step for the file system of a file on device 0 (fs_magic), and the
 * steps that would read memory are replaced by what they found then
 * (restore): heaps, malloc; jvm, allocator, v8, cpython (one record for
 * them all, snapfile_kept.c). Everything lives in the snapshot's
 * arena: release has nothing to free.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/file/snapfile.h"
#include "capture/file/snapfile_int.h"
#include "model/parts.h"
#include "model/source.h"

/* A file by what maps shows of it: path (interned, so the pointer is the
 * string), device and inode. */
struct sf_key {
	uintptr_t path;
	uint64_t inode;
	uint64_t dev;
};

struct sf_file {
	struct sf_key key;
	int read; /* VMS_FILE_* */
	struct elfimage *elf; /* NULL: none kept */
};

struct sf_fs {
	struct sf_key key;
	long magic;
};

struct sf_heap_region {
	size_t region;
	uint8_t type; /* heap, or what a split region was */
	const char *detail;
	/* its typed parts (model/parts.h), counters as kept */
	struct vms_part_spec *parts;
	size_t nparts;
};

struct sf_priv {
	struct sf_file *files;
	size_t nfiles;
	struct sf_fs *fs;
	size_t nfs;
	bool heaps_kept;
	struct vms_heap *heaps;
	size_t nheaps;
	struct sf_heap_region *heap_regions; /* then the split ones */
	size_t nheap_regions;
	struct vms_note *heap_notes;
	size_t nheap_notes;
	bool malloc_kept;
	struct vms_malloc *glibc; /* NULL: not walked then */
	struct vms_note *malloc_notes;
	size_t nmalloc_notes;
	struct sf_kept *kept; /* the runtime steps': NULL, none kept */
};

static struct sf_key key_of(const struct vms_region *r)
{
	struct sf_key k = { (uintptr_t)r->path, r->inode,
			    (uint64_t)r->dev_major << 32 | r->dev_minor };

	return k;
}

static int key_cmp(const struct sf_key *a, const struct sf_key *b)
{
	if (a->path != b->path)
		return a->path < b->path ? -1 : 1;
	if (a->inode != b->inode)
		return a->inode < b->inode ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return 0;
}

/* Both tables start with their key. */
static int by_key(const void *a, const void *b)
{
	return key_cmp(a, b);
}

/* ---- the callbacks ---- */

static int sf_elf(struct vms_snapshot *s, const struct vms_region *r,
		  struct elfimage *out)
{
	const struct sf_priv *p = s->src.priv;
	struct sf_key k = key_of(r);
	const struct sf_file *f;

	if (!p)
		return VMS_FILE_UNREAD;
	f = bsearch(&k, p->files, p->nfiles, sizeof(*f), by_key);
	if (!f)
		return VMS_FILE_UNREAD;
	if (f->elf)
		*out = *f->elf; /* its arrays are the arena's, only read */
	return f->read;
}

static long sf_fs_magic(struct vms_snapshot *s, const struct vms_region *r)
{
	const struct sf_priv *p = s->src.priv;
	struct sf_key k = key_of(r);
	const struct sf_fs *f;

	if (!p)
		return 0;
	f = bsearch(&k, p->fs, p->nfs, sizeof(*f), by_key);
	return f ? f->magic : 0;
}

static int add_notes(struct vms_snapshot *s, const struct vms_note *n, size_t k,
		     struct vms_error *err)
{
	size_t i;

	for (i = 0; i < k; i++)
		if (vms_snapshot_note(s, n[i].step, n[i].why) < 0)
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory");
	return 0;
}

static int sf_restore(struct vms_snapshot *s, const char *step,
		      struct vms_error *err)
{
	const struct sf_priv *p = s->src.priv;
	size_t i;
	int k = p ? sf_kept_restore(s, p->kept, step, err) : 0, rc;

	if (k != 0)
		return k;
	if (p && p->malloc_kept && strcmp(step, "malloc") == 0) {
		s->glibc = p->glibc;
		vms_snapshot_type_mmapped(s);
		return add_notes(s, p->malloc_notes, p->nmalloc_notes, err) < 0
			       ? -1
			       : 1;
	}
	if (!p || !p->heaps_kept || strcmp(step, "heaps") != 0)
		return 0;
	s->heaps = p->heaps;
	s->nheaps = p->nheaps;
	for (i = 0; i < p->nheap_regions; i++) {
		struct vms_region *r = &s->regions[p->heap_regions[i].region];

		r->type = p->heap_regions[i].type;
		r->detail = p->heap_regions[i].detail;
		rc = p->heap_regions[i].nparts
			     ? vms_parts_set(s, r, p->heap_regions[i].parts,
					     p->heap_regions[i].nparts)
			     : 0;
		if (rc == -1)
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory");
		if (rc < 0)
			return vms_error_set(err, VMS_ERR_FILE, 0,
					     "bad \"heaps\": a region's parts "
					     "are not inside it");
	}
	return add_notes(s, p->heap_notes, p->nheap_notes, err) < 0 ? -1 : 1;
}

static void sf_release(struct vms_snapshot *s)
{
	s->src.priv = NULL; /* all of it is in the arena */
}

static const struct vms_source_ops snapfile_source = {
	.name = "file",
	.fs_magic = sf_fs_magic,
	.release = sf_release,
	.elf = sf_elf,
	.restore = sf_restore,
};

/* ---- reading the kept parts ---- */

/* The mmapped chunks a file's malloc record may locate: a page each at
 * least, in its regions (several share one the kernel merged). */
static size_t mmapped_max(const struct vms_snapshot *s)
{
	uint64_t page = s->cap.page_size ? s->cap.page_size : 4096, n = 0;
	size_t i;

	for (i = 0; i < s->nregions; i++)
		n += vms_region_size(&s->regions[i]) / page;
	return n > SIZE_MAX - s->nregions ? SIZE_MAX : (size_t)n + s->nregions;
}

bool sf_read_elf(const json_t *j, struct arena *a, struct elfimage *out)
{
	const json_t *secs = json_object_get(j, "sections");
	const json_t *loads = json_object_get(j, "loads");
	size_t i, nsec = json_array_size(secs), nload = json_array_size(loads);
	uint64_t v;
	bool ok = true;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(j) || nsec > ELFIMAGE_MAX_SECTIONS ||
	    nload > ELFIMAGE_MAX_PHDRS)
		return false;
	out->is_image = json_is_true(json_object_get(j, "is_image"));
	if (sf_obj_u64(j, "e_type", &v))
		out->e_type = (uint16_t)v;
	if (sf_obj_u64(j, "machine", &v))
		out->machine = (uint16_t)v;
	if (sf_obj_u64(j, "class", &v))
		out->elfclass = (uint8_t)v;
	if (sf_obj_u64(j, "nsec_alloc", &v))
		out->nsec_alloc = (size_t)v;
	sf_obj_u64(j, "note_bytes", &out->note_bytes);
	out->sec_capped = json_is_true(json_object_get(j, "sec_capped"));
	out->notes_capped = json_is_true(json_object_get(j, "notes_capped"));
	out->build_id = sf_get_str(a, json_object_get(j, "build_id"), &ok);
	out->sec = arena_alloc(a, (nsec ? nsec : 1) * sizeof(*out->sec));
	out->load = arena_alloc(a, (nload ? nload : 1) * sizeof(*out->load));
	if (!ok || !out->sec || !out->load)
		return false;
	for (i = 0; i < nsec; i++) {
		const json_t *e = json_array_get(secs, i);
		struct elfimage_section *x = &out->sec[i];

		if (!json_is_array(e) ||
		    !(x->name = sf_get_str(a, json_array_get(e, 0), &ok)) ||
		    !ok || !sf_get_u64(json_array_get(e, 1), &x->addr) ||
		    !sf_get_u64(json_array_get(e, 2), &x->size))
			return false;
		x->nobits = json_is_true(json_array_get(e, 3));
	}
	for (i = 0; i < nload; i++) {
		const json_t *e = json_array_get(loads, i);
		struct elfimage_load *l = &out->load[i];

		if (!json_is_array(e) ||
		    !sf_get_u64(json_array_get(e, 0), &l->vaddr) ||
		    !sf_get_u64(json_array_get(e, 1), &l->memsz) ||
		    !sf_get_u64(json_array_get(e, 2), &l->offset) ||
		    !sf_get_u64(json_array_get(e, 3), &l->filesz) ||
		    !sf_get_u64(json_array_get(e, 4), &v))
			return false;
		l->flags = (uint32_t)v;
	}
	out->nsec = nsec;
	out->nload = nload;
	return true;
}

/* The region index of an entry, checked against the snapshot. */
static bool region_at(const struct vms_snapshot *s, const json_t *e,
		      size_t *out)
{
	uint64_t i;

	if (!sf_obj_u64(e, "region", &i) || i >= s->nregions)
		return false;
	*out = (size_t)i;
	return true;
}

static const char *files_from(struct vms_snapshot *s, struct sf_priv *p,
			      const json_t *a)
{
	size_t i, n = json_array_size(a);

	p->files = arena_alloc(&s->arena, (n ? n : 1) * sizeof(*p->files));
	if (!p->files)
		return "out of memory";
	for (i = 0; i < n; i++) {
		const json_t *e = json_array_get(a, i), *elf;
		const char *how = json_string_value(json_object_get(e, "read"));
		struct sf_file *f = &p->files[p->nfiles];
		size_t k;

		if (!region_at(s, e, &k) || !how)
			return "bad \"files\"";
		f->key = key_of(&s->regions[k]);
		f->read = strcmp(how, "file") == 0     ? VMS_FILE_OPENED
			  : strcmp(how, "memory") == 0 ? VMS_FILE_FROM_MEMORY
						       : VMS_FILE_UNREAD;
		elf = json_object_get(e, "elf");
		if (f->read != VMS_FILE_UNREAD && json_is_object(elf)) {
			f->elf = arena_alloc(&s->arena, sizeof(*f->elf));
			if (!f->elf || !sf_read_elf(elf, &s->arena, f->elf))
				return "bad ELF summary in \"files\"";
		} else {
			f->read = VMS_FILE_UNREAD;
		}
		p->nfiles++;
	}
	qsort(p->files, p->nfiles, sizeof(*p->files), by_key);
	return NULL;
}

static const char *fs_from(struct vms_snapshot *s, struct sf_priv *p,
			   const json_t *a)
{
	size_t i, n = json_array_size(a);

	p->fs = arena_alloc(&s->arena, (n ? n : 1) * sizeof(*p->fs));
	if (!p->fs)
		return "out of memory";
	for (i = 0; i < n; i++) {
		const json_t *e = json_array_get(a, i);
		uint64_t magic;
		size_t k;

		if (!region_at(s, e, &k) || !sf_obj_u64(e, "magic", &magic))
			return "bad \"fs_magic\"";
		p->fs[p->nfs].key = key_of(&s->regions[k]);
		p->fs[p->nfs].magic = (long)magic;
		p->nfs++;
	}
	qsort(p->fs, p->nfs, sizeof(*p->fs), by_key);
	return NULL;
}

static bool u64s_at(const json_t *o, const char *k, uint64_t *v, size_t n)
{
	const json_t *a = json_object_get(o, k);
	size_t i;

	if (!a)
		return true;
	if (json_array_size(a) != n)
		return false;
	for (i = 0; i < n; i++)
		if (!sf_get_u64(json_array_get(a, i), &v[i]))
			return false;
	return true;
}

static bool heap_glibc_from(struct vms_snapshot *s, const json_t *o,
			    struct vms_heap *x)
{
	struct vms_heap_glibc *g;
	bool ok = true;
	uint64_t v;

	if (!o || json_is_null(o))
		return true;
	g = arena_alloc(&s->arena, sizeof(*g));
	if (!g || !json_is_object(o))
		return false;
	memset(g, 0, sizeof(*g));
	sf_obj_u64(o, "system", &g->system);
	sf_obj_u64(o, "ordblks", &g->ordblks);
	sf_obj_u64(o, "smblks", &g->smblks);
	sf_obj_u64(o, "fsmblks", &g->fsmblks);
	sf_obj_u64(o, "tcache", &g->tcache);
	sf_obj_u64(o, "tcache_chunks", &g->tcache_chunks);
	sf_obj_u64(o, "overhead", &g->overhead);
	sf_obj_u64(o, "largest_free", &g->largest_free);
	g->free_resident = -1; /* absent from files before it was kept */
	if (sf_obj_u64(o, "free_resident", &v) && v <= INT64_MAX)
		g->free_resident = (int64_t)v;
	g->busy = json_is_true(json_object_get(o, "busy"));
	/* absent from files before it was kept (and when false) */
	g->unread = json_is_true(json_object_get(o, "unread"));
	g->partial = sf_get_str(&s->arena, json_object_get(o, "partial"), &ok);
	/* the strip: absent from files before it was kept (no strip) */
	sf_obj_u64(o, "strip_bytes", &g->strip_bytes);
	if (!ok || !u64s_at(o, "hist", g->hist, VMS_HEAP_HIST) ||
	    !u64s_at(o, "hist_bytes", g->hist_bytes, VMS_HEAP_HIST) ||
	    !u64s_at(o, "strip_free", g->strip_free, VMS_HEAP_STRIP) ||
	    !u64s_at(o, "strip_top", g->strip_top, VMS_HEAP_STRIP))
		return false;
	x->glibc = g;
	return true;
}

static bool heap_from(struct vms_snapshot *s, const json_t *h,
		      struct vms_heap *x)
{
	return sf_record_from(&s->arena, h, &vms_heap_record, x, s->nregions) &&
	       heap_glibc_from(s, json_object_get(h, "glibc"), x);
}

/* A heap region's typed parts (absent: none; snapfile_write.c's
 * parts_json); false when malformed. Whether they lie inside the region
 * is vms_parts_set's to say, when they are put back. */
static bool parts_from(struct vms_snapshot *s, const json_t *a,
		       struct sf_heap_region *x)
{
	size_t i, k, n = json_array_size(a);
	bool ok = true;

	if (!a)
		return true;
	/* apart inside their region: a page each at most */
	if (!json_is_array(a) ||
	    (n > VMS_MANAGED_PARTS_MAX &&
	     n > vms_region_size(&s->regions[x->region]) /
			     (s->cap.page_size ? s->cap.page_size : 4096)))
		return false;
	x->parts = arena_alloc(&s->arena, (n ? n : 1) * sizeof(*x->parts));
	if (!x->parts)
		return false;
	for (i = 0; i < n; i++) {
		const json_t *e = json_array_get(a, i);
		const json_t *c = json_object_get(e, "counters");
		struct vms_part_spec *sp = &x->parts[i];
		struct vms_counters *ct = arena_alloc(&s->arena, sizeof(*ct));
		const char *type =
			json_string_value(json_object_get(e, "type"));
		int t;

		if (!ct || !type || !json_is_object(c) ||
		    !sf_obj_u64(e, "start", &sp->start) ||
		    !sf_obj_u64(e, "end", &sp->end))
			return false;
		for (t = 0; t < VMS_NTYPES; t++)
			if (strcmp(vms_type_info[t].json, type) == 0)
				break;
		if (t == VMS_NTYPES)
			return false;
		sp->type = (uint8_t)t;
		sp->name =
			sf_get_str(&s->arena, json_object_get(e, "name"), &ok);
		if (!ok || !sp->name)
			return false;
		for (k = 0; k < VMS_NCOUNTERS; k++) {
			uint64_t v = 0;

			/* a counter a later vmscope keeps and this one
			 * not, or the other way round: 0 */
			if (json_object_get(c, vms_counter_fields[k].member) &&
			    !sf_obj_u64(c, vms_counter_fields[k].member, &v))
				return false;
			memcpy((char *)ct + vms_counter_fields[k].off, &v,
			       sizeof(v));
		}
		sp->rss = sp->swap = sp->priv = -1;
		sp->counters = ct;
	}
	x->nparts = n;
	return true;
}

static const char *heaps_from(struct vms_snapshot *s, struct sf_priv *p,
			      const json_t *o)
{
	const json_t *regs = json_object_get(o, "regions");
	const json_t *split = json_object_get(o, "split");
	const json_t *list = json_object_get(o, "list");
	const json_t *notes = json_object_get(o, "notes");
	size_t i, nr = json_array_size(regs), nl = json_array_size(list),
		  nn = json_array_size(notes), ns = json_array_size(split);
	bool ok = true;

	if (!json_is_object(o))
		return NULL; /* none kept: the step runs */
	if (nl > s->nregions)
		return "bad \"heaps\"";
	if (ns > s->nregions || (split && !json_is_array(split)))
		return "bad \"heaps\"";
	p->heap_regions = arena_alloc(
		&s->arena, (nr + ns ? nr + ns : 1) * sizeof(*p->heap_regions));
	p->heaps = arena_alloc(&s->arena, (nl ? nl : 1) * sizeof(*p->heaps));
	p->heap_notes =
		arena_alloc(&s->arena, (nn ? nn : 1) * sizeof(*p->heap_notes));
	if (!p->heap_regions || !p->heaps || !p->heap_notes)
		return "out of memory";
	for (i = 0; i < nr; i++) {
		const json_t *e = json_array_get(regs, i);
		struct sf_heap_region *x = &p->heap_regions[i];

		if (!region_at(s, e, &x->region))
			return "bad \"heaps\"";
		x->type = VMS_T_HEAP;
		x->detail = sf_get_str(&s->arena, json_object_get(e, "detail"),
				       &ok);
		if (!ok || !parts_from(s, json_object_get(e, "parts"), x))
			return "bad \"heaps\"";
	}
	/* regions of other types split into parts (absent before them) */
	for (i = 0; i < ns; i++) {
		const json_t *e = json_array_get(split, i);
		struct sf_heap_region *x = &p->heap_regions[nr + i];
		const char *type =
			json_string_value(json_object_get(e, "type"));
		int t;

		if (!region_at(s, e, &x->region) || !type)
			return "bad \"heaps\"";
		for (t = 0; t < VMS_NTYPES; t++)
			if (strcmp(vms_type_info[t].json, type) == 0)
				break;
		if (t == VMS_NTYPES)
			return "bad \"heaps\"";
		x->type = (uint8_t)t;
		x->detail = sf_get_str(&s->arena, json_object_get(e, "detail"),
				       &ok);
		if (!ok || !parts_from(s, json_object_get(e, "parts"), x) ||
		    !x->nparts)
			return "bad \"heaps\"";
	}
	nr += ns;
	for (i = 0; i < nl; i++)
		if (!heap_from(s, json_array_get(list, i), &p->heaps[i]))
			return "bad \"heaps\"";
	for (i = 0; i < nn; i++) {
		const json_t *e = json_array_get(notes, i);
		struct vms_note *x = &p->heap_notes[i];

		x->step = "heaps";
		x->why = sf_get_str(&s->arena, json_object_get(e, "why"), &ok);
		if (!ok || !x->why)
			return "bad \"heaps\"";
	}
	p->nheap_regions = nr;
	p->nheaps = nl;
	p->nheap_notes = nn;
	p->heaps_kept = true;
	return NULL;
}

static const char *notes_from(struct vms_snapshot *s, const json_t *a,
			      const char *step, struct vms_note **out,
			      size_t *n)
{
	size_t i, k = json_array_size(a);
	bool ok = true;

	*out = arena_alloc(&s->arena, (k ? k : 1) * sizeof(**out));
	if (!*out)
		return "out of memory";
	for (i = 0; i < k; i++) {
		(*out)[i].step = step;
		(*out)[i].why = sf_get_str(
			&s->arena, json_object_get(json_array_get(a, i), "why"),
			&ok);
		if (!ok || !(*out)[i].why)
			return "bad notes";
	}
	*n = k;
	return NULL;
}

/* The malloc step's kept result (absent in a file of a vmscope without
 * the walker: the step is then noted missing, as it cannot run). */
static const char *malloc_from(struct vms_snapshot *s, struct sf_priv *p,
			       const json_t *o)
{
	const json_t *g = json_object_get(o, "glibc");
	struct vms_malloc *m;
	const char *why;

	if (!json_is_object(o))
		return NULL;
	if ((why = notes_from(s, json_object_get(o, "notes"), "malloc",
			      &p->malloc_notes, &p->nmalloc_notes)))
		return why;
	p->malloc_kept = true;
	if (!json_is_object(g))
		return NULL;
	m = arena_alloc(&s->arena, sizeof(*m));
	if (!m || !sf_record_from(&s->arena, g, &vms_malloc_record, m,
				  mmapped_max(s)))
		return "bad \"malloc\"";
	p->glibc = m;
	return NULL;
}

int sf_source_set(struct vms_snapshot *s, const json_t *meta, const char *name,
		  const struct vms_kept *const *kept, struct vms_error *err)
{
	struct sf_priv *p = arena_alloc(&s->arena, sizeof(*p));
	const char *why;

	if (!p)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	if ((why = files_from(s, p, json_object_get(meta, "files"))) ||
	    (why = fs_from(s, p, json_object_get(meta, "fs_magic"))) ||
	    (why = heaps_from(s, p, json_object_get(meta, "heaps"))) ||
	    (why = malloc_from(s, p, json_object_get(meta, "malloc"))) ||
	    (why = sf_kept_from(s, json_object_get(meta, "steps_kept"), kept,
				&p->kept)))
		return strcmp(why, "out of memory") == 0
			       ? vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					       "out of memory")
			       : vms_error_set(err, VMS_ERR_FILE, 0,
					       "%s: corrupted: %s in its JSON "
					       "part",
					       name, why);
	s->src.ops = &snapfile_source;
	s->src.priv = p;
	s->src.caps = VMS_SRC_ELF;
	s->src.pid = 0;
	s->src.no_memory = "a snapshot file holds no memory";
	return 0;
}
