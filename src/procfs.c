#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int procfs_read_file(const char *path, char **buf, size_t *len)
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
		r = read(fd, b + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
fail: {
	int e = errno;

	free(b);
	close(fd);
	errno = e;
	return -1;
}
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

bool procfs_pid_exiting(pid_t pid)
{
	char *b, *p;
	size_t n;
	bool gone;

	if (procfs_read_pid(pid, "stat", &b, &n) < 0)
		return errno == ENOENT || errno == ESRCH;
	p = memrchr(b, ')', n);
	gone = p && p + 2 < b + n && (p[2] == 'Z' || p[2] == 'X');
	free(b);
	if (gone)
		return true;
	if (procfs_read_pid(pid, "statm", &b, &n) < 0)
		return errno == ENOENT || errno == ESRCH;
	gone = n == 0 || b[0] == '0';
	free(b);
	return gone;
}

int procfs_errno_error(struct vms_error *e, pid_t pid, const char *what,
		       int err)
{
	char path[64];
	struct stat st;

	if (access("/proc/self/stat", R_OK) != 0)
		return vms_error_set(e, VMS_ERR_CAPTURE, err,
				     "cannot read /proc: is procfs mounted "
				     "here (mount -t proc proc /proc)?");
	if (err == ENOENT || err == ESRCH || !procfs_pid_exists(pid))
		return vms_error_set(e, VMS_ERR_NOPROC, err,
				     "no such process: %d", (int)pid);
	if (err == EACCES || err == EPERM) {
		snprintf(path, sizeof(path), "/proc/%d", (int)pid);
		if (stat(path, &st) == 0 && st.st_uid != geteuid() &&
		    geteuid() != 0)
			return vms_error_set(
				e, VMS_ERR_PERM, err,
				"not permitted to read %s of process %d: it "
				"belongs to uid %u and you are uid %u; run as "
				"that user, or as root (CAP_SYS_PTRACE)",
				what, (int)pid, (unsigned)st.st_uid,
				(unsigned)geteuid());
		return vms_error_set(
			e, VMS_ERR_PERM, err,
			"not permitted to read %s of process %d: %s (the "
			"process may be setuid or non-dumpable, or ptrace is "
			"restricted by kernel.yama.ptrace_scope; root with "
			"CAP_SYS_PTRACE can read it)",
			what, (int)pid, strerror(err));
	}
	return vms_error_set(e, VMS_ERR_CAPTURE, err,
			     "cannot read %s of process %d: %s", what,
			     (int)pid, strerror(err));
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
