/* test_escape — strings from the target made safe: escape.h one unit at a
 * time and whole, and the outbuf writers built on it (text, CSV, JSON).
 *
 * Asserts: each kind of byte and code point escape.h lists comes out as
 * the escape it names; printable UTF-8 and ASCII pass unchanged; a cut
 * never splits an escape; 20,000 random byte strings never yield a byte
 * below 0x20 or DEL, and escaping is one-to-one on them (no two inputs
 * print alike); CSV quotes per RFC 4180, escapes controls and defuses
 * formulas; JSON escapes C1 and bidi controls and stray bytes. The
 * default-ignorable code points (zero-width, joiners, tags) escaped in
 * text, so that two names never print alike. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/outbuf.h"
#include "tap.h"

static void want(const char *in, const char *out, const char *what)
{
	char buf[256];
	size_t n = vms_escape_str(buf, sizeof(buf), in);

	ok(strcmp(buf, out) == 0 && n == strlen(out),
	   "escape: %s -> %s (got %s)", what, out, buf);
}

static void test_units(void)
{
	want("/usr/lib/libc.so.6", "/usr/lib/libc.so.6", "a plain path");
	want("x\x1b]0;pwned\a\x1b[31mred", "x\\x1b]0;pwned\\a\\x1b[31mred",
	     "the hostile file name");
	want("a\rb\bc\td\ne\vf\fg", "a\\rb\\bc\\td\\ne\\vf\\fg",
	     "the named controls");
	want("\x01\x1f\x7f", "\\x01\\x1f\\x7f", "other C0 and DEL");
	want("a\\x1b", "a\\\\x1b", "a backslash (an escape cannot be faked)");
	want("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
	     "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
	     "printable UTF-8 (2, 3 and 4 bytes)");
	want("\xc2\x9b"
	     "2J",
	     "\\u009b2J", "a C1 control (CSI)");
	want("a\xe2\x80\xae"
	     "b",
	     "a\\u202eb", "a bidi override");
	want("\xe2\x81\xa6\xe2\x80\xa8", "\\u2066\\u2028",
	     "a bidi isolate and the line separator");
	want("a\xe2\x80\x8b"
	     "b",
	     "a\\u200bb", "a zero-width space (\"ab\" on the page else)");
	want("\xe2\x80\x8d\xef\xbb\xbf\xc2\xad\xe2\x81\xa0",
	     "\\u200d\\ufeff\\u00ad\\u2060",
	     "the joiner, the byte order mark, a soft hyphen, the word joiner");
	want("x\xef\xb8\x8f\xe1\x85\x9f", "x\\ufe0f\\u115f",
	     "a variation selector, a Hangul filler");
	want("\xf3\xa0\x80\x81"
	     "1",
	     "\\U000e00011", "a tag character: \\U and 8 digits");
	want("a\xe2\x80\x8a"
	     "b\xe2\x80\x90",
	     "a\xe2\x80\x8a"
	     "b\xe2\x80\x90",
	     "a hair space and a hyphen (seen: as they are)");
	want("\xff\xfe", "\\xff\\xfe", "bytes that are never UTF-8");
	want("\xc0\xaf", "\\xc0\\xaf", "an overlong encoding");
	want("\xed\xa0\x80", "\\xed\\xa0\\x80", "a surrogate");
	want("\xe6\x97", "\\xe6\\x97", "a sequence cut short at the end");
	want("\xe6\x97x", "\\xe6\\x97x", "a sequence cut short by ASCII");
	want("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", "above U+10FFFF");
	ok(escape_clean("/usr/lib/x.so") && !escape_clean("a\tb") &&
		   !escape_clean("\xc2\x9b") && escape_clean(""),
	   "escape_clean tells clean strings from others");
}

static void test_cut(void)
{
	char buf[8];
	size_t n = vms_escape_str(buf, 5,
			      "ab\x1b"
			      "cdef");

	ok(strcmp(buf, "ab") == 0 && n == 10,
	   "a cut never splits an escape (got '%s', length %zu)", buf, n);
	n = vms_escape_str(buf, 5, "ab\xe6\x97\xa5");
	ok(strcmp(buf, "ab") == 0 && n == 5,
	   "a cut never splits a character (got '%s')", buf);
	ok(vms_escape_str(NULL, 0, "\t") == 2, "size 0 only measures");
}

/* Undoes vms_escape_str (the test's own reading of escape.h). */
static size_t unescape(const char *s, char *out)
{
	static const char named[] = "\a\b\t\n\v\f\r", letter[] = "abtnvfr";
	size_t n = 0;

	while (*s) {
		const char *k;
		unsigned v;

		if (*s != '\\') {
			out[n++] = *s++;
			continue;
		}
		s++;
		if (*s == '\\') {
			out[n++] = '\\';
			s++;
		} else if (*s && (k = strchr(letter, *s)) != NULL) {
			out[n++] = named[k - letter];
			s++;
		} else if (*s == 'x' && sscanf(s + 1, "%2x", &v) == 1) {
			out[n++] = (char)v;
			s += 3;
		} else if (*s == 'U' && sscanf(s + 1, "%8x", &v) == 1) {
			out[n++] = (char)(0xf0 | v >> 18);
			out[n++] = (char)(0x80 | ((v >> 12) & 0x3f));
			out[n++] = (char)(0x80 | ((v >> 6) & 0x3f));
			out[n++] = (char)(0x80 | (v & 0x3f));
			s += 9;
		} else if (*s == 'u' && sscanf(s + 1, "%4x", &v) == 1) {
			if (v < 0x800) {
				out[n++] = (char)(0xc0 | v >> 6);
			} else {
				out[n++] = (char)(0xe0 | v >> 12);
				out[n++] = (char)(0x80 | ((v >> 6) & 0x3f));
			}
			out[n++] = (char)(0x80 | (v & 0x3f));
			s += 5;
		} else {
			out[n++] = '?'; /* not an escape escape.h makes */
			s++;
		}
	}
	out[n] = '\0';
	return n;
}

/* Random bytes: nothing below 0x20 or DEL comes out, and each comes back
 * whole from what was printed (so no two print alike). */
static void test_random(void)
{
	static const unsigned char pool[] = { 0x01, 0x07, 0x08, 0x09, 0x0a,
					      0x0d, 0x1b, 0x5c, 0x41, 0x7f,
					      0x80, 0x9b, 0xc2, 0xc3, 0xa9,
					      0xe2, 0x80, 0xae, 0xed, 0xf0,
					      0x9f, 0xff, 0x78, 0x31, 0x75,
					      0x8b, 0xf3, 0xa0, 0x81, 0x55 };
	char in[24], out[256], back[256];
	int i, bad = 0, lost = 0;
	unsigned seed = tap_seed(12345);

	for (i = 0; i < 20000; i++) {
		size_t n = (size_t)(rand_r(&seed) % 12), k;

		for (k = 0; k < n; k++)
			in[k] = (char)pool[rand_r(&seed) % sizeof(pool)];
		in[n] = '\0';
		vms_escape_str(out, sizeof(out), in);
		for (k = 0; out[k]; k++)
			if ((unsigned char)out[k] < 0x20 || out[k] == 0x7f)
				bad++;
		if (unescape(out, back) != n || memcmp(back, in, n) != 0)
			lost++;
	}
	ok(bad == 0, "20000 random strings: no control byte printed (%d)", bad);
	ok(lost == 0,
	   "20000 random strings: each comes back whole from what "
	   "was printed (%d did not)",
	   lost);
}

/* ---- the outbuf writers ---- */

static char *through(void (*fn)(struct outbuf *, const char *), const char *s)
{
	struct outbuf o;
	struct vms_error err;
	int fd = memfd_create("vms-escape", 0);
	static char got[1024];
	ssize_t n;

	if (fd < 0 || outbuf_open_fd(&o, fd, &err) < 0)
		return NULL;
	fn(&o, s);
	outbuf_close(&o, &err);
	n = pread(fd, got, sizeof(got) - 1, 0);
	close(fd);
	got[n > 0 ? n : 0] = '\0';
	return got;
}

static void via(void (*fn)(struct outbuf *, const char *), const char *name,
		const char *in, const char *out, const char *what)
{
	const char *got = through(fn, in);

	ok(got && strcmp(got, out) == 0, "%s: %s -> %s (got %s)", name, what,
	   out, got ? got : "(null)");
}

static void test_writers(void)
{
	via(ob_text_str, "text", "x\x1b]0;pwned\a\x1b[31mred",
	    "x\\x1b]0;pwned\\a\\x1b[31mred", "the hostile file name");
	via(ob_text_str, "text", "thr\r\b\tead", "thr\\r\\b\\tead",
	    "a thread name with \\r \\b \\t");
	via(ob_text_str, "text",
	    "lib\xe2\x80\x8b"
	    "c.so", "lib\\u200bc.so",
	    "a zero-width space in a path");
	via(ob_csv_str, "csv",
	    "lib\xe2\x80\x8d"
	    "c.so", "lib\\u200dc.so",
	    "a zero-width joiner in a path");
	via(ob_csv_str, "csv", "/lib/x.so", "/lib/x.so", "a plain path");
	via(ob_csv_str, "csv", "a,b", "\"a,b\"", "a comma: quoted");
	via(ob_csv_str, "csv", "say \"hi\"", "\"say \"\"hi\"\"\"",
	    "quotes: doubled and quoted");
	via(ob_csv_str, "csv", "a\r\nb", "a\\r\\nb",
	    "a line break: escaped, no raw CR or LF");
	via(ob_csv_str, "csv", "x\x1b[31m", "x\\x1b[31m", "an escape sequence");
	via(ob_csv_str, "csv", "=HYPERLINK(\"http://x\")",
	    "\"'=HYPERLINK(\"\"http://x\"\")\"", "a formula: defused, quoted");
	via(ob_csv_str, "csv", "+1", "\"'+1\"", "a leading +");
	via(ob_csv_str, "csv", "-2", "\"'-2\"", "a leading -");
	via(ob_csv_str, "csv", "@SUM(A1)", "\"'@SUM(A1)\"", "a leading @");
	via(ob_csv_str, "csv", " lead", "\" lead\"", "a leading blank");
	via(ob_json_str, "json", "x\x1b]0;p\a", "\"x\\u001b]0;p\\u0007\"",
	    "C0 controls");
	via(ob_json_str, "json",
	    "\xc2\x9b"
	    "2J",
	    "\"\\u009b2J\"", "a C1 control");
	via(ob_json_str, "json",
	    "a\xe2\x80\xae"
	    "b",
	    "\"a\\u202eb\"", "a bidi override");
	via(ob_json_str, "json", "caf\xc3\xa9", "\"caf\xc3\xa9\"",
	    "printable UTF-8 as it is");
	via(ob_json_str, "json", "\xff", "\"\\u00ff\"", "a stray byte");
	via(ob_json_str, "json", "q\"\\", "\"q\\\"\\\\\"",
	    "a quote and a backslash");
}

int main(void)
{
	test_units();
	test_cut();
	test_random();
	test_writers();
	return tap_done();
}
