/* remap_exe — a program that maps its own executable again, far from its
 * image, for tests/live/test_core_names.py: a core's reader must not take
 * that mapping for the end of the image (and the next writable anonymous
 * region after it for the brk heap).
 *
 *   remap_exe
 *
 * Grows its brk heap (malloc of small blocks), maps /proc/self/exe shared
 * and read-only (in the mmap area, above the heap), prints
 *   ready heap=0x.. remap=0x..
 * (heap: an address in the brk heap) and sleeps until killed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	char *blk = malloc(4096);
	void *again;

	if (fd < 0 || !blk)
		return 1;
	memset(blk, 1, 4096);
	/* the copy, and a writable anonymous region right above it: what
	 * was named [heap] in its place */
	again = mmap(NULL, 4096 + 65536, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (again == MAP_FAILED ||
	    mmap(again, 4096, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) ==
		    MAP_FAILED)
		return 1;
	memset((char *)again + 4096, 2, 65536);
	printf("ready heap=%p remap=%p\n", (void *)blk, again);
	fflush(stdout);
	for (;;)
		pause();
}
