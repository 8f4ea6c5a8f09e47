/* unwpipe.c — libunwind's pipe out of the program's descriptors.
 *
 * libunwind (1.6, x86_64: Ginit.c) checks an address it is unsure of (a
 * frame it guessed, a step without unwind information) by writing a byte
 * of it into a pipe of its own: made at its first use (pipe2), made again
 * whenever a read of it fails (closing first whatever the numbers it kept
 * then name). Made among the program's descriptors, it took the two
 * lowest free ones: a launched command's first open() returned 5, not 3,
 * and an attach left the pair behind; a program that closed those numbers
 * and opened its own files there would have libunwind read from and write
 * into them (tests/live/test_trace_fds.py).
 *
 * So libunwind's pipe2 entry (its GOT, as attach.c redirects the malloc
 * family's) is redirected here before libunwind is first called (the
 * library's start: start.c, find_modules): the pipe is made, and each end
 * moved to the lowest free descriptor from the top of the range down by
 * two (below the soft RLIMIT_NOFILE, 1024 at most: no larger a table
 * than a program's usual one), where a program that takes the lowest free
 * descriptor comes last. A program that uses libunwind itself shares it:
 * its pipe, if made already, stays where it is. Where the entry cannot be
 * found (another libunwind, linked statically), the pipe is made as
 * before.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "vmstrace.h"

/* libunwind's pipe2: the pipe, each end moved to the top of the range.
 * What pipe2 returned, errno as it left it. */
static int unw_pipe2(int fds[2], int flags)
{
	int p[2], i, top = 1024, saved;
	struct rlimit rl;

	if (pipe2(p, flags) < 0)
		return -1;
	saved = errno;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)top)
		top = (int)rl.rlim_cur;
	for (i = 0; i < 2; i++) {
		int h = -1;

		if (top - 2 > p[i])
			h = fcntl(p[i],
				  (flags & O_CLOEXEC) ? F_DUPFD_CLOEXEC
						      : F_DUPFD,
				  top - 2);
		if (h >= 0) {
			close(p[i]);
			p[i] = h;
		}
	}
	fds[0] = p[0];
	fds[1] = p[1];
	errno = saved;
	return 0;
}

static void redirect(const struct dl_phdr_info *info, const struct vt_dyn *d,
		     const ElfW(Rela) * r, size_t bytes)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t i, n = r ? bytes / sizeof(*r) : 0;

	for (i = 0; i < n; i++) {
		unsigned type = (unsigned)ELF64_R_TYPE(r[i].r_info);
		size_t sym = ELF64_R_SYM(r[i].r_info);
		uintptr_t *p;
		void *page;
		bool relro;

		if ((type != R_SLOT && type != R_GLOB) || !sym ||
		    strcmp(d->strtab + d->symtab[sym].st_name, "pipe2") != 0)
			continue;
		p = (uintptr_t *)(info->dlpi_addr + r[i].r_offset);
		page = (void *)((uintptr_t)p & ~(uintptr_t)(pg - 1));
		relro = vt_phdr_holds(info, (uintptr_t)p, PT_GNU_RELRO);
		if (relro &&
		    mprotect(page, (size_t)pg, PROT_READ | PROT_WRITE) < 0)
			continue;
		__atomic_store_n(p, (uintptr_t)unw_pipe2, __ATOMIC_RELEASE);
		if (relro)
			mprotect(page, (size_t)pg, PROT_READ);
	}
}

static int aside_in(struct dl_phdr_info *info, size_t size, void *ctx)
{
	uintptr_t at = *(uintptr_t *)ctx;
	struct vt_dyn d;

	(void)size;
	if (!vt_phdr_holds(info, at, PT_LOAD))
		return 0;
	if (vt_read_dyn(info, &d)) {
		redirect(info, &d, d.jmprel, d.jmprelsz);
		redirect(info, &d, d.rela, d.relasz);
	}
	return 1;
}

void vt_unw_pipe_aside(uintptr_t unw_at)
{
	static int done;
	int saved = errno;

	if (!unw_at || __atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
		return;
	dl_iterate_phdr(aside_in, &unw_at);
	errno = saved;
}
