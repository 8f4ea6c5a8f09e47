/* inject_ptrace.c — the ptrace half of inject.h: running one system call
 * in a stopped thread of another process (inject_syscall), and what goes
 * with it: registers, stops, signals met on the way, rseq.
 */
#include "inject.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Waits for tid's next report: 0 with *st when stopped, -1 when it exited
 * or cannot be waited for. */
int inject_wait_stop(pid_t tid, int *st)
{
	for (;;) {
		pid_t w = waitpid(tid, st, __WALL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 || !WIFSTOPPED(*st))
			return -1;
		return 0;
	}
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
		   pid_t *child, struct vms_error *err)
{
	struct user_regs_struct r = *saved;
	int st, sysstops = 0;
	bool done = false;

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

		if (inject_wait_stop(tid, &st) < 0)
			return vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,
					     "thread %d exited during the "
					     "injected call",
					     (int)tid);
		ev = st >> 16;
		s = WSTOPSIG(st);
		if (s == (SIGTRAP | 0x80)) {
			if (++sysstops == 2)
				break; /* syscall-exit stop */
		} else if (ev == PTRACE_EVENT_CLONE || ev == PTRACE_EVENT_FORK ||
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
		if (inject_wait_stop(tid, &st) < 0)
			return vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,
					     "thread %d exited during the "
					     "injected call",
					     (int)tid);
		if ((st >> 16) == PTRACE_EVENT_STOP)
			break;
		ptrace(PTRACE_CONT, tid, NULL,
		       (void *)(long)inject_delivery_sig(st));
	}
	if (!done)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "cannot run a system call in thread %d",
				     (int)tid);
	return 0;
}
