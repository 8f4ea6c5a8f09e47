#include "outbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OB_CAP (1u << 20)

static int ob_init(struct outbuf *o, int fd, struct vms_error *err)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->cap = OB_CAP;
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

int outbuf_open_atomic(struct outbuf *o, const char *path,
		       struct vms_error *err)
{
	size_t n = strlen(path);
	int fd;

	if (ob_init(o, -1, err) < 0)
		return -1;
	o->path = strdup(path);
	o->tmp = malloc(n + 16);
	if (!o->path || !o->tmp) {
		outbuf_abort(o);
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	}
	snprintf(o->tmp, n + 16, "%s.tmpXXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		int e = errno;

		free(o->tmp);
		o->tmp = NULL;
		outbuf_abort(o);
		return vms_error_set(err, VMS_ERR_FILE, e,
				     "cannot create %s: %s", path, strerror(e));
	}
	o->fd = fd;
	return 0;
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
	o->len = 0;
}

void outbuf_abort(struct outbuf *o)
{
	if (o->tmp) {
		if (o->fd >= 0)
			close(o->fd);
		unlink(o->tmp);
	}
	free(o->tmp);
	free(o->path);
	free(o->buf);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

int outbuf_close(struct outbuf *o, struct vms_error *err)
{
	const char *name = o->path ? o->path : "standard output";
	int e;

	ob_flush(o);
	if (o->tmp && !o->err) {
		/* Readable as any file the user creates (mkstemp makes 0600). */
		mode_t um = umask(0);

		umask(um);
		if (fchmod(o->fd, 0666 & ~um) < 0 || fsync(o->fd) < 0)
			o->err = errno;
		if (close(o->fd) < 0 && !o->err)
			o->err = errno;
		o->fd = -1;
		if (!o->err && rename(o->tmp, o->path) < 0)
			o->err = errno;
		if (!o->err) {
			free(o->tmp);
			o->tmp = NULL;
		}
	}
	e = o->err;
	if (e) {
		char msg[300];

		snprintf(msg, sizeof(msg), "%s", name);
		outbuf_abort(o);
		return vms_error_set(err, VMS_ERR_FILE, e,
				     "cannot write %s: %s", msg, strerror(e));
	}
	outbuf_abort(o); /* frees; nothing temporary remains */
	return 0;
}

void ob_write_slow(struct outbuf *o, const char *s, size_t n)
{
	while (n) {
		size_t room, k;

		if (o->len == o->cap)
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
	ob_flush(o);
	o->buf[o->len++] = c;
}

void ob_puts(struct outbuf *o, const char *s)
{
	ob_write(o, s, strlen(s));
}

void ob_u64(struct outbuf *o, uint64_t v)
{
	char tmp[24];
	int i = 24;

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ob_write(o, tmp + i, (size_t)(24 - i));
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

void ob_hex(struct outbuf *o, uint64_t v)
{
	static const char hx[] = "0123456789abcdef";
	char tmp[20];
	int i = 20;

	do {
		tmp[--i] = hx[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	ob_write(o, tmp + i, (size_t)(20 - i));
}

void ob_kb(struct outbuf *o, uint64_t v, int width)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)(v >> 10));

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

/* Length of the valid UTF-8 sequence at p, or 0 if it is not one. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n, i;
	uint32_t cp;

	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	n = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
	cp = p[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* Paths are bytes: valid UTF-8 passes as it is; a byte that is not part of
 * a valid sequence is written as \u00XX (its Latin-1 reading), so the JSON
 * stays valid and the byte can be recovered. */
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
		size_t n;

		if (*p >= 0x20 && *p != '"' && *p != '\\' && *p < 0x7f) {
			p++;
			continue;
		}
		if (*p >= 0x80 && (n = utf8_len(p))) {
			p += n;
			continue;
		}
		ob_write(o, (const char *)run, (size_t)(p - run));
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			ob_write(o, esc, 2);
		} else {
			memcpy(esc, "\\u00", 4);
			esc[4] = hx[*p >> 4];
			esc[5] = hx[*p & 15];
			ob_write(o, esc, 6);
		}
		run = ++p;
	}
	ob_write(o, (const char *)run, (size_t)(p - run));
	ob_putc(o, '"');
}

void ob_csv_str(struct outbuf *o, const char *s)
{
	const char *p;

	if (!s)
		return;
	if (!s[strcspn(s, ",\"\n\r")]) {
		ob_puts(o, s);
		return;
	}
	ob_putc(o, '"');
	for (p = s; *p; p++) {
		if (*p == '"')
			ob_putc(o, '"');
		ob_putc(o, *p);
	}
	ob_putc(o, '"');
}
