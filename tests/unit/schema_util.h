/* schema_util.h — what the two schema tests (test_schema.c: the records;
 * test_schema_smaps.c: the smaps counters and the rollup) share: the smaps
 * text of NREG anonymous regions, each counter a value of its own
 * (counter_kb), and the two writers a snapshot goes through and back: the
 * JSON export (parsed again) and a snapshot file (loaded again, the steps'
 * records put back as a load does).
 *
 * Contract: header-only, static functions, as tap.h (a unit test is one
 * source file: the Makefile's rule); included once, by a test's file,
 * after tap.h. What these build is malloc'd (smaps_text) or the caller's
 * to free (json_decref, vms_snapshot_free); NULL on a failure, with a TAP
 * comment saying why.
 */
#ifndef VMS_SCHEMA_UTIL_H
#define VMS_SCHEMA_UTIL_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/outbuf.h"
#include "capture/file/snapfile.h"
#include "export/export.h"
#include "model/records.h"
#include "model/snapshot.h"
#include "model/source.h"
#include "pipeline.h"

/* The regions of the test's smaps text. */
#define NREG 3

/* ---- the smaps text, its counters each a value of its own ---- */

static uint64_t counter_kb(size_t region, size_t counter)
{
	return region * 64 + counter + 1;
}

/* The smaps text of NREG anonymous regions, every counter's line (but
 * skip's, when skip < VMS_NCOUNTERS) with its value, between lines of keys
 * the parser keeps nothing of. Malloc'd. */
static char *smaps_text(size_t skip, size_t *len)
{
	size_t cap = 8192, n = 0, j, i;
	char *t = malloc(cap);

	for (j = 0; j < NREG; j++) {
		n += (size_t)snprintf(t + n, cap - n,
				      "%llx-%llx rw-p 00000000 00:00 0 \n",
				      0x10000000ull * (j + 1),
				      0x10000000ull * (j + 1) + 0x10000);
		n += (size_t)snprintf(t + n, cap - n, "Size:  64 kB\n");
		for (i = 0; i < VMS_NCOUNTERS; i++) {
			if (i == skip)
				continue;
			n += (size_t)snprintf(
				t + n, cap - n, "%s:%*s%llu kB\n",
				vms_counter_fields[i].smaps,
				(int)(16 - vms_counter_fields[i].smaps_len), "",
				(unsigned long long)counter_kb(j, i));
			if (i == 1)
				n += (size_t)snprintf(t + n, cap - n,
						      "VmscopeNoSuchKey:  4 kB\n");
		}
		n += (size_t)snprintf(t + n, cap - n,
				      "VmFlags: rd wr mr mw me ac \n");
	}
	*len = n;
	return t;
}

/* ---- the writers ---- */

/* s exported as JSON, parsed (NULL when it is not JSON). */
static json_t *exported(const struct vms_snapshot *s)
{
	struct vms_error err;
	struct outbuf o;
	json_error_t jerr;
	json_t *j = NULL;
	int fd = memfd_create("vms-schema", 0);
	off_t n;
	char *text;

	if (fd < 0 || outbuf_open_fd(&o, fd, &err) < 0)
		return NULL;
	export_json(s, &o);
	if (outbuf_close(&o, &err) < 0)
		return NULL;
	n = lseek(fd, 0, SEEK_END);
	text = malloc((size_t)n + 1);
	if (text && pread(fd, text, (size_t)n, 0) == n) {
		text[n] = 0;
		j = json_loads(text, 0, &jerr);
		if (!j)
			printf("# not JSON: %s (line %d)\n", jerr.text,
			       jerr.line);
	}
	free(text);
	close(fd);
	return j;
}

/* s saved as a snapshot file and loaded, the steps' records put back as
 * a load does (the source's restore); NULL on failure. */
static struct vms_snapshot *saved_and_loaded(const struct vms_snapshot *s)
{
	struct vms_snapshot *l = vms_snapshot_new();
	const struct vms_kept *kept[VMS_STEPS_MAX + 1];
	struct vms_error err;
	void *buf;
	size_t len;

	vms_steps_kept(kept);
	if (snapfile_encode(s, NULL, kept, &buf, &len, &err) < 0) {
		printf("# encode: %s\n", err.msg);
		return NULL;
	}
	if (snapfile_load(buf, len, "schema.vms", false, kept, l, &err) < 0 ||
	    vms_source_restore(l, "heaps", &err) < 0 ||
	    vms_source_restore(l, "malloc", &err) < 0 ||
	    vms_source_restore(l, "allocator", &err) < 0 ||
	    vms_source_restore(l, "jvm", &err) < 0) {
		printf("# load: %s\n", err.msg);
		free(buf);
		vms_snapshot_free(l);
		return NULL;
	}
	free(buf);
	return l;
}

#endif
