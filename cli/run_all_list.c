/* run_all_list.c — which processes vmscope --all reads (run_all.h): the
 * PIDs given (a thread's id as its process's), the processes of a name,
 * or every process in /proc (kernel threads marked, by kthreadd's
 * children); and the small /proc files the run reads of each.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "linux/cgroup.h"
#include "linux/procfs.h"
#include "linux/proclist.h"
#include "run_all.h"

/* PIDs given past which /proc is listed to tell processes from threads
 * (all_todo_of) rather than each PID's status read. */
#define FEW_PIDS 8u

/* The text of a small /proc file into buf; its length, or -1. */
ssize_t all_read_small(pid_t pid, const char *what, char *buf, size_t n)
{
	char path[64];
	ssize_t got;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	got = read(fd, buf, n - 1);
	close(fd);
	if (got < 0)
		return -1;
	buf[got] = '\0';
	return got;
}

/* Field n (n > 2: after the ")" that ends comm) of stat's text, or NULL. */
const char *all_stat_field(const char *stat, int n)
{
	const char *p = strrchr(stat, ')');
	int field;

	if (!p || !p[1] || !p[2])
		return NULL;
	p += 2; /* field 3, the state */
	for (field = 3; field < n && p; field++)
		if ((p = strchr(p, ' ')))
			p++;
	return p;
}

/* Whether stat's text (a buffer) is a process with no memory to read: a
 * kernel thread (PF_KTHREAD in its flags, the 9th field) or a zombie
 * (state Z or X, the 3rd) that is the whole process (num_threads, the
 * 20th, at most 1). A leader that exited while its other threads run on
 * is a zombie too, whose memory is read through a live thread (as -s
 * reads it): a process to look at, not one without memory. */
bool all_stat_no_memory(const char *stat)
{
	const char *state = all_stat_field(stat, 3), *flags, *threads;

	if (!state)
		return false;
	if (*state == 'Z' || *state == 'X')
		return !(threads = all_stat_field(stat, 20)) ||
		       strtol(threads, NULL, 10) <= 1;
	flags = all_stat_field(stat, 9);
	return flags && (strtoul(flags, NULL, 10) & PF_KTHREAD_FLAG);
}

static int by_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The cgroup v2 path --all's cgroup operand names, into top (n bytes),
 * without a trailing "/": a directory under a cgroup2 mount (by
 * /proc/self/mountinfo: /sys/fs/cgroup/X, or /sys/fs/cgroup/unified/X on
 * a hybrid host) is the cgroup it stands for; any other path is taken as
 * a cgroup path as /proc/PID/cgroup shows it ("/system.slice"). -1 when
 * it does not fit. */
int all_top_cgroup(const char *operand, char *top, size_t n)
{
	char path[4096], *mi = NULL;
	size_t len, milen;
	int got = 0;

	if (snprintf(path, sizeof(path), "%s", operand) >= (int)sizeof(path))
		return -1;
	len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	if (procfs_read_file("/proc/self/mountinfo", &mi, &milen) == 0)
		got = cgroup_v2_of_dir(mi, path, top, n);
	free(mi);
	if (got < 0)
		return -1;
	if (got == 0 && snprintf(top, n, "%s", path) >= (int)n)
		return -1;
	/* "/" is every cgroup: under() takes "" as the top of them all */
	len = strlen(top);
	while (len > 0 && top[len - 1] == '/')
		top[--len] = '\0';
	return 0;
}

/* The kernel threads as kthreadd's children say (pid 2 and its
 * children, pid 2 checked to be kthreadd: not so in a pid namespace),
 * sorted; none when it cannot be read. A hint: a usermode helper is its
 * child too (early_read asks its exe). */
struct kthreads {
	pid_t *v;
	size_t n;
};

static void kthreads_of(struct kthreads *k)
{
	char stat[4096], *text = NULL, *p, *end;
	const char *flags;
	size_t len, cap;

	k->v = NULL;
	k->n = 0;
	if (all_read_small(2, "stat", stat, sizeof(stat)) < 0 ||
	    !(flags = all_stat_field(stat, 9)) ||
	    !(strtoul(flags, NULL, 10) & PF_KTHREAD_FLAG) ||
	    procfs_read_file("/proc/2/task/2/children", &text, &len) < 0)
		return;
	cap = len / 2 + 1; /* a pid and a space at least */
	if ((k->v = malloc((cap + 1) * sizeof(*k->v)))) {
		k->v[k->n++] = 2;
		for (p = text; k->n <= cap; p = end) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			if (v > 0 && v <= INT32_MAX)
				k->v[k->n++] = (pid_t)v;
		}
		qsort(k->v, k->n, sizeof(*k->v), by_pid);
	}
	free(text);
}

static bool kthreads_has(const struct kthreads *k, pid_t pid)
{
	return k->n && bsearch(&pid, k->v, k->n, sizeof(*k->v), by_pid);
}

/* pid appended to *v (of *n, room for *cap): -1 when out of memory. */
static int todo_add(struct todo **v, size_t *n, size_t *cap, pid_t pid,
		    bool asked, bool kthread)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 512;
		void *m = realloc(*v, c * sizeof(**v));

		if (!m)
			return -1;
		*v = m;
		*cap = c;
	}
	(*v)[*n].pid = pid;
	(*v)[*n].asked = asked;
	(*v)[(*n)++].kthread = kthread;
	return 0;
}

/* The processes a asks for, in todo (of *n): 0, -1 when out of memory,
 * or an exit status (> 0) said. */
int all_todo_of(const struct args *a, const char *cg, struct todo **todo,
		size_t *n)
{
	struct vms_error err = { 0 };
	size_t cap = 0, i, k;
	pid_t *pids = NULL;
	int rc = 0;

	*todo = NULL;
	*n = 0;
	if (a->noperands && !cg) {
		/* each PID once, however often it is given, and a thread's
		 * id as its process's: once with it, not its address space
		 * again under the thread's name */
		pid_t *listed;
		size_t nlisted;

		if (!(pids = calloc((size_t)a->noperands, sizeof(*pids))))
			return -1;
		/* /proc lists processes, not threads: only a PID it does not
		 * list has its status read for its process (500 PIDs: one
		 * listing, not 500 status files). A few PIDs have theirs read
		 * each: a listing of /proc costs as much as some ten status
		 * files, a tenth of a run of one small process. */
		listed = NULL;
		nlisted = (size_t)a->noperands > FEW_PIDS
				  ? proclist_pids(&listed)
				  : 0;
		for (i = 0; i < (size_t)a->noperands; i++)
			if (cli_parse_pid(a->operands[i], &pids[i]) == 0 &&
			    !(listed && bsearch(&pids[i], listed, nlisted,
						sizeof(*listed), by_pid)))
				pids[i] = cli_process_of(pids[i], "counting");
		free(listed);
		qsort(pids, (size_t)a->noperands, sizeof(*pids), by_pid);
		for (i = 0; i < (size_t)a->noperands && rc == 0; i++)
			if (i == 0 || pids[i] != pids[i - 1])
				rc = todo_add(todo, n, &cap, pids[i], true,
					      false);
	} else if (a->name) {
		if (proclist_find_name(a->name, &pids, &k, &err) < 0)
			return cli_fail(&err);
		for (i = 0; i < k && rc == 0; i++)
			rc = todo_add(todo, n, &cap, pids[i], true, false);
	} else {
		DIR *d = opendir("/proc");
		struct dirent *e;
		struct kthreads kt;

		if (!d) {
			vms_error_set(&err, VMS_ERR_CAPTURE, errno, "/proc: %s",
				      strerror(errno));
			return cli_fail(&err);
		}
		kthreads_of(&kt);
		while (rc == 0 && (e = readdir(d)) != NULL) {
			pid_t pid;

			if (isdigit((unsigned char)e->d_name[0]) &&
			    cli_parse_pid(e->d_name, &pid) == 0)
				rc = todo_add(todo, n, &cap, pid, false,
					      kthreads_has(&kt, pid));
		}
		closedir(d);
		free(kt.v);
	}
	free(pids);
	return rc;
}
