/* smaps.h — the /proc/PID/smaps (and maps) parser: a buffer in, regions out.
 *
 * Contract: parses by key, never by position. Survives what kernels add or
 * vary: unknown keys (skipped), an empty VmFlags line, device numbers of any
 * width, paths with spaces, " (deleted)", "[anon:NAME]", a truncated last
 * record (its region is kept and flagged VMS_RF_NO_COUNTERS). A header line
 * that cannot be parsed is skipped (counted in p->malformed), and the key
 * lines under it are ignored until the next good header. Regions are
 * appended to the snapshot in input order; smaps_finish() checks that they
 * are sorted and disjoint.
 *
 * It is a streaming parser, so a 80 MB smaps never needs to sit in memory:
 * feed it what read() returned; it consumes complete lines and tells how many
 * bytes it used; keep the rest and feed it again with more after it. It
 * takes no pid and opens no file: the sampler does the reading.
 *
 * Plain /proc/PID/maps text parses too (headers only; counters stay 0).
 */
#ifndef VMS_SMAPS_H
#define VMS_SMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"
#include "model/snapshot.h"

/* A key line as the first record had it (smaps.c: the fast path). */
struct smaps_key {
	char name[22];
	uint8_t len;
	int16_t off; /* of its counter in struct vms_counters; -1: none */
};

#define SMAPS_KEYS_MAX 48
/* The longest line smaps_feed keeps whole (a path is at most 4 KiB): a
 * longer one is not smaps text, and must not make it allocate without
 * end. */
#define SMAPS_LINE_MAX (1u << 20)

struct arena;

/* A path as /proc/PID/maps writes it (n bytes), interned in a: the kernel
 * writes a newline in a file's name as the four bytes \012 (its only
 * escape there: a line a mapping), read back into the newline, so that a
 * name is the file's as the file system has it (a core dump gcore writes
 * copies the escaped text into its NT_FILE note, which it alone gives a
 * page size of 1; the kernel's own holds the name). A name that holds a backslash and 012 itself reads the same:
 * the text cannot tell. NULL when out of memory. */
const char *smaps_intern_path(struct arena *a, const char *s, size_t n);

struct smaps_parser {
	struct vms_snapshot *snap;
	size_t cur; /* index of the region key lines belong to */
	bool have_cur;
	size_t line; /* lines seen, for messages */
	size_t malformed; /* header lines skipped */
	size_t first_malformed_line;
	/* The keys of the first record, in order (learned), and where the
	 * current record is in them (at). */
	struct smaps_key keys[SMAPS_KEYS_MAX];
	uint8_t nkeys, at;
	bool learned;
	bool slow; /* every line the general way (fuzz_smaps compares) */
	/* At most limit regions (0: no limit); a header past them is
	 * skipped as malformed and counted in over. A loader parsing parts
	 * of one text on two threads sets it: each part fills its own slice
	 * of one region array, which must never grow. */
	size_t limit, over;
	/* 1 + the index of the first region that overlaps or precedes the
	 * one before it (checked as each comes, while the one before is in
	 * the cache); 0: none. smaps_finish() reports it. */
	size_t disorder;
	/* smaps_feed's unfinished line, until the piece that ends it */
	char *carry;
	size_t carry_len, carry_cap;
	/* The last VmFlags lines met, interned, with their bits: a process
	 * has a handful of distinct ones (one each is hashed, not each
	 * region's) */
	struct {
		const char *s;
		uint32_t len, mask;
	} vf[4];
	unsigned vf_next;
};

void smaps_parser_init(struct smaps_parser *p, struct vms_snapshot *s);

/* Parses the complete lines in buf[0, len). With eof, also the last line
 * even without its newline. Returns the bytes consumed (the caller keeps
 * buf[ret, len) and passes it again in front of the next data), or -1 with
 * *err set (out of memory only). */
ssize_t smaps_parse(struct smaps_parser *p, const char *buf, size_t len,
		    bool eof, struct vms_error *err);

/* Parses a piece of text as it came (a read, a decompressed piece): what
 * no newline ends yet is kept in the parser and completed by the next
 * piece. eof: this is the last piece. Returns 0, or -1 with *err (out of
 * memory; VMS_ERR_CAPTURE for a line longer than SMAPS_LINE_MAX).
 * smaps_parser_release() frees what was kept. */
int smaps_feed(struct smaps_parser *p, const char *data, size_t len, bool eof,
	       struct vms_error *err);
void smaps_parser_release(struct smaps_parser *p);

/* How many times a reader of a running process's text reads it, at most,
 * while smaps_finish() says its records overlap (EAGAIN: it mapped between
 * two reads of it). 5 was seen to fail all five under ASan (slower reads)
 * on tests/targets' churning target in a CI run; a read of a small
 * process costs some 100 us. */
#define SMAPS_TRIES 12

/* After the last smaps_parse(): checks order, flags a truncated last record.
 * Returns 0, or -1 with *err (VMS_ERR_CAPTURE) when the regions overlap or
 * are out of order: such input is not a smaps file. */
int smaps_finish(struct smaps_parser *p, struct vms_error *err);

/* Whole buffer at once: init, parse(eof), finish. */
int smaps_parse_buffer(struct vms_snapshot *s, const char *buf, size_t len,
		       struct vms_error *err);

/* Whether the line s[0, end) is one smaps_parse() takes for a region's
 * header (hex digits, then '-'): one region each, when it is well formed.
 * What a writer counts to know where a text's regions start without
 * parsing it. */
bool smaps_header_like(const char *s, const char *end);

/* Whether maps text (/proc/PID/maps) lists exactly the regions r[0, n):
 * the same bounds, permissions, offsets, devices and inodes, in the same
 * order (paths aside: an [anon:NAME] may be renamed without the layout
 * moving). A line that is not a well-formed header differs. */
bool smaps_same_layout(const struct vms_region *r, size_t n, const char *maps,
		       size_t len);

/* Parses the two-letter VmFlags words of a line into VMS_VF_* bits. */
uint32_t smaps_vmflags_mask(const char *s, size_t n);

#endif
