/* glibc_find.h — where glibc's main_arena and mp_ are in a libc file,
 * without debug symbols when need be, and which glibc it is.
 *
 * Contract: each function reads an ELF file through its elfimage_src
 * (elfimage.h: a file descriptor or a buffer; never a pid or a path) and
 * reads it bounded (the reader's caps; at most GLIBC_FIND_SCAN bytes of
 * data scanned). Addresses returned are the file's own (link-time): add
 * the load bias for the running process. Nothing is kept between calls.
 *
 *  - glibc_find_version: "GNU C Library ... release version 2.36" in the
 *    read-only data; the highest GLIBC_2.x symbol version is only a lower
 *    bound, so it is not used.
 *  - glibc_find_debug: main_arena and mp_ from the .symtab of a detached
 *    debug file (/usr/lib/debug/.build-id/xx/yyy.debug), only when its
 *    build id is the library's.
 *  - glibc_find_in_file: main_arena from the relative relocation (RELA,
 *    REL or RELR) that writes &main_arena into main_arena.next (the static
 *    initialiser .next = &main_arena), checked against the initialiser's
 *    bytes in the file (all zero but next and attached_threads = 1); mp_
 *    from the bytes of its static initialiser in .data. Each must be found
 *    exactly once: two candidates are an answer of "not found", never a
 *    guess. why gets the reason when it returns false.
 */
#ifndef VMS_GLIBC_FIND_H
#define VMS_GLIBC_FIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/heaps/glibc_walk.h"
#include "elf/elfimage.h"

#define GLIBC_FIND_SCAN (16u << 20)

/* True when the image defines gnu_get_libc_version (glibc's libc). */
bool glibc_find_is_libc(const struct elfimage *im,
			const struct elfimage_src *src);
bool glibc_find_version(const struct elfimage *im,
			const struct elfimage_src *src, unsigned *major,
			unsigned *minor);
bool glibc_find_debug(const struct elfimage *dbg,
		      const struct elfimage_src *dsrc, const char *build_id,
		      uint64_t *main_arena, uint64_t *mp);
bool glibc_find_in_file(const struct elfimage *im,
			const struct elfimage_src *src,
			const struct glibc_layout *lay, uint64_t *main_arena,
			uint64_t *mp, char *why, size_t whylen);

#endif
