/* selfcopy.c — vmscope makes the pages of the libraries it maps private
 * copies, in place (selfcopy.h says why).
 *
 * How: /proc/self/maps lists the mappings; for each private mapping of a
 * file in an object the dynamic loader mapped (dl_iterate_phdr), but
 * vmscope's own executable and the PROT_NONE gaps between a library's
 * parts (no page is there while nothing may touch one),
 *
 *     mprotect(range, PROT_READ | PROT_WRITE)
 *     madvise(range, MADV_POPULATE_WRITE)
 *     mprotect(range, what it was)
 *
 * A write fault on a private file mapping copies the page (copy on
 * write): after the populate every page of the range is an anonymous
 * copy, and the file's pages are mapped nowhere in vmscope; a page never
 * touched is a copy too, so none can be mapped later. Never writable and
 * executable at once. A kernel without MADV_POPULATE_WRITE (before 5.14:
 * EINVAL) gets each page written instead, a byte read and written back,
 * up to the end of the file (a page past it has nothing to share, and
 * would fault).
 *
 * While a library's code is not executable nothing of it may run: the
 * loop that changes the ranges (copy_all) makes its system calls itself,
 * calls no function, and is left out of the sanitizers' checks; no other
 * thread exists yet. What it needs is read before (a table of ranges).
 *
 * Not done, with the reason in selfcopy_why(): VMSCOPE_SHARED_LIBS set
 * (for debugging), or an architecture the loop's system calls are not
 * written for. A range the kernel refuses (a sealed mapping, the commit
 * limit) is left as it was, and said.
 *
 * This replaced copies into sealed memfds and a re-execution through the
 * copied loader: the same result for some 2 ms less a start (docs/
 * benchmarks.md, "Start-up").
 */
#include "linux/selfcopy.h"

#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
/* LeakSanitizer is in (ASan's): gcc says so by __SANITIZE_ADDRESS__,
 * clang by __has_feature */
#if defined(__SANITIZE_ADDRESS__)
#define VMS_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define VMS_LSAN 1
#endif
#endif
#ifdef VMS_LSAN
#include <sanitizer/lsan_interface.h>
#endif

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* vmscope maps some 10 ranges of 2 libraries (more with LD_PRELOAD). */
#define MAX_RANGES 128

struct range {
	uintptr_t lo, hi; /* the mapping */
	uintptr_t eof; /* where the file ends in it (hi when past it) */
	int prot; /* as it was */
	int err; /* 0: copied; else the errno, at what step */
	int step; /* 0 mprotect, 1 the copy, 2 mprotect back */
	unsigned long long ino; /* the file */
	dev_t dev;
};

static struct range ranges[MAX_RANGES];
static size_t nranges;
static const char *why = "not tried";
static char why_buf[200];
static char exe_path[4096];
static bool overflow; /* more ranges than the table holds: some not done */

void selfcopy_loader_begin(void)
{
#ifdef VMS_LSAN
	__lsan_disable();
#endif
}

void selfcopy_loader_end(void)
{
#ifdef VMS_LSAN
	__lsan_enable();
#endif
}

const char *selfcopy_why(void)
{
	return why;
}

const char *selfcopy_exe(void)
{
	if (!exe_path[0]) {
		ssize_t len = readlink("/proc/self/exe", exe_path,
				       sizeof(exe_path) - 1);

		exe_path[len > 0 ? len : 0] = '\0';
	}
	return exe_path[0] ? exe_path : NULL;
}

bool selfcopy_copied(uint64_t lo, uint64_t hi)
{
	size_t i;

	/* Ranges copied side by side: a mapping restored to the protection
	 * of the one before it is merged with it (libc's read-only data and
	 * its RELRO part), so a mapping may span several. */
	while (lo < hi) {
		for (i = 0; i < nranges; i++)
			if (!ranges[i].err && lo >= ranges[i].lo &&
			    lo < ranges[i].hi)
				break;
		if (i == nranges)
			return false;
		lo = ranges[i].hi;
	}
	return true;
}

/* The system calls of copy_all, made without libc (whose code may be
 * the range not executable at that moment). */
#if defined(__x86_64__)
#define HAVE_RAW 1
static inline long raw3(long nr, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}
#elif defined(__aarch64__)
#define HAVE_RAW 1
static inline long raw3(long nr, long a, long b, long c)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2)
			 : "memory");
	return x0;
}
#endif

#ifdef HAVE_RAW
/* Every range of the table copied; no call, no sanitizer check. */
__attribute__((noinline, no_sanitize("address", "undefined"))) static void
copy_all(void)
{
	size_t i;

	for (i = 0; i < nranges; i++) {
		struct range *g = &ranges[i];
		long len = (long)(g->hi - g->lo), r;

		if (g->prot == PROT_NONE)
			continue; /* no page while nothing may touch one */
		r = raw3(SYS_mprotect, (long)g->lo, len,
			 PROT_READ | PROT_WRITE);
		if (r < 0) {
			g->err = (int)-r;
			continue;
		}
		r = raw3(SYS_madvise, (long)g->lo, len, MADV_POPULATE_WRITE);
		/* EFAULT: a page past the end of the file, the rest too */
		if (r == -EINVAL && g->eof == g->lo) {
			r = -ENOENT; /* where the file ends is not known */
		} else if (r == -EINVAL) {
			volatile unsigned char *p;

			for (p = (volatile unsigned char *)g->lo;
			     (uintptr_t)p < g->eof; p += 4096)
				*p = *p;
			r = 0;
		}
		if (r < 0 && r != -EFAULT) {
			g->err = (int)-r;
			g->step = 1;
		}
		r = raw3(SYS_mprotect, (long)g->lo, len, g->prot);
		if (r < 0) {
			/* not reached with the range just changed back; said
			 * if it is, though what is not executable then may
			 * have ended the process already */
			g->err = (int)-r;
			g->step = 2;
		}
	}
}

/* One line of maps text into the table; false when it is not a range to
 * copy. */
static bool parse_line(const char *line, const struct range *own,
		       struct range *g)
{
	unsigned long long lo, hi, off, ino;
	unsigned maj, min;
	char perm[5];
	int at = 0;
	const char *path;
	struct stat st;

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &lo, &hi, perm,
		   &off, &maj, &min, &ino, &at) < 7 ||
	    !at || ino == 0 || perm[3] != 'p')
		return false;
	path = line + at;
	if (path[0] != '/')
		return false;
	if (own && ino == own->ino && makedev(maj, min) == own->dev)
		return false;
	g->lo = (uintptr_t)lo;
	g->hi = (uintptr_t)hi;
	g->ino = ino;
	g->dev = makedev(maj, min);
	g->prot = (perm[0] == 'r' ? PROT_READ : 0) |
		  (perm[1] == 'w' ? PROT_WRITE : 0) |
		  (perm[2] == 'x' ? PROT_EXEC : 0);
	g->err = 0;
	g->step = 0;
	/* The end of the file, for the page-by-page writes only: the path
	 * as maps names it, when it is still the file mapped. */
	g->eof = g->lo;
	if (stat(path, &st) == 0 && st.st_ino == (ino_t)ino &&
	    st.st_dev == (dev_t)makedev(maj, min) &&
	    (uint64_t)st.st_size > off) {
		uint64_t in = (uint64_t)st.st_size - off;

		g->eof = in >= hi - lo ? g->hi : g->lo + (uintptr_t)in;
	}
	return true;
}

/* The spans of the objects the dynamic loader has mapped (from the
 * first part of each to the end of its last, gaps included): what is
 * copied lies in one. Not another mapping of a file vmscope has: under
 * valgrind its tool's, which the program may not change. */
#define MAX_OBJS 64
static struct span {
	uintptr_t lo, hi;
} objs[MAX_OBJS];
static size_t nobjs;

static int object_span(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	size_t i;

	(void)size;
	(void)data;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = (uintptr_t)info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (lo < hi && nobjs < MAX_OBJS) {
		objs[nobjs].lo = lo & ~(uintptr_t)4095;
		objs[nobjs++].hi = (hi + 4095) & ~(uintptr_t)4095;
	}
	return nobjs == MAX_OBJS;
}

static bool in_an_object(uintptr_t lo, uintptr_t hi)
{
	size_t i;

	for (i = 0; i < nobjs; i++)
		if (lo >= objs[i].lo && hi <= objs[i].hi)
			return true;
	return false;
}

/* The table from /proc/self/maps; false when it cannot be read. The
 * file whose range holds copy_all is left out: its code cannot be made
 * not executable while it runs (vmscope's executable, however started:
 * /proc/self/exe is the loader when the loader was run by hand). */
static bool collect(void)
{
	char line[4096 + 128];
	FILE *f = fopen("/proc/self/maps", "re");
	struct range own = { 0 };
	bool have_own = false;
	uintptr_t code = (uintptr_t)copy_all;

	nobjs = 0;
	dl_iterate_phdr(object_span, NULL);

	if (!f) {
		snprintf(why_buf, sizeof(why_buf),
			 "cannot read /proc/self/maps: %s", strerror(errno));
		why = why_buf;
		return false;
	}
	while (!have_own && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && lo <= code &&
		    code < hi)
			have_own = parse_line(line, NULL, &own);
	}
	rewind(f);
	nranges = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (nranges == MAX_RANGES) {
			overflow = true;
			break;
		}
		if (parse_line(line, have_own ? &own : NULL,
			       &ranges[nranges]) &&
		    in_an_object(ranges[nranges].lo, ranges[nranges].hi))
			nranges++;
	}
	fclose(f);
	if (!have_own) {
		/* not from a file vmscope can tell: nothing is touched */
		nranges = 0;
		why = "its own code is in no file it can tell";
		return false;
	}
	return true;
}

/* why = the first range not copied, by the file's name */
static void say_failed(void)
{
	static const char *const steps[] = { "make it writable",
					     "copy its pages",
					     "restore its protection" };
	size_t i, bad = 0;
	const struct range *first = NULL;

	for (i = 0; i < nranges; i++)
		if (ranges[i].err && !bad++)
			first = &ranges[i];
	if (!first) {
		if (overflow)
			why = "more library ranges than it can copy";
		return;
	}
	snprintf(why_buf, sizeof(why_buf),
		 "cannot copy %zu of %zu ranges of its libraries (the one at "
		 "%#" PRIxPTR ": cannot %s: %s)",
		 bad, nranges, first->lo, steps[first->step],
		 strerror(first->err));
	why = why_buf;
}
#endif

void selfcopy_run(void)
{
	const char *v;

	if ((v = getenv("VMSCOPE_SHARED_LIBS")) && *v) {
		why = "VMSCOPE_SHARED_LIBS is set";
		return;
	}
#ifndef HAVE_RAW
	why = "not built for this architecture";
#else
	if (!collect())
		return;
	why = NULL;
	if (nranges)
		copy_all();
	say_failed();
#endif
}
