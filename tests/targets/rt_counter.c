/* rt_counter — counts queued real-time signals, and the two helpers that
 * make a freeze of it refused (tests/live/test_hostile_rt.py).
 *
 *   rt_counter target N   N worker threads and the main thread count
 *                         SIGRTMIN+3 in a handler; one more thread blocks
 *                         every signal and sleeps. Prints "ready TID" (that
 *                         thread's id). stdin: "count" -> "count N"; "q"
 *                         or EOF exits.
 *   rt_counter hold TID   PTRACE_SEIZEs thread TID (no stop, no option:
 *                         it blocks every signal, so it never stops for
 *                         this tracer) and holds it until stdin says "q"
 *                         or ends; its exit detaches it. Prints "ready".
 *                         A freeze of the target then stops every other
 *                         thread, is refused at this one ("already traced
 *                         by"), and lets the others go.
 *   rt_counter send PID   sigqueue()s SIGRTMIN+3 to PID as fast as it can
 *                         until stdin says "q" or ends; prints "ready",
 *                         then "sent N": the signals the kernel queued (a
 *                         full queue, EAGAIN, is not counted).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

static volatile long count;

static void on_rt(int s)
{
	(void)s;
	__atomic_fetch_add(&count, 1, __ATOMIC_RELAXED);
}

static void *worker(void *a)
{
	(void)a;
	for (;;)
		pause();
	return NULL;
}

static volatile pid_t held_tid;

static void *deaf(void *a)
{
	sigset_t all;

	(void)a;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	held_tid = gettid();
	for (;;)
		pause();
	return NULL;
}

static int stdin_says_quit(int wait_ms)
{
	struct pollfd p = { 0, POLLIN, 0 };
	char line[64];

	if (poll(&p, 1, wait_ms) <= 0)
		return 0;
	return !fgets(line, sizeof(line), stdin) || line[0] == 'q';
}

static int target(int n)
{
	struct sigaction sa;
	pthread_t t;
	char line[64];
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_rt;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGRTMIN + 3, &sa, NULL);
	for (i = 0; i < n; i++)
		pthread_create(&t, NULL, worker, NULL);
	pthread_create(&t, NULL, deaf, NULL);
	while (!held_tid)
		usleep(1000);
	printf("ready %d\n", (int)held_tid);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (line[0] == 'q')
			break;
		printf("count %ld\n", __atomic_load_n(&count, __ATOMIC_RELAXED));
		fflush(stdout);
	}
	return 0;
}

static int hold(pid_t tid)
{
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0) {
		printf("cannot seize %d: %s\n", (int)tid, strerror(errno));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (!stdin_says_quit(-1))
		;
	return 0; /* the kernel detaches tid */
}

static int send(pid_t pid)
{
	union sigval v = { 0 };
	long sent = 0, i;

	printf("ready\n");
	fflush(stdout);
	for (;;) {
		for (i = 0; i < 256; i++)
			if (sigqueue(pid, SIGRTMIN + 3, v) == 0)
				sent++;
			else if (errno == ESRCH)
				goto out;
		if (stdin_says_quit(0))
			break;
		usleep(500); /* leave the machine's other core some room */
	}
out:
	printf("sent %ld\n", sent);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "target"))
		return target(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return hold((pid_t)atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "send"))
		return send((pid_t)atoi(argv[2]));
	fprintf(stderr, "usage: rt_counter target N | hold TID | send PID\n");
	return 2;
}
