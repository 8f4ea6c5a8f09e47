/* fork_threads — a multi-threaded target that checks itself, for the fork
 * sampler's resume and SIGKILL tests.
 *
 * Three roles, one a thread; argv[1] (sleep|read|compute, default sleep)
 * says which one the main thread plays, the thread vmscope injects into:
 *   sleep    clock_nanosleep() 20 ms at a time; counts any EINTR or a sleep
 *            shorter than asked (a restart gone wrong)
 *   read     blocked in read() on stdin; answers every line (no lost input)
 *   compute  an LCG over a checksum, compared with the value computed at
 *            start; and a check of a MEM_MB buffer holding a known pattern
 * SIGRTMIN+1 (queued, so none may be lost) is counted by a handler; only
 * the compute thread leaves it unblocked, so it never interrupts a sleep.
 * stdin lines: "ping N" -> "pong N"; "status" -> "status sleeps=.. eintr=..
 * short=.. rounds=.. bad=.. sigs=.."; "q" exits.
 * argv[2]: megabytes of the checked buffer (default 32).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile long sleeps, eintrs, shorts, rounds, bad;
static volatile sig_atomic_t sigs;
static uint64_t *mem;
static size_t mem_n;
static uint64_t expect;

static uint64_t lcg(uint64_t x, int n)
{
	while (n--)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

static void on_sig(int s)
{
	(void)s;
	sigs++;
}

static void block_rt(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGRTMIN + 1);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
}

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void *do_sleep(void *a)
{
	(void)a;
	block_rt();
	for (;;) {
		struct timespec ts = { 0, 20000000 };
		int64_t t0 = now_ns();
		int r = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);

		if (r == EINTR)
			eintrs++;
		else if (now_ns() - t0 < 20000000)
			shorts++;
		sleeps++;
	}
	return NULL;
}

static void *do_compute(void *a)
{
	(void)a;
	for (;;) {
		size_t i;

		if (lcg(42, 1000000) != expect)
			bad++;
		for (i = 0; i < mem_n; i += 512)
			if (mem[i] != i * 2654435761u)
				bad++;
		rounds++;
	}
	return NULL;
}

static void *do_read(void *a)
{
	char line[128];

	(void)a;
	block_rt();
	while (fgets(line, sizeof(line), stdin)) {
		if (strncmp(line, "ping", 4) == 0)
			printf("pong%s", line + 4);
		else if (strncmp(line, "status", 6) == 0)
			printf("status sleeps=%ld eintr=%ld short=%ld rounds=%ld "
			       "bad=%ld sigs=%d\n",
			       sleeps, eintrs, shorts, rounds, bad, (int)sigs);
		else if (line[0] == 'q')
			exit(0);
	}
	/* EOF is the normal end; an error (EINTR above all) is a failure
	 * of whoever stopped this thread. */
	if (ferror(stdin)) {
		fprintf(stderr, "fork_threads: read failed: %s\n",
			strerror(errno));
		exit(3);
	}
	exit(0);
}

int main(int argc, char **argv)
{
	const char *role = argc > 1 ? argv[1] : "sleep";
	size_t mb = argc > 2 ? strtoul(argv[2], NULL, 10) : 32, i;
	void *(*fn[3])(void *) = { do_sleep, do_read, do_compute };
	const char *names[3] = { "sleep", "read", "compute" };
	struct sigaction sa;
	pthread_t t;
	int me = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGRTMIN + 1, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	expect = lcg(42, 1000000);
	mem_n = mb * 1024 * 1024 / sizeof(*mem);
	mem = malloc(mem_n * sizeof(*mem));
	if (!mem)
		return 1;
	for (i = 0; i < mem_n; i++)
		mem[i] = i * 2654435761u;
	syscall(SYS_getpid); /* map the page vmscope borrows from */
	for (i = 0; i < 3; i++)
		if (strcmp(role, names[i]) == 0)
			me = (int)i;
	for (i = 0; i < 3; i++)
		if ((int)i != me && pthread_create(&t, NULL, fn[i], NULL))
			return 1;
	printf("ready %s\n", names[me]);
	if (me != 2)
		block_rt();
	fn[me](NULL);
	return 0;
}
