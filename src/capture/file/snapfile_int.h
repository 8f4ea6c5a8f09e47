/* snapfile_int.h — what the files of snapshot files share (the
 * snapfile_*.c of this folder: writer, reader, fields, JSON, sections,
 * parts, source, kept, trace, live trace); not for others but the unit
 * tests of their records (tests/unit/test_schema.c, test_tracelive.c).
 *
 * Strings from the target or a file (paths, names, command lines, section
 * names) may hold any bytes, and JSON holds only UTF-8: a string that is
 * valid UTF-8 is a JSON string, any other is {"hex": "..."} of its bytes.
 * A 64-bit figure is a JSON integer up to INT64_MAX, a "0x..." string
 * above (json_int_t is signed); the reader takes both.
 */
#ifndef VMS_SNAPFILE_INT_H
#define VMS_SNAPFILE_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "capture/file/snapfile.h"
#include "elf/elfimage.h"
#include "linux/smaps.h"
#include "model/snapshot.h"

/* The version that writes and reads (the Makefile's; a build without it,
 * such as the fuzzers', says so). */
#ifndef VMSCOPE_VERSION
#define VMSCOPE_VERSION "(unversioned build)"
#endif

/* Section names. */
#define SF_SEC_META "meta"
#define SF_SEC_SMAPS "smaps"
#define SF_SEC_STATUS "status"
#define SF_SEC_END "end"
#define SF_SEC_TRACE "trace" /* a trace report (snapfile_trace.c) */
/* what the viewer lists beside it (snapfile_tracelive.c) */
#define SF_SEC_TRACELIVE "tracelive"
#define SF_SEC_NAME 12
#define SF_HEAD_LEN (SNAPFILE_MAGIC_LEN + 8)
#define SF_SEC_HEAD_LEN (SF_SEC_NAME + 4 + 8 + 8)
enum { SF_CODEC_STORED = 0, SF_CODEC_ZSTD = 1 };

/* ---- snapfile_json.c: writing (NULL on out of memory) ---- */
json_t *sf_json_str(const char *s);
json_t *sf_json_u64(uint64_t v);
json_t *sf_json_elf(const struct elfimage *im);

/* Every top-level key of the JSON part a reader reads: what the writer
 * puts (snapfile_write.c's snapfile_encode) and what older files hold.
 * Any other is a later vmscope's, skipped unbuilt (sf_json_prepare);
 * tests/code/test_snapkeys.py checks that each key the writer puts is
 * here. */
#define SF_JSON_TOP_KEYS                                                       \
	"format", "version", "written_by", "regions", "smaps_parts",           \
		"process", "capture", "rollup", "threads", "files",            \
		"fs_magic", "heaps", "malloc", "steps_kept", "notes"

/* ---- the JSON part before jansson builds it (snapfile_json.c) ----
 * sf_json_prepare() measures the text buf[0, *len) (NUL-terminated) in
 * one pass without building anything: it refuses strings longer than
 * their field holds (keys 256 bytes, strings 64 KiB, those of "process"
 * 16 MiB), numbers and literals over 64 characters and nesting deeper
 * than 32, and counts the values jansson would build in *values; then
 * moves the members of the top-level object whose key is not in
 * SF_JSON_TOP_KEYS out of the text (*len shrinks), so jansson never builds
 * them. A syntax error is left for jansson to report. -1 with *err.
 * sf_json_room() refuses a JSON part of more bytes or values than the
 * smaps text's regions can need: 1 MiB and 65,536 values come free, and
 * each region of the smaps text brings 4 KiB and 256 values more (counted
 * by sf_smaps_at_least, only as far as needed). */
int sf_json_prepare(char *buf, size_t *len, const char *name, uint64_t *values,
		    struct vms_error *err);
/* The same measure of a whole JSON text buf[0, len) (a section's: what
 * names it in the message), every value counted into *values, without
 * moving anything. -1 with *err. */
int sf_json_measure(const char *buf, size_t len, const char *name,
		    const char *what, uint64_t *values, struct vms_error *err);
struct sf_sec;
int sf_json_room(const struct sf_sec *smaps, uint64_t bytes, uint64_t values,
		 const char *name, struct vms_error *err);

/* ---- reading: each returns false when the value is not what it says;
 * a missing key reads as absent (opt) or is wrong (get). ---- */
bool sf_get_u64(const json_t *v, uint64_t *out);
/* NULL for JSON null; *ok false when it is neither null nor a string. */
const char *sf_get_str(struct arena *a, const json_t *v, bool *ok);
bool sf_obj_u64(const json_t *o, const char *key, uint64_t *out);
/* The ELF summary of a "files" entry into *out (arrays in a). */
bool sf_read_elf(const json_t *j, struct arena *a, struct elfimage *out);

/* ---- a record of records.h (snapfile_fields.c) ---- */
/* The record at p as an object of its fields' file keys (NULL with *bad
 * on out of memory). */
json_t *sf_record_json(const struct vms_record *rec, const void *p, bool *bad);
/* The object o into the record at p (zeroed first; strings and arrays in
 * a); false when a field it needs is absent or a value is not what its
 * kind says (a SEGS array longer than max_segs, a PARTS one longer than
 * VMS_MANAGED_PARTS_MAX). */
bool sf_record_from(struct arena *a, const json_t *o,
		    const struct vms_record *rec, void *p, size_t max_segs);

/* ---- the steps' kept results (snapfile_kept.c, model/kept.h) ---- */
struct sf_kept;
/* meta "steps_kept": what the steps that declare it (kept, NULL-ended)
 * found with what a file does not hold (NULL with *bad on out of
 * memory). */
json_t *sf_kept_json(const struct vms_snapshot *s,
		     const struct vms_kept *const *kept, bool *bad);
/* Reads back the records of the steps kept declares (*out NULL when the
 * file has none): NULL, or what is wrong ("out of memory", "bad ..."). */
const char *sf_kept_from(struct vms_snapshot *s, const json_t *o,
			 const struct vms_kept *const *kept,
			 struct sf_kept **out);
/* Puts back step's result in place of running it: 1 done, 0 none kept for
 * it, -1 with *err. */
int sf_kept_restore(struct vms_snapshot *s, const struct sf_kept *k,
		    const char *step, struct vms_error *err);

/* ---- a trace report (snapfile_trace.c, model/trace.h) ---- */
/* The "trace" section's text for r (malloc'd, NUL-ended), or NULL on out
 * of memory. */
char *sf_trace_text(const struct vms_trace_report *r);
struct sf_sec;
/* The "trace" section x into s->trace (in s's arena), with the
 * "tracelive" section live (found false: none) into its live. -1 with
 * *err: a malformed section is refused, its message naming the file and
 * what is wrong. */
int sf_trace_load(struct vms_snapshot *s, const struct sf_sec *x,
		  const struct sf_sec *live, const char *name,
		  struct vms_error *err);

/* ---- what the viewer lists beside it (snapfile_tracelive.c) ---- */
/* The "tracelive" section's bytes for r->live into *out (malloc'd; NULL
 * and 0 when r has none). -1: out of memory. */
int sf_tracelive_bytes(const struct vms_trace_report *r, unsigned char **out,
		       size_t *len);
/* The section's bytes p[0, len) into *lv (its stacks set already: from
 * the "trace" section), arrays in a; every site named checked against r
 * and lv's stacks. NULL, or what is wrong. */
const char *sf_tracelive_from(struct arena *a, const unsigned char *p,
			      size_t len, const struct vms_trace_report *r,
			      struct vms_trace_live *lv);

/* ---- reading (snapfile_zsec.c; snapfile_parts.c) ---- */
/* A section of the file: its bytes in the file's buffer, as its header
 * says them. */
struct sf_sec {
	const unsigned char *data;
	uint32_t codec;
	uint64_t stored, size;
	bool found;
};

/* Whether the smaps section x holds at least need_regions regions
 * (header-like lines, counted into *regions) and need_bytes bytes (into
 * *bytes, no more counted than 1 MiB and 16 KiB a region seen: padding
 * buys nothing), decompressed only as far as the needs take and nothing
 * kept: 1 yes, 0 no, -1 with *err when it does not decompress. */
int sf_smaps_at_least(const struct sf_sec *x, uint64_t need_regions,
		      uint64_t need_bytes, const char *name, uint64_t *regions,
		      uint64_t *bytes, struct vms_error *err);

/* A whole section into one buffer (meta, status), NUL-terminated; no
 * more than max bytes. 0, or -1 with *err (w->buf then NULL). */
struct sf_whole {
	char *buf;
	size_t len;
};
int sf_read_whole(const struct sf_sec *x, uint64_t max, const char *name,
		  const char *what, struct sf_whole *w, struct vms_error *err);
/* The smaps text of section x (what: its name in messages), decompressed
 * piece by piece into p; consume: its input pages may go as they are
 * used. 0, or -1 with *err. */
int sf_smaps_text(struct smaps_parser *p, const struct sf_sec *x,
		  const char *what, const char *name, bool consume,
		  struct vms_error *err);
/* A format-2 smaps text, its two frames holding parts[0] and parts[1]
 * regions (each within what the text can hold), parsed on two threads
 * into s; *joined is then the parser as if one had read it all (for
 * smaps_finish and the malformed count). 0, or -1 with *err. */
int sf_smaps_parts(struct vms_snapshot *s, const struct sf_sec *x,
		   const uint64_t parts[2], const char *name, bool consume,
		   struct smaps_parser *joined, struct vms_error *err);

/* ---- the source (snapfile_source.c) ---- */
/* Sets s's source from the meta's "files", "fs_magic", "heaps", "malloc"
 * and "steps_kept" (the steps kept declares), whose region indices must
 * lie in s->regions. -1 with *err (the message names the file). */
int sf_source_set(struct vms_snapshot *s, const json_t *meta, const char *name,
		  const struct vms_kept *const *kept, struct vms_error *err);

#endif
