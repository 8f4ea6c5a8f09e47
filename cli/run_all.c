/* run_all.c — vmscope --all -e openmetrics: every process it may read (or
 * those named by -n NAME, by PIDs, or under a cgroup path) in one
 * OpenMetrics exposition (export_openmetrics.h), for node_exporter's
 * textfile collector (dist/vmscope-textfile.service).
 *
 * The default sampler only (pss: nothing is stopped, nothing traced).
 * Kernel threads and zombies (no address space) and vmscope itself are
 * not processes to look at and are left out (named by PID or -n NAME, a
 * kernel thread or zombie is counted, reason no_memory); a process whose
 * main thread exited while others run on is read through a live thread.
 * Every other process asked for is either in
 * the exposition or counted in vmscope_unread_processes{reason}: never
 * dropped silently. --top=N keeps the N largest by PSS and sums the rest
 * per comm (pid="other", heap figures included), bounding the labels'
 * cardinality. Each capture is a lean one (sampler.h) sharing one cache
 * of the mapped ELF files (elf/elfcache.h): the glibc heaps walked twice
 * while the target runs, kept where both walks agree. A second thread
 * reads ahead, in order and at most AHEAD processes ahead, what comes
 * before each capture (a pidfd, stat, cgroup, the first chunk of smaps:
 * early_read) while this thread captures the process before: the
 * kernel's making of smaps, most of a small process's cost, overlaps
 * the rest of the work.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/outbuf.h"
#include "cli.h"
#include "elf/elfcache.h"
#include "export/export_openmetrics.h"
#include "linux/cgroup.h"
#include "linux/procfs.h"
#include "linux/readahead.h"
#include "pipeline.h"
#include "run_all.h"

/* Why a process asked for is not in the exposition (the reason label);
 * no_memory: a kernel thread or zombie named by PID or -n NAME. */
enum unread { UR_GONE, UR_PERM, UR_FAILED, UR_NOMEM, UR_N };
static const char *const unread_name[UR_N] = { "exited", "permission",
					       "capture_failed", "no_memory" };

int cli_all_check(const struct args *a)
{
	int i;

	if (!a->all)
		return a->top ? cli_usage_error("%s", "--top goes with --all")
			      : -1;
	if (!a->export || strcmp(a->export, "openmetrics") != 0)
		return cli_usage_error("%s", "--all writes one exposition of "
					     "many processes: -e openmetrics");
	if (a->summary || a->save || a->load || a->diff || a->trace ||
	    a->watch || a->cmd)
		return cli_usage_error("%s",
				       "--all takes -e openmetrics, -o FILE, "
				       "-n NAME, --top=N and PIDs or one "
				       "cgroup path");
	if (strcmp(a->backend, "pss") != 0 || a->freeze)
		return cli_usage_error("%s", "--all reads every process with "
					     "the default sampler (nothing "
					     "stopped): no -b or -F");
	for (i = 0; i < a->noperands; i++) {
		pid_t pid;

		if (a->operands[i][0] == '/') {
			if (a->noperands > 1 || a->name)
				return cli_usage_error(
					"%s", "--all takes PIDs or one "
					      "cgroup path, and -n NAME "
					      "with neither");
		} else if (cli_parse_pid(a->operands[i], &pid) < 0) {
			return cli_usage_error("not a process id or a cgroup "
					       "path: %s",
					       a->operands[i]);
		}
	}
	if (a->name && a->noperands)
		return cli_usage_error("%s", "--all takes PIDs or one cgroup "
					     "path, and -n NAME with neither");
	return -1;
}

/* Whether path is under (or is) top; top already without a trailing /. */
static bool under(const char *path, const char *top)
{
	size_t n = strlen(top);

	return n == 0 || (strncmp(path, top, n) == 0 &&
			  (path[n] == '\0' || path[n] == '/'));
}

struct all_run {
	struct om_proc *v;
	size_t n, cap;
	unsigned long unread[UR_N];
	/* the mapped ELF files, read once for every process of the run
	 * (NULL: each capture reads its own) */
	struct elfcache *elf;
	uint64_t mmap_min_addr; /* read once for the run */
	pid_t self;
};

static int add(struct all_run *r, const struct vms_snapshot *s, const char *cg)
{
	struct om_proc *p;
	char unit[sizeof(p->unit)];
	size_t len;
	const char *u = cgroup_unit(cg, &len);

	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		void *v = realloc(r->v, cap * sizeof(*r->v));

		if (!v)
			return -1;
		r->v = v;
		r->cap = cap;
	}
	p = &r->v[r->n++];
	snprintf(unit, sizeof(unit), "%.*s", (int)len, u);
	om_proc_of(p, s, unit);
	return 0;
}

/* One process as the reader ahead (below) finds it, before its capture:
 * whether it is one to capture, and what was read of it for the capture
 * (sampler.h, vms_proc_seen), held until one() is done with it. */
struct early {
	pid_t pid;
	bool asked; /* named by PID or -n NAME: counted when not read */
	enum { E_SKIP, E_GONE, E_HIDDEN, E_NOMEM, E_READ } what;
	int pidfd;
	char state; /* 0: stat said no state, the capture reads its own */
	char comm[64];
	char cg[1024];
	pid_t mm;
	int smaps_fd;
	struct readahead *smaps;
};

/* What one() needs of t's process, read in this order: a pidfd first
 * (what is read after it, while the process is not reaped, is that
 * process's: the capture checks at its end), stat, cgroup, then its smaps
 * opened and its first chunk read (as the capture would next). A kernel
 * thread not asked for is left out by its exe alone (it has none: ENOENT,
 * 3 us where a pidfd and stat took 14; a process whose exe cannot be
 * read otherwise goes on as any). Any thread. */
static void early_read(struct early *e, const struct todo *t,
		       const char *top_cg, pid_t self)
{
	char buf[4096], path[128];
	pid_t pid = t->pid;

	e->pid = pid;
	e->asked = t->asked;
	e->what = E_SKIP;
	e->pidfd = e->smaps_fd = -1;
	e->state = 0;
	e->comm[0] = e->cg[0] = '\0';
	e->mm = 0;
	e->smaps = NULL;
	if (pid == self)
		return;
	if (t->kthread && !t->asked) {
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
		if (readlink(path, buf, sizeof(buf)) < 0 && errno == ENOENT)
			return;
	}
	e->pidfd = procfs_pidfd_open(pid);
	if ((e->pidfd < 0 && errno == ESRCH) ||
	    all_read_small(pid, "stat", buf, sizeof(buf)) < 0) {
		/* a process that is there (its pidfd not reaped) and has no
		 * /proc/PID: /proc mounted hidepid=2 hides it from this
		 * user, as a refusal would (procfs_errno_error says so) */
		e->what = e->pidfd >= 0 && !procfs_pidfd_reaped(e->pidfd) &&
					  procfs_pid_hidden(pid)
				  ? E_HIDDEN
				  : E_GONE;
		return;
	}
	if (all_stat_no_memory(buf)) {
		e->what = E_NOMEM;
		return;
	}
	e->state = procfs_stat_state(buf, e->comm, sizeof(e->comm));
	if (e->state == 't' && procfs_vmscope_clone(pid)) {
		e->what = E_SKIP; /* a -b fork viewer's clone: not a process
				   * of the host's, its pages its target's */
		return;
	}
	if (all_read_small(pid, "cgroup", buf, sizeof(buf)) >= 0)
		cgroup_v2_of_proc(buf, e->cg, sizeof(e->cg));
	if (top_cg && !under(e->cg, top_cg))
		return;
	e->what = E_READ;
	if (!e->state)
		return;
	/* Not opened, or no reader: the capture opens it and says why. */
	e->mm = procfs_mm_pid_in(pid, e->state);
	procfs_mm_path_of(pid, e->mm, "smaps", path, sizeof(path));
	if ((e->smaps_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	if ((e->smaps = readahead_start_inline(e->smaps_fd)))
		readahead_prime(e->smaps);
}

static void early_release(struct early *e)
{
	readahead_stop(e->smaps);
	e->smaps = NULL;
	if (e->smaps_fd >= 0)
		close(e->smaps_fd);
	if (e->pidfd >= 0)
		close(e->pidfd);
	e->smaps_fd = e->pidfd = -1;
}

/* One process: read into r, or counted with its reason; e released. */
static int one(struct all_run *r, struct early *e)
{
	struct vms_capture_opts co = { .pid = e->pid,
				       .elfcache = r->elf,
				       .lean = true,
				       .mmap_min_addr = r->mmap_min_addr };
	struct vms_error err = { 0 };
	struct vms_snapshot *s;
	struct vms_proc_seen seen = { .pidfd = e->pidfd,
				      .state = e->state,
				      .comm = e->comm,
				      .mm = e->mm,
				      .smaps = e->smaps };
	int rc;

	if (e->what != E_READ) {
		if (e->asked && e->what != E_SKIP)
			r->unread[e->what == E_GONE	? UR_GONE
				  : e->what == E_HIDDEN ? UR_PERM
							: UR_NOMEM]++;
		early_release(e);
		return 0;
	}
	co.seen = seen.state ? &seen : NULL;
	s = vms_capture(&vms_sampler_pss, &co, &err);
	/* no file of it held open past its capture: a mount held is busy */
	elfcache_drop_fds(r->elf);
	early_release(e);
	if (!s) {
		/* gone before its capture, or during it (the capture's
		 * "exited during capture": a text ended early, a file of it
		 * gone, its pidfd reaped) */
		r->unread[vms_error_gone(&err)	     ? UR_GONE
			  : err.kind == VMS_ERR_PERM ? UR_PERM
						     : UR_FAILED]++;
		return 0;
	}
	rc = add(r, s, e->cg);
	vms_snapshot_free(s);
	return rc;
}

/* Processes read ahead at most: each holds a pidfd, its smaps open and a
 * chunk of it (up to 256 KiB, readahead.h). The reader, when the ring is
 * full, waits for BATCH slots taken: one wakeup for BATCH processes, not
 * one a process (the two threads swapped places on one CPU 1,000 times
 * over 500 processes, 9% of the run's CPU time). */
#define AHEAD 8
#define BATCH (AHEAD / 2)

/* The reader ahead: a second thread reads the processes' pidfd, stat,
 * cgroup and first chunk of smaps (early_read) from the front of the
 * list, while this one captures them in that order: the kernel's making
 * of smaps, most of a small process's capture, runs beside the rest of
 * the one before (its status, threads, heap walk, steps). When none is
 * ready, this thread takes one from the back of the list and reads it
 * whole itself, so it never idles while processes are left (the reader
 * waits only with its ring full; the exposition is sorted after: the
 * order of the captures is not in it). */
struct ahead {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	const struct todo *todo;
	size_t head, tail; /* todo[head, tail): claimed by neither thread */
	const char *top_cg;
	pid_t self;
	struct early slot[AHEAD];
	size_t filled, taken; /* slots (mod AHEAD) [taken, filled) ready */
	size_t room; /* a full reader waits until taken reaches it */
	bool done; /* the reader claims no more */
	bool stop; /* out of memory: the reader stops */
};

static void *ahead_run(void *arg)
{
	struct ahead *a = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&a->lock);
		if (!a->stop && a->filled - a->taken >= AHEAD) {
			a->room = a->filled - AHEAD + BATCH;
			while (!a->stop && a->taken < a->room)
				pthread_cond_wait(&a->cond, &a->lock);
		}
		if (a->stop || a->head == a->tail) {
			a->done = true;
			pthread_cond_broadcast(&a->cond);
			pthread_mutex_unlock(&a->lock);
			return NULL;
		}
		i = a->head++;
		pthread_mutex_unlock(&a->lock);
		/* filled is this thread's to change: read without the lock */
		early_read(&a->slot[a->filled % AHEAD], &a->todo[i], a->top_cg,
			   a->self);
		pthread_mutex_lock(&a->lock);
		a->filled++;
		pthread_cond_broadcast(&a->cond);
		pthread_mutex_unlock(&a->lock);
	}
}

/* Every process of todo captured into r (or counted): -1 when out of
 * memory. On one thread where a second cannot be had, or there is one
 * process. */
static int run_todo(struct all_run *r, const struct todo *todo, size_t n,
		    const char *top_cg)
{
	struct ahead a = {
		.todo = todo, .tail = n, .top_cg = top_cg, .self = r->self
	};
	struct early mine;
	pthread_t t;
	bool threaded = false;
	size_t i;
	int rc = 0;

	if (n > 1) {
		pthread_mutex_init(&a.lock, NULL);
		pthread_cond_init(&a.cond, NULL);
		threaded = pthread_create(&t, NULL, ahead_run, &a) == 0;
		if (!threaded) {
			pthread_mutex_destroy(&a.lock);
			pthread_cond_destroy(&a.cond);
		}
	}
	if (!threaded) {
		for (i = 0; i < n && rc == 0; i++) {
			early_read(&mine, &todo[i], top_cg, r->self);
			rc = one(r, &mine);
		}
		return rc;
	}
	pthread_mutex_lock(&a.lock);
	while (rc == 0) {
		if (a.taken < a.filled) {
			struct early *e = &a.slot[a.taken % AHEAD];

			pthread_mutex_unlock(&a.lock);
			rc = one(r, e);
			pthread_mutex_lock(&a.lock);
			a.taken++;
			if (a.taken >= a.room)
				pthread_cond_broadcast(&a.cond);
		} else if (a.head < a.tail) {
			i = --a.tail; /* none ready: one from the back */
			pthread_mutex_unlock(&a.lock);
			early_read(&mine, &todo[i], top_cg, r->self);
			rc = one(r, &mine);
			pthread_mutex_lock(&a.lock);
		} else if (a.done) {
			break;
		} else {
			pthread_cond_wait(&a.cond, &a.lock);
		}
	}
	if (rc < 0) {
		a.stop = true;
		pthread_cond_broadcast(&a.cond);
	}
	pthread_mutex_unlock(&a.lock);
	pthread_join(t, NULL);
	for (i = a.taken; i < a.filled; i++) /* read, never taken */
		early_release(&a.slot[i % AHEAD]);
	pthread_mutex_destroy(&a.lock);
	pthread_cond_destroy(&a.cond);
	return rc;
}

static int by_pss(const void *a, const void *b)
{
	const struct om_proc *x = a, *y = b;

	return x->pss < y->pss ? 1 : x->pss > y->pss ? -1 : x->pid - y->pid;
}

static int by_comm(const void *a, const void *b)
{
	return strcmp(((const struct om_proc *)a)->comm,
		      ((const struct om_proc *)b)->comm);
}

static void sum_into(struct om_proc *to, const struct om_proc *p)
{
	size_t t;

	for (t = 0; t < VMS_NTYPES; t++) {
		struct vms_totals *a = &to->types[t];
		const struct vms_totals *b = &p->types[t];

		a->size += b->size;
		a->committed += b->committed;
		a->private_bytes += b->private_bytes;
		a->ws += b->ws;
		a->private_ws += b->private_ws;
		a->shareable_ws += b->shareable_ws;
		a->shared_ws += b->shared_ws;
		a->locked_ws += b->locked_ws;
		a->pss += b->pss;
		a->uss += b->uss;
		a->swap += b->swap;
		a->blocks += b->blocks;
		if (b->largest > a->largest)
			a->largest = b->largest;
		to->known[t] &= p->known[t];
	}
	to->pss += p->pss;
	to->nproc += p->nproc;
	om_kinds_add(to->heap, p->heap);
	om_kinds_add(to->managed, p->managed);
}

/* --top=N: the N largest by PSS kept, the rest summed per comm into rows
 * of pid 0, after them, in comm order. */
static void keep_top(struct all_run *r, size_t top)
{
	size_t i, w;

	if (r->n <= 1) /* r->v may be NULL: nothing to order */
		return;
	qsort(r->v, r->n, sizeof(*r->v), by_pss);
	if (r->n <= top)
		return;
	qsort(r->v + top, r->n - top, sizeof(*r->v), by_comm);
	for (i = top, w = top; i < r->n; i++) {
		if (w > top && strcmp(r->v[w - 1].comm, r->v[i].comm) == 0) {
			sum_into(&r->v[w - 1], &r->v[i]);
			continue;
		}
		r->v[w] = r->v[i];
		r->v[w].pid = 0;
		r->v[w].unit[0] = '\0';
		w++;
	}
	r->n = w;
}

static void write_out(struct all_run *r, struct outbuf *o)
{
	struct om_unread u[UR_N];
	size_t i;

	for (i = 0; i < UR_N; i++) {
		u[i].reason = unread_name[i];
		u[i].n = r->unread[i];
	}
	export_openmetrics_all(r->v, r->n, u, UR_N, o);
}

/* Whether what a names matched no process: a NAME or a cgroup that holds
 * none, or PIDs none of which runs (a kernel thread's or a zombie's PID
 * matches one, counted no_memory). Only the whole host may hold nothing
 * to read (vmscope alone in its pid namespace). */
static bool nothing_matched(const struct args *a, const char *cg,
			    const struct all_run *r, size_t n)
{
	if (n == 0)
		return true;
	if (r->n || r->unread[UR_PERM] || r->unread[UR_FAILED])
		return false;
	if (a->name || cg)
		return true;
	return a->noperands && !r->unread[UR_NOMEM];
}

/* Reads what a asks for into r, and writes it into o: an exit status. */
static int all_in(const struct args *a, struct all_run *r, struct outbuf *o)
{
	char top_cg[1024];
	const char *cg = NULL;
	struct todo *todo;
	size_t n;
	int rc;

	if (a->noperands == 1 && a->operands[0][0] == '/') {
		if (all_top_cgroup(a->operands[0], top_cg, sizeof(top_cg)) < 0)
			return cli_usage_error("cgroup path too long: %s",
					       a->operands[0]);
		cg = top_cg;
	}
	rc = all_todo_of(a, cg, &todo, &n);
	if (rc == 0)
		rc = run_todo(r, todo, n, cg);
	free(todo);
	if (rc < 0) {
		fputs("vmscope: out of memory\n", stderr);
		return 3;
	}
	if (rc > 0)
		return rc;
	if (nothing_matched(a, cg, r, n)) {
		fputs("vmscope: no process matches", stderr);
		if (a->name) {
			fputs(" the name ", stderr);
			cli_put_safe(stderr, a->name);
		} else if (a->noperands && !cg) {
			fputs(a->noperands > 1 ? " the PIDs" : " the PID",
			      stderr);
			for (int i = 0; i < a->noperands; i++) {
				fputc(' ', stderr);
				cli_put_safe(stderr, a->operands[i]);
			}
		}
		fputc('\n', stderr);
		return 2;
	}
	if (a->top)
		keep_top(r, (size_t)a->top);
	else if (r->n > 1) /* r->v is NULL when nothing was read */
		qsort(r->v, r->n, sizeof(*r->v), by_pss);
	write_out(r, o);
	return 0;
}

int cli_all(const struct args *a)
{
	struct all_run r = { 0 };
	struct vms_error err = { 0 };
	struct outbuf o;
	int rc;

	/* the output first: one that cannot be written (a textfile
	 * directory missing) is said before any process is read; it is put
	 * in place only whole, and nothing is left where the run fails */
	if (cli_open_output(&o, a->output, &err) < 0)
		return cli_fail(&err);
	/* A snapshot made and freed a process: the heap is not given back
	 * and grown again each time (brk calls were 7% of a run). */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	r.elf = elfcache_new(); /* without it, each capture reads its own */
	r.mmap_min_addr = procfs_mmap_min_addr();
	r.self = getpid();
	rc = all_in(a, &r, &o);
	elfcache_free(r.elf);
	free(r.v);
	if (rc) {
		outbuf_abort(&o);
		return rc;
	}
	switch (outbuf_close(&o, &err)) {
	case 0:
		return 0;
	case 1: /* written in place: said, not an error */
		cli_fail(&err);
		return 0;
	default:
		return cli_fail(&err);
	}
}
