/* fork_preflight.c — see fork_preflight.h. */
#include "capture/ptrace/fork_preflight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/procfs.h"

/* A number from a one-line file; false if missing or "max". */
static bool read_u64_file(const char *path, uint64_t *v)
{
	char *b, *end;
	size_t n;
	bool ok;

	if (procfs_read_file(path, &b, &n) < 0)
		return false;
	*v = strtoull(b, &end, 10);
	ok = end != b;
	free(b);
	return ok;
}

bool fork_cgroup_headroom(char *cgroup_text, const char *sysfs, uint64_t *room,
			  char *cg, size_t cgsz)
{
	char *line, *save = NULL, v1root[4096];
	bool found = false;

	snprintf(v1root, sizeof(v1root), "%s/memory", sysfs);
	for (line = strtok_r(cgroup_text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *lim, *use, *root;
		char *ctl = strchr(line, ':'), *path;
		char dir[4096], f[4200];

		if (!ctl || !(path = strchr(ctl + 1, ':')))
			continue;
		*ctl++ = '\0'; /* line: the hierarchy number */
		*path++ = '\0'; /* ctl: the controllers; path: the cgroup */
		if (strcmp(line, "0") == 0 && *ctl == '\0') {
			root = sysfs;
			lim = "memory.max";
			use = "memory.current";
		} else if (strstr(ctl, "memory")) {
			root = v1root;
			lim = "memory.limit_in_bytes";
			use = "memory.usage_in_bytes";
		} else {
			continue;
		}
		snprintf(dir, sizeof(dir), "%s%s", root, path);
		for (;;) {
			uint64_t l, u;
			char *slash;

			snprintf(f, sizeof(f), "%s/%s", dir, lim);
			if (read_u64_file(f, &l) && l < (1ull << 60)) {
				snprintf(f, sizeof(f), "%s/%s", dir, use);
				if (read_u64_file(f, &u)) {
					uint64_t r = l > u ? l - u : 0;

					if (!found || r < *room) {
						*room = r;
						snprintf(cg, cgsz, "%s", dir);
					}
					found = true;
				}
			}
			slash = strrchr(dir, '/');
			if (!slash || (size_t)(slash - dir) <= strlen(root))
				break;
			*slash = '\0';
		}
	}
	return found;
}

bool fork_commit_room(const char *overcommit, const char *meminfo,
		      size_t meminfo_len, uint64_t *room)
{
	long long lim, used;

	if (atoi(overcommit) != 2)
		return false;
	lim = procfs_status_value(meminfo, meminfo_len, "CommitLimit");
	used = procfs_status_value(meminfo, meminfo_len, "Committed_AS");
	*room = lim > used ? (uint64_t)(lim - used) : 0;
	return true;
}

bool fork_uffd_features(const char *fdinfo, size_t n, uint64_t *features)
{
	const char *p = fdinfo, *end = fdinfo + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (len > 4 && memcmp(p, "API:", 4) == 0) {
			char line[128], *q, *e;

			if (len >= sizeof(line))
				return false;
			memcpy(line, p + 4, len - 4);
			line[len - 4] = 0;
			q = strchr(line, ':');
			if (!q)
				return false;
			*features = strtoull(q + 1, &e, 16);
			return e != q + 1 && *e == ':';
		}
		p += len + 1;
	}
	return false;
}
