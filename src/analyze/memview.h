/* memview.h — a snapshot's memory as the viewer shows it: region contents
 * (strings, hex) and finding bytes across the snapshot.
 *
 * Contract: memory is read from the snapshot's source only, and only when
 * it is memory as of the snapshot: a fork clone, a target frozen for the
 * reads (pss -F), a core dump. vms_memview_why() says, in words a person
 * can act on, why there is none otherwise (a snapshot file, a pss capture
 * not frozen: its memory is the running target's, a source let go); the
 * other functions then read nothing. Reads are short where pages are
 * absent (never touched, swapped out: reading them would change the
 * target). Nothing here keeps state; the caller owns every buffer.
 */
#ifndef VMS_MEMVIEW_H
#define VMS_MEMVIEW_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"
#include "model/snapshot.h"

/* NULL when the snapshot's memory can be shown, else why not. */
const char *vms_memview_why(const struct vms_snapshot *s);

/* Copies the region's bytes from addr, up to len, into buf, skipping
 * pages that cannot be read: ok[k] (one byte a page of page_size from
 * addr, addr page-aligned) is 1 where the page was read, 0 where it is
 * absent (its bytes are left zero). Returns the pages read, or -1 with
 * *err (no memory: vms_memview_why's reason). */
ssize_t vms_memview_read(struct vms_snapshot *s, uint64_t addr, void *buf,
			 size_t len, unsigned char *ok, struct vms_error *err);

/* Lets the snapshot's memory go (the fork sampler's clone dies), keeping
 * the rest of it: before the same process is captured again, so that the
 * pages the target still shares with the old clone do not read as shared
 * (and their Pss as halved) in the new capture. */
void vms_memview_release(struct vms_snapshot *s);

/* Called every so often with the address reached; non-zero cancels. */
typedef int (*vms_memview_progress)(void *ctx, uint64_t at);

/* Finds pat (plen bytes, 1 to 256) at or after from, region by region in
 * address order (regions that cannot be read skipped, absent pages
 * skipped: a match never spans one). 1 with *at, 0 when there is none,
 * -1 with *err (no memory, a read failed, cancelled). */
int vms_memview_find(struct vms_snapshot *s, uint64_t from,
		     const unsigned char *pat, size_t plen, uint64_t *at,
		     vms_memview_progress progress, void *ctx,
		     struct vms_error *err);

#endif
