/* vmstrace.h — what the tracer library's files share: vmstrace.c (the
 * interposers, the start, the next definitions), spawn.c (the threads
 * and processes the program makes), record.c (the rings, threads,
 * modules, stacks and recording) and sample.c (sampling). Everything
 * here is hidden (the library is built with -fvisibility=hidden): only the
 * interposed functions are exported.
 */
#ifndef VMS_VMSTRACE_H
#define VMS_VMSTRACE_H

#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/tracewire.h"

#define EXPORT __attribute__((visibility("default")))
#define TLS __attribute__((tls_model("initial-exec"))) __thread

/* vmstrace.c's: the next definitions the library itself maps with (and
 * spawn.c's: its allocations, the next pthread_create); the next
 * definition of a name (vt_sym), and every one the library forwards to
 * found (vt_resolve, once). */
extern void *(*next_mmap)(void *, size_t, int, int, int, off_t);
extern int (*next_munmap)(void *, size_t);
extern void *(*next_mremap)(void *, size_t, size_t, int, ...);
extern void *(*next_malloc)(size_t);
extern void (*next_free)(void *);
extern int (*next_pthread_create)(pthread_t *, const pthread_attr_t *,
				  void *(*)(void *), void *);
void *vt_sym(const char *name);
void vt_resolve(void);

/* Loaded into a running process rather than preloaded (attach.c): the
 * next definitions are the global ones. */
extern bool vt_attach_mode;
/* The functions a running process's GOT entries are redirected to, by
 * the symbol's name, with the next definition each forwards to. */
struct vt_fn {
	const char *name;
	void *ours;
	void **next;
};
extern const struct vt_fn vt_fns[];
extern const unsigned vt_nfns;
/* record.c's: one record of `words` words (its header word first, by
 * vt_rec_word) written at the ring's head, waiting for room as a call's
 * record does; false: not (pass-through now). */
bool vt_put(struct tw_slot *sl, unsigned char *ring, const uint64_t *w,
	    unsigned words);
uint64_t vt_rec_word(unsigned op, unsigned words, uint32_t arg);
/* modules.c's: the modules of the addresses ip[0, n) not sent yet sent
 * into the ring (false: a record could not be written); at the start
 * (vt_start) the program's path and working directory read; the list
 * started again for a new file (locked: under its lock; false: a forked
 * child's one thread). */
bool vt_modules_for(void *const *ip, int n, struct tw_slot *sl,
		    unsigned char *ring);
void vt_modules_start(void);
void vt_modules_reset(bool locked);
/* modules.c's: the kernel's name of the file mapped at exactly [lo, hi)
 * (one mapping, page-aligned: /proc/self/map_files, a readlink), into buf
 * (n bytes); false: no one mapping there, or not known. */
bool vt_mapped_file(uintptr_t lo, uintptr_t hi, char *buf, size_t n);
/* record.c's: records nothing more (a detach). */
void vt_stop(void);
/* record.c's: at the process's exit (vmstrace.c's destructor), waits for
 * vmscope's last snapshot when it asked for one (tracewire.h: exit_hold);
 * at once for a forked child's copy, pass-through or vmscope gone. */
void vt_exit_hold(void);
/* record.c's: whether the rings have no reader here: the vmscope reading
 * them is gone (its robust lock's owner cleared, tracewire.h:
 * consumer_lock; in a file without it, its pid no longer exists, and
 * from another pid namespace, where its pid says nothing, taken for
 * gone: record.c says why), or this process is a forked child of the
 * traced one (they are its parent's). */
bool vt_orphaned(void);
/* Whether h's vmscope is gone, as a full ring asks (own_pidns: this
 * process's, tracewire.h: tw_pidns_now), and whether an attach takes
 * over the entries it left redirected: alive.c says by which signal. */
bool vt_consumer_gone(const struct tw_header *h, uint32_t own_pidns);
bool vt_consumer_orphaned(const struct tw_header *h, uint32_t own_pidns);

/* Non-zero while the thread runs one of the library's malloc-family
 * interposers, records a call of the mmap family itself, or attaches or
 * detaches: the kernel's trace of an attach (src/trace/bpfmaps.h) reads
 * it (base/tracewire.h: inside_off) and leaves out the mmap family called
 * then (the allocator's own maps for a block the library records; the
 * library's own). Its value says whose: VT_INSIDE_ALLOC (1: counted as the
 * allocator's, allocator_maps) or VT_INSIDE_OWN (2: the library attaching,
 * detaching or redirecting a module's entries, its mprotects of RELRO:
 * counted as nobody's). vt_inside_enter sets it and returns what it was. */
extern TLS int vt_inside;
#define VT_INSIDE_ALLOC 1
#define VT_INSIDE_OWN 2
static inline int vt_inside_enter(int v)
{
	int was = vt_inside;

	vt_inside = v;
	__asm__ __volatile__("" ::: "memory");
	return was;
}

static inline void vt_inside_leave(const int *was)
{
	__asm__ __volatile__("" ::: "memory");
	vt_inside = *was;
}

/* The flag set for the rest of the block: a malloc-family call (or a
 * call recorded), or (VT_OWN) the library's own work. */
#define VT_INSIDE                                                              \
	int vt_inside_was __attribute__((cleanup(vt_inside_leave))) =          \
		vt_inside_enter(VT_INSIDE_ALLOC)
#define VT_OWN                                                                 \
	int vt_inside_was __attribute__((cleanup(vt_inside_leave))) =          \
		vt_inside_enter(VT_INSIDE_OWN)

/* record.c's: whether vmscope traces the mmap family from the kernel now
 * (base/tracewire.h: kernel_maps): the library's mmap, munmap and mremap
 * then forward without recording (and without the flag). */
bool vt_kernel_maps(void);

/* Inside C++'s operator new or delete, or glibc's reallocarray, whose own
 * malloc, realloc and free are not the program's calls (vmstrace.c sets
 * it, record.c reads it). */
extern TLS int in_cxx;

/* A launch (VMSCOPE_TRACE_FD) starts at the first call the library sees
 * once the C library is up, or at the library's constructor if none came
 * before: the loader runs the constructors of the libraries the program
 * links before this one's, and what they allocate (a C++ library's
 * static objects) is the program's. vt_unstarted: 1 until the start was
 * tried (vmstrace.c); vt_early(), first in whatever records, tries it
 * (record.c's vt_start_early: errno kept, the library's own calls made
 * meanwhile unrecorded; vmstrace.c's vt_launch_early: the start, not the
 * environment's clean-up, nor the fork handler, which the constructor
 * does). */
extern int vt_unstarted;
void vt_start_early(void);
void vt_launch_early(void);
static inline void vt_early(void)
{
	if (__builtin_expect(__atomic_load_n(&vt_unstarted, __ATOMIC_RELAXED),
			     0))
		vt_start_early();
}

/* record.c's. vt_start: tracing into the mapped file h from now on (its
 * threads' exit, sampling set up; a forked child, by fork() or the raw
 * system call, records nothing: the rings are its parent's); -1: not (h
 * is let go). */
int vt_start(struct tw_header *h);
/* record.c's, for a forked child (follow.c's pthread_atfork handler):
 * whether the parent recorded (a file, not pass-through), or was refused
 * by vmscope (TW_PASS_REFUSED); the child to make its own file at its
 * first call (vt_tracing then makes it, vt_follow_file, and records into
 * it from then on: vt_restart_forked), or, counted, only to say so then
 * (TW_FOLLOW_COUNT). */
bool vt_parent_traced(void);
bool vt_parent_refused(void);
void vt_fork_pending(bool counted);
int vt_restart_forked(struct tw_header *h);
/* follow.c's (--trace-children, tracewire.h): TW_FOLLOW_ENV's value
 * taken (-1: not one); whether it was; a file of this process's own, sent
 * to vmscope (NULL: none, the process runs untraced; always with
 * TW_FOLLOW_COUNT, which sends the message alone); the handler that makes
 * a forked child follow. */
int vt_follow_parse(const char *e);
bool vt_following(void);
struct tw_header *vt_follow_file(unsigned how);
void vt_follow_atfork(void);
/* A followed process made a child (fork: envp NULL; posix_spawn: the
 * child's environment, which must name vmscope's socket): vmscope is told
 * at once, before the child's own file can come, and waits for it
 * (tracewire.h, TW_FOLLOW_BORN). errno is left as it was. */
void vt_follow_born(pid_t child, char *const *envp);
/* This library's code [lo, hi), whose frames are not the program's, and
 * libunwind's [unw_lo, unw_hi): a stack is never taken by libunwind for a
 * call made from inside libunwind (the program's own use of it, holding
 * its cache's lock or inside its pthread_once), which would wait on
 * itself; the frames the own walk found up to there are taken instead. */
void vt_self(uintptr_t lo, uintptr_t hi, uintptr_t unw_lo, uintptr_t unw_hi);
/* A module's dynamic table, with pointers made absolute (glibc relocates
 * most of them in place; a loader that does not leaves them relative):
 * false without a symbol table (attach.c). */
struct vt_dyn {
	const ElfW(Rela) * rela, *jmprel;
	size_t relasz, jmprelsz;
	const ElfW(Sym) * symtab;
	const char *strtab;
};
bool vt_read_dyn(const struct dl_phdr_info *info, struct vt_dyn *d);
/* This machine's relocations of a call's GOT entry (a PLT slot) and of a
 * global's (a function's address taken). */
#if defined(__x86_64__)
#define R_SLOT R_X86_64_JUMP_SLOT
#define R_GLOB R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define R_SLOT R_AARCH64_JUMP_SLOT
#define R_GLOB R_AARCH64_GLOB_DAT
#endif
/* Whether v lies in one of the module's program headers of that type
 * (PT_LOAD: its loaded parts; PT_GNU_RELRO). */
bool vt_phdr_holds(const struct dl_phdr_info *info, uintptr_t v, unsigned type);
/* libunwind's pipe (the one it checks addresses with) made at the top of
 * the descriptor range, not among the program's lowest: its pipe2 entry
 * redirected, before libunwind is first called (unwpipe.c). unw_at: an
 * address in libunwind's text. */
void vt_unw_pipe_aside(uintptr_t unw_at);
/* A call's record, opened before the call and closed after it, with what
 * it did (tracewire.h: the sequence number is the opening's). Between the
 * two the thread records nothing (a signal handler's calls go unrecorded).
 * vt_begin false: not recorded; vt_end then does nothing. */
struct vt_call {
	struct tw_slot *sl;
	unsigned char *ring;
	uint64_t w[7], pad;
	unsigned words;
	unsigned op; /* the short form's op (tracewire.h), or 0: long */
	unsigned gen; /* the vt_start() whose ring it was begun in */
	bool open;
};
bool vt_begin(struct vt_call *c, unsigned op, unsigned flags, bool with_stack,
	      uint64_t drop);
void vt_end(struct vt_call *c, uint64_t a, uint64_t b, uint64_t d, uint64_t e);
/* One call recorded: op, its fields, and for an allocation its stack;
 * vt_record_f with flags TW_F_*. */
void vt_record(unsigned op, bool with_stack, uint64_t a, uint64_t b, uint64_t c,
	       uint64_t d);
void vt_record_f(unsigned op, unsigned flags, bool with_stack, uint64_t a,
		 uint64_t b, uint64_t d, uint64_t e);
/* Whether calls are recorded now (a file, on, not pass-through); a call
 * of `bytes` not recorded while vmscope lags, counted as dropped. */
bool vt_tracing(void);
void vt_count_dropped(uint64_t bytes);
/* sample.c's sampling (--trace-sample): the mean interval (0: every
 * call is recorded), the thread's bytes to its next sample (0: not drawn
 * yet), and the count of recorded blocks alive per bucket of pages;
 * vt_sample_start sets it up as the file h asks (-1: no memory for it). */
int vt_sample_start(const struct tw_header *h);
#define VT_SAMPLE_ALL_FROM (64u << 10) /* blocks this large: all recorded */
#define VT_PAGE_BUCKETS (1u << 16)
extern uint64_t vt_sample_mean;
extern TLS int64_t vt_sample_until;
extern uint32_t vt_page_live[VT_PAGE_BUCKETS];

static inline uint32_t *vt_bucket_of(uint64_t p)
{
	return &vt_page_live[((p >> 12) * 0x9e3779b97f4a7c15ull) >> 48];
}

/* Sampling passes over a block of n bytes just allocated at p (most
 * are): the interposers' test before any call, which vt_allocated would
 * make the same (it draws the thread's first interval, and takes the
 * block that reaches the next point). */
static inline bool vt_passed_over(const void *p, size_t n)
{
	if (!p || !vt_sample_mean || n >= VT_SAMPLE_ALL_FROM ||
	    vt_sample_until <= (int64_t)n)
		return false;
	vt_sample_until -= (int64_t)n;
	return true;
}

/* Sampling: a free of a block in a bucket that holds no recorded block
 * (vt_freed would look no further). */
static inline bool vt_free_passed_over(const void *p)
{
	return vt_sample_mean &&
	       !__atomic_load_n(vt_bucket_of((uintptr_t)p), __ATOMIC_RELAXED);
}

/* A heap block allocated, freed, moved by realloc (sampling decides). */
void vt_allocated(void *p, size_t n);
void vt_freed(void *p);
void vt_reallocated(void *old, void *p, size_t n);
/* realloc recorded exactly (false: sampling, or not recorded: the caller
 * then says vt_reallocated after the call). */
bool vt_realloc_begin(struct vt_call *c, size_t n);
void vt_realloc_end(struct vt_call *c, void *old, void *p, size_t n);

#endif
