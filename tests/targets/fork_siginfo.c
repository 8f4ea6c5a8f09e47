/* fork_siginfo — a target whose main thread is signalled without pause,
 * for the fork sampler's signal test: a signal that vmscope's ptrace stops
 * meet on the way must reach the thread as it was sent, siginfo included.
 *
 * A sender thread queues SIGRTMIN+2 to the main thread with
 * rt_tgsigqueueinfo (si_code SI_QUEUE, si_pid this process, si_value a
 * sequence number), one at a time: the next only once the handler has seen
 * the last. The handler counts what it gets and counts as bad any siginfo
 * that is not the one sent (re-sent with tgkill: SI_TKILL and another pid).
 * Prints "ready", then answers stdin lines (read by a third thread):
 *   status  -> "status sent=N got=N bad=N"
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static _Atomic long sent, got, bad;
static pid_t main_tid;

static void on_sig(int sig, siginfo_t *si, void *uc)
{
	long n = atomic_load(&got) + 1;

	(void)sig;
	(void)uc;
	if (si->si_code != SI_QUEUE || si->si_pid != getpid() ||
	    si->si_value.sival_int != (int)n)
		atomic_fetch_add(&bad, 1);
	atomic_store(&got, n);
}

static void *sender(void *a)
{
	(void)a;
	for (;;) {
		siginfo_t si;
		long n = atomic_load(&sent) + 1;

		memset(&si, 0, sizeof(si));
		si.si_signo = SIGRTMIN + 2;
		si.si_code = SI_QUEUE;
		si.si_pid = getpid();
		si.si_uid = getuid();
		si.si_value.sival_int = (int)n;
		atomic_store(&sent, n);
		if (syscall(SYS_rt_tgsigqueueinfo, getpid(), main_tid,
			    SIGRTMIN + 2, &si) < 0)
			return NULL;
		while (atomic_load(&got) < n)
			sched_yield();
	}
	return NULL;
}

static void *answer(void *a)
{
	char line[64];

	(void)a;
	while (fgets(line, sizeof(line), stdin))
		if (strncmp(line, "status", 6) == 0)
			printf("status sent=%ld got=%ld bad=%ld\n",
			       atomic_load(&sent), atomic_load(&got),
			       atomic_load(&bad));
	_exit(0);
	return NULL;
}

int main(void)
{
	struct sigaction sa;
	pthread_t t;
	sigset_t rt;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sig;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGRTMIN + 2, &sa, NULL);
	main_tid = (pid_t)syscall(SYS_gettid);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Only the main thread takes the signal. */
	sigemptyset(&rt);
	sigaddset(&rt, SIGRTMIN + 2);
	pthread_sigmask(SIG_BLOCK, &rt, NULL);
	if (pthread_create(&t, NULL, sender, NULL) ||
	    pthread_create(&t, NULL, answer, NULL))
		return 1;
	pthread_sigmask(SIG_UNBLOCK, &rt, NULL);
	syscall(SYS_getpid); /* map the page vmscope borrows from */
	printf("ready\n");
	for (;;)
		pause();
}
