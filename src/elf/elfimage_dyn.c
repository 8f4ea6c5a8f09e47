/* elfimage_dyn.c — the dynamic symbols and relocations of an image
 * (elfimage.h). Tables are read in bounded chunks from the source on each
 * call; nothing is kept. */
#include "elf/elfimage.h"

#include <elf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "elf/elfimage_raw.h"

#ifndef R_AARCH64_RELATIVE
#define R_AARCH64_RELATIVE 1027
#endif
#ifndef R_RISCV_RELATIVE
#define R_RISCV_RELATIVE 3
#endif

/* A string table up to STR_CACHE_MAX is read whole, once: node's .dynstr
 * is 5.3 MB, read by one pread per name (75,000 symbols) the look-ups of
 * a capture of node took 1.1 s; 0.09 s for the whole capture with it read
 * whole. */
enum { CHUNK_ENTRIES = 1024, STR_CACHE_MAX = 16 << 20, NAME_MAX_LEN = 256 };

/* ---- a string table: whole in memory when small, else by pread ---- */

struct strtab {
	const struct elfimage_src *src;
	const struct elfimage_table *t;
	char *cache;
	size_t cached; /* bytes in cache (NUL-terminated after them) */
	char name[NAME_MAX_LEN + 1];
};

static int strtab_init(struct strtab *s, const struct elfimage_src *src,
		       const struct elfimage_table *t)
{
	memset(s, 0, sizeof(*s));
	s->src = src;
	s->t = t;
	if (t->size && t->size <= STR_CACHE_MAX) {
		size_t got;

		s->cache = malloc((size_t)t->size + 1);
		if (!s->cache)
			return -1;
		got = elfimage_src_read(src, t->off, s->cache, (size_t)t->size);
		s->cache[got] = '\0';
		s->cached = got;
	}
	return 0;
}

/* The string at off, or "" when it is not in the table. Valid until the
 * next call. */
static const char *strtab_get(struct strtab *s, uint64_t off)
{
	size_t got;

	if (off >= s->t->size)
		return "";
	if (s->cache)
		return off < s->cached ? s->cache + off : "";
	/* not past the table: its last string may have no NUL */
	got = elfimage_src_read(s->src, s->t->off + off, s->name,
				s->t->size - off < NAME_MAX_LEN
					? (size_t)(s->t->size - off)
					: NAME_MAX_LEN);
	s->name[got] = '\0';
	return s->name;
}

/* ---- symbols ---- */

static void raw_sym(uint8_t cls, const unsigned char *b, struct elfimage_sym *y,
		    uint32_t *name)
{
	if (cls == ELFCLASS64) {
		Elf64_Sym s;

		memcpy(&s, b, sizeof(s));
		*name = s.st_name;
		y->value = s.st_value;
		y->size = s.st_size;
		y->type = ELF64_ST_TYPE(s.st_info);
		y->bind = ELF64_ST_BIND(s.st_info);
		y->shndx = s.st_shndx;
	} else {
		Elf32_Sym s;

		memcpy(&s, b, sizeof(s));
		*name = s.st_name;
		y->value = s.st_value;
		y->size = s.st_size;
		y->type = ELF32_ST_TYPE(s.st_info);
		y->bind = ELF32_ST_BIND(s.st_info);
		y->shndx = s.st_shndx;
	}
}

/* Calls fn for each symbol of the table sym (names in str). */
static int walk_syms(const struct elfimage *im, const struct elfimage_src *src,
		     const struct elfimage_table *sym,
		     const struct elfimage_table *str,
		     int (*fn)(void *ctx, const struct elfimage_sym *y),
		     void *ctx)
{
	size_t esz = im->elfclass == ELFCLASS64 ? sizeof(Elf64_Sym)
						: sizeof(Elf32_Sym);
	uint64_t n, i;
	struct strtab st;
	unsigned char *buf;
	int rc = 0;

	if (!sym->size || sym->entsize < esz ||
	    sym->entsize > ELFIMAGE_MAX_ENTSIZE)
		return 0;
	n = sym->size / sym->entsize;
	if (strtab_init(&st, src, str) < 0)
		return -1;
	buf = malloc(CHUNK_ENTRIES * sym->entsize);
	if (!buf) {
		free(st.cache);
		return -1;
	}
	for (i = 0; i < n && rc == 0; i += CHUNK_ENTRIES) {
		size_t want =
			n - i < CHUNK_ENTRIES ? (size_t)(n - i) : CHUNK_ENTRIES;
		size_t got = elfimage_src_read(src, sym->off + i * sym->entsize,
					       buf, want * sym->entsize) /
			     sym->entsize;
		size_t j;

		for (j = 0; j < got && rc == 0; j++) {
			struct elfimage_sym y;
			uint32_t name;

			raw_sym(im->elfclass, buf + j * sym->entsize, &y,
				&name);
			y.name = strtab_get(&st, name);
			rc = fn(ctx, &y);
		}
		if (got < want)
			break;
	}
	free(buf);
	free(st.cache);
	return rc;
}

int elfimage_symbols(const struct elfimage *im, const struct elfimage_src *src,
		     int (*fn)(void *ctx, const struct elfimage_sym *sym),
		     void *ctx)
{
	return walk_syms(im, src, &im->dynsym, &im->dynstr, fn, ctx);
}

int elfimage_symtab_symbols(
	const struct elfimage *im, const struct elfimage_src *src,
	int (*fn)(void *ctx, const struct elfimage_sym *sym), void *ctx)
{
	return walk_syms(im, src, &im->symtab, &im->strtab, fn, ctx);
}

struct sym_find {
	const char *name;
	struct elfimage_sym *out;
};

static int sym_match(void *ctx, const struct elfimage_sym *y)
{
	struct sym_find *f = ctx;

	if (y->shndx == SHN_UNDEF || strcmp(y->name, f->name) != 0)
		return 0;
	*f->out = *y;
	f->out->name = NULL;
	return 1;
}

bool elfimage_symbol(const struct elfimage *im, const struct elfimage_src *src,
		     const char *name, struct elfimage_sym *out)
{
	struct sym_find f = { name, out };

	return elfimage_symbols(im, src, sym_match, &f) == 1;
}

/* ---- where names are first defined ---- */

/* A place in the string table where one of the names ends as a string
 * does: the name (its index) would be a symbol's whose name starts at
 * off. */
struct cand {
	uint64_t off;
	size_t k;
};

static int by_off(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* The string table is read STR_CHUNK bytes at a time, each chunk after
 * the last bytes of the one before (as many as the longest name): no
 * buffer of the table's size (node's 5.3 MB, its pages faulted in one by
 * one), and no cap on the table's size. */
enum { STR_CHUNK = 256 * 1024 };

/* The text is looked at NUL_BLOCK bytes at a time (nul_bits); the NULs
 * whose byte before is some name's last wait in cand_scan.pend, at most
 * PENDING, before their names are compared. */
enum { NUL_BLOCK = 128, PENDING = 1024 };

/* The candidates found so far: every place in the table where a name's
 * bytes end at a NUL (or at the end of what was read, where the walk's
 * cache has its NUL), found at each NUL by the names whose last byte is
 * the one before it. */
struct cand_scan {
	const char *const *names;
	const size_t *nlen;
	size_t n;
	uint64_t by_last[256]; /* the names ending in each byte */
	uint32_t tail[ELFIMAGE_MAX_FIND]; /* each name's last 4 bytes */
	struct cand *v;
	size_t got, cap;
	/* NULs of the text (where in it) whose byte before ends a name, one
	 * more slot for what a step without a NUL writes */
	size_t pend[PENDING + 1];
	size_t npend;
};

static void cand_init(struct cand_scan *c, const char *const *names,
		      const size_t *nlen, size_t n)
{
	size_t k;

	memset(c, 0, sizeof(*c));
	c->names = names;
	c->nlen = nlen;
	c->n = n;
	for (k = 0; k < n; k++) {
		c->by_last[(unsigned char)names[k][nlen[k] - 1]] |= 1ull << k;
		if (nlen[k] >= 4)
			memcpy(&c->tail[k], names[k] + nlen[k] - 4, 4);
	}
}

/* The candidates of the string ending at the NUL text[at] (text[0, at)
 * the bytes before it, base the table offset of text[0]). -1 on out of
 * memory. */
static int cand_at(struct cand_scan *c, const char *text, size_t at,
		   uint64_t base)
{
	uint64_t m = at ? c->by_last[(unsigned char)text[at - 1]] : 0;

	for (; m; m &= m - 1) {
		size_t k = (size_t)__builtin_ctzll(m);
		uint32_t t4;

		if (c->nlen[k] > at)
			continue;
		if (c->nlen[k] >= 4) { /* most differ in the last 4 */
			memcpy(&t4, text + at - 4, 4);
			if (t4 != c->tail[k])
				continue;
		}
		if (memcmp(text + at - c->nlen[k], c->names[k], c->nlen[k]) !=
		    0)
			continue;
		if (c->got == c->cap) {
			size_t nc = c->cap ? 2 * c->cap : 16;
			struct cand *nv = realloc(c->v, nc * sizeof(*c->v));

			if (!nv)
				return -1;
			c->v = nv;
			c->cap = nc;
		}
		c->v[c->got].off = base + at - c->nlen[k];
		c->v[c->got++].k = k;
	}
	return 0;
}

/* The candidates of the NULs pending. -1 on out of memory. */
static int cand_flush(struct cand_scan *c, const char *text, uint64_t base)
{
	size_t i;

	for (i = 0; i < c->npend; i++)
		if (cand_at(c, text, c->pend[i], base) < 0)
			return -1;
	c->npend = 0;
	return 0;
}

/* Sixteen bytes, and two words over the same bytes: GCC's and clang's
 * vector extension (SSE2 on x86-64, NEON on aarch64, words elsewhere),
 * no intrinsics. */
typedef unsigned char bytes16 __attribute__((vector_size(16)));
typedef uint64_t words2 __attribute__((vector_size(16)));

/* The NULs of the NUL_BLOCK bytes at p, a bit each: bit j of byte i (of
 * the 16 the two words hold) is p[16 * j + i]. Eight compares of 16
 * bytes and no branch. */
static words2 nul_bits(const char *p)
{
	bytes16 acc = { 0 }, bit = { 0 }, v;
	unsigned j;

	bit += 1;
	for (j = 0; j < 8; j++, bit += bit) {
		memcpy(&v, p + 16 * j, sizeof(v));
		acc |= (bytes16)(v == 0) & bit;
	}
	return (words2)acc;
}

/* Where in its block the NUL of bit b of word h of nul_bits is. */
static size_t nul_at(unsigned b, unsigned h)
{
	unsigned byte = b / 8; /* of the word, first in memory first */

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	byte = 7 - byte;
#endif
	return 16 * (b % 8) + 8 * h + byte;
}

/* The NUL of the lowest bit of w, word h of the block at text[at]
 * (nul_bits), pending when it follows some name's last byte; with no
 * bit, the next slot written (with a byte of the block) and not counted:
 * no branch on the text. */
static void nul_step(struct cand_scan *c, const char *text, size_t at,
		     unsigned h, uint64_t w)
{
	size_t p = at + nul_at((unsigned)__builtin_ctzll(w | 1ull << 63), h);

	c->pend[c->npend] = p;
	c->npend += (w != 0) & (c->by_last[(unsigned char)text[p - 1]] != 0);
}

/* The NULs of the block at text[at] (nul_bits: m) that follow some
 * name's last byte, pending. A word has one NUL or two most often
 * (node's strings are 70 bytes on average): two steps without a branch,
 * then a loop for the rest. A branch for each NUL, as a memchr to each
 * has, was half the scan's time. */
static void nul_pend(struct cand_scan *c, const char *text, size_t at, words2 m)
{
	unsigned h;

	for (h = 0; h < 2; h++) {
		uint64_t w = m[h];

		nul_step(c, text, at, h, w);
		w &= w - 1;
		nul_step(c, text, at, h, w);
		for (w &= w - 1; w; w &= w - 1)
			nul_step(c, text, at, h, w);
	}
}

/* The NULs of text[from, to), and text[to] (a NUL) when it ends the
 * table read (last); text[0, from) the bytes before them, base the table
 * offset of text[0]. -1 on out of memory. */
static int cand_scan(struct cand_scan *c, const char *text, size_t from,
		     size_t to, uint64_t base, bool last)
{
	size_t end = to + (last ? 1 : 0), at = from;

	if (at == 0 && end > 0)
		at++; /* a NUL first ends no name (none is empty) */
	for (; at + NUL_BLOCK <= end; at += NUL_BLOCK) {
		nul_pend(c, text, at, nul_bits(text + at));
		if (c->npend > PENDING - NUL_BLOCK &&
		    cand_flush(c, text, base) < 0)
			return -1;
	}
	for (; at < end; at++)
		if (!text[at])
			c->pend[c->npend++] = at;
	return cand_flush(c, text, base);
}

/* The candidates of the string table str, read from src, into *out
 * (malloc'd), *len the bytes read of it: their count, or -1 on out of
 * memory. */
static ssize_t candidates(const struct elfimage_table *str,
			  const struct elfimage_src *src,
			  const char *const *names, const size_t *nlen,
			  size_t n, struct cand **out, size_t *len)
{
	struct cand_scan c;
	size_t longest = 0, carry = 0, k;
	uint64_t done = 0;
	char *buf;

	for (k = 0; k < n; k++)
		if (nlen[k] > longest)
			longest = nlen[k];
	if (!(buf = malloc(
		      longest + 1 +
		      (str->size < STR_CHUNK ? (size_t)str->size : STR_CHUNK))))
		return -1;
	cand_init(&c, names, nlen, n);
	for (;;) {
		uint64_t left = str->size - done;
		size_t want = left < STR_CHUNK ? (size_t)left : STR_CHUNK;
		size_t got = want ? elfimage_src_read(src, str->off + done,
						      buf + carry, want)
				  : 0;
		bool last = got < want || got == left;

		buf[carry + got] = '\0';
		if (cand_scan(&c, buf, carry, carry + got, done - carry, last) <
		    0) {
			free(c.v);
			free(buf);
			return -1;
		}
		done += got;
		if (last)
			break;
		/* the bytes a name ending in the next chunk may start in */
		k = carry + got < longest ? carry + got : longest;
		memmove(buf, buf + carry + got - k, k);
		carry = k;
	}
	free(buf);
	*out = c.v;
	*len = (size_t)done;
	return (ssize_t)c.got;
}

int elfimage_first_defined(const struct elfimage *im,
			   const struct elfimage_src *src,
			   const char *const *names, size_t n, uint64_t *first)
{
	const struct elfimage_table *sym = &im->dynsym, *str = &im->dynstr;
	size_t esz = im->elfclass == ELFCLASS64 ? sizeof(Elf64_Sym)
						: sizeof(Elf32_Sym);
	/* st_name is first in both classes */
	size_t at_shndx = im->elfclass == ELFCLASS64
				  ? offsetof(Elf64_Sym, st_shndx)
				  : offsetof(Elf32_Sym, st_shndx);
	size_t nlen[ELFIMAGE_MAX_FIND], k, left = 0, got, ncand = 0;
	bool has[ELFIMAGE_MAX_FIND] = { false };
	uint64_t filt[64] = { 0 };
	struct cand *cand = NULL;
	unsigned char *buf = NULL;
	uint64_t nsym, i;
	ssize_t nc;
	int rc = -1;

	if (n > ELFIMAGE_MAX_FIND)
		return -1;
	for (k = 0; k < n; k++) {
		first[k] = 0;
		nlen[k] = strlen(names[k]);
		if (!nlen[k])
			return -1;
	}
	/* the walk sees no symbol in a table it cannot take */
	if (!n || !sym->size || sym->entsize < esz ||
	    sym->entsize > ELFIMAGE_MAX_ENTSIZE)
		return 0;
	/* the string table as the walk holds it (strtab_init): a NUL
	 * after what was read */
	nc = candidates(str, src, names, nlen, n, &cand, &got);
	if (nc < 0)
		return -1;
	ncand = (size_t)nc;
	if (ncand == 0)
		return 0; /* no name is any symbol's: no symbol read */
	qsort(cand, ncand, sizeof(*cand), by_off);
	for (k = 0; k < ncand; k++) { /* the names to find a symbol of */
		if (!has[cand[k].k]) {
			has[cand[k].k] = true;
			left++;
		}
		filt[(cand[k].off / 64) % 64] |= 1ull << (cand[k].off % 64);
	}
	nsym = sym->size / sym->entsize;
	if (!(buf = malloc(CHUNK_ENTRIES * sym->entsize)))
		goto out;
	/* in table order, as the walk (walk_syms) reads them */
	for (i = 0; i < nsym && left; i += CHUNK_ENTRIES) {
		size_t want = nsym - i < CHUNK_ENTRIES ? (size_t)(nsym - i)
						       : CHUNK_ENTRIES;
		size_t have =
			elfimage_src_read(src, sym->off + i * sym->entsize, buf,
					  want * sym->entsize) /
			sym->entsize;
		size_t j;

		for (j = 0; j < have; j++) {
			const unsigned char *y = buf + j * sym->entsize;
			uint32_t name;
			uint16_t shndx;
			size_t lo = 0, hi = ncand;

			/* of the symbol, only these two (raw_sym reads all) */
			memcpy(&name, y, sizeof(name));
			memcpy(&shndx, y + at_shndx, sizeof(shndx));
			/* most are no candidate's: a 4096-bit filter first */
			if (shndx == SHN_UNDEF || name >= got ||
			    !(filt[(name / 64) % 64] & (1ull << (name % 64))))
				continue;
			while (lo < hi) { /* the first candidate at name */
				size_t mid = lo + (hi - lo) / 2;

				if (cand[mid].off < name)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < ncand && cand[lo].off == name; lo++)
				if (!first[cand[lo].k]) {
					first[cand[lo].k] = i + j + 1;
					left--;
				}
		}
		if (have < want)
			break;
	}
	rc = 0;
out:
	free(buf);
	free(cand);
	return rc;
}

/* ---- relocations ---- */

uint32_t elfimage_relative_type(uint16_t machine)
{
	switch (machine) {
	case EM_X86_64:
		return R_X86_64_RELATIVE;
	case EM_386:
		return R_386_RELATIVE;
	case EM_AARCH64:
		return R_AARCH64_RELATIVE;
	case EM_ARM:
		return R_ARM_RELATIVE;
	case EM_RISCV:
		return R_RISCV_RELATIVE;
	case EM_PPC64:
		return R_PPC64_RELATIVE;
	case EM_S390:
		return R_390_RELATIVE;
	}
	return 0;
}

/* Reads implicit addends (REL, RELR): the word at the target in the
 * source, through a one-page window (RELR targets come in address order). */
struct addend_win {
	const struct elfimage *im;
	const struct elfimage_src *src;
	uint64_t off; /* source offset of win[0] */
	size_t len;
	unsigned char win[4096];
};

static bool implicit_addend(struct addend_win *w, uint64_t vaddr,
			    int64_t *addend)
{
	size_t word = w->im->elfclass == ELFCLASS64 ? 8 : 4;
	uint64_t off;

	if (!elfimage_vaddr_offset(w->im, w->src, vaddr, word, &off))
		return false;
	if (off < w->off || off - w->off + word > w->len) {
		w->off = off & ~(uint64_t)(sizeof(w->win) - 1);
		w->len = elfimage_src_read(w->src, w->off, w->win,
					   sizeof(w->win));
		if (off - w->off + word > w->len) {
			/* the word straddles the window's end */
			w->off = off;
			w->len = elfimage_src_read(w->src, off, w->win, word);
			if (w->len < word)
				return false;
		}
	}
	if (word == 8) {
		memcpy(addend, w->win + (off - w->off), 8);
	} else {
		int32_t v;

		memcpy(&v, w->win + (off - w->off), 4);
		*addend = v;
	}
	return true;
}

struct reloc_walk {
	const struct elfimage *im;
	const struct elfimage_src *src;
	int (*fn)(void *ctx, const struct elfimage_reloc *r);
	void *ctx;
	uint32_t relative;
	struct addend_win *win;
};

static int emit(struct reloc_walk *w, struct elfimage_reloc *r)
{
	r->relative = r->kind == ELFIMAGE_RELR ||
		      (w->relative && r->type == w->relative);
	if (r->kind != ELFIMAGE_RELA)
		r->addend_known =
			implicit_addend(w->win, r->offset, &r->addend);
	else
		r->addend_known = true;
	return w->fn(w->ctx, r);
}

static void decode_rel(uint8_t cls, bool rela, const unsigned char *b,
		       struct elfimage_reloc *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = rela ? ELFIMAGE_RELA : ELFIMAGE_REL;
	if (cls == ELFCLASS64) {
		Elf64_Rela x = { 0, 0, 0 };

		memcpy(&x, b, rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel));
		r->offset = x.r_offset;
		r->type = (uint32_t)ELF64_R_TYPE(x.r_info);
		r->sym = (uint32_t)ELF64_R_SYM(x.r_info);
		r->addend = x.r_addend;
	} else {
		Elf32_Rela x = { 0, 0, 0 };

		memcpy(&x, b, rela ? sizeof(Elf32_Rela) : sizeof(Elf32_Rel));
		r->offset = x.r_offset;
		r->type = ELF32_R_TYPE(x.r_info);
		r->sym = ELF32_R_SYM(x.r_info);
		r->addend = x.r_addend;
	}
}

static int walk_table(struct reloc_walk *w, const struct elfimage_table *t,
		      bool rela)
{
	size_t word = w->im->elfclass == ELFCLASS64 ? 8 : 4;
	size_t need = (rela ? 3 : 2) * word;
	uint64_t n, i;
	unsigned char *buf;
	int rc = 0;

	if (!t->size || t->entsize < need || t->entsize > ELFIMAGE_MAX_ENTSIZE)
		return 0;
	n = t->size / t->entsize;
	buf = malloc(CHUNK_ENTRIES * t->entsize);
	if (!buf)
		return -1;
	for (i = 0; i < n && rc == 0; i += CHUNK_ENTRIES) {
		size_t want = n - i < CHUNK_ENTRIES ? (size_t)(n - i)
						    : CHUNK_ENTRIES,
		       j;
		size_t got = elfimage_src_read(w->src, t->off + i * t->entsize,
					       buf, want * t->entsize) /
			     t->entsize;

		for (j = 0; j < got && rc == 0; j++) {
			struct elfimage_reloc r;

			decode_rel(w->im->elfclass, rela, buf + j * t->entsize,
				   &r);
			rc = emit(w, &r);
		}
		if (got < want)
			break;
	}
	free(buf);
	return rc;
}

/* RELR (the SHT_RELR encoding): an even word is an address to relocate;
 * an odd word is a bitmap of the (word bits - 1) words after the last. */
static int walk_relr(struct reloc_walk *w)
{
	const struct elfimage_table *t = &w->im->relr;
	size_t word = w->im->elfclass == ELFCLASS64 ? 8 : 4;
	uint64_t n, i, where = 0;
	unsigned char *buf;
	int rc = 0;

	if (!t->size || t->entsize != word)
		return 0;
	n = t->size / word;
	buf = malloc(CHUNK_ENTRIES * word);
	if (!buf)
		return -1;
	for (i = 0; i < n && rc == 0; i += CHUNK_ENTRIES) {
		size_t want = n - i < CHUNK_ENTRIES ? (size_t)(n - i)
						    : CHUNK_ENTRIES,
		       j;
		size_t got = elfimage_src_read(w->src, t->off + i * word, buf,
					       want * word) /
			     word;

		for (j = 0; j < got && rc == 0; j++) {
			uint64_t e = 0;
			struct elfimage_reloc r = { 0 };

			if (word == 8) {
				memcpy(&e, buf + j * 8, 8);
			} else {
				uint32_t v;

				memcpy(&v, buf + j * 4, 4);
				e = v;
			}
			r.kind = ELFIMAGE_RELR;
			r.type = w->relative;
			if (!(e & 1)) {
				r.offset = e;
				rc = emit(w, &r);
				where = e + word;
				continue;
			}
			for (unsigned b = 0; b < word * 8 - 1 && rc == 0; b++) {
				if (!((e >> (b + 1)) & 1))
					continue;
				r.offset = where + b * word;
				rc = emit(w, &r);
			}
			where += (word * 8 - 1) * word;
		}
		if (got < want)
			break;
	}
	free(buf);
	return rc;
}

int elfimage_relocs(const struct elfimage *im, const struct elfimage_src *src,
		    int (*fn)(void *ctx, const struct elfimage_reloc *r),
		    void *ctx)
{
	struct addend_win *win = calloc(1, sizeof(*win));
	struct reloc_walk w = {
		im, src, fn, ctx, elfimage_relative_type(im->machine), win
	};
	int rc;

	if (!win)
		return -1;
	win->im = im;
	win->src = src;
	rc = walk_table(&w, &im->rela, true);
	if (rc == 0)
		rc = walk_table(&w, &im->jmprel, im->jmprel_is_rela);
	if (rc == 0)
		rc = walk_table(&w, &im->rel, false);
	if (rc == 0)
		rc = walk_relr(&w);
	free(win);
	return rc;
}

struct reloc_find {
	uint64_t vaddr;
	int64_t addend;
	bool by_addend;
	struct elfimage_reloc *out;
};

static int reloc_match(void *ctx, const struct elfimage_reloc *r)
{
	struct reloc_find *f = ctx;

	if (f->by_addend ? !(r->relative && r->addend_known &&
			     r->addend == f->addend)
			 : r->offset != f->vaddr)
		return 0;
	*f->out = *r;
	return 1;
}

bool elfimage_reloc_at(const struct elfimage *im,
		       const struct elfimage_src *src, uint64_t vaddr,
		       struct elfimage_reloc *out)
{
	struct reloc_find f = { vaddr, 0, false, out };

	return elfimage_relocs(im, src, reloc_match, &f) == 1;
}

bool elfimage_relative_with_addend(const struct elfimage *im,
				   const struct elfimage_src *src,
				   int64_t addend, struct elfimage_reloc *out)
{
	struct reloc_find f = { 0, addend, true, out };

	return elfimage_relocs(im, src, reloc_match, &f) == 1;
}
