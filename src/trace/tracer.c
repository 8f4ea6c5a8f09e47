/* tracer.c — tracer.h: the shared file (a memfd, sealed against
 * shrinking: the program cannot make vmscope's reads fault), the launch,
 * the reports; the reading of a process's rings is tracer_read.c's, the
 * children's files tracer_follow.c's.
 */
#include "trace/tracer.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/tracewire.h"
#include "linux/spawn.h"
#include "trace/bpfmaps.h"
#include "trace/tracedb.h"
#include "trace/traceprog.h"
#include "trace/tracer_priv.h"
#include "trace/tracesym.h"

/* A number that tells this trace from any other (its reports' "run"):
 * the kernel's random bytes, else the clock and the pid mixed. */
static uint64_t run_number(void)
{
	uint64_t r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = vms_mono_ns() * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	return r ? r : 1;
}

int tracer_new(struct tracer **out, const struct tracer_opts *o,
	       struct vms_error *err)
{
	struct tracer *tr = calloc(1, sizeof(*tr));
	struct tw_header *h;

	*out = NULL;
	if (!tr || !(tr->p.db = tracedb_new())) {
		free(tr);
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory for the trace");
	}
	tr->o = *o;
	tr->run = run_number();
	tr->p.pidfd = tr->sock = -1;
	tr->page = (uint64_t)sysconf(_SC_PAGESIZE);
	tr->p.sym = tracesym_new(); /* NULL: frames without names */
	tr->p.fd =
		memfd_create("vmscope-trace", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (tr->p.fd < 0 || ftruncate(tr->p.fd, (off_t)TW_FILE_BYTES) < 0 ||
	    fcntl(tr->p.fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0) {
		vms_error_set(err, VMS_ERR_CAPTURE, errno,
			      "cannot make the trace's shared memory: %s",
			      strerror(errno));
		goto fail;
	}
	h = mmap(NULL, TW_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		 tr->p.fd, 0);
	if (h == MAP_FAILED) {
		vms_error_set(err, VMS_ERR_CAPTURE, errno,
			      "cannot map the trace's shared memory: %s",
			      strerror(errno));
		goto fail;
	}
	h->magic = TW_MAGIC;
	h->version = TW_VERSION;
	h->slots = TW_SLOTS;
	h->ring_bytes = TW_RING_BYTES;
	h->max_frames = TW_MAX_FRAMES;
	h->consumer_pid = getpid();
	h->consumer_pidns = tw_pidns_now();
	h->sample_bytes = o->sample_bytes;
	h->start_ns = vms_mono_ns();
	h->seed = o->seed;
	h->follow_children = o->follow_children;
	tr->start_ns = h->start_ns;
	tr->p.hdr = h;
	tr->p.locked = tracer_lock(h); /* before the program sees the file */
	if (o->follow_children && tracer_follow_start(tr, err) < 0) {
		tracer_free(tr);
		return -1;
	}
	*out = tr;
	return 0;
fail:
	if (tr->p.fd >= 0)
		close(tr->p.fd);
	tracedb_free(tr->p.db);
	free(tr);
	return -1;
}

void tracer_free(struct tracer *tr)
{
	if (!tr)
		return;
	bpfmaps_free(tr->kernel);
	tracer_follow_free(tr); /* its children run on untraced */
	if (tr->p.hdr) {
		/* the command runs on untraced */
		__atomic_store_n(&tr->p.hdr->passthrough, TW_PASS_ENDED,
				 __ATOMIC_RELEASE);
		/* attached, a running process keeps the file mapped (its
		 * library is never unloaded): the rings' memory is given
		 * back, the header (pass-through) kept */
		tracer_unmap(tr->p.hdr, tr->p.fd, tr->attached, tr->p.locked);
	}
	close(tr->p.fd);
	tracer_free_maps(&tr->p);
	tracedb_free(tr->p.db);
	tracesym_free(tr->p.sym);
	free(tr);
}

/* ---- launch ---- */

/* LD_PRELOAD for the child: the library first, then what was there. */
static int preload_env(const char *lib, char *buf, size_t n)
{
	const char *was = getenv("LD_PRELOAD");
	int len = snprintf(buf, n, "%s%s%s", lib, was && *was ? ":" : "",
			   was ? was : "");

	return len < 0 || (size_t)len >= n ? -1 : 0;
}

/* In the child: the shared file at a descriptor of its own (not
 * close-on-exec) named in VMSCOPE_TRACE_FD, the library preloaded, and
 * following children, TW_FOLLOW_ENV (follow NULL: not, and none of it
 * inherited). */
struct child_env {
	int fd;
	const char *preload, *follow;
};

static int child_env(void *ctx)
{
	const struct child_env *c = ctx;
	int fd = fcntl(c->fd, F_DUPFD, 3);
	char num[16];

	if (fd < 0)
		return -1;
	snprintf(num, sizeof(num), "%d", fd);
	if (setenv("LD_PRELOAD", c->preload, 1) < 0 ||
	    setenv("VMSCOPE_TRACE_FD", num, 1) < 0)
		return -1;
	if (c->follow ? setenv(TW_FOLLOW_ENV, c->follow, 1) < 0
		      : unsetenv(TW_FOLLOW_ENV) < 0)
		return -1;
	return 0;
}

int tracer_launch(struct tracer *tr, char *const *cmd, pid_t *pid,
		  struct vms_error *err)
{
	char preload[8192];
	struct child_env ce = { tr->p.fd, preload,
				tr->sock >= 0 ? tr->follow_env : NULL };
	/* no death signal: a traced command outlives vmscope (the library
	 * goes pass-through when vmscope is gone); in the viewer it reads
	 * and writes none of the terminal */
	struct spawn_opts so = {
		.out = tr->o.output == TRACER_OUT_STDERR ? SPAWN_OUT_STDERR
		       : tr->o.output == TRACER_OUT_NULL ? SPAWN_OUT_NULL
							 : SPAWN_OUT_KEEP,
		.stdin_null = tr->o.output == TRACER_OUT_NULL,
		.in_child = child_env,
		.ctx = &ce,
	};

	if (access(tr->o.library, R_OK) != 0)
		return vms_error_set(err, VMS_ERR_USAGE, errno,
				     "cannot trace: the tracer library %s: "
				     "%s",
				     tr->o.library, strerror(errno));
	if (traceprog_check(cmd[0], err) < 0)
		return -1;
	if (preload_env(tr->o.library, preload, sizeof(preload)) < 0)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "LD_PRELOAD is too long to add the "
				     "tracer to");
	if (spawn(cmd, &so, pid, err) < 0)
		return -1;
	tr->p.pid = *pid;
	snprintf(tr->p.cmd, sizeof(tr->p.cmd), "%s", cmd[0]);
	return 0;
}

int tracer_started(const struct tracer *tr, struct vms_error *err)
{
	/* the library's start (its constructor, before the program's
	 * main) sets traced_pid: 0 once the command ran, nothing was or
	 * will be recorded */
	if (tr->attached ||
	    __atomic_load_n(&tr->p.hdr->traced_pid, __ATOMIC_ACQUIRE) != 0)
		return 0;
	return vms_error_set(err, VMS_ERR_CAPTURE, 0,
			     "nothing traced: the tracer library never "
			     "started in %s (pid %d), %s: the loader did not "
			     "preload it (the kernel ran the program secure: "
			     "file capabilities, a security module's rule; a "
			     "32-bit program; or VMSCOPE_TRACELIB names no "
			     "tracer library)",
			     tr->p.cmd, (int)tr->p.pid,
			     tr->p.reaped ? "which has ended"
					  : "which runs on untraced");
}

bool tracer_wait(struct tracer *tr, int *status)
{
	int st;

	if (!tr->p.reaped && tr->attached && kill(tr->p.pid, 0) < 0 &&
	    errno == ESRCH) {
		tr->p.reaped = true; /* gone; how it ended is not known */
		tr->p.end_ns = tracer_now(tr);
	}
	if (!tr->p.reaped && !tr->attached && tr->p.pid > 0 &&
	    waitpid(tr->p.pid, &st, WNOHANG) == tr->p.pid) {
		tr->p.reaped = true;
		tr->p.status = st;
		tr->p.end_ns = tracer_now(tr);
	}
	if (tr->p.reaped && status)
		*status = tr->p.status;
	return tr->p.reaped;
}

void tracer_hold_exit(struct tracer *tr)
{
	if (tr->p.hdr)
		__atomic_store_n(&tr->p.hdr->exit_hold, 1, __ATOMIC_RELEASE);
}

bool tracer_at_exit(const struct tracer *tr)
{
	return tr->p.hdr &&
	       __atomic_load_n(&tr->p.hdr->exit_state, __ATOMIC_ACQUIRE) ==
		       TW_EXIT_WAITING;
}

void tracer_exit_taking(struct tracer *tr)
{
	if (tr->p.hdr)
		__atomic_store_n(&tr->p.hdr->exit_state, TW_EXIT_TAKING,
				 __ATOMIC_RELEASE);
}

void tracer_exit_end(struct tracer *tr)
{
	uint32_t st;

	if (!tr->p.hdr)
		return;
	/* the library stores WAITING, then looks at exit_hold again: one
	 * of the two sees the other's store */
	__atomic_store_n(&tr->p.hdr->exit_hold, 0, __ATOMIC_SEQ_CST);
	st = __atomic_load_n(&tr->p.hdr->exit_state, __ATOMIC_SEQ_CST);
	if (st == TW_EXIT_WAITING || st == TW_EXIT_TAKING)
		__atomic_store_n(&tr->p.hdr->exit_state, TW_EXIT_TAKEN,
				 __ATOMIC_SEQ_CST);
}

void tracer_exit_taken(struct tracer *tr)
{
	if (tr->p.hdr)
		__atomic_store_n(&tr->p.hdr->exit_state, TW_EXIT_TAKEN,
				 __ATOMIC_RELEASE);
}

int tracer_attached(struct tracer *tr, pid_t pid, char *path, size_t n)
{
	tr->p.pid = pid;
	tr->attached = true;
	return snprintf(path, n, "/proc/%d/fd/%d", (int)getpid(), tr->p.fd) <
			       (int)n
		       ? 0
		       : -1;
}

long tracer_drain(struct tracer *tr, struct vms_error *err)
{
	long got = tracer_drain_proc(tr, &tr->p, err), kids, kn;

	/* then the kernel's (tracer.h: the order of the two) */
	if (got < 0 || (kn = tracer_kernel_drain(tr, err)) < 0)
		return -1;
	got += kn;
	if (tr->sock < 0)
		return got;
	kids = tracer_follow_drain(tr, err);
	return kids < 0 ? -1 : got + kids;
}

int tracer_mark(struct tracer *tr)
{
	return tracedb_mark(tr->p.db, tracer_now(tr));
}

unsigned tracer_marks(const struct tracer *tr)
{
	return tracedb_marks(tr->p.db);
}

uint64_t tracer_bad(const struct tracer *tr)
{
	return tr->p.bad;
}

int tracer_report(struct tracer *tr, unsigned from, unsigned to,
		  struct arena *a, struct vms_trace_report *out,
		  struct vms_error *err)
{
	return tracer_report_in(tr, from, to, 0, 0, a, out, err);
}

int tracer_report_in(struct tracer *tr, unsigned from, unsigned to, uint64_t lo,
		     uint64_t hi, struct arena *a, struct vms_trace_report *out,
		     struct vms_error *err)
{
	memset(out, 0, sizeof(*out));
	if (tracedb_report_in(tr->p.db, from, to, lo, hi,
			      tr->p.reaped ? tr->p.end_ns : tracer_now(tr),
			      tr->p.sym, a, out) < 0)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory for the trace report");
	tracer_report_fields(tr, &tr->p, out);
	return 0;
}

/* What the viewer lists beside a kept report (up to mark to), with the
 * stacks of the sites they name that its sites do not list. */
static int kept_live(struct tracer *tr, unsigned to, struct arena *a,
		     struct vms_trace_report *out)
{
	struct vms_trace_live *lv = arena_alloc(a, sizeof(*lv));
	struct vms_trace_site *st;
	uint32_t *ids = NULL;
	size_t nids = 0, i;
	int rc = -1;

	if (!lv || tracedb_kept_live(tr->p.db, to, a, lv, &ids, &nids) < 0)
		goto out;
	if (!(st = arena_alloc(a, (nids ? nids : 1) * sizeof(*st))))
		goto out;
	for (i = 0; i < nids; i++) {
		int got;

		if (vms_trace_site_of(out, ids[i]))
			continue;
		if ((got = tracedb_site(tr->p.db, ids[i], tr->p.sym, a,
					&st[lv->nstacks])) < 0)
			goto out;
		lv->nstacks += got > 0;
	}
	lv->stacks = st;
	out->live = lv;
	rc = 0;
out:
	free(ids);
	return rc;
}

int tracer_report_kept(struct tracer *tr, unsigned to, struct arena *a,
		       struct vms_trace_report *out, struct vms_error *err)
{
	memset(out, 0, sizeof(*out));
	if (tracedb_report_kept(tr->p.db, to,
				tr->p.reaped ? tr->p.end_ns : tracer_now(tr),
				tr->p.sym, a, out) < 0)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory for the trace report");
	tracer_report_fields(tr, &tr->p, out);
	return 0;
}

int tracer_keep_live(struct tracer *tr, unsigned to, struct arena *a,
		     struct vms_trace_report *out, struct vms_error *err)
{
	if (kept_live(tr, to, a, out) < 0)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory for the trace's "
				     "allocations and log");
	return 0;
}

size_t tracer_log(const struct tracer *tr, const struct vms_trace_filter *f,
		  struct vms_trace_event *out, size_t max)
{
	return tracedb_log(tr->p.db, f, out, max);
}

size_t tracer_blocks_in(const struct tracer *tr, uint64_t lo, uint64_t hi,
			struct vms_trace_block *out, size_t max)
{
	return tracedb_blocks_in(tr->p.db, lo, hi, out, max);
}

int tracer_site(struct tracer *tr, uint32_t id, struct arena *a,
		struct vms_trace_site *out)
{
	return tracedb_site(tr->p.db, id, tr->p.sym, a, out);
}

struct tracedb *tracer_db(struct tracer *tr)
{
	return tr->p.db;
}

uint32_t tracer_map_at(const struct tracer *tr, uint64_t lo, uint64_t hi)
{
	return tracedb_map_at(tr->p.db, lo, hi);
}

/* ---- the processes followed (tracer_follow.c's children) ---- */

unsigned tracer_procs(const struct tracer *tr)
{
	return 1 + tr->nkids;
}

void tracer_proc(struct tracer *tr, unsigned i, struct vms_trace_proc *out)
{
	if (i >= 1 && i <= tr->nkids) {
		tracer_follow_proc(tr, i, out);
		return;
	}
	memset(out, 0, sizeof(*out));
	out->pid = tr->p.pid;
	out->ppid = (int32_t)getpid();
	out->how = "launched";
	out->command = tr->p.cmd;
	out->ended = tracer_wait(tr, NULL);
}

int tracer_proc_report(struct tracer *tr, unsigned i, struct arena *a,
		       struct vms_trace_report *out, struct vms_error *err)
{
	if (i >= 1 && i <= tr->nkids)
		return tracer_follow_report(tr, i, a, out, err);
	return tracer_report_kept(tr, tracer_marks(tr) + 1, a, out, err);
}

uint64_t tracer_not_followed(const struct tracer *tr)
{
	return tr->not_followed;
}

bool tracer_all_ended(struct tracer *tr)
{
	return tracer_wait(tr, NULL) && tracer_follow_ended(tr);
}

/* The kernel's trace closed (tracer.h); the rest of it is
 * tracer_kernel.c's. */
void tracer_kernel_close(struct tracer *tr)
{
	struct vms_error ignore;

	if (!tr->kernel)
		return;
	if (!tr->kernel_on) { /* loaded, never armed */
		bpfmaps_free(tr->kernel);
		tr->kernel = NULL;
		return;
	}
	/* the library records the mmap family again (inside its flag: the
	 * kernel's leaves those out), then what the kernel saw up to now is
	 * read, and it is closed */
	__atomic_store_n(&tr->p.hdr->kernel_maps, 0, __ATOMIC_RELEASE);
	tracer_drain(tr, &ignore);
	memset(&tr->kernel_fig, 0, sizeof(tr->kernel_fig));
	bpfmaps_figures(tr->kernel, &tr->kernel_fig);
	bpfmaps_free(tr->kernel);
	tr->kernel = NULL;
	tr->kernel_on = false;
	tr->kernel_done = true;
}
