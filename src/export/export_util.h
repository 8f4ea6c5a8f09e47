/* export_util.h — the small pieces every exporter writes the same way:
 * permissions, state words, the time of the capture, the check against the
 * kernel's rollup.
 *
 * Contract: pure functions of a snapshot or region into the (buf, n)
 * given, or into an outbuf; no state.
 */
#ifndef VMS_EXPORT_UTIL_H
#define VMS_EXPORT_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/outbuf.h"
#include "model/records.h"
#include "model/snapshot.h"

/* "r-xp" for a region's permissions (buf of at least 5 bytes). */
const char *export_perms(const struct vms_region *r, char *buf);
/* Region state flags as words: "deleted", "reserved", ... */
size_t export_state_words(const struct vms_region *r, const char **w,
			  size_t max);
/* What the comparison with the kernel's smaps_rollup found, in words. */
const char *export_rollup_check(const struct vms_snapshot *s, char *buf,
				size_t n);
/* Every column's figure of a type's (or the total's) totals into
 * v[VMS_NCOLS] (columns.h). */
void export_totals_values(const struct vms_totals *t, uint64_t *v);
/* The JSON value of a scalar field of a records.h record (a number, an
 * address as a hex string, null for a negative I64N, a string, a bool);
 * false, nothing written, for a list (segments, parts). */
bool export_json_scalar(struct outbuf *o, const struct vms_field *f,
			const void *rec);
/* ISO 8601 UTC time of the capture into buf. */
const char *export_taken_at(const struct vms_snapshot *s, char *buf, size_t n);

#endif
