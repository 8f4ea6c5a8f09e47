/* elfcache.h — the mapped ELF files of many captures read once: a run of
 * vmscope --all captures every process of a host, and the same libc, ld.so
 * and locale files are mapped by nearly all of them.
 *
 * Contract:
 *  - An entry is keyed by the file's identity as fstat gives it: device,
 *    inode, size and modification time (a file rewritten in place between
 *    two captures is read again, as a new entry). Only a caller that has
 *    just checked the file is the one mapped (procfile.h) asks for it.
 *  - What the ELF reader found (elfimage.h) lives in the cache's own
 *    arena, shared by every snapshot that points to it: the cache must
 *    outlive them (vmscope --all frees each snapshot before the cache).
 *  - Beside it, the answers of symbol look-ups: whether the file defines
 *    one of a list of names, and which (rtscan.h asks), so a list asked of
 *    the same file by the next process costs no read.
 *  - And what a step found in the file that is the same for every process
 *    mapping it (elfcache_facts: a blob under a key).
 *  - Beside the files, the mappings they were found for: a mapping's
 *    identity as the kernel's maps give it (device, inode) with its path,
 *    kept once a caller checked the file it opened is that one
 *    (procfile.h: the same device and inode), so that the next capture
 *    of the run finds a mapping of the same file without a stat (a stat
 *    of /proc/PID/map_files a mapped file was a fifth of vmscope --all's
 *    time over 500 processes). A mapped inode cannot be freed, so two
 *    mappings with one identity are one file; a file rewritten in place
 *    during the run is read as it was at its first mapping.
 *  - And, for the first ELFCACHE_MAX_FDS files (fewer when RLIMIT_NOFILE
 *    is low), the file itself held open, for the later look-ups of the
 *    capture that read it without an open (elfcache_fd): a process asks
 *    each of its files four lists of names, and each open went through
 *    /proc/PID/map_files, was checked and reopened (two opens of three a
 *    run of vmscope --all made). The caller lets them go after each
 *    capture (elfcache_drop_fds): a file held open keeps its mount busy,
 *    and a container's runtime unmounting it meanwhile would fail; the
 *    next processes mapping the file find its answers kept, and open it
 *    only for a list of names not asked of it yet.
 *  - Bounded: at most ELFCACHE_MAX files and as many mappings; past that,
 *    nothing is added (elfcache_add returns NULL and the caller reads the
 *    file itself).
 *  - Not thread-safe; never prints. Errors: NULL only on out of memory or
 *    past the bound.
 */
#ifndef VMS_ELFCACHE_H
#define VMS_ELFCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "elf/elfimage.h"

#define ELFCACHE_MAX 65536
/* Files held open at most (and at most a quarter of RLIMIT_NOFILE). */
#define ELFCACHE_MAX_FDS 256
/* Names the run's look-ups know at most (elfcache_defines_in: every
 * list asked of any file, together); past it, a list with a new name is
 * not answered (the caller walks). */
#define ELFCACHE_MAX_NAMES 32

struct elfcache;

struct elfcache *elfcache_new(void);
void elfcache_free(struct elfcache *c);

/* The file with st's identity, when it was read before: its image (NULL
 * when it is not there). *is_image false: read, not an executable image. */
const struct elfimage *elfcache_find(struct elfcache *c, const struct stat *st);

/* Reads the file open at fd (fstat'ed into *st by the caller: its size
 * is read from there) and keeps what the reader found: its image, or
 * NULL (out of memory, past the bound, or the file could not be read:
 * then nothing is kept); a file kept already (its identity, as the file
 * changed since the caller's elfcache_find) gives the image kept. fd is
 * the cache's from the call on, whatever the answer: held while within
 * the bound of descriptors (elfcache_fd), else closed. */
const struct elfimage *elfcache_add(struct elfcache *c, const struct stat *st,
				    int fd);

/* Closes the files held open (elfcache_fd answers -1 for them from
 * now on; elfcache_free does it too). */
void elfcache_drop_fds(struct elfcache *c);

/* A descriptor of im's file (im an image of this cache), open for
 * reading, owned by the cache (the caller reads it with pread, never
 * closes it); -1 when none is held. */
int elfcache_fd(struct elfcache *c, const struct elfimage *im);

/* The image kept for a mapping of path with the kernel's device
 * (major:minor) and inode (elfcache_keep_mapped), or NULL. */
const struct elfimage *elfcache_find_mapped(struct elfcache *c, unsigned major,
					    unsigned minor,
					    unsigned long long inode,
					    const char *path);
/* Keeps im (an image of this cache) for such a mapping, once the file it
 * was read or found by was checked to be the one mapped; nothing on out
 * of memory or past the bound. */
void elfcache_keep_mapped(struct elfcache *c, unsigned major, unsigned minor,
			  unsigned long long inode, const char *path,
			  const struct elfimage *im);

/* Whether im (an image of this cache) defines one of names[] (NULL-ended)
 * by an earlier answer: 1 it does (*which: the name's index), 0 it does
 * not, -1 not asked yet, or im is not the cache's. */
int elfcache_defines(struct elfcache *c, const struct elfimage *im,
		     const char *const *names, size_t *which);
/* Keeps that answer (found 0 or 1); nothing when im is not the cache's or
 * memory runs out (the next one asks the file again). */
void elfcache_defines_keep(struct elfcache *c, const struct elfimage *im,
			   const char *const *names, int found, size_t which);

/* Adds names[] (NULL-ended) to the names the run asks (elfcache_defines_in)
 * before any list has them, so that each file's first read answers them
 * too: the lists a run's steps may ask, learnt before its first capture
 * (pipeline.c, each step's asks), or a list with a name not known yet
 * reads the file again (node's 5 MB string table took 5 ms a read, four
 * reads for its first process). Past ELFCACHE_MAX_NAMES, or an empty
 * name: left out (a list with it is then walked). */
void elfcache_expect(struct elfcache *c, const char *const *names);

/* Whether im (an image of this cache, read from src) defines one of
 * names[], as rtscan.h asks (the first such symbol in the table's order;
 * *which its name's index), as a walk of the table would answer: from
 * where the file first defines each name the run has asked of any file
 * (elfimage_first_defined: one read of its string table finds them all,
 * the symbols read only when one of them is there), kept for the next
 * list. A list with a name not asked before reads the file again, for
 * the names it has no answer to (all the lists of a run are asked by its
 * first processes). 1, 0, or -1 when im is not the cache's, the run
 * knows ELFCACHE_MAX_NAMES names already, or the file cannot answer so
 * (elfimage_first_defined: the caller walks the table itself). */
int elfcache_defines_in(struct elfcache *c, const struct elfimage *im,
			const struct elfimage_src *src,
			const char *const *names, size_t *which);

/* size bytes kept with im's entry under key (what a step found in the
 * file and would find again in every process: glibc's malloc layout),
 * zeroed when first asked for; NULL when im is not the cache's or memory
 * runs out. The caller fills it; the same key always with the same size. */
void *elfcache_facts(struct elfcache *c, const struct elfimage *im,
		     const char *key, size_t size);

#endif
