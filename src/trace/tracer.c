/* tracer.c — tracer.h: the shared file (a memfd, sealed against
 * shrinking: the program cannot make vmscope's reads fault), the launch,
 * and the reading of the rings.
 */
#include "trace/tracer.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/tracewire.h"
#include "linux/spawn.h"
#include "trace/bpfmaps.h"
#include "trace/tracedb.h"
#include "trace/traceprog.h"
#include "trace/tracer_priv.h"
#include "trace/tracesym.h"

/* A ring's place during one reading: its records from tail to head, and
 * whether an event waits at tail (its number seq; its header as advance()
 * checked it: the ring is the program's memory, which may change it
 * before take_event() reads the rest). */
struct ring_pos {
	uint64_t tail, head, seq;
	bool event;
	struct tw_rec rec;
};

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

uint64_t tracer_now(const struct tracer *tr)
{
	return mono_ns() - tr->hdr->start_ns;
}

/* A number that tells this trace from any other (its reports' "run"):
 * the kernel's random bytes, else the clock and the pid mixed. */
static uint64_t run_number(void)
{
	uint64_t r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = mono_ns() * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	return r ? r : 1;
}

int tracer_new(struct tracer **out, const struct tracer_opts *o,
	       struct vms_error *err)
{
	struct tracer *tr = calloc(1, sizeof(*tr));
	struct tw_header *h;

	*out = NULL;
	if (!tr || !(tr->db = tracedb_new())) {
		free(tr);
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory for the trace");
	}
	tr->o = *o;
	tr->run = run_number();
	tr->page = (uint64_t)sysconf(_SC_PAGESIZE);
	tr->sym = tracesym_new(); /* NULL: frames without names */
	tr->fd = memfd_create("vmscope-trace", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (tr->fd < 0 || ftruncate(tr->fd, (off_t)TW_FILE_BYTES) < 0 ||
	    fcntl(tr->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0) {
		vms_error_set(err, VMS_ERR_CAPTURE, errno,
			      "cannot make the trace's shared memory: %s",
			      strerror(errno));
		goto fail;
	}
	h = mmap(NULL, TW_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		 tr->fd, 0);
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
	h->sample_bytes = o->sample_bytes;
	h->start_ns = mono_ns();
	h->seed = o->seed;
	tr->hdr = h;
	*out = tr;
	return 0;
fail:
	if (tr->fd >= 0)
		close(tr->fd);
	tracedb_free(tr->db);
	free(tr);
	return -1;
}

void tracer_free(struct tracer *tr)
{
	unsigned i;

	if (!tr)
		return;
	bpfmaps_free(tr->kernel);
	if (tr->hdr) {
		/* the command runs on untraced */
		__atomic_store_n(&tr->hdr->passthrough, TW_PASS_ENDED,
				 __ATOMIC_RELEASE);
		if (tr->attached) {
			/* a running process keeps the file mapped (its
			 * library is never unloaded): the rings' memory is
			 * given back, the header (pass-through) kept */
			off_t at = (off_t)(tw_ring_at(tr->hdr, 0) -
					   (unsigned char *)tr->hdr);

			at = (at + 4095) & ~(off_t)4095;
			fallocate(tr->fd,
				  FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  at, (off_t)TW_FILE_BYTES - at);
		}
		munmap(tr->hdr, TW_FILE_BYTES);
	}
	close(tr->fd);
	for (i = 0; i < TW_SLOTS; i++)
		free(tr->maps[i]);
	tracedb_free(tr->db);
	tracesym_free(tr->sym);
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
 * close-on-exec) named in VMSCOPE_TRACE_FD, the library preloaded. */
struct child_env {
	int fd;
	const char *preload;
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
	return 0;
}

int tracer_launch(struct tracer *tr, char *const *cmd, pid_t *pid,
		  struct vms_error *err)
{
	char preload[8192];
	struct child_env ce = { tr->fd, preload };
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
	tr->pid = *pid;
	snprintf(tr->cmd, sizeof(tr->cmd), "%s", cmd[0]);
	return 0;
}

int tracer_started(const struct tracer *tr, struct vms_error *err)
{
	/* the library's start (its constructor, before the program's
	 * main) sets traced_pid: 0 once the command ran, nothing was or
	 * will be recorded */
	if (tr->attached ||
	    __atomic_load_n(&tr->hdr->traced_pid, __ATOMIC_ACQUIRE) != 0)
		return 0;
	return vms_error_set(err, VMS_ERR_CAPTURE, 0,
			     "nothing traced: the tracer library never "
			     "started in %s (pid %d), %s: the loader did not "
			     "preload it (the kernel ran the program secure: "
			     "file capabilities, a security module's rule; a "
			     "32-bit program; or VMSCOPE_TRACELIB names no "
			     "tracer library)",
			     tr->cmd, (int)tr->pid,
			     tr->reaped ? "which has ended"
					: "which runs on untraced");
}

bool tracer_wait(struct tracer *tr, int *status)
{
	int st;

	if (!tr->reaped && tr->attached && kill(tr->pid, 0) < 0 &&
	    errno == ESRCH) {
		tr->reaped = true; /* gone; how it ended is not known */
		tr->end_ns = tracer_now(tr);
	}
	if (!tr->reaped && !tr->attached && tr->pid > 0 &&
	    waitpid(tr->pid, &st, WNOHANG) == tr->pid) {
		tr->reaped = true;
		tr->status = st;
		tr->end_ns = tracer_now(tr);
	}
	if (tr->reaped && status)
		*status = tr->status;
	return tr->reaped;
}

int tracer_attached(struct tracer *tr, pid_t pid, char *path, size_t n)
{
	tr->pid = pid;
	tr->attached = true;
	return snprintf(path, n, "/proc/%d/fd/%d", (int)getpid(), tr->fd) <
			       (int)n
		       ? 0
		       : -1;
}

/* ---- the rings ---- */

static struct slot_map *slot_map(struct tracer *tr, unsigned n)
{
	unsigned i;

	if (!tr->maps[n]) {
		tr->maps[n] = malloc(sizeof(*tr->maps[n]));
		if (!tr->maps[n])
			return NULL;
		for (i = 0; i < TW_STACK_IDS; i++)
			tr->maps[n]->stack[i] = -1;
	}
	return tr->maps[n];
}

static uint64_t since_start(const struct tracer *tr, uint64_t t)
{
	return t > tr->hdr->start_ns ? t - tr->hdr->start_ns : 0;
}

/* The stack of an event, or -1 when the thread never sent that id. */
static int64_t stack_of(struct slot_map *m, const struct tw_rec *r)
{
	return r->arg < TW_STACK_IDS ? m->stack[r->arg] : -1;
}

/* A block recorded by sampling: taken with probability
 * 1 - exp(-size / mean), so it stands for the inverse of that in blocks
 * and bytes. */
static int sampled(struct tracer *tr, uint32_t st, const uint64_t *w)
{
	double p = -expm1(-(double)w[2] / (double)tr->hdr->sample_bytes);
	double n = p > 0 ? 1 / p : 1;

	return tracedb_alloc_weighed(tr->db, VMS_TRACE_HEAP, st, w[1], w[2],
				     (uint32_t)(n * 1024 + 0.5),
				     (uint64_t)((double)w[2] * n + 0.5),
				     since_start(tr, w[0]));
}

/* A module the program named: its file, for its symbols, when it is a
 * regular file (the path is the program's to choose: a FIFO or a device
 * there is never opened for reading, nor waited on). */
static void module_file(struct tracer *tr, const char *path, uint64_t bias)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return; /* its frames stay unnamed */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	tracesym_module_fd(tr->sym, path, fd, bias);
}

/* The kernel rounds a length up to pages. */
static uint64_t pages(const struct tracer *tr, uint64_t len)
{
	return (len + tr->page - 1) & ~(tr->page - 1);
}

/* mprotect (tracedb.h): to PROT_NONE, the commits there end; to access,
 * the reserved pages in it are committed by its stack. As take(). */
static int protect(struct tracer *tr, struct slot_map *m,
		   const struct tw_rec *r, const uint64_t *w)
{
	uint64_t len = pages(tr, w[2]), t = since_start(tr, w[0]);
	int64_t st;

	if (!w[3])
		return tracedb_protect(tr->db, 0, w[1], len, true, t) < 0 ? -1
									  : 1;
	if (!tracedb_reserved_in(tr->db, w[1], len))
		return 1;
	if ((st = stack_of(m, r)) < 0)
		return 0;
	return tracedb_protect(tr->db, (uint32_t)st, w[1], len, false, t) < 0
		       ? -1
		       : 1;
}

/* One record, checked. 1 used, 0 refused (bad), -1 out of memory. */
static int take(struct tracer *tr, struct slot_map *m, const struct tw_rec *r,
		const uint64_t *w)
{
	int64_t st;
	unsigned i;

	switch (r->op) {
	case TW_OP_THREAD:
	case TW_OP_STACK_RESET:
		for (i = 0; i < TW_STACK_IDS; i++)
			m->stack[i] = -1;
		return 1;
	case TW_OP_MODULE: {
		const char *path = (const char *)&w[1];
		size_t room = (r->words - 2u) * 8u;

		if (r->words < 3 || !memchr(path, '\0', room))
			return 0;
		if (tr->sym)
			module_file(tr, path, w[0]);
		return 1;
	}
	case TW_OP_STACK:
		if (r->arg >= TW_STACK_IDS || r->words - 1u > TW_MAX_FRAMES)
			return 0;
		st = tracedb_stack(tr->db, w, r->words - 1u);
		if (st < 0)
			return -1;
		m->stack[r->arg] = st;
		return 1;
	default:
		break;
	}
	if (r->words != TW_EVENT_WORDS(r->op) || r->op >= TW_OP_COUNT)
		return 0;
	switch (r->op) {
	case TW_OP_FREE:
		tracedb_free_heap(tr->db, w[1], since_start(tr, w[0]));
		return 1;
	case TW_OP_MUNMAP:
		return tracedb_unmap(tr->db, w[1], w[2],
				     since_start(tr, w[0])) < 0
			       ? -1
			       : 1;
	default:
		break;
	}
	if (r->op == TW_OP_REALLOC && !w[1]) { /* no new block */
		if (!w[2]) /* realloc(old, 0): old freed */
			tracedb_free_heap(tr->db, w[3], since_start(tr, w[0]));
		return 1; /* else it failed: old is as it was */
	}
	if (r->op == TW_OP_MREMAP && !w[1])
		return 1; /* it failed */
	if (r->op == TW_OP_MPROTECT) /* commits of reserved pages */
		return protect(tr, m, r, w);
	if ((st = stack_of(m, r)) < 0)
		return 0;
	switch (r->op) {
	case TW_OP_MALLOC:
		if ((r->flags & TW_F_SAMPLED) && tr->hdr->sample_bytes)
			return sampled(tr, (uint32_t)st, w) < 0 ? -1 : 1;
		return tracedb_alloc(tr->db, VMS_TRACE_HEAP, (uint32_t)st, w[1],
				     w[2], since_start(tr, w[0])) < 0
			       ? -1
			       : 1;
	case TW_OP_REALLOC: /* the old block freed, a new one made */
		tracedb_free_heap(tr->db, w[3], since_start(tr, w[0]));
		return tracedb_alloc(tr->db, VMS_TRACE_HEAP, (uint32_t)st, w[1],
				     w[2], since_start(tr, w[0])) < 0
			       ? -1
			       : 1;
	case TW_OP_MMAP: /* PROT_NONE: reserved pages (tracedb.h) */
		if (tracedb_reserved(tr->db, w[1], pages(tr, w[2]),
				     !(w[3] & 0xff)) < 0)
			return -1;
		return tracedb_alloc(tr->db, VMS_TRACE_MMAP, (uint32_t)st, w[1],
				     w[2], since_start(tr, w[0])) < 0
			       ? -1
			       : 1;
	case TW_OP_MREMAP:
		if (tracedb_unmap(tr->db, w[3], w[4], since_start(tr, w[0])) <
			    0 ||
		    tracedb_reserved(tr->db, w[1], pages(tr, w[2]), false) < 0)
			return -1;
		return tracedb_alloc(tr->db, VMS_TRACE_MMAP, (uint32_t)st, w[1],
				     w[2], since_start(tr, w[0])) < 0
			       ? -1
			       : 1;
	case TW_OP_BRK:
		if ((int64_t)w[2] < 0) /* shrunk */
			return tracedb_unmap(tr->db, w[1] + w[2], -w[2],
					     since_start(tr, w[0])) < 0
				       ? -1
				       : 1;
		return tracedb_alloc(tr->db, VMS_TRACE_BRK, (uint32_t)st, w[1],
				     w[2], since_start(tr, w[0])) < 0
			       ? -1
			       : 1;
	default:
		return 0;
	}
}

/* Takes ring n's records from p->tail up to its next event: what is not
 * an event (a stack, a module, the thread's start) is taken at once, and
 * p->event says whether an event waits at p->tail. -1: out of memory. */
static int advance(struct tracer *tr, unsigned n, struct ring_pos *p, long *got)
{
	const unsigned char *ring = tw_ring_at(tr->hdr, n);
	struct slot_map *m = slot_map(tr, n);

	p->event = false;
	if (!m)
		return -1;
	while (p->tail < p->head) {
		uint64_t at = p->tail % TW_RING_BYTES,
			 w[256]; /* words: 255 at most */
		struct tw_rec r;
		uint64_t bytes;
		int rc;

		memcpy(&r, ring + at, sizeof(r));
		if (r.op == TW_OP_PAD && r.words == 0) {
			p->tail += TW_RING_BYTES - at;
			continue;
		}
		bytes = (uint64_t)r.words * 8;
		if (!r.words || bytes > p->head - p->tail ||
		    at + bytes > TW_RING_BYTES) {
			tr->bad++; /* a ring that breaks the rules: skipped */
			p->tail = p->head;
			break;
		}
		if (r.op < TW_OP_COUNT && TW_EVENT_WORDS(r.op)) {
			if (r.words == TW_EVENT_WORDS(r.op)) {
				memcpy(&p->seq, ring + at + 16, 8);
				p->rec = r;
				p->event = true;
				return 0;
			}
			tr->bad++;
		} else {
			memcpy(w, ring + at + 8, bytes - 8);
			if ((rc = take(tr, m, &r, w)) < 0)
				return -1;
			tr->bad += rc == 0;
			++*got;
		}
		p->tail += bytes;
	}
	return 0;
}

/* Takes the event at p->tail: take() sees its time then its fields (the
 * number is the merge's). */
static int take_event(struct tracer *tr, unsigned n, struct ring_pos *p)
{
	const unsigned char *ring = tw_ring_at(tr->hdr, n);
	uint64_t at = p->tail % TW_RING_BYTES, w[8];
	struct tw_rec r = p->rec; /* as checked, whatever the ring says now */
	int rc;

	_Static_assert(sizeof(w) >= 7 * 8, "the longest event (mremap: 7 "
					   "words), the time twice");
	memcpy(w, ring + at + 8, (size_t)r.words * 8 - 8);
	w[1] = w[0]; /* the time, just before the fields */
	tracedb_thread(tr->db, tw_slot_at(tr->hdr, n)->tid);
	if ((rc = take(tr, tr->maps[n], &r, w + 1)) < 0)
		return -1;
	tr->bad += rc == 0;
	if (p->seq >= tr->next_seq)
		tr->next_seq = p->seq + 1;
	p->tail += (uint64_t)r.words * 8;
	return 0;
}

/* Whether the merge may pass over the numbers from next_seq up to seq:
 * when the program has ended (they will never be written), or after
 * TW_WAIT_NS of waiting for the same one (a thread stopped inside its
 * call, or a ring broken). */
static bool pass_over(struct tracer *tr, uint64_t seq)
{
	uint64_t t = mono_ns();

	if (!tr->reaped) {
		if (tr->stall_seq != tr->next_seq || !tr->stall_ns) {
			tr->stall_seq = tr->next_seq;
			tr->stall_ns = t;
			return false;
		}
		if (t - tr->stall_ns < TW_WAIT_NS)
			return false;
	}
	tr->bad += seq - tr->next_seq; /* events never written */
	tr->next_seq = seq;
	tr->stall_ns = 0;
	return true;
}

long tracer_drain(struct tracer *tr, struct vms_error *err)
{
	struct ring_pos pos[TW_SLOTS];
	unsigned live[TW_SLOTS], nlive = 0, i, k;
	uint32_t state[TW_SLOTS];
	long got = 0, kn;

	/* every ring's records up to the head it has now, ... */
	for (i = 0; i < TW_SLOTS; i++) {
		struct tw_slot *sl = tw_slot_at(tr->hdr, i);
		struct ring_pos *p = &pos[i];

		state[i] = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE);
		if (state[i] == TW_SLOT_FREE)
			continue;
		p->head = __atomic_load_n(&sl->head, __ATOMIC_ACQUIRE);
		p->tail = sl->tail;
		if (p->head - p->tail > TW_RING_BYTES ||
		    (p->head | p->tail) % 8) {
			tr->bad++; /* a ring that breaks the rules: skipped */
			p->tail = p->head;
		}
		if (advance(tr, i, p, &got) < 0)
			goto nomem;
		live[nlive++] = i;
	}
	/* ... its events taken in the order of their numbers */
	for (;;) {
		struct ring_pos *b = NULL;
		unsigned bn = 0;

		for (k = 0; k < nlive; k++) {
			struct ring_pos *p = &pos[live[k]];

			if (p->event && (!b || p->seq < b->seq)) {
				b = p;
				bn = live[k];
			}
		}
		if (!b || (b->seq > tr->next_seq && !pass_over(tr, b->seq)))
			break;
		/* the same thread's next numbers without looking again */
		do {
			if (take_event(tr, bn, b) < 0 ||
			    advance(tr, bn, b, &got) < 0)
				goto nomem;
			got++;
		} while (b->event && b->seq == tr->next_seq);
	}
	for (k = 0; k < nlive; k++) {
		struct tw_slot *sl = tw_slot_at(tr->hdr, live[k]);

		__atomic_store_n(&sl->tail, pos[live[k]].tail,
				 __ATOMIC_RELEASE);
		/* a finished thread's ring, read to its end, is free again */
		if (state[live[k]] == TW_SLOT_DONE &&
		    pos[live[k]].tail == pos[live[k]].head)
			__atomic_store_n(&sl->state, TW_SLOT_FREE,
					 __ATOMIC_RELEASE);
	}
	__atomic_add_fetch(&tr->hdr->heartbeat, 1, __ATOMIC_RELEASE);
	/* then the kernel's (tracer.h: the order of the two) */
	kn = tracer_kernel_drain(tr, err);
	return kn < 0 ? -1 : got + kn;
nomem:
	for (k = 0; k < nlive; k++)
		__atomic_store_n(&tw_slot_at(tr->hdr, live[k])->tail,
				 pos[live[k]].tail, __ATOMIC_RELEASE);
	return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
			     "out of memory reading the trace");
}

int tracer_mark(struct tracer *tr)
{
	return tracedb_mark(tr->db, tracer_now(tr));
}

unsigned tracer_marks(const struct tracer *tr)
{
	return tracedb_marks(tr->db);
}

uint64_t tracer_bad(const struct tracer *tr)
{
	return tr->bad;
}

int tracer_report(struct tracer *tr, unsigned from, unsigned to,
		  struct arena *a, struct vms_trace_report *out,
		  struct vms_error *err)
{
	return tracer_report_in(tr, from, to, 0, 0, a, out, err);
}

/* The trace-wide figures of a report (its sites made). */
static void report_fields(struct tracer *tr, struct vms_trace_report *out)
{
	out->run = tr->run;
	out->sample_bytes = tr->hdr->sample_bytes;
	out->sampled = out->sample_bytes != 0;
	out->attached = tr->attached;
	out->dropped = __atomic_load_n(&tr->hdr->dropped, __ATOMIC_ACQUIRE);
	out->dropped_bytes =
		__atomic_load_n(&tr->hdr->dropped_bytes, __ATOMIC_ACQUIRE);
	out->ended = tr->reaped;
	out->exit_status = tr->status;
	out->bad_records = tr->bad;
	tracer_kernel_figures(tr, out);
}

int tracer_report_in(struct tracer *tr, unsigned from, unsigned to, uint64_t lo,
		     uint64_t hi, struct arena *a, struct vms_trace_report *out,
		     struct vms_error *err)
{
	memset(out, 0, sizeof(*out));
	if (tracedb_report_in(tr->db, from, to, lo, hi,
			      tr->reaped ? tr->end_ns : tracer_now(tr), tr->sym,
			      a, out) < 0)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory for the trace report");
	report_fields(tr, out);
	return 0;
}

int tracer_report_kept(struct tracer *tr, unsigned to, struct arena *a,
		       struct vms_trace_report *out, struct vms_error *err)
{
	memset(out, 0, sizeof(*out));
	if (tracedb_report_kept(tr->db, to,
				tr->reaped ? tr->end_ns : tracer_now(tr),
				tr->sym, a, out) < 0)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory for the trace report");
	report_fields(tr, out);
	return 0;
}

size_t tracer_log(const struct tracer *tr, const struct tracedb_filter *f,
		  struct vms_trace_event *out, size_t max)
{
	return tracedb_log(tr->db, f, out, max);
}

size_t tracer_blocks_in(const struct tracer *tr, uint64_t lo, uint64_t hi,
			struct vms_trace_block *out, size_t max)
{
	return tracedb_blocks_in(tr->db, lo, hi, out, max);
}

int tracer_site(struct tracer *tr, uint32_t id, struct arena *a,
		struct vms_trace_site *out)
{
	return tracedb_site(tr->db, id, tr->sym, a, out);
}

struct tracedb *tracer_db(struct tracer *tr)
{
	return tr->db;
}

uint32_t tracer_map_at(const struct tracer *tr, uint64_t lo, uint64_t hi)
{
	return tracedb_map_at(tr->db, lo, hi);
}

/* The kernel's trace closed (tracer.h); the rest of it is
 * tracer_kernel.c's. */
void tracer_kernel_close(struct tracer *tr)
{
	struct vms_error ignore;

	if (!tr->kernel)
		return;
	if (!tr->kernel_on) { /* loaded, never attached */
		bpfmaps_free(tr->kernel);
		tr->kernel = NULL;
		return;
	}
	/* the library records the mmap family again (inside its flag: the
	 * kernel's leaves those out), then what the kernel saw up to now is
	 * read, and it is closed */
	__atomic_store_n(&tr->hdr->kernel_maps, 0, __ATOMIC_RELEASE);
	tracer_drain(tr, &ignore);
	memset(&tr->kernel_fig, 0, sizeof(tr->kernel_fig));
	bpfmaps_figures(tr->kernel, &tr->kernel_fig);
	bpfmaps_free(tr->kernel);
	tr->kernel = NULL;
	tr->kernel_on = false;
	tr->kernel_done = true;
}
