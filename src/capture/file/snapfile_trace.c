/* snapfile_trace.c — a trace report (model/trace.h) as a snapshot file's
 * "trace" section, both ways (snapfile_int.h).
 *
 * The section is one JSON object, compressed as the others are:
 *
 *   { "format": "vmscope-trace", "version": 1,
 *     the report's trace-wide fields by their file keys (records.h,
 *     VMS_TRACE_FIELDS: "sampled", "sample_bytes", ..., "to_ns"),
 *     "frames": [ { "ip", "function", "file", "line", "module",
 *                   "offset" } ],            every distinct frame once
 *     "sites":  [ { "id", "kind": "heap"|"mmap"|"brk",
 *                   "frames": [ index into "frames" ],  innermost first
 *                   "transient": [count, bytes], "outstanding": [...],
 *                   "released": [...], "lasting": [...],
 *                   "impacting_bytes",
 *                   "cells": [ [alloc epoch, free epoch or null,
 *                               count in 1/1024ths, bytes] ] } ],
 *     "before": { "partial": "..."|null,           an attach's, or absent
 *                 "heaps": [ { "kind", "id", "at_start": [count, bytes],
 *                              "released": [...], "lasting": [...],
 *                              "impacting_bytes" } ] },
 *     "stacks": [ { "id", "kind", "frames" } ] }  version 2: the sites
 *                                 the "tracelive" section names that
 *                                 "sites" does not list (their frames in
 *                                 "frames" too), absent without it
 *
 * Version 2 added "stacks" beside the "tracelive" section
 * (snapfile_tracelive.c: the allocations alive at the snapshot and the
 * log of events, model/trace.h's struct vms_trace_live): a version 1
 * reader ignores both and reads the rest as before.
 *
 * "run" and "mark" (VMS_TRACE_FIELDS) and a site's "cells" (model/trace.h)
 * came after the first files: a report without them is one of a run
 * whose windows are not known, as a file of the first version reads.
 *
 * A site's stack shares its outer frames with many others (main, the
 * program's loops): each frame is written once, and a site names its
 * frames by index. Strings and 64-bit figures as the JSON part's
 * (snapfile_int.h); "line" 0 and null strings are "not known", as in the
 * record. A reader takes a section of a later version's with more keys
 * (they are ignored) and refuses one whose version is above its own only
 * when a field it needs is missing.
 *
 * Bounded by what the section holds: at most SF_TRACE_MAX bytes once
 * decompressed and SF_TRACE_VALUES values (measured before jansson builds
 * them), a stack of at most SF_TRACE_FRAMES frames (the tracer sends 48);
 * every index is checked against the frames read. A real report is far
 * below: 1.67 million events from 169 stacks make some 10,000 values.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/file/snapfile_int.h"

#define SF_TRACE_VERSION 2
#define SF_TRACE_MAX (64ull << 20)
#define SF_TRACE_VALUES (2u << 20)
#define SF_TRACE_FRAMES 256u
/* the "tracelive" section: 4 Mi allocations of some 40 bytes each at
 * most, and the log */
#define SF_TRACELIVE_MAX (256ull << 20)

/* ---- writing ---- */

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

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool frame_eq(const struct vms_trace_frame *a,
		     const struct vms_trace_frame *b)
{
	return a->ip == b->ip && a->line == b->line && a->offset == b->offset &&
	       str_eq(a->function, b->function) && str_eq(a->file, b->file) &&
	       str_eq(a->module, b->module);
}

/* Every distinct frame of the report once: a hash table of indices into
 * list (open addressing, by the frame's ip). */
struct frames {
	const struct vms_trace_frame **list;
	size_t n;
	uint32_t *slot; /* index + 1, 0: empty */
	size_t mask;
};

static int frames_init(struct frames *t, const struct vms_trace_report *r)
{
	size_t i, total = 0, cap = 16;

	for (i = 0; i < r->nsites; i++)
		total += r->sites[i].nframes;
	for (i = 0; r->live && i < r->live->nstacks; i++)
		total += r->live->stacks[i].nframes;
	while (cap < 2 * total)
		cap *= 2;
	t->n = 0;
	t->mask = cap - 1;
	t->list = malloc((total ? total : 1) * sizeof(*t->list));
	t->slot = calloc(cap, sizeof(*t->slot));
	return t->list && t->slot ? 0 : -1;
}

static uint32_t frames_index(struct frames *t, const struct vms_trace_frame *f)
{
	size_t h = (size_t)((f->ip ^ f->offset) * 0x9e3779b97f4a7c15ull >> 17);

	for (;; h++) {
		uint32_t *s = &t->slot[h & t->mask];

		if (!*s) {
			t->list[t->n] = f;
			*s = (uint32_t)++t->n;
			return *s - 1;
		}
		if (frame_eq(t->list[*s - 1], f))
			return *s - 1;
	}
}

static json_t *frame_json(const struct vms_trace_frame *f)
{
	return json_pack("{s:o,s:o,s:o,s:I,s:o,s:o}", "ip", sf_json_u64(f->ip),
			 "function", sf_json_str(f->function), "file",
			 sf_json_str(f->file), "line", (json_int_t)f->line,
			 "module", sf_json_str(f->module), "offset",
			 sf_json_u64(f->offset));
}

/* A site's cells: [alloc epoch, free epoch or null (alive), count in
 * 1/1024ths, bytes] each. */
static json_t *cells_json(const struct vms_trace_site *s, bool *bad)
{
	json_t *v = json_array();
	uint32_t c;

	for (c = 0; v && c < s->ncells; c++) {
		const struct vms_trace_cell *x = &s->cells[c];

		push(v,
		     json_pack("[I,o,o,o]", (json_int_t)x->a,
			       x->f == VMS_TRACE_ALIVE
				       ? json_null()
				       : json_integer((json_int_t)x->f),
			       sf_json_u64(x->count), sf_json_u64(x->bytes)),
		     bad);
	}
	if (!v)
		*bad = true;
	return v;
}

static json_t *stack_json(const struct vms_trace_site *s, struct frames *t,
			  bool *bad);

static json_t *site_json(const struct vms_trace_site *s, struct frames *t,
			 bool *bad)
{
	json_t *o = stack_json(s, t, bad);
	uint32_t k;

	if (!o)
		return NULL;
	for (k = 0; k < VMS_TRACE_NIMPACTS; k++)
		put(o, vms_trace_impact_names[k],
		    json_pack("[o,o]", sf_json_u64(s->by[k].count),
			      sf_json_u64(s->by[k].bytes)),
		    bad);
	put(o, "impacting_bytes", json_integer(s->impacting_bytes), bad);
	if (s->ncells)
		put(o, "cells", cells_json(s, bad), bad);
	return o;
}

/* A site's stack: {"id", "kind", "frames"}; as such, a site the kept
 * allocations or events name that "sites" does not list (its figures are
 * not the report's); site_json adds a listed site's figures. */
static json_t *stack_json(const struct vms_trace_site *s, struct frames *t,
			  bool *bad)
{
	json_t *o = json_object(), *fr = json_array();
	uint32_t k;

	if (!o || !fr) {
		json_decref(o);
		json_decref(fr);
		*bad = true;
		return NULL;
	}
	put(o, "id", json_integer(s->id), bad);
	put(o, "kind", json_string(vms_trace_kind_names[s->kind]), bad);
	for (k = 0; k < s->nframes; k++)
		push(fr, json_integer(frames_index(t, &s->frames[k])), bad);
	put(o, "frames", fr, bad);
	return o;
}

/* What was allocated before an attach's trace, per heap its walk found
 * (model/trace.h: before_walked). */
static json_t *before_json(const struct vms_trace_report *r, bool *bad)
{
	json_t *o = json_object(), *hs = json_array();
	size_t i;

	if (!o || !hs) {
		json_decref(o);
		json_decref(hs);
		*bad = true;
		return NULL;
	}
	put(o, "partial", sf_json_str(r->before_partial), bad);
	for (i = 0; i < r->nbefore; i++) {
		const struct vms_trace_before *b = &r->before[i];

		push(hs,
		     json_pack("{s:o,s:o,s:[o,o],s:[o,o],s:[o,o],s:I}", "kind",
			       sf_json_str(b->kind), "id", sf_json_u64(b->id),
			       "at_start", sf_json_u64(b->at_start.count),
			       sf_json_u64(b->at_start.bytes), "released",
			       sf_json_u64(b->released.count),
			       sf_json_u64(b->released.bytes), "lasting",
			       sf_json_u64(b->lasting.count),
			       sf_json_u64(b->lasting.bytes), "impacting_bytes",
			       (json_int_t)b->impacting_bytes),
		     bad);
	}
	put(o, "heaps", hs, bad);
	return o;
}

char *sf_trace_text(const struct vms_trace_report *r)
{
	bool bad = false;
	json_t *o = sf_record_json(&vms_trace_record, r, &bad);
	json_t *sites = json_array(), *frames = json_array();
	json_t *stacks = json_array();
	struct frames t = { 0 };

	bad = bad || !o || !sites || !frames || !stacks ||
	      frames_init(&t, r) < 0;
	char *text = NULL;
	size_t i;

	for (i = 0; !bad && i < r->nsites; i++)
		push(sites, site_json(&r->sites[i], &t, &bad), &bad);
	for (i = 0; !bad && r->live && i < r->live->nstacks; i++)
		push(stacks, stack_json(&r->live->stacks[i], &t, &bad), &bad);
	for (i = 0; !bad && i < t.n; i++)
		push(frames, frame_json(t.list[i]), &bad);
	if (!bad) {
		put(o, "format", json_string("vmscope-trace"), &bad);
		put(o, "version", json_integer(SF_TRACE_VERSION), &bad);
		put(o, "frames", frames, &bad);
		put(o, "sites", sites, &bad);
		frames = sites = NULL;
	}
	if (!bad && r->live) {
		put(o, "stacks", stacks, &bad);
		stacks = NULL;
	}
	if (!bad && r->before_walked)
		put(o, "before", before_json(r, &bad), &bad);
	if (!bad)
		text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	json_decref(sites);
	json_decref(frames);
	json_decref(stacks);
	free(t.list);
	free(t.slot);
	return text;
}

/* ---- reading ---- */

static bool count_from(const json_t *v, struct vms_trace_count *c)
{
	return json_is_array(v) && json_array_size(v) == 2 &&
	       sf_get_u64(json_array_get(v, 0), &c->count) &&
	       sf_get_u64(json_array_get(v, 1), &c->bytes);
}

/* The frames table; NULL with why. */
static struct vms_trace_frame *frames_from(struct arena *a, const json_t *v,
					   size_t *n, const char **why)
{
	struct vms_trace_frame *f;
	size_t i;

	*n = json_array_size(v);
	if (!json_is_array(v)) {
		*why = "no \"frames\" array";
		return NULL;
	}
	f = arena_alloc(a, (*n ? *n : 1) * sizeof(*f));
	if (!f) {
		*why = "out of memory";
		return NULL;
	}
	for (i = 0; i < *n; i++) {
		const json_t *e = json_array_get(v, i);
		uint64_t line = 0;
		bool ok = json_is_object(e);

		memset(&f[i], 0, sizeof(f[i]));
		ok = ok && sf_obj_u64(e, "ip", &f[i].ip) &&
		     sf_obj_u64(e, "offset", &f[i].offset) &&
		     (!json_object_get(e, "line") ||
		      sf_obj_u64(e, "line", &line)) &&
		     line <= UINT32_MAX;
		if (ok) {
			f[i].line = (uint32_t)line;
			f[i].function = sf_get_str(
				a, json_object_get(e, "function"), &ok);
			f[i].file =
				sf_get_str(a, json_object_get(e, "file"), &ok);
			f[i].module = sf_get_str(
				a, json_object_get(e, "module"), &ok);
		}
		if (!ok) {
			*why = "a bad frame (each needs \"ip\" and \"offset\"; "
			       "strings or null)";
			return NULL;
		}
	}
	return f;
}

static bool kind_from(const json_t *v, enum vms_trace_kind *k)
{
	const char *s = json_string_value(v);
	int i;

	for (i = 0; s && i < VMS_TRACE_NKINDS; i++)
		if (strcmp(s, vms_trace_kind_names[i]) == 0) {
			*k = (enum vms_trace_kind)i;
			return true;
		}
	return false;
}

/* A site's "cells" (cells_json); false: not such an array. */
static bool cells_from(struct arena *a, const json_t *v,
		       struct vms_trace_site *s)
{
	size_t i, n = json_array_size(v);
	struct vms_trace_cell *c;

	if (!json_is_array(v) || n > UINT32_MAX)
		return false;
	if (!n)
		return true;
	if (!(c = arena_alloc(a, n * sizeof(*c))))
		return false;
	for (i = 0; i < n; i++) {
		const json_t *e = json_array_get(v, i), *f;
		uint64_t x;

		if (!json_is_array(e) || json_array_size(e) != 4 ||
		    !sf_get_u64(json_array_get(e, 0), &x) ||
		    x >= VMS_TRACE_ALIVE)
			return false;
		c[i].a = (uint32_t)x;
		f = json_array_get(e, 1);
		if (json_is_null(f))
			c[i].f = VMS_TRACE_ALIVE;
		else if (sf_get_u64(f, &x) && x >= c[i].a &&
			 x < VMS_TRACE_ALIVE)
			c[i].f = (uint32_t)x;
		else
			return false;
		if (!sf_get_u64(json_array_get(e, 2), &c[i].count) ||
		    !sf_get_u64(json_array_get(e, 3), &c[i].bytes))
			return false;
	}
	s->cells = c;
	s->ncells = (uint32_t)n;
	return true;
}

/* A site's frames, indices fr into the table f[0, nf), into s (in a);
 * false: an index past the table, or out of memory. */
static bool site_frames(struct arena *a, const json_t *fr,
			const struct vms_trace_frame *f, size_t nf,
			struct vms_trace_site *s)
{
	struct vms_trace_frame *sf;
	uint32_t k;

	s->nframes = (uint32_t)json_array_size(fr);
	sf = arena_alloc(a, (s->nframes ? s->nframes : 1) * sizeof(*sf));
	if (!sf)
		return false;
	for (k = 0; k < s->nframes; k++) {
		uint64_t at;

		if (!sf_get_u64(json_array_get(fr, k), &at) || at >= nf)
			return false;
		sf[k] = f[at];
	}
	s->frames = sf;
	return true;
}

/* The sites the kept allocations and events name that "sites" does not
 * list (stack_json), into lv; NULL, or what is wrong. */
static const char *stacks_from(struct arena *a, const json_t *v,
			       const struct vms_trace_frame *f, size_t nf,
			       struct vms_trace_live *lv)
{
	size_t i, ns = json_array_size(v);
	struct vms_trace_site *st;

	if (!v)
		return NULL; /* none */
	if (!json_is_array(v))
		return "\"stacks\" is not an array";
	if (!(st = arena_alloc(a, (ns ? ns : 1) * sizeof(*st))))
		return "out of memory";
	for (i = 0; i < ns; i++) {
		const json_t *e = json_array_get(v, i), *fr;
		uint64_t id;

		memset(&st[i], 0, sizeof(st[i]));
		fr = json_object_get(e, "frames");
		if (!json_is_object(e) || !sf_obj_u64(e, "id", &id) ||
		    id > UINT32_MAX ||
		    !kind_from(json_object_get(e, "kind"), &st[i].kind) ||
		    !json_is_array(fr) ||
		    json_array_size(fr) > SF_TRACE_FRAMES ||
		    !site_frames(a, fr, f, nf, &st[i]))
			return "a stack of \"stacks\" is not one (it needs "
			       "\"id\", \"kind\" and \"frames\" within the "
			       "table)";
		st[i].id = (uint32_t)id;
	}
	lv->stacks = st;
	lv->nstacks = ns;
	return NULL;
}

/* The sites, their frames from the table f[0, nf); NULL on success, else
 * what is wrong (in buf). */
static const char *sites_from(struct arena *a, const json_t *v,
			      const struct vms_trace_frame *f, size_t nf,
			      struct vms_trace_report *r, char *buf, size_t n)
{
	size_t i, k, ns = json_array_size(v);

	if (!json_is_array(v))
		return "no \"sites\" array";
	r->sites = arena_alloc(a, (ns ? ns : 1) * sizeof(*r->sites));
	if (!r->sites)
		return "out of memory";
	for (i = 0; i < ns; i++) {
		const json_t *e = json_array_get(v, i), *fr;
		struct vms_trace_site *s = &r->sites[i];
		uint64_t id;
		json_t *imp;

		memset(s, 0, sizeof(*s));
		fr = json_object_get(e, "frames");
		imp = json_object_get(e, "impacting_bytes");
		if (!json_is_object(e) || !sf_obj_u64(e, "id", &id) ||
		    id > UINT32_MAX ||
		    !kind_from(json_object_get(e, "kind"), &s->kind) ||
		    !json_is_array(fr) || !json_is_integer(imp)) {
			snprintf(buf, n,
				 "site %zu is not one (it needs \"id\", "
				 "\"kind\" heap, mmap or brk, \"frames\" and "
				 "\"impacting_bytes\")",
				 i);
			return buf;
		}
		s->id = (uint32_t)id;
		s->impacting_bytes = (int64_t)json_integer_value(imp);
		for (k = 0; k < VMS_TRACE_NIMPACTS; k++)
			if (!count_from(json_object_get(
						e, vms_trace_impact_names[k]),
					&s->by[k])) {
				snprintf(buf, n,
					 "site %zu has no \"%s\" [count, "
					 "bytes]",
					 i, vms_trace_impact_names[k]);
				return buf;
			}
		if (json_array_size(fr) > SF_TRACE_FRAMES) {
			snprintf(buf, n,
				 "site %zu has a stack of %zu frames (at most "
				 "%u)",
				 i, json_array_size(fr), SF_TRACE_FRAMES);
			return buf;
		}
		if (!site_frames(a, fr, f, nf, s)) {
			snprintf(buf, n,
				 "site %zu names a frame past the %zu the "
				 "section holds",
				 i, nf);
			return buf;
		}
		if (json_object_get(e, "cells") &&
		    !cells_from(a, json_object_get(e, "cells"), s)) {
			snprintf(buf, n,
				 "site %zu has bad \"cells\" (each [alloc "
				 "epoch, free epoch or null, count, bytes])",
				 i);
			return buf;
		}
	}
	r->nsites = ns;
	return NULL;
}

/* An attach's "before" (absent: none); NULL on success, else what is
 * wrong. */
static const char *before_from(struct arena *a, const json_t *v,
			       struct vms_trace_report *r)
{
	const json_t *hs = json_object_get(v, "heaps");
	bool ok = true;
	size_t i, n;

	if (!v)
		return NULL;
	if (!json_is_object(v) || !json_is_array(hs))
		return "\"before\" is not an object with \"heaps\"";
	n = json_array_size(hs);
	r->before = arena_alloc(a, (n ? n : 1) * sizeof(*r->before));
	if (!r->before)
		return "out of memory";
	r->before_partial = sf_get_str(a, json_object_get(v, "partial"), &ok);
	for (i = 0; ok && i < n; i++) {
		const json_t *e = json_array_get(hs, i);
		const json_t *imp = json_object_get(e, "impacting_bytes");
		struct vms_trace_before *b = &r->before[i];

		ok = json_is_object(e) && json_is_integer(imp) &&
		     sf_obj_u64(e, "id", &b->id) &&
		     count_from(json_object_get(e, "at_start"), &b->at_start) &&
		     count_from(json_object_get(e, "released"), &b->released) &&
		     count_from(json_object_get(e, "lasting"), &b->lasting);
		if (ok) {
			b->kind =
				sf_get_str(a, json_object_get(e, "kind"), &ok);
			ok = ok && b->kind;
			b->impacting_bytes = (int64_t)json_integer_value(imp);
		}
	}
	if (!ok)
		return "a heap of \"before\" is not one (it needs \"kind\", "
		       "\"id\", \"at_start\", \"released\", \"lasting\" "
		       "and \"impacting_bytes\")";
	r->nbefore = n;
	r->before_walked = true;
	return NULL;
}

static const char nomem[] = "out of memory", failed[] = "";

/* The "tracelive" section x into r->live (its stacks from o's
 * "stacks"); NULL, what is wrong, nomem, or failed (said in err). */
static const char *live_from(struct vms_snapshot *s, const json_t *o,
			     const struct sf_sec *x, const char *name,
			     const struct vms_trace_frame *f, size_t nf,
			     struct vms_trace_report *r, struct vms_error *err)
{
	struct vms_trace_live *lv = arena_alloc(&s->arena, sizeof(*lv));
	struct sf_whole w = { 0 };
	const char *why;

	if (!lv)
		return nomem;
	memset(lv, 0, sizeof(*lv));
	if ((why = stacks_from(&s->arena, json_object_get(o, "stacks"), f, nf,
			       lv)) != NULL)
		return why;
	if (sf_read_whole(x, SF_TRACELIVE_MAX, name, SF_SEC_TRACELIVE, &w,
			  err) < 0)
		return failed;
	why = sf_tracelive_from(&s->arena, (const unsigned char *)w.buf, w.len,
				r, lv);
	free(w.buf);
	if (why && strcmp(why, nomem) == 0)
		return nomem;
	if (why) {
		vms_error_file(err, name, "corrupted: its %s section: %s",
			       SF_SEC_TRACELIVE, why);
		return failed;
	}
	r->live = lv;
	return NULL;
}

int sf_trace_load(struct vms_snapshot *s, const struct sf_sec *x,
		  const struct sf_sec *live, const char *name,
		  struct vms_error *err)
{
	struct sf_whole w = { 0 };
	struct vms_trace_report *r;
	struct vms_trace_frame *f = NULL;
	const char *fmt, *why = NULL;
	char buf[160];
	json_error_t jerr;
	json_t *o = NULL;
	uint64_t values, version;
	size_t nf = 0;
	int rc = -1;

	if (sf_read_whole(x, SF_TRACE_MAX, name, SF_SEC_TRACE, &w, err) < 0)
		return -1;
	if (sf_json_measure(w.buf, w.len, name, SF_SEC_TRACE, &values, err) < 0)
		goto out;
	if (values > SF_TRACE_VALUES) {
		vms_error_file(err, name,
			       "corrupted: its trace section holds %llu "
			       "values, more than a trace report needs (%u): "
			       "refused",
			       (unsigned long long)values, SF_TRACE_VALUES);
		goto out;
	}
	o = json_loadb(w.buf, w.len, 0, &jerr);
	if (!o) {
		vms_error_file(err, name,
			       "corrupted: its trace section does not parse "
			       "(line %d: %s)",
			       jerr.line, jerr.text);
		goto out;
	}
	fmt = json_string_value(json_object_get(o, "format"));
	r = arena_alloc(&s->arena, sizeof(*r));
	if (!r) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
		goto out;
	}
	if (!fmt || strcmp(fmt, "vmscope-trace") != 0 ||
	    !sf_obj_u64(o, "version", &version) || version == 0)
		why = "it is not a trace report (no \"format\": "
		      "\"vmscope-trace\" and \"version\")";
	else if (!sf_record_from(&s->arena, o, &vms_trace_record, r, 0))
		why = "a field of the report is missing or not what it says";
	else if (r->from_ns > r->to_ns)
		why = "its window ends before it starts";
	else if ((f = frames_from(&s->arena, json_object_get(o, "frames"), &nf,
				  &why)) != NULL)
		why = sites_from(&s->arena, json_object_get(o, "sites"), f, nf,
				 r, buf, sizeof(buf));
	if (!why)
		why = before_from(&s->arena, json_object_get(o, "before"), r);
	if (!why && live->found)
		why = live_from(s, o, live, name, f, nf, r, err);
	if (why == nomem) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
		goto out;
	}
	if (why == failed)
		goto out; /* said in err */
	if (why) {
		vms_error_file(err, name, "corrupted: its trace section: %s",
			       why);
		goto out;
	}
	s->trace = r;
	rc = 0;
out:
	json_decref(o);
	free(w.buf);
	return rc;
}
