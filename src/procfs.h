/* procfs.h — small readers of /proc, and parsers of their buffers.
 *
 * Contract: the *_read functions touch /proc and return -1 with errno set;
 * the *_parse functions take a buffer, never a pid, and are pure. Errors are
 * turned into messages by procfs_errno_error(), which knows why /proc says
 * no (no such process, other user, ptrace policy).
 */
#ifndef VMS_PROCFS_H
#define VMS_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

/* Reads a whole file into a malloc'd NUL-terminated buffer (*len without the
 * NUL). Returns 0, or -1 with errno set. */
int procfs_read_file(const char *path, char **buf, size_t *len);
/* The same for /proc/PID/NAME (NAME may contain "task/TID/comm"). */
int procfs_read_pid(pid_t pid, const char *name, char **buf, size_t *len);

/* "Key:   123 kB" in a status-like buffer: bytes, or -1 if the key is
 * missing. Values without a unit are returned as they are. */
long long procfs_status_value(const char *buf, size_t len, const char *key);

/* /proc/PID/task/TID/syscall: "nr arg1..arg6 sp pc", or "-1 sp pc" when
 * not in a system call, or "running". Sets *sp and returns 0, or -1 when
 * the line says "running" or is malformed. */
int procfs_syscall_sp_parse(const char *buf, size_t len, uint64_t *sp);

/* The thread ids in /proc/PID/task, sorted. *tids is malloc'd. */
int procfs_list_tasks(pid_t pid, pid_t **tids, size_t *n);

/* Fills *e with a message for an errno that came from reading what (a /proc
 * path of pid): ENOENT/ESRCH -> no such process, EACCES/EPERM -> not
 * permitted, with the reason (other user, hidepid, capability). */
int procfs_errno_error(struct vms_error *e, pid_t pid, const char *what,
		       int err);

/* True if /proc/PID exists. */
bool procfs_pid_exists(pid_t pid);
/* True when pid has exited or is exiting: gone, a zombie, or its address
 * space already dropped (statm all zero: a smaps read then ends early at a
 * record boundary, looking complete, and ptrace answers EPERM). */
bool procfs_pid_exiting(pid_t pid);

/* The user address range ends here on this machine (the highest address a
 * mapping can have without opting into 5-level paging). */
uint64_t procfs_user_end(void);
/* vm.mmap_min_addr, or the page size if unreadable. */
uint64_t procfs_mmap_min_addr(void);

#endif
