/* nosys — runs a command as on a kernel without some system calls: a
 * seccomp filter answers each named call ENOSYS, as a kernel that lacks it
 * does, then the command is executed (the filter stays with it, its
 * children and the programs they run).
 *
 *   nosys CALL[,CALL...] CMD [ARGS...]
 *
 * CALL: process_madvise or pidfd_open (what tests/tui/test_ews.py takes
 * away from Empty Working Set), openat2, process_vm_readv, memfd_create,
 * execveat or madvise_populate_write (tests/live/test_kernel_lacks.py).
 * madvise_populate_write is not a call: madvise with MADV_POPULATE_WRITE
 * (Linux 5.14) gets EINVAL, as an older kernel answers an advice it does
 * not know; other advice is let through. mdwe is not a call either: the
 * command runs under prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN) (Linux
 * 6.3; what systemd's MemoryDenyWriteExecute= sets), where a mapping not
 * executable may not become so (tests/live/test_selfcopy_pages.py). Exit
 * status 127 and a line on stderr if the filter or the prctl cannot be
 * set or CMD not run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "nosys: add this architecture's AUDIT_ARCH"
#endif

#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

static const struct {
	const char *name;
	long nr;
} calls[] = {
	{ "process_madvise", SYS_process_madvise },
	{ "pidfd_open", SYS_pidfd_open },
	{ "openat2", SYS_openat2 },
	{ "process_vm_readv", SYS_process_vm_readv },
	{ "memfd_create", SYS_memfd_create },
	{ "execveat", SYS_execveat },
};

int main(int argc, char **argv)
{
	struct sock_filter f[32];
	struct sock_fprog prog;
	char list[256], *tok, *save;
	unsigned n = 0, k, i;
	long nr[8];
	unsigned nnr = 0;
	bool populate = false, mdwe = false;

	if (argc < 3) {
		fprintf(stderr, "usage: nosys CALL[,CALL...] CMD [ARGS...]\n");
		return 127;
	}
	snprintf(list, sizeof(list), "%s", argv[1]);
	for (tok = strtok_r(list, ",", &save); tok && nnr < 8;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "madvise_populate_write")) {
			populate = true;
			continue;
		}
		if (!strcmp(tok, "mdwe")) {
			mdwe = true;
			continue;
		}
		for (k = 0; k < sizeof(calls) / sizeof(calls[0]); k++)
			if (!strcmp(tok, calls[k].name))
				break;
		if (k == sizeof(calls) / sizeof(calls[0])) {
			fprintf(stderr, "nosys: unknown call %s\n", tok);
			return 127;
		}
		nr[nnr++] = calls[k].nr;
	}
	/* another architecture's calls: allowed (this one's numbers only) */
	f[n++] = (struct sock_filter)BPF_STMT(
		BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH,
					      1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(
		BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	if (populate) {
		/* madvise(, , 23): EINVAL; the number loaded again after */
		f[n++] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JEQ | BPF_K, SYS_madvise, 0, 4);
		f[n++] = (struct sock_filter)BPF_STMT(
			BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, args[2]));
		f[n++] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JEQ | BPF_K, 23 /* MADV_POPULATE_WRITE */,
			0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(
			BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL);
		f[n++] = (struct sock_filter)BPF_STMT(
			BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, nr));
	}
	for (i = 0; i < nnr; i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr[i], 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(
			BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)n;
	prog.filter = f;
	/* PR_SET_MDWE 65, PR_MDWE_REFUSE_EXEC_GAIN 1 */
	if (mdwe && prctl(65, 1, 0, 0, 0)) {
		perror("nosys: PR_SET_MDWE");
		return 127;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("nosys: seccomp");
		return 127;
	}
	execvp(argv[2], argv + 2);
	perror("nosys: exec");
	return 127;
}
