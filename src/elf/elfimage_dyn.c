/* elfimage_dyn.c — the dynamic symbols and relocations of an image
 * (elfimage.h). Tables are read in bounded chunks from the source on each
 * call; nothing is kept. */
#include "elf/elfimage.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

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
	got = elfimage_src_read(s->src, s->t->off + off, s->name, NAME_MAX_LEN);
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

bool elfimage_dynsym_name(const struct elfimage *im,
			  const struct elfimage_src *src, uint64_t idx,
			  char *out, size_t n)
{
	const struct elfimage_table *sym = &im->dynsym, *str = &im->dynstr;
	size_t esz = im->elfclass == ELFCLASS64 ? sizeof(Elf64_Sym)
						: sizeof(Elf32_Sym);
	unsigned char buf[ELFIMAGE_MAX_ENTSIZE];
	struct elfimage_sym y;
	uint32_t name;
	size_t got;

	if (!n || !sym->size || sym->entsize < esz ||
	    sym->entsize > ELFIMAGE_MAX_ENTSIZE ||
	    idx >= sym->size / sym->entsize ||
	    elfimage_src_read(src, sym->off + idx * sym->entsize, buf,
			      (size_t)sym->entsize) != sym->entsize)
		return false;
	raw_sym(im->elfclass, buf, &y, &name);
	if (name >= str->size)
		return false;
	got = elfimage_src_read(src, str->off + name, out, n - 1);
	out[got] = '\0';
	return got > 0 || name < str->size;
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

bool elfimage_symtab_symbol(const struct elfimage *im,
			    const struct elfimage_src *src, const char *name,
			    struct elfimage_sym *out)
{
	struct sym_find f = { name, out };

	return elfimage_symtab_symbols(im, src, sym_match, &f) == 1;
}

/* ---- the GNU hash table ---- */

static uint32_t gnu_name_hash(const char *name)
{
	uint32_t h = 5381;

	for (; *name; name++)
		h = h * 33 + (unsigned char)*name;
	return h;
}

/* A walk of the whole table that checks each name a walk would meet is
 * where the look-up finds it: none defined and named below symoffset
 * (the hash leaves them out); at or past it, the name's bloom bits set,
 * its chain entry its hash, and its bucket the first symbol of the chain
 * it is in (a chain ends at an entry with its low bit set). The names as
 * the walk gives them (walk_syms: strtab_get), so a look-up answers as
 * the walk. */
struct gnu_check {
	const struct elfimage *im;
	const struct elfimage_src *src;
	const struct elfimage_gnuhash *h;
	const uint32_t *buckets; /* all of them */
	uint64_t idx; /* the symbol the walk is at */
	uint64_t chain_start; /* the first symbol of its chain */
	uint32_t chain[1024]; /* chains[at, at + nchain) */
	uint64_t at, nchain;
	bool bad;
};

static bool gnu_bloom_has(const struct elfimage_gnuhash *h, unsigned bits,
			  uint32_t hash)
{
	uint64_t w = h->bloom[(hash / bits) & (h->nbloom - 1)];
	uint64_t mask =
		(1ull << (hash % bits)) | (1ull << ((hash >> h->shift) % bits));

	return (w & mask) == mask;
}

static int gnu_check_sym(void *ctx, const struct elfimage_sym *y)
{
	struct gnu_check *c = ctx;
	const struct elfimage_gnuhash *h = c->h;
	uint64_t i = c->idx++, k;
	uint32_t hash, ch;

	if (i < h->symoffset) {
		c->bad = y->shndx != SHN_UNDEF && y->name[0];
		return c->bad;
	}
	k = i - h->symoffset;
	if (k < c->at || k >= c->at + c->nchain) {
		uint64_t left = c->im->dynsym.size / c->im->dynsym.entsize - i;

		c->at = k;
		c->nchain = left < 1024 ? left : 1024;
		if (elfimage_src_read(c->src, h->chains + 4 * k, c->chain,
				      (size_t)(4 * c->nchain)) != 4 * c->nchain)
			return c->bad = true;
	}
	ch = c->chain[k - c->at];
	if (y->shndx != SHN_UNDEF && y->name[0]) {
		hash = gnu_name_hash(y->name);
		if ((ch | 1) != (hash | 1) ||
		    !gnu_bloom_has(h, c->im->elfclass == ELFCLASS64 ? 64 : 32,
				   hash) ||
		    c->buckets[hash % h->nbuckets] != c->chain_start)
			return c->bad = true;
	}
	if (ch & 1)
		c->chain_start = i + 1;
	return 0;
}

/* Buckets read whole at most (4 MiB; libLLVM's 44,459 names take 11,115). */
#define GNU_MAX_BUCKETS (1u << 20)

static bool gnu_table_checked(const struct elfimage *im,
			      const struct elfimage_src *src,
			      const struct elfimage_gnuhash *h)
{
	struct gnu_check *c;
	bool ok;

	/* a walk's names read whole (not name by name, cut at 256 bytes and
	 * unbounded by the table), as a look-up reads them */
	if (h->nbuckets > GNU_MAX_BUCKETS || im->dynstr.size > STR_CACHE_MAX)
		return false;
	c = calloc(1, sizeof(*c));
	if (!c)
		return false;
	c->im = im;
	c->src = src;
	c->h = h;
	c->chain_start = h->symoffset;
	c->buckets = malloc(4 * (size_t)h->nbuckets);
	ok = c->buckets &&
	     elfimage_src_read(src, h->buckets, (void *)c->buckets,
			       4 * (size_t)h->nbuckets) ==
		     4 * (size_t)h->nbuckets &&
	     walk_syms(im, src, &im->dynsym, &im->dynstr, gnu_check_sym, c) ==
		     0 &&
	     !c->bad;
	free((void *)c->buckets);
	free(c);
	return ok;
}

bool elfimage_gnuhash_read(const struct elfimage *im,
			   const struct elfimage_src *src, struct arena *a,
			   struct elfimage_gnuhash *h)
{
	size_t esz = im->elfclass == ELFCLASS64 ? sizeof(Elf64_Sym)
						: sizeof(Elf32_Sym);
	size_t word = im->elfclass == ELFCLASS64 ? 8 : 4, i;
	uint32_t hdr[4];
	uint64_t nsym;
	unsigned char *raw;

	memset(h, 0, sizeof(*h));
	if (!im->gnu_hash || !im->dynsym.size || im->dynsym.entsize < esz ||
	    im->dynsym.entsize > ELFIMAGE_MAX_ENTSIZE ||
	    elfimage_src_read(src, im->gnu_hash, hdr, sizeof(hdr)) !=
		    sizeof(hdr))
		return false;
	nsym = im->dynsym.size / im->dynsym.entsize;
	h->nbuckets = hdr[0];
	h->symoffset = hdr[1];
	h->nbloom = hdr[2];
	h->shift = hdr[3];
	/* the dynamic linker masks with nbloom - 1 */
	if (!h->nbuckets || !h->nbloom || (h->nbloom & (h->nbloom - 1)) ||
	    h->nbloom > ELFIMAGE_MAX_GNU_BLOOM || h->symoffset > nsym ||
	    h->shift >= 8 * word)
		return false;
	h->buckets = im->gnu_hash + 16 + (uint64_t)h->nbloom * word;
	h->chains = h->buckets + 4 * (uint64_t)h->nbuckets;
	h->bloom = arena_alloc(a, h->nbloom * sizeof(*h->bloom));
	raw = malloc(h->nbloom * word);
	if (!h->bloom || !raw ||
	    elfimage_src_read(src, im->gnu_hash + 16, raw, h->nbloom * word) !=
		    h->nbloom * word) {
		free(raw);
		return false;
	}
	for (i = 0; i < h->nbloom; i++) {
		uint32_t w32;

		if (word == 8) {
			memcpy(&h->bloom[i], raw + i * 8, 8);
		} else {
			memcpy(&w32, raw + i * 4, 4);
			h->bloom[i] = w32;
		}
	}
	free(raw);
	return gnu_table_checked(im, src, h);
}

/* Whether symbol idx is defined and called name: 1, 0, or -1 when it
 * cannot be read. */
static int gnu_sym_is(const struct elfimage *im, const struct elfimage_src *src,
		      uint64_t idx, const char *name)
{
	const struct elfimage_table *sym = &im->dynsym, *str = &im->dynstr;
	unsigned char buf[ELFIMAGE_MAX_ENTSIZE];
	char got[NAME_MAX_LEN + 1];
	size_t len = strlen(name), n;
	struct elfimage_sym y;
	uint32_t noff;

	if (elfimage_src_read(src, sym->off + idx * sym->entsize, buf,
			      (size_t)sym->entsize) != sym->entsize)
		return -1;
	raw_sym(im->elfclass, buf, &y, &noff);
	if (y.shndx == SHN_UNDEF || noff >= str->size || len > NAME_MAX_LEN)
		return 0;
	/* the name and its NUL, within the table (a walk's strtab_get) */
	n = str->size - noff < len + 1 ? (size_t)(str->size - noff) : len + 1;
	if (elfimage_src_read(src, str->off + noff, got, n) != n)
		return -1;
	/* the last name of a table may end at its end, without a NUL */
	return (n == len + 1 && memcmp(got, name, len + 1) == 0) ||
	       (n == len && noff + len == str->size &&
		memcmp(got, name, len) == 0);
}

int elfimage_gnuhash_find(const struct elfimage *im,
			  const struct elfimage_src *src,
			  const struct elfimage_gnuhash *h, const char *name,
			  uint64_t *idx)
{
	unsigned bits = im->elfclass == ELFCLASS64 ? 64 : 32;
	uint32_t hash = gnu_name_hash(name), bucket, chain[16];
	uint64_t w = h->bloom[(hash / bits) & (h->nbloom - 1)], i;
	uint64_t nsym = im->dynsym.size / im->dynsym.entsize;
	uint64_t mask =
		(1ull << (hash % bits)) | (1ull << ((hash >> h->shift) % bits));

	if (strlen(name) > NAME_MAX_LEN)
		return -1; /* compared up to that length only */
	if ((w & mask) != mask)
		return 0;
	if (elfimage_src_read(src,
			      h->buckets + 4 * (uint64_t)(hash % h->nbuckets),
			      &bucket, 4) != 4)
		return -1;
	if (bucket == 0)
		return 0;
	if (bucket < h->symoffset)
		return -1;
	for (i = bucket;; i++) {
		size_t k = (size_t)((i - bucket) % 16);
		int is;

		if (i >= nsym)
			return -1; /* a chain without its end */
		if (k == 0) {
			size_t want = nsym - i < 16 ? (size_t)(nsym - i) : 16;

			if (elfimage_src_read(
				    src, h->chains + 4 * (i - h->symoffset),
				    chain, 4 * want) != 4 * want)
				return -1;
		}
		if ((chain[k] | 1) == (hash | 1)) {
			is = gnu_sym_is(im, src, i, name);
			if (is < 0)
				return -1;
			if (is) {
				*idx = i;
				return 1;
			}
		}
		if (chain[k] & 1)
			return 0;
	}
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
