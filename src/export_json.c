/* export_json.c — DESIGN.md's JSON contract, version 1.
 *
 * Written by hand with ob_* (no printf per number): a 65,000-region export
 * is some 60 MB and must cost little next to reading smaps. Added beyond the
 * contract (allowed: fields are only ever added): capture.frozen,
 * capture.partial, process.uid, totals.blocks, region state/build_id,
 * thread fields as listed, heaps' walked figures as null until walked.
 */
#include <string.h>

#include "export.h"

static void key(struct outbuf *o, const char *k)
{
	ob_putc(o, '"');
	ob_puts(o, k);
	ob_write(o, "\":", 2);
}

static void kv_u64(struct outbuf *o, const char *k, uint64_t v)
{
	key(o, k);
	ob_u64(o, v);
	ob_putc(o, ',');
}

static void kv_hex(struct outbuf *o, const char *k, uint64_t v)
{
	key(o, k);
	ob_putc(o, '"');
	ob_hex(o, v);
	ob_write(o, "\",", 2);
}

static void kv_str(struct outbuf *o, const char *k, const char *v)
{
	key(o, k);
	ob_json_str(o, v);
	ob_putc(o, ',');
}

static void kv_i64_or_null(struct outbuf *o, const char *k, int64_t v)
{
	key(o, k);
	if (v < 0)
		ob_write(o, "null", 4);
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

static void columns(struct outbuf *o, const struct vms_totals *t, bool blocks)
{
	kv_u64(o, "size", t->size);
	kv_u64(o, "committed", t->committed);
	kv_u64(o, "private", t->private_bytes);
	kv_u64(o, "ws", t->ws);
	kv_u64(o, "private_ws", t->private_ws);
	kv_u64(o, "shareable_ws", t->shareable_ws);
	kv_u64(o, "shared_ws", t->shared_ws);
	kv_u64(o, "locked_ws", t->locked_ws);
	kv_u64(o, "pss", t->pss);
	kv_u64(o, "uss", t->uss);
	kv_u64(o, "swap", t->swap);
	if (blocks) {
		kv_u64(o, "blocks", t->blocks);
		kv_u64(o, "largest", t->largest);
	}
}

static void process_and_capture(const struct vms_snapshot *s,
				struct outbuf *o)
{
	char when[40];

	key(o, "process");
	ob_putc(o, '{');
	kv_u64(o, "pid", (uint64_t)s->proc.pid);
	kv_str(o, "name", s->proc.name);
	kv_str(o, "cmdline", s->proc.cmdline);
	kv_str(o, "exe", s->proc.exe);
	kv_u64(o, "uid", (uint64_t)s->proc.uid);
	close_with(o, '}');
	ob_putc(o, ',');
	key(o, "capture");
	ob_putc(o, '{');
	kv_str(o, "backend", s->cap.backend);
	kv_u64(o, "frozen_us", s->cap.frozen_us);
	key(o, "frozen");
	ob_puts(o, s->cap.frozen ? "true," : "false,");
	kv_str(o, "taken_at", export_taken_at(s, when, sizeof(when)));
	kv_str(o, "kernel", s->cap.kernel);
	kv_u64(o, "page_size", s->cap.page_size);
	kv_str(o, "partial", s->cap.partial);
	close_with(o, '}');
	ob_putc(o, ',');
}

static void totals_and_types(const struct vms_snapshot *s, struct outbuf *o)
{
	int t;

	key(o, "totals");
	ob_putc(o, '{');
	columns(o, &s->total, false);
	kv_u64(o, "blocks", s->total.blocks);
	kv_u64(o, "page_table", s->page_table);
	kv_u64(o, "largest_free", s->largest_free);
	close_with(o, '}');
	ob_putc(o, ',');
	key(o, "types");
	ob_putc(o, '[');
	for (t = 0; t < VMS_NTYPES; t++) {
		ob_putc(o, '{');
		kv_str(o, "type", vms_type_info[t].json);
		columns(o, &s->types[t], true);
		close_with(o, '}');
		ob_putc(o, ',');
	}
	close_with(o, ']');
	ob_putc(o, ',');
}

static void vmflags(struct outbuf *o, const char *f)
{
	bool first = true;

	key(o, "vmflags");
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
		ob_putc(o, '"');
		ob_write(o, f, n); /* two-letter words: nothing to escape */
		ob_putc(o, '"');
		first = false;
		f += n;
	}
	ob_write(o, "],", 2);
}

static void region(struct outbuf *o, const struct vms_region *r)
{
	const char *w[8];
	size_t nw = export_state_words(r, w, 8), i;
	char buf[32];

	ob_putc(o, '{');
	kv_hex(o, "start", r->start);
	kv_hex(o, "end", r->end);
	kv_str(o, "perms", export_perms(r, buf));
	kv_u64(o, "offset", r->offset);
	key(o, "dev");
	ob_putc(o, '"');
	{
		static const char hx[] = "0123456789abcdef";
		uint32_t maj = r->dev_major, min = r->dev_minor;

		if (maj < 256 && min < 256) {
			char d[5] = { hx[maj >> 4], hx[maj & 15], ':',
				      hx[min >> 4], hx[min & 15] };
			ob_write(o, d, 5);
		} else {
			ob_printf(o, "%02x:%02x", maj, min);
		}
	}
	ob_write(o, "\",", 2);
	kv_u64(o, "inode", r->inode);
	kv_str(o, "path", r->path);
	kv_str(o, "type", vms_type_info[r->type].json);
	kv_str(o, "detail", r->detail);
	kv_u64(o, "size", vms_region_size(r));
	kv_u64(o, "committed", r->committed);
	kv_u64(o, "private", r->private_bytes);
	kv_u64(o, "private_ws", r->private_ws);
	kv_u64(o, "rss", r->c.rss);
	kv_u64(o, "pss", r->c.pss);
	kv_u64(o, "private_clean", r->c.private_clean);
	kv_u64(o, "private_dirty", r->c.private_dirty);
	kv_u64(o, "shared_clean", r->c.shared_clean);
	kv_u64(o, "shared_dirty", r->c.shared_dirty);
	kv_u64(o, "swap", r->c.swap);
	kv_u64(o, "swap_pss", r->c.swap_pss);
	kv_u64(o, "locked", r->c.locked);
	kv_u64(o, "anon_huge", r->c.anon_huge);
	vmflags(o, r->vmflags);
	key(o, "state");
	ob_putc(o, '[');
	for (i = 0; i < nw; i++) {
		if (i)
			ob_putc(o, ',');
		ob_json_str(o, w[i]);
	}
	ob_write(o, "],", 2);
	if (r->build_id)
		kv_str(o, "build_id", r->build_id);
	key(o, "children");
	ob_putc(o, '[');
	for (i = 0; i < r->nchildren; i++) {
		const struct vms_child *c = &r->children[i];

		ob_putc(o, '{');
		kv_str(o, "name", c->name);
		kv_hex(o, "start", c->start);
		kv_hex(o, "end", c->end);
		kv_u64(o, "size", c->end - c->start);
		close_with(o, '}');
		ob_putc(o, ',');
	}
	close_with(o, ']');
	ob_putc(o, '}');
}

static void threads(const struct vms_snapshot *s, struct outbuf *o)
{
	size_t i;

	key(o, "threads");
	ob_putc(o, '[');
	for (i = 0; i < s->nthreads; i++) {
		const struct vms_thread *t = &s->threads[i];

		ob_putc(o, '{');
		kv_u64(o, "tid", (uint64_t)t->tid);
		kv_str(o, "name", t->name);
		kv_hex(o, "sp", t->sp);
		kv_hex(o, "stack_start", t->stack_start);
		kv_hex(o, "stack_end", t->stack_end);
		close_with(o, '}');
		ob_putc(o, ',');
	}
	close_with(o, ']');
	ob_putc(o, ',');
}

static void heaps_and_managed(const struct vms_snapshot *s, struct outbuf *o)
{
	size_t i, j;

	key(o, "heaps");
	ob_putc(o, '[');
	for (i = 0; i < s->nheaps; i++) {
		const struct vms_heap *h = &s->heaps[i];

		ob_putc(o, '{');
		kv_str(o, "kind", h->kind);
		kv_hex(o, "id", h->id);
		key(o, "segments");
		ob_putc(o, '[');
		for (j = 0; j < h->nsegs; j++) {
			ob_putc(o, '{');
			kv_hex(o, "start", h->segs[j].start);
			kv_hex(o, "end", h->segs[j].end);
			close_with(o, '}');
			ob_putc(o, ',');
		}
		close_with(o, ']');
		ob_putc(o, ',');
		kv_i64_or_null(o, "in_use", h->in_use);
		kv_i64_or_null(o, "free", h->free);
		kv_i64_or_null(o, "chunks", h->chunks);
		kv_i64_or_null(o, "free_chunks", h->free_chunks);
		kv_i64_or_null(o, "top", h->top);
		kv_i64_or_null(o, "mmapped", h->mmapped);
		close_with(o, '}');
		ob_putc(o, ',');
	}
	close_with(o, ']');
	ob_putc(o, ',');
	key(o, "managed");
	ob_putc(o, '[');
	for (i = 0; i < s->nmanaged; i++) {
		const struct vms_managed *m = &s->managed[i];

		ob_putc(o, '{');
		kv_str(o, "runtime", m->runtime);
		kv_hex(o, "start", m->start);
		kv_hex(o, "end", m->end);
		kv_u64(o, "reserved", m->reserved);
		kv_u64(o, "committed", m->committed);
		close_with(o, '}');
		ob_putc(o, ',');
	}
	close_with(o, ']');
}

void export_json(const struct vms_snapshot *s, struct outbuf *o)
{
	size_t i;

	ob_puts(o, "{\"format\":\"vmscope\",\"version\":1,");
	process_and_capture(s, o);
	totals_and_types(s, o);
	key(o, "regions");
	ob_write(o, "[\n", 2);
	for (i = 0; i < s->nregions; i++) {
		if (i)
			ob_write(o, ",\n", 2);
		region(o, &s->regions[i]);
	}
	ob_write(o, "\n],\n", 4);
	threads(s, o);
	ob_putc(o, '\n');
	heaps_and_managed(s, o);
	ob_write(o, "}\n", 2);
}
