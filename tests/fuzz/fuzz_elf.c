/* fuzz_elf.c — libFuzzer harness for the ELF reader (elfimage.h): headers,
 * sections, notes, the dynamic symbols and the RELA/REL/RELR relocations.
 *
 * The input is copied to a buffer of exactly its size, so ASan sees any
 * read past it (the contract: never outside buf[0, len)). The first byte's
 * low bit picks how offsets are read (a file, or a memory image as the
 * vDSO is). Every part is then asked for, as classify, the fork gadget
 * and the heap walker do, and the caps are checked.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <stdint.h>
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
		t.n = 0;
		(void)elfimage_relocs(&im, &src, on_reloc, &t);
		(void)elfimage_reloc_at(&im, &src, t.last, &r);
		(void)elfimage_relative_with_addend(&im, &src, 0x1000, &r);
	}
	arena_fini(&a);
	free(buf);
	return 0;
}
