/* snapfile_tracelive.c — what the viewer lists beside a trace report
 * (model/trace.h, struct vms_trace_live: the allocations alive at the
 * snapshot, the newest events of the log), as a snapshot file's
 * "tracelive" section, both ways (snapfile_int.h). The stacks of the
 * sites they name that the report does not list are in the "trace"
 * section ("stacks", snapfile_trace.c), whose frames they share.
 *
 * A section of its own, not keys of the "trace" JSON: a trace keeps a
 * block for every allocation alive (millions in a large program), more
 * values than an older reader lets a trace section have (it refuses the
 * whole file beyond 2 Mi), and as JSON they would cost some 10 times the
 * bytes. An older vmscope skips a section it does not know: the file
 * loads, without them, as before.
 *
 * The section (then compressed as one zstd frame, as the others):
 *
 *   "vmscope tracelive\n"          the magic, 18 bytes
 *   varint version                 1
 *   varint unit                    ns a TIME column counts in (1: exact)
 *   varint blocks_alive, logged    (struct vms_trace_live)
 *   varint nrecords, then each:
 *     name                         "blocks" or "log" (a string: varint
 *                                  length, bytes); another is skipped
 *     varint rows, varint ncolumns, then each column:
 *       name                       its file key (records.h)
 *       varint coding              enum vms_tcol_coding
 *       varint bytes, then that many: one varint a row
 *
 * The records' columns are records.h's VMS_TRACE_BLOCK_FIELDS and
 * VMS_TRACE_EVENT_FIELDS: writer and reader walk them (struct vms_tcols).
 * Columns, not rows: the addresses in order, the sizes, the sites each
 * repeat, and the times (the tracer's coarse clock) mostly do not move,
 * which is what zstd feeds on: a million malloc/free pairs' log of
 * 65,536 events, 395 KB as written here, is some 450 bytes compressed.
 *
 * Bounded by what the section holds: every length is checked against the
 * bytes left before anything is made of it; a record's rows are at most
 * the bytes left (a varint is one byte at least) and at most what a
 * writer keeps (VMS_TRACE_BLOCKS_KEPT, VMS_TRACE_LOG) before its array is
 * allocated; a value that does not fit its member, an operation unknown,
 * or a site the report does not know is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "capture/file/snapfile_int.h"

#define TL_MAGIC "vmscope tracelive\n"
#define TL_MAGIC_LEN 18
#define TL_VERSION 1
#define TL_UNIT 1

/* ---- writing ---- */

struct buf {
	unsigned char *p;
	size_t n, cap;
	bool bad;
};

static void put_bytes(struct buf *b, const void *p, size_t n)
{
	if (b->bad || !n) /* nothing (p may be NULL: an empty string) */
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *np;

		while (cap < b->n + n)
			cap *= 2;
		if (!(np = realloc(b->p, cap))) {
			b->bad = true;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void put_varint(struct buf *b, uint64_t v)
{
	unsigned char t[10];
	size_t n = 0;

	do {
		t[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	put_bytes(b, t, n);
}

static void put_str(struct buf *b, const char *s)
{
	put_varint(b, strlen(s));
	put_bytes(b, s, strlen(s));
}

static uint64_t zigzag(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (uint64_t) - (int64_t)(z & 1);
}

/* One column of rows v[0, n) (struct size: cols->size). */
static void put_column(struct buf *b, const struct vms_tcols *cols,
		       const struct vms_tcol *c, const void *v, size_t n)
{
	struct buf col = { 0 };
	uint64_t prev = 0, x;
	size_t i;

	for (i = 0; i < n; i++) {
		x = vms_tcol_get(c, (const char *)v + i * cols->size);
		if (c->coding == VMS_TCOL_TIME)
			x /= TL_UNIT;
		if (c->coding == VMS_TCOL_PLAIN) {
			put_varint(&col, x);
		} else {
			put_varint(&col, zigzag(x - prev));
			prev = x;
		}
	}
	put_str(b, c->file);
	put_varint(b, c->coding);
	put_varint(b, col.n);
	put_bytes(b, col.p, col.n);
	b->bad |= col.bad;
	free(col.p);
}

static void put_record(struct buf *b, const struct vms_tcols *cols,
		       const void *v, size_t n)
{
	size_t k;

	put_str(b, cols->name);
	put_varint(b, n);
	put_varint(b, cols->ncols);
	for (k = 0; k < cols->ncols; k++)
		put_column(b, cols, &cols->cols[k], v, n);
}

int sf_tracelive_bytes(const struct vms_trace_report *r, unsigned char **out,
		       size_t *len)
{
	const struct vms_trace_live *lv = r->live;
	struct buf b = { 0 };

	*out = NULL;
	*len = 0;
	if (!lv)
		return 0;
	put_bytes(&b, TL_MAGIC, TL_MAGIC_LEN);
	put_varint(&b, TL_VERSION);
	put_varint(&b, TL_UNIT);
	put_varint(&b, lv->blocks_alive);
	put_varint(&b, lv->logged);
	put_varint(&b, 2);
	put_record(&b, &vms_trace_block_cols, lv->blocks, lv->nblocks);
	put_record(&b, &vms_trace_event_cols, lv->log, lv->nlog);
	if (b.bad) {
		free(b.p);
		return -1;
	}
	*out = b.p;
	*len = b.n;
	return 0;
}

/* ---- reading ---- */

struct in {
	const unsigned char *p;
	size_t n; /* left */
};

static bool get_varint(struct in *in, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (in->n) {
		unsigned char c = *in->p++;

		in->n--;
		if (shift == 63 && c > 1)
			return false;
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return true;
		if ((shift += 7) > 63)
			return false;
	}
	return false;
}

/* A string of at most 64 bytes, compared in place: *s, *slen. */
static bool get_str(struct in *in, const unsigned char **s, size_t *slen)
{
	uint64_t n;

	if (!get_varint(in, &n) || n > 64 || n > in->n)
		return false;
	*s = in->p;
	*slen = (size_t)n;
	in->p += n;
	in->n -= n;
	return true;
}

static bool str_is(const unsigned char *s, size_t n, const char *want)
{
	return n == strlen(want) && memcmp(s, want, n) == 0;
}

/* Column c's values from its bytes into rows v[0, n); NULL or why. */
static const char *get_column(struct in col, uint64_t coding, uint64_t unit,
			      const struct vms_tcols *cols,
			      const struct vms_tcol *c, void *v, size_t n)
{
	uint64_t prev = 0, x;
	size_t i;

	if (coding > VMS_TCOL_TIME)
		return "a column's coding is not known";
	for (i = 0; i < n; i++) {
		if (!get_varint(&col, &x))
			return "a column holds fewer values than its rows";
		if (coding != VMS_TCOL_PLAIN)
			x = prev += unzigzag(x);
		if (coding == VMS_TCOL_TIME) {
			if (x > UINT64_MAX / unit)
				return "a time past what 64 bits hold";
			x *= unit;
		}
		if (!vms_tcol_set(c, (char *)v + i * cols->size, x))
			return "a value does not fit its field";
	}
	if (col.n)
		return "a column holds more than its rows";
	return NULL;
}

/* One record's columns into *rows (in a), cols's each found by its
 * name, at most max rows (what a writer keeps: model/trace.h); NULL or
 * why. */
static const char *get_record(struct in *in, struct arena *a, uint64_t unit,
			      const struct vms_tcols *cols, uint64_t max,
			      void **rows, size_t *nrows)
{
	uint64_t n, ncols, k, coding, len;
	bool *seen = NULL;
	const char *why = NULL;
	void *v = NULL;
	size_t c;

	if (!get_varint(in, &n) || !get_varint(in, &ncols))
		return "cut short";
	/* rows: at most the bytes left, a varint a row in every column */
	if (n > in->n || ncols > in->n)
		return "more rows than its bytes can hold";
	/* and at most what a file keeps: the array is made before the
	 * columns are read, their bytes maybe another column's */
	if (n > max)
		return "more rows than a file keeps";
	if (!(seen = calloc(cols->ncols + 1, sizeof(*seen))) ||
	    !(v = arena_alloc(a, (n ? n : 1) * cols->size))) {
		free(seen);
		return "out of memory";
	}
	memset(v, 0, (n ? n : 1) * cols->size);
	for (k = 0; !why && k < ncols; k++) {
		const unsigned char *name;
		size_t nlen;
		struct in col;

		if (!get_str(in, &name, &nlen) || !get_varint(in, &coding) ||
		    !get_varint(in, &len) || len > in->n) {
			why = "a column is cut short";
			break;
		}
		col = (struct in){ in->p, (size_t)len };
		in->p += len;
		in->n -= len;
		for (c = 0; c < cols->ncols; c++)
			if (str_is(name, nlen, cols->cols[c].file))
				break;
		if (c == cols->ncols)
			continue; /* a later vmscope's */
		if (seen[c]) {
			why = "a column appears twice";
			break;
		}
		seen[c] = true;
		why = get_column(col, coding, unit, cols, &cols->cols[c], v,
				 (size_t)n);
	}
	for (c = 0; !why && c < cols->ncols; c++)
		if (!seen[c])
			why = "a column is missing";
	free(seen);
	*rows = v;
	*nrows = (size_t)n;
	return why;
}

/* A record this vmscope does not know, passed over; NULL or why. */
static const char *skip_record(struct in *in)
{
	uint64_t n, ncols, k, coding, len;
	const unsigned char *name;
	size_t nlen;

	if (!get_varint(in, &n) || !get_varint(in, &ncols))
		return "cut short";
	for (k = 0; k < ncols; k++) {
		if (!get_str(in, &name, &nlen) || !get_varint(in, &coding) ||
		    !get_varint(in, &len) || len > in->n)
			return "a column is cut short";
		in->p += len;
		in->n -= len;
	}
	return NULL;
}

static int id_cmp(const void *x, const void *y)
{
	const uint32_t *a = x, *b = y;

	return (*a > *b) - (*a < *b);
}

/* Whether every site the rows name is one of r's (sites, lv's stacks);
 * events may name none (UINT32_MAX). */
static const char *check_sites(const struct vms_trace_report *r,
			       const struct vms_trace_live *lv)
{
	size_t n = r->nsites + lv->nstacks, i, k = 0;
	uint32_t *ids = malloc((n ? n : 1) * sizeof(*ids));
	const char *why = NULL;

	if (!ids)
		return "out of memory";
	for (i = 0; i < r->nsites; i++)
		ids[k++] = r->sites[i].id;
	for (i = 0; i < lv->nstacks; i++)
		ids[k++] = lv->stacks[i].id;
	qsort(ids, n, sizeof(*ids), id_cmp);
	for (i = 0; !why && i < lv->nblocks; i++)
		if (!bsearch(&lv->blocks[i].site, ids, n, sizeof(*ids), id_cmp))
			why = "an allocation names a call site the report "
			      "does not have";
	for (i = 0; !why && i < lv->nlog; i++) {
		const struct vms_trace_event *e = &lv->log[i];

		if (e->op >= VMS_TRACE_NOPS)
			why = "an event's operation is not known";
		else if (e->site != UINT32_MAX &&
			 !bsearch(&e->site, ids, n, sizeof(*ids), id_cmp))
			why = "an event names a call site the report does not "
			      "have";
	}
	free(ids);
	return why;
}

const char *sf_tracelive_from(struct arena *a, const unsigned char *p,
			      size_t len, const struct vms_trace_report *r,
			      struct vms_trace_live *lv)
{
	struct in in = { p, len };
	uint64_t version, unit, nrec, k;
	bool blocks = false, log = false;
	const char *why = NULL;

	if (len < TL_MAGIC_LEN || memcmp(p, TL_MAGIC, TL_MAGIC_LEN) != 0)
		return "it does not start with \"vmscope tracelive\"";
	in.p += TL_MAGIC_LEN;
	in.n -= TL_MAGIC_LEN;
	if (!get_varint(&in, &version) || !get_varint(&in, &unit) ||
	    !get_varint(&in, &lv->blocks_alive) ||
	    !get_varint(&in, &lv->logged) || !get_varint(&in, &nrec))
		return "its header is cut short";
	if (version == 0 || unit == 0)
		return "its version or time unit is 0";
	for (k = 0; !why && k < nrec; k++) {
		const unsigned char *name;
		size_t nlen, nrows;
		void *rows;

		if (!get_str(&in, &name, &nlen))
			return "a record's name is cut short";
		if (str_is(name, nlen, vms_trace_block_cols.name) && !blocks) {
			why = get_record(&in, a, unit, &vms_trace_block_cols,
					 VMS_TRACE_BLOCKS_KEPT, &rows, &nrows);
			lv->blocks = rows;
			lv->nblocks = nrows;
			blocks = true;
		} else if (str_is(name, nlen, vms_trace_event_cols.name) &&
			   !log) {
			why = get_record(&in, a, unit, &vms_trace_event_cols,
					 VMS_TRACE_LOG, &rows, &nrows);
			lv->log = rows;
			lv->nlog = nrows;
			log = true;
		} else if (str_is(name, nlen, vms_trace_block_cols.name) ||
			   str_is(name, nlen, vms_trace_event_cols.name)) {
			why = "a record appears twice";
		} else {
			why = skip_record(&in); /* a later vmscope's */
		}
	}
	if (!why && (!blocks || !log))
		why = "it has no \"blocks\" or no \"log\"";
	if (!why && (lv->nblocks > lv->blocks_alive || lv->nlog > lv->logged))
		why = "it keeps more than it says there were";
	if (!why && in.n)
		why = "bytes follow its last record";
	if (!why)
		why = check_sites(r, lv);
	return why;
}
