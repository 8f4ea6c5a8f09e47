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

/* ---- the JSON part measured before jansson builds it ---- */

/* Deeper than any record nests (files > entry > elf > sections > one). */
#define SF_JSON_DEPTH 32
/* A key, a string, a number or literal: no field needs more. Strings of
 * "process" (a command line, up to the kernel's ARG_MAX and hex-doubled)
 * get their own cap. */
#define SF_JSON_KEY_MAX 256u
#define SF_JSON_STR_MAX (64u << 10)
#define SF_JSON_PROC_STR_MAX (16u << 20)
#define SF_JSON_SCALAR_MAX 64
/* What a JSON part may cost with no regions to show for it, and what
 * each region of its smaps text brings (measured: 140 to 200 bytes and
 * some 26 values a region in real snapshots; the images' sections and
 * the heaps are most of it: a margin of 20 and 10). */
#define SF_JSON_FREE_BYTES (1u << 20)
#define SF_JSON_FREE_VALUES 65536u
#define SF_JSON_BYTES_PER_REGION 4096u
#define SF_JSON_VALUES_PER_REGION 256u

static const char *const top_known[] = { SF_JSON_TOP_KEYS };

struct jscan {
	const char *p, *end;
	uint64_t values; /* of kept members: keys and values */
	bool counting; /* in a kept member */
	size_t str_max; /* the cap of the member's strings */
	const char *top; /* the member's key, for a message */
	int top_len;
	char why[160]; /* a limit passed */
	bool syntax; /* not JSON: left to jansson to say */
};

static void jws(struct jscan *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool jstr(struct jscan *j, size_t cap, size_t *n)
{
	const char *s;

	if (j->p >= j->end || *j->p != '"') {
		j->syntax = true;
		return false;
	}
	s = ++j->p;
	while (j->p < j->end && *j->p != '"') {
		if (*j->p == '\\' && j->end - j->p < 2)
			break;
		j->p += *j->p == '\\' ? 2 : 1;
	}
	if (j->p >= j->end) {
		j->syntax = true;
		return false;
	}
	*n = (size_t)(j->p - s);
	j->p++;
	if (*n > cap) {
		snprintf(j->why, sizeof(j->why),
			 "a string of %zu bytes under \"%.*s\" (a field there "
			 "holds at most %zu)",
			 *n, j->top_len, j->top, cap);
		return false;
	}
	return true;
}

static bool jvalue(struct jscan *j, int depth)
{
	const char *s;
	size_t n;
	char open, close;

	jws(j);
	if (j->p >= j->end) {
		j->syntax = true;
		return false;
	}
	if (j->counting)
		j->values++;
	if (*j->p == '"')
		return jstr(j, j->str_max, &n);
	if (*j->p != '{' && *j->p != '[') { /* a number or a literal */
		for (s = j->p; j->p < j->end && !strchr(",]}: \t\n\r", *j->p);
		     j->p++)
			if (!*j->p)
				break;
		if (j->p == s || j->p - s > SF_JSON_SCALAR_MAX) {
			j->syntax = true;
			return false;
		}
		return true;
	}
	if (depth >= SF_JSON_DEPTH) {
		snprintf(j->why, sizeof(j->why),
			 "values nested deeper than %d under \"%.*s\"",
			 SF_JSON_DEPTH, j->top_len, j->top);
		return false;
	}
	open = *j->p++;
	close = open == '{' ? '}' : ']';
	jws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return true;
	}
	for (;;) {
		if (open == '{') {
			jws(j);
			if (!jstr(j, SF_JSON_KEY_MAX, &n))
				return false;
			if (j->counting)
				j->values++;
			jws(j);
			if (j->p >= j->end || *j->p != ':') {
				j->syntax = true;
				return false;
			}
			j->p++;
		}
		if (!jvalue(j, depth + 1))
			return false;
		jws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return true;
		}
		j->syntax = true;
		return false;
	}
}

static bool top_is_known(const char *k, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(top_known) / sizeof(top_known[0]); i++)
		if (strlen(top_known[i]) == n &&
		    memcmp(top_known[i], k, n) == 0)
			return true;
	return false;
}

/* One pass over the top-level object's members: measured, and with
 * compact, the unknown ones moved out (the kept ones moved down over
 * them: the text only shrinks). The end of the object in *close (NULL on
 * a syntax error or a limit). */
static void jmembers(struct jscan *j, bool compact, char **close,
		     size_t *dropped)
{
	char *w = (char *)j->p;
	bool first = true;

	*close = NULL;
	jws(j);
	if (j->p < j->end && *j->p == '}') {
		*close = (char *)j->p;
		return;
	}
	for (;;) {
		const char *m0;
		size_t kn;
		bool keep;

		jws(j);
		m0 = j->p;
		j->top = "";
		j->top_len = 0;
		j->counting = false;
		if (!jstr(j, SF_JSON_KEY_MAX, &kn))
			return;
		keep = top_is_known(m0 + 1, kn);
		j->top = keep ? m0 + 1 : "(a field this vmscope does not know)";
		j->top_len =
			keep ? (int)(kn < 40 ? kn : 40) : (int)strlen(j->top);
		j->counting = keep;
		j->str_max = kn == 7 && memcmp(m0 + 1, "process", 7) == 0
				     ? SF_JSON_PROC_STR_MAX
				     : SF_JSON_STR_MAX;
		j->values += keep;
		jws(j);
		if (j->p >= j->end || *j->p != ':') {
			j->syntax = true;
			return;
		}
		j->p++;
		if (!jvalue(j, 1))
			return;
		if (keep && compact) {
			if (!first)
				*w++ = ',';
			memmove(w, m0, (size_t)(j->p - m0));
			w += j->p - m0;
		}
		first = first && !keep;
		*dropped += !keep;
		jws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			*close = compact ? w : (char *)j->p;
			j->p++;
			return;
		}
		j->syntax = true;
		return;
	}
}

int sf_json_prepare(char *buf, size_t *len, const char *name, uint64_t *values,
		    struct vms_error *err)
{
	struct jscan j;
	char *close;
	size_t dropped = 0, rest;

	memset(&j, 0, sizeof(j));
	j.p = buf;
	j.end = buf + *len;
	j.top = "";
	j.str_max = SF_JSON_STR_MAX;
	*values = 0;
	jws(&j);
	if (j.p >= j.end || *j.p != '{')
		return 0; /* not an object: jansson says what it is */
	j.p++;
	jmembers(&j, false, &close, &dropped);
	*values = j.values;
	if (j.why[0])
		return vms_error_file(err, name,
				      "corrupted: its JSON part holds %s: "
				      "refused unread",
				      j.why);
	if (!close || !dropped)
		return 0; /* as it is (a syntax error: jansson says where) */
	/* again, moving the members this vmscope does not read out */
	memset(&j, 0, sizeof(j));
	j.p = buf;
	j.end = buf + *len;
	j.top = "";
	j.str_max = SF_JSON_STR_MAX;
	jws(&j);
	j.p++;
	dropped = 0;
	jmembers(&j, true, &close, &dropped);
	rest = (size_t)(j.end - j.p);
	*close = '}';
	memmove(close + 1, j.p, rest);
	*len = (size_t)(close + 1 - buf) + rest;
	buf[*len] = '\0';
	return 0;
}

int sf_json_room(const struct sf_sec *smaps, uint64_t bytes, uint64_t values,
		 const char *name, struct vms_error *err)
{
	uint64_t need = 0, got = 0, bytes_seen, v;
	int rc;

	if (bytes > SF_JSON_FREE_BYTES)
		need = (bytes - SF_JSON_FREE_BYTES + SF_JSON_BYTES_PER_REGION -
			1) /
		       SF_JSON_BYTES_PER_REGION;
	if (values > SF_JSON_FREE_VALUES) {
		v = (values - SF_JSON_FREE_VALUES + SF_JSON_VALUES_PER_REGION -
		     1) /
		    SF_JSON_VALUES_PER_REGION;
		if (v > need)
			need = v;
	}
	if (!need)
		return 0;
	rc = sf_smaps_at_least(smaps, need, 0, name, &got, &bytes_seen, err);
	if (rc < 0)
		return -1;
	if (rc > 0)
		return 0;
	if (bytes)
		return vms_error_file(
			err, name,
			"corrupted: its JSON part says %llu bytes, more than "
			"the regions of its smaps text (%llu%s) can need: "
			"refused unread",
			(unsigned long long)bytes, (unsigned long long)got,
			got ? "" : ", or it is padded");
	return vms_error_file(
		err, name,
		"corrupted: its JSON part holds %llu values, more than the "
		"regions of its smaps text (%llu) can need: refused",
		(unsigned long long)values, (unsigned long long)got);
}

int sf_json_measure(const char *buf, size_t len, const char *name,
		    const char *what, uint64_t *values, struct vms_error *err)
{
	struct jscan j;

	memset(&j, 0, sizeof(j));
	j.p = buf;
	j.end = buf + len;
	j.top = what;
	j.top_len = (int)strlen(what);
	j.counting = true;
	j.str_max = SF_JSON_STR_MAX;
	jvalue(&j, 0);
	*values = j.values;
	if (j.why[0])
		return vms_error_file(err, name,
				      "corrupted: its %s section holds %s: "
				      "refused unread",
				      what, j.why);
	return 0;
}
