/* traced_calls — what the tracer must get right besides plain malloc:
 *
 *   libc  (argv[1] = "libc"): own_function() allocates through libc's own
 *         callers of malloc (tsearch's nodes, strdup's copies), 100 and 50
 *         times, leaking them: every stack must reach own_function through
 *         libc, which Debian builds without frame pointers;
 *   mix   (argv[1] = "mix"): four threads each leak 100 blocks of their
 *         own size (1000 + thread * 8 bytes) and free 50 more; a signal
 *         handler the main thread runs (SIGUSR1 to itself) leaks 3 blocks
 *         of 777 bytes; a forked child allocates 1000 blocks of 555
 *         bytes (its rings would be its parent's: it must record nothing)
 *         and exits; an exec'd child (this program, "env") prints
 *         LD_PRELOAD and VMSCOPE_TRACE_FD as it sees them (the tracer
 *         takes itself out for children);
 *   hold  (argv[1] = "hold", argv[2] = N, default 0, argv[3] = a path):
 *         leaks 10 blocks of 3000 bytes in hold_leak() and N times 20
 *         blocks of 5000 bytes in grow_leak(), maps 1 MiB in hold_map()
 *         (named "hold-map" where the kernel names anonymous maps; its
 *         address, in hex, into the file argv[3] when given), then waits
 *         for signals: each SIGUSR1 makes it leak 20 more in grow_leak();
 *         SIGTERM ends it (the viewer's test drives it while vmscope
 *         traces it; two runs with another N are two traced snapshots to
 *         compare);
 *   quiet (argv[1] = "quiet"): calls nothing the tracer records and
 *         exits 0 (a program that ends before vmscope sees it call
 *         anything); "gone": the same by _exit(0) (no exit handler runs);
 *   brief (argv[1] = "brief"): leaks hold_leak()'s 10 blocks of 3000
 *         bytes and exits 0 at once (a program of a few milliseconds);
 *   handoff (argv[1] = "handoff"): a producer thread allocates 20,000
 *         blocks in produce() (24 + (i % 5) * 8 bytes), keeps every 100th
 *         (200 blocks, leaked) and hands the rest through a queue to a
 *         consumer thread, which grows each in move_on() with realloc to
 *         (its size + 40) and frees it: freed blocks go back to the
 *         producer's arena, so addresses pass between the threads
 *         thousands of times, and the trace is right only if their calls
 *         are read in the order they happened;
 *   spin  (argv[1] = "spin", argv[2] = a path): allocates and frees in a
 *         loop until it has done 20 rounds of 100,000 pairs, then writes
 *         "done" to the path and exits 0 (a trace that vmscope leaves
 *         midway must let it finish).
 * Prints what it did, one line, and exits 0. Built as the C targets are
 * (-O1: no frame pointers on x86-64).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <search.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int keys[100];
static char *copies[50]; /* kept: a leak the compiler cannot drop */

__attribute__((noinline)) static void own_function(void)
{
	void *root = NULL;
	int i;

	for (i = 0; i < 100; i++) {
		keys[i] = i * 7;
		tsearch(&keys[i], &root, cmp_int);
	}
	for (i = 0; i < 50; i++)
		copies[i] = strdup(keys[i] & 1 ? "odd, leaked" : "even, leaked");
}

__attribute__((noinline)) static void *thread_leaks(void *arg)
{
	size_t size = 1000 + (size_t)(uintptr_t)arg * 8;
	int i;

	for (i = 0; i < 100; i++)
		memset(malloc(size), 1, 8);
	for (i = 0; i < 50; i++)
		free(memset(malloc(size), 2, 8));
	return NULL;
}

static void on_usr1(int sig)
{
	int i;

	(void)sig;
	for (i = 0; i < 3; i++)
		memset(malloc(777), 3, 8);
}

static int mix(const char *self)
{
	pthread_t t[4];
	pid_t pid;
	int i, st;

	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_leaks, (void *)(uintptr_t)i);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < 1000; i++)
			memset(malloc(555), 4, 8);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl(self, self, "env", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	printf("mix: 4 threads, a handler, a fork, an exec\n");
	return 0;
}

#define HANDOFF 20000
#define QUEUE 64

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	void *q[QUEUE];
	size_t size[QUEUE];
	unsigned head, tail; /* head - tail: queued */
	int done;
} hq = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };
static void *kept[HANDOFF / 100];

__attribute__((noinline)) static void *produce(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < HANDOFF; i++) {
		size_t n = 24 + (size_t)(i % 5) * 8;
		void *p = memset(malloc(n), 8, n);

		if (i % 100 == 0) {
			kept[i / 100] = p;
			continue;
		}
		pthread_mutex_lock(&hq.lock);
		while (hq.head - hq.tail == QUEUE)
			pthread_cond_wait(&hq.cond, &hq.lock);
		hq.q[hq.head % QUEUE] = p;
		hq.size[hq.head % QUEUE] = n;
		hq.head++;
		pthread_cond_broadcast(&hq.cond);
		pthread_mutex_unlock(&hq.lock);
	}
	pthread_mutex_lock(&hq.lock);
	hq.done = 1;
	pthread_cond_broadcast(&hq.cond);
	pthread_mutex_unlock(&hq.lock);
	return NULL;
}

__attribute__((noinline)) static void *move_on(void *arg)
{
	(void)arg;
	for (;;) {
		void *p;
		size_t n;

		pthread_mutex_lock(&hq.lock);
		while (hq.head == hq.tail && !hq.done)
			pthread_cond_wait(&hq.cond, &hq.lock);
		if (hq.head == hq.tail) {
			pthread_mutex_unlock(&hq.lock);
			return NULL;
		}
		p = hq.q[hq.tail % QUEUE];
		n = hq.size[hq.tail % QUEUE];
		hq.tail++;
		pthread_cond_broadcast(&hq.cond);
		pthread_mutex_unlock(&hq.lock);
		p = realloc(p, n + 40);
		free(memset(p, 9, n + 40));
	}
}

static int handoff(void)
{
	pthread_t a, b;

	pthread_create(&b, NULL, move_on, NULL);
	pthread_create(&a, NULL, produce, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("handoff: %d blocks, %d kept\n", HANDOFF, HANDOFF / 100);
	return 0;
}

static volatile sig_atomic_t usr1;

static void on_hold_usr1(int sig)
{
	(void)sig;
	usr1 = 1;
}

static void *held[1 << 12];
static int nheld;

__attribute__((noinline)) static void hold_leak(void)
{
	int i;

	for (i = 0; i < 10 && nheld < (1 << 12); i++)
		held[nheld++] = memset(malloc(3000), 6, 3000);
}

__attribute__((noinline)) static void grow_leak(void)
{
	int i;

	for (i = 0; i < 20 && nheld < (1 << 12); i++)
		held[nheld++] = memset(malloc(5000), 7, 5000);
}

static void *held_map;

__attribute__((noinline)) static void hold_map(void)
{
	void *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	memset(p, 1, 1 << 20);
	prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)p, 1 << 20,
	      (unsigned long)"hold-map");
	held_map = p;
}

static int hold(int rounds, const char *path)
{
	sigset_t none, usr;

	sigemptyset(&usr);
	sigaddset(&usr, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr, &none);
	signal(SIGUSR1, on_hold_usr1);
	hold_leak();
	while (rounds-- > 0)
		grow_leak();
	hold_map();
	if (path) { /* where the map is, for a test to find it */
		FILE *f = fopen(path, "w");

		if (f) {
			fprintf(f, "%lx\n", (unsigned long)held_map);
			fclose(f);
		}
	}
	for (;;) {
		while (!usr1)
			sigsuspend(&none); /* no wakeup lost */
		usr1 = 0;
		grow_leak();
	}
	return 0;
}

static int spin(const char *path)
{
	int round, i;
	FILE *f;

	for (round = 0; round < 20; round++)
		for (i = 0; i < 100000; i++)
			free(memset(malloc(64 + (size_t)(i & 63)), 5, 8));
	f = fopen(path, "w");
	if (!f)
		return 1;
	fputs("done\n", f);
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "libc";

	if (strcmp(mode, "quiet") == 0)
		return 0; /* allocates nothing, prints nothing */
	if (strcmp(mode, "gone") == 0)
		_exit(0); /* the same, past exit()'s handlers */
	if (strcmp(mode, "brief") == 0) {
		hold_leak();
		return 0;
	}
	if (strcmp(mode, "env") == 0) {
		const char *p = getenv("LD_PRELOAD"), *f = getenv("VMSCOPE_TRACE_FD");

		printf("child LD_PRELOAD=%s VMSCOPE_TRACE_FD=%s\n", p ? p : "(unset)",
		       f ? f : "(unset)");
		return 0;
	}
	if (strcmp(mode, "mix") == 0)
		return mix(argv[0]);
	if (strcmp(mode, "hold") == 0)
		return hold(argc > 2 ? atoi(argv[2]) : 0,
			    argc > 3 ? argv[3] : NULL);
	if (strcmp(mode, "handoff") == 0)
		return handoff();
	if (strcmp(mode, "spin") == 0 && argc > 2)
		return spin(argv[2]);
	own_function();
	printf("libc: 100 tsearch nodes and 50 strdup copies leaked\n");
	return 0;
}
