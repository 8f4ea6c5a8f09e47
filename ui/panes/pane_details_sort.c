/* pane_details_sort.c — the order of the details' top rows: by a figure,
 * the type, Prot's letters, the address or the Details text, either way
 * (S), ties by address ascending.
 *
 * Contract: details_sort_tops() takes top rows in address order and writes
 * them sorted (in place, or into another array); it reads the snapshot and
 * the allocations once, a key per row, into a dense array, then sorts
 * numbers (a stable LSD radix sort, pane_details_radix.c: of the keys
 * packed with their rows into 8 bytes where they fit, else of (key, row)
 * pairs: or always, with VMSCOPE_SORT_PAIRS=1, for the tests), in the
 * details' scratch buffer
 * (details_scratch: no fresh pages a key), the keys packed where they
 * were gathered and the last pass writing the rows. The Details text
 * sorts by the rank of each region's text, made once for the snapshot
 * (d->text_rank, 4 bytes a region, at the first such sort or while nobody
 * types); a removed row's text (the changes') by a binary search among the
 * regions' distinct texts, kept in their order (d->text_sorted); the
 * address by each start's rank among the rows.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "model/columns.h"
#include "panes/panes.h"

/* The figure column a sort is by, or -1 (address, type, Prot, Details). */
static int sort_figure(int sort)
{
	return sort >= DS_COL && sort - DS_COL < VMS_NCOLS ? sort - DS_COL : -1;
}

const char *dsort_name(int s)
{
	if (s >= DS_COL)
		return vms_config_name(s - DS_COL);
	return s == DS_ADDRESS ? "Address" : "Type";
}

const char *details_sort_arrow(const struct details *d)
{
	int f = sort_figure(d->sort);
	bool up = f < 0 || vms_column_has((enum vms_col)f, VMS_COLF_ASCENDING);

	return up != d->reverse ? "^" : "v";
}

void details_sort_defaults(struct details *d)
{
	size_t i;

	for (i = 0; i < sizeof(d->sorts) / sizeof(d->sorts[0]); i++) {
		d->sorts[i].sort = DS_ADDRESS;
		d->sorts[i].reverse = false;
	}
	/* the free list: the largest gap first (Size runs so) */
	d->sorts[1 + VMS_T_FREE].sort = DS_COL + VMS_COL_SIZE;
	d->sort = d->sorts[1 + d->filter].sort;
	d->reverse = d->sorts[1 + d->filter].reverse;
}

void details_sorts_from_config(struct details *d, const struct vms_config *c)
{
	int k;

	for (k = 0; k < VMS_CONFIG_LISTS; k++) {
		const struct vms_config_sort *so = &c->sort[k];

		if (!so->set)
			continue;
		d->sorts[k].sort = so->by == VMS_SORT_ADDRESS ? DS_ADDRESS
				   : so->by == VMS_SORT_TYPE  ? DS_TYPE
							      : DS_COL + so->by;
		d->sorts[k].reverse = so->reverse;
	}
	d->sort = d->sorts[1 + d->filter].sort;
	d->reverse = d->sorts[1 + d->filter].reverse;
}

void details_sorts_to_config(const struct details *d, struct vms_config *c)
{
	int k;

	for (k = 0; k < VMS_CONFIG_LISTS; k++) {
		bool shown = k == 1 + d->filter;
		int sort = shown ? d->sort : d->sorts[k].sort;
		bool rev = shown ? d->reverse : d->sorts[k].reverse;
		struct vms_config_sort *so = &c->sort[k];

		/* a list the user never sorted stays unnamed */
		if (!so->set &&
		    sort == (k == 1 + VMS_T_FREE ? DS_COL + VMS_COL_SIZE
						 : DS_ADDRESS) &&
		    !rev)
			continue;
		so->set = true;
		so->by = sort == DS_ADDRESS ? VMS_SORT_ADDRESS
			 : sort == DS_TYPE  ? VMS_SORT_TYPE
					    : sort - DS_COL;
		so->reverse = rev;
	}
}

void details_set_filter(struct details *d, int filter)
{
	d->sorts[1 + d->filter].sort = d->sort;
	d->sorts[1 + d->filter].reverse = d->reverse;
	d->filter = filter;
	d->sort = d->sorts[1 + filter].sort;
	d->reverse = d->sorts[1 + filter].reverse;
}

/* The text a row sorts by in the Details column. */
static const char *row_text(const struct ui *u, const struct drow *r)
{
	const struct vms_region *g =
		r->kind == DROW_REMOVED
			? changes_removed_region(&viewer_of(u)->det, r)
			: details_node_region(u, r);

	return g ? details_region_text(g) : "";
}

/* The number a top row sorts by: its figure, type, Prot's letters
 * (big-endian, strcmp's order) or start; read once before the sort, so
 * the sort touches neither the snapshot nor the allocations. */
static uint64_t sort_key_of(const struct ui *u, const struct drow *r)
{
	struct viewer *v = viewer_of(u);
	int sort = v->det.sort, f = sort_figure(sort);
	uint64_t start, end, k = 0;

	if (f >= 0)
		return details_figure(u, r, (enum vms_col)f);
	if (sort == DS_TYPE) {
		const struct vms_region *g = details_node_region(u, r);

		if (r->kind == DROW_REMOVED)
			return v->det.removed[r->idx]->type;
		return g ? g->type : VMS_T_FREE;
	}
	if (sort == DS_COL + VMS_DCOL_PROT) {
		char b[8] = { 0 };
		int i;

		details_row_perms(u, r, b);
		for (i = 0; i < 8; i++)
			k = k << 8 | (unsigned char)b[i];
		return k;
	}
	details_row_span(u, r, &start, &end);
	return start;
}

/* VMSCOPE_SORT_PAIRS=1 sorts every list by (key, row) pairs, as keys too
 * wide to pack with their rows are (some 41 bits at a million rows): the
 * tests' one way to that path on lists they can check row by row. */
static bool force_pairs(void)
{
	static int v = -1;

	if (v < 0) {
		const char *e = getenv("VMSCOPE_SORT_PAIRS");

		v = e && !strcmp(e, "1");
	}
	return v == 1;
}

enum { PREFETCH_AHEAD = 16 }; /* records asked for ahead of the one read */

/* qsort_r: distinct texts (indexes into ctx, an array of them) by strcmp */
static int cmp_texts(const void *pa, const void *pb, void *ctx)
{
	const char *const *t = ctx;

	return strcmp(t[*(const uint32_t *)pa], t[*(const uint32_t *)pb]);
}

/* The distinct texts seen so far: an open-addressed table of pointers
 * (texts are interned: one pointer a text, mostly), each with its id,
 * the order it was first seen in. */
struct text_ids {
	const char **key;
	uint32_t *id;
	size_t cap, n; /* cap a power of two, at most half full */
};

static size_t text_slot(const struct text_ids *t, const char *p)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 32) & (t->cap - 1);

	while (t->key[i] && t->key[i] != p)
		i = (i + 1) & (t->cap - 1);
	return i;
}

/* The table twice as large; false: out of memory (t as it was). */
static bool text_grow(struct text_ids *t)
{
	struct text_ids g = { NULL, NULL, t->cap ? 2 * t->cap : 1024, t->n };
	size_t i;

	g.key = calloc(g.cap, sizeof(*g.key));
	g.id = malloc(g.cap * sizeof(*g.id));
	if (!g.key || !g.id) {
		free(g.key);
		free(g.id);
		return false;
	}
	for (i = 0; i < t->cap; i++)
		if (t->key[i]) {
			size_t k = text_slot(&g, t->key[i]);

			g.key[k] = t->key[i];
			g.id[k] = t->id[i];
		}
	free(t->key);
	free(t->id);
	*t = g;
	return true;
}

/* The id of text p (a new one, the next, if it was not there); *last
 * and *last_id the text asked for before and its id, tried first. false:
 * out of memory. */
static bool text_id(struct text_ids *t, const char *p, const char **last,
		    uint32_t *last_id)
{
	size_t at;

	if (p == *last && t->n)
		return true;
	if (2 * (t->n + 1) > t->cap && !text_grow(t))
		return false;
	at = text_slot(t, p);
	if (!t->key[at]) {
		t->key[at] = p;
		t->id[at] = (uint32_t)t->n++;
	}
	*last = p;
	*last_id = t->id[at];
	return true;
}

/* The rank of each text of t by id into rank[] (t->n of them; strcmp's
 * order, equal texts equal ranks), dt and order as large to work in. */
static void text_rank_ids(const struct text_ids *t, const char **dt,
			  uint32_t *order, uint32_t *rank)
{
	uint32_t r = 0;
	size_t i;

	for (i = 0; i < t->cap; i++)
		if (t->key[i]) {
			dt[t->id[i]] = t->key[i];
			order[t->id[i]] = t->id[i];
		}
	qsort_r(order, t->n, sizeof(*order), cmp_texts, dt);
	for (i = 0; i < t->n; i++) {
		if (i && strcmp(dt[order[i]], dt[order[i - 1]]) != 0)
			r++;
		rank[order[i]] = r;
	}
}

/* The rank of each top row's Details text among the distinct texts of
 * the rows (equal texts, equal ranks), inverted if down, into keys[]
 * (with their and and k_or, as gather_keys), as text_ranks_of below has
 * them for the regions: where those are missing (out of memory), or the
 * sorted texts a removed row's text is placed among. sc holds 16 bytes
 * a row, ids 4. false: out of memory. */
static bool text_ranks(const struct ui *u, const struct drow *tops, size_t n,
		       bool down, uint64_t *keys, void *sc, uint32_t *ids,
		       uint64_t *and_out, uint64_t *or_out)
{
	const char **dt = sc; /* 8n bytes */
	uint32_t *order = (uint32_t *)(void *)(dt + n), *rank = order + n;
	struct text_ids t = { NULL, NULL, 0, 0 };
	const char *last = NULL;
	uint64_t flip = down ? ~(uint64_t)0 : 0, k_and = ~(uint64_t)0, k_or = 0;
	uint32_t last_id = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!text_id(&t, row_text(u, &tops[i]), &last, &last_id)) {
			free(t.key);
			free(t.id);
			return false;
		}
		ids[i] = last_id;
	}
	text_rank_ids(&t, dt, order, rank);
	free(t.key);
	free(t.id);
	for (i = 0; i < n; i++) {
		uint64_t k = rank[ids[i]] ^ flip;

		keys[i] = k;
		k_and &= k;
		k_or |= k;
	}
	*and_out = k_and;
	*or_out = k_or;
	return true;
}

/* A region's Details text (details_region_text). */
static inline const char *region_text(const struct vms_region *g)
{
	return g->detail && *g->detail ? g->detail : g->path ? g->path : "";
}

/* The bytes the scratch is asked for at most (details_rows_max rows):
 * the ranks of the regions' texts first (4 bytes a region, kept), then
 * 24 bytes a row for the sort (details_sort_tops: the keys, the packed
 * keys and their tmp; more only for what that does not fit). */
static size_t ranks_bytes(const struct ui *u)
{
	return (u->snap->nregions * sizeof(uint32_t) + 15) & ~(size_t)15;
}

static size_t sort_scratch_bytes(const struct ui *u, size_t n)
{
	return ranks_bytes(u) + n * 3 * sizeof(uint64_t);
}

/* The rank of each region's Details text among the distinct texts of
 * the snapshot's regions (equal texts, equal ranks; "" the least, 0),
 * made at the first sort by the Details (or while nobody types) and
 * kept at the start of the details' scratch (d->text_rank: 4 bytes a
 * region, where the ids of the sort's old text ranks were; let go when
 * the scratch moves): then a sort by the text reads 4 bytes a row, not
 * a region's record. Each region's text pointer is given an id in a
 * table of the distinct ones (consecutive regions mostly share one: the
 * last one is tried first), and only those are compared by strcmp: a
 * million regions name a few thousand texts (paths are interned), so
 * some twenty million strcmp calls became a few thousand. Takes the
 * scratch for the most rows a sort may have first, so that no sort
 * moves it after. NULL: out of memory. */
static const uint32_t *text_ranks_of(struct ui *u)
{
	struct details *d = det_of(u);
	const struct vms_snapshot *s = u->snap;
	struct text_ids t = { NULL, NULL, 0, 0 };
	const char *last = NULL, **dt = NULL;
	uint32_t *ids, *order = NULL, *rank = NULL, last_id = 0;
	size_t i;

	ids = details_scratch(d, sort_scratch_bytes(u, details_rows_max(u)),
			      false);
	if (!ids || d->text_rank)
		return d->text_rank;
	/* region i's id at i; ""'s (a gap's: a text no region may have)
	 * the first, apart */
	if (!text_id(&t, "", &last, &last_id))
		goto fail;
	for (i = 0; i < s->nregions; i++) {
		if (i + PREFETCH_AHEAD < s->nregions)
			__builtin_prefetch(
				&s->regions[i + PREFETCH_AHEAD].path);
		if (!text_id(&t, region_text(&s->regions[i]), &last, &last_id))
			goto fail;
		ids[i] = last_id;
	}
	dt = malloc(t.n * sizeof(*dt));
	order = malloc(t.n * sizeof(*order));
	rank = malloc(t.n * sizeof(*rank));
	if (!dt || !order || !rank)
		goto fail;
	text_rank_ids(&t, dt, order, rank);
	for (i = 0; i < s->nregions; i++)
		ids[i] = rank[ids[i]];
	d->text_rank = ids;
	/* the texts in their order, for removed rows' (none if no memory:
	 * those sorts rank the rows' texts then) */
	free(d->text_sorted);
	free(d->text_sorted_rank);
	d->ntext_sorted = 0;
	d->text_sorted = malloc(t.n * sizeof(*d->text_sorted));
	d->text_sorted_rank = malloc(t.n * sizeof(*d->text_sorted_rank));
	if (d->text_sorted && d->text_sorted_rank) {
		for (i = 0; i < t.n; i++) {
			d->text_sorted[i] = dt[order[i]];
			d->text_sorted_rank[i] = rank[order[i]];
		}
		d->ntext_sorted = t.n;
	} else {
		free(d->text_sorted);
		free(d->text_sorted_rank);
		d->text_sorted = NULL;
		d->text_sorted_rank = NULL;
	}
fail:
	free(t.key);
	free(t.id);
	free(dt);
	free(order);
	free(rank);
	return d->text_rank;
}

/* A removed row's text's place among the regions' texts (text_sorted),
 * as text_keys has the keys: twice the rank of a text equal to it, else
 * one less than twice the rank of the first text after it (the regions'
 * least text is "", before any other). */
static uint64_t removed_text_key(const struct details *d, const char *text)
{
	size_t lo = 0, hi = d->ntext_sorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(d->text_sorted[mid], text) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->ntext_sorted)
		return lo ? 2 * (uint64_t)d->text_sorted_rank[lo - 1] + 1 : 1;
	if (strcmp(d->text_sorted[lo], text) == 0)
		return 2 * (uint64_t)d->text_sorted_rank[lo];
	return lo ? 2 * (uint64_t)d->text_sorted_rank[lo] - 1 : 0;
}

/* Each top row's key by its Details text (tr: text_ranks_of's), inverted
 * if down, into keys[] (with their and and or, as gather_keys): twice
 * its text's rank (a gap's "", 0), a removed row's between
 * (removed_text_key). Without tr (details_sort_tops leaves it out too
 * for removed rows without sorted texts), the ranks are of the rows'
 * texts, made now in sc (16 bytes a row) and ids (4). false: out of
 * memory. */
static bool text_keys(struct ui *u, const struct drow *tops, size_t n,
		      const uint32_t *tr, bool down, uint64_t *keys, void *sc,
		      uint32_t *ids, uint64_t *and_out, uint64_t *or_out)
{
	const struct details *d = det_of(u);
	uint64_t flip = down ? ~(uint64_t)0 : 0, k_and = ~(uint64_t)0, k_or = 0;
	size_t i;

	if (!tr)
		return text_ranks(u, tops, n, down, keys, sc, ids, and_out,
				  or_out);
	for (i = 0; i < n; i++) {
		const struct drow *t = &tops[i];
		uint64_t k = t->kind == DROW_REGION ? 2 * (uint64_t)tr[t->idx]
			     : t->kind == DROW_ALLOC
				     ? 2 * (uint64_t)tr[d->allocs[t->idx].main]
			     : t->kind == DROW_REMOVED
				     ? removed_text_key(d, row_text(u, t))
				     : 0; /* a gap: "" */

		k ^= flip;
		keys[i] = k;
		k_and &= k;
		k_or |= k;
	}
	*and_out = k_and;
	*or_out = k_or;
	return true;
}

void details_sort_warm(struct ui *u)
{
	/* the scratch for a sort of every row, and the ranks of the texts
	 * at its start, for a sort by the Details; with --watch, each
	 * tick's snapshot frees the rows and their scratch: not taken
	 * again for a sort nobody may ask for */
	if (u->snap && !u->watching)
		(void)text_ranks_of(u);
}

/* A region's Prot as sort_key_of has it: export_perms' four letters,
 * big-endian (strcmp's order). */
static inline uint64_t perms_key(unsigned perms)
{
	return (uint64_t)(perms & VMS_PERM_R ? 'r' : '-') << 56 |
	       (uint64_t)(perms & VMS_PERM_W ? 'w' : '-') << 48 |
	       (uint64_t)(perms & VMS_PERM_X ? 'x' : '-') << 40 |
	       (uint64_t)(perms & VMS_PERM_SHARED ? 's' : 'p') << 32;
}

/* A Prot key (perms_key's letters, or 0 for a row with none) as 5 bits
 * in the same order: each letter against its '-' ('p' below 's'), the
 * first most significant, above a row with none. The letters' 24 bits
 * that differ took a sort three passes of the rows, these one. */
static inline uint64_t perms_rank(uint64_t k)
{
	if (!k)
		return 0;
	return 16 | (uint64_t)((k >> 56) == 'r') << 3 |
	       (uint64_t)(((k >> 48) & 0xff) == 'w') << 2 |
	       (uint64_t)(((k >> 40) & 0xff) == 'x') << 1 |
	       (uint64_t)(((k >> 32) & 0xff) == 's');
}

/* A top row's key from the regions' keys kept small (pane_details_keys.c:
 * ck, a figure's; cp, perm_of or type_of), where they answer it, as
 * sort_key_of has it: a region's, or an allocation's (the sum of its
 * regions' figures; for Prot every permission one of its regions has,
 * shared or private as its main, as perms_rank has it; its main's type).
 * false: a figure kept as DETAILS_KEY_RECORD, or a row of another kind:
 * read the records. */
static inline bool kept_key(const struct details *d, const struct drow *r,
			    int sort, const uint32_t *ck, const uint8_t *cp,
			    uint64_t *k)
{
	uint32_t first = r->idx, n = 1, main = r->idx, j;
	unsigned p = 0;

	if (r->kind == DROW_ALLOC) {
		first = d->allocs[r->idx].first;
		n = d->allocs[r->idx].n;
		main = d->allocs[r->idx].main;
	} else if (r->kind != DROW_REGION) {
		return false;
	}
	if (ck) {
		uint64_t sum = 0;

		for (j = first; j < first + n; j++) {
			if (ck[j] == DETAILS_KEY_RECORD)
				return false;
			sum += ck[j];
		}
		*k = sum * DETAILS_KEY_PAGE;
		return true;
	}
	if (sort == DS_TYPE) {
		*k = cp[main] & 15;
		return true;
	}
	for (j = first; j < first + n; j++)
		p |= cp[j];
	p = (p & ~(unsigned)VMS_PERM_SHARED) | (cp[main] & VMS_PERM_SHARED);
	*k = 16 | (p & VMS_PERM_R ? 8u : 0) | (p & VMS_PERM_W ? 4u : 0) |
	     (p & VMS_PERM_X ? 2u : 0) | (p & VMS_PERM_SHARED ? 1u : 0);
	return true;
}

/* Each top row's key into keys[] (dense: 8 bytes a row, read once from
 * the rows' regions), inverted for a sort largest first; *and and *or of
 * them all, which say which bits differ between any two keys. */
static void gather_keys(struct ui *u, const struct drow *tops, size_t n,
			bool down, uint64_t *keys, uint64_t *and_out,
			uint64_t *or_out)
{
	const struct vms_snapshot *s = u->snap;
	int sort = det_of(u)->sort, f = sort_figure(sort);
	uint64_t (*fig)(const struct vms_region *) =
		f >= 0 ? vms_columns[f].region : NULL;
	uint64_t flip = down ? ~(uint64_t)0 : 0, k_and = ~(uint64_t)0, k_or = 0;
	uint64_t last = 0, rank = 0;
	bool in_order = true;
	/* the regions' keys kept small (pane_details_keys.c), where made:
	 * then no record is read but for a figure kept as KEY_RECORD; the
	 * type from the filter's type_of where they were (not with
	 * VMSCOPE_SORT_RECORDS) */
	const struct details *d = det_of(u);
	const uint32_t *ck = f >= 0 ? d->fig_key[f] : NULL;
	const uint8_t *cp = sort == DS_COL + VMS_DCOL_PROT  ? d->perm_of
			    : sort == DS_TYPE && d->perm_of ? d->type_of
							    : NULL;
	/* the line of a region's record the key is read from */
	size_t at = f == VMS_COL_SIZE || sort == DS_ADDRESS
			    ? offsetof(struct vms_region, start)
		    : f >= 0	      ? offsetof(struct vms_region, c)
		    : sort == DS_TYPE ? offsetof(struct vms_region, type)
				      : offsetof(struct vms_region, perms);
	size_t i;

	for (i = 0; i < n; i++) {
		const struct vms_region *g = tops[i].kind == DROW_REGION
						     ? &s->regions[tops[i].idx]
						     : NULL;

		/* the records ahead asked for while this one is read (a
		 * record is 176 bytes: no stride a prefetcher follows
		 * across pages) */
		if (!ck && !cp && i + PREFETCH_AHEAD < n &&
		    tops[i + PREFETCH_AHEAD].kind == DROW_REGION)
			__builtin_prefetch(
				(const char *)&s
					->regions[tops[i + PREFETCH_AHEAD].idx] +
				at);
		uint64_t k;

		/* else a region alone: its key straight from its record, as
		 * sort_key_of has it */
		if (!(ck || cp) || !kept_key(d, &tops[i], sort, ck, cp, &k)) {
			k = !g			 ? sort_key_of(u, &tops[i])
			    : fig		 ? fig(g)
			    : sort == DS_TYPE	 ? g->type
			    : sort == DS_ADDRESS ? g->start
			    : sort == DS_COL + VMS_DCOL_PROT
				    ? perms_key(g->perms)
				    : sort_key_of(u, &tops[i]);
			if (sort == DS_COL + VMS_DCOL_PROT)
				k = perms_rank(k);
		}
		if (sort == DS_ADDRESS) { /* ranked below */
			in_order = in_order && k >= last;
			last = k;
			keys[i] = k;
			continue;
		}
		k ^= flip;
		keys[i] = k;
		k_and &= k;
		k_or |= k;
	}
	/* by address, the rank of each row's start among the rows' (they
	 * come in address order: a start's rank is how many smaller ones
	 * come before it): some 20 bits a key where the starts themselves
	 * differ in 52 ([vsyscall] sits at the top of the address space),
	 * too many to pack with the rows, so S on the address sorted
	 * (key, row) pairs in a scratch grown half again (180 ms the first
	 * time at a million rows). Rows out of that order keep their
	 * starts. */
	for (i = 0; sort == DS_ADDRESS && i < n; i++) {
		uint64_t k = keys[i];

		if (in_order) {
			rank += i && k != last;
			last = k;
			k = rank;
		}
		k ^= flip;
		keys[i] = k;
		k_and &= k;
		k_or |= k;
	}
	*and_out = k_and;
	*or_out = k_or;
}

/* Sorts the top rows tops (in address order) into sorted (tops itself,
 * or another array as large) by the details' sort column:
 * figures largest first unless the column says otherwise, S reverses;
 * ties by address. Every column sorts by a number, the Details text by
 * its rank (text_ranks), with a stable radix sort: of the keys packed
 * with their rows into 8 bytes where they fit (the bits every key has
 * alike left out: a million rows are 20 bits, a figure in pages some 20
 * more), else of (key, row) pairs. false: out of memory (sorted left
 * as it was). */
bool details_sort_tops(struct ui *u, const struct drow *tops,
		       struct drow *sorted, size_t n)
{
	struct details *d = det_of(u);
	int f = sort_figure(d->sort);
	bool down = d->reverse;
	bool text = f < 0 && d->sort != DS_TYPE && d->sort != DS_ADDRESS &&
		    d->sort != DS_COL + VMS_DCOL_PROT;
	const uint32_t *tr = NULL;
	bool removed = false, rank_rows;
	char *sc;
	uint32_t *ids;
	uint64_t *p, k_and, k_or, diff, maxrow;
	unsigned lo, kb, ib;
	size_t i;

	if (f >= 0 && !vms_column_has((enum vms_col)f, VMS_COLF_ASCENDING))
		down = !down;
	if (n < 2) {
		memmove(sorted, tops, n * sizeof(*sorted));
		return true;
	}
	if (text) {
		/* the regions' ranks (taken before the scratch below: they
		 * may move it; out of memory for them, the rows' texts are
		 * ranked instead), and whether removed rows are among them */
		for (i = 0; i < n && !removed; i++)
			removed = tops[i].kind == DROW_REMOVED;
		tr = text_ranks_of(u);
	}
	/* the rows' texts ranked now (text_keys) take 4 bytes a row more */
	rank_rows = text && (!tr || (removed && !d->text_sorted));
	if (rank_rows)
		tr = NULL; /* not read, and the scratch may move below */
	sc = details_scratch(d,
			     sort_scratch_bytes(u, n) +
				     (rank_rows ? n * sizeof(*ids) : 0),
			     false);
	if (!sc)
		return false;
	/* after the ranks: the keys, packed there with their rows, then
	 * their tmp; the rows' texts ranked now work in that tmp and the 8
	 * bytes a row after it (16 a row), the ids of their texts after
	 * that */
	p = (uint64_t *)(void *)(sc + ranks_bytes(u));
	ids = (uint32_t *)(void *)(p + 3 * n);
	if (text) {
		if (!text_keys(u, tops, n, tr, down, p, p + n, ids, &k_and,
			       &k_or))
			return false;
	} else {
		gather_keys(u, tops, n, down, p, &k_and, &k_or);
	}
	diff = k_and ^ k_or; /* the bits some two keys differ in */
	/* the largest index a top row may have: of a region, gap,
	 * allocation or removed group */
	maxrow = u->snap->nregions;
	if (d->ngaps > maxrow)
		maxrow = d->ngaps;
	if (d->nallocs > maxrow)
		maxrow = d->nallocs;
	if (d->nremoved > maxrow)
		maxrow = d->nremoved;
	ib = details_radix_bits(maxrow);
	lo = diff ? (unsigned)__builtin_ctzll(diff) : 0;
	kb = diff ? details_radix_bits(diff >> lo) : 0;
	/* the kind (DROW_*, below 8) above the index */
	if (kb + ib + 3 <= 64 && !force_pairs()) {
		details_radix_packed(p, tops, p + n, sorted, n, lo, kb, ib);
		return true;
	}
	/* the pairs, 32 bytes a row: the scratch grown, its keys kept */
	sc = details_scratch(d, ranks_bytes(u) + n * 4 * sizeof(uint64_t),
			     true);
	if (!sc)
		return false;
	p = (uint64_t *)(void *)(sc + ranks_bytes(u));
	details_radix_pairs(p, tops, p + 2 * n, sorted, n, ib);
	return true;
}
