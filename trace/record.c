/* record.c — the tracer library's recording (vmstrace.h): each thread's
 * ring of the shared file, the stacks sent once, and the records
 * (sampling, which decides what is recorded, is sample.c's; the modules
 * sent before the stacks that need them, modules.c's).
 * See vmstrace.c for the library's contract.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <errno.h>
#include <libunwind.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "unwind.h"
#include "vmstrace.h"

#define STACK_TABLE (2 * TW_STACK_IDS) /* its hash table: half full */

/* ---- state ---- */

static struct tw_header *hdr; /* NULL: not traced */
/* Whether this process records, in a page the kernel gives a forked
 * child zeroed (MADV_WIPEONFORK): a child of fork() or of a raw fork or
 * clone system call without CLONE_VM (no pthread_atfork handler runs
 * then) records nothing, never in its parent's MAP_SHARED rings (redis'
 * BGSAVE, postgres' backends). It costs the calls one load; getpid(), a
 * system call each time since glibc 2.25, far more. A kernel before 4.14
 * (no MADV_WIPEONFORK): pthread_atfork's handler, for fork() only. */
struct here {
	uint32_t on; /* recording (vt_start to vt_stop) */
	uint32_t own; /* not a forked child's copy: its slots are its own */
	uint32_t pending; /* a forked child followed (follow.c): its file is
			   * made at its first call (a child that execs
			   * without one has none); 2: its parent was
			   * refused, it is only counted */
};
static struct here *here;
static uintptr_t self_lo, self_hi; /* this library's text */
static uintptr_t unw_lo, unw_hi; /* libunwind's text (vt_self) */
/* Stacks by the own walk (unwind.h), libunwind where it cannot; false:
 * libunwind's always (VMSCOPE_TRACE_UNWIND=libunwind). */
static bool own_unwind = true;

struct thread_state {
	int slot; /* its ring, or -1: none to be had */
	unsigned gen; /* the vt_start() its ring is of */
	int rounds; /* destructor rounds seen (thread_done) */
	uint32_t next_id;
	uint64_t hashes[STACK_TABLE]; /* 0: empty; else the stack's hash */
	uint32_t ids[STACK_TABLE];
	struct vt_uw uw; /* the own walk's rules (unwind.h) */
	/* the id of the stack of uw's kept walk (unwind.h: again) */
	bool have_last;
	uint32_t last_id;
	/* the number and time of the ring's last event (tracewire.h: a
	 * short event has them from it); have_event false: none yet */
	bool have_event;
	uint64_t last_seq, last_ns;
};

static TLS struct thread_state *ts;
/* vt_start()s so far: a running process attached again (attach.c) has
 * new rings; a thread's state of an earlier one is started again. */
static unsigned gen;
static TLS int tls_busy; /* inside the library: forward unrecorded */
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

/* why: TW_PASS_* (tracewire.h); the first reason stays */
static void go_passthrough(uint32_t why)
{
	uint32_t was = 0;

	__atomic_compare_exchange_n(&hdr->passthrough, &was, why, false,
				    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/* This process's pid namespace (tracewire.h: tw_pidns_now), taken at the
 * start (vt_start; a forked child following with a file of its own,
 * vt_restart_forked: it may be in a namespace of its own), where the
 * library makes its system calls, not at the first full ring: the
 * program may forbid a path's lookup by then (a seccomp filter:
 * vmstrace.c). Once is enough: a process's pid namespace is its own for
 * its life (unshare and setns move its children only). */
static uint32_t own_pidns;

static bool consumer_gone(void)
{
	return vt_consumer_gone(hdr, own_pidns);
}

/* vmscope gone (killed: it gave nothing back): nobody reads the rings
 * again, so their pages are given back, as vmscope's detach does
 * (src/trace/tracer.c: tracer_free), the header kept (pass-through, set
 * before). Else every thread's ring would stay resident, full (1 MiB), as
 * long as the process maps the file: for its life. A write still under
 * way in another thread's ring faults a zeroed page in again, harmless.
 * Once a file, by the process whose rings they are. */
static void rings_let_go(void)
{
	static unsigned let_go; /* the vt_start() whose rings went */
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE),
		  at = ((uintptr_t)tw_ring_at(hdr, 0) + pg - 1) & ~(pg - 1),
		  end = ((uintptr_t)hdr + TW_FILE_BYTES) & ~(pg - 1);

	if (!here->own ||
	    __atomic_exchange_n(&let_go, gen, __ATOMIC_ACQ_REL) == gen)
		return;
	madvise((void *)at, end - at, MADV_REMOVE);
}

/* The tail of the thread's ring as it last read it: the bytes up to it
 * are vmscope's no more (it stored the tail after reading them: the
 * acquire load that saw it orders those reads before the ring is written
 * again), so a record that fits between it and the head needs no new look
 * at the tail, whose cache line vmscope writes at every read of the rings
 * (a look is a miss on the other core's line: most of what a sampled
 * record cost). */
static TLS struct tw_slot *tail_of;
static TLS uint64_t tail_seen;

/* Room for n bytes at the ring's head, waiting for vmscope while it makes
 * progress. False: drop (pass-through now). */
static bool room(struct tw_slot *sl, uint64_t n)
{
	uint64_t t0 = 0, beat = 0, tail;
	unsigned spins = 0;

	if (tail_of == sl && sl->head + n - tail_seen <= TW_RING_BYTES)
		return true;
	while (sl->head + n -
		       (tail = __atomic_load_n(&sl->tail, __ATOMIC_ACQUIRE)) >
	       TW_RING_BYTES) {
		uint64_t b = __atomic_load_n(&hdr->heartbeat, __ATOMIC_ACQUIRE);

		if (__atomic_load_n(&hdr->passthrough, __ATOMIC_ACQUIRE))
			return false;
		if (++spins < 64)
			continue;
		if (!t0 || b != beat) {
			t0 = now_ns();
			beat = b;
		} else if (consumer_gone()) {
			go_passthrough(TW_PASS_ENDED);
			rings_let_go();
			return false;
		} else if (now_ns() - t0 > TW_WAIT_NS) {
			go_passthrough(TW_PASS_LAGGED);
			return false;
		}
		sched_yield();
	}
	tail_of = sl;
	tail_seen = tail;
	return true;
}

/* Room at the ring's head for a record of `words` words; *pad: the bytes
 * of the ring's end it must skip first. */
static bool reserve(struct tw_slot *sl, unsigned words, uint64_t *pad)
{
	uint64_t bytes = (uint64_t)words * 8, at = sl->head % TW_RING_BYTES;

	*pad = at + bytes > TW_RING_BYTES ? TW_RING_BYTES - at : 0;
	return room(sl, *pad + bytes);
}

/* Writes a record reserve() made room for and hands it to vmscope. */
static void publish(struct tw_slot *sl, unsigned char *ring, const uint64_t *w,
		    unsigned words, uint64_t pad)
{
	uint64_t bytes = (uint64_t)words * 8, at = sl->head % TW_RING_BYTES;

	if (pad) {
		struct tw_rec r = { .op = TW_OP_PAD, .words = 0 };

		memcpy(ring + at, &r, sizeof(r)); /* words 0: to the end */
		at = 0;
	}
	if (words <= 8) { /* an event: a few words, no call to memcpy */
		unsigned i;

		for (i = 0; i < words; i++)
			memcpy(ring + at + (size_t)i * 8, &w[i], 8);
	} else {
		memcpy(ring + at, w, bytes);
	}
	__atomic_store_n(&sl->head, sl->head + pad + bytes, __ATOMIC_RELEASE);
}

bool vt_put(struct tw_slot *sl, unsigned char *ring, const uint64_t *w,
	    unsigned words)
{
	uint64_t pad;

	if (!reserve(sl, words, &pad))
		return false;
	publish(sl, ring, w, words, pad);
	return true;
}

uint64_t vt_rec_word(unsigned op, unsigned words, uint32_t arg)
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
	if (t->slot >= 0 && hdr && t->gen == gen && here->own)
		__atomic_store_n(&tw_slot_at(hdr, (unsigned)t->slot)->state,
				 TW_SLOT_DONE, __ATOMIC_RELEASE);
	ts = &ended;
	next_munmap(t, sizeof(*t));
}

static struct thread_state *thread_state(void)
{
	struct thread_state *t;
	unsigned i;

	if (ts && (ts == &ended || ts->gen == gen))
		return ts;
	if (ts) { /* of an earlier attach: its ring is not in this file */
		t = ts;
		memset(t, 0, sizeof(*t));
	} else {
		t = next_mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t == MAP_FAILED)
			return NULL;
	}
	t->slot = -1;
	t->gen = gen;
	tail_of = NULL; /* a new ring: its tail looked at afresh */
	for (i = 0; i < hdr->slots; i++) {
		struct tw_slot *sl = tw_slot_at(hdr, i);
		uint32_t want = TW_SLOT_FREE;

		if (__atomic_compare_exchange_n(&sl->state, &want, TW_SLOT_LIVE,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			uint64_t w[2];

			t->slot = (int)i;
			sl->tid = (int32_t)gettid(); /* libc's syscall()
						       * may be rewritten */
			w[0] = vt_rec_word(TW_OP_THREAD, 2, (uint32_t)sl->tid);
			w[1] = now_ns();
			vt_put(sl, tw_ring_at(hdr, i), w, 2);
			break;
		}
	}
	ts = t;
	pthread_setspecific(exit_key, t);
	return t;
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

/* Whether a frame of ip[0..n) is libunwind's: the call came from inside
 * it (vt_self). */
static bool from_libunwind(void *const *ip, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if ((uintptr_t)ip[i] >= unw_lo && (uintptr_t)ip[i] < unw_hi)
			return true;
	return false;
}

/* The id of the stack ip[0..n) (n < 0: not walked, take libunwind's, or
 * the own walk's first `partial` frames where those are inside
 * libunwind). */
static uint32_t stack_id_of(struct thread_state *t, struct tw_slot *sl,
			    unsigned char *ring, void **ip, int n, int partial)
{
	uint64_t w[TW_MAX_FRAMES + 1], h;
	int s = 0, i, kept;
	unsigned k;

	if (n < 0 && partial > 0 && from_libunwind(ip, partial))
		n = partial;
	else if (n < 0)
		n = unw_backtrace(ip, TW_MAX_FRAMES + 8);
	/* the library's own frames are not the program's: those it was
	 * called through, and its pthread_create under a thread's own (the
	 * DTV glibc allocates for it) */
	while (s < n && (uintptr_t)ip[s] >= self_lo &&
	       (uintptr_t)ip[s] < self_hi)
		s++;
	for (i = kept = s; i < n; i++)
		if ((uintptr_t)ip[i] < self_lo || (uintptr_t)ip[i] >= self_hi)
			ip[kept++] = ip[i];
	n = kept;
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
		w[0] = vt_rec_word(TW_OP_STACK_RESET, 1, 0);
		if (!vt_put(sl, ring, w, 1))
			return UINT32_MAX;
		memset(t->hashes, 0, sizeof(t->hashes));
		t->next_id = 0;
		t->have_last = false;
		for (k = (unsigned)h & (STACK_TABLE - 1); t->hashes[k];
		     k = (k + 1) & (STACK_TABLE - 1))
			;
	}
	if (!vt_modules_for(ip + s, n - s, sl, ring))
		return UINT32_MAX;
	w[0] = vt_rec_word(TW_OP_STACK, (unsigned)(n - s) + 1, t->next_id);
	for (i = s; i < n; i++)
		w[1 + i - s] = (uint64_t)(uintptr_t)ip[i];
	if (!vt_put(sl, ring, w, (unsigned)(n - s) + 1))
		return UINT32_MAX;
	t->hashes[k] = h;
	t->ids[k] = t->next_id;
	return t->next_id++;
}

/* The stack id of the caller's stack in this thread's ring, sending the
 * stack first when it is new. UINT32_MAX: could not be sent. */
static uint32_t stack_id(struct thread_state *t, struct tw_slot *sl,
			 unsigned char *ring)
{
	void *ip[TW_MAX_FRAMES + 8];
	int n = own_unwind ? vt_unwind(&t->uw, ip, TW_MAX_FRAMES + 8) : -1;
	uint32_t id;

	if (n >= 0 && t->uw.again && t->have_last)
		return t->last_id; /* the same stack as the walk before */
	id = stack_id_of(t, sl, ring, ip, n, n < 0 ? t->uw.partial : 0);
	t->have_last = n >= 0 && t->uw.kept && id != UINT32_MAX;
	t->last_id = id;
	return id;
}

/* ---- recording ---- */

/* A forked child followed, at its first call: its own file, once. */
static bool start_pending(void)
{
	struct tw_header *h;
	uint32_t was;

	if (!here || !__atomic_load_n(&here->pending, __ATOMIC_RELAXED) ||
	    !(was = __atomic_exchange_n(&here->pending, 0, __ATOMIC_ACQ_REL)))
		return false;
	if (was == 2) { /* its parent not followed: counted */
		vt_follow_file(TW_FOLLOW_COUNT);
		return false;
	}
	if (!(h = vt_follow_file(TW_FOLLOW_FORK)))
		return false;
	vt_restart_forked(h);
	return true;
}

TLS int vt_inside;

bool vt_kernel_maps(void)
{
	struct tw_header *h = __atomic_load_n(&hdr, __ATOMIC_ACQUIRE);

	return h && __atomic_load_n(&h->kernel_maps, __ATOMIC_ACQUIRE);
}

/* The offset of this thread's vt_inside from its thread pointer: the
 * same for every thread (static TLS, initial-exec). */
static int64_t inside_offset(void)
{
#if defined(__x86_64__)
	uintptr_t tp;

	__asm__("mov %%fs:0, %0" : "=r"(tp));
	return (int64_t)((uintptr_t)&vt_inside - tp);
#else
	return 0; /* not said: the kernel's trace leaves nothing out */
#endif
}

void vt_start_early(void)
{
	int saved = errno;

	if (tls_busy)
		return;
	tls_busy = 1;
	vt_launch_early();
	tls_busy = 0;
	errno = saved;
}

bool vt_tracing(void)
{
	if (hdr && __atomic_load_n(&here->on, __ATOMIC_RELAXED))
		return !__atomic_load_n(&hdr->passthrough, __ATOMIC_RELAXED);
	return start_pending();
}

void vt_fork_pending(bool counted)
{
	if (here)
		__atomic_store_n(&here->pending, counted ? 2 : 1,
				 __ATOMIC_RELEASE);
}

void vt_count_dropped(uint64_t bytes)
{
	__atomic_add_fetch(&hdr->dropped, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&hdr->dropped_bytes, bytes, __ATOMIC_RELAXED);
}

/* Pass-through because vmscope lagged: it still reports, so what is not
 * recorded now is counted dropped. */
static bool lagged(void)
{
	return hdr && __atomic_load_n(&here->on, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&hdr->passthrough, __ATOMIC_RELAXED) ==
		       TW_PASS_LAGGED;
}

/* The short form of an event (tracewire.h) where it can be had: a free
 * or an allocation below 4 GiB, unflagged, with the time of the ring's
 * last event and a number (seq, taken) less than 2^32 past its number.
 * 0: the long form. */
static unsigned short_op(const struct thread_state *t, unsigned op,
			 unsigned flags, uint64_t size, uint64_t ns,
			 uint64_t seq)
{
	if ((op != TW_OP_FREE && (op != TW_OP_MALLOC || size >> 32)) || flags ||
	    !t->have_event || ns != t->last_ns ||
	    seq - t->last_seq >= (1ull << 32))
		return 0;
	return op == TW_OP_FREE ? TW_OP_FREE_SHORT : TW_OP_MALLOC_SHORT;
}

/* Opens the record of a call (vmstrace.h): the thread's ring, the stack
 * of an allocation, room, and the sequence number. False: the call is not
 * recorded (`drop` bytes counted as dropped where it was meant to be).
 * size: the block's, for the short form (vt_record_f's; UINT64_MAX: not
 * known yet, the long form). */
static bool begin(struct vt_call *c, unsigned op, unsigned flags,
		  bool with_stack, uint64_t drop, uint64_t size)
{
	struct thread_state *t;
	uint32_t id = 0;
	uint64_t ns, seq;
	int saved = errno;

	c->open = false;
	vt_early();
	if (tls_busy || in_cxx)
		return false;
	if (!vt_tracing()) {
		if (drop && lagged())
			vt_count_dropped(drop);
		return false;
	}
	tls_busy = 1;
	t = thread_state();
	if (!t || t->slot < 0) {
		/* no ring free: too many threads at once (no state at all,
		 * its mmap refused or the thread past its end: dropped
		 * alone, for no such reason) */
		if (drop && t)
			__atomic_add_fetch(&hdr->dropped_threads, 1,
					   __ATOMIC_RELAXED);
		goto fail;
	}
	c->sl = tw_slot_at(hdr, (unsigned)t->slot);
	c->ring = tw_ring_at(hdr, (unsigned)t->slot);
	c->gen = t->gen;
	if (with_stack && (id = stack_id(t, c->sl, c->ring)) == UINT32_MAX)
		goto fail;
	/* room for the long form (a short one fits where it would, its
	 * pad too), then the number, then the form: the number decides it
	 * as taken, however long the wait for room was */
	c->words = TW_EVENT_WORDS(op);
	if (!reserve(c->sl, c->words, &c->pad))
		goto fail;
	ns = event_ns();
	seq = __atomic_fetch_add(&hdr->seq, 1, __ATOMIC_RELAXED);
	c->op = short_op(t, op, flags, size, ns, seq);
	if (c->op)
		c->words = TW_EVENT_WORDS(c->op);
	t->last_seq = seq;
	t->last_ns = ns;
	t->have_event = true;
	if (c->op == TW_OP_FREE_SHORT) {
		c->w[0] = vt_rec_word(c->op, c->words, (uint32_t)seq);
	} else if (c->op == TW_OP_MALLOC_SHORT) {
		c->w[0] = vt_rec_word(c->op, c->words, id);
		c->w[1] = (uint64_t)(uint32_t)seq << 32 | size;
	} else {
		c->w[0] = vt_rec_word(op, c->words, id) |
			  (uint64_t)(flags & 0xffff) << 16; /* tw_rec.flags */
		c->w[1] = ns;
		c->w[2] = seq;
	}
	c->open = true;
	errno = saved;
	return true; /* tls_busy stays set: see vt_end */
fail:
	if (drop)
		vt_count_dropped(drop);
	tls_busy = 0;
	errno = saved;
	return false;
}

bool vt_begin(struct vt_call *c, unsigned op, unsigned flags, bool with_stack,
	      uint64_t drop)
{
	return begin(c, op, flags, with_stack, drop, UINT64_MAX);
}

void vt_end(struct vt_call *c, uint64_t a, uint64_t b, uint64_t d, uint64_t e)
{
	if (!c->open)
		return;
	if (c->op == TW_OP_FREE_SHORT) {
		c->w[1] = a;
	} else if (c->op == TW_OP_MALLOC_SHORT) {
		c->w[2] = a; /* the size went in at begin() */
	} else {
		c->w[3] = a;
		c->w[4] = b;
		c->w[5] = d;
		c->w[6] = e;
	}
	/* a call begun before a detach that ends after the next attach:
	 * its slot is now that trace's (attach.c: the new file takes the
	 * old one's place), another thread's ring; its record is of the
	 * trace that ended, and goes nowhere */
	if (c->gen == __atomic_load_n(&gen, __ATOMIC_ACQUIRE))
		publish(c->sl, c->ring, c->w, c->words, c->pad);
	c->open = false;
	tls_busy = 0;
}

/* Records one call already made: op, its fields, and, for an allocation,
 * the caller's stack; flags TW_F_*. */
void vt_record_f(unsigned op, unsigned flags, bool with_stack, uint64_t a,
		 uint64_t b, uint64_t d, uint64_t e)
{
	struct vt_call c;

	/* what frees is not counted dropped: a free, an unmap, the break
	 * moved down (b negative: counted, it added 2^64 - n bytes) */
	bool frees = op == TW_OP_FREE || op == TW_OP_MUNMAP ||
		     (op == TW_OP_BRK && (int64_t)b < 0) ||
		     (op == TW_OP_MPROTECT && !d);

	if (begin(&c, op, flags, with_stack, frees ? 0 : b,
		  op == TW_OP_MALLOC ? b : UINT64_MAX))
		vt_end(&c, a, b, d, e);
}

void vt_record(unsigned op, bool with_stack, uint64_t a, uint64_t b, uint64_t c,
	       uint64_t d)
{
	vt_record_f(op, 0, with_stack, a, b, c, d);
}

/* ---- start ---- */

void vt_self(uintptr_t lo, uintptr_t hi, uintptr_t ulo, uintptr_t uhi)
{
	self_lo = lo;
	self_hi = hi;
	unw_lo = ulo;
	unw_hi = uhi;
}

/* pthread_atfork's child handler (no MADV_WIPEONFORK): a wiped page. */
static void vt_forked(void)
{
	if (here) {
		here->on = 0;
		here->own = 0;
	}
}

void vt_exit_hold(void)
{
	uint64_t since, t0, beat, b, now, looked = 0;
	uint32_t st;

	if (!hdr || !here || !__atomic_load_n(&here->on, __ATOMIC_ACQUIRE) ||
	    !here->own || !__atomic_load_n(&hdr->exit_hold, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&hdr->passthrough, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&hdr->exit_state, TW_EXIT_WAITING, __ATOMIC_SEQ_CST);
	/* vmscope done with the trace meanwhile (tracer_exit_end): it took
	 * back its wish before it could see this one's */
	if (!__atomic_load_n(&hdr->exit_hold, __ATOMIC_SEQ_CST))
		return;
	since = t0 = now_ns();
	beat = __atomic_load_n(&hdr->heartbeat, __ATOMIC_ACQUIRE);
	while ((st = __atomic_load_n(&hdr->exit_state, __ATOMIC_ACQUIRE)) !=
	       TW_EXIT_TAKEN) {
		if (__atomic_load_n(&hdr->passthrough, __ATOMIC_ACQUIRE))
			return;
		now = now_ns();
		b = __atomic_load_n(&hdr->heartbeat, __ATOMIC_ACQUIRE);
		if (b != beat || st == TW_EXIT_TAKING) {
			beat = b;
			t0 = now;
		}
		if (now - t0 > TW_WAIT_NS || now - since > TW_EXIT_HOLD_NS)
			return;
		/* vmscope gone? asked once a millisecond, not each turn */
		if (now - looked > 1000000) {
			if (consumer_gone())
				return;
			looked = now;
		}
		sched_yield();
	}
}

void vt_stop(void)
{
	if (here)
		__atomic_store_n(&here->on, 0, __ATOMIC_RELEASE);
}

/* The page of `here`, once a process (and the fallback's handler). */
static int here_start(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct here *h;

	if (here)
		return 0;
	h = next_mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h == MAP_FAILED)
		return -1;
	if (madvise(h, (size_t)pg, MADV_WIPEONFORK) != 0)
		pthread_atfork(NULL, NULL, vt_forked);
	here = h;
	return 0;
}

bool vt_parent_traced(void)
{
	return hdr && !__atomic_load_n(&hdr->passthrough, __ATOMIC_ACQUIRE);
}

bool vt_parent_refused(void)
{
	return hdr && __atomic_load_n(&hdr->passthrough, __ATOMIC_ACQUIRE) ==
			      TW_PASS_REFUSED;
}

int vt_restart_forked(struct tw_header *h)
{
	/* one thread now (this one): a lock another thread of the parent
	 * held at the fork is nobody's */
	h->traced_pid = getpid();
	own_pidns = tw_pidns_now();
	vt_modules_reset(false);
	gen++; /* the thread's state of the parent's file starts again */
	here->own = 1;
	__atomic_store_n(&hdr, h, __ATOMIC_RELEASE);
	__atomic_store_n(&here->on, 1, __ATOMIC_RELEASE);
	return 0;
}

/* attach.c's question as another vmscope attaches: whether it takes over
 * the entries the last one left redirected (a forked child's are its
 * parent's: always; else alive.c, vt_consumer_orphaned, says why). */
bool vt_orphaned(void)
{
	if (!hdr)
		return false;
	return !here->own || vt_consumer_orphaned(hdr, own_pidns);
}

int vt_start(struct tw_header *h)
{
	const char *uw = getenv("VMSCOPE_TRACE_UNWIND");

	own_unwind = !uw || strcmp(uw, "libunwind") != 0;
	vt_modules_start();
	if (here_start() < 0)
		return -1;
	if (vt_sample_start(h) < 0)
		return -1;
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	if (own_unwind)
		vt_unwind_start();
	if (!hdr)
		pthread_key_create(&exit_key, thread_done);
	h->traced_pid = getpid();
	h->inside_off = inside_offset();
	own_pidns = tw_pidns_now();
	/* again (attach.c, after a detach): the new file has none of the
	 * modules sent to the old one */
	vt_modules_reset(true);
	gen++;
	here->own = 1;
	__atomic_store_n(&hdr, h, __ATOMIC_RELEASE);
	__atomic_store_n(&here->on, 1, __ATOMIC_RELEASE);
	return 0;
}
