/* export.h — a snapshot as text summary, full text, CSV or JSON.
 *
 * Contract: exporters only read the snapshot and write to an outbuf; they
 * print the same figures in every format (bytes in CSV and JSON, K in the
 * text forms, rounded down). JSON follows DESIGN.md's version 1 contract;
 * fields may be added, never renamed or removed.
 *
 * CSV: one header line, then one row per record; the first column says what
 * the row is: "type" (a row of the summary), "total", "region", "child"
 * (a section or part of the region above it), "thread".
 */
#ifndef VMS_EXPORT_H
#define VMS_EXPORT_H

#include "outbuf.h"
#include "snapshot.h"

enum export_format {
	EXPORT_SUMMARY,
	EXPORT_TEXT,
	EXPORT_CSV,
	EXPORT_JSON,
};

/* "text", "csv", "json" -> format; -1 if unknown. */
int export_format_parse(const char *name);

void export_write(const struct vms_snapshot *s, enum export_format f,
		  struct outbuf *o);

void export_summary(const struct vms_snapshot *s, struct outbuf *o);
void export_text(const struct vms_snapshot *s, struct outbuf *o);
void export_csv(const struct vms_snapshot *s, struct outbuf *o);
void export_json(const struct vms_snapshot *s, struct outbuf *o);

/* "r-xp" for a region's permissions (buf of at least 5 bytes). */
const char *export_perms(const struct vms_region *r, char *buf);
/* Region state flags as words: "deleted", "reserved", ... (NULL-ended). */
size_t export_state_words(const struct vms_region *r, const char **w,
			  size_t max);
/* What the comparison with the kernel's smaps_rollup found, in words. */
const char *export_rollup_check(const struct vms_snapshot *s, char *buf,
				size_t n);
/* ISO 8601 UTC time of the capture into buf. */
const char *export_taken_at(const struct vms_snapshot *s, char *buf,
			    size_t n);

#endif
