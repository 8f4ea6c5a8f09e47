/* test_fill_inplace — the streaming fill in place (pipeline.h:
 * vms_lend_begin, vms_lend_end, vms_layout_fill), on the recorded kinds
 * fixture: the layout (kinds.maps, finished) lends its region array to a
 * capture that parses kinds.smaps over it in two pieces, as the samplers
 * feed it. Halfway the layout's total has the first half's figures
 * exactly, and its other regions are the layout's still; at the end every
 * summary column equals that of kinds.smaps finished on its own; the
 * capture, finished, keeps the array (cut to its regions) and the layout
 * is freed without it.
 * A capture that fails halfway gives the array back with the regions it
 * wrote (their strings outlive it: read after it is freed, under ASan),
 * and the layout's rows are the sums of its regions again, also when
 * the target unmapped a region between the two reads (the regions then
 * shift: none is kept twice). A header that turns out malformed puts back
 * the region it was written over. A capture with more regions than the
 * layout's array holds goes on in its own; neither array leaks.
 * The preview made of them (preview.h), on a live target: its frame's
 * figures grow as the capture hands the regions over and end at the
 * capture's; a cancelled capture leaves it a finished snapshot whose
 * rows are the sums of its regions, handed over (freed under ASan: no
 * leak, nothing freed twice). */
#include <stdio.h>
#include <string.h>

#include "../fixtures/fixture.h"
#include "model/columns.h"
#include "pipeline.h"
#include "preview.h"
#include "linux/procfs.h"
#include "tap.h"
#include "target.h"

/* The summed columns of a row, as text, for a message and a compare. */
static void row_text(const struct vms_totals *t, char *out, size_t n)
{
	size_t len = 0;
	int c;

	out[0] = '\0';
	for (c = 0; c < VMS_NCOLS && len < n; c++)
		if (vms_column_has(c, VMS_COLF_REGION) &&
		    vms_column_has(c, VMS_COLF_TYPE))
			len += (size_t)snprintf(
				out + len, n - len, "%s=%llu ",
				vms_columns[c].key,
				(unsigned long long)vms_column_type(t, c));
}

/* The row of type t as the figures of s's regions of that type make it. */
static void sum_by_type(const struct vms_snapshot *s, int t,
			struct vms_totals *want)
{
	size_t i;
	int c;

	memset(want, 0, sizeof(*want));
	for (i = 0; i < s->nregions; i++) {
		if (s->regions[i].type != t)
			continue;
		for (c = 0; c < VMS_NCOLS; c++) {
			uint64_t v;

			if (!vms_column_has(c, VMS_COLF_REGION) ||
			    !vms_column_has(c, VMS_COLF_TYPE))
				continue;
			memcpy(&v, (char *)want + vms_columns[c].offset,
			       sizeof(v));
			v += vms_column_region(&s->regions[i], c);
			memcpy((char *)want + vms_columns[c].offset, &v,
			       sizeof(v));
		}
	}
}

/* Each type's row of s is the sum of its regions' figures. */
static int rows_are_sums(const struct vms_snapshot *s)
{
	int t, same = 0;

	for (t = 0; t < VMS_NTYPES; t++) {
		struct vms_totals want;
		char a[600], b[600];

		if (t == VMS_T_FREE || t == VMS_T_PAGE_TABLE) {
			same++;
			continue;
		}
		sum_by_type(s, t, &want);
		row_text(&s->types[t], a, sizeof(a));
		row_text(&want, b, sizeof(b));
		same += strcmp(a, b) == 0;
	}
	return same;
}

/* The regions of s are in address order, none overlapping. */
static bool ordered(const struct vms_snapshot *s)
{
	size_t i;

	for (i = 1; i < s->nregions; i++)
		if (s->regions[i].start < s->regions[i - 1].end)
			return false;
	return true;
}

/* The byte offset of the k-th header line of smaps text (len if none). */
static size_t header_at(const char *text, size_t len, size_t k)
{
	size_t off = 0, seen = 0;

	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (smaps_header_like(text + off, text + end) && seen++ == k)
			return off;
		off = end + 1;
	}
	return len;
}

static struct vms_snapshot *layout(void)
{
	struct vms_snapshot *pre = fixture_snapshot("kinds.maps");
	struct vms_error err;

	if (pre && vms_snapshot_finish(pre, NULL, &err) < 0) {
		vms_snapshot_free(pre);
		return NULL;
	}
	return pre;
}

/* A live target whose smaps shows one region fewer than its maps (as if
 * it unmapped between the two reads): the capture that fails after
 * writing over the layout leaves the layout from maps read again, whole,
 * without counters, and says so. */
static void check_moved_live(void)
{
	char *argv[] = { "pagekinds", "still", NULL };
	struct target t = { 0 };
	struct vms_capture_opts mo = { .no_memory = true };
	struct vms_snapshot *pre = NULL, *s = NULL;
	struct vms_fill st = { 0 };
	struct vms_error err;
	struct smaps_parser p;
	char line[512], path[64], *text = NULL, *cut = NULL;
	size_t len, n, a1, a2, clen, i;
	uint64_t ws = 0;

	if (target_start(&t, argv) < 0 || !fgets(line, sizeof(line), t.out) ||
	    strncmp(line, "ready", 5) != 0) {
		ok(0, "live: pagekinds starts");
		goto out;
	}
	kill(t.pid, SIGSTOP);
	mo.pid = t.pid;
	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)t.pid);
	pre = vms_capture(vms_sampler_by_name("maps"), &mo, &err);
	if (!pre || procfs_read_file(path, &text, &len) < 0) {
		ok(0, "live: the layout and smaps of pagekinds");
		goto out;
	}
	n = pre->nregions;
	a1 = header_at(text, len, 1);
	a2 = header_at(text, len, 2);
	clen = len - (a2 - a1);
	if (!(cut = malloc(clen)) || !(s = vms_snapshot_new()) ||
	    vms_lend_begin(s, pre, &err) < 0) {
		ok(0, "live: the layout lends its array");
		goto out;
	}
	memcpy(cut, text, a1);
	memcpy(cut + a1, text + a2, len - a2);
	smaps_parser_init(&p, s);
	smaps_parse(&p, cut, header_at(cut, clen, n / 2), false, &err);
	smaps_parser_release(&p);
	vms_layout_fill(pre, &st, s, s->nregions - 1);
	vms_lend_end(s, false);
	vms_snapshot_free(s);
	s = NULL;
	for (i = 0; i < pre->nregions; i++)
		ws += pre->regions[i].c.rss;
	ok(pre->nregions == n && ordered(pre) && ws == 0 &&
		   pre->total.ws == 0 && pre->cap.partial &&
		   strstr(pre->cap.partial, "read again"),
	   "live: failed after the process mapped between the reads: the "
	   "layout from maps again, its %zu regions whole, no counters, "
	   "and it says so (%s)",
	   n, pre->cap.partial ? pre->cap.partial : "nothing");
	ok(rows_are_sums(pre) == VMS_NTYPES,
	   "live: and its rows are the sums of its regions");
out:
	free(text);
	free(cut);
	vms_snapshot_free(s);
	vms_snapshot_free(pre);
	target_stop(&t);
}

/* What the preview's hook saw (check_preview_live). */
struct seen {
	int calls;
	size_t filled; /* the sum of the calls' filled */
	bool counted; /* vms_preview_filled was that sum each time */
	bool grew; /* the frame's Rss never went down */
	uint64_t ws; /* the frame's Rss at the last call */
	int cancel_at; /* the call that cancels (0: none) */
};

static int on_fill(void *ctx, const struct vms_preview *p, size_t filled)
{
	struct seen *w = ctx;
	/* the frame is only read here: the preview's own functions write it */
	const struct vms_snapshot *f = vms_preview_frame(p);

	if (!filled)
		return 0;
	w->calls++;
	w->filled += filled;
	w->counted = w->counted && vms_preview_filled(p) == w->filled;
	w->grew = w->grew && f->total.ws >= w->ws;
	w->ws = f->total.ws;
	return w->cancel_at && w->calls >= w->cancel_at;
}

/* The preview of a live target through a capture that succeeds, then
 * through one cancelled at its first frame. */
static void check_preview_live(void)
{
	char *argv[] = { "pagekinds", "still", NULL };
	struct target t = { 0 };
	struct vms_capture_opts co = { 0 };
	struct vms_preview *pv = NULL;
	struct vms_snapshot *s = NULL;
	struct vms_error err;
	struct seen w = { .counted = true, .grew = true };
	char line[512];
	size_t n;

	if (target_start(&t, argv) < 0 || !fgets(line, sizeof(line), t.out) ||
	    strncmp(line, "ready", 5) != 0) {
		ok(0, "live: pagekinds starts");
		goto out;
	}
	pv = vms_preview_open(t.pid, &err);
	if (!pv) {
		ok(0, "live: a preview of pagekinds (%s)", err.msg);
		goto out;
	}
	n = vms_preview_frame(pv)->nregions;
	ok(n > 0 && vms_preview_frame(pv)->total.ws == 0 &&
		   vms_preview_filled(pv) == 0,
	   "live: the first frame is the layout, %zu regions, no counters", n);
	s = vms_preview_capture(pv, &vms_sampler_pss, &co, on_fill, &w, &err);
	ok(s && w.calls > 0 && w.counted && w.grew && w.filled == n &&
		   w.ws == s->total.ws,
	   "live: the frame is filled as the capture reads (%d frames, %zu "
	   "regions, Rss growing to the capture's %llu)",
	   w.calls, w.filled, s ? (unsigned long long)s->total.ws : 0ull);
	vms_preview_free(pv);
	pv = NULL;
	vms_snapshot_free(s);
	s = NULL;

	pv = vms_preview_open(t.pid, &err);
	w = (struct seen){ .counted = true, .grew = true, .cancel_at = 1 };
	s = pv ? vms_preview_capture(pv, &vms_sampler_pss, &co, on_fill, &w,
				     &err)
	       : NULL;
	ok(pv && !s && w.calls == 1, "live: a capture cancelled at its first "
	   "frame fails");
	if (pv && !s) {
		s = vms_preview_end(pv);
		ok(s->finished && ordered(s) &&
			   rows_are_sums(s) == VMS_NTYPES && s->cap.partial,
		   "live: the preview is handed over as a finished snapshot, "
		   "its rows the sums of its regions (%s)",
		   s->cap.partial ? s->cap.partial : "nothing");
	} else {
		vms_preview_free(pv);
	}
	pv = NULL;
out:
	vms_preview_free(pv);
	vms_snapshot_free(s);
	target_stop(&t);
}

/* A fresh layout lending its array to a fresh capture, st zeroed. */
static bool lend_layout(struct vms_snapshot **pre, struct vms_snapshot **s,
			struct vms_fill *st)
{
	struct vms_error err;

	*pre = layout();
	*s = vms_snapshot_new();
	memset(st, 0, sizeof(*st));
	if (*pre && *s && vms_lend_begin(*s, *pre, &err) == 0)
		return true;
	ok(0, "a layout lends its array");
	return false;
}

int main(void)
{
	struct vms_snapshot *full = fixture_snapshot("kinds.smaps");
	struct vms_snapshot *pre = layout(), *s = vms_snapshot_new();
	struct vms_fill st = { 0 };
	struct vms_error err;
	struct smaps_parser p;
	struct vms_region *arr, old1;
	char a[600], b[600], *text;
	size_t len, n, h, half, i, same, filled;
	uint64_t ws = 0, pss = 0;

	text = fixture_read("kinds.smaps", &len);
	if (!full || !pre || !s || !text ||
	    vms_snapshot_finish(full, NULL, &err) < 0) {
		ok(0, "the kinds fixtures load and finish");
		return tap_done();
	}
	n = full->nregions;
	h = n / 2;
	half = header_at(text, len, h);

	/* ---- a capture that succeeds ---- */
	arr = pre->regions;
	ok(vms_lend_begin(s, pre, &err) == 0 && s->regions == arr &&
		   s->nregions == 0 && pre->nregions == n,
	   "the capture writes over the layout's %zu regions", n);
	smaps_parser_init(&p, s);
	smaps_parse(&p, text, half, false, &err);
	/* as the samplers hand them over: the last one may go on */
	filled = vms_layout_fill(pre, &st, s, s->nregions - 1);
	for (i = 0; i + 1 < h; i++) {
		ws += full->regions[i].c.rss;
		pss += full->regions[i].c.pss;
	}
	ok(filled == h - 1 && pre->total.ws == ws && pre->total.pss == pss,
	   "halfway: %zu regions in the layout's total with their figures "
	   "(WS %llu of %llu)",
	   filled, (unsigned long long)pre->total.ws,
	   (unsigned long long)full->total.ws);
	for (i = h, same = 0; i < n; i++)
		same += pre->regions[i].c.rss == 0 &&
			pre->regions[i].start == full->regions[i].start;
	ok(same == n - h && pre->regions[0].type == full->regions[0].type,
	   "halfway: the regions not read yet are the layout's, the ones "
	   "read keep its types");
	ok(vms_layout_fill(pre, &st, s, s->nregions - 1) == 0,
	   "regions handed over again are not counted twice");
	smaps_parse(&p, text + half, len - half, true, &err);
	smaps_finish(&p, &err);
	smaps_parser_release(&p);
	vms_layout_fill(pre, &st, s, s->nregions);
	row_text(&pre->total, a, sizeof(a));
	row_text(&full->total, b, sizeof(b));
	ok(s->nregions == n && strcmp(a, b) == 0,
	   "at the end the layout's total is the capture's (%s)", a);
	ok(rows_are_sums(pre) == VMS_NTYPES,
	   "each of the layout's rows is the sum of its regions");
	ok(vms_snapshot_finish(s, NULL, &err) == 0, "the capture finishes");
	vms_lend_end(s, true);
	ok(pre->regions == s->regions && pre->nregions <= s->nregions,
	   "the layout is left pointing at the capture's array, no longer "
	   "than it");
	vms_snapshot_free(pre);
	row_text(&s->total, a, sizeof(a));
	for (i = 0, same = 0; i < n; i++)
		same += s->regions[i].type == full->regions[i].type &&
			(s->regions[i].path == NULL) ==
				(full->regions[i].path == NULL) &&
			(!s->regions[i].path ||
			 strcmp(s->regions[i].path, full->regions[i].path) ==
				 0) &&
			s->regions[i].nchildren == full->regions[i].nchildren;
	ok(s->regions_cap == n && strcmp(a, b) == 0 && same == n,
	   "the finished capture has the array, cut to its %zu regions, the "
	   "layout gone: its regions, types, children and totals are those "
	   "of smaps parsed alone",
	   n);
	vms_snapshot_free(s);

	/* ---- a capture that fails halfway ---- */
	if (!lend_layout(&pre, &s, &st))
		return tap_done();
	arr = pre->regions;
	smaps_parser_init(&p, s);
	smaps_parse(&p, text, half, false, &err);
	smaps_parser_release(&p);
	vms_layout_fill(pre, &st, s, s->nregions / 2);
	vms_lend_end(s, false);
	vms_snapshot_free(s);
	ws = 0;
	for (i = 0; i < h; i++)
		ws += full->regions[i].c.rss;
	for (i = 0, same = 0; i < h; i++)
		same += (pre->regions[i].path == NULL) ==
				(full->regions[i].path == NULL) &&
			(!pre->regions[i].path ||
			 strcmp(pre->regions[i].path, full->regions[i].path) ==
				 0) &&
			strcmp(pre->regions[i].vmflags,
			       full->regions[i].vmflags) == 0;
	ok(pre->regions == arr && pre->total.ws == ws && same == h,
	   "failed halfway: the layout has its array back, the %zu regions "
	   "read in its total (WS %llu), their paths and VmFlags alive",
	   h, (unsigned long long)ws);
	ok(rows_are_sums(pre) == VMS_NTYPES && pre->cap.partial &&
		   strstr(pre->cap.partial, "before the capture stopped"),
	   "failed halfway: each of the layout's rows is the sum of its "
	   "regions, and it says the counters stopped (%s)",
	   pre->cap.partial ? pre->cap.partial : "nothing");
	vms_snapshot_free(pre);

	/* ---- a header that turns out malformed ---- */
	if (!lend_layout(&pre, &s, &st))
		return tap_done();
	old1 = pre->regions[1];
	row_text(&pre->total, b, sizeof(b));
	smaps_parser_init(&p, s);
	smaps_parse(&p, text, header_at(text, len, 1), false, &err);
	smaps_parse(&p, "7f0000000000-7f0000001000 zz\n", 29, false, &err);
	smaps_parser_release(&p);
	vms_layout_fill(pre, &st, s, s->nregions);
	ok(s->nregions == 1 &&
		   memcmp(&pre->regions[1], &old1, sizeof(old1)) == 0,
	   "a malformed header puts back the layout's region it was "
	   "written over");
	vms_lend_end(s, false);
	vms_snapshot_free(s);
	ok(rows_are_sums(pre) == VMS_NTYPES,
	   "and the layout's rows are the sums of its regions");
	vms_snapshot_free(pre);

	/* ---- the target unmapped region 1 between maps and smaps ---- */
	{
		size_t a1 = header_at(text, len, 1),
		       a2 = header_at(text, len, 2);
		size_t clen = len - (a2 - a1), chalf;
		char *cut = malloc(clen);

		memcpy(cut, text, a1);
		memcpy(cut + a1, text + a2, len - a2);
		chalf = header_at(cut, clen, h);
		if (!cut || !lend_layout(&pre, &s, &st))
			return tap_done();
		smaps_parser_init(&p, s);
		smaps_parse(&p, cut, chalf, false, &err);
		smaps_parser_release(&p);
		vms_layout_fill(pre, &st, s, s->nregions - 1);
		vms_lend_end(s, false);
		vms_snapshot_free(s);
		for (i = 0, same = 0; i < pre->nregions; i++)
			same += pre->regions[i].start == full->regions[1].start;
		ok(ordered(pre) && pre->nregions == n - 1 && same == 0,
		   "failed after a region went: the layout keeps the %zu "
		   "others, in order, none twice",
		   n - 1);
		ok(rows_are_sums(pre) == VMS_NTYPES,
		   "and its rows are the sums of its regions");
		vms_snapshot_free(pre);
		free(cut);
	}

	check_moved_live();
	check_preview_live();

	/* ---- a capture that needs more room than the layout's array ---- */
	{
		int k;

		for (k = 0; k < 2; k++) {
			if (!lend_layout(&pre, &s, &st))
				return tap_done();
			arr = pre->regions;
			s->regions_cap = h; /* room for half of them */
			smaps_parser_init(&p, s);
			smaps_parse(&p, text, len, true, &err);
			smaps_finish(&p, &err);
			smaps_parser_release(&p);
			vms_layout_fill(pre, &st, s, s->nregions);
			if (k == 0) {
				vms_snapshot_finish(s, NULL, &err);
				vms_lend_end(s, true);
				row_text(&s->total, a, sizeof(a));
				row_text(&full->total, b, sizeof(b));
				ok(s->regions != arr && s->nregions == n &&
					   strcmp(a, b) == 0,
				   "out of room: the capture goes on in an array "
				   "of its own, its figures the same");
			} else {
				vms_lend_end(s, false);
				ok(pre->regions == arr && ordered(pre) &&
					   rows_are_sums(pre) == VMS_NTYPES,
				   "out of room, then failed: the layout keeps "
				   "its array (freed with it: no leak under "
				   "ASan), in order, its rows the sums");
			}
			vms_snapshot_free(pre);
			vms_snapshot_free(s);
		}
	}
	vms_snapshot_free(full);
	free(text);
	return tap_done();
}
