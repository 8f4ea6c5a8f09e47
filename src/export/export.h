/* export.h — the exporters: a snapshot as text, CSV, JSON, ... and the
 * registry that lists them.
 *
 * Contract: exporters only read the snapshot and write to an outbuf; they
 * print the same figures in every format (bytes in CSV and JSON, K in the
 * text forms, rounded down). JSON follows the version 1 contract
 * (docs/json.md); fields may be added, never renamed or removed.
 *
 * A new format is a file (src/export/export_NAME.c defining a const struct
 * vms_exporter), its extern below and a line in vms_exporters[]
 * (export.c); -e, --help and the error for an unknown format come from
 * the table. For -d A B -e NAME, a row of vms_diff_exporters[] too
 * (export_diff.c); and the man page's EXPORT FORMATS (test_manpage.py).
 */
#ifndef VMS_EXPORT_H
#define VMS_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/outbuf.h"
#include "model/snapshot.h"

struct vms_exporter {
	const char *name; /* "text", "csv", ... (-e NAME) */
	const char *help; /* one line for --help */
	bool listed; /* offered by -e (the summary is -s) */
	void (*write)(const struct vms_snapshot *s, struct outbuf *o);
};

/* NULL-ended, in --help order. */
extern const struct vms_exporter *const vms_exporters[];
extern const struct vms_exporter vms_export_summary, vms_export_text,
	vms_export_csv, vms_export_json, vms_export_openmetrics;

/* The exporter named name, or NULL. */
const struct vms_exporter *export_find(const char *name);
/* The names -e accepts, joined by sep, into buf. */
char *export_names(char *buf, size_t n, const char *sep);

void export_summary(const struct vms_snapshot *s, struct outbuf *o);
void export_text(const struct vms_snapshot *s, struct outbuf *o);
void export_csv(const struct vms_snapshot *s, struct outbuf *o);
void export_json(const struct vms_snapshot *s, struct outbuf *o);

/* "process", "capture", "totals" and "types" of s as members of a JSON
 * object, each followed by a comma (the diff export's "a" and "b"). */
void export_json_members(const struct vms_snapshot *s, struct outbuf *o);

/* ---- diffs (-d A B): the same formats over a diff (diff.h), in
 * export_diff.c; "summary" is what -s prints. ---- */
struct vms_diff;

struct vms_diff_exporter {
	const char *name;
	void (*write)(const struct vms_diff *d, struct outbuf *o);
};

/* NULL-ended. */
extern const struct vms_diff_exporter *const vms_diff_exporters[];
const struct vms_diff_exporter *export_diff_find(const char *name);

#endif
