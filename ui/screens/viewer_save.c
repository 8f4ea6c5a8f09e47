/* viewer_save.c — save and export from the viewer (viewer_save.h). */
#include "screens/viewer_save.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/outbuf.h"
#include "core/draw.h"
#include "export/export.h"
#include "panes/panes.h"
#include "pipeline.h"
#include "screens/screen_calls.h"

/* What is open: nothing, the file name of a save, the format menu, the
 * file name of an export. */
enum { VS_NONE, VS_SAVE, VS_FORMAT, VS_EXPORT };

/* The formats offered: every exporter (the summary is -s's). */
static int formats(const struct vms_exporter **out)
{
	int n = 0, i;

	for (i = 0; vms_exporters[i]; i++)
		out[n++] = vms_exporters[i];
	return n;
}

/* The time the snapshot was taken, for a file name: 20261128T071914Z. */
static void when(const struct vms_snapshot *s, char *buf, size_t n)
{
	time_t t = (time_t)s->cap.taken_at_sec;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y%m%dT%H%M%SZ", &tm);
}

/* The name a save offers: --watch -w's (TIME-pidPID.vms), here. */
static void default_save(const struct vms_snapshot *s, char *buf, size_t n)
{
	char w[32];

	when(s, w, sizeof(w));
	snprintf(buf, n, "%s-pid%d.vms", w, (int)s->proc.pid);
}

static void default_export(const struct vms_snapshot *s,
			   const struct vms_exporter *ex, char *buf, size_t n)
{
	char w[32];
	const char *ext = strcmp(ex->name, "json") == 0	 ? "json"
			  : strcmp(ex->name, "csv") == 0 ? "csv"
							 : "txt";

	when(s, w, sizeof(w));
	snprintf(buf, n, "%s-pid%d-%s.%s", w, (int)s->proc.pid, ex->name, ext);
}

static bool has_raw(const struct vms_snapshot *s)
{
	return s && s->raw && s->raw->smaps;
}

/* A snapshot opened from a file (-l): saved as a copy of that file. */
static bool from_file(const struct ui *u)
{
	return ui_file_of(u, u->snap, false) != NULL;
}

static void open_prompt(struct ui *u, int mode)
{
	struct viewer *v = viewer_of(u);

	v->vs_mode = mode;
	u->prompting = mode == VS_SAVE || mode == VS_EXPORT;
}

int vsave_save(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	if (!u->snap || u->pre)
		return 0;
	v->vs_retaken = false;
	if (has_raw(u->snap) || from_file(u)) {
		default_save(u->snap, v->vs_line, sizeof(v->vs_line));
		open_prompt(u, VS_SAVE);
		return UI_DRAW;
	}
	if (!vms_snapshot_refreshable(u->snap)) {
		ui_message(u, true, "%s",
			   "this snapshot holds no smaps text to save (a core "
			   "dump's, or a partial one): e exports it");
		return UI_DRAW;
	}
	/* captured without the kernel's text a file holds: taken again
	 * keeping it, then saved */
	u->keep_raw = true;
	v->vs_after = true;
	return UI_RESAMPLE;
}

void vsave_snapshot_changed(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	if (!v->vs_after)
		return;
	v->vs_after = false;
	if (!has_raw(u->snap))
		return;
	default_save(u->snap, v->vs_line, sizeof(v->vs_line));
	v->vs_retaken = true;
	open_prompt(u, VS_SAVE);
}

int vsave_export(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	if (!u->snap || u->pre)
		return 0;
	v->vs_cur = 0;
	open_prompt(u, VS_FORMAT);
	return UI_DRAW;
}

bool vsave_open(const struct ui *u)
{
	return viewer_of(u)->vs_mode != VS_NONE;
}

/* Writes bytes or an export of s to path; the status line says what
 * was written, or why not. */
static void write_file(struct ui *u, const char *path, const void *buf,
		       size_t len, const struct vms_exporter *ex)
{
	struct vms_error err = { 0 };
	struct outbuf o;
	char sz[16];
	int rc;

	if (outbuf_open_file(&o, path, &err) < 0) {
		ui_message(u, true, "%s", err.msg);
		return;
	}
	if (ex)
		ex->write(u->snap, &o);
	else
		ob_write(&o, buf, len);
	len = ex ? 0 : len;
	rc = outbuf_close(&o, &err);
	if (rc < 0) {
		ui_message(u, true, "%s", err.msg);
		return;
	}
	if (ex)
		ui_message(u, rc > 0, "exported (%s) to %s%s%s", ex->name, path,
			   rc > 0 ? ": " : "", rc > 0 ? err.msg : "");
	else
		ui_message(u, rc > 0,
			   "saved %s to %s (vmscope -l opens it)%s%s",
			   fmt_size(len, sz, sizeof(sz)), path,
			   rc > 0 ? ": " : "", rc > 0 ? err.msg : "");
}

/* The file the snapshot was loaded from, copied whole to path. */
static void copy_file(struct ui *u, const char *path)
{
	struct vms_error err = { 0 };
	struct outbuf o;
	char buf[65536], sz[16];
	const char *from = ui_file_of(u, u->snap, false);
	FILE *f = from ? fopen(from, "rb") : NULL;
	uint64_t total = 0;
	size_t n;
	int rc;

	if (!f) {
		ui_message(u, true, "cannot read %s again to copy it",
			   from ? from : "the file");
		return;
	}
	if (outbuf_open_file(&o, path, &err) < 0) {
		fclose(f);
		ui_message(u, true, "%s", err.msg);
		return;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		ob_write(&o, buf, n);
		total += n;
	}
	if (ferror(f)) {
		fclose(f);
		outbuf_abort(&o);
		ui_message(u, true, "cannot read %s again to copy it",
			   from ? from : "the file");
		return;
	}
	fclose(f);
	rc = outbuf_close(&o, &err);
	if (rc < 0)
		ui_message(u, true, "%s", err.msg);
	else
		ui_message(u, rc > 0,
			   "saved %s to %s (a copy of the file it "
			   "was opened from)%s%s",
			   fmt_size(total, sz, sizeof(sz)), path,
			   rc > 0 ? ": " : "", rc > 0 ? err.msg : "");
}

static void do_save(struct ui *u, const char *path)
{
	struct vms_error err = { 0 };
	void *buf;
	size_t len;

	if (!has_raw(u->snap) && from_file(u)) {
		copy_file(u, path);
		return;
	}
	if (calls_save(u, u->snap, &buf, &len, &err) < 0) {
		ui_message(u, true, "%s", err.msg);
		return;
	}
	write_file(u, path, buf, len, NULL);
	free(buf);
}

int vsave_key(struct ui *u, int key)
{
	struct viewer *v = viewer_of(u);
	const struct vms_exporter *ex[16];
	int n = formats(ex), mode = v->vs_mode;
	size_t cur = (size_t)v->vs_cur, top = 0;
	enum move mv;

	if (key == 27) {
		open_prompt(u, VS_NONE);
		return UI_DRAW;
	}
	if (key == '\r' || key == '\n' || key == KEY_ENTER) {
		if (mode == VS_FORMAT) {
			v->vs_fmt = v->vs_cur;
			default_export(u->snap, ex[v->vs_fmt], v->vs_line,
				       sizeof(v->vs_line));
			open_prompt(u, VS_EXPORT);
			return UI_DRAW;
		}
		open_prompt(u, VS_NONE);
		if (!v->vs_line[0])
			ui_message(u, true, "%s",
				   "no file name: nothing written");
		else if (mode == VS_SAVE)
			do_save(u, v->vs_line);
		else
			write_file(u, v->vs_line, NULL, 0, ex[v->vs_fmt]);
		return UI_DRAW;
	}
	if (mode == VS_FORMAT) {
		mv = key_move(key);
		if (mv == MV_NONE)
			return key == 'q' ? UI_QUIT : 0;
		cursor_apply(&cur, &top, (size_t)n, n, mv);
		v->vs_cur = (int)cur;
		return UI_DRAW;
	}
	if (key == 21) /* Ctrl-U: the line cleared */
		v->vs_line[0] = '\0';
	else
		ui_edit_line(v->vs_line, sizeof(v->vs_line), key);
	return UI_DRAW;
}

/* The format menu: each format's help begins this far into its line,
 * after its name. */
enum { HELP_X = 14 };

/* The lines a format takes in a menu w columns wide: its help wrapped. */
static int help_lines(const struct vms_exporter *ex, int w)
{
	int n = ex->help ? wrap_lines(w - HELP_X, 8, ex->help) : 1;

	return n > 0 ? n : 1;
}

void vsave_draw(struct ui *u)
{
	struct viewer *v = viewer_of(u);
	const struct vms_exporter *ex[16];
	int n = formats(ex), k, y, ky, h, w = COLS - 4 < 72 ? COLS - 4 : 72;
	int lines[16];
	attr_t a = theme_attr(EL_TITLE);

	if (v->vs_mode == VS_SAVE || v->vs_mode == VS_EXPORT) {
		const char *what =
			v->vs_mode == VS_EXPORT ? "Export to: " : "Save to: ";

		/* the name first, its end (where typing goes) always
		 * shown; what is said of it after, wrapped above where it
		 * does not fit */
		ui_prompt(theme_attr(EL_FIND), what, v->vs_line,
			  v->vs_retaken && v->vs_mode == VS_SAVE
				  ? "(the snapshot just taken: it keeps what a "
				    "file holds)  Enter writes, Ctrl-U clears, "
				    "Esc cancels"
				  : "Enter writes, Ctrl-U clears, Esc cancels");
		return;
	}
	if (v->vs_mode != VS_FORMAT)
		return;
	/* each format's help wrapped beside its name, never cut where
	 * the lines allow */
	for (k = 0, h = 2; k < n; k++)
		h += lines[k] = help_lines(ex[k], w);
	y = LINES - 1 - h;
	if (y < 0)
		y = 0;
	put_box(y, 2, w, h < LINES - 1 ? h : LINES - 1, a);
	put_fmt(y, 2, w, a | A_BOLD, " Export the snapshot as%*s", w - 23, "");
	for (k = 0, ky = y + 1; k < n && ky < LINES - 1; ky += lines[k++]) {
		attr_t ka = k == v->vs_cur ? theme_attr(EL_SELECTION) : a;
		int j, room = LINES - 1 - ky;

		for (j = 0; j < lines[k] && j < room; j++)
			put_blank(ky + j, 2, w, ka);
		put_fmt(ky, 2, HELP_X, ka, " %s", ex[k]->name);
		put_wrapped(ky, 2 + HELP_X, w - HELP_X,
			    lines[k] < room ? lines[k] : room, ka,
			    ex[k]->help ? ex[k]->help : "");
	}
	if (ky < LINES - 1)
		put_fmt(ky, 2, w, a, " %s", "Enter chooses, Esc cancels");
}
