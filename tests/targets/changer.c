/* changer — allocations that change between two snapshots, for the
 * changes in the main view (tests/tui/test_changes.py).
 *
 *   changer [FILE]
 *
 * First starts a thread that mallocs (its stack, a guard page below it,
 * and its malloc arena: allocations of two regions each, none of which
 * changes after), then maps five private anonymous regions, each with a
 * hole on each side (one
 * region each, none merged with a neighbour), grow's 16 MiB wide (free
 * once all are placed), no huge pages (MADV_NOHUGEPAGE), and writes every
 * page: grow (8 MiB), shrink
 * (16 MiB), gone (4 MiB), prot (4 MiB) and keep (4 MiB); with FILE,
 * its first page too (named: private, read-only, a hole on each side).
 * Prints
 *   ready grow=0x.. shrink=0x.. gone=0x.. prot=0x.. keep=0x.. [named=0x..]
 *         tstack=0x.. tarena=0x..
 * (tstack: an address in the thread's stack; tarena: the block it
 * allocated, in its arena)
 * and waits for a line on stdin. Then grows grow to 16 MiB in place
 * (mremap, not moved), shrinks shrink to 4 MiB, unmaps gone (and named),
 * makes prot read-only (the same size: changed), drops keep's second half
 * (MADV_DONTNEED: its size and committed bytes the same, so no change of
 * the region, 2 MiB less resident), maps a new 12 MiB region (holes
 * around it too), writes every new page, prints
 *   changed added=0x..
 * and sleeps until killed, touching nothing.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB (1ul << 20)

/* size bytes, written, with a hole on each side; room bytes after it are
 * held (PROT_NONE, a region of their own) until let go, so that no other
 * map is put there meanwhile. */
static char *place(size_t size, size_t room)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, size + room + 2 * (size_t)pg, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	/* no huge pages: khugepaged may not fill keep's dropped half again
	 * between the test's look at its Rss and the snapshot's */
	if (p == MAP_FAILED ||
	    mprotect(p + pg, size, PROT_READ | PROT_WRITE) < 0 ||
	    madvise(p + pg, size, MADV_NOHUGEPAGE) < 0)
		return NULL;
	munmap(p, (size_t)pg);
	munmap(p + pg + size + room, (size_t)pg);
	memset(p + pg, 1, size);
	return p + pg;
}

/* FILE's first page, private and read-only, a hole on each side. */
static char *place_file(const char *path)
{
	long pg = sysconf(_SC_PAGESIZE);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *p = mmap(NULL, 3 * (size_t)pg, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (fd < 0 || p == MAP_FAILED ||
	    mmap(p + pg, (size_t)pg, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd,
		 0) == MAP_FAILED)
		return NULL;
	close(fd);
	munmap(p, (size_t)pg);
	munmap(p + 2 * pg, (size_t)pg);
	return p + pg;
}

static int ready_pipe[2], grow_pipe[2];

/* The thread: a block from its own arena, written; where its stack and
 * the block are, to the main thread; at a byte from it, 16 blocks of 64
 * KiB more (the arena's heap grows by 1 MiB in place), written, and a
 * byte back; then nothing. */
static void *idle(void *arg)
{
	void *at[2];
	char here = 1, c;
	int i;

	(void)arg;
	at[0] = &here;
	at[1] = malloc(64 * 1024);
	if (at[1])
		memset(at[1], 3, 64 * 1024);
	if (write(ready_pipe[1], at, sizeof(at)) != (ssize_t)sizeof(at) ||
	    read(grow_pipe[0], &c, 1) != 1)
		return NULL;
	for (i = 0; i < 16; i++) {
		char *b = malloc(64 * 1024);

		if (!b)
			return NULL;
		memset(b, 4, 64 * 1024);
	}
	if (write(ready_pipe[1], &c, 1) != 1)
		return NULL;
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	char line[64], *grow, *shrink, *gone, *prot, *keep, *added;
	char *named = NULL;
	void *thread_at[2];
	pthread_t t;

	/* the thread and its arena first: nothing of theirs lands in the
	 * room kept for grow */
	if (pipe(ready_pipe) < 0 || pipe(grow_pipe) < 0 ||
	    pthread_create(&t, NULL, idle, NULL) ||
	    read(ready_pipe[0], thread_at, sizeof(thread_at)) !=
		    (ssize_t)sizeof(thread_at) ||
	    !thread_at[1])
		return 1;
	grow = place(8 * MIB, 16 * MIB);
	shrink = place(16 * MIB, 0);
	gone = place(4 * MIB, 0);
	prot = place(4 * MIB, 0);
	keep = place(4 * MIB, 0);
	if (!grow || !shrink || !gone || !prot || !keep)
		return 1;
	if (argc > 1 && !(named = place_file(argv[1])))
		return 1;
	/* grow's room free now that nothing else is to be placed */
	munmap(grow + 8 * MIB, 16 * MIB);
	printf("ready grow=%p shrink=%p gone=%p prot=%p keep=%p", (void *)grow,
	       (void *)shrink, (void *)gone, (void *)prot, (void *)keep);
	if (named)
		printf(" named=%p", (void *)named);
	printf(" tstack=%p tarena=%p\n", thread_at[0], thread_at[1]);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	/* grow first, into its room; added then (it does not fit what is
	 * left of the room), before any other room is made */
	if (mremap(grow, 8 * MIB, 16 * MIB, 0) != grow)
		return 1;
	memset(grow + 8 * MIB, 2, 8 * MIB);
	added = place(12 * MIB, 0);
	if (!added)
		return 1;
	if (mremap(shrink, 16 * MIB, 4 * MIB, 0) != shrink)
		return 1;
	munmap(gone, 4 * MIB);
	if (named)
		munmap(named, (size_t)sysconf(_SC_PAGESIZE));
	if (mprotect(prot, 4 * MIB, PROT_READ) < 0 ||
	    madvise(keep + 2 * MIB, 2 * MIB, MADV_DONTNEED) < 0)
		return 1;
	/* the thread's arena grows */
	if (write(grow_pipe[1], "g", 1) != 1 ||
	    read(ready_pipe[0], line, 1) != 1)
		return 1;
	printf("changed added=%p\n", (void *)added);
	fflush(stdout);
	for (;;)
		pause();
}
