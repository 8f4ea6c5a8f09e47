/* everykind — a process with every kind of region vmscope classifies, for
 * the live tests (tests/live/test_classify.py) and, built as demo.c with
 * DEMO defined, for `make demo`.
 *
 *   everykind [DATAFILE]
 *
 * Maps: its own image and libc's (text), a .bss buffer, the main brk heap, a
 * mapped data file (MAP_PRIVATE, read-only, touched), shared anonymous
 * memory, a memfd mapping, a 256 MiB PROT_NONE MAP_NORESERVE reservation
 * (between two read-only pages, so that it never merges with a neighbour), a
 * 64 MiB malloc'd buffer (an mmapped chunk, touched; a read-only page below
 * it keeps a thread's stack from merging with it), a region named with
 * PR_SET_VMA_ANON_NAME and one named like a Go heap (if the kernel supports
 * anonymous names), and NTHREADS threads that each malloc 64 KiB chunks in
 * their own glibc arena and block.
 *
 * When everything is in place it prints one line on stdout:
 *   ready pid=N text=0x.. libc=0x.. bss=0x.. mainheap=0x.. datafile=0x..
 *         shanon=0x.. memfd=0x.. reserve=0x.. bigbuf=0x.. [named=0x..
 *         managed=0x..] stack0=0x.. arena1=0x.. stack1=0x.. tid1=N ...
 *         arenas=N sizes...
 * (one line; *_size=BYTES give the sizes asked for) and then sleeps until
 * killed. DATAFILE is created and written first; by default it is
 * /tmp/everykind-PID.dat, removed on SIGTERM or SIGINT, and left behind by
 * SIGKILL: each start removes those of processes that no longer run. As
 * the demo it prints nothing.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#endif
#ifndef PR_SET_VMA_ANON_NAME
#define PR_SET_VMA_ANON_NAME 0
#endif

#define NTHREADS 4
#define CHUNK (64 * 1024) /* below the mmap threshold: from the arena */
#define NCHUNKS 8
#define DATAFILE_SIZE (1u << 20)
#define SHANON_SIZE (4u << 20)
#define MEMFD_SIZE (2u << 20)
#define RESERVE_SIZE (256u << 20)
#define BIGBUF_SIZE (64u << 20)
#define NAMED_SIZE (1u << 20)
#define BSS_SIZE (1u << 20)

static char bss_buf[BSS_SIZE];
static char datafile_path[4096];
static int datafile_owned;

struct worker {
	pthread_t th;
	pid_t tid;
	void *chunk; /* the first of its malloc'd chunks */
	void *stack; /* the address of a local of the thread */
};

static struct worker workers[NTHREADS];
static pthread_barrier_t started;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void on_term(int sig)
{
	(void)sig;
	if (datafile_owned)
		unlink(datafile_path);
	_exit(0);
}

static void touch(volatile char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += 4096)
		p[i] = (char)(i >> 12 | 1);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	volatile char local = 1;
	void *keep[NCHUNKS];
	int i;

	w->tid = (pid_t)syscall(SYS_gettid);
	w->stack = (void *)&local;
	for (i = 0; i < NCHUNKS; i++) {
		keep[i] = malloc(CHUNK);
		if (!keep[i])
			die("malloc");
		memset(keep[i], i + 1, CHUNK);
	}
	w->chunk = keep[0];
	pthread_barrier_wait(&started);
	for (;;)
		pause();
	return NULL;
}

/* The number of arenas glibc has (main included): malloc_info's <heap>. */
static int count_arenas(void)
{
	char *buf = NULL, *p;
	size_t len = 0;
	int n = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return -1;
	malloc_info(0, f);
	fclose(f);
	for (p = buf; (p = strstr(p, "<heap nr=")); p++)
		n++;
	free(buf);
	return n;
}

/* Removes the default data files of everykinds that were killed. */
static void remove_stale_datafiles(void)
{
	DIR *d = opendir("/tmp");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[300], *end;
		long pid;

		if (strncmp(de->d_name, "everykind-", 10) != 0)
			continue;
		pid = strtol(de->d_name + 10, &end, 10);
		if (pid <= 0 || strcmp(end, ".dat") != 0)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "/tmp/%s", de->d_name);
		unlink(path);
	}
	closedir(d);
}

static void *map_anon(size_t n, int prot, int flags)
{
	void *p = mmap(NULL, n, prot, flags | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static void *map_named(size_t n, const char *name)
{
	void *p = map_anon(n, PROT_READ | PROT_WRITE, MAP_PRIVATE);

	touch(p, n);
	if (prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)p, n,
		  (unsigned long)name) != 0) {
		munmap(p, n);
		return NULL;
	}
	return p;
}

int main(int argc, char **argv)
{
	volatile char main_local = 1;
	char line[4096];
	size_t len = 0;
	struct sigaction sa;
	void *mainheap, *datafile, *shanon, *memfd_map, *reserve, *bigbuf;
	void *named, *managed;
	int fd, i;
	char *page;
	size_t pg;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	/* a mapped data file, written first */
	if (argc > 1)
		snprintf(datafile_path, sizeof(datafile_path), "%s", argv[1]);
	else {
		remove_stale_datafiles();
		snprintf(datafile_path, sizeof(datafile_path),
			 "/tmp/everykind-%d.dat", (int)getpid());
	}
	fd = open(datafile_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		die(datafile_path);
	datafile_owned = argc <= 1;
	page = calloc(1, 4096);
	if (!page)
		die("calloc");
	memset(page, 'd', 4096);
	for (i = 0; i < (int)(DATAFILE_SIZE / 4096); i++)
		if (write(fd, page, 4096) != 4096)
			die("write");
	free(page);
	/* written back now: its pages clean from the start (the flusher
	 * writing them back some 30 s later turned them from Private_Dirty
	 * to Private_Clean under a test's eyes: test_columns, loaded) */
	if (fsync(fd) < 0)
		die("fsync");
	datafile = mmap(NULL, DATAFILE_SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
	if (datafile == MAP_FAILED)
		die("mmap datafile");
	close(fd);
	{
		volatile char sum = 0;
		size_t k;

		for (k = 0; k < DATAFILE_SIZE; k += 4096)
			sum += ((volatile char *)datafile)[k];
		(void)sum;
	}

	/* shared anonymous memory */
	shanon = map_anon(SHANON_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED);
	touch(shanon, SHANON_SIZE);

	/* a memfd */
	fd = memfd_create("everykind", MFD_CLOEXEC);
	if (fd < 0)
		die("memfd_create");
	if (ftruncate(fd, MEMFD_SIZE) < 0)
		die("ftruncate");
	memfd_map = mmap(NULL, MEMFD_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, 0);
	if (memfd_map == MAP_FAILED)
		die("mmap memfd");
	close(fd);
	touch(memfd_map, MEMFD_SIZE);

	/* a reservation: nothing committed. Its own mapping whatever the
	 * kernel merges: a glibc arena's unused tail is PROT_NONE and
	 * MAP_NORESERVE too, and one placed next to it would make one VMA
	 * of both; a read-only page of our own on either side (mappings of
	 * different protections never merge) keeps its bounds exact. */
	pg = (size_t)sysconf(_SC_PAGESIZE);
	reserve = map_anon(RESERVE_SIZE + 2 * pg, PROT_READ,
			   MAP_PRIVATE | MAP_NORESERVE);
	reserve = (char *)reserve + pg;
	if (mprotect(reserve, RESERVE_SIZE, PROT_NONE) != 0)
		die("mprotect reserve");

	/* a big private buffer: above the mmap threshold, its own region */
	bigbuf = malloc(BIGBUF_SIZE);
	if (!bigbuf)
		die("malloc bigbuf");
	memset(bigbuf, 'b', BIGBUF_SIZE);
	/* and a read-only page of our own right below its mapping: the
	 * mapping placed there next (a thread's stack, read-write too) would
	 * merge with it on kernels before 6.7 (where MAP_STACK adds no flag
	 * of its own), and the buffer's region would hold a thread's sp. The
	 * place is free (mappings go top-down); one taken already was there
	 * before the buffer and cannot be a stack. */
	{
		char *at = (char *)((uintptr_t)bigbuf & ~(uintptr_t)(pg - 1));
		void *fence = mmap(at - pg, pg, PROT_READ,
				   MAP_PRIVATE | MAP_ANONYMOUS |
					   MAP_FIXED_NOREPLACE,
				   -1, 0);

		if (fence != MAP_FAILED && fence != at - pg)
			munmap(fence, pg); /* a kernel without the flag */
	}

	/* named anonymous regions (CONFIG_ANON_VMA_NAME) */
	named = map_named(NAMED_SIZE, "everykind named");
	managed = map_named(NAMED_SIZE, "Go: heap");

	/* the main arena's brk heap, and .bss */
	mainheap = malloc(100);
	if (!mainheap)
		die("malloc");
	memset(mainheap, 'h', 100);
	touch(bss_buf, BSS_SIZE);

	/* threads, each in its own arena */
	if (pthread_barrier_init(&started, NULL, NTHREADS + 1) != 0)
		die("pthread_barrier_init");
	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&workers[i].th, NULL, worker_main,
				   &workers[i]) != 0)
			die("pthread_create");
	pthread_barrier_wait(&started);

#define ADD(...)                                                         \
	do {                                                             \
		int n_ = snprintf(line + len, sizeof(line) - len,        \
				  __VA_ARGS__);                          \
		if (n_ > 0 && (size_t)n_ < sizeof(line) - len)           \
			len += (size_t)n_;                               \
	} while (0)
	ADD("ready pid=%d text=%p libc=%p bss=%p mainheap=%p", (int)getpid(),
	    (void *)main, (void *)getpid, (void *)bss_buf, mainheap);
	ADD(" datafile=%p shanon=%p memfd=%p reserve=%p bigbuf=%p", datafile,
	    shanon, memfd_map, reserve, bigbuf);
	if (named)
		ADD(" named=%p", named);
	if (managed)
		ADD(" managed=%p", managed);
	ADD(" stack0=%p", (void *)&main_local);
	for (i = 0; i < NTHREADS; i++)
		ADD(" arena%d=%p stack%d=%p tid%d=%d", i + 1, workers[i].chunk,
		    i + 1, workers[i].stack, i + 1, (int)workers[i].tid);
	ADD(" threads=%d arenas=%d", NTHREADS, count_arenas());
	ADD(" datafile_size=%u shanon_size=%u memfd_size=%u reserve_size=%u"
	    " bigbuf_size=%u named_size=%u",
	    DATAFILE_SIZE, SHANON_SIZE, MEMFD_SIZE, RESERVE_SIZE, BIGBUF_SIZE,
	    NAMED_SIZE);
#ifndef DEMO
	printf("%s\n", line);
	fflush(stdout);
#endif
	for (;;)
		pause();
	return 0;
}
