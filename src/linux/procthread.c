/* procthread.c — what /proc says of one thread: procthread.h. The state
 * letter is the stat field after the command's closing parenthesis (the
 * last one: a command may hold any byte). */
#include "linux/procthread.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/procfs.h"

/* The state letter in a stat buffer, or 'X'. */
static char stat_state(const char *b, size_t n)
{
	const char *p = memrchr(b, ')', n);

	return p && p + 2 < b + n ? p[2] : 'X';
}

char procthread_state(pid_t pid, pid_t tid)
{
	char name[64], *b, c;
	size_t n;

	snprintf(name, sizeof(name), "task/%d/stat", (int)tid);
	if (procfs_read_pid(pid, name, &b, &n) < 0)
		return 'X';
	c = stat_state(b, n);
	free(b);
	return c;
}

bool procthread_dead(pid_t pid, pid_t tid)
{
	char c = procthread_state(pid, tid);

	return c == 'Z' || c == 'X';
}

int procthread_tracer(pid_t pid, pid_t tid)
{
	long long v = procfs_thread_status(pid, tid, "TracerPid");

	return v == -2 ? -1 : v > 0 ? (int)v : 0;
}

int procthread_sigkill_pending(pid_t pid, pid_t tid)
{
	char name[64], *b;
	const char *p;
	size_t n;
	int yes = -1;

	snprintf(name, sizeof(name), "task/%d/status", (int)tid);
	if (procfs_read_pid(pid, name, &b, &n) < 0)
		return -1;
	p = strstr(b, "\nSigPnd:");
	if (p) /* hexadecimal, signal N at bit N - 1 */
		yes = (int)((strtoull(p + 8, NULL, 16) >> (SIGKILL - 1)) & 1);
	free(b);
	return yes;
}

bool procthread_job_stopped(pid_t pid)
{
	char c = procthread_state(pid, pid);
	pid_t *tids = NULL;
	size_t n = 0, i;
	bool yes = c == 'T';

	if (c != 'Z' || procfs_list_tasks(pid, &tids, &n) < 0)
		return yes;
	for (i = 0; i < n && !yes; i++)
		yes = tids[i] != pid && procthread_state(pid, tids[i]) == 'T';
	free(tids);
	return yes;
}

pid_t procthread_in_d_state(pid_t pid)
{
	pid_t *tids, found = 0;
	size_t n, i;

	if (procfs_list_tasks(pid, &tids, &n) < 0)
		return 0;
	for (i = 0; i < n && !found; i++)
		if (procthread_state(pid, tids[i]) == 'D')
			found = tids[i];
	free(tids);
	return found;
}

bool procthread_self_cap_ptrace(void)
{
	char *b;
	size_t n;
	const char *p;
	bool yes = true; /* unknown: do not claim it is missing */

	if (procfs_read_file("/proc/self/status", &b, &n) < 0)
		return yes;
	p = strstr(b, "\nCapEff:");
	if (p) /* CAP_SYS_PTRACE is capability 19 */
		yes = (strtoull(p + 8, NULL, 16) >> 19) & 1;
	free(b);
	return yes;
}
