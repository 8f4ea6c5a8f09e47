/* coredump.h — ELF core dumps (from gcore and from the kernel) loaded with
 * -l, as one more source.
 *
 * What a core gives (read from the bytes, never trusted beyond them):
 *  - regions: one per PT_LOAD (vaddr, memsz, R/W/X from p_flags; private:
 *    a core does not say whether a mapping was shared), sorted; paths and
 *    file offsets from the NT_FILE note; [vdso] from NT_AUXV's
 *    AT_SYSINFO_EHDR; [stack], the region holding the main thread's stack
 *    pointer; [heap], the first anonymous writable region at or above the
 *    end of the main executable's image (its last PT_LOAD's vaddr + memsz
 *    plus its load bias), within 1 GiB of it (the kernel places the brk
 *    start up to 32 MiB above the image on x86_64, up to 1 GiB on aarch64);
 *  - threads: one per NT_PRSTATUS (pr_pid, and the stack pointer from
 *    pr_reg: rsp on x86_64, sp on aarch64);
 *  - the process: pid, uid and arguments from NT_PRPSINFO; its name the
 *    live one, comm (coredump_name.c: pr_fname where it cannot be gdb's
 *    basename of a retitled command line, else AT_EXECFN's basename, else
 *    the executable's); the executable, the NT_FILE path holding
 *    AT_ENTRY;
 *  - memory: read_mem reads PT_LOAD file bytes; what lies beyond a
 *    segment's p_filesz (not dumped) is not present.
 * What a core does not hold: the smaps counters (Rss, Pss, Swap, sharing),
 * VmFlags, device and inode, VmPTE. Every region is flagged
 * VMS_RF_NO_COUNTERS and s->cap.no_counters is set: the exporters show
 * those figures as unknown, never as zero. Whether anonymous memory is
 * charged to the commit limit (VmFlags "ac": every private writable
 * mapping not made MAP_NORESERVE) is not in a core either, and Committed
 * of uncharged memory is its Rss + Swap: so a writable anonymous
 * region's Committed is unknown (VMS_ACCT_COMMIT_UNKNOWN), but where it
 * is known to be charged: the brk heap and the initial stack (always),
 * an image's .bss tail (the loader's; step_images), glibc's mmapped
 * chunks (the malloc step's walk).
 *
 * Files: open_file opens the region's path on disk. When the build id in
 * the core's memory (the ELF headers of the file's first mapping, where
 * dumped) differs from the file's, the file is not the one that was mapped:
 * it is refused (the images step then reads the headers from memory and
 * marks the image, rather than show another build's sections) and a note
 * says so.
 *
 * Contract:
 *  - coredump_recognise() looks at the first bytes only: an ELF file of
 *    type ET_CORE in either byte order and class (what is wrong with it is
 *    said by the load).
 *  - coredump_load() takes the file's bytes (never a path) and fills the
 *    raw part of an empty snapshot and its source. Anything wrong is
 *    VMS_ERR_FILE with one line naming the file (name) and what is wrong:
 *    another byte order, class or machine (naming both machines), cut
 *    short, notes missing, overlapping segments. Never a read outside
 *    buf[0, len); work bounded by len.
 *  - The source reads buf until released: the caller keeps buf alive, or
 *    hands a mapping over with coredump_own() (munmapped on release).
 */
#ifndef VMS_COREDUMP_H
#define VMS_COREDUMP_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/snapshot.h"

bool coredump_recognise(const void *head, size_t n);

/* consume is unused: a core's bytes are its memory, read to the end. */
int coredump_load(const void *buf, size_t len, const char *name, bool consume,
		  struct vms_snapshot *s, struct vms_error *err);

/* s, loaded by coredump_load() from map (len bytes, mmapped), owns map
 * from now on: its source's release munmaps it. */
void coredump_own(struct vms_snapshot *s, void *map, size_t len);

#endif
