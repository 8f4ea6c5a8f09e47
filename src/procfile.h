/* procfile.h — the file behind a mapping of a live process, as that process
 * sees it.
 *
 * Contract: procfile_open() returns a read-only descriptor for the file a
 * region maps, or -1. It tries /proc/PID/map_files (the mapped file itself:
 * works for deleted files and other mount namespaces, needs CAP_SYS_ADMIN),
 * then the path under the target's root (/proc/PID/root), then the path as
 * vmscope sees it; the last two only if device and inode are the mapping's.
 * With pid 0 the path is opened as it is (no process behind the region).
 * Only regular files are opened, never blocking (O_NONBLOCK: a FIFO put at
 * a mapped path cannot make vmscope wait) and never as a controlling
 * terminal; device memory (VM_IO/VM_PFNMAP) is never opened.
 * procfile_fs_magic() is the statfs f_type of that file's file system, or 0
 * when it cannot be told.
 */
#ifndef VMS_PROCFILE_H
#define VMS_PROCFILE_H

#include <sys/types.h>

#include "snapshot.h"

int procfile_open(pid_t pid, const struct vms_region *r);
long procfile_fs_magic(pid_t pid, const struct vms_region *r);

#endif
