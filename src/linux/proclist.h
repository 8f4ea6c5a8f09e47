/* proclist.h — processes through libproc2 (procps-ng): the list for --list
 * and the picker, one process's identity, and its smaps_rollup figures.
 *
 * Contract: no output, no exit; results are malloc'd (proclist_free) or
 * placed in the arena given. Processes that cannot be read are listed with
 * the reason, not dropped.
 */
#ifndef VMS_PROCLIST_H
#define VMS_PROCLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/arena.h"
#include "base/error.h"
#include "model/snapshot.h"

struct proc_entry {
	pid_t pid;
	uid_t uid;
	char user[32];
	char name[64]; /* /proc/PID/comm's bytes, as they are */
	char *cmdline; /* malloc'd: the raw bytes (procfs_read_cmdline) */
	size_t arg0; /* argv[0]'s length at cmdline's start (0: none) */
	uint64_t rss, pss; /* bytes; pss 0 when unreadable */
	bool readable; /* smaps_rollup could be read */
	const char *why; /* when not readable: "other user", ... (static) */
};

struct proc_list {
	struct proc_entry *v;
	size_t n;
};

enum proclist_sort {
	PROCLIST_BY_PID,
	PROCLIST_BY_NAME,
	PROCLIST_BY_USER,
	PROCLIST_BY_RSS,
	PROCLIST_BY_PSS
};

int proclist_read(struct proc_list *l, struct vms_error *err);
void proclist_sort(struct proc_list *l, enum proclist_sort by, bool reverse);
void proclist_free(struct proc_list *l);

/* Fills p (strings in the arena) for pid: name, cmdline, exe, uid. The
 * first step of every capture: a process with no address space (a kernel
 * thread, a zombie) fails here with a message saying which. */
int proclist_identity(pid_t pid, struct arena *a, struct vms_process *p,
		      struct vms_error *err);
/* What a capture of vmscope --all uses of it, without libproc2 (whose
 * look-up of one process reads /proc/uptime, status and stat besides:
 * a tenth of such a run's time): the name (comm) and exe; the command
 * line left "" and uid 0 (sampler_read_status's uid sets it). */
/* comm: the name as the caller has just read it from /proc/PID/stat,
 * the process found to have memory (no kernel thread, no zombie without a
 * thread that runs); NULL: read and checked here. */
int proclist_identity_lean(pid_t pid, pid_t mm, const char *comm,
			   struct arena *a, struct vms_process *p,
			   struct vms_error *err);

/* All processes named name (comm or argv[0] basename). *pids malloc'd. */
/* The PIDs /proc lists (its processes, not their other threads), sorted,
 * in *v (malloc'd); their number. NULL and 0 when /proc cannot be read or
 * on out of memory: a caller then takes each PID as it comes. */
size_t proclist_pids(pid_t **v);
int proclist_find_name(const char *name, pid_t **pids, size_t *n,
		       struct vms_error *err);

#endif
