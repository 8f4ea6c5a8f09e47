/* test_units — sizes with units (units.h): the viewer's cells and the text
 * summary's, at each boundary, and outbuf's ob_size in both modes. */
#include <stdint.h>
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
	return tap_done();
}
