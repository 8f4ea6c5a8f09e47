/* elfimage.h — what libelf says about a mapped file: is it an executable
 * image, its allocated sections, its loadable segments, its build id.
 *
 * Contract: elfimage_parse() takes a buffer (the file's bytes), never a pid
 * or a path, so it can be tested and fuzzed; it never reads outside
 * buf[0, len). elfimage_load() maps a file descriptor read-only and parses
 * it. Names and arrays live in the arena given. A file that is not ELF is
 * not an error: out->is_image is false.
 */
#ifndef VMS_ELFIMAGE_H
#define VMS_ELFIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "error.h"

struct elfimage_section {
	const char *name;
	uint64_t addr, size;
	bool nobits; /* .bss and the like: no bytes in the file */
};

struct elfimage_load {
	uint64_t vaddr, memsz, offset, filesz;
	uint32_t flags; /* PF_R | PF_W | PF_X */
};

struct elfimage {
	bool is_image; /* ELF, ET_EXEC or ET_DYN, with PT_LOAD segments */
	uint16_t e_type;
	struct elfimage_section *sec; /* SHF_ALLOC sections, by address */
	size_t nsec;
	struct elfimage_load *load;
	size_t nload;
	const char *build_id; /* lowercase hex, or NULL */
};

int elfimage_parse(const void *buf, size_t len, struct arena *a,
		   struct elfimage *out, struct vms_error *err);
/* Parses the file open at fd. -1 with *err only when the file cannot be
 * read at all; a non-ELF file returns 0 with is_image false. */
int elfimage_load(int fd, struct arena *a, struct elfimage *out,
		  struct vms_error *err);

/* The load bias of a mapping of this image that starts at map_start with
 * file offset map_offset: runtime address = vaddr + bias. Returns false when
 * no PT_LOAD covers that offset. */
bool elfimage_bias(const struct elfimage *im, uint64_t map_start,
		   uint64_t map_offset, uint64_t *bias);

/* The end of the image in memory (highest PT_LOAD vaddr+memsz), unbiased. */
uint64_t elfimage_end(const struct elfimage *im);

#endif
