/* run_attach.c — `vmscope --trace PID|-n NAME -s|-e text|json [-o FILE]
 * [--duration=S]`: the mmap family of a process already running, traced
 * from the kernel (src/trace/bpfmaps.h) until it exits, the duration ends
 * or Ctrl-C, then the report of the whole trace printed. The process is
 * never stopped, injected or killed for it; detached, it runs on.
 *
 * The malloc family of a running process (the tracer library injected)
 * is not in this version yet: the report says the heap is not traced.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/outbuf.h"
#include "cli.h"
#include "export/export_trace.h"
#include "linux/procfs.h"
#include "trace/bpfmaps.h"

static volatile sig_atomic_t interrupted;

static void on_int(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* The process's name and command line, read when the trace starts. */
struct who {
	char *comm, *cmdline;
	size_t comm_len, cmdline_len;
};

static void who_read(pid_t pid, struct who *w)
{
	memset(w, 0, sizeof(*w));
	if (procfs_read_pid(pid, "comm", &w->comm, &w->comm_len) == 0)
		w->comm[strcspn(w->comm, "\n")] = '\0';
	else
		w->comm = NULL;
	if (procfs_read_pid(pid, "cmdline", &w->cmdline, &w->cmdline_len) < 0)
		w->cmdline = NULL;
}

static void print_json(struct outbuf *o, pid_t pid, const struct who *w,
		       const struct vms_trace_report *r)
{
	size_t at;

	OB_LIT(o, "{\"format\":\"vmscope\",\"version\":1,\"process\":{");
	ob_printf(o, "\"pid\":%d,\"name\":", (int)pid);
	ob_json_str(o, w->comm);
	OB_LIT(o, ",\"cmdline\":[");
	for (at = 0; w->cmdline && at < w->cmdline_len;
	     at += strlen(w->cmdline + at) + 1) {
		if (at)
			ob_putc(o, ',');
		ob_json_str(o, w->cmdline + at);
	}
	/* not vmscope's child: how it ended is not known */
	OB_LIT(o, "],\"exit_status\":null,\"signal\":null},\"trace\":");
	export_trace_json(o, r);
	OB_LIT(o, "}\n");
}

static void print_text(struct outbuf *o, pid_t pid, const struct who *w,
		       const struct vms_trace_report *r)
{
	ob_printf(o, "Process:     %d ", (int)pid);
	ob_text_str(o, w->comm ? w->comm : "?");
	OB_LIT(o, "\nAttached:    the mmap family, from the kernel\n");
	if (r->ended)
		OB_LIT(o, "Ended:       it exited within the trace\n");
	else
		OB_LIT(o, "Ended:       no: it runs on, untraced\n");
	export_trace_text(o, r, 8);
}

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) +
	       (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

int cli_trace_attach(const struct args *a)
{
	struct sigaction sa = { .sa_handler = on_int };
	struct vms_error err = { 0 };
	struct vms_trace_report rep;
	struct bpfmaps *bm;
	struct timespec t0;
	struct outbuf o;
	struct arena ar;
	struct who w;
	pid_t pid = a->pid;
	int rc = 0;

	if (a->name && (rc = cli_find_by_name(a->name, &pid)) >= 0)
		return rc;
	rc = 0;
	who_read(pid, &w);
	if (bpfmaps_open(&bm, pid, &err) < 0) {
		rc = cli_fail(&err);
		goto out_who;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!interrupted && !bpfmaps_ended(bm) &&
	       !(a->duration > 0 && since(&t0) >= a->duration)) {
		if (bpfmaps_drain(bm, 50, &err) < 0) {
			rc = cli_fail(&err);
			goto out;
		}
	}
	/* what the ring buffer still holds */
	if (bpfmaps_drain(bm, 0, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	arena_init(&ar);
	if (bpfmaps_report(bm, 0, bpfmaps_marks(bm) + 1, &ar, &rep, &err) < 0 ||
	    outbuf_open_file(&o, a->output ? a->output : "-", &err) < 0) {
		rc = cli_fail(&err);
		arena_fini(&ar);
		goto out;
	}
	o.exact = a->bytes;
	if (a->export && strcmp(a->export, "json") == 0)
		print_json(&o, pid, &w, &rep);
	else
		print_text(&o, pid, &w, &rep);
	if (outbuf_close(&o, &err) < 0)
		rc = cli_fail(&err);
	arena_fini(&ar);
out:
	bpfmaps_free(bm); /* detached: the process runs on untraced */
out_who:
	free(w.comm);
	free(w.cmdline);
	return rc;
}
