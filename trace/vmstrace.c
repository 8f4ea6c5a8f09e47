/* vmstrace.c — libvmstrace.so, the tracer vmscope preloads into a command
 * it starts with --trace (src/trace/tracer.h). It interposes the malloc
 * family and the mmap family the program calls, forwards each call to the
 * next definition (glibc's, or the jemalloc or tcmalloc the program links:
 * it keeps its allocator), and records the call, its result, its thread,
 * a monotonic time and its call stack into the thread's ring of the shared
 * file vmscope made (src/base/tracewire.h says the layout).
 *
 * What the program sees does not change: every call returns what the next
 * definition returned, errno as it left it; the library takes no file
 * descriptor (the shared file's is closed once it is mapped), prints
 * nothing, and takes itself and VMSCOPE_TRACE_FD out of the environment, so
 * the program's children (exec) run untraced; a forked child that does not
 * exec records nothing (the rings are its parent's).
 *
 * Stacks: unw_backtrace() (libunwind, from the call frame information
 * every Debian library carries in .eh_frame: frame pointers would lose the
 * callers of anything that allocates inside libc or libstdc++), without
 * the library's own frames, interned per thread by a 64-bit hash of the
 * return addresses (tracewire.h: a stack is sent once per thread).
 *
 * Never blocks for long (tracewire.h): a full ring waits while vmscope's
 * heartbeat moves, and at most TW_WAIT_NS without it; vmscope gone (its
 * pid no longer exists) or too slow sets pass-through for good.
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
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/tracewire.h"

#define EXPORT __attribute__((visibility("default")))
#define TLS __attribute__((tls_model("initial-exec"))) __thread
#define STACK_TABLE (2 * TW_STACK_IDS) /* its hash table: half full */

/* ---- the next definitions ---- */

static void *(*next_malloc)(size_t);
static void (*next_free)(void *);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static void *(*next_reallocarray)(void *, size_t, size_t);
static int (*next_posix_memalign)(void **, size_t, size_t);
static void *(*next_aligned_alloc)(size_t, size_t);
static void *(*next_memalign)(size_t, size_t);
static void *(*next_valloc)(size_t);
static void *(*next_pvalloc)(size_t);
static void *(*next_mmap)(void *, size_t, int, int, int, off_t);
static int (*next_munmap)(void *, size_t);
static void *(*next_mremap)(void *, size_t, size_t, int, ...);
static int (*next_brk)(void *);
static void *(*next_sbrk)(intptr_t);

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

/* ---- state ---- */

static struct tw_header *hdr; /* NULL: not traced */
static bool off; /* pass-through in this process (a forked child) */
static int resolving; /* dlsym is running */
static uintptr_t self_lo, self_hi; /* this library's text */

struct thread_state {
	int slot; /* its ring, or -1: none to be had */
	int rounds; /* destructor rounds seen (thread_done) */
	uint32_t next_id;
	uint64_t hashes[STACK_TABLE]; /* 0: empty; else the stack's hash */
	uint32_t ids[STACK_TABLE];
};

static TLS struct thread_state *ts;
static TLS int tls_busy; /* inside the library: forward unrecorded */
static TLS int in_cxx; /* inside C++'s operator new or delete, whose own
			* malloc and free are not the program's calls */
/* A thread's state after its end (a destructor of another key may still
 * allocate): no ring, nothing recorded. */
static struct thread_state ended = { .slot = -1 };
static pthread_key_t exit_key;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* An event's time: the kernel's coarse monotonic clock (its resolution is
 * a tick, 1 to 4 ms): CLOCK_MONOTONIC costs 110 ns a call on a virtual
 * machine's kvm-clock, the coarse one 13, and an event's time only orders
 * what the trace view shows (the windows between snapshots follow the
 * order vmscope reads the events in, not their times). */
static uint64_t event_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* ---- rings ---- */

static void go_passthrough(void)
{
	__atomic_store_n(&hdr->passthrough, 1, __ATOMIC_RELEASE);
}

static bool consumer_gone(void)
{
	pid_t c = hdr->consumer_pid;

	return c > 0 && kill(c, 0) < 0 && errno == ESRCH;
}

/* Room for n bytes at the ring's head, waiting for vmscope while it makes
 * progress. False: drop (pass-through now). */
static bool room(struct tw_slot *sl, uint64_t n)
{
	uint64_t t0 = 0, beat = 0;
	unsigned spins = 0;

	while (sl->head + n - __atomic_load_n(&sl->tail, __ATOMIC_ACQUIRE) >
	       TW_RING_BYTES) {
		uint64_t b = __atomic_load_n(&hdr->heartbeat, __ATOMIC_ACQUIRE);

		if (__atomic_load_n(&hdr->passthrough, __ATOMIC_ACQUIRE))
			return false;
		if (++spins < 64)
			continue;
		if (!t0 || b != beat) {
			t0 = now_ns();
			beat = b;
		} else if (now_ns() - t0 > TW_WAIT_NS || consumer_gone()) {
			go_passthrough();
			return false;
		}
		sched_yield();
	}
	return true;
}

/* Writes one record of `words` words (header first) at the ring's head. */
static bool put(struct tw_slot *sl, unsigned char *ring, const uint64_t *w,
		unsigned words)
{
	uint64_t bytes = (uint64_t)words * 8, at = sl->head % TW_RING_BYTES;
	uint64_t pad = at + bytes > TW_RING_BYTES ? TW_RING_BYTES - at : 0;

	if (!room(sl, pad + bytes))
		return false;
	if (pad) {
		struct tw_rec r = { .op = TW_OP_PAD, .words = 0 };

		memcpy(ring + at, &r, sizeof(r)); /* words 0: to the end */
		at = 0;
	}
	memcpy(ring + at, w, bytes);
	__atomic_store_n(&sl->head, sl->head + pad + bytes, __ATOMIC_RELEASE);
	return true;
}

static uint64_t rec_word(unsigned op, unsigned words, uint32_t arg)
{
	struct tw_rec r = { .op = (uint8_t)op,
			    .words = (uint8_t)words,
			    .arg = arg };
	uint64_t w;

	memcpy(&w, &r, sizeof(w));
	return w;
}

static void thread_done(void *p)
{
	struct thread_state *t = p;

	if (!t || t == &ended)
		return;
	/* Other keys' destructors run in the same rounds and may still free
	 * what the thread allocated: the ring stays open for as many rounds
	 * as the C library runs (PTHREAD_DESTRUCTOR_ITERATIONS, 4), less
	 * this last one. */
	if (++t->rounds < 4) {
		pthread_setspecific(exit_key, t);
		return;
	}
	if (t->slot >= 0 && hdr)
		__atomic_store_n(&tw_slot_at(hdr, (unsigned)t->slot)->state,
				 TW_SLOT_DONE, __ATOMIC_RELEASE);
	ts = &ended;
	next_munmap(t, sizeof(*t));
}

static struct thread_state *thread_state(void)
{
	struct thread_state *t;
	unsigned i;

	if (ts)
		return ts;
	t = next_mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return NULL;
	t->slot = -1;
	for (i = 0; i < hdr->slots; i++) {
		struct tw_slot *sl = tw_slot_at(hdr, i);
		uint32_t want = TW_SLOT_FREE;

		if (__atomic_compare_exchange_n(&sl->state, &want, TW_SLOT_LIVE,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			uint64_t w[2];

			t->slot = (int)i;
			sl->tid = (int32_t)syscall(SYS_gettid);
			w[0] = rec_word(TW_OP_THREAD, 2, (uint32_t)sl->tid);
			w[1] = now_ns();
			put(sl, tw_ring_at(hdr, i), w, 2);
			break;
		}
	}
	ts = t;
	pthread_setspecific(exit_key, t);
	return t;
}

/* ---- modules: each loaded file is sent once, before the first stack
 * with an address in its code, so vmscope names frames from what the
 * program had loaded, whenever it reads them (the program may be gone).
 * New stacks are rare: a stack with an address in no module known makes
 * the list be read again (dl_iterate_phdr), under a lock of its own. ---- */

#define MAX_MODULES 1024

struct module {
	uintptr_t lo, hi; /* its code */
};

static struct module modules[MAX_MODULES];
static unsigned nmodules; /* written under modules_lock */
static int modules_lock;
static char exe_path[1024]; /* the main program's (dlpi_name is "") */

static bool module_known(uintptr_t ip)
{
	unsigned i, n = __atomic_load_n(&nmodules, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		if (ip - 1 >= modules[i].lo && ip - 1 < modules[i].hi)
			return true;
	return false;
}

struct module_ctx {
	struct tw_slot *sl;
	unsigned char *ring;
	bool failed;
};

static int send_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct module_ctx *c = arg;
	const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name
							       : exe_path;
	uint64_t w[256];
	size_t len = strlen(path);
	unsigned words;
	int i;

	(void)size;
	if (path[0] != '/' || len > (254u - 1u) * 8u - 1u)
		return 0; /* the vDSO, or a name that is no file */
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		unsigned k;
		bool seen = false;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		for (k = 0; k < nmodules && !seen; k++)
			seen = modules[k].lo == lo;
		if (seen || nmodules == MAX_MODULES)
			continue;
		words = 2 + (unsigned)(len + 8) / 8;
		memset(w, 0, (size_t)words * 8);
		w[0] = rec_word(TW_OP_MODULE, words, 0);
		w[1] = info->dlpi_addr;
		memcpy(&w[2], path, len);
		if (!put(c->sl, c->ring, w, words)) {
			c->failed = true;
			return 1;
		}
		modules[nmodules].lo = lo;
		modules[nmodules].hi = lo + ph->p_memsz;
		__atomic_store_n(&nmodules, nmodules + 1, __ATOMIC_RELEASE);
	}
	return 0;
}

/* Sends the modules not sent yet when an address lies in none known. */
static bool modules_for(void *const *ip, int n, struct tw_slot *sl,
			unsigned char *ring)
{
	struct module_ctx c = { sl, ring, false };
	int i;

	for (i = 0; i < n && module_known((uintptr_t)ip[i]); i++)
		;
	if (i == n)
		return true;
	while (__atomic_exchange_n(&modules_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	dl_iterate_phdr(send_module, &c);
	__atomic_store_n(&modules_lock, 0, __ATOMIC_RELEASE);
	return !c.failed;
}

/* ---- stacks ---- */

static uint64_t hash_frames(void *const *ip, int n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	int i;

	for (i = 0; i < n; i++) {
		h ^= (uint64_t)(uintptr_t)ip[i];
		h *= 0x100000001b3ull;
	}
	return h ? h : 1;
}

/* The stack id of the caller's stack in this thread's ring, sending the
 * stack first when it is new. UINT32_MAX: could not be sent. */
static uint32_t stack_id(struct thread_state *t, struct tw_slot *sl,
			 unsigned char *ring)
{
	void *ip[TW_MAX_FRAMES + 8];
	uint64_t w[TW_MAX_FRAMES + 1], h;
	int n = unw_backtrace(ip, (int)(sizeof(ip) / sizeof(ip[0]))), s = 0;
	unsigned k;
	int i;

	/* the library's own frames are not the program's */
	while (s < n && (uintptr_t)ip[s] >= self_lo &&
	       (uintptr_t)ip[s] < self_hi)
		s++;
	if (n - s > (int)TW_MAX_FRAMES)
		n = s + (int)TW_MAX_FRAMES;
	h = hash_frames(ip + s, n - s);
	for (k = (unsigned)h & (STACK_TABLE - 1);;
	     k = (k + 1) & (STACK_TABLE - 1)) {
		if (t->hashes[k] == h)
			return t->ids[k];
		if (!t->hashes[k])
			break;
	}
	if (t->next_id >= TW_STACK_IDS) { /* full enough: start over */
		w[0] = rec_word(TW_OP_STACK_RESET, 1, 0);
		if (!put(sl, ring, w, 1))
			return UINT32_MAX;
		memset(t->hashes, 0, sizeof(t->hashes));
		t->next_id = 0;
		for (k = (unsigned)h & (STACK_TABLE - 1); t->hashes[k];
		     k = (k + 1) & (STACK_TABLE - 1))
			;
	}
	if (!modules_for(ip + s, n - s, sl, ring))
		return UINT32_MAX;
	w[0] = rec_word(TW_OP_STACK, (unsigned)(n - s) + 1, t->next_id);
	for (i = s; i < n; i++)
		w[1 + i - s] = (uint64_t)(uintptr_t)ip[i];
	if (!put(sl, ring, w, (unsigned)(n - s) + 1))
		return UINT32_MAX;
	t->hashes[k] = h;
	t->ids[k] = t->next_id;
	return t->next_id++;
}

/* ---- recording ---- */

static bool tracing(void)
{
	return hdr && !off &&
	       !__atomic_load_n(&hdr->passthrough, __ATOMIC_RELAXED);
}

static void count_dropped(uint64_t bytes)
{
	__atomic_add_fetch(&hdr->dropped, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&hdr->dropped_bytes, bytes, __ATOMIC_RELAXED);
}

/* Records one call: op, its fields (after the time), and, for an
 * allocation, the caller's stack; flags TW_F_*. */
static void record_f(unsigned op, unsigned flags, bool with_stack, uint64_t a,
		     uint64_t b, uint64_t c, uint64_t d)
{
	struct thread_state *t;
	struct tw_slot *sl;
	unsigned char *ring;
	uint64_t w[6];
	unsigned words = TW_EVENT_WORDS(op);
	uint32_t id = 0;
	int saved = errno;

	if (!tracing() || tls_busy || in_cxx)
		return;
	tls_busy = 1;
	t = thread_state();
	if (!t || t->slot < 0) {
		if (op != TW_OP_FREE && op != TW_OP_MUNMAP)
			count_dropped(b);
		goto out;
	}
	sl = tw_slot_at(hdr, (unsigned)t->slot);
	ring = tw_ring_at(hdr, (unsigned)t->slot);
	if (with_stack && (id = stack_id(t, sl, ring)) == UINT32_MAX) {
		count_dropped(b);
		goto out;
	}
	w[0] = rec_word(op, words, id) | (uint64_t)(flags & 0xffff)
						 << 16; /* tw_rec.flags */
	w[1] = event_ns();
	w[2] = a;
	w[3] = b;
	w[4] = c;
	w[5] = d;
	if (!put(sl, ring, w, words))
		count_dropped(op == TW_OP_FREE ? 0 : b);
out:
	tls_busy = 0;
	errno = saved;
}

static void record(unsigned op, bool with_stack, uint64_t a, uint64_t b,
		   uint64_t c, uint64_t d)
{
	record_f(op, 0, with_stack, a, b, c, d);
}

/* ---- sampling (--trace-sample): an allocation under 64 KiB is recorded
 * when the thread's count of bytes allocated crosses the next point of a
 * Poisson process of mean sample_mean bytes (heapprofd's scheme: a block
 * of s bytes is taken with probability 1 - exp(-s / mean), and vmscope
 * weighs it by the inverse). Larger blocks and every map are recorded.
 * The frees recorded are those of recorded blocks: a set of their
 * addresses (open addressing, atomic, shared by the threads). ---- */

#define SAMPLE_ALL_FROM (64u << 10)
#define SET_SLOTS (1u << 21) /* 16 MiB of address space, touched as used */
#define SET_PROBES 64
#define SET_GONE 1u /* a removed entry */

static uint64_t sample_mean; /* 0: every call */
static uint64_t *sampled; /* the set of recorded blocks' addresses */
/* Recorded blocks alive per bucket of pages: a free whose bucket holds
 * none (most, in a loop that frees what it just allocated) does not look
 * in the set, whose slots lie all over 16 MiB. */
#define PAGE_BUCKETS (1u << 16)
static uint32_t *page_live;

static uint32_t *bucket_of(uint64_t p)
{
	return &page_live[((p >> 12) * 0x9e3779b97f4a7c15ull) >> 48];
}
static TLS int64_t sample_until; /* bytes to the next sample */
static TLS uint64_t sample_rng; /* xorshift64*, 0: not seeded */
static uint64_t streams; /* threads that have seeded theirs */

static uint64_t set_home(uint64_t p)
{
	p ^= p >> 33;
	p *= 0xff51afd7ed558ccdull;
	return (p ^ (p >> 33)) & (SET_SLOTS - 1);
}

static bool set_add(uint64_t p)
{
	uint64_t k = set_home(p);
	unsigned i;

	for (i = 0; i < SET_PROBES; i++, k = (k + 1) & (SET_SLOTS - 1)) {
		uint64_t was = __atomic_load_n(&sampled[k], __ATOMIC_RELAXED);

		if ((was == 0 || was == SET_GONE) &&
		    __atomic_compare_exchange_n(&sampled[k], &was, p, false,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return true;
	}
	return false;
}

/* Takes p out of the set: true when it was in (a recorded block). */
static bool set_take(uint64_t p)
{
	uint64_t k = set_home(p);
	unsigned i;

	for (i = 0; i < SET_PROBES; i++, k = (k + 1) & (SET_SLOTS - 1)) {
		uint64_t was = __atomic_load_n(&sampled[k], __ATOMIC_RELAXED);

		if (was == 0)
			return false;
		if (was == p && __atomic_compare_exchange_n(
					&sampled[k], &was, SET_GONE, false,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return true;
	}
	return false;
}

static uint64_t rng_next(void)
{
	if (!sample_rng) /* a stream a thread, in the order they first
			  * allocate: a run replays from the seed */
		sample_rng = (hdr->seed ^ __atomic_add_fetch(&streams, 1,
							     __ATOMIC_RELAXED) *
						  0x9e3779b97f4a7c15ull) |
			     1;
	sample_rng ^= sample_rng >> 12;
	sample_rng ^= sample_rng << 25;
	sample_rng ^= sample_rng >> 27;
	return sample_rng * 0x2545f4914f6cdd1dull;
}

/* An exponential interval of mean sample_mean bytes. */
static int64_t next_interval(void)
{
	double u = ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;

	return (int64_t)(-log(u) * (double)sample_mean) + 1;
}

/* Whether a heap block of n bytes is recorded. */
static bool take_block(size_t n)
{
	if (!sample_mean || n >= SAMPLE_ALL_FROM)
		return true;
	if (!tracing())
		return false;
	if (!sample_rng)
		sample_until = next_interval();
	sample_until -= (int64_t)n;
	if (sample_until > 0)
		return false;
	while (sample_until <= 0)
		sample_until += next_interval();
	return true;
}

static void allocated(void *p, size_t n)
{
	if (!p || !take_block(n))
		return;
	if (sample_mean) {
		if (!set_add((uintptr_t)p)) {
			if (tracing())
				count_dropped(n); /* the set is full */
			return;
		}
		__atomic_add_fetch(bucket_of((uintptr_t)p), 1,
				   __ATOMIC_RELAXED);
	}
	record_f(TW_OP_MALLOC,
		 sample_mean && n < SAMPLE_ALL_FROM ? TW_F_SAMPLED : 0, true,
		 (uintptr_t)p, n, 0, 0);
}

static void freed(void *p)
{
	if (sample_mean) {
		uint32_t *b = bucket_of((uintptr_t)p);

		if (!__atomic_load_n(b, __ATOMIC_RELAXED) ||
		    !set_take((uintptr_t)p))
			return; /* not recorded when allocated */
		__atomic_sub_fetch(b, 1, __ATOMIC_RELAXED);
	}
	record(TW_OP_FREE, false, (uintptr_t)p, 0, 0, 0);
}

/* realloc: the old block freed, a new one allocated, each as recorded. */
static void reallocated(void *old, void *p, size_t n)
{
	if (!sample_mean) {
		record(TW_OP_REALLOC, true, (uintptr_t)p, n, (uintptr_t)old, 0);
		return;
	}
	freed(old);
	allocated(p, n);
}

#define ALLOCATED(p, n) allocated((p), (n))

/* ---- start ---- */

static void *sym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static void resolve(void)
{
	if (next_malloc || resolving)
		return;
	resolving = 1;
	next_free = sym("free");
	next_calloc = sym("calloc");
	next_realloc = sym("realloc");
	next_reallocarray = sym("reallocarray");
	next_posix_memalign = sym("posix_memalign");
	next_aligned_alloc = sym("aligned_alloc");
	next_memalign = sym("memalign");
	next_valloc = sym("valloc");
	next_pvalloc = sym("pvalloc");
	next_mmap = sym("mmap");
	next_munmap = sym("munmap");
	next_mremap = sym("mremap");
	next_brk = sym("brk");
	next_sbrk = sym("sbrk");
	next_malloc = sym("malloc");
	resolving = 0;
}

static int find_self(struct dl_phdr_info *info, size_t size, void *ctx)
{
	uintptr_t me = (uintptr_t)ctx;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && me >= lo &&
		    me < lo + ph->p_memsz) {
			self_lo = lo;
			self_hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

/* Takes every word of LD_PRELOAD naming this library out of it, in place
 * (the program's children run untraced), and VMSCOPE_TRACE_FD. */
static void leave_environment(void)
{
	char *v = getenv("LD_PRELOAD"), *w, *out;

	unsetenv("VMSCOPE_TRACE_FD");
	if (!v)
		return;
	for (w = out = v; *w;) {
		size_t n = strcspn(w, ": ");

		if (!memmem(w, n, "libvmstrace", 11)) {
			if (out != v)
				*out++ = ':';
			memmove(out, w, n);
			out += n;
		}
		w += n;
		while (*w == ':' || *w == ' ')
			w++;
	}
	*out = '\0';
	if (!*v)
		unsetenv("LD_PRELOAD");
}

static void in_child(void)
{
	off = true; /* the rings are the parent's */
}

__attribute__((constructor)) static void vmstrace_init(void)
{
	const char *e = getenv("VMSCOPE_TRACE_FD");
	struct tw_header *h;
	char *end;
	long fd;

	resolve();
	dl_iterate_phdr(find_self, (void *)(uintptr_t)vmstrace_init);
	{
		ssize_t n = readlink("/proc/self/exe", exe_path,
				     sizeof(exe_path) - 1);

		exe_path[n > 0 ? n : 0] = '\0';
	}
	leave_environment();
	if (!e)
		return;
	fd = strtol(e, &end, 10);
	if (*end || fd < 0 || fd > 1 << 20)
		return;
	h = next_mmap(NULL, TW_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		      (int)fd, 0);
	close((int)fd); /* the program's descriptors are its own */
	if (h == MAP_FAILED)
		return;
	if (h->magic != TW_MAGIC || h->version != TW_VERSION ||
	    h->slots != TW_SLOTS || h->ring_bytes != TW_RING_BYTES) {
		next_munmap(h, TW_FILE_BYTES);
		return;
	}
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	pthread_key_create(&exit_key, thread_done);
	pthread_atfork(NULL, NULL, in_child);
	h->traced_pid = getpid();
	if (h->sample_bytes) {
		void *set = next_mmap(
			NULL, SET_SLOTS * sizeof(uint64_t),
			PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (set == MAP_FAILED) {
			next_munmap(h, TW_FILE_BYTES);
			return;
		}
		sampled = set;
		page_live = next_mmap(NULL, PAGE_BUCKETS * sizeof(uint32_t),
				      PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page_live == MAP_FAILED) {
			next_munmap(set, SET_SLOTS * sizeof(uint64_t));
			next_munmap(h, TW_FILE_BYTES);
			return;
		}
		sample_mean = h->sample_bytes;
	}
	hdr = h;
}

/* ---- the malloc family ---- */

EXPORT void *malloc(size_t n)
{
	void *p;

	if (!next_malloc) {
		resolve();
		if (!next_malloc)
			return boot_alloc(n);
	}
	p = next_malloc(n);
	ALLOCATED(p, n);
	return p;
}

EXPORT void free(void *p)
{
	if (!p || in_boot(p))
		return;
	if (!next_free)
		resolve();
	freed(p);
	next_free(p);
}

EXPORT void *calloc(size_t n, size_t size)
{
	void *p;

	if (!next_calloc) {
		if (resolving) { /* dlsym's own: zeroed static memory */
			if (size && n > SIZE_MAX / size)
				return NULL;
			return boot_alloc(n * size);
		}
		resolve();
	}
	p = next_calloc(n, size);
	ALLOCATED(p, n * size);
	return p;
}

EXPORT void *realloc(void *old, size_t n)
{
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
		resolve();
	p = next_realloc(old, n);
	if (!old)
		ALLOCATED(p, n);
	else if (p)
		reallocated(old, p, n);
	else if (n == 0)
		freed(old);
	return p;
}

EXPORT void *reallocarray(void *old, size_t n, size_t size)
{
	void *p;

	if (!next_reallocarray)
		resolve();
	p = next_reallocarray(old, n, size);
	if (!old)
		ALLOCATED(p, n * size);
	else if (p)
		reallocated(old, p, n * size);
	return p;
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	int rc;

	if (!next_posix_memalign)
		resolve();
	rc = next_posix_memalign(out, align, n);
	if (rc == 0)
		ALLOCATED(*out, n);
	return rc;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p;

	if (!next_aligned_alloc)
		resolve();
	p = next_aligned_alloc(align, n);
	ALLOCATED(p, n);
	return p;
}

EXPORT void *memalign(size_t align, size_t n)
{
	void *p;

	if (!next_memalign)
		resolve();
	p = next_memalign(align, n);
	ALLOCATED(p, n);
	return p;
}

EXPORT void *valloc(size_t n)
{
	void *p;

	if (!next_valloc)
		resolve();
	p = next_valloc(n);
	ALLOCATED(p, n);
	return p;
}

EXPORT void *pvalloc(size_t n)
{
	void *p;

	if (!next_pvalloc)
		resolve();
	p = next_pvalloc(n);
	ALLOCATED(p, n);
	return p;
}

/* ---- the mmap family (the program's own calls: glibc's malloc maps
 * through internal symbols, which no preload sees) ---- */

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off_)
{
	void *p;

	if (!next_mmap)
		resolve();
	p = next_mmap(addr, len, prot, flags, fd, off_);
	if (p != MAP_FAILED)
		record(TW_OP_MMAP, true, (uintptr_t)p, len,
		       (uint64_t)(unsigned)prot | (uint64_t)(unsigned)flags
							  << 8,
		       0);
	return p;
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
		    off_t off_) __attribute__((alias("mmap")));

EXPORT int munmap(void *addr, size_t len)
{
	int rc;

	if (!next_munmap)
		resolve();
	rc = next_munmap(addr, len);
	if (rc == 0)
		record(TW_OP_MUNMAP, false, (uintptr_t)addr, len, 0, 0);
	return rc;
}

EXPORT void *mremap(void *old, size_t old_len, size_t len, int flags, ...)
{
	void *p, *want = NULL;
	va_list ap;

	if (!next_mremap)
		resolve();
	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		want = va_arg(ap, void *);
		va_end(ap);
		p = next_mremap(old, old_len, len, flags, want);
	} else {
		p = next_mremap(old, old_len, len, flags);
	}
	if (p != MAP_FAILED)
		record(TW_OP_MREMAP, true, (uintptr_t)p, len, (uintptr_t)old,
		       old_len);
	return p;
}

EXPORT int brk(void *end)
{
	void *was;
	int rc;

	if (!next_brk)
		resolve();
	was = next_sbrk ? next_sbrk(0) : NULL;
	rc = next_brk(end);
	if (rc == 0 && was)
		record(TW_OP_BRK, true, (uintptr_t)was,
		       (uint64_t)((uintptr_t)end - (uintptr_t)was), 0, 0);
	return rc;
}

EXPORT void *sbrk(intptr_t inc)
{
	void *p;

	if (!next_sbrk)
		resolve();
	p = next_sbrk(inc);
	if (p != (void *)-1 && inc)
		record(TW_OP_BRK, true, (uintptr_t)p, (uint64_t)inc, 0, 0);
	return p;
}

/* ---- C++'s operator new and delete: recorded as the program's calls,
 * forwarded to the next definition (libstdc++'s, or an allocator's own,
 * as jemalloc's, which never calls malloc through the PLT); what they call
 * inside is not recorded again. A throwing new unwinds through here (the
 * library is built with -fexceptions): the cleanup clears in_cxx. ---- */

/* Nested: libstdc++'s new[] calls new, which is this library's too; the
 * outer call is the program's, the inner one records nothing. */
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

/* The news: each name forwarded to its own next definition with its own
 * arguments (array, aligned, nothrow), the block recorded allocated. */
#define CXX_NEW(mangled, params, args)                                         \
	EXPORT void *mangled params;                                           \
	EXPORT void *mangled params                                            \
	{                                                                      \
		static void *(*next)params;                                    \
		void *p;                                                       \
		NEXT(next, #mangled);                                          \
		CXX_CALL(p = next args);                                       \
		ALLOCATED(p, n);                                               \
		return p;                                                      \
	}

#define NEXT(var, name)                                                        \
	do {                                                                   \
		if (!var)                                                      \
			*(void **)&var = sym(name);                            \
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
 * own arguments (sized, aligned, nothrow), the pointer recorded freed. */
#define CXX_DELETE(mangled, params, args)                                      \
	EXPORT void mangled params;                                            \
	EXPORT void mangled params                                             \
	{                                                                      \
		static void(*next) params;                                     \
		NEXT(next, #mangled);                                          \
		if (p)                                                         \
			record(TW_OP_FREE, false, (uintptr_t)p, 0, 0, 0);      \
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
