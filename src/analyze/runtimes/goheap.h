/* goheap.h — a Go program's heap as its own runtime keeps it: where
 * runtime.mheap_ is and how runtime.mheap and runtime.mspan are laid out,
 * from the program's DWARF (goheap_layout_fd, libdw), and the walk of
 * mheap_.allspans over the snapshot's memory (goheap_walk).
 *
 * What the walk adds up is what runtime.ReadMemStats reports once it has
 * flushed the Ps' caches (src/runtime/mstats.go, readmemstats_m): every
 * span in state mSpanInUse holds allocCount objects of elemsize bytes (an
 * allocation from a cached span counts at once, a free only when its span
 * is swept, as HeapAlloc counts them), and its npages pages are HeapInuse;
 * the spans in state mSpanManual are the goroutines' stacks, StackInuse.
 *
 * Contract:
 *  - goheap_layout_fd() reads the DWARF of the ELF file open at fd with
 *    libdw, through ELF_C_READ (preads; never mmapped: the target's own
 *    file is then no file vmscope maps, and a file truncated meanwhile
 *    gives an error, not a SIGBUS). It looks only in the compile units
 *    named "runtime" (a few thousand entries; the rest are skipped by
 *    their headers). Returns 0, or -1 with why[] saying what is missing
 *    (no DWARF: a program built with -ldflags=-w; a field renamed by a Go
 *    version this does not know). Names, never a Go version: a layout is
 *    whatever the program's DWARF says, checked for sense (each field
 *    inside the struct, of the size read).
 *  - goheap_walk() reads memory only through rd, never allocates, and is
 *    bounded: at most GOHEAP_MAX_SPANS spans, each pointer and each span
 *    checked (aligned, its pages and objects inside its npages) before it
 *    is counted; a span that fails is counted in bad, never followed.
 *    Garbage memory gives bad counts and a note, never a crash or a loop
 *    (tests/fuzz/fuzz_rtheap.c).
 */
#ifndef VMS_GOHEAP_H
#define VMS_GOHEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct goheap_layout {
	uint64_t mheap; /* runtime.mheap_'s link-time address */
	uint32_t allspans; /* offset of mheap.allspans: {array, len, cap} */
	uint32_t span_size; /* sizeof(runtime.mspan) */
	/* Offsets in runtime.mspan. */
	uint32_t start, npages, alloc_count, elemsize, state;
	uint8_t alloc_count_size; /* bytes of allocCount: 2 (uint16) */
	uint8_t ptr_size; /* 8 */
	/* The states' values (runtime.mSpanInUse, runtime.mSpanManual) and
	 * the runtime's page (runtime._PageSize), its DWARF constants. */
	uint8_t in_use, manual;
	uint32_t page_size;
};

/* allspans longer than this is not walked (a terabyte of 8 KiB pages). */
#define GOHEAP_MAX_SPANS (1u << 27)
/* A span's bytes read at most (1.19: 144). */
#define GOHEAP_MAX_SPAN_SIZE 512

int goheap_layout_fd(int fd, struct goheap_layout *out, char *why,
		     size_t whylen);

/* Reads len bytes at addr of the snapshot's memory: true when all came. */
typedef bool (*goheap_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* What the walk adds up, for the whole heap and per range given. */
struct goheap_sums {
	uint64_t heap_inuse; /* in-use spans' pages, bytes (HeapInuse) */
	uint64_t heap_alloc; /* their objects, bytes (HeapAlloc) */
	uint64_t objects; /* their objects (HeapObjects) */
	uint64_t stack_inuse; /* manual spans' pages, bytes (StackInuse) */
	uint64_t spans; /* spans counted (in use or manual) */
};

struct goheap_range {
	uint64_t start, end; /* spans starting here count here too */
	struct goheap_sums sums;
};

struct goheap_walk {
	struct goheap_sums all;
	uint64_t outside; /* spans counted in no range */
	uint64_t outside_alloc; /* their objects' bytes */
	uint64_t bad; /* pointers or spans that failed a check */
	uint64_t unread; /* spans whose memory could not be read */
	uint64_t nspans; /* allspans' length */
	const char *why; /* NULL, or why the walk stopped or is partial */
};

/* Progress, every 512 spans: non-zero cancels the walk. */
typedef int (*goheap_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Walks mheap_.allspans at mheap (runtime address, the load bias
 * applied), counting each span in the ranges (sorted, not overlapping)
 * that hold its start. Returns 0 (out->why may still say what was
 * partial), -1 when allspans itself cannot be had or the walk was
 * cancelled (out->why says which). progress may be NULL; ctx goes to rd
 * and progress. */
int goheap_walk(const struct goheap_layout *L, uint64_t mheap,
		goheap_read_fn rd, goheap_progress_fn progress, void *ctx,
		struct goheap_range *ranges, size_t nranges,
		struct goheap_walk *out);

/* ---- without DWARF (a stripped program: -ldflags="-s -w", distros) ---- */

/* The Go version that the first bytes of the .go.buildinfo section give
 * ("go1.19.8"): Go 1.18+'s form, a 32-byte header ("\xff Go buildinf:",
 * pointer size 8, flags with bit 1 set) then the version as a varint
 * length and its bytes. False for another form (a 32-bit program's
 * included) or a version over outlen. */
bool goheap_buildinfo_version(const void *buf, size_t len, char *out,
			      size_t outlen);

/* The layout of a Go version this has read from that version's DWARF
 * (go1.19: tests/live/test_go.py ties a stripped program's walk with it
 * to the program's own MemStats), with
 * mheap and allspans 0: the walk is given allspans' own address, found by
 * goheap_find_allspans(). False for a version not in the table: said, not
 * guessed. */
bool goheap_layout_known(const char *version, struct goheap_layout *out);

/* Spans looked at per candidate slice. */
#define GOHEAP_PROBE 32

/* The address of mheap_.allspans among n words of the program's writable
 * memory (w[k] at lo + 8k): the one slice header {array, len, cap} (0 <
 * len <= cap; array on a 4 KiB page: the runtime takes it from sysAlloc)
 * whose first GOHEAP_PROBE elements (or all, when fewer) all point to
 * spans that read as sound under L (state dead, in use or manual; an
 * in-use or manual one on a page inside one of the ranges, sorted, when
 * nranges > 0, its objects within its pages), at least one of them in
 * use. 0 when none is, or when two different ones are (*why says which).
 * Reads through rd. */
uint64_t goheap_find_allspans(const struct goheap_layout *L, const uint64_t *w,
			      size_t n, uint64_t lo,
			      const struct goheap_range *ranges, size_t nranges,
			      goheap_read_fn rd, void *ctx, const char **why);

#endif
