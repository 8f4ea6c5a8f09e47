/* contents — a target whose memory holds strings the region-contents
 * tests look for (tests/tui/test_contents.py).
 *
 * Two anonymous mappings of 64 KiB each, every page written:
 *   strings  an ASCII string at +0x100, a UTF-16LE one at +0x2000
 *   needle   a unique text at +0x8100 (found by the find across the
 *            snapshot: it is made in place from a reversed literal, so
 *            no other copy of it is in memory)
 * Prints
 *   ready strings=0xADDR needle=0xADDR ascii=TEXT wide=TEXT
 * then blocks in read() on stdin ("q" or EOF exits).
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SIZE (64u << 10)

static const char ascii[] = "vmscope-ascii-marker-4711";
static const char wide[] = "WideMarker-0815";
static const char needle_rev[] = "yromem-ni-a3f7-eldeen";

static char *map(void)
{
	char *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		_exit(1);
	}
	memset(p, 0x01, SIZE); /* present, and no strings of its own */
	return p;
}

int main(void)
{
	char *s = map(), *guard, *n, line[16];
	size_t i, len = sizeof(needle_rev) - 1;

	/* a mapping between them with other permissions: never merged */
	guard = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	n = map();
	(void)guard;
	memcpy(s + 0x100, ascii, sizeof(ascii)); /* with its NUL */
	for (i = 0; wide[i]; i++) {
		s[0x2000 + 2 * i] = wide[i];
		s[0x2000 + 2 * i + 1] = 0;
	}
	s[0x2000 + 2 * i] = s[0x2000 + 2 * i + 1] = 0;
	for (i = 0; i < len; i++)
		n[0x8100 + i] = needle_rev[len - 1 - i];
	n[0x8100 + len] = 0;
	printf("ready strings=%p needle=%p ascii=%s wide=%s\n", (void *)s,
	       (void *)(n + 0x8100), ascii, wide);
	fflush(stdout);
	while (read(0, line, sizeof(line)) > 0)
		if (line[0] == 'q')
			break;
	return 0;
}
