/* observer.c — vmscope's own file mappings against the target's
 * (observer.h). */
#include "linux/observer.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/procfs.h"
#include "linux/selfcopy.h"

#define MAX_OWN 256 /* vmscope maps ~15 files; the rest are not compared */

struct file_id {
	uint32_t major, minor;
	uint64_t inode;
	const char *path; /* in the maps text; plen bytes */
	size_t plen;
	bool common;
};

static bool same_file(const struct file_id *f, const struct vms_region *r)
{
	return r->inode == f->inode && r->dev_major == f->major &&
	       r->dev_minor == f->minor;
}

/* The distinct files of maps text, in its order, into seen[MAX_OWN]. */
static size_t own_files(const char *maps, size_t len, struct file_id *seen)
{
	const char *p = maps, *end = maps + len;
	size_t nseen = 0, i;

	while (p < end && nseen < MAX_OWN) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *stop = eol ? eol : end;
		char line[512];
		size_t ll = (size_t)(stop - p);
		struct file_id f = { 0 };
		unsigned long long inode;
		int at = 0;

		if (ll >= sizeof(line))
			ll = sizeof(line) - 1;
		memcpy(line, p, ll);
		line[ll] = '\0';
		if (sscanf(line, "%*x-%*x %*s %*x %x:%x %llu %n", &f.major,
			   &f.minor, &inode, &at) >= 3 &&
		    inode != 0) {
			f.inode = inode;
			f.path = at > 0 && (size_t)at <= ll ? p + at : stop;
			f.plen = (size_t)(stop - f.path);
			for (i = 0; i < nseen; i++)
				if (seen[i].inode == f.inode &&
				    seen[i].major == f.major &&
				    seen[i].minor == f.minor)
					break;
			if (i == nseen)
				seen[nseen++] = f;
		}
		p = eol ? eol + 1 : end;
	}
	return nseen;
}

size_t observer_common_files(const char *maps, size_t len,
			     const struct vms_snapshot *s, char *first,
			     size_t n)
{
	struct file_id seen[MAX_OWN];
	size_t nseen = own_files(maps, len, seen), common = 0, i, k;
	const struct vms_region *prev = NULL;

	if (n)
		first[0] = '\0';
	/* one pass over the target's regions, each file looked up once a
	 * run of its mappings: the target may have a million regions */
	for (i = 0; i < s->nregions && common < nseen; i++) {
		const struct vms_region *r = &s->regions[i];

		if (r->inode == 0 || (prev && prev->inode == r->inode &&
				      prev->dev_major == r->dev_major &&
				      prev->dev_minor == r->dev_minor))
			continue;
		prev = r;
		for (k = 0; k < nseen; k++)
			if (!seen[k].common && same_file(&seen[k], r)) {
				seen[k].common = true;
				common++;
			}
	}
	for (k = 0; k < nseen && n; k++)
		if (seen[k].common) {
			const char *b = seen[k].path, *e = b + seen[k].plen, *q;

			for (q = b; q < e && *q; q++)
				if (*q == '/')
					b = q + 1;
			e = q; /* a NUL (in no kernel's text) ends it too */
			snprintf(first, n, "%.*s", (int)(e - b), b);
			break;
		}
	return common;
}

/* maps text without the lines of the ranges selfcopy copied (they hold
 * no page of their file); its new length. */
static size_t drop_copied(char *maps, size_t len)
{
	char *p = maps, *end = maps + len, *out = maps;

	while (p < end) {
		char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t ll = eol ? (size_t)(eol - p) + 1 : (size_t)(end - p);
		unsigned long long lo, hi;

		if (sscanf(p, "%llx-%llx", &lo, &hi) != 2 ||
		    !selfcopy_copied(lo, hi)) {
			memmove(out, p, ll);
			out += ll;
		}
		p += ll;
	}
	return (size_t)(out - maps);
}

void observer_note(struct vms_snapshot *s)
{
	char *maps, first[64], why[480];
	const char *how = selfcopy_why();
	size_t len, n;

	if (procfs_read_file("/proc/self/maps", &maps, &len) < 0)
		return;
	len = drop_copied(maps, len);
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
		 !how ? ""
		 : strncmp(how, "cannot copy", 11) == 0
			 ? "vmscope "
			 : "vmscope runs on the system's libraries: ",
		 how ? how
		 : strstr(first, "locale") || strstr(first, "LC_")
			 ? "run it with LANG=C for exact figures"
			 : "vmscope does not copy its own executable or what "
			   "it loads later");
	vms_snapshot_note(s, "observer", why);
}
