/* test_jvm_zgc.c — jvm_zgc_find() on maps laid out as ZGC lays them
 * (JDK 17, -Xmx512m: 42 offset bits, the java_heap memfd's 378 MiB mapped
 * at 4, 8 and 16 TiB, each view reserved to 8 GiB) and on maps that only
 * look like it: the remapped view is found, the others named; anything
 * else is 1 (no java_heap) or -1 with a reason, never a heap. */
#include "analyze/runtimes/jvm_zgc.h"
#include "tap.h"

#include <string.h>

#define T4 (1ull << 42)
#define HEAP (378ull << 20)
#define VIEW (8ull << 30)
#define MEMFD "/memfd:java_heap (deleted)"
#define ALIAS "view"

static struct vms_region r[16];
static size_t n;

static void add(uint64_t start, uint64_t end, unsigned perms,
		const char *path, unsigned long inode)
{
	memset(&r[n], 0, sizeof(r[n]));
	r[n].start = start;
	r[n].end = end;
	r[n].perms = perms;
	r[n].path = path;
	r[n].inode = inode;
	n++;
}

/* One view at base: the memfd's pages, then the reservation. */
static void view(uint64_t base)
{
	add(base, base + HEAP, VMS_PERM_R | VMS_PERM_W | VMS_PERM_SHARED,
	    MEMFD, 680987);
	add(base + HEAP, base + VIEW, 0, NULL, 0);
}

static int find(size_t *first, size_t *end, const char **why)
{
	struct vms_snapshot s;

	memset(&s, 0, sizeof(s));
	s.regions = r;
	s.nregions = n;
	*why = NULL;
	return jvm_zgc_find(&s, ALIAS, first, end, why);
}

int main(void)
{
	size_t first = 99, end = 99, i;
	const char *why;
	int rc;

	/* a heap below, ZGC's three views, libc above */
	add(0x555555554000ull, 0x555555575000ull, VMS_PERM_R | VMS_PERM_W,
	    "[heap]", 0);
	view(T4);
	view(2 * T4);
	view(4 * T4);
	add(0x7f0000000000ull, 0x7f0000001000ull, VMS_PERM_R, "/usr/lib/libc",
	    7);
	rc = find(&first, &end, &why);
	ok(rc == 0 && first == 5 && end == 7,
	   "the remapped view (16 TiB) is the heap: its pages and reservation "
	   "(rc %d, regions %zu-%zu)",
	   rc, first, end);
	for (i = 1; i < 5 && r[i].detail && strcmp(r[i].detail, ALIAS) == 0;
	     i++)
		;
	ok(i == 5 && !r[0].detail && !r[5].detail && !r[7].detail,
	   "the marked views' four regions, and no other, are named views");

	n = 0;
	add(0x555555554000ull, 0x555555575000ull, VMS_PERM_R | VMS_PERM_W,
	    "[heap]", 0);
	ok(find(&first, &end, &why) == 1, "no java_heap memfd: not ZGC");

	n = 0; /* mapped below 4 TiB: not ZGC's views */
	add(0x7f0000000000ull >> 8, (0x7f0000000000ull >> 8) + HEAP,
	    VMS_PERM_R | VMS_PERM_W | VMS_PERM_SHARED, MEMFD, 9);
	ok(find(&first, &end, &why) == -1 && why && *why,
	   "a java_heap memfd below 4 TiB: -1 with a reason (%s)", why);

	n = 0; /* the marked views only, no remapped one */
	view(T4);
	view(2 * T4);
	ok(find(&first, &end, &why) == -1, "no remapped view: -1");

	n = 0; /* a private mapping inside the remapped view */
	view(T4);
	view(2 * T4);
	view(4 * T4);
	r[n - 1].end = 4 * T4 + HEAP + 4096;
	add(4 * T4 + HEAP + 4096, 4 * T4 + HEAP + 8192,
	    VMS_PERM_R | VMS_PERM_W, NULL, 0);
	add(4 * T4 + HEAP + 8192, 4 * T4 + VIEW, 0, NULL, 0);
	ok(find(&first, &end, &why) == -1,
	   "another's read-write mapping inside the remapped view: -1");

	n = 0; /* the pages mapped past the remapped view */
	view(T4);
	view(2 * T4);
	view(4 * T4);
	add(8 * T4, 8 * T4 + HEAP, VMS_PERM_R | VMS_PERM_W | VMS_PERM_SHARED,
	    MEMFD, 680987);
	ok(find(&first, &end, &why) == -1, "java_heap above the views: -1");
	return tap_done();
}
