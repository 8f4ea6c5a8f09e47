/* tracedb.c — the aggregation of tracedb.h: stacks, sites and their
 * (alloc epoch, free epoch) cells, the live heap allocations (an open
 * addressing table by address, deleted by backward shift: no tombstones),
 * the live mmap and brk ranges, the commits of reserved pages and the
 * pages reserved (sorted arrays: the program's own maps are few), and the
 * marks. The reports are tracedb_report.c's.
 */
#include "trace/tracedb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/tracedb_priv.h"

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

static int ltab_init(struct ltab *lt, size_t cap);

struct tracedb *tracedb_new(void)
{
	struct tracedb *db = calloc(1, sizeof(*db));

	if (!db)
		return NULL;
	db->stack_cap = db->site_cap = 1024;
	db->stack_tab = calloc(db->stack_cap, sizeof(*db->stack_tab));
	db->site_tab = calloc(db->site_cap, sizeof(*db->site_tab));
	if (!db->stack_tab || !db->site_tab || ltab_init(&db->live, 1 << 16)) {
		tracedb_free(db);
		return NULL;
	}
	return db;
}

void tracedb_free(struct tracedb *db)
{
	size_t i;

	if (!db)
		return;
	for (i = 0; i < db->nsites; i++)
		free(db->sites[i].cells);
	for (i = 0; i < db->nbheaps; i++)
		free(db->bheaps[i].freed.cells);
	free(db->bheaps);
	free(db->before.v);
	free(db->frames);
	free(db->stacks);
	free(db->stack_tab);
	free(db->sites);
	free(db->site_tab);
	free(db->live.v);
	free(db->maps.v);
	free(db->commits.v);
	free(db->reserved.v);
	free(db->mark_ns);
	free(db->mark_nlog);
	free(db->log);
	free(db);
}

/* ---- stacks and sites ---- */

static uint64_t hash_frames(const uint64_t *f, unsigned n)
{
	uint64_t h = n;
	unsigned i;

	for (i = 0; i < n; i++)
		h = mix(h ^ f[i]);
	return h;
}

/* Rebuilds an index table (index + 1 by hash) at twice its size. */
static int rehash(uint32_t **tab, size_t *cap, size_t n,
		  uint64_t (*hash_of)(const struct tracedb *, size_t),
		  const struct tracedb *db)
{
	size_t ncap = *cap * 2, i, k;
	uint32_t *nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -1;
	for (i = 0; i < n; i++) {
		for (k = hash_of(db, i) & (ncap - 1); nt[k];
		     k = (k + 1) & (ncap - 1))
			;
		nt[k] = (uint32_t)i + 1;
	}
	free(*tab);
	*tab = nt;
	*cap = ncap;
	return 0;
}

static uint64_t stack_hash(const struct tracedb *db, size_t i)
{
	return db->stacks[i].hash;
}

int64_t tracedb_stack(struct tracedb *db, const uint64_t *frames, unsigned n)
{
	uint64_t h = hash_frames(frames, n);
	size_t k;
	struct stack *s;

	for (k = h & (db->stack_cap - 1); db->stack_tab[k];
	     k = (k + 1) & (db->stack_cap - 1)) {
		s = &db->stacks[db->stack_tab[k] - 1];
		if (s->hash == h && s->n == n &&
		    memcmp(db->frames + s->off, frames, n * sizeof(*frames)) ==
			    0)
			return db->stack_tab[k] - 1;
	}
	if (grow((void **)&db->stacks, &db->capstacks, db->nstacks + 1,
		 sizeof(*db->stacks)) < 0 ||
	    grow((void **)&db->frames, &db->capframes, db->nframes + n,
		 sizeof(*db->frames)) < 0)
		return -1;
	s = &db->stacks[db->nstacks];
	s->hash = h;
	s->off = db->nframes;
	s->n = n;
	if (n)
		memcpy(db->frames + db->nframes, frames, n * sizeof(*frames));
	db->nframes += n;
	db->stack_tab[k] = (uint32_t)++db->nstacks;
	if (db->nstacks * 2 > db->stack_cap &&
	    rehash(&db->stack_tab, &db->stack_cap, db->nstacks, stack_hash,
		   db) < 0)
		return -1;
	return (int64_t)db->nstacks - 1;
}

static uint64_t site_hash(const struct tracedb *db, size_t i)
{
	return mix((uint64_t)db->sites[i].stack << 8 | db->sites[i].kind);
}

/* The site of (stack, kind), made when new; -1 on out of memory. */
static int64_t site_of(struct tracedb *db, uint32_t stack,
		       enum vms_trace_kind kind)
{
	uint64_t h = mix((uint64_t)stack << 8 | (unsigned)kind);
	size_t k;
	struct site *s;

	for (k = h & (db->site_cap - 1); db->site_tab[k];
	     k = (k + 1) & (db->site_cap - 1)) {
		s = &db->sites[db->site_tab[k] - 1];
		if (s->stack == stack && s->kind == (uint8_t)kind)
			return db->site_tab[k] - 1;
	}
	if (grow((void **)&db->sites, &db->capsites, db->nsites + 1,
		 sizeof(*db->sites)) < 0)
		return -1;
	s = &db->sites[db->nsites];
	memset(s, 0, sizeof(*s));
	s->stack = stack;
	s->kind = (uint8_t)kind;
	db->site_tab[k] = (uint32_t)++db->nsites;
	if (db->nsites * 2 > db->site_cap &&
	    rehash(&db->site_tab, &db->site_cap, db->nsites, site_hash, db) < 0)
		return -1;
	return (int64_t)db->nsites - 1;
}

/* Adds count and bytes (negative: takes them) to the site's cell (a, f). */
static int cell_add(struct site *s, uint32_t a, uint32_t f, int64_t count,
		    int64_t bytes)
{
	uint32_t i;

	/* the newest cells are the ones in use: look from the end */
	for (i = s->ncells; i-- > 0;)
		if (s->cells[i].a == a && s->cells[i].f == f)
			break;
	if (i == UINT32_MAX) {
		if (s->ncells == s->capcells) {
			uint32_t cap = s->capcells ? s->capcells * 2 : 2;
			struct vms_trace_cell *n =
				realloc(s->cells, cap * sizeof(*n));

			if (!n)
				return -1;
			s->cells = n;
			s->capcells = cap;
		}
		i = s->ncells++;
		s->cells[i] = (struct vms_trace_cell){ a, f, 0, 0 };
	}
	s->cells[i].count += (uint64_t)count;
	s->cells[i].bytes += (uint64_t)bytes;
	return 0;
}

/* ---- the table of live blocks by address (open addressing, deleted by
 * backward shift) ---- */

static int ltab_init(struct ltab *lt, size_t cap)
{
	lt->cap = cap;
	lt->n = 0;
	lt->v = calloc(cap, sizeof(*lt->v));
	return lt->v ? 0 : -1;
}

static size_t ltab_slot(const struct ltab *lt, uint64_t addr)
{
	return mix(addr) & (lt->cap - 1);
}

static struct live *ltab_find(struct ltab *lt, uint64_t addr)
{
	size_t k;

	if (!lt->n)
		return NULL;
	for (k = ltab_slot(lt, addr); lt->v[k].addr;
	     k = (k + 1) & (lt->cap - 1))
		if (lt->v[k].addr == addr)
			return &lt->v[k];
	return NULL;
}

static int ltab_grow(struct ltab *lt)
{
	struct live *old = lt->v;
	size_t cap = lt->cap, i, k;

	if (!(lt->v = calloc(cap * 2, sizeof(*lt->v)))) {
		lt->v = old;
		return -1;
	}
	lt->cap = cap * 2;
	for (i = 0; i < cap; i++) {
		if (!old[i].addr)
			continue;
		for (k = ltab_slot(lt, old[i].addr); lt->v[k].addr;
		     k = (k + 1) & (lt->cap - 1))
			;
		lt->v[k] = old[i];
	}
	free(old);
	return 0;
}

/* Adds e (its address not in the table). */
static int ltab_put(struct ltab *lt, const struct live *e)
{
	size_t k;

	if ((lt->n + 1) * 4 > lt->cap * 3 && ltab_grow(lt) < 0)
		return -1;
	for (k = ltab_slot(lt, e->addr); lt->v[k].addr;
	     k = (k + 1) & (lt->cap - 1))
		;
	lt->v[k] = *e;
	lt->n++;
	return 0;
}

/* Removes the entry at e, shifting back the entries after it that would
 * otherwise no longer be found (linear probing). */
static void ltab_remove(struct ltab *lt, struct live *e)
{
	size_t mask = lt->cap - 1, i = (size_t)(e - lt->v), j = i;

	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!lt->v[j].addr)
			break;
		home = ltab_slot(lt, lt->v[j].addr);
		/* j's entry may move to i when i lies cyclically in
		 * [home, j) */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && home <= i && home > j)) {
			lt->v[i] = lt->v[j];
			i = j;
		}
	}
	lt->v[i].addr = 0;
	lt->n--;
}

static uint32_t epoch(const struct tracedb *db)
{
	return db->nmarks;
}

/* ---- the log ---- */

void tracedb_thread(struct tracedb *db, int32_t tid)
{
	db->tid = tid;
}

/* Logs an event; without memory for the log, the event is not logged
 * (the figures do not need it). */
static void log_event(struct tracedb *db, enum vms_trace_op op, uint64_t addr,
		      uint64_t size, uint32_t site, uint64_t t)
{
	struct vms_trace_event *e;

	if (!db->log && !(db->log = malloc(VMS_TRACE_LOG * sizeof(*db->log))))
		return;
	e = &db->log[db->nlog++ % VMS_TRACE_LOG];
	*e = (struct vms_trace_event){ .t_ns = t,
				       .addr = addr,
				       .size = size,
				       .site = site,
				       .tid = db->tid,
				       .op = (uint8_t)op };
}

size_t tracedb_log(const struct tracedb *db, const struct vms_trace_filter *f,
		   struct vms_trace_event *out, size_t max)
{
	uint64_t i = db->nlog > VMS_TRACE_LOG ? db->nlog - VMS_TRACE_LOG : 0;
	size_t n = 0;

	for (; db->log && i < db->nlog && n < max; i++) {
		const struct vms_trace_event *e = &db->log[i % VMS_TRACE_LOG];

		if (!vms_trace_filter_pass(f, e))
			continue;
		out[n++] = *e;
	}
	return n;
}

uint64_t tracedb_logged(const struct tracedb *db)
{
	return db->nlog;
}

/* ---- events ---- */

/* A live block freed now: its figures move from (its epoch, alive) to
 * (its epoch, this one). The first cell exists (no allocation: cannot
 * fail); the second may fail only for memory, and the figures then lag. */
static void live_freed(struct tracedb *db, struct ltab *lt, struct live *e)
{
	cell_add(&db->sites[e->site], e->epoch, LIVE_EPOCH, -(int64_t)e->count,
		 -(int64_t)e->size);
	cell_add(&db->sites[e->site], e->epoch, epoch(db), e->count,
		 (int64_t)e->size);
	ltab_remove(lt, e);
}

static int range_add(struct tracedb *db, struct rset *rs, uint64_t start,
		     uint64_t end, uint32_t site, uint64_t t);
static int unmap_range(struct tracedb *db, struct rset *rs, uint64_t addr,
		       uint64_t size);

/* A block alive when the trace began, gone now: released in this epoch
 * (a cell that cannot be made for memory leaves the figures short). */
static void before_gone(struct tracedb *db, struct live *b)
{
	cell_add(&db->bheaps[b->site].freed, 0, epoch(db), 1, (int64_t)b->size);
	ltab_remove(&db->before, b);
}

int tracedb_alloc(struct tracedb *db, enum vms_trace_kind kind, uint32_t stack,
		  uint64_t addr, uint64_t size, uint64_t t)
{
	return tracedb_alloc_weighed(db, kind, stack, addr, size, ONE, size, t);
}

int tracedb_alloc_weighed(struct tracedb *db, enum vms_trace_kind kind,
			  uint32_t stack, uint64_t addr, uint64_t size,
			  uint32_t count, uint64_t bytes, uint64_t t)
{
	int64_t si = site_of(db, stack, kind);
	struct live *e, n;

	db->events++;
	if (si < 0 || cell_add(&db->sites[si], epoch(db), LIVE_EPOCH, count,
			       (int64_t)bytes) < 0)
		return -1;
	log_event(db,
		  kind == VMS_TRACE_HEAP ? VMS_TRACE_OP_ALLOC
					 : VMS_TRACE_OP_MAP,
		  addr, size, (uint32_t)si, t);
	if (kind == VMS_TRACE_COMMIT)
		return range_add(db, &db->commits, addr, addr + size,
				 (uint32_t)si, t);
	if (kind != VMS_TRACE_HEAP) {
		/* a new map over a commit ends it (its old map is gone) */
		if (unmap_range(db, &db->commits, addr, size) < 0)
			return -1;
		return range_add(db, &db->maps, addr, addr + size, (uint32_t)si,
				 t);
	}
	n = (struct live){ addr, bytes, t, (uint32_t)si, epoch(db), count };
	if ((e = ltab_find(&db->before, addr)))
		before_gone(db, e); /* its free went unseen */
	if ((e = ltab_find(&db->live, addr))) {
		/* events come in their order (tracedb.h): the old block's end
		 * was not recorded (freed by a path no interposer sees) */
		live_freed(db, &db->live, e);
	}
	return ltab_put(&db->live, &n);
}

void tracedb_free_heap(struct tracedb *db, uint64_t addr, uint64_t t)
{
	struct live *e;

	db->events++;
	e = ltab_find(&db->live, addr);
	log_event(db, VMS_TRACE_OP_FREE, addr, e ? e->size : 0,
		  e ? e->site : UINT32_MAX, t);
	if (e) {
		live_freed(db, &db->live, e);
		return;
	}
	db->unknown_frees++; /* allocated before the trace, or its record
			      * dropped */
	if ((e = ltab_find(&db->before, addr)))
		before_gone(db, e);
}

/* ---- allocated before the trace ---- */

static struct before_heap *bheap(struct tracedb *db, uint64_t id)
{
	struct before_heap *n;
	size_t i;

	for (i = db->nbheaps; i-- > 0;)
		if (db->bheaps[i].id == id)
			return &db->bheaps[i];
	n = realloc(db->bheaps, (db->nbheaps + 1) * sizeof(*n));
	if (!n)
		return NULL;
	db->bheaps = n;
	n = &db->bheaps[db->nbheaps++];
	memset(n, 0, sizeof(*n));
	n->id = id;
	snprintf(n->kind, sizeof(n->kind), "heap");
	return n;
}

int tracedb_before_block(struct tracedb *db, uint64_t heap, uint64_t addr,
			 uint64_t usable, bool held)
{
	struct before_heap *h;
	struct live *e, n;

	db->before_walked = true;
	e = ltab_find(&db->before, addr);
	if (!held) {
		if (e) {
			db->bheaps[e->site].count--;
			db->bheaps[e->site].bytes -= e->size;
			ltab_remove(&db->before, e);
		}
		return 0;
	}
	if (e || !addr)
		return 0;
	if (!(h = bheap(db, heap)) ||
	    (!db->before.v && ltab_init(&db->before, 1 << 10) < 0))
		return -1;
	n = (struct live){ addr, usable, 0, (uint32_t)(h - db->bheaps), 0, 1 };
	if (ltab_put(&db->before, &n) < 0)
		return -1;
	h->count++;
	h->bytes += usable;
	return 0;
}

void tracedb_before_heap(struct tracedb *db, uint64_t heap, const char *kind)
{
	size_t i;

	for (i = 0; i < db->nbheaps; i++)
		if (db->bheaps[i].id == heap)
			snprintf(db->bheaps[i].kind, sizeof(db->bheaps[i].kind),
				 "%s", kind);
}

void tracedb_before_drop(struct tracedb *db)
{
	size_t i;

	for (i = 0; i < db->nbheaps; i++)
		free(db->bheaps[i].freed.cells);
	free(db->bheaps);
	free(db->before.v);
	memset(&db->before, 0, sizeof(db->before));
	db->bheaps = NULL;
	db->nbheaps = 0;
	db->before_walked = false;
	db->before_partial[0] = '\0';
}

void tracedb_before_done(struct tracedb *db, const char *partial)
{
	db->before_walked = true;
	snprintf(db->before_partial, sizeof(db->before_partial), "%s",
		 partial ? partial : "");
}

/* ---- mmap and brk ranges, commits, reservations ---- */

/* The first range of rs ending after addr. */
static size_t range_first(const struct rset *rs, uint64_t addr)
{
	size_t lo = 0, hi = rs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rs->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t site_at(const struct rset *rs, uint64_t lo, uint64_t hi)
{
	size_t i = range_first(rs, lo);

	return i < rs->n && rs->v[i].start < hi ? rs->v[i].site : UINT32_MAX;
}

/* A commit first: the stack that made the pages usable. */
uint32_t tracedb_map_at(const struct tracedb *db, uint64_t lo, uint64_t hi)
{
	uint32_t s = site_at(&db->commits, lo, hi);

	return s != UINT32_MAX ? s : site_at(&db->maps, lo, hi);
}

/* Whether another range of rs is of range i's allocation. */
static bool other_piece(const struct rset *rs, size_t i)
{
	size_t k;

	for (k = 0; k < rs->n; k++)
		if (k != i && rs->v[k].id == rs->v[i].id)
			return true;
	return false;
}

/* [addr, addr + size) cut out of rs (no figures: the reserved set), a
 * range split where it is cut in its middle. -1: out of memory. */
static int rset_cut(struct rset *rs, uint64_t addr, uint64_t end)
{
	size_t i = range_first(rs, addr);

	while (i < rs->n && rs->v[i].start < end) {
		struct range *r = &rs->v[i];

		if (r->start >= addr && r->end <= end) {
			memmove(r, r + 1, (rs->n - i - 1) * sizeof(*r));
			rs->n--;
		} else if (r->start >= addr) {
			r->start = end;
			i++;
		} else if (r->end <= end) {
			r->end = addr;
			i++;
		} else {
			struct range tail = *r;

			if (grow((void **)&rs->v, &rs->cap, rs->n + 1,
				 sizeof(*rs->v)) < 0)
				return -1;
			r = &rs->v[i];
			tail.start = end;
			r->end = addr;
			memmove(r + 2, r + 1, (rs->n - i - 1) * sizeof(*r));
			r[1] = tail;
			rs->n++;
			i += 2;
		}
	}
	return 0;
}

int tracedb_unmap(struct tracedb *db, uint64_t addr, uint64_t size, uint64_t t)
{
	uint32_t s = tracedb_map_at(db, addr, addr + size);

	db->events++;
	log_event(db, VMS_TRACE_OP_UNMAP, addr, size, s, t);
	if (rset_cut(&db->reserved, addr, addr + size) < 0)
		return -1;
	return unmap_range(db, &db->commits, addr, size) < 0
		       ? -1
		       : unmap_range(db, &db->maps, addr, size);
}

/* [addr, addr + size) of rs unmapped: the ranges it covers freed, in part
 * where it covers part. */
static int unmap_range(struct tracedb *db, struct rset *rs, uint64_t addr,
		       uint64_t size)
{
	uint64_t end = addr + size;
	size_t i = range_first(rs, addr);

	while (i < rs->n && rs->v[i].start < end) {
		struct range *r = &rs->v[i];
		uint64_t lo = r->start > addr ? r->start : addr;
		uint64_t hi = r->end < end ? r->end : end;
		bool whole = lo == r->start && hi == r->end;
		bool last = whole && !other_piece(rs, i);
		struct site *s = &db->sites[r->site];

		/* the bytes unmapped leave the live cell; the allocation is
		 * counted freed once, when its last byte goes */
		if (cell_add(s, r->epoch, LIVE_EPOCH, last ? -(int64_t)ONE : 0,
			     -(int64_t)(hi - lo)) < 0 ||
		    cell_add(s, r->epoch, epoch(db), last ? ONE : 0,
			     (int64_t)(hi - lo)) < 0)
			return -1;
		if (whole) {
			memmove(r, r + 1, (rs->n - i - 1) * sizeof(*r));
			rs->n--;
		} else if (lo == r->start) {
			r->start = hi;
			i++;
		} else if (hi == r->end) {
			r->end = lo;
			i++;
		} else { /* a hole in the middle: two ranges */
			struct range tail = *r;

			if (grow((void **)&rs->v, &rs->cap, rs->n + 1,
				 sizeof(*rs->v)) < 0)
				return -1;
			r = &rs->v[i];
			tail.start = hi;
			r->end = lo;
			memmove(r + 2, r + 1, (rs->n - i - 1) * sizeof(*r));
			r[1] = tail;
			rs->n++;
			/* the piece left counts as one allocation still;
			 * the second piece adds none */
			i += 2;
		}
	}
	return 0;
}

/* r put in its place in rs (sorted by start; nothing of rs overlaps it). */
static int rset_insert(struct rset *rs, struct range r)
{
	size_t i;

	if (grow((void **)&rs->v, &rs->cap, rs->n + 1, sizeof(*rs->v)) < 0)
		return -1;
	i = range_first(rs, r.start);
	memmove(&rs->v[i + 1], &rs->v[i], (rs->n - i) * sizeof(*rs->v));
	rs->v[i] = r;
	rs->n++;
	return 0;
}

static int range_add(struct tracedb *db, struct rset *rs, uint64_t start,
		     uint64_t end, uint32_t site, uint64_t t)
{
	/* a new map over old ones replaces them (MAP_FIXED) */
	if (unmap_range(db, rs, start, end - start) < 0)
		return -1;
	return rset_insert(rs, (struct range){ start, end, t, site, epoch(db),
					       ++db->range_ids });
}

int tracedb_reserved(struct tracedb *db, uint64_t addr, uint64_t size,
		     bool none)
{
	if (rset_cut(&db->reserved, addr, addr + size) < 0)
		return -1;
	if (!none || !size)
		return 0;
	return rset_insert(&db->reserved,
			   (struct range){ .start = addr, .end = addr + size });
}

bool tracedb_reserved_in(const struct tracedb *db, uint64_t addr, uint64_t size)
{
	size_t i = range_first(&db->reserved, addr);

	return i < db->reserved.n && db->reserved.v[i].start < addr + size;
}

int tracedb_remap(struct tracedb *db, uint32_t stack, uint64_t old,
		  uint64_t old_len, bool keep_old, uint64_t addr, uint64_t size,
		  uint64_t span, uint64_t t)
{
	bool none = old_len && tracedb_reserved_in(db, old, old_len);

	if (old_len && !keep_old && tracedb_unmap(db, old, old_len, t) < 0)
		return -1;
	if (tracedb_reserved(db, addr, span, none) < 0)
		return -1;
	return tracedb_alloc(db, VMS_TRACE_MMAP, stack, addr, size, t);
}

int tracedb_protect(struct tracedb *db, uint32_t stack, uint64_t addr,
		    uint64_t size, bool none, uint64_t t)
{
	uint64_t end = addr + size;
	size_t i;

	if (none) { /* decommitted: reserved again */
		uint32_t s = site_at(&db->commits, addr, end);

		if (s != UINT32_MAX) {
			db->events++;
			log_event(db, VMS_TRACE_OP_UNMAP, addr, size, s, t);
		}
		if (unmap_range(db, &db->commits, addr, size) < 0)
			return -1;
		return tracedb_reserved(db, addr, size, true);
	}
	/* each reserved piece inside made accessible: a commit */
	while ((i = range_first(&db->reserved, addr)) < db->reserved.n &&
	       db->reserved.v[i].start < end) {
		uint64_t lo = db->reserved.v[i].start > addr
				      ? db->reserved.v[i].start
				      : addr;
		uint64_t hi = db->reserved.v[i].end < end
				      ? db->reserved.v[i].end
				      : end;

		if (rset_cut(&db->reserved, lo, hi) < 0 ||
		    tracedb_alloc(db, VMS_TRACE_COMMIT, stack, lo, hi - lo, t) <
			    0)
			return -1;
	}
	return 0;
}

/* ---- marks and reports ---- */

int tracedb_mark(struct tracedb *db, uint64_t t)
{
	uint64_t *n = realloc(db->mark_ns, (db->nmarks + 1) * sizeof(*n));
	uint64_t *l;

	if (!n)
		return -1;
	db->mark_ns = n;
	if (!(l = realloc(db->mark_nlog, (db->nmarks + 1) * sizeof(*l))))
		return -1;
	db->mark_nlog = l;
	l[db->nmarks] = db->nlog;
	n[db->nmarks++] = t;
	return (int)db->nmarks;
}

unsigned tracedb_marks(const struct tracedb *db)
{
	return db->nmarks;
}

uint64_t tracedb_events(const struct tracedb *db)
{
	return db->events;
}

uint64_t tracedb_unknown_frees(const struct tracedb *db)
{
	return db->unknown_frees;
}
