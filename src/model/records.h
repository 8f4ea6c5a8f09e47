/* records.h — each record of a snapshot that is written out (the JSON
 * export, snapshot files) declared once, as an X-macro list; the struct,
 * its field table (struct vms_record, below) and every writer and reader
 * follow from the list.
 *
 * Contract: a list names each field once, in the order of the JSON export
 * (and of the struct, and of a snapshot file's object):
 *	X(member, KIND, "json key", "file key", flags)
 * KIND says its C type and how it is written:
 *	U64	uint64_t	a JSON number
 *	HEX	uint64_t	an address: "0x..." in the JSON export, a
 *				number in a snapshot file
 *	I64N	int64_t		a figure vmscope may not know: -1 is null
 *				(a reader takes any negative number for it:
 *				older files wrote a heap's -1 so)
 *	STR	const char *	a string; NULL is null
 *	BOOL	bool		true or false
 *	SEGS	struct vms_heap_seg *member; uint32_t nmember
 *				[{ "start", "end" }] in the JSON export,
 *				[[start, end]] in a file
 *	PARTS	const struct vms_managed_part *member; uint32_t nmember
 *				an array of the part record's objects
 * flags (VMS_FF_*) say what a snapshot file's reader refuses: a field it
 * needs (NEED) or a string that may not be null (NONNULL). A field
 * without NEED may be absent (a file of an older vmscope): it reads as 0,
 * false, NULL, an empty array, or -1 (I64N).
 *
 * The smaps counters of a region are a list of their own
 * (VMS_COUNTER_FIELDS: member and smaps key; each a uint64_t of bytes, its
 * JSON key the member's name): the smaps parser and the JSON export follow
 * from it (a snapshot file keeps the smaps text itself).
 *
 * The rollup's figures (VMS_ROLLUP_FIELDS, struct vms_rollup) likewise:
 * their smaps_rollup parser, the JSON export and snapshot files follow.
 *
 * Adding a field is one line here, and the code that sets its value (a
 * smaps counter or a rollup figure: none; a counter grows every region,
 * whose size is a budget: VMS_NCOUNTERS_MAX below). tests/unit/
 * test_schema.c (the records) and test_schema_smaps.c (the counters, the
 * rollup) walk every list through every writer and back.
 */
#ifndef VMS_RECORDS_H
#define VMS_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* clang-format off */

/* The smaps counters of one region, in bytes: those the engine reads
 * (columns.h, the exports). smaps has more per record (Pss_Dirty,
 * Referenced, Anonymous, LazyFree, KSM, the Pmd lines, the page sizes);
 * nothing looks at them, so a region does not carry them (a snapshot file
 * keeps the whole text). The Hugetlb lines are kept, added up in one
 * counter: a hugetlb page is in no Rss (nor Pss, Private_*, Shared_*),
 * and without them a region of hugetlb pages would show nothing of the
 * memory it holds (its Committed, when mapped MAP_NORESERVE, is them; the
 * totals step says how much the working set leaves out; the rollup has
 * the two apart). X(member, "smaps key")
 *
 * Adding one is this line: the region's member, the parser, the JSON
 * export (a key of every region, the member's name) and a snapshot
 * file's reader (which parses the smaps text it keeps) follow, and
 * tests/unit/test_schema_smaps.c walks it. To show it as a figure, a column
 * (model/columns.c). What it costs is 8 bytes in every region (8 MB a
 * million regions), and next to no time: the parser learns which counter
 * each key line is from the first record, and later records take their
 * keys by position (smaps.c), so a key more is a line it already reads
 * stored, not a lookup more.
 *
 * The budget (VMS_NCOUNTERS_MAX). A region is asserted at a fixed 96
 * bytes plus 8 a counter (snapshot.c), so a counter added here moves the
 * assert with it; this bound stops the list where the memory aims would
 * break: 12 counters make a region 192 bytes, and `vmscope -s`, 182
 * bytes a region all told with 10 (docs/benchmarks.md), some 198 of
 * issue 13's 200; the viewer, 235-255 of its 300, some 251-271. The
 * 11th is the Hugetlb lines'. A 13th
 * counter takes the place of one, or is a figure computed from others,
 * or comes with the benchmarks run again and the aims raised. Why not a
 * side table for the counters that are mostly zero (Locked,
 * AnonHugePages, SwapPss): a region would need a pointer to it (8
 * bytes, what one counter costs), the parser an allocation in its
 * inner loop (the capture is at its 1.2x aim), and every reader of a
 * counter the snapshot beside the region; with two counters of room
 * left it would cost what it saves. */
#define VMS_NCOUNTERS_MAX 12
#define VMS_COUNTER_FIELDS(X)                                                  \
	X(rss, "Rss")                                                          \
	X(pss, "Pss")                                                          \
	X(private_clean, "Private_Clean")                                      \
	X(private_dirty, "Private_Dirty")                                      \
	X(shared_clean, "Shared_Clean")                                        \
	X(shared_dirty, "Shared_Dirty")                                        \
	X(swap, "Swap")                                                        \
	X(swap_pss, "SwapPss")                                                 \
	X(locked, "Locked")                                                    \
	X(anon_huge, "AnonHugePages")                                          \
	X(hugetlb, "Private_Hugetlb") /* + Shared_Hugetlb: below */

/* smaps keys whose figure adds into a counter of the list above (a
 * region keeps one figure of both: X(member, "smaps key")). The parser
 * adds every key line into its counter (a region's start at 0), so a
 * counter may have more than one key. */
#define VMS_COUNTER_ADDS(X) X(hugetlb, "Shared_Hugetlb")

/* The kernel's own totals of the process (/proc/PID/smaps_rollup), in
 * bytes: the check that the regions add up. X(member, "smaps key",
 * flags): a snapshot file's rollup without a NEED figure is not valid (the
 * others came later). Rss says whether the kernel gave one at all. */
#define VMS_ROLLUP_FIELDS(X)                                                   \
	X(rss, "Rss", VMS_FF_NEED)                                             \
	X(pss, "Pss", VMS_FF_NEED)                                             \
	X(private_clean, "Private_Clean", VMS_FF_NEED)                         \
	X(private_dirty, "Private_Dirty", VMS_FF_NEED)                         \
	X(shared_clean, "Shared_Clean", VMS_FF_NEED)                           \
	X(shared_dirty, "Shared_Dirty", VMS_FF_NEED)                           \
	X(swap, "Swap", VMS_FF_NEED)                                           \
	X(swap_pss, "SwapPss", 0)                                              \
	X(locked, "Locked", 0)                                                 \
	X(anonymous, "Anonymous", 0)                                           \
	X(private_hugetlb, "Private_Hugetlb", 0)                               \
	X(shared_hugetlb, "Shared_Hugetlb", 0)

/* A heap the classifier found (snapshot.h, struct vms_heap, says what each
 * figure means). The glibc walker's figures of it (struct vms_heap_glibc)
 * are written beside these by hand: their JSON shape is their own. */
#define VMS_HEAP_FIELDS(X)                                                     \
	/* "glibc-main", "glibc-arena", an allocator's */                      \
	X(kind, STR, "kind", "kind", VMS_FF_NEED | VMS_FF_NONNULL)             \
	/* arena address if known, else first segment start */                 \
	X(id, HEX, "id", "id", VMS_FF_NEED)                                    \
	X(segs, SEGS, "segments", "segments", 0)                               \
	X(in_use, I64N, "in_use", "in_use", 0)                                 \
	X(free, I64N, "free", "free", 0)                                       \
	X(chunks, I64N, "chunks", "chunks", 0)                                 \
	X(free_chunks, I64N, "free_chunks", "free_chunks", 0)                  \
	X(top, I64N, "top", "top", 0)                                          \
	X(mmapped, I64N, "mmapped", "mmapped", 0)

/* glibc malloc in the whole process (step "malloc"): mallinfo2()'s
 * figures as the process would have got them at the snapshot, and how its
 * state was found. */
#define VMS_MALLOC_FIELDS(X)                                                   \
	X(allocator, STR, "allocator", "allocator", 0) /* "glibc" */           \
	X(version, STR, "version", "version", 0) /* "2.36" */                  \
	/* "debug symbols" or "relocation" */                                  \
	X(found_by, STR, "found_by", "found_by", 0)                            \
	X(main_arena, HEX, "main_arena", "main_arena", 0) /* runtime addresses */ \
	X(mp, HEX, "mp", "mp", 0)                                              \
	X(empty, BOOL, "empty", "empty", 0) /* malloc never ran */             \
	/* mallinfo2() */                                                      \
	X(arena, U64, "arena", "arena", 0)                                     \
	X(ordblks, U64, "ordblks", "ordblks", 0)                               \
	X(smblks, U64, "smblks", "smblks", 0)                                  \
	X(hblks, U64, "hblks", "hblks", 0)                                     \
	X(hblkhd, U64, "hblkhd", "hblkhd", 0)                                  \
	X(usmblks, U64, "usmblks", "usmblks", 0)                               \
	X(fsmblks, U64, "fsmblks", "fsmblks", 0)                               \
	X(uordblks, U64, "uordblks", "uordblks", 0)                            \
	X(fordblks, U64, "fordblks", "fordblks", 0)                            \
	X(keepcost, U64, "keepcost", "keepcost", 0)                            \
	/* over the arenas */                                                  \
	X(tcache, U64, "tcache", "tcache", 0)                                  \
	X(tcache_chunks, U64, "tcache_chunks", "tcache_chunks", 0)             \
	X(overhead, U64, "overhead", "overhead", 0)                            \
	/* the walk's time, memory it read */                                  \
	X(walk_us, U64, "walk_us", "walk_us", 0)                               \
	X(bytes_read, U64, "bytes_read", "bytes_read", 0)                      \
	/* mmapped chunks located (a file holds at most one a region) */       \
	X(mmapped, SEGS, "mmapped_chunks", "mmapped", 0)                       \
	/* mmapped chunks not all located, or NULL */                          \
	X(mmapped_note, STR, "mmapped_note", "mmapped_note", 0)                \
	/* why the figures are incomplete, or NULL */                          \
	X(partial, STR, "partial", "partial", 0)

/* The allocator behind malloc when it is not glibc's, or another one the
 * process carries (step "allocator"). */
#define VMS_ALLOCATOR_FIELDS(X)                                                \
	/* "jemalloc", "tcmalloc", "mimalloc", "glibc" */                      \
	X(name, STR, "name", "name", VMS_FF_NEED | VMS_FF_NONNULL)             \
	X(image, STR, "image", "image", 0) /* the file that has it */          \
	/* its image is the one that defines malloc */                         \
	X(provides_malloc, BOOL, "provides_malloc", "provides_malloc", 0)      \
	X(found_by, STR, "found_by", "found_by", 0) /* the symbol that told */ \
	/* jemalloc: base blocks' bytes in use; mimalloc: its segments'        \
	 * headers; -1 */                                                      \
	X(metadata, I64N, "metadata", "metadata", VMS_FF_NEED)                 \
	/* the bytes it says it took from the system (tcmalloc:                \
	 * TCMalloc_SystemTaken); -1 where it does not say (and in files       \
	 * before it was kept) */                                              \
	X(system, I64N, "system", "system", 0)                                 \
	/* regions typed heap for it: their bytes, their number */             \
	X(heap, U64, "heap", "heap", VMS_FF_NEED)                              \
	X(nregions, U64, "regions", "regions", VMS_FF_NEED)                    \
	/* why its heap is not (all) shown, or NULL */                         \
	X(partial, STR, "partial", "partial", 0)                               \
	/* its own figures (VMS_ALLOC_FIGURES below; absent in older files:     \
	 * -1), and where they come from or why some are -1 (or NULL) */       \
	VMS_ALLOC_FIGURES(VMS_ALLOC_FIGURE_FIELD, X)                           \
	X(figures_note, STR, "figures_note", "figures_note", 0)

/* An allocator's own figures, by its own definitions (each -1 where it
 * cannot be had; figures_note says why), F(X, field, label): the field
 * (its JSON and file key too) and its label on screen and in -s.
 * jemalloc: what mallctl("stats.allocated" ... "stats.retained") returns,
 * the figures of its last "epoch" refresh (ctl_stats, read in its
 * memory). gperftools tcmalloc: allocated, page_heap_free, unmapped,
 * central_cache, transfer_cache and thread_cache, as
 * MallocExtension::GetStats's "bytes in use by application", "page heap
 * freelist", "released to OS" and "central, transfer, thread cache
 * freelist" (GetNumericProperty's generic.current_allocated_bytes,
 * tcmalloc.pageheap_free_bytes ... thread_cache_free_bytes). mimalloc:
 * committed and reserved, its stats' (mi_stats_print_out's "committed"
 * and "reserved": its segments' commit masks and sizes). For a list of
 * (field, label) alone: VMS_ALLOC_FIGURE_LIST(F). */
#define VMS_ALLOC_FIGURES(F, X)                                                \
	F(X, allocated, "Allocated")                                           \
	F(X, active, "Active")                                                 \
	F(X, resident, "Resident")                                             \
	F(X, mapped, "Mapped")                                                 \
	F(X, retained, "Retained")                                             \
	F(X, page_heap_free, "Page heap free")                                 \
	F(X, unmapped, "Unmapped")                                             \
	F(X, central_cache, "Central cache")                                   \
	F(X, transfer_cache, "Transfer cache")                                 \
	F(X, thread_cache, "Thread cache")                                     \
	F(X, committed, "Committed")                                           \
	F(X, reserved, "Reserved")
#define VMS_ALLOC_FIGURE_FIELD(X, f, label) X(f, I64N, #f, #f, 0)
#define VMS_ALLOC_FIGURE_CALL(F, f, label) F(f, label)
#define VMS_ALLOC_FIGURE_LIST(F) VMS_ALLOC_FIGURES(VMS_ALLOC_FIGURE_CALL, F)

/* One part of a managed heap as its runtime counts it (a generation, a
 * space, metaspace ...): bytes, -1 where the runtime gives no figure.
 * in_heap: its bytes lie inside the heap's [start, end) (a JVM's eden and
 * old generation); false for the runtime's memory elsewhere (metaspace,
 * class space), counted here because the runtime reports it with its
 * heap. */
#define VMS_MANAGED_PART_FIELDS(X)                                             \
	/* "eden", "old", "metaspace", ... as the runtime */                   \
	X(name, STR, "name", "name", VMS_FF_NEED | VMS_FF_NONNULL)             \
	X(capacity, I64N, "capacity", "capacity", VMS_FF_NEED)                 \
	X(used, I64N, "used", "used", VMS_FF_NEED)                             \
	X(max, I64N, "max", "max", VMS_FF_NEED)                                \
	X(in_heap, BOOL, "in_heap", "in_heap", 0)

/* A managed heap (snapshot.h, struct vms_managed, says what each means). */
#define VMS_MANAGED_FIELDS(X)                                                  \
	/* "go", "art", "jvm", "v8", "cpython", ... */                         \
	X(runtime, STR, "runtime", "runtime", VMS_FF_NEED | VMS_FF_NONNULL)    \
	X(start, HEX, "start", "start", VMS_FF_NEED)                           \
	X(end, HEX, "end", "end", VMS_FF_NEED)                                 \
	X(reserved, U64, "reserved", "reserved", VMS_FF_NEED)                  \
	X(committed, U64, "committed", "committed", VMS_FF_NEED)               \
	X(used, I64N, "used", "used", VMS_FF_NEED)                             \
	X(figures, STR, "figures", "figures", 0)                               \
	X(parts, PARTS, "parts", "parts", VMS_FF_NEED)                         \
	/* the heap or space it belongs to, or NULL */                         \
	X(detail, STR, "detail", "detail", 0)                                  \
	/* bytes of [start, end) in RAM at the snapshot (the page tables),     \
	 * where its entries are typed parts of regions (step "parts");        \
	 * -1 unknown or not measured */                                       \
	X(resident, I64N, "resident", "resident", 0)

/* A trace report's trace-wide fields (model/trace.h: struct
 * vms_trace_report's members follow from this list; its call sites are
 * written beside them, by export_trace.c and snapfile_trace.c). A JSON
 * key NULL: the JSON export's "trace" object gives it in a shape of its
 * own ("mode" for sampled, "window" for from_ns and to_ns; the wait
 * status is the process's "exit_status" and "signal"); sample_bytes and
 * seed are null there when the trace was exact. */
#define VMS_TRACE_FIELDS(X)                                                    \
	X(sampled, BOOL, NULL, "sampled", VMS_FF_NEED) /* --trace-sample */    \
	/* the mean interval of the sampling (0 when exact), its seed */       \
	X(sample_bytes, U64, "sample_bytes", "sample_bytes", 0)                \
	X(seed, U64, "seed", "seed", 0)                                        \
	X(attached, BOOL, "attached", "attached", 0) /* else launched */       \
	/* the malloc family was not traced (an attach sees the mmap family  \
	 * only, from the kernel): no heap site means nothing of it; JSON    \
	 * says it the other way round, "heap_traced" */                       \
	X(heap_untraced, BOOL, NULL, "heap_untraced", 0)                       \
	/* madvise(MADV_DONTNEED or MADV_FREE), seen only when attached:     \
	 * pages given back, still mapped (no site's event); JSON             \
	 * "madvised": {count, bytes}, null when not traced */                 \
	X(madvise_traced, BOOL, NULL, "madvise_traced", 0)                     \
	X(madvised, U64, NULL, "madvised", 0)                                  \
	X(madvised_bytes, U64, NULL, "madvised_bytes", 0)                      \
	/* the mmap family traced from the kernel (an attach with CAP_BPF   \
	 * and CAP_PERFMON: beside the injected library, or alone): brk,     \
	 * madvise, mprotect's commits, raw system calls, every module's */  \
	X(kernel_maps, BOOL, "kernel_maps", "kernel_maps", 0)                  \
	/* of those, the calls made inside the library's malloc family or   \
	 * its own work (the allocator's own maps for a block recorded: left \
	 * out, as a launch leaves them out) */                                \
	X(allocator_maps, U64, "allocator_maps", "allocator_maps", 0)          \
	X(events, U64, "events", "events", VMS_FF_NEED) /* calls recorded */   \
	/* calls not recorded, their bytes */                                  \
	X(dropped, U64, "dropped", "dropped", VMS_FF_NEED)                     \
	X(dropped_bytes, U64, "dropped_bytes", "dropped_bytes", 0)             \
	/* of dropped: calls of a thread that found no ring free (more       \
	 * threads than the tracer's rings, TW_SLOTS, at once) */              \
	X(dropped_threads, U64, "dropped_threads", "dropped_threads", 0)       \
	/* frees of what no record allocated */                                \
	X(unknown_frees, U64, "unknown_frees", "unknown_frees", 0)             \
	/* records refused (not by the wire's rules: the program wrote into \
	 * its rings) and events never written (a thread stopped inside its  \
	 * call at the end) */                                                 \
	X(bad_records, U64, "bad_records", "bad_records", 0)                   \
	X(ended, BOOL, "ended", "ended", VMS_FF_NEED) /* the process exited */ \
	/* its wait status, when ended (-1: not known) */                      \
	X(exit_status, I64N, NULL, "exit_status", 0)                           \
	/* the window, in ns since the trace began */                          \
	X(from_ns, U64, NULL, "from_ns", VMS_FF_NEED)                          \
	X(to_ns, U64, NULL, "to_ns", VMS_FF_NEED)                              \
	/* which run (a number drawn when the trace began; 0: not known)    \
	 * and which of its marks the report ends at (0: the trace's end):  \
	 * two reports of one run give the window between them (trace.h)   \
	 */                                                                    \
	X(run, HEX, NULL, "run", 0)                                            \
	X(mark, U64, NULL, "mark", 0)

/* What the viewer lists beside a trace report, as a snapshot file keeps
 * it (its "tracelive" section, snapfile_tracelive.c): an allocation alive
 * at the snapshot (struct vms_trace_block: B, and f of the call sites)
 * and an event of the trace's log (struct vms_trace_event: L). Each is a
 * list of columns, X(member, TYPE, "file key", CODING):
 * TYPE	U64, U32, I32 or U8: the member's C type (uint64_t ... uint8_t);
 * CODING how a file keeps the column, one varint a row (LEB128):
 *	PLAIN	the value
 *	DELTA	the change from the row before (zigzag: signed), for a
 *		column that mostly grows or repeats (an address in order,
 *		a thread)
 *	TIME	the same of a time in ns, divided by the file's unit
 *		(its header's; 1 when written: exact, as the tracer's
 *		coarse clock makes most changes 0 already)
 * The struct, the file's writer and reader and the round-trip test
 * (tests/unit/test_tracelive.c) follow from the list; a reader skips a
 * column it does not know, and refuses a file without one of its own. */
#define VMS_TRACE_BLOCK_FIELDS(X)                                              \
	X(addr, U64, "addr", DELTA) /* the block, or the map's start */        \
	X(size, U64, "size", PLAIN) /* bytes it stands for (sampled: more) */ \
	X(t_ns, U64, "t", TIME) /* made, ns since the trace began */          \
	X(site, U32, "site", PLAIN) /* its call site's id */                   \
	/* the blocks it stands for, in 1/VMS_TRACE_ONE (1024: one; more    \
	 * when sampled) */                                                    \
	X(count, U32, "count", PLAIN)

#define VMS_TRACE_EVENT_FIELDS(X)                                              \
	X(t_ns, U64, "t", TIME) /* since the trace began */                    \
	X(addr, U64, "addr", DELTA)                                            \
	/* a free's size: its block's, 0 if unknown */                         \
	X(size, U64, "size", PLAIN)                                            \
	/* its call site's id (a free: the block's site); UINT32_MAX: none   \
	 * known */                                                            \
	X(site, U32, "site", PLAIN)                                            \
	X(tid, I32, "tid", DELTA) /* the thread that called */                 \
	X(op, U8, "op", PLAIN) /* enum vms_trace_op */

/* clang-format on */

/* How many parts a managed heap read from a file may have. */
#define VMS_MANAGED_PARTS_MAX 64

enum vms_fkind {
	VMS_FK_U64,
	VMS_FK_HEX,
	VMS_FK_I64N,
	VMS_FK_STR,
	VMS_FK_BOOL,
	VMS_FK_SEGS,
	VMS_FK_PARTS,
};

enum {
	VMS_FF_NEED = 1u << 0, /* a file's record without it is refused */
	VMS_FF_NONNULL = 1u << 1, /* a string that may not be null */
};

/* The members a list's line declares (the struct follows from it). */
#define VMS_MEMBER(m, kind, json, file, flags) VMS_MEMBER_##kind(m)
#define VMS_MEMBER_U64(m) uint64_t m;
#define VMS_MEMBER_HEX(m) uint64_t m;
#define VMS_MEMBER_I64N(m) int64_t m;
#define VMS_MEMBER_STR(m) const char *m;
#define VMS_MEMBER_BOOL(m) bool m;
#define VMS_MEMBER_SEGS(m)                                                     \
	struct vms_heap_seg *m;                                                \
	uint32_t n##m;
#define VMS_MEMBER_PARTS(m)                                                    \
	const struct vms_managed_part *m;                                      \
	uint32_t n##m;
#define VMS_COUNTER_MEMBER(m, key) uint64_t m;
#define VMS_ROLLUP_MEMBER(m, key, flags) uint64_t m;

/* The members a column list's line declares (VMS_TRACE_BLOCK_FIELDS). */
#define VMS_TCOL_MEMBER(m, type, file, coding) VMS_TCOL_TYPE_##type m;
#define VMS_TCOL_TYPE_U64 uint64_t
#define VMS_TCOL_TYPE_U32 uint32_t
#define VMS_TCOL_TYPE_I32 int32_t
#define VMS_TCOL_TYPE_U8 uint8_t

enum vms_tcol_coding { VMS_TCOL_PLAIN, VMS_TCOL_DELTA, VMS_TCOL_TIME };

/* One column of a column list: the member's offset and width, signed
 * (I32: sign-extended to 64 bits), its coding. */
struct vms_tcol {
	const char *member;
	const char *file;
	uint16_t off;
	uint8_t width; /* bytes: 8, 4 or 1 */
	bool is_signed;
	uint8_t coding; /* enum vms_tcol_coding */
};

struct vms_tcols {
	const char *name; /* "blocks", "log" */
	const struct vms_tcol *cols;
	size_t ncols;
	size_t size; /* of the struct */
};

extern const struct vms_tcols vms_trace_block_cols, vms_trace_event_cols;

/* A column's value in the row at p, as 64 bits (I32: sign-extended), and
 * back (false: it does not fit the member). */
uint64_t vms_tcol_get(const struct vms_tcol *c, const void *p);
bool vms_tcol_set(const struct vms_tcol *c, void *p, uint64_t v);

/* One field of a record, for the code that walks a record whole (the
 * exports, snapshot files, the round-trip test). */
struct vms_field {
	const char *member; /* its name in the struct */
	const char *json; /* key in the JSON export */
	const char *file; /* key in a snapshot file */
	uint8_t kind; /* enum vms_fkind */
	uint8_t flags; /* VMS_FF_* */
	uint16_t off; /* of the member in the struct */
	uint16_t noff; /* SEGS, PARTS: of its count (uint32_t) */
};

struct vms_record {
	const char *name; /* "malloc", ... */
	const struct vms_field *fields;
	size_t nfields;
	size_t size; /* of the struct */
};

extern const struct vms_record vms_heap_record, vms_malloc_record,
	vms_allocator_record, vms_managed_record, vms_managed_part_record,
	vms_trace_record;

/* The smaps counters: member (its JSON key), smaps key, offset in struct
 * vms_counters. */
struct vms_counter_field {
	const char *member;
	const char *smaps;
	uint8_t smaps_len;
	uint16_t off;
};
enum {
#define VMS_COUNTER_ONE(m, key) +1
	VMS_NCOUNTERS = 0 VMS_COUNTER_FIELDS(VMS_COUNTER_ONE)
#undef VMS_COUNTER_ONE
};
extern const struct vms_counter_field vms_counter_fields[VMS_NCOUNTERS];
enum {
#define VMS_COUNTER_ONE(m, key) +1
	VMS_NCOUNTER_ADDS = 0 VMS_COUNTER_ADDS(VMS_COUNTER_ONE)
#undef VMS_COUNTER_ONE
};
extern const struct vms_counter_field vms_counter_adds[VMS_NCOUNTER_ADDS];

/* The rollup's figures likewise (struct vms_rollup); flags VMS_FF_*. */
struct vms_rollup_field {
	const char *member;
	const char *smaps;
	uint8_t flags;
	uint16_t off;
};
enum {
#define VMS_ROLLUP_ONE(m, key, flags) +1
	VMS_NROLLUP = 0 VMS_ROLLUP_FIELDS(VMS_ROLLUP_ONE)
#undef VMS_ROLLUP_ONE
};
extern const struct vms_rollup_field vms_rollup_fields[VMS_NROLLUP];

#endif
