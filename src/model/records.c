/* records.c — the field tables of records.h's lists. See records.h. */
#include "model/records.h"

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

#define COUNTER(m, key)                                                        \
	{ #m, key, sizeof(key) - 1, offsetof(struct vms_counters, m) },
const struct vms_counter_field vms_counter_fields[VMS_NCOUNTERS] = {
	VMS_COUNTER_FIELDS(COUNTER)
};

#define ROLLUP(m, key, flags)                                                  \
	{ #m, key, flags, offsetof(struct vms_rollup, m) },
const struct vms_rollup_field vms_rollup_fields[VMS_NROLLUP] = {
	VMS_ROLLUP_FIELDS(ROLLUP)
};
