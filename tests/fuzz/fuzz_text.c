/* fuzz_text.c — libFuzzer harness for the small text parsers: the
 * /proc/PID/status value reader and the syscall-line parser (procfs.h), the
 * maps reader that compares vmscope's own mappings with a snapshot's
 * (observer.h), the viewer's theme files (ui/theme.h) and its settings
 * file (config.h). The first byte
 * picks the parser; the rest is its input, given with no terminating NUL
 * where the parser takes a length, so that a read past the end is caught.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../ui/core/theme.h"
#include "model/config.h"
#include "linux/observer.h"
#include "linux/procfs.h"
#include "model/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const keys[] = { "VmPTE",  "Seccomp",   "RssAnon", "Tgid",
				    "SigBlk", "NoSuchKey", "" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data + 1;
	size_t len = size ? size - 1 : 0, i;

	if (!size)
		return 0;
	switch (data[0] % 4) {
	case 0: {
		/* An exact-size copy: ASan sees a read one past its end. */
		char *buf = malloc(len ? len : 1);
		uint64_t sp;

		if (!buf)
			return 0;
		memcpy(buf, text, len);
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			(void)procfs_status_value(buf, len, keys[i]);
		(void)procfs_syscall_sp_parse(buf, len, &sp);
		free(buf);
		break;
	}
	case 1: {
		struct vms_snapshot *s = vms_snapshot_new();
		struct vms_region *r;
		char *buf = malloc(len ? len : 1), first[16];

		if (!s || !buf) {
			vms_snapshot_free(s);
			free(buf);
			return 0;
		}
		/* Two regions the text can name: 08:01 inode 42, 00:00 7. */
		if ((r = vms_snapshot_add_region(s))) {
			r->dev_major = 8, r->dev_minor = 1, r->inode = 42;
			r->start = 0x1000, r->end = 0x2000;
		}
		if ((r = vms_snapshot_add_region(s))) {
			r->inode = 7;
			r->start = 0x2000, r->end = 0x3000;
		}
		memcpy(buf, text, len);
		(void)observer_common_files(buf, len, s, first, sizeof(first));
		free(buf);
		vms_snapshot_free(s);
		break;
	}
	case 3: {
		/* An exact-size copy, as above. */
		struct vms_config c;
		struct vms_config_bad bad;
		char *buf = malloc(len ? len : 1), out[4096];
		int k, seen = 0, want = 0, n = 0;

		if (!buf)
			return 0;
		memcpy(buf, text, len);
		vms_config_parse(&c, buf, len, &bad);
		free(buf);
		/* whatever the text, every column once */
		for (k = 0; k < c.n; k++)
			seen |= 1 << c.order[k];
		for (k = 0; k < VMS_DCOL_END; k++)
			if (vms_config_offered(k))
				want |= 1 << k, n++;
		if (c.n != n || seen != want)
			abort();
		(void)vms_config_format(&c, out, sizeof(out));
		break;
	}
	default: {
		struct theme t;
		struct vms_error err;
		char *buf = malloc(len + 1);

		if (!buf)
			return 0;
		memcpy(buf, text, len);
		buf[len] = '\0';
		theme_builtin(&t);
		(void)theme_parse(&t, buf, "fuzz", &err);
		free(buf);
		break;
	}
	}
	return 0;
}
