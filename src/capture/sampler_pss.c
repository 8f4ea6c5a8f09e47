/* sampler_pss.c — the non-invasive sampler: reads /proc/PID/smaps.
 *
 * With opts->freeze, every thread is stopped only while smaps, status and
 * the thread list are read, so the figures are consistent and tie to
 * smaps_rollup exactly; without it the target is never stopped, and the
 * stack pointers come from /proc/PID/task/TID/syscall, which shows them
 * for threads blocked in the kernel (a thread running at that instant is
 * retried a few times, then left with an unknown sp).
 *
 * The freeze is made by a keeper process (fork_keeper.h, without a fork),
 * never by vmscope itself: a thread that had not stopped by the release
 * stays traced only until the keeper exits, when the kernel detaches it;
 * a vmscope stopped (^Z) while the target is frozen gets the target let go
 * within a second; a vmscope killed meanwhile, at once.
 *
 * Memory is read from the live target through memread.h, present pages
 * only. With opts->freeze the target is stopped again while memory is read
 * (once for a batch of reads under hold(), or for each read) and let go
 * right after; without, it is read as it runs and never stopped.
 *
 * Pid reuse: a pidfd is opened first; /proc/PID/mem and pagemap are
 * opened during the capture (the kernel binds them to the address space
 * at open), and the pidfd is checked after every open by pid: if the
 * process was reaped meanwhile the capture fails, so nothing read by pid
 * can be another process's, and later memory reads can only reach the
 * process captured. Windows that remain: the pid given by the user may
 * already name another process before the pidfd is opened (the summary
 * names the process read); with --freeze, a pid reused between the pidfd
 * and the keeper's seize freezes that other process for the capture's
 * length before the check refuses the result. The files opened after the
 * capture (the images step) go through the /proc/PID directory and root
 * held before the pidfd's check (procfile_hold; a lean capture's at the
 * first of them, the pidfd checked after it: procfile_hold_later), never
 * by pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/ptrace/fork_keeper.h"
#include "capture/sampler.h"
#include "capture/sampler_common.h"
#include "linux/memread.h"
#include "linux/observer.h"
#include "linux/procfile.h"
#include "linux/procfs.h"
#include "linux/proclist.h"
#include "linux/smaps.h"

/* The longest a target is held frozen for vmscope to read it (smaps of a
 * very large process takes seconds). */
#define PSS_FREEZE_MAX_MS 30000
#define PSS_INSTEAD "without --freeze"

struct pss_priv {
	struct memread mem;
	bool mem_open, mem_failed;
	struct vms_error mem_err; /* why mem could not be opened */
	bool freeze; /* stop the target while reading its memory */
	bool held; /* stopped by hold(): reads need no stop of their own */
	struct fork_keeper hold_k;
	int pidfd;
	bool own_pidfd; /* else the caller's (vms_proc_seen) */
};

/* Freezes pid through a keeper; *k then holds the frozen threads. */
static int pss_freeze(struct fork_keeper *k, pid_t pid, struct vms_error *err)
{
	return keeper_start(k, pid, 0, PSS_FREEZE_MAX_MS, PSS_INSTEAD, err);
}

/* Lets it go; the stopped time, or -1 with *err when the keeper had let
 * it go early (vmscope stopped, or past PSS_FREEZE_MAX_MS). */
static int pss_thaw(struct fork_keeper *k, uint64_t *us, struct vms_error *err)
{
	struct vms_error ignore;
	int rc = keeper_release(k, err ? err : &ignore);

	*us = k->frozen_us;
	keeper_stop(k);
	return rc;
}

/* Before a read of the target's memory: 0 (nothing to read: said
 * before), -1 with *err (the open's failure, said once), 1 ready, 2 ready
 * and frozen for this read alone (-F not held: k is to be thawed by
 * mem_end). */
static int mem_begin(struct vms_snapshot *s, struct fork_keeper *k,
		     struct vms_error *err)
{
	struct pss_priv *p = s->src.priv;

	if (!p || p->mem_failed)
		return 0;
	if (!p->mem_open) {
		/* Opened during the capture, or why not: said once. */
		p->mem_failed = true;
		if (err)
			*err = p->mem_err;
		return -1;
	}
	if (p->freeze && !p->held)
		return pss_freeze(k, s->proc.pid, err) < 0 ? -1 : 2;
	return 1;
}

/* After it: what the read gave, or -1 when the thaw failed. */
static ssize_t mem_end(int how, struct fork_keeper *k, ssize_t got,
		       struct vms_error *err)
{
	uint64_t us;

	if (how == 2 && pss_thaw(k, &us, err) < 0)
		return -1;
	return got;
}

static ssize_t pss_read_mem(struct vms_snapshot *s, uint64_t addr, void *buf,
			    size_t len, struct vms_error *err)
{
	struct pss_priv *p = s->src.priv;
	struct fork_keeper k;
	int how = mem_begin(s, &k, err);

	if (how <= 0)
		return how;
	return mem_end(how, &k, memread_read(&p->mem, addr, buf, len, err),
		       err);
}

static ssize_t pss_read_pages(struct vms_snapshot *s, uint64_t addr, void *buf,
			      size_t npages, unsigned char *ok,
			      struct vms_error *err)
{
	struct pss_priv *p = s->src.priv;
	struct fork_keeper k;
	int how;

	memset(ok, 0, npages);
	if ((how = mem_begin(s, &k, err)) <= 0)
		return how;
	return mem_end(how, &k,
		       memread_read_pages(&p->mem, addr, buf, npages, ok, err),
		       err);
}

static int pss_read_each(struct vms_snapshot *s, const uint64_t *addr, size_t n,
			 size_t len, void *buf, unsigned char *ok,
			 struct vms_error *err)
{
	struct pss_priv *p = s->src.priv;
	struct fork_keeper k;
	int how;

	memset(ok, 0, n);
	if ((how = mem_begin(s, &k, err)) <= 0)
		return how;
	return (int)mem_end(
		how, &k, memread_read_each(&p->mem, addr, n, len, buf, ok, err),
		err);
}

/* Only while the target is held still: otherwise the pages would be of
 * another instant than the memory read with them. */
static int pss_present(struct vms_snapshot *s, uint64_t addr, size_t npages,
		       unsigned char *out, struct vms_error *err)
{
	struct pss_priv *p = s->src.priv;

	if (!p || !p->mem_open || !p->held)
		return vms_error_set(err, VMS_ERR_CAPTURE, 0,
				     "pages in RAM are known only while the "
				     "target is held still");
	return memread_present(&p->mem, addr, npages, out, err);
}

/* The same; the target's own page tables tell its exclusive pages. */
static int pss_pages(struct vms_snapshot *s, uint64_t addr, size_t npages,
		     unsigned char *out, struct vms_error *err)
{
	struct pss_priv *p = s->src.priv;
	size_t i;

	if (!p || !p->mem_open || !p->held)
		return vms_error_set(err, VMS_ERR_CAPTURE, 0,
				     "the page tables are known only while "
				     "the target is held still");
	if (memread_pages(&p->mem, addr, npages, out, err) < 0)
		return -1;
	for (i = 0; i < npages; i++)
		out[i] |= VMS_PG_EXCL_KNOWN;
	return 0;
}

static int pss_hold(struct vms_snapshot *s, bool on, struct vms_error *err)
{
	struct pss_priv *p = s->src.priv;
	uint64_t us = 0;
	int rc;

	if (!p || !p->freeze || on == p->held)
		return 0;
	if (on) {
		if (pss_freeze(&p->hold_k, s->proc.pid, err) < 0)
			return -1;
		p->held = true;
		return 0;
	}
	rc = pss_thaw(&p->hold_k, &us, err);
	s->cap.frozen_us += us;
	p->held = false;
	return rc;
}

static void pss_release(struct vms_snapshot *s)
{
	struct pss_priv *p = s->src.priv;

	if (!p)
		return;
	pss_hold(s, false, NULL);
	if (p->mem_open)
		memread_close(&p->mem);
	if (p->pidfd >= 0 && p->own_pidfd)
		close(p->pidfd);
	free(p);
	s->src.priv = NULL;
}

static const struct vms_source_ops pss_source = {
	.name = "pss",
	.read_mem = pss_read_mem,
	.read_pages = pss_read_pages,
	.read_each = pss_read_each,
	.present = pss_present,
	.pages = pss_pages,
	.hold = pss_hold,
	.open_file = vms_source_proc_open,
	.stat_file = vms_source_proc_stat,
	.fs_magic = vms_source_proc_fs_magic,
	.release = pss_release,
};

/* Reads what the capture is made of; the target frozen or not. */
static int pss_read(const struct vms_capture_opts *o, struct vms_snapshot *s,
		    const struct freeze *fz, struct sampler_prep *prep,
		    struct vms_error *err)
{
	struct pss_priv *priv = s->src.priv;
	/* a lean capture finds the task to read once (s->src.pid) */
	pid_t mm = o->lean ? s->src.pid : 0;
	bool one = false;

	if ((prep ? sampler_read_smaps_prepped(s, o->pid, o, prep, err)
		  : sampler_read_smaps(s, o->pid, o, err)) < 0 ||
	    sampler_read_status(s, o->pid, mm, o->lean ? &one : NULL, err) < 0)
		return -1;
	if (fz ? sampler_threads_from_freeze(s, fz, err) < 0
	       : sampler_threads_from_proc(s, o->pid, o->lean, one, err) < 0)
		return -1;
	/* mem and pagemap now, bound to this address space: never a reused
	 * pid's later. Not being able to read memory is not a failure of
	 * the capture: the first read says why. */
	if (memread_open_of(&priv->mem, o->pid, mm, &priv->mem_err) == 0)
		priv->mem_open = true;
	return 0;
}

static int pss_capture(const struct vms_capture_opts *o, struct vms_snapshot *s,
		       struct vms_error *err)
{
	/* what the caller read first: of a lean capture only */
	const struct vms_proc_seen *seen = o->lean ? o->seen : NULL;
	struct fork_keeper k;
	struct pss_priv *priv = calloc(1, sizeof(*priv));
	uint64_t us;
	int rc;

	if (!priv)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	priv->freeze = o->freeze;
	priv->pidfd = -1;
	s->src.ops = &pss_source;
	s->src.priv = priv; /* release() undoes whatever was done */
	/* Files are opened through /proc/PID/map_files of a live thread
	 * (the main thread may have exited: procfs_mm_pid). */
	s->src.pid = !seen	    ? procfs_mm_pid(o->pid)
		     : seen->mm > 0 ? seen->mm
				    : procfs_mm_pid_in(o->pid, seen->state);
	/* Read from the running target: of one instant only while held. */
	s->src.caps = VMS_SRC_MEMORY | VMS_SRC_FILES |
		      (o->freeze ? VMS_SRC_CONSISTENT
		       : o->lean ? VMS_SRC_SETTLE
				 : 0);
	if (o->freeze && o->pid == getpid())
		/* The keeper would freeze the process waiting for it. */
		return vms_error_set(err, VMS_ERR_USAGE, EINVAL,
				     "vmscope cannot freeze itself; leave out "
				     "--freeze");
	priv->pidfd = seen ? seen->pidfd : procfs_pidfd_open(o->pid);
	priv->own_pidfd = !seen;
	if (priv->pidfd < 0 && !seen && errno == ESRCH)
		return procfs_errno_error(err, o->pid, "status", ESRCH);
	if ((o->lean ? proclist_identity_lean(o->pid, s->src.pid,
					      seen ? seen->comm : NULL,
					      &s->arena, &s->proc, err)
		     : proclist_identity(o->pid, &s->arena, &s->proc, err)) < 0)
		return -1;
	if (!o->freeze) {
		rc = pss_read(o, s, NULL, NULL, err);
	} else {
		/* the reader's threads, buffers and array made now, and what
		 * reading memory needs once a run: the stop holds the reads
		 * alone (a small process's stop was half setup) */
		struct sampler_prep *prep =
			o->lean || s->src.pid != o->pid
				? NULL
				: sampler_prep_smaps(s, o->pid);

		memread_prepare();
		if (pss_freeze(&k, o->pid, err) < 0) {
			sampler_prep_free(prep);
			return -1;
		}
		rc = pss_read(o, s, &k.fz, prep, err);
		if (pss_thaw(&k, &us, rc < 0 ? NULL : err) < 0)
			rc = -1;
		s->cap.frozen_us = us;
		s->cap.frozen = true;
		s->cap.freeze_counters = "smaps";
	}
	if (rc == 0 && !o->lean)
		observer_note(s);
	/* Its files, held now for every later open (the images step runs
	 * after the capture): checked by the pidfd below with the rest. A
	 * lean capture's at its first open, if any (the run's cache answers
	 * most), checked by the pidfd then. */
	if (rc == 0 && o->lean && priv->pidfd >= 0)
		procfile_hold_later(s, s->src.pid, priv->pidfd);
	else if (rc == 0)
		procfile_hold(s, s->src.pid);
	if (rc == 0 && procfs_pidfd_reaped(priv->pidfd))
		/* Everything above was opened by pid: perhaps another's. */
		rc = vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,
				   "process %d exited during capture",
				   (int)o->pid);
	return rc;
}

const struct vms_sampler vms_sampler_pss = {
	.name = "pss",
	.capture = pss_capture,
};
