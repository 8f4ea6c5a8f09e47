/* diff.c — two snapshots compared. See diff.h.
 *
 * The regions of both sides are nodes of one union-find: a sweep over
 * both address-ordered lists joins every pair that overlaps with the same
 * backing, then file mappings left alone on one side are joined by
 * (device, inode, offset), and, between two runs of one program, the
 * anonymous ones left alone by their order within their kind. Each set
 * is then one group, and a group one change (or none). Linear in the regions but for the sorts.
 */
#include "model/diff.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const vms_change_names[VMS_NCHANGES] = {
	[VMS_CH_ADDED] = "added",     [VMS_CH_REMOVED] = "removed",
	[VMS_CH_GROWN] = "grown",     [VMS_CH_SHRUNK] = "shrunk",
	[VMS_CH_CHANGED] = "changed",
};

static size_t uf_find(size_t *parent, size_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

static void uf_union(size_t *parent, size_t x, size_t y)
{
	x = uf_find(parent, x);
	y = uf_find(parent, y);
	if (x != y)
		parent[x > y ? x : y] = x < y ? x : y;
}

static bool is_file(const struct vms_region *r)
{
	return !vms_region_is_anon(r);
}

/* The same backing: both anonymous, or the same file (by its name where
 * a side is a core: a core's inodes are of the files on disk now, none
 * for a memfd or a deleted file). */
static bool same_backing(const struct vms_region *a, const struct vms_region *b,
			 bool core)
{
	if (!is_file(a) || !is_file(b))
		return !is_file(a) && !is_file(b);
	if (core)
		return a->path && b->path && strcmp(a->path, b->path) == 0;
	return a->inode == b->inode && a->dev_major == b->dev_major &&
	       a->dev_minor == b->dev_minor;
}

static void sweep(const struct vms_snapshot *a, const struct vms_snapshot *b,
		  size_t *parent)
{
	size_t i, j, j0 = 0, na = a->nregions;
	bool core = a->cap.no_counters || b->cap.no_counters;

	for (i = 0; i < na; i++) {
		const struct vms_region *ra = &a->regions[i];

		while (j0 < b->nregions && b->regions[j0].end <= ra->start)
			j0++;
		for (j = j0; j < b->nregions && b->regions[j].start < ra->end;
		     j++)
			if (same_backing(ra, &b->regions[j], core))
				uf_union(parent, i, na + j);
	}
}

/* ---- file mappings that moved: matched by (device, inode, offset) ---- */

struct fkey {
	uint64_t inode, offset;
	uint32_t major, minor;
	size_t i;
};

static int fkey_cmp(const void *x, const void *y)
{
	const struct fkey *a = x, *b = y;

	if (a->inode != b->inode)
		return a->inode < b->inode ? -1 : 1;
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return 0;
}

/* The same, then by node: equal keys in address order. */
static int fkey_order(const void *x, const void *y)
{
	const struct fkey *a = x, *b = y;
	int c = fkey_cmp(x, y);

	return c ? c : a->i < b->i ? -1 : a->i > b->i;
}

static struct fkey key_of(const struct vms_region *r, size_t i)
{
	struct fkey k = { r->inode, r->offset, r->dev_major, r->dev_minor, i };

	return k;
}

/* Joins file regions that are alone in their set (nothing overlapped
 * them) with one of the same key on the other side, also alone. */
static int match_moved(const struct vms_snapshot *a,
		       const struct vms_snapshot *b, size_t *parent)
{
	size_t na = a->nregions, nb = b->nregions, i, n = 0;
	size_t *members = calloc(na + nb, sizeof(*members));
	struct fkey *keys = malloc((na ? na : 1) * sizeof(*keys));

	if (!members || !keys) {
		free(members);
		free(keys);
		return -1;
	}
	for (i = 0; i < na + nb; i++)
		members[uf_find(parent, i)]++;
	for (i = 0; i < na; i++)
		if (members[uf_find(parent, i)] == 1 && is_file(&a->regions[i]))
			keys[n++] = key_of(&a->regions[i], i);
	qsort(keys, n, sizeof(*keys), fkey_order);
	for (i = 0; n && i < nb; i++) {
		struct fkey k, *hit;

		if (members[uf_find(parent, na + i)] != 1 ||
		    !is_file(&b->regions[i]))
			continue;
		k = key_of(&b->regions[i], 0);
		hit = bsearch(&k, keys, n, sizeof(*keys), fkey_cmp);
		if (!hit)
			continue;
		/* several of one key (a file mapped twice at one offset):
		 * the first still alone, so they pair in address order */
		while (hit > keys && fkey_cmp(hit - 1, &k) == 0)
			hit--;
		while (hit < keys + n && fkey_cmp(hit, &k) == 0 &&
		       members[uf_find(parent, hit->i)] != 1)
			hit++;
		if (hit == keys + n || fkey_cmp(hit, &k) != 0)
			continue;
		uf_union(parent, hit->i, na + i);
		members[uf_find(parent, hit->i)] = 2;
	}
	free(members);
	free(keys);
	return 0;
}

/* ---- ASLR: anonymous regions of another run, matched by order ---- */

/* The build id of the image of s's executable, or NULL. */
static const char *exe_build_id(const struct vms_snapshot *s)
{
	size_t i;

	for (i = 0; s->proc.exe && i < s->nregions; i++)
		if (s->regions[i].build_id && s->regions[i].path &&
		    strcmp(s->regions[i].path, s->proc.exe) == 0)
			return s->regions[i].build_id;
	return NULL;
}

bool vms_diff_other_run(const struct vms_snapshot *a,
			const struct vms_snapshot *b)
{
	const char *ia, *ib;

	if (a->proc.pid == b->proc.pid)
		return false;
	ia = exe_build_id(a);
	ib = exe_build_id(b);
	if (ia && ib)
		return strcmp(ia, ib) == 0;
	return a->proc.exe && b->proc.exe &&
	       strcmp(a->proc.exe, b->proc.exe) == 0;
}

/* What order is kept within: the type, protection and name ([heap],
 * [stack], [anon:x] or none), so a guard page pairs with a guard page. */
struct okey {
	uint8_t type;
	uint16_t perms;
	const char *path;
	size_t i; /* node */
};

static int okey_cmp(const void *x, const void *y)
{
	const struct okey *a = x, *b = y;
	int c;

	if (a->type != b->type)
		return a->type - b->type;
	if (a->perms != b->perms)
		return a->perms - b->perms;
	if (!a->path || !b->path)
		c = !a->path - !b->path;
	else
		c = strcmp(a->path, b->path);
	if (c)
		return c;
	return a->i < b->i ? -1 : a->i > b->i; /* address order */
}

static size_t lone_anon(const struct vms_snapshot *s, size_t base,
			size_t *parent, const size_t *members, struct okey *out)
{
	size_t i, n = 0;

	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];

		if (members[uf_find(parent, base + i)] == 1 && !is_file(r))
			out[n++] = (struct okey){ r->type, r->perms, r->path,
						  base + i };
	}
	qsort(out, n, sizeof(*out), okey_cmp);
	return n;
}

static uint64_t okey_size(const struct vms_snapshot *a,
			  const struct vms_snapshot *b, const struct okey *k)
{
	size_t na = a->nregions;

	return k->i < na ? vms_region_size(&a->regions[k->i])
			 : vms_region_size(&b->regions[k->i - na]);
}

/* Pairs x[0..n) with y[0..m) in order, as far as both go. */
static void pair_run(size_t *parent, const struct okey *x, size_t n,
		     const struct okey *y, size_t m)
{
	size_t k;

	for (k = 0; k < n && k < m; k++)
		uf_union(parent, x[k].i, y[k].i);
}

/* Cells of the alignment table at most: 4 MiB of it. Beyond, a kind's
 * regions pair in plain order. */
#define ALIGN_MAX_CELLS (1u << 20)

/* One kind: x (A's, address order) against y (B's). The longest run of
 * pairs of equal size kept in order (a longest common subsequence) are
 * the anchors; between two anchors, what is left on each side pairs in
 * order; so a region only one side has does not shift every pair after
 * it. -1 on out of memory. */
static int align_kind(const struct vms_snapshot *a,
		      const struct vms_snapshot *b, size_t *parent,
		      const struct okey *x, size_t n, const struct okey *y,
		      size_t m)
{
	size_t i, j, gi = 0, gj = 0, w = m + 1;
	uint32_t *L;

	if ((uint64_t)(n + 1) * (m + 1) > ALIGN_MAX_CELLS) {
		pair_run(parent, x, n, y, m);
		return 0;
	}
	L = calloc((n + 1) * w, sizeof(*L));
	if (!L)
		return -1;
	for (i = n; i-- > 0;)
		for (j = m; j-- > 0;) {
			uint32_t d = L[(i + 1) * w + j], r = L[i * w + j + 1];

			L[i * w + j] =
				okey_size(a, b, &x[i]) == okey_size(a, b, &y[j])
					? L[(i + 1) * w + j + 1] + 1
				: d > r ? d
					: r;
		}
	for (i = j = 0; i < n && j < m;) {
		if (okey_size(a, b, &x[i]) == okey_size(a, b, &y[j]) &&
		    L[i * w + j] == L[(i + 1) * w + j + 1] + 1) {
			pair_run(parent, x + gi, i - gi, y + gj, j - gj);
			uf_union(parent, x[i].i, y[j].i);
			gi = ++i;
			gj = ++j;
		} else if (L[(i + 1) * w + j] >= L[i * w + j + 1]) {
			i++;
		} else {
			j++;
		}
	}
	pair_run(parent, x + gi, n - gi, y + gj, m - gj);
	free(L);
	return 0;
}

/* The first of o[from..n) of another kind than k (k->i zero). */
static size_t kind_end(const struct okey *o, size_t from, size_t n,
		       const struct okey *k)
{
	for (; from < n; from++) {
		struct okey z = o[from];

		z.i = 0;
		if (okey_cmp(&z, k) != 0)
			break;
	}
	return from;
}

/* Joins the anonymous regions still alone on each side, kind by kind
 * (okey): in order, aligned by size (align_kind). */
static int match_order(const struct vms_snapshot *a,
		       const struct vms_snapshot *b, size_t *parent)
{
	size_t na = a->nregions, nb = b->nregions, i, j, ka, kb, i1, j1;
	size_t *members = calloc(na + nb + 1, sizeof(*members));
	struct okey *oa = malloc((na + 1) * sizeof(*oa));
	struct okey *ob = malloc((nb + 1) * sizeof(*ob));
	int rc = -1;

	if (!members || !oa || !ob)
		goto out;
	for (i = 0; i < na + nb; i++)
		members[uf_find(parent, i)]++;
	ka = lone_anon(a, 0, parent, members, oa);
	kb = lone_anon(b, na, parent, members, ob);
	for (i = j = 0; i < ka && j < kb;) {
		struct okey x = oa[i], y = ob[j];
		int c;

		x.i = y.i = 0;
		c = okey_cmp(&x, &y);
		if (c < 0) {
			i++;
			continue;
		}
		if (c > 0) {
			j++;
			continue;
		}
		i1 = kind_end(oa, i, ka, &x); /* the kind's end on each side */
		j1 = kind_end(ob, j, kb, &x);
		if (align_kind(a, b, parent, oa + i, i1 - i, ob + j, j1 - j) <
		    0)
			goto out;
		i = i1;
		j = j1;
	}
	rc = 0;
out:
	free(members);
	free(oa);
	free(ob);
	return rc;
}

/* ---- a group into a change ---- */

static void side_sum(const struct vms_snapshot *s, struct vms_diff_side *d)
{
	size_t k;
	int c;

	memset(d->v, 0, sizeof(d->v));
	d->known = VMS_COLS_ALL;
	for (k = 0; k < d->n; k++) {
		const struct vms_region *r = &s->regions[d->idx[k]];

		d->known &= vms_row_known_mask(s, NULL, r, false);
		for (c = 0; c < VMS_NCOLS; c++)
			if (vms_column_has((enum vms_col)c, VMS_COLF_REGION))
				d->v[c] +=
					vms_column_region(r, (enum vms_col)c);
		if (vms_region_size(r) > d->v[VMS_COL_LARGEST])
			d->v[VMS_COL_LARGEST] = vms_region_size(r);
	}
	d->v[VMS_COL_BLOCKS] = d->n;
}

static bool str_eq(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
}

/* The protection bits both sides hold: a core holds w and x alone (gcore
 * marks every segment readable, and a core says shared only of /dev/zero
 * and SysV memory: snapshot-files.md). */
static uint16_t perms_held(const struct vms_diff *d)
{
	return d->a->cap.no_counters || d->b->cap.no_counters
		       ? VMS_PERM_W | VMS_PERM_X
		       : (uint16_t)~0u;
}

/* Whether a group is of the kernel's own mappings, against a core: a core
 * holds them as it can (gdb writes no [vvar], the kernel's cores name no
 * [vvar] or [vsyscall], and a [vdso]'s Rss is not known), so what differs
 * is what the core lacks, no change. */
static bool core_lacks(const struct vms_diff *d, const struct vms_diff_side *a,
		       const struct vms_diff_side *b)
{
	const struct vms_snapshot *live = d->a->cap.no_counters ? d->b : d->a;
	const struct vms_diff_side *ls = live == d->a ? a : b;
	size_t k;

	if (d->a->cap.no_counters == d->b->cap.no_counters || !ls->n)
		return false;
	for (k = 0; k < ls->n; k++)
		if (!vms_region_is_kernel_special(&live->regions[ls->idx[k]]))
			return false;
	return true;
}

/* The same regions, the same committed bytes: nothing changed. */
static bool identical(const struct vms_diff *d, const struct vms_diff_side *a,
		      const struct vms_diff_side *b)
{
	size_t k;

	if (a->n != b->n)
		return false;
	for (k = 0; k < a->n; k++) {
		const struct vms_region *x = &d->a->regions[a->idx[k]];
		const struct vms_region *y = &d->b->regions[b->idx[k]];

		/* another run: where the group lies is ASLR's choice; its
		 * regions' places within it are what counts */
		uint64_t ba = d->other_run ? d->a->regions[a->idx[0]].start : 0;
		uint64_t bb = d->other_run ? d->b->regions[b->idx[0]].start : 0;

		/* (committed where both know it: a core's anonymous
		 * memory's is not a change) */
		if (x->start - ba != y->start - bb ||
		    x->end - ba != y->end - bb ||
		    ((x->perms ^ y->perms) & perms_held(d)) ||
		    x->offset != y->offset || x->type != y->type ||
		    (vms_row_known(d->a, NULL, x, VMS_COL_COMMITTED, false) &&
		     vms_row_known(d->b, NULL, y, VMS_COL_COMMITTED, false) &&
		     vms_region_committed(x) != vms_region_committed(y)) ||
		    !str_eq(x->path, y->path))
			return false;
	}
	return true;
}

/* What a region is, for "changed": protection, type, name. */
struct kind {
	uint16_t perms;
	uint8_t type;
	const char *path;
};

static int kind_cmp(const void *x, const void *y)
{
	const struct kind *a = x, *b = y;

	if (a->perms != b->perms)
		return a->perms - b->perms;
	if (a->type != b->type)
		return a->type - b->type;
	if (!a->path || !b->path)
		return !a->path - !b->path;
	return strcmp(a->path, b->path);
}

static size_t kinds(const struct vms_snapshot *s, const struct vms_diff_side *d,
		    uint16_t held, struct kind *out)
{
	size_t k, n = 0;

	for (k = 0; k < d->n; k++) {
		const struct vms_region *r = &s->regions[d->idx[k]];

		out[k] = (struct kind){ r->perms & held, r->type, r->path };
	}
	qsort(out, d->n, sizeof(*out), kind_cmp);
	for (k = 0; k < d->n; k++)
		if (!n || kind_cmp(&out[n - 1], &out[k]) != 0)
			out[n++] = out[k];
	return n;
}

/* Whether the two sides hold different kinds of region; -1 on out of
 * memory. */
static int kinds_differ(const struct vms_diff *d, const struct vms_diff_side *a,
			const struct vms_diff_side *b)
{
	struct kind *ka = malloc(a->n * sizeof(*ka));
	struct kind *kb = malloc(b->n * sizeof(*kb));
	size_t na, nb, k;
	int rc = -1;

	if (ka && kb) {
		na = kinds(d->a, a, perms_held(d), ka);
		nb = kinds(d->b, b, perms_held(d), kb);
		rc = na != nb;
		for (k = 0; !rc && k < na; k++)
			rc = kind_cmp(&ka[k], &kb[k]) != 0;
	}
	free(ka);
	free(kb);
	return rc;
}

/* The change a group is, or -1 for none (-2: out of memory). */
static int classify(const struct vms_diff *d, const struct vms_diff_side *a,
		    const struct vms_diff_side *b)
{
	int differ;

	if (core_lacks(d, a, b))
		return -1;
	if (!a->n)
		return VMS_CH_ADDED;
	if (!b->n)
		return VMS_CH_REMOVED;
	if (identical(d, a, b))
		return -1;
	differ = kinds_differ(d, a, b);
	if (differ < 0)
		return -2;
	if (differ)
		return VMS_CH_CHANGED;
	if (a->v[VMS_COL_SIZE] != b->v[VMS_COL_SIZE])
		return b->v[VMS_COL_SIZE] > a->v[VMS_COL_SIZE] ? VMS_CH_GROWN
							       : VMS_CH_SHRUNK;
	if (vms_mask_has(a->known & b->known, VMS_COL_COMMITTED) &&
	    a->v[VMS_COL_COMMITTED] != b->v[VMS_COL_COMMITTED])
		return b->v[VMS_COL_COMMITTED] > a->v[VMS_COL_COMMITTED]
			       ? VMS_CH_GROWN
			       : VMS_CH_SHRUNK;
	return VMS_CH_CHANGED; /* the same memory, cut differently */
}

static int by_start(const void *x, const void *y)
{
	const struct vms_diff_change *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (int)a->change - (int)b->change;
}

/* Groups: the sets of the union-find, their members listed in idx (A's
 * then B's, each ascending), starting at first[g], with na[g] of A's. */
struct groups {
	size_t n;
	size_t *of; /* node -> group */
	size_t *first, *na, *nb;
};

static int make_groups(size_t na, size_t nb, size_t *parent, struct groups *g,
		       size_t *idx)
{
	size_t i, n = na + nb, *fill;

	g->of = malloc((n ? n : 1) * sizeof(size_t));
	g->first = calloc(n + 1, sizeof(size_t));
	g->na = calloc(n + 1, sizeof(size_t));
	g->nb = calloc(n + 1, sizeof(size_t));
	fill = calloc(n + 1, sizeof(size_t));
	if (!g->of || !g->first || !g->na || !g->nb || !fill) {
		free(fill);
		return -1;
	}
	g->n = 0;
	for (i = 0; i < n; i++) { /* roots are their set's smallest node */
		size_t r = uf_find(parent, i);

		g->of[i] = r == i ? g->n++ : g->of[r];
		if (i < na)
			g->na[g->of[i]]++;
		else
			g->nb[g->of[i]]++;
	}
	for (i = 0; i < g->n; i++)
		g->first[i + 1] = g->first[i] + g->na[i] + g->nb[i];
	/* A's first, then B's, each in node (address) order; fill counts
	 * A's placed, then B's (it restarts at na[k] for them). */
	for (i = 0; i < n; i++) {
		size_t k = g->of[i];

		if (i == na)
			memcpy(fill, g->na, g->n * sizeof(*fill));
		idx[g->first[k] + fill[k]++] = i < na ? i : i - na;
	}
	free(fill);
	return 0;
}

static void groups_fini(struct groups *g)
{
	free(g->of);
	free(g->first);
	free(g->na);
	free(g->nb);
}

/* c's figures, span, type and path from its sides' regions. */
static void fill(const struct vms_diff *d, struct vms_diff_change *c)
{
	const struct vms_snapshot *side = c->b.n ? d->b : d->a;
	const struct vms_diff_side *sd = c->b.n ? &c->b : &c->a;
	const struct vms_region *r0 = &side->regions[sd->idx[0]];

	side_sum(d->a, &c->a);
	side_sum(d->b, &c->b);
	c->start = r0->start;
	c->end = side->regions[sd->idx[sd->n - 1]].end;
	c->type = r0->type;
	c->path = r0->path;
}

/* *p (n of size bytes kept) made as small as n needs, if realloc may. */
static void shrink(void **p, size_t n, size_t size)
{
	void *q = realloc(*p, (n ? n : 1) * size);

	if (q)
		*p = q;
}

static int by_same_start(const void *x, const void *y)
{
	const struct vms_diff_same *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

static int build_changes(struct vms_diff *d, struct groups *g)
{
	size_t k;

	d->v = calloc(g->n ? g->n : 1, sizeof(*d->v));
	d->same = calloc(g->n ? g->n : 1, sizeof(*d->same));
	if (!d->v || !d->same)
		return -1;
	for (k = 0; k < g->n; k++) {
		struct vms_diff_change c = { 0 };
		int ch;

		c.a.n = g->na[k];
		c.a.idx = d->idx + g->first[k];
		c.b.n = g->nb[k];
		c.b.idx = d->idx + g->first[k] + g->na[k];
		fill(d, &c);
		ch = classify(d, &c.a, &c.b);
		if (ch == -2)
			return -1;
		if (ch < 0) {
			d->same[d->nsame++] =
				(struct vms_diff_same){ c.start, g->first[k],
							c.a.n, c.b.n };
			continue;
		}
		c.change = (enum vms_change)ch;
		d->v[d->n++] = c;
		d->count[ch]++;
	}
	qsort(d->v, d->n, sizeof(*d->v), by_start);
	qsort(d->same, d->nsame, sizeof(*d->same), by_same_start);
	/* sized for every group, which are mostly one or the other: what is
	 * left over given back (a smaller block, or the same one kept) */
	shrink((void **)&d->v, d->n, sizeof(*d->v));
	shrink((void **)&d->same, d->nsame, sizeof(*d->same));
	return 0;
}

void vms_diff_same_change(const struct vms_diff *d, size_t k,
			  struct vms_diff_change *c)
{
	const struct vms_diff_same *s = &d->same[k];

	memset(c, 0, sizeof(*c));
	c->change = VMS_NCHANGES;
	c->a.n = s->na;
	c->a.idx = d->idx + s->first;
	c->b.n = s->nb;
	c->b.idx = d->idx + s->first + s->na;
	fill(d, c);
}

int vms_diff_make(const struct vms_snapshot *a, const struct vms_snapshot *b,
		  struct vms_diff *d, struct vms_error *err)
{
	size_t na = a->nregions, nb = b->nregions, i;
	size_t *parent = malloc((na + nb ? na + nb : 1) * sizeof(*parent));
	struct groups g = { 0 };
	int rc = -1;

	memset(d, 0, sizeof(*d));
	d->a = a;
	d->b = b;
	d->other_run = vms_diff_other_run(a, b);
	d->idx = malloc((na + nb ? na + nb : 1) * sizeof(*d->idx));
	if (!parent || !d->idx)
		goto out;
	for (i = 0; i < na + nb; i++)
		parent[i] = i;
	sweep(a, b, parent);
	if (match_moved(a, b, parent) < 0 ||
	    (d->other_run && match_order(a, b, parent) < 0) ||
	    make_groups(na, nb, parent, &g, d->idx) < 0 ||
	    build_changes(d, &g) < 0)
		goto out;
	if (a->trace && b->trace) {
		if (vms_trace_diff_make(a->trace, b->trace, &d->trace) < 0)
			goto out;
		d->traced = true;
	}
	if (vms_trace_windowable(a->trace, b->trace)) {
		if (vms_trace_window(a->trace, b->trace, &d->window) < 0)
			goto out;
		d->windowed = true;
	}
	rc = 0;
out:
	groups_fini(&g);
	free(parent);
	if (rc < 0) {
		vms_diff_fini(d);
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
			      "out of memory comparing the snapshots");
	}
	return rc;
}

void vms_diff_fini(struct vms_diff *d)
{
	free(d->v);
	free(d->same);
	free(d->idx);
	vms_trace_diff_fini(&d->trace);
	d->traced = false;
	if (d->windowed)
		free(d->window.sites);
	d->windowed = false;
	d->v = NULL;
	d->same = NULL;
	d->nsame = 0;
	d->idx = NULL;
	d->n = 0;
}

static uint64_t moved(const struct vms_diff_change *c, enum vms_col col)
{
	int64_t v = vms_diff_known(c, col) ? vms_diff_delta(c, col) : 0;

	return v < 0 ? (uint64_t)-v : (uint64_t)v;
}

static int by_moved(const void *x, const void *y, void *ctx)
{
	const struct vms_diff *d = ctx;
	const struct vms_diff_change *a = &d->v[*(const size_t *)x];
	const struct vms_diff_change *b = &d->v[*(const size_t *)y];
	uint64_t ma = moved(a, VMS_COL_COMMITTED),
		 mb = moved(b, VMS_COL_COMMITTED);

	if (ma != mb)
		return ma > mb ? -1 : 1;
	ma = moved(a, VMS_COL_SIZE);
	mb = moved(b, VMS_COL_SIZE);
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

size_t vms_diff_largest(const struct vms_diff *d, size_t *out, size_t n)
{
	size_t *all = malloc((d->n ? d->n : 1) * sizeof(*all)), i;

	if (!all)
		return 0;
	for (i = 0; i < d->n; i++)
		all[i] = i;
	qsort_r(all, d->n, sizeof(*all), by_moved, (void *)d);
	if (n > d->n)
		n = d->n;
	memcpy(out, all, n * sizeof(*out));
	free(all);
	return n;
}
