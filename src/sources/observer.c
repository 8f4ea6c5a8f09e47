/* observer.c — vmscope's own file mappings against the target's
 * (observer.h). */
#include "observer.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"
#include "selfcopy.h"

#define MAX_OWN 256 /* vmscope maps ~15 files; the rest are not compared */

struct file_id {
	uint32_t major, minor;
	uint64_t inode;
};

static bool in_snapshot(const struct vms_snapshot *s, const struct file_id *f)
{
	size_t i;

	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];

		if (r->inode == f->inode && r->dev_major == f->major &&
		    r->dev_minor == f->minor)
			return true;
	}
	return false;
}

size_t observer_common_files(const char *maps, size_t len,
			     const struct vms_snapshot *s, char *first,
			     size_t n)
{
	struct file_id seen[MAX_OWN];
	size_t nseen = 0, common = 0, i;
	const char *p = maps, *end = maps + len;

	if (n)
		first[0] = '\0';
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		char line[512], path[256] = "";
		size_t ll = (size_t)((eol ? eol : end) - p);
		struct file_id f;
		unsigned long long inode;

		if (ll >= sizeof(line))
			ll = sizeof(line) - 1;
		memcpy(line, p, ll);
		line[ll] = '\0';
		p = eol ? eol + 1 : end;
		if (sscanf(line, "%*x-%*x %*s %*x %x:%x %llu %255[^\n]",
			   &f.major, &f.minor, &inode, path) < 3 ||
		    inode == 0)
			continue;
		f.inode = inode;
		for (i = 0; i < nseen; i++)
			if (!memcmp(&seen[i], &f, sizeof(f)))
				break;
		if (i < nseen || nseen == MAX_OWN)
			continue;
		seen[nseen++] = f;
		if (!in_snapshot(s, &f))
			continue;
		if (common++ == 0 && n) {
			const char *b = strrchr(path, '/');

			snprintf(first, n, "%s", b ? b + 1 : path);
		}
	}
	return common;
}

void observer_note(struct vms_snapshot *s)
{
	char *maps, first[64], why[320];
	const char *how = selfcopy_why();
	size_t len, n;

	if (procfs_read_file("/proc/self/maps", &maps, &len) < 0)
		return;
	/* A file read, not the target: first is escaped where printed. */
	n = observer_common_files(maps, len, s, first, sizeof(first));
	free(maps);
	if (n == 0)
		return;
	snprintf(why, sizeof(why),
		 "vmscope itself maps %zu file%s this process maps (%s%s): "
		 "pages both touched read Shared, so Private, USS and PSS "
		 "may read low (%s%s)",
		 n, n == 1 ? "" : "s", first, n > 1 ? ", ..." : "",
		 how ? "vmscope runs on the system's libraries: " : "",
		 how ? how
		 : strstr(first, "locale") || strstr(first, "LC_")
			 ? "run it with LANG=C for exact figures"
			 : "vmscope does not copy its own executable or what "
			   "it loads later");
	vms_snapshot_note(s, "observer", why);
}
