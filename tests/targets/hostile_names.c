/* hostile_names — a process whose names are built to attack a terminal and
 * a spreadsheet, for tests/live/test_escape.py and the viewer.
 *
 *   hostile_names FILE1 FILE2 [ARGS...]
 *
 * Maps FILE1 (a name with escape sequences) read-only and FILE2 (a name
 * with \r and \b that would redraw a row as "r-xp [vdso]") read, write,
 * execute and shared; starts four threads whose names hold \r, \b, \t,
 * an OSC title sequence, a leading = (a formula) and a byte that is not
 * UTF-8. ARGS end up in its command line. Prints "ready" and sleeps until
 * killed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

static const char *const names[] = {
	"\r\b\tthr\x1b[2J", /* 15 bytes at most: the kernel cuts */
	"\x1b]0;pwned\a",
	"=1+2\x1b[31m",
	"bad\xff\xfeutf8",
};

static pthread_barrier_t named;

static void *thread(void *arg)
{
	prctl(PR_SET_NAME, (unsigned long)arg, 0, 0, 0);
	pthread_barrier_wait(&named);
	for (;;)
		pause();
	return NULL;
}

static void *map(const char *path, int prot, int flags, int open_flags)
{
	int fd = open(path, open_flags);
	void *p;

	if (fd < 0) {
		perror(path);
		return NULL;
	}
	p = mmap(NULL, 4096, prot, flags, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror("mmap");
		return NULL;
	}
	return p;
}

int main(int argc, char **argv)
{
	pthread_t t;
	size_t i, n = sizeof(names) / sizeof(names[0]);

	if (argc < 3) {
		fprintf(stderr, "usage: hostile_names FILE1 FILE2 [ARGS...]\n");
		return 2;
	}
	if (!map(argv[1], PROT_READ, MAP_PRIVATE, O_RDONLY) ||
	    !map(argv[2], PROT_READ | PROT_WRITE | PROT_EXEC, MAP_SHARED,
		 O_RDWR))
		return 1;
	pthread_barrier_init(&named, NULL, (unsigned)n + 1);
	for (i = 0; i < n; i++)
		if (pthread_create(&t, NULL, thread, (void *)names[i]) != 0)
			return 1;
	pthread_barrier_wait(&named);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
