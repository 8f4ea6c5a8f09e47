#include "linux/procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "model/snapshot.h"

/* procfs_read_file; one: the file is one record (procfs_read_one); at
 * most max bytes of it (procfs_read_cmdline). */
static int read_text(const char *path, bool one, size_t max, char **buf,
		     size_t *len)
{
	size_t cap = 4096, n = 0;
	char *b = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	b = malloc(cap);
	if (!b)
		goto fail;
	for (;;) {
		ssize_t r;

		if (cap - n < 2048) {
			char *nb = realloc(b, cap * 2);

			if (!nb)
				goto fail;
			b = nb;
			cap *= 2;
		}
		if (n >= max)
			break;
		r = read(fd, b + n,
			 cap - n - 1 < max - n ? cap - n - 1 : max - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		/* a record is given whole: short of the room, it ended */
		if (one && (size_t)r < cap - (n - (size_t)r) - 1)
			break;
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
fail : {
	int e = errno;

	free(b);
	close(fd);
	errno = e;
	return -1;
}
}

int procfs_read_file(const char *path, char **buf, size_t *len)
{
	return read_text(path, false, SIZE_MAX, buf, len);
}

int procfs_read_one(const char *path, char **buf, size_t *len)
{
	return read_text(path, true, SIZE_MAX, buf, len);
}

int procfs_read_pid_one(pid_t pid, const char *name, char **buf, size_t *len)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	return read_text(path, true, SIZE_MAX, buf, len);
}

int procfs_read_cmdline(pid_t pid, char **buf, size_t *len, size_t *arg0)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (read_text(path, false, PROCFS_CMDLINE_MAX, buf, len) < 0)
		return -1;
	*len = procfs_cmdline_join(*buf, *len, arg0);
	return 0;
}

size_t procfs_cmdline_join(char *buf, size_t len, size_t *arg0)
{
	size_t i;

	while (len && buf[len - 1] == '\0')
		len--;
	buf[len] = '\0';
	*arg0 = strlen(buf);
	for (i = *arg0; i < len; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	return len;
}

int procfs_read_pid(pid_t pid, const char *name, char **buf, size_t *len)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	return procfs_read_file(path, buf, len);
}

long long procfs_status_value(const char *buf, size_t len, const char *key)
{
	size_t klen = strlen(key);
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			nl = end;
		if ((size_t)(nl - p) > klen && memcmp(p, key, klen) == 0 &&
		    p[klen] == ':') {
			const char *q = p + klen + 1;
			long long v = 0;
			int digits = 0;

			while (q < nl && (*q == ' ' || *q == '\t'))
				q++;
			while (q < nl && *q >= '0' && *q <= '9') {
				/* A value that does not fit is not a value
				 * (and must not overflow: undefined). */
				if (v > (LLONG_MAX - 9) / 10)
					return -1;
				v = v * 10 + (*q++ - '0');
				digits++;
			}
			if (!digits)
				return -1;
			while (q < nl && *q == ' ')
				q++;
			if (nl - q >= 2 && q[0] == 'k' && q[1] == 'B') {
				if (v > LLONG_MAX / 1024)
					return -1;
				v *= 1024;
			}
			return v;
		}
		p = nl + 1;
	}
	return -1;
}

/* linux/fs.h of Linux 6.11; Debian 12's headers (6.1) lack it. */
struct procfs_query {
	uint64_t size, query_flags, query_addr, vma_start, vma_end, vma_flags,
		vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define PROCFS_QUERY _IOWR('f', 17, struct procfs_query)
#define PROCFS_QUERY_EXEC 0x04u /* PROCMAP_QUERY_VMA_EXECUTABLE */

int procfs_vma_at(pid_t pid, uint64_t addr, uint64_t *start, uint64_t *end,
		  bool *exec)
{
	struct procfs_query q;
	char path[64];
	int fd, rc, e;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_addr = addr; /* flags 0: the mapping covering it, only */
	rc = ioctl(fd, PROCFS_QUERY, &q);
	e = errno;
	close(fd);
	if (rc < 0)
		return e == ENOENT ? 0 : -1;
	*start = q.vma_start;
	*end = q.vma_end;
	*exec = (q.vma_flags & PROCFS_QUERY_EXEC) != 0;
	return 1;
}

void procfs_rollup_parse(const char *buf, size_t len, struct vms_rollup *r)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < VMS_NROLLUP; i++) {
		const struct vms_rollup_field *f = &vms_rollup_fields[i];
		long long v = procfs_status_value(buf, len, f->smaps);
		uint64_t u = v > 0 ? (uint64_t)v : 0;

		memcpy((char *)r + f->off, &u, sizeof(u));
		if (f->off == offsetof(struct vms_rollup, rss))
			r->valid = v >= 0;
	}
}

int procfs_syscall_sp_parse(const char *buf, size_t len, uint64_t *sp)
{
	/* The sp is the second-to-last field in both forms. */
	char tmp[512];
	char *f[10];
	int n = 0;
	char *save = NULL, *tok;
	unsigned long long v;
	char *endp;

	if (len >= sizeof(tmp))
		return -1;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	for (tok = strtok_r(tmp, " \t\n", &save); tok && n < 10;
	     tok = strtok_r(NULL, " \t\n", &save))
		f[n++] = tok;
	if (n != 3 && n != 9)
		return -1;
	if (strncmp(f[n - 2], "0x", 2) != 0)
		return -1;
	errno = 0;
	v = strtoull(f[n - 2], &endp, 16);
	if (errno || *endp)
		return -1;
	*sp = v;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int procfs_list_tasks(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	size_t cap = 16, cnt = 0;
	pid_t *v;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	v = malloc(cap * sizeof(*v));
	if (!v) {
		closedir(d);
		errno = ENOMEM;
		return -1;
	}
	while ((de = readdir(d))) {
		char *e;
		long t = strtol(de->d_name, &e, 10);

		if (*e || t <= 0)
			continue;
		if (cnt == cap) {
			pid_t *nv = realloc(v, cap * 2 * sizeof(*v));

			if (!nv) {
				free(v);
				closedir(d);
				errno = ENOMEM;
				return -1;
			}
			v = nv;
			cap *= 2;
		}
		v[cnt++] = (pid_t)t;
	}
	closedir(d);
	qsort(v, cnt, sizeof(*v), cmp_pid);
	*tids = v;
	*n = cnt;
	return 0;
}

bool procfs_pid_exists(pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &st) == 0;
}

/* The state letter of task tid of pid (R, S, D, Z...), or 0. */
static char task_state(pid_t pid, pid_t tid)
{
	char name[64], *b, *p, c = 0;
	size_t n;

	snprintf(name, sizeof(name), "task/%d/stat", (int)tid);
	if (procfs_read_pid(pid, name, &b, &n) < 0)
		return 0;
	p = memrchr(b, ')', n);
	if (p && p + 2 < b + n)
		c = p[2];
	free(b);
	return c;
}

/* A thread of pid other than its main thread that has not exited, or 0. */
static pid_t live_other_thread(pid_t pid)
{
	pid_t *tids, found = 0;
	size_t n, i;

	if (procfs_list_tasks(pid, &tids, &n) < 0)
		return 0;
	for (i = 0; i < n && !found; i++) {
		char c;

		if (tids[i] == pid)
			continue;
		c = task_state(pid, tids[i]);
		if (c && c != 'Z' && c != 'X')
			found = tids[i];
	}
	free(tids);
	return found;
}

bool procfs_thread_exited(pid_t pid, pid_t tid)
{
	char c = task_state(pid, tid);

	return !c || c == 'Z' || c == 'X';
}

pid_t procfs_mm_pid_in(pid_t pid, char state)
{
	pid_t t;

	if (state != 'Z' && state != 'X')
		return pid;
	t = live_other_thread(pid);
	return t ? t : pid;
}

pid_t procfs_mm_pid(pid_t pid)
{
	return procfs_mm_pid_in(pid, task_state(pid, pid));
}

pid_t procfs_tgid(pid_t tid)
{
	char *st;
	size_t n;
	long long v;

	if (procfs_read_pid_one(tid, "status", &st, &n) < 0)
		return 0;
	v = procfs_status_value(st, n, "Tgid");
	free(st);
	return v > 0 && v <= INT32_MAX ? (pid_t)v : 0;
}

/* Field 38 of a stat text (exit_signal: the signal the parent gets at
 * its end), or -1. */
static long stat_exit_signal(const char *stat)
{
	const char *p = strrchr(stat, ')');
	int f;

	if (!p)
		return -1;
	for (f = 2; f < 38 && p; f++) /* p: at the space before field f+1 */
		p = strchr(p + 1, ' ');
	return p ? strtol(p + 1, NULL, 10) : -1;
}

bool procfs_vmscope_clone(pid_t pid)
{
	static const char keeper[] = PROCFS_KEEPER_COMM "\n";
	char *st, path[64], comm[32];
	size_t n;
	long long tracer;
	ssize_t got;
	int fd;

	/* made with exit signal 0 (fork_clone.c): a process fork() made
	 * has SIGCHLD, and the target itself, in the keeper's freeze while
	 * a capture of it runs, is traced by a keeper too */
	if (procfs_read_pid_one(pid, "stat", &st, &n) < 0)
		return false;
	got = stat_exit_signal(st);
	free(st);
	if (got != 0)
		return false;
	if (procfs_read_pid_one(pid, "status", &st, &n) < 0)
		return false;
	tracer = procfs_status_value(st, n, "TracerPid");
	free(st);
	if (tracer <= 0 || tracer > INT32_MAX)
		return false;
	snprintf(path, sizeof(path), "/proc/%lld/comm", tracer);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	got = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	return got == (ssize_t)sizeof(keeper) - 1 &&
	       !memcmp(comm, keeper, sizeof(keeper) - 1);
}

char procfs_stat_state(const char *stat, char *comm, size_t n)
{
	const char *open = strchr(stat, '('), *close = strrchr(stat, ')');
	size_t len;

	comm[0] = '\0';
	if (!open || !close || close < open || close[1] != ' ' || !close[2])
		return 0;
	len = (size_t)(close - open - 1);
	if (len >= n)
		len = n - 1;
	memcpy(comm, open + 1, len);
	comm[len] = '\0';
	return close[2];
}

void procfs_mm_path(pid_t pid, const char *name, char *buf, size_t size)
{
	procfs_mm_path_of(pid, 0, name, buf, size);
}

void procfs_mm_path_of(pid_t pid, pid_t mm, const char *name, char *buf,
		       size_t size)
{
	pid_t t = mm > 0 ? mm : procfs_mm_pid(pid);

	if (t == pid)
		snprintf(buf, size, "/proc/%d/%s", (int)pid, name);
	else
		snprintf(buf, size, "/proc/%d/task/%d/%s", (int)pid, (int)t,
			 name);
}

int procfs_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

bool procfs_pidfd_reaped(int pidfd)
{
#ifdef SYS_pidfd_send_signal
	/* Signal 0 checks only that the process exists (a zombie does);
	 * EPERM says it exists too. */
	return pidfd >= 0 &&
	       syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0 &&
	       errno == ESRCH;
#else
	(void)pidfd;
	return false;
#endif
}

/* Whether the address space of pid, known to have had one (no kernel
 * thread), is gone: its statm (read from mm as procfs_mm_path_of) all
 * zero or unreadable (exited, a zombie, or exiting). */
static bool mm_gone(pid_t pid, pid_t mm)
{
	char path[128];
	char *b;
	size_t n;
	bool gone;

	procfs_mm_path_of(pid, mm, "statm", path, sizeof(path));
	if (procfs_read_file(path, &b, &n) < 0)
		return errno == ENOENT || errno == ESRCH;
	gone = n == 0 || b[0] == '0';
	free(b);
	return gone;
}

bool procfs_pid_hidden(pid_t pid)
{
	return !procfs_pid_exists(pid) && (kill(pid, 0) == 0 || errno == EPERM);
}

bool procfs_pid_exiting(pid_t pid)
{
	switch (procfs_pid_kind(pid, NULL)) {
	case PROCFS_GONE:
		return !procfs_pid_hidden(pid);
	case PROCFS_ZOMBIE:
		return true;
	case PROCFS_KTHREAD: /* never had an address space: not exiting */
		return false;
	case PROCFS_USER:
		break;
	}
	/* A main thread that exited has no address space of its own: ask a
	 * thread that runs. */
	return mm_gone(pid, 0);
}

enum procfs_kind procfs_pid_kind(pid_t pid, pid_t *ppid)
{
	enum procfs_kind k = PROCFS_USER;
	unsigned long flags = 0;
	char *b, *p, state = '?';
	int parent = 0;
	size_t n;

	if (procfs_read_pid(pid, "stat", &b, &n) < 0)
		return PROCFS_GONE;
	/* after "pid (comm) ": state ppid pgrp session tty_nr tpgid flags */
	p = memrchr(b, ')', n);
	if (!p || sscanf(p + 1, " %c %d %*d %*d %*d %*d %lu", &state, &parent,
			 &flags) != 3)
		state = '?';
	free(b);
	if (ppid)
		*ppid = parent;
	if (flags & 0x00200000) /* PF_KTHREAD */
		k = PROCFS_KTHREAD;
	else if ((state == 'Z' || state == 'X') && !live_other_thread(pid))
		/* (a main thread that called pthread_exit() is a zombie too,
		 * while the others run: that process is alive) */
		k = PROCFS_ZOMBIE;
	return k;
}

uint64_t procfs_user_end(void)
{
#if defined(__x86_64__)
	return 0x7ffffffff000ull; /* TASK_SIZE with 4-level paging */
#elif defined(__aarch64__)
	return 1ull << 48;
#else
	return (uint64_t)1 << (sizeof(void *) * 8 - 1);
#endif
}

uint64_t procfs_mmap_min_addr(void)
{
	char *b;
	size_t n;
	unsigned long long v;

	if (procfs_read_file("/proc/sys/vm/mmap_min_addr", &b, &n) == 0) {
		int ok = sscanf(b, "%llu", &v) == 1;

		free(b);
		if (ok)
			return v;
	}
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

long long procfs_thread_status(pid_t pid, pid_t tid, const char *key)
{
	char name[64], *b;
	size_t n;
	long long v;

	snprintf(name, sizeof(name), "task/%d/status", (int)tid);
	if (procfs_read_pid(pid, name, &b, &n) < 0)
		return -2;
	v = procfs_status_value(b, n, key);
	free(b);
	return v;
}

long long procfs_thread_seccomp(pid_t pid, pid_t tid)
{
	long long v = procfs_thread_status(pid, tid, "Seccomp");

	/* no Seccomp line: a kernel without it */
	return v == -2 ? -1 : v < 0 ? 0 : v;
}
