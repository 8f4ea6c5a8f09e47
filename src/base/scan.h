/* scan.h — what region contents are made of, over a buffer: the strings
 * in it (VMMap's Strings view: ASCII and UTF-16LE), a pattern a person
 * typed (hex bytes or text), and where a pattern occurs.
 *
 * Contract: every function takes a buffer and its length and reads
 * nothing else; none allocates, keeps state or fails but by its return.
 * A string is a run of at least min printable ASCII characters (0x20 to
 * 0x7e, and tab): as bytes (ASCII), or each followed by a zero byte
 * (UTF-16LE, the code units below 0x80). Runs are found left to right,
 * neither kind inside the other: a UTF-16LE run is not also reported as
 * one-character ASCII runs (they are shorter than any min above 1). The
 * bytes of a string are the target's: escape them (escape.h) before they
 * reach a terminal or a file.
 */
#ifndef VMS_SCAN_H
#define VMS_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

enum { SCAN_ASCII = 1, SCAN_UTF16 = 2 };

struct scan_str {
	size_t off; /* from the buffer's start */
	size_t chars; /* characters (UTF-16LE: code units) */
	uint8_t kind; /* SCAN_ASCII or SCAN_UTF16 */
};

/* The smallest and largest minimum length a person may ask for. */
enum { SCAN_MIN_LEN = 2, SCAN_MAX_LEN = 64 };

/* Finds the strings of at least min characters (clamped to [SCAN_MIN_LEN,
 * SCAN_MAX_LEN]) of the kinds asked for (SCAN_ASCII | SCAN_UTF16), in
 * offset order. Fills out[0..cap) and returns how many there are in all
 * (more than cap: the rest were not stored). */
size_t scan_strings(const unsigned char *buf, size_t len, unsigned min,
		    unsigned kinds, struct scan_str *out, size_t cap);

/* The text of string st of buf as bytes, into (dst, n): the ASCII bytes,
 * or the low bytes of the UTF-16LE units; NUL-terminated, cut at n - 1.
 * Returns dst. */
char *scan_str_text(const unsigned char *buf, const struct scan_str *st,
		    char *dst, size_t n);

/* A pattern typed at a prompt: hex bytes ("de ad be ef", "deadbeef",
 * "0xdeadbeef": pairs of hex digits, blanks between pairs allowed) or
 * text. Text in double quotes is always text (to find "cafe" itself);
 * otherwise input made only of hex digit pairs is bytes. Fills (out, cap)
 * and *n; *hex says which it was. -1 with *err: empty, an odd hex digit
 * count in a 0x pattern, or longer than cap. */
int scan_pattern(const char *in, unsigned char *out, size_t cap, size_t *n,
		 bool *hex, struct vms_error *err);

/* The offset of the first occurrence of pat in buf, or -1. An empty pat
 * is never found. */
ptrdiff_t scan_find(const unsigned char *buf, size_t len,
		    const unsigned char *pat, size_t plen);

#endif
