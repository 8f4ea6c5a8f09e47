/* step_go.c — the "go" step: a Go program's heap arenas, typed managed
 * heap of runtime "go". See steps.h.
 *
 * A process is a Go program when one of its images has Go's own sections
 * (.go.buildinfo, .note.go.buildid: the images step's ELF summaries, so a
 * snapshot file or a core tells it too) or a region Go 1.25+ named
 * ("[anon: Go: ...]"). Its heap lives in 64 MiB arenas, reserved first at
 * the runtime's hints (src/runtime/malloc.go, mallocinit): i<<40 |
 * 0x00c0<<32 on amd64 and most others, i<<40 | 0x0040<<32 on arm64, for i
 * from 0 to 0x7f. An arena is the run of adjacent private anonymous
 * regions starting at a hint (its used part rw-p, the rest of the
 * reservation ---p), cut at its last 64 MiB boundary. Committed bytes are
 * the rw part the runtime has mapped (sysMap): MemStats.HeapSys plus the
 * stack spans it took from the heap (StackInuse). Go keeps its figures in
 * its own memory (runtime.mheap_), which needs symbols to find: used is
 * not known here. Arenas the runtime had to place elsewhere (a hint
 * taken) are found only by Go 1.25's names (classify).
 */
#include <string.h>

#include "elfimage.h"
#include "managed.h"
#include "steps.h"

#define ARENA (64ull << 20)
#define HINTS 0x80

static bool go_image(const struct vms_snapshot *s)
{
	size_t i, k;

	for (i = 0; i < s->nimages; i++) {
		const struct elfimage *e = s->images[i].elf;

		for (k = 0; e && k < e->nsec; k++)
			if (e->sec[k].name &&
			    (strcmp(e->sec[k].name, ".go.buildinfo") == 0 ||
			     strcmp(e->sec[k].name, ".note.go.buildid") == 0))
				return true;
	}
	for (i = 0; i < s->nregions; i++)
		if (step_path_starts(&s->regions[i], "[anon: Go: ") ||
		    step_path_starts(&s->regions[i], "[anon:Go: "))
			return true;
	return false;
}

/* The arena run at hint h: [first, end) region indexes; false if none. */
static bool arena_at(const struct vms_snapshot *s, uint64_t h, size_t *first,
		     size_t *end)
{
	ptrdiff_t i = vms_snapshot_find_index(s, h);
	unsigned perms;
	size_t j, run;

	if (i < 0 || s->regions[i].start != h ||
	    !managed_plain_anon(&s->regions[i]))
		return false;
	run = managed_run(s, (size_t)i, managed_plain_anon, &perms);
	/* Cut at its last 64 MiB boundary (a neighbour merged in). */
	for (j = run; j > (size_t)i && (s->regions[j - 1].end - h) % ARENA; j--)
		;
	*first = (size_t)i;
	*end = j > (size_t)i ? j : run;
	return true;
}

int step_go_run(struct vms_snapshot *s, unsigned have, struct vms_error *err)
{
	static const uint64_t base[] = { 0x00c0ull << 32, 0x0040ull << 32 };
	size_t b, i, k, first, end;

	(void)have;
	if (!go_image(s))
		return 0;
	for (b = 0; b < sizeof(base) / sizeof(base[0]); b++) {
		for (i = 0; i < HINTS; i++) {
			uint64_t h = (uint64_t)i << 40 | base[b];
			uint64_t e;

			if (!arena_at(s, h, &first, &end))
				continue;
			e = s->regions[end - 1].end;
			for (k = first; k < end; k++) {
				s->regions[k].type = VMS_T_MANAGED_HEAP;
				s->regions[k].detail = "Go heap arena";
			}
			if (!managed_find(s, "go", h, e) &&
			    !managed_add(s, "go", h, e))
				return step_nomem(err, "go");
		}
	}
	return 0;
}
