/* vmstrace.c — libvmstrace.so, the tracer vmscope preloads into a command
 * it starts with --trace (src/trace/tracer.h). It interposes the malloc
 * family and the mmap family the program calls, forwards each call to the
 * next definition (glibc's, or the jemalloc or tcmalloc the program links:
 * it keeps its allocator), and records the call, its result, its thread,
 * a monotonic time and its call stack into the thread's ring of the shared
 * file vmscope made (src/base/tracewire.h says the layout). It interposes
 * dlclose too, only to forward it and know a module went (the stack
 * walk's cached rules go with it), and pthread_create, only to forward it
 * and note the new thread's stack first thing in it (unwind.h).
 *
 * The mmap family (mmap, munmap, mremap, brk, sbrk, mprotect: a commit of
 * pages reserved with PROT_NONE is vmscope's to tell) is recorded when
 * the program calls it, not when the allocator does inside a malloc-family
 * call (vt_inside: jemalloc's extents, tcmalloc's sbrk; glibc's own calls
 * are internal, unseen anyway): those maps are the allocator's for the
 * blocks recorded, and counted twice else. Attached with the kernel's
 * trace beside it (base/tracewire.h: kernel_maps), the mmap family is
 * forwarded unrecorded: the kernel sees each call, and leaves out those
 * made while vt_inside is set.
 *
 * What the program sees does not change: every call returns what the next
 * definition returned, errno as it left it; the library takes no file
 * descriptor (the shared file's is closed once it is mapped; /proc/self/
 * maps is read once at the start), prints
 * nothing, and takes itself and VMSCOPE_TRACE_FD out of the environment, so
 * the program's children (exec) run untraced; a forked child that does not
 * exec records nothing (the rings are its parent's). Unless asked to follow
 * them (--trace-children: TW_FOLLOW_ENV, follow.c): then LD_PRELOAD and
 * TW_FOLLOW_ENV stay, and each child, exec'd or forked, records into a
 * file of its own that it sends vmscope (tracewire.h).
 *
 * System calls: a program may forbid some from a point on (a seccomp
 * filter installed after its start, for every thread, killing the process
 * on an open: tests/live/test_trace_seccomp.py), so the library makes
 * none the program's own calls would not make, but at its start (the
 * constructor, or a launch's first call the library sees if it comes
 * before: vmstrace.h's vt_early; or vmstrace_attach inside vmscope's
 * injection, in a thread without a seccomp filter: inject_call.h) and at
 * a detach (vmstrace_detach, injected the same way): there fstat, mmap
 * and close (the shared file's descriptor), readlink (/proc/self/exe),
 * getcwd, openat, read and close (/proc/self/maps: the main thread's
 * stack), getrlimit, madvise, stat (/proc/self/ns/pid: record.c,
 * consumer_gone), and libunwind's set-up; attached,
 * also openat of the shared file, a readlink of /proc/self/map_files and
 * mremap (a later attach's file in the last one's place), and mprotect
 * around the GOT entries it redirects and puts back (attach.c). While the program runs, only
 * these:
 *   - mmap, a thread's first recorded call (its state: rings' slot, stack
 *     ids, the walk's rules), munmap at its end; the program's allocator
 *     maps at the same points (a thread's first malloc makes its arena);
 *   - gettid, once a thread (its ring names it);
 *   - clock_gettime (the vDSO's: no system call where the clock source
 *     allows it, as on every x86-64 machine);
 *   - readlink of /proc/self/map_files/LO-HI, once for each module the
 *     loader named by a relative path (LD_LIBRARY_PATH=., dlopen("./x")),
 *     as its first stack is sent (record.c: relative_file);
 *   - sched_yield and clock_gettime while a ring is full (whether
 *     vmscope lives is its robust lock's word, read, no call:
 *     tracewire.h, consumer_lock; kill(vmscope's pid, 0) then only with
 *     a file without the lock, in vmscope's pid namespace) (vmscope lags:
 *     waiting for it, or finding it gone: then
 *     madvise, MADV_REMOVE, once, the rings' pages given back), and at
 *     exit() while vmscope takes its last snapshot (-w FILE: tracewire.h,
 *     exit_hold); sched_yield while another thread sends the modules
 *     list;
 *   - mprotect, at the program's own dlopen when attached (attach.c: the
 *     new module's GOT in RELRO);
 *   - whatever libunwind makes, for a stack the own walk declines (its
 *     caches' mmap at a thread's first use);
 *   - with --trace-children only (follow.c), once a process: memfd_create,
 *     ftruncate, fcntl, mmap, stat (a forked child's pid namespace),
 *     pidfd_open, socket, sendmsg (and nanosleep,
 *     200 ms at most, while vmscope's queue is full) to send its own file
 *     or count itself, at its start (exec'd) or first call (forked).
 * No file is opened while the program runs: a thread's stack bounds, which
 * the stack walk needs, come from its start (pthread_create is interposed
 * for that only: unwind.h), the main thread's from the library's start.
 *
 * Stacks: from the call frame information every Debian library carries
 * in .eh_frame (frame pointers would lose the callers of anything that
 * allocates inside libc or libstdc++): the library's own walk (unwind.h,
 * a few loads a frame once its rules are cached), or libunwind's
 * unw_backtrace() where that declines (a signal frame, a rule of another
 * form) or always with VMSCOPE_TRACE_UNWIND=libunwind in the program's
 * environment; without the library's own frames, interned per thread by a
 * 64-bit hash of the return addresses (tracewire.h: a stack is sent once
 * per thread).
 *
 * Never blocks for long (tracewire.h): a full ring waits while vmscope's
 * heartbeat moves, and at most TW_WAIT_NS without it; vmscope gone (its
 * pid no longer exists, asked from its pid namespace only) or too slow
 * sets pass-through for good.
 *
 * Reentrancy: libunwind, dlsym and the library's own work may call malloc;
 * a per-thread guard forwards such calls unrecorded. Before dlsym has
 * answered, allocations come from a small static buffer, never freed.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libunwind.h>
#include <link.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "unwind.h"
#include "vmstrace.h"

/* (sys/mman.h has it from glibc 2.32 and Linux 5.7) */
#define MREMAP_DONTUNMAP_ 4

/* ---- the next definitions ---- */

void *(*next_malloc)(size_t);
void (*next_free)(void *);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static void *(*next_reallocarray)(void *, size_t, size_t);
static int (*next_posix_memalign)(void **, size_t, size_t);
static void *(*next_aligned_alloc)(size_t, size_t);
static void *(*next_memalign)(size_t, size_t);
static void *(*next_valloc)(size_t);
static void *(*next_pvalloc)(size_t);
void *(*next_mmap)(void *, size_t, int, int, int, off_t);
int (*next_munmap)(void *, size_t);
void *(*next_mremap)(void *, size_t, size_t, int, ...);
static int (*next_mprotect)(void *, size_t, int);
static int (*next_brk)(void *);
static void *(*next_sbrk)(intptr_t);
static int (*next_dlclose)(void *);
int (*next_pthread_create)(pthread_t *, const pthread_attr_t *,
			   void *(*)(void *), void *);

/* Before dlsym has answered: a bump buffer (dlsym's own calloc). */
static unsigned char boot_buf[64 << 10] __attribute__((aligned(16)));
static size_t boot_used;

static bool in_boot(const void *p)
{
	return (const unsigned char *)p >= boot_buf &&
	       (const unsigned char *)p < boot_buf + sizeof(boot_buf);
}

static void *boot_alloc(size_t n)
{
	size_t at = (boot_used + 15) & ~(size_t)15;

	if (n > sizeof(boot_buf) - at)
		return NULL;
	boot_used = at + n;
	return boot_buf + at;
}

static int resolving; /* dlsym is running */
TLS int in_cxx;

/* Most blocks pass sampling over without a call (vmstrace.h). Inside
 * C++'s new (in_cxx) the block is the new's, which records it once it
 * returns: neither recorded nor counted by sampling here (counted twice,
 * its bytes would be sampled twice as often as they are weighed; taken
 * into the sampled set here, it would be there unrecorded). */
#define ALLOCATED(p, n)                                                        \
	do {                                                                   \
		if (!in_cxx && !vt_passed_over((p), (n)))                      \
			vt_allocated((p), (n));                                \
	} while (0)

/* A block freed: by sampling only if it was recorded (vmstrace.h);
 * inside C++'s delete, which records it, nothing. Sampling's test first:
 * most frees of a sampled trace end there, without the thread's TLS. */
#define FREED(p)                                                               \
	do {                                                                   \
		if (!vt_free_passed_over(p) && !in_cxx)                        \
			vt_freed(p);                                           \
	} while (0)

/* A call this library records that may call another it interposes
 * (libstdc++'s new[] calls new; glibc's reallocarray calls realloc
 * through the PLT): the outer call is the program's, the inner one
 * records nothing. */
static void cxx_leave(int *was)
{
	in_cxx = *was;
}

#define CXX_CALL(expr)                                                         \
	do {                                                                   \
		int cxx_was __attribute__((cleanup(cxx_leave))) = in_cxx;      \
		in_cxx = 1;                                                    \
		expr;                                                          \
	} while (0)

/* ---- start ---- */

/* Preloaded: the definition after this library's (RTLD_NEXT). Loaded
 * into a running process (attach.c): the one the program's own lookups
 * find (RTLD_DEFAULT: this library, loaded RTLD_LOCAL, is not in the
 * global scope), which is the program's allocator, jemalloc's as much as
 * glibc's; RTLD_NEXT would skip to the one after this library's own
 * dependencies. */
bool vt_attach_mode;

void *vt_sym(const char *name)
{
	return dlsym(vt_attach_mode ? RTLD_DEFAULT : RTLD_NEXT, name);
}

void vt_resolve(void)
{
	if (next_malloc || resolving)
		return;
	resolving = 1;
	next_free = vt_sym("free");
	next_calloc = vt_sym("calloc");
	next_realloc = vt_sym("realloc");
	next_reallocarray = vt_sym("reallocarray");
	next_posix_memalign = vt_sym("posix_memalign");
	next_aligned_alloc = vt_sym("aligned_alloc");
	next_memalign = vt_sym("memalign");
	next_valloc = vt_sym("valloc");
	next_pvalloc = vt_sym("pvalloc");
	next_mmap = vt_sym("mmap");
	next_munmap = vt_sym("munmap");
	next_mremap = vt_sym("mremap");
	next_mprotect = vt_sym("mprotect");
	next_brk = vt_sym("brk");
	next_sbrk = vt_sym("sbrk");
	next_dlclose = vt_sym("dlclose");
	next_pthread_create = vt_sym("pthread_create");
	next_malloc = vt_sym("malloc");
	resolving = 0;
}

/* ---- the malloc family ---- */

EXPORT void *malloc(size_t n)
{
	VT_INSIDE;
	void *p;

	if (!next_malloc) {
		vt_resolve();
		if (!next_malloc)
			return boot_alloc(n);
	}
	p = next_malloc(n);
	ALLOCATED(p, n);
	return p;
}

EXPORT void free(void *p)
{
	VT_INSIDE;
	if (!p || in_boot(p))
		return;
	if (!next_free)
		vt_resolve();
	FREED(p);
	next_free(p);
}

EXPORT void *calloc(size_t n, size_t size)
{
	VT_INSIDE;
	void *p;

	if (!next_calloc) {
		if (resolving) { /* dlsym's own: zeroed static memory */
			if (size && n > SIZE_MAX / size)
				return NULL;
			return boot_alloc(n * size);
		}
		vt_resolve();
	}
	p = next_calloc(n, size);
	ALLOCATED(p, n * size);
	return p;
}

EXPORT void *realloc(void *old, size_t n)
{
	VT_INSIDE;
	struct vt_call c;
	void *p;

	if (in_boot(old)) { /* from the boot buffer: move it out */
		size_t have = (size_t)(boot_buf + sizeof(boot_buf) -
				       (unsigned char *)old);

		p = malloc(n);
		if (p)
			memcpy(p, old, n < have ? n : have);
		return p;
	}
	if (!next_realloc)
		vt_resolve();
	if (!old) {
		p = next_realloc(old, n);
		ALLOCATED(p, n);
	} else if (in_cxx) { /* inside a call recorded (reallocarray) */
		p = next_realloc(old, n);
	} else if (vt_realloc_begin(&c, n)) {
		p = next_realloc(old, n);
		vt_realloc_end(&c, old, p, n);
	} else {
		p = next_realloc(old, n);
		vt_reallocated(old, p, n);
	}
	return p;
}

EXPORT void *reallocarray(void *old, size_t n, size_t size)
{
	VT_INSIDE;
	struct vt_call c;
	size_t total;
	void *p;

	if (!next_reallocarray)
		vt_resolve();
	if (__builtin_mul_overflow(n, size, &total))
		total = SIZE_MAX; /* refused: a failure, old kept */
	/* glibc's calls realloc, which is this library's: not recorded
	 * again (recorded twice, a block reallocarray(NULL, ...) made was
	 * counted twice, once freed) */
	if (!old) {
		CXX_CALL(p = next_reallocarray(old, n, size));
		ALLOCATED(p, total);
	} else if (in_cxx) {
		p = next_reallocarray(old, n, size);
	} else if (vt_realloc_begin(&c, total)) {
		CXX_CALL(p = next_reallocarray(old, n, size));
		vt_realloc_end(&c, old, p, total);
	} else {
		CXX_CALL(p = next_reallocarray(old, n, size));
		vt_reallocated(old, p, total);
	}
	return p;
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	VT_INSIDE;
	int rc;

	if (!next_posix_memalign)
		vt_resolve();
	rc = next_posix_memalign(out, align, n);
	if (rc == 0)
		ALLOCATED(*out, n);
	return rc;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	VT_INSIDE;
	void *p;

	if (!next_aligned_alloc)
		vt_resolve();
	p = next_aligned_alloc(align, n);
	ALLOCATED(p, n);
	return p;
}

EXPORT void *memalign(size_t align, size_t n)
{
	VT_INSIDE;
	void *p;

	if (!next_memalign)
		vt_resolve();
	p = next_memalign(align, n);
	ALLOCATED(p, n);
	return p;
}

EXPORT void *valloc(size_t n)
{
	VT_INSIDE;
	void *p;

	if (!next_valloc)
		vt_resolve();
	p = next_valloc(n);
	ALLOCATED(p, n);
	return p;
}

EXPORT void *pvalloc(size_t n)
{
	VT_INSIDE;
	void *p;

	if (!next_pvalloc)
		vt_resolve();
	p = next_pvalloc(n);
	ALLOCATED(p, n);
	return p;
}

/* ---- the mmap family (the program's own calls: glibc's malloc maps
 * through internal symbols, which no preload sees; another allocator's
 * calls through the PLT, made inside the malloc family (vt_inside), are
 * its own maps for the blocks recorded: forwarded unrecorded, as the
 * kernel's trace of an attach leaves them out) ---- */

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off_)
{
	void *p;

	if (!next_mmap)
		vt_resolve();
	/* the kernel's trace sees the call (vmstrace.h: vt_kernel_maps);
	 * one made inside the malloc family is the allocator's own (jemalloc's
	 * extents: the blocks are recorded), never recorded */
	if (vt_inside || vt_kernel_maps())
		return next_mmap(addr, len, prot, flags, fd, off_);
	VT_INSIDE;
	p = next_mmap(addr, len, prot, flags, fd, off_);
	if (p != MAP_FAILED)
		vt_record(TW_OP_MMAP, true, (uintptr_t)p, len,
			  (uint64_t)(unsigned)prot | (uint64_t)(unsigned)flags
							     << 8,
			  0);
	return p;
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
		    off_t off_) __attribute__((alias("mmap")));

EXPORT int munmap(void *addr, size_t len)
{
	struct vt_call c;
	int rc;

	if (!next_munmap)
		vt_resolve();
	if (vt_inside || vt_kernel_maps())
		return next_munmap(addr, len);
	VT_INSIDE;
	vt_begin(&c, TW_OP_MUNMAP, 0, false, 0);
	rc = next_munmap(addr, len);
	vt_end(&c, (uintptr_t)addr, rc == 0 ? len : 0, 0, 0);
	return rc;
}

EXPORT void *mremap(void *old, size_t old_len, size_t len, int flags, ...)
{
	struct vt_call c;
	void *p, *want = NULL;
	va_list ap;

	if (!next_mremap)
		vt_resolve();
	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		want = va_arg(ap, void *);
		va_end(ap);
	}
	if (vt_inside || vt_kernel_maps())
		return next_mremap(old, old_len, len, flags, want);
	VT_INSIDE;
	vt_begin(&c, TW_OP_MREMAP,
		 flags & MREMAP_DONTUNMAP_ ? TW_F_KEEP_OLD : 0, true, len);
	p = next_mremap(old, old_len, len, flags, want);
	vt_end(&c, p == MAP_FAILED ? 0 : (uintptr_t)p, len, (uintptr_t)old,
	       old_len);
	return p;
}

/* mprotect: a reservation (PROT_NONE) made accessible is a commit,
 * which vmscope tells (src/trace/tracedb.h: it knows the pages
 * reserved); the stack is taken for any access given, none for
 * PROT_NONE. */
EXPORT int mprotect(void *addr, size_t len, int prot)
{
	int rc;

	if (!next_mprotect)
		vt_resolve();
	if (vt_inside || vt_kernel_maps())
		return next_mprotect(addr, len, prot);
	VT_INSIDE;
	rc = next_mprotect(addr, len, prot);
	if (rc == 0)
		vt_record(TW_OP_MPROTECT, prot != PROT_NONE, (uintptr_t)addr,
			  len, (uint64_t)(unsigned)prot, 0);
	return rc;
}

EXPORT int brk(void *end)
{
	void *was;
	int rc;

	if (!next_brk)
		vt_resolve();
	was = next_sbrk ? next_sbrk(0) : NULL;
	rc = next_brk(end);
	if (rc == 0 && was && !vt_inside) /* not the allocator's own */
		vt_record(TW_OP_BRK, true, (uintptr_t)was,
			  (uint64_t)((uintptr_t)end - (uintptr_t)was), 0, 0);
	return rc;
}

EXPORT void *sbrk(intptr_t inc)
{
	void *p;

	if (!next_sbrk)
		vt_resolve();
	p = next_sbrk(inc);
	if (p != (void *)-1 && inc && !vt_inside) /* not the allocator's */
		vt_record(TW_OP_BRK, true, (uintptr_t)p, (uint64_t)inc, 0, 0);
	return p;
}

/* ---- dlclose: an unloaded module's code may be followed by another's at
 * the same addresses; the stack walk's cached rules are dropped
 * (unwind.h). ---- */

EXPORT int dlclose(void *handle)
{
	int rc;

	if (!next_dlclose)
		vt_resolve();
	if (!next_dlclose)
		return -1;
	rc = next_dlclose(handle);
	vt_unwind_modules_changed();
	return rc;
}

/* ---- the functions attach.c redirects the program's GOT entries to ---- */

/* This library's own addresses (an exported name taken in PIC code is
 * the global definition's, which in a running process is the program's
 * allocator): hidden aliases. */
#define LOCAL(f)                                                               \
	extern __typeof(f) f##_local                                           \
		__attribute__((alias(#f), copy(f), visibility("hidden")))
LOCAL(malloc);
LOCAL(free);
LOCAL(calloc);
LOCAL(realloc);
LOCAL(reallocarray);
LOCAL(posix_memalign);
LOCAL(aligned_alloc);
LOCAL(memalign);
LOCAL(valloc);
LOCAL(pvalloc);
LOCAL(mmap);
LOCAL(munmap);
LOCAL(mremap);
LOCAL(mprotect);
LOCAL(dlclose);

extern __typeof(pthread_create) pthread_create_local; /* spawn.c's */

const struct vt_fn vt_fns[] = {
	{ "malloc", (void *)malloc_local, (void **)&next_malloc },
	{ "free", (void *)free_local, (void **)&next_free },
	{ "calloc", (void *)calloc_local, (void **)&next_calloc },
	{ "realloc", (void *)realloc_local, (void **)&next_realloc },
	{ "reallocarray", (void *)reallocarray_local,
	  (void **)&next_reallocarray },
	{ "posix_memalign", (void *)posix_memalign_local,
	  (void **)&next_posix_memalign },
	{ "aligned_alloc", (void *)aligned_alloc_local,
	  (void **)&next_aligned_alloc },
	{ "memalign", (void *)memalign_local, (void **)&next_memalign },
	{ "valloc", (void *)valloc_local, (void **)&next_valloc },
	{ "pvalloc", (void *)pvalloc_local, (void **)&next_pvalloc },
	{ "mmap", (void *)mmap_local, (void **)&next_mmap },
	{ "mmap64", (void *)mmap_local, (void **)&next_mmap },
	{ "munmap", (void *)munmap_local, (void **)&next_munmap },
	{ "mremap", (void *)mremap_local, (void **)&next_mremap },
	{ "mprotect", (void *)mprotect_local, (void **)&next_mprotect },
	{ "dlclose", (void *)dlclose_local, (void **)&next_dlclose },
	{ "pthread_create", (void *)pthread_create_local,
	  (void **)&next_pthread_create },
};
const unsigned vt_nfns = sizeof(vt_fns) / sizeof(vt_fns[0]);

/* ---- C++'s operator new and delete: recorded as the program's calls,
 * forwarded to the next definition (libstdc++'s, or an allocator's own,
 * as jemalloc's, which never calls malloc through the PLT); what they call
 * inside is not recorded again. A throwing new unwinds through here (the
 * library is built with -fexceptions): the cleanup clears in_cxx. ---- */

/* The news: each name forwarded to its own next definition with its own
 * arguments (array, aligned, nothrow), the block recorded allocated. */
#define CXX_NEW(mangled, params, args)                                         \
	EXPORT void *mangled params;                                           \
	EXPORT void *mangled params                                            \
	{                                                                      \
		static void *(*next)params;                                    \
		void *p;                                                       \
		VT_INSIDE;                                                     \
		NEXT(next, #mangled);                                          \
		CXX_CALL(p = next args);                                       \
		ALLOCATED(p, n);                                               \
		return p;                                                      \
	}

#define NEXT(var, name)                                                        \
	do {                                                                   \
		if (!var)                                                      \
			*(void **)&var = vt_sym(name);                         \
	} while (0)

typedef struct {
	int unused;
} nothrow_t;

CXX_NEW(_Znwm, (size_t n), (n))
CXX_NEW(_Znam, (size_t n), (n))
CXX_NEW(_ZnwmRKSt9nothrow_t, (size_t n, const nothrow_t *nt), (n, nt))
CXX_NEW(_ZnamRKSt9nothrow_t, (size_t n, const nothrow_t *nt), (n, nt))
CXX_NEW(_ZnwmSt11align_val_t, (size_t n, size_t al), (n, al))
CXX_NEW(_ZnamSt11align_val_t, (size_t n, size_t al), (n, al))
CXX_NEW(_ZnwmSt11align_val_tRKSt9nothrow_t,
	(size_t n, size_t al, const nothrow_t *nt), (n, al, nt))
CXX_NEW(_ZnamSt11align_val_tRKSt9nothrow_t,
	(size_t n, size_t al, const nothrow_t *nt), (n, al, nt))

/* The deletes: each name forwarded to its own next definition with its
 * own arguments (sized, aligned, nothrow), the pointer recorded freed as
 * free() records it (sampled: only a block that was recorded). */
#define CXX_DELETE(mangled, params, args)                                      \
	EXPORT void mangled params;                                            \
	EXPORT void mangled params                                             \
	{                                                                      \
		static void(*next) params;                                     \
		VT_INSIDE;                                                     \
		NEXT(next, #mangled);                                          \
		if (p)                                                         \
			FREED(p);                                              \
		CXX_CALL(next args);                                           \
	}

CXX_DELETE(_ZdlPv, (void *p), (p))
CXX_DELETE(_ZdaPv, (void *p), (p))
CXX_DELETE(_ZdlPvm, (void *p, size_t n), (p, n))
CXX_DELETE(_ZdaPvm, (void *p, size_t n), (p, n))
CXX_DELETE(_ZdlPvRKSt9nothrow_t, (void *p, const nothrow_t *nt), (p, nt))
CXX_DELETE(_ZdaPvRKSt9nothrow_t, (void *p, const nothrow_t *nt), (p, nt))
CXX_DELETE(_ZdlPvSt11align_val_t, (void *p, size_t al), (p, al))
CXX_DELETE(_ZdaPvSt11align_val_t, (void *p, size_t al), (p, al))
CXX_DELETE(_ZdlPvmSt11align_val_t, (void *p, size_t n, size_t al), (p, n, al))
CXX_DELETE(_ZdaPvmSt11align_val_t, (void *p, size_t n, size_t al), (p, n, al))
