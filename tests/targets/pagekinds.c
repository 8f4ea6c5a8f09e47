/* pagekinds — pages of every kind the page-table scan tells apart, for
 * the fast freeze's tests (tests/unit/test_fastfreeze.c,
 * tests/live/test_fastfreeze.py).
 *
 *   pagekinds [still|grow|churn]
 *
 * Maps 32 MiB of private anonymous memory (4 KiB pages: MADV_NOHUGEPAGE)
 * with every 4th page written, every 4th read only (so mapped to the
 * shared zero page, which smaps does not count in Rss) and the rest left
 * untouched; 16 MiB asking for huge pages, its first half written and
 * its second half read (the huge zero page where the kernel uses it); a
 * private mapping of its own executable, read; 4 MiB of shared anonymous
 * memory, written; 16 pages written around a guard page (MADV_GUARD_INSTALL,
 * where the kernel has it: Linux 6.13); and three 4 MiB regions written
 * whole, which the fork sampler's clone does not have as they are: one
 * MADV_DONTFORK (absent in a child), one MADV_WIPEONFORK (empty in a
 * child), and one with a guard page at its middle. "watch" adds a
 * 4 MiB region written whole while the process has no child, emptied
 * (MADV_DONTNEED) the moment it has one (the fork sampler's clone) and
 * written whole again once the child is gone, by a thread that looks at
 * /proc/self/task/TID/children every 50 us: its Rss at a fork is 4 MiB,
 * and a moment later 0; it prints "emptied N" each time. "grow" adds a thread that writes
 * one new page of a 64 MiB region after another, and starts over
 * (MADV_DONTNEED) at its end: its Rss never stays still. "churn" adds a
 * thread that makes one of 16 pages of a PROT_NONE area readable and then
 * not again, the next page each time: its layout never stays still.
 * Prints
 *   ready anon=0x.. huge=0x.. shared=0x.. guard=0|1 [grow=0x..]
 *         [watch=0x.. children=0|1 (whether the kernel lists them)]
 * and sleeps until killed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MIB (1ul << 20)
#define GROW_SIZE (64 * MIB)

static volatile char sink;

static char *grow_at;

static void *grow(void *arg)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t i = 0;

	(void)arg;
	for (;;) {
		grow_at[i] = 1;
		i += (size_t)pg;
		if (i >= GROW_SIZE) {
			madvise(grow_at, GROW_SIZE, MADV_DONTNEED);
			i = 0;
		}
	}
	return NULL;
}

#define WATCH_SIZE (4 * MIB)
static char *watch_at;

/* Whether any thread of this process has a child; -1 when the kernel
 * does not list them (no /proc/self/task/TID/children). */
static int has_child(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int found = 0, listed = 0;

	if (!d)
		return -1;
	while (!found && (e = readdir(d))) {
		char path[300], c;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children",
			 e->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		listed = 1;
		found = read(fd, &c, 1) == 1;
		close(fd);
	}
	closedir(d);
	return listed ? found : -1;
}

static void *watch(void *arg)
{
	struct timespec ts = { 0, 50000 };
	int full = 1;
	unsigned long emptied = 0;

	(void)arg;
	for (;;) {
		int c = has_child();

		if (c > 0 && full) {
			madvise(watch_at, WATCH_SIZE, MADV_DONTNEED);
			full = 0;
			printf("emptied %lu\n", ++emptied);
			fflush(stdout);
		} else if (c == 0 && !full) {
			memset(watch_at, 5, WATCH_SIZE);
			full = 1;
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static char *churn_at;

static void *churn(void *arg)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned k = 0;

	(void)arg;
	for (;;) {
		char *p = churn_at + (size_t)(2 * (k++ % 16) + 1) * (size_t)pg;

		mprotect(p, (size_t)pg, PROT_READ);
		mprotect(p, (size_t)pg, PROT_NONE);
	}
	return NULL;
}

static void *map(size_t len, int flags)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char **argv)
{
	long pg = sysconf(_SC_PAGESIZE);
	int grows = argc > 1 && strcmp(argv[1], "grow") == 0;
	int churns = argc > 1 && strcmp(argv[1], "churn") == 0;
	int watches = argc > 1 && strcmp(argv[1], "watch") == 0;
	char *anon, *raw, *huge, *shared, *self, *guarded, *nofork[3];
	int guard = 0;
	size_t i, hsz = 16 * MIB;
	int fd;
	pthread_t t;

	anon = map(32 * MIB, MAP_PRIVATE | MAP_ANONYMOUS);
	/* 2 MiB aligned, so that the kernel can back it with huge pages */
	raw = map(hsz + 2 * MIB, MAP_PRIVATE | MAP_ANONYMOUS);
	shared = map(4 * MIB, MAP_SHARED | MAP_ANONYMOUS);
	if (!anon || !raw || !shared)
		return 1;
	madvise(anon, 32 * MIB, MADV_NOHUGEPAGE);
	for (i = 0; i < 32 * MIB; i += (size_t)pg) {
		if ((i / (size_t)pg) % 4 == 0)
			anon[i] = 1;
		else if ((i / (size_t)pg) % 4 == 1)
			sink = anon[i];
	}
	huge = (char *)(((uintptr_t)raw + 2 * MIB - 1) & ~(2 * MIB - 1));
	madvise(huge, hsz, MADV_HUGEPAGE);
	for (i = 0; i < hsz; i += (size_t)pg) {
		if (i < hsz / 2)
			huge[i] = 1;
		else
			sink = huge[i];
	}
	memset(shared, 2, 4 * MIB);
	fd = open("/proc/self/exe", O_RDONLY);
	self = fd < 0 ? MAP_FAILED
		      : mmap(NULL, (size_t)pg, PROT_READ, MAP_PRIVATE, fd, 0);
	if (self != MAP_FAILED)
		sink = self[0];
	guarded = map(16 * (size_t)pg, MAP_PRIVATE | MAP_ANONYMOUS);
	if (!guarded)
		return 1;
	memset(guarded, 3, 16 * (size_t)pg);
	/* MADV_GUARD_INSTALL (102): the page's entry becomes a marker the
	 * page-table scan calls "swapped" */
	guard = madvise(guarded + 8 * pg, (size_t)pg, 102) == 0;
	for (i = 0; i < 3; i++) {
		nofork[i] = map(4 * MIB, MAP_PRIVATE | MAP_ANONYMOUS);
		if (!nofork[i])
			return 1;
		madvise(nofork[i], 4 * MIB, MADV_NOHUGEPAGE);
		memset(nofork[i], 4, 4 * MIB);
	}
	if (madvise(nofork[0], 4 * MIB, MADV_DONTFORK) < 0 ||
	    madvise(nofork[1], 4 * MIB, MADV_WIPEONFORK) < 0)
		return 1;
	madvise(nofork[2] + 2 * MIB, (size_t)pg, 102);
	if (churns) {
		churn_at = mmap(NULL, 33 * (size_t)pg, PROT_NONE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (churn_at == MAP_FAILED ||
		    pthread_create(&t, NULL, churn, NULL) != 0)
			return 1;
	}
	if (grows) {
		grow_at = map(GROW_SIZE, MAP_PRIVATE | MAP_ANONYMOUS);
		if (!grow_at || pthread_create(&t, NULL, grow, NULL) != 0)
			return 1;
	}
	if (watches) {
		/* a page of PROT_NONE each side: a region of its own */
		watch_at = map(WATCH_SIZE + 2 * (size_t)pg,
			       MAP_PRIVATE | MAP_ANONYMOUS);
		if (!watch_at)
			return 1;
		mprotect(watch_at, (size_t)pg, PROT_NONE);
		watch_at += pg;
		mprotect(watch_at + WATCH_SIZE, (size_t)pg, PROT_NONE);
		madvise(watch_at, WATCH_SIZE, MADV_NOHUGEPAGE);
		memset(watch_at, 5, WATCH_SIZE);
	}
	printf("ready anon=%p huge=%p shared=%p guard=%d", (void *)anon,
	       (void *)huge, (void *)shared, guard);
	if (grows)
		printf(" grow=%p", (void *)grow_at);
	if (watches)
		printf(" watch=%p children=%d", (void *)watch_at,
		       has_child() >= 0);
	printf("\n");
	fflush(stdout);
	if (watches && pthread_create(&t, NULL, watch, NULL) != 0)
		return 1;
	for (;;)
		pause();
}
