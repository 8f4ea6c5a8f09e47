/* procfile.h — the file behind a mapping of a live process, as that process
 * sees it. The one opener of the target's files: the images step (through
 * the sources) and the fork gadget use it.
 *
 * Contract: procfile_open() returns a read-only descriptor for the very
 * file a region maps, or -1. Every way in is checked against the device
 * and inode maps shows before a descriptor is returned (so before anything
 * is parsed): a path may name another file by now, or in vmscope's view.
 * The ways, in order:
 *  - /proc/PID/map_files/START-END (the mapped file itself: deleted files,
 *    other mount namespaces; needs CAP_SYS_ADMIN);
 *  - for a process in vmscope's own mount namespace, the path as vmscope
 *    sees it, following no symbolic link (openat2 RESOLVE_NO_SYMLINKS):
 *    the kernel writes a mapped file's path in maps from the reader's
 *    root, so a chrooted target's /lib/x.so is ROOT/lib/x.so there, and
 *    the path it gives has no link in it;
 *  - the path under the target's root, with openat2(RESOLVE_IN_ROOT): an
 *    absolute symlink or ".." inside the target's root resolves inside it,
 *    never into vmscope's (a process in another mount namespace: its maps
 *    name files from that namespace's root; kernels before 5.6: not
 *    tried);
 *  - with pid 0 only (no process behind the region: fixtures, tests), the
 *    path as it is, checked against the inode when the region has one.
 * Held files (procfile_hold, the samplers): the /proc/PID directory and
 * the root are opened once, at the capture, while the process is known to
 * be the one captured; every later open goes through them, so a pid
 * reused since, a chroot since or an exit since cannot send a lookup to
 * another process or another root (after an exit map_files is gone, the
 * held root still resolves). The root is held only until the steps are
 * done (procfile_let_root_go: a mount held open would be busy), the
 * directory as long as the snapshot. Without a hold, by pid (the fork
 * gadget, inside the freeze).
 * A file is first opened with O_PATH (which opens nothing: no device, no
 * FIFO to wait on, no terminal), checked, then reopened for reading
 * through /proc/self/fd: only regular files, never blocking; the reopened
 * descriptor is checked to be that file by its fstat, the stat the open
 * hands on (open_file's st, source.h). Device memory
 * (VM_IO/VM_PFNMAP) is never opened. procfile_fs_magic() is the statfs
 * f_type of that file's file system, or 0 when it cannot be told.
 * vms_source_proc_stat() is the stat of that file, checked the same way:
 * from map_files in one call where it can be followed, else as above.
 */
#ifndef VMS_PROCFILE_H
#define VMS_PROCFILE_H

#include <sys/stat.h>
#include <sys/types.h>

#include "model/snapshot.h"

int procfile_open(pid_t pid, const struct vms_region *r);
long procfile_fs_magic(pid_t pid, const struct vms_region *r);

/* The file callbacks of a source whose files are those of the live process
 * s->src.pid (through s->src.files once held; with pid 0 and none held,
 * the paths as they are). For the samplers' tables. */
int vms_source_proc_open(struct vms_snapshot *s, const struct vms_region *r,
			 struct stat *st);
int vms_source_proc_stat(struct vms_snapshot *s, const struct vms_region *r,
			 struct stat *st);
long vms_source_proc_fs_magic(struct vms_snapshot *s,
			      const struct vms_region *r);

/* Holds pid's /proc directory and root in s->src.files for every later
 * open of s's files (above). Called by a sampler while pid is known to be
 * the process captured (frozen, or before its pidfd's last check). A way
 * that cannot be held (no permission, gone) is not tried later by pid.
 * Idempotent. */
void procfile_hold(struct vms_snapshot *s, pid_t pid);
/* procfile_hold at the first open of s's files instead of now, for a
 * capture whose files are mostly found in the run's cache (vmscope
 * --all: most open none; the hold was three calls a process): pidfd, a
 * pidfd of pid open until the steps are done, is checked right after
 * the hold (reaped: procfile_drop). Once the steps are done
 * (procfile_let_root_go) a hold not made is never made: the snapshot's
 * files are not opened. */
void procfile_hold_later(struct vms_snapshot *s, pid_t pid, int pidfd);
/* Lets the held root go (the /proc directory stays): a root held open
 * keeps its mount busy, and a container's runtime could not unmount it
 * while a snapshot lives (the viewer keeps 64). Called when the steps
 * that read the files are done; a later open finds the root through the
 * held /proc directory: the same process's, as it is then. */
void procfile_let_root_go(struct vms_snapshot *s);
/* Lets the held files go, and none is opened by pid afterwards (the
 * process was found to have been reaped: the hold may be another's). */
void procfile_drop(struct vms_snapshot *s);

/* Files opened by their paths as they are (a snapshot made from text with
 * no process behind it: fixtures, tests); no memory. */
extern const struct vms_source_ops vms_source_paths;

#endif
