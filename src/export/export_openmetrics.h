/* export_openmetrics.h — many processes in one OpenMetrics exposition
 * (vmscope --all -e openmetrics): per process the per-type families of
 * -e openmetrics, labelled {pid, comm, unit, type}, then the count of the
 * processes that could not be read, by reason.
 *
 * Contract: only reads its rows and writes to the outbuf; label values
 * from a target (comm, unit) are escaped as -e openmetrics escapes comm.
 * A row with pid 0 is the sum of nproc processes of one comm (--top),
 * written as pid="other". Ends with "# EOF".
 */
#ifndef VMS_EXPORT_OPENMETRICS_H
#define VMS_EXPORT_OPENMETRICS_H

#include <stddef.h>
#include <sys/types.h>

#include "base/outbuf.h"
#include "model/snapshot.h"

struct om_proc {
	pid_t pid; /* 0: the sum of nproc processes of comm */
	unsigned long nproc;
	char comm[64]; /* as read, unescaped */
	char unit[128]; /* the last part of its cgroup path ("" at the root) */
	struct vms_totals types[VMS_NTYPES];
	uint64_t pss; /* over every type: the order of --top */
	uint64_t largest_free;
};

struct om_unread {
	const char *reason; /* a metric label value: [a-z_]+ */
	unsigned long n;
};

void export_openmetrics_all(const struct om_proc *p, size_t n,
			    const struct om_unread *u, size_t nu,
			    struct outbuf *o);

#endif
