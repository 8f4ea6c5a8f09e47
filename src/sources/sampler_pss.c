/* sampler_pss.c — the non-invasive sampler: reads /proc/PID/smaps.
 *
 * With opts->freeze, every thread is stopped (freeze.h) only while smaps,
 * status and the thread list are read, so the figures are consistent and
 * tie to smaps_rollup exactly; without it the target is never stopped, and
 * the stack pointers come from /proc/PID/task/TID/syscall, which shows them
 * for threads blocked in the kernel (a thread running at that instant is
 * retried a few times, then left with an unknown sp).
 *
 * Memory is read from the live target through memread.h, present pages
 * only. With opts->freeze the target is stopped again while memory is read
 * (once for a batch of reads under hold(), or for each read) and let go
 * right after; without, it is read as it runs and never stopped.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "freeze.h"
#include "memread.h"
#include "procfs.h"
#include "proclist.h"
#include "sampler.h"
#include "sampler_common.h"
#include "smaps.h"

struct pss_priv {
	struct memread mem;
	bool mem_open, mem_failed;
	bool freeze; /* stop the target while reading its memory */
	bool held; /* stopped by hold(): reads need no stop of their own */
	struct freeze hold_fz;
};

static ssize_t pss_read_mem(struct vms_snapshot *s, uint64_t addr, void *buf,
			    size_t len, struct vms_error *err)
{
	struct pss_priv *p = s->src.priv;

	if (!p)
		return 0;
	if (!p->mem_open) {
		if (p->mem_failed)
			return 0;
		if (memread_open(&p->mem, s->proc.pid, err) < 0) {
			p->mem_failed = true;
			return -1;
		}
		p->mem_open = true;
	}
	if (p->freeze && !p->held) {
		struct freeze fz;
		ssize_t got;

		if (freeze_stop(&fz, s->proc.pid, 2000, err) < 0)
			return -1;
		got = memread_read(&p->mem, addr, buf, len, err);
		freeze_release(&fz);
		return got;
	}
	return memread_read(&p->mem, addr, buf, len, err);
}

static int pss_hold(struct vms_snapshot *s, bool on, struct vms_error *err)
{
	struct pss_priv *p = s->src.priv;

	if (!p || !p->freeze || on == p->held)
		return 0;
	if (on) {
		if (freeze_stop(&p->hold_fz, s->proc.pid, 2000, err) < 0)
			return -1;
		p->held = true;
	} else {
		s->cap.frozen_us += freeze_release(&p->hold_fz);
		p->held = false;
	}
	return 0;
}

static void pss_release(struct vms_snapshot *s)
{
	struct pss_priv *p = s->src.priv;

	if (!p)
		return;
	pss_hold(s, false, NULL);
	if (p->mem_open)
		memread_close(&p->mem);
	free(p);
	s->src.priv = NULL;
}

static const struct vms_source_ops pss_source = {
	.name = "pss",
	.read_mem = pss_read_mem,
	.hold = pss_hold,
	.open_file = vms_source_proc_open,
	.fs_magic = vms_source_proc_fs_magic,
	.release = pss_release,
};

static int pss_capture(const struct vms_capture_opts *o, struct vms_snapshot *s,
		       struct vms_error *err)
{
	struct freeze fz;
	bool frozen = false;
	int rc = -1;

	struct pss_priv *priv = calloc(1, sizeof(*priv));

	if (!priv)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	priv->freeze = o->freeze;
	s->src.ops = &pss_source;
	s->src.priv = priv;
	/* Files are opened through /proc/PID/map_files of a live thread
	 * (the main thread may have exited: procfs_mm_pid). */
	s->src.pid = procfs_mm_pid(o->pid);
	/* Read from the running target: of one instant only while held. */
	s->src.caps = VMS_SRC_MEMORY | VMS_SRC_FILES |
		      (o->freeze ? VMS_SRC_CONSISTENT : 0);
	if (proclist_identity(o->pid, &s->arena, &s->proc, err) < 0)
		return -1;
	if (o->freeze) {
		if (freeze_stop(&fz, o->pid, 2000, err) < 0)
			return -1;
		frozen = true;
	}
	if (sampler_read_smaps(s, o->pid, o, err) < 0 ||
	    sampler_read_status(s, o->pid, err) < 0)
		goto out;
	if (frozen) {
		if (sampler_threads_from_freeze(s, &fz, err) < 0)
			goto out;
	} else if (sampler_threads_from_proc(s, o->pid, err) < 0) {
		goto out;
	}
	rc = 0;
out:
	if (frozen) {
		s->cap.frozen_us = freeze_release(&fz);
		s->cap.frozen = true;
	}
	return rc;
}

const struct vms_sampler vms_sampler_pss = {
	.name = "pss",
	.capture = pss_capture,
};
