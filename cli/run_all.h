/* run_all.h — the parts of vmscope --all (run_all.c: reading the
 * processes and writing the exposition; run_all_list.c: which processes,
 * and the small /proc files read of each). Private to them.
 */
#ifndef VMS_RUN_ALL_H
#define VMS_RUN_ALL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cli.h"

#define PF_KTHREAD_FLAG 0x00200000u /* include/linux/sched.h */

/* The processes of a run, in order, each with whether it was asked for
 * (named by PID or -n NAME: counted when not read). */
struct todo {
	pid_t pid;
	bool asked;
	/* a child of kthreadd, or kthreadd (kthreads_of): a kernel thread,
	 * unless its exe can be read */
	bool kthread;
};

/* The text of a small /proc file of pid into buf (n bytes, NUL-ended);
 * its length, or -1. */
ssize_t all_read_small(pid_t pid, const char *what, char *buf, size_t n);
/* Field n (n > 2: after the ")" that ends comm) of stat's text, or NULL. */
const char *all_stat_field(const char *stat, int n);
/* Whether stat's text is a process with no memory to read: a kernel
 * thread, or a zombie that is the whole process. */
bool all_stat_no_memory(const char *stat);
/* The cgroup v2 path a cgroup operand names, into top (n bytes), without
 * a trailing "/"; -1 when it does not fit. */
int all_top_cgroup(const char *operand, char *top, size_t n);
/* The processes a asks for (under the cgroup path cg, or NULL), in *todo
 * (of *n): 0, -1 when out of memory, or an exit status (> 0) said. */
int all_todo_of(const struct args *a, const char *cg, struct todo **todo,
		size_t *n);

#endif
