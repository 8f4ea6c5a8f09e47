/* run.c — what the command line does once its options are read: list
 * processes, capture and print or save (-s, -e, -w), --watch without the
 * viewer, load (-l) and diff (-d); and the few things every path of the
 * command line shares: printing an error (the only place that decides an
 * exit status from one) and escaping what came from a target. See cli.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../ui/ui.h"
#include "base/escape.h"
#include "base/outbuf.h"
#include "capture/sampler.h"
#include "cli.h"
#include "export/export.h"
#include "linux/procfs.h"
#include "linux/proclist.h"
#include "linux/selfcopy.h"
#include "model/diff.h"
#include "pipeline.h"

/* s on f with everything a terminal would act on escaped (escape.h): the
 * strings printed here come from processes and files. */
void cli_put_safe(FILE *f, const char *s)
{
	/* a buffer's worth at a time: stderr is unbuffered, and a write a
	 * byte cut a message into some 40 writes others could fall between */
	char buf[1024];
	size_t have = 0, ulen, in;
	int32_t cp;

	while ((in = escape_unit(s, buf + have, &ulen, &cp)) != 0) {
		have += ulen;
		s += in;
		if (have > sizeof(buf) - ESCAPE_UNIT_MAX) {
			fwrite(buf, 1, have, f);
			have = 0;
		}
	}
	if (have)
		fwrite(buf, 1, have, f);
}

/* "vmscope: MSG" (escaped) and tail, in one write of the unbuffered
 * stderr: a message another process's output cannot cut. */
static void say(const char *msg, const char *tail)
{
	/* msg is at most 511 bytes (struct vms_error, cli_usage_error), each
	 * escaped to 6 at most */
	char line[16 + 511 * 6 + 64];
	size_t n = (size_t)snprintf(line, sizeof(line), "vmscope: ");

	n += vms_escape_str(line + n, sizeof(line) - n, msg);
	if (n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, "%s", tail);
	fputs(line, stderr);
}

int cli_fail(const struct vms_error *e)
{
	say(e->msg, "\n");
	return vms_error_exit_status(e);
}

int cli_stdout_done(void)
{
	/* a write that failed before (the buffer filled) left its errno:
	 * stdio's calls since were writes that failed the same way */
	int e = errno;

	if (fflush(stdout) != 0)
		e = errno;
	else if (!ferror(stdout))
		return 0;
	if (e)
		fprintf(stderr, "vmscope: cannot write standard output: %s\n",
			strerror(e));
	else
		fputs("vmscope: cannot write standard output\n", stderr);
	return 4;
}

int cli_open_output(struct outbuf *o, const char *path, struct vms_error *err)
{
	struct stat st;
	int probe = -1, rc;

	if (path && strcmp(path, "-") != 0 && stat(path, &st) == 0 &&
	    S_ISFIFO(st.st_mode)) {
		probe = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (probe < 0 && errno == ENXIO) {
			fputs("vmscope: waiting for a reader of ", stderr);
			cli_put_safe(stderr, path);
			fputc('\n', stderr);
		}
	}
	rc = path ? outbuf_open_file(o, path, err)
		  : outbuf_open_fd(o, STDOUT_FILENO, err);
	/* The probe stays open until the FIFO is open for good: closed
	 * before, it would be the only writer a reader already waiting had
	 * met, and that reader would read an end of file at once. */
	if (probe >= 0)
		close(probe);
	return rc;
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;
	char msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	say(msg, "\nTry 'vmscope --help'.\n");
	return 1;
}

pid_t cli_process_of(pid_t pid, const char *doing)
{
	pid_t tgid = procfs_tgid(pid);
	char msg[128];

	if (tgid <= 0 || tgid == pid)
		return pid;
	snprintf(msg, sizeof(msg), "%d is a thread of process %d: %s %d",
		 (int)pid, (int)tgid, doing, (int)tgid);
	say(msg, "\n");
	return tgid;
}

int cli_parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0 || v > 0x3fffffff)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

/* s escaped (escape.h) in a column of width characters: cut to fit, never
 * inside an escape or a character, and padded with spaces. A character
 * of UTF-8 is taken for one column (printf's %-16.16s counted bytes:
 * "héllo wö" took two less, and a cut could fall inside "\\"). */
static void put_column(FILE *f, const char *s, int width)
{
	char unit[ESCAPE_UNIT_MAX];
	size_t ulen, in;
	int32_t cp;
	int used = 0, cols;

	while ((in = escape_unit(s, unit, &ulen, &cp)) != 0) {
		cols = cp >= 0 ? 1 : (int)ulen;
		if (used + cols > width)
			break;
		fwrite(unit, 1, ulen, f);
		used += cols;
		s += in;
	}
	fprintf(f, "%*s", width - used, "");
}

int cli_list(const struct args *a)
{
	static const struct {
		const char *name;
		enum proclist_sort key;
		bool reverse;
	} sorts[] = {
		{ "pid", PROCLIST_BY_PID, false },
		{ "name", PROCLIST_BY_NAME, false },
		{ "user", PROCLIST_BY_USER, false },
		{ "rss", PROCLIST_BY_RSS, true },
		{ "pss", PROCLIST_BY_PSS, true },
	};
	struct proc_list l;
	struct vms_error err = { 0 };
	size_t i, k = 4;

	if (a->sort) {
		for (k = 0; k < sizeof(sorts) / sizeof(sorts[0]); k++)
			if (strcmp(sorts[k].name, a->sort) == 0)
				break;
		if (k == sizeof(sorts) / sizeof(sorts[0]))
			return cli_usage_error(
				"unknown --sort key '%s' (pid, name, "
				"user, rss, pss)",
				a->sort);
	}
	if (proclist_read(&l, &err) < 0)
		return cli_fail(&err);
	proclist_sort(&l, sorts[k].key, sorts[k].reverse);
	printf("%8s %-12s %-16s %12s %12s  %s\n", "PID", "USER", "NAME",
	       "RSS K", "PSS K", "COMMAND");
	for (i = 0; i < l.n; i++) {
		const struct proc_entry *e = &l.v[i];

		printf("%8d ", (int)e->pid);
		put_column(stdout, e->user, 12);
		fputc(' ', stdout);
		put_column(stdout, e->name, 16);
		printf(" %12llu ", (unsigned long long)(e->rss >> 10));
		if (e->readable)
			printf("%12llu", (unsigned long long)(e->pss >> 10));
		else
			printf("%12s", "-");
		fputs("  ", stdout);
		cli_put_safe(stdout, e->cmdline);
		printf("%s%s%s\n", e->readable ? "" : " (",
		       e->readable ? "" : e->why, e->readable ? "" : ")");
	}
	proclist_free(&l);
	return cli_stdout_done();
}

int cli_find_by_name(const char *name, pid_t *pid)
{
	struct vms_error err = { 0 };
	pid_t *pids;
	size_t n, i;

	if (proclist_find_name(name, &pids, &n, &err) < 0)
		return cli_fail(&err);
	if (n == 1) {
		*pid = pids[0];
		free(pids);
		return -1;
	}
	if (n == 0) {
		fputs("vmscope: no process named ", stderr);
		cli_put_safe(stderr, name);
		fputc('\n', stderr);
	} else {
		fprintf(stderr, "vmscope: %zu processes are named ", n);
		cli_put_safe(stderr, name);
		fputc(':', stderr);
		for (i = 0; i < n; i++)
			fprintf(stderr, " %d", (int)pids[i]);
		fputs("; give one PID\n", stderr);
	}
	free(pids);
	return n == 0 ? 2 : 1;
}

/* Where a launched command's output goes. */

/* Closes an output: 0, or the exit status of its failure. */
static int close_output(struct outbuf *o)
{
	struct vms_error err = { 0 };

	switch (outbuf_close(o, &err)) {
	case 0:
		return 0;
	case 1: /* written, but in place: worth knowing */
		cli_fail(&err);
		return 0;
	default:
		return cli_fail(&err);
	}
}

/* --watch's -o when it is a FIFO or a device: opened once, as
 * `vmscope --watch N -s > FIFO` would be, so its reader reads one stream
 * of snapshots; NULL otherwise (each tick writes the file anew). */
static struct outbuf *watch_out;
static long watch_done; /* snapshots the reader got */

static void on_sigpipe(int sig)
{
	(void)sig; /* the write fails with EPIPE and says so */
}

static int reader_left(const struct args *a)
{
	fputs("vmscope: the reader of ", stderr);
	cli_put_safe(stderr, a->output);
	fprintf(stderr,
		" went away after %ld snapshot%s: --watch stops (nothing "
		"reads what it would write)\n",
		watch_done, watch_done == 1 ? "" : "s");
	return 4;
}

/* Prints the summary (-s) or the export (-e) of s to -o or stdout. */
static int print_snapshot(const struct args *a, const struct vms_snapshot *s)
{
	struct vms_error err = { 0 };
	struct outbuf o;
	const struct vms_exporter *ex =
		export_find(a->summary ? "summary" : a->export);

	if (watch_out) {
		watch_out->exact = a->bytes;
		ex->write(s, watch_out);
		if (outbuf_flush(watch_out) == EPIPE)
			return reader_left(a);
		if (watch_out->err)
			return close_output(watch_out);
		watch_done++;
		return 0;
	}
	if (cli_open_output(&o, a->output, &err) < 0)
		return cli_fail(&err);
	o.exact = a->bytes;
	ex->write(s, &o);
	return close_output(&o);
}

/* Saves s to -w FILE, written as -o writes; with -s or -e, prints what
 * was saved: the file's bytes loaded again, as -l prints them. */
static int save_snapshot(const struct args *a, const struct vms_snapshot *s,
			 const char *path)
{
	struct vms_error err = { 0 };
	struct vms_snapshot *back;
	struct outbuf o;
	void *buf;
	size_t len;
	int rc;

	if (vms_snapshot_save(s, &buf, &len, &err) < 0)
		return cli_fail(&err);
	if (cli_open_output(&o, path, &err) < 0) {
		free(buf);
		return cli_fail(&err);
	}
	ob_write(&o, buf, len);
	rc = close_output(&o);
	if (rc == 0 && (a->summary || a->export)) {
		back = vms_load_buffer(buf, len, path, &err);
		rc = back ? print_snapshot(a, back) : cli_fail(&err);
		vms_snapshot_free(back);
	}
	free(buf);
	return rc;
}

int cli_batch(const struct args *a, const struct vms_sampler *smp,
	      const struct vms_capture_opts *co)
{
	struct vms_error err = { 0 };
	struct vms_snapshot *s = vms_capture(smp, co, &err);
	int rc;

	if (!s)
		return cli_fail(&err);
	rc = a->save ? save_snapshot(a, s, a->save) : print_snapshot(a, s);
	vms_snapshot_free(s);
	return rc;
}

/* --watch's file in dir for s: its time (UTC, to the millisecond) first,
 * so that names sort by time: 20261123T132524.123Z-pid5320.vms */
void cli_watch_name(const char *dir, const struct vms_snapshot *s, char *buf,
		    size_t n)
{
	time_t t = (time_t)s->cap.taken_at_sec;
	struct tm tm;
	char when[32];

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%S", &tm);
	snprintf(buf, n, "%s/%s.%03ldZ-pid%d.vms", dir, when,
		 s->cap.taken_at_nsec / 1000000, (int)s->proc.pid);
}

/* Moves a CLOCK_MONOTONIC time one period on. */
static void watch_advance(struct timespec *t, double period)
{
	t->tv_sec += (time_t)period;
	t->tv_nsec += (long)((period - (double)(time_t)period) * 1e9);
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* --watch -o FIFO (or a device): opened once for every tick, with a word
 * when it waits for a reader (a reader waiting already is kept: see the
 * probe below); a reader that goes away ends the watch
 * with a message (SIGPIPE only makes the write fail: a handler, not
 * SIG_IGN, so a command vmscope starts gets the default). */
static int watch_open(const struct args *a)
{
	static struct outbuf o;
	struct vms_error err = { 0 };
	struct sigaction sa;
	struct stat st;

	if (stat(a->output, &st) < 0 ||
	    !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigpipe;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
	if (cli_open_output(&o, a->output, &err) < 0)
		return cli_fail(&err);
	if (o.how != OB_DIRECT) { /* not what it was: written a tick at a
				   * time */
		outbuf_abort(&o);
		return 0;
	}
	watch_out = &o;
	watch_done = 0;
	return 0;
}

/* Whether the reader of a FIFO went away (its write end has POLLERR). */
static bool watch_gone(struct outbuf *o)
{
	struct pollfd p = { .fd = o->fd, .events = 0 };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

/* --watch without the viewer: a snapshot every a->watch seconds, a->count
 * of them (0: until interrupted), each saved into the directory -w names
 * and/or printed as -s or -e asks. A capture that fails ends it. */
int cli_watch(const struct args *a, const struct vms_sampler *smp,
	      const struct vms_capture_opts *co)
{
	struct timespec next;
	struct stat st;
	long i;
	int rc = 0;

	if (a->save && (stat(a->save, &st) < 0 || !S_ISDIR(st.st_mode))) {
		fputs("vmscope: --watch -w needs a directory: ", stderr);
		cli_put_safe(stderr, a->save);
		fputs(" is not one\n", stderr);
		return 4;
	}
	if (a->output && strcmp(a->output, "-") != 0 &&
	    (rc = watch_open(a)) != 0)
		return rc;
	/* ticks keep their rhythm however long a capture takes */
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; rc == 0 && (!a->count || i < a->count); i++) {
		struct vms_error err = { 0 };
		struct vms_snapshot *s;
		char path[4096];

		if (i) {
			watch_advance(&next, a->watch);
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					       &next, NULL) == EINTR)
				;
		}
		if (watch_out && watch_gone(watch_out)) {
			rc = reader_left(a);
			break;
		}
		s = vms_capture(smp, co, &err);
		if (!s) {
			rc = cli_fail(&err);
			break;
		}
		if (a->save) {
			cli_watch_name(a->save, s, path, sizeof(path));
			rc = save_snapshot(a, s, path);
		} else {
			rc = print_snapshot(a, s);
		}
		vms_snapshot_free(s);
	}
	if (watch_out) {
		if (rc) /* said already */
			outbuf_abort(watch_out);
		else
			rc = close_output(watch_out);
		watch_out = NULL;
	}
	return rc;
}

/* -l FILE: printed with -s or -e, else in the viewer. */
int cli_load(const struct args *a)
{
	struct vms_error err = { 0 };
	struct vms_snapshot *s = vms_load_file(a->load, &err);
	int rc;

	if (!s)
		return cli_fail(&err);
	if (a->summary || a->export) {
		rc = print_snapshot(a, s);
	} else {
		struct ui_opts uo = { .sampler =
					      vms_sampler_by_name(a->backend),
				      .theme = a->theme,
				      .snap = s,
				      .snap_path = a->load };

		selfcopy_setlocale(LC_CTYPE, "");
		rc = ui_run(&uo, &err) < 0 ? cli_fail(&err) : 0;
	}
	vms_snapshot_free(s);
	return rc;
}

/* cli.h */
const char *cli_diff_file(const char *what)
{
	pid_t pid;

	return !strchr(what, '/') && cli_parse_pid(what, &pid) == 0 ? NULL
								    : what;
}

/* One side of -d: a PID, captured now, or a saved file. */
static struct vms_snapshot *diff_side(const struct args *a, const char *what,
				      struct vms_error *err)
{
	struct vms_capture_opts co = { 0 };
	pid_t pid = 0;

	if (!cli_diff_file(what)) {
		cli_parse_pid(what, &pid);
		co.pid = cli_process_of(pid, "comparing");
		co.freeze = a->freeze;
		co.exact = a->exact;
		return vms_capture(vms_sampler_by_name(a->backend), &co, err);
	}
	return vms_load_file(what, err);
}

/* -d A B: the diff printed as -s or -e asks. */
int cli_diff(const struct args *a)
{
	struct vms_error err = { 0 };
	struct vms_snapshot *sa = diff_side(a, a->diff_a, &err), *sb = NULL;
	const struct vms_exporter *ex =
		a->summary || a->export
			? export_find(a->summary ? "summary" : a->export)
			: NULL;
	struct vms_diff d;
	struct outbuf o;
	int rc;

	if (ex && !ex->write_diff)
		ex = NULL;
	if (!ex && (a->summary || a->export)) {
		vms_snapshot_free(sa);
		return cli_usage_error("a diff has no '%s' export", a->export);
	}
	if (!sa || !(sb = diff_side(a, a->diff_b, &err))) {
		rc = cli_fail(&err);
		goto out;
	}
	if (!ex) { /* the diff screen */
		struct ui_opts uo = { .sampler =
					      vms_sampler_by_name(a->backend),
				      .copts = { .freeze = a->freeze },
				      .theme = a->theme,
				      .snap = sa,
				      .snap_path = cli_diff_file(a->diff_a),
				      .snap_b = sb,
				      .snap_path_b = cli_diff_file(a->diff_b) };

		selfcopy_setlocale(LC_CTYPE, "");
		rc = ui_run(&uo, &err) < 0 ? cli_fail(&err) : 0;
		goto out;
	}
	if (vms_diff_make(sa, sb, &d, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	d.name_a = a->diff_a;
	d.name_b = a->diff_b;
	if (cli_open_output(&o, a->output, &err) < 0) {
		rc = cli_fail(&err);
	} else {
		o.exact = a->bytes;
		ex->write_diff(&d, &o);
		rc = close_output(&o);
	}
	vms_diff_fini(&d);
out:
	vms_snapshot_free(sa);
	vms_snapshot_free(sb);
	return rc;
}
