/* tracesym.h — a traced process's return addresses as names: the module
 * (the mapped file), the function and the offset in it, and the source
 * file and line where debug information exists (the module's own, or
 * /usr/lib/debug/.build-id/ by its build id), through libdw's libdwfl.
 * Symbolised in vmscope, never in the program.
 *
 * The modules are read from /proc/PID/maps while the process lives:
 * tracesym_see() is called with each new stack's addresses and reads the
 * maps again when one lies in no module known (a library loaded since);
 * the modules stay known after the process exits, so a report made then
 * still has names. A module unloaded and replaced by another at the same
 * place between two reads is named as the later one.
 *
 * Contract: names are copied into the caller's arena. Not thread-safe.
 */
#ifndef VMS_TRACESYM_H
#define VMS_TRACESYM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/arena.h"
#include "model/trace.h"

struct tracesym;

struct tracesym *tracesym_new(pid_t pid);
void tracesym_free(struct tracesym *ts);
/* Makes sure the modules holding these addresses are known (reads the
 * process's maps again when one is not and the process still lives). */
void tracesym_see(struct tracesym *ts, const uint64_t *ips, unsigned n);
/* Fills f (its ip set) with the module, function, offset, file and line
 * of ip; innermost: ip is the allocating call's return address too (every
 * frame's is), so the call is looked up at ip - 1. -1 on out of memory. */
int tracesym_frame(struct tracesym *ts, uint64_t ip, bool innermost,
		   struct arena *a, struct vms_trace_frame *f);

#endif
