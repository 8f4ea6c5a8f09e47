/* elfgen.h — builds small ELF64 shared objects (host byte order) with
 * exactly the parts a test asks for: N allocated sections, a RELR and a
 * RELA table behind PT_DYNAMIC, notes behind PT_NOTE (which may claim the
 * rest of a file grown sparse). Used by the unit tests and by the
 * targets that build hostile files at test time (tests/targets/elf_*.c).
 *
 * Layout, one PT_LOAD with vaddr == file offset:
 *   0x0000  ELF header, program headers (LOAD, DYNAMIC, NOTE)
 *   0x0200  dynamic array
 *   0x1000  DATA: 0x2000 bytes, the word at vaddr v holds v + 0x100000
 *           (the implicit addend a RELR entry for v reads)
 *   0x3000  RELR words, then RELA entries, then the notes
 *   then    .shstrtab and the section headers
 * The sections are named ".s" and lie over DATA, 8 bytes each, cycling.
 */
#ifndef VMS_TEST_ELFGEN_H
#define VMS_TEST_ELFGEN_H

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ELFGEN_DATA 0x1000u
#define ELFGEN_DATA_SIZE 0x2000u
#define ELFGEN_ADDEND(v) ((v) + 0x100000u)

struct elfgen {
	size_t nsec; /* allocated sections */
	const uint64_t *relr; /* RELR words */
	size_t nrelr;
	const Elf64_Rela *rela;
	size_t nrela;
	const unsigned char *note; /* note bytes written */
	size_t notelen;
	uint64_t note_end; /* PT_NOTE runs to this file offset (a file grown
			    * sparse to it: the whole file); 0: notelen */
};

static inline unsigned char *elfgen_build(const struct elfgen *g, size_t *len)
{
	size_t relr_off = 0x3000, rela_off = relr_off + g->nrelr * 8;
	size_t note_off = rela_off + g->nrela * sizeof(Elf64_Rela);
	size_t str_off = (note_off + g->notelen + 7) & ~(size_t)7;
	static const char strs[] = "\0.s\0.shstrtab";
	size_t sh_off = (str_off + sizeof(strs) + 7) & ~(size_t)7;
	size_t nsh = g->nsec + 2, i, n = 0;
	size_t total = sh_off + nsh * sizeof(Elf64_Shdr);
	unsigned char *b = calloc(1, total);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	Elf64_Phdr ph[3];
	Elf64_Dyn dyn[8];
	Elf64_Shdr sh;

	if (!b)
		return NULL;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	{
		const uint16_t probe = 1;

		eh->e_ident[EI_DATA] =
			*(const uint8_t *)&probe ? ELFDATA2LSB : ELFDATA2MSB;
	}
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = sh_off;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = 3;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = nsh < SHN_LORESERVE ? (uint16_t)nsh : 0;
	eh->e_shstrndx =
		(uint16_t)(nsh - 1 < SHN_LORESERVE ? nsh - 1 : SHN_XINDEX);
	memset(ph, 0, sizeof(ph));
	ph[0] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_W, 0,	   0,
			      0,       total,	    total, 0x1000 };
	ph[1] = (Elf64_Phdr){ PT_DYNAMIC, PF_R,	       0x200,	    0x200,
			      0x200,	  sizeof(dyn), sizeof(dyn), 8 };
	ph[2] = (Elf64_Phdr){ PT_NOTE,
			      PF_R,
			      note_off,
			      note_off,
			      note_off,
			      g->note_end ? g->note_end - note_off : g->notelen,
			      g->note_end ? g->note_end - note_off : g->notelen,
			      4 };
	memcpy(b + sizeof(*eh), ph, sizeof(ph));
	memset(dyn, 0, sizeof(dyn));
	if (g->nrelr) {
		dyn[n++] = (Elf64_Dyn){ 36, { relr_off } }; /* DT_RELR */
		dyn[n++] = (Elf64_Dyn){ 35, { g->nrelr * 8 } };
		dyn[n++] = (Elf64_Dyn){ 37, { 8 } };
	}
	if (g->nrela) {
		dyn[n++] = (Elf64_Dyn){ DT_RELA, { rela_off } };
		dyn[n++] = (Elf64_Dyn){ DT_RELASZ,
					{ g->nrela * sizeof(Elf64_Rela) } };
		dyn[n++] = (Elf64_Dyn){ DT_RELAENT, { sizeof(Elf64_Rela) } };
	}
	memcpy(b + 0x200, dyn, sizeof(dyn));
	for (i = 0; i < ELFGEN_DATA_SIZE; i += 8) {
		uint64_t v = ELFGEN_ADDEND(ELFGEN_DATA + i);

		memcpy(b + ELFGEN_DATA + i, &v, 8);
	}
	if (g->nrelr)
		memcpy(b + relr_off, g->relr, g->nrelr * 8);
	if (g->nrela)
		memcpy(b + rela_off, g->rela, g->nrela * sizeof(Elf64_Rela));
	if (g->notelen)
		memcpy(b + note_off, g->note, g->notelen);
	memcpy(b + str_off, strs, sizeof(strs));
	memset(&sh, 0, sizeof(sh));
	if (nsh >= SHN_LORESERVE) {
		sh.sh_size = nsh; /* extended numbering */
		sh.sh_link = (uint32_t)(nsh - 1);
	}
	memcpy(b + sh_off, &sh, sizeof(sh));
	for (i = 0; i < g->nsec; i++) {
		memset(&sh, 0, sizeof(sh));
		sh.sh_name = 1;
		sh.sh_type = SHT_PROGBITS;
		sh.sh_flags = SHF_ALLOC;
		sh.sh_addr = ELFGEN_DATA + (i * 8) % ELFGEN_DATA_SIZE;
		sh.sh_offset = sh.sh_addr;
		sh.sh_size = 8;
		memcpy(b + sh_off + (i + 1) * sizeof(sh), &sh, sizeof(sh));
	}
	memset(&sh, 0, sizeof(sh));
	sh.sh_name = 4;
	sh.sh_type = SHT_STRTAB;
	sh.sh_offset = str_off;
	sh.sh_size = sizeof(strs);
	memcpy(b + sh_off + (nsh - 1) * sizeof(sh), &sh, sizeof(sh));
	*len = total;
	return b;
}

/* A GNU build-id note with a 20-byte id whose bytes are 0x11..0x24. */
static inline size_t elfgen_build_id_note(unsigned char *out)
{
	uint32_t h[3] = { 4, 20, NT_GNU_BUILD_ID };
	size_t i;

	memcpy(out, h, 12);
	memcpy(out + 12, "GNU", 4);
	for (i = 0; i < 20; i++)
		out[16 + i] = (unsigned char)(0x11 + i);
	return 36;
}

#endif
