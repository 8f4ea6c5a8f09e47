/* test_schema.c — every record of records.h, field by field, through every
 * writer and back: each field of the heap, malloc, allocator and
 * managed-heap records (a managed heap's parts too) set to a value of its
 * own, written by the JSON export and into a snapshot file, read back, and
 * compared. The walks go over the declarations (the field tables), not
 * over a hand list, so a field one writer forgets fails here. The checks
 * are shown to fail: for every field, a JSON object without it and a file
 * record written by a table without it are each caught. The smaps
 * counters and the rollup are test_schema_smaps.c's; what the two share,
 * schema_util.h.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "capture/file/snapfile_int.h"
#include "linux/smaps.h"
#include "model/records.h"
#include "model/snapshot.h"
#include "tap.h"

#include "schema_util.h"

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

/* ---- the tests ---- */

/* A snapshot of the test's smaps text (its raw text kept, as a capture
 * with keep_raw: a file needs its regions), the records (pass) set; NULL
 * on failure. */
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
	if (vms_managed_add(s, &mg) < 0)
		return NULL;
	return s;
}

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
		vms_snapshot_free(l);
	}
	vms_snapshot_free(s);
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
	int missed_json = 0, missed_file = 0, fields = 0;
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
	json_decref(ex);
	vms_snapshot_free(s);
}

int main(void)
{
	round_trips(1, false);
	round_trips(2, false);
	round_trips(2, true);
	checks_can_fail();
	return tap_done();
}
