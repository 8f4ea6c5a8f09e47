/* fork_ticker — a target that measures its own freezes, for make bench.
 *
 * argv[1]: megabytes of anonymous memory, touched page by page; argv[2]:
 * "4k" (MADV_NOHUGEPAGE, the default) or "thp" (MADV_HUGEPAGE). A ticker
 * thread reads CLOCK_MONOTONIC every 50 us and keeps the longest gap it saw:
 * the freeze as the target itself sees it. stdin lines:
 *   reset  forget the longest gap          -> "reset"
 *   gap    the longest gap since, in us    -> "gap N"
 *   fork   time fork() here (the child exits at once; reaped) -> "fork N"
 *   write  write one byte in every page -> "write US MINFLT" (time taken and
 *          minor faults: the cost a fork leaves behind)
 *   q      exit
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static _Atomic int64_t maxgap;
static _Atomic int reset_req;

static int64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static void *ticker(void *a)
{
	int64_t last = now_us();

	(void)a;
	for (;;) {
		struct timespec ts = { 0, 50000 };
		int64_t t;

		nanosleep(&ts, NULL);
		t = now_us();
		if (atomic_exchange(&reset_req, 0))
			atomic_store(&maxgap, 0);
		else if (t - last > atomic_load(&maxgap))
			atomic_store(&maxgap, t - last);
		last = t;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
	int thp = argc > 2 && strcmp(argv[2], "thp") == 0;
	size_t len = mb << 20, i;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char line[64];
	pthread_t t;

	if (m == MAP_FAILED)
		return 1;
	madvise(m, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	for (i = 0; i < len; i += 4096)
		m[i] = (char)i;
	syscall(SYS_getpid); /* map the page vmscope borrows from */
	if (pthread_create(&t, NULL, ticker, NULL))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %zu MiB %s\n", mb, thp ? "thp" : "4k");
	while (fgets(line, sizeof(line), stdin)) {
		if (strncmp(line, "reset", 5) == 0) {
			atomic_store(&reset_req, 1);
			while (atomic_load(&reset_req))
				usleep(100);
			printf("reset\n");
		} else if (strncmp(line, "gap", 3) == 0) {
			printf("gap %lld\n", (long long)atomic_load(&maxgap));
		} else if (strncmp(line, "fork", 4) == 0) {
			int64_t t0 = now_us(), t1;
			pid_t c = fork();

			if (c == 0)
				_exit(0);
			t1 = now_us();
			waitpid(c, NULL, 0);
			printf("fork %lld\n", (long long)(t1 - t0));
		} else if (strncmp(line, "write", 5) == 0) {
			struct rusage r0, r1;
			int64_t t0 = now_us();

			getrusage(RUSAGE_SELF, &r0);
			for (i = 0; i < len; i += 4096)
				m[i]++;
			getrusage(RUSAGE_SELF, &r1);
			printf("write %lld %ld\n", (long long)(now_us() - t0),
			       r1.ru_minflt - r0.ru_minflt);
		} else if (line[0] == 'q') {
			break;
		}
	}
	return 0;
}
