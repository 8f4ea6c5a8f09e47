#include "base/arena.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK 65536

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	_Alignas(max_align_t) unsigned char data[];
};

struct arena_istr {
	uint64_t hash;
	size_t len;
	char s[];
};

void arena_init(struct arena *a)
{
	memset(a, 0, sizeof(*a));
}

void arena_fini(struct arena *a)
{
	struct arena_block *b = a->head, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a->itab);
	memset(a, 0, sizeof(*a));
}

void arena_adopt(struct arena *a, struct arena *from)
{
	struct arena_block *last = from->head;

	if (last) {
		/* behind a's head, which allocations go on filling */
		while (last->next)
			last = last->next;
		if (a->head) {
			last->next = a->head->next;
			a->head->next = from->head;
		} else {
			a->head = from->head;
		}
	}
	free(from->itab);
	memset(from, 0, sizeof(*from));
}

size_t arena_bytes(const struct arena *a)
{
	const struct arena_block *b;
	size_t n = a->icap * sizeof(*a->itab);

	for (b = a->head; b; b = b->next)
		n += sizeof(*b) + b->size;
	return n;
}

void *arena_alloc(struct arena *a, size_t size)
{
	const size_t align = _Alignof(max_align_t);
	struct arena_block *b = a->head;

	size = (size + align - 1) & ~(align - 1);
	if (!b || b->size - b->used < size) {
		size_t bsize = size > ARENA_BLOCK / 4 ? size : ARENA_BLOCK;

		/* A large object gets a block of its own behind the head, so the
		 * head's free tail is not wasted. */
		b = calloc(1, sizeof(*b) + bsize);
		if (!b)
			return NULL;
		b->size = bsize;
		if (bsize != ARENA_BLOCK && a->head) {
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
	}
	b->used += size;
	return b->data + b->used - size;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	p = arena_alloc(a, (size_t)n + 1);
	if (!p)
		return NULL;
	if ((size_t)n < sizeof(small)) {
		memcpy(p, small, (size_t)n + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(p, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	return p;
}

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	while (n--) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ull;
	}
	return h;
}

static int intern_grow(struct arena *a)
{
	size_t ncap = a->icap ? a->icap * 2 : 256, i;
	struct arena_istr **nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -1;
	for (i = 0; i < a->icap; i++) {
		struct arena_istr *e = a->itab[i];
		size_t j;

		if (!e)
			continue;
		for (j = e->hash & (ncap - 1); nt[j]; j = (j + 1) & (ncap - 1))
			;
		nt[j] = e;
	}
	free(a->itab);
	a->itab = nt;
	a->icap = ncap;
	return 0;
}

/* s[0, n) with its hash h: the entry's string, found or added. */
static const char *intern_hashed(struct arena *a, const char *s, size_t n,
				 uint64_t h)
{
	struct arena_istr *e;
	size_t j;

	if ((a->icount + 1) * 2 > a->icap && intern_grow(a) < 0)
		return NULL;
	for (j = h & (a->icap - 1); (e = a->itab[j]);
	     j = (j + 1) & (a->icap - 1))
		if (e->hash == h && e->len == n && memcmp(e->s, s, n) == 0)
			return e->s;
	e = arena_alloc(a, sizeof(*e) + n + 1);
	if (!e)
		return NULL;
	e->hash = h;
	e->len = n;
	memcpy(e->s, s, n);
	e->s[n] = '\0';
	a->itab[j] = e;
	a->icount++;
	return e->s;
}

const char *arena_intern(struct arena *a, const char *s, size_t n)
{
	return intern_hashed(a, s, n, hash_bytes(s, n));
}

const char *arena_intern_again(struct arena *a, const char *interned)
{
	const struct arena_istr *e =
		(const void *)(interned - offsetof(struct arena_istr, s));

	return intern_hashed(a, e->s, e->len, e->hash);
}
