/* elfcache.c — mapped ELF files read once per run. See elfcache.h. */
#include "elf/elfcache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* One answer: the names asked, joined by '\n', and what was found. */
struct elfcache_q {
	struct elfcache_q *next;
	const char *names;
	int found;
	size_t which;
};

/* One blob of facts. */
struct elfcache_f {
	struct elfcache_f *next;
	const char *key;
	size_t size;
	unsigned char *data;
};

struct elfcache_ent {
	struct elfimage im; /* first: an image's entry is at its address */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct elfcache_q *q;
	struct elfcache_f *f;
	/* where it first defines the run's names (c->names): first[id]
	 * that symbol's index + 1, 0 none, for the ids in known (a bit an
	 * id); first NULL until asked; failed: it cannot answer so */
	uint64_t *first;
	uint32_t known;
	bool failed;
	int fd; /* the file held open, or -1 */
};

/* A mapping's identity (the kernel's maps) and the image found for it. */
struct elfcache_map {
	unsigned major, minor;
	unsigned long long inode;
	const char *path; /* in the cache's arena */
	const struct elfimage *im;
};

struct elfcache {
	struct arena arena;
	struct elfcache_map *maps; /* open addressing (im NULL: empty) */
	size_t nmaps, nmap_slot; /* nmap_slot a power of two, > 2 nmaps */
	struct elfcache_ent **v; /* open addressing by identity */
	size_t n, nslot; /* nslot a power of two, > 2 n */
	/* every name asked of a file in the run (in the arena), an id each */
	const char *names[ELFCACHE_MAX_NAMES];
	size_t nnames;
	struct elfcache_ent **byim; /* open addressing by address */
	size_t nfds, max_fds; /* files held open, and at most */
};

static size_t id_hash(const struct stat *st)
{
	uint64_t h = (uint64_t)st->st_ino * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)st->st_dev + (uint64_t)st->st_mtim.tv_nsec) *
	     0xc2b2ae3d27d4eb4full;
	return (size_t)(h ^ (h >> 29));
}

static size_t ptr_hash(const void *p)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ (h >> 31));
}

static bool same_file(const struct elfcache_ent *e, const struct stat *st)
{
	return e->ino == st->st_ino && e->dev == st->st_dev &&
	       e->size == st->st_size &&
	       e->mtime.tv_sec == st->st_mtim.tv_sec &&
	       e->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

struct elfcache *elfcache_new(void)
{
	struct elfcache *c = calloc(1, sizeof(*c));
	struct rlimit rl;

	if (!c)
		return NULL;
	arena_init(&c->arena);
	c->max_fds = ELFCACHE_MAX_FDS;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur / 4 < c->max_fds)
		c->max_fds = (size_t)(rl.rlim_cur / 4);
	return c;
}

void elfcache_drop_fds(struct elfcache *c)
{
	size_t i;

	for (i = 0; c && c->nfds && c->v && i < c->nslot; i++)
		if (c->v[i] && c->v[i]->fd >= 0) {
			close(c->v[i]->fd);
			c->v[i]->fd = -1;
			c->nfds--;
		}
}

void elfcache_free(struct elfcache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; c->v && i < c->nslot; i++)
		if (c->v[i] && c->v[i]->fd >= 0)
			close(c->v[i]->fd);
	arena_fini(&c->arena);
	free(c->v);
	free(c->byim);
	free(c->maps);
	free(c);
}

static struct elfcache_ent **slot_of(struct elfcache *c, const struct stat *st)
{
	size_t h = id_hash(st) & (c->nslot - 1);

	while (c->v[h] && !same_file(c->v[h], st))
		h = (h + 1) & (c->nslot - 1);
	return &c->v[h];
}

static struct elfcache_ent **im_slot_of(struct elfcache *c, const void *im)
{
	size_t h = ptr_hash(im) & (c->nslot - 1);

	while (c->byim[h] && (const void *)c->byim[h] != im)
		h = (h + 1) & (c->nslot - 1);
	return &c->byim[h];
}

static int grow(struct elfcache *c)
{
	size_t nslot = c->nslot ? c->nslot * 2 : 256, old = c->nslot, i;
	struct elfcache_ent **v = calloc(nslot, sizeof(*v));
	struct elfcache_ent **byim = calloc(nslot, sizeof(*byim));
	struct elfcache_ent **ov = c->v;

	if (!v || !byim) {
		free(v);
		free(byim);
		return -1;
	}
	free(c->byim);
	c->v = v;
	c->byim = byim;
	c->nslot = nslot;
	for (i = 0; i < old; i++) {
		struct stat st;

		if (!ov[i])
			continue;
		memset(&st, 0, sizeof(st));
		st.st_dev = ov[i]->dev;
		st.st_ino = ov[i]->ino;
		st.st_size = ov[i]->size;
		st.st_mtim = ov[i]->mtime;
		*slot_of(c, &st) = ov[i];
		*im_slot_of(c, ov[i]) = ov[i];
	}
	free(ov);
	return 0;
}

const struct elfimage *elfcache_find(struct elfcache *c, const struct stat *st)
{
	struct elfcache_ent *e;

	if (!c || !c->nslot)
		return NULL;
	e = *slot_of(c, st);
	return e ? &e->im : NULL;
}

const struct elfimage *elfcache_add(struct elfcache *c, const struct stat *st,
				    int fd)
{
	struct elfcache_ent *e;
	struct vms_error ignore;

	if (!c || c->n >= ELFCACHE_MAX ||
	    (2 * (c->n + 1) >= c->nslot && grow(c) < 0)) {
		close(fd);
		return NULL;
	}
	/* the file found changed since its stat may be one read already */
	if (*slot_of(c, st)) {
		close(fd);
		return &(*slot_of(c, st))->im;
	}
	/* A file the reader cannot read is simply not an image; only one it
	 * could not read at all (or out of memory) is not kept. */
	e = arena_alloc(&c->arena, sizeof(*e));
	if (!e || elfimage_load(fd, st, &c->arena, &e->im, &ignore) < 0) {
		close(fd);
		return NULL;
	}
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->size = st->st_size;
	e->mtime = st->st_mtim;
	e->fd = -1;
	if (c->nfds < c->max_fds) {
		e->fd = fd;
		c->nfds++;
	} else {
		close(fd);
	}
	*slot_of(c, st) = e;
	*im_slot_of(c, e) = e;
	c->n++;
	return &e->im;
}

static size_t map_hash(unsigned major, unsigned minor, unsigned long long inode,
		       const char *path)
{
	uint64_t h = (uint64_t)inode * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)major << 32 | minor) * 0xc2b2ae3d27d4eb4full;
	for (; *path; path++)
		h = (h ^ (unsigned char)*path) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 29));
}

static struct elfcache_map *map_slot(struct elfcache_map *v, size_t nslot,
				     unsigned major, unsigned minor,
				     unsigned long long inode, const char *path)
{
	size_t h = map_hash(major, minor, inode, path) & (nslot - 1);

	while (v[h].im &&
	       !(v[h].inode == inode && v[h].major == major &&
		 v[h].minor == minor && strcmp(v[h].path, path) == 0))
		h = (h + 1) & (nslot - 1);
	return &v[h];
}

const struct elfimage *elfcache_find_mapped(struct elfcache *c, unsigned major,
					    unsigned minor,
					    unsigned long long inode,
					    const char *path)
{
	if (!c || !c->nmap_slot || !path)
		return NULL;
	return map_slot(c->maps, c->nmap_slot, major, minor, inode, path)->im;
}

void elfcache_keep_mapped(struct elfcache *c, unsigned major, unsigned minor,
			  unsigned long long inode, const char *path,
			  const struct elfimage *im)
{
	struct elfcache_map *m;
	size_t len, i;
	char *copy;

	if (!c || !im || !path || c->nmaps >= ELFCACHE_MAX)
		return;
	if (2 * (c->nmaps + 1) >= c->nmap_slot) {
		size_t nslot = c->nmap_slot ? c->nmap_slot * 2 : 256;
		struct elfcache_map *v = calloc(nslot, sizeof(*v));

		if (!v)
			return;
		for (i = 0; i < c->nmap_slot; i++)
			if (c->maps[i].im)
				*map_slot(v, nslot, c->maps[i].major,
					  c->maps[i].minor, c->maps[i].inode,
					  c->maps[i].path) = c->maps[i];
		free(c->maps);
		c->maps = v;
		c->nmap_slot = nslot;
	}
	m = map_slot(c->maps, c->nmap_slot, major, minor, inode, path);
	if (m->im) { /* kept already */
		m->im = im;
		return;
	}
	len = strlen(path) + 1;
	copy = arena_alloc(&c->arena, len);
	if (!copy)
		return;
	memcpy(copy, path, len);
	m->path = copy;
	m->major = major;
	m->minor = minor;
	m->inode = inode;
	m->im = im;
	c->nmaps++;
}

static struct elfcache_ent *ent_of(struct elfcache *c,
				   const struct elfimage *im)
{
	if (!c || !c->nslot || !im)
		return NULL;
	return *im_slot_of(c, im);
}

int elfcache_fd(struct elfcache *c, const struct elfimage *im)
{
	struct elfcache_ent *e = ent_of(c, im);

	return e ? e->fd : -1;
}

/* Whether the list q->names (joined) is names[]. */
static bool same_names(const char *joined, const char *const *names)
{
	size_t k, len;

	for (k = 0; names[k]; k++) {
		len = strlen(names[k]);
		if (strncmp(joined, names[k], len) != 0 || joined[len] != '\n')
			return false;
		joined += len + 1;
	}
	return *joined == '\0';
}

int elfcache_defines(struct elfcache *c, const struct elfimage *im,
		     const char *const *names, size_t *which)
{
	struct elfcache_ent *e = ent_of(c, im);
	const struct elfcache_q *q;

	for (q = e ? e->q : NULL; q; q = q->next)
		if (same_names(q->names, names)) {
			*which = q->which;
			return q->found;
		}
	return -1;
}

void elfcache_defines_keep(struct elfcache *c, const struct elfimage *im,
			   const char *const *names, int found, size_t which)
{
	struct elfcache_ent *e = ent_of(c, im);
	struct elfcache_q *q;
	size_t k, len = 0;
	char *j;

	if (!e)
		return;
	for (k = 0; names[k]; k++)
		len += strlen(names[k]) + 1;
	q = arena_alloc(&c->arena, sizeof(*q));
	j = arena_alloc(&c->arena, len + 1);
	if (!q || !j)
		return;
	q->names = j;
	for (k = 0; names[k]; k++) {
		len = strlen(names[k]);
		memcpy(j, names[k], len);
		j[len] = '\n';
		j += len + 1;
	}
	*j = '\0';
	q->found = found;
	q->which = which;
	q->next = e->q;
	e->q = q;
}

void *elfcache_facts(struct elfcache *c, const struct elfimage *im,
		     const char *key, size_t size)
{
	struct elfcache_ent *e = ent_of(c, im);
	struct elfcache_f *f;

	if (!e)
		return NULL;
	for (f = e->f; f; f = f->next)
		if (strcmp(f->key, key) == 0)
			return f->size == size ? f->data : NULL;
	f = arena_alloc(&c->arena, sizeof(*f));
	if (!f || !(f->key = arena_strdup(&c->arena, key)) ||
	    !(f->data = arena_alloc(&c->arena, size ? size : 1)))
		return NULL;
	f->size = size;
	f->next = e->f;
	e->f = f;
	return f->data;
}

/* The id of name in the run's names, added when new; -1 past the
 * bound or out of memory. */
static int name_id(struct elfcache *c, const char *name)
{
	size_t k;

	for (k = 0; k < c->nnames; k++)
		if (strcmp(c->names[k], name) == 0)
			return (int)k;
	if (c->nnames == ELFCACHE_MAX_NAMES ||
	    !(c->names[c->nnames] = arena_strdup(&c->arena, name)))
		return -1;
	return (int)c->nnames++;
}

void elfcache_expect(struct elfcache *c, const char *const *names)
{
	size_t k;

	for (k = 0; c && names[k]; k++)
		if (names[k][0])
			(void)name_id(c, names[k]);
}

/* e's answers for every name of the run it has none for yet: one read
 * of the file for all of them. -1 when it cannot answer so. */
static int first_defined(struct elfcache *c, struct elfcache_ent *e,
			 const struct elfimage_src *src)
{
	const char *ask[ELFCACHE_MAX_NAMES];
	uint64_t got[ELFCACHE_MAX_NAMES];
	int id[ELFCACHE_MAX_NAMES];
	size_t k, n = 0;

	if (e->failed)
		return -1;
	if (!e->first &&
	    !(e->first = arena_alloc(&c->arena,
				     ELFCACHE_MAX_NAMES * sizeof(*e->first))))
		return -1;
	for (k = 0; k < c->nnames; k++)
		if (!(e->known & (1u << k))) {
			id[n] = (int)k;
			ask[n++] = c->names[k];
		}
	if (n == 0)
		return 0;
	if (elfimage_first_defined(&e->im, src, ask, n, got) < 0) {
		e->failed = true;
		return -1;
	}
	for (k = 0; k < n; k++) {
		e->first[id[k]] = got[k];
		e->known |= 1u << id[k];
	}
	return 0;
}

int elfcache_defines_in(struct elfcache *c, const struct elfimage *im,
			const struct elfimage_src *src,
			const char *const *names, size_t *which)
{
	struct elfcache_ent *e = ent_of(c, im);
	uint64_t best = 0;
	int id[ELFCACHE_MAX_NAMES];
	size_t k;

	if (!e)
		return -1;
	/* an empty name is no symbol's as the walk sees it: the walk's */
	for (k = 0; names[k]; k++)
		if (k == ELFCACHE_MAX_NAMES || !names[k][0] ||
		    (id[k] = name_id(c, names[k])) < 0)
			return -1;
	if (first_defined(c, e, src) < 0)
		return -1;
	/* the first in the table of any of them; of one symbol, the first
	 * name of the list that is its (as the walk's strcmp in order) */
	for (k = 0; names[k]; k++) {
		uint64_t at = e->first[id[k]];

		if (at && (!best || at < best)) {
			best = at;
			*which = k;
		}
	}
	return best != 0;
}
