/* snapfile_write.c — a snapshot as a snapshot file (snapfile.h): the JSON
 * part built with jansson, every section compressed with zstd, the whole
 * file in one buffer for the caller to write (outbuf.h) or load again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "capture/file/snapfile.h"
#include "capture/file/snapfile_int.h"
#include "linux/procfs.h"
#include "linux/smaps.h"
#include "model/parts.h"

/* zstd's fastest level: smaps text shrinks to under 1% of itself at it,
 * and a higher level buys little more for two to four times the time. */
#define SF_ZSTD_LEVEL 1
/* A window of 256 KiB (level 1 would take 512 KiB on a large text): on
 * 65,000 regions the file is the same size (128 KiB made it twice as
 * large), and each of a load's two decompressors holds 256 KiB less (a
 * load must take no more memory than the live capture did). */
#define SF_ZSTD_WINDOW_LOG 18
/* The tracelive section (snapfile_tracelive.c) is columns of varints of
 * the allocations alive, where the smaps text is lines: level 3 and a
 * window of 4 MiB take it to 0.6 of what level 1 in 256 KiB does (333,000
 * blocks alive: 0.98 MB against 1.63), for some 20 ms a million blocks
 * more; a load decompresses it whole anyway, and its 4 MiB window is
 * within what the section's own buffer takes. */
#define SF_ZSTD_LIVE_LEVEL 3
#define SF_ZSTD_LIVE_WINDOW_LOG 22
/* The smaps text is cut in two parts from this size on (smaps_cut). */
#define SF_SPLIT_MIN (256u << 10)

/* Where the smaps text is cut in two parts, each compressed as a zstd
 * frame of its own that a loader parses on a thread of its own
 * (snapfile.h, format 2): at the header of the middle region, with *n1
 * the regions before it. 0, no cut, for a small text, and for one whose
 * header lines are not exactly the snapshot's regions (a line the parser
 * skipped): the reader checks each part's count, so it must be the
 * count any parser of the text finds. */
static size_t smaps_cut(const struct vms_snapshot *s, size_t *n1)
{
	const char *t = s->raw->smaps, *end = t + s->raw->smaps_len, *nl;
	size_t headers = 0, want = s->nregions / 2, cut = 0;

	*n1 = 0;
	if (s->raw->smaps_len < SF_SPLIT_MIN || want == 0)
		return 0;
	for (; t < end; t = nl < end ? nl + 1 : end) {
		nl = memchr(t, '\n', (size_t)(end - t));
		if (!nl)
			nl = end;
		if (!smaps_header_like(t, nl))
			continue;
		if (headers == want)
			cut = (size_t)(t - s->raw->smaps);
		headers++;
	}
	if (headers != s->nregions || cut == 0)
		return 0;
	*n1 = want;
	return cut;
}

/* json_object_set_new that remembers a failure (a NULL value). */
static void put(json_t *o, const char *k, json_t *v, bool *bad)
{
	if (!v || json_object_set_new(o, k, v) < 0)
		*bad = true;
}

static void push(json_t *a, json_t *v, bool *bad)
{
	if (!v || json_array_append_new(a, v) < 0)
		*bad = true;
}

json_t *sf_json_elf(const struct elfimage *im)
{
	json_t *o = json_object(), *secs = json_array(), *loads = json_array();
	bool bad = !o || !secs || !loads;
	size_t i;

	for (i = 0; !bad && i < im->nsec; i++) {
		const struct elfimage_section *x = &im->sec[i];
		json_t *e = json_array();

		if (!e) {
			bad = true;
			break;
		}
		push(e, sf_json_str(x->name), &bad);
		push(e, sf_json_u64(x->addr), &bad);
		push(e, sf_json_u64(x->size), &bad);
		push(e, json_boolean(x->nobits), &bad);
		push(secs, e, &bad);
	}
	for (i = 0; !bad && i < im->nload; i++) {
		const struct elfimage_load *l = &im->load[i];
		json_t *e = json_array();

		if (!e) {
			bad = true;
			break;
		}
		push(e, sf_json_u64(l->vaddr), &bad);
		push(e, sf_json_u64(l->memsz), &bad);
		push(e, sf_json_u64(l->offset), &bad);
		push(e, sf_json_u64(l->filesz), &bad);
		push(e, json_integer(l->flags), &bad);
		push(loads, e, &bad);
	}
	if (bad) {
		json_decref(o);
		json_decref(secs);
		json_decref(loads);
		return NULL;
	}
	put(o, "is_image", json_boolean(im->is_image), &bad);
	put(o, "e_type", json_integer(im->e_type), &bad);
	put(o, "machine", json_integer(im->machine), &bad);
	put(o, "class", json_integer(im->elfclass), &bad);
	put(o, "build_id", sf_json_str(im->build_id), &bad);
	put(o, "nsec_alloc", sf_json_u64(im->nsec_alloc), &bad);
	put(o, "sec_capped", json_boolean(im->sec_capped), &bad);
	put(o, "note_bytes", sf_json_u64(im->note_bytes), &bad);
	put(o, "notes_capped", json_boolean(im->notes_capped), &bad);
	put(o, "sections", secs, &bad);
	put(o, "loads", loads, &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- the parts of the JSON ---- */

static const char *exe_build_id(const struct vms_snapshot *s)
{
	size_t i;

	for (i = 0; s->proc.exe && i < s->nimages; i++)
		if (s->images[i].path &&
		    strcmp(s->images[i].path, s->proc.exe) == 0)
			return s->images[i].build_id;
	return NULL;
}

static json_t *process_json(const struct vms_snapshot *s, bool *bad)
{
	json_t *o = json_object();

	if (!o) {
		*bad = true;
		return NULL;
	}
	put(o, "pid", json_integer(s->proc.pid), bad);
	put(o, "uid", json_integer(s->proc.uid), bad);
	put(o, "name", sf_json_str(s->proc.name), bad);
	put(o, "cmdline", sf_json_str(s->proc.cmdline), bad);
	put(o, "exe", sf_json_str(s->proc.exe), bad);
	put(o, "exe_build_id", sf_json_str(exe_build_id(s)), bad);
	return o;
}

/* The boot this capture belongs to (monotonic times compare within it). */
static json_t *boot_id(void)
{
	char *b;
	size_t n;
	json_t *v;

	if (procfs_read_file("/proc/sys/kernel/random/boot_id", &b, &n) < 0)
		return json_null();
	while (n && (b[n - 1] == '\n' || b[n - 1] == '\0'))
		n--;
	b[n] = 0;
	v = sf_json_str(b);
	free(b);
	return v;
}

static json_t *capture_json(const struct vms_snapshot *s, bool *bad)
{
	const struct vms_capture_info *c = &s->cap;
	json_t *o = json_object();

	if (!o) {
		*bad = true;
		return NULL;
	}
	put(o, "backend", sf_json_str(c->backend), bad);
	put(o, "frozen", json_boolean(c->frozen), bad);
	put(o, "frozen_us", sf_json_u64(c->frozen_us), bad);
	/* (added later: a file without it says 0, unknown) */
	put(o, "duration_us", sf_json_u64(c->duration_us), bad);
	put(o, "freeze_counters", sf_json_str(c->freeze_counters), bad);
	put(o, "taken_at_sec", json_integer(c->taken_at_sec), bad);
	put(o, "taken_at_nsec", json_integer(c->taken_at_nsec), bad);
	put(o, "monotonic_ns", sf_json_u64(c->monotonic_ns), bad);
	put(o, "boottime_ns", sf_json_u64(c->boottime_ns), bad);
	put(o, "boot_id", boot_id(), bad);
	put(o, "kernel", sf_json_str(c->kernel), bad);
	put(o, "page_size", sf_json_u64(c->page_size), bad);
	put(o, "partial", sf_json_str(c->partial), bad);
	put(o, "user_start", sf_json_u64(s->user_start), bad);
	put(o, "user_end", sf_json_u64(s->user_end), bad);
	return o;
}

static json_t *rollup_json(const struct vms_snapshot *s, bool *bad)
{
	const struct vms_rollup *k = &s->rollup;
	json_t *o;

	if (!k->valid)
		return json_null();
	o = json_object();
	if (!o) {
		*bad = true;
		return NULL;
	}
#define ROLLUP(m, key, flags) put(o, #m, sf_json_u64(k->m), bad);
	VMS_ROLLUP_FIELDS(ROLLUP)
#undef ROLLUP
	return o;
}

static json_t *threads_json(const struct vms_snapshot *s, bool *bad)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && !*bad && i < s->nthreads; i++) {
		const struct vms_thread *t = &s->threads[i];
		json_t *o = json_object();

		if (!o) {
			*bad = true;
			break;
		}
		put(o, "tid", json_integer(t->tid), bad);
		put(o, "name", sf_json_str(t->name), bad);
		put(o, "sp", sf_json_u64(t->sp), bad);
		push(a, o, bad);
	}
	if (!a)
		*bad = true;
	return a;
}

/* The files the images step looked into, and what it found in them. */
static json_t *files_json(const struct vms_snapshot *s, bool *bad)
{
	static const char *const how[] = { "none", "file", "memory" };
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && !*bad && i < s->nfiles; i++) {
		const struct vms_file *f = &s->files[i];
		json_t *o = json_object();

		if (!o) {
			*bad = true;
			break;
		}
		put(o, "region", sf_json_u64(f->first_region), bad);
		put(o, "read", json_string(how[f->read <= 2 ? f->read : 0]),
		    bad);
		put(o, "elf", f->elf ? sf_json_elf(f->elf) : json_null(), bad);
		push(a, o, bad);
	}
	if (!a)
		*bad = true;
	return a;
}

/* The file system of each file on device 0 (tmpfs or a disk? classify
 * asks), as the source answers now, right after the capture. */
static json_t *fs_json(struct vms_snapshot *s, bool *bad)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && !*bad && i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];
		long magic;
		json_t *o;

		if (!r->path || r->path[0] != '/' || r->dev_major != 0 ||
		    (i && s->regions[i - 1].path == r->path &&
		     s->regions[i - 1].inode == r->inode))
			continue;
		magic = vms_source_fs_magic(s, r);
		if (!magic)
			continue;
		o = json_object();
		if (!o) {
			*bad = true;
			break;
		}
		put(o, "region", sf_json_u64(i), bad);
		put(o, "magic", sf_json_u64((uint64_t)(unsigned long)magic),
		    bad);
		push(a, o, bad);
	}
	if (!a)
		*bad = true;
	return a;
}

static json_t *notes_json(const struct vms_snapshot *s, const char *step,
			  bool *bad)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && !*bad && i < s->nnotes; i++) {
		if (step && strcmp(s->notes[i].step, step) != 0)
			continue;
		push(a,
		     json_pack("{s:s?,s:o}", "step", s->notes[i].step, "why",
			       sf_json_str(s->notes[i].why)),
		     bad);
	}
	if (!a)
		*bad = true;
	return a;
}

static json_t *u64_array(const uint64_t *v, size_t n, bool *bad)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++)
		push(a, sf_json_u64(v[i]), bad);
	if (!a)
		*bad = true;
	return a;
}

/* What the glibc walker found in one arena (beyond the heap's figures). */
static json_t *heap_glibc_json(const struct vms_heap_glibc *g, bool *bad)
{
	json_t *o;

	if (!g)
		return json_null();
	o = json_object();
	if (!o) {
		*bad = true;
		return NULL;
	}
	put(o, "system", sf_json_u64(g->system), bad);
	put(o, "ordblks", sf_json_u64(g->ordblks), bad);
	put(o, "smblks", sf_json_u64(g->smblks), bad);
	put(o, "fsmblks", sf_json_u64(g->fsmblks), bad);
	put(o, "tcache", sf_json_u64(g->tcache), bad);
	put(o, "tcache_chunks", sf_json_u64(g->tcache_chunks), bad);
	put(o, "overhead", sf_json_u64(g->overhead), bad);
	put(o, "largest_free", sf_json_u64(g->largest_free), bad);
	if (g->free_resident >= 0)
		put(o, "free_resident", sf_json_u64((uint64_t)g->free_resident),
		    bad);
	put(o, "hist", u64_array(g->hist, VMS_HEAP_HIST, bad), bad);
	put(o, "hist_bytes", u64_array(g->hist_bytes, VMS_HEAP_HIST, bad), bad);
	put(o, "strip_bytes", sf_json_u64(g->strip_bytes), bad);
	put(o, "strip_free", u64_array(g->strip_free, VMS_HEAP_STRIP, bad),
	    bad);
	put(o, "strip_top", u64_array(g->strip_top, VMS_HEAP_STRIP, bad), bad);
	put(o, "busy", json_boolean(g->busy), bad);
	if (g->unread)
		put(o, "unread", json_true(), bad);
	put(o, "partial", sf_json_str(g->partial), bad);
	return o;
}

/* The malloc step's result: glibc's state walked in memory. */
static json_t *malloc_json(const struct vms_snapshot *s, bool *bad)
{
	const struct vms_malloc *m = s->glibc;
	json_t *o = json_object();

	if (!o) {
		*bad = true;
		return NULL;
	}
	put(o, "notes", notes_json(s, "malloc", bad), bad);
	if (!m) {
		put(o, "glibc", json_null(), bad);
		return o;
	}
	put(o, "glibc", sf_record_json(&vms_malloc_record, m, bad), bad);
	return o;
}

/* The heaps step's result: found in memory a file does not hold. */

/* A heap region's typed parts (model/parts.h): [{ "start", "end",
 * "type", "name", "counters": { smaps counters by member } }], what the
 * capture made of them (the page tables are not in the file). */
static json_t *parts_json(const struct vms_region *r, bool *bad)
{
	json_t *a = json_array();
	uint32_t i;
	size_t k;

	if (!a) {
		*bad = true;
		return NULL;
	}
	for (i = 0; !*bad && i < r->nchildren; i++) {
		const struct vms_region *p = r->children[i].part;
		json_t *c = json_object();

		for (k = 0; c && k < VMS_NCOUNTERS; k++) {
			uint64_t v;

			memcpy(&v,
			       (const char *)&p->c + vms_counter_fields[k].off,
			       sizeof(v));
			put(c, vms_counter_fields[k].member, sf_json_u64(v),
			    bad);
		}
		push(a,
		     c ? json_pack("{s:o,s:o,s:s,s:o,s:o}", "start",
				   sf_json_u64(p->start), "end",
				   sf_json_u64(p->end), "type",
				   vms_type_info[p->type].json, "name",
				   sf_json_str(r->children[i].name), "counters",
				   c)
		       : NULL,
		     bad);
	}
	return a;
}

/* The regions of another type split into parts (the parts step's:
 * private data holding CPython's arenas or glibc's mmapped chunks):
 * [{ "region", "type", "detail", "parts" }]. */
static json_t *split_json(const struct vms_snapshot *s, bool *bad)
{
	json_t *a = json_array();
	size_t i;

	if (!a) {
		*bad = true;
		return NULL;
	}
	for (i = 0; !*bad && i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];
		json_t *e;

		if (r->type == VMS_T_HEAP || !vms_region_has_parts(r))
			continue;
		e = json_pack("{s:o,s:s,s:o}", "region", sf_json_u64(i), "type",
			      vms_type_info[r->type].json, "detail",
			      sf_json_str(r->detail));
		if (e)
			put(e, "parts", parts_json(r, bad), bad);
		push(a, e, bad);
	}
	return a;
}

static json_t *heaps_json(const struct vms_snapshot *s, bool *bad)
{
	json_t *o = json_object(), *regs = json_array(), *list = json_array();
	size_t i;

	if (!o || !regs || !list) {
		json_decref(o);
		json_decref(regs);
		json_decref(list);
		*bad = true;
		return NULL;
	}
	for (i = 0; !*bad && i < s->nregions; i++)
		if (s->regions[i].type == VMS_T_HEAP) {
			json_t *e = json_pack(
				"{s:o,s:o}", "region", sf_json_u64(i), "detail",
				sf_json_str(s->regions[i].detail));

			if (e && vms_region_has_parts(&s->regions[i]))
				put(e, "parts", parts_json(&s->regions[i], bad),
				    bad);
			push(regs, e, bad);
		}
	for (i = 0; !*bad && i < s->nheaps; i++) {
		const struct vms_heap *h = &s->heaps[i];
		json_t *e = sf_record_json(&vms_heap_record, h, bad);

		put(e, "glibc", heap_glibc_json(h->glibc, bad), bad);
		push(list, e, bad);
	}
	put(o, "regions", regs, bad);
	put(o, "split", split_json(s, bad), bad);
	put(o, "list", list, bad);
	put(o, "notes", notes_json(s, "heaps", bad), bad);
	return o;
}

static char *meta_text(const struct vms_snapshot *s,
		       const struct vms_kept *const *kept, int version,
		       size_t n1)
{
	/* fs_magic asks the source: the only thing here that is not const */
	struct vms_snapshot *w = (struct vms_snapshot *)s;
	json_t *m = json_object();
	bool bad = !m;
	char *text = NULL;

	if (!bad) {
		put(m, "format", json_string("vmscope-snapshot"), &bad);
		put(m, "version", json_integer(version), &bad);
		put(m, "written_by", json_string("vmscope " VMSCOPE_VERSION),
		    &bad);
		put(m, "regions", sf_json_u64(s->nregions), &bad);
		if (n1) {
			json_t *a = json_array();

			put(m, "smaps_parts", a, &bad);
			push(a, sf_json_u64(n1), &bad);
			push(a, sf_json_u64(s->nregions - n1), &bad);
		}
		put(m, "process", process_json(s, &bad), &bad);
		put(m, "capture", capture_json(s, &bad), &bad);
		put(m, "rollup", rollup_json(s, &bad), &bad);
		put(m, "threads", threads_json(s, &bad), &bad);
		put(m, "files", files_json(s, &bad), &bad);
		put(m, "fs_magic", fs_json(w, &bad), &bad);
		put(m, "heaps", heaps_json(s, &bad), &bad);
		put(m, "malloc", malloc_json(s, &bad), &bad);
		put(m, "steps_kept", sf_kept_json(s, kept, &bad), &bad);
		put(m, "notes", notes_json(s, NULL, &bad), &bad);
	}
	if (!bad)
		text = json_dumps(m, JSON_COMPACT);
	json_decref(m);
	return text;
}

/* ---- the file ---- */

struct sf_out {
	unsigned char *buf;
	size_t len, cap;
};

static void put_le(unsigned char *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static int reserve(struct sf_out *o, size_t n)
{
	size_t ncap = o->cap ? o->cap : 65536;
	unsigned char *nb;

	if (o->cap - o->len >= n)
		return 0;
	while (ncap - o->len < n)
		ncap *= 2;
	nb = realloc(o->buf, ncap);
	if (!nb)
		return -1;
	o->buf = nb;
	o->cap = ncap;
	return 0;
}

/* One section: its header, then data compressed as one zstd frame with
 * its checksum (a flipped bit anywhere in it is then caught), or as two
 * when cut (data[0, cut) and data[cut, len): the smaps text's parts). */
static int section(struct sf_out *o, ZSTD_CCtx *z, const char *name,
		   const void *data, size_t len, size_t cut,
		   struct vms_error *err)
{
	size_t bound = cut ? ZSTD_compressBound(cut) +
				       ZSTD_compressBound(len - cut)
			   : ZSTD_compressBound(len),
	       got, got2 = 0;
	unsigned char *h;

	if (reserve(o, SF_SEC_HEAD_LEN + bound) < 0)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	h = o->buf + o->len;
	memset(h, 0, SF_SEC_HEAD_LEN);
	memcpy(h, name, strlen(name));
	put_le(h + SF_SEC_NAME, SF_CODEC_ZSTD, 4);
	got = ZSTD_compress2(z, h + SF_SEC_HEAD_LEN, bound, data,
			     cut ? cut : len);
	if (!ZSTD_isError(got) && cut)
		got2 = ZSTD_compress2(z, h + SF_SEC_HEAD_LEN + got, bound - got,
				      (const char *)data + cut, len - cut);
	if (ZSTD_isError(got) || ZSTD_isError(got2))
		return vms_error_set(
			err, VMS_ERR_NOMEM, ENOMEM,
			"cannot compress the %s section: %s", name,
			ZSTD_getErrorName(ZSTD_isError(got) ? got : got2));
	got += got2;
	put_le(h + SF_SEC_NAME + 4, got, 8);
	put_le(h + SF_SEC_NAME + 12, len, 8);
	o->len += SF_SEC_HEAD_LEN + got;
	return 0;
}

static int end_section(struct sf_out *o, struct vms_error *err)
{
	if (reserve(o, SF_SEC_HEAD_LEN) < 0)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	memset(o->buf + o->len, 0, SF_SEC_HEAD_LEN);
	memcpy(o->buf + o->len, SF_SEC_END, strlen(SF_SEC_END));
	o->len += SF_SEC_HEAD_LEN;
	return 0;
}

/* The tracelive section, compressed as its columns want (above). */
static int live_section(struct sf_out *o, ZSTD_CCtx *z, const void *data,
			size_t len, struct vms_error *err)
{
	int rc;

	ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, SF_ZSTD_LIVE_LEVEL);
	ZSTD_CCtx_setParameter(z, ZSTD_c_windowLog, SF_ZSTD_LIVE_WINDOW_LOG);
	rc = section(o, z, SF_SEC_TRACELIVE, data, len, 0, err);
	ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, SF_ZSTD_LEVEL);
	ZSTD_CCtx_setParameter(z, ZSTD_c_windowLog, SF_ZSTD_WINDOW_LOG);
	return rc;
}

int snapfile_encode(const struct vms_snapshot *s,
		    const struct vms_trace_report *tr,
		    const struct vms_kept *const *kept, void **buf, size_t *len,
		    struct vms_error *err)
{
	struct sf_out o = { 0 };
	ZSTD_CCtx *z = NULL;
	char *meta = NULL, *trace = NULL;
	unsigned char *live = NULL;
	size_t cut, n1, nlive = 0;
	int version, rc = -1;

	if (!s->raw || !s->raw->smaps)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "this snapshot kept no smaps text to "
				     "save (a capture made without keep_raw)");
	cut = smaps_cut(s, &n1);
	/* Format 2 only when the text is cut: a file format 1 holds is
	 * written as format 1, which every vmscope reads. */
	version = cut ? 2 : 1;
	meta = meta_text(s, kept, version, n1);
	if (!tr)
		tr = s->trace;
	trace = tr ? sf_trace_text(tr) : NULL;
	z = ZSTD_createCCtx();
	if (!meta || (tr && !trace) ||
	    (tr && sf_tracelive_bytes(tr, &live, &nlive) < 0) || !z ||
	    reserve(&o, SF_HEAD_LEN) < 0) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
		goto out;
	}
	ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, SF_ZSTD_LEVEL);
	ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(z, ZSTD_c_windowLog, SF_ZSTD_WINDOW_LOG);
	memcpy(o.buf, SNAPFILE_MAGIC, SNAPFILE_MAGIC_LEN);
	put_le(o.buf + SNAPFILE_MAGIC_LEN, (uint64_t)version, 4);
	put_le(o.buf + SNAPFILE_MAGIC_LEN + 4, 0, 4);
	o.len = SF_HEAD_LEN;
	if (section(&o, z, SF_SEC_META, meta, strlen(meta), 0, err) < 0 ||
	    section(&o, z, SF_SEC_SMAPS, s->raw->smaps, s->raw->smaps_len, cut,
		    err) < 0 ||
	    (s->raw->status && section(&o, z, SF_SEC_STATUS, s->raw->status,
				       s->raw->status_len, 0, err) < 0) ||
	    (trace &&
	     section(&o, z, SF_SEC_TRACE, trace, strlen(trace), 0, err) < 0) ||
	    (live && live_section(&o, z, live, nlive, err) < 0) ||
	    end_section(&o, err) < 0)
		goto out;
	*buf = o.buf;
	*len = o.len;
	o.buf = NULL;
	rc = 0;
out:
	free(o.buf);
	free(meta);
	free(trace);
	free(live);
	ZSTD_freeCCtx(z);
	return rc;
}
