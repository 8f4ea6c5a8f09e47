/* restart_calls — a target whose main thread blocks in one system call in
 * a loop, counting how the call comes back, for the tests of what a freeze
 * (-F) or an injected fork (-b fork, which borrows the main thread) leaves
 * behind: after a SIGSTOP/SIGCONT the kernel restarts some calls and makes
 * others fail with EINTR, and after a handler ran every one of these fails
 * with EINTR (the handler is installed without SA_RESTART).
 *
 * argv[1], the call: pause, sigsuspend, epoll (epoll_wait on nothing),
 * nanosleep (1000 s; once stopped and resumed it is restart_syscall),
 * futex (FUTEX_WAIT on a word nobody wakes), read (a pipe nobody writes),
 * poll (a pipe, 1000 s: restart_syscall too).
 * SIGUSR1 (sent by the test to the main thread with tgkill) runs a
 * handler that counts. Around sigsuspend SIGUSR1 is blocked, as the
 * pattern wants; the mask is checked after every return of every call.
 *
 * A second thread serves stdin: "status" -> "status entered=N returned=N
 * eintr=N other=N handled=N badmask=N elsewhere=N" (entered is counted
 * before each call, returned after; handled: handler runs in the main
 * thread, elsewhere: in the argv[2] "other" thread); "q" exits. The calls
 * are made with syscall(), so /proc/PID/syscall shows their own numbers. Prints "ready nr=N" (the call's
 * number as /proc/PID/syscall shows it) once the main thread is in it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static _Atomic long entered, returned, eintr, other, handled, badmask;
static _Atomic long elsewhere; /* handler runs in another thread */
static pid_t main_tid;

static void on_usr1(int sig)
{
	(void)sig;
	if (gettid() == main_tid)
		handled++;
	else
		elsewhere++;
}

/* A thread that takes SIGUSR1 too (argv[2] "other"): a process-directed
 * SIGUSR1 goes to whichever thread of the two wants it; the main thread
 * does not while it still has a signal pending (TIF_SIGPENDING) from its
 * wake-up, before it ran. */
static void *idler(void *a)
{
	(void)a;
	for (;;)
		pause();
	return NULL;
}

static void *server(void *a)
{
	char line[64];

	(void)a;
	while (fgets(line, sizeof(line), stdin)) {
		if (strncmp(line, "status", 6) == 0)
			printf("status entered=%ld returned=%ld eintr=%ld "
			       "other=%ld handled=%ld badmask=%ld "
			       "elsewhere=%ld\n",
			       (long)entered, (long)returned, (long)eintr,
			       (long)other, (long)handled, (long)badmask,
			       (long)elsewhere);
		else if (line[0] == 'q')
			break;
	}
	exit(0);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *call = argc > 1 ? argv[1] : "pause";
	struct sigaction sa;
	sigset_t usr1, none, normal, now;
	pthread_t th;
	int pfd[2], ep;
	long nr;
	static int word;

	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&none);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (pipe(pfd) < 0 || (ep = epoll_create1(0)) < 0)
		return 2;
	/* the server thread never takes SIGUSR1 */
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	pthread_create(&th, NULL, server, NULL);
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	main_tid = gettid();
	if (argc > 2 && strcmp(argv[2], "other") == 0)
		pthread_create(&th, NULL, idler, NULL);
	if (strcmp(call, "sigsuspend") == 0)
		pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	pthread_sigmask(SIG_SETMASK, NULL, &normal);
	nr = strcmp(call, "pause") == 0	       ? SYS_pause
	     : strcmp(call, "sigsuspend") == 0 ? SYS_rt_sigsuspend
	     : strcmp(call, "epoll") == 0      ? SYS_epoll_wait
	     : strcmp(call, "nanosleep") == 0  ? SYS_nanosleep
	     : strcmp(call, "futex") == 0      ? SYS_futex
	     : strcmp(call, "read") == 0       ? SYS_read
	     : strcmp(call, "poll") == 0       ? SYS_poll
					       : -1;
	if (nr < 0)
		return 2;
	printf("ready nr=%ld\n", nr);
	for (;;) {
		struct timespec ts = { 1000, 0 };
		struct epoll_event ev;
		struct pollfd p = { pfd[0], POLLIN, 0 };
		char c;
		long r;

		entered++;
		if (nr == SYS_pause)
			r = syscall(SYS_pause);
		else if (nr == SYS_rt_sigsuspend)
			r = sigsuspend(&none);
		else if (nr == SYS_epoll_wait)
			r = syscall(SYS_epoll_wait, ep, &ev, 1, -1);
		else if (nr == SYS_nanosleep)
			r = syscall(SYS_nanosleep, &ts, NULL);
		else if (nr == SYS_futex)
			r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0,
				    NULL, NULL, 0);
		else if (nr == SYS_read)
			r = syscall(SYS_read, pfd[0], &c, 1);
		else
			r = syscall(SYS_poll, &p, 1, 1000000);
		returned++;
		if (r < 0 && errno == EINTR)
			eintr++;
		else
			other++;
		pthread_sigmask(SIG_SETMASK, NULL, &now);
		if (sigismember(&now, SIGUSR1) != sigismember(&normal, SIGUSR1))
			badmask++;
	}
}
