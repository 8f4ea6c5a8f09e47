/* tracesym.h — a traced process's return addresses as names: the module
 * (the mapped file), the function and the offset in it, and the source
 * file and line where debug information exists (the module's own, or
 * /usr/lib/debug/.build-id/ by its build id), through libdw's libdwfl.
 * Symbolised in vmscope, never in the program.
 *
 * The modules are what the traced program said it had loaded (the tracer
 * library sends each file and its load bias before the first stack with
 * an address in it: base/tracewire.h), not what /proc says at some later
 * instant: a report made after the program exited still has names, and a
 * module is never taken from a process image the program no longer is. A
 * module unloaded and another loaded at the same place keeps the first
 * one's names. A process vmscope attached to (bpfmaps.h) has its modules
 * from /proc/PID/maps instead, each file opened through procfile.h.
 *
 * Contract: names are copied into the caller's arena. Not thread-safe.
 */
#ifndef VMS_TRACESYM_H
#define VMS_TRACESYM_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "model/trace.h"

struct tracesym;

struct tracesym *tracesym_new(void);
/* A view of shared: one process's modules (its own biases) named through
 * the files shared holds, each file (by device and inode) read once for
 * all the views that load it, at addresses of shared's own (views are
 * for the many processes of one trace: --trace-children; each file's
 * debug information is read once, not once a process). shared outlives
 * its views; a view's modules are TRACESYM_VIEW_MODULES at most, a
 * shared one's files TRACESYM_SHARED_FILES (the rest unnamed). */
#define TRACESYM_VIEW_MODULES 4096u
#define TRACESYM_SHARED_FILES 8192u
struct tracesym *tracesym_view(struct tracesym *shared);
void tracesym_free(struct tracesym *ts);
/* The file open at fd (the caller checked it is a regular file: a
 * traced program's path, or procfile_open()'s, the very file a region of
 * a live process maps), named by path, loaded with this bias (ELF
 * addresses + bias = the process's); fd is taken over (closed, now or
 * with ts). A file that cannot be read leaves its frames unnamed. */
void tracesym_module_fd(struct tracesym *ts, const char *path, int fd,
			uint64_t bias);
/* Fills f (its ip set) with the module, function, offset, file and line
 * of ip. Every frame's ip is a return address (the innermost one's too:
 * the allocating call's), so the call is looked up at ip - 1. -1 on out
 * of memory. */
int tracesym_frame(struct tracesym *ts, uint64_t ip, struct arena *a,
		   struct vms_trace_frame *f);

/* The call frame information of a module known at pc (its .eh_frame, or
 * .debug_frame), in the one form a stack copy can be unwound by: the CFA
 * (the caller's stack pointer) is a register (DWARF numbers: 7 the stack
 * pointer, 6 rbp on x86-64) plus an offset, and the caller's rbp is either
 * unchanged or saved at CFA + rbp_off. */
struct tracesym_cfa {
	int reg;
	int64_t off;
	bool rbp_saved;
	int64_t rbp_off;
};

/* cfa for pc (an exact instruction address: the innermost frame's; a
 * caller's is its return address less one). -1: no module, no CFI there,
 * a rule not of that form, or the outermost frame (its return address
 * undefined: _start). */
int tracesym_cfa(struct tracesym *ts, uint64_t pc, struct tracesym_cfa *cfa);

#endif
