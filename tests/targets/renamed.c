/* renamed — a process that names itself, for tests/live/test_names.py.
 *
 *   renamed NAME [THREAD [ARGS...]]
 *
 * Sets its own name (prctl PR_SET_NAME: /proc/PID/comm) to NAME, whatever
 * bytes it holds (the kernel keeps the first 15); with THREAD (not ""),
 * starts a thread named THREAD. ARGS end up in its command line only.
 * Prints "ready TID" (the thread's id, or its own pid without one) and
 * sleeps until killed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_barrier_t named;
static pid_t tid;

static void *thread(void *arg)
{
	prctl(PR_SET_NAME, (unsigned long)arg, 0, 0, 0);
	tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&named);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 2) {
		fprintf(stderr, "usage: renamed NAME [THREAD [ARGS...]]\n");
		return 2;
	}
	prctl(PR_SET_NAME, (unsigned long)argv[1], 0, 0, 0);
	tid = getpid();
	if (argc > 2 && argv[2][0]) {
		pthread_barrier_init(&named, NULL, 2);
		if (pthread_create(&t, NULL, thread, argv[2]) != 0)
			return 1;
		pthread_barrier_wait(&named);
	}
	printf("ready %d\n", (int)tid);
	fflush(stdout);
	for (;;)
		pause();
}
