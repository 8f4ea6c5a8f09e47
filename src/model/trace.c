/* trace.c — the names of trace.h's kinds, impacting types and
 * operations. */
#include "model/trace.h"

const char *const vms_trace_kind_names[VMS_TRACE_NKINDS] = {
	[VMS_TRACE_HEAP] = "heap",
	[VMS_TRACE_MMAP] = "mmap",
	[VMS_TRACE_BRK] = "brk",
};

const char *const vms_trace_impact_names[VMS_TRACE_NIMPACTS] = {
#define VMS_TRACE_NAME(n) #n,
	VMS_TRACE_IMPACTS(VMS_TRACE_NAME)
#undef VMS_TRACE_NAME
};

const char *const vms_trace_op_names[VMS_TRACE_NOPS] = {
	[VMS_TRACE_OP_ALLOC] = "alloc",
	[VMS_TRACE_OP_FREE] = "free",
	[VMS_TRACE_OP_MAP] = "map",
	[VMS_TRACE_OP_UNMAP] = "unmap",
};
