#include "capture/sampler_common.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/bigmem.h"
#include "capture/sampler.h"
#include "linux/procfs.h"
#include "linux/readahead.h"
#include "linux/smaps.h"
#include "model/totals.h"

static int read_error(struct vms_error *err, pid_t pid, const char *name, int e)
{
	/* ESRCH whatever the read said: the error of a process gone */
	if (e == ESRCH || !procfs_pid_exists(pid))
		return vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,
				     "process %d exited during capture",
				     (int)pid);
	return procfs_errno_error(err, pid, name, e);
}

/* The kernel's smaps_rollup (a second walk of every page table: ~20 ms
 * at 65,000 regions), read on a thread of its own while the reader thread
 * reads smaps and this one parses it: within the same freeze when frozen,
 * and off the parse's path. Read and parsed here (procfs_rollup_parse),
 * not through libproc2, whose select reads stat, status and uptime
 * besides: 3.3 ms inside the fork sampler's freeze of a 1 GiB THP target
 * whose own fork takes 1.5 ms. Of a live thread when the main thread has
 * exited. */
struct rollup_read {
	char path[128];
	struct vms_rollup r; /* valid false: unreadable (a check, no error) */
	pthread_t thread;
	bool threaded;
	/* rollup_start_held: the thread made, its read when released */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool held;
	bool cancel; /* let go unread (a prep not used) */
};

static void *rollup_run(void *arg)
{
	struct rollup_read *rr = arg;
	char *b;
	size_t n;

	pthread_mutex_lock(&rr->lock);
	while (rr->held)
		pthread_cond_wait(&rr->cond, &rr->lock);
	pthread_mutex_unlock(&rr->lock);
	rr->r.valid = false;
	if (rr->cancel)
		return NULL;
	if (procfs_read_file(rr->path, &b, &n) < 0)
		return NULL;
	procfs_rollup_parse(b, n, &rr->r);
	free(b);
	return NULL;
}

/* Starts the read (held: its thread made now, its read when released,
 * rollup_release); where no thread can be had, reads it here, then (held:
 * at the release). */
static void rollup_start_as(struct rollup_read *rr, pid_t pid, bool held)
{
	memset(rr, 0, sizeof(*rr));
	pthread_mutex_init(&rr->lock, NULL);
	pthread_cond_init(&rr->cond, NULL);
	rr->held = held;
	procfs_mm_path(pid, "smaps_rollup", rr->path, sizeof(rr->path));
	rr->threaded = pthread_create(&rr->thread, NULL, rollup_run, rr) == 0;
	if (!rr->threaded && !held)
		rollup_run(rr);
}

static void rollup_start(struct rollup_read *rr, pid_t pid)
{
	rollup_start_as(rr, pid, false);
}

static void rollup_release(struct rollup_read *rr, bool cancel)
{
	pthread_mutex_lock(&rr->lock);
	rr->cancel = cancel;
	rr->held = false;
	pthread_cond_broadcast(&rr->cond);
	pthread_mutex_unlock(&rr->lock);
	if (!rr->threaded)
		rollup_run(rr);
}

/* Waits for it (no thread outlives the capture) and keeps its figures
 * (s NULL: drops them). */
static void rollup_finish(struct rollup_read *rr, struct vms_snapshot *s)
{
	if (rr->threaded)
		pthread_join(rr->thread, NULL);
	rr->threaded = false;
	pthread_mutex_destroy(&rr->lock);
	pthread_cond_destroy(&rr->cond);
	if (s)
		s->rollup = rr->r;
}

/* What a read of smaps made before it is needed (sampler_common.h): not
 * the file, opened at the read (one opened before reads the address space
 * the process had then: after an exec, the old one). */
struct sampler_prep {
	struct readahead *ra;
	struct rollup_read rr;
	uint64_t mmap_min;
};

/* The most regions a process may have (vm.max_map_count; a kernel
 * default without it), capped: the array is reserved at that size, and
 * only what the regions fill is ever touched. */
static size_t map_count_bound(void)
{
	char *b;
	size_t n;
	long long v = -1;

	if (procfs_read_file("/proc/sys/vm/max_map_count", &b, &n) == 0) {
		v = atoll(b);
		free(b);
	}
	if (v <= 0)
		v = 65530;
	return (size_t)(v < (1 << 22) ? v : (1 << 22));
}

/* Faults in the region array ahead of the parser, in one call for many
 * pages: every first touch of a page traps on this project's VM (bigmem.h),
 * and the huge-page hint helps only within whole aligned 2 MiB. Ahead by
 * as many regions as are read, so a small process costs little; *done:
 * how many are faulted in so far. */
static void populate_ahead(struct vms_snapshot *s, size_t *done)
{
	size_t want = 2 * s->nregions + 512;

	if (want > s->regions_cap)
		want = s->regions_cap;
	if (want <= *done || !s->regions)
		return;
	vms_big_populate(s->regions + *done,
			 (want - *done) * sizeof(*s->regions));
	*done = want;
}

/* Hands the regions finished so far to o->regions_read, each once: -1
 * with *err when it cancels. */
static int regions_read(const struct vms_capture_opts *o,
			const struct vms_snapshot *s, size_t done,
			struct vms_error *err)
{
	if (!o || !o->regions_read || !done)
		return 0;
	if (o->regions_read(o->regions_ctx, s, done))
		return vms_error_set(err, VMS_ERR_CAPTURE, ECANCELED,
				     "cancelled");
	return 0;
}

/* Regions a lean capture reads before it reserves the array for the most
 * a process may have. */
#define LEAN_RESERVE 4096

/* The error of a text that ended early: the process exited. */
static int exited_during(struct vms_error *err, pid_t pid, const char *name,
			 size_t nregions)
{
	return vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,
			     "process %d exited during capture (its %s ended "
			     "after %zu regions)",
			     (int)pid, name, nregions);
}

/* /proc/PID/NAME ("smaps" or "maps") streamed through the parser on the
 * reader thread; smaps's rollup and raw text besides. */
static int read_text(struct vms_snapshot *s, pid_t pid, const char *name,
		     const struct vms_capture_opts *o,
		     struct sampler_prep *prep, struct vms_error *err)
{
	char path[128];
	struct smaps_parser p;
	struct readahead *ra;
	struct rollup_read own, *rr = prep ? &prep->rr : &own;
	size_t faulted = 0;
	bool smaps = strcmp(name, "smaps") == 0;
	bool lean = o && o->lean;
	/* a prep is of a full read of smaps: its rollup's thread made */
	bool rollup = smaps && !lean, reserved = false;
	/* the caller's reader of smaps, begun before (sampler.h) */
	struct readahead *given = smaps && lean && o->seen && !o->freeze &&
						  o->seen->mm == s->src.pid
					  ? o->seen->smaps
					  : NULL;
	/* /proc/PID/task/TID/smaps of a live thread when the main thread
	 * called pthread_exit(): the leader's own is empty. */
	pid_t task = lean && s->src.pid > 0 ? s->src.pid : procfs_mm_pid(pid);
	int fd = -1, rc = -1;

	smaps_parser_init(&p, s);
	procfs_mm_path_of(pid, task, name, path, sizeof(path));
	if (!given && (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		int e = errno;

		if (prep) { /* its threads let go unused */
			readahead_stop(prep->ra);
			rollup_release(rr, true);
			rollup_finish(rr, NULL);
		}
		return procfs_errno_error(err, pid, name, e);
	}
	if (prep) { /* made before the freeze: let go now, in it */
		/* the rollup of the task whose smaps is read (the main
		 * thread's may have exited since the prep) */
		procfs_mm_path_of(pid, task, "smaps_rollup", rr->path,
				  sizeof(rr->path));
		rollup_release(rr, false);
		readahead_release(prep->ra, fd);
	}
	/* the rollup first: its walk and smaps's run side by side */
	if (rollup && !prep)
		rollup_start(rr, pid);
	ra = prep    ? prep->ra
	     : given ? given
	     : lean  ? readahead_start_inline(fd)
		     : readahead_start(fd);
	if (!ra) {
		if (rollup)
			rollup_finish(rr, s);
		close(fd);
		return vms_error_set(err, VMS_ERR_NOMEM, errno,
				     "cannot start the %s reader: %s", name,
				     strerror(errno));
	}
	/* a little room for regions mapped since the hint was taken; past
	 * it the array grows as without a hint */
	if (o && o->expect_regions &&
	    vms_snapshot_reserve(s, o->expect_regions + o->expect_regions / 64 +
					    64) < 0) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
			      "out of memory for %zu regions",
			      o->expect_regions);
		goto out;
	}
	/* Without a hint, the most a process may have: doubling the array
	 * copied it (realloc from the heap) and faulted its pages twice,
	 * 15% of a 65,000-region capture; a reservation is only address
	 * space until the regions fill it. A hint, not a need: where it
	 * cannot be had the array grows as it comes. */
	if (!(o && o->expect_regions) && !lean && !prep)
		(void)vms_snapshot_reserve(s, map_count_bound());
	for (;;) {
		const char *data;
		ssize_t n = readahead_next(ra, &data);

		if (n < 0) {
			read_error(err, pid, name, errno);
			goto out;
		}
		/* lean: a large process (past LEAN_RESERVE regions) gets the
		 * reservation the others go without, before the doubling of
		 * its array copies it and faults it again (8% of a run with a
		 * process of 65,000 regions) */
		if (lean && !reserved && s->nregions > LEAN_RESERVE) {
			reserved = true;
			(void)vms_snapshot_reserve(s, map_count_bound());
		}
		/* lean, its array from the heap (not reserved): a page the
		 * captures before faulted in, mostly, as each snapshot's
		 * array is freed and the next takes it (a call a process was
		 * 3% of a run over 300 sleeps) */
		if (!lean || reserved)
			populate_ahead(s, &faulted);
		if (smaps && s->raw &&
		    vms_raw_append_smaps(s->raw, data, (size_t)n) < 0) {
			vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				      "out of memory");
			goto out;
		}
		if (smaps_feed(&p, data, (size_t)n, n == 0, err) < 0)
			goto out;
		readahead_done(ra);
		if (n == 0)
			break;
		/* the last region may have key lines in the next chunk */
		if (s->nregions > 1 &&
		    regions_read(o, s, s->nregions - 1, err) < 0)
			goto out;
		if (o && o->progress &&
		    o->progress(o->progress_ctx, NULL, s->nregions, 0)) {
			vms_error_set(err, VMS_ERR_CAPTURE, ECANCELED,
				      "cancelled");
			goto out;
		}
	}
	if (smaps_finish(&p, err) < 0 ||
	    regions_read(o, s, s->nregions, err) < 0)
		goto out;
	if (s->nregions == 0) {
		/* It had an address space when the capture began (its
		 * identity was checked), so an empty smaps means it exited;
		 * unless it is, after all, a kernel thread. */
		if (procfs_check_has_mm(err, pid) == 0 ||
		    procfs_pid_kind(pid, NULL) != PROCFS_KTHREAD)
			vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,
				      "process %d exited during capture",
				      (int)pid);
		goto out;
	}
	/* lean: its identity was checked (no kernel thread), and the status
	 * read next says it (sampler_read_status with one: no Vm lines once
	 * the address space is gone) */
	if (!lean && procfs_pid_exiting(pid)) {
		exited_during(err, pid, name, s->nregions);
		goto out;
	}
	if (p.malformed)
		s->cap.partial = arena_printf(
			&s->arena,
			"%zu malformed %s lines skipped (first: line %zu)",
			p.malformed, name, p.first_malformed_line);
	else if (smaps &&
		 (s->regions[s->nregions - 1].flags & VMS_RF_NO_COUNTERS))
		s->cap.partial = "smaps ended in the middle of a region";
	rc = 0;
out:
	if (!given) {
		readahead_stop(ra);
		close(fd);
	}
	if (rollup)
		rollup_finish(rr, s);
	smaps_parser_release(&p);
	return rc;
}

/* The text of a running process that maps between two reads of it can
 * show records that overlap (EAGAIN from the parser): read it again, a
 * few times, without handing the regions to o->regions_read twice. A
 * frozen process never shows it: one read. */
static int read_settled(struct vms_snapshot *s, pid_t pid, const char *name,
			const struct vms_capture_opts *o,
			struct sampler_prep *prep, struct vms_error *err)
{
	struct vms_capture_opts again = { 0 };
	uint64_t min = o && o->mmap_min_addr ? o->mmap_min_addr
		       : prep		     ? prep->mmap_min
					     : 0;
	int tries = 0;

	if (o)
		again = *o;
	again.regions_read = NULL;
	/* read again from the start: the caller's reader is spent */
	again.seen = NULL;
	while (read_text(s, pid, name, tries ? &again : o, tries ? NULL : prep,
			 err) < 0) {
		if (err->kind != VMS_ERR_CAPTURE || err->err != EAGAIN ||
		    ++tries == SMAPS_TRIES)
			return -1;
		sampler_forget_regions(s);
	}
	/* This machine's user address range: the live process's own. */
	totals_set_user_range(s, min ? min : procfs_mmap_min_addr(),
			      procfs_user_end());
	return 0;
}

int sampler_read_smaps(struct vms_snapshot *s, pid_t pid,
		       const struct vms_capture_opts *o, struct vms_error *err)
{
	return read_settled(s, pid, "smaps", o, NULL, err);
}

int sampler_read_maps(struct vms_snapshot *s, pid_t pid,
		      const struct vms_capture_opts *o, struct vms_error *err)
{
	return read_settled(s, pid, "maps", o, NULL, err);
}

struct sampler_prep *sampler_prep_smaps(struct vms_snapshot *s, pid_t pid)
{
	struct sampler_prep *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (!(p->ra = readahead_start_held())) {
		free(p);
		return NULL;
	}
	rollup_start_as(&p->rr, pid, true);
	/* the array reserved, and its first regions' pages faulted in (the
	 * parse's populate_ahead finds them there) */
	if (vms_snapshot_reserve(s, map_count_bound()) == 0 && s->regions)
		vms_big_populate(s->regions,
				 (s->regions_cap < 512 ? s->regions_cap : 512) *
					 sizeof(*s->regions));
	p->mmap_min = procfs_mmap_min_addr();
	return p;
}

int sampler_read_smaps_prepped(struct vms_snapshot *s, pid_t pid,
			       const struct vms_capture_opts *o,
			       struct sampler_prep *p, struct vms_error *err)
{
	int rc = read_settled(s, pid, "smaps", o, p, err);

	free(p); /* what it held read_text let go */
	return rc;
}

void sampler_prep_free(struct sampler_prep *p)
{
	if (!p)
		return;
	readahead_stop(p->ra);
	rollup_release(&p->rr, true);
	rollup_finish(&p->rr, NULL);
	free(p);
}

void sampler_forget_regions(struct vms_snapshot *s)
{
	s->nregions = 0;
	s->cap.partial = NULL;
	s->rollup.valid = false;
	if (s->raw) /* the text kept for a file: of the read that counts */
		s->raw->smaps_len = 0;
}

int sampler_read_status(struct vms_snapshot *s, pid_t pid, pid_t mm, bool *one,
			struct vms_error *err)
{
	char path[128], *b;
	size_t n;
	long long pte;

	/* A live thread's: the exited main thread's status has no Vm lines. */
	procfs_mm_path_of(pid, mm, "status", path, sizeof(path));
	if (procfs_read_one(path, &b, &n) < 0)
		return one && (errno == ENOENT || errno == ESRCH)
			       ? exited_during(err, pid, "smaps", s->nregions)
			       : procfs_errno_error(err, pid, "status", errno);
	pte = procfs_status_value(b, n, "VmPTE");
	if (one && procfs_status_value(b, n, "VmSize") < 0) {
		/* the address space went before this read: perhaps while
		 * smaps was read, which then ends early, looking whole */
		free(b);
		return exited_during(err, pid, "smaps", s->nregions);
	}
	if (one) {
		const char *st = memmem(b, n, "\nState:\t", 8);

		*one = mm == pid && procfs_status_value(b, n, "Threads") == 1 &&
		       st && st + 8 < b + n && st[8] != 'Z' && st[8] != 'X';
	}
	/* a lean identity has none (proclist_identity_lean): Uid's second
	 * field, the effective one, as libproc2 gives it */
	if (mm > 0 && !s->proc.uid) {
		const char *u = memmem(b, n, "\nUid:", 5);
		unsigned long e;

		if (u && sscanf(u + 5, "%*u %lu", &e) == 1)
			s->proc.uid = (uid_t)e;
	}
	if (s->raw) { /* kept for a snapshot file, as read */
		free(s->raw->status);
		s->raw->status = b;
		s->raw->status_len = n;
	} else {
		free(b);
	}
	s->page_table = pte > 0 ? (uint64_t)pte : 0;
	return 0;
}

static const char *thread_name(struct vms_snapshot *s, pid_t pid, pid_t tid)
{
	char name[64], *b;
	size_t n;
	const char *r;

	snprintf(name, sizeof(name), "task/%d/comm", (int)tid);
	if (procfs_read_pid(pid, name, &b, &n) < 0)
		return NULL;
	while (n && b[n - 1] == '\n')
		n--;
	r = arena_intern(&s->arena, b, n);
	free(b);
	return r;
}

static int alloc_threads(struct vms_snapshot *s, size_t n,
			 struct vms_error *err)
{
	s->threads = arena_alloc(&s->arena, (n ? n : 1) * sizeof(*s->threads));
	if (!s->threads)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	s->nthreads = 0;
	return 0;
}

int sampler_threads_from_freeze(struct vms_snapshot *s, const struct freeze *f,
				struct vms_error *err)
{
	size_t i;

	if (alloc_threads(s, f->n, err) < 0)
		return -1;
	for (i = 0; i < f->n; i++) {
		struct vms_thread *t;

		if (!f->t[i].stopped)
			continue;
		t = &s->threads[s->nthreads++];
		t->tid = f->t[i].tid;
		t->name = thread_name(s, f->pid, t->tid);
		t->sp = freeze_regs_sp(&f->t[i].regs);
	}
	return 0;
}

/* A thread's sp from its syscall file, retried while it runs: -1 when the
 * file cannot be read (the thread is gone), else 0 (sp 0: unknown). */
static int lean_sp(pid_t pid, pid_t tid, uint64_t *sp)
{
	char name[64], *b;
	size_t len;
	int tries;

	snprintf(name, sizeof(name), "task/%d/syscall", (int)tid);
	for (tries = 0; tries < 20; tries++) {
		int ok;

		if (procfs_read_pid_one(pid, name, &b, &len) < 0)
			return tries ? 0 : -1;
		ok = procfs_syscall_sp_parse(b, len, sp) == 0;
		free(b);
		if (ok)
			return 0;
		sched_yield();
	}
	return 0;
}

int sampler_threads_from_proc(struct vms_snapshot *s, pid_t pid, bool lean,
			      bool one, struct vms_error *err)
{
	pid_t *tids;
	size_t n, i;
	bool missed = false;

	if (lean && one) {
		/* its main thread alone, not exited: status said so */
		if (alloc_threads(s, 1, err) < 0)
			return -1;
		s->threads[0].tid = pid;
		s->threads[0].name = NULL;
		s->threads[0].sp = 0;
		if (lean_sp(pid, pid, &s->threads[0].sp) < 0)
			return vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,
					     "process %d exited during capture",
					     (int)pid);
		s->nthreads = 1;
		if (!s->threads[0].sp && !s->cap.partial)
			s->cap.partial = "some threads were running: their "
					 "stack pointers are unknown (use "
					 "--freeze)";
		return 0;
	}
	if (procfs_list_tasks(pid, &tids, &n) < 0)
		return procfs_errno_error(err, pid, "task list", errno);
	if (alloc_threads(s, n, err) < 0) {
		free(tids);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct vms_thread *t = &s->threads[s->nthreads];
		char name[64], *b;
		size_t len;
		int tries;

		t->tid = tids[i];
		t->name = NULL;
		t->sp = 0;
		/* a main thread that called pthread_exit(): lean, only the
		 * main thread is asked (another that exits is gone, and its
		 * syscall file with it) */
		if ((!lean || tids[i] == pid) &&
		    procfs_thread_exited(pid, tids[i]))
			continue;
		if (lean) {
			if (lean_sp(pid, tids[i], &t->sp) < 0) {
				if (!procfs_pid_exists(pid)) {
					free(tids);
					return vms_error_set(
						err, VMS_ERR_CAPTURE, ESRCH,
						"process %d exited during "
						"capture",
						(int)pid);
				}
				continue; /* the thread exited meanwhile */
			}
			missed |= t->sp == 0;
			s->nthreads++;
			continue;
		}
		t->name = thread_name(s, pid, tids[i]);
		if (!t->name && !procfs_pid_exists(pid)) {
			free(tids);
			return vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,
					     "process %d exited during "
					     "capture",
					     (int)pid);
		}
		if (!t->name)
			continue; /* the thread exited meanwhile */
		snprintf(name, sizeof(name), "task/%d/syscall", (int)tids[i]);
		for (tries = 0; tries < 20; tries++) {
			int ok;

			if (procfs_read_pid_one(pid, name, &b, &len) < 0)
				break;
			ok = procfs_syscall_sp_parse(b, len, &t->sp) == 0;
			free(b);
			if (ok)
				break;
			sched_yield();
		}
		missed |= t->sp == 0;
		s->nthreads++;
	}
	free(tids);
	if (missed && !s->cap.partial)
		s->cap.partial = "some threads were running: their stack "
				 "pointers are unknown (use --freeze)";
	return 0;
}
