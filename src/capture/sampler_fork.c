/* sampler_fork.c — the fork sampler (-b fork), Linux's counterpart of
 * Windows PssCaptureSnapshot.
 *
 * capture: preflight (any seccomp mode, memory cgroup headroom, then strict
 * overcommit once the counters are known), a borrowed system-call
 * instruction (inject.h), then a keeper process (fork_keeper.h) freezes every
 * thread; while it holds them, the original's counters and status are read
 * here: counters must come from the original before the fork, since the
 * clone's smaps are wrong for file-backed regions and, while the clone
 * lives, the original's private pages count as shared. Where the kernel has
 * PAGEMAP_SCAN (and neither --exact nor a snapshot file asks otherwise),
 * smaps is read just before the freeze and only Rss and Swap in it
 * (fastfreeze.h), those of large anonymous regions from the clone's page
 * tables right after the fork; else all of smaps is read in it. The keeper then
 * injects the fork, lets the target go and keeps the clone stopped. Thread
 * stack pointers are those the keeper saved at the freeze; their names are
 * read afterwards, outside the freeze. frozen_us is the whole freeze,
 * counters and fork included.
 *
 * read_mem: /proc/CLONE/mem, present pages only (memread.h). Regions the
 * clone does not have as they were (MADV_DONTFORK: absent; MADV_WIPEONFORK:
 * zeroed) are marked VMS_RF_UNREADABLE and read as 0 bytes.
 *
 * With opts->no_memory there is no fork: the keeper freezes the target
 * while the counters are read and lets it go (the backend is still "fork").
 *
 * release: the keeper kills the clone and has the target reap it.
 *
 * Refusals are errors with the reason and what to do; this sampler never
 * falls back to pss by itself. An error met on the way is said as what it
 * was (ended(): the keeper died, the target executed a new program, it
 * exited), not as what it led to.
 *
 * How a capture ends: its message (start), exit status, and the test that
 * covers it (tests/live/; "none" says why):
 *   captured                                           0  test_fork_threads
 *   "no such process: N"                               2  test_fork_refuse
 *   "not permitted to stop process N with ptrace: ..." 2  test_permissions
 *   "process N is already traced by process M"         2  test_fork_refuse
 *   "vmscope cannot fork a snapshot of itself"         1  none (usage)
 *   "process N runs in strict seccomp mode"            3  test_fork_refuse
 *   "process N has a seccomp filter" / "every thread
 *     of process N has a seccomp filter"               3  test_fork_refuse
 *   "process N's memory cgroup (...) has X MiB left"   3  test_fork_cgroup
 *   "overcommit_memory is 2 (strict) and the clone"    3  none (a sysctl
 *                                                        of the machine)
 *   "process N watches a userfaultfd ... for fork
 *     events" / "has regions registered with a
 *     userfaultfd that another process holds"          3  test_hostile_uffd
 *   "thread T of process N is in uninterruptible
 *     sleep" (a vfork parent)                          3  test_fork_vfork
 *   "process N is dumping core: ... not touched"       3  test_hostile_
 *                                                        coredump
 *   "thread T of process N did not stop within N ms"   3  none (a thread
 *                                                        in D after the
 *                                                        check above)
 *   "found no system-call instruction to borrow"       3  none (no libc
 *                                                        and no vDSO)
 *   "... has been rewritten in memory"                 3  test_hostile
 *                                                        (ud2, jmp)
 *   "... uses Syscall User Dispatch, which could not
 *     be suspended"                                    3  test_hostile (sud:
 *                                                        suspended there)
 *   "every thread of process N was stopped receiving
 *     a signal (a timer's?)"                           3  test_fork_rseq
 *                                                        (tried again)
 *   "the kernel refused the fork in process N: ..."    3  none (ENOMEM
 *                                                        needs a sysctl)
 *   "the fork injected into thread T ... did not
 *     return within 30 s ... nothing was killed"       3  test_hostile_uffd
 *   "process N executed a new program during the
 *     capture" / "... while it was being stopped"      3  test_fork_messages
 *   "process N exited during capture"                  3  test_hostile_kill
 *   "the ptrace helper (vmscope-keeper...) died"       3  test_fork_messages
 *   "process N was let go: vmscope was stopped"        3  test_fork_stopped
 *   "process N was let go after N ms frozen waiting"   3  none (30 s)
 *   "interrupted; process N was let go"                3  none (a Ctrl-C
 *                                                        timed inside the
 *                                                        freeze)
 *   "process N creates threads faster than they can
 *     be stopped"                                      3  none
 *   "out of memory"                                    3  none
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/ptrace/fork_keeper.h"
#include "capture/ptrace/fork_preflight.h"
#include "capture/ptrace/inject.h"
#include "capture/sampler.h"
#include "capture/sampler_common.h"
#include "linux/fastfreeze.h"
#include "linux/memread.h"
#include "linux/observer.h"
#include "linux/pmscan.h"
#include "linux/procfile.h"
#include "linux/procfs.h"
#include "linux/proclist.h"

#define MIB (1024.0 * 1024.0)
/* The longest the target is held frozen for its counters to be read: smaps
 * of a very large process takes seconds; a vmscope stopped by ^Z meanwhile
 * must not hold the target with it. */
#define FREEZE_MAX_MS 30000

static const struct vms_source_ops fork_source;

struct fork_priv {
	struct fork_keeper k;
	struct memread mem;
	bool mem_open;
	int pmfd; /* pmscan_open(): the fast freeze; -1 without */
	int memfd; /* the target's /proc/PID/mem, opened first: ended() */
	struct pmscan_how how;
};

/* What the preflight needs from /proc/PID/status. */
struct status_figures {
	long long seccomp, anon, pte;
};

static int read_status_figures(pid_t pid, struct status_figures *f,
			       struct vms_error *err)
{
	char path[128], *b;
	size_t n;

	/* A live thread's (the main thread may have exited: no Vm lines) */
	procfs_mm_path(pid, "status", path, sizeof(path));
	if (procfs_read_file(path, &b, &n) < 0)
		return procfs_errno_error(err, pid, "status", errno);
	f->seccomp = procfs_status_value(b, n, "Seccomp");
	f->anon = procfs_status_value(b, n, "RssAnon");
	f->pte = procfs_status_value(b, n, "VmPTE");
	free(b);
	return 0;
}

/* Whether some thread of pid has no seccomp filter (Seccomp: 0 in its own
 * status): the keeper borrows only such a thread, and checks again inside
 * the freeze. */
static bool some_thread_unfiltered(pid_t pid)
{
	pid_t *tids;
	size_t n, i;
	bool yes = false;

	if (procfs_list_tasks(pid, &tids, &n) < 0)
		return false;
	for (i = 0; i < n && !yes; i++) {
		char name[64], *b;
		size_t len;

		snprintf(name, sizeof(name), "task/%d/status", (int)tids[i]);
		if (procfs_read_pid(pid, name, &b, &len) < 0)
			continue;
		yes = procfs_status_value(b, len, "Seccomp") <= 0 &&
		      strstr(b, "\nState:\tZ") == NULL;
		free(b);
	}
	free(tids);
	return yes;
}

static int preflight_seccomp(pid_t pid, const struct status_figures *f,
			     struct vms_error *err)
{
	if (f->seccomp <= 0 || some_thread_unfiltered(pid))
		return 0;
	/* 1: strict mode, where fork (or any call but read, write, exit
	 * and sigreturn) kills the process; 2: a filter, which may refuse
	 * it, raise SIGSYS or kill; any other value: a mode this code does
	 * not know. -1: no Seccomp line (a kernel without seccomp). */
	if (f->seccomp == 1)
		return vms_error_set(
			err, VMS_ERR_CAPTURE, EPERM,
			"process %d runs in strict seccomp mode; a "
			"fork injected into it would kill it; use "
			"-b pss",
			(int)pid);
	if (f->seccomp == 2)
		return vms_error_set(err, VMS_ERR_CAPTURE, EPERM,
				     "process %d has a seccomp filter; a fork "
				     "injected into it may be refused or kill "
				     "it; use -b pss",
				     (int)pid);
	if (f->seccomp > 0)
		return vms_error_set(
			err, VMS_ERR_CAPTURE, EPERM,
			"process %d has seccomp mode %lld, which "
			"vmscope does not know; a fork injected "
			"into it may be refused or kill it; use -b "
			"pss",
			(int)pid, f->seccomp);
	return 0;
}

/* The clone is charged to the target's memory cgroup: page tables at once,
 * then a copy of every page the target writes while the clone lives. Refuse
 * when the cgroup could not take the worst case (the target rewriting all
 * its anonymous memory): its OOM killer would pick the target. */
static int preflight_cgroup(pid_t pid, const struct status_figures *f,
			    struct vms_error *err)
{
	char cg[4096], *text;
	size_t n;
	uint64_t room = 0, need;
	bool limited;

	if (procfs_read_pid(pid, "cgroup", &text, &n) < 0)
		return 0; /* no cgroups: nothing to check */
	limited = fork_cgroup_headroom(text, "/sys/fs/cgroup", &room, cg,
				       sizeof(cg));
	free(text);
	if (!limited)
		return 0;
	need = (uint64_t)(f->anon > 0 ? f->anon : 0) +
	       (uint64_t)(f->pte > 0 ? f->pte : 0);
	if (room < need)
		return vms_error_set(
			err, VMS_ERR_CAPTURE, ENOMEM,
			"process %d's memory cgroup (%s) has %.1f MiB left "
			"below its limit, and the clone may charge up to %.1f "
			"MiB (page tables, and a copy of each page the target "
			"writes while the clone lives); use -b pss",
			(int)pid, cg, (double)room / MIB, (double)need / MIB);
	return 0;
}

/* Under overcommit_memory=2, CommitLimit - Committed_AS; false otherwise. */
static bool strict_commit_room(uint64_t *room)
{
	char *mode, *meminfo;
	size_t n;
	bool strict = false;

	if (procfs_read_file("/proc/sys/vm/overcommit_memory", &mode, &n) < 0)
		return false;
	if (procfs_read_file("/proc/meminfo", &meminfo, &n) == 0) {
		strict = fork_commit_room(mode, meminfo, n, room);
		free(meminfo);
	}
	free(mode);
	return strict;
}

/* What the clone charges: every accountable region it gets a copy of. */
static uint64_t clone_commit(const struct vms_snapshot *s)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];

		if ((r->vmflags_mask & VMS_VF_AC) &&
		    !(r->vmflags_mask & VMS_VF_DC))
			sum += vms_region_size(r);
	}
	return sum;
}

static void mark_unreadable(struct vms_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->nregions; i++)
		if (s->regions[i].vmflags_mask & (VMS_VF_DC | VMS_VF_WF))
			s->regions[i].flags |= VMS_RF_UNREADABLE;
}

/* A fork that would wait for a userfaultfd monitor (fork_preflight.h):
 * refused, before anything is injected. Called inside the freeze, with
 * the regions read, so that nothing can change between the look and the
 * fork. */
static int preflight_uffd(pid_t pid, const struct vms_snapshot *s,
			  struct vms_error *err)
{
	char dir[128], link[64];
	struct dirent *de;
	DIR *d;
	size_t i, held = 0;
	bool registered = false;

	procfs_mm_path(pid, "fd", dir, sizeof(dir));
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char path[512], name[300], *b;
		uint64_t features = 0;
		ssize_t n;
		size_t len;
		bool got;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = 0;
		if (strcmp(link, "anon_inode:[userfaultfd]") != 0)
			continue;
		held++;
		snprintf(name, sizeof(name), "fdinfo/%s", de->d_name);
		if (procfs_read_pid(pid, name, &b, &len) < 0)
			continue; /* closed meanwhile */
		got = fork_uffd_features(b, len, &features);
		free(b);
		if (!got || (features & FORK_UFFD_EVENT_FORK)) {
			/* the message names de's descriptor: made before
			 * closedir frees de */
			int rc = vms_error_set(
				err, VMS_ERR_CAPTURE, EDEADLK,
				"process %d watches a userfaultfd (descriptor "
				"%s) %s: an injected fork would wait in the "
				"kernel for its monitor thread, which the "
				"freeze stops; use -b pss (the default "
				"sampler), with -F to freeze it",
				(int)pid, de->d_name,
				got ? "for fork events (UFFD_FEATURE_EVENT_FORK,"
				      " as CRIU lazy-pages and QEMU post-copy "
				      "do)"
				    : "whose features cannot be read");

			closedir(d);
			return rc;
		}
	}
	if (d)
		closedir(d);
	for (i = 0; i < s->nregions && !registered; i++)
		registered = (s->regions[i].vmflags_mask &
			      (VMS_VF_UM | VMS_VF_UW | VMS_VF_UI)) != 0;
	if (registered && !held)
		return vms_error_set(
			err, VMS_ERR_CAPTURE, EDEADLK,
			"process %d has regions registered with a userfaultfd "
			"that another process holds (a monitor such as CRIU "
			"lazy-pages): an injected fork could wait for it, and "
			"would tell it of the clone; use -b pss (the default "
			"sampler), with -F to freeze it",
			(int)pid);
	return 0;
}

/* Reads the original's counters under the keeper's freeze: only what must
 * be consistent with the fork (thread names are read after it, the commit
 * room before). room: CommitLimit - Committed_AS under strict overcommit,
 * or UINT64_MAX. pmfd >= 0: smaps was read just before the freeze, and
 * only Rss and Swap are read in it (fastfreeze.h), unless the layout
 * moved meanwhile. read_before: a read was made before the freeze (its
 * regions handed to o->regions_read), whether it could be used or not. */
static int read_original(const struct vms_capture_opts *o,
			 struct vms_snapshot *s, uint64_t room, int pmfd,
			 const struct pmscan_how *how, bool read_before,
			 bool *after_fork, struct vms_error *err)
{
	uint64_t need;
	int fast = 0;

	*after_fork = false;
	if (pmfd >= 0 && (fast = fastfreeze_counters(s, o->pid, pmfd, how,
						     !o->no_memory, err)) < 0)
		return -1;
	if (!fast) {
		struct vms_capture_opts again = *o;

		if (read_before) {
			/* Read again, all of it: the viewer has been handed
			 * the regions of the first read already. */
			sampler_forget_regions(s);
			again.regions_read = NULL;
		}
		if (sampler_read_smaps(s, o->pid, &again, err) < 0)
			return -1;
		s->cap.freeze_counters = "smaps";
	}
	*after_fork = fast && !o->no_memory;
	if (!o->no_memory && preflight_uffd(o->pid, s, err) < 0)
		return -1;
	if (sampler_read_status(s, o->pid, 0, NULL, err) < 0)
		return -1;
	if ((need = clone_commit(s)) > room)
		return vms_error_set(
			err, VMS_ERR_CAPTURE, ENOMEM,
			"overcommit_memory is 2 (strict) and the clone of "
			"process %d would charge %.1f MiB of commit, with "
			"%.1f MiB left below CommitLimit; use -b pss",
			(int)o->pid, (double)need / MIB, (double)room / MIB);
	return 0;
}

/* Whether the address space of the target as opened at the start (memfd)
 * is gone while the target lives (not exiting): it executed a new program.
 * A read through /proc/PID/mem opened before then returns 0 bytes, where a
 * live one fails with EIO. An exec under way when the error came is
 * waited for up to ms: while a thread other than the main one execs, the
 * main thread is killed first (de_thread) and /proc/PID shows it exiting,
 * the old address space still there; then the exec's thread takes PID
 * over with the new one. Exiting is therefore no answer until ms have
 * passed: a process that really exits stays exiting (a zombie until
 * reaped) with no address space, and is gone once reaped. */
static bool executed(int memfd, pid_t pid, int ms)
{
	int i;

	for (i = 0; memfd >= 0 && i <= ms; i++) {
		struct timespec ts = { 0, 1000000 };
		char c;

		if (pread(memfd, &c, 1, 0) == 0 && !procfs_pid_exiting(pid))
			return true;
		if (kill(pid, 0) < 0)
			return false;
		nanosleep(&ts, NULL);
	}
	return false;
}

/* The target's /proc/PID/mem as it is now, for executed(); -1 when it
 * cannot be opened. An exec under way by a thread other than the main one
 * makes both paths fail for a moment (the thread that had the address
 * space is gone, the main thread being released): tried again for up to
 * 200 ms while the process is there, so that an exec at the start is not
 * later taken for an exit. */
static int open_mem(pid_t pid)
{
	int i, fd = -1;

	for (i = 0; fd < 0 && i <= 200; i++) {
		struct timespec ts = { 0, 1000000 };
		char path[128];

		procfs_mm_path(pid, "mem", path, sizeof(path));
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
			fd = open(path, O_RDONLY | O_CLOEXEC);
		}
		if (fd >= 0 || errno == EACCES || errno == EPERM ||
		    kill(pid, 0) < 0)
			break;
		nanosleep(&ts, NULL);
	}
	return fd;
}

/* What an error met during the capture really was, said instead of what
 * it led to (EPERM or ESRCH from ptrace, an empty maps, a clone gone): the
 * keeper died (its socket at EOF: the kernel then let the target go and
 * killed the clone, EXITKILL); the target executed a new program
 * (executed()); it exited. Lets the keeper go. Always -1. */
static int ended(struct fork_priv *p, pid_t pid, struct vms_error *err)
{
	if (p->k.sock >= 0 && keeper_gone(&p->k, 200))
		vms_error_set(err, VMS_ERR_CAPTURE, EPIPE,
			      "the ptrace helper (vmscope-keeper, pid %d) died "
			      "during the capture; the kernel let process %d "
			      "go and killed its clone; try again",
			      (int)p->k.keeper, (int)pid);
	else if (executed(p->memfd, pid, 200))
		vms_error_set(err, VMS_ERR_CAPTURE, EAGAIN,
			      "process %d executed a new program during the "
			      "capture; try again",
			      (int)pid);
	/* "no such process" stays what it is: it was never there. */
	else if (err->kind != VMS_ERR_NOPROC && procfs_pid_exiting(pid))
		vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,
			      "process %d exited during capture", (int)pid);
	keeper_stop(&p->k);
	return -1;
}

static int fork_capture(const struct vms_capture_opts *o,
			struct vms_snapshot *s, struct vms_error *err)
{
	struct fork_priv *p = calloc(1, sizeof(*p));
	struct status_figures sf = { 0, 0, 0 };
	bool read_before = false, after_fork = false;
	uint64_t gadget, room = UINT64_MAX;

	if (!p)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	p->k.sock = -1;
	p->pmfd = -1;
	p->memfd = -1;
	s->src.ops = &fork_source;
	s->src.priv = p; /* release() undoes whatever was done */
	/* Files are opened through /proc/PID/map_files of a live thread
	 * (the main thread may have exited: procfs_mm_pid). */
	s->src.pid = procfs_mm_pid(o->pid);
	s->src.caps = VMS_SRC_FILES; /* memory once the clone is readable */
	s->src.no_memory = "no clone was made: the caller reads no memory";
	if (o->pid == getpid())
		/* The keeper would freeze the process waiting for it. */
		return vms_error_set(err, VMS_ERR_USAGE, EINVAL,
				     "vmscope cannot fork a snapshot of "
				     "itself; use -b pss");
	p->memfd = open_mem(o->pid);
	if (proclist_identity(o->pid, &s->arena, &s->proc, err) < 0 ||
	    read_status_figures(o->pid, &sf, err) < 0 ||
	    preflight_seccomp(o->pid, &sf, err) < 0 ||
	    preflight_cgroup(o->pid, &sf, err) < 0 ||
	    inject_find_gadget(o->pid, &gadget, err) < 0)
		return ended(p, o->pid, err);
	strict_commit_room(&room); /* left UINT64_MAX unless strict */
	/* The fast freeze where the kernel has PAGEMAP_SCAN: smaps now, while
	 * the target runs. Not for a snapshot file, which keeps the smaps
	 * text as read and must hold the figures shown. */
	if (!o->exact && !o->keep_raw && pmscan_zero_ok() &&
	    (p->pmfd = pmscan_open(o->pid, &p->how)) >= 0) {
		read_before = true;
		if (sampler_read_smaps(s, o->pid, o, err) < 0) {
			/* A text that kept moving under the read (its
			 * records overlap: the target maps meanwhile) is
			 * read in the freeze; anything else is an end. */
			if (err->kind != VMS_ERR_CAPTURE ||
			    err->err != EAGAIN || procfs_pid_exiting(o->pid))
				return ended(p, o->pid, err);
			close(p->pmfd);
			p->pmfd = -1;
		}
	}
	/* what reading the clone's pages needs once a run, before the
	 * freeze: the hold pays none of it */
	if (!o->no_memory)
		memread_prepare();
	if (keeper_start(&p->k, o->pid, gadget, FREEZE_MAX_MS, "use -b pss",
			 err) < 0)
		return ended(p, o->pid, err);
	/* Its files, held while it is frozen (its pid cannot name another
	 * process meanwhile) for every later open (procfile.h). */
	procfile_hold(s, s->src.pid);
	if (read_original(o, s, room, p->pmfd, &p->how, read_before,
			  &after_fork, err) < 0) {
		return ended(p, o->pid, err);
	}
	if (p->pmfd >= 0) {
		close(p->pmfd);
		p->pmfd = -1;
	}
	/* Nothing will read the clone: no fork at all, only the freeze. */
	if ((o->no_memory ? keeper_release(&p->k, err)
			  : keeper_fork(&p->k, err)) < 0)
		return ended(p, o->pid, err);
	/* The large anonymous regions' Rss and Swap, from the clone's page
	 * tables (the fork's instant), before its memory is read. */
	if (after_fork &&
	    fastfreeze_clone_counters(s, p->k.clone, &p->how, err) < 0) {
		return ended(p, o->pid, err);
	}
	/* Stack pointers as frozen; names now (the target runs again). */
	if (sampler_threads_from_freeze(s, &p->k.fz, err) < 0) {
		return ended(p, o->pid, err);
	}
	s->cap.frozen = true;
	s->cap.frozen_us = p->k.frozen_us;
	observer_note(s);
	mark_unreadable(s);
	if (o->no_memory) {
		keeper_stop(&p->k);
		return 0;
	}
	if (memread_open(&p->mem, p->k.clone, err) < 0) {
		return ended(p, o->pid, err);
	}
	p->mem_open = true;
	s->src.caps |= VMS_SRC_MEMORY | VMS_SRC_CONSISTENT;
	s->src.no_memory = NULL;
	return 0;
}

/* len clipped so that [addr, addr+len) lies in readable regions without
 * gaps; 0 when addr itself is not in one. */
static size_t readable_span(const struct vms_snapshot *s, uint64_t addr,
			    size_t len)
{
	ptrdiff_t i = vms_snapshot_find_index(s, addr);
	uint64_t end = addr + len, at = addr;

	if (i < 0)
		return 0;
	for (; (size_t)i < s->nregions && at < end; i++) {
		const struct vms_region *r = &s->regions[i];

		if (r->start > at || (r->flags & VMS_RF_UNREADABLE))
			break;
		at = r->end;
	}
	return (size_t)((at < end ? at : end) - addr);
}

static ssize_t fork_read_mem(struct vms_snapshot *s, uint64_t addr, void *buf,
			     size_t len, struct vms_error *err)
{
	struct fork_priv *p = s->src.priv;

	if (!p || !p->mem_open)
		return 0;
	len = readable_span(s, addr, len);
	if (!len)
		return 0;
	return memread_read(&p->mem, addr, buf, len, err);
}

/* The clone's pagemap: its pages are the original's as of the fork
 * (shared copy-on-write, so present in one is present in both). */
static int fork_present(struct vms_snapshot *s, uint64_t addr, size_t npages,
			unsigned char *out, struct vms_error *err)
{
	struct fork_priv *p = s->src.priv;

	if (!p || !p->mem_open)
		return vms_error_set(err, VMS_ERR_CAPTURE, 0,
				     "the clone is gone");
	return memread_present(&p->mem, addr, npages, out, err);
}

/* The clone's page tables: present and swapped as the original's at the
 * fork; every page is shared with the original, so which were the
 * original's alone is not told. */
static int fork_pages(struct vms_snapshot *s, uint64_t addr, size_t npages,
		      unsigned char *out, struct vms_error *err)
{
	struct fork_priv *p = s->src.priv;
	size_t i;

	if (!p || !p->mem_open)
		return vms_error_set(err, VMS_ERR_CAPTURE, 0,
				     "the clone is gone");
	if (memread_pages(&p->mem, addr, npages, out, err) < 0)
		return -1;
	for (i = 0; i < npages; i++)
		out[i] &= (unsigned char)~VMS_PG_EXCL;
	return 0;
}

static void fork_release(struct vms_snapshot *s)
{
	struct fork_priv *p = s->src.priv;

	if (!p)
		return;
	if (p->mem_open)
		memread_close(&p->mem);
	if (p->pmfd >= 0)
		close(p->pmfd);
	if (p->memfd >= 0)
		close(p->memfd);
	keeper_stop(&p->k);
	free(p);
	s->src.priv = NULL;
}

static const struct vms_source_ops fork_source = {
	.name = "fork",
	.read_mem = fork_read_mem,
	.present = fork_present,
	.pages = fork_pages,
	.open_file = vms_source_proc_open,
	.stat_file = vms_source_proc_stat,
	.fs_magic = vms_source_proc_fs_magic,
	.release = fork_release,
};

const struct vms_sampler vms_sampler_fork = {
	.name = "fork",
	.capture = fork_capture,
};
