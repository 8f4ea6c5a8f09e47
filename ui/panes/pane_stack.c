/* pane_stack.c — what the trace screens share (panes.h): a frame of a
 * call stack as one line of text, a stack drawn into a block of lines,
 * the stack of the row under a cursor kept while it stays, the address
 * span of the viewer's row, named, that the trace screens narrow to, the
 * trace they read (the live one, or the one a snapshot file kept with its
 * allocations and log: trace_kept), and the refusal without either.
 */
#include <stdio.h>
#include <string.h>

#include "trace/tracer.h"

#include "core/draw.h"
#include "core/theme.h"
#include "panes/panes.h"

void trace_frame_text(const struct vms_trace_frame *f, char *buf, size_t n)
{
	const char *m = f->module ? strrchr(f->module, '/') : NULL;
	const char *file = f->file ? strrchr(f->file, '/') : NULL;

	m = m ? m + 1 : f->module;
	if (f->function && f->file)
		snprintf(buf, n, "%s (%s:%u)  %s", f->function,
			 file ? file + 1 : f->file, f->line, m ? m : "");
	else if (f->function)
		snprintf(buf, n, "%s  %s", f->function, m ? m : "");
	else if (m)
		snprintf(buf, n, "%s+0x%llx", m, (unsigned long long)f->offset);
	else
		snprintf(buf, n, "0x%llx", (unsigned long long)f->ip);
}

void trace_stack_draw(const struct vms_trace_site *s, const char *title, int y,
		      int h)
{
	char line[512];
	uint32_t i;
	int k;

	if (h <= 0)
		return;
	put_fmt(y, 0, COLS, theme_attr(EL_COLUMN), " %s", title);
	for (k = 1; k < h; k++) {
		i = (uint32_t)(k - 1);
		if (!s || i >= s->nframes) {
			put_blank(y + k, 0, COLS, theme_attr(EL_NORMAL));
			continue;
		}
		trace_frame_text(&s->frames[i], line, sizeof(line));
		put_fmt(y + k, 0, COLS, theme_attr(EL_CHILD), "   %s %s",
			i ? "<" : " ", line);
	}
}

bool details_cursor_span(struct ui *u, uint64_t *lo, uint64_t *hi, char *what,
			 size_t n)
{
	const struct details *d = det_of(u);
	const struct vms_region *r;
	const struct drow *row;
	const char *text;

	if (!u->snap || !d->nrows || d->lv.cur >= d->nrows) {
		ui_message(u, true, "%s", "no row in the viewer to look in");
		return false;
	}
	row = &d->rows[d->lv.cur];
	if (!(r = details_node_region(u, row))) {
		ui_message(
			u, true, "%s",
			"the viewer's row is free space: nothing lives there");
		return false;
	}
	details_row_span(u, row, lo, hi);
	text = details_region_text(r);
	snprintf(what, n, "%s", *text ? text : "(anonymous)");
	return true;
}

const struct vms_trace_report *trace_kept(const struct ui *u)
{
	if (u->tracer || !u->snap || !u->snap->trace || !u->snap->trace->live)
		return NULL;
	return u->snap->trace;
}

const struct vms_trace_site *stack_cache_get(struct stack_cache *sc,
					     struct ui *u, uint32_t id)
{
	const struct vms_trace_report *k = trace_kept(u);

	if (id == UINT32_MAX || (!u->tracer && !k))
		return NULL;
	if (k)
		return vms_trace_site_of(k, id);
	if (sc->have && sc->id == id)
		return &sc->site;
	stack_cache_drop(sc);
	arena_init(&sc->ar);
	sc->have = true;
	sc->id = id;
	if (tracer_site(u->tracer, id, &sc->ar, &sc->site) <= 0) {
		stack_cache_drop(sc);
		return NULL;
	}
	return &sc->site;
}

void stack_cache_drop(struct stack_cache *sc)
{
	if (sc->have)
		arena_fini(&sc->ar);
	sc->have = false;
}

bool trace_site_text(struct ui *u, uint32_t id, char *buf, size_t n)
{
	const struct vms_trace_report *k = trace_kept(u);
	const struct vms_trace_site *ks;
	struct vms_trace_site s;
	struct arena a;
	bool got = false;

	if (id == UINT32_MAX)
		return false;
	if (k) {
		if ((ks = vms_trace_site_of(k, id)) && ks->nframes) {
			trace_frame_text(&ks->frames[0], buf, n);
			return true;
		}
		return false;
	}
	if (!u->tracer)
		return false;
	/* the innermost frame's name, from a small arena of its own */
	arena_init(&a);
	if (tracer_site(u->tracer, id, &a, &s) > 0 && s.nframes) {
		trace_frame_text(&s.frames[0], buf, n);
		got = true;
	}
	arena_fini(&a);
	return got;
}

bool trace_have(struct ui *u)
{
	if (u->tracer || trace_kept(u))
		return true;
	if (u->snap && u->snap->trace)
		ui_message(u, true, "%s",
			   "this file keeps the trace's call sites only (saved "
			   "by an older vmscope): not its allocations or its "
			   "events");
	else
		ui_message(u, true, "%s",
			   "no trace: vmscope --trace -- CMD traces a "
			   "command's allocations (-w FILE saves them with its "
			   "snapshot)");
	return false;
}

size_t trace_blocks(struct ui *u, uint64_t lo, uint64_t hi,
		    struct vms_trace_block *out, size_t max)
{
	const struct vms_trace_report *k = trace_kept(u);

	if (k)
		return vms_trace_blocks_of(k, lo, hi, out, max);
	return u->tracer ? tracer_blocks_in(u->tracer, lo, hi, out, max) : 0;
}

size_t trace_events(struct ui *u, const struct vms_trace_filter *f,
		    struct vms_trace_event *out, size_t max)
{
	const struct vms_trace_report *k = trace_kept(u);

	if (k)
		return vms_trace_log_of(k, f, out, max);
	return u->tracer ? tracer_log(u->tracer, f, out, max) : 0;
}

uint64_t trace_now_ns(struct ui *u)
{
	const struct vms_trace_report *k = trace_kept(u);

	if (k)
		return k->to_ns;
	return u->tracer ? tracer_now(u->tracer) : 0;
}

const char *trace_commit_words(struct ui *u, uint64_t lo, uint64_t hi,
			       char *buf, size_t n)
{
	struct details *d = det_of(u);
	uint32_t id = u->tracer ? tracer_map_at(u->tracer, lo, hi) : UINT32_MAX;
	struct vms_trace_site site;
	struct arena a;
	unsigned k;

	buf[0] = '\0';
	if (id == UINT32_MAX)
		return buf;
	for (k = 0; k < DETAILS_SITES; k++)
		if (d->site_names[k].id == id && d->site_names[k].name[0]) {
			snprintf(buf, n, " [mmap by %s]",
				 d->site_names[k].name);
			return buf;
		}
	k = d->site_next++ % DETAILS_SITES;
	d->site_names[k].id = id;
	snprintf(d->site_names[k].name, sizeof(d->site_names[k].name), "?");
	arena_init(&a);
	if (tracer_site(u->tracer, id, &a, &site) > 0 && site.nframes &&
	    site.frames[0].function)
		snprintf(d->site_names[k].name, sizeof(d->site_names[k].name),
			 "%s", site.frames[0].function);
	arena_fini(&a);
	snprintf(buf, n, " [mmap by %s]", d->site_names[k].name);
	return buf;
}
