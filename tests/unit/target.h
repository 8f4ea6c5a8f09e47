/* target.h — a target program of tests/targets as a child of a unit test,
 * talked to over its standard input and output.
 *
 * target_start(t, argv) runs $BUILD/targets/argv[0] (BUILD defaults to
 * "build") with argv; t->in writes to its stdin, t->out reads its stdout.
 * target_stop(t) kills it by its pid and reaps it (idempotent).
 * target_children(pid): how many children pid has (its clone, a zombie),
 * from /proc/PID/task/PID/children, or -1.
 * target_exit_code(pid): a zombie's wait status (-1: unknown).
 * target_state(pid): the state letter of /proc/PID/stat ('S', 'D', 'T',
 * 't', ...), or 0; target_wait_state(pid, want, ms) polls it until it is
 * one of want, for at most ms, and returns the state last seen (tests
 * poll for a state rather than sleep). */
#ifndef VMS_TEST_TARGET_H
#define VMS_TEST_TARGET_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct target {
	pid_t pid;
	FILE *in, *out;
};

static inline int target_start(struct target *t, char *const argv[])
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char path[4096];
	int to[2], from[2];

	snprintf(path, sizeof(path), "%s/targets/%s", build, argv[0]);
	if (pipe(to) || pipe(from))
		return -1;
	t->pid = fork();
	if (t->pid < 0)
		return -1;
	if (t->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[0]);
		close(to[1]);
		close(from[0]);
		close(from[1]);
		execv(path, argv);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	t->in = fdopen(to[1], "w");
	t->out = fdopen(from[0], "r");
	return t->in && t->out ? 0 : -1;
}

static inline void target_stop(struct target *t)
{
	if (t->pid <= 0)
		return;
	kill(t->pid, SIGKILL);
	waitpid(t->pid, NULL, 0);
	fclose(t->in);
	fclose(t->out);
	t->pid = 0;
}

static inline int target_children(pid_t pid)
{
	char path[64], buf[4096];
	FILE *f;
	size_t n, i;
	int c = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
		 (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	for (i = 0; i < n; i++)
		c += buf[i] == ' ';
	return c;
}

/* A zombie's wait status (/proc/PID/stat's last field, exit_code), -1
 * if it cannot be read. */
static inline int target_exit_code(pid_t pid)
{
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	p = strrchr(buf, ' ');
	return p ? atoi(p + 1) : -1;
}

static inline char target_state(pid_t pid)
{
	char path[64], buf[1024], *p, st = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (p && p[1] == ' ')
		st = p[2];
	return st;
}

static inline char target_wait_state(pid_t pid, const char *want, int ms)
{
	struct timespec ts = { 0, 5000000 };
	char st = target_state(pid);
	int i;

	for (i = 0; i < ms / 5 && !(st && strchr(want, st)); i++) {
		nanosleep(&ts, NULL);
		st = target_state(pid);
	}
	return st;
}

#endif
