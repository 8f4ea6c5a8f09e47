/* records.c — the field tables of records.h's lists. See records.h. */
#include "model/records.h"

#include <string.h>

#include "model/snapshot.h"

#define NOFF_U64(T, m) 0
#define NOFF_HEX(T, m) 0
#define NOFF_I64N(T, m) 0
#define NOFF_STR(T, m) 0
#define NOFF_BOOL(T, m) 0
#define NOFF_SEGS(T, m) offsetof(T, n##m)
#define NOFF_PARTS(T, m) offsetof(T, n##m)

/* One line of a list as a struct vms_field of struct REC. */
#define FIELD(m, kind, json, file, flags)                                      \
	{ #m,                                                                  \
	  json,                                                                \
	  file,                                                                \
	  VMS_FK_##kind,                                                       \
	  flags,                                                               \
	  offsetof(REC, m),                                                    \
	  NOFF_##kind(REC, m) },

#define RECORD(var, name, list)                                                \
	static const struct vms_field var##_fields[] = { list(FIELD) };        \
	const struct vms_record var = { name, var##_fields,                    \
					sizeof(var##_fields) /                 \
						sizeof(var##_fields[0]),       \
					sizeof(REC) }

#define REC struct vms_heap
RECORD(vms_heap_record, "heap", VMS_HEAP_FIELDS);
#undef REC
#define REC struct vms_malloc
RECORD(vms_malloc_record, "malloc", VMS_MALLOC_FIELDS);
#undef REC
#define REC struct vms_allocator
RECORD(vms_allocator_record, "allocator", VMS_ALLOCATOR_FIELDS);
#undef REC
#define REC struct vms_managed_part
RECORD(vms_managed_part_record, "managed part", VMS_MANAGED_PART_FIELDS);
#undef REC
#define REC struct vms_managed
RECORD(vms_managed_record, "managed", VMS_MANAGED_FIELDS);
#undef REC
#define REC struct vms_trace_report
RECORD(vms_trace_record, "trace", VMS_TRACE_FIELDS);
#undef REC

/* One line of a column list as a struct vms_tcol of struct REC. */
#define COL_SIGNED_U64 false
#define COL_SIGNED_U32 false
#define COL_SIGNED_I32 true
#define COL_SIGNED_U8 false
#define COL(m, type, file, coding)                                             \
	{ #m,                                                                  \
	  file,                                                                \
	  offsetof(REC, m),                                                    \
	  sizeof(((REC *)0)->m),                                               \
	  COL_SIGNED_##type,                                                   \
	  VMS_TCOL_##coding },

#define COLS(var, name, list)                                                  \
	static const struct vms_tcol var##_list[] = { list(COL) };             \
	const struct vms_tcols var = { name, var##_list,                       \
				       sizeof(var##_list) /                    \
					       sizeof(var##_list[0]),          \
				       sizeof(REC) }

#define REC struct vms_trace_block
COLS(vms_trace_block_cols, "blocks", VMS_TRACE_BLOCK_FIELDS);
#undef REC
#define REC struct vms_trace_event
COLS(vms_trace_event_cols, "log", VMS_TRACE_EVENT_FIELDS);
#undef REC

uint64_t vms_tcol_get(const struct vms_tcol *c, const void *p)
{
	const unsigned char *at = (const unsigned char *)p + c->off;
	uint64_t u64;
	uint32_t u32;
	int32_t i32;

	switch (c->width) {
	case 8:
		memcpy(&u64, at, 8);
		return u64;
	case 4:
		if (c->is_signed) {
			memcpy(&i32, at, 4);
			return (uint64_t)(int64_t)i32;
		}
		memcpy(&u32, at, 4);
		return u32;
	default:
		return *at;
	}
}

bool vms_tcol_set(const struct vms_tcol *c, void *p, uint64_t v)
{
	unsigned char *at = (unsigned char *)p + c->off;
	uint32_t u32;
	int32_t i32;

	switch (c->width) {
	case 8:
		memcpy(at, &v, 8);
		return true;
	case 4:
		if (c->is_signed) {
			if ((int64_t)v < INT32_MIN || (int64_t)v > INT32_MAX)
				return false;
			i32 = (int32_t)(int64_t)v;
			memcpy(at, &i32, 4);
			return true;
		}
		if (v > UINT32_MAX)
			return false;
		u32 = (uint32_t)v;
		memcpy(at, &u32, 4);
		return true;
	default:
		if (v > UINT8_MAX)
			return false;
		*at = (unsigned char)v;
		return true;
	}
}

#define COUNTER(m, key)                                                        \
	{ #m, key, sizeof(key) - 1, offsetof(struct vms_counters, m) },
const struct vms_counter_field vms_counter_fields[VMS_NCOUNTERS] = {
	VMS_COUNTER_FIELDS(COUNTER)
};
const struct vms_counter_field vms_counter_adds[VMS_NCOUNTER_ADDS] = {
	VMS_COUNTER_ADDS(COUNTER)
};

#define ROLLUP(m, key, flags)                                                  \
	{ #m, key, flags, offsetof(struct vms_rollup, m) },
const struct vms_rollup_field vms_rollup_fields[VMS_NROLLUP] = {
	VMS_ROLLUP_FIELDS(ROLLUP)
};
