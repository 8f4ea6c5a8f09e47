/* trace_children — a traced program's children (vmscope --trace
 * --trace-children):
 *
 *   fork K S  (argv[1] = "fork"): main allocates a block of 3333 bytes in
 *             before_fork(), then forks a child that leaks K blocks of S
 *             bytes in child_leak() and frees the 3333-byte block (its
 *             copy of it: the child's business, never the parent's free)
 *             and exits 0; the parent leaks 5 blocks of 1234 bytes in
 *             parent_leak(), waits for the child, prints one line with
 *             K, S and the child's exit status, and exits 0 (the 3333
 *             bytes still held);
 *   spin DIR  (argv[1] = "spin"): forks a child (no exec) and a child
 *             that execs this program ("spinleaf DIR"); each of the
 *             three allocates and frees in rounds of 10,000 pairs until
 *             the file DIR/stop exists, then 5 rounds more, and writes
 *             "done" to DIR/<its role> (parent, fork, exec); the parent
 *             writes its own after the children's exit statuses ("done
 *             0 0"). A trace that vmscope leaves midway (killed) must let
 *             all three finish.
 * Built as the C targets are (-O1: no frame pointers on x86-64).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void *kept[4096]; /* the leaks: held (not static: the compiler keeps them) */

__attribute__((noinline)) static void *before_fork(void)
{
	return malloc(3333);
}

__attribute__((noinline)) static void child_leak(int k, size_t s)
{
	int i;

	for (i = 0; i < k && i < 4096; i++) {
		kept[i] = malloc(s);
		memset(kept[i], 1, s);
	}
}

__attribute__((noinline)) static void parent_leak(void)
{
	int i;

	for (i = 0; i < 5; i++)
		kept[i] = malloc(1234);
}

static int fork_mode(int k, size_t s)
{
	void *shared = before_fork();
	int st = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		child_leak(k, s);
		free(shared); /* the child's copy */
		exit(0);
	}
	parent_leak();
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	printf("fork %d %zu: child exit %d\n", k, s,
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return shared ? 0 : 1;
}

__attribute__((noinline)) static void spin_round(void)
{
	int i;

	for (i = 0; i < 10000; i++) {
		void *p = malloc(16 + (size_t)(i % 64));

		__asm__ volatile("" : : "r"(p) : "memory");
		free(p);
	}
}

static void spin(const char *dir)
{
	char stop[4096];
	int i;

	snprintf(stop, sizeof(stop), "%s/stop", dir);
	while (access(stop, F_OK) != 0)
		spin_round();
	for (i = 0; i < 5; i++)
		spin_round();
}

static void done(const char *dir, const char *role, const char *what)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, role);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%s\n", what);
		fclose(f);
	}
}

static int spin_mode(const char *self, const char *dir)
{
	pid_t a, b;
	int sa = -1, sb = -1;
	char what[64];

	fflush(stdout);
	if ((a = fork()) == 0) {
		spin(dir);
		done(dir, "fork", "done");
		exit(0);
	}
	if ((b = fork()) == 0) {
		execl(self, self, "spinleaf", dir, (char *)NULL);
		_exit(127);
	}
	if (a < 0 || b < 0)
		return 1;
	spin(dir);
	waitpid(a, &sa, 0);
	waitpid(b, &sb, 0);
	snprintf(what, sizeof(what), "done %d %d",
		 WIFEXITED(sa) ? WEXITSTATUS(sa) : -1,
		 WIFEXITED(sb) ? WEXITSTATUS(sb) : -1);
	done(dir, "parent", what);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "fork") == 0)
		return fork_mode(atoi(argv[2]), (size_t)atol(argv[3]));
	if (argc >= 3 && strcmp(argv[1], "spin") == 0)
		return spin_mode(argv[0], argv[2]);
	if (argc >= 3 && strcmp(argv[1], "spinleaf") == 0) {
		spin(argv[2]);
		done(argv[2], "exec", "done");
		return 0;
	}
	fprintf(stderr, "usage: trace_children fork K S | spin DIR\n");
	return 2;
}
