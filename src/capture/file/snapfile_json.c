/* snapfile_json.c — the JSON values of snapshot files, both ways: strings
 * from a target or a file (UTF-8 as it is, any other bytes as {"hex"}) and
 * 64-bit figures (an integer, or "0x..." above INT64_MAX). See
 * snapfile_int.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "capture/file/snapfile_int.h"

/* ---- writing ---- */

static bool utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		uint32_t cp;
		size_t n;

		if (*p < 0x80) {
			p++;
			continue;
		}
		n = escape_utf8_len(p, &cp);
		if (!n)
			return false;
		p += n;
	}
	return true;
}

json_t *sf_json_str(const char *s)
{
	static const char hexd[] = "0123456789abcdef";
	json_t *o;
	char *hex;
	size_t i, n;

	if (!s)
		return json_null();
	if (utf8_ok(s))
		return json_string(s);
	n = strlen(s);
	hex = malloc(2 * n + 1);
	if (!hex)
		return NULL;
	for (i = 0; i < n; i++) {
		hex[2 * i] = hexd[(unsigned char)s[i] >> 4];
		hex[2 * i + 1] = hexd[(unsigned char)s[i] & 15];
	}
	hex[2 * n] = 0;
	o = json_pack("{s:s}", "hex", hex);
	free(hex);
	return o;
}

json_t *sf_json_u64(uint64_t v)
{
	char b[24];

	if (v <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(b, sizeof(b), "0x%llx", (unsigned long long)v);
	return json_string(b);
}

/* ---- reading ---- */

bool sf_get_u64(const json_t *v, uint64_t *out)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return true;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *end;

		if (strncmp(s, "0x", 2) != 0 || !s[2])
			return false;
		errno = 0;
		*out = strtoull(s + 2, &end, 16);
		return !errno && !*end;
	}
	return false;
}

bool sf_obj_u64(const json_t *o, const char *key, uint64_t *out)
{
	return sf_get_u64(json_object_get(o, key), out);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

const char *sf_get_str(struct arena *a, const json_t *v, bool *ok)
{
	const char *hex;
	char *out;
	size_t n, i;

	if (!v || json_is_null(v))
		return NULL;
	if (json_is_string(v)) {
		const char *r = arena_intern(a, json_string_value(v),
					     strlen(json_string_value(v)));

		if (!r)
			*ok = false;
		return r;
	}
	hex = json_string_value(json_object_get(v, "hex"));
	n = hex ? strlen(hex) : 1;
	if (n % 2 || !(out = arena_alloc(a, n / 2 + 1))) {
		*ok = false;
		return NULL;
	}
	for (i = 0; i < n / 2; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
			*ok = false;
			return NULL;
		}
		out[i] = (char)(hi << 4 | lo);
	}
	return out;
}
