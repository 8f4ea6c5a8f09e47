/* test_schema.c — every record of records.h, field by field, through every
 * writer and back: each field of the heap, malloc, allocator and
 * managed-heap records (a managed heap's parts too) set to a value of its own, written
 * by the JSON export and into a snapshot file, read back, and compared;
 * each smaps counter likewise through the smaps parser (the fast path and
 * the general one), the JSON export and a snapshot file, and each figure
 * of the kernel's rollup through its parser, the export and a file. The
 * walks go over the declarations (the field tables), not over a hand
 * list, so a field one writer forgets fails here. The checks are shown
 * to fail: for every field, a JSON object without it, a file record
 * written by a table without it, and smaps (or smaps_rollup) text without
 * its line are each caught.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/outbuf.h"
#include "capture/file/snapfile.h"
#include "capture/file/snapfile_int.h"
#include "export/export.h"
#include "linux/procfs.h"
#include "linux/smaps.h"
#include "pipeline.h"
#include "model/records.h"
#include "model/snapshot.h"
#include "model/source.h"
#include "tap.h"

/* The regions of the test's smaps text. */
#define NREG 3

static const struct vms_record *const records[] = {
	&vms_heap_record,
	&vms_malloc_record,
	&vms_allocator_record,
	&vms_managed_record,
	&vms_managed_part_record,
};

/* ---- filling a record: each field a value of its own ---- */

/* pass 1: every field set, none to its default (a field a reader leaves
 * out reads as 0, false, NULL, empty or -1: a difference); pass 2: the
 * unknowns (-1, NULL, false, empty) and figures above INT64_MAX where the
 * writer takes them (big: a snapshot file writes them as "0x..."; the JSON
 * export's numbers must stay in what a JSON reader takes). */
static void fill(struct arena *a, const struct vms_record *rec, void *p,
		 unsigned tag, int pass, bool big)
{
	size_t i;
	uint32_t k;

	memset(p, 0, rec->size);
	for (i = 0; i < rec->nfields; i++) {
		const struct vms_field *f = &rec->fields[i];
		char *at = (char *)p + f->off;
		uint64_t v = (uint64_t)tag * 1000 + i + 1, u;
		int64_t n;
		const char *str;
		bool b;
		uint32_t cnt = pass == 1 ? 2 : 0;

		switch (f->kind) {
		case VMS_FK_U64:
			u = pass == 1 ? v * 4099
			    : big ? UINT64_MAX - v
				  : (uint64_t)INT64_MAX - v;
			memcpy(at, &u, sizeof(u));
			break;
		case VMS_FK_HEX:
			u = pass == 1 ? 0x7f0000000000ull + (v << 12)
				      : UINT64_MAX - v;
			memcpy(at, &u, sizeof(u));
			break;
		case VMS_FK_I64N:
			n = pass == 1 ? (int64_t)v * 8191 : -1;
			memcpy(at, &n, sizeof(n));
			break;
		case VMS_FK_STR:
			str = NULL;
			if (pass == 1) {
				char buf[96];

				snprintf(buf, sizeof(buf), "%s.%s #%u",
					 rec->name, f->member, tag);
				str = arena_intern(a, buf, strlen(buf));
			}
			memcpy(at, &str, sizeof(str));
			break;
		case VMS_FK_BOOL:
			b = pass == 1;
			memcpy(at, &b, sizeof(b));
			break;
		case VMS_FK_SEGS: {
			struct vms_heap_seg *sg =
				arena_alloc(a, 2 * sizeof(*sg));

			for (k = 0; k < 2; k++) {
				sg[k].start = 0x10000000ull * (v + k);
				sg[k].end = sg[k].start + 4096 * (k + 1);
			}
			memcpy(at, &sg, sizeof(sg));
			memcpy((char *)p + f->noff, &cnt, sizeof(cnt));
			break;
		}
		case VMS_FK_PARTS: {
			struct vms_managed_part *pt =
				arena_alloc(a, 2 * sizeof(*pt));

			for (k = 0; k < 2; k++)
				fill(a, &vms_managed_part_record, &pt[k],
				     tag * 10 + k + 1, 1, big);
			memcpy(at, &pt, sizeof(pt));
			memcpy((char *)p + f->noff, &cnt, sizeof(cnt));
			break;
		}
		}
	}
}

/* ---- comparing ---- */

/* Whether field f of the records at p and q is the same; *which names the
 * first that is not. Returns the number of fields that differ. */
static int same_record(const struct vms_record *rec, const void *p,
		       const void *q, const char **which)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < rec->nfields; i++) {
		const struct vms_field *f = &rec->fields[i];
		const char *x = (const char *)p + f->off;
		const char *y = (const char *)q + f->off;
		const char *s1, *s2;
		uint32_t n1 = 0, n2 = 0, k;
		bool same = true;

		switch (f->kind) {
		case VMS_FK_U64:
		case VMS_FK_HEX:
		case VMS_FK_I64N:
			same = memcmp(x, y, 8) == 0;
			break;
		case VMS_FK_BOOL:
			same = *(const bool *)x == *(const bool *)y;
			break;
		case VMS_FK_STR:
			memcpy(&s1, x, sizeof(s1));
			memcpy(&s2, y, sizeof(s2));
			same = (!s1 && !s2) || (s1 && s2 && !strcmp(s1, s2));
			break;
		case VMS_FK_SEGS:
		case VMS_FK_PARTS:
			memcpy(&n1, (const char *)p + f->noff, sizeof(n1));
			memcpy(&n2, (const char *)q + f->noff, sizeof(n2));
			same = n1 == n2;
			for (k = 0; same && k < n1; k++) {
				const char *a1, *a2;

				memcpy(&a1, x, sizeof(a1));
				memcpy(&a2, y, sizeof(a2));
				if (f->kind == VMS_FK_SEGS)
					same = !memcmp(
						a1 + k * sizeof(struct vms_heap_seg),
						a2 + k * sizeof(struct vms_heap_seg),
						sizeof(struct vms_heap_seg));
				else
					same = !same_record(
						&vms_managed_part_record,
						a1 + k * sizeof(struct vms_managed_part),
						a2 + k * sizeof(struct vms_managed_part),
						which);
			}
			break;
		}
		if (!same) {
			if (!bad++)
				*which = f->member;
		}
	}
	return bad;
}

static bool hex_is(const json_t *v, uint64_t want)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)want);
	return json_is_string(v) && strcmp(json_string_value(v), buf) == 0;
}

/* Whether the JSON export's object o holds exactly the record at p: every
 * field under its key, as its kind is written, and no other key. Returns
 * the number of fields that differ; *which names the first. */
static int json_is_record(const struct vms_record *rec, const void *p,
			  const json_t *o, const char **which)
{
	size_t i;
	int bad = 0;

	if (!json_is_object(o)) {
		*which = "(not an object)";
		return 1;
	}
	for (i = 0; i < rec->nfields; i++) {
		const struct vms_field *f = &rec->fields[i];
		const char *at = (const char *)p + f->off;
		const json_t *v = json_object_get(o, f->json);
		const char *str;
		uint64_t u;
		int64_t n;
		uint32_t cnt, k;
		bool same;

		switch (f->kind) {
		case VMS_FK_U64:
			memcpy(&u, at, sizeof(u));
			same = json_is_integer(v) &&
			       (uint64_t)json_integer_value(v) == u;
			break;
		case VMS_FK_HEX:
			memcpy(&u, at, sizeof(u));
			same = hex_is(v, u);
			break;
		case VMS_FK_I64N:
			memcpy(&n, at, sizeof(n));
			same = n < 0 ? json_is_null(v)
				     : json_is_integer(v) &&
						 json_integer_value(v) == n;
			break;
		case VMS_FK_STR:
			memcpy(&str, at, sizeof(str));
			same = str ? json_is_string(v) &&
					     !strcmp(json_string_value(v), str)
				   : json_is_null(v);
			break;
		case VMS_FK_BOOL:
			same = json_is_boolean(v) &&
			       json_is_true(v) == *(const bool *)at;
			break;
		default:
			memcpy(&cnt, (const char *)p + f->noff, sizeof(cnt));
			same = json_is_array(v) && json_array_size(v) == cnt;
			for (k = 0; same && k < cnt; k++) {
				const json_t *e = json_array_get(v, k);
				const char *arr, *w;

				memcpy(&arr, at, sizeof(arr));
				if (f->kind == VMS_FK_SEGS) {
					const struct vms_heap_seg *sg =
						(const void *)arr;

					same = json_object_size(e) == 2 &&
					       hex_is(json_object_get(e, "start"),
						      sg[k].start) &&
					       hex_is(json_object_get(e, "end"),
						      sg[k].end);
				} else {
					same = !json_is_record(
						&vms_managed_part_record,
						arr + k * sizeof(struct vms_managed_part),
						e, &w);
				}
			}
			break;
		}
		if (!same && !bad++)
			*which = f->member;
	}
	/* (a heap's glibc figures are written beside its record's) */
	if (!bad && rec != &vms_heap_record &&
	    json_object_size(o) != rec->nfields) {
		*which = "(a key no field has)";
		bad = 1;
	}
	return bad;
}

/* ---- the smaps text, its counters each a value of its own ---- */

static uint64_t counter_kb(size_t region, size_t counter)
{
	return region * 64 + counter + 1;
}

/* The smaps text of NREG anonymous regions, every counter's line (but
 * skip's, when skip < VMS_NCOUNTERS) with its value, between lines of keys
 * the parser keeps nothing of. Malloc'd. */
static char *smaps_text(size_t skip, size_t *len)
{
	size_t cap = 8192, n = 0, j, i;
	char *t = malloc(cap);

	for (j = 0; j < NREG; j++) {
		n += (size_t)snprintf(t + n, cap - n,
				      "%llx-%llx rw-p 00000000 00:00 0 \n",
				      0x10000000ull * (j + 1),
				      0x10000000ull * (j + 1) + 0x10000);
		n += (size_t)snprintf(t + n, cap - n, "Size:  64 kB\n");
		for (i = 0; i < VMS_NCOUNTERS; i++) {
			if (i == skip)
				continue;
			n += (size_t)snprintf(
				t + n, cap - n, "%s:%*s%llu kB\n",
				vms_counter_fields[i].smaps,
				(int)(16 - vms_counter_fields[i].smaps_len), "",
				(unsigned long long)counter_kb(j, i));
			if (i == 1)
				n += (size_t)snprintf(t + n, cap - n,
						      "VmscopeNoSuchKey:  4 kB\n");
		}
		n += (size_t)snprintf(t + n, cap - n,
				      "VmFlags: rd wr mr mw me ac \n");
	}
	*len = n;
	return t;
}

/* The counters of s's regions against the text's values: the number that
 * differ; *which names the first. */
static int counters_are(const struct vms_snapshot *s, const char **which)
{
	size_t j, i;
	int bad = 0;

	if (s->nregions != NREG) {
		*which = "(the number of regions)";
		return 1;
	}
	for (j = 0; j < NREG; j++)
		for (i = 0; i < VMS_NCOUNTERS; i++) {
			uint64_t v;

			memcpy(&v,
			       (const char *)&s->regions[j].c +
				       vms_counter_fields[i].off,
			       sizeof(v));
			if (v != counter_kb(j, i) << 10 && !bad++)
				*which = vms_counter_fields[i].member;
		}
	return bad;
}

/* The counters of the JSON export's regions (ex: its parse) against the
 * text's values. */
static int json_counters_are(const json_t *ex, const char **which)
{
	const json_t *regs = json_object_get(ex, "regions");
	size_t j, i;
	int bad = 0;

	if (json_array_size(regs) != NREG) {
		*which = "(the number of regions)";
		return 1;
	}
	for (j = 0; j < NREG; j++)
		for (i = 0; i < VMS_NCOUNTERS; i++) {
			const json_t *v =
				json_object_get(json_array_get(regs, j),
						vms_counter_fields[i].member);

			if ((!json_is_integer(v) ||
			     (uint64_t)json_integer_value(v) !=
				     counter_kb(j, i) << 10) &&
			    !bad++)
				*which = vms_counter_fields[i].member;
		}
	return bad;
}

/* ---- the rollup: each figure a value of its own ---- */

static uint64_t rollup_kb(size_t i)
{
	return 7 * 1024 + i * 3 + 1;
}

static void rollup_fill(struct vms_rollup *k)
{
	size_t i;

	memset(k, 0, sizeof(*k));
	k->valid = true;
	for (i = 0; i < VMS_NROLLUP; i++) {
		uint64_t v = rollup_kb(i) << 10;

		memcpy((char *)k + vms_rollup_fields[i].off, &v, sizeof(v));
	}
}

/* The rollup k against rollup_fill's values (o: the JSON export's
 * "kernel_rollup" instead, when not NULL): how many figures differ. */
static int rollup_is(const struct vms_rollup *k, const json_t *o,
		     const char **which)
{
	size_t i;
	int bad = 0;

	if (!o && !k->valid) {
		*which = "(not valid)";
		return 1;
	}
	for (i = 0; i < VMS_NROLLUP; i++) {
		const struct vms_rollup_field *f = &vms_rollup_fields[i];
		uint64_t v = 0;

		if (o) {
			const json_t *j = json_object_get(o, f->member);

			v = json_is_integer(j) ? (uint64_t)json_integer_value(j)
					       : 0;
		} else {
			memcpy(&v, (const char *)k + f->off, sizeof(v));
		}
		if (v != rollup_kb(i) << 10 && !bad++)
			*which = f->member;
	}
	if (!bad && o && json_object_size(o) != VMS_NROLLUP) {
		*which = "(a key no figure has)";
		bad = 1;
	}
	return bad;
}

/* smaps_rollup text with every figure's line (but skip's). */
static void rollup_parsed(void)
{
	size_t skip, i;
	int missed = 0;

	for (skip = 0; skip <= VMS_NROLLUP; skip++) {
		char t[2048];
		size_t n = (size_t)snprintf(
			t, sizeof(t),
			"00400000-7fff00000000 ---p 00000000 00:00 0   "
			"[rollup]\n");
		struct vms_rollup k;
		const char *w = "none";
		int bad;

		for (i = 0; i < VMS_NROLLUP; i++)
			if (i != skip)
				n += (size_t)snprintf(
					t + n, sizeof(t) - n, "%s:%*s%llu kB\n",
					vms_rollup_fields[i].smaps, 8, "",
					(unsigned long long)rollup_kb(i));
		procfs_rollup_parse(t, n, &k);
		bad = rollup_is(&k, NULL, &w);
		if (skip == VMS_NROLLUP)
			ok(!bad,
			   "smaps_rollup parser: every figure of the list "
			   "(first difference: %s)",
			   w);
		else if (!bad)
			missed++;
	}
	ok(!missed,
	   "self-check: each of the %d rollup figures, its line left out, "
	   "is caught (%d missed)",
	   VMS_NROLLUP, missed);
}

/* ---- the writers ---- */

/* s exported as JSON, parsed (NULL when it is not JSON). */
static json_t *exported(const struct vms_snapshot *s)
{
	struct vms_error err;
	struct outbuf o;
	json_error_t jerr;
	json_t *j = NULL;
	int fd = memfd_create("vms-schema", 0);
	off_t n;
	char *text;

	if (fd < 0 || outbuf_open_fd(&o, fd, &err) < 0)
		return NULL;
	export_json(s, &o);
	if (outbuf_close(&o, &err) < 0)
		return NULL;
	n = lseek(fd, 0, SEEK_END);
	text = malloc((size_t)n + 1);
	if (text && pread(fd, text, (size_t)n, 0) == n) {
		text[n] = 0;
		j = json_loads(text, 0, &jerr);
		if (!j)
			printf("# not JSON: %s (line %d)\n", jerr.text,
			       jerr.line);
	}
	free(text);
	close(fd);
	return j;
}

/* A snapshot of the test's smaps text (its raw text kept, as a capture
 * with keep_raw), the records (pass) set; NULL on failure. */
static struct vms_snapshot *made(int pass, bool big)
{
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_error err;
	struct vms_malloc *m;
	struct vms_allocator *al;
	struct vms_managed mg;
	struct vms_heap *h;
	size_t len;
	char *t = smaps_text(VMS_NCOUNTERS, &len);

	s->raw = calloc(1, sizeof(*s->raw));
	if (!s->raw || vms_raw_append_smaps(s->raw, t, len) < 0 ||
	    smaps_parse_buffer(s, t, len, &err) < 0) {
		free(t);
		return NULL;
	}
	free(t);
	m = arena_alloc(&s->arena, sizeof(*m));
	al = arena_alloc(&s->arena, sizeof(*al));
	h = arena_alloc(&s->arena, sizeof(*h));
	fill(&s->arena, &vms_heap_record, h, 4, pass, big);
	if (!h->kind)
		h->kind = "a heap";
	s->heaps = h;
	s->nheaps = 1;
	fill(&s->arena, &vms_malloc_record, m, 1, pass, big);
	fill(&s->arena, &vms_allocator_record, al, 2, pass, big);
	fill(&s->arena, &vms_managed_record, &mg, 3, pass, big);
	/* a file keeps a managed heap under its runtime's step (jvm), and
	 * the allocator's name cannot be null */
	mg.runtime = "jvm";
	if (!al->name)
		al->name = "an allocator";
	if (mg.end < mg.start)
		mg.end = mg.start;
	s->glibc = m;
	s->allocator = al;
	rollup_fill(&s->rollup);
	if (vms_managed_add(s, &mg) < 0)
		return NULL;
	return s;
}

/* s saved as a snapshot file and loaded, the steps' records put back as
 * a load does (the source's restore); NULL on failure. */
static struct vms_snapshot *saved_and_loaded(const struct vms_snapshot *s)
{
	struct vms_snapshot *l = vms_snapshot_new();
	const struct vms_kept *kept[VMS_STEPS_MAX + 1];
	struct vms_error err;
	void *buf;
	size_t len;

	vms_steps_kept(kept);
	if (snapfile_encode(s, kept, &buf, &len, &err) < 0) {
		printf("# encode: %s\n", err.msg);
		return NULL;
	}
	if (snapfile_load(buf, len, "schema.vms", false, kept, l, &err) < 0 ||
	    vms_source_restore(l, "heaps", &err) < 0 ||
	    vms_source_restore(l, "malloc", &err) < 0 ||
	    vms_source_restore(l, "allocator", &err) < 0 ||
	    vms_source_restore(l, "jvm", &err) < 0) {
		printf("# load: %s\n", err.msg);
		free(buf);
		vms_snapshot_free(l);
		return NULL;
	}
	free(buf);
	return l;
}

/* ---- the tests ---- */

static void round_trips(int pass, bool big)
{
	struct vms_snapshot *s = made(pass, big), *l;
	const char *w = "none";
	json_t *ex;

	ok(s != NULL, "pass %d: a snapshot with every record set", pass);
	if (!s)
		return;
	if (!big) {
		ex = exported(s);
		ok(ex != NULL, "pass %d: the JSON export is JSON", pass);
		ok(ex && !json_is_record(&vms_heap_record, s->heaps,
					 json_array_get(
						 json_object_get(ex, "heaps"), 0),
					 &w),
		   "pass %d: JSON export: \"heaps\" has every field of the "
		   "record (first difference: %s)",
		   pass, w);
		ok(ex && !json_is_record(&vms_malloc_record, s->glibc,
					 json_object_get(ex, "malloc"), &w),
		   "pass %d: JSON export: \"malloc\" has every field of the "
		   "record (first difference: %s)",
		   pass, w);
		ok(ex && !json_is_record(&vms_allocator_record, s->allocator,
					 json_object_get(ex, "allocator"), &w),
		   "pass %d: JSON export: \"allocator\" has every field "
		   "(first difference: %s)",
		   pass, w);
		ok(ex && !json_is_record(
				 &vms_managed_record, &s->managed[0],
				 json_array_get(json_object_get(ex, "managed"),
						0),
				 &w),
		   "pass %d: JSON export: \"managed\" has every field, its "
		   "parts every part's (first difference: %s)",
		   pass, w);
		ok(ex && !json_counters_are(ex, &w),
		   "pass %d: JSON export: every region has every smaps "
		   "counter (first difference: %s)",
		   pass, w);
		ok(ex && !rollup_is(&s->rollup,
				    json_object_get(
					    json_object_get(ex, "capture"),
					    "kernel_rollup"),
				    &w),
		   "pass %d: JSON export: the kernel's rollup has every "
		   "figure (first difference: %s)",
		   pass, w);
		json_decref(ex);
	}
	l = saved_and_loaded(s);
	ok(l != NULL, "pass %d%s: saved and loaded", pass,
	   big ? " (figures above INT64_MAX)" : "");
	if (l) {
		ok(l->nheaps == 1 &&
			   !same_record(&vms_heap_record, s->heaps, l->heaps,
					&w),
		   "pass %d: snapshot file: the heap record comes back field "
		   "by field (first difference: %s)",
		   pass, w);
		ok(l->glibc &&
			   !same_record(&vms_malloc_record, s->glibc, l->glibc,
					&w),
		   "pass %d: snapshot file: the malloc record comes back "
		   "field by field (first difference: %s)",
		   pass, w);
		ok(l->allocator && !same_record(&vms_allocator_record,
						s->allocator, l->allocator, &w),
		   "pass %d: snapshot file: the allocator record comes back "
		   "(first difference: %s)",
		   pass, w);
		ok(l->nmanaged == 1 &&
			   !same_record(&vms_managed_record, &s->managed[0],
					&l->managed[0], &w),
		   "pass %d: snapshot file: the managed heap and its parts "
		   "come back (first difference: %s)",
		   pass, w);
		ok(!counters_are(l, &w),
		   "pass %d: snapshot file: every region's smaps counters "
		   "come back (first difference: %s)",
		   pass, w);
		ok(!rollup_is(&l->rollup, NULL, &w),
		   "pass %d: snapshot file: the rollup comes back, valid "
		   "(first difference: %s)",
		   pass, w);
		vms_snapshot_free(l);
	}
	vms_snapshot_free(s);
}

/* The smaps parser takes every counter of the list, on its fast path
 * (the regions after the first) and its general one (slow). */
static void counters_parsed(void)
{
	size_t len;
	char *t = smaps_text(VMS_NCOUNTERS, &len);
	int slow;

	for (slow = 0; slow < 2; slow++) {
		struct vms_snapshot *s = vms_snapshot_new();
		struct smaps_parser p;
		struct vms_error err;
		const char *w = "none";

		smaps_parser_init(&p, s);
		p.slow = slow;
		ok(smaps_parse(&p, t, len, true, &err) == (ssize_t)len &&
			   smaps_finish(&p, &err) == 0 && !counters_are(s, &w),
		   "smaps parser (%s): every counter of the list, in every "
		   "region (first difference: %s)",
		   slow ? "the general path" : "the fast path", w);
		vms_snapshot_free(s);
	}
	free(t);
}

/* Where made()'s record rec is, in s and in its export ex. */
static void record_at(const struct vms_snapshot *s, const json_t *ex,
		      const struct vms_record *rec, const void **p,
		      const json_t **o)
{
	const json_t *mg = json_array_get(json_object_get(ex, "managed"), 0);

	if (rec == &vms_heap_record) {
		*p = s->heaps;
		*o = json_array_get(json_object_get(ex, "heaps"), 0);
	} else if (rec == &vms_malloc_record) {
		*p = s->glibc;
		*o = json_object_get(ex, "malloc");
	} else if (rec == &vms_allocator_record) {
		*p = s->allocator;
		*o = json_object_get(ex, "allocator");
	} else if (rec == &vms_managed_record) {
		*p = &s->managed[0];
		*o = mg;
	} else {
		*p = &s->managed[0].parts[0];
		*o = json_array_get(json_object_get(mg, "parts"), 0);
	}
}

/* The checks fail when a field is missing: the test can fail. */
static void checks_can_fail(void)
{
	struct vms_snapshot *s = made(1, false);
	json_t *ex = s ? exported(s) : NULL;
	size_t r, i;
	int missed_json = 0, missed_file = 0, fields = 0, missed_smaps = 0;
	const char *w = "none";

	ok(ex != NULL, "self-check: an export to take fields from");
	if (!ex)
		return;
	for (r = 0; r < sizeof(records) / sizeof(records[0]); r++) {
		const struct vms_record *rec = records[r];
		const void *p;
		const json_t *o;

		record_at(s, ex, rec, &p, &o);
		for (i = 0; i < rec->nfields; i++) {
			struct vms_field less[64];
			struct vms_record forgot = *rec;
			json_t *copy = json_deep_copy(o), *file;
			void *back = calloc(1, rec->size);
			struct arena a;
			bool bad = false;

			arena_init(&a);
			fields++;
			/* the export without the field */
			json_object_del(copy, rec->fields[i].json);
			if (!json_is_record(rec, p, copy, &w) ||
			    strcmp(w, rec->fields[i].member) != 0)
				missed_json++;
			json_decref(copy);
			/* a file's writer walking a table without it */
			memcpy(less, rec->fields, i * sizeof(less[0]));
			memcpy(less + i, rec->fields + i + 1,
			       (rec->nfields - i - 1) * sizeof(less[0]));
			forgot.fields = less;
			forgot.nfields = rec->nfields - 1;
			file = sf_record_json(&forgot, p, &bad);
			if (!bad &&
			    sf_record_from(&a, file, rec, back, NREG) &&
			    !same_record(rec, p, back, &w))
				missed_file++;
			json_decref(file);
			arena_fini(&a);
			free(back);
		}
	}
	ok(fields > 40 && !missed_json,
	   "self-check: each of the %d fields, left out of the JSON "
	   "export's object, is caught (%d missed)",
	   fields, missed_json);
	ok(!missed_file,
	   "self-check: each field, left out by a file writer's table, is "
	   "caught (a record refused or read back different; %d missed)",
	   missed_file);
	for (i = 0; i < VMS_NCOUNTERS; i++) {
		struct vms_snapshot *c = vms_snapshot_new();
		struct vms_error err;
		size_t len;
		char *t = smaps_text(i, &len);

		if (smaps_parse_buffer(c, t, len, &err) < 0 ||
		    !counters_are(c, &w) ||
		    strcmp(w, vms_counter_fields[i].member) != 0)
			missed_smaps++;
		free(t);
		vms_snapshot_free(c);
	}
	ok(!missed_smaps,
	   "self-check: each of the %d counters, its line left out of the "
	   "smaps text, is caught (%d missed)",
	   VMS_NCOUNTERS, missed_smaps);
	json_decref(ex);
	vms_snapshot_free(s);
}

int main(void)
{
	counters_parsed();
	rollup_parsed();
	round_trips(1, false);
	round_trips(2, false);
	round_trips(2, true);
	checks_can_fail();
	return tap_done();
}
