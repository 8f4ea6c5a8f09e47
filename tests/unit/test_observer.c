/* test_observer.c — observer_common_files(): which of vmscope's own files
 * (maps text) a target's snapshot maps too, on built inputs: files counted
 * once however many mappings each has on either side, device and inode
 * both compared, anonymous lines skipped, the first common file's base
 * name in vmscope's order, and a target of many regions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/observer.h"
#include "linux/smaps.h"
#include "tap.h"

static const char own[] =
	"55d0a0000000-55d0a0001000 r--p 00000000 08:01 100 /usr/bin/vmscope\n"
	"7f0000000000-7f0000001000 r--p 00000000 00:00 0 \n"
	"7f0000001000-7f0000002000 r--p 00000000 08:01 200 "
	"/usr/lib/x86_64-linux-gnu/libncursesw.so.6\n"
	"7f0000002000-7f0000003000 r-xp 00001000 08:01 200 "
	"/usr/lib/x86_64-linux-gnu/libncursesw.so.6\n"
	"7f0000003000-7f0000004000 r--p 00000000 08:01 300 "
	"/usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f0000004000-7f0000005000 r-xp 00001000 08:01 300 "
	"/usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f0000005000-7f0000006000 r--p 00000000 08:02 400 "
	"/usr/lib/locale/C.utf8/LC_CTYPE\n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n";

/* A target's maps: n anonymous regions, then the given file lines. */
static struct vms_snapshot *target(size_t n, const char *files)
{
	size_t cap = n * 64 + strlen(files) + 1, len = 0, i;
	char *text = malloc(cap);
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_error err;

	if (!text || !s)
		abort();
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(
			text + len, cap - len,
			"%012zx-%012zx rw-p 00000000 00:00 0 \n",
			0x100000000 + 2 * i * 4096,
			0x100000000 + (2 * i + 1) * 4096);
	len += (size_t)snprintf(text + len, cap - len, "%s", files);
	if (smaps_parse_buffer(s, text, len, &err) < 0) {
		printf("# %s\n", err.msg);
		abort();
	}
	free(text);
	return s;
}

int main(void)
{
	char first[64];
	struct vms_snapshot *s;
	size_t n;

	s = target(3, "7e0000000000-7e0000001000 r--p 00000000 08:01 300 "
		      "/usr/lib/x86_64-linux-gnu/libc.so.6\n"
		      "7e0000001000-7e0000002000 r-xp 00001000 08:01 300 "
		      "/usr/lib/x86_64-linux-gnu/libc.so.6\n"
		      "7e0000002000-7e0000003000 r--p 00002000 08:01 300 "
		      "/usr/lib/x86_64-linux-gnu/libc.so.6\n");
	n = observer_common_files(own, sizeof(own) - 1, s, first,
				  sizeof(first));
	ok(n == 1 && strcmp(first, "libc.so.6") == 0,
	   "libc shared, three mappings each side: one file (%zu, %s)", n,
	   first);
	vms_snapshot_free(s);

	/* the same inode on another device is another file */
	s = target(2, "7e0000000000-7e0000001000 r--p 00000000 08:03 300 "
		      "/other/libc.so.6\n"
		      "7e0000001000-7e0000002000 r--p 00000000 08:02 400 "
		      "/usr/lib/locale/C.utf8/LC_CTYPE\n"
		      "7e0000002000-7e0000003000 r--p 00000000 08:01 200 "
		      "/usr/lib/x86_64-linux-gnu/libncursesw.so.6\n");
	n = observer_common_files(own, sizeof(own) - 1, s, first,
				  sizeof(first));
	ok(n == 2 && strcmp(first, "libncursesw.so.6") == 0,
	   "device and inode both compared; first in vmscope's order (%zu, "
	   "%s)",
	   n, first);
	vms_snapshot_free(s);

	/* anonymous regions only: none, first empty */
	s = target(5, "");
	strcpy(first, "x");
	n = observer_common_files(own, sizeof(own) - 1, s, first,
				  sizeof(first));
	ok(n == 0 && first[0] == '\0', "anonymous memory shares no file (%zu)",
	   n);
	vms_snapshot_free(s);

	/* many regions, the common file after them all */
	s = target(200000, "7e0000000000-7e0000001000 r--p 00000000 08:02 400 "
			   "/usr/lib/locale/C.utf8/LC_CTYPE\n");
	n = observer_common_files(own, sizeof(own) - 1, s, first, 8);
	ok(n == 1 && strcmp(first, "LC_CTYP") == 0,
	   "200,000 regions: the one file found, its name cut to the "
	   "buffer (%zu, %s)",
	   n, first);
	vms_snapshot_free(s);

	/* no room for the name: counted all the same */
	s = target(1, "7e0000000000-7e0000001000 r--p 00000000 08:01 100 "
		      "/usr/bin/vmscope\n");
	n = observer_common_files(own, sizeof(own) - 1, s, NULL, 0);
	ok(n == 1, "without a buffer for the name: counted (%zu)", n);
	vms_snapshot_free(s);
	return tap_done();
}
