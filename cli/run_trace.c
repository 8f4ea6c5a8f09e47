/* run_trace.c — `vmscope --trace -s|-e FMT [-o FILE] [--duration=S] -- CMD`:
 * CMD started with the tracer preloaded (src/trace/tracer.h), its rings
 * read until it exits, the duration ends or Ctrl-C, then the report of
 * the whole run printed. CMD is never killed for it: when the trace ends
 * first, tracing stops and CMD runs on untraced.
 *
 * Without -s or -e, the viewer on CMD: a mark of the trace at each
 * snapshot, the call sites on C (ui/screens/screen_calls.c).
 *
 * With -w FILE, CMD's snapshot is saved with the trace (the file's
 * "trace" section). When the trace ends while CMD still runs
 * (--duration, Ctrl-C), the snapshot is taken then, a mark of the trace,
 * and the report is of the trace up to it. CMD's map is gone once it has
 * ended: at its exit() it waits for its last snapshot (tracer_hold_exit),
 * and while it runs its newest snapshot is kept (the first as soon as it
 * calls anything, then one a second or less often) for an end past
 * exit() (_exit, a signal): when it ends first, the last of them is saved
 * with the whole trace. The report printed is the one saved. A CMD that
 * ended before any snapshot of it (by _exit before it called anything)
 * has no file: the report is printed, and the exit status says the
 * capture failed (3).
 *
 * A PID (or -n NAME) instead of CMD: that running process attached
 * (run_attach.c). Formats other than text and json are refused, for a
 * launch as for an attach. With
 * --trace-sample the seed of the sampling is VMSCOPE_SEED's, or the
 * clock's, and the report gives it (a run to replay).
 */
#include <errno.h>
#include <libgen.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../ui/ui.h"
#include "base/clock.h"
#include "base/outbuf.h"
#include "base/tracewire.h"
#include "cli.h"
#include "export/export_trace.h"
#include "linux/procfs.h"
#include "linux/selfcopy.h"
#include "model/snapshot.h"
#include "pipeline.h"
#include "trace/tracer.h"

#ifndef VMSCOPE_LIBDIR
#define VMSCOPE_LIBDIR "/usr/local/lib/vmscope"
#endif
#define LIBNAME "libvmstrace.so"

static volatile sig_atomic_t interrupted;

static void on_int(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* The tracer library: $VMSCOPE_TRACELIB, beside the executable (a build
 * tree: build/), or where make install puts it. */
const char *cli_trace_library(char *buf, size_t n)
{
	const char *env = getenv("VMSCOPE_TRACELIB"), *exe = selfcopy_exe();
	static const char *const beside[] = { "build/" LIBNAME, LIBNAME };
	char dir[4096];
	size_t i;

	if (env && *env)
		return env;
	if (exe) {
		snprintf(dir, sizeof(dir), "%s", exe);
		for (i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
			snprintf(buf, n, "%s/%s", dirname(dir), beside[i]);
			snprintf(dir, sizeof(dir), "%s", exe);
			if (access(buf, R_OK) == 0)
				return buf;
		}
	}
	snprintf(buf, n, "%s/%s", VMSCOPE_LIBDIR, LIBNAME);
	return buf;
}

int cli_trace_check(const struct args *a)
{
	if (!a->cmd && !a->pid && !a->name)
		return cli_usage_error("%s", "--trace needs -- CMD or a PID");
	if (a->trace_children && !a->cmd)
		return cli_usage_error("%s", "--trace-children follows the "
					     "children of a command vmscope "
					     "starts (-- CMD): with a PID it "
					     "is not in this version yet");
	if (a->trace_children && !a->summary && !a->export)
		return cli_usage_error("%s", "--trace-children prints its "
					     "processes' reports: give -s or "
					     "-e (the viewer and a snapshot "
					     "file show the launched process "
					     "only)");
	/* the viewer's own check, before anything is launched or injected */
	if (!a->summary && !a->export && !a->save &&
	    (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return cli_usage_error("%s", "the viewer needs a terminal; use "
					     "-s or -e for text output");
	if (a->export && strcmp(a->export, "text") != 0 &&
	    strcmp(a->export, "json") != 0)
		return cli_usage_error("--trace prints -e text or json, not %s",
				       a->export);
	if (a->diff || a->load || a->list)
		return cli_usage_error("%s",
				       "--trace takes none of -d, -l, --list");
	if (a->watch && !a->cmd)
		return cli_usage_error("%s",
				       "--trace --watch with a PID is not "
				       "in this version yet");
	if (a->watch && (a->summary || a->export) && !a->save)
		return cli_usage_error("%s", "--trace --watch saves each "
					     "snapshot with its trace: give -w "
					     "DIR (or neither -s nor -e, for "
					     "the viewer)");
	return -1;
}

/* Sampling's seed: VMSCOPE_SEED (a run to replay), else the clock; the
 * report says which. */
unsigned long long cli_trace_seed(void)
{
	const char *e = getenv("VMSCOPE_SEED");
	struct timespec t;

	if (e && *e)
		return strtoull(e, NULL, 0);
	clock_gettime(CLOCK_REALTIME, &t);
	return (unsigned long long)t.tv_sec * 1000000007ull ^
	       (unsigned long long)t.tv_nsec ^ (unsigned long long)getpid();
}

static void sleep_ms(long ms)
{
	struct timespec t = { 0, ms * 1000000L };

	nanosleep(&t, NULL);
}

/* The launched command's name as every other export has a process's
 * (its comm): read while it runs (a pid reaped may be another's by now),
 * else what its exec made it, argv[0]'s base name cut to 15 bytes (the
 * kernel's TASK_COMM_LEN). It was argv[0] ("./t1" where a snapshot of
 * the same run says "t1"). */
static void launched_name(struct tracer *tr, pid_t pid, const char *cmd0,
			  char *name, size_t n)
{
	char path[64], *got;
	const char *base = strrchr(cmd0, '/');
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (!tracer_wait(tr, NULL) && procfs_read_one(path, &got, &len) == 0) {
		while (len && got[len - 1] == '\n')
			len--;
		snprintf(name, n, "%.*s", (int)len, got);
		free(got);
		if (len && !tracer_wait(tr, NULL))
			return;
	}
	snprintf(name, n < 16 ? n : 16, "%s", base ? base + 1 : cmd0);
}

static void print_json(struct outbuf *o, const struct args *a, pid_t pid,
		       const char *name, const struct vms_trace_report *r,
		       const struct vms_trace_procs *ps)
{
	int i;

	OB_LIT(o, "{\"format\":\"vmscope\",\"version\":1,\"process\":{");
	ob_printf(o, "\"pid\":%d,\"name\":", (int)pid);
	ob_json_str(o, name);
	OB_LIT(o, ",\"cmdline\":[");
	for (i = 0; a->cmd[i]; i++) {
		if (i)
			ob_putc(o, ',');
		ob_json_str(o, a->cmd[i]);
	}
	OB_LIT(o, "],");
	export_trace_exit_json(o, r);
	OB_LIT(o, "},\"trace\":");
	if (ps)
		export_trace_procs_json(o, r, ps);
	else
		export_trace_json(o, r);
	OB_LIT(o, "}\n");
}

static void print_text(struct outbuf *o, const struct args *a, pid_t pid,
		       const char *name, const struct vms_trace_report *r,
		       const struct vms_trace_procs *ps)
{
	int i;

	ob_printf(o, "Process:     %d ", (int)pid);
	ob_text_str(o, name);
	OB_LIT(o, "\nCommand:     ");
	for (i = 0; a->cmd[i]; i++) {
		if (i)
			ob_putc(o, ' ');
		ob_text_str(o, a->cmd[i]);
	}
	ob_putc(o, '\n');
	export_trace_end_text(o, r);
	export_trace_text(o, r, 8);
	if (ps)
		export_trace_procs_text(o, ps, 8);
}

/* --trace-children: every process followed with its own report, in a
 * (NULL with *err: out of memory). */
static struct vms_trace_procs *procs_of(struct tracer *tr, struct arena *ar,
					uint64_t seed, struct vms_error *err)
{
	unsigned n = tracer_procs(tr), i;
	struct vms_trace_procs *ps = arena_alloc(ar, sizeof(*ps));
	struct vms_trace_proc *v = arena_alloc(ar, n * sizeof(*v));

	if (!ps || !v) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
		return NULL;
	}
	for (i = 0; i < n; i++) {
		struct vms_trace_report *r;

		tracer_proc(tr, i, &v[i]);
		if (i == 0)
			continue; /* the launched one's: the report's own */
		if (!(r = arena_alloc(ar, sizeof(*r))) ||
		    tracer_proc_report(tr, i, ar, r, err) < 0) {
			if (!r)
				vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					      "out of memory");
			return NULL;
		}
		r->seed = seed;
		v[i].report = r;
	}
	ps->v = v;
	ps->n = n;
	ps->not_followed = tracer_not_followed(tr);
	ps->limit = TW_FOLLOW_MAX;
	return ps;
}

/* -w FILE: the snapshot of the command taken now, a mark of the trace
 * (*mark); NULL with *err when the command has ended (its map is gone,
 * VMS_ERR_CAPTURE) or the capture failed. */
static struct vms_snapshot *snapshot_now(const struct args *a,
					 struct tracer *tr, pid_t pid,
					 int *mark, struct vms_error *err)
{
	struct vms_capture_opts co = { .pid = pid,
				       .freeze = a->freeze,
				       .exact = a->exact,
				       .keep_raw = true };
	struct vms_snapshot *s = NULL;

	if (!tracer_wait(tr, NULL)) {
		if ((*mark = tracer_mark(tr)) < 0) {
			vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				      "out of memory");
			return NULL;
		}
		s = vms_capture(vms_sampler_by_name(a->backend), &co, err);
	}
	if (tracer_wait(tr, NULL)) { /* it ended before or while read */
		vms_snapshot_free(s);
		vms_error_set(err, VMS_ERR_CAPTURE, 0,
			      "%s ended before a snapshot of it could be "
			      "taken: no snapshot file was written",
			      a->cmd[0]);
		return NULL;
	}
	return s;
}

static double mono_s(void)
{
	return (double)vms_mono_ns() / 1e9;
}

/* -w while CMD runs: its newest snapshot, taken as soon as it calls
 * anything and then every interval (a second, or 50 times what the last
 * capture took: vmscope spends at most some 2% of its time on them), in
 * case it ends before the trace does: its map is gone then. */
struct newest {
	struct vms_snapshot *s;
	bool started; /* CMD has called something */
	double next, interval;
};

static void newest_take(const struct args *a, struct tracer *tr, pid_t pid,
			struct newest *k)
{
	struct vms_error err = { 0 };
	struct vms_snapshot *s;
	double t0 = mono_s();
	int mark;

	/* a capture that fails is left to the next or to the end to say */
	if ((s = snapshot_now(a, tr, pid, &mark, &err)) != NULL) {
		vms_snapshot_free(k->s);
		k->s = s;
		k->interval = 50 * (mono_s() - t0);
		if (k->interval < 1)
			k->interval = 1;
	}
	k->next = mono_s() + (k->interval > 0 ? k->interval : 1);
}

int cli_trace_save(const char *path, const struct vms_snapshot *s)
{
	struct vms_error err = { 0 };
	struct outbuf o;
	void *buf;
	size_t len;

	if (vms_snapshot_save(s, &buf, &len, &err) < 0)
		return cli_fail(&err);
	if (cli_open_output(&o, path, &err) < 0) {
		free(buf);
		return cli_fail(&err);
	}
	ob_write(&o, buf, len);
	free(buf);
	if (outbuf_close(&o, &err) < 0)
		return cli_fail(&err);
	return 0;
}

/* --watch -w DIR: a snapshot now, a mark of the trace, saved into DIR
 * with the trace up to it and its cells (the window between any two of
 * the run's files follows from the later: -d EARLIER LATER). 0, also
 * when this tick's capture failed (said; the next tick tries again, as
 * -w FILE's newest snapshot does); an exit status said when the file
 * could not be written; TICK_ENDED (nothing said) when CMD has ended. */
#define TICK_ENDED (-1)
static int watch_tick(const struct args *a, struct tracer *tr, pid_t pid,
		      uint64_t seed)
{
	struct vms_trace_report rep;
	struct vms_error err = { 0 };
	struct vms_snapshot *s;
	struct arena ar;
	char path[4096];
	int mark, rc;

	if (!(s = snapshot_now(a, tr, pid, &mark, &err))) {
		if (tracer_wait(tr, NULL))
			return TICK_ENDED;
		cli_fail(&err);
		return 0;
	}
	arena_init(&ar);
	if (tracer_report_kept(tr, (unsigned)mark, &ar, &rep, &err) < 0 ||
	    tracer_keep_live(tr, (unsigned)mark, &ar, &rep, &err) < 0) {
		rc = cli_fail(&err);
	} else {
		rep.seed = seed;
		rep.exit_status = -1;
		s->trace = &rep;
		cli_watch_name(a->save, s, path, sizeof(path));
		rc = cli_trace_save(path, s);
		s->trace = NULL;
	}
	vms_snapshot_free(s);
	arena_fini(&ar);
	return rc;
}

int cli_trace_viewer(const struct args *a, struct tracer *tr, pid_t pid)
{
	struct ui_opts uo = {
		.sampler = vms_sampler_by_name(a->backend),
		.copts = { .pid = pid, .freeze = a->freeze, .exact = a->exact },
		.theme = a->theme,
		.watch_s = a->watch,
		.count = a->count,
		.tracer = tr
	};
	struct vms_error err = { 0 };
	int rc;

	selfcopy_setlocale(LC_CTYPE, ""); /* the viewer shows UTF-8 names */
	rc = ui_run(&uo, &err) < 0 ? cli_fail(&err) : 0;
	return rc;
}

int cli_trace(const struct args *a)
{
	bool print = a->summary || a->export;
	bool hold = a->save && !a->watch; /* (--watch -w DIR: its ticks') */
	struct tracer_opts to = {
		.sample_bytes = a->trace_sample,
		.seed = cli_trace_seed(),
		.follow_children = a->trace_children,
		/* the viewer owns the terminal; a report on stdout moves
		 * CMD's stdout to stderr */
		.output = !print && !a->save ? TRACER_OUT_NULL
			  : print && (!a->output || strcmp(a->output, "-") == 0)
				  ? TRACER_OUT_STDERR
				  : TRACER_OUT_KEEP
	};
	struct vms_trace_report rep;
	struct vms_error err = { 0 };
	struct sigaction sa = { .sa_handler = on_int };
	struct vms_snapshot *snap = NULL;
	struct vms_trace_procs *ps = NULL;
	struct newest newest = { 0 };
	double t0;
	struct tracer *tr;
	struct outbuf o;
	struct arena ar;
	char lib[4096], name[64] = "";
	pid_t pid;
	int rc = 0, idle = 0, mark = -1;
	double tick = 0; /* --watch: the next tick, by mono_s() */
	long ticks = 0;
	struct stat st;

	if (!a->cmd)
		return cli_trace_attach(a);
	if (a->watch && a->save &&
	    (stat(a->save, &st) < 0 || !S_ISDIR(st.st_mode))) {
		fputs("vmscope: --watch -w needs a directory: ", stderr);
		cli_put_safe(stderr, a->save);
		fputs(" is not one\n", stderr);
		return 4;
	}
	to.library = cli_trace_library(lib, sizeof(lib));
	if (tracer_new(&tr, &to, &err) < 0)
		return cli_fail(&err);
	/* -w: CMD waits at its exit() for its last snapshot (a CMD of a
	 * few ms ends before a capture could be made otherwise) */
	if (hold)
		tracer_hold_exit(tr);
	if (tracer_launch(tr, a->cmd, &pid, &err) < 0) {
		tracer_free(tr);
		return cli_fail(&err);
	}
	if (!print && !a->save) {
		rc = cli_trace_viewer(a, tr, pid);
		tracer_free(tr); /* a command still running runs on untraced */
		return rc;
	}
	/* a hangup too (the terminal gone): the report, CMD on untraced */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	t0 = mono_s();
	for (;;) {
		long got = tracer_drain(tr, &err);
		/* following children: until they all have ended too */
		bool ended = a->trace_children ? tracer_all_ended(tr)
					       : tracer_wait(tr, NULL);

		if (got < 0) {
			rc = cli_fail(&err);
			break;
		}
		if (ended || interrupted)
			break;
		if (hold && tracer_at_exit(tr)) {
			/* CMD at its exit(), its map whole: its last
			 * snapshot, then it goes on to end */
			tracer_exit_taking(tr);
			newest_take(a, tr, pid, &newest);
			tracer_exit_taken(tr);
		}
		newest.started = newest.started || got > 0;
		if (!name[0] && got > 0) /* exec'd: its name while it runs */
			launched_name(tr, pid, a->cmd[0], name, sizeof(name));
		if (a->watch && newest.started && !tick)
			tick = mono_s(); /* the first: as soon as CMD calls */
		if (a->watch && newest.started && mono_s() >= tick &&
		    !tracer_wait(tr, NULL)) {
			if ((rc = watch_tick(a, tr, pid, to.seed)) != 0 &&
			    (rc != TICK_ENDED || !a->trace_children))
				break; /* TICK_ENDED: CMD ended */
			rc = 0; /* its children still followed: no more
				 * ticks (CMD's map is gone), the trace on */
			tick += a->watch;
			if (a->count && ++ticks >= a->count)
				break;
		} else if (!a->watch && a->save && newest.started &&
			   mono_s() >= newest.next) {
			newest_take(a, tr, pid, &newest);
		}
		if (a->duration > 0 && mono_s() - t0 >= a->duration)
			break;
		/* read as fast as records come; a few, a ms later; idle, a
		 * few ms (tracer.h) */
		if (got >= TRACER_DRAIN_FEW)
			idle = 0;
		else if (got) {
			idle = 0;
			sleep_ms(1);
		} else
			sleep_ms(++idle < 10 ? 1 : 5);
	}
	if (rc == TICK_ENDED) /* --watch: CMD ended before a tick's one */
		rc = 0;
	/* what the rings still hold */
	while (!rc && tracer_drain(tr, &err) > 0)
		;
	/* a command the library never entered: no report, as if exact */
	if (!rc && tracer_started(tr, &err) < 0)
		rc = cli_fail(&err);
	if (rc) {
		vms_snapshot_free(newest.s);
		tracer_free(tr);
		return rc;
	}
	/* -w: the snapshot now, a mark of the trace, and the report of the
	 * trace up to it; when CMD has ended, its newest snapshot and the
	 * whole trace; printed and saved alike */
	if (a->save && !a->watch) {
		/* CMD waiting at its exit (the trace ended meanwhile): held
		 * while this capture runs, then let go */
		bool at_exit = hold && tracer_at_exit(tr);

		if (at_exit)
			tracer_exit_taking(tr);
		snap = snapshot_now(a, tr, pid, &mark, &err);
		if (!snap && tracer_wait(tr, NULL) && newest.s) {
			snap = newest.s;
			newest.s = NULL;
			mark = -1;
		} else if (!snap) {
			rc = cli_fail(&err);
		}
	}
	if (hold) /* the last snapshot taken: an exit() now does not wait */
		tracer_exit_end(tr);
	arena_init(&ar);
	if (tracer_report_kept(tr,
			       mark > 0 ? (unsigned)mark : tracer_marks(tr) + 1,
			       &ar, &rep, &err) < 0 ||
	    /* what the viewer lists, for the file alone */
	    (snap &&
	     tracer_keep_live(tr,
			      mark > 0 ? (unsigned)mark : tracer_marks(tr) + 1,
			      &ar, &rep, &err) < 0)) {
		rc = cli_fail(&err);
		goto out;
	}
	rep.seed = to.seed;
	if (!rep.ended)
		rep.exit_status = -1;
	if (snap) {
		snap->trace = &rep;
		rc = cli_trace_save(a->save, snap);
	}
	if (!print)
		goto out;
	if (a->trace_children && !(ps = procs_of(tr, &ar, to.seed, &err))) {
		rc = cli_fail(&err);
		goto out;
	}
	if (!name[0])
		launched_name(tr, pid, a->cmd[0], name, sizeof(name));
	if (cli_open_output(&o, a->output, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	o.exact = a->bytes;
	if (a->export && strcmp(a->export, "json") == 0)
		print_json(&o, a, pid, name, &rep, ps);
	else
		print_text(&o, a, pid, name, &rep, ps);
	if (outbuf_close(&o, &err) < 0 && !rc)
		rc = cli_fail(&err);
out:
	vms_snapshot_free(newest.s);
	vms_snapshot_free(snap);
	arena_fini(&ar);
	tracer_free(tr); /* a command still running runs on untraced */
	return rc;
}
