/* heaps_glibc.h — the heaps screen's glibc detail (heaps_glibc.c): the
 * figures of glibc's malloc as mallinfo2 counts them, or of one arena
 * with its fragmentation strip and free-chunk histogram. Only for the
 * heaps screen (screen_heaps.c).
 */
#ifndef VMS_UI_HEAPS_GLIBC_H
#define VMS_UI_HEAPS_GLIBC_H

#include <stdint.h>

#include "screens/heaps.h"

/* "main arena 0x..." or "arena 0x..." in buf. */
const char *hg_arena_name(const struct vms_heap *h, char *buf, size_t n);
/* A size as people read it, or exact bytes (heaps.h: bytes), in buf. */
const char *hg_figure(const struct ui *u, uint64_t v, char *buf, size_t n);
/* "Label value" pairs (kv: label, value, label, ...; n strings) from line
 * y, wrapped at the width, never past ymax: the next free line. */
int hg_pairs(int y, int ymax, const char *const *kv, size_t n);
/* The detail of arena h (NULL: the process's malloc, or why it was not
 * walked) in lines [y, ymax). */
void hg_detail(struct ui *u, int y, int ymax, const struct vms_heap *h);

#endif
