/* test_units — sizes with units (units.h): the viewer's cells and the text
 * summary's, at each boundary, and outbuf's ob_size in both modes; its
 * numbers (ob_u64, ob_hex) against printf's at every digit count, and
 * random ones written through ob_reserve across many flushes (the seed
 * printed, VMSCOPE_SEED replays it). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/outbuf.h"
#include "tap.h"
#include "base/units.h"

static void both(uint64_t b, const char *viewer, const char *text)
{
	char v[32], t[32];

	units_size(b, v, sizeof(v));
	units_size_long(b, t, sizeof(t));
	ok(strcmp(v, viewer) == 0 && strcmp(t, text) == 0,
	   "%llu bytes: viewer '%s', text '%s' (got '%s', '%s')",
	   (unsigned long long)b, viewer, text, v, t);
}

/* The values where a digit is added, in decimal and in hex, and next
 * to them; 0 and the largest. */
static uint64_t edge(int i)
{
	uint64_t p10 = 1, p16 = 1;
	int k = i / 3, j;

	if (k < 20) {
		for (j = 0; j < k; j++)
			p10 *= 10;
		return p10 + (uint64_t)(i % 3) - 1; /* 10^k - 1, 10^k, +1 */
	}
	k -= 20;
	if (k < 16) {
		for (j = 0; j < k; j++)
			p16 *= 16;
		return p16 + (uint64_t)(i % 3) - 1;
	}
	return i % 2 ? UINT64_MAX : 0;
}

/* ob_u64 and ob_hex, and the same through a reserve (ob_u64_at,
 * ob_hex_at) many times over: each number and the whole text as printf
 * writes them, across the buffer's growth and flushes. */
static void numbers(void)
{
	struct outbuf o;
	struct vms_error err;
	char want[64], got[64];
	char *all, *back;
	size_t len = 0, cap = 8u << 20;
	int fd = memfd_create("vms-numbers", 0), i, bad = 0;
	ssize_t n;

	srand(tap_seed((unsigned)getpid())); /* printed; VMSCOPE_SEED */
	all = malloc(cap);
	back = malloc(cap);
	ok(all && back && fd >= 0 && outbuf_open_fd(&o, fd, &err) == 0,
	   "an outbuf for numbers");
	if (!all || !back || fd < 0)
		return;
	for (i = 0; i < 200000; i++) {
		uint64_t v = i < 120 ? edge(i)
				     : (uint64_t)rand() << 33 ^
						(uint64_t)rand() << 11 ^
						(uint64_t)rand();
		char *p;
		int k;

		if (i % 7 == 3)
			v >>= (i % 61);
		k = snprintf(want, sizeof(want), "%llu,0x%llx;",
			     (unsigned long long)v, (unsigned long long)v);
		memcpy(all + len, want, (size_t)k);
		len += (size_t)k;
		if (i % 2) {
			ob_u64(&o, v);
			ob_putc(&o, ',');
			ob_hex(&o, v);
			ob_putc(&o, ';');
		} else {
			p = ob_reserve(&o, 48);
			p = ob_u64_at(p, v);
			*p++ = ',';
			p = ob_hex_at(p, v);
			*p++ = ';';
			ob_commit(&o, p);
		}
		if (i < 120) { /* each edge alone, as written */
			char *e = ob_u64_at(got, v);

			*e++ = ',';
			e = ob_hex_at(e, v);
			*e++ = ';';
			*e = '\0';
			if (strcmp(got, want) != 0 && bad++ < 5)
				ok(0, "%s written as %s", want, got);
		}
	}
	ok(bad == 0, "every edge value as printf writes it (%d differ)",
	   bad);
	ok(outbuf_close(&o, &err) == 0, "numbers written");
	n = pread(fd, back, cap, 0);
	ok(n == (ssize_t)len && memcmp(back, all, len) == 0,
	   "200,000 numbers in decimal and hex, through ob_u64/ob_hex and "
	   "ob_reserve alternately, as printf writes them (%zd bytes of "
	   "%zu)",
	   n, len);
	close(fd);
	free(all);
	free(back);
}

int main(void)
{
	const uint64_t K = 1024, M = K * K, G = M * K;
	struct outbuf o;
	struct vms_error err;
	char got[64];
	int fd;
	ssize_t n;

	both(0, "0 K", "0 K");
	both(1023, "0 K", "0 K");
	both(9999 * K, "9999 K", "9999 K");
	both(10000 * K, "9.7 M", "9.7 M");
	both(123 * M + M / 2, "123 M", "123.5 M");
	both(9999 * M, "9999 M", "9999.0 M");
	both(10000 * M, "9.7 G", "9.7 G");
	both(137438736340ull * K, "127 T", "127.9 T"); /* the Free */
	both(92662656692ull * K, "86.2 T", "86.2 T");
	both(UINT64_MAX, "16.0 E", "16.0 E");

	fd = memfd_create("vms-units", 0);
	ok(fd >= 0 && outbuf_open_fd(&o, fd, &err) == 0, "an outbuf");
	ob_size(&o, 5 * G, 8);
	ob_putc(&o, '|');
	o.exact = true;
	ob_size(&o, 5 * G, 12);
	outbuf_close(&o, &err);
	n = pread(fd, got, sizeof(got) - 1, 0);
	got[n > 0 ? n : 0] = '\0';
	ok(strcmp(got, "5120.0 M|  5368709120") == 0,
	   "ob_size: units right-aligned; exact bytes with o->exact (%s)", got);
	close(fd);
	numbers();
	return tap_done();
}
