/* snapshot.h — the immutable picture of one process's address space.
 *
 * Contract: a snapshot is built once, by a sampler or a loader (its raw
 * part) and the pipeline's steps (pipeline.h: types, drill-down, totals),
 * then only read: exporters and the UI never change it after
 * vms_capture() or vms_snapshot_finish() returns. What changes while it
 * is shown, the viewer's first frame of a live process filled in as its
 * capture reads the counters, is not a snapshot but a preview
 * (preview.h), whose layout is written only by the preview's functions
 * and becomes a snapshot when handed over (vms_preview_end). Every pointer inside it
 * (paths, details, children, names) lives in snap->arena and dies with
 * vms_snapshot_free().
 * All sizes are bytes. Regions are sorted by start address and are exactly
 * the lines of /proc/PID/maps at the moment of capture.
 */
#ifndef VMS_SNAPSHOT_H
#define VMS_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/arena.h"
#include "model/records.h"
#include "model/source.h"
#include "model/trace.h"

/* Region types, in display order. Names and labels: vms_type_info[]. */
enum vms_type {
	VMS_T_IMAGE,
	VMS_T_MAPPED_FILE,
	VMS_T_SHAREABLE,
	VMS_T_HEAP,
	VMS_T_MANAGED_HEAP,
	VMS_T_STACK,
	VMS_T_PRIVATE_DATA,
	VMS_T_PAGE_TABLE, /* no regions: the kernel's VmPTE */
	VMS_T_FREE, /* no regions: the gaps between them */
	VMS_NTYPES
};

struct vms_type_desc {
	const char *json; /* "image", "mapped_file", ... (JSON, CSV) */
	const char *label; /* "Image", "Mapped File", ... (text, UI) */
	char letter; /* 'I', 'F', ... (the map, monochrome bars) */
};
extern const struct vms_type_desc vms_type_info[VMS_NTYPES];

/* Region permission bits (the maps "rwxp"/"rwxs" column). */
enum {
	VMS_PERM_R = 1,
	VMS_PERM_W = 2,
	VMS_PERM_X = 4,
	VMS_PERM_SHARED = 8, /* 's' instead of 'p' */
};

/* VmFlags this engine reasons about (the raw line is kept too). */
enum {
	VMS_VF_AC = 1u << 0, /* accountable: charged to Committed_AS */
	VMS_VF_NR = 1u << 1, /* MAP_NORESERVE */
	VMS_VF_SH = 1u << 2, /* shared */
	VMS_VF_GD = 1u << 3, /* grows down */
	VMS_VF_DC = 1u << 4, /* MADV_DONTFORK */
	VMS_VF_WF = 1u << 5, /* MADV_WIPEONFORK */
	VMS_VF_LO = 1u << 6, /* mlocked */
	VMS_VF_HT = 1u << 7, /* hugetlb */
	VMS_VF_PF = 1u << 8, /* PFN map */
	VMS_VF_IO = 1u << 9, /* I/O map */
	VMS_VF_DD = 1u << 10, /* not dumped */
	VMS_VF_MS = 1u << 11, /* may share */
	VMS_VF_MM = 1u << 12, /* mixed map (DAX, inserted pfns) */
	VMS_VF_UW = 1u << 13, /* userfaultfd write-protect */
	VMS_VF_UM = 1u << 14, /* userfaultfd missing-page tracking */
	VMS_VF_UI = 1u << 15, /* userfaultfd minor faults */
};

/* Per-region state flags. */
enum {
	VMS_RF_DELETED = 1u << 0, /* path ends in " (deleted)" */
	VMS_RF_RESERVED = 1u << 1, /* nothing committed */
	VMS_RF_NO_COUNTERS = 1u << 2, /* record truncated: counters partial;
				    * a core's: none at all */
	VMS_RF_UNREADABLE = 1u << 3, /* memory cannot be read (dc/wf, io...) */
	VMS_RF_IMAGE_UNOPENED =
		1u << 4, /* looked like an image, file unopenable */
	VMS_RF_GUARD = 1u << 5, /* a stack guard region */
	/* Rss or Swap moved between the smaps read before a fast freeze and
	 * the page-table scan inside it (fastfreeze.h): Rss and Swap are the
	 * freeze's, the split (private/shared, clean/dirty) and Pss the
	 * earlier read's, adjusted to add up */
	VMS_RF_APPROX = 1u << 6,
	/* a typed part (parts.h) its runtime maps whole and charged:
	 * Committed is its Size, whatever the region's (a core's) */
	VMS_RF_COMMIT_WHOLE = 1u << 7,
};

/* The smaps counters of one region, in bytes (records.h's list: each
 * counter is declared there, and the smaps parser and the exports follow
 * from it). 8 bytes a counter, beside a region's fixed 96 (snapshot.c's
 * assert; VMS_NCOUNTERS_MAX, records.h, says how many may be). */
struct vms_counters {
	VMS_COUNTER_FIELDS(VMS_COUNTER_MEMBER)
};

/* A child of a region in the drill-down: an ELF section, a stack part, a
 * heap segment; or a typed part (parts.h: VMMap's block), a heap, arena
 * or runtime space that covers part of the region, whose figures and type
 * are part's (a region of its own: type, detail, counters), NULL for the
 * other children. */
struct vms_child {
	const char *name;
	uint64_t start, end; /* end - start is the size */
	struct vms_region *part;
};

/* How a region's Committed, Private and Private WS follow from its size
 * and counters (DESIGN.md's table; set by totals_region_derive): the
 * figures themselves are computed when read (vms_region_committed...),
 * a region does not store them. */
enum {
	VMS_ACCT_COMMIT_SIZE = 1u << 0, /* Committed = Size, else Rss+Swap
					 * (+ hugetlb pages) */
	VMS_ACCT_ANON = 1u << 1, /* Private = Committed, Private WS =
				  * Private_Clean + Private_Dirty */
	VMS_ACCT_FILE = 1u << 2, /* Private = Private WS = Private_Dirty */
	/* neither ANON nor FILE: Private = Private WS = 0 */
	/* Committed is Rss + Swap and those are not known: a writable
	 * anonymous region of a core not known to be charged to the commit
	 * limit (MAP_NORESERVE memory is not, and a core does not say which
	 * is; a heap walk that knows says so by its VmFlags' ac) */
	VMS_ACCT_COMMIT_UNKNOWN = 1u << 3,
};

struct vms_region {
	uint64_t start, end, offset, inode;
	uint32_t dev_major, dev_minor;
	uint32_t vmflags_mask; /* VMS_VF_* */
	uint32_t nchildren; /* of children, below */
	uint16_t perms; /* VMS_PERM_* */
	uint16_t flags; /* VMS_RF_* */
	uint8_t type; /* enum vms_type */
	uint8_t acct; /* VMS_ACCT_* */
	/* (the small fields together: no padding between them; a region
	 * is 96 bytes and its counters, 176 with ten, with a million of
	 * them in a viewer) */
	const char *path; /* exactly as maps shows it, or NULL (anonymous) */
	const char *vmflags; /* the raw VmFlags line (interned), or "" */
	const char *detail; /* human detail: "thread 1234 (worker)", ... */
	struct vms_counters c;
	struct vms_child *children;
	const char *build_id; /* hex, for images, or NULL */
};

struct vms_thread {
	pid_t tid;
	const char *name;
	uint64_t sp; /* 0 when unknown */
	uint64_t stack_start, stack_end; /* the region holding sp, or 0/0 */
};

struct vms_heap_seg {
	uint64_t start, end;
};

/* Free-size histogram buckets: bucket k counts free chunks of
 * [32 << k, 64 << k) bytes; the last bucket has no upper bound. */
#define VMS_HEAP_HIST 24
/* Cells of an arena's fragmentation strip. */
#define VMS_HEAP_STRIP 128

/* What the glibc walker (step "malloc", glibc_walk.h) found in one arena,
 * beyond struct vms_heap's figures. Plain numbers, bytes unless said;
 * mallinfo2's names where mallinfo2 has the figure (for this arena alone:
 * summed over arenas they are the process's mallinfo2()). */
struct vms_heap_glibc {
	uint64_t system; /* arena: bytes it has from the system */
	uint64_t ordblks; /* chunks in bins, plus 1 for top */
	uint64_t smblks, fsmblks; /* fastbin chunks, their bytes */
	uint64_t tcache, tcache_chunks; /* cached per thread (in in_use) */
	uint64_t overhead; /* heap_info, malloc_state, padding, fenceposts
			    * (in in_use) */
	uint64_t largest_free; /* largest chunk in bins/fastbins, top apart */
	uint64_t hist[VMS_HEAP_HIST]; /* free chunks by size, top apart */
	uint64_t hist_bytes[VMS_HEAP_HIST];
	/* bytes of the free chunks (top, bins, fastbins: those in free)
	 * in pages present in RAM at the snapshot; -1: the source cannot
	 * tell (a core dump, an older snapshot file) */
	int64_t free_resident;
	/* The fragmentation strip: the arena's segments end to end
	 * (strip_bytes; 0: none) in VMS_HEAP_STRIP equal cells, each
	 * cell's bytes in free chunks other than top, and in top; the rest
	 * of a cell is in use (chunks, tcaches, the arena's overhead). */
	uint64_t strip_bytes;
	uint64_t strip_free[VMS_HEAP_STRIP], strip_top[VMS_HEAP_STRIP];
	bool busy; /* locked at the snapshot: not walked */
	/* its malloc_state or top could not be read: not walked (the heap's
	 * figures -1, as when busy) */
	bool unread;
	const char *partial; /* why its figures are incomplete, or NULL */
};

/* Whether the glibc walker walked this heap's arena (g: its figures, NULL
 * when found by its shape only): not when locked or unreadable. */
static inline bool vms_heap_glibc_walked(const struct vms_heap_glibc *g)
{
	return g && !g->busy && !g->unread;
}

/* A heap the classifier found (glibc main heap or a non-main arena). The
 * walked figures are -1 until a heap walker fills them; the glibc walker
 * sets them as mallinfo2 counts: in_use = uordblks (tcache'd chunks and
 * overhead included), free = fordblks (top, bins, fastbins), chunks =
 * chunks walked (top included), free_chunks = ordblks + smblks (top
 * included), top = top's size, mmapped = mp_.mmapped_mem on the main
 * arena (mmapped chunks belong to no arena), 0 on the others. */
struct vms_heap {
	VMS_HEAP_FIELDS(VMS_MEMBER) /* records.h */
	const struct vms_heap_glibc *glibc; /* NULL unless walked */
};

/* glibc malloc in the whole process (step "malloc"): records.h's
 * VMS_MALLOC_FIELDS. NULL in the snapshot when not walked (a note says
 * why). */
struct vms_malloc {
	VMS_MALLOC_FIELDS(VMS_MEMBER)
};

/* The allocator behind malloc when it is not glibc's, or another one the
 * process carries (step "allocator"): which, from which image, and what
 * of its heap was recognised (records.h's VMS_ALLOCATOR_FIELDS). NULL in
 * the snapshot when no image has one of the allocators vmscope knows. */
struct vms_allocator {
	VMS_ALLOCATOR_FIELDS(VMS_MEMBER)
};

/* One part of a managed heap as its runtime counts it (records.h's
 * VMS_MANAGED_PART_FIELDS). */
struct vms_managed_part {
	VMS_MANAGED_PART_FIELDS(VMS_MEMBER)
};

/* A managed heap (a runtime's garbage-collected heap; records.h's
 * VMS_MANAGED_FIELDS): its address range [start, end) as the map shows
 * it, reserved = end - start (the bytes of its regions where they are not
 * all of the range: a V8 isolate's pages lie apart), committed = the
 * committed bytes (totals.h's per-region figure) of its regions. used is
 * the runtime's own count of bytes in use (-1 unknown); figures says where
 * the runtime's own figures came from ("hsperfdata", ...), NULL when none
 * were read (used then -1 and no parts). Filled by classify (a
 * runtime-named [anon:NAME]) and the runtimes' steps (jvm, go, v8,
 * cpython ...). */
struct vms_managed {
	VMS_MANAGED_FIELDS(VMS_MEMBER)
};

/* The figures of one row of the summary (a type, or the total). */
struct vms_totals {
	uint64_t size, committed, private_bytes, ws, private_ws, shareable_ws,
		shared_ws, locked_ws, pss, uss, swap, blocks, largest;
	/* regions whose Committed is not known (VMS_ACCT_COMMIT_UNKNOWN):
	 * the row's committed is then not known either */
	uint64_t committed_unknown;
};

struct vms_process {
	pid_t pid;
	uid_t uid;
	const char *name, *cmdline, *exe;
};

/* What vmscope cannot know of a capture is said by these fields as
 * their comments say (vms_capture_known reads them for every writer:
 * null in JSON, no sample in OpenMetrics, "?" in text), never made up. */
struct vms_capture_info {
	const char *backend; /* "pss" or "fork" */
	/* how long the target was stopped; 0 if never; not known with
	 * no_timing */
	uint64_t frozen_us;
	/* the whole capture, steps included; 0 unknown (a core's, a file
	 * saved before 0.2.0) */
	uint64_t duration_us;
	bool frozen; /* the target was stopped while counters were read */
	/* The source does not say how long the target was stopped, how long
	 * its capture took nor when on the monotonic clock it was taken (a
	 * core dump: the kernel or gdb wrote it, vmscope did not stop it). */
	bool no_timing;
	int64_t taken_at_sec; /* CLOCK_REALTIME at capture */
	long taken_at_nsec;
	/* CLOCK_MONOTONIC (0 unknown: a core, an older file), _BOOTTIME */
	uint64_t monotonic_ns, boottime_ns;
	const char *kernel; /* uname release; NULL unknown (a core) */
	uint64_t page_size;
	const char *partial; /* NULL, or why the data is incomplete */
	/* The source holds no smaps counters (a core dump): Rss, Pss, Swap,
	 * sharing and VmPTE are unknown, and shown so (never as 0). */
	bool no_counters;
	/* How the counters were had in the freeze: NULL (not frozen, or
	 * unknown: an older file), "smaps" (every counter read inside it),
	 * "pagemap_scan" (fastfreeze.h: smaps just before, Rss and Swap
	 * inside); approx_regions: regions flagged VMS_RF_APPROX. */
	const char *freeze_counters;
	uint64_t approx_regions;
};

/* The kernel's own totals (/proc/PID/smaps_rollup), read beside smaps
 * (within the same freeze when every counter is read in it): the check
 * that the regions add up. */
struct vms_rollup {
	bool valid;
	VMS_ROLLUP_FIELDS(VMS_ROLLUP_MEMBER) /* records.h */
};

struct elfimage;

/* A mapped ELF image: one load of a file (its mappings in a row), found by
 * the images step. Its load bias is kept for the steps after it (a heap
 * walker: runtime address = link-time vaddr + bias). elf is what the ELF
 * reader found in the file (elfimage.h: sections, segments, where the
 * dynamic symbols and relocations are), one for every load of that file;
 * for an image confirmed from memory only, it has no sections. */
struct vms_image {
	const char *path;
	uint64_t start, end; /* its first region's start, its last's end */
	uint64_t bias;
	const char *build_id;
	const struct elfimage *elf;
	size_t first_region, nregions; /* s->regions[first, first + n) */
};

/* A distinct mapped file (path, device, inode) the images step looked
 * into, and what it found: how it was read (VMS_FILE_*), and elf, what
 * the ELF reader found (is_image false: not an executable image; NULL when
 * it could not be read). first_region is the first region mapping it. A
 * snapshot file keeps these: they cannot be read again later. */
enum {
	VMS_FILE_UNREAD = 0, /* could not be opened, nor read from memory */
	VMS_FILE_OPENED = 1, /* the file itself was read */
	VMS_FILE_FROM_MEMORY = 2, /* its ELF headers, from the mapping */
};

struct vms_file {
	size_t first_region;
	uint8_t read; /* VMS_FILE_* */
	const struct elfimage *elf;
};

/* A part of the snapshot a step could not make, and why (a step that
 * needs memory on a source without it, a walk that failed). */
struct vms_note {
	const char *step; /* the step's name: "heaps", "images", ... */
	const char *why;
};

/* What the kernel said, byte for byte as read, kept only when asked
 * (vms_capture_opts.keep_raw) so that the snapshot can be saved to a file
 * (snapfile.h) and parsed again there. Malloc'd, freed with the snapshot. */
struct vms_raw {
	char *smaps; /* /proc/PID/smaps */
	size_t smaps_len, smaps_cap;
	char *status; /* /proc/PID/status */
	size_t status_len;
};

/* A capture writing its regions over those of a preview's layout, in
 * place (preview.h; pipeline.h: vms_capture_opts.layout): one region array for both, not two. The pipeline sets it up;
 * vms_snapshot_add_region() and vms_snapshot_drop_last() call take and
 * undo around each region they write over, so the layout's totals move
 * with it. */
struct vms_lend {
	struct vms_snapshot *pre; /* the layout, whose array this was */
	/* per region of pre: counted in pre's totals as the array now has
	 * it (1), or written over and not counted again yet (0) */
	uint8_t *insum;
	/* the region the last add_region wrote over (drop_last puts it
	 * back) */
	struct vms_region saved;
	size_t saved_at;
	bool saved_ok;
	uint8_t saved_insum; /* its insum when written over */
	/* the capture needed more regions than the array holds: it has its
	 * own array since, and pre keeps this one */
	bool parted;
	/* a region written over had other bounds than the layout's there:
	 * the target mapped between the two reads, and what was written
	 * is shifted against what was not */
	bool shifted;
	/* Called before region i of pre is written over (it leaves pre's
	 * totals; the display fields of the layout, type, detail and
	 * children, are kept in it), and when it is put back. */
	void (*take)(struct vms_lend *l, size_t i);
	void (*undo)(struct vms_lend *l, size_t i);
};

struct vms_snapshot {
	struct arena arena;
	struct vms_process proc;
	struct vms_capture_info cap;
	struct vms_region *regions;
	size_t nregions, regions_cap;
	struct vms_thread *threads;
	size_t nthreads;
	struct vms_heap *heaps;
	size_t nheaps;
	const struct vms_malloc *glibc; /* step "malloc", or NULL */
	const struct vms_allocator *allocator; /* step "allocator", or NULL */
	struct vms_managed *managed;
	size_t nmanaged;
	struct vms_image *images; /* by address (the images step) */
	size_t nimages;
	struct vms_file *files; /* in first_region order (images step) */
	size_t nfiles;
	uint64_t page_table; /* VmPTE, bytes */
	struct vms_rollup rollup;
	uint64_t user_start, user_end; /* the user address range for free */
	struct vms_totals types[VMS_NTYPES];
	struct vms_totals total; /* over regions (page table not included) */
	uint64_t largest_free;
	struct vms_note *notes; /* what is missing, in step order */
	size_t nnotes;
	/* The first nnotes_capture notes are the capture's own (made before
	 * the pipeline first ran): each run of the steps keeps them. */
	size_t nnotes_capture;
	bool finished;
	/* Where it came from: memory, files, progress (source.h). */
	struct vms_source src;
	struct vms_raw *raw; /* NULL unless kept (above) */
	/* The allocation trace up to this snapshot (model/trace.h), when it
	 * was taken while tracing and the trace kept with it, or NULL: a
	 * loaded file's is in the arena; a live one's is its owner's (the
	 * command line's), which outlives the snapshot. */
	const struct vms_trace_report *trace;
	/* The capture whose regions are written over this array (the
	 * layout's side), or NULL. */
	struct vms_lend *lend;
	bool regions_lent; /* the array is another snapshot's: not freed */
};

struct vms_snapshot *vms_snapshot_new(void);
void vms_snapshot_free(struct vms_snapshot *s);
/* Appends n bytes to the kept smaps text (s->raw must be set); -1 on out
 * of memory. */
int vms_raw_append_smaps(struct vms_raw *raw, const char *p, size_t n);
/* Makes room for n regions in one allocation, its pages faulted in at once
 * (a loader that knows the count: a page fault each costs more than the
 * parse of the region in a virtual machine). -1 on out of memory. */
int vms_snapshot_reserve(struct vms_snapshot *s, size_t n);
/* Appends a zeroed region; NULL on out of memory. */
struct vms_region *vms_snapshot_add_region(struct vms_snapshot *s);
/* Whether a capture writing over a layout (s->lend set) wrote a region
 * whose bounds are not the layout's at its index: the target mapped
 * between the two reads. */
bool vms_lend_shifted(struct vms_snapshot *s);
/* Takes back the region the last add_region appended (a header that
 * turned out malformed). */
void vms_snapshot_drop_last(struct vms_snapshot *s);
/* The region containing addr, or NULL (binary search). */
const struct vms_region *vms_snapshot_find(const struct vms_snapshot *s,
					   uint64_t addr);
/* Records that step could not make its part, and why (why is copied);
 * -1 on out of memory. */
int vms_snapshot_note(struct vms_snapshot *s, const char *step,
		      const char *why);
/* Appends a copy of *m to s->managed (the classify step empties the list
 * first); -1 on out of memory. */
int vms_managed_add(struct vms_snapshot *s, const struct vms_managed *m);
/* Region index containing addr, or -1. */
ptrdiff_t vms_snapshot_find_index(const struct vms_snapshot *s, uint64_t addr);
/* The index of the region containing addr, else of the first above it
 * (s->nregions if none): binary search. */
size_t vms_snapshot_index_from(const struct vms_snapshot *s, uint64_t addr);
/* Types Heap, detail VMS_MMAPPED_CHUNK, each Private Data region with no
 * path and no detail that glibc's mmapped chunks (s->glibc->mmapped) cover
 * whole (one chunk, or adjacent chunks the kernel merged); a region a
 * chunk covers in part keeps its type. The malloc step calls it, and a
 * snapshot file's reader where it puts the walk back. */
#define VMS_MMAPPED_CHUNK "glibc malloc (mmapped chunk)"
/* A segment of a main arena that is not contiguous (sbrk failed: glibc
 * mapped it): the parts step's detail for it. */
#define VMS_MAIN_MMAPPED "glibc malloc (main arena, mmapped)"
void vms_snapshot_type_mmapped(struct vms_snapshot *s);

/* A figure of struct vms_capture_info that may not be known. */
enum vms_cap_figure {
	VMS_CAP_FROZEN_US,
	VMS_CAP_DURATION_US,
	VMS_CAP_MONOTONIC_NS,
	VMS_CAP_KERNEL,
};

/* Whether c knows figure f (the fields' comments above). */
static inline bool vms_capture_known(const struct vms_capture_info *c,
				     enum vms_cap_figure f)
{
	switch (f) {
	case VMS_CAP_FROZEN_US:
		return !c->no_timing;
	case VMS_CAP_DURATION_US:
		return !c->no_timing && c->duration_us != 0;
	case VMS_CAP_MONOTONIC_NS:
		return !c->no_timing && c->monotonic_ns != 0;
	case VMS_CAP_KERNEL:
		return c->kernel != NULL;
	}
	return false;
}

static inline uint64_t vms_region_size(const struct vms_region *r)
{
	return r->end - r->start;
}

/* Committed, Private and Private WS, per r->acct (DESIGN.md's table). */
static inline uint64_t vms_region_committed(const struct vms_region *r)
{
	/* what is there: hugetlb pages are in no Rss */
	return r->acct & VMS_ACCT_COMMIT_SIZE
		       ? r->end - r->start
		       : r->c.rss + r->c.swap + r->c.hugetlb;
}

static inline uint64_t vms_region_private(const struct vms_region *r)
{
	if (r->acct & VMS_ACCT_ANON)
		return vms_region_committed(r);
	return r->acct & VMS_ACCT_FILE ? r->c.private_dirty : 0;
}

static inline uint64_t vms_region_private_ws(const struct vms_region *r)
{
	if (r->acct & VMS_ACCT_ANON)
		return r->c.private_clean + r->c.private_dirty;
	return r->acct & VMS_ACCT_FILE ? r->c.private_dirty : 0;
}

/* The free gaps: the address space between regions inside the user range
 * [user_start, user_end), in address order. One iterator for everything
 * that counts or shows free space:
 *	struct vms_gap_iter it = vms_gaps(s);
 *	while (vms_gap_next(&it, &start, &end)) ...
 */
struct vms_gap_iter {
	const struct vms_snapshot *s;
	size_t i; /* next region */
	uint64_t prev; /* end of the space seen so far */
	bool done;
};
struct vms_gap_iter vms_gaps(const struct vms_snapshot *s);
bool vms_gap_next(struct vms_gap_iter *it, uint64_t *start, uint64_t *end);

/* The memory s holds (its arena, regions and raw text): what keeping it
 * costs, for the viewer's history budget. */
size_t vms_snapshot_bytes(const struct vms_snapshot *s);

/* Anonymous: no file behind it ([heap], [stack], [anon:x] and unnamed). */
bool vms_region_is_anon(const struct vms_region *r);

/* Private anonymous memory as the kernel makes it: a private region that
 * vms_region_is_anon, or a private mapping of /dev/zero or of
 * MAP_HUGETLB ("/anon_hugepage"), whose file is a name only (smaps counts
 * their pages Anonymous). What DESIGN.md's table calls private
 * anonymous. */
bool vms_region_is_private_anon(const struct vms_region *r);
/* Private Data of no name of its own that no step typed: anonymous, or
 * a file in name only (MAP_HUGETLB's "/anon_hugepage", a private
 * /dev/zero: its detail the path classify gave it), not "[anon:NAME]".
 * What a heap's mmapped memory may be. */
bool vms_region_plain_anon(const struct vms_region *r);
/* b continues a's mapping of a file: right after it, the same file
 * (device, inode) at the offset that follows. The kernel merges no
 * hugetlb regions: a MAP_HUGETLB mapping whose parts were mprotected
 * apart is such a run of regions. */
bool vms_region_continues(const struct vms_region *a,
			  const struct vms_region *b);

/* The kernel's own mappings: [vdso], [vvar], [vvar_vclock], [vsyscall]
 * and the like, by name. */
bool vms_region_is_kernel_special(const struct vms_region *r);

/* Whether h is one of glibc's arenas (kind "glibc-..."), else a heap of
 * s->allocator's. */
bool vms_heap_is_glibc(const struct vms_heap *h);

/* s->allocator's heaps taken together: how many, and their in_use, free
 * and chunks summed (-1 where one of them does not know). */
struct vms_heap_sum {
	size_t n;
	int64_t in_use, free, chunks;
};
struct vms_heap_sum vms_allocator_heaps(const struct vms_snapshot *s);

#endif
