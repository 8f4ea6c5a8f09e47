/* cgroup.c — cgroup v2 paths from /proc's texts (cgroup.h). */
#include "linux/cgroup.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void cgroup_v2_of_proc(const char *text, char *out, size_t n)
{
	const char *p = text;

	if (n)
		*out = '\0';
	while (p && *p) {
		if (strncmp(p, "0::", 3) == 0) {
			p += 3;
			snprintf(out, n, "%.*s", (int)strcspn(p, "\n"), p);
			return;
		}
		if ((p = strchr(p, '\n')))
			p++;
	}
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n > k && memcmp(s + n - k, suffix, k) == 0;
}

const char *cgroup_unit(const char *path, size_t *len)
{
	const char *p = path, *last = path, *unit = NULL;
	size_t n, last_n = 0, unit_n = 0;

	while (*p) {
		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (ends_with(p, n, ".service") || ends_with(p, n, ".scope")) {
			unit = p;
			unit_n = n;
		}
		last = p;
		last_n = n;
		p += n;
	}
	*len = unit ? unit_n : last_n;
	return unit ? unit : last;
}

/* Field i (0: the first) of the line at line into f (n bytes), its octal
 * escapes undone; false when the line has no such field or it does not
 * fit. Fields are separated by one space; the line ends at '\n' or NUL. */
static bool field(const char *line, int i, char *f, size_t n)
{
	const char *p = line;
	size_t w = 0;

	for (; i > 0; i--) {
		p += strcspn(p, " \n");
		if (*p != ' ')
			return false;
		p++;
	}
	while (*p && *p != ' ' && *p != '\n') {
		char c = *p++;

		if (c == '\\' && p[0] >= '0' && p[0] <= '3' && p[1] >= '0' &&
		    p[1] <= '7' && p[2] >= '0' && p[2] <= '7') {
			c = (char)((p[0] - '0') << 6 | (p[1] - '0') << 3 |
				   (p[2] - '0'));
			p += 3;
		}
		if (w + 1 >= n)
			return false;
		f[w++] = c;
	}
	f[w] = '\0';
	return w > 0;
}

/* Whether the line's file system type (the field after " - ") is fs. */
static bool fstype_is(const char *line, const char *fs)
{
	size_t len = strcspn(line, "\n"), n = strlen(fs);
	const char *p = line;

	while ((p = strstr(p, " - ")) && p < line + len) {
		p += 3;
		if (strncmp(p, fs, n) == 0 && p[n] == ' ')
			return true;
	}
	return false;
}

int cgroup_v2_of_dir(const char *mountinfo, const char *path, char *out,
		     size_t n)
{
	char root[4096], mnt[4096], best_root[4096] = "";
	const char *line = mountinfo, *next, *rest = NULL;
	size_t best = 0;
	bool found = false;

	for (; line && *line; line = next) {
		size_t len;

		if ((next = strchr(line, '\n')))
			next++;
		if (!fstype_is(line, "cgroup2") ||
		    !field(line, 3, root, sizeof(root)) ||
		    !field(line, 4, mnt, sizeof(mnt)))
			continue;
		len = strcmp(mnt, "/") == 0 ? 0 : strlen(mnt);
		if (strncmp(path, mnt, len) != 0 ||
		    (path[len] != '\0' && path[len] != '/') ||
		    (found && len <= best))
			continue;
		found = true;
		best = len;
		rest = path + len;
		snprintf(best_root, sizeof(best_root), "%s",
			 strcmp(root, "/") == 0 ? "" : root);
	}
	if (!found)
		return 0;
	if (snprintf(out, n, "%s%s", best_root,
		     *best_root || *rest ? rest : "/") >= (int)n)
		return -1;
	return 1;
}
