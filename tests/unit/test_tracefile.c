/* test_tracefile.c — a trace report (model/trace.h) through a snapshot
 * file's "trace" section and back, field by field: every field of
 * records.h's VMS_TRACE_FIELDS walked from its table (set to a value of
 * its own; then the unknowns and figures above INT64_MAX), and the sites
 * and frames beside them (strings that are not UTF-8, null strings, no
 * line, a site without frames, a negative impacting size), and an
 * attach's "before" (pass 2: two heaps, figures above INT64_MAX, a
 * partial that is not UTF-8; pass 1: none, none loaded). The check is
 * shown to fail: a loaded report with one field changed is caught, field
 * by field, and one of "before"'s. Then two reports compared (vms_trace_diff): sites matched by
 * kind and stack although their addresses differ, each added, removed,
 * changed or the same counted, the largest move first; a report compared
 * with itself has no change.
 */
#include <stdlib.h>
#include <string.h>

#include "capture/file/snapfile.h"
#include "linux/smaps.h"
#include "model/records.h"
#include "model/snapshot.h"
#include "model/trace.h"
#include "pipeline.h"
#include "tap.h"

static const char smaps[] =
	"00400000-00401000 r-xp 00000000 08:01 1234 /bin/x\n"
	"Size:                  4 kB\n"
	"Rss:                   4 kB\n"
	"Pss:                   4 kB\n"
	"VmFlags: rd ex mr mw me\n";

/* The report's trace-wide fields, each a value of its own (pass 1), or
 * the unknowns and large figures (pass 2). */
static void fill_fields(struct vms_trace_report *r, int pass)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < vms_trace_record.nfields; i++) {
		const struct vms_field *f = &vms_trace_record.fields[i];
		char *at = (char *)r + f->off;
		uint64_t u = pass == 1 ? 1000 + i * 7 : UINT64_MAX - i;
		int64_t n = pass == 1 ? (int64_t)(256 + i) : -1;
		bool b = pass == 1;

		if (f->kind == VMS_FK_U64)
			memcpy(at, &u, sizeof(u));
		else if (f->kind == VMS_FK_I64N)
			memcpy(at, &n, sizeof(n));
		else if (f->kind == VMS_FK_BOOL)
			memcpy(at, &b, sizeof(b));
	}
	if (r->from_ns > r->to_ns) { /* a window that ends after it starts */
		uint64_t t = r->from_ns;

		r->from_ns = r->to_ns;
		r->to_ns = t;
	}
}

static struct vms_trace_frame frames_a[3] = {
	{ 0x401000, "leak\xff\xfe", "/src/a dir/leak.c", 42, "/bin/x", 17 },
	{ 0x401100, "main", NULL, 0, "/bin/x", 5 },
	{ 0x7f0000001234, NULL, NULL, 0, NULL, 0x1234 },
};
static struct vms_trace_frame frames_b[2] = {
	{ 0x401000, "leak\xff\xfe", "/src/a dir/leak.c", 42, "/bin/x", 17 },
	{ 0x7f0000009999, NULL, NULL, 0, "/lib/libc.so.6", 0x9999 },
};

static void fill_sites(struct vms_trace_report *r, struct vms_trace_site *s,
		       int pass)
{
	int k;

	memset(s, 0, 3 * sizeof(*s));
	s[0] = (struct vms_trace_site){ .id = 7, .kind = VMS_TRACE_HEAP,
					.frames = frames_a, .nframes = 3 };
	s[1] = (struct vms_trace_site){ .id = 9, .kind = VMS_TRACE_MMAP,
					.frames = frames_b, .nframes = 2 };
	s[2] = (struct vms_trace_site){ .id = 11, .kind = VMS_TRACE_BRK };
	for (k = 0; k < VMS_TRACE_NIMPACTS; k++) {
		s[0].by[k] = (struct vms_trace_count){ 10 + k, 400 + k * 40 };
		s[1].by[k] = (struct vms_trace_count){
			pass == 1 ? (uint64_t)(3 + k) : UINT64_MAX - (uint64_t)k,
			pass == 1 ? (uint64_t)4096 << k : UINT64_MAX - 2 * (uint64_t)k
		};
	}
	s[0].impacting_bytes = 123456;
	s[1].impacting_bytes = -40960;
	r->sites = s;
	r->nsites = 3;
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* An attach's "before" on pass 2, none on pass 1. */
static void fill_before(struct vms_trace_report *r, struct vms_trace_before *b,
			int pass)
{
	r->before_walked = pass == 2;
	r->before_partial = NULL;
	r->before = NULL;
	r->nbefore = 0;
	if (pass != 2)
		return;
	b[0] = (struct vms_trace_before){ "glibc-main", 0x7f0000001000ull,
					  { 50, 2000 },		  { 20, 800 },
					  { 30, 1200 },		  -800 };
	b[1] = (struct vms_trace_before){ "glibc-arena",
					  UINT64_MAX - 3,
					  { UINT64_MAX, UINT64_MAX - 1 },
					  { 0, 0 },
					  { 1, 24 },
					  INT64_MIN + 1 };
	r->before_partial = "an arena \xff locked at the walk";
	r->before = b;
	r->nbefore = 2;
}

static bool before_same(const struct vms_trace_before *x,
			const struct vms_trace_before *y)
{
	return str_same(x->kind, y->kind) && x->id == y->id &&
	       x->at_start.count == y->at_start.count &&
	       x->at_start.bytes == y->at_start.bytes &&
	       x->released.count == y->released.count &&
	       x->released.bytes == y->released.bytes &&
	       x->lasting.count == y->lasting.count &&
	       x->lasting.bytes == y->lasting.bytes &&
	       x->impacting_bytes == y->impacting_bytes;
}

/* The number of fields of the two reports that differ; *which names the
 * first. */
static int differ(const struct vms_trace_report *a,
		  const struct vms_trace_report *b, const char **which)
{
	size_t i, n = 0;
	uint32_t f;
	int k;

	*which = "none";
	for (i = 0; i < vms_trace_record.nfields; i++) {
		const struct vms_field *fd = &vms_trace_record.fields[i];
		size_t sz = fd->kind == VMS_FK_BOOL ? sizeof(bool) : 8;

		if (memcmp((const char *)a + fd->off, (const char *)b + fd->off,
			   sz) != 0 &&
		    !n++)
			*which = fd->member;
	}
	if (a->nsites != b->nsites) {
		if (!n++)
			*which = "nsites";
		return (int)n;
	}
	for (i = 0; i < a->nsites; i++) {
		const struct vms_trace_site *x = &a->sites[i], *y = &b->sites[i];
		bool same = x->id == y->id && x->kind == y->kind &&
			    x->nframes == y->nframes &&
			    x->impacting_bytes == y->impacting_bytes;

		for (k = 0; k < VMS_TRACE_NIMPACTS; k++)
			same = same && x->by[k].count == y->by[k].count &&
			       x->by[k].bytes == y->by[k].bytes;
		for (f = 0; same && f < x->nframes; f++) {
			const struct vms_trace_frame *p = &x->frames[f],
						     *q = &y->frames[f];

			same = p->ip == q->ip && p->line == q->line &&
			       p->offset == q->offset &&
			       str_same(p->function, q->function) &&
			       str_same(p->file, q->file) &&
			       str_same(p->module, q->module);
		}
		if (!same && !n++)
			*which = "a site";
	}
	if (a->before_walked != b->before_walked ||
	    !str_same(a->before_partial, b->before_partial) ||
	    a->nbefore != b->nbefore) {
		if (!n++)
			*which = "before";
		return (int)n;
	}
	for (i = 0; i < a->nbefore; i++)
		if (!before_same(&a->before[i], &b->before[i]) && !n++)
			*which = "a heap of before";
	return (int)n;
}

static struct vms_snapshot *saved_and_loaded(struct vms_trace_report *r)
{
	struct vms_snapshot *s = vms_snapshot_new(), *l = vms_snapshot_new();
	const struct vms_kept *kept[VMS_STEPS_MAX + 1];
	struct vms_error err;
	void *buf = NULL;
	size_t len;

	vms_steps_kept(kept);
	s->raw = calloc(1, sizeof(*s->raw));
	if (!s->raw ||
	    vms_raw_append_smaps(s->raw, smaps, sizeof(smaps) - 1) < 0 ||
	    smaps_parse_buffer(s, smaps, sizeof(smaps) - 1, &err) < 0) {
		printf("# smaps: %s\n", err.msg);
		goto fail;
	}
	s->trace = r;
	if (snapfile_encode(s, NULL, kept, &buf, &len, &err) < 0 ||
	    snapfile_load(buf, len, "trace.vms", false, kept, l, &err) < 0) {
		printf("# %s\n", err.msg);
		goto fail;
	}
	free(buf);
	vms_snapshot_free(s);
	return l;
fail:
	free(buf);
	vms_snapshot_free(s);
	vms_snapshot_free(l);
	return NULL;
}

static void round_trip(int pass)
{
	struct vms_trace_report r, changed;
	struct vms_trace_site sites[3];
	struct vms_trace_before before[2], moved[2];
	struct vms_snapshot *l;
	const char *w;

	fill_fields(&r, pass);
	fill_sites(&r, sites, pass);
	fill_before(&r, before, pass);
	l = saved_and_loaded(&r);
	ok(l && l->trace, "pass %d: a snapshot with a trace saved and loaded",
	   pass);
	if (!l || !l->trace) {
		vms_snapshot_free(l);
		return;
	}
	ok(!differ(&r, l->trace, &w),
	   "pass %d: the report comes back field by field, its sites and "
	   "frames too (first difference: %s)",
	   pass, w);
	changed = *l->trace;
	changed.to_ns ^= 1;
	ok(differ(&r, &changed, &w) == 1 && strcmp(w, "to_ns") == 0,
	   "pass %d: self-check: one field changed is caught (%s)", pass, w);
	ok(l->trace->before_walked == (pass == 2) &&
		   l->trace->nbefore == (pass == 2 ? 2u : 0u),
	   "pass %d: %s", pass,
	   pass == 2 ? "the attach's before comes back, its two heaps"
		     : "no before saved, none loaded");
	if (pass == 2 && l->trace->nbefore == 2) {
		changed = *l->trace;
		memcpy(moved, l->trace->before, sizeof(moved));
		moved[1].released.count ^= 1;
		changed.before = moved;
		ok(differ(&r, &changed, &w) == 1 &&
			   strcmp(w, "a heap of before") == 0,
		   "pass 2: self-check: a figure of before changed is caught "
		   "(%s)",
		   w);
	}
	vms_snapshot_free(l);
}

static void untraced(void)
{
	struct vms_snapshot *s = vms_snapshot_new(), *l = vms_snapshot_new();
	const struct vms_kept *kept[VMS_STEPS_MAX + 1];
	struct vms_error err;
	void *buf = NULL;
	size_t len;

	vms_steps_kept(kept);
	s->raw = calloc(1, sizeof(*s->raw));
	ok(s->raw &&
		   vms_raw_append_smaps(s->raw, smaps, sizeof(smaps) - 1) ==
			   0 &&
		   smaps_parse_buffer(s, smaps, sizeof(smaps) - 1, &err) == 0 &&
		   snapfile_encode(s, NULL, kept, &buf, &len, &err) == 0 &&
		   !memmem(buf, len, "trace", 5) &&
		   snapfile_load(buf, len, "x.vms", false, kept, l, &err) == 0 &&
		   !l->trace,
	   "a snapshot without a trace: no trace section, none loaded");
	free(buf);
	vms_snapshot_free(s);
	vms_snapshot_free(l);
}

/* ---- two reports compared ---- */

static void diffs(void)
{
	static struct vms_trace_frame fa[2] = {
		{ 0x1000, "f", NULL, 0, "/bin/y", 8 },
		{ 0x2000, "main", NULL, 0, "/bin/y", 30 },
	};
	/* the same stack at other addresses (another run) */
	static struct vms_trace_frame fb[2] = {
		{ 0x91000, "f", NULL, 0, "/bin/y", 8 },
		{ 0x92000, "main", NULL, 0, "/bin/y", 30 },
	};
	static struct vms_trace_frame g[1] = { { 0x3000, "g", NULL, 0,
						 "/bin/y", 4 } };
	static struct vms_trace_frame h[1] = { { 0x4000, "h", NULL, 0,
						 "/bin/y", 4 } };
	struct vms_trace_site sa[3], sb[3];
	struct vms_trace_report a = { 0 }, b = { 0 };
	struct vms_trace_diff d;

	memset(sa, 0, sizeof(sa));
	memset(sb, 0, sizeof(sb));
	/* f: the same on both sides; g: grows; h: only in A; f as mmap:
	 * only in B (another kind is another site) */
	sa[0] = (struct vms_trace_site){ .kind = VMS_TRACE_HEAP, .frames = fa,
					 .nframes = 2 };
	sa[0].by[VMS_TRACE_outstanding] = (struct vms_trace_count){ 2, 200 };
	sa[0].impacting_bytes = 200;
	sa[1] = (struct vms_trace_site){ .kind = VMS_TRACE_HEAP, .frames = g,
					 .nframes = 1 };
	sa[1].by[VMS_TRACE_outstanding] = (struct vms_trace_count){ 1, 100 };
	sa[1].impacting_bytes = 100;
	sa[2] = (struct vms_trace_site){ .kind = VMS_TRACE_HEAP, .frames = h,
					 .nframes = 1 };
	sa[2].by[VMS_TRACE_transient] = (struct vms_trace_count){ 5, 50 };
	sb[0] = sa[1];
	sb[0].by[VMS_TRACE_outstanding] = (struct vms_trace_count){ 6, 600 };
	sb[0].impacting_bytes = 600;
	sb[1] = sa[0];
	sb[1].frames = fb;
	sb[2] = (struct vms_trace_site){ .kind = VMS_TRACE_MMAP, .frames = fb,
					 .nframes = 2 };
	sb[2].by[VMS_TRACE_outstanding] = (struct vms_trace_count){ 1, 9000 };
	sb[2].impacting_bytes = 9000;
	a.sites = sa;
	a.nsites = 3;
	b.sites = sb;
	b.nsites = 3;
	ok(vms_trace_diff_make(&a, &b, &d) == 0, "two reports compared");
	ok(d.same == 1 && d.added == 1 && d.removed == 1 && d.changed == 1 &&
		   d.n == 3,
	   "sites matched by kind and stack at other addresses: 1 the same, "
	   "1 added, 1 removed, 1 changed (%zu %zu %zu %zu)",
	   d.same, d.added, d.removed, d.changed);
	ok(d.n == 3 && !d.v[0].a && d.v[0].b == &sb[2] &&
		   d.v[1].a == &sa[1] && d.v[1].b == &sb[0] &&
		   d.v[2].a == &sa[2] && !d.v[2].b,
	   "the largest move of impacting bytes first: the new map (+9000), "
	   "g (+500), then h (0, its transient blocks gone)");
	vms_trace_diff_fini(&d);
	ok(vms_trace_diff_make(&b, &b, &d) == 0 && d.n == 0 && d.same == 3,
	   "a report compared with itself: no change, 3 the same");
	vms_trace_diff_fini(&d);
}

int main(void)
{
	round_trip(1);
	round_trip(2);
	untraced();
	diffs();
	return tap_done();
}
