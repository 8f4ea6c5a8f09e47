/* snapfile_kept.c — what the steps found with what a snapshot file does
 * not hold (memory, the files), kept in the file and put back in place of
 * running them when it is loaded (snapfile_int.h). Which steps, and what
 * of each, the steps declare (model/kept.h); this file names none. One
 * record kind for every such step, the meta's "steps_kept", keyed by step
 * name:
 *
 *   "steps_kept": { "jvm": {
 *       "managed": [{ records.h's VMS_MANAGED_FIELDS by their file keys,
 *                     "parts": [{ VMS_MANAGED_PART_FIELDS }] }],
 *       "regions": [{ "region": index, "type": "managed_heap",
 *                     "detail" }],
 *       "notes": [why, ...] },
 *     "allocator": { ...the same, and "allocator": { records.h's
 *       VMS_ALLOCATOR_FIELDS } or null }, "v8": {...}, "cpython": {...} }
 *
 * Figures -1 (unknown) are JSON null. A step's managed entries are those of
 * its runtime; its regions those typed managed heap inside one of them
 * (overlapping: a CPython arena may share a region with its neighbour) and
 * those it named (the jvm step's "JVM ..." details: class space, code
 * cache); its notes those made under its name. Kept today: jvm
 * (hsperfdata, a file), allocator, v8, cpython and go (memory: Go's
 * spans). Not kept: dotnet, which runs from the map alone (a file keeps
 * it) and so runs again; an older file without a go record runs go again,
 * from the map and the images' ELF summaries, without its figures. A step
 * with a record is put back, never run; a step without one (an older file,
 * or a step a newer vmscope added) runs and says what it lacks; a record
 * of a step this vmscope does not declare is ignored.
 */
#include <errno.h>
#include <string.h>

#include "capture/file/snapfile_int.h"

struct sf_kept_region {
	size_t region;
	uint8_t type;
	const char *detail;
};

struct sf_kept_one {
	const struct vms_kept *decl; /* the step's declaration */
	bool present;
	struct vms_allocator *allocator; /* NULL: none then */
	struct vms_managed *managed;
	size_t nmanaged;
	struct sf_kept_region *regions;
	size_t nregions;
	const char **notes;
	size_t nnotes;
};

struct sf_kept {
	struct sf_kept_one *step; /* one a step declared */
	size_t n;
};

/* ---- writing ---- */

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

static bool kept_region(const struct vms_snapshot *s, const struct vms_kept *k,
			const struct vms_region *r)
{
	size_t i;

	if (k->named && r->detail &&
	    strncmp(r->detail, k->named, strlen(k->named)) == 0)
		return true;
	if (!k->runtime || r->type != VMS_T_MANAGED_HEAP)
		return false;
	for (i = 0; i < s->nmanaged; i++)
		if (strcmp(s->managed[i].runtime, k->runtime) == 0 &&
		    r->start < s->managed[i].end &&
		    r->end > s->managed[i].start)
			return true;
	return false;
}

static json_t *allocator_json(const struct vms_allocator *al, bool *bad)
{
	if (!al)
		return json_null();
	return sf_record_json(&vms_allocator_record, al, bad);
}

static json_t *step_json(const struct vms_snapshot *s, const struct vms_kept *k,
			 bool *bad)
{
	json_t *o = json_object(), *list = json_array(), *regs = json_array(),
	       *notes = json_array();
	size_t i;

	if (!o || !list || !regs || !notes) {
		json_decref(o);
		json_decref(list);
		json_decref(regs);
		json_decref(notes);
		*bad = true;
		return NULL;
	}
	for (i = 0; k->runtime && !*bad && i < s->nmanaged; i++)
		if (strcmp(s->managed[i].runtime, k->runtime) == 0)
			push(list,
			     sf_record_json(&vms_managed_record, &s->managed[i],
					    bad),
			     bad);
	for (i = 0; !*bad && i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];

		if (kept_region(s, k, r))
			push(regs,
			     json_pack("{s:o,s:s,s:o}", "region",
				       sf_json_u64(i), "type",
				       vms_type_info[r->type].json, "detail",
				       sf_json_str(r->detail)),
			     bad);
	}
	for (i = 0; !*bad && i < s->nnotes; i++)
		if (s->notes[i].step && strcmp(s->notes[i].step, k->step) == 0)
			push(notes, sf_json_str(s->notes[i].why), bad);
	put(o, "managed", list, bad);
	put(o, "regions", regs, bad);
	put(o, "notes", notes, bad);
	if (k->allocator)
		put(o, "allocator", allocator_json(s->allocator, bad), bad);
	return o;
}

json_t *sf_kept_json(const struct vms_snapshot *s,
		     const struct vms_kept *const *kept, bool *bad)
{
	json_t *o = json_object();
	size_t i;

	if (!o) {
		*bad = true;
		return NULL;
	}
	for (i = 0; !*bad && kept[i]; i++)
		put(o, kept[i]->step, step_json(s, kept[i], bad), bad);
	return o;
}

/* ---- reading ---- */

static bool entry_from(struct vms_snapshot *s, const char *rt, const json_t *e,
		       struct vms_managed *m)
{
	return sf_record_from(&s->arena, e, &vms_managed_record, m, 0) &&
	       strcmp(m->runtime, rt) == 0 && m->end >= m->start;
}

static bool region_from(struct vms_snapshot *s, const json_t *e,
			struct sf_kept_region *x)
{
	const char *type = json_string_value(json_object_get(e, "type"));
	uint64_t i;
	bool ok = true;
	int t;

	if (!type || !sf_obj_u64(e, "region", &i) || i >= s->nregions)
		return false;
	for (t = 0; t < VMS_NTYPES; t++)
		if (strcmp(vms_type_info[t].json, type) == 0)
			break;
	if (t == VMS_NTYPES || t == VMS_T_FREE || t == VMS_T_PAGE_TABLE)
		return false;
	x->region = (size_t)i;
	x->type = (uint8_t)t;
	x->detail = sf_get_str(&s->arena, json_object_get(e, "detail"), &ok);
	return ok;
}

static bool allocator_from(struct vms_snapshot *s, const json_t *j,
			   struct vms_allocator **out)
{
	struct vms_allocator *al;

	*out = NULL;
	if (json_is_null(j))
		return true;
	al = arena_alloc(&s->arena, sizeof(*al));
	if (!al || !sf_record_from(&s->arena, j, &vms_allocator_record, al, 0))
		return false;
	*out = al;
	return true;
}

static const char *step_from(struct vms_snapshot *s, const json_t *o,
			     const struct vms_kept *k, struct sf_kept_one *one)
{
	const json_t *list = json_object_get(o, "managed");
	const json_t *regs = json_object_get(o, "regions");
	const json_t *notes = json_object_get(o, "notes");
	size_t i, nl = json_array_size(list), nr = json_array_size(regs),
		  nn = json_array_size(notes);
	bool ok = true;

	if (!json_is_object(o) || !json_is_array(list) ||
	    !json_is_array(regs) || !json_is_array(notes) || nr > s->nregions ||
	    (nl && !k->runtime))
		return "bad \"steps_kept\"";
	one->managed =
		arena_alloc(&s->arena, (nl ? nl : 1) * sizeof(*one->managed));
	one->regions =
		arena_alloc(&s->arena, (nr ? nr : 1) * sizeof(*one->regions));
	one->notes =
		arena_alloc(&s->arena, (nn ? nn : 1) * sizeof(*one->notes));
	if (!one->managed || !one->regions || !one->notes)
		return "out of memory";
	for (i = 0; i < nl; i++)
		if (!entry_from(s, k->runtime, json_array_get(list, i),
				&one->managed[i]))
			return "bad \"steps_kept\"";
	for (i = 0; i < nr; i++)
		if (!region_from(s, json_array_get(regs, i), &one->regions[i]))
			return "bad \"steps_kept\"";
	for (i = 0; i < nn; i++) {
		one->notes[i] =
			sf_get_str(&s->arena, json_array_get(notes, i), &ok);
		if (!ok || !one->notes[i])
			return "bad \"steps_kept\"";
	}
	if (k->allocator && !allocator_from(s, json_object_get(o, "allocator"),
					    &one->allocator))
		return "bad \"steps_kept\"";
	one->nmanaged = nl;
	one->nregions = nr;
	one->nnotes = nn;
	one->present = true;
	return NULL;
}

const char *sf_kept_from(struct vms_snapshot *s, const json_t *o,
			 const struct vms_kept *const *kept,
			 struct sf_kept **out)
{
	struct sf_kept *k;
	const char *why;
	size_t i, n;

	*out = NULL;
	if (!o)
		return NULL; /* none kept (an older file): the steps run */
	if (!json_is_object(o))
		return "bad \"steps_kept\"";
	for (n = 0; kept[n]; n++)
		;
	k = arena_alloc(&s->arena, sizeof(*k));
	if (k)
		k->step =
			arena_alloc(&s->arena, (n ? n : 1) * sizeof(*k->step));
	if (!k || !k->step)
		return "out of memory";
	memset(k->step, 0, (n ? n : 1) * sizeof(*k->step));
	k->n = n;
	for (i = 0; i < n; i++) {
		const json_t *one = json_object_get(o, kept[i]->step);

		k->step[i].decl = kept[i];
		if (one &&
		    (why = step_from(s, one, kept[i], &k->step[i])) != NULL)
			return why;
	}
	*out = k;
	return NULL;
}

/* Puts entry m back: over an entry of the same runtime and range that a
 * step before made again (classify's, for a runtime-named region), else
 * added. */
static int managed_back(struct vms_snapshot *s, const struct vms_managed *m)
{
	size_t i;

	for (i = 0; i < s->nmanaged; i++)
		if (s->managed[i].start == m->start &&
		    s->managed[i].end == m->end &&
		    strcmp(s->managed[i].runtime, m->runtime) == 0) {
			s->managed[i] = *m;
			return 0;
		}
	return vms_managed_add(s, m);
}

int sf_kept_restore(struct vms_snapshot *s, const struct sf_kept *k,
		    const char *step, struct vms_error *err)
{
	const struct sf_kept_one *one = NULL;
	size_t i;

	for (i = 0; k && i < k->n; i++)
		if (strcmp(k->step[i].decl->step, step) == 0)
			one = &k->step[i];
	if (!one || !one->present)
		return 0;
	if (one->decl->allocator)
		s->allocator = one->allocator;
	for (i = 0; i < one->nmanaged; i++)
		if (managed_back(s, &one->managed[i]) < 0)
			goto oom;
	for (i = 0; i < one->nregions; i++) {
		struct vms_region *r = &s->regions[one->regions[i].region];

		r->type = one->regions[i].type;
		r->detail = one->regions[i].detail;
	}
	for (i = 0; i < one->nnotes; i++)
		if (vms_snapshot_note(s, step, one->notes[i]) < 0)
			goto oom;
	return 1;
oom:
	return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
}
