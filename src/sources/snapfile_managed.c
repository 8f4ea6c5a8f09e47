/* snapfile_managed.c — a runtime step's result kept in a snapshot file:
 * what the jvm step found from the JVM's hsperfdata file, which a loaded
 * snapshot cannot read again (snapfile.h). Written as the meta's "jvm":
 *
 *   { "regions": [[index, managed (0/1), detail], ...],
 *     "list": [{ "start", "end", "reserved", "committed", "used",
 *                "figures", "parts": [{ "name", "capacity", "used",
 *                "max", "in_heap" }] }],
 *     "notes": [{ "step", "why" }] }
 *
 * the regions being those inside the jvm's managed heaps and those the
 * step named ("JVM ..." details: class space, code cache); figures -1 are
 * JSON null. Read back by sf_managed_from(), put back in place of running
 * the step by sf_managed_restore() (the source's restore). A file without
 * it (written before) leaves the step to run, and say what it lacks.
 */
#include <string.h>

#include "snapfile_int.h"

struct sf_managed_region {
	size_t region;
	bool managed;
	const char *detail;
};

struct sf_managed {
	const char *step;
	struct sf_managed_region *regions;
	size_t nregions;
	struct vms_managed *list;
	size_t nlist;
	struct vms_note *notes;
	size_t nnotes;
};

static void put(json_t *o, const char *k, json_t *v, bool *bad)
{
	if (!v || json_object_set_new(o, k, v) < 0)
		*bad = true;
}

static void push(json_t *a, json_t *v, bool *bad)
{
	if (!v || json_array_append_new(a, v) < 0)
		*bad = true;
}

static json_t *i64(int64_t v)
{
	return v < 0 ? json_null() : json_integer((json_int_t)v);
}

static bool kept_region(const struct vms_snapshot *s, const char *rt,
			const struct vms_region *r)
{
	size_t i;

	if (r->detail && strncmp(r->detail, "JVM ", 4) == 0)
		return true;
	for (i = 0; i < s->nmanaged; i++)
		if (strcmp(s->managed[i].runtime, rt) == 0 &&
		    r->start >= s->managed[i].start &&
		    r->end <= s->managed[i].end)
			return true;
	return false;
}

static json_t *entry_json(const struct vms_managed *m, bool *bad)
{
	json_t *o = json_object(), *parts = json_array();
	uint32_t k;

	if (!o || !parts) {
		json_decref(o);
		json_decref(parts);
		*bad = true;
		return NULL;
	}
	for (k = 0; k < m->nparts; k++) {
		const struct vms_managed_part *p = &m->parts[k];

		push(parts,
		     json_pack("{s:o,s:o,s:o,s:o,s:b}", "name",
			       sf_json_str(p->name), "capacity",
			       i64(p->capacity), "used", i64(p->used), "max",
			       i64(p->max), "in_heap", p->in_heap),
		     bad);
	}
	put(o, "start", sf_json_u64(m->start), bad);
	put(o, "end", sf_json_u64(m->end), bad);
	put(o, "reserved", sf_json_u64(m->reserved), bad);
	put(o, "committed", sf_json_u64(m->committed), bad);
	put(o, "used", i64(m->used), bad);
	put(o, "figures", sf_json_str(m->figures), bad);
	put(o, "parts", parts, bad);
	return o;
}

json_t *sf_managed_json(const struct vms_snapshot *s, const char *step,
			const char *rt, bool *bad)
{
	json_t *o = json_object(), *regs = json_array(), *list = json_array(),
	       *notes = json_array();
	size_t i;

	if (!o || !regs || !list || !notes) {
		json_decref(o);
		json_decref(regs);
		json_decref(list);
		json_decref(notes);
		*bad = true;
		return NULL;
	}
	for (i = 0; !*bad && i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];

		if (kept_region(s, rt, r))
			push(regs,
			     json_pack("[o,b,o]", sf_json_u64(i),
				       r->type == VMS_T_MANAGED_HEAP,
				       sf_json_str(r->detail)),
			     bad);
	}
	for (i = 0; !*bad && i < s->nmanaged; i++)
		if (strcmp(s->managed[i].runtime, rt) == 0)
			push(list, entry_json(&s->managed[i], bad), bad);
	for (i = 0; !*bad && i < s->nnotes; i++)
		if (strcmp(s->notes[i].step, step) == 0)
			push(notes,
			     json_pack("{s:s,s:o}", "step", step, "why",
				       sf_json_str(s->notes[i].why)),
			     bad);
	put(o, "regions", regs, bad);
	put(o, "list", list, bad);
	put(o, "notes", notes, bad);
	return o;
}

/* A figure that may be null (-1); false when neither. */
static bool get_i64(const json_t *o, const char *k, int64_t *out)
{
	const json_t *v = json_object_get(o, k);
	uint64_t u;

	if (json_is_null(v)) {
		*out = -1;
		return true;
	}
	if (!sf_get_u64(v, &u) || u > INT64_MAX)
		return false;
	*out = (int64_t)u;
	return true;
}

static bool entry_from(struct vms_snapshot *s, const char *rt, const json_t *e,
		       struct vms_managed *m)
{
	const json_t *parts = json_object_get(e, "parts");
	size_t k, n = json_array_size(parts);
	struct vms_managed_part *p;
	bool ok = true;

	if (!json_is_object(e) || !json_is_array(parts) || n > 64)
		return false;
	memset(m, 0, sizeof(*m));
	m->runtime = rt;
	if (!sf_obj_u64(e, "start", &m->start) ||
	    !sf_obj_u64(e, "end", &m->end) ||
	    !sf_obj_u64(e, "reserved", &m->reserved) ||
	    !sf_obj_u64(e, "committed", &m->committed) ||
	    !get_i64(e, "used", &m->used) || m->end < m->start)
		return false;
	m->figures = sf_get_str(&s->arena, json_object_get(e, "figures"), &ok);
	p = arena_alloc(&s->arena, (n ? n : 1) * sizeof(*p));
	if (!ok || !p)
		return false;
	for (k = 0; k < n; k++) {
		const json_t *x = json_array_get(parts, k);

		p[k].name =
			sf_get_str(&s->arena, json_object_get(x, "name"), &ok);
		p[k].in_heap = json_is_true(json_object_get(x, "in_heap"));
		if (!ok || !p[k].name ||
		    !get_i64(x, "capacity", &p[k].capacity) ||
		    !get_i64(x, "used", &p[k].used) ||
		    !get_i64(x, "max", &p[k].max))
			return false;
	}
	m->parts = p;
	m->nparts = (uint32_t)n;
	return true;
}

const char *sf_managed_from(struct vms_snapshot *s, const json_t *o,
			    const char *step, const char *rt,
			    struct sf_managed **out)
{
	const json_t *regs = json_object_get(o, "regions");
	const json_t *list = json_object_get(o, "list");
	const json_t *notes = json_object_get(o, "notes");
	size_t i, nr = json_array_size(regs), nl = json_array_size(list),
		  nn = json_array_size(notes);
	struct sf_managed *k;
	bool ok = true;

	*out = NULL;
	if (!json_is_object(o))
		return NULL; /* none kept: the step runs */
	if (nr > s->nregions || nl > s->nregions)
		return "bad runtime record";
	k = arena_alloc(&s->arena, sizeof(*k));
	if (!k)
		return "out of memory";
	k->step = step;
	k->regions =
		arena_alloc(&s->arena, (nr ? nr : 1) * sizeof(*k->regions));
	k->list = arena_alloc(&s->arena, (nl ? nl : 1) * sizeof(*k->list));
	k->notes = arena_alloc(&s->arena, (nn ? nn : 1) * sizeof(*k->notes));
	if (!k->regions || !k->list || !k->notes)
		return "out of memory";
	for (i = 0; i < nr; i++) {
		const json_t *e = json_array_get(regs, i);
		uint64_t idx;

		if (!json_is_array(e) ||
		    !sf_get_u64(json_array_get(e, 0), &idx) ||
		    idx >= s->nregions)
			return "bad runtime record";
		k->regions[i].region = (size_t)idx;
		k->regions[i].managed = json_is_true(json_array_get(e, 1));
		k->regions[i].detail =
			sf_get_str(&s->arena, json_array_get(e, 2), &ok);
		if (!ok)
			return "bad runtime record";
	}
	for (i = 0; i < nl; i++)
		if (!entry_from(s, rt, json_array_get(list, i), &k->list[i]))
			return "bad runtime record";
	for (i = 0; i < nn; i++) {
		k->notes[i].step = step;
		k->notes[i].why = sf_get_str(
			&s->arena,
			json_object_get(json_array_get(notes, i), "why"), &ok);
		if (!ok || !k->notes[i].why)
			return "bad runtime record";
	}
	k->nregions = nr;
	k->nlist = nl;
	k->nnotes = nn;
	*out = k;
	return NULL;
}

int sf_managed_restore(struct vms_snapshot *s, const struct sf_managed *k)
{
	size_t i;

	for (i = 0; i < k->nregions; i++) {
		struct vms_region *r = &s->regions[k->regions[i].region];

		if (k->regions[i].managed)
			r->type = VMS_T_MANAGED_HEAP;
		r->detail = k->regions[i].detail;
	}
	for (i = 0; i < k->nlist; i++)
		if (vms_managed_add(s, &k->list[i]) < 0)
			return -1;
	for (i = 0; i < k->nnotes; i++)
		if (vms_snapshot_note(s, k->step, k->notes[i].why) < 0)
			return -1;
	return 0;
}
