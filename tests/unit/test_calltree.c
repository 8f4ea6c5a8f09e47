/* test_calltree — a report's sites folded into a call tree
 * (model/calltree.h), callers first and callees first, on sites made by
 * hand: the figures of a node are the sum of the sites through it, a
 * function reached by two paths is two nodes, children by impact.
 */
#include <string.h>

#include "model/calltree.h"
#include "tap.h"

static struct vms_trace_frame fr(const char *fn)
{
	return (struct vms_trace_frame){ .ip = (uint64_t)(uintptr_t)fn,
					 .function = fn };
}

static const char *name(const struct vms_calltree *t, uint32_t i)
{
	return t->nodes[i].frame ? t->nodes[i].frame->function : "(none)";
}

static uint32_t child(const struct vms_calltree *t, uint32_t i, size_t k)
{
	return t->kids[t->nodes[i].first + k];
}

int main(void)
{
	/* innermost first: a <- b <- main (100 outstanding), c <- b <- main
	 * (50), a <- d <- main (10 transient), and a site with no stack */
	struct vms_trace_frame f1[3] = { fr("a"), fr("b"), fr("main") };
	struct vms_trace_frame f2[3] = { fr("c"), fr("b"), fr("main") };
	struct vms_trace_frame f3[3] = { fr("a"), fr("d"), fr("main") };
	struct vms_trace_site s[4];
	struct vms_trace_report r = { .sites = s, .nsites = 4 };
	struct vms_calltree t;
	struct arena a;
	uint32_t m, b;

	memset(s, 0, sizeof(s));
	s[0].frames = f1;
	s[0].nframes = 3;
	s[0].by[VMS_TRACE_outstanding] = (struct vms_trace_count){ 1, 100 };
	s[0].impacting_bytes = 100;
	s[1].frames = f2;
	s[1].nframes = 3;
	s[1].by[VMS_TRACE_outstanding] = (struct vms_trace_count){ 1, 50 };
	s[1].impacting_bytes = 50;
	s[2].frames = f3;
	s[2].nframes = 3;
	s[2].by[VMS_TRACE_transient] = (struct vms_trace_count){ 2, 10 };
	s[3].by[VMS_TRACE_outstanding] = (struct vms_trace_count){ 1, 1 };
	s[3].impacting_bytes = 1;

	arena_init(&a);
	ok(vms_calltree_build(&r, true, &a, &t) == 0 && t.nroots == 2 &&
		   strcmp(name(&t, t.roots[0]), "main") == 0 &&
		   t.nodes[t.roots[0]].impacting_bytes == 150 &&
		   t.nodes[t.roots[0]].by[VMS_TRACE_transient].bytes == 10 &&
		   t.nodes[t.roots[1]].frame == NULL,
	   "callers first: main at the root with every site's figures, the "
	   "site with no stack a root of its own");
	m = t.roots[0];
	b = child(&t, m, 0);
	ok(t.nodes[m].nchildren == 2 && strcmp(name(&t, b), "b") == 0 &&
		   t.nodes[b].impacting_bytes == 150 &&
		   strcmp(name(&t, child(&t, m, 1)), "d") == 0 &&
		   t.nodes[b].nchildren == 2 &&
		   strcmp(name(&t, child(&t, b, 0)), "a") == 0 &&
		   t.nodes[child(&t, b, 0)].impacting_bytes == 100 &&
		   strcmp(name(&t, child(&t, b, 1)), "c") == 0 &&
		   t.nodes[child(&t, b, 0)].depth == 2,
	   "... main opens into b (150) then d (10); b into a (100) then c "
	   "(50)");
	ok(t.nnodes == 7, "a reached through b and through d: two nodes "
			  "(main, b, a, c, d, a, and the empty stack)");
	ok(vms_calltree_build(&r, false, &a, &t) == 0 && t.nroots == 3 &&
		   strcmp(name(&t, t.roots[0]), "a") == 0 &&
		   t.nodes[t.roots[0]].impacting_bytes == 100 &&
		   t.nodes[t.roots[0]].by[VMS_TRACE_transient].count == 2 &&
		   strcmp(name(&t, t.roots[1]), "c") == 0 &&
		   t.nodes[t.roots[0]].nchildren == 2 &&
		   strcmp(name(&t, child(&t, t.roots[0], 0)), "b") == 0 &&
		   strcmp(name(&t, child(&t, t.roots[0], 1)), "d") == 0,
	   "callees first: a (both of its sites) at a root, opening into "
	   "its callers b and d; c a root of its own");
	r.nsites = 0;
	ok(vms_calltree_build(&r, true, &a, &t) == 0 && t.nnodes == 0 &&
		   t.nroots == 0,
	   "no sites: an empty tree");
	arena_fini(&a);
	return tap_failed;
}
