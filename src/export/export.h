/* export.h — the exporters: a snapshot as text, CSV, JSON, ... and the
 * registry that lists them.
 *
 * Contract: exporters only read the snapshot and write to an outbuf; they
 * print the same figures in every format (bytes in CSV and JSON, K in the
 * text forms, rounded down). JSON follows the version 1 contract
 * (docs/json.md); fields may be added, never renamed or removed.
 *
 * A new format is a file (src/export/export_NAME.c defining
 * const struct vms_exporter vms_export_NAME, with its diff writer or
 * none) and a row X(NAME) in VMS_EXPORTERS (export.c); -e, -d's -e,
 * --help and the error for an unknown format come from the table; the
 * man page's EXPORT FORMATS names it (test_manpage.py).
 */
#ifndef VMS_EXPORT_H
#define VMS_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/outbuf.h"
#include "model/snapshot.h"

struct vms_diff;

struct vms_exporter {
	const char *name; /* "text", "csv", ... (-e NAME) */
	const char *help; /* one line for --help */
	bool listed; /* offered by -e (the summary is -s) */
	void (*write)(const struct vms_snapshot *s, struct outbuf *o);
	/* The same format over a diff (-d A B, diff.h); NULL: the format
	 * has none (-d refuses it). */
	void (*write_diff)(const struct vms_diff *d, struct outbuf *o);
};

/* NULL-ended, in --help order. */
extern const struct vms_exporter *const vms_exporters[];

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

/* The diff writers the summary, text and csv rows share the pieces of
 * (export_diff.c): their write_diff; "summary" is what -d A B -s prints.
 * (json's is its own file's.) */
void export_diff_summary(const struct vms_diff *d, struct outbuf *o);
void export_diff_text(const struct vms_diff *d, struct outbuf *o);
void export_diff_csv(const struct vms_diff *d, struct outbuf *o);

#endif
