/* fuzz_elf.c — libFuzzer harness for the ELF reader (elfimage.h): headers,
 * sections, notes, the dynamic symbols and the RELA/REL/RELR relocations,
 * and the GNU hash table's look-ups (elfimage_gnuhash_read/_find).
 *
 * The input is copied to a buffer of exactly its size, so ASan sees any
 * read past it (the contract: never outside buf[0, len)). The first byte's
 * low bit picks how offsets are read (a file, or a memory image as the
 * vDSO is). Every part is then asked for, as classify, the fork gadget
 * and the heap walker do, and the caps are checked. Where the GNU hash
 * table answers a name (found or not: not -1), the answer must be the
 * walk's (the first defined symbol of that name in the table), as
 * elfcache_defines_in relies on: a few fixed names, the names of the
 * table's first defined symbols, and a name taken from the input's last
 * bytes are asked; a disagreement aborts.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elfimage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
	size_t n;
	uint64_t last;
};

static int on_sym(void *ctx, const struct elfimage_sym *y)
{
	struct tally *t = ctx;

	if (!y->name || strlen(y->name) > 4096)
		abort();
	t->n++;
	return 0;
}

static int on_reloc(void *ctx, const struct elfimage_reloc *r)
{
	struct tally *t = ctx;

	if (r->kind == ELFIMAGE_RELR && !r->relative)
		abort(); /* RELR entries are relative by definition */
	t->n++;
	t->last = r->offset;
	return t->n > 100000; /* enough: the input is at most 64 KiB */
}

/* The walk's answer for one name: the index of the first defined symbol
 * called it; and the first few defined names met (to be asked). */
#define NAMES 8

struct walk {
	const char *want;
	uint64_t idx, found;
	char names[NAMES][64];
	size_t nnames;
};

static int on_walk(void *ctx, const struct elfimage_sym *y)
{
	struct walk *w = ctx;

	if (y->shndx != SHN_UNDEF && y->name[0]) {
		if (w->found == UINT64_MAX && w->want &&
		    strcmp(y->name, w->want) == 0)
			w->found = w->idx;
		if (!w->want && w->nnames < NAMES &&
		    strlen(y->name) < sizeof(w->names[0]))
			strcpy(w->names[w->nnames++], y->name);
	}
	w->idx++;
	return 0;
}

/* elfimage_gnuhash_find's answer for name against a walk's. */
static void check_name(const struct elfimage *im,
		       const struct elfimage_src *src,
		       const struct elfimage_gnuhash *h, const char *name)
{
	struct walk w = { name, 0, UINT64_MAX, { { 0 } }, 0 };
	uint64_t idx = UINT64_MAX;
	int rc = elfimage_gnuhash_find(im, src, h, name, &idx);

	if (rc < 0 || elfimage_symbols(im, src, on_walk, &w) < 0)
		return;
	if ((rc == 1) != (w.found != UINT64_MAX) ||
	    (rc == 1 && idx != w.found)) {
		fprintf(stderr,
			"fuzz_elf: GNU hash look-up of \"%s\": %d at %llu, "
			"the walk %llu\n",
			name, rc, (unsigned long long)idx,
			(unsigned long long)w.found);
		abort();
	}
}

static void check_gnuhash(const struct elfimage *im,
			  const struct elfimage_src *src, struct arena *a,
			  const uint8_t *data, size_t size)
{
	static const char *const fixed[] = { "syscall",	   "main_arena",
					     "mi_malloc",  "malloc",
					     "_PyRuntime", "main" };
	struct elfimage_gnuhash h;
	struct walk w = { NULL, 0, UINT64_MAX, { { 0 } }, 0 };
	char tail[17];
	size_t i, n;

	if (!elfimage_gnuhash_read(im, src, a, &h))
		return;
	if (!h.bloom || h.nbloom == 0 || (h.nbloom & (h.nbloom - 1)) ||
	    h.nbloom > ELFIMAGE_MAX_GNU_BLOOM)
		abort(); /* the contract: the filter read, a power of two */
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		check_name(im, src, &h, fixed[i]);
	(void)elfimage_symbols(im, src, on_walk, &w);
	for (i = 0; i < w.nnames; i++)
		check_name(im, src, &h, w.names[i]);
	/* the input's last bytes up to a NUL, as a name */
	n = size < 16 ? size : 16;
	memcpy(tail, data + size - n, n);
	tail[n] = '\0';
	if (tail[0])
		check_name(im, src, &h, tail);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	struct elfimage_src src;
	struct elfimage_reloc r;
	struct elfimage_sym y;
	struct tally t = { 0, 0 };
	struct arena a;
	struct elfimage im;
	struct vms_error err;
	uint64_t bias, off;
	size_t i;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	src = elfimage_src_buf(buf, size, size > 0 && (data[size - 1] & 1));
	arena_init(&a);
	if (elfimage_read(&src, &a, &im, &err) == 0) {
		if (im.is_image && im.nload == 0)
			abort(); /* contract: an image has PT_LOAD segments */
		if (im.nsec > ELFIMAGE_MAX_SECTIONS ||
		    im.nsec > im.nsec_alloc ||
		    (im.nsec < im.nsec_alloc && !im.sec_capped) ||
		    im.note_bytes > ELFIMAGE_MAX_NOTE_BYTES)
			abort(); /* the caps */
		for (i = 0; i < im.nsec; i++)
			if (!im.sec[i].name)
				abort();
		if (im.build_id && strlen(im.build_id) % 2)
			abort();
		(void)elfimage_end(&im);
		(void)elfimage_bias(&im, 0x7f0000000000ull, 0, &bias);
		(void)elfimage_vaddr_offset(&im, &src, 0x1000, 8, &off);
		(void)elfimage_symbols(&im, &src, on_sym, &t);
		(void)elfimage_symbol(&im, &src, "syscall", &y);
		check_gnuhash(&im, &src, &a, data, size);
		t.n = 0;
		(void)elfimage_relocs(&im, &src, on_reloc, &t);
		(void)elfimage_reloc_at(&im, &src, t.last, &r);
		(void)elfimage_relative_with_addend(&im, &src, 0x1000, &r);
	}
	arena_fini(&a);
	free(buf);
	return 0;
}
