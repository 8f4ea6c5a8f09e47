/* mapguard.h — file mappings that survive their file shrinking under them.
 *
 * A read of a mapped file's page past its end (another process truncated
 * it after it was mapped: a core whose owner rewrites it) is a SIGBUS,
 * which would kill vmscope. A mapping registered here is guarded instead.
 *
 * Contract:
 *  - mapguard_add() registers [addr, addr + len) (a PROT_READ mapping the
 *    caller made) and, the first time, installs a SIGBUS handler
 *    (SA_SIGINFO, SA_ONSTACK). -1 when MAPGUARD_MAX mappings are guarded
 *    already or the handler cannot be installed: the caller reads the file
 *    instead.
 *  - A SIGBUS for an address in a guarded mapping replaces the whole
 *    mapping with zero pages (MAP_FIXED anonymous: the access that faulted
 *    and every later one read zeros, never a signal) and marks it hit; a
 *    reader that asks mapguard_hit() after (a load, after its parse; a
 *    source, before each read) reports the file as truncated while it was
 *    read, never what the zeros say.
 *  - A SIGBUS anywhere else takes the action that was in place before
 *    (the handler puts it back and returns: the access faults again).
 *  - mapguard_remove() before the caller munmaps. Async-signal-safe state
 *    only (atomics); the registry is meant for a few mappings at a time.
 */
#ifndef VMS_MAPGUARD_H
#define VMS_MAPGUARD_H

#include <stdbool.h>
#include <stddef.h>

#define MAPGUARD_MAX 16

int mapguard_add(void *addr, size_t len);
/* Whether a SIGBUS hit the guarded mapping at addr (false when it is not
 * guarded). */
bool mapguard_hit(const void *addr);
void mapguard_remove(const void *addr);

#endif
