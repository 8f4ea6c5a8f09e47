/* fork_rseq — a thread that sits inside an rseq critical section, for the
 * fork sampler's rseq test (x86_64 only).
 *
 * argv[1]: a file whose first 8 bytes are shared with the test (created
 * here): the number of rseq aborts so far. argv[2]: "1" (the default) to
 * spin in the main thread only, "2" to also start a second thread that
 * waits in read(). The spinning thread enters one critical section (glibc's
 * registered struct rseq, found through __rseq_offset) and loops inside it
 * forever; every abort (a SIGUSR1 from a 20 ms interval timer aimed at
 * that thread, or a preemption) runs the abort handler, which counts and
 * enters the section again. If the kernel's rseq_cs pointer is cleared
 * while the thread is inside the section, aborts stop for good.
 *
 * Prints "ready TID" before it starts spinning, or "norseq" (and
 * exits 0) where rseq is not registered (glibc without rseq, the tunable
 * glibc.pthread.rseq=0, or a kernel without it) or the arch is not x86_64.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) && __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define HAVE_RSEQ 1
#endif

static void on_usr1(int sig)
{
	(void)sig;
}

static void *reader(void *a)
{
	char c;

	(void)a;
	while (read(0, &c, 1) > 0)
		;
	return NULL;
}

#ifdef HAVE_RSEQ
static __attribute__((noreturn)) void spin(volatile uint64_t *count)
{
	char *rs = (char *)__builtin_thread_pointer() + __rseq_offset;

	__asm__ volatile(".pushsection __rseq_cs, \"aw\"\n\t"
			 ".balign 32\n\t"
			 "3: .long 0, 0\n\t"
			 ".quad 1f, 2f - 1f, 4f\n\t"
			 ".popsection\n\t"
			 "0: leaq 3b(%%rip), %%rax\n\t"
			 "movq %%rax, 8(%[rs])\n\t"
			 "1: pause\n\t"
			 "jmp 1b\n\t"
			 "2:\n\t"
			 ".long 0x53053053\n\t"
			 "4: lock incq (%[cnt])\n\t"
			 "jmp 0b\n\t"
			 :
			 : [rs] "r"(rs), [cnt] "r"(count)
			 : "rax", "memory", "cc");
	__builtin_unreachable();
}
#endif

int main(int argc, char **argv)
{
#ifdef HAVE_RSEQ
	volatile uint64_t *count;
	struct sigevent sev = { 0 };
	struct itimerspec its = { { 0, 20000000 }, { 0, 20000000 } };
	timer_t tm;
	pthread_t t;
	int fd;

	if (argc < 2 || __rseq_size == 0) {
		printf("norseq\n");
		return 0;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, 4096) < 0)
		return 1;
	count = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (count == MAP_FAILED)
		return 1;
	signal(SIGUSR1, on_usr1);
	if (argc > 2 && atoi(argv[2]) == 2 &&
	    pthread_create(&t, NULL, reader, NULL))
		return 1;
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &tm) ||
	    timer_settime(tm, 0, &its, NULL))
		return 1;
	printf("ready %d\n", (int)syscall(SYS_gettid));
	fflush(stdout);
	spin(count);
#else
	(void)argc;
	(void)argv;
	(void)reader;
	(void)on_usr1;
	printf("norseq\n");
	return 0;
#endif
}
