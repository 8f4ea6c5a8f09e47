/* hostile_target — a target that does what a fork capture must survive,
 * and checks itself (tests/live/test_hostile.py).
 *
 * argv[1], the mode:
 *   plain     only the common checks below
 *   sud       the main thread runs with Syscall User Dispatch on and its
 *             selector at BLOCK (as Wine's guest code does), computing;
 *             any SIGSYS is counted
 *   seccomp   the main thread calls pthread_exit(); worker "A" has its own
 *             seccomp filter that kills the process on clone/fork/wait4/
 *             close_range; worker "B" has none
 *   exec1     re-executes itself every few ms (argv[2]: how many times)
 *   execN     the same from a worker thread, with 4 threads running
 *   execW     a worker re-executes it 0.2 ms after it starts, the main
 *             thread in pause(): an exec by a thread other than the main
 *             one, all the time (tests/unit/test_freeze.c)
 *   ud2, jmp  rewrites the syscall instruction of its own libc syscall()
 *             in memory (ud2; jmp .) and never calls it again
 *   waiter    a thread blocked in waitpid(-1, &st, __WALL) on a child of
 *             its own; counts any other pid it reaps (a clone it saw)
 *   listen    a TCP listener on 127.0.0.1; "rebind" closes it and binds
 *             the same port again at once
 *   threads   80 threads, and the main thread exits (pthread_exit)
 *   vfork     a worker is a vfork parent for good (its child sleeps, and
 *             dies with that thread): in uninterruptible sleep
 *   slowmain  30 idle threads, and the main thread maps 48 MiB with
 *             MAP_POPULATE and unmaps it, again and again: a main thread
 *             slow to stop, as it is mostly in the kernel
 *             (tests/unit/test_freeze.c)
 *
 * Common checks: a heartbeat thread; a checker thread that holds errno, a
 * signal mask and values in registers across system calls and counts any
 * change (bad); SIGRTMIN+2 counted by a handler (queued: none may be lost).
 * stdin lines: "status" -> "status beats=.. bad=.. sigs=.. sigsys=..
 * alien=.. rebind=.."; "rebind"; "q" exits. Prints "ready PORT" at start.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_ON 1
#define SYSCALL_DISPATCH_FILTER_BLOCK 1
#endif

static volatile long beats, bad, alien;
static volatile sig_atomic_t sigs, sigsys;
static volatile char selector;
static int lfd = -1, port, rebind_ok = -1;
static char **gargv;

static void on_rt(int s)
{
	(void)s;
	/* atomic: many threads run this handler at once (a freeze lets them
	 * all go together), and sigs++ would lose counts between them */
	__atomic_fetch_add(&sigs, 1, __ATOMIC_RELAXED);
}

static void on_sys(int s)
{
	(void)s;
	selector = 0; /* let the thread go on */
	__atomic_fetch_add(&sigsys, 1, __ATOMIC_RELAXED);
}

static void nap(long ns)
{
	struct timespec ts = { 0, ns };

	nanosleep(&ts, NULL);
}

static void *heartbeat(void *a)
{
	(void)a;
	for (;;) {
		beats++;
		nap(2000000);
	}
	return NULL;
}

static uint64_t lcg(uint64_t x, int n)
{
	while (n--)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

/* errno, the signal mask and live values across system calls. */
static void *checker(void *a)
{
	sigset_t mine, now;

	(void)a;
	sigemptyset(&mine);
	sigaddset(&mine, SIGUSR2);
	sigaddset(&mine, SIGRTMIN + 2); /* an EINTR of its own is no fault */
	pthread_sigmask(SIG_BLOCK, &mine, NULL);
	pthread_sigmask(SIG_BLOCK, NULL, &mine);
	for (;;) {
		register uint64_t x = lcg(beats, 3), y = x ^ 0x5a5a5a5a;

		errno = 4242;
		nap(1000000);
		if (errno != 4242 || (x ^ 0x5a5a5a5a) != y)
			bad++;
		pthread_sigmask(SIG_BLOCK, NULL, &now);
		if (memcmp(&now, &mine, sizeof(now)) != 0)
			bad++;
	}
	return NULL;
}

static void spawn(void *(*fn)(void *))
{
	pthread_t t;

	pthread_create(&t, NULL, fn, NULL);
}

static void *sud_guest(void *a)
{
	uint64_t x = 1, y = 1;
	sigset_t rt;

	(void)a;
	sigemptyset(&rt); /* a handler's sigreturn would be dispatched too */
	sigaddset(&rt, SIGRTMIN + 2);
	pthread_sigmask(SIG_BLOCK, &rt, NULL);
	/* No system call from here on: the whole address space is outside
	 * the allowed range, and the selector says block. */
	selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	for (;;) {
		x = lcg(x, 1000);
		y = lcg(y, 1000);
		if (x != y)
			bad++;
		if (!selector) /* after a SIGSYS: block again */
			selector = SYSCALL_DISPATCH_FILTER_BLOCK;
	}
	return NULL;
}

static void *filtered_worker(void *a)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fork, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_wait4, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 436 /* close_range */, 1,
			 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	(void)a;
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		bad++;
	for (;;)
		nap(5000000);
	return NULL;
}

static void *idle(void *a)
{
	(void)a;
	for (;;)
		pause();
	return NULL;
}

static void *waiter(void *a)
{
	pid_t child = fork();

	(void)a;
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, __WALL);

		if (w > 0 && w != child)
			alien++;
		if (w < 0 && errno != EINTR)
			nap(1000000);
	}
	return NULL;
}

static void *vforker(void *a)
{
	(void)a;
	for (;;)
		if (vfork() == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				nap(999999999);
		}
	return NULL;
}

static void re_exec(void)
{
	char n[32];
	long left = gargv[2] ? atol(gargv[2]) : 0;

	if (left <= 0)
		return;
	snprintf(n, sizeof(n), "%ld", left - 1);
	execl("/proc/self/exe", gargv[0], gargv[1], n, "quiet", (char *)NULL);
}

/* Set once "ready" is out (or not to be printed): no exec before it, or
 * the image that would print it is gone and the test waits for ever. */
static int said_ready;

static void *exec_at_once(void *a)
{
	(void)a;
	nap(200000);
	re_exec();
	return NULL;
}

static void *exec_worker(void *a)
{
	(void)a;
	while (!__atomic_load_n(&said_ready, __ATOMIC_ACQUIRE))
		nap(100000);
	nap(3000000 + (long)(lcg((uint64_t)getpid(), 2) % 5000000));
	re_exec();
	return NULL;
}

/* Rewrites the first syscall instruction of libc's syscall() in memory. */
static void patch(const unsigned char insn[2])
{
	unsigned char *f = dlsym(RTLD_DEFAULT, "syscall");
	long pg = sysconf(_SC_PAGESIZE);
	int i;

	for (i = 0; f && i < 64; i++)
		if (f[i] == 0x0f && f[i + 1] == 0x05)
			break;
	if (!f || i == 64 ||
	    mprotect((void *)((uintptr_t)(f + i) & ~(uintptr_t)(pg - 1)),
		     (size_t)pg * 2, PROT_READ | PROT_WRITE | PROT_EXEC) < 0) {
		bad++;
		return;
	}
	f[i] = insn[0];
	f[i + 1] = insn[1];
}

static int listen_on(int p)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)p);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 8) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	getsockname(fd, (struct sockaddr *)&sa, &len);
	port = ntohs(sa.sin_port);
	return fd;
}

static void *serve(void *a)
{
	char line[128];

	(void)a;
	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "q", 1))
			_exit(0);
		if (!strncmp(line, "rebind", 6)) {
			close(lfd);
			lfd = listen_on(port);
			rebind_ok = lfd >= 0;
		}
		printf("status beats=%ld bad=%ld sigs=%d sigsys=%d alien=%ld "
		       "rebind=%d\n",
		       beats, bad, (int)sigs, (int)sigsys, alien, rebind_ok);
		fflush(stdout);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "plain";
	struct sigaction sa;
	int i;

	gargv = argv;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_rt;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGRTMIN + 2, &sa, NULL);
	sa.sa_handler = on_sys;
	sigaction(SIGSYS, &sa, NULL);
	if (!strcmp(mode, "exec1")) {
		if (argc < 4) {
			printf("ready 0\n");
			fflush(stdout);
		}
		nap(4000000);
		re_exec();
		for (;;) /* the last one: plain from here */
			pause();
	}
	if (!strcmp(mode, "execW")) {
		if (argc < 4) {
			printf("ready 0\n");
			fflush(stdout);
		}
		spawn(exec_at_once);
		for (;;)
			pause();
	}
	spawn(heartbeat);
	spawn(checker);
	if (!strcmp(mode, "execN")) {
		for (i = 0; i < 2; i++)
			spawn(idle);
		spawn(exec_worker);
	} else if (!strcmp(mode, "ud2")) {
		patch((const unsigned char[]){ 0x0f, 0x0b });
	} else if (!strcmp(mode, "jmp")) {
		patch((const unsigned char[]){ 0xeb, 0xfe });
	} else if (!strcmp(mode, "waiter")) {
		spawn(waiter);
	} else if (!strcmp(mode, "vfork")) {
		spawn(vforker);
	} else if (!strcmp(mode, "slowmain")) {
		for (i = 0; i < 30; i++)
			spawn(idle);
	} else if (!strcmp(mode, "listen")) {
		lfd = listen_on(0);
		if (lfd < 0)
			bad++;
	}
	if (argc < 4) {
		printf("ready %d\n", port);
		fflush(stdout);
	}
	__atomic_store_n(&said_ready, 1, __ATOMIC_RELEASE);
	if (!strcmp(mode, "execN"))
		pause(); /* the worker's exec ends this */
	if (!strcmp(mode, "seccomp")) {
		spawn(filtered_worker);
		spawn(serve);
		pthread_exit(NULL);
	}
	if (!strcmp(mode, "threads")) {
		for (i = 0; i < 80; i++)
			spawn(idle);
		spawn(serve);
		pthread_exit(NULL);
	}
	if (!strcmp(mode, "slowmain")) {
		for (;;) {
			void *m = mmap(NULL, 48 << 20, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS |
					       MAP_POPULATE,
				       -1, 0);

			if (m != MAP_FAILED)
				munmap(m, 48 << 20);
		}
	}
	if (!strcmp(mode, "sud")) {
		spawn(serve);
		if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, 0,
			  0, &selector) < 0)
			bad++;
		sud_guest(NULL);
	}
	serve(NULL);
	return 0;
}
