/* outbuf.h — a fast buffered writer for exports, and output files that
 * keep what they are.
 *
 * Contract: an outbuf collects text and writes it to its fd whenever it has
 * a megabyte, so a 60 MB JSON export never sits in memory whole. Write
 * errors are sticky: the first one is kept in ob->err and reported by
 * outbuf_close(). Numbers are formatted without printf (exports of 65,000
 * regions print a few million of them).
 *
 * outbuf_open_file() writes where a shell redirection would, and destroys
 * nothing else, putting a regular file in place only when it is complete
 * (outfile.h says how, and outfile.c does it).
 */
#ifndef VMS_OUTBUF_H
#define VMS_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"

enum outbuf_how {
	OB_FD, /* a descriptor the caller owns (standard output) */
	OB_DIRECT, /* a FIFO or device, opened and written into */
	OB_TMPFILE, /* an unnamed O_TMPFILE, linked in at close */
	OB_NAMED_TMP, /* a named temporary file, renamed at close */
	OB_IN_PLACE, /* the file itself, truncated to what was written */
};

struct outbuf {
	int fd;
	int err; /* first errno of a failed write, sticky */
	char *buf;
	size_t len, cap;
	uint64_t written; /* bytes that reached fd */
	bool exact; /* ob_size writes bytes, not units (--bytes) */
	/* outbuf_open_file() only: */
	enum outbuf_how how;
	int dirfd; /* the directory of the file written */
	char *path; /* as the user gave it, for messages */
	char *base; /* the file's name in dirfd */
	char *tmp; /* a temporary name in dirfd, while it exists */
	bool existed; /* a regular file was there: old holds its stat */
	bool link_refused; /* a trailing link protected_symlinks refuses */
	bool through_link; /* base is a link to a device or FIFO */
	struct stat old;
	char note[360]; /* OB_IN_PLACE: why it is not atomic */
};

/* Writes to fd, which stays open (the caller's). */
int outbuf_open_fd(struct outbuf *o, int fd, struct vms_error *err);
/* outbuf_open_file, outbuf_close, outbuf_abort: outfile.h (included at
 * the end). */
/* Writes what is buffered now (a stream read as it comes: --watch into a
 * FIFO). Returns the sticky error, 0 when none. */
int outbuf_flush(struct outbuf *o);

/* Slow paths of the inline writers below: flush, then write. */
void ob_write_slow(struct outbuf *o, const char *s, size_t n);
void ob_putc_slow(struct outbuf *o, char c);

/* Inline: an export calls these tens of millions of times. The buffer is
 * flushed before a write that does not fit, never after one, so the last
 * bytes written stay in it (a writer may take back a trailing comma). */
static inline void ob_write(struct outbuf *o, const char *s, size_t n)
{
	if (o->cap - o->len >= n) {
		memcpy(o->buf + o->len, s, n);
		o->len += n;
	} else {
		ob_write_slow(o, s, n);
	}
}

static inline void ob_putc(struct outbuf *o, char c)
{
	if (o->len < o->cap)
		o->buf[o->len++] = c;
	else
		ob_putc_slow(o, c);
}

/* A string literal, its length known at compile time. */
#define OB_LIT(o, lit) ob_write((o), lit, sizeof(lit) - 1)

/* Writing through a pointer, for a writer of many short pieces (a JSON
 * region: some thirty keys and numbers) that checks the room once:
 *
 *     char *p = ob_reserve(o, MOST);     at least MOST bytes of room
 *     p = OB_LIT_AT(p, "\"size\":");
 *     p = ob_u64_at(p, v);
 *     ob_commit(o, p);                   what p passed is written
 *
 * MOST is at most OB_RESERVE_MAX. ob_reserve flushes (or grows) first
 * when there is less room, as ob_write would before a write that does
 * not fit: the bytes written before stay in the buffer until then. No
 * other ob_* call between the reserve and the commit. */
#define OB_RESERVE_MAX (64u << 10)
void ob_reserve_slow(struct outbuf *o, size_t n);

static inline char *ob_reserve(struct outbuf *o, size_t n)
{
	if (o->cap - o->len < n)
		ob_reserve_slow(o, n);
	return o->buf + o->len;
}

static inline void ob_commit(struct outbuf *o, char *end)
{
	o->len = (size_t)(end - o->buf);
}

static inline char *ob_lit_at(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

#define OB_LIT_AT(p, lit) ob_lit_at((p), lit, sizeof(lit) - 1)

/* v in decimal (at most 20 bytes), and as ob_hex writes it ("0x...", at
 * most 18 bytes), at p; each returns the end. */
/* "00" to "99": two digits a step */
extern const char ob_digits2[200];

static inline char *ob_u64_at(char *p, uint64_t v)
{
	uint64_t t = v;
	int n = 1;
	char *e;

	if (v < 10) { /* most of an export's counters are 0 */
		*p = (char)('0' + v);
		return p + 1;
	}
	while (t >= 10) { /* the digits, then written from the last */
		t /= 10;
		n++;
	}
	e = p + n;
	while (v >= 100) {
		e -= 2;
		memcpy(e, &ob_digits2[(v % 100) * 2], 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(e - 2, &ob_digits2[v * 2], 2);
	else
		e[-1] = (char)('0' + v);
	return p + n;
}

char *ob_hex_at(char *p, uint64_t v);

void ob_puts(struct outbuf *o, const char *s);
void ob_u64(struct outbuf *o, uint64_t v);
void ob_i64(struct outbuf *o, int64_t v);
void ob_hex(struct outbuf *o, uint64_t v); /* "0x..." lowercase */
/* v right-aligned in width columns, with K units (v / 1024). */
void ob_kb(struct outbuf *o, uint64_t v, int width);
/* Bytes right-aligned in width columns as units_size_long writes them
 * ("12.3 M"), or, with o->exact, as the exact number of bytes. */
void ob_size(struct outbuf *o, uint64_t v, int width);
/* What ob_size would write for v (buf of 24 bytes or more). */
const char *ob_size_text(const struct outbuf *o, uint64_t v, char *buf,
			 size_t n);
/* Left-aligned, for vmscope's own strings only (labels, types). */
void ob_pad(struct outbuf *o, const char *s, int width);
void ob_printf(struct outbuf *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Strings from the target or a file (escape.h says what is escaped). */
/* Text (summary, text export): control characters, invalid UTF-8 and the
 * like escaped; NULL prints nothing. */
void ob_text_str(struct outbuf *o, const char *s);
/* The same, left-aligned in width columns (a character a column). */
void ob_text_pad(struct outbuf *o, const char *s, int width);
/* A JSON string literal with quotes, escaped per RFC 8259 (and C1, bidi
 * and U+2028/9 controls as \uXXXX, stray bytes as \u00XX); NULL prints
 * null. */
void ob_json_str(struct outbuf *o, const char *s);
/* A CSV field per RFC 4180, quoted when it needs to be, with control
 * characters escaped as in text and a leading = + - @ (a spreadsheet
 * formula) defused with an apostrophe. */
void ob_csv_str(struct outbuf *o, const char *s);

#include "base/outfile.h"

#endif
