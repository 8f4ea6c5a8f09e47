/* run_attach.c — `vmscope --trace PID|-n NAME -s|-e text|json [-o FILE]
 * [-w FILE] [--duration=S]`: a process already running, traced until it
 * exits, the duration ends or Ctrl-C, then the report of the whole trace
 * printed. With -w FILE, its snapshot is taken at the end, still traced,
 * and saved with the trace up to it (the report printed is the one
 * saved; one that ended within the trace has no file: exit 3). Without
 * -s, -e or -w, the viewer on it (as on a traced launch: a mark at each
 * snapshot, the call sites on C) until q, then the detach.
 *
 * First choice: the tracer library loaded into it by vmscope's own ptrace
 * injection (src/capture/ptrace/inject_call.h: the process is frozen for
 * the choice of a thread, one thread borrowed for dlopen), its malloc
 * family's and mmap family's GOT entries redirected to the library
 * (trace/attach.c), read like a traced launch (src/trace/tracer.h); at the
 * end the library is called again to put every entry back, and stays
 * loaded, inert. With root (or CAP_BPF and CAP_PERFMON), the mmap family
 * from the kernel beside it (tracer_kernel_arm: brk, madvise, mprotect's
 * commits, raw system calls and modules whose entries are not redirected;
 * the allocator's own maps left out), else the library's alone, the
 * reason said in the report. When the injection is refused (the reason is
 * printed in the report), the mmap family only, from the kernel
 * (src/trace/bpfmaps.h): the process is then never stopped or injected. Either way it is never
 * killed, and runs on, untraced.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/outbuf.h"
#include "capture/ptrace/inject_call.h"
#include "cli.h"
#include "elf/elfcache.h"
#include "export/export_trace.h"
#include "linux/procfs.h"
#include "pipeline.h"
#include "trace/bpfmaps.h"
#include "trace/tracer.h"

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
	/* a process that rewrote its arguments (setproctitle, as redis
	 * does) pads them with NULs: no empty arguments after its last */
	while (w->cmdline && w->cmdline_len > 1 &&
	       !w->cmdline[w->cmdline_len - 1] &&
	       !w->cmdline[w->cmdline_len - 2])
		w->cmdline_len--;
}

/* How it was traced: injected (got: the GOT entries redirected), or the
 * kernel's with why not injected. */
struct how {
	bool tried, injected;
	bool kernel; /* the mmap family from the kernel beside the library */
	char kernel_why[600]; /* why not, injected without it */
	long got;
	/* the process stopped, all threads (frozen) and the borrowed one
	 * (held), at the attach and at the detach (0: no detach call) */
	uint64_t frozen_us, held_us, detach_frozen_us, detach_held_us;
	uint64_t walk_frozen_us; /* stopped for the heap walk's capture */
	uint64_t walk_us; /* the walk before, all of it, in vmscope */
	char why[600];
};

static void print_json(struct outbuf *o, pid_t pid, const struct who *w,
		       const struct how *h, const struct vms_trace_report *r)
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
	OB_LIT(o, "],\"exit_status\":null,\"signal\":null},\"attach\":{");
	if (h->injected) {
		ob_printf(o,
			  "\"injected\":true,\"got_entries\":%ld,"
			  "\"frozen_us\":%llu,\"held_us\":%llu,"
			  "\"detach_frozen_us\":%llu,\"detach_held_us\":%llu,"
			  "\"walk_frozen_us\":%llu,\"walk_us\":%llu",
			  h->got, (unsigned long long)h->frozen_us,
			  (unsigned long long)h->held_us,
			  (unsigned long long)h->detach_frozen_us,
			  (unsigned long long)h->detach_held_us,
			  (unsigned long long)h->walk_frozen_us,
			  (unsigned long long)h->walk_us);
		ob_printf(o, ",\"kernel\":%s", h->kernel ? "true" : "false");
		if (!h->kernel) {
			OB_LIT(o, ",\"kernel_why\":");
			ob_json_str(o, h->kernel_why);
		}
	} else {
		OB_LIT(o, "\"injected\":false,\"why\":");
		ob_json_str(o, h->why);
	}
	OB_LIT(o, "},\"trace\":");
	export_trace_json(o, r);
	OB_LIT(o, "}\n");
}

static void print_text(struct outbuf *o, pid_t pid, const struct who *w,
		       const struct how *h, const struct vms_trace_report *r)
{
	ob_printf(o, "Process:     %d ", (int)pid);
	ob_text_str(o, w->comm ? w->comm : "?");
	if (h->injected) {
		ob_printf(o,
			  "\nAttached:    the malloc and mmap families, the "
			  "tracer injected (%ld GOT entries redirected, put "
			  "back at the end; stopped %llu us",
			  h->got, (unsigned long long)h->held_us);
		if (h->walk_frozen_us)
			ob_printf(o, ", and %llu us before for the heap walk",
				  (unsigned long long)h->walk_frozen_us);
		OB_LIT(o, ")\n");
		if (h->kernel) {
			OB_LIT(o,
			       "Kernel:      the mmap family from the kernel "
			       "too (brk, madvise, mprotect's commits, raw "
			       "system calls, every module's calls; the "
			       "allocator's own left out)\n");
		} else {
			OB_LIT(o, "Kernel:      no, the mmap family is the "
				  "library's GOT entries' only (no brk, "
				  "madvise, mprotect or raw system call): ");
			ob_text_str(o, h->kernel_why);
			ob_putc(o, '\n');
		}
	} else {
		OB_LIT(o, "\nAttached:    the mmap family, from the kernel\n");
		OB_LIT(o, "Injected:    no, the heap is not traced: ");
		ob_text_str(o, h->why);
		ob_putc(o, '\n');
	}
	if (r->ended)
		OB_LIT(o, "Ended:       it exited within the trace\n");
	else
		OB_LIT(o, "Ended:       no: it runs on, untraced\n");
	export_trace_text(o, r, 8);
}

/* Prints the report r, as -e/-o say. */
static int print(const struct args *a, pid_t pid, const struct who *w,
		 const struct how *h, const struct vms_trace_report *r)
{
	struct vms_error err = { 0 };
	struct outbuf o;

	if (cli_open_output(&o, a->output, &err) < 0)
		return cli_fail(&err);
	o.exact = a->bytes;
	if (a->export && strcmp(a->export, "json") == 0)
		print_json(&o, pid, w, h, r);
	else
		print_text(&o, pid, w, h, r);
	if (outbuf_close(&o, &err) < 0)
		return cli_fail(&err);
	return 0;
}

static bool trace_over(const struct args *a, uint64_t t0)
{
	return interrupted ||
	       (a->duration > 0 &&
		(double)(vms_mono_ns() - t0) / 1e9 >= a->duration);
}

/* -w FILE: the process's snapshot at the end of the trace, still traced,
 * taken after mark (a mark of the trace: its number, or -1 out of memory)
 * so that the report saved and printed is of the trace up to it, as a
 * launch's is (run_trace.c). NULL with *err when it ended within the trace
 * (its map is gone: no file is written) or the capture failed. */
static struct vms_snapshot *end_snapshot(const struct args *a, pid_t pid,
					 bool ended, int mark,
					 struct vms_error *err)
{
	struct vms_capture_opts co = { .pid = pid,
				       .freeze = a->freeze,
				       .exact = a->exact,
				       .keep_raw = true };

	if (ended) {
		vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,
			      "process %d ended within the trace, before a "
			      "snapshot of it could be taken: no snapshot "
			      "file was written",
			      (int)pid);
		return NULL;
	}
	if (mark < 0) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
		return NULL;
	}
	return vms_capture(vms_sampler_by_name(a->backend), &co, err);
}

/* The report r printed (-s, -e) and, with -w, saved with snap; a snapshot
 * that could not be taken (save_rc, said already) leaves the report
 * printed and the status its. */
static int finish(const struct args *a, pid_t pid, const struct who *w,
		  const struct how *h, const struct vms_trace_report *r,
		  struct vms_snapshot *snap, int save_rc)
{
	int rc = save_rc;

	if (snap) {
		snap->trace = r;
		rc = cli_trace_save(a->save, snap);
	}
	if (a->summary || a->export) {
		int prc = print(a, pid, w, h, r);

		rc = rc ? rc : prc;
	}
	return rc;
}

/* The mmap family from the kernel. */
static int trace_kernel(const struct args *a, pid_t pid, const struct who *w,
			const struct how *h)
{
	struct vms_error err = { 0 };
	struct vms_trace_report rep;
	struct vms_snapshot *snap = NULL;
	struct bpfmaps *bm;
	uint64_t t0;
	struct arena ar;
	int rc = 0, mark = -1, save_rc = 0;

	if (bpfmaps_open(&bm, pid, &err) < 0) {
		/* said once when both refuse for the same reason (a process
		 * of another user: its maps not to be read; no such process,
		 * which each says in its own words) */
		if (h->tried && err.kind != VMS_ERR_NOPROC &&
		    strcmp(h->why, err.msg) != 0)
			fprintf(stderr,
				"vmscope: the tracer was not injected: %s\n",
				h->why);
		return cli_fail(&err);
	}
	t0 = vms_mono_ns();
	while (!trace_over(a, t0) && !bpfmaps_ended(bm)) {
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
	if (a->save) {
		bool ended = bpfmaps_ended(bm);

		mark = ended ? -1 : bpfmaps_mark(bm);
		if (!(snap = end_snapshot(a, pid, ended, mark, &err)))
			save_rc = cli_fail(&err);
	}
	arena_init(&ar);
	if (bpfmaps_report(bm, 0,
			   mark > 0 ? (unsigned)mark : bpfmaps_marks(bm) + 1,
			   &ar, &rep, &err) < 0)
		rc = cli_fail(&err);
	else
		rc = finish(a, pid, w, h, &rep, snap, save_rc);
	arena_fini(&ar);
	vms_snapshot_free(snap);
out:
	bpfmaps_free(bm); /* detached: the process runs on untraced */
	return rc;
}

static void nap_ms(long ms)
{
	struct timespec t = { 0, ms * 1000000L };

	nanosleep(&t, NULL);
}

static int before_block(void *ctx, uint64_t heap, uint64_t mem, uint64_t usable,
			bool held)
{
	return tracedb_before_block(ctx, heap, mem, usable, held);
}

/* What the walk before the trace runs of the pipeline (pipeline.h): which
 * allocator's malloc the program calls, from its images' symbols alone
 * (no memory read, nothing stopped); then, where it is glibc's, the
 * images again (libc's, for its main_arena and mp_), glibc's arena heaps
 * (the ids its blocks are counted by) and the malloc walk. The other
 * steps (stacks, runtimes, parts, the allocator's heap search) are not
 * the walk's: left out, the clone lives only for the walk. */
static const char *const which_malloc[] = { "images", "allocator", NULL };
static const char *const walk_steps[] = { "images", "heaps", "malloc", NULL };

/* What was allocated before the trace: the blocks glibc's heap walk finds
 * held, in a capture by the fork sampler just before the injection (the
 * walk reads the clone: the process is stopped only for the fork, some
 * ms, where a capture held still, -F, stops it for every step, 100 ms and
 * more on a server), fed to the trace's aggregation (tracedb_before_*).
 * A capture the fork sampler refuses: no blocks, the reason in
 * before_partial. The walk is of the fork's instant: blocks freed from
 * then to the redirection stay counted alive until their address is
 * allocated again (which ends them); blocks made then are not known
 * (their frees are unknown_frees). Another allocator providing malloc
 * (redis's jemalloc: glibc's heap is then not the program's), known from
 * the layout and the files before anything is stopped: no fork, no walk
 * (no "before"). The files are read once for both captures (an ELF cache
 * of the walk's own). */
/* Between the library's start and its redirection of the GOT entries,
 * in the injecting child (inject_lib_call_then): the kernel's trace
 * armed; the parent sees it by kernel_maps (tracer_kernel_from). */
static void arm(void *tr)
{
	struct vms_error ignore;

	tracer_kernel_arm(tr, &ignore);
}

/* The library injected and attached (inject_call.h): with the kernel's
 * trace loaded (tracer_kernel_load), started and redirected in one stop
 * of one thread, the program armed between the two (tracer.h:
 * tracer_kernel_arm), so that it sees every call from the redirection
 * on; the kernel's trace given up (h->kernel_why) where it could not be
 * armed. */
static int inject_attach(pid_t pid, const char *lib, const char *path,
			 struct tracer *tr, struct how *h,
			 struct inject_call_result *res, struct vms_error *err)
{
	struct vms_error why = { 0 };

	if (h->kernel_why[0])
		return inject_lib_call(pid, lib, true, "vmstrace_attach", path,
				       res, err);
	if (inject_lib_call_then(pid, lib, true, "vmstrace_attach_begin", path,
				 arm, tr, "vmstrace_attach_patch", res,
				 err) < 0) {
		/* an older library left in the process by an earlier attach
		 * (inert; a dlopen of the path finds it): attached in one
		 * call, the kernel's trace armed after it */
		if (err->err != ENOENT ||
		    !strstr(err->msg, "has no vmstrace_attach_begin") ||
		    inject_lib_call(pid, lib, true, "vmstrace_attach", path,
				    res, err) < 0)
			return -1;
		if (res->ret >= 0)
			arm(tr);
	}
	if (res->ret >= 0 && tracer_kernel_from(tr, &why) < 0)
		snprintf(h->kernel_why, sizeof(h->kernel_why), "%s", why.msg);
	return 0;
}

static void walk_before(pid_t pid, struct tracer *tr, struct how *h)
{
	struct tracedb *db = tracer_db(tr);
	struct elfcache *ec = elfcache_new(); /* NULL: each reads its own */
	struct vms_capture_opts which = { .pid = pid,
					  .elfcache = ec,
					  .no_memory = true,
					  .steps = which_malloc };
	struct vms_capture_opts co = { .pid = pid,
				       .elfcache = ec,
				       .steps = walk_steps,
				       .heap_block = before_block,
				       .heap_block_ctx = db };
	struct vms_error err = { 0 };
	struct vms_snapshot *s;
	char why[600];
	size_t i;

	s = vms_capture(vms_sampler_by_name("maps"), &which, &err);
	if (s && s->allocator && s->allocator->provides_malloc) {
		vms_snapshot_free(s);
		elfcache_free(ec);
		tracedb_before_drop(db);
		return;
	}
	vms_snapshot_free(s); /* NULL: the fork's capture says why */
	s = vms_capture(vms_sampler_by_name("fork"), &co, &err);
	if (!s) {
		snprintf(why, sizeof(why), "the capture failed: %s", err.msg);
		tracedb_before_done(db, why);
		elfcache_free(ec);
		return;
	}
	h->walk_frozen_us = s->cap.frozen_us;
	if (s->glibc) {
		for (i = 0; i < s->nheaps; i++)
			if (s->heaps[i].glibc)
				tracedb_before_heap(db, s->heaps[i].id,
						    s->heaps[i].kind);
		tracedb_before_done(db, s->glibc->partial);
	} else {
		tracedb_before_drop(db);
	}
	vms_snapshot_free(s);
	elfcache_free(ec);
}

/* Whether process pid opens path (as vmscope names it) as the file vmscope
 * does: the library's dlopen and the shared file's open are by path, in
 * its root and its /proc. A process in a root of its own (a chroot,
 * another mount or PID namespace) may not see them, or see another file
 * there: refused before anything is done to it (a library loaded there
 * that cannot attach would stay loaded). */
static int sees_as_we_do(pid_t pid, const char *path, const char *what,
			 char *why, size_t n)
{
	struct stat ours, its;
	char root[128], in[4300];

	/* a live thread's root (the main thread may have exited) */
	procfs_mm_path(pid, "root", root, sizeof(root));
	snprintf(in, sizeof(in), "%s%s", root, path);
	if (stat(path, &ours) < 0) {
		snprintf(why, n, "%s %s: %s", what, path, strerror(errno));
		return -1;
	}
	/* its root not to be seen (gone, not permitted): the injection's own
	 * checks say why */
	if (stat(root, &its) < 0)
		return 0;
	if (stat(in, &its) == 0 && its.st_dev == ours.st_dev &&
	    its.st_ino == ours.st_ino)
		return 0;
	snprintf(why, n,
		 "process %d does not see %s %s as vmscope does (it has a "
		 "root of its own: a chroot, or another mount or PID "
		 "namespace), so the tracer cannot be loaded into it; it was "
		 "not touched",
		 (int)pid, what, path);
	return -1;
}

/* The tracer library injected: 1 when it could not be (h->why says
 * why: the caller falls back to the kernel's), else the status. */
static int trace_injected(const struct args *a, pid_t pid, const struct who *w,
			  struct how *h)
{
	struct tracer_opts to = { .output = TRACER_OUT_KEEP,
				  .sample_bytes = a->trace_sample,
				  .seed = cli_trace_seed() };
	struct inject_call_result res;
	struct vms_error err = { 0 };
	struct vms_trace_report rep;
	uint64_t t0;
	struct vms_snapshot *snap = NULL;
	struct tracer *tr;
	struct arena ar;
	char lib[4096], abs[4096], path[128];
	int rc = 0, idle = 0, mark = -1, save_rc = 0;
	bool view = !a->summary && !a->export && !a->save;

	to.library = cli_trace_library(lib, sizeof(lib));
	if (!realpath(to.library, abs)) {
		snprintf(h->why, sizeof(h->why), "the tracer library %s: %s",
			 to.library, strerror(errno));
		return 1;
	}
	if (tracer_new(&tr, &to, &err) < 0 ||
	    tracer_attached(tr, pid, path, sizeof(path)) < 0) {
		snprintf(h->why, sizeof(h->why), "%s", err.msg);
		tracer_free(tr);
		return 1;
	}
	if (sees_as_we_do(pid, abs, "the tracer library", h->why,
			  sizeof(h->why)) < 0 ||
	    sees_as_we_do(pid, path, "the trace's shared file", h->why,
			  sizeof(h->why)) < 0) {
		tracer_free(tr);
		return 1;
	}
	/* the walk only where the injection can be made: it costs the
	 * process a fork's stop and a clone for the capture */
	if (inject_lib_check(pid, &err) < 0) {
		snprintf(h->why, sizeof(h->why), "%s", err.msg);
		tracer_free(tr);
		return 1;
	}
	/* the mmap family from the kernel too, where it may be (root, or
	 * CAP_BPF and CAP_PERFMON): tracer.h says how the two share it; its
	 * program loaded now, attached once the library is in;
	 * VMSCOPE_TRACE_KERNEL=0: never */
	if (getenv("VMSCOPE_TRACE_KERNEL") &&
	    strcmp(getenv("VMSCOPE_TRACE_KERNEL"), "0") == 0)
		snprintf(h->kernel_why, sizeof(h->kernel_why), "%s",
			 "VMSCOPE_TRACE_KERNEL=0 asks for the library's "
			 "view only");
	else if (tracer_kernel_load(tr, abs, &err) < 0)
		snprintf(h->kernel_why, sizeof(h->kernel_why), "%s", err.msg);
	/* sampled: no walk (the frees recorded are those of the blocks
	 * sampled, never one of the blocks alive before) */
	t0 = vms_mono_ns();
	if (!a->trace_sample)
		walk_before(pid, tr, h);
	h->walk_us = a->trace_sample ? 0 : vms_us_since(t0);
	if (inject_attach(pid, abs, path, tr, h, &res, &err) < 0 ||
	    res.ret < 0) {
		if (res.ret < 0)
			snprintf(h->why, sizeof(h->why),
				 "the tracer library in process %d refused "
				 "to attach: %s%s",
				 (int)pid, strerror((int)-res.ret),
				 res.ret == -EALREADY
					 ? " (another vmscope traces it "
					   "now, or vmscope --trace started "
					   "it)"
				 : res.ret == -EPROTO
					 ? " (its tracer library is of another "
					   "vmscope version: one an earlier "
					   "attach left in it, which only a "
					   "restart of the process removes, or "
					   "the one VMSCOPE_TRACELIB names)"
					 : "");
		else
			snprintf(h->why, sizeof(h->why), "%s", err.msg);
		tracer_free(tr);
		return 1;
	}
	h->injected = true;
	h->got = res.ret;
	h->frozen_us = res.frozen_us;
	h->held_us = res.held_us;
	h->kernel = !h->kernel_why[0];
	t0 = vms_mono_ns();
	if (view) /* the viewer, until q */
		rc = cli_trace_viewer(a, tr, pid);
	while (!rc && !view && !trace_over(a, t0) && !tracer_wait(tr, NULL)) {
		long got = tracer_drain(tr, &err);

		if (got < 0) {
			rc = cli_fail(&err);
			break;
		}
		if (got >= TRACER_DRAIN_FEW) /* tracer.h */
			idle = 0;
		else if (got) {
			idle = 0;
			nap_ms(1);
		} else
			nap_ms(++idle < 10 ? 1 : 5);
	}
	/* -w: the snapshot while still traced, the mark after what the
	 * rings hold now (the report is of the trace up to the snapshot) */
	if (!rc && a->save) {
		bool ended = tracer_wait(tr, NULL);

		while (!ended && tracer_drain(tr, &err) > 0)
			;
		mark = ended ? -1 : tracer_mark(tr);
		if (!(snap = end_snapshot(a, pid, ended, mark, &err)))
			save_rc = cli_fail(&err);
	}
	/* the kernel's trace closed (the library records the mmap family
	 * again meanwhile), every entry put back, then what the rings still
	 * hold */
	tracer_kernel_close(tr);
	memset(&res, 0, sizeof(res));
	if (!tracer_wait(tr, NULL) &&
	    inject_lib_call(pid, abs, false, "vmstrace_detach", NULL, &res,
			    &err) < 0 &&
	    !tracer_wait(tr, NULL))
		fprintf(stderr,
			"vmscope: the tracer's GOT entries in process %d "
			"were not put back (%s): they stay redirected to "
			"its library, which goes pass-through now\n",
			(int)pid, err.msg);
	h->detach_frozen_us = res.frozen_us;
	h->detach_held_us = res.held_us;
	while (!rc && tracer_drain(tr, &err) > 0)
		;
	if (view) {
		tracer_free(tr);
		return rc;
	}
	arena_init(&ar);
	if (!rc &&
	    (tracer_report(tr, 0,
			   mark > 0 ? (unsigned)mark : tracer_marks(tr) + 1,
			   &ar, &rep, &err) < 0 ||
	     /* what the viewer lists, for the file alone */
	     (snap &&
	      tracer_keep_live(tr,
			       mark > 0 ? (unsigned)mark : tracer_marks(tr) + 1,
			       &ar, &rep, &err) < 0)))
		rc = cli_fail(&err);
	else if (!rc) {
		rep.exit_status = -1;
		rep.seed = to.seed;
		rc = finish(a, pid, w, h, &rep, snap, save_rc);
	}
	arena_fini(&ar);
	vms_snapshot_free(snap);
	tracer_free(tr); /* pass-through: the process runs on untraced */
	return rc;
}

int cli_trace_attach(const struct args *a)
{
	struct sigaction sa = { .sa_handler = on_int };
	struct how h = { 0 };
	struct who w;
	pid_t pid = a->pid;
	int rc = 0;

	if (a->name && (rc = cli_find_by_name(a->name, &pid)) >= 0)
		return rc;
	who_read(pid, &w);
	/* no SA_RESTART: a Ctrl-C during the injection ends the trace as
	 * soon as the library is in (and its entries are put back); a
	 * hangup (the terminal gone: an ssh session dropped) too, not a
	 * death that leaves its entries redirected and its rings filling */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* VMSCOPE_TRACE_KERNEL=1: never inject (the kernel's view only) */
	if (getenv("VMSCOPE_TRACE_KERNEL") &&
	    strcmp(getenv("VMSCOPE_TRACE_KERNEL"), "1") == 0) {
		snprintf(h.why, sizeof(h.why), "%s",
			 "VMSCOPE_TRACE_KERNEL=1 asks for the kernel's view "
			 "only");
		rc = 1;
	} else {
		h.tried = true;
		rc = trace_injected(a, pid, &w, &h);
	}
	if (rc == 1 && !a->summary && !a->export && !a->save) {
		/* the viewer reads the injected tracer only */
		fprintf(stderr,
			"vmscope: the viewer on a running process needs the "
			"tracer injected, and it was not: %s; --trace %d -s "
			"or -e text|json prints its mmap family from the "
			"kernel\n",
			h.why, (int)pid);
		rc = 3;
	} else if (rc == 1)
		rc = trace_kernel(a, pid, &w, &h);
	free(w.comm);
	free(w.cmdline);
	return rc;
}
