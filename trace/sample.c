/* sample.c — the tracer library's sampling (--trace-sample, vmstrace.h):
 * which heap blocks are recorded, the set of those alive, and the frees
 * and reallocs that follow from it. record.c records what it takes.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>

#include "vmstrace.h"

/* ---- sampling (--trace-sample): an allocation under 64 KiB is recorded
 * when the thread's count of bytes allocated crosses the next point of a
 * Poisson process of mean vt_sample_mean bytes (heapprofd's scheme: a block
 * of s bytes is taken with probability 1 - exp(-s / mean), and vmscope
 * weighs it by the inverse). Larger blocks and every map are recorded.
 * The frees recorded are those of recorded blocks: a set of their
 * addresses (open addressing, atomic, shared by the threads). ---- */

#define SET_SLOTS (1u << 21) /* 16 MiB of address space, touched as used */
#define SET_PROBES 64
#define SET_GONE 1u /* a removed entry */

uint64_t vt_sample_mean; /* 0: every call */
static uint64_t *sampled; /* the set of recorded blocks' addresses */
/* Recorded blocks alive per bucket of pages: a free whose bucket holds
 * none (most, in a loop that frees what it just allocated) does not look
 * in the set, whose slots lie all over 16 MiB. In the library's own zeroed
 * data (untouched, no memory, unless sampled): every free of a sampled
 * trace reads it, one load fewer than through a pointer. */
uint32_t vt_page_live[VT_PAGE_BUCKETS] __attribute__((aligned(4096)));
TLS int64_t vt_sample_until; /* bytes to the next sample */
static TLS uint64_t sample_rng; /* xorshift64*, 0: not seeded */
static uint64_t streams; /* threads that have seeded theirs */
static uint64_t sample_seed; /* the trace's (tw_header.seed) */

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
	if (!sample_rng) { /* a stream a thread, in the order they first
			    * allocate: a run replays from the seed; mixed
			    * (splitmix64's finaliser), so that seeds one bit
			    * apart give streams apart */
		uint64_t z = sample_seed +
			     __atomic_add_fetch(&streams, 1, __ATOMIC_RELAXED) *
				     0x9e3779b97f4a7c15ull;

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		sample_rng = (z ^ (z >> 31)) | 1;
	}
	sample_rng ^= sample_rng >> 12;
	sample_rng ^= sample_rng << 25;
	sample_rng ^= sample_rng >> 27;
	return sample_rng * 0x2545f4914f6cdd1dull;
}

/* An exponential interval of mean vt_sample_mean bytes. */
static int64_t next_interval(void)
{
	double u = ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;

	return (int64_t)(-log(u) * (double)vt_sample_mean) + 1;
}

/* Whether a heap block of n bytes is recorded. */
static bool take_block(size_t n)
{
	if (!vt_sample_mean || n >= VT_SAMPLE_ALL_FROM)
		return true;
	if (!vt_tracing())
		return false;
	if (!sample_rng)
		vt_sample_until = next_interval();
	vt_sample_until -= (int64_t)n;
	if (vt_sample_until > 0)
		return false;
	while (vt_sample_until <= 0)
		vt_sample_until += next_interval();
	return true;
}

void vt_allocated(void *p, size_t n)
{
	vt_early(); /* sampling decided as the trace asks */
	if (!p || !take_block(n))
		return;
	if (vt_sample_mean) {
		if (!set_add((uintptr_t)p)) {
			if (vt_tracing())
				vt_count_dropped(n); /* the set is full */
			return;
		}
		__atomic_add_fetch(vt_bucket_of((uintptr_t)p), 1,
				   __ATOMIC_RELAXED);
	}
	vt_record_f(TW_OP_MALLOC,
		    vt_sample_mean && n < VT_SAMPLE_ALL_FROM ? TW_F_SAMPLED : 0,
		    true, (uintptr_t)p, n, 0, 0);
}

void vt_freed(void *p)
{
	vt_early();
	if (vt_sample_mean) {
		uint32_t *b = vt_bucket_of((uintptr_t)p);

		if (!__atomic_load_n(b, __ATOMIC_RELAXED) ||
		    !set_take((uintptr_t)p))
			return; /* not recorded when allocated */
		__atomic_sub_fetch(b, 1, __ATOMIC_RELAXED);
	}
	vt_record(TW_OP_FREE, false, (uintptr_t)p, 0, 0, 0);
}

/* realloc, exact: the record opened before the call (its number orders
 * the old block's end before any thread's reuse of it), closed after. */
bool vt_realloc_begin(struct vt_call *c, size_t n)
{
	(void)n; /* not counted dropped here: vt_reallocated counts it */
	vt_early();
	c->open = false;
	return !vt_sample_mean && vt_begin(c, TW_OP_REALLOC, 0, true, 0);
}

void vt_realloc_end(struct vt_call *c, void *old, void *p, size_t n)
{
	/* p NULL: size 0, old freed (realloc(old, 0)); else the call
	 * failed and old is as it was (tracewire.h) */
	vt_end(c, (uintptr_t)p, n, (uintptr_t)old, 0);
}

/* realloc, sampled (or unrecorded at the call): the old block freed and a
 * new one allocated, each as sampling recorded them. */
void vt_reallocated(void *old, void *p, size_t n)
{
	if (p) {
		vt_freed(old);
		vt_allocated(p, n);
	} else if (n == 0) {
		vt_freed(old);
	}
}

/* Sampling as the file h asks (sample_bytes 0: every call), its set and
 * buckets made once a process, emptied for a trace after a detach. */
int vt_sample_start(const struct tw_header *h)
{
	sample_seed = h->seed;
	if (h->sample_bytes && sampled) {
		/* sampled again (an attach after a detach): the set and the
		 * buckets of the trace before emptied, each mapping replaced
		 * in place by fresh zero pages (MAP_FIXED: never unmapped, so
		 * a thread still in the library reads zeros or what it held,
		 * never a hole) */
		if (next_mmap(sampled, SET_SLOTS * sizeof(uint64_t),
			      PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
				      MAP_FIXED,
			      -1, 0) == MAP_FAILED ||
		    next_mmap(vt_page_live, sizeof(vt_page_live),
			      PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			      0) == MAP_FAILED)
			return -1;
	} else if (h->sample_bytes) {
		void *set = next_mmap(
			NULL, SET_SLOTS * sizeof(uint64_t),
			PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (set == MAP_FAILED)
			return -1;
		__atomic_store_n(&sampled, (uint64_t *)set, __ATOMIC_RELEASE);
	}
	/* exact again after a sampled attach: 0 (the set stays, unused) */
	__atomic_store_n(&vt_sample_mean, h->sample_bytes, __ATOMIC_RELEASE);
	return 0;
}
