/* elfimage.h — the one ELF reader: is a mapped file an executable image,
 * its allocated sections, its loadable segments, its build id, its dynamic
 * symbols and its dynamic relocations (RELA, REL, RELR).
 *
 * Contract:
 *  - Bytes come from a source (struct elfimage_src): a file descriptor read
 *    with pread (never mmapped: a file truncated meanwhile gives short
 *    reads, not a SIGBUS), or a buffer, which is never read outside
 *    buf[0, size). Never a pid or a path: callers open the file.
 *  - Work and memory are bounded by the caps below, not by what the file
 *    claims: headers, notes and tables are read with bounded preads (a
 *    PT_NOTE or a table claiming 8 GB of a sparse file costs at most the
 *    cap). What is left out is said in the result (sec_capped,
 *    notes_capped), never silently.
 *  - Only files of the host's byte order are read (the only ones a process
 *    here can have loaded); ELFCLASS32 and ELFCLASS64 both.
 *  - elfimage_read() fills a struct elfimage whose arrays and names live in
 *    the arena given, only what is kept (section names interned: a name
 *    costs one copy however many sections have it). A file that is not ELF is
 *    not an error: out->is_image is false. It returns -1 only on out of
 *    memory or when the source cannot be read at all.
 *  - The symbol and relocation functions read the source again on each
 *    call (nothing of them is kept): the source must be the one the image
 *    was read from. They allocate only bounded scratch memory, freed
 *    before they return.
 *
 * libelf is not used here: with ELF_C_READ it still allocates per section
 * the header claims at elf_begin() and reads whole sections and note
 * segments at elf_getdata()/elf_getdata_rawchunk(), neither bounded by
 * anything but the file's (sparse) size.
 */
#ifndef VMS_ELFIMAGE_H
#define VMS_ELFIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"

struct stat;

/* Allocated sections kept per file; the rest are counted, not kept. */
#define ELFIMAGE_MAX_SECTIONS 1024
/* Section headers looked at per file (16,384 x 64 bytes = 1 MiB read;
 * linked images have tens). */
#define ELFIMAGE_MAX_SHDRS 16384
/* Program headers read (the kernel refuses tables over 64 KiB). */
#define ELFIMAGE_MAX_PHDRS 2048
/* Note bytes read per file, over all PT_NOTE segments / SHT_NOTE
 * sections (a build id note is 36 bytes). */
#define ELFIMAGE_MAX_NOTE_BYTES 65536
/* Bytes of one dynamic table (symbols, strings, relocations) read. */
#define ELFIMAGE_MAX_TABLE_BYTES (64u << 20)
/* The largest entry size of a table taken (a symbol is 24 bytes, a RELA
 * entry 24): a table whose entries claim more is not read. */
#define ELFIMAGE_MAX_ENTSIZE 256

/* Where the bytes come from. */
struct elfimage_src {
	int fd; /* read with pread when buf is NULL */
	const unsigned char *buf;
	uint64_t size; /* bytes in buf, or the file's size */
	/* A memory image (the loader's mapping copied out of a process, the
	 * vDSO): offsets are address offsets from the first PT_LOAD, not file
	 * offsets. */
	bool is_memory;
};

struct elfimage_section {
	const char *name;
	uint64_t addr, size;
	bool nobits; /* .bss and the like: no bytes in the file */
};

struct elfimage_load {
	uint64_t vaddr, memsz, offset, filesz;
	uint32_t flags; /* PF_R | PF_W | PF_X */
};

/* A dynamic table's place in the source (size 0: absent). */
struct elfimage_table {
	uint64_t off, size, entsize;
};

struct elfimage {
	bool is_image; /* ELF, ET_EXEC or ET_DYN, with PT_LOAD segments */
	uint16_t e_type, machine;
	uint8_t elfclass; /* ELFCLASS32 or ELFCLASS64 */
	struct elfimage_section *sec; /* SHF_ALLOC sections, by address */
	size_t nsec;
	size_t nsec_alloc; /* allocated sections in the headers looked at */
	bool sec_capped; /* nsec < nsec_alloc, or headers past the cap */
	struct elfimage_load *load;
	size_t nload;
	const char *build_id; /* lowercase hex, or NULL */
	uint64_t note_bytes; /* note bytes read (<= ELFIMAGE_MAX_NOTE_BYTES) */
	bool notes_capped; /* notes past the cap were not read */
	/* From PT_DYNAMIC (or the section headers when there is none): */
	struct elfimage_table dynsym, dynstr, rela, rel, jmprel, relr;
	bool jmprel_is_rela;
	/* From the section headers: the full symbol table (SHT_SYMTAB) and
	 * its string table, as a detached debug file keeps them. */
	struct elfimage_table symtab, strtab;
};

/* The source of a file open at fd: size from fstat. -1 with *err when it
 * cannot be stat'ed or is not a regular file. */
int elfimage_src_fd(int fd, struct elfimage_src *src, struct vms_error *err);
/* The source of a buffer; is_memory as in struct elfimage_src. */
struct elfimage_src elfimage_src_buf(const void *buf, size_t len,
				     bool is_memory);
/* Reads up to n bytes at off into dst (pread, retried on EINTR); returns
 * how many were read: fewer at the end of the source or on an error. */
size_t elfimage_src_read(const struct elfimage_src *src, uint64_t off,
			 void *dst, size_t n);

int elfimage_read(const struct elfimage_src *src, struct arena *a,
		  struct elfimage *out, struct vms_error *err);
/* Shorthands: a buffer holding a file's bytes (for tests and fuzzing),
 * a file open at fd (a non-regular file is not an image) whose fstat is
 * st when the caller has it (its size read from there), else NULL (fstat
 * asked here). */
int elfimage_parse(const void *buf, size_t len, struct arena *a,
		   struct elfimage *out, struct vms_error *err);
int elfimage_load(int fd, const struct stat *st, struct arena *a,
		  struct elfimage *out, struct vms_error *err);

/* The load bias of a mapping of this image that starts at map_start with
 * file offset map_offset: runtime address = vaddr + bias. Returns false when
 * no PT_LOAD covers that offset. */
bool elfimage_bias(const struct elfimage *im, uint64_t map_start,
		   uint64_t map_offset, uint64_t *bias);

/* The end of the image in memory (highest PT_LOAD vaddr+memsz), unbiased. */
uint64_t elfimage_end(const struct elfimage *im);

/* Where vaddr[0, len) lies in the source: a file offset (or, for a memory
 * image, the offset from the first PT_LOAD). False when it is not all in
 * one PT_LOAD's file part. */
bool elfimage_vaddr_offset(const struct elfimage *im,
			   const struct elfimage_src *src, uint64_t vaddr,
			   uint64_t len, uint64_t *off);

/* ---- dynamic symbols (elfimage_dyn.c) ---- */

struct elfimage_sym {
	const char *name; /* valid during the callback only */
	uint64_t value, size; /* value unbiased */
	uint8_t type, bind; /* STT_*, STB_* */
	uint16_t shndx;
};

/* Calls fn for each dynamic symbol, in table order, until fn returns
 * non-zero (that value is returned). 0 when all were seen, -1 on out of
 * memory. */
int elfimage_symbols(const struct elfimage *im, const struct elfimage_src *src,
		     int (*fn)(void *ctx, const struct elfimage_sym *sym),
		     void *ctx);
/* The defined dynamic symbol called name (its name pointer is NULL on
 * return). False when there is none. */
bool elfimage_symbol(const struct elfimage *im, const struct elfimage_src *src,
		     const char *name, struct elfimage_sym *out);

/* Names asked of elfimage_first_defined at once, at most. */
#define ELFIMAGE_MAX_FIND 64

/* Where each of names[0, n) (n <= ELFIMAGE_MAX_FIND, none empty) is first
 * defined, as a walk of the dynamic symbols in table order finds it
 * (elfimage_symbols: a defined symbol whose name, the string table's
 * text at its offset, is the name): first[k] that symbol's index + 1, 0
 * when there is none. Found from the string table, where each
 * name's bytes end as a string does (the one place a symbol named so can
 * point to: a name may be the tail of a longer one), the table read in
 * chunks of 256 KiB, whatever its size; the symbols are read only when
 * one is found so, and only their offsets compared. 0, or -1
 * (first[] then not to be read) on out of memory, too many names or an
 * empty one. Nothing of the GNU hash table is used: the text and the
 * symbols are what a walk reads. */
int elfimage_first_defined(const struct elfimage *im,
			   const struct elfimage_src *src,
			   const char *const *names, size_t n, uint64_t *first);

/* The same over the full symbol table (.symtab, section headers), as a
 * detached debug file has it: local symbols such as glibc's main_arena. */
int elfimage_symtab_symbols(
	const struct elfimage *im, const struct elfimage_src *src,
	int (*fn)(void *ctx, const struct elfimage_sym *sym), void *ctx);

/* ---- dynamic relocations (elfimage_dyn.c) ---- */

enum elfimage_reloc_kind { ELFIMAGE_RELA, ELFIMAGE_REL, ELFIMAGE_RELR };

struct elfimage_reloc {
	enum elfimage_reloc_kind kind;
	uint64_t offset; /* the address it writes, unbiased */
	uint32_t type; /* R_*; RELR: the machine's relative type */
	uint32_t sym; /* symbol index, 0 for relative ones */
	int64_t addend; /* RELA: r_addend; REL, RELR: the word in the file */
	bool addend_known; /* false when the implicit addend is not in the
			    * source (a target in .bss, a cut file) */
	bool relative; /* type is the machine's RELATIVE (or RELR) */
};

/* The machine's R_*_RELATIVE type, or 0 if unknown. */
uint32_t elfimage_relative_type(uint16_t machine);

/* Calls fn for each dynamic relocation: RELA (DT_RELA and, when RELA,
 * DT_JMPREL), REL, then RELR decoded, until fn returns non-zero (that
 * value is returned). 0 when all were seen, -1 on out of memory. */
int elfimage_relocs(const struct elfimage *im, const struct elfimage_src *src,
		    int (*fn)(void *ctx, const struct elfimage_reloc *r),
		    void *ctx);
/* The relocation that writes the word at vaddr (the first one if several).
 * False when there is none. */
bool elfimage_reloc_at(const struct elfimage *im,
		       const struct elfimage_src *src, uint64_t vaddr,
		       struct elfimage_reloc *out);
/* The first relative relocation (RELA, REL or RELR) whose addend is
 * addend. False when there is none. */
bool elfimage_relative_with_addend(const struct elfimage *im,
				   const struct elfimage_src *src,
				   int64_t addend, struct elfimage_reloc *out);

#endif
