/* cli.h — the command line's own: its options (struct args, filled by
 * main.c's parse_args) and what it does with them (run.c; --trace:
 * run_trace.c, run_attach.c; --all: run_all.c). Only cli/ includes it;
 * the engine and the viewer know nothing of it.
 *
 * Contract: every cli_* that returns int returns an exit status (0 ok, 1
 * usage, 2 no such process or not permitted, 3 capture failed, 4 a file
 * could not be read or written), having printed one line saying why on
 * standard error when it is not 0; cli_parse_pid() and
 * cli_find_by_name() say otherwise where they are declared.
 */
#ifndef VMSCOPE_CLI_H
#define VMSCOPE_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "base/error.h"
#include "capture/sampler.h"

struct outbuf;
struct tracer;

struct args {
	const char *backend, *export, *output, *name, *theme, *sort;
	const char *save, *load; /* -w FILE, -l FILE */
	const char *diff_a, *diff_b; /* -d A B */
	bool diff;
	bool summary, freeze, exact, list, bytes;
	double delay;
	double watch; /* --watch SECONDS, 0: none */
	long count; /* --count N, 0: no end */
	pid_t pid;
	char **cmd; /* after "--" */
	bool trace; /* --trace */
	bool trace_children; /* --trace-children */
	double duration; /* --duration SECONDS, 0: until CMD ends */
	unsigned long long trace_sample; /* --trace-sample BYTES, 0: exact */
	bool all; /* --all */
	long top; /* --top=N, 0: every process */
	char **operands; /* --all's PIDs or cgroup path */
	int noperands;
};

/* s on f with everything a terminal would act on escaped (escape.h): the
 * strings printed come from processes and files. */
void cli_put_safe(FILE *f, const char *s);
/* Prints e's message; returns its exit status. */
int cli_fail(const struct vms_error *e);
/* What was printed on stdout with stdio (--list, --help, --version)
 * flushed: 0, or 4 with a message when it could not be written (a full
 * disk, /dev/full, a closed descriptor): never a silent success. */
int cli_stdout_done(void);
/* o opened for path as -o opens it (NULL: standard output): a FIFO no
 * one reads yet is waited for, as a shell's `> FIFO` is, but with a line
 * on standard error that says so ("waiting for a reader of PATH"). */
int cli_open_output(struct outbuf *o, const char *path, struct vms_error *err);
/* Prints a usage error and the hint to --help; returns 1. */
__attribute__((format(printf, 1, 2))) int cli_usage_error(const char *fmt, ...);
/* A PID as the command line takes one: 0, or -1. */
int cli_parse_pid(const char *s, pid_t *pid);

/* The process pid names: pid itself, or, for the id of a thread (which
 * /proc/TID reads as if it were a process, its own name and all), the
 * process it is a thread of, said in one line on standard error
 * ("511 is a thread of process 510: DOING 510"). A pid that cannot be
 * read is given back as it is, for the capture to say why. */
pid_t cli_process_of(pid_t pid, const char *doing);
/* The file a side of -d A B names, or NULL where it is a PID (digits
 * without a slash): the one rule of which a side is. */
const char *cli_diff_file(const char *what);

/* --list. */
int cli_list(const struct args *a);
/* -n NAME: *pid, and -1 to go on; or an exit status. */
int cli_find_by_name(const char *name, pid_t *pid);
/* A capture printed (-s, -e) or saved (-w FILE). */
int cli_batch(const struct args *a, const struct vms_sampler *smp,
	      const struct vms_capture_opts *co);
/* --watch without the viewer. */
int cli_watch(const struct args *a, const struct vms_sampler *smp,
	      const struct vms_capture_opts *co);
/* --watch -w DIR's file for s, into buf: DIR/TIME-pidPID.vms, TIME its
 * UTC time to the millisecond (names sort by time). */
void cli_watch_name(const char *dir, const struct vms_snapshot *s, char *buf,
		    size_t n);
/* -l FILE: printed, or in the viewer. */
int cli_load(const struct args *a);
/* -d A B: printed, or in the viewer's diff screen. */
int cli_diff(const struct args *a);
/* --trace: -1 when the options go together, else a usage error's status. */
int cli_trace_check(const struct args *a);
/* --trace -- CMD, printed (run_trace.c). */
int cli_trace(const struct args *a);
/* The tracer library's path: $VMSCOPE_TRACELIB, beside the executable,
 * or where make install puts it (run_trace.c). */
const char *cli_trace_library(char *buf, size_t n);
/* Sampling's seed: VMSCOPE_SEED (a run to replay), else the clock
 * (run_trace.c). */
unsigned long long cli_trace_seed(void);
/* Writes s, with its trace (s->trace), to path (-w FILE, or a file in -w
 * DIR) as -o writes (run_trace.c). */
int cli_trace_save(const char *path, const struct vms_snapshot *s);
/* The viewer on a traced process pid (launched, or attached to): its
 * first snapshot at once, a mark of the trace at each snapshot, the call
 * sites on C; tr stays the caller's (run_trace.c). */
int cli_trace_viewer(const struct args *a, struct tracer *tr, pid_t pid);
/* --trace PID (or -n NAME), printed: the malloc and mmap families from
 * the tracer library injected, else the mmap family from the kernel
 * (run_attach.c). */
int cli_trace_attach(const struct args *a);
/* --all and --top: -1 when the options go together, else a usage error's
 * status (run_all.c). */
int cli_all_check(const struct args *a);
/* --all -e openmetrics: many processes, one exposition (run_all.c). */
int cli_all(const struct args *a);

#endif
