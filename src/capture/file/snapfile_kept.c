/* snapfile_kept.c — what the steps found with what a snapshot file does
 * not hold (memory, the files), kept in the file and put back in place of
 * running them when it is loaded (snapfile_int.h). Which steps, and what
 * of each, the steps declare (model/kept.h); this file names none. One
 * record kind for every such step, the meta's "steps_kept", keyed by step
 * name:
 *
 *   "steps_kept": { "jvm": {
 *       "managed": [{ "runtime", "start", "end", "reserved", "committed",
 *                     "used", "figures", "detail",
 *                     "parts": [{ "name", "capacity", "used", "max",
 *                                 "in_heap" }] }],
 *       "regions": [{ "region": index, "type": "managed_heap",
 *                     "detail" }],
 *       "notes": [why, ...] },
 *     "allocator": { ...the same, and "allocator": { "name", "image",
 *       "provides_malloc", "found_by", "metadata", "system", its own
 *       figures (VMS_ALLOC_FIGURES, model/snapshot.h: "allocated" ...
 *       "committed") and "figures_note" (absent in older files: null),
 *       "heap", "regions", "partial" } or null }, "v8": {...},
 *       "cpython": {...} }
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

static json_t *i64(int64_t v)
{
	return v < 0 ? json_null() : json_integer((json_int_t)v);
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
	put(o, "runtime", sf_json_str(m->runtime), bad);
	put(o, "start", sf_json_u64(m->start), bad);
	put(o, "end", sf_json_u64(m->end), bad);
	put(o, "reserved", sf_json_u64(m->reserved), bad);
	put(o, "committed", sf_json_u64(m->committed), bad);
	put(o, "used", i64(m->used), bad);
	put(o, "figures", sf_json_str(m->figures), bad);
	put(o, "detail", sf_json_str(m->detail), bad);
	put(o, "parts", parts, bad);
	return o;
}

static json_t *allocator_json(const struct vms_allocator *al)
{
	json_t *o;
	bool bad = false;

	if (!al)
		return json_null();
	o = json_pack("{s:o,s:o,s:b,s:o,s:o,s:o,s:o,s:o,s:o}", "name",
		      sf_json_str(al->name), "image", sf_json_str(al->image),
		      "provides_malloc", al->provides_malloc, "found_by",
		      sf_json_str(al->found_by), "metadata", i64(al->metadata),
		      "system", i64(al->system), "heap", sf_json_u64(al->heap),
		      "regions", sf_json_u64(al->nregions), "partial",
		      sf_json_str(al->partial));
	if (!o)
		return NULL;
#define FIGURE(f, label)                                                       \
	if (json_object_set_new(o, #f, i64(al->f)) < 0)                        \
		bad = true;
	VMS_ALLOC_FIGURES(FIGURE)
#undef FIGURE
	if (json_object_set_new(o, "figures_note",
				sf_json_str(al->figures_note)) < 0 ||
	    bad) {
		json_decref(o);
		return NULL;
	}
	return o;
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
			push(list, entry_json(&s->managed[i], bad), bad);
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
		put(o, "allocator", allocator_json(s->allocator), bad);
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
	m->runtime = sf_get_str(&s->arena, json_object_get(e, "runtime"), &ok);
	if (!ok || !m->runtime || strcmp(m->runtime, rt) != 0 ||
	    !sf_obj_u64(e, "start", &m->start) ||
	    !sf_obj_u64(e, "end", &m->end) ||
	    !sf_obj_u64(e, "reserved", &m->reserved) ||
	    !sf_obj_u64(e, "committed", &m->committed) ||
	    !get_i64(e, "used", &m->used) || m->end < m->start)
		return false;
	m->figures = sf_get_str(&s->arena, json_object_get(e, "figures"), &ok);
	m->detail = sf_get_str(&s->arena, json_object_get(e, "detail"), &ok);
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
	bool ok = true;

	*out = NULL;
	if (json_is_null(j))
		return true;
	al = arena_alloc(&s->arena, sizeof(*al));
	if (!json_is_object(j) || !al)
		return false;
	memset(al, 0, sizeof(*al));
	al->name = sf_get_str(&s->arena, json_object_get(j, "name"), &ok);
	al->image = sf_get_str(&s->arena, json_object_get(j, "image"), &ok);
	al->found_by =
		sf_get_str(&s->arena, json_object_get(j, "found_by"), &ok);
	al->partial = sf_get_str(&s->arena, json_object_get(j, "partial"), &ok);
	al->provides_malloc =
		json_is_true(json_object_get(j, "provides_malloc"));
	/* "system" came with the tcmalloc heap, the figures after it: older
	 * files lack them */
	al->system = -1;
	if (json_object_get(j, "system") && !get_i64(j, "system", &al->system))
		return false;
#define FIGURE(f, label)                                                       \
	al->f = -1;                                                            \
	if (json_object_get(j, #f) && !get_i64(j, #f, &al->f))                 \
		return false;
	VMS_ALLOC_FIGURES(FIGURE)
#undef FIGURE
	al->figures_note =
		sf_get_str(&s->arena, json_object_get(j, "figures_note"), &ok);
	if (!ok || !al->name || !get_i64(j, "metadata", &al->metadata) ||
	    !sf_obj_u64(j, "heap", &al->heap) ||
	    !sf_obj_u64(j, "regions", &al->nregions))
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
