/* unwind.h — the tracer's own stack walk (x86-64), beside libunwind.
 *
 * vt_unwind() walks the calling thread's stack by the call frame
 * information of each module (.eh_frame, found through dl_iterate_phdr's
 * PT_GNU_EH_FRAME and .eh_frame_hdr's sorted table), as libunwind's fast
 * path (unw_backtrace) does, and gives the same addresses: each caller's
 * return address, from vt_unwind's caller up (vt_unwind's own frame is
 * not recorded, as unw_backtrace's is not); a caller's rule is looked up
 * at its return address less one (the call: a call may end a function).
 * Each address's rule (CFA = rsp or rbp + offset, the return address at
 * CFA-8, rbp unchanged or saved at CFA+k) is cached in the thread's struct
 * vt_uw, so a known frame costs a few loads.
 *
 * When anything is not of that simple form (a CFA by expression, a signal
 * frame, a register saved another way, an address in no module or no FDE,
 * a stack not known as the thread's own, a CFA outside it) vt_unwind returns -1
 * and the caller takes unw_backtrace() for the whole stack: the result is
 * libunwind's, or the same as libunwind's.
 *
 * Safety, inside the traced program: no malloc, no lock but
 * dl_iterate_phdr's (recursive, taken on a cache miss only, as libunwind
 * takes it), no system call, async-signal-safe otherwise. Reads of the
 * stack stay within the thread's stack ([the pc's sp, the stack's top)),
 * whose bounds are learnt without looking at /proc while the program
 * runs (a sandboxed program may forbid opening files from some point on,
 * and kill the process that tries: tests/live/test_trace_seccomp.py):
 * the main thread's at the library's start (vt_unwind_start: its [stack]
 * mapping's top, and down to the mapping below it or RLIMIT_STACK, where
 * it may grow); another thread's at its start (vt_unwind_thread, called
 * first thing in a thread the program makes through pthread_create: glibc
 * keeps a thread's descriptor at the top of its stack block, the block's
 * usable part below it as large as the size the thread was made with). A
 * walk from elsewhere (an alternate signal stack, a coroutine's, a thread
 * made another way: glibc's own helpers, one made before an attach) is
 * not made: -1, libunwind's. Reads of a module's .eh_frame happen
 * inside dl_iterate_phdr's callback (the module cannot be unmapped
 * meanwhile) and stay within its readable PT_LOAD segments. A struct
 * vt_uw is its thread's only: a signal handler's recording never runs
 * while the thread is inside vt_unwind (record.c's guard), so it needs no
 * atomics.
 *
 * Modules unloaded: vt_unwind_modules_changed() (the library's dlclose,
 * preloaded or attached) drops every thread's cached rules at its next
 * walk; so does a change of dl_iterate_phdr's dlpi_subs, which a walk
 * checks on a cache miss and every VT_UW_CHECK walks (an unload by the C
 * library itself, as iconv's modules, is seen that late). A rule never points into a module: a stale
 * one can only give a wrong caller, never a read outside the stack.
 *
 * Elsewhere than x86-64, vt_unwind always returns -1 (libunwind).
 */
#ifndef VMS_TRACE_UNWIND_H
#define VMS_TRACE_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#define VT_UW_CACHE 4096u /* rules cached a thread (direct-mapped) */
#define VT_UW_CHECK 256u /* walks between two looks at dlpi_subs */

struct vt_uw_rule {
	uintptr_t pc; /* the address looked up; 0: empty */
	int32_t cfa_off;
	int16_t bp_off; /* rbp saved at CFA+bp_off; 0: unchanged */
	uint8_t cfa_rbp; /* CFA from rbp (else rsp) */
	uint8_t kind; /* VT_UW_*: simple, the last frame, not simple */
};

/* A walk as it went, to be taken again: a walk from the same state (pc,
 * sp, and rbp where it is used) that reads the same words in the stack
 * gives the same addresses, so a walk that comes to a frame of the last
 * walk's compares the words that walk read (independent loads) instead of
 * stepping (a chain of dependent ones). */
#define VT_UW_FRAMES 64u
struct vt_uw_step {
	uintptr_t pc, sp, bp; /* the frame's state */
	uintptr_t cfa, ra; /* read: the return address at cfa - 8 */
	uintptr_t bp_at, bp_val; /* read: rbp saved at bp_at (0: none) */
	uint8_t uses_bp, sets_bp; /* its CFA is rbp's; rbp is restored */
	uint8_t need_bp; /* rbp's value here matters further up */
};
struct vt_uw_walk {
	unsigned steps; /* 0: none */
	int n; /* addresses given: the ra of steps [0, n) */
	int cut; /* stopped at the most asked for, not the stack's end */
	struct vt_uw_step s[VT_UW_FRAMES];
};

/* A thread's state, zeroed before its first walk. */
struct vt_uw {
	uintptr_t lo, hi; /* the thread's stack (hi: its top, exclusive) */
	unsigned walks;
	unsigned long gen; /* the modules' generation the rules are of */
	unsigned last; /* walk[last]: the last walk's */
	/* Of the last call: kept, its walk is now walk[last]; again, and it
	 * gave the same addresses as the walk kept before it (a caller that
	 * keeps what it made of a kept walk's addresses may take that). */
	uint8_t kept, again;
	/* Of the last call, when it returned -1: ip[0..partial) holds the
	 * frames walked before the one it could not (0: none). */
	int partial;
	struct vt_uw_walk walk[2];
	struct vt_uw_rule rules[VT_UW_CACHE];
};

/* Between unwind.c and unwind_eh.c: a rule's kinds; the rule at pc from
 * its module's .eh_frame (VT_UW_OTHER: none, or not of the simple form);
 * dl_iterate_phdr's dlpi_subs as a callback saw it. */
enum { VT_UW_EMPTY, VT_UW_SIMPLE, VT_UW_LAST, VT_UW_OTHER };
void vt_uw_eh_rule(uintptr_t pc, struct vt_uw_rule *out);
void vt_uw_note_subs(unsigned long long subs);

/* The calling thread's stack into ip[0..max): how many, or -1: not
 * walked (take unw_backtrace; u->partial says how far it came). */
int vt_unwind(struct vt_uw *u, void **ip, int max);

/* At the library's start (preloaded, or attached: in whichever thread):
 * the main thread's stack found now, in /proc/self/maps (the one time the
 * walk opens a file: before the program runs, or inside the attach). */
void vt_unwind_start(void);

/* First thing in a new thread (vmstrace.c's pthread_create wrapper): its
 * stack, as it was made: addr and size the program's own stack
 * (pthread_attr_setstack), or addr 0 and size the stack size glibc
 * allocated it with (the attribute's, or the default). A thread whose
 * stack pointer is not where that says is left unknown (libunwind's). */
void vt_unwind_thread(uintptr_t addr, size_t size);

/* A module was unloaded (dlclose): every thread's rules are dropped. */
void vt_unwind_modules_changed(void);

#endif
