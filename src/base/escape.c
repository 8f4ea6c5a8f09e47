/* escape.c — strings made safe to print. See escape.h. */
#include "base/escape.h"

#include <string.h>

size_t escape_utf8_len(const unsigned char *p, uint32_t *cp)
{
	size_t n, i;
	uint32_t c;

	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	n = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
	c = p[0] & (0x7fu >> n);
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0; /* also stops at the NUL */
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (n == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	*cp = c;
	return n;
}

/* Unicode's default-ignorable code points (DerivedCoreProperties.txt,
 * Default_Ignorable_Code_Point): drawn as nothing, so that "a\u200bb"
 * printed as it is reads as "ab", two names one on the page. By range,
 * low to high. */
static const uint32_t ignorable[][2] = {
	{ 0x00ad, 0x00ad },   { 0x034f, 0x034f },   { 0x061c, 0x061c },
	{ 0x115f, 0x1160 },   { 0x17b4, 0x17b5 },   { 0x180b, 0x180f },
	{ 0x200b, 0x200f },   { 0x202a, 0x202e },   { 0x2060, 0x206f },
	{ 0x3164, 0x3164 },   { 0xfe00, 0xfe0f },   { 0xfeff, 0xfeff },
	{ 0xffa0, 0xffa0 },   { 0xfff0, 0xfff8 },   { 0x1bca0, 0x1bca3 },
	{ 0x1d173, 0x1d17a }, { 0xe0000, 0xe0fff },
};

static bool ignorable_cp(uint32_t c)
{
	size_t i;

	for (i = 0; i < sizeof(ignorable) / sizeof(ignorable[0]) &&
		    c >= ignorable[i][0];
	     i++)
		if (c <= ignorable[i][1])
			return true;
	return false;
}

/* Code points that are valid but act on a terminal or on how text around
 * them reads, or are not seen: C1 controls, line and paragraph
 * separators, bidi controls, the default-ignorable. */
static bool unsafe_cp(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
	       (c >= 0x2066 && c <= 0x2069) || ignorable_cp(c);
}

static size_t put_hex(char *out, const char *prefix, uint32_t v, int digits)
{
	static const char hx[] = "0123456789abcdef";
	size_t n = strlen(prefix);
	int i;

	memcpy(out, prefix, n);
	for (i = digits - 1; i >= 0; i--)
		out[n++] = hx[(v >> (4 * i)) & 15];
	return n;
}

size_t escape_unit(const char *s, char out[ESCAPE_UNIT_MAX], size_t *outlen,
		   int32_t *cp)
{
	static const char named[] = "\a\b\t\n\v\f\r";
	static const char letter[] = "abtnvfr";
	const unsigned char *p = (const unsigned char *)s;
	const char *k;
	uint32_t c;
	size_t n;

	*cp = -1;
	if (!*p) {
		*outlen = 0;
		return 0;
	}
	if (*p >= 0x20 && *p < 0x7f && *p != '\\') {
		out[0] = (char)*p;
		*outlen = 1;
		*cp = *p;
		return 1;
	}
	if (*p == '\\') {
		memcpy(out, "\\\\", 2);
		*outlen = 2;
		return 1;
	}
	if (*p < 0x20 && (k = strchr(named, *p)) != NULL) {
		out[0] = '\\';
		out[1] = letter[k - named];
		*outlen = 2;
		return 1;
	}
	if (*p >= 0x80 && (n = escape_utf8_len(p, &c)) != 0) {
		if (unsafe_cp(c)) {
			/* past U+FFFF as C's and Python's \U: as \u, U+E0001
			 * would read as U+E000 and a 1 */
			*outlen = c > 0xffff ? put_hex(out, "\\U", c, 8)
					     : put_hex(out, "\\u", c, 4);
			return n;
		}
		memcpy(out, p, n);
		*outlen = n;
		*cp = (int32_t)c;
		return n;
	}
	*outlen = put_hex(out, "\\x", *p, 2); /* C0, DEL, a stray byte */
	return 1;
}

size_t vms_escape_str(char *dst, size_t size, const char *s)
{
	size_t total = 0, used = 0, in;
	char u[ESCAPE_UNIT_MAX];
	bool full = size == 0;
	size_t ulen;
	int32_t cp;

	while ((in = escape_unit(s, u, &ulen, &cp)) != 0) {
		if (!full && used + ulen < size) {
			memcpy(dst + used, u, ulen);
			used += ulen;
		} else {
			full = true;
		}
		total += ulen;
		s += in;
	}
	if (size)
		dst[used] = '\0';
	return total;
}

bool escape_clean(const char *s)
{
	char u[ESCAPE_UNIT_MAX];
	size_t ulen, in;
	int32_t cp;

	while ((in = escape_unit(s, u, &ulen, &cp)) != 0) {
		if (cp < 0)
			return false;
		s += in;
	}
	return true;
}
