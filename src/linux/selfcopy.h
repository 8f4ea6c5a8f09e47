/* selfcopy.h — vmscope runs from private copies of the libraries it maps,
 * so that looking changes nothing.
 *
 * The kernel counts a resident page Shared (and halves its PSS) when a
 * second process maps it. vmscope maps ld.so, libc, ncursesw, libproc2 and
 * what they pull in; every page of those files that both vmscope and the
 * target touched would read Shared while vmscope looks, and the target's
 * Private, USS and PSS low (a stopped target loading vmscope's libraries:
 * USS 4,428 K unobserved, 3,240 K through vmscope). So vmscope, before it
 * reads anything, copies each library it has mapped into a sealed memfd and
 * re-executes itself through the copied dynamic loader with the copies
 * preloaded: pages of other inodes, mapped by nothing else.
 * docs/samplers.md, "Looking changes nothing", gives the measurements and
 * the alternatives.
 *
 * selfcopy_run() is called in main() before anything is read (not for a
 * run that only prints saved files: cli/main.c). In the process that
 * started it copies and executes itself again, and returns only when that
 * could not be done; vmscope then runs on the system's libraries, and
 * selfcopy_why() says why (the capture notes it: src/linux/observer.h).
 * In the re-executed process it settles (selfcopy_settle) and returns.
 * Never exits. Not thread-safe: call it before any thread exists.
 */
#ifndef VMSCOPE_SELFCOPY_H
#define VMSCOPE_SELFCOPY_H

#include <stdbool.h>

/* In the re-executed process: closes the copies' descriptors and moves
 * argv's strings back where the kernel put the first process's (so call it
 * before anything keeps a pointer into argv), and returns true. Elsewhere
 * it does nothing and returns false. */
bool selfcopy_settle(char **argv);
/* argv as main() got it, in the order typed (getopt reorders the array).
 * Settles first when selfcopy_settle() was not called. */
void selfcopy_run(char **argv);
/* Around a call that may make the dynamic loader allocate (an NSS lookup
 * that loads a module, a dlopen). In a sanitizer build run from the
 * copies, LeakSanitizer cannot tell the loader's allocations from leaks:
 * it knows the loader by AT_BASE, 0 when the loader is the program, as
 * here; the TLS of a module NSS loaded was reported (92 bytes, at the
 * first user name looked up past /etc/passwd: --list beside a process
 * of a uid with no name), and the leak report's early exit lost the end
 * of the list. The allocations between are not reported; pairs nest,
 * per thread. Elsewhere they do nothing. */
void selfcopy_loader_begin(void);
void selfcopy_loader_end(void);
/* NULL when vmscope runs from private copies; else why it does not. */
const char *selfcopy_why(void);
/* The path of vmscope's own executable (what /proc/self/exe named before
 * the re-execution made it the copied loader), or NULL. */
const char *selfcopy_exe(void);

#endif
