/* bigmem.h — arrays of a million entries: malloc'd, with a hint that
 * their memory come in huge pages.
 *
 * Contract: vms_big_malloc() and vms_big_realloc() are malloc() and
 * realloc() (free() frees them), and ask the kernel (MADV_HUGEPAGE) for
 * transparent huge pages on the part of a block of 4 MiB or more that
 * whole 4 KiB pages cover. A hint only: where THP is off, or no huge page
 * is free, the block is the same as malloc's. Nothing is populated: the
 * pages still come as they are first written. glibc serves a block of up
 * to 32 MiB from its heap once it has freed a mapped block that large:
 * the hint then stays on that part of the heap after the block is freed,
 * which costs at most huge pages for what later lands there.
 *
 * Why: on a VM with shadow paging every first touch of a 4 KiB page
 * traps. Measured on this project's machine, writing 32 MB took 113 ms
 * in 4 KiB pages and 2 ms in huge pages; a million-row sort spent more
 * on its temporaries' page faults than on sorting.
 */
#ifndef VMS_BIGMEM_H
#define VMS_BIGMEM_H

#include <stddef.h>

/* Asks for huge pages on [p, p + bytes) (the whole pages in it). */
void vms_hint_huge(void *p, size_t bytes);
/* Faults in the whole pages of [p, p + bytes), writable, in one call
 * (MADV_POPULATE_WRITE, Linux 5.14; nothing where it is missing): for
 * memory about to be written through, a trap a page saved. 2 MB took
 * 0.5 ms so against 7.4 ms touched page by page on this VM. */
void vms_big_populate(void *p, size_t bytes);
void *vms_big_malloc(size_t bytes);
void *vms_big_realloc(void *p, size_t bytes);

#endif
