/* trace_seccomp — a sandboxed server's shape: it starts, then installs a
 * seccomp filter that kills the whole process on any open (open, openat,
 * openat2, creat), applied to every thread (SECCOMP_FILTER_FLAG_TSYNC)
 * and inherited by the threads made later, without libseccomp.
 *
 *   run  (argv[1] = "run", or none): a thread started before the filter
 *        waits for it, then four threads are started after it; each of
 *        the five allocates its first block after the filter and leaks
 *        100 blocks of its own size (1000 + thread * 8 bytes) in
 *        sandboxed_leaks() and frees 50 more; the main thread then leaks
 *        10 blocks of 4321 bytes in main_leaks(). Prints one line of what
 *        it did and exits 0 (killed: SIGSYS, the filter's verdict, by
 *        anything in the process that opens a file after the filter);
 *   wait (argv[1] = "wait"): installs the filter, prints "ready", and
 *        waits for stdin to close (a read: what vmscope's injection looks
 *        for), then does what "run" does, to show it still can.
 * Built as the C targets are (-O1: no frame pointers on x86-64).
 */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define THREADS 5

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int filtered;
static long leaked[THREADS + 1];

static int install_filter(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_open, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_creat, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 437 /* openat2 */, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_TSYNC, &prog);
}

__attribute__((noinline)) static long sandboxed_leaks(int k)
{
	size_t n = 1000 + (size_t)k * 8;
	long bytes = 0;
	int i;

	for (i = 0; i < 150; i++) {
		char *p = malloc(n);

		if (!p)
			return -1;
		memset(p, k, n);
		if (i % 3 == 2) {
			free(p);
			continue;
		}
		bytes += (long)n; /* leaked */
		__asm__ volatile("" : : "r"(p) : "memory");
	}
	return bytes;
}

static void *worker(void *arg)
{
	int k = (int)(long)arg;

	pthread_mutex_lock(&mu);
	while (!filtered)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	leaked[k] = sandboxed_leaks(k);
	return NULL;
}

__attribute__((noinline)) static long main_leaks(void)
{
	long bytes = 0;
	int i;

	for (i = 0; i < 10; i++) {
		void *p = malloc(4321);

		__asm__ volatile("" : : "r"(p) : "memory");
		bytes += p ? 4321 : 0;
	}
	return bytes;
}

static int run(pthread_t early)
{
	pthread_t t[THREADS];
	long total = 0;
	int k;

	t[0] = early;
	for (k = 1; k < THREADS; k++)
		if (pthread_create(&t[k], NULL, worker, (void *)(long)k))
			return 2;
	for (k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	leaked[THREADS] = main_leaks();
	for (k = 0; k <= THREADS; k++)
		total += leaked[k];
	printf("sandboxed: %d threads, %ld bytes leaked\n", THREADS, total);
	return 0;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "run";
	pthread_t early;
	char c;

	/* the early thread exists before the filter (TSYNC reaches it) and
	 * allocates only after it */
	if (pthread_create(&early, NULL, worker, (void *)0L))
		return 2;
	if (install_filter()) {
		perror("seccomp");
		return 1;
	}
	if (strcmp(how, "wait") == 0) {
		printf("ready\n");
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
	}
	pthread_mutex_lock(&mu);
	filtered = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	return run(early);
}
