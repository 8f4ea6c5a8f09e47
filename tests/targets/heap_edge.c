/* heap_edge — a chunk in use whose header ends a page and whose first page
 * of data was never written, in the main arena: the heap walker must read
 * its header alone, not its fd and bk, which lie on that page (absent)
 * and which glibc writes only once a chunk is free
 * (tests/live/test_heap_edge.py).
 *
 * The first malloc fixes where top is; a pad chunk moves top so that the
 * next chunk's header sits 16 bytes before a page's end; a 64 KiB chunk is
 * taken there and never written. Prints, by write(2) (stdio would
 * allocate),
 *   ready chunk=0xADDR data=0xADDR uordblks=N fordblks=N
 * chunk: the 64 KiB chunk's header; data: its first byte (a page's
 * first); uordblks, fordblks: mallinfo2's, read before the line is made.
 * Then it blocks in read() on stdin ("q" or EOF exits). Exit 2 if the
 * header did not land where it should (another allocator, a changed
 * glibc).
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	char *first = malloc(16), *pad, *big, line[160], c;
	uintptr_t top, chunk;
	size_t need;
	struct mallinfo2 mi;
	int n;

	if (!first)
		return 1;
	top = (uintptr_t)first - 16 + 32; /* malloc(16) takes 32 bytes */
	need = (0xff0 - (top & 0xfff)) & 0xfff;
	if (need < 32)
		need += 4096;
	pad = malloc(need - 8); /* a chunk of need bytes */
	big = malloc(64u << 10);
	if (!pad || !big)
		return 1;
	chunk = (uintptr_t)big - 16;
	if ((chunk & 0xfff) != 0xff0)
		return 2;
	mi = mallinfo2();
	n = snprintf(line, sizeof(line),
		     "ready chunk=0x%lx data=0x%lx uordblks=%zu fordblks=%zu\n",
		     (unsigned long)chunk, (unsigned long)(uintptr_t)big,
		     mi.uordblks, mi.fordblks);
	if (write(1, line, (size_t)n) != n)
		return 1;
	while (read(0, &c, 1) == 1 && c != 'q')
		;
	return 0;
}
