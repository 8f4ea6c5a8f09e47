/* test_elfimage_bounds.c — the reader's caps and its relocation decoding,
 * on ELF files built here (elfgen.h) with known contents:
 *  - allocated sections past ELFIMAGE_MAX_SECTIONS are counted, not kept,
 *    and the image says so; section headers past ELFIMAGE_MAX_SHDRS are not
 *    looked at (extended numbering);
 *  - a PT_NOTE claiming 8 GB of a sparse file: at most
 *    ELFIMAGE_MAX_NOTE_BYTES are read (the reader's count, and the bytes
 *    this process read, from /proc/self/io);
 *  - RELR words decode to the addresses the encoding gives, with their
 *    implicit addends read from the file; RELA entries come with theirs;
 *    lookups by target address and by addend find them.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfgen.h"
#include "elf/elfimage.h"
#include "tap.h"

static int parse(const unsigned char *b, size_t len, struct arena *a,
		 struct elfimage *im)
{
	struct vms_error err;

	arena_init(a);
	return elfimage_parse(b, len, a, im, &err);
}

static void test_section_cap(void)
{
	struct elfgen g = { 0 };
	struct arena a;
	struct elfimage im;
	unsigned char *b;
	size_t len;

	g.nsec = 10;
	b = elfgen_build(&g, &len);
	ok(parse(b, len, &a, &im) == 0 && im.is_image && im.nsec == 10 &&
		   im.nsec_alloc == 10 && !im.sec_capped,
	   "10 sections: all kept (%zu), not capped", im.nsec);
	arena_fini(&a);
	free(b);

	g.nsec = 3000;
	b = elfgen_build(&g, &len);
	ok(parse(b, len, &a, &im) == 0 && im.is_image &&
		   im.nsec == ELFIMAGE_MAX_SECTIONS,
	   "3000 sections: %zu kept, the cap %d", im.nsec,
	   ELFIMAGE_MAX_SECTIONS);
	ok(im.nsec_alloc == 3000 && im.sec_capped,
	   "3000 sections: all %zu counted, marked capped", im.nsec_alloc);
	ok(im.nsec && strcmp(im.sec[0].name, ".s") == 0 &&
		   im.sec[0].name == im.sec[im.nsec - 1].name,
	   "kept sections are named, the name stored once");
	arena_fini(&a);
	free(b);

	/* Past SHN_LORESERVE: the count is in section 0 (extended). */
	g.nsec = 70000;
	b = elfgen_build(&g, &len);
	ok(parse(b, len, &a, &im) == 0 &&
		   im.nsec_alloc == ELFIMAGE_MAX_SHDRS - 1 && im.sec_capped &&
		   im.nsec == ELFIMAGE_MAX_SECTIONS,
	   "70000 sections (extended numbering): %zu headers looked at, "
	   "%zu kept",
	   im.nsec_alloc + 1, im.nsec);
	arena_fini(&a);
	free(b);
}

/* Bytes this process has read (read, pread ...), from /proc/self/io. */
static unsigned long long rchar(void)
{
	char line[128];
	unsigned long long v = 0;
	FILE *f = fopen("/proc/self/io", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "rchar: %llu", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/* A file of the bytes b, grown (sparse) to size; its fd, or -1. */
static int sparse_file(const unsigned char *b, size_t len, uint64_t size)
{
	char path[] = "/tmp/vms-elfnote-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	if (write(fd, b, len) != (ssize_t)len ||
	    ftruncate(fd, (off_t)size) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void test_sparse_note(void)
{
	const uint64_t big = 8ull << 30;
	unsigned char note[200000];
	struct elfgen g = { 0 };
	struct arena a;
	struct elfimage im;
	struct vms_error err;
	unsigned long long before, read_bytes;
	unsigned char *b;
	size_t len, n;
	int fd;

	/* The build id first, then the claim runs to the end of 8 GB. */
	n = elfgen_build_id_note(note);
	g.note = note;
	g.notelen = n;
	g.note_end = big; /* to the end of the 8 GB */
	b = elfgen_build(&g, &len);
	fd = sparse_file(b, len, big);
	ok(fd >= 0, "an 8 GB sparse file");
	if (fd < 0) {
		free(b);
		return;
	}
	arena_init(&a);
	before = rchar();
	ok(elfimage_load(fd, NULL, &a, &im, &err) == 0 && im.is_image,
	   "sparse: read as an image");
	read_bytes = rchar() - before;
	ok(im.build_id &&
		   strcmp(im.build_id,
			  "1112131415161718191a1b1c1d1e1f2021222324") == 0,
	   "sparse: the build id at the note's start is found (%s)",
	   im.build_id ? im.build_id : "none");
	ok(im.note_bytes <= ELFIMAGE_MAX_NOTE_BYTES && im.notes_capped,
	   "sparse: %llu note bytes read (cap %d), marked capped",
	   (unsigned long long)im.note_bytes, ELFIMAGE_MAX_NOTE_BYTES);
	ok(read_bytes < (2u << 20),
	   "sparse: the whole load read %llu bytes of the 8 GB file",
	   read_bytes);
	arena_fini(&a);
	close(fd);
	free(b);

	/* A big note before the build id: the id lies past the cap. */
	{
		uint32_t h[3] = { 4, 150000, 1 };

		memset(note, 0, sizeof(note));
		memcpy(note, h, 12);
		memcpy(note + 12, "XYZ", 4);
		n = 16 + 150000;
		n += elfgen_build_id_note(note + n);
	}
	g.notelen = n;
	g.note_end = 0;
	b = elfgen_build(&g, &len);
	arena_init(&a);
	ok(elfimage_parse(b, len, &a, &im, &err) == 0 && !im.build_id &&
		   im.notes_capped && im.note_bytes == ELFIMAGE_MAX_NOTE_BYTES,
	   "a note past the cap is not read: %llu bytes, build id %s",
	   (unsigned long long)im.note_bytes,
	   im.build_id ? im.build_id : "none");
	arena_fini(&a);
	free(b);
}

struct collect {
	struct elfimage_reloc r[64];
	size_t n;
};

static int collect(void *ctx, const struct elfimage_reloc *r)
{
	struct collect *c = ctx;

	if (c->n < 64)
		c->r[c->n] = *r;
	c->n++;
	return 0;
}

static void test_relocs(void)
{
	/* 0x1000; then a bitmap: bits 1, 3 and 63 -> 0x1008, 0x1018,
	 * 0x11f8; then 0x2000 and a bitmap with bit 2 -> 0x2010. */
	static const uint64_t relr[] = { 0x1000,
					 1 | (1ull << 1) | (1ull << 3) |
						 (1ull << 63),
					 0x2000, 1 | (1ull << 2) };
	static const uint64_t want[] = { 0x1000, 0x1008, 0x1018,
					 0x11f8, 0x2000, 0x2010 };
	Elf64_Rela rela[2] = {
		{ 0x1100, ELF64_R_INFO(0, R_X86_64_RELATIVE), 0x5555 },
		{ 0x1108, ELF64_R_INFO(3, R_X86_64_64), 8 },
	};
	struct elfgen g = { 0 };
	struct elfimage_src src;
	struct elfimage_reloc r;
	struct collect c = { .n = 0 };
	struct arena a;
	struct elfimage im;
	unsigned char *b;
	size_t len, i, bad = 0;

	g.relr = relr;
	g.nrelr = 4;
	g.rela = rela;
	g.nrela = 2;
	b = elfgen_build(&g, &len);
	src = elfimage_src_buf(b, len, false);
	ok(parse(b, len, &a, &im) == 0 && im.relr.size == 32 &&
		   im.rela.size == 2 * sizeof(Elf64_Rela),
	   "DT_RELR and DT_RELA found through PT_DYNAMIC");
	ok(elfimage_relocs(&im, &src, collect, &c) == 0 && c.n == 8,
	   "8 relocations: 2 RELA, 6 from 4 RELR words (got %zu)", c.n);
	for (i = 0; i < 6 && c.n == 8; i++) {
		const struct elfimage_reloc *x = &c.r[2 + i];

		if (x->kind != ELFIMAGE_RELR || x->offset != want[i] ||
		    !x->relative || !x->addend_known ||
		    x->addend != (int64_t)ELFGEN_ADDEND(want[i]) ||
		    x->type != R_X86_64_RELATIVE)
			bad++;
	}
	ok(c.n == 8 && !bad,
	   "RELR: the encoded addresses, in order, with the file's addends");
	ok(c.n == 8 && c.r[0].kind == ELFIMAGE_RELA && c.r[0].relative &&
		   c.r[0].addend == 0x5555 && !c.r[1].relative &&
		   c.r[1].sym == 3 && c.r[1].type == R_X86_64_64,
	   "RELA: type, symbol and addend as written");
	ok(elfimage_reloc_at(&im, &src, 0x1108, &r) &&
		   r.kind == ELFIMAGE_RELA && r.addend == 8,
	   "reloc_at 0x1108: the RELA entry");
	ok(elfimage_reloc_at(&im, &src, 0x11f8, &r) && r.kind == ELFIMAGE_RELR,
	   "reloc_at 0x11f8: a RELR bitmap bit (63rd)");
	ok(!elfimage_reloc_at(&im, &src, 0x1010, &r), "reloc_at 0x1010: none");
	ok(elfimage_relative_with_addend(&im, &src, 0x5555, &r) &&
		   r.offset == 0x1100,
	   "relative with addend 0x5555: at 0x1100 (RELA)");
	ok(elfimage_relative_with_addend(&im, &src, ELFGEN_ADDEND(0x2010),
					 &r) &&
		   r.offset == 0x2010 && r.kind == ELFIMAGE_RELR,
	   "relative with addend 0x%x: at 0x2010 (RELR, implicit)",
	   ELFGEN_ADDEND(0x2010));
	ok(!elfimage_relative_with_addend(&im, &src, 8, &r),
	   "an addend of a non-relative relocation is not a match");
	arena_fini(&a);
	free(b);
}

int main(void)
{
	test_section_cap();
	test_sparse_note();
	test_relocs();
	return tap_done();
}
