/* tracer_read.c — the reading of one traced process's rings (tracer.h,
 * tracer_priv.h): every ring's records up to its head, checked, its
 * events merged in the order of their sequence numbers into the process's
 * aggregation (tracedb.h), its modules named (tracesym.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/negexp.h"
#include "base/tracewire.h"
#include "trace/tracedb.h"
#include "trace/tracer_priv.h"
#include "trace/tracesym.h"

/* A ring's place during one reading: its records from tail to head, and
 * whether an event waits at tail (its number seq; its header as advance()
 * checked it: the ring is the program's memory, which may change it
 * before take_event() reads the rest). */
struct ring_pos {
	uint64_t tail, head, seq;
	uint64_t tail0; /* the tail this reading found */
	/* the ring's thread, read once a reading: the slot's line is the
	 * one the thread writes its head to at every record (a miss of the
	 * other core's line an event: half of what the reader cost) */
	int32_t tid;
	bool event;
	struct tw_rec rec;
};

/* The heartbeat moves at most this often: a millisecond (a thread waiting
 * on a full ring looks for vmscope's pid while it does not move; TW_WAIT_NS
 * is 2 s), not at every reading of the rings (its cache line is read by
 * every record). */
#define TRACER_BEAT_NS 1000000ull

uint64_t tracer_now(const struct tracer *tr)
{
	return vms_mono_ns() - tr->start_ns;
}

void tracer_free_maps(struct tproc *p)
{
	unsigned i;

	for (i = 0; i < TW_SLOTS; i++) {
		free(p->maps[i]);
		p->maps[i] = NULL;
	}
}

/* ---- the rings ---- */

static struct slot_map *slot_map(struct tproc *p, unsigned n)
{
	unsigned i;

	if (!p->maps[n]) {
		p->maps[n] = malloc(sizeof(*p->maps[n]));
		if (!p->maps[n])
			return NULL;
		for (i = 0; i < TW_STACK_IDS; i++)
			p->maps[n]->stack[i] = -1;
		p->maps[n]->have_event = false;
		p->maps[n]->last_seq = p->maps[n]->last_ns = 0;
	}
	return p->maps[n];
}

static uint64_t since_start(const struct tracer *tr, uint64_t t)
{
	return t > tr->start_ns ? t - tr->start_ns : 0;
}

/* The stack of an event, or -1 when the thread never sent that id. */
static int64_t stack_of(struct slot_map *m, const struct tw_rec *r)
{
	return r->arg < TW_STACK_IDS ? m->stack[r->arg] : -1;
}

/* A block recorded by sampling: taken with probability
 * 1 - exp(-size / mean), so it stands for the inverse of that in blocks
 * and bytes. */
static int sampled(struct tracer *tr, struct tproc *p, uint32_t st,
		   const uint64_t *w)
{
	double q = negexp_1m((double)w[2] / (double)tr->o.sample_bytes);
	double n = q > 0 ? 1 / q : 1;

	return tracedb_alloc_weighed(p->db, VMS_TRACE_HEAP, st, w[1], w[2],
				     (uint32_t)(n * 1024 + 0.5),
				     (uint64_t)((double)w[2] * n + 0.5),
				     since_start(tr, w[0]));
}

/* A module the program named: its file, for its symbols, when it is a
 * regular file (the path is the program's to choose: a FIFO or a device
 * there is never opened for reading, nor waited on). */
static void module_file(struct tproc *p, const char *path, uint64_t bias)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return; /* its frames stay unnamed */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	tracesym_module_fd(p->sym, path, fd, bias);
}

/* The kernel rounds a length up to pages. */
static uint64_t pages(const struct tracer *tr, uint64_t len)
{
	return (len + tr->page - 1) & ~(tr->page - 1);
}

/* mprotect (tracedb.h): to PROT_NONE, the commits there end; to access,
 * the reserved pages in it are committed by its stack. As take(). */
static int protect(struct tracer *tr, struct tproc *p, struct slot_map *m,
		   const struct tw_rec *r, const uint64_t *w)
{
	uint64_t len = pages(tr, w[2]), t = since_start(tr, w[0]);
	int64_t st;

	if (!w[3])
		return tracedb_protect(p->db, 0, w[1], len, true, t) < 0 ? -1
									 : 1;
	if (!tracedb_reserved_in(p->db, w[1], len))
		return 1;
	if ((st = stack_of(m, r)) < 0)
		return 0;
	return tracedb_protect(p->db, (uint32_t)st, w[1], len, false, t) < 0
		       ? -1
		       : 1;
}

/* One record, checked. 1 used, 0 refused (bad), -1 out of memory. */
static int take(struct tracer *tr, struct tproc *p, struct slot_map *m,
		const struct tw_rec *r, const uint64_t *w)
{
	int64_t st;
	unsigned i;

	switch (r->op) {
	case TW_OP_THREAD:
		m->have_event = false; /* a new thread's ring */
		/* fall through */
	case TW_OP_STACK_RESET:
		for (i = 0; i < TW_STACK_IDS; i++)
			m->stack[i] = -1;
		return 1;
	case TW_OP_MODULE: {
		const char *path = (const char *)&w[1];
		size_t room = (r->words - 2u) * 8u;

		if (r->words < 3 || !memchr(path, '\0', room))
			return 0;
		if (p->sym)
			module_file(p, path, w[0]);
		return 1;
	}
	case TW_OP_STACK:
		if (r->arg >= TW_STACK_IDS || r->words - 1u > TW_MAX_FRAMES)
			return 0;
		st = tracedb_stack(p->db, w, r->words - 1u);
		if (st < 0)
			return -1;
		m->stack[r->arg] = st;
		return 1;
	default:
		break;
	}
	if (r->words != TW_EVENT_WORDS(r->op) || r->op >= TW_OP_COUNT)
		return 0;
	switch (r->op) {
	case TW_OP_FREE:
		tracedb_free_heap(p->db, w[1], since_start(tr, w[0]));
		return 1;
	case TW_OP_MUNMAP:
		return tracedb_unmap(p->db, w[1], w[2], since_start(tr, w[0])) <
				       0
			       ? -1
			       : 1;
	default:
		break;
	}
	if (r->op == TW_OP_REALLOC && !w[1]) { /* no new block */
		if (!w[2]) /* realloc(old, 0): old freed */
			tracedb_free_heap(p->db, w[3], since_start(tr, w[0]));
		return 1; /* else it failed: old is as it was */
	}
	if (r->op == TW_OP_MREMAP && !w[1])
		return 1; /* it failed */
	if (r->op == TW_OP_MPROTECT) /* commits of reserved pages */
		return protect(tr, p, m, r, w);
	if ((st = stack_of(m, r)) < 0)
		return 0;
	switch (r->op) {
	case TW_OP_MALLOC:
		if ((r->flags & TW_F_SAMPLED) && tr->o.sample_bytes)
			return sampled(tr, p, (uint32_t)st, w) < 0 ? -1 : 1;
		return tracedb_alloc(p->db, VMS_TRACE_HEAP, (uint32_t)st, w[1],
				     w[2], since_start(tr, w[0])) < 0
			       ? -1
			       : 1;
	case TW_OP_REALLOC: /* the old block freed, a new one made */
		tracedb_free_heap(p->db, w[3], since_start(tr, w[0]));
		return tracedb_alloc(p->db, VMS_TRACE_HEAP, (uint32_t)st, w[1],
				     w[2], since_start(tr, w[0])) < 0
			       ? -1
			       : 1;
	case TW_OP_MMAP: /* PROT_NONE: reserved pages (tracedb.h) */
		if (tracedb_reserved(p->db, w[1], pages(tr, w[2]),
				     !(w[3] & 0xff)) < 0)
			return -1;
		return tracedb_alloc(p->db, VMS_TRACE_MMAP, (uint32_t)st, w[1],
				     w[2], since_start(tr, w[0])) < 0
			       ? -1
			       : 1;
	case TW_OP_MREMAP:
		return tracedb_remap(p->db, (uint32_t)st, w[3], w[4],
				     r->flags & TW_F_KEEP_OLD, w[1], w[2],
				     pages(tr, w[2]), since_start(tr, w[0])) < 0
			       ? -1
			       : 1;
	case TW_OP_BRK:
		if ((int64_t)w[2] < 0) /* shrunk */
			return tracedb_unmap(p->db, w[1] + w[2], -w[2],
					     since_start(tr, w[0])) < 0
				       ? -1
				       : 1;
		return tracedb_alloc(p->db, VMS_TRACE_BRK, (uint32_t)st, w[1],
				     w[2], since_start(tr, w[0])) < 0
			       ? -1
			       : 1;
	default:
		return 0;
	}
}

/* The number of the event at rec (its header r): a long form's own, a
 * short form's from the ring's event before it (tracewire.h). False: a
 * short form with no event before it, or that would not be above it. */
static bool event_seq(const struct slot_map *m, const struct tw_rec *r,
		      const unsigned char *rec, uint64_t *seq)
{
	uint32_t lo, gap;
	uint64_t w1;

	if (r->op != TW_OP_FREE_SHORT && r->op != TW_OP_MALLOC_SHORT) {
		memcpy(seq, rec + 16, 8);
		return true;
	}
	if (!m->have_event || r->flags) /* (a short form has no flags) */
		return false;
	memcpy(&w1, rec + 8, 8);
	lo = r->op == TW_OP_FREE_SHORT ? r->arg : (uint32_t)(w1 >> 32);
	gap = lo - (uint32_t)m->last_seq;
	if (!gap)
		return false;
	*seq = m->last_seq + gap;
	return true;
}

/* Takes ring n's records from rp->tail up to its next event: what is not
 * an event (a stack, a module, the thread's start) is taken at once, and
 * rp->event says whether an event waits at rp->tail. -1: out of memory. */
static int advance(struct tracer *tr, struct tproc *p, unsigned n,
		   struct ring_pos *rp, long *got)
{
	const unsigned char *ring = tw_ring_at(p->hdr, n);
	struct slot_map *m = slot_map(p, n);

	rp->event = false;
	if (!m)
		return -1;
	while (rp->tail < rp->head) {
		uint64_t at = rp->tail % TW_RING_BYTES,
			 w[256]; /* words: 255 at most */
		struct tw_rec r;
		uint64_t bytes;
		int rc;

		memcpy(&r, ring + at, sizeof(r));
		if (r.op == TW_OP_PAD && r.words == 0) {
			rp->tail += TW_RING_BYTES - at;
			continue;
		}
		bytes = (uint64_t)r.words * 8;
		if (!r.words || bytes > rp->head - rp->tail ||
		    at + bytes > TW_RING_BYTES) {
			p->bad++; /* a ring that breaks the rules: skipped */
			rp->tail = rp->head;
			break;
		}
		if (r.op < TW_OP_COUNT && TW_EVENT_WORDS(r.op)) {
			if (r.words == TW_EVENT_WORDS(r.op) &&
			    event_seq(m, &r, ring + at, &rp->seq)) {
				rp->rec = r;
				rp->event = true;
				return 0;
			}
			p->bad++;
		} else {
			memcpy(w, ring + at + 8, bytes - 8);
			if ((rc = take(tr, p, m, &r, w)) < 0)
				return -1;
			p->bad += rc == 0;
			++*got;
		}
		rp->tail += bytes;
	}
	return 0;
}

/* Takes the event at rp->tail: take() sees its time then its fields (the
 * number is the merge's). */
static int take_event(struct tracer *tr, struct tproc *p, unsigned n,
		      struct ring_pos *rp)
{
	const unsigned char *ring = tw_ring_at(p->hdr, n);
	uint64_t at = rp->tail % TW_RING_BYTES, w[8];
	struct tw_rec r = rp->rec; /* as checked, whatever the ring says now */
	int rc;

	struct slot_map *m = p->maps[n];
	uint64_t bytes = (uint64_t)r.words * 8;

	_Static_assert(sizeof(w) >= 7 * 8, "the longest event (mremap: 7 "
					   "words), the time twice");
	memcpy(w, ring + at + 8, bytes - 8);
	if (r.op == TW_OP_FREE_SHORT || r.op == TW_OP_MALLOC_SHORT) {
		/* as its long form: time, number, addr (, size: a free's
		 * is not read) */
		uint64_t size = (uint32_t)w[0], addr = w[r.words - 2];

		r.op = r.op == TW_OP_FREE_SHORT ? TW_OP_FREE : TW_OP_MALLOC;
		if (r.op == TW_OP_FREE)
			r.arg = 0;
		r.words = (uint8_t)TW_EVENT_WORDS(r.op);
		w[0] = m->last_ns;
		w[2] = addr;
		w[3] = size;
	}
	w[1] = w[0]; /* the time, just before the fields */
	tracedb_thread(p->db, rp->tid);
	if ((rc = take(tr, p, m, &r, w + 1)) < 0)
		return -1; /* taken again at the next reading: m as it was */
	m->have_event = true;
	m->last_seq = rp->seq;
	m->last_ns = w[1];
	p->bad += rc == 0;
	if (rp->seq >= p->next_seq)
		p->next_seq = rp->seq + 1;
	rp->tail += bytes;
	return 0;
}

/* Whether the merge may pass over the numbers from next_seq up to seq:
 * when the program has ended (they will never be written), or after
 * TW_WAIT_NS of waiting for the same one (a thread stopped inside its
 * call, or a ring broken). */
static bool pass_over(struct tproc *p, uint64_t seq)
{
	uint64_t t = vms_mono_ns();

	if (!p->reaped) {
		if (p->stall_seq != p->next_seq || !p->stall_ns) {
			p->stall_seq = p->next_seq;
			p->stall_ns = t;
			return false;
		}
		if (t - p->stall_ns < TW_WAIT_NS)
			return false;
	}
	p->bad += seq - p->next_seq; /* events never written */
	p->next_seq = seq;
	p->stall_ns = 0;
	return true;
}

long tracer_drain_proc(struct tracer *tr, struct tproc *p,
		       struct vms_error *err)
{
	struct ring_pos pos[TW_SLOTS];
	unsigned live[TW_SLOTS], nlive = 0, i, k;
	uint32_t state[TW_SLOTS];
	long got = 0;

	/* every ring's records up to the head it has now, ... */
	for (i = 0; i < TW_SLOTS; i++) {
		struct tw_slot *sl = tw_slot_at(p->hdr, i);
		struct ring_pos *rp = &pos[i];

		state[i] = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE);
		if (state[i] == TW_SLOT_FREE)
			continue;
		rp->head = __atomic_load_n(&sl->head, __ATOMIC_ACQUIRE);
		rp->tail = rp->tail0 = sl->tail;
		rp->tid = sl->tid;
		if (rp->head - rp->tail > TW_RING_BYTES ||
		    (rp->head | rp->tail) % 8) {
			p->bad++; /* a ring that breaks the rules: skipped */
			rp->tail = rp->head;
		}
		if (advance(tr, p, i, rp, &got) < 0)
			goto nomem;
		live[nlive++] = i;
	}
	/* ... its events taken in the order of their numbers */
	for (;;) {
		struct ring_pos *b = NULL;
		unsigned bn = 0;

		for (k = 0; k < nlive; k++) {
			struct ring_pos *rp = &pos[live[k]];

			if (rp->event && (!b || rp->seq < b->seq)) {
				b = rp;
				bn = live[k];
			}
		}
		if (!b || (b->seq > p->next_seq && !pass_over(p, b->seq)))
			break;
		/* the same thread's next numbers without looking again */
		do {
			if (take_event(tr, p, bn, b) < 0 ||
			    advance(tr, p, bn, b, &got) < 0)
				goto nomem;
			got++;
		} while (b->event && b->seq == p->next_seq);
	}
	/* Each store below is to a cache line the program's threads use
	 * (the slot's head, the header's fields they read at every record):
	 * made only when it says something, the tail when it moved, the
	 * heartbeat a thousand times a second at most (the library waits on
	 * a full ring while it moves, TW_WAIT_NS without) */
	for (k = 0; k < nlive; k++) {
		struct tw_slot *sl = tw_slot_at(p->hdr, live[k]);

		if (pos[live[k]].tail != pos[live[k]].tail0)
			__atomic_store_n(&sl->tail, pos[live[k]].tail,
					 __ATOMIC_RELEASE);
		/* a finished thread's ring, read to its end, is free again
		 * (its stack ids with it) */
		if (state[live[k]] == TW_SLOT_DONE &&
		    pos[live[k]].tail == pos[live[k]].head) {
			__atomic_store_n(&sl->state, TW_SLOT_FREE,
					 __ATOMIC_RELEASE);
			if (p->how) { /* a child's: bounded by its threads */
				free(p->maps[live[k]]);
				p->maps[live[k]] = NULL;
			}
		}
	}
	{
		uint64_t t = vms_mono_ns();

		if (t - p->beat_ns >= TRACER_BEAT_NS) {
			__atomic_add_fetch(&p->hdr->heartbeat, 1,
					   __ATOMIC_RELEASE);
			p->beat_ns = t;
		}
	}
	return got;
nomem:
	for (k = 0; k < nlive; k++)
		__atomic_store_n(&tw_slot_at(p->hdr, live[k])->tail,
				 pos[live[k]].tail, __ATOMIC_RELEASE);
	return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
			     "out of memory reading the trace");
}

/* The trace-wide figures of a report (its sites made). */
void tracer_report_fields(const struct tracer *tr, const struct tproc *p,
			  struct vms_trace_report *out)
{
	out->run = tr->run;
	out->sample_bytes = tr->o.sample_bytes;
	out->sampled = out->sample_bytes != 0;
	out->attached = tr->attached;
	out->dropped =
		p->hdr ? __atomic_load_n(&p->hdr->dropped, __ATOMIC_ACQUIRE)
		       : p->dropped;
	out->dropped_bytes = p->hdr ? __atomic_load_n(&p->hdr->dropped_bytes,
						      __ATOMIC_ACQUIRE)
				    : p->dropped_bytes;
	out->dropped_threads =
		p->hdr ? __atomic_load_n(&p->hdr->dropped_threads,
					 __ATOMIC_ACQUIRE)
		       : p->dropped_threads;
	out->ended = p->reaped;
	out->exit_status = p->how ? -1 : p->status; /* a child's: its
						       * parent's to know */
	out->bad_records = p->bad;
	if (p == &tr->p) /* the kernel traces the attached one alone */
		tracer_kernel_figures(tr, out);
}
