/* inject_ptrace.c — the ptrace half of inject.h: running one system call
 * in a stopped thread of another process (inject_syscall), and what goes
 * with it: registers, stops, signals met on the way, rseq.
 */
#include "capture/ptrace/inject.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "capture/ptrace/freeze.h"
#include "linux/procfs.h"

/* How long the injected call may take (INJECT_CALL_MS): a fork of a very
 * large process with 4 KiB pages takes ~30 ms a GiB here, more under load.
 * Past it, a thread held in its call is looked at this often. */
#define CALL_MS INJECT_CALL_MS
#define HELD_POLL_MS 1000
/* How long a thread sent PTRACE_INTERRUPT may take to stop. */
#define STOP_MS 2000

int inject_getregs(pid_t tid, struct user_regs_struct *r)
{
	struct iovec iov = { r, sizeof(*r) };

	return (int)ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov);
}

static int setregs(pid_t tid, const struct user_regs_struct *r)
{
	struct iovec iov = { (void *)r, sizeof(*r) };

	return (int)ptrace(PTRACE_SETREGSET, tid, (void *)NT_PRSTATUS, &iov);
}

/* Whether tracee tid has an exit waiting (peeked: WNOWAIT; a ptrace stop
 * is reported to any wait, so only a peek leaves it for its own). */
static bool exit_waiting(pid_t tid)
{
	siginfo_t si;

	si.si_pid = 0;
	if (waitid(P_PID, (id_t)tid, &si,
		   WEXITED | WNOHANG | WNOWAIT | __WALL) < 0 ||
	    si.si_pid != tid)
		return false;
	return si.si_code == CLD_EXITED || si.si_code == CLD_KILLED ||
	       si.si_code == CLD_DUMPED;
}

/* Reaps the exits waiting among the threads of tid's process other than
 * tid: a thread killed while traced is a zombie until its tracer reaps it,
 * and an exec (de_thread) or the zombie main thread's own report waits for
 * that. */
static void reap_siblings(pid_t tgid, pid_t tid)
{
	pid_t *tids;
	size_t n, i;

	if (procfs_list_tasks(tgid, &tids, &n) < 0)
		return;
	for (i = 0; i < n; i++)
		if (tids[i] != tid && exit_waiting(tids[i]))
			waitpid(tids[i], NULL, __WALL | WNOHANG);
	free(tids);
}

static pid_t tgid_of(pid_t tid)
{
	char *b;
	size_t n;
	long long v;

	if (procfs_read_pid(tid, "status", &b, &n) < 0)
		return tid;
	v = procfs_status_value(b, n, "Tgid");
	free(b);
	return v > 0 ? (pid_t)v : tid;
}

int inject_wait_stop(pid_t tid, int *st, int ms)
{
	uint64_t t0 = vms_mono_ns();
	pid_t tgid = 0;
	long spins = 0;

	for (;;) {
		pid_t w = waitpid(tid, st, __WALL | WNOHANG);

		if (w == tid) {
			if (WIFSTOPPED(*st))
				return 0;
			errno = ESRCH;
			return -1;
		}
		if (w < 0 && errno != EINTR) {
			errno = ESRCH;
			return -1;
		}
		if (++spins >= 50) { /* not a quick one: look around */
			if (!tgid)
				tgid = tgid_of(tid);
			reap_siblings(tgid, tid);
		}
		if ((int64_t)vms_ms_since(t0) > ms) {
			errno = ETIMEDOUT;
			return -1;
		}
		freeze_nap(spins < 50 ? 20000 : 200000);
	}
}

/* ---- Syscall User Dispatch (Linux 6.4+ can read and set it) ---- */

#define VMS_PTRACE_SET_SUD 0x4210
#define VMS_PTRACE_GET_SUD 0x4211

int inject_sud_off(pid_t tid, struct inject_sud *saved)
{
	struct inject_sud off;

	memset(saved, 0, sizeof(*saved));
	memset(&off, 0, sizeof(off));
	if (ptrace((enum __ptrace_request)VMS_PTRACE_GET_SUD, tid,
		   (void *)sizeof(*saved), saved) < 0)
		return errno == EIO || errno == EINVAL ? 0 : -1;
	if (!saved->mode)
		return 0;
	return (int)ptrace((enum __ptrace_request)VMS_PTRACE_SET_SUD, tid,
			   (void *)sizeof(off), &off);
}

void inject_sud_restore(pid_t tid, const struct inject_sud *saved)
{
	if (saved->mode)
		ptrace((enum __ptrace_request)VMS_PTRACE_SET_SUD, tid,
		       (void *)sizeof(*saved), (void *)saved);
}

/* ---- the instruction that will run ---- */

/* Whether [addr, addr + len) lies in one executable mapping of pid: by
 * PROCMAP_QUERY where the kernel has it (one ioctl, inside the freeze;
 * reading the text up to libc took 14 ms of it on 65,000 regions), else
 * from the text. */
static bool executable(pid_t pid, uint64_t addr, size_t len)
{
	char path[64], line[512];
	FILE *f;
	bool yes = false;
	uint64_t vstart, vend;
	int got = procfs_vma_at(pid, addr, &vstart, &vend, &yes);

	if (got >= 0)
		return got == 1 && yes && addr + len <= vend;
	yes = false;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		char perms[8];

		if (!strchr(line, '\n') && !feof(f)) {
			int c; /* a long path: skip the rest of the line */

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) != 3)
			continue;
		if (addr < lo)
			break;
		if (addr + len <= hi) {
			yes = perms[2] == 'x';
			break;
		}
	}
	fclose(f);
	return yes;
}

int inject_verify_gadget(pid_t pid, uint64_t gadget, struct vms_error *err)
{
	char path[128];
	uint8_t code[16];
	ssize_t got = -1;
	pid_t mm = procfs_mm_pid(pid); /* the main thread may have exited */
	int fd;

	if (!executable(mm, gadget, inject_insn_len))
		return vms_error_set(
			err, VMS_ERR_CAPTURE, EFAULT,
			"the system-call instruction found at %#llx "
			"in process %d is no longer in executable "
			"memory",
			(unsigned long long)gadget, (int)pid);
	/* Read whether present or not (unlike memread.h): running the
	 * instruction faults in the very same page anyway. */
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)mm);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		got = pread(fd, code, inject_insn_len, (off_t)gadget);
		close(fd);
	}
	if (got != (ssize_t)inject_insn_len)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno ? errno : EIO,
				     "cannot read the code at %#llx in process "
				     "%d: %s",
				     (unsigned long long)gadget, (int)pid,
				     strerror(errno ? errno : EIO));
	if (inject_decode_syscall(code, inject_insn_len) != 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, EILSEQ,
				     "the system-call instruction at %#llx in "
				     "process %d has been rewritten in memory "
				     "(a syscall interceptor or hot patch?)",
				     (unsigned long long)gadget, (int)pid);
	return 0;
}

/* rseq (CRIU's fixup_thread_rseq). A thread stopped inside an rseq
 * critical section and resumed at the gadget returns to user mode outside
 * the section, so the kernel clears its rseq->rseq_cs; putting the saved ip
 * back inside the section would then leave the section unprotected until
 * the thread enters it again. What the kernel would have done had the
 * thread been preempted there: restart at the section's abort ip. */
#define VMS_PTRACE_GET_RSEQ_CONFIGURATION 0x420f

struct vms_rseq_config {
	uint64_t abi_pointer;
	uint32_t abi_size, signature, flags, pad;
};

struct vms_rseq_cs {
	uint32_t version, flags;
	uint64_t start_ip, post_commit_offset, abort_ip;
};

static int read_tid_mem(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	char path[64];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, buf, len, (off_t)addr);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/* Where tid, stopped with registers r, must resume: *abort_ip and 1 when r's
 * ip lies in the rseq critical section tid has entered; 0 when it does not
 * (or tid has no rseq, or the kernel cannot say: nothing to fix then). Must
 * be called before tid is resumed anywhere else. */
int inject_rseq_abort_ip(pid_t tid, const struct user_regs_struct *r,
			 uint64_t *abort_ip)
{
	struct vms_rseq_config conf;
	struct vms_rseq_cs cs;
	uint64_t ptr, ip = inject_regs_ip(r);

	memset(&conf, 0, sizeof(conf));
	if (ptrace((enum __ptrace_request)VMS_PTRACE_GET_RSEQ_CONFIGURATION,
		   tid, (void *)sizeof(conf), &conf) < 0 ||
	    !conf.abi_pointer ||
	    read_tid_mem(tid, conf.abi_pointer + 8, &ptr, sizeof(ptr)) < 0 ||
	    !ptr || read_tid_mem(tid, ptr, &cs, sizeof(cs)) < 0)
		return 0;
	if (ip - cs.start_ip >= cs.post_commit_offset)
		return 0;
	*abort_ip = cs.abort_ip;
	return 1;
}

/* Applies inject_rseq_abort_ip() to r; 1 when it moved ip. */
int inject_rseq_fixup(pid_t tid, struct user_regs_struct *r)
{
	uint64_t abort_ip;

	if (!inject_rseq_abort_ip(tid, r, &abort_ip))
		return 0;
	inject_regs_set_ip(r, abort_ip);
	return 1;
}

/* A stop that is a signal-delivery stop: its signal, else 0. Syscall
 * stops (TRACESYSGOOD), ptrace events and group or interrupt stops are not
 * (a plain SIGTRAP with no event is a real signal). */
int inject_delivery_sig(int st)
{
	return (st >> 16) == 0 && WSTOPSIG(st) != (SIGTRAP | 0x80)
		       ? WSTOPSIG(st)
		       : 0;
}

int inject_syscall(pid_t tid, const struct user_regs_struct *saved,
		   uint64_t gadget, long nr, const uint64_t a[6], long *ret,
		   pid_t *child, const struct inject_late *lt,
		   struct vms_error *err)
{
	struct user_regs_struct r = *saved;
	int st, sysstops = 0, ms = CALL_MS;
	bool done = false, late = false, held = false;

	*child = 0;
	*ret = -ENOSYS;
	inject_prepare(&r, gadget, nr, a);
	if (setregs(tid, &r) < 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "cannot set registers of thread %d: %s",
				     (int)tid, strerror(errno));
	if (ptrace(PTRACE_SYSCALL, tid, NULL, NULL) < 0)
		goto restore;
	for (;;) {
		int ev, s, give = 0;

		if (inject_wait_stop(tid, &st, ms) < 0) {
			if (errno == ETIMEDOUT && !late) {
				/* Never came back (a call that does not
				 * end, code that loops): stop it where it
				 * is and put everything back. */
				late = true;
				ms = STOP_MS;
				ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
				continue;
			}
			if (errno == ETIMEDOUT) {
				/* Still in the call, where an interrupt does
				 * not reach: never let it go there (inject.h);
				 * wait for as long as it lives. */
				if (!held && lt)
					lt->fn(lt->arg, tid);
				held = true;
				ms = HELD_POLL_MS;
				continue;
			}
			return vms_error_set(
				err, VMS_ERR_CAPTURE, ESRCH,
				errno == ETIMEDOUT ? "thread %d did not stop "
						     "after the injected call"
						   : "thread %d exited during "
						     "the injected call",
				(int)tid);
		}
		ev = st >> 16;
		s = WSTOPSIG(st);
		if (ev == PTRACE_EVENT_EXEC)
			return vms_error_set(err, VMS_ERR_CAPTURE, EAGAIN,
					     "the process executed a new "
					     "program during the capture");
		if (late && !held && ev == PTRACE_EVENT_STOP)
			goto restore; /* our interrupt: at a stop, not done */
		if (held && ev == PTRACE_EVENT_STOP) {
			/* our interrupt, met on the way out of the call */
			if (ptrace(PTRACE_SYSCALL, tid, NULL, NULL) < 0)
				goto restore;
			continue;
		}
		if (s == (SIGTRAP | 0x80)) {
			if (++sysstops == 2)
				break; /* syscall-exit stop */
		} else if (ev == PTRACE_EVENT_CLONE ||
			   ev == PTRACE_EVENT_FORK ||
			   ev == PTRACE_EVENT_VFORK) {
			unsigned long msg = 0;

			ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg);
			*child = (pid_t)msg;
		} else {
			/* A signal-delivery stop: hand the signal back now,
			 * siginfo kept; blocked (the caller blocked all) it is
			 * queued again and delivered once the mask is back. */
			give = inject_delivery_sig(st);
		}
		if (ptrace(PTRACE_SYSCALL, tid, NULL, (void *)(long)give) < 0)
			goto restore;
	}
	if (inject_getregs(tid, &r) == 0) {
		*ret = inject_result(&r);
		done = true;
	}
restore:
	/* Back to exactly the saved registers, then through one more
	 * interrupt stop so the kernel's own restart rules run (inject.h). */
	if (setregs(tid, saved) < 0 ||
	    ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0 ||
	    ptrace(PTRACE_CONT, tid, NULL, NULL) < 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "cannot restore thread %d: %s", (int)tid,
				     strerror(errno));
	for (;;) {
		if (inject_wait_stop(tid, &st, STOP_MS) < 0)
			return vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,
					     "thread %d %s after the injected "
					     "call",
					     (int)tid,
					     errno == ETIMEDOUT ? "did not stop"
								: "exited");
		if ((st >> 16) == PTRACE_EVENT_STOP)
			break;
		if ((st >> 16) == PTRACE_EVENT_EXEC)
			return vms_error_set(err, VMS_ERR_CAPTURE, EAGAIN,
					     "the process executed a new "
					     "program during the capture");
		ptrace(PTRACE_CONT, tid, NULL,
		       (void *)(long)inject_delivery_sig(st));
	}
	if (held)
		return vms_error_set(err, VMS_ERR_CAPTURE, ETIMEDOUT,
				     "the injected call in thread %d returned "
				     "only after more than %d ms; thread put "
				     "back",
				     (int)tid, CALL_MS);
	if (!done)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno ? errno : EIO,
				     late ? "the injected call in thread %d "
					    "did not return within %d ms; "
					    "thread put back"
					  : "cannot run a system call in "
					    "thread %d",
				     (int)tid, CALL_MS / 1000 * 1000);
	return 0;
}
