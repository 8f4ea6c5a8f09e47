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
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <locale.h>
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
	int step; /* 0 mprotect, 1 the copy, 2 mprotect back, 3 not tried */
	unsigned long long ino; /* the file */
	dev_t dev;
};

static struct range ranges[MAX_RANGES];
static size_t nranges;
static const char *why = "not tried";
static char why_buf[200], why_locale[200];
static char exe_path[4096];
static bool overflow; /* more ranges than the table holds: some not done */
static uintptr_t page = 4096; /* the page size (aarch64: 4, 16 or 64 K) */
static bool ran; /* selfcopy_run() copied (some of) its libraries */
static struct range own_file; /* vmscope's executable (ino, dev) */

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

/* The path of the file mapped where this function's code is, from
 * /proc/self/maps: vmscope's executable however it was started (run by
 * hand through the loader, /proc/self/exe is the loader). */
static void own_path(void)
{
	uintptr_t code = (uintptr_t)own_path;
	char line[4096 + 128];
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		int at = 0;

		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &lo, &hi,
			   &at) == 2 &&
		    at && lo <= code && code < hi && line[at] == '/') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(exe_path, sizeof(exe_path), "%s", line + at);
			break;
		}
	}
	if (f)
		fclose(f);
}

const char *selfcopy_exe(void)
{
	if (!exe_path[0])
		own_path();
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
	size_t n = __atomic_load_n(&nranges, __ATOMIC_ACQUIRE);

	while (lo < hi) {
		for (i = 0; i < n; i++)
			if (!ranges[i].err && lo >= ranges[i].lo &&
			    lo < ranges[i].hi)
				break;
		if (i == n)
			return false;
		lo = ranges[i].hi;
	}
	return true;
}

/* The system calls of copy_all, made without libc (whose code may be
 * the range not executable at that moment): inlined into it, with no
 * sanitizer's or instrumentation's call in them. */
#define RAW_ATTR                                                               \
	__attribute__((always_inline, no_sanitize("address", "undefined"),     \
		       no_instrument_function))
#if defined(__x86_64__)
#define HAVE_RAW 1
RAW_ATTR static inline long raw3(long nr, long a, long b, long c)
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
RAW_ATTR static inline long raw3(long nr, long a, long b, long c)
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
#if defined(__has_attribute)
#if __has_attribute(no_stack_protector)
#define NO_SSP __attribute__((no_stack_protector))
#endif
#endif
#ifndef NO_SSP
#define NO_SSP
#endif
/* Range g copied (unless marked not to be): made writable, populated
 * for writing, its protection given back; g->err and g->step say what
 * failed. Inlined into copy_all, so calls nothing either. */
RAW_ATTR NO_SSP static inline void copy_range(struct range *g)
{
	long len = (long)(g->hi - g->lo), r;

	if (g->prot == PROT_NONE || g->err)
		return; /* no page while nothing may touch one */
	r = raw3(SYS_mprotect, (long)g->lo, len, PROT_READ | PROT_WRITE);
	if (r < 0) {
		g->err = (int)-r;
		return;
	}
	r = raw3(SYS_madvise, (long)g->lo, len, MADV_POPULATE_WRITE);
	/* EFAULT: a page past the end of the file, the rest too, where the
	 * file is known to end in the range */
	if (r == -EFAULT && g->eof < g->hi && g->eof > g->lo) {
		r = 0;
	} else if (r == -EINVAL && g->eof == g->lo) {
		r = -ENOENT; /* where the file ends is not known */
	} else if (r == -EINVAL) {
		volatile unsigned char *p;

		for (p = (volatile unsigned char *)g->lo; (uintptr_t)p < g->eof;
		     p += page)
			*p = *p;
		r = 0;
	}
	if (r < 0) {
		g->err = (int)-r;
		g->step = 1;
	}
	r = raw3(SYS_mprotect, (long)g->lo, len, g->prot);
	if (r < 0) {
		/* not reached: exec_again() said code may be made executable
		 * again, and nothing else differs from the protection the
		 * range had */
		g->err = (int)-r;
		g->step = 2;
	}
}

/* Ranges [from, to) of the table copied; no call, no sanitizer
 * check, no instrumentation: tests/code/test_selfcopy_code.py reads the
 * built code for a call or jump out of it. */
__attribute__((noinline, no_sanitize("address", "undefined"),
	       no_instrument_function)) NO_SSP static void
copy_all(size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		copy_range(&ranges[i]);
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
		objs[nobjs].lo = lo & ~(page - 1);
		objs[nobjs++].hi = (hi + page - 1) & ~(page - 1);
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

/* Whether code may be made executable again once written, as copy_all
 * does to a library's: tried on a private page of vmscope's own file.
 * Refused under MDWE (prctl PR_MDWE_REFUSE_EXEC_GAIN; systemd's
 * MemoryDenyWriteExecute=) and by SELinux's execmod; copy_all would then
 * leave the library's code not executable, and vmscope would stop at its
 * next call into it. */
static bool exec_again(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	volatile char *m;
	bool ok;

	if (fd < 0)
		return false;
	m = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return false;
	ok = mprotect((void *)m, page, PROT_READ | PROT_WRITE) == 0;
	if (ok) {
		m[0] = m[0]; /* copied on write, as a library's page is */
		ok = mprotect((void *)m, page, PROT_READ | PROT_EXEC) == 0;
	}
	munmap((void *)m, page);
	return ok;
}

/* The table from /proc/self/maps (smaps on aarch64, for its VmFlags);
 * false when it cannot be read. The file whose range holds copy_all is
 * left out: its code cannot be made not executable while it runs
 * (vmscope's executable, however started: /proc/self/exe is the loader
 * when the loader was run by hand). */
static bool collect(void)
{
#ifdef __aarch64__
	const char *list = "/proc/self/smaps";
#else
	const char *list = "/proc/self/maps";
#endif
	char line[4096 + 128];
	FILE *f = fopen(list, "re");
	struct range own = { 0 }, *last = NULL;
	bool have_own = false;
	uintptr_t code = (uintptr_t)copy_all;
	long pg = sysconf(_SC_PAGESIZE);

	if (pg > 0)
		page = (uintptr_t)pg;
	nobjs = 0;
	dl_iterate_phdr(object_span, NULL);
	if (!f) {
		snprintf(why_buf, sizeof(why_buf), "cannot read %s: %s", list,
			 strerror(errno));
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
		struct range g;

		line[strcspn(line, "\n")] = '\0';
#ifdef __aarch64__
		/* a range the loader guards (BTI) keeps its guard; the flags
		 * are of the mapping whose header came last */
		if (line[0] != ' ' && strchr(line, '-') &&
		    strchr(line, '-') < strchr(line, ' '))
			last = NULL;
		if (!strncmp(line, "VmFlags:", 8)) {
			if (last && strstr(line, " bt"))
				last->prot |= 0x10; /* PROT_BTI */
			last = NULL;
			continue;
		}
#endif
		if (!parse_line(line, have_own ? &own : NULL, &g) ||
		    !in_an_object(g.lo, g.hi))
			continue;
		if (nranges == MAX_RANGES) {
			overflow = true;
			break;
		}
		ranges[nranges] = g;
		last = &ranges[nranges++];
	}
	(void)last;
	fclose(f);
	own_file = own;
	if (!have_own) {
		/* not from a file vmscope can tell: nothing is touched */
		nranges = 0;
		why = "its own code is in no file it can tell";
		return false;
	}
	return true;
}

/* why = how many ranges were not copied, the first by its address,
 * written into buf (selfcopy_setlocale writes another than selfcopy_run:
 * a reader of why never sees it rewritten) */
static void say_failed(char *buf, size_t n)
{
	static const char *const steps[] = {
		"make it writable", "copy its pages", "restore its protection",
		"make its code executable again (MDWE or a security policy "
		"refuses it)"
	};
	size_t i, bad = 0, all = 0;
	const struct range *first = NULL;

	for (i = 0; i < nranges; i++) {
		all += ranges[i].prot != PROT_NONE;
		if (ranges[i].err && !bad++)
			first = &ranges[i];
	}
	if (!first) {
		if (overflow)
			why = "more library ranges than it can copy";
		return;
	}
	snprintf(buf, n,
		 "cannot copy %zu of %zu ranges of its libraries (the one at "
		 "%#" PRIxPTR ": cannot %s%s%s)",
		 bad, all, first->lo, steps[first->step],
		 first->step == 3 ? "" : ": ",
		 first->step == 3 ? "" : strerror(first->err));
	why = buf;
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
	ran = true;
	if (nranges && !exec_again()) {
		size_t i;

		for (i = 0; i < nranges; i++)
			if (ranges[i].prot & PROT_EXEC) {
				ranges[i].err = EACCES;
				ranges[i].step = 3;
			}
	}
	if (nranges)
		copy_all(0, nranges);
	say_failed(why_buf, sizeof(why_buf));
#endif
}

#ifdef HAVE_RAW
/* The mappings of files now, as spans, into out (at most n): how many;
 * -1 when maps cannot be read or holds more. */
static long file_spans(struct span *out, size_t n)
{
	char line[4096 + 128];
	FILE *f = fopen("/proc/self/maps", "re");
	size_t k = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, ino;
		char perm[5];

		if (sscanf(line, "%llx-%llx %4s %*s %*s %llu", &lo, &hi, perm,
			   &ino) != 4 ||
		    !ino)
			continue;
		if (k == n) {
			fclose(f);
			return -1;
		}
		out[k].lo = (uintptr_t)lo;
		out[k++].hi = (uintptr_t)hi;
	}
	fclose(f);
	return (long)k;
}

static bool overlaps(const struct span *before, long nb, uintptr_t lo,
		     uintptr_t hi)
{
	long i;

	for (i = 0; i < nb; i++)
		if (lo < before[i].hi && before[i].lo < hi)
			return true;
	return false;
}

/* A shared read-only mapping of a file (glibc's gconv-modules.cache)
 * replaced by a private anonymous copy of it at the same place: nothing
 * writes it, and its pages are then mapped by nothing else. Left as it
 * is on any failure. */
static void replace_shared(uintptr_t lo, uintptr_t hi)
{
	size_t len = hi - lo;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return;
	memcpy(m, (const void *)lo, len);
	if (mprotect(m, len, PROT_READ) < 0 ||
	    mremap(m, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo) ==
		    MAP_FAILED)
		munmap(m, len);
}

/* What setlocale maps that vmscope copies: a category's file of a locale
 * (/usr/lib/locale/C.utf8/LC_CTYPE), the locale archive up to 8 MiB (a
 * system with every language has one of 220 MB, all of it one mapping:
 * left, and said), glibc's gconv-modules.cache (shared). */
#define MAX_ARCHIVE (8u << 20)
static bool locale_file(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strstr(path, "/locale/") &&
	       (!strncmp(base, "LC_", 3) || !strcmp(base, "SYS_LC_MESSAGES") ||
		!strcmp(base, "locale-archive"));
}

/* The ranges of locale files mapped since before[0..nb) was listed:
 * private ones copied in place and then put in the table (published
 * copied: a capture thread's observer may read the table), shared ones
 * replaced by a copy. */
static void adopt_new(const struct span *before, long nb)
{
	char line[4096 + 128];
	FILE *f = fopen("/proc/self/maps", "re");
	size_t from = nranges, to = nranges, nshared = 0, i;
	struct span shared[16];
	const char *skipped = NULL;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct range g;
		unsigned long long lo, hi, ino;
		char perm[5];
		int at = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llx-%llx %4s %*s %*s %llu %n", &lo, &hi,
			   perm, &ino, &at) != 4 ||
		    !ino || !at ||
		    overlaps(before, nb, (uintptr_t)lo, (uintptr_t)hi))
			continue;
		if (!strcmp(perm, "r--s")) {
			const char *base = strrchr(line + at, '/');

			if (base && !strcmp(base, "/gconv-modules.cache") &&
			    nshared < 16) {
				shared[nshared].lo = (uintptr_t)lo;
				shared[nshared++].hi = (uintptr_t)hi;
			}
			continue;
		}
		if (!locale_file(line + at) ||
		    !parse_line(line, &own_file, &g) || (g.prot & PROT_EXEC) ||
		    g.prot == PROT_NONE)
			continue;
		if (g.hi - g.lo > MAX_ARCHIVE) {
			skipped =
				"cannot copy the locale's archive (over "
				"8 MiB): run it with LANG=C for exact figures "
				"where a target maps it too";
			continue;
		}
		if (to == MAX_RANGES) {
			overflow = true;
			break;
		}
		ranges[to++] = g;
	}
	fclose(f);
	for (i = 0; i < nshared; i++)
		replace_shared(shared[i].lo, shared[i].hi);
	if (to > from)
		copy_all(from, to);
	__atomic_store_n(&nranges, to, __ATOMIC_RELEASE);
	if (skipped) {
		why = skipped;
		return;
	}
	if (to > from)
		say_failed(why_locale, sizeof(why_locale));
}
#endif

char *selfcopy_setlocale(int category, const char *locale)
{
#ifdef HAVE_RAW
	static struct span before[512];
	long nb = ran ? file_spans(before, 512) : -1;
	char *r = setlocale(category, locale);

	if (nb >= 0)
		adopt_new(before, nb);
	else if (ran)
		why = "cannot copy the locale's data (more mappings of "
		      "files than it lists)";
	return r;
#else
	return setlocale(category, locale);
#endif
}
