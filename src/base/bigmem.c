/* bigmem.c — malloc and realloc with a huge-page hint (bigmem.h). */
#include "base/bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

/* Below this a block holds at most one aligned 2 MiB extent, often none,
 * and may sit in the malloc heap among small blocks. */
#define BIG_MIN ((size_t)4 << 20)

/* madvise on the whole pages of [p, p + bytes); a hint: errors (an older
 * kernel without the advice) are ignored. */
static void advise(void *p, size_t bytes, int advice)
{
	uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
	uintptr_t b = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;

	if (b > a)
		madvise((void *)a, b - a, advice);
}

void vms_hint_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	advise(p, bytes, MADV_HUGEPAGE);
#else
	(void)p;
	(void)bytes;
#endif
}

void vms_big_populate(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
	advise(p, bytes, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)bytes;
#endif
}

void *vms_big_malloc(size_t bytes)
{
	void *p = malloc(bytes);

	if (p && bytes >= BIG_MIN)
		vms_hint_huge(p, bytes);
	return p;
}

void *vms_big_realloc(void *p, size_t bytes)
{
	void *n = realloc(p, bytes);

	if (n && bytes >= BIG_MIN)
		vms_hint_huge(n, bytes);
	return n;
}
