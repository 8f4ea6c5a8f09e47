/* glibc_find.c — main_arena, mp_ and the version in a libc file
 * (glibc_find.h). */
#include "analyze/heaps/glibc_find.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK = 65536, OVERLAP = 64 };

bool glibc_find_is_libc(const struct elfimage *im,
			const struct elfimage_src *src)
{
	struct elfimage_sym y;

	return elfimage_symbol(im, src, "gnu_get_libc_version", &y);
}

/* Where to look: the section called name, else the PT_LOADs with (or
 * without) write permission. Calls fn(ctx, vaddr, off, size) for each
 * range; stops when fn returns true. */
static bool each_range(const struct elfimage *im,
		       const struct elfimage_src *src, const char *name,
		       bool writable,
		       bool (*fn)(void *ctx, uint64_t vaddr, uint64_t off,
				  uint64_t size),
		       void *ctx)
{
	size_t i;

	for (i = 0; i < im->nsec; i++) {
		uint64_t off;

		if (strcmp(im->sec[i].name, name) != 0 || im->sec[i].nobits)
			continue;
		if (!elfimage_vaddr_offset(im, src, im->sec[i].addr, 1, &off))
			return false;
		return fn(ctx, im->sec[i].addr, off, im->sec[i].size);
	}
	for (i = 0; i < im->nload; i++) {
		const struct elfimage_load *l = &im->load[i];

		if (!!(l->flags & PF_W) != writable || (l->flags & PF_X))
			continue;
		if (fn(ctx, l->vaddr, l->offset, l->filesz))
			return true;
	}
	return false;
}

/* ---- version ---- */

struct ver_scan {
	const struct elfimage_src *src;
	unsigned major, minor;
};

static bool ver_range(void *ctx, uint64_t vaddr, uint64_t off, uint64_t size)
{
	static const char key[] = "release version ";
	struct ver_scan *v = ctx;
	char *buf = malloc(CHUNK + 1);
	uint64_t pos = 0;
	bool found = false;

	(void)vaddr;
	if (!buf)
		return false;
	if (size > GLIBC_FIND_SCAN)
		size = GLIBC_FIND_SCAN;
	while (pos < size && !found) {
		size_t want = size - pos < CHUNK ? (size_t)(size - pos) : CHUNK;
		size_t got = elfimage_src_read(v->src, off + pos, buf, want);
		char *p = buf;

		if (got == 0)
			break;
		buf[got] = '\0';
		while ((p = memmem(p, got - (size_t)(p - buf), key,
				   sizeof(key) - 1)) != NULL) {
			p += sizeof(key) - 1;
			if (sscanf(p, "%u.%u", &v->major, &v->minor) == 2) {
				found = true;
				break;
			}
		}
		if (got < want || got <= OVERLAP)
			break;
		pos += got - OVERLAP;
	}
	free(buf);
	return found;
}

bool glibc_find_version(const struct elfimage *im,
			const struct elfimage_src *src, unsigned *major,
			unsigned *minor)
{
	struct ver_scan v = { src, 0, 0 };

	if (!each_range(im, src, ".rodata", false, ver_range, &v))
		return false;
	*major = v.major;
	*minor = v.minor;
	return true;
}

/* ---- debug file ---- */

/* Both symbols in one pass over the table (libc6-dbg's has some 10,000:
 * a pass for each read it twice, a tenth of a small process's capture):
 * the first defined object of each name. */
struct debug_scan {
	uint64_t arena, mp;
	bool have_arena, have_mp;
};

static int debug_sym(void *ctx, const struct elfimage_sym *y)
{
	struct debug_scan *d = ctx;

	if (y->shndx == SHN_UNDEF)
		return 0;
	if (!d->have_arena && strcmp(y->name, "main_arena") == 0) {
		d->arena = y->value;
		d->have_arena = true;
	} else if (!d->have_mp && strcmp(y->name, "mp_") == 0) {
		d->mp = y->value;
		d->have_mp = true;
	}
	return d->have_arena && d->have_mp;
}

bool glibc_find_debug(const struct elfimage *dbg,
		      const struct elfimage_src *dsrc, const char *build_id,
		      uint64_t *main_arena, uint64_t *mp)
{
	struct debug_scan d = { 0 };

	if (!build_id || !dbg->build_id || strcmp(build_id, dbg->build_id))
		return false;
	if (elfimage_symtab_symbols(dbg, dsrc, debug_sym, &d) != 1)
		return false;
	*main_arena = d.arena;
	*mp = d.mp;
	return true;
}

/* ---- the library itself ---- */

struct arena_scan {
	const struct elfimage *im;
	const struct elfimage_src *src;
	const struct glibc_layout *lay;
	uint64_t found;
	unsigned n;
};

/* The file's bytes at main_arena are its initialiser: zero but for next
 * (&main_arena, or 0 where a RELA relocation fills it) and
 * attached_threads = 1. */
static bool arena_bytes_ok(const struct arena_scan *s, uint64_t at)
{
	const struct glibc_layout *l = s->lay;
	unsigned char b[0x900];
	uint64_t off, v;
	unsigned i;

	if (l->ms_size > sizeof(b) ||
	    !elfimage_vaddr_offset(s->im, s->src, at, l->ms_size, &off) ||
	    elfimage_src_read(s->src, off, b, l->ms_size) != l->ms_size)
		return false;
	memcpy(&v, b + l->ms_next, 8);
	if (v != 0 && v != at)
		return false;
	memcpy(&v, b + l->ms_next + 16, 8);
	if (v != 1)
		return false;
	for (i = 0; i < l->ms_size; i += 8) {
		if (i == l->ms_next || i == l->ms_next + 16)
			continue;
		memcpy(&v, b + i, 8);
		if (v)
			return false;
	}
	return true;
}

static int arena_reloc(void *ctx, const struct elfimage_reloc *r)
{
	struct arena_scan *s = ctx;
	uint64_t at = (uint64_t)r->addend;

	if (!r->relative || !r->addend_known || r->addend <= 0 ||
	    r->offset != at + s->lay->ms_next || !arena_bytes_ok(s, at))
		return 0;
	if (s->n == 0 || s->found != at) {
		s->found = at;
		s->n++;
	}
	return s->n > 1; /* a second candidate: stop, ambiguous */
}

struct mp_scan {
	const struct elfimage_src *src;
	const unsigned char *want, *mask;
	size_t len;
	uint64_t found;
	unsigned n;
};

static bool mp_range(void *ctx, uint64_t vaddr, uint64_t off, uint64_t size)
{
	struct mp_scan *m = ctx;
	unsigned char *buf = malloc(CHUNK);
	uint64_t pos = 0;

	if (!buf)
		return false;
	if (size > GLIBC_FIND_SCAN)
		size = GLIBC_FIND_SCAN;
	while (pos + m->len <= size && m->n < 2) {
		size_t want = size - pos < CHUNK ? (size_t)(size - pos) : CHUNK;
		size_t got = elfimage_src_read(m->src, off + pos, buf, want), i;

		if (got < m->len)
			break;
		for (i = 0; i + m->len <= got; i += 8) {
			size_t k;

			for (k = 0; k < m->len; k++)
				if ((buf[i + k] ^ m->want[k]) & m->mask[k])
					break;
			if (k == m->len) {
				m->found = vaddr + pos + i;
				m->n++;
			}
		}
		if (got < want)
			break;
		pos += got - m->len + 8 - ((got - m->len + 8) % 8);
	}
	free(buf);
	return m->n > 0;
}

bool glibc_find_in_file(const struct elfimage *im,
			const struct elfimage_src *src,
			const struct glibc_layout *lay, uint64_t *main_arena,
			uint64_t *mp, char *why, size_t whylen)
{
	struct arena_scan as = { im, src, lay, 0, 0 };
	unsigned char want[256], mask[256];
	struct mp_scan ms = { src, want, mask, 0, 0, 0 };

	if (elfimage_relocs(im, src, arena_reloc, &as) < 0) {
		snprintf(why, whylen, "out of memory reading relocations");
		return false;
	}
	if (as.n != 1) {
		snprintf(why, whylen,
			 as.n ? "main_arena: more than one relocation fits"
			      : "main_arena: no relocation writes "
				"main_arena.next");
		return false;
	}
	ms.len = glibc_mp_initialiser(lay, want, mask);
	each_range(im, src, ".data", true, mp_range, &ms);
	if (ms.n != 1) {
		snprintf(why, whylen,
			 ms.n ? "mp_: its initialiser is in .data more than "
				"once"
			      : "mp_: its initialiser is not in .data");
		return false;
	}
	*main_arena = as.found;
	*mp = ms.found;
	return true;
}
