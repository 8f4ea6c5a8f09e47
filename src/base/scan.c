/* scan.c — strings, patterns and search over a buffer. See scan.h. */
#include "base/scan.h"

#include <string.h>

static bool printable(unsigned char c)
{
	return (c >= 0x20 && c <= 0x7e) || c == '\t';
}

/* UTF-16LE characters from i on (a printable byte then a zero). */
static size_t utf16_run(const unsigned char *buf, size_t len, size_t i)
{
	size_t n = 0;

	while (i + 1 < len && printable(buf[i]) && buf[i + 1] == 0) {
		n++;
		i += 2;
	}
	return n;
}

static size_t ascii_run(const unsigned char *buf, size_t len, size_t i)
{
	size_t n = 0;

	while (i < len && printable(buf[i])) {
		n++;
		i++;
	}
	return n;
}

size_t scan_strings(const unsigned char *buf, size_t len, unsigned min,
		    unsigned kinds, struct scan_str *out, size_t cap)
{
	size_t i = 0, count = 0;

	if (min < SCAN_MIN_LEN)
		min = SCAN_MIN_LEN;
	if (min > SCAN_MAX_LEN)
		min = SCAN_MAX_LEN;
	while (i < len) {
		size_t u = (kinds & SCAN_UTF16) ? utf16_run(buf, len, i) : 0;
		size_t a;

		if (u >= min) {
			if (count < cap)
				out[count] =
					(struct scan_str){ i, u, SCAN_UTF16 };
			count++;
			i += 2 * u;
			continue;
		}
		a = ascii_run(buf, len, i);
		if (a == 0) {
			i++;
			continue;
		}
		if ((kinds & SCAN_ASCII) && a >= min) {
			if (count < cap)
				out[count] =
					(struct scan_str){ i, a, SCAN_ASCII };
			count++;
			i += a;
			continue;
		}
		/* too short as ASCII: a UTF-16LE run may start inside it */
		i++;
	}
	return count;
}

char *scan_str_text(const unsigned char *buf, const struct scan_str *st,
		    char *dst, size_t n)
{
	size_t k, step = st->kind == SCAN_UTF16 ? 2 : 1;

	if (!n)
		return dst;
	for (k = 0; k < st->chars && k + 1 < n; k++)
		dst[k] = (char)buf[st->off + k * step];
	dst[k] = '\0';
	return dst;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* in as hex pairs with blanks between pairs: the bytes, or -1 when it is
 * not that (then it is text). */
static int parse_hex(const char *in, unsigned char *out, size_t cap, size_t *n)
{
	const char *p = in;
	size_t k = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	while (*p) {
		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		if (hexval(p[0]) < 0 || hexval(p[1]) < 0)
			return -1;
		if (k == cap)
			return -2;
		out[k++] = (unsigned char)(hexval(p[0]) << 4 | hexval(p[1]));
		p += 2;
	}
	*n = k;
	return k ? 0 : -1;
}

int scan_pattern(const char *in, unsigned char *out, size_t cap, size_t *n,
		 bool *hex, struct vms_error *err)
{
	size_t len = strlen(in);
	int rc;

	*n = 0;
	*hex = false;
	if (len >= 2 && in[0] == '"' && in[len - 1] == '"') {
		in++;
		len -= 2;
	} else if ((rc = parse_hex(in, out, cap, n)) != -1) {
		if (rc == -2)
			return vms_error_set(err, VMS_ERR_USAGE, 0,
					     "at most %zu bytes can be found",
					     cap);
		*hex = true;
		return 0;
	} else if (in[0] == '0' && (in[1] == 'x' || in[1] == 'X') && in[2]) {
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "not hex bytes: write two hex digits a "
				     "byte (0x0a0b, or 0a 0b)");
	}
	if (len == 0)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "nothing to find: type hex bytes (de ad "
				     "be ef) or text");
	if (len > cap)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "at most %zu bytes can be found", cap);
	memcpy(out, in, len);
	*n = len;
	return 0;
}

ptrdiff_t scan_find(const unsigned char *buf, size_t len,
		    const unsigned char *pat, size_t plen)
{
	const unsigned char *hit;

	if (!plen || plen > len)
		return -1;
	hit = memmem(buf, len, pat, plen);
	return hit ? hit - buf : -1;
}
