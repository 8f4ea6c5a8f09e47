/* test_elfimage_first — where names are first defined
 * (elfimage_first_defined, elf/elfimage.h) against a walk of the symbols
 * (elfimage_symbols), on string tables made up to meet each edge of its
 * scan, which looks at the text 128 bytes at a time (two words of 64
 * bits) and keeps the NULs after a name's last byte until it compares
 * their names:
 *  - a name's NUL at each byte of the first three blocks (so at each
 *    byte of a word, and at each word's and block's end), its tails and
 *    the filler before it asked too, the table's first string empty or
 *    not;
 *  - words of many NULs ("c\0c\0...", "\0\0\0"): more NULs after a
 *    name's last byte in one chunk than are kept before a comparison;
 *  - a table whose last string has no NUL, its end at each byte of a
 *    block (the walk ends the string there), with bytes past the table;
 *  - tables of random text (a three-letter alphabet, so that names, their
 *    tails and near misses abound), of up to 600 KiB (across the 256 KiB
 *    chunks the table is read in), ELFIMAGE_MAX_FIND names, symbols at
 *    strings' starts, inside strings and past the table, some undefined.
 * Each: every name answered as the walk answers it.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elfimage.h"
#include "tap.h"

/* A table made up: symbols (name offset, defined or not) then the string
 * table's bytes, then `after` bytes past it, in one buffer. */
struct made {
	Elf64_Sym *sym;
	size_t nsym, cap;
	char *str;
	size_t len;
};

static void add_sym(struct made *m, uint64_t name, bool defined)
{
	if (m->nsym == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->sym = realloc(m->sym, m->cap * sizeof(*m->sym));
		if (!m->sym)
			abort();
	}
	memset(&m->sym[m->nsym], 0, sizeof(*m->sym));
	m->sym[m->nsym].st_name = (uint32_t)name;
	m->sym[m->nsym++].st_shndx = defined ? 1 : SHN_UNDEF;
}

/* The walk's answer for each name: first[k] the index + 1 of the first
 * defined symbol named so, 0 for none. */
struct walk {
	const char *const *names;
	size_t n;
	uint64_t at, *first;
};

static int walk_one(void *ctx, const struct elfimage_sym *y)
{
	struct walk *w = ctx;
	uint64_t i = w->at++;
	size_t k;

	for (k = 0; k < w->n; k++)
		if (y->shndx != SHN_UNDEF && !w->first[k] &&
		    strcmp(y->name, w->names[k]) == 0)
			w->first[k] = i + 1;
	return 0;
}

/* How many of names[0, n) elfimage_first_defined answers otherwise than
 * the walk, on m with `after` bytes of "x\0" past its string table; -1
 * when it cannot answer. */
static long vs_walk(const struct made *m, const char *const *names, size_t n,
		    size_t after)
{
	size_t symb = m->nsym * sizeof(*m->sym), k;
	unsigned char *b = malloc(symb + m->len + after + 1);
	uint64_t got[ELFIMAGE_MAX_FIND], want[ELFIMAGE_MAX_FIND] = { 0 };
	struct walk w = { names, n, 0, want };
	struct elfimage im = { 0 };
	struct elfimage_src src;
	long bad = 0;

	if (!b)
		abort();
	memcpy(b, m->sym, symb);
	memcpy(b + symb, m->str, m->len);
	for (k = 0; k < after; k++)
		b[symb + m->len + k] = k % 2 ? '\0' : 'x';
	im.elfclass = ELFCLASS64;
	im.dynsym = (struct elfimage_table){ 0, symb, sizeof(Elf64_Sym) };
	im.dynstr = (struct elfimage_table){ symb, m->len, 1 };
	src = elfimage_src_buf(b, symb + m->len + after, false);
	if (elfimage_first_defined(&im, &src, names, n, got) < 0) {
		free(b);
		return -1;
	}
	elfimage_symbols(&im, &src, walk_one, &w);
	for (k = 0; k < n; k++)
		if (got[k] != want[k] && bad++ < 3)
			printf("# %s: %llu, the walk %llu\n", names[k],
			       (unsigned long long)got[k],
			       (unsigned long long)want[k]);
	free(b);
	return bad;
}

/* "\0" (or "x" for an odd o) and `o` - 1 bytes of 'x' (a NUL every 50),
 * then "\0malloc\0lloc": the NUL after each string at each byte as o
 * goes (the first at 1 when o is 1); symbols at each string, their
 * tails, and undefined ones first. */
static void test_each_byte(void)
{
	static const char *const ask[] = { "malloc", "lloc", "c", "x", "xx",
					   "oc", "mallo" };
	long bad = 0;
	size_t o, k;

	for (o = 1; o <= 3 * 128 + 16; o++) {
		struct made m = { 0 };

		m.len = o + 13;
		if (!(m.str = calloc(1, m.len + 1)))
			abort();
		m.str[0] = o % 2 ? 'x' : '\0';
		for (k = 1; k < o; k++)
			m.str[k] = k % 50 ? 'x' : '\0';
		memcpy(m.str + o + 1, "malloc\0lloc", 12);
		add_sym(&m, o + 1, false);
		add_sym(&m, o + 3, true); /* "lloc", malloc's tail */
		add_sym(&m, o + 1, true);
		add_sym(&m, o + 8, true); /* "lloc" again */
		add_sym(&m, o + 11, true); /* "oc" */
		add_sym(&m, o - 1, true); /* "x", or "" */
		add_sym(&m, o >= 2 ? o - 2 : 0, true);
		add_sym(&m, 0, true); /* "x..." for an odd o */
		bad += vs_walk(&m, ask, sizeof(ask) / sizeof(*ask), 0) != 0;
		free(m.str);
		free(m.sym);
	}
	ok(bad == 0,
	   "a name's NUL at each byte of the first three 128-byte blocks: "
	   "each name as the walk answers it (%ld tables differ)",
	   bad);
}

/* "c\0" 5,000 times, 67 NULs more, then "abc\0bc\0" and "c\0" 300
 * times: more NULs after a name's last byte in one chunk than wait for
 * a comparison, and words of eight NULs. */
static void test_many_nuls(void)
{
	static const char *const ask[] = { "c", "bc", "abc", "cc", "b" };
	struct made m = { 0 };
	size_t k, at = 0;

	if (!(m.str = calloc(1, 2 * 5000 + 67 + 7 + 2 * 300)))
		abort();
	for (k = 0; k < 5000; k++, at += 2)
		m.str[at] = 'c';
	at += 3 + 64; /* NULs only */
	memcpy(m.str + at, "abc\0bc", 7);
	add_sym(&m, at + 4, false); /* "bc" undefined */
	add_sym(&m, 2 * 4999, false);
	add_sym(&m, 2 * 4000, true); /* "c", in the first chunk's middle */
	add_sym(&m, at + 1, true); /* "bc", abc's tail */
	add_sym(&m, at, true);
	at += 7;
	for (k = 0; k < 300; k++, at += 2)
		m.str[at] = 'c';
	m.len = at;
	add_sym(&m, at - 2, true);
	ok(vs_walk(&m, ask, sizeof(ask) / sizeof(*ask), 0) == 0,
	   "a table of 5,300 strings \"c\" (and 68 NULs in a row): each name "
	   "as the walk answers it");
	free(m.str);
	free(m.sym);
}

/* "\0", `t` bytes of 'y', "\0omega" with no NUL after it, then "x\0"
 * past the table: its end at each byte of the first two blocks. */
static void test_last_without_nul(void)
{
	static const char *const ask[] = { "omega", "mega", "a", "omegax",
					   "y" };
	long bad = 0;
	size_t t;

	for (t = 0; t <= 2 * 128 + 8; t++) {
		struct made m = { 0 };

		m.len = 1 + t + 6;
		if (!(m.str = calloc(1, m.len + 1)))
			abort();
		memset(m.str + 1, 'y', t);
		memcpy(m.str + 1 + t + 1, "omega", 5);
		add_sym(&m, 1 + t + 1, true);
		add_sym(&m, 1 + t + 2, true); /* "mega" */
		add_sym(&m, t ? t : 1, true); /* "y", or "" */
		add_sym(&m, m.len - 1, true); /* "a" */
		bad += vs_walk(&m, ask, sizeof(ask) / sizeof(*ask), 2) != 0;
		free(m.str);
		free(m.sym);
	}
	ok(bad == 0,
	   "a table whose last string has no NUL, its end at each byte of "
	   "the first two 128-byte blocks, bytes past it: each name as the "
	   "walk answers it (%ld tables differ)",
	   bad);
}

static unsigned next(unsigned *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Random text of "abc", strings of 0 to `maxlen` bytes, `size` bytes in
 * all (its last string without a NUL when `open_end`); names random
 * strings of the same letters and one long string of the table; symbols
 * at strings' starts, inside strings and past the table. */
static long random_table(unsigned *s, size_t size, size_t maxlen,
			 bool open_end, size_t nnames)
{
	char names[ELFIMAGE_MAX_FIND][300];
	const char *ask[ELFIMAGE_MAX_FIND];
	struct made m = { 0 };
	size_t at = 0, k, nsym;
	long bad;

	if (!(m.str = calloc(1, size + 1)))
		abort();
	while (at < size) {
		size_t len = next(s) % (maxlen + 1);

		if (at && next(s) % 2)
			add_sym(&m, at, next(s) % 4 != 0);
		for (k = 0; k < len && at < size; k++)
			m.str[at++] = "abc"[next(s) % 3];
		if (at < size)
			m.str[at++] = '\0';
	}
	if (!open_end)
		m.str[size - 1] = '\0';
	m.len = size;
	nsym = m.nsym;
	for (k = 0; k < nsym / 2 + 8; k++) /* inside strings, past the end */
		add_sym(&m, next(s) % (size + 16), next(s) % 3 != 0);
	for (k = 0; k < nnames; k++) {
		size_t len = 1 + next(s) % 6, j;

		for (j = 0; j < len; j++)
			names[k][j] = "abc"[next(s) % 3];
		names[k][len] = '\0';
		ask[k] = names[k];
	}
	if (size > 400) { /* a long one of the table's, maybe cut */
		size_t from = next(s) % (size - 300);

		snprintf(names[0], 260, "%s", m.str + from);
		if (!names[0][0])
			snprintf(names[0], 260, "abcab");
	}
	bad = vs_walk(&m, ask, nnames, open_end ? 3 : 0);
	free(m.str);
	free(m.sym);
	return bad;
}

static void test_random(void)
{
	unsigned s = tap_seed(20261201);
	long bad = 0, k;

	for (k = 0; k < 400; k++)
		bad += random_table(&s, 1 + next(&s) % 3000,
				    k % 4 == 0 ? 2 : 1 + next(&s) % 40,
				    next(&s) % 2, 1 + next(&s) % 16) != 0;
	for (k = 0; k < 6; k++)
		bad += random_table(&s, 256 * 1024 + next(&s) % (344 * 1024),
				    k % 2 ? 3 : 90, k % 3 == 0,
				    ELFIMAGE_MAX_FIND) != 0;
	ok(bad == 0,
	   "406 random tables (of \"abc\", up to 600 KiB, up to %d names): "
	   "each name as the walk answers it (%ld tables differ)",
	   ELFIMAGE_MAX_FIND, bad);
}

int main(void)
{
	test_each_byte();
	test_many_nuls();
	test_last_without_nul();
	test_random();
	return tap_done();
}
