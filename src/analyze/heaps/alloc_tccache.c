/* alloc_tccache.c — gperftools tcmalloc's own figures beside its page
 * map's walk (alloc_tcmalloc.c, which reads the central free lists from
 * its spans): its page heap's statistics and metadata count (below,
 * alloc_tc_figures()), and its caches of free objects beyond the central
 * free lists:
 * the transfer caches and the thread caches, found in the library's
 * writable memory without symbols (2.10 to 2.12's layouts):
 *
 *  - SizeMap's num_objects_to_move_, the int32s just before its
 *    class_to_size_ (common.h): 0, then for each class
 *    min(max(64 KiB / size, 2), N), N being class 1's (the
 *    tcmalloc_transfer_num_objects flag); checked so.
 *  - The transfer caches: Static::central_cache_, an array in .bss of
 *    CentralFreeList padded to 64 bytes, each holding its size_class_
 *    (a size_t at +8: 0, 1, 2 ... along the array), two sentinel Spans,
 *    num_spans_, counter_, 64 tc_slots_ of {head, tail} and used_slots_ ≤
 *    cache_size_ ≤ max_cache_size_ ≤ 64 (central_freelist.h). A class's
 *    transfer bytes: used_slots_ × num_objects_to_move × size
 *    (CentralFreeList::tc_length()).
 *  - The thread caches: ThreadCache objects (thread_cache.h), each
 *    kClassSizesMax FreeLists of {list_, length_, lowater_, max_length_,
 *    length_overages_, size_} (size_ being the class's object size)
 *    then size_, the sum of length_ × size over its lists: that is
 *    checked, which no other memory passes. The list thread_heaps_ heads
 *    (a .bss word) is linked through next_, a word shortly after size_:
 *    every ThreadCache a .bss word or another ThreadCache points to is
 *    counted, once. Their bytes: the sum of size_
 *    (ThreadCache::GetThreadStats).
 *
 * Where the objects lie (the brk heap or tcmalloc's mapped memory), when
 * asked (in->place: where both have spans in use): each cache's list
 * walked (its objects' first words link it), a read an object.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/heaps/alloc_heap.h"
#include "analyze/rtheap.h"

/* kClassSizesMax (common.h: 128 since 2.6) */
#define TC_CLASSES_MAX 128
/* CentralFreeList: sizeclass_ at +8, then two Spans, num_spans_,
 * counter_, then the slots and the counts */
#define CFL_CLASS 8
#define CFL_SLOTS (16 + 2 * RTHEAP_TC_SPAN + 16)
#define CFL_NSLOTS 64
#define CFL_USED (CFL_SLOTS + 16 * CFL_NSLOTS)
#define CFL_STRIDE ((CFL_USED + 12 + 4 + 63) / 64 * 64)
/* ThreadCache: FreeLists of 32 bytes (64-bit), then size_ */
#define TCF_SIZE 32
#define TCF_LENGTH 8
#define TCF_LOWATER 12
#define TCF_MAXLEN 16
#define TCF_OBJSIZE 24
#define TC_SIZE_AT (TCF_SIZE * TC_CLASSES_MAX)
/* where next_ may be after size_ (2.10: 40 bytes) */
#define TC_LINKS 128
/* thread caches at most, objects walked at most */
#define MAX_THREADS 4096
#define MAX_OBJECTS (1u << 20)

static uint32_t u32_at(const uint64_t *w, size_t byte)
{
	uint32_t v;

	memcpy(&v, (const unsigned char *)w + byte, 4);
	return v;
}

/* num_objects_to_move_ (the int32s before class_to_size_), checked. */
static bool tc_num_move(const struct alloc_tc_in *in, uint32_t *move)
{
	size_t c;
	uint64_t n;

	if (in->class_size_at < in->lo + 4 * TC_CLASSES_MAX)
		return false;
	for (c = 0; c < in->nclass; c++)
		move[c] = u32_at(in->w, in->class_size_at - in->lo -
						4 * TC_CLASSES_MAX + 4 * c);
	if (in->nclass < 3 || move[0] != 0 || move[1] < 2)
		return false;
	n = move[1];
	for (c = 1; c < in->nclass; c++) {
		uint64_t want = 65536 / in->class_size[c];

		want = want < 2 ? 2 : want > n ? n : want;
		if (move[c] != want)
			return false;
	}
	return true;
}

/* The central_cache_ array: its address, 0. */
static uint64_t tc_central_array(const struct alloc_tc_in *in)
{
	size_t nw = (in->hi - in->lo) / 8, i, c;
	uint64_t found = 0;
	int nfound = 0;

	for (i = 0; i < nw && nfound < 2; i++) {
		uint64_t b = in->lo + 8 * i - CFL_CLASS;

		if (in->w[i] != 0 || 8 * i < CFL_CLASS ||
		    (8 * i - CFL_CLASS) + in->nclass * CFL_STRIDE >
			    in->hi - in->lo)
			continue;
		for (c = 1; c < in->nclass; c++)
			if (in->w[i + c * CFL_STRIDE / 8] != c)
				break;
		if (c == in->nclass) {
			found = b;
			nfound++;
		}
	}
	return nfound == 1 ? found : 0;
}

/* Walks a list of n objects from head (its last tail, when tail != 0),
 * placing each in the brk heap or not. false when a link is not
 * readable or the list does not end at tail. */
static bool walk(struct vms_snapshot *s, const struct alloc_tc_in *in,
		 uint64_t head, uint64_t tail, uint64_t n, uint64_t size,
		 uint64_t *brk, uint64_t *budget)
{
	uint64_t p = head, i;

	for (i = 0; i < n; i++) {
		if (!p || p % 8 || !(*budget)--)
			return false;
		if (p >= in->brk_lo && p < in->brk_hi)
			*brk += size;
		if (i + 1 == n)
			break;
		if (!rtscan_read(s, p, &p, 8))
			return false;
	}
	return !tail || p == tail;
}

/* The transfer caches' bytes (-1 with *why when not found). */
static int64_t tc_transfer(struct vms_snapshot *s, const struct alloc_tc_in *in,
			   const uint32_t *move, struct alloc_tc_out *out,
			   uint64_t *budget)
{
	uint64_t base = tc_central_array(in), sum = 0;
	size_t c, k;

	if (!base) {
		out->why = "its transfer caches (central_cache_) were not "
			   "found";
		return -1;
	}
	for (c = 1; c < in->nclass; c++) {
		size_t at = base - in->lo + c * CFL_STRIDE;
		uint32_t used = u32_at(in->w, at + CFL_USED),
			 cap = u32_at(in->w, at + CFL_USED + 4),
			 max = u32_at(in->w, at + CFL_USED + 8);

		if (used > cap || cap > max || max > CFL_NSLOTS) {
			out->why = "its transfer caches' counts are not sound";
			return -1;
		}
		sum += (uint64_t)used * move[c] * in->class_size[c];
		for (k = 0; k < used && out->placed; k++)
			out->placed =
				walk(s, in, in->w[(at + CFL_SLOTS) / 8 + 2 * k],
				     in->w[(at + CFL_SLOTS) / 8 + 2 * k + 1],
				     move[c], in->class_size[c],
				     &out->brk_cached, budget);
	}
	return (int64_t)sum;
}

/* A ThreadCache at a (read into buf): its lists' sizes, lengths and
 * size_ agree. */
static bool thread_cache(struct vms_snapshot *s, const struct alloc_tc_in *in,
			 uint64_t a, unsigned char *buf)
{
	const uint64_t *w = (const uint64_t *)buf;
	uint64_t sum = 0;
	ptrdiff_t r = a ? vms_snapshot_find_index(s, a) : -1;
	size_t c;

	/* in anonymous memory (tcmalloc's metadata), whole */
	if (r < 0 || (s->regions[r].path && s->regions[r].path[0] != '[') ||
	    s->regions[r].end - a < TC_SIZE_AT + 8 + TC_LINKS || a % 8 ||
	    !rtscan_read(s, a, buf, TC_SIZE_AT + 8 + TC_LINKS))
		return false;
	for (c = 1; c < in->nclass; c++) {
		size_t f = c * TCF_SIZE;
		uint32_t len = u32_at(w, f + TCF_LENGTH);

		if (u32_at(w, f + TCF_OBJSIZE) != in->class_size[c] ||
		    u32_at(w, f + TCF_LOWATER) > len || !len != !w[f / 8] ||
		    w[f / 8] % 8)
			return false;
		sum += (uint64_t)len * in->class_size[c];
	}
	return sum == u32_at(w, TC_SIZE_AT) && sum <= INT32_MAX;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool seen(const uint64_t *v, size_t n, uint64_t a)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == a)
			return true;
	return false;
}

/* The thread caches' bytes (-1 with *why). */
static int64_t tc_threads(struct vms_snapshot *s, const struct alloc_tc_in *in,
			  struct alloc_tc_out *out, uint64_t *budget)
{
	size_t nw = (in->hi - in->lo) / 8, i, k, n = 0, c;
	uint64_t *v = malloc(MAX_THREADS * sizeof(*v)), sum = 0;
	unsigned char *buf = malloc(TC_SIZE_AT + 8 + TC_LINKS);
	int64_t rc = -1;

	if (!v || !buf) {
		out->oom = true;
		goto out;
	}
	/* the .bss words that point to one */
	for (i = 0; i < nw && n < MAX_THREADS; i++)
		if (in->w[i] && !seen(v, n, in->w[i]) &&
		    thread_cache(s, in, in->w[i], buf))
			v[n++] = in->w[i];
	/* and those they link to */
	for (k = 0; k < n; k++) {
		uint64_t links[TC_LINKS / 8];

		if (!thread_cache(s, in, v[k], buf)) {
			out->why = "a thread cache could not be read again";
			goto out;
		}
		memcpy(links, buf + TC_SIZE_AT + 8, sizeof(links));
		sum += u32_at((const uint64_t *)buf, TC_SIZE_AT);
		for (c = 1; c < in->nclass && out->placed; c++) {
			const unsigned char *f = buf + c * TCF_SIZE;
			uint64_t head;

			memcpy(&head, f, 8);
			out->placed = walk(s, in, head, 0,
					   u32_at((const uint64_t *)buf,
						  c * TCF_SIZE + TCF_LENGTH),
					   in->class_size[c], &out->brk_cached,
					   budget);
		}
		for (i = 0; i < TC_LINKS / 8 && n < MAX_THREADS; i++)
			if (links[i] && !seen(v, n, links[i]) &&
			    thread_cache(s, in, links[i], buf))
				v[n++] = links[i];
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	out->threads = n;
	if (n == MAX_THREADS)
		out->why = "more thread caches than are read";
	else
		rc = (int64_t)sum;
	if (!n)
		out->why = "no thread cache was found";
out:
	free(buf);
	free(v);
	return n ? rc : -1;
}

/* Its own figures (MallocExtension::GetStats's page heap freelist,
 * unmapped and metadata): the page heap's stats_ (system_bytes,
 * free_bytes, unmapped_bytes, committed_bytes: whole pages, committed =
 * system - unmapped) and, in common.cc's statics, the metadata chunk's
 * bytes left, its bump pointer and metadata_system_bytes_ (2.10: in that
 * order), both in the library's writable memory. No symbol names them;
 * what ties them is its exported count of bytes taken from the system:
 * system_bytes + metadata + the chunk's bytes left == TCMalloc_SystemTaken
 * (2.10 measured). Exactly one such pair, else nothing. */
struct tc_stats {
	uint64_t system, free, unmapped, metadata;
};

static bool tc_stats_at(struct vms_snapshot *s, const struct alloc_tc_in *t,
			uint64_t taken, size_t q, size_t n,
			struct tc_stats *out, int *found)
{
	const uint64_t *w = t->w;
	uint64_t sys = w[q], need;
	size_t i;

	if (!sys || sys % 8192 || w[q + 1] % 8192 || w[q + 2] % 8192 ||
	    w[q + 1] > sys || w[q + 2] > sys - w[q + 1] ||
	    w[q + 3] != sys - w[q + 2] || sys >= taken)
		return false;
	need = taken - sys;
	for (i = 2; i < n; i++) {
		if (!w[i] || w[i] > need || w[i - 2] != need - w[i] ||
		    vms_snapshot_find_index(s, w[i - 1] - 1) < 0)
			continue;
		if (++*found > 1)
			return true;
		*out = (struct tc_stats){ sys, w[q + 1], w[q + 2], w[i] };
	}
	return true;
}

static int tc_stats(struct vms_snapshot *s, const struct alloc_tc_in *t,
		    int64_t taken, struct tc_stats *out)
{
	size_t n = (t->hi - t->lo) / 8, q;
	int found = 0;

	for (q = 0; taken > 0 && q + 4 <= n && found < 2; q++)
		tc_stats_at(s, t, (uint64_t)taken, q, n, out, &found);
	return found;
}

void alloc_tc_figures(struct vms_snapshot *s, const struct alloc_tc_in *t,
		      struct vms_allocator *al)
{
	struct tc_stats st = { 0, 0, 0, 0 };
	int got = tc_stats(s, t, al->system, &st);

	if (got != 1) {
		al->figures_note =
			al->system < 0 ? "its own figures were not read: its "
					 "count of bytes taken from the "
					 "system could not be"
			: got	       ? "its own figures were not read: more "
					 "than one place in its memory reads "
					 "as its page heap's statistics"
				       : "its own figures were not read: its "
					 "page heap's statistics were not "
					 "found";
		return;
	}
	al->page_heap_free = (int64_t)st.free;
	al->unmapped = (int64_t)st.unmapped;
	al->metadata = (int64_t)st.metadata;
	al->figures_note =
		"page heap freelist, unmapped and metadata: its page heap's "
		"statistics; central, transfer and thread cache freelists: its "
		"spans' objects handed out, its transfer caches' slots and its "
		"thread caches' lists; allocated (bytes in use by the "
		"application, a heap's in use): its spans in use less the "
		"three caches (as MallocExtension::GetStats)";
}

void alloc_tc_caches(struct vms_snapshot *s, const struct alloc_tc_in *in,
		     struct alloc_tc_out *out)
{
	uint32_t move[TC_CLASSES_MAX];
	uint64_t budget = MAX_OBJECTS;

	memset(out, 0, sizeof(*out));
	out->transfer = out->thread = -1;
	out->placed = in->place;
	if (!in->nclass || in->nclass > TC_CLASSES_MAX) {
		out->why = "its size classes were not found";
		out->placed = false;
		return;
	}
	if (!tc_num_move(in, move))
		out->why = "its batch sizes (num_objects_to_move_) were not "
			   "found";
	else
		out->transfer = tc_transfer(s, in, move, out, &budget);
	out->thread = tc_threads(s, in, out, &budget);
	if (out->transfer < 0 || out->thread < 0)
		out->placed = false;
}
