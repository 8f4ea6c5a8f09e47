/* outbuf.h — a fast buffered writer for exports, and atomic output files.
 *
 * Contract: an outbuf collects text and writes it to its fd whenever it has
 * a megabyte, so a 60 MB JSON export never sits in memory whole. Write
 * errors are sticky: the first one is kept in ob->err and reported by
 * outbuf_close(). With outbuf_open_atomic() the text goes to a temporary
 * file beside the target, renamed over it only by a successful
 * outbuf_close(); on failure the target is untouched and the temporary
 * file removed. Numbers are formatted without printf (exports of 65,000
 * regions print a few million of them).
 */
#ifndef VMS_OUTBUF_H
#define VMS_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "error.h"

struct outbuf {
	int fd;
	int err; /* first errno of a failed write, sticky */
	char *buf;
	size_t len, cap;
	char *path, *tmp; /* atomic mode: final and temporary names */
};

int outbuf_open_fd(struct outbuf *o, int fd, struct vms_error *err);
int outbuf_open_atomic(struct outbuf *o, const char *path,
		       struct vms_error *err);
/* Flushes; in atomic mode renames into place (or removes the temporary
 * file if anything failed). Returns 0 or -1 with *err (VMS_ERR_FILE). */
int outbuf_close(struct outbuf *o, struct vms_error *err);
/* Drops everything (atomic mode: removes the temporary file). */
void outbuf_abort(struct outbuf *o);

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

void ob_puts(struct outbuf *o, const char *s);
void ob_u64(struct outbuf *o, uint64_t v);
void ob_i64(struct outbuf *o, int64_t v);
void ob_hex(struct outbuf *o, uint64_t v); /* "0x..." lowercase */
/* v right-aligned in width columns, with K units (v / 1024). */
void ob_kb(struct outbuf *o, uint64_t v, int width);
void ob_pad(struct outbuf *o, const char *s, int width); /* left-aligned */
void ob_printf(struct outbuf *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A JSON string literal with quotes; NULL prints null. */
void ob_json_str(struct outbuf *o, const char *s);
/* A CSV field, quoted when it needs to be. */
void ob_csv_str(struct outbuf *o, const char *s);

#endif
