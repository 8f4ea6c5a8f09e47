/* export_json.c — DESIGN.md's JSON contract, version 1.
 *
 * Written by hand with ob_* (no printf per number): a 65,000-region export
 * is some 60 MB and must cost little next to reading smaps. The records of
 * records.h (the smaps counters, the rollup, malloc, allocator, managed
 * heaps) are written from their lists, never field by field here. Added
 * beyond the contract (allowed: fields are only ever added): capture.frozen,
 * capture.partial, process.uid, totals.blocks, region state/build_id,
 * thread fields as listed, heaps' walked figures as null until walked,
 * the glibc walker's figures of each heap (system ... histogram, busy,
 * partial) and of the process ("malloc": mallinfo2, or null), each
 * managed heap's used, figures and parts (the runtime's own counts).
 */
#include <stdio.h>
#include <string.h>

#include "export/export.h"
#include "export/export_trace.h"
#include "export/export_util.h"
#include "model/columns.h"
#include "model/totals.h"

/* Keys are literals: "\"k\":" is put together by the compiler. */
#define KEY(o, k) OB_LIT(o, "\"" k "\":")
#define KV_U64(o, k, v)                                                        \
	do {                                                                   \
		KEY(o, k);                                                     \
		ob_u64(o, v);                                                  \
		ob_putc(o, ',');                                               \
	} while (0)
#define KV_U64_KNOWN(o, k, v, known)                                           \
	do {                                                                   \
		KEY(o, k);                                                     \
		if (known)                                                     \
			ob_u64(o, v);                                          \
		else                                                           \
			OB_LIT(o, "null");                                     \
		ob_putc(o, ',');                                               \
	} while (0)
#define KV_HEX(o, k, v)                                                        \
	do {                                                                   \
		OB_LIT(o, "\"" k "\":\"");                                     \
		ob_hex(o, v);                                                  \
		OB_LIT(o, "\",");                                              \
	} while (0)
#define KV_STR(o, k, v)                                                        \
	do {                                                                   \
		KEY(o, k);                                                     \
		ob_json_str(o, v);                                             \
		ob_putc(o, ',');                                               \
	} while (0)

static void kv_i64_or_null(struct outbuf *o, const char *k, int64_t v)
{
	ob_putc(o, '"');
	ob_puts(o, k);
	OB_LIT(o, "\":");
	if (v < 0)
		OB_LIT(o, "null");
	else
		ob_i64(o, v);
	ob_putc(o, ',');
}

/* Drops the comma the last kv_* left, and closes with c. */
static void close_with(struct outbuf *o, char c)
{
	if (o->len && o->buf[o->len - 1] == ',')
		o->len--;
	ob_putc(o, c);
}

/* The figures of a summary row, in the table's order; blocks and largest
 * only where asked (the totals object has its own). */
static void columns(struct outbuf *o, const struct vms_snapshot *s,
		    const struct vms_totals *t, bool blocks, bool page_table)
{
	int c;

	for (c = 0; c < VMS_NCOLS; c++) {
		const struct vms_column *col = &vms_columns[c];

		if (!(col->flags & VMS_COLF_TYPE) ||
		    (!blocks && (c == VMS_COL_BLOCKS || c == VMS_COL_LARGEST)))
			continue;
		ob_putc(o, '"');
		ob_puts(o, col->key);
		OB_LIT(o, "\":");
		/* unknown (a core): null, never 0 */
		if (!vms_row_known(s, t, NULL, (enum vms_col)c, page_table))
			OB_LIT(o, "null");
		else
			ob_u64(o, vms_column_type(t, (enum vms_col)c));
		ob_putc(o, ',');
	}
}

/* The steps' notes, [{"step", text_key}, ...] and a comma: as
 * capture.missing ("why") and as DESIGN.md's top-level "notes" ("text"),
 * the same list under both names. */
static void step_notes(struct outbuf *o, const struct vms_snapshot *s,
		       const char *text_key)
{
	size_t i;

	ob_putc(o, '[');
	for (i = 0; i < s->nnotes; i++) {
		ob_putc(o, '{');
		KV_STR(o, "step", s->notes[i].step);
		ob_printf(o, "\"%s\":", text_key);
		ob_json_str(o, s->notes[i].why);
		close_with(o, '}');
		ob_putc(o, ',');
	}
	/* why the counters' figures are null: the words the summary's
	 * "- : not known" line has */
	if (s->cap.no_counters) {
		ob_putc(o, '{');
		KV_STR(o, "step", "counters");
		ob_printf(o, "\"%s\":", text_key);
		ob_json_str(o, vms_no_counters_why);
		close_with(o, '}');
		ob_putc(o, ',');
	}
	close_with(o, ']');
	ob_putc(o, ',');
}

static void process_and_capture(const struct vms_snapshot *s, struct outbuf *o)
{
	char when[40];

	KEY(o, "process");
	ob_putc(o, '{');
	KV_U64(o, "pid", (uint64_t)s->proc.pid);
	KV_STR(o, "name", s->proc.name);
	KV_STR(o, "cmdline", s->proc.cmdline);
	KV_STR(o, "exe", s->proc.exe);
	KV_U64(o, "uid", (uint64_t)s->proc.uid);
	if (s->trace) { /* traced: how it ended, as the live report says */
		export_trace_exit_json(o, s->trace);
		ob_putc(o, ',');
	}
	close_with(o, '}');
	ob_putc(o, ',');
	KEY(o, "capture");
	ob_putc(o, '{');
	KV_STR(o, "backend", s->cap.backend);
	/* what the capture info does not know (a core's): null */
	KV_U64_KNOWN(o, "frozen_us", s->cap.frozen_us,
		     vms_capture_known(&s->cap, VMS_CAP_FROZEN_US));
	KV_U64_KNOWN(o, "duration_us", s->cap.duration_us,
		     vms_capture_known(&s->cap, VMS_CAP_DURATION_US));
	KEY(o, "frozen");
	ob_puts(o, s->cap.frozen ? "true," : "false,");
	/* "smaps": every counter read in the freeze; "pagemap_scan": Rss
	 * and Swap in it, the rest just before (approx_regions moved) */
	KV_STR(o, "freeze_counters", s->cap.freeze_counters);
	KV_U64(o, "approx_regions", s->cap.approx_regions);
	KV_STR(o, "taken_at", export_taken_at(s, when, sizeof(when)));
	/* CLOCK_MONOTONIC at capture: orders snapshots of one boot finer
	 * than taken_at's second (--watch takes several a second) */
	KV_U64_KNOWN(o, "monotonic_ns", s->cap.monotonic_ns,
		     vms_capture_known(&s->cap, VMS_CAP_MONOTONIC_NS));
	KV_STR(o, "kernel", s->cap.kernel); /* NULL: null */
	KV_U64(o, "page_size", s->cap.page_size);
	KV_STR(o, "partial", s->cap.partial);
	/* What the pipeline's steps could not make, and why. */
	KEY(o, "missing");
	step_notes(o, s, "why");
	{
		char why[200];
		int r = totals_check_rollup(s, why, sizeof(why));

		KV_STR(o, "rollup_check", r < 0 ? NULL : why);
	}
	/* The kernel's own totals, read within the capture (the reference
	 * the regions are checked against; the sharing of a page moves as
	 * soon as other processes, vmscope included, map it). */
	KEY(o, "kernel_rollup");
	if (s->rollup.valid) {
		const struct vms_rollup *k = &s->rollup;

		ob_putc(o, '{');
#define ROLLUP(m, key, flags) KV_U64(o, #m, k->m);
		VMS_ROLLUP_FIELDS(ROLLUP)
#undef ROLLUP
		close_with(o, '}');
		ob_putc(o, ',');
	} else {
		OB_LIT(o, "null,");
	}
	close_with(o, '}');
	ob_putc(o, ',');
}

static void totals_and_types(const struct vms_snapshot *s, struct outbuf *o)
{
	int t;

	KEY(o, "totals");
	ob_putc(o, '{');
	columns(o, s, &s->total, false, false);
	KV_U64(o, "blocks", s->total.blocks);
	if (s->cap.no_counters)
		OB_LIT(o, "\"page_table\":null,");
	else
		KV_U64(o, "page_table", s->page_table);
	KV_U64(o, "largest_free", s->largest_free);
	close_with(o, '}');
	ob_putc(o, ',');
	KEY(o, "types");
	ob_putc(o, '[');
	for (t = 0; t < VMS_NTYPES; t++) {
		ob_putc(o, '{');
		KV_STR(o, "type", vms_type_info[t].json);
		columns(o, s, &s->types[t], true, t == VMS_T_PAGE_TABLE);
		close_with(o, '}');
		ob_putc(o, ',');
	}
	close_with(o, ']');
	ob_putc(o, ',');
}

/* The kernel's two-letter words need no escaping; anything else (a
 * loaded snapshot could hold any bytes) goes through ob_json_str. */
static bool plain_word(const char *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (f[i] <= ' ' || f[i] >= 0x7f || f[i] == '"' || f[i] == '\\')
			return false;
	return true;
}

/* VmFlags as the kernel writes them: words of plain bytes between single
 * spaces, each shorter than 64: written through one reserve. */
static bool vmflags_fast(struct outbuf *o, const char *f, size_t *at)
{
	size_t n = 0, w = 0;
	char *p;

	for (; f[n]; n++) {
		if (f[n] == ' ') {
			w = 0;
			continue;
		}
		if (n >= 256 || !plain_word(f + n, 1) || ++w >= 64)
			return false;
	}
	p = ob_reserve(o, 3 * n + 16);
	*at = (size_t)(p - o->buf); /* where it starts, after any flush */
	p = OB_LIT_AT(p, "\"vmflags\":[");
	for (w = 0; *f;) {
		size_t k = 0;

		while (*f == ' ')
			f++;
		while (f[k] && f[k] != ' ')
			k++;
		if (!k)
			break;
		if (w++)
			*p++ = ',';
		*p++ = '"';
		p = ob_lit_at(p, f, k);
		*p++ = '"';
		f += k;
	}
	p = OB_LIT_AT(p, "],");
	ob_commit(o, p);
	return true;
}

/* The last VmFlags lines written, by their pointer: the parser interns
 * them (a process has a handful of distinct ones), so the same pointer
 * is the same text, written the same. */
#define VF_CACHE 4
#define VF_CACHE_MAX 256
struct vf_cache {
	const char *key[VF_CACHE];
	uint16_t len[VF_CACHE];
	unsigned next;
	char json[VF_CACHE][VF_CACHE_MAX];
};

static void vmflags(struct outbuf *o, const char *f, struct vf_cache *vc)
{
	bool first = true;
	unsigned i;
	size_t at;

	for (i = 0; f && i < VF_CACHE; i++)
		if (vc->key[i] == f) {
			ob_write(o, vc->json[i], vc->len[i]);
			return;
		}
	if (f && vmflags_fast(o, f, &at)) {
		/* what it wrote, kept for the next region with the line */
		if (o->len - at <= VF_CACHE_MAX) {
			i = vc->next++ % VF_CACHE;
			vc->key[i] = f;
			vc->len[i] = (uint16_t)(o->len - at);
			memcpy(vc->json[i], o->buf + at, vc->len[i]);
		}
		return;
	}
	KEY(o, "vmflags");
	ob_putc(o, '[');
	while (f && *f) {
		size_t n;

		while (*f == ' ')
			f++;
		n = strcspn(f, " ");
		if (!n)
			break;
		if (!first)
			ob_putc(o, ',');
		if (n < 8 && plain_word(f, n)) {
			/* the kernel's two-letter words: nothing to escape */
			ob_putc(o, '"');
			ob_write(o, f, n);
			ob_putc(o, '"');
		} else {
			char word[64];

			snprintf(word, sizeof(word), "%.*s", (int)n, f);
			ob_json_str(o, word);
		}
		first = false;
		f += n;
	}
	ob_write(o, "],", 2);
}

/* A region's counter through a pointer (outbuf.h: ob_reserve): null when
 * the snapshot has none (a core). FIGURES_MAX bytes at most: a key, its
 * quotes and colon, 20 digits and a comma each. */
#define KV_CTR_AT(p, k, v, known)                                              \
	do {                                                                   \
		p = OB_LIT_AT(p, "\"" k "\":");                                \
		p = (known) ? ob_u64_at(p, v) : OB_LIT_AT(p, "null");          \
		*p++ = ',';                                                    \
	} while (0)
#define FIGURE_BYTES(m, key) +sizeof(#m) + 24
enum {
	FIGURES_MAX =
		4 * (sizeof("private_ws") + 24) VMS_COUNTER_FIELDS(FIGURE_BYTES)
};
#undef FIGURE_BYTES

/* Committed, Private, Private WS and the smaps counters (records.h's
 * order; keys are literals), each with its comma. */
static char *figures_at(char *p, const struct vms_region *r, bool known)
{
	KV_CTR_AT(p, "committed", vms_region_committed(r),
		  !(r->acct & VMS_ACCT_COMMIT_UNKNOWN));
	KV_CTR_AT(p, "private", vms_region_private(r), known);
	KV_CTR_AT(p, "private_ws", vms_region_private_ws(r), known);
#define COUNTER(m, key) KV_CTR_AT(p, #m, r->c.m, known);
	VMS_COUNTER_FIELDS(COUNTER)
#undef COUNTER
	return p;
}

/* A typed part's own figures (model/parts.h), as a region's keys. */
static void part_figures(struct outbuf *o, const struct vms_region *p,
			 bool known)
{
	KV_STR(o, "type", vms_type_info[p->type].json);
	ob_commit(o, figures_at(ob_reserve(o, FIGURES_MAX), p, known));
}

/* A device number as "%02x" writes it (at most 8 bytes). */
static char *hex2_at(char *p, uint32_t v)
{
	static const char hx[] = "0123456789abcdef";
	uint32_t t = v >> 8;
	int n = 2;
	char *e;

	for (; t; t >>= 4)
		n++;
	e = p + n;
	do {
		*--e = hx[v & 15];
		v >>= 4;
	} while (e > p);
	return p + n;
}

/* The most a region's keys up to its path take: the keys, two addresses
 * in hex, perms, two numbers and a device (2 x 8 digits). */
#define REGION_HEAD_MAX 256

/* One region: 65,000 of them make a 27 MB export, so the keys and
 * numbers go through a pointer (one check of the room for many pieces)
 * and only strings through the checked writers. */
static void region(struct outbuf *o, const struct vms_snapshot *s,
		   const struct vms_region *r, struct vf_cache *vc)
{
	bool known = !s->cap.no_counters;
	const char *w[8];
	size_t nw = export_state_words(r, w, 8), i;
	char perms[8], *p;

	export_perms(r, perms); /* r w x - s p: nothing to escape */
	p = ob_reserve(o, REGION_HEAD_MAX);
	p = OB_LIT_AT(p, "{\"start\":\"");
	p = ob_hex_at(p, r->start);
	p = OB_LIT_AT(p, "\",\"end\":\"");
	p = ob_hex_at(p, r->end);
	p = OB_LIT_AT(p, "\",\"perms\":\"");
	p = ob_lit_at(p, perms, 4);
	p = OB_LIT_AT(p, "\",\"offset\":");
	p = ob_u64_at(p, r->offset);
	p = OB_LIT_AT(p, ",\"dev\":\"");
	p = hex2_at(p, r->dev_major);
	*p++ = ':';
	p = hex2_at(p, r->dev_minor);
	p = OB_LIT_AT(p, "\",\"inode\":");
	p = ob_u64_at(p, r->inode);
	p = OB_LIT_AT(p, ",\"path\":");
	ob_commit(o, p);
	ob_json_str(o, r->path);
	OB_LIT(o, ",\"type\":");
	ob_json_str(o, vms_type_info[r->type].json);
	OB_LIT(o, ",\"detail\":");
	ob_json_str(o, r->detail);
	p = ob_reserve(o, FIGURES_MAX + 32);
	p = OB_LIT_AT(p, ",\"size\":");
	p = ob_u64_at(p, vms_region_size(r));
	*p++ = ',';
	ob_commit(o, figures_at(p, r, known));
	vmflags(o, r->vmflags, vc);
	KEY(o, "state");
	ob_putc(o, '[');
	for (i = 0; i < nw; i++) {
		if (i)
			ob_putc(o, ',');
		ob_json_str(o, w[i]);
	}
	ob_write(o, "],", 2);
	KV_STR(o, "build_id", r->build_id); /* null: none, or not an image */
	KEY(o, "children");
	ob_putc(o, '[');
	for (i = 0; i < r->nchildren; i++) {
		const struct vms_child *c = &r->children[i];

		ob_putc(o, '{');
		KV_STR(o, "name", c->name);
		KV_HEX(o, "start", c->start);
		KV_HEX(o, "end", c->end);
		KV_U64(o, "size", c->end - c->start);
		if (c->part)
			part_figures(o, c->part, known);
		close_with(o, '}');
		ob_putc(o, ',');
	}
	close_with(o, ']');
	ob_putc(o, '}');
}

static void threads(const struct vms_snapshot *s, struct outbuf *o)
{
	size_t i;

	KEY(o, "threads");
	ob_putc(o, '[');
	for (i = 0; i < s->nthreads; i++) {
		const struct vms_thread *t = &s->threads[i];

		ob_putc(o, '{');
		KV_U64(o, "tid", (uint64_t)t->tid);
		KV_STR(o, "name", t->name);
		KV_HEX(o, "sp", t->sp);
		KV_HEX(o, "stack_start", t->stack_start);
		KV_HEX(o, "stack_end", t->stack_end);
		close_with(o, '}');
		ob_putc(o, ',');
	}
	close_with(o, ']');
	ob_putc(o, ',');
}

static void kv_str_or_null(struct outbuf *o, const char *k, const char *v)
{
	ob_putc(o, '"');
	ob_puts(o, k);
	OB_LIT(o, "\":");
	if (v)
		ob_json_str(o, v);
	else
		OB_LIT(o, "null");
	ob_putc(o, ',');
}

/* A record of records.h, its fields in its list's order, each followed by
 * a comma (the caller closes the object). */
static void record(struct outbuf *o, const struct vms_record *rec,
		   const void *p)
{
	size_t i;
	uint32_t k, n;

	for (i = 0; i < rec->nfields; i++) {
		const struct vms_field *f = &rec->fields[i];
		const char *at = (const char *)p + f->off;

		ob_putc(o, '"');
		ob_puts(o, f->json);
		OB_LIT(o, "\":");
		if (!export_json_scalar(o, f, p)) { /* segments, parts */
			memcpy(&n, (const char *)p + f->noff, sizeof(n));
			ob_putc(o, '[');
			for (k = 0; k < n; k++) {
				const struct vms_heap_seg *sg;
				const struct vms_managed_part *pt;

				ob_putc(o, '{');
				if (f->kind == VMS_FK_SEGS) {
					memcpy(&sg, at, sizeof(sg));
					KV_HEX(o, "start", sg[k].start);
					KV_HEX(o, "end", sg[k].end);
				} else {
					memcpy(&pt, at, sizeof(pt));
					record(o, &vms_managed_part_record,
					       &pt[k]);
				}
				close_with(o, '}');
				ob_putc(o, ',');
			}
			close_with(o, ']');
		}
		ob_putc(o, ',');
	}
}

/* "fragmentation": free bytes outside top over system bytes, 0 to 1. */
static void kv_fraction(struct outbuf *o, const char *k, uint64_t num,
			uint64_t den)
{
	ob_putc(o, '"');
	ob_puts(o, k);
	OB_LIT(o, "\":");
	ob_printf(o, "%.6f,", den ? (double)num / (double)den : 0.0);
}

/* The glibc walker's figures of one heap (added keys: null unless
 * walked). */
static void heap_glibc(struct outbuf *o, const struct vms_heap *h)
{
	static const char *const keys[] = {
		"system",	 "ordblks",	  "smblks",   "fsmblks",
		"tcache",	 "tcache_chunks", "overhead", "largest_free",
		"fragmentation", "free_resident", "histogram"
	};
	const struct vms_heap_glibc *g = h->glibc;
	size_t i;

	if (!vms_heap_glibc_walked(g)) {
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			kv_i64_or_null(o, keys[i], -1);
		OB_LIT(o, "\"busy\":");
		ob_puts(o, g && g->busy ? "true," : "false,");
		kv_str_or_null(o, "partial", g ? g->partial : NULL);
		return;
	}
	KV_U64(o, "system", g->system);
	KV_U64(o, "ordblks", g->ordblks);
	KV_U64(o, "smblks", g->smblks);
	KV_U64(o, "fsmblks", g->fsmblks);
	KV_U64(o, "tcache", g->tcache);
	KV_U64(o, "tcache_chunks", g->tcache_chunks);
	KV_U64(o, "overhead", g->overhead);
	KV_U64(o, "largest_free", g->largest_free);
	kv_fraction(o, "fragmentation", (uint64_t)h->free - (uint64_t)h->top,
		    g->system);
	kv_i64_or_null(o, "free_resident", g->free_resident);
	KEY(o, "histogram");
	ob_putc(o, '[');
	for (i = 0; i < VMS_HEAP_HIST; i++) {
		if (!g->hist[i])
			continue;
		ob_putc(o, '{');
		KV_U64(o, "min", 32ull << i);
		if (i + 1 < VMS_HEAP_HIST)
			KV_U64(o, "max", (64ull << i) - 1);
		KV_U64(o, "count", g->hist[i]);
		KV_U64(o, "bytes", g->hist_bytes[i]);
		close_with(o, '}');
		ob_putc(o, ',');
	}
	close_with(o, ']');
	OB_LIT(o, ",\"busy\":false,");
	kv_str_or_null(o, "partial", g->partial);
}

/* "malloc" (the process's allocator as the walker saw it) and
 * "allocator" (the allocator behind malloc when it is not glibc's): the
 * record, or null. */
static void kv_record(struct outbuf *o, const char *k,
		      const struct vms_record *rec, const void *p)
{
	ob_putc(o, '"');
	ob_puts(o, k);
	OB_LIT(o, "\":");
	if (!p) {
		OB_LIT(o, "null,");
		return;
	}
	ob_putc(o, '{');
	record(o, rec, p);
	close_with(o, '}');
	ob_putc(o, ',');
}

static void heaps_and_managed(const struct vms_snapshot *s, struct outbuf *o)
{
	size_t i;

	KEY(o, "heaps");
	ob_putc(o, '[');
	for (i = 0; i < s->nheaps; i++) {
		const struct vms_heap *h = &s->heaps[i];

		ob_putc(o, '{');
		record(o, &vms_heap_record, h);
		heap_glibc(o, h);
		close_with(o, '}');
		ob_putc(o, ',');
	}
	close_with(o, ']');
	ob_putc(o, ',');
	kv_record(o, "malloc", &vms_malloc_record, s->glibc);
	kv_record(o, "allocator", &vms_allocator_record, s->allocator);
	KEY(o, "managed");
	ob_putc(o, '[');
	for (i = 0; i < s->nmanaged; i++) {
		ob_putc(o, '{');
		record(o, &vms_managed_record, &s->managed[i]);
		close_with(o, '}');
		ob_putc(o, ',');
	}
	close_with(o, ']');
}

void export_json_members(const struct vms_snapshot *s, struct outbuf *o)
{
	process_and_capture(s, o);
	totals_and_types(s, o);
}

void export_json(const struct vms_snapshot *s, struct outbuf *o)
{
	struct vf_cache vc;
	size_t i;

	memset(vc.key, 0, sizeof(vc.key));
	vc.next = 0;

	ob_puts(o, "{\"format\":\"vmscope\",\"version\":1,");
	process_and_capture(s, o);
	totals_and_types(s, o);
	KEY(o, "regions");
	ob_write(o, "[\n", 2);
	for (i = 0; i < s->nregions; i++) {
		if (i)
			ob_write(o, ",\n", 2);
		region(o, s, &s->regions[i], &vc);
	}
	ob_write(o, "\n],\n", 4);
	threads(s, o);
	ob_putc(o, '\n');
	heaps_and_managed(s, o);
	OB_LIT(o, ",\n");
	KEY(o, "notes");
	step_notes(o, s, "text");
	o->len--; /* step_notes' comma: the trace, if any, adds its own */
	if (s->trace) {
		OB_LIT(o, ",\n\"trace\":");
		export_trace_json(o, s->trace);
	}
	ob_write(o, "}\n", 2);
}
