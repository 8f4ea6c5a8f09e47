/* test_alloc.c — the allocations of model/alloc.c for managed heaps: a
 * Java heap as a G1 JVM maps it (committed, reserved, the CDS archive's
 * heap pieces between anonymous pieces) is one allocation with its
 * regions beneath; what lies outside the entry, or is not typed managed
 * heap, stays a region alone. */
#include "model/alloc.h"
#include "model/managed.h"
#include "model/snapshot.h"
#include "tap.h"

#include <stdlib.h>

#define MIB (1024ull * 1024)

static void add(struct vms_snapshot *s, uint64_t start, uint64_t end,
		const char *path, enum vms_type type)
{
	struct vms_region *r = vms_snapshot_add_region(s);

	r->start = start;
	r->end = end;
	r->perms = VMS_PERM_R | VMS_PERM_W;
	r->path = path;
	r->vmflags = "";
	r->type = (uint8_t)type;
}

int main(void)
{
	static const char jsa[] = "/usr/lib/jvm/lib/server/classes.jsa";
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_alloc *a = NULL;
	size_t n = 0, i, nmanaged = 0, k = 0;

	/* the heap as -Xmx512m G1 maps it, 0xe0000000-0x100000000 */
	add(s, 0xe0000000, 0xe3e00000, NULL, VMS_T_MANAGED_HEAP);
	add(s, 0xe3e00000, 0xffe00000, NULL, VMS_T_MANAGED_HEAP);
	add(s, 0xffe00000, 0xffe75000, jsa, VMS_T_MANAGED_HEAP);
	add(s, 0xffe75000, 0xfff00000, NULL, VMS_T_MANAGED_HEAP);
	add(s, 0xfff00000, 0xfff78000, jsa, VMS_T_MANAGED_HEAP);
	add(s, 0xfff78000, 0x100000000, NULL, VMS_T_MANAGED_HEAP);
	/* right after it: another runtime's page, alone */
	add(s, 0x100000000, 0x100040000, NULL, VMS_T_MANAGED_HEAP);
	/* private data, then a heap cut by a region of another type */
	add(s, 0x200000000, 0x200100000, NULL, VMS_T_PRIVATE_DATA);
	add(s, 0x300000000, 0x300100000, NULL, VMS_T_MANAGED_HEAP);
	add(s, 0x300100000, 0x300200000, NULL, VMS_T_PRIVATE_DATA);
	add(s, 0x300200000, 0x300300000, NULL, VMS_T_MANAGED_HEAP);
	ok(managed_add(s, "jvm", 0xe0000000, 0x100000000) != NULL,
	   "the Java heap's entry");
	ok(managed_add(s, "v8", 0x100000000, 0x100040000) != NULL,
	   "a page's entry");
	ok(managed_add(s, "jvm", 0x300000000, 0x300300000) != NULL,
	   "a cut heap's entry");
	ok(vms_allocs(s, &a, &n) == 0 && a, "allocations made");
	for (i = 0; i < n; i++)
		if (a[i].kind == VMS_A_MANAGED)
			nmanaged++;
	ok(n == 6, "6 allocations for 11 regions (%zu)", n);
	ok(n > 0 && a[0].kind == VMS_A_MANAGED && a[0].first == 0 &&
		   a[0].n == 6 && a[0].main == 0,
	   "the Java heap: one managed allocation of its 6 regions");
	ok(vms_alloc_figure(s, &a[0], VMS_COL_SIZE) == 512 * MIB,
	   "... its size 512 MiB, its regions' sum");
	ok(n > 1 && a[1].kind == VMS_A_MANAGED && a[1].first == 6 &&
		   a[1].n == 1,
	   "the adjacent entry's page is its own allocation");
	ok(n > 2 && a[2].kind == VMS_A_REGION && a[2].n == 1,
	   "private data alone");
	ok(n > 5 && a[3].kind == VMS_A_MANAGED && a[3].n == 1 &&
		   a[4].kind == VMS_A_REGION && a[5].kind == VMS_A_REGION,
	   "a heap cut by another type: its first piece only, the rest "
	   "alone");
	for (i = 0; i < n; i++)
		k += a[i].n;
	ok(k == s->nregions && nmanaged == 3,
	   "every region in exactly one allocation");
	free(a);
	vms_snapshot_free(s);
	return tap_done();
}
