/* inject_unwind.h — the return addresses of a stopped thread's frames, by
 * the call frame information (.eh_frame) of each module it runs in
 * (libdw's unwinder), for the injection's choice of a thread
 * (inject_call.c): a thread is borrowed only where none of its frames is
 * in the allocator or the loader. Scanning the stack's words for such
 * addresses instead also finds the ones earlier calls left in the slots
 * of live frames (a shell's stack holds return addresses into free from
 * before the wait it is in), and refused every thread of such a process.
 *
 * inject_unwind_new() reports the process's modules (its maps, each file
 * opened once: before the freeze); inject_unwind_frames() unwinds one
 * thread stopped under ptrace, reading its memory through mem (an open
 * /proc/PID/mem) from the registers given. Never prints, never exits.
 */
#ifndef VMSCOPE_INJECT_UNWIND_H
#define VMSCOPE_INJECT_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

struct inject_unwind;

/* NULL when libdw cannot report the process's modules (the caller then
 * scans the stack as before). */
struct inject_unwind *inject_unwind_new(pid_t pid);
void inject_unwind_free(struct inject_unwind *u);

/* The pc of each frame of tid (the innermost first: where it is stopped,
 * then each return address, less one where it is a return address, so
 * that it lies in the call's function), at most n into pcs: how many,
 * when the unwinding reached the outermost frame (a frame whose CFI says
 * it has no caller: _start, clone's child) and every frame's pc is
 * covered by its module's .eh_frame; -1 else (a module or a handler
 * without CFI, JIT code, a stack it cannot read, more than n frames:
 * libdw itself goes on by the frame pointer there, and may skip a
 * frame): the caller cannot tell the frames then. Modules' files are
 * opened through /proc/PID/root (the process's mount namespace), with
 * their CFI, by inject_unwind_new(), before any stop. */
int inject_unwind_frames(struct inject_unwind *u, pid_t tid, int mem,
			 const struct user_regs_struct *regs, uint64_t *pcs,
			 int n);

#endif
