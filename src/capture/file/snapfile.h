/* snapfile.h — snapshot files (-w, -l): a snapshot saved, and loaded again
 * as one more source.
 *
 * What a file keeps: what the kernel said, verbatim (the smaps text and
 * /proc/PID/status as read, so that a later vmscope parses them again with
 * its own, newer, parser and steps), and in a JSON part what cannot be had
 * again later: the capture's metadata (process, command line, executable
 * and its build id, kernel, boot id, wall, monotonic and boot time, page
 * size, sampler, freeze time), the kernel's smaps_rollup figures, the
 * threads with their stack pointers and names, what the ELF reader found
 * in each mapped file (sections, segments, build id), the file systems of
 * files on device 0, the heaps found in memory and what the glibc
 * walker found in them (steps "heaps" and "malloc", restored on load), and
 * what the steps that declare it keep (the runtimes' and the allocator's:
 * one record each in "steps_kept", snapfile_kept.c, model/kept.h).
 *
 * The format (all integers little-endian):
 *
 *   "vmscope snapshot\n"          17 bytes, the magic
 *   u32 version                   the format; a reader refuses a file of a
 *                                 version above SNAPFILE_VERSION
 *   u32 flags                     0
 *   sections, each:
 *     char name[12]               NUL-padded: "meta", "smaps", "status",
 *                                 "end"
 *     u32 codec                   0 stored, 1 zstd (one frame, checksummed;
 *                                 format 2: the smaps text may be two)
 *     u64 stored                  bytes that follow
 *     u64 size                    bytes once decompressed
 *   "end" (stored 0) last: a file without it was cut short.
 *
 * Format 2 (written from 256 KiB of smaps text on; a smaller one is still
 * written as format 1): the smaps text is cut at a region's header into
 * two parts, each its own zstd frame with its size, and the JSON part's
 * "smaps_parts" says how many regions each holds ([n1, n2]), so that a
 * loader parses the two on two threads, each into its own slice of the
 * region array. A part's count is the number of its header lines
 * (smaps_header_like); a writer cuts only a text whose every such line is
 * a region, and a reader refuses a part whose count differs. A format-1
 * reader would take the first frame for the whole section: hence the new
 * version.
 *
 * Forward compatible: a section this reader does not know is skipped, and
 * so is a JSON field (a top-level one without being built); the version is
 * raised only for a change an older reader would get wrong. Every version
 * is read by every later vmscope.
 *
 * Bounded by what the file holds: the JSON part may take 1 MiB and 65,536
 * values, and beyond that 4 KiB and 256 values for each region of the
 * smaps text (its header lines counted; snapfile_int.h, sf_json_room); the
 * region array is reserved for no more regions than that count; a smaps
 * text holding more than 1 MiB and 16 KiB a region is padding. A part that
 * claims or pads more is refused before it is built.
 *
 * Contract:
 *  - snapfile_encode() needs a finished snapshot captured with keep_raw
 *    (s->raw); it writes the whole file into one malloc'd buffer (the
 *    compressed file: some 0.01 of the smaps text).
 *  - snapfile_load() takes the file's bytes (never a path: the caller
 *    reads the file) and fills the raw part of an empty snapshot and its
 *    source, as a sampler does; the pipeline's steps then run over it
 *    (pipeline.h). The smaps text is decompressed and parsed in pieces,
 *    never whole. Anything wrong with the bytes is VMS_ERR_FILE, with a
 *    message that names the file (name) and says what is wrong; never a
 *    crash, never a read outside buf[0, len).
 *  - The source it sets has no memory and no files: the images step gets
 *    the kept ELF summaries (source.h, elf), the heaps and malloc steps
 *    and those that declare what they keep have their results restored
 *    (restore),
 *    file systems answer from what was kept.
 */
#ifndef VMS_SNAPFILE_H
#define VMS_SNAPFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/kept.h"
#include "model/snapshot.h"

#define SNAPFILE_VERSION 2
#define SNAPFILE_MAGIC "vmscope snapshot\n"
#define SNAPFILE_MAGIC_LEN 17

/* Whether the first n bytes of a file are those of a snapshot file. */
bool snapfile_recognise(const void *head, size_t n);

/* The file for s into *buf (malloc'd, the caller frees) and *len; trace:
 * its trace section (NULL: s->trace's, or none); kept: what the steps
 * keep of their results (model/kept.h), NULL-ended. -1 with *err
 * (VMS_ERR_USAGE when s kept no raw text, VMS_ERR_NOMEM). */
int snapfile_encode(const struct vms_snapshot *s,
		    const struct vms_trace_report *trace,
		    const struct vms_kept *const *kept, void **buf, size_t *len,
		    struct vms_error *err);

/* Fills the empty snapshot s from the file's bytes; kept: the steps'
 * declarations of what they keep (the records of the steps declared are
 * read, any other ignored), NULL-ended. -1 with *err.
 * consume: buf is the loader's to use up (vms_load_file's copy of the
 * file): the pages of the smaps text it has decompressed are given back to
 * the kernel as it goes (they read as zeros after), so that a load peaks
 * no higher than a live capture. */
int snapfile_load(const void *buf, size_t len, const char *name, bool consume,
		  const struct vms_kept *const *kept, struct vms_snapshot *s,
		  struct vms_error *err);

#endif
