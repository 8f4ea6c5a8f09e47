/* pageout — private memory for Empty Working Set to page out
 * (tests/tui/test_ews.py).
 *
 *   pageout DIR MIB [split]
 *
 * Maps MIB MiB of private anonymous memory and writes every page (private
 * dirty: it can go only to swap), and maps privately, writable, a file of
 * MIB MiB it wrote in DIR and synced (DIR/pageout.dat), reading every page
 * (private clean: the kernel can drop it and read it again from the file,
 * swap or not). Each map has a hole on each side, so it stays one region.
 * With split, every other page of the file mapping is made read-only
 * (mprotect), so it is as many regions as pages, every other one private
 * writable. Prints
 *   ready anon=0x.. file=0x.. size=N
 * then waits for a line on stdin, touching nothing meanwhile; at each line
 * writes every anonymous page and reads every file page again (what was
 * paged out comes back) and prints "touched". Runs until killed or stdin
 * ends.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* size bytes at a place with a hole on each side */
static char *place(size_t size, int fd)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, size + 2 * (size_t)pg, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *q;

	if (p == MAP_FAILED)
		return NULL;
	q = mmap(p + pg, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_FIXED | (fd < 0 ? MAP_ANONYMOUS : 0), fd, 0);
	if (q == MAP_FAILED)
		return NULL;
	munmap(p, (size_t)pg);
	munmap(q + size, (size_t)pg);
	return q;
}

static void touch(char *anon, const char *file, size_t size, long pg)
{
	volatile char sum = 0;
	size_t i;

	memset(anon, 1, size);
	for (i = 0; i < size; i += (size_t)pg)
		sum += file[i];
	(void)sum;
}

int main(int argc, char **argv)
{
	long pg = sysconf(_SC_PAGESIZE);
	char path[4096], *anon, *file, buf[65536];
	size_t size, i;
	int fd;

	if (argc != 3 && argc != 4)
		return 2;
	size = strtoul(argv[2], NULL, 10) << 20;
	snprintf(path, sizeof(path), "%s/pageout.dat", argv[1]);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 1;
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < size; i += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return 1;
	/* clean in the page cache: a dirty file page is not dropped */
	if (fsync(fd) < 0)
		return 1;
	anon = place(size, -1);
	file = place(size, fd);
	if (!anon || !file)
		return 1;
	close(fd);
	touch(anon, file, size, pg);
	for (i = (size_t)pg; argc == 4 && i < size; i += 2 * (size_t)pg)
		if (mprotect(file + i, (size_t)pg, PROT_READ) < 0)
			return 1;
	printf("ready anon=%p file=%p size=%zu\n", (void *)anon, (void *)file,
	       size);
	fflush(stdout);
	while (fgets(buf, sizeof(buf), stdin)) {
		touch(anon, file, size, pg);
		printf("touched\n");
		fflush(stdout);
	}
	return 0;
}
