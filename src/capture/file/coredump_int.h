/* coredump_int.h — what the core loader (coredump.c) and the core's source
 * (coredump_source.c) share: the segments kept for reading memory, and
 * the reads. The loader fills a core_priv as s->src.priv; the source only
 * reads it; the process's name (coredump_name.c) is read through it.
 * Private to those three files.
 */
#ifndef VMS_COREDUMP_INT_H
#define VMS_COREDUMP_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "model/snapshot.h"

struct core_seg {
	uint64_t vaddr, memsz, off, filesz;
	uint32_t flags; /* PF_* */
};

struct core_priv {
	const unsigned char *buf;
	size_t len;
	void *map; /* owned mapping, or NULL */
	size_t maplen;
	struct core_seg *seg; /* by vaddr, as the regions */
	size_t nseg;
};

/* The core's memory at addr: the PT_LOAD file bytes there, up to len; a
 * hole or what a segment did not dump ends it. */
ssize_t coredump_read(struct vms_snapshot *s, uint64_t addr, void *buf,
		      size_t len, struct vms_error *err);
/* A regular file at path, opened read-only, or -1: a path from the core
 * may name a device, whose open alone may do something. *st (st not
 * NULL) is the descriptor's fstat. */
int coredump_open_regular(const char *path, struct stat *st);

/* The process's name (coredump_name.c), as the live capture has it
 * (/proc/PID/comm): from NT_PRPSINFO's pr_fname (f, fn bytes) and
 * pr_psargs (a, al bytes), AT_EXECFN (execfn: its string in the core's
 * memory, read through s's source) and s->proc.exe. In s->arena; NULL
 * when out of memory. */
const char *coredump_name(struct vms_snapshot *s, const char *f, size_t fn,
			  const char *a, size_t al, uint64_t execfn);

/* read_mem, open_file (the file on disk, unless its build id is not the
 * one the core's memory holds), release. */
extern const struct vms_source_ops coredump_source;

#endif
