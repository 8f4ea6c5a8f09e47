/* selfcopy.h — vmscope holds private copies of the libraries it maps, so
 * that looking changes nothing.
 *
 * The kernel counts a resident page Shared (and halves its PSS) when a
 * second process maps it. vmscope maps ld.so and libc (its other
 * libraries are linked from their static archives); every page of those
 * files that both vmscope and the target touched would read Shared while
 * vmscope looks, and the target's
 * Private, USS and PSS low (a stopped target loading vmscope's libraries:
 * USS 4,428 K unobserved, 3,240 K through vmscope). So vmscope, before it
 * reads anything, turns every page of each library it has mapped into a
 * private anonymous copy, in place: the ranges stay where the loader put
 * them, named as before in /proc/self/maps, but hold no page of the file,
 * now or later. docs/samplers.md, "Looking changes nothing", gives the
 * measurements and the alternatives.
 *
 * selfcopy_run() is called in main() before anything is read (not for a
 * run that only prints saved files: cli/main.c), before any thread
 * exists. Never exits, never prints. Not thread-safe.
 */
#ifndef VMSCOPE_SELFCOPY_H
#define VMSCOPE_SELFCOPY_H

#include <stdbool.h>
#include <stdint.h>

/* Copies, in place, every private mapping of a file in the objects the
 * dynamic loader mapped (but vmscope's own executable, and the PROT_NONE
 * gaps between a library's parts). When a range cannot be copied it is
 * left as it was and selfcopy_why() says why; the others are copied
 * still. Where code may not be made executable again once written (MDWE,
 * a security policy), the libraries' code is left, and said. */
void selfcopy_run(void);
/* setlocale(category, locale), then the files it mapped (the locale's
 * data) copied in place as the libraries are, when selfcopy_run() copied
 * them: a viewer in a UTF-8 locale maps LC_CTYPE, which a target in the
 * same locale maps too. Call it before the captures' threads begin (it
 * adds to what selfcopy_copied() knows). Code a locale loads (a gconv
 * module) is not copied. */
char *selfcopy_setlocale(int category, const char *locale);
/* Around a call that may make the dynamic loader allocate (an NSS lookup
 * that loads a module, a dlopen), in a sanitizer build: LeakSanitizer
 * reported the TLS of a module NSS loaded (92 bytes, at the first user
 * name looked up past /etc/passwd: --list beside a process of a uid with
 * no name) when vmscope ran re-executed through a copied loader, as it
 * did before the copies were made in place; kept, as a run on another
 * loader may still be. The allocations between are not reported; pairs
 * nest, per thread. Elsewhere they do nothing. */
void selfcopy_loader_begin(void);
void selfcopy_loader_end(void);
/* NULL when every library vmscope maps was copied; else why not ("not
 * tried" before selfcopy_run()). */
const char *selfcopy_why(void);
/* Whether [lo, hi) of vmscope's own address space lies in a range
 * selfcopy_run() copied (the observer leaves those out: they hold none of
 * the file's pages). */
bool selfcopy_copied(uint64_t lo, uint64_t hi);
/* The path of vmscope's own executable (the file its code is mapped
 * from; /proc/self/exe when that cannot be read), or NULL. */
const char *selfcopy_exe(void);

#endif
