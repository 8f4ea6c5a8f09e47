/* fuzz_elf.c — libFuzzer harness for the ELF reader (elfimage.h): headers,
 * sections, notes, the dynamic symbols and the RELA/REL/RELR relocations,
 * and where names are first defined (elfimage_first_defined).
 *
 * The input is copied to a buffer of exactly its size, so ASan sees any
 * read past it (the contract: never outside buf[0, len)). The first byte's
 * low bit picks how offsets are read (a file, or a memory image as the
 * vDSO is). Every part is then asked for, as classify, the fork gadget
 * and the heap walker do, and the caps are checked. Where
 * elfimage_first_defined answers (not -1), each answer must be the walk's
 * (the first defined symbol of that name in the table), as
 * elfcache_defines_in relies on: a few fixed names, the names of the
 * table's first defined symbols and their tails, and a name taken from
 * the input's last bytes are asked at once; a disagreement aborts.
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

/* The walk's answer for name: its first defined symbol's index + 1, 0
 * none; UINT64_MAX when the walk fails. */
static uint64_t walk_first(const struct elfimage *im,
			   const struct elfimage_src *src, const char *name)
{
	struct walk w = { name, 0, UINT64_MAX, { { 0 } }, 0 };

	if (elfimage_symbols(im, src, on_walk, &w) < 0)
		return UINT64_MAX;
	return w.found == UINT64_MAX ? 0 : w.found + 1;
}

static void check_first(const struct elfimage *im,
			const struct elfimage_src *src, const uint8_t *data,
			size_t size)
{
	static const char *const fixed[] = { "syscall",	   "main_arena",
					     "mi_malloc",  "malloc",
					     "_PyRuntime", "main" };
	struct walk w = { NULL, 0, UINT64_MAX, { { 0 } }, 0 };
	const char *ask[32];
	uint64_t got[32], want;
	char tail[17];
	size_t i, n = 0, k;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		ask[n++] = fixed[i];
	(void)elfimage_symbols(im, src, on_walk, &w);
	for (i = 0; i < w.nnames; i++) {
		ask[n++] = w.names[i];
		if (w.names[i][1]) /* its tail */
			ask[n++] = w.names[i] + 1;
	}
	/* the input's last bytes up to a NUL, as a name */
	k = size < 16 ? size : 16;
	memcpy(tail, data + size - k, k);
	tail[k] = '\0';
	if (tail[0])
		ask[n++] = tail;
	if (elfimage_first_defined(im, src, ask, n, got) < 0)
		return;
	for (i = 0; i < n; i++) {
		want = walk_first(im, src, ask[i]);
		if (want != UINT64_MAX && got[i] != want) {
			fprintf(stderr,
				"fuzz_elf: \"%s\" first defined at %llu, the "
				"walk %llu (index + 1)\n",
				ask[i], (unsigned long long)got[i],
				(unsigned long long)want);
			abort();
		}
	}
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
		check_first(&im, &src, data, size);
		t.n = 0;
		(void)elfimage_relocs(&im, &src, on_reloc, &t);
		(void)elfimage_reloc_at(&im, &src, t.last, &r);
		(void)elfimage_relative_with_addend(&im, &src, 0x1000, &r);
	}
	arena_fini(&a);
	free(buf);
	return 0;
}
