/* observer.h — what vmscope itself maps that the target maps too.
 *
 * A page two processes map reads Shared, and half its PSS, in both. vmscope
 * holds private copies of its libraries' pages (src/linux/selfcopy.h), so
 * normally no page of a file a target maps. What can be left: everything,
 * when the copies could not be made (selfcopy_why() says why); what it
 * loads later (code a locale loads, an NSS module; the locale's data is
 * copied: selfcopy_setlocale); vmscope's own executable when the
 * target is another vmscope. observer_note() names such files in a note of
 * the snapshot (JSON capture.missing, the summary's Missing:), so a figure
 * that may read low is never presented as exact. The ranges selfcopy
 * copied are left out: they hold none of their file's pages.
 */
#ifndef VMSCOPE_OBSERVER_H
#define VMSCOPE_OBSERVER_H

#include <stddef.h>

#include "model/snapshot.h"

/* How many distinct files (device and inode) mapped in maps text (the
 * format of /proc/PID/maps) are also behind a region of s; the first one's
 * base name copied into first (size n). A parser: takes a buffer. */
size_t observer_common_files(const char *maps, size_t len,
			     const struct vms_snapshot *s, char *first,
			     size_t n);
/* Reads /proc/self/maps and, when vmscope maps files of the target, notes
 * it in s. Nothing when it cannot tell (a note is a warning, not a
 * figure). */
void observer_note(struct vms_snapshot *s);

#endif
