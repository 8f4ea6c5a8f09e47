/* traceprog.h — whether a command can be traced by a preloaded library
 * (vmscope --trace -- CMD; tracer_launch asks before it starts CMD).
 *
 * Refused, with a message a person can act on: what a preload cannot
 * enter. A program the kernel runs secure (AT_SECURE: the loader then
 * ignores LD_PRELOAD): set-user-ID or set-group-ID, or with file
 * capabilities (a security.capability attribute) for a user other than
 * root (for root they add nothing: the kernel runs it as it is); and a
 * statically linked one (no loader). What is checked is the file the
 * kernel runs: CMD as execvp finds it in PATH, or a script's interpreter
 * (its "#!" line, followed 4 deep as the kernel does). What cannot be
 * read here is left for the exec to say; what slips through (a 32-bit
 * program) tracer_started() finds after the run.
 */
#ifndef VMS_TRACE_TRACEPROG_H
#define VMS_TRACE_TRACEPROG_H

#include "base/error.h"

/* 0: traceable, as far as the file tells; -1 with *err (VMS_ERR_USAGE). */
int traceprog_check(const char *name, struct vms_error *err);

#endif
