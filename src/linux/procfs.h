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

#include "base/error.h"

struct vms_rollup;

/* Reads a whole file into a malloc'd NUL-terminated buffer (*len without the
 * NUL). Returns 0, or -1 with errno set. */
int procfs_read_file(const char *path, char **buf, size_t *len);
/* The same for /proc/PID/NAME (NAME may contain "task/TID/comm"). */
int procfs_read_pid(pid_t pid, const char *name, char **buf, size_t *len);
/* Both for a file the kernel writes as one record (single_open: a task's
 * stat, status, statm, syscall, comm, cgroup), given whole by a read
 * with room for it: a read short of the room ends it, without the read
 * that would say so (a call a file, for vmscope --all a few a process).
 * Never for a file of many records (maps, smaps, mountinfo: a read gives
 * a page of them at a time). */
int procfs_read_one(const char *path, char **buf, size_t *len);
int procfs_read_pid_one(pid_t pid, const char *name, char **buf, size_t *len);

/* The most of /proc/PID/cmdline read: libproc2's bound (a command line
 * may be megabytes; what is shown of it is its start). */
#define PROCFS_CMDLINE_MAX (128 * 1024)
/* /proc/PID/cmdline, at most PROCFS_CMDLINE_MAX bytes of it, joined by
 * procfs_cmdline_join: its bytes as they are (escaping is for where it is
 * printed: escape.h), "" for a process without one (a kernel thread, a
 * zombie). 0, or -1 with errno set. */
int procfs_read_cmdline(pid_t pid, char **buf, size_t *len, size_t *arg0);
/* The arguments in buf[0, len) (each ended by a NUL, the last one's
 * maybe cut) as one string, in place: NULs at the end dropped, the others
 * made spaces, as ps shows it; NUL-terminated (buf has room for one past
 * len). Returns its length; *arg0 gets the length of its first argument
 * (argv[0]) at its start. */
size_t procfs_cmdline_join(char *buf, size_t len, size_t *arg0);

/* "Key:   123 kB" in a status-like buffer: bytes, or -1 if the key is
 * missing. Values without a unit are returned as they are. */
long long procfs_status_value(const char *buf, size_t len, const char *key);
/* Key's value in thread tid of pid's own status (procfs_status_value's:
 * -1 if the key is missing), -2 when the status cannot be read. */
long long procfs_thread_status(pid_t pid, pid_t tid, const char *key);
/* A thread's seccomp mode (Seccomp: in its own status: a filter is per
 * thread): 0 none (or a kernel without the line), -1 unreadable. */
long long procfs_thread_seccomp(pid_t pid, pid_t tid);

/* The mapping of pid that covers addr, by one PROCMAP_QUERY ioctl on
 * /proc/PID/maps (Linux 6.11), without reading the text: 1 with *start,
 * *end and *exec (its permissions allow execution), 0 when nothing maps
 * addr, -1 when the kernel cannot say so (no such ioctl, no such pid: read
 * the text instead). */
int procfs_vma_at(pid_t pid, uint64_t addr, uint64_t *start, uint64_t *end,
		  bool *exec);

/* The text of /proc/PID/smaps_rollup (a header line, then smaps's key
 * lines summed), by procfs_status_value: r gets the figures, bytes (0 for
 * a key missing or malformed), and r->valid when Rss is there. */
void procfs_rollup_parse(const char *buf, size_t len, struct vms_rollup *r);

/* /proc/PID/task/TID/syscall: "nr arg1..arg6 sp pc", or "-1 sp pc" when
 * not in a system call, or "running". Sets *sp and returns 0, or -1 when
 * the line says "running" or is malformed. */
int procfs_syscall_sp_parse(const char *buf, size_t len, uint64_t *sp);

/* The thread ids in /proc/PID/task, sorted. *tids is malloc'd. */
int procfs_list_tasks(pid_t pid, pid_t **tids, size_t *n);

/* Fills *e with a message for an errno that came from reading what (a /proc
 * path of pid): ENOENT/ESRCH -> no such process, EACCES/EPERM -> not
 * permitted, with the reason found by checking what the kernel checks
 * (another user, a non-dumpable process, capabilities the target holds,
 * CAP_SYS_PTRACE missing, a user namespace, else a security module). */
int procfs_errno_error(struct vms_error *e, pid_t pid, const char *what,
		       int err);

/* When the kernel refuses pid to a caller who is not root because of their
 * ids (another user's process, or a setuid or setgid program the caller
 * started), true with the reason in why. */
bool procfs_ids_refuse(pid_t pid, char *why, size_t size);
/* When vmscope runs in a user namespace other than the initial one (root
 * there, unshare -U -r, is no one outside it): true with what to do in
 * why, the reason a refusal of pid's files or of ptrace most likely has. */
bool procfs_userns_refuses(pid_t pid, char *why, size_t size);

/* What a pid is, from /proc/PID/stat (and, for a zombie main thread, its
 * other threads). */
enum procfs_kind {
	PROCFS_GONE, /* no such process (any more) */
	PROCFS_USER, /* a process with a user address space (also one whose
		      * main thread exited while others run) */
	PROCFS_ZOMBIE, /* exited, its status not yet collected (or dead) */
	PROCFS_KTHREAD, /* a kernel thread: no user address space ever */
};
/* *ppid (if not NULL) is the parent's pid, for what a zombie waits on. */
enum procfs_kind procfs_pid_kind(pid_t pid, pid_t *ppid);
/* For a process with no address space to show: fills *e saying which
 * (kernel thread, zombie and whose parent holds it, gone; VMS_ERR_NOPROC:
 * there is nothing to view) and returns -1; returns 0 and leaves *e alone
 * for a process that has one. */
int procfs_check_has_mm(struct vms_error *e, pid_t pid);

/* The task whose /proc files show pid's address space: pid itself, or,
 * when its main thread has exited (pthread_exit: a zombie leader whose
 * smaps, maps, mem and status figures are empty while the other threads
 * run), the first thread that has not; pid when there is none (the
 * process is gone or exiting: its own files say so). A thread id is a pid
 * number like any other: /proc/TID/... reads it (map_files, libproc2). */
pid_t procfs_mm_pid(pid_t pid);
/* The process task id tid belongs to: the Tgid of /proc/TID/status
 * (tid itself for a process; a thread's id is not listed in /proc, but
 * /proc/TID reads it as if it were a process), or 0 when the status
 * cannot be read (gone, not permitted: what reads tid next will say). */
pid_t procfs_tgid(pid_t tid);
/* The name the fork sampler's ptrace helper takes (fork_keeper.c). */
#define PROCFS_KEEPER_COMM "vmscope-keeper"
/* Whether pid is a clone vmscope's fork sampler made of a process (-b
 * fork: stopped, traced by a vmscope-keeper, kept while a viewer shows
 * it; its target's name, its pages shared with it): a copy to leave out
 * of a list of processes, never one to look at. Told from its target,
 * which a keeper traces too while it is frozen (-F, -b fork), by its
 * exit signal: 0, as fork_clone.c makes it. Asked of a process in a
 * trace stop ('t') only: it reads pid's stat and status and its tracer's
 * comm. */
bool procfs_vmscope_clone(pid_t pid);
/* procfs_mm_pid for a main thread whose state (stat's third field) the
 * caller has just read: pid itself unless it is a zombie ('Z', 'X'). */
pid_t procfs_mm_pid_in(pid_t pid, char state);
/* The state (stat's third field: 'R', 'S', 'Z', ...) in the text of a
 * /proc/PID/stat, or 0 when it is not such a text; comm (n > 0 bytes)
 * gets the name between the first "(" and the last ")", cut to fit. */
char procfs_stat_state(const char *stat, char *comm, size_t n);
/* "/proc/PID/NAME", or "/proc/PID/task/TID/NAME" for the TID above when the
 * main thread has exited (the task path: TID is a thread of PID's, not a
 * pid reused by another process). Truncated to size like snprintf. */
void procfs_mm_path(pid_t pid, const char *name, char *buf, size_t size);
/* The same with mm, procfs_mm_pid(pid)'s answer found once for a capture
 * of many files (vmscope --all: each look costs a read of the main
 * thread's stat), not found again; mm 0: procfs_mm_path. */
void procfs_mm_path_of(pid_t pid, pid_t mm, const char *name, char *buf,
		       size_t size);

/* True when thread tid of pid has exited (a zombie: a main thread that
 * called pthread_exit) or is gone. */
bool procfs_thread_exited(pid_t pid, pid_t tid);

/* A pidfd of pid (pidfd_open), or -1 (errno: ESRCH, or ENOSYS on a kernel
 * before 5.3). While it is open, pid names that process or none: the
 * number is not given to another until the process has been reaped. */
int procfs_pidfd_open(pid_t pid);
/* True when the process of pidfd has been reaped (and its pid may name
 * another process since): what was opened by pid before this check, while
 * it said false, was that process's. False for -1. */
bool procfs_pidfd_reaped(int pidfd);

/* True if /proc/PID exists. */
bool procfs_pid_exists(pid_t pid);
/* True when pid is a process of this PID namespace that /proc does not
 * show: mounted hidepid=2 (invisible), which hides other users'
 * processes, or a /proc of another namespace. Asked with kill(pid, 0),
 * which sends nothing (EPERM says the process is there). */
bool procfs_pid_hidden(pid_t pid);
/* True when pid has exited or is exiting: gone, a zombie (every thread), or
 * its address space already dropped (statm all zero: a smaps read then ends early at a
 * record boundary, looking complete, and ptrace answers EPERM). False for a
 * kernel thread, which never had one, and for a process /proc hides
 * (procfs_pid_hidden: nothing is known of it). */
bool procfs_pid_exiting(pid_t pid);

/* The user address range ends here on this machine (the highest address a
 * mapping can have without opting into 5-level paging). */
uint64_t procfs_user_end(void);
/* vm.mmap_min_addr, or the page size if unreadable. */
uint64_t procfs_mmap_min_addr(void);

#endif
