/* test_tracelive.c — what a snapshot file keeps for the viewer beside a
 * trace report (model/trace.h, struct vms_trace_live: the allocations
 * alive at the snapshot, the log of events, the stacks of the sites they
 * name), through the file's "tracelive" section and the "trace"
 * section's "stacks" and back, field by field: every column of records.h's
 * VMS_TRACE_BLOCK_FIELDS and VMS_TRACE_EVENT_FIELDS walked from its
 * table (struct vms_tcols), each row a value of its own (pass 1), then
 * the extremes (pass 2: 64-bit figures at UINT64_MAX, a thread at
 * INT32_MIN, events of no site, times going backwards). The check is shown
 * to fail: one value changed in any column is caught, column by column.
 * A report without live writes no section and loads without one.
 *
 * Then the reader against bytes it must refuse, never read past, never
 * allocate for on a claim (snapfile_int.h's sf_tracelive_from): every cut
 * of a good section, a record claiming 2^40 rows, a value too wide for
 * its member, an unknown site, an unknown operation, a missing column;
 * and random damage (seeded: the seed is printed, VMSCOPE_SEED replays
 * it) to every byte position: refused or read, within the section.
 * Last, what the viewer reads of a kept report (model/trace_live.c):
 * the allocations in a span, their report by call site (sites of one
 * name folded, a map's bytes clipped to the span, a sampled block's
 * count rounded), the log filtered, a call site by id.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/file/snapfile.h"
#include "capture/file/snapfile_int.h"
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

#define NB 40
#define NE 50

static struct vms_trace_frame frames[3] = {
	{ 0x401000, "leak", "/src/leak.c", 42, "/bin/x", 17 },
	{ 0x401100, "main", NULL, 0, "/bin/x", 5 },
	{ 0x7f0000001234, NULL, NULL, 0, NULL, 0x1234 },
};
static const uint32_t ids[3] = { 7, 9, 11 }; /* 11: in stacks */

/* A value of row i's column c of its own (pass 1), or an extreme. */
static uint64_t value(const struct vms_tcol *c, size_t i, int pass, bool ev)
{
	if (strcmp(c->member, "site") == 0)
		return ev && i % 7 == 3 ? UINT32_MAX : ids[i % 3];
	if (strcmp(c->member, "op") == 0)
		return i % VMS_TRACE_NOPS;
	if (pass == 1)
		return c->width == 8   ? 0x1000 + i * 4096 + c->off
		       : c->width == 4 ? 100 + i * 3 + c->off
				       : i % 5;
	if (c->is_signed)
		return i % 2 ? (uint64_t)(int64_t)INT32_MIN
			     : (uint64_t)(int64_t)INT32_MAX;
	if (c->width == 8)
		return i % 2 ? UINT64_MAX - i : i; /* and back down */
	return c->width == 4 ? UINT32_MAX - 1 - i : 255 - i % 3;
}

static void fill(void *rows, size_t n, const struct vms_tcols *t, int pass)
{
	size_t i, k;

	memset(rows, 0, n * t->size);
	for (i = 0; i < n; i++)
		for (k = 0; k < t->ncols; k++)
			vms_tcol_set(&t->cols[k], (char *)rows + i * t->size,
				     value(&t->cols[k], i, pass,
					   t == &vms_trace_event_cols));
}

/* The first column of t in which rows a and b differ, or NULL. */
static const char *differ(const void *a, const void *b, size_t n,
			  const struct vms_tcols *t)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < t->ncols; k++)
			if (vms_tcol_get(&t->cols[k],
					 (const char *)a + i * t->size) !=
			    vms_tcol_get(&t->cols[k],
					 (const char *)b + i * t->size))
				return t->cols[k].member;
	return NULL;
}

static struct vms_trace_block blocks[NB];
static struct vms_trace_event events[NE];
static struct vms_trace_site sites[2], stacks[1];
static struct vms_trace_live lv;

static void report(struct vms_trace_report *r, int pass)
{
	memset(r, 0, sizeof(*r));
	r->to_ns = 5000000000ull;
	r->events = 1234;
	sites[0] = (struct vms_trace_site){ .id = 7, .kind = VMS_TRACE_HEAP,
					    .frames = frames, .nframes = 2 };
	sites[1] = (struct vms_trace_site){ .id = 9, .kind = VMS_TRACE_MMAP,
					    .frames = frames + 1,
					    .nframes = 2 };
	stacks[0] = (struct vms_trace_site){ .id = 11, .kind = VMS_TRACE_HEAP,
					     .frames = frames + 2,
					     .nframes = 1 };
	r->sites = sites;
	r->nsites = 2;
	fill(blocks, NB, &vms_trace_block_cols, pass);
	fill(events, NE, &vms_trace_event_cols, pass);
	lv = (struct vms_trace_live){ .blocks = blocks,
				      .nblocks = NB,
				      .blocks_alive = NB + (pass == 2 ? 1000 : 0),
				      .log = events,
				      .nlog = NE,
				      .logged = NE + (pass == 2 ? 99999 : 0),
				      .stacks = stacks,
				      .nstacks = 1 };
	r->live = &lv;
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
	    snapfile_load(buf, len, "live.vms", false, kept, l, &err) < 0) {
		printf("# %s\n", err.msg);
		goto fail;
	}
	ok(!!memmem(buf, len, "tracelive", 9) == !!r->live,
	   "a file has a \"tracelive\" section exactly when its report keeps "
	   "one");
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
	struct vms_trace_report r;
	const struct vms_trace_live *g;
	struct vms_snapshot *l;
	const struct vms_trace_site *st;
	static struct vms_trace_block b2[NB];
	static struct vms_trace_event e2[NE];
	const char *w;
	size_t k, caught = 0, tried = 0;

	report(&r, pass);
	l = saved_and_loaded(&r);
	g = l && l->trace ? l->trace->live : NULL;
	ok(g != NULL, "pass %d: a report with its live part saved and loaded",
	   pass);
	if (!g) {
		vms_snapshot_free(l);
		return;
	}
	ok(g->nblocks == NB && g->blocks_alive == lv.blocks_alive &&
		   g->nlog == NE && g->logged == lv.logged,
	   "pass %d: its counts come back (%zu of %llu blocks, %zu of %llu "
	   "events)",
	   pass, g->nblocks, (unsigned long long)g->blocks_alive, g->nlog,
	   (unsigned long long)g->logged);
	w = g->nblocks == NB ? differ(blocks, g->blocks, NB,
				      &vms_trace_block_cols)
			     : "count";
	ok(!w, "pass %d: every allocation comes back, column by column "
	       "(%zu columns; first difference: %s)",
	   pass, vms_trace_block_cols.ncols, w ? w : "none");
	w = g->nlog == NE ? differ(events, g->log, NE, &vms_trace_event_cols)
			  : "count";
	ok(!w, "pass %d: every event comes back, column by column (%zu "
	       "columns; first difference: %s)",
	   pass, vms_trace_event_cols.ncols, w ? w : "none");
	st = vms_trace_site_of(l->trace, 11);
	ok(g->nstacks == 1 && st && st->kind == VMS_TRACE_HEAP &&
		   st->nframes == 1 && st->frames[0].ip == frames[2].ip &&
		   st->frames[0].offset == frames[2].offset,
	   "pass %d: the stack of a site \"sites\" does not list comes back",
	   pass);
	/* self-check: a value changed in any column is caught */
	for (k = 0; g->nblocks == NB && k < vms_trace_block_cols.ncols; k++) {
		const struct vms_tcol *c = &vms_trace_block_cols.cols[k];

		memcpy(b2, g->blocks, sizeof(b2));
		vms_tcol_set(c, &b2[NB / 2], vms_tcol_get(c, &b2[NB / 2]) ^ 1);
		tried++;
		caught += differ(blocks, b2, NB, &vms_trace_block_cols) ==
			  c->member;
	}
	for (k = 0; g->nlog == NE && k < vms_trace_event_cols.ncols; k++) {
		const struct vms_tcol *c = &vms_trace_event_cols.cols[k];

		memcpy(e2, g->log, sizeof(e2));
		vms_tcol_set(c, &e2[NE - 1], vms_tcol_get(c, &e2[NE - 1]) ^ 1);
		tried++;
		caught += differ(events, e2, NE, &vms_trace_event_cols) ==
			  c->member;
	}
	ok(tried && caught == tried,
	   "pass %d: self-check: a value changed in each column is caught "
	   "(%zu of %zu)",
	   pass, caught, tried);
	vms_snapshot_free(l);
}

static void without(void)
{
	struct vms_trace_report r;
	struct vms_snapshot *l;

	report(&r, 1);
	r.live = NULL;
	l = saved_and_loaded(&r);
	ok(l && l->trace && !l->trace->live,
	   "a report without its live part: no section, none loaded");
	vms_snapshot_free(l);
}

/* ---- the reader against bytes it must refuse ---- */

/* NULL when read (then *rows: the rows it holds), else why not. */
static const char *read_rows(const unsigned char *p, size_t n,
			     const struct vms_trace_report *r, size_t *rows)
{
	struct vms_trace_live got = { 0 };
	struct arena a;
	const char *why;

	got.stacks = stacks;
	got.nstacks = 1;
	arena_init(&a);
	why = sf_tracelive_from(&a, p, n, r, &got);
	arena_fini(&a);
	*rows = got.nblocks + got.nlog;
	return why;
}

static const char *read_back(const unsigned char *p, size_t n,
			     const struct vms_trace_report *r)
{
	size_t rows;

	return read_rows(p, n, r, &rows);
}

/* Offset of column `name` of record `rec` in a written section: its
 * name's length byte. */
static size_t find_col(const unsigned char *p, size_t n, const char *rec,
		       const char *name)
{
	size_t at = 0, rl = strlen(rec), nl = strlen(name);

	for (; at + rl + 1 < n; at++)
		if (p[at] == rl && memcmp(p + at + 1, rec, rl) == 0)
			break;
	for (at += rl + 1; at + nl + 1 < n; at++)
		if (p[at] == nl && memcmp(p + at + 1, name, nl) == 0)
			return at;
	return 0;
}

/* A copy of p with bytes [at, at + cut) replaced by with[0, wn). */
static unsigned char *spliced(const unsigned char *p, size_t n, size_t at,
			      size_t cut, const unsigned char *with, size_t wn,
			      size_t *out)
{
	unsigned char *q = malloc(n - cut + wn);

	memcpy(q, p, at);
	memcpy(q + at, with, wn);
	memcpy(q + at + wn, p + at + cut, n - at - cut);
	*out = n - cut + wn;
	return q;
}

static void refused(void)
{
	struct vms_trace_report r;
	unsigned char *p, *q;
	size_t n, m, i, at, bad = 0, read = 0;
	const char *why;
	unsigned seed = tap_seed((unsigned)getpid());

	report(&r, 1);
	r.live = &lv;
	if (sf_tracelive_bytes(&r, &p, &n) < 0 || !p) {
		ok(0, "a section written");
		return;
	}
	lv.stacks = stacks;
	ok(!(why = read_back(p, n, &r)), "the section as written reads (%s)",
	   why ? why : "no complaint");
	for (i = 0; i < n; i++)
		bad += read_back(p, i, &r) == NULL;
	ok(!bad, "every cut of it short of its end is refused (%zu of %zu "
		 "read)",
	   bad, n);
	{ /* the blocks' rows claimed 2^40: right after the record's name */
		static const unsigned char huge[] = { 0x80, 0x80, 0x80, 0x80,
						      0x80, 0x20 };

		at = find_col(p, n, "blocks", "addr");
		for (i = 0; i + 7 < n && memcmp(p + i, "\6blocks", 7); i++)
			;
		q = spliced(p, n, i + 7, 1, huge, sizeof(huge), &m);
		why = read_back(q, m, &r);
		ok(at && why && strstr(why, "more rows"),
		   "a record claiming 2^40 rows is refused before it is "
		   "allocated (%s)",
		   why ? why : "read");
		free(q);
	}
	{ /* the blocks' "addr" column renamed */
		at = find_col(p, n, "blocks", "addr");
		q = malloc(n);
		memcpy(q, p, n);
		q[at + 2] = 'x';
		why = read_back(q, n, &r);
		ok(at && why && strstr(why, "missing"),
		   "a record without one of its columns is refused (%s)",
		   why ? why : "read");
		free(q);
	}
	{ /* an event's op 9, a block's site 8 (no such site), a count of
	   * 2^40: each column's first value replaced */
		static const struct {
			const char *rec, *col;
			unsigned char v[7];
			size_t vn;
			const char *want;
		} cases[] = {
			{ "log", "op", { 9 }, 1, "operation" },
			{ "blocks", "site", { 8 }, 1, "call site" },
			{ "blocks", "count", { 0x80, 0x80, 0x80, 0x80, 0x80, 0x20 },
			  6, "does not fit" },
		};

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			size_t len_at, old;
			unsigned char *z;

			at = find_col(p, n, cases[i].rec, cases[i].col);
			/* name, coding, its byte count (one byte: < 128),
			 * then its first value (one byte as written) */
			len_at = at + 1 + strlen(cases[i].col) + 1;
			old = p[len_at];
			z = spliced(p, n, len_at + 1, 1, cases[i].v,
				    cases[i].vn, &m);
			z[len_at] = (unsigned char)(old - 1 + cases[i].vn);
			why = at && old < 120 ? read_back(z, m, &r) : NULL;
			ok(why && strstr(why, cases[i].want),
			   "%s's first %s replaced: refused (%s)", cases[i].rec,
			   cases[i].col, why ? why : "read");
			free(z);
		}
	}
	/* random damage: every byte position, a few values each */
	srand(seed);
	q = malloc(n);
	bad = 0;
	for (i = 0; i < n; i++) {
		int k;

		for (k = 0; k < 4; k++) {
			size_t rows = 0;

			memcpy(q, p, n);
			q[i] = (unsigned char)(k == 0 ? 0xff : rand());
			if (read_rows(q, n, &r, &rows) == NULL) {
				read++;
				bad += rows > n; /* rows the bytes cannot hold */
			}
		}
	}
	ok(!bad, "random damage at each of %zu bytes: each refused or read "
		 "within the section (%zu read, %zu with more rows than bytes)",
	   n, read, bad);
	free(q);
	free(p);
}

/* ---- rows past what a file keeps ---- */

struct wbuf {
	unsigned char *p;
	size_t n;
};

static void w_bytes(struct wbuf *b, const void *p, size_t n)
{
	b->p = realloc(b->p, b->n + n);
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void w_varint(struct wbuf *b, uint64_t v)
{
	unsigned char c;

	do {
		c = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		w_bytes(b, &c, 1);
		v >>= 7;
	} while (v);
}

static void w_str(struct wbuf *b, const char *s)
{
	w_varint(b, strlen(s));
	w_bytes(b, s, strlen(s));
}

/* A record of t's columns, rows rows each (PLAIN): its "site" v, the
 * others 0, after a column this reader does not know of pad bytes. */
static void w_record(struct wbuf *b, const struct vms_tcols *t, size_t rows,
		     unsigned char v, size_t pad)
{
	unsigned char *col = calloc(rows + pad + 1, 1);
	size_t k;

	w_str(b, t->name);
	w_varint(b, rows);
	w_varint(b, t->ncols + 1);
	w_str(b, "pad");
	w_varint(b, VMS_TCOL_PLAIN);
	w_varint(b, pad);
	w_bytes(b, col, pad);
	for (k = 0; k < t->ncols; k++) {
		memset(col, strcmp(t->cols[k].file, "site") ? 0 : v, rows);
		w_str(b, t->cols[k].file);
		w_varint(b, VMS_TCOL_PLAIN);
		w_varint(b, rows);
		w_bytes(b, col, rows);
	}
	free(col);
}

/* A section of nblocks blocks (and pad bytes in their record) and nlog
 * events, all of site 7. */
static const char *read_made(const struct vms_trace_report *r, size_t nblocks,
			     size_t pad, size_t nlog)
{
	struct wbuf b = { NULL, 0 };
	const char *why;

	w_bytes(&b, "vmscope tracelive\n", 18);
	w_varint(&b, 1);
	w_varint(&b, 1);
	w_varint(&b, 1ull << 40); /* blocks_alive */
	w_varint(&b, 1ull << 40); /* logged */
	w_varint(&b, 2);
	w_record(&b, &vms_trace_block_cols, nblocks, 7, pad);
	w_record(&b, &vms_trace_event_cols, nlog, 7, 0);
	why = read_back(b.p, b.n, r);
	free(b.p);
	return why;
}

static void past_kept(void)
{
	struct vms_trace_report r;
	const char *why;

	report(&r, 1);
	lv.stacks = stacks;
	why = read_made(&r, 3, 0, VMS_TRACE_LOG);
	ok(!why, "a section of a full log (%u events) reads (%s)",
	   VMS_TRACE_LOG, why ? why : "no complaint");
	why = read_made(&r, 3, 0, VMS_TRACE_LOG + 1);
	ok(why && strstr(why, "more rows"),
	   "a log of more events than a file keeps (%u) is refused (%s)",
	   VMS_TRACE_LOG, why ? why : "read");
	{
		struct wbuf b = { NULL, 0 };

		w_bytes(&b, "vmscope tracelive\n", 18);
		w_varint(&b, 1);
		w_varint(&b, 1);
		w_varint(&b, 1ull << 40);
		w_varint(&b, 1ull << 40);
		w_varint(&b, 2);
		/* its rows claimed past the cap, held by the pad's bytes */
		w_str(&b, "blocks");
		w_varint(&b, VMS_TRACE_BLOCKS_KEPT + 1);
		w_varint(&b, 1);
		w_str(&b, "pad");
		w_varint(&b, VMS_TCOL_PLAIN);
		w_varint(&b, VMS_TRACE_BLOCKS_KEPT + 2);
		{
			unsigned char *z = calloc(VMS_TRACE_BLOCKS_KEPT + 2, 1);

			w_bytes(&b, z, VMS_TRACE_BLOCKS_KEPT + 2);
			free(z);
		}
		why = read_back(b.p, b.n, &r);
		ok(why && strstr(why, "more rows"),
		   "a record claiming more allocations than a file keeps "
		   "(%u), its bytes there, is refused before its rows are "
		   "made (%s)",
		   VMS_TRACE_BLOCKS_KEPT, why ? why : "read");
		free(b.p);
	}
}

/* ---- what the viewer reads of a kept report (model/trace.h) ---- */

static void read_offline(void)
{
	static struct vms_trace_frame leak2[2] = {
		{ 0x401004, "leak", "/src/leak.c", 43, "/bin/x", 21 },
		{ 0x401100, "main", NULL, 0, "/bin/x", 5 },
	};
	struct vms_trace_block bl[4] = {
		{ .addr = 0x1000, .size = 100, .site = 7, .count = 1024 },
		{ .addr = 0x2000, .size = 200, .site = 11, .count = 1024 },
		{ .addr = 0x3000, .size = 0x2000, .site = 9, .count = 1024 },
		{ .addr = 0x9000, .size = 50, .site = 7, .count = 512 },
	};
	struct vms_trace_event ev[3] = {
		{ .t_ns = 1, .addr = 0x1000, .size = 100, .site = 7, .tid = 5,
		  .op = VMS_TRACE_OP_ALLOC },
		{ .t_ns = 2, .addr = 0x3000, .size = 0x2000, .site = 9,
		  .tid = 6, .op = VMS_TRACE_OP_MAP },
		{ .t_ns = 3, .addr = 0x1000, .size = 100, .site = UINT32_MAX,
		  .tid = 5, .op = VMS_TRACE_OP_FREE },
	};
	struct vms_trace_filter f = { .site = UINT32_MAX };
	struct vms_trace_report r, o;
	struct vms_trace_block got[4];
	struct vms_trace_event gev[3];
	struct arena a;
	size_t n;

	report(&r, 1);
	stacks[0].frames = leak2; /* named as site 7: one call path */
	stacks[0].nframes = 2;
	lv.blocks = bl;
	lv.nblocks = lv.blocks_alive = 4;
	lv.log = ev;
	lv.nlog = lv.logged = 3;
	n = vms_trace_blocks_of(&r, 0x1000, 0x4000, got, 4);
	ok(n == 3 && got[0].addr == 0x1000 && got[2].addr == 0x3000,
	   "the kept allocations in a span: heap blocks by address, a map "
	   "that overlaps (%zu)",
	   n);
	n = vms_trace_blocks_of(&r, 0x4000, 0x5000, got, 4);
	ok(n == 1 && got[0].site == 9,
	   "... a span inside a map: the map alone (%zu)", n);
	arena_init(&a);
	ok(vms_trace_report_of(&r, 0x1000, 0x4000, &a, &o) == 0 &&
		   o.nsites == 2 && o.sites[0].kind == VMS_TRACE_MMAP &&
		   o.sites[0].by[VMS_TRACE_outstanding].bytes == 0x1000 &&
		   o.sites[0].by[VMS_TRACE_outstanding].count == 1 &&
		   o.sites[1].id == 7 &&
		   o.sites[1].by[VMS_TRACE_outstanding].count == 2 &&
		   o.sites[1].by[VMS_TRACE_outstanding].bytes == 300 &&
		   o.sites[1].impacting_bytes == 300 &&
		   o.sites[1].by[VMS_TRACE_transient].count == 0,
	   "its report by call site: the map's 4 K inside the span, sites 7 "
	   "and 11 (one name) folded into 7, 2 blocks of 300 bytes, all "
	   "outstanding, the largest first");
	ok(vms_trace_report_of(&r, 0x9000, 0xa000, &a, &o) == 0 &&
		   o.nsites == 1 &&
		   o.sites[0].by[VMS_TRACE_outstanding].count == 1 &&
		   o.sites[0].by[VMS_TRACE_outstanding].bytes == 50,
	   "... a sampled block standing for half a block counts one, "
	   "rounded as a live report's");
	arena_fini(&a);
	f.ops = 1u << VMS_TRACE_OP_ALLOC | 1u << VMS_TRACE_OP_FREE;
	f.tid = 5;
	n = vms_trace_log_of(&r, &f, gev, 3);
	ok(n == 2 && gev[0].t_ns == 1 && gev[1].t_ns == 3,
	   "the kept log filtered by operation and thread, oldest first");
	f = (struct vms_trace_filter){ .min_size = 1024, .site = 9 };
	ok(vms_trace_log_of(&r, &f, gev, 3) == 1 && gev[0].t_ns == 2,
	   "... by size and call site");
	ok(vms_trace_site_of(&r, 11) == &stacks[0] &&
		   vms_trace_site_of(&r, 9) == &sites[1] &&
		   !vms_trace_site_of(&r, 8),
	   "a call site by id: the report's, its stacks', none");
	stacks[0].frames = frames + 2;
	stacks[0].nframes = 1;
}

int main(void)
{
	round_trip(1);
	round_trip(2);
	without();
	refused();
	past_kept();
	read_offline();
	return tap_done();
}
