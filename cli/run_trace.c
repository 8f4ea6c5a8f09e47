/* run_trace.c — `vmscope --trace -s|-e FMT [-o FILE] [--duration=S] -- CMD`:
 * CMD started with the tracer preloaded (src/trace/tracer.h), its rings
 * read until it exits, the duration ends or Ctrl-C, then the report of
 * the whole run printed. CMD is never killed for it: when the trace ends
 * first, tracing stops and CMD runs on untraced.
 *
 * Without -s or -e, the viewer on CMD: a mark of the trace at each
 * snapshot, the call sites on C (ui/screens/screen_calls.c).
 *
 * A PID (or -n NAME) instead of CMD: the mmap family of that running
 * process from the kernel, printed (run_attach.c). What is not in this
 * version yet is refused with a message, never half done: the viewer on
 * a running process, its malloc family, a trace saved with -w, formats
 * other than text and json. With
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../ui/ui.h"
#include "base/outbuf.h"
#include "cli.h"
#include "export/export_trace.h"
#include "linux/selfcopy.h"
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
static const char *library(char *buf, size_t n)
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
		return cli_usage_error("%s", "--trace needs -- CMD, or a PID "
					     "with -s or -e");
	/* a running process: the mmap family from the kernel, printed */
	if (!a->cmd && !a->summary && !a->export)
		return cli_usage_error("%s",
				       "attaching the viewer to a running "
				       "process is not in this version "
				       "yet: --trace PID -s or -e "
				       "text|json prints its mmap family");
	if (!a->cmd && a->trace_sample)
		return cli_usage_error("%s",
				       "--trace-sample samples the malloc "
				       "family, which attaching does not "
				       "trace in this version yet");
	if (a->save)
		return cli_usage_error("%s", "a trace saved with -w is not in "
					     "this version yet");
	if (a->export && strcmp(a->export, "text") != 0 &&
	    strcmp(a->export, "json") != 0)
		return cli_usage_error("--trace prints -e text or json, not %s",
				       a->export);
	if (a->watch || a->diff || a->load || a->list)
		return cli_usage_error("%s", "--trace takes none of --watch, "
					     "-d, -l, --list");
	return -1;
}

/* Sampling's seed: VMSCOPE_SEED (a run to replay), else the clock; the
 * report says which. */
static unsigned long long trace_seed(void)
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

static void print_json(struct outbuf *o, const struct args *a, pid_t pid,
		       const struct vms_trace_report *r)
{
	int i;

	OB_LIT(o, "{\"format\":\"vmscope\",\"version\":1,\"process\":{");
	ob_printf(o, "\"pid\":%d,\"name\":", (int)pid);
	ob_json_str(o, a->cmd[0]);
	OB_LIT(o, ",\"cmdline\":[");
	for (i = 0; a->cmd[i]; i++) {
		if (i)
			ob_putc(o, ',');
		ob_json_str(o, a->cmd[i]);
	}
	OB_LIT(o, "],\"exit_status\":");
	if (r->ended && WIFEXITED(r->exit_status))
		ob_printf(o, "%d", WEXITSTATUS(r->exit_status));
	else
		OB_LIT(o, "null");
	OB_LIT(o, ",\"signal\":");
	if (r->ended && WIFSIGNALED(r->exit_status))
		ob_printf(o, "%d", WTERMSIG(r->exit_status));
	else
		OB_LIT(o, "null");
	OB_LIT(o, "},\"trace\":");
	export_trace_json(o, r);
	OB_LIT(o, "}\n");
}

static void print_text(struct outbuf *o, const struct args *a, pid_t pid,
		       const struct vms_trace_report *r)
{
	int i;

	ob_printf(o, "Process:     %d ", (int)pid);
	ob_text_str(o, a->cmd[0]);
	OB_LIT(o, "\nCommand:     ");
	for (i = 0; a->cmd[i]; i++) {
		if (i)
			ob_putc(o, ' ');
		ob_text_str(o, a->cmd[i]);
	}
	ob_putc(o, '\n');
	if (r->ended && WIFEXITED(r->exit_status))
		ob_printf(o, "Ended:       exit status %d\n",
			  WEXITSTATUS(r->exit_status));
	else if (r->ended && WIFSIGNALED(r->exit_status))
		ob_printf(o, "Ended:       killed by signal %d\n",
			  WTERMSIG(r->exit_status));
	else
		OB_LIT(o, "Ended:       no: it runs on, untraced\n");
	export_trace_text(o, r, 8);
}

/* The viewer on the traced command: its first snapshot at once, a mark
 * of the trace at each snapshot, the call sites on C. */
static int trace_viewer(const struct args *a, struct tracer *tr, pid_t pid)
{
	struct ui_opts uo = {
		.sampler = vms_sampler_by_name(a->backend),
		.copts = { .pid = pid, .freeze = a->freeze, .exact = a->exact },
		.theme = a->theme,
		.tracer = tr
	};
	struct vms_error err = { 0 };
	int rc;

	setlocale(LC_CTYPE, ""); /* the viewer shows UTF-8 names */
	rc = ui_run(&uo, &err) < 0 ? cli_fail(&err) : 0;
	tracer_free(tr); /* a command still running runs on untraced */
	return rc;
}

int cli_trace(const struct args *a)
{
	struct tracer_opts to = {
		.sample_bytes = a->trace_sample,
		.seed = trace_seed(),
		.output = !a->summary && !a->export ? TRACER_OUT_NULL
			  : !a->output || strcmp(a->output, "-") == 0
				  ? TRACER_OUT_STDERR
				  : TRACER_OUT_KEEP
	};
	struct vms_trace_report rep;
	struct vms_error err = { 0 };
	struct sigaction sa = { .sa_handler = on_int };
	struct timespec t0, now;
	struct tracer *tr;
	struct outbuf o;
	struct arena ar;
	char lib[4096];
	pid_t pid;
	int rc = 0, idle = 0;

	if (!a->cmd)
		return cli_trace_attach(a);
	to.library = library(lib, sizeof(lib));
	if (tracer_new(&tr, &to, &err) < 0)
		return cli_fail(&err);
	if (tracer_launch(tr, a->cmd, &pid, &err) < 0) {
		tracer_free(tr);
		return cli_fail(&err);
	}
	if (!a->summary && !a->export)
		return trace_viewer(a, tr, pid);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		long got = tracer_drain(tr, &err);
		bool ended = tracer_wait(tr, NULL);

		if (got < 0) {
			rc = cli_fail(&err);
			break;
		}
		if (ended || interrupted)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (a->duration > 0 &&
		    (double)(now.tv_sec - t0.tv_sec) +
				    (double)(now.tv_nsec - t0.tv_nsec) / 1e9 >=
			    a->duration)
			break;
		/* read as fast as records come; idle, a few ms */
		if (got)
			idle = 0;
		else
			sleep_ms(++idle < 10 ? 1 : 5);
	}
	/* what the rings still hold */
	while (!rc && tracer_drain(tr, &err) > 0)
		;
	if (rc) {
		tracer_free(tr);
		return rc;
	}
	arena_init(&ar);
	if (tracer_report(tr, 0, tracer_marks(tr) + 1, &ar, &rep, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	rep.seed = to.seed;
	if (outbuf_open_file(&o, a->output ? a->output : "-", &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	o.exact = a->bytes;
	if (a->export && strcmp(a->export, "json") == 0)
		print_json(&o, a, pid, &rep);
	else
		print_text(&o, a, pid, &rep);
	if (outbuf_close(&o, &err) < 0)
		rc = cli_fail(&err);
out:
	arena_fini(&ar);
	tracer_free(tr); /* a command still running runs on untraced */
	return rc;
}
