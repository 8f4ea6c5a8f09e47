/* step_stacks.c — the "stacks" step: the region holding each thread's
 * stack pointer (and [stack], the main thread's) is a stack, with the
 * PROT_NONE guard right below it; its children are the used and the unused
 * part. A runtime that runs threads on stacks inside its own heap keeps its
 * type; the thread still names its region. See steps.h.
 */
#include "analyze/steps.h"

static int step_stacks_run(struct vms_snapshot *s, unsigned have,
			   struct vms_error *err)
{
	size_t i;

	(void)have;
	for (i = 0; i < s->nthreads; i++) {
		struct vms_thread *t = &s->threads[i];
		ptrdiff_t k = t->sp ? vms_snapshot_find_index(s, t->sp) : -1;
		struct vms_region *r, *below;
		uint64_t sp_page;

		if (k < 0) {
			/* sp unknown: the main thread's stack is [stack] */
			if (t->tid != s->proc.pid)
				continue;
			for (k = 0; k < (ptrdiff_t)s->nregions; k++)
				if (step_path_is(&s->regions[k], "[stack]"))
					break;
			if (k == (ptrdiff_t)s->nregions)
				continue;
		}
		r = &s->regions[k];
		t->stack_start = r->start;
		t->stack_end = r->end;
		/* A runtime may run threads on stacks inside its own heap
		 * (Go's g0 stacks, coroutines in malloc'd memory): the region
		 * keeps its type; the thread still names it. */
		if (r->type != VMS_T_PRIVATE_DATA && r->type != VMS_T_STACK)
			continue;
		r->type = VMS_T_STACK;
		r->detail = arena_printf(&s->arena, "thread %d (%s)",
					 (int)t->tid, t->name ? t->name : "?");
		if (!r->detail)
			return step_nomem(err, "stacks");
		if (t->sp >= r->start && t->sp < r->end && !r->children) {
			sp_page = t->sp & ~(s->cap.page_size - 1);
			r->children = arena_alloc(&s->arena,
						  2 * sizeof(*r->children));
			if (!r->children)
				return step_nomem(err, "stacks");
			r->children[0] = (struct vms_child){ "unused", r->start,
							     sp_page, NULL };
			r->children[1] = (struct vms_child){ "used", sp_page,
							     r->end, NULL };
			r->nchildren = sp_page > r->start ? 2 : 1;
			if (r->nchildren == 1)
				r->children[0] = r->children[1];
		}
		below = k > 0 ? &s->regions[k - 1] : NULL;
		/* The guard: PROT_NONE, anonymous, right below, and not
		 * already something else (an arena's reserved tail under a
		 * stack made with pthread_attr_setstack). */
		if (below && below->end == r->start && below->perms == 0 &&
		    !below->path && below->type == VMS_T_PRIVATE_DATA) {
			below->type = VMS_T_STACK;
			below->flags |= VMS_RF_GUARD;
			below->detail = arena_printf(
				&s->arena, "guard of thread %d", (int)t->tid);
			if (!below->detail)
				return step_nomem(err, "stacks");
		}
	}
	/* [stack] is the main thread's even when its sp was elsewhere. */
	for (i = 0; i < s->nregions; i++)
		if (step_path_is(&s->regions[i], "[stack]") &&
		    s->regions[i].type != VMS_T_STACK) {
			s->regions[i].type = VMS_T_STACK;
			s->regions[i].detail = "[stack]";
		}
	return 0;
}

const struct vms_step vms_step_stacks = {
	.name = "stacks",
	.doing = "finding thread stacks",
	.run = step_stacks_run,
};
