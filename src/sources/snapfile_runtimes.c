/* snapfile_runtimes.c — what the steps "allocator", "v8" and "cpython"
 * found in memory, kept in a snapshot file (meta "runtimes") and put back
 * in place of running them when the file is loaded (snapfile_int.h): the
 * allocator, the managed entries of runtimes v8 and cpython, the regions
 * those steps typed managed heap, and their notes. jemalloc's regions are
 * heap and come back with the heaps step's kept part.
 */
#include <errno.h>
#include <string.h>

#include "snapfile_int.h"

struct sf_rt_region {
	size_t region;
	const char *step, *detail;
};

struct sf_runtimes {
	bool allocator_kept;
	struct vms_allocator *allocator;
	struct vms_managed *managed;
	size_t nmanaged;
	struct sf_rt_region *regions;
	size_t nregions;
	struct vms_note *notes;
	size_t nnotes;
};

static bool from_memory(const char *runtime)
{
	return strcmp(runtime, "v8") == 0 || strcmp(runtime, "cpython") == 0;
}

static bool is_step(const char *step)
{
	return strcmp(step, "allocator") == 0 || from_memory(step);
}

/* The step that typed anonymous managed heap region r: v8 when one of its
 * entries starts there, else cpython. */
static const char *step_of(const struct vms_snapshot *s,
			   const struct vms_region *r)
{
	size_t i;

	for (i = 0; i < s->nmanaged; i++)
		if (s->managed[i].start == r->start &&
		    strcmp(s->managed[i].runtime, "v8") == 0)
			return "v8";
	return "cpython";
}

static void add(json_t *a, json_t *v, bool *bad)
{
	if (!v || json_array_append_new(a, v) < 0)
		*bad = true;
}

static json_t *allocator_json(const struct vms_allocator *al)
{
	if (!al)
		return json_null();
	return json_pack(
		"{s:o,s:o,s:b,s:o,s:I,s:o,s:o,s:o}", "name",
		sf_json_str(al->name), "image", sf_json_str(al->image),
		"provides_malloc", al->provides_malloc, "found_by",
		sf_json_str(al->found_by), "metadata", (json_int_t)al->metadata,
		"heap", sf_json_u64(al->heap), "regions",
		sf_json_u64(al->nregions), "partial", sf_json_str(al->partial));
}

json_t *sf_runtimes_json(const struct vms_snapshot *s, bool *bad)
{
	json_t *o = json_object(), *m = json_array(), *r = json_array(),
	       *n = json_array();
	size_t i;

	if (!o || !m || !r || !n)
		goto fail;
	for (i = 0; !*bad && i < s->nmanaged; i++) {
		const struct vms_managed *x = &s->managed[i];

		if (from_memory(x->runtime))
			add(m,
			    json_pack("{s:s,s:o,s:o,s:o,s:o,s:I,s:o}",
				      "runtime", x->runtime, "start",
				      sf_json_u64(x->start), "end",
				      sf_json_u64(x->end), "reserved",
				      sf_json_u64(x->reserved), "committed",
				      sf_json_u64(x->committed), "used",
				      (json_int_t)x->used, "detail",
				      sf_json_str(x->detail)),
			    bad);
	}
	for (i = 0; !*bad && i < s->nregions; i++) {
		const struct vms_region *x = &s->regions[i];

		if (x->type == VMS_T_MANAGED_HEAP && !x->path)
			add(r,
			    json_pack("{s:o,s:s,s:o}", "region", sf_json_u64(i),
				      "step", step_of(s, x), "detail",
				      sf_json_str(x->detail)),
			    bad);
	}
	for (i = 0; !*bad && i < s->nnotes; i++)
		if (is_step(s->notes[i].step))
			add(n,
			    json_pack("{s:s,s:o}", "step", s->notes[i].step,
				      "why", sf_json_str(s->notes[i].why)),
			    bad);
	if (*bad ||
	    json_object_set_new(o, "allocator", allocator_json(s->allocator)) <
		    0 ||
	    json_object_set_new(o, "managed", m) < 0 ||
	    json_object_set_new(o, "regions", r) < 0 ||
	    json_object_set_new(o, "notes", n) < 0) {
		json_decref(o);
		*bad = true;
		return NULL;
	}
	return o;
fail:
	json_decref(o);
	json_decref(m);
	json_decref(r);
	json_decref(n);
	*bad = true;
	return NULL;
}

static bool allocator_from(struct vms_snapshot *s, const json_t *j,
			   struct sf_runtimes *k)
{
	struct vms_allocator *al;
	const json_t *md = json_object_get(j, "metadata");
	bool ok = true;

	k->allocator_kept = true;
	if (json_is_null(j) || !j)
		return true;
	al = arena_alloc(&s->arena, sizeof(*al));
	if (!json_is_object(j) || !al || !json_is_integer(md))
		return false;
	memset(al, 0, sizeof(*al));
	al->name = sf_get_str(&s->arena, json_object_get(j, "name"), &ok);
	al->image = sf_get_str(&s->arena, json_object_get(j, "image"), &ok);
	al->found_by =
		sf_get_str(&s->arena, json_object_get(j, "found_by"), &ok);
	al->partial = sf_get_str(&s->arena, json_object_get(j, "partial"), &ok);
	al->provides_malloc =
		json_is_true(json_object_get(j, "provides_malloc"));
	al->metadata = json_integer_value(md) < 0 ? -1 : json_integer_value(md);
	if (!ok || !al->name || !sf_obj_u64(j, "heap", &al->heap) ||
	    !sf_obj_u64(j, "regions", &al->nregions))
		return false;
	k->allocator = al;
	return true;
}

static bool managed_from(struct vms_snapshot *s, const json_t *e,
			 struct vms_managed *x)
{
	const json_t *used = json_object_get(e, "used");
	bool ok = true;

	x->runtime = sf_get_str(&s->arena, json_object_get(e, "runtime"), &ok);
	x->detail = sf_get_str(&s->arena, json_object_get(e, "detail"), &ok);
	if (!ok || !x->runtime || !from_memory(x->runtime) ||
	    !json_is_integer(used) || !sf_obj_u64(e, "start", &x->start) ||
	    !sf_obj_u64(e, "end", &x->end) ||
	    !sf_obj_u64(e, "reserved", &x->reserved) ||
	    !sf_obj_u64(e, "committed", &x->committed))
		return false;
	x->used = json_integer_value(used) < 0 ? -1 : json_integer_value(used);
	return true;
}

static bool region_from(struct vms_snapshot *s, const json_t *e,
			struct sf_rt_region *x)
{
	uint64_t i;
	bool ok = true;

	x->step = sf_get_str(&s->arena, json_object_get(e, "step"), &ok);
	x->detail = sf_get_str(&s->arena, json_object_get(e, "detail"), &ok);
	if (!ok || !x->step || !from_memory(x->step) ||
	    !sf_obj_u64(e, "region", &i) || i >= s->nregions)
		return false;
	x->region = (size_t)i;
	return true;
}

const char *sf_runtimes_from(struct vms_snapshot *s, const json_t *o,
			     struct sf_runtimes **out)
{
	const json_t *m = json_object_get(o, "managed"),
		     *r = json_object_get(o, "regions"),
		     *n = json_object_get(o, "notes");
	size_t i, nm = json_array_size(m), nr = json_array_size(r),
		  nn = json_array_size(n);
	struct sf_runtimes *k;
	bool ok = true;

	*out = NULL;
	if (!json_is_object(o))
		return NULL; /* none kept (an older file): the steps run */
	if (nr > s->nregions)
		return "bad \"runtimes\"";
	k = arena_alloc(&s->arena, sizeof(*k));
	if (!k)
		return "out of memory";
	memset(k, 0, sizeof(*k));
	k->managed =
		arena_alloc(&s->arena, (nm ? nm : 1) * sizeof(*k->managed));
	k->regions =
		arena_alloc(&s->arena, (nr ? nr : 1) * sizeof(*k->regions));
	k->notes = arena_alloc(&s->arena, (nn ? nn : 1) * sizeof(*k->notes));
	if (!k->managed || !k->regions || !k->notes)
		return "out of memory";
	if (!allocator_from(s, json_object_get(o, "allocator"), k))
		return "bad \"runtimes\"";
	for (i = 0; i < nm; i++)
		if (!managed_from(s, json_array_get(m, i), &k->managed[i]))
			return "bad \"runtimes\"";
	for (i = 0; i < nr; i++)
		if (!region_from(s, json_array_get(r, i), &k->regions[i]))
			return "bad \"runtimes\"";
	for (i = 0; i < nn; i++) {
		const json_t *e = json_array_get(n, i);

		k->notes[i].step =
			sf_get_str(&s->arena, json_object_get(e, "step"), &ok);
		k->notes[i].why =
			sf_get_str(&s->arena, json_object_get(e, "why"), &ok);
		if (!ok || !k->notes[i].step || !k->notes[i].why ||
		    !is_step(k->notes[i].step))
			return "bad \"runtimes\"";
	}
	k->nmanaged = nm;
	k->nregions = nr;
	k->nnotes = nn;
	*out = k;
	return NULL;
}

int sf_runtimes_restore(struct vms_snapshot *s, const struct sf_runtimes *k,
			const char *step, struct vms_error *err)
{
	size_t i;

	if (!k || !is_step(step))
		return 0;
	if (strcmp(step, "allocator") == 0) {
		if (!k->allocator_kept)
			return 0;
		s->allocator = k->allocator;
	}
	for (i = 0; i < k->nmanaged; i++)
		if (strcmp(k->managed[i].runtime, step) == 0 &&
		    vms_managed_add(s, &k->managed[i]) < 0)
			goto oom;
	for (i = 0; i < k->nregions; i++) {
		struct vms_region *r = &s->regions[k->regions[i].region];

		if (strcmp(k->regions[i].step, step) != 0)
			continue;
		r->type = VMS_T_MANAGED_HEAP;
		r->detail = k->regions[i].detail;
	}
	for (i = 0; i < k->nnotes; i++)
		if (strcmp(k->notes[i].step, step) == 0 &&
		    vms_snapshot_note(s, step, k->notes[i].why) < 0)
			goto oom;
	return 1;
oom:
	return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
}
