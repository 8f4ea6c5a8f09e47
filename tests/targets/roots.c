/* roots — maps a library from inside a root of its own, and can change
 * root later.
 *
 *   roots [-r ROOT] LIB [LATER]
 *
 * With -r, chroot(ROOT) first (libc is loaded already: nothing else is
 * needed inside). Then dlopen(LIB), LIB as seen from its root, prints
 * "ready base=0xADDR" and waits. On SIGUSR1 it chroots into LATER (as
 * seen from its root then) and prints "moved" (or "not moved: ERRNO"). A
 * test points vmscope at it to see that the files of its images are found
 * in its root, not in vmscope's, and in the root it had when it was
 * captured.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t move_asked;

static void on_usr1(int sig)
{
	(void)sig;
	move_asked = 1;
}

int main(int argc, char **argv)
{
	const char *root = NULL, *later;
	struct link_map *lm;
	sigset_t none, usr1;
	void *h;
	int i = 1;

	if (argc > 2 && strcmp(argv[1], "-r") == 0) {
		root = argv[2];
		i = 3;
	}
	if (i >= argc)
		return 2;
	later = i + 1 < argc ? argv[i + 1] : NULL;
	if (root && (chroot(root) != 0 || chdir("/") != 0)) {
		printf("not ready: chroot %s: %s\n", root, strerror(errno));
		return 3;
	}
	h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0) {
		printf("not ready: %s\n", dlerror());
		return 4;
	}
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &none);
	signal(SIGUSR1, on_usr1);
	printf("ready base=%#lx\n", (unsigned long)lm->l_addr);
	fflush(stdout);
	for (;;) {
		sigsuspend(&none);
		if (!move_asked)
			continue;
		move_asked = 0;
		if (later && chroot(later) == 0 && chdir("/") == 0)
			printf("moved\n");
		else
			printf("not moved: %s\n", strerror(errno));
		fflush(stdout);
	}
}
