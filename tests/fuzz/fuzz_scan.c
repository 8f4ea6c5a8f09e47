/* fuzz_scan.c — libFuzzer harness for the region-contents scanners
 * (scan.h): the strings of any bytes (every minimum length and kind, the
 * first byte picks them), each string's text, the search for a pattern
 * taken from the input itself, and the prompt's pattern parser given the
 * input as text. Every string found must lie inside the buffer.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scan_str st[64];
	unsigned char pat[32];
	unsigned char *buf;
	char text[80], *in;
	size_t n, i, len, plen;
	bool hex;
	struct vms_error e;

	if (size < 2)
		return 0;
	len = size - 1;
	buf = malloc(len); /* exact size: a read past it is caught */
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);
	n = scan_strings(buf, len, data[0] & 63, 1 + (data[0] >> 6) % 3, st,
			 64);
	for (i = 0; i < n && i < 64; i++) {
		size_t bytes = st[i].chars * (st[i].kind == SCAN_UTF16 ? 2 : 1);

		if (st[i].off > len || bytes > len - st[i].off)
			abort();
		scan_str_text(buf, &st[i], text, sizeof(text));
	}
	plen = len < 8 ? len : 8;
	if (scan_find(buf, len, buf + len - plen, plen) < 0 && plen)
		abort(); /* its own tail is in it */
	in = malloc(len + 1);
	if (in) {
		memcpy(in, buf, len);
		in[len] = '\0';
		if (scan_pattern(in, pat, sizeof(pat), &plen, &hex, &e) == 0 &&
		    (plen == 0 || plen > sizeof(pat)))
			abort();
		free(in);
	}
	free(buf);
	return 0;
}
