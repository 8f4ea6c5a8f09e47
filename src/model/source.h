/* source.h — where a snapshot came from, as everything after sampling sees
 * it: one const table of callbacks, filled by whoever made the snapshot (a
 * live sampler, the maps layout, a snapshot file, a core dump).
 *
 * Contract: the steps of the pipeline (pipeline.h) and every later reader
 * (content views, heap walkers) ask the snapshot's source, through the
 * vms_source_* functions below, and never learn which source it is. A
 * source that cannot do something says so in caps (and why in no_memory);
 * the callbacks it leaves NULL answer "nothing there".
 *
 * Callbacks (each takes the snapshot the source belongs to):
 *  read_mem(s, addr, buf, len, err)
 *        copies memory as of the snapshot; returns the bytes copied (short
 *        where memory is absent: only pages present in RAM are read, so
 *        reading builds no page table in a live process), or -1 with *err.
 *  read_pages(s, addr, npages, buf, ok, err)
 *        optional: read_mem of npages pages from addr (page-aligned) that
 *        goes on past an absent page: ok[i] = 1 for page i read, else 0
 *        (its bytes left as they were, or zeros: none of it kept). The
 *        bytes read, or -1 with *err. Without it, vms_source_read_pages
 *        reads with read_mem, on from where each read stopped.
 *  read_each(s, addr, n, len, buf, ok, err)
 *        optional: read_mem of len bytes at each of addr[0, n)
 *        (ascending) into buf + i * len, in fewer system calls: ok[i] = 1
 *        when all len bytes of piece i came, else 0. 0, or -1 with *err.
 *        Without it, vms_source_read_each reads each with read_mem.
 *  present(s, addr, npages, out, err)
 *        optional: which pages are in RAM as of the snapshot: out[i] = 1
 *        for page i from addr (page-aligned), else 0 (swapped out, never
 *        touched, dropped). 0, or -1 when it cannot tell (with *err).
 *  pages(s, addr, npages, out, err)
 *        optional: what the page tables say of each page as of the
 *        snapshot: out[i] has VMS_PG_* bits for page i from addr
 *        (page-aligned): in RAM, in swap, and, where the source can tell
 *        (VMS_PG_EXCL_KNOWN on every page), mapped by this process alone
 *        (/proc/PID/pagemap's bits 63, 62, 56). 0, or -1 (with *err).
 *  hold(s, on, err)
 *        optional: with on, keep the memory still for a batch of reads (a
 *        live target is stopped); with off, let go. The time held is added
 *        to s->cap.frozen_us. 0, or -1 (reads go on without the hold).
 *  open_file(s, r, st)
 *        a read-only fd for the file behind the mapping r, accepted only if
 *        it is the very file mapped (device and inode), or -1. With st not
 *        NULL, *st is that fd's fstat (a caller that would ask it again
 *        asks no more).
 *  stat_file(s, r, st)
 *        optional: the stat of the very file behind r, checked as
 *        open_file checks it, without opening it for reading (a cache of
 *        what was read in files asks it: elf/elfcache.h). 0, or -1.
 *  fs_magic(s, r)
 *        statfs f_type of the file system of the file behind r, or 0.
 *  release(s)
 *        frees priv and anything the source holds (the fork sampler's
 *        clone). Idempotent; afterwards the snapshot has no memory.
 *  elf(s, r, out)
 *        optional, for a source without files that kept what the ELF
 *        reader found in them (a snapshot file): fills *out (its arrays
 *        in s->arena) for the file behind r. Returns VMS_FILE_* (how it
 *        was read when it was captured; VMS_FILE_UNREAD: nothing kept),
 *        or -1 on out of memory.
 *  restore(s, step, err)
 *        optional: a source that kept what a step made from something it
 *        does not have (a snapshot file keeps the heaps found in memory)
 *        puts that back in place of running the step. Called only for a
 *        step the source lacks something for. 1: put back (the step does
 *        not run); 0: nothing kept (the step runs); -1 with *err.
 *
 * Progress and cancel: a long piece of work calls vms_source_progress()
 * every so often; a non-zero answer means the user cancelled, and the work
 * stops with VMS_ERR_CAPTURE "cancelled".
 */
#ifndef VMS_SOURCE_H
#define VMS_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"

struct vms_snapshot;
struct vms_region;
struct elfimage;
struct elfcache;
struct stat;

/* What a source can give. */
enum {
	VMS_SRC_MEMORY = 1u << 0, /* read_mem reads the snapshot's memory */
	VMS_SRC_FILES = 1u << 1, /* open_file opens the mapped files */
	VMS_SRC_CONSISTENT = 1u << 2, /* memory is of one instant (a clone, a
				       * core, or held still while read) */
	VMS_SRC_ELF = 1u << 3, /* what the ELF reader finds in the mapped
				* files: implied by VMS_SRC_FILES; a snapshot
				* file kept it (the elf callback) */
	VMS_SRC_SETTLE = 1u << 4, /* memory of a running target, which a
				   * step that settles (steps.h) may read
				   * twice, keeping only what both reads
				   * agree on (vmscope --all: nothing is
				   * stopped) */
};

/* The pages callback's bits. */
enum {
	VMS_PG_PRESENT = 1u << 0,
	VMS_PG_SWAP = 1u << 1,
	VMS_PG_EXCL = 1u << 2, /* mapped by this process alone (present) */
	VMS_PG_EXCL_KNOWN = 1u << 3, /* the source tells VMS_PG_EXCL */
};

struct vms_source_ops {
	const char *name; /* "pss", "fork", "maps", "paths", ... */
	ssize_t (*read_mem)(struct vms_snapshot *s, uint64_t addr, void *buf,
			    size_t len, struct vms_error *err);
	ssize_t (*read_pages)(struct vms_snapshot *s, uint64_t addr, void *buf,
			      size_t npages, unsigned char *ok,
			      struct vms_error *err);
	int (*read_each)(struct vms_snapshot *s, const uint64_t *addr, size_t n,
			 size_t len, void *buf, unsigned char *ok,
			 struct vms_error *err);
	int (*present)(struct vms_snapshot *s, uint64_t addr, size_t npages,
		       unsigned char *out, struct vms_error *err);
	int (*pages)(struct vms_snapshot *s, uint64_t addr, size_t npages,
		     unsigned char *out, struct vms_error *err);
	int (*hold)(struct vms_snapshot *s, bool on, struct vms_error *err);
	int (*open_file)(struct vms_snapshot *s, const struct vms_region *r,
			 struct stat *st);
	int (*stat_file)(struct vms_snapshot *s, const struct vms_region *r,
			 struct stat *st);
	long (*fs_magic)(struct vms_snapshot *s, const struct vms_region *r);
	void (*release)(struct vms_snapshot *s);
	int (*elf)(struct vms_snapshot *s, const struct vms_region *r,
		   struct elfimage *out);
	int (*restore)(struct vms_snapshot *s, const char *step,
		       struct vms_error *err);
};

/* A progress report: what is being done, done of total (total 0: not
 * known). Returns non-zero to cancel. */
typedef int (*vms_progress_fn)(void *ctx, const char *what, size_t done,
			       size_t total);
/* Regions read so far: s->regions[0, done) have their final counters
 * (sampler.h, vms_capture_opts.regions_read). Non-zero cancels. */
typedef int (*vms_regions_fn)(void *ctx, const struct vms_snapshot *s,
			      size_t done);
/* A block a heap walker finds (sampler.h, vms_capture_opts.heap_block):
 * glibc_walk.h's block callback, heap the heap's id (struct vms_heap).
 * Non-zero cancels (out of memory). */
typedef int (*vms_block_fn)(void *ctx, uint64_t heap, uint64_t mem,
			    uint64_t usable, bool held);

/* The files of a live process, held from its capture on so that they are
 * that process's whatever its pid names later (linux/procfile.h fills and
 * reads them). held: the rest is set (else, zeroed: opened by pid);
 * proc_dir, root_dir: O_PATH descriptors of its /proc/PID directory and
 * of its root (the root only until the steps are done), or -1; own_view: it shares vmscope's mount namespace, so
 * the paths in its maps are as vmscope sees them. Closed by
 * vms_snapshot_free(). */
struct vms_source_files {
	bool held, own_view;
	int proc_dir, root_dir;
	/* not held yet: held at the first open, then later_pidfd checked
	 * (procfile_hold_later); 0 when not so */
	pid_t later;
	int later_pidfd;
};

struct vms_source {
	const struct vms_source_ops *ops; /* NULL: none (no memory, no files) */
	void *priv; /* the source's own state */
	unsigned caps; /* VMS_SRC_* */
	pid_t pid; /* the live process files are looked up in, or 0 */
	struct vms_source_files files;
	const char *no_memory; /* why there is no memory, when not in caps */
	vms_progress_fn progress;
	void *progress_ctx;
	vms_block_fn heap_block; /* during vms_capture() only */
	void *heap_block_ctx;
	/* Optional: the mapped ELF files of a run of many captures, read
	 * once for all (elf/elfcache.h); the caller's, outliving the
	 * snapshot (what the images step found points into it). */
	struct elfcache *elfcache;
	/* vms_source_hold's state: held now; and, while the pipeline's steps
	 * run, a step's "off" waits for the end of the steps, so that a live
	 * target is stopped once for all the memory they read. */
	bool held, in_steps, hold_refused;
};

/* The dispatchers. Each is safe on a snapshot without a source. */
unsigned vms_source_caps(const struct vms_snapshot *s);
ssize_t vms_source_read(struct vms_snapshot *s, uint64_t addr, void *buf,
			size_t len, struct vms_error *err);
/* The present callback: 0, or -1 (also without memory or the callback:
 * not known). */
ssize_t vms_source_read_pages(struct vms_snapshot *s, uint64_t addr, void *buf,
			      size_t npages, unsigned char *ok,
			      struct vms_error *err);
/* The read_each callback (ok[i] all 0 without memory): 0, or -1. */
int vms_source_read_each(struct vms_snapshot *s, const uint64_t *addr, size_t n,
			 size_t len, void *buf, unsigned char *ok,
			 struct vms_error *err);
int vms_source_present(struct vms_snapshot *s, uint64_t addr, size_t npages,
		       unsigned char *out, struct vms_error *err);
/* The pages callback: 0, or -1 (also without memory or the callback:
 * not known). */
int vms_source_pages(struct vms_snapshot *s, uint64_t addr, size_t npages,
		     unsigned char *out, struct vms_error *err);
/* on: hold the memory still (a no-op when held; while the steps run, not
 * tried again once refused); off: let go, or, while the steps run
 * (in_steps), when they are done (pipeline.c). -1 when letting go finds
 * the hold had ended early (the keeper let a live target go: held too
 * long, or vmscope was stopped), else 0. */
int vms_source_hold(struct vms_snapshot *s, bool on);
/* The open_file callback (st may be NULL), or -1. */
int vms_source_open_file(struct vms_snapshot *s, const struct vms_region *r,
			 struct stat *st);
/* The stat of the file behind r (the stat_file callback), or -1. */
int vms_source_stat_file(struct vms_snapshot *s, const struct vms_region *r,
			 struct stat *st);
long vms_source_fs_magic(struct vms_snapshot *s, const struct vms_region *r);
/* The kept ELF summary of r's file (the elf callback): VMS_FILE_*, or -1
 * on out of memory, or -2 when the source keeps none (open the file). */
int vms_source_elf(struct vms_snapshot *s, const struct vms_region *r,
		   struct elfimage *out);
/* The restore callback: 1 put back, 0 not kept, -1 with *err. */
int vms_source_restore(struct vms_snapshot *s, const char *step,
		       struct vms_error *err);
/* Releases the source (idempotent): no memory afterwards. */
void vms_source_release(struct vms_snapshot *s);
/* Reports progress; non-zero: cancelled. */
int vms_source_progress(struct vms_snapshot *s, const char *what, size_t done,
			size_t total);

#endif
