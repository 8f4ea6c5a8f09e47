/* test_scan.c — strings, patterns and search over buffers (scan.h). */
#include <stdlib.h>
#include <string.h>

#include "base/scan.h"
#include "tap.h"

/* "hello" (ASCII), "Wide!" as UTF-16LE, binary between, "ab" (too
 * short), a tab inside a string, and a string ending the buffer. */
static const unsigned char sample[] = {
	0x00, 'h', 'e',	 'l', 'l', 'o',	 0x01, 0xff, 'W',  0,	'i',
	0,    'd', 0,	 'e', 0,   '!',	 0,    0x00, 0x00, 'a', 'b',
	0x02, 'x', '\t', 'y', 'z', 0x80, 't',  'a',  'i',  'l',
};

static void test_strings(void)
{
	struct scan_str st[8];
	char t[64];
	size_t n = scan_strings(sample, sizeof(sample), 4,
				SCAN_ASCII | SCAN_UTF16, st, 8);

	ok(n == 4, "four strings of 4 or more: %zu", n);
	ok(n >= 1 && st[0].kind == SCAN_ASCII && st[0].off == 1 &&
		   strcmp(scan_str_text(sample, &st[0], t, sizeof(t)),
			  "hello") == 0,
	   "ASCII \"hello\" at 1");
	ok(n >= 2 && st[1].kind == SCAN_UTF16 && st[1].off == 8 &&
		   st[1].chars == 5 &&
		   strcmp(scan_str_text(sample, &st[1], t, sizeof(t)),
			  "Wide!") == 0,
	   "UTF-16LE \"Wide!\" at 8, as one string, not five ASCII ones");
	ok(n >= 3 && strcmp(scan_str_text(sample, &st[2], t, sizeof(t)),
			    "x\tyz") == 0,
	   "a tab inside a string");
	ok(n >= 4 && st[3].off == sizeof(sample) - 4 && st[3].chars == 4,
	   "a string that ends the buffer");
	n = scan_strings(sample, sizeof(sample), 2, SCAN_ASCII | SCAN_UTF16, st,
			 8);
	ok(n == 5, "minimum 2: \"ab\" too (%zu)", n);
	n = scan_strings(sample, sizeof(sample), 6, SCAN_ASCII | SCAN_UTF16, st,
			 8);
	ok(n == 0, "minimum 6: none (%zu)", n);
	n = scan_strings(sample, sizeof(sample), 4, SCAN_ASCII, st, 8);
	ok(n == 3, "ASCII only: three (%zu)", n);
	n = scan_strings(sample, sizeof(sample), 4, SCAN_ASCII | SCAN_UTF16, st,
			 1);
	ok(n == 4 && st[0].off == 1, "cap 1: one stored, four counted");
	n = scan_strings(sample, sizeof(sample), 1, SCAN_ASCII, st, 8);
	ok(n == 4, "a minimum below 2 is 2: ASCII only, four (%zu)", n);
	ok(scan_strings(sample, 0, 4, SCAN_ASCII, st, 8) == 0 &&
		   scan_str_text(sample, &st[0], t, 1)[0] == '\0',
	   "an empty buffer; a one-byte destination");
}

static void test_pattern(void)
{
	unsigned char b[8];
	size_t n;
	bool hex;
	struct vms_error e;

	ok(scan_pattern("de ad be ef", b, 8, &n, &hex, &e) == 0 && hex &&
		   n == 4 && memcmp(b, "\xde\xad\xbe\xef", 4) == 0,
	   "\"de ad be ef\" is four bytes");
	ok(scan_pattern("0xDEADbeef", b, 8, &n, &hex, &e) == 0 && hex &&
		   n == 4 && b[0] == 0xde,
	   "0xDEADbeef is the same");
	ok(scan_pattern("hello", b, 8, &n, &hex, &e) == 0 && !hex && n == 5 &&
		   memcmp(b, "hello", 5) == 0,
	   "hello is text");
	ok(scan_pattern("\"cafe\"", b, 8, &n, &hex, &e) == 0 && !hex &&
		   n == 4 && memcmp(b, "cafe", 4) == 0,
	   "\"cafe\" in quotes is text");
	ok(scan_pattern("abc", b, 8, &n, &hex, &e) == 0 && !hex && n == 3,
	   "an odd count of hex digits is text");
	ok(scan_pattern("", b, 8, &n, &hex, &e) < 0 &&
		   strstr(e.msg, "nothing to find"),
	   "empty: an error that says what to type");
	ok(scan_pattern("\"\"", b, 8, &n, &hex, &e) < 0, "\"\": empty too");
	ok(scan_pattern("0xabc", b, 8, &n, &hex, &e) < 0 &&
		   strstr(e.msg, "two hex digits"),
	   "0xabc: not hex bytes, said so");
	ok(scan_pattern("00 11 22 33 44 55 66 77 88", b, 8, &n, &hex, &e) < 0 &&
		   strstr(e.msg, "at most 8"),
	   "longer than the room: said so");
	ok(scan_pattern("123456789", b, 8, &n, &hex, &e) < 0,
	   "nine characters of text in room for 8: refused");
}

static void test_find(void)
{
	const unsigned char *h = (const unsigned char *)"abcabcd";

	ok(scan_find(h, 7, (const unsigned char *)"cd", 2) == 5, "found at 5");
	ok(scan_find(h, 7, (const unsigned char *)"abc", 3) == 0,
	   "the first of two");
	ok(scan_find(h, 7, (const unsigned char *)"x", 1) == -1, "absent");
	ok(scan_find(h, 7, h, 0) == -1, "an empty pattern is never found");
	ok(scan_find(h, 2, (const unsigned char *)"abc", 3) == -1,
	   "longer than the buffer");
}

int main(void)
{
	test_strings();
	test_pattern();
	test_find();
	return tap_done();
}
