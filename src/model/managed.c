/* managed.c — the managed heaps list the steps fill. See managed.h. */
#include "model/managed.h"

#include <string.h>

#include "model/totals.h"

uint64_t managed_committed(struct vms_snapshot *s, uint64_t start, uint64_t end)
{
	ptrdiff_t i = vms_snapshot_find_index(s, start);
	uint64_t sum = 0;

	if (i < 0)
		return 0;
	for (; (size_t)i < s->nregions && s->regions[i].start < end; i++) {
		struct vms_region *r = &s->regions[i];

		totals_region_derive(r);
		sum += vms_region_committed(r);
	}
	return sum;
}

struct vms_managed *managed_add(struct vms_snapshot *s, const char *rt,
				uint64_t start, uint64_t end)
{
	struct vms_managed m = { .runtime = rt,
				 .start = start,
				 .end = end,
				 .reserved = end - start,
				 .committed = managed_committed(s, start, end),
				 .used = -1 };

	return vms_managed_add(s, &m) < 0 ? NULL : &s->managed[s->nmanaged - 1];
}

struct vms_managed *managed_find(struct vms_snapshot *s, const char *rt,
				 uint64_t start, uint64_t end)
{
	size_t i;

	for (i = 0; i < s->nmanaged; i++) {
		struct vms_managed *m = &s->managed[i];

		if (strcmp(m->runtime, rt) == 0 && m->start < end &&
		    start < m->end)
			return m;
	}
	return NULL;
}

struct vms_managed *managed_extend(struct vms_snapshot *s, const char *rt,
				   uint64_t start, uint64_t end)
{
	struct vms_managed *m =
		s->nmanaged ? &s->managed[s->nmanaged - 1] : NULL;

	if (!m || m->end != start || strcmp(m->runtime, rt) != 0)
		return managed_add(s, rt, start, end);
	m->end = end;
	m->reserved = end - m->start;
	m->committed += managed_committed(s, start, end);
	return m;
}

bool managed_plain_anon(const struct vms_region *r)
{
	return !(r->perms & VMS_PERM_SHARED) && !r->path &&
	       r->type == VMS_T_PRIVATE_DATA;
}

size_t managed_run(const struct vms_snapshot *s, size_t i,
		   bool (*piece)(const struct vms_region *), unsigned *perms)
{
	size_t end;

	*perms = 0;
	for (end = i;
	     end < s->nregions && piece(&s->regions[end]) &&
	     (end == i || s->regions[end].start == s->regions[end - 1].end);
	     end++)
		*perms |= s->regions[end].perms;
	return end;
}
