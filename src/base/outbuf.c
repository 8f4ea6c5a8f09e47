/* outbuf.c — the buffer and its writers (numbers, sizes, strings escaped
 * for text, JSON and CSV), the flush: outbuf.h. Where a file is opened,
 * how it is put in place, and the close are outfile.c's (outfile.h).
 */
#include "base/outbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bigmem.h"
#include "base/escape.h"
#include "base/units.h"

#define OB_CAP (1u << 20)
/* The buffer starts at 64 KiB and grows to OB_CAP, its pages faulted in
 * in one call (bigmem.h), only when an output proves larger: a megabyte
 * first touched page by page cost ~3 ms on this project's VM, in every
 * large export, and most outputs are small. */
#define OB_CAP_FIRST (64u << 10)
_Static_assert(OB_RESERVE_MAX <= OB_CAP_FIRST,
	       "a reserve must fit an empty buffer");

static int ob_init(struct outbuf *o, int fd, struct vms_error *err)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->dirfd = -1;
	o->cap = OB_CAP_FIRST;
	o->buf = malloc(o->cap);
	if (!o->buf)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	return 0;
}

int outbuf_open_fd(struct outbuf *o, int fd, struct vms_error *err)
{
	return ob_init(o, fd, err);
}

static void ob_flush(struct outbuf *o)
{
	size_t done = 0;

	while (done < o->len && !o->err) {
		ssize_t w = write(o->fd, o->buf + done, o->len - done);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			o->err = errno;
			break;
		}
		done += (size_t)w;
	}
	o->written += done;
	o->len = 0;
}

int outbuf_flush(struct outbuf *o)
{
	ob_flush(o);
	return o->err;
}

/* A full first buffer grows to OB_CAP rather than being written out;
 * false when it is OB_CAP already (or cannot grow): flush it then. */
static bool ob_grow(struct outbuf *o)
{
	char *nb;

	if (o->cap >= OB_CAP || !(nb = realloc(o->buf, OB_CAP)))
		return false;
	vms_big_populate(nb + o->cap, OB_CAP - o->cap);
	o->buf = nb;
	o->cap = OB_CAP;
	return true;
}

void ob_write_slow(struct outbuf *o, const char *s, size_t n)
{
	while (n) {
		size_t room, k;

		if (o->len == o->cap && !ob_grow(o))
			ob_flush(o);
		room = o->cap - o->len;
		k = n < room ? n : room;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

void ob_putc_slow(struct outbuf *o, char c)
{
	if (!ob_grow(o))
		ob_flush(o);
	o->buf[o->len++] = c;
}

void ob_puts(struct outbuf *o, const char *s)
{
	ob_write(o, s, strlen(s));
}

void ob_reserve_slow(struct outbuf *o, size_t n)
{
	/* n <= OB_RESERVE_MAX <= OB_CAP_FIRST: a flushed buffer holds it */
	while (o->cap - o->len < n)
		if (!ob_grow(o))
			ob_flush(o);
}

void ob_u64(struct outbuf *o, uint64_t v)
{
	ob_commit(o, ob_u64_at(ob_reserve(o, 20), v));
}

void ob_i64(struct outbuf *o, int64_t v)
{
	if (v < 0) {
		ob_putc(o, '-');
		ob_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		ob_u64(o, (uint64_t)v);
	}
}

#define D10(t) t "0" t "1" t "2" t "3" t "4" t "5" t "6" t "7" t "8" t "9"
/* (a table of strings concatenated: "00" "01" ... "99") */
const char ob_digits2[200] = D10("0") D10("1") D10("2") D10("3") D10("4")
	D10("5") D10("6") D10("7") D10("8") D10("9");
#undef D10

#define H16(t)                                                                 \
	t "0" t "1" t "2" t "3" t "4" t "5" t "6" t "7" t "8" t "9" t "a" t    \
	  "b" t "c" t "d" t "e" t "f"
/* "00" to "ff": two hex digits a step */
static const char hex2[513] = H16("0") H16("1") H16("2") H16("3") H16("4")
	H16("5") H16("6") H16("7") H16("8") H16("9") H16("a") H16("b") H16("c")
		H16("d") H16("e") H16("f");
#undef H16

char *ob_hex_at(char *p, uint64_t v)
{
	int n = (64 - __builtin_clzll(v | 1) + 3) / 4; /* digits */
	char *e;

	*p++ = '0';
	*p++ = 'x';
	e = p + n;
	while (e - p >= 2) { /* two digits a step, from the last */
		e -= 2;
		memcpy(e, &hex2[(v & 0xff) * 2], 2);
		v >>= 8;
	}
	if (e > p)
		*--e = "0123456789abcdef"[v & 15];
	return p + n;
}

void ob_hex(struct outbuf *o, uint64_t v)
{
	ob_commit(o, ob_hex_at(ob_reserve(o, 18), v));
}

void ob_kb(struct outbuf *o, uint64_t v, int width)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%llu",
			 (unsigned long long)(v >> 10));

	for (; n < width; n++)
		ob_putc(o, ' ');
	ob_puts(o, tmp);
}

const char *ob_size_text(const struct outbuf *o, uint64_t v, char *buf,
			 size_t n)
{
	if (o->exact) {
		snprintf(buf, n, "%llu", (unsigned long long)v);
		return buf;
	}
	return units_size_long(v, buf, n);
}

void ob_size(struct outbuf *o, uint64_t v, int width)
{
	char tmp[32];
	int n = (int)strlen(ob_size_text(o, v, tmp, sizeof(tmp)));

	for (; n < width; n++)
		ob_putc(o, ' ');
	ob_puts(o, tmp);
}

void ob_pad(struct outbuf *o, const char *s, int width)
{
	int n = (int)strlen(s);

	ob_puts(o, s);
	for (; n < width; n++)
		ob_putc(o, ' ');
}

void ob_printf(struct outbuf *o, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		ob_write(o, small, (size_t)n);
	} else {
		char *big = malloc((size_t)n + 1);

		if (!big) {
			o->err = ENOMEM;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		ob_write(o, big, (size_t)n);
		free(big);
	}
}

void ob_text_str(struct outbuf *o, const char *s)
{
	const char *run = s;
	char u[ESCAPE_UNIT_MAX];
	size_t ulen, in;
	int32_t cp;

	if (!s)
		return;
	while ((in = escape_unit(s, u, &ulen, &cp)) != 0) {
		if (cp >= 0) { /* printed as it is: part of the run */
			s += in;
			continue;
		}
		ob_write(o, run, (size_t)(s - run));
		ob_write(o, u, ulen);
		s += in;
		run = s;
	}
	ob_write(o, run, (size_t)(s - run));
}

void ob_text_pad(struct outbuf *o, const char *s, int width)
{
	char u[ESCAPE_UNIT_MAX];
	size_t ulen, in;
	int32_t cp;
	int cols = 0;

	while (s && (in = escape_unit(s, u, &ulen, &cp)) != 0) {
		ob_write(o, u, ulen);
		cols += cp >= 0 ? 1 : (int)ulen; /* one column a character */
		s += in;
	}
	for (; cols < width; cols++)
		ob_putc(o, ' ');
}

/* Paths are bytes: valid UTF-8 passes as it is, except the code points
 * that act on a terminal or on how text reads (C1 controls, U+2028/9, bidi
 * controls), written as \uXXXX; a byte that is not part of a valid
 * sequence is written as \u00XX (its Latin-1 reading), so the JSON stays
 * valid and the byte can be recovered. */
void ob_json_str(struct outbuf *o, const char *s)
{
	static const char hx[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *run;

	if (!s) {
		OB_LIT(o, "null");
		return;
	}
	ob_putc(o, '"');
	for (run = p; *p;) {
		char esc[6];
		uint32_t cp = *p;
		size_t n = 1;

		if (*p >= 0x20 && *p != '"' && *p != '\\' && *p < 0x7f) {
			p++;
			continue;
		}
		if (*p >= 0x80 && (n = escape_utf8_len(p, &cp)) != 0 &&
		    !(cp <= 0x9f || cp == 0x2028 || cp == 0x2029 ||
		      (cp >= 0x202a && cp <= 0x202e) ||
		      (cp >= 0x2066 && cp <= 0x2069))) {
			p += n;
			continue;
		}
		if (!n) { /* a stray byte: its Latin-1 reading */
			n = 1;
			cp = *p;
		}
		ob_write(o, (const char *)run, (size_t)(p - run));
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			ob_write(o, esc, 2);
		} else {
			memcpy(esc, "\\u", 2);
			esc[2] = hx[(cp >> 12) & 15];
			esc[3] = hx[(cp >> 8) & 15];
			esc[4] = hx[(cp >> 4) & 15];
			esc[5] = hx[cp & 15];
			ob_write(o, esc, 6);
		}
		p += n;
		run = p;
	}
	ob_write(o, (const char *)run, (size_t)(p - run));
	ob_putc(o, '"');
}

/* RFC 4180: a field with a comma, a quote, a line break or a leading or
 * trailing blank is quoted, quotes doubled. Control characters and invalid
 * UTF-8 are escaped as in text first (a raw CR or ESC in a field would
 * reach whatever shows the file), and a field a spreadsheet would take for
 * a formula (= + - @ first) is defused with a leading apostrophe. */
void ob_csv_str(struct outbuf *o, const char *s)
{
	char small[512], *text = small;
	size_t n;
	bool quote, formula;
	const char *p;

	if (!s)
		return;
	n = vms_escape_str(small, sizeof(small), s);
	if (n >= sizeof(small)) {
		text = malloc(n + 1);
		if (!text) {
			o->err = ENOMEM;
			return;
		}
		vms_escape_str(text, n + 1, s);
	}
	formula = text[0] && strchr("=+-@", text[0]);
	quote = formula || text[strcspn(text, ",\"")] || text[0] == ' ' ||
		(n && text[n - 1] == ' ');
	if (quote)
		ob_putc(o, '"');
	if (formula)
		ob_putc(o, '\'');
	for (p = text; *p; p++) {
		if (*p == '"')
			ob_putc(o, '"');
		ob_putc(o, *p);
	}
	if (quote)
		ob_putc(o, '"');
	if (text != small)
		free(text);
}
