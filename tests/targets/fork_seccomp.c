/* fork_seccomp — a target with a seccomp filter (one that allows every
 * call), or with argv[1] "strict" in strict seccomp mode (read, write,
 * exit and sigreturn only: any other call kills it): the fork sampler must
 * refuse both. Prints "ready", then waits for stdin to close. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter allow[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { 1, allow };
	char c;

	if (argc > 1 && strcmp(argv[1], "strict") == 0) {
		printf("ready strict\n");
		fflush(stdout);
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT))
			return 1;
		while (read(0, &c, 1) > 0)
			;
		syscall(SYS_exit, 0); /* exit_group is not allowed */
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return 1;
	printf("ready\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
