/* inject_target.h — what an injection needs to know of a running process's
 * code (inject_call.c): where its libc's dlopen, dlsym and
 * __errno_location are, and the ranges of code a thread may not be
 * borrowed in (the loader's; libc's malloc family and dl* functions;
 * another allocator's, inject_call.h says which; the tracer library's).
 *
 * Contract: inject_read_target() reads pid's maps (a live thread's where
 * the main thread has exited) and the ELF files of its executable
 * mappings; it never stops or reads the process's memory. x86_64 only,
 * as the injection.
 */
#ifndef VMS_INJECT_TARGET_H
#define VMS_INJECT_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"

struct vms_snapshot;

struct range {
	uint64_t lo, hi;
	/* a word in it counts only when the code before it is a call: an
	 * allocator's whole code, where a function pointer the program
	 * keeps (its mallctl) is no return address */
	bool called;
};

struct target {
	uint64_t dlopen, dlsym;
	uint64_t errno_loc; /* __errno_location: the borrowed thread's errno
			     * is put back too (dlopen sets it) */
	struct range ld; /* the loader's code */
	/* libc's malloc family and dl*, another allocator's (inject_call.h:
	 * the whole code of a library that defines malloc; the malloc family
	 * of a program that does), the tracer library's code */
	struct range avoid[64];
	unsigned navoid;
	struct vms_snapshot *maps; /* for the threads' stacks */
};

/* Fills t (its maps the caller's to free, vms_snapshot_free): 0, or -1
 * with *err (maps unreadable; no dlopen in its libc: glibc before 2.34,
 * a static or musl program). */
int inject_read_target(pid_t pid, struct target *t, struct vms_error *err);

#endif
