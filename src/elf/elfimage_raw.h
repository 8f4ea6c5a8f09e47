/* elfimage_raw.h — private to elfimage.c and elfimage_dyn.c: ELF headers
 * of either class read into one shape (host byte order only).
 *
 * Contract: elfraw_ehdr() returns -1 for anything that is not an ELF file
 * of the host's byte order with a header the reader can use; the others
 * decode bytes the caller has read, of the size the class says.
 */
#ifndef VMS_ELFIMAGE_RAW_H
#define VMS_ELFIMAGE_RAW_H

#include <stdint.h>

#include "elf/elfimage.h"

struct elfraw_ehdr {
	uint8_t cls;
	uint16_t type, machine;
	uint64_t phoff, shoff;
	uint16_t phentsize, shentsize;
	uint32_t phnum, shnum, shstrndx;
};

struct elfraw_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz, align;
};

struct elfraw_shdr {
	uint32_t name, type, link;
	uint64_t flags, addr, offset, size, entsize;
};

int elfraw_ehdr(const struct elfimage_src *src, struct elfraw_ehdr *eh);
void elfraw_phdr(const struct elfraw_ehdr *eh, const unsigned char *b,
		 struct elfraw_phdr *ph);

#endif
