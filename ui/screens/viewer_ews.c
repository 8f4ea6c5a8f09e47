/* viewer_ews.c — Empty Working Set from the viewer (viewer_ews.h). */
#include "screens/viewer_ews.h"

#include <stdio.h>
#include <string.h>

#include "core/draw.h"
#include "panes/panes.h"
#include "pipeline.h"

int vews_ask(struct ui *u)
{
	struct viewer *v = viewer_of(u);
	struct vms_error err = { 0 };

	if (!u->snap)
		return 0;
	if (u->pre) {
		ui_message(u, true, "%s",
			   "Empty Working Set: wait for the capture to end");
		return UI_DRAW;
	}
	if (vms_pageout_check(u->snap, &err) < 0) {
		ui_message(u, true, "Empty Working Set refused: %s", err.msg);
		return UI_DRAW;
	}
	v->ews_confirm = true;
	u->prompting = true; /* letters are answers, not keys */
	return UI_DRAW;
}

bool vews_open(const struct ui *u)
{
	return viewer_of(u)->ews_confirm;
}

int vews_key(struct ui *u, int key)
{
	struct viewer *v = viewer_of(u);
	struct vms_error err = { 0 };

	v->ews_confirm = false;
	u->prompting = false;
	if (key != 'y' && key != 'Y') {
		ui_message(u, false, "%s",
			   "Empty Working Set cancelled: nothing asked");
		return UI_DRAW;
	}
	if (vms_pageout(u->snap, &v->ews, &err) < 0) {
		ui_message(u, true, "Empty Working Set refused: %s", err.msg);
		return UI_DRAW;
	}
	/* said with the snapshot taken now, the one after this one
	 * (vews_snapshot_changed); a refresh that fails says why instead */
	v->ews_after = true;
	v->ews_from = u->snap;
	return UI_RESAMPLE | UI_DRAW;
}

void vews_draw(struct ui *u)
{
	const struct vms_snapshot *s = u->snap;
	char line[400];

	if (!vews_open(u) || !s)
		return;
	snprintf(line, sizeof(line),
		 "Empty Working Set of pid %d (%s)? y pages out its private "
		 "memory, any other key cancels",
		 (int)s->proc.pid, s->proc.name ? s->proc.name : "?");
	/* wrapped over the lines above at a narrow width: read whole */
	ui_bottom_text(LINES - 1, theme_attr(EL_FIND), line);
}

void vews_snapshot_changed(struct ui *u, const struct vms_snapshot *old)
{
	struct viewer *v = viewer_of(u);
	const struct vms_pageout *o = &v->ews;
	char a[16], b[16], c[16], tail[160] = "";
	size_t n = 0;

	if (!v->ews_after)
		return;
	v->ews_after = false;
	if (old != v->ews_from || !u->snap)
		return; /* not the refresh that followed it */
	if (o->no_swap && o->anon_after)
		n += (size_t)snprintf(tail + n, sizeof(tail) - n,
				      "; no swap: %s anonymous stays",
				      fmt_size(o->anon_after, a, sizeof(a)));
	if (o->refused + o->gone && n < sizeof(tail))
		snprintf(tail + n, sizeof(tail) - n,
			 "; %zu range%s left out (mlocked, hugetlb, unmapped)",
			 o->refused + o->gone,
			 o->refused + o->gone == 1 ? "" : "s");
	if (o->rss_after < o->rss_before)
		ui_message(u, false,
			   "Empty Working Set: Rss %s less (%s -> %s)%s",
			   fmt_size(o->rss_before - o->rss_after, a, sizeof(a)),
			   fmt_size(o->rss_before, b, sizeof(b)),
			   fmt_size(o->rss_after, c, sizeof(c)), tail);
	else
		ui_message(u, true,
			   "Empty Working Set: Rss not lower (%s -> %s)%s",
			   fmt_size(o->rss_before, b, sizeof(b)),
			   fmt_size(o->rss_after, c, sizeof(c)), tail);
}
