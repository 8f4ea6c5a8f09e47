/* export_openmetrics.h — many processes in one OpenMetrics exposition
 * (vmscope --all -e openmetrics): per process the per-type families of
 * -e openmetrics, labelled {pid, comm, unit, type}, then the count of the
 * processes that could not be read, by reason.
 *
 * Contract: only reads its rows and writes to the outbuf; label values
 * from a target (comm, unit) are escaped as -e openmetrics escapes comm.
 * A row with pid 0 is the sum of nproc processes of one comm (--top),
 * written as pid="other", its heap figures summed too. Then, per process, its heaps' bytes in use and
 * free per allocator (vmscope_heap_in_use_bytes, _free_bytes) and its
 * managed heaps' committed and used bytes per runtime
 * (vmscope_managed_committed_bytes, _used_bytes), each where known (a
 * family none has is left out: the heaps are walked only from memory of
 * one instant, never by the default sampler).
 * A figure not known (om_proc.known) is written as no sample, and a
 * family none of whose samples is known is left out, as those are.
 * Ends with "# EOF".
 */
#ifndef VMS_EXPORT_OPENMETRICS_H
#define VMS_EXPORT_OPENMETRICS_H

#include <stddef.h>
#include <sys/types.h>

#include "base/outbuf.h"
#include "model/snapshot.h"

#define OM_KINDS 4 /* allocators or runtimes kept per process */

/* A heap's or managed heap's figures summed per allocator or runtime; a
 * figure < 0 is unknown (never written). */
struct om_kind {
	char name[16]; /* "glibc", "jemalloc"; "jvm", "go"; "" unused */
	int64_t a, b; /* heaps: in use, free; managed: committed, used */
};

struct om_proc {
	pid_t pid; /* 0: the sum of nproc processes of comm */
	unsigned long nproc;
	char comm[64]; /* as read, unescaped */
	char unit[128]; /* the unit its cgroup path names (cgroup_unit) */
	struct vms_totals types[VMS_NTYPES];
	/* which figures of each type's row are known (columns.h,
	 * vms_row_known_mask): a figure not known is no sample (a core's
	 * Rss); a row of processes summed knows what each of them knows */
	uint32_t known[VMS_NTYPES];
	uint64_t pss; /* over every type: the order of --top */
	uint64_t largest_free;
	/* a pid 0 row: the sums over its processes (om_kinds_add) */
	struct om_kind heap[OM_KINDS], managed[OM_KINDS];
};

/* Adds from's kinds into to's, kind by kind (a figure unknown in either
 * is unknown in the sum: a summed row knows what each process knows). */
void om_kinds_add(struct om_kind *to, const struct om_kind *from);

/* p from s: its figures, unit as its label (NULL: none). */
void om_proc_of(struct om_proc *p, const struct vms_snapshot *s,
		const char *unit);

/* p's heap[] and managed[] from s: heaps summed per allocator (a kind's
 * part before '-': "glibc-arena" is glibc's), managed heaps per runtime;
 * a sum with a figure unknown is unknown, and glibc's where its walk was
 * partial (an arena locked at the snapshot, or damaged). */
void om_proc_kinds(struct om_proc *p, const struct vms_snapshot *s);

struct om_unread {
	const char *reason; /* a metric label value: [a-z_]+ */
	unsigned long n;
};

void export_openmetrics_all(const struct om_proc *p, size_t n,
			    const struct om_unread *u, size_t nu,
			    struct outbuf *o);

#endif
