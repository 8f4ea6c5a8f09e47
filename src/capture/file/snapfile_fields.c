/* snapfile_fields.c — a record of records.h as a snapshot file's JSON
 * object, both ways, walking its field table: what one list declares is
 * what a file keeps and what a reader takes back (snapfile_int.h).
 */
#include <string.h>

#include "capture/file/snapfile_int.h"

/* ---- writing ---- */

static json_t *i64(int64_t v)
{
	return v < 0 ? json_null() : json_integer((json_int_t)v);
}

static json_t *field_json(const struct vms_field *f, const void *p, bool *bad)
{
	const char *at = (const char *)p + f->off;
	const struct vms_heap_seg *sg;
	const struct vms_managed_part *pt;
	const char *str;
	uint64_t u;
	int64_t v;
	uint32_t k, n;
	json_t *a;
	bool b;

	switch (f->kind) {
	case VMS_FK_U64:
	case VMS_FK_HEX:
		memcpy(&u, at, sizeof(u));
		return sf_json_u64(u);
	case VMS_FK_I64N:
		memcpy(&v, at, sizeof(v));
		return i64(v);
	case VMS_FK_STR:
		memcpy(&str, at, sizeof(str));
		return sf_json_str(str);
	case VMS_FK_BOOL:
		memcpy(&b, at, sizeof(b));
		return json_boolean(b);
	default:
		break;
	}
	memcpy(&n, (const char *)p + f->noff, sizeof(n));
	a = json_array();
	for (k = 0; a && !*bad && k < n; k++) {
		json_t *e;

		if (f->kind == VMS_FK_SEGS) {
			memcpy(&sg, at, sizeof(sg));
			e = json_pack("[o,o]", sf_json_u64(sg[k].start),
				      sf_json_u64(sg[k].end));
		} else {
			memcpy(&pt, at, sizeof(pt));
			e = sf_record_json(&vms_managed_part_record, &pt[k],
					   bad);
		}
		if (!e || json_array_append_new(a, e) < 0)
			*bad = true;
	}
	return a;
}

json_t *sf_record_json(const struct vms_record *rec, const void *p, bool *bad)
{
	json_t *o = json_object();
	size_t i;

	if (!o) {
		*bad = true;
		return NULL;
	}
	for (i = 0; i < rec->nfields; i++) {
		json_t *v = field_json(&rec->fields[i], p, bad);

		if (!v || json_object_set_new(o, rec->fields[i].file, v) < 0)
			*bad = true;
	}
	return o;
}

/* ---- reading ---- */

static bool array_from(struct arena *a, const struct vms_field *f,
		       const json_t *v, void *p, size_t max_segs)
{
	size_t k, n = json_array_size(v);
	bool segs = f->kind == VMS_FK_SEGS;
	size_t el = segs ? sizeof(struct vms_heap_seg)
			 : sizeof(struct vms_managed_part);
	char *out;
	uint32_t n32;

	if (!json_is_array(v) ||
	    n > (segs ? max_segs : (size_t)VMS_MANAGED_PARTS_MAX))
		return false;
	out = arena_alloc(a, (n ? n : 1) * el);
	if (!out)
		return false;
	for (k = 0; k < n; k++) {
		const json_t *e = json_array_get(v, k);

		if (segs) {
			struct vms_heap_seg *sg = (struct vms_heap_seg *)out;

			if (!sf_get_u64(json_array_get(e, 0), &sg[k].start) ||
			    !sf_get_u64(json_array_get(e, 1), &sg[k].end))
				return false;
		} else if (!sf_record_from(a, e, &vms_managed_part_record,
					   out + k * el, 0)) {
			return false;
		}
	}
	n32 = (uint32_t)n;
	memcpy((char *)p + f->off, &out, sizeof(out));
	memcpy((char *)p + f->noff, &n32, sizeof(n32));
	return true;
}

static bool field_from(struct arena *a, const struct vms_field *f,
		       const json_t *v, void *p, size_t max_segs)
{
	char *at = (char *)p + f->off;
	const char *str;
	uint64_t u;
	int64_t i;
	bool ok = true, b;

	switch (f->kind) {
	case VMS_FK_U64:
	case VMS_FK_HEX:
		if (!sf_get_u64(v, &u))
			return false;
		memcpy(at, &u, sizeof(u));
		return true;
	case VMS_FK_I64N:
		if (json_is_null(v) ||
		    (json_is_integer(v) && json_integer_value(v) < 0)) {
			i = -1; /* older files wrote a heap's unknowns as -1 */
		} else {
			if (!sf_get_u64(v, &u) || u > INT64_MAX)
				return false;
			i = (int64_t)u;
		}
		memcpy(at, &i, sizeof(i));
		return true;
	case VMS_FK_STR:
		str = sf_get_str(a, v, &ok);
		if (!ok || (!str && (f->flags & VMS_FF_NONNULL)))
			return false;
		memcpy(at, &str, sizeof(str));
		return true;
	case VMS_FK_BOOL:
		b = json_is_true(v);
		memcpy(at, &b, sizeof(b));
		return true;
	default:
		return array_from(a, f, v, p, max_segs);
	}
}

bool sf_record_from(struct arena *a, const json_t *o,
		    const struct vms_record *rec, void *p, size_t max_segs)
{
	size_t i;

	if (!json_is_object(o))
		return false;
	memset(p, 0, rec->size);
	for (i = 0; i < rec->nfields; i++) {
		const struct vms_field *f = &rec->fields[i];
		const json_t *v = json_object_get(o, f->file);

		if (!v) { /* absent: a file of an older vmscope */
			if (f->flags & (VMS_FF_NEED | VMS_FF_NONNULL))
				return false;
			if (f->kind == VMS_FK_I64N) {
				int64_t unknown = -1;

				memcpy((char *)p + f->off, &unknown,
				       sizeof(unknown));
			}
			continue;
		}
		if (!field_from(a, f, v, p, max_segs))
			return false;
	}
	return true;
}
