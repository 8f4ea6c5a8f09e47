/* step_jvm.c — the "jvm" step: a HotSpot JVM's Java heap, typed managed
 * heap of runtime "jvm" with the JVM's own figures, and its class space
 * and code cache named. See steps.h.
 *
 * A process is a JVM when it maps libjvm.so. Its figures come from its
 * hsperfdata file (hsperf.h), which the JVM maps shared: the region whose
 * path holds "/hsperfdata_" is opened through the source (procfile.h: the
 * very file mapped, through /proc/PID/map_files or the target's own root,
 * so a JVM in a container is read as it sees its /tmp), never by a path
 * vmscope makes up. The file holds no addresses (sun.gc.* are sizes
 * only: capacities, maxima, used; checked on JDK 17, 187 entries).
 *
 * Where the Java heap is comes from the JVM itself: libjvm.so exports its
 * VMStructs table (hsstructs.h, the Serviceability Agent's way in, in
 * .dynsym of every HotSpot), read in the snapshot's memory (names a fork
 * clone lacks read from libjvm's file, the same bytes):
 * Universe::_collectedHeap->_reserved is the heap's whole reservation for
 * every collector and every -Xmx, compressed oops or not. The regions of
 * that range must be anonymous private memory or the CDS archive's mapped
 * heap pieces (classes.jsa); else a note, and nothing typed. ZGC leaves
 * _reserved empty: its heap is the memfd it names java_heap, mapped in
 * three views (jvm_zgc.h); the remapped view is the heap, the two others
 * are named as views of it and stay shareable (its pages counted once).
 *
 * Only where VMStructs cannot be read (a core whose libjvm on disk is
 * another build than the one it mapped, a JVM without the export) is the
 * range inferred, and a note says so: the run of adjacent
 * anonymous regions (and CDS heap pieces) whose size is the heap's maximum
 * by hsperfdata (G1: the largest generation's maximum, each may take the
 * whole heap; Serial and Parallel: the generations' sum), below 32 GiB
 * first (compressed oops), else the only run of that size. Size guesses
 * once took G1's 1 GiB sum of maxima for -Xmx512m for the 1 GiB class
 * space: hence the JVM's own account first. The class space is the run of
 * the compressed class space's maximum size outside the heap (next to the
 * CDS archive when several fit); the code cache the runs of anonymous rwx and PROT_NONE
 * regions (their details begin "JVM ": a snapshot file keeps the regions
 * so named, snapfile_kept.c). A core is read only from its own memory
 * (it holds the mapping when dumped with coredump_filter bit 3): the file
 * on disk now is of another instant. A snapshot file puts back what the
 * step found when it was saved (the source's restore, asked by the step
 * itself: the pipeline would note its lack for every process). A JVM
 * without hsperfdata (-XX:-UsePerfData) still has its heap where
 * VMStructs says, without parts or used, and a note. What cannot be told
 * (neither; no run of the size) is a note, and the regions stay what
 * they were.
 *
 * The figures are read from the file while the steps run: the target is
 * held still then with -F; with -b fork the JVM runs on, and they are of
 * the instant they are read.
 *
 * A G1 heap's used is G1's own (hsg1.h): its regions' top - bottom read
 * through VMStructs in the snapshot's memory (with -b fork the clone's),
 * in place of hsperfdata's sum of the spaces, which leaves out the
 * regions being allocated in between collections; the parts stay
 * hsperfdata's (G1's counts per space are those very figures). A running
 * target (no VMS_SRC_CONSISTENT: the default sampler, --all) is read
 * between two reads of its collection count (hsg1.h). Where the regions
 * cannot be read, a note, and hsperfdata's used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/heaps/alloc_heap.h"
#include "analyze/rtscan.h"
#include "analyze/runtimes/hsg1.h"
#include "analyze/runtimes/hsperf.h"
#include "analyze/runtimes/hsstructs.h"
#include "analyze/runtimes/jvm_zgc.h"
#include "analyze/steps.h"
#include "model/managed.h"
#include "model/source.h"
#include "model/totals.h"

#define HSPERF_MAX_BYTES (1u << 20) /* PerfDataMemorySize: 32 KiB default */
#define OOPS_LIMIT (32ull << 30) /* compressed oops: heap below 32 GiB */
#define RUN_MAX 4096 /* regions looked at from one start */
#define ZGC_ALIAS "JVM heap view (ZGC: the Java heap's pages again)"

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && strcmp(s + n - t, tail) == 0;
}

/* Plain private anonymous memory, not yet claimed by an earlier step. */
static bool plain_anon(const struct vms_region *r)
{
	return !(r->perms & VMS_PERM_SHARED) && vms_region_is_anon(r) &&
	       (!r->path || step_path_starts(r, "[anon:")) &&
	       (r->type == VMS_T_PRIVATE_DATA || r->type == VMS_T_MANAGED_HEAP);
}

/* A piece of the Java heap: anonymous, or the CDS archive's heap regions
 * mapped privately from classes.jsa. */
static bool heap_piece(const struct vms_region *r)
{
	return plain_anon(r) || (r->path && !(r->perms & VMS_PERM_SHARED) &&
				 ends_with(r->path, ".jsa"));
}

/* The end index (exclusive) of a run of pieces from region i covering
 * exactly size bytes, or 0. */
static size_t run_of(const struct vms_snapshot *s, size_t i, uint64_t size,
		     bool (*piece)(const struct vms_region *))
{
	uint64_t start = s->regions[i].start;
	size_t j;

	for (j = i; j < s->nregions && j - i < RUN_MAX; j++) {
		const struct vms_region *r = &s->regions[j];

		if (!piece(r) || (j > i && r->start != r[-1].end) ||
		    r->end - start > size)
			return 0;
		if (r->end - start == size)
			return j + 1;
	}
	return 0;
}

/* The run of size bytes a JVM keeps: below limit first (the lowest there),
 * else the only one anywhere. near: prefer a run right after a region
 * whose path ends so (the class space after the CDS archive). */
static bool find_run(const struct vms_snapshot *s, uint64_t size,
		     uint64_t limit, const char *near,
		     bool (*piece)(const struct vms_region *), size_t *first,
		     size_t *end)
{
	size_t i, e, n = 0, nlow = 0, nnear = 0, f = 0, fe = 0, lf = 0, le = 0,
		     nf = 0, ne = 0;

	if (!size)
		return false;
	for (i = 0; i < s->nregions; i++) {
		if (!(e = run_of(s, i, size, piece)))
			continue;
		if (n++ == 0)
			f = i, fe = e;
		if (s->regions[e - 1].end <= limit && nlow++ == 0)
			lf = i, le = e;
		if (near && i >= 2 &&
		    ((s->regions[i - 1].path &&
		      ends_with(s->regions[i - 1].path, near)) ||
		     (s->regions[i - 2].path &&
		      ends_with(s->regions[i - 2].path, near))) &&
		    nnear++ == 0)
			nf = i, ne = e;
	}
	if (nlow)
		*first = lf, *end = le;
	else if (nnear == 1)
		*first = nf, *end = ne;
	else if (n == 1)
		*first = f, *end = fe;
	else
		return false;
	return true;
}

static int note(struct vms_snapshot *s, const char *why, struct vms_error *err)
{
	if (vms_snapshot_note(s, "jvm", why) < 0)
		return step_nomem(err, "jvm");
	return 0;
}

/* The JVM's hsperfdata mapping, or NULL. */
static const struct vms_region *perf_region(const struct vms_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];

		/* (Shared; a core does not say: its regions are all 'p'.) */
		if (r->path && strstr(r->path, "/hsperfdata_") &&
		    ((r->perms & VMS_PERM_SHARED) || s->src.pid == 0))
			return r;
	}
	return NULL;
}

/* Reads the file behind r into a malloc'd buffer: 0, or -1 and why. */
static int read_perf(struct vms_snapshot *s, const struct vms_region *r,
		     char **buf, size_t *len, const char **why)
{
	int fd = vms_source_open_file(s, r, NULL);
	struct stat st;
	size_t n = 0, want;
	ssize_t got;

	*why = "its hsperfdata file cannot be opened (the mapped file is "
	       "gone, or not permitted)";
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		return -1;
	}
	want = (size_t)st.st_size < HSPERF_MAX_BYTES ? (size_t)st.st_size
						     : HSPERF_MAX_BYTES;
	if (!(*buf = malloc(want))) {
		close(fd);
		*why = "out of memory";
		return -1;
	}
	while (n < want && (got = pread(fd, *buf + n, want - n, (off_t)n)) > 0)
		n += (size_t)got;
	close(fd);
	*len = n;
	return 0;
}

/* The snapshot's own copy of the mapping (a core dumped with file-backed
 * shared memory, coredump_filter bit 3): 0, or -1 and why. */
static int read_perf_mem(struct vms_snapshot *s, const struct vms_region *r,
			 char **buf, size_t *len, const char **why)
{
	uint64_t size = vms_region_size(r);
	size_t want = size < HSPERF_MAX_BYTES ? (size_t)size : HSPERF_MAX_BYTES;
	struct vms_error rerr = { 0 };
	ssize_t got = -1;

	*why = "a JVM, but its hsperfdata is not in the snapshot (a snapshot "
	       "file keeps no memory; a core holds it only when dumped with "
	       "coredump_filter bit 3, file-backed shared memory): its heap "
	       "cannot be told from the map";
	if (!(vms_source_caps(s) & VMS_SRC_MEMORY))
		return -1;
	if (!(*buf = malloc(want))) {
		*why = "out of memory";
		return -1;
	}
	got = vms_source_read(s, r->start, *buf, want, &rerr);
	if (got < 32) {
		free(*buf);
		*buf = NULL;
		return -1;
	}
	*len = (size_t)got;
	return 0;
}

static void name_regions(struct vms_snapshot *s, size_t first, size_t end,
			 const char *detail, bool managed)
{
	size_t i;

	for (i = first; i < end; i++) {
		if (managed)
			s->regions[i].type = VMS_T_MANAGED_HEAP;
		s->regions[i].detail = detail;
	}
}

static int parts_of(struct vms_snapshot *s, const struct hsperf *h,
		    struct vms_managed *m)
{
	struct vms_managed_part *p = arena_alloc(
		&s->arena, (HSPERF_GENS * HSPERF_SPACES + 2) * sizeof(*p));
	const struct hsperf_space *extra[2] = { &h->metaspace,
						&h->class_space };
	static const char *const extra_name[2] = { "metaspace", "class space" };
	uint32_t g, k, n = 0;
	int64_t used = 0;

	if (!p)
		return -1;
	for (g = 0; g < h->ngens; g++) {
		const struct hsperf_gen *gen = &h->gen[g];

		for (k = 0; k < gen->nspaces; k++) {
			const struct hsperf_space *sp = &gen->space[k];
			const char *name = gen->nspaces == 1 && gen->name[0]
						   ? gen->name
						   : sp->name;

			p[n] = (struct vms_managed_part){
				arena_strdup(&s->arena, name), sp->capacity,
				sp->used, sp->max, true
			};
			if (!p[n].name)
				return -1;
			if (used >= 0)
				used = sp->used >= 0 ? used + sp->used : -1;
			n++;
		}
	}
	for (k = 0; k < 2; k++) {
		if (extra[k]->max < 0 && extra[k]->capacity < 0)
			continue;
		p[n++] = (struct vms_managed_part){ extra_name[k],
						    extra[k]->capacity,
						    extra[k]->used,
						    extra[k]->max, false };
	}
	m->parts = p;
	m->nparts = n;
	m->used = n ? used : -1;
	m->figures = "hsperfdata";
	return 0;
}

/* A piece of the class space: not the Java heap found before. */
static bool class_piece(const struct vms_region *r)
{
	return plain_anon(r) && r->type != VMS_T_MANAGED_HEAP;
}

/* The class space and the code cache, named when found. */
static bool code_piece(const struct vms_region *r)
{
	/* not the Java heap: its reserved top may lie right below the
	 * code cache (the heap among the mmaps, -XX:-UseCompressedOops),
	 * whose run would take it */
	return plain_anon(r) && r->type != VMS_T_MANAGED_HEAP &&
	       (r->perms == (VMS_PERM_R | VMS_PERM_W | VMS_PERM_X) ||
		r->perms == 0);
}

static void name_native(struct vms_snapshot *s, const struct hsperf *h)
{
	size_t i, first, end;

	if (h->class_space.max > 0 &&
	    find_run(s, (uint64_t)h->class_space.max, 0, ".jsa", class_piece,
		     &first, &end))
		name_regions(s, first, end, "JVM class space", false);
	for (i = 0; i < s->nregions; i = end) {
		unsigned perms;

		end = managed_run(s, i, code_piece, &perms);
		if (end == i) {
			end = i + 1;
			continue;
		}
		if (perms & VMS_PERM_X)
			name_regions(s, i, end, "JVM code cache", false);
	}
}

/* Where VMStructs is read: the snapshot's memory, and libjvm's file for
 * what a fork clone has not in its page tables (the names, in libjvm's
 * read-only mappings: the same bytes as the file's). */
struct jvm_mem {
	struct vms_snapshot *s;
	const struct vms_image *im;
	const struct elfimage_src *src;
	bool file;
};

static bool read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct jvm_mem *m = ctx;
	uint64_t off;

	const struct vms_region *r;

	if (rtscan_read(m->s, addr, buf, len))
		return true;
	/* only read-only pages of libjvm's own mapping: what is written
	 * (relocated data, .bss) the file has not as the JVM has it */
	r = vms_snapshot_find(m->s, addr);
	return m->file && r && !(r->perms & VMS_PERM_W) && r->path &&
	       ends_with(r->path, "/libjvm.so") && addr + len <= r->end &&
	       addr >= m->im->bias &&
	       elfimage_vaddr_offset(m->im->elf, m->src, addr - m->im->bias,
				     len, &off) &&
	       elfimage_src_read(m->src, off, buf, len) == len;
}

/* The Java heap's reservation by the JVM's own account: libjvm's exported
 * VMStructs (hsstructs.h) read in the snapshot's memory. 0 with *t (the
 * table's entries), *heap (the CollectedHeap*) and [*start, *end), or -1
 * and why (*t then as far as it was read: what it lacks not had). */
static int exact_heap(struct vms_snapshot *s, unsigned have,
		      struct hsstructs *t, uint64_t *heap, uint64_t *start,
		      uint64_t *end, const char **why)
{
	static const char *const names[7] = {
		"gHotSpotVMStructs",
		"gHotSpotVMStructEntryArrayStride",
		"gHotSpotVMStructEntryTypeNameOffset",
		"gHotSpotVMStructEntryFieldNameOffset",
		"gHotSpotVMStructEntryIsStaticOffset",
		"gHotSpotVMStructEntryOffsetOffset",
		"gHotSpotVMStructEntryAddressOffset",
	};
	const struct vms_image *im = NULL;
	struct hsstructs_layout l;
	uint64_t *v[7] = { &l.table,	 &l.stride, &l.type_name, &l.field_name,
			   &l.is_static, &l.offset, &l.address };
	struct elfimage_src src;
	struct elfimage_sym sym;
	size_t i;
	int fd = -1, rc = -1;
	bool ok = true;

	memset(t, 0, sizeof(*t));
	*why = "the snapshot has no memory or files to read libjvm's VMStructs "
	       "in";
	if ((have & (VMS_SRC_MEMORY | VMS_SRC_FILES)) !=
	    (VMS_SRC_MEMORY | VMS_SRC_FILES))
		return -1;
	for (i = 0; i < s->nimages && !im; i++)
		if (s->images[i].path &&
		    ends_with(s->images[i].path, "/libjvm.so"))
			im = &s->images[i];
	*why = "libjvm.so exports no gHotSpotVMStructs (or cannot be opened)";
	for (i = 0; ok && im && i < 7; i++) {
		ok = i == 0 ? alloc_image_symbol(s, im, names[0], &sym, &fd,
						 &src)
			    : elfimage_symbol(im->elf, &src, names[i], &sym);
		ok = ok && sym.size == sizeof(uint64_t) &&
		     rtscan_read(s, im->bias + sym.value, v[i], sizeof(*v[i]));
		if (ok && i == 0)
			*why = "libjvm's VMStructs layout cannot be read";
	}
	if (im && ok) {
		struct jvm_mem m = { s, im, &src, fd >= 0 };

		rc = hsstructs_read(&l, read_mem, &m, s->cap.page_size, t, why);
		if (rc == 0)
			rc = hsstructs_heap(t, read_mem, &m, s->cap.page_size,
					    heap, start, end, why);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* hsg1's batched reader: the snapshot's memory, each piece alone. */
static bool read_each_mem(void *ctx, const uint64_t *addr, size_t n, size_t len,
			  void *buf, unsigned char *ok)
{
	struct jvm_mem *m = ctx;
	struct vms_error e = { 0 };

	return vms_source_read_each(m->s, addr, n, len, buf, ok, &e) == 0;
}

/* A G1 heap's used by its own regions (hsg1.h) in m, in place of
 * hsperfdata's sum of its spaces, which leaves out what the regions
 * being allocated in hold until a collection or their retirement (jstat
 * the same; jcmd GC.heap_info counts them). Where the heap is G1's (g1:
 * by hsperfdata; else by HeapRegion::GrainBytes) and they cannot be read,
 * a note says why and m keeps hsperfdata's used. 0, or -1 on out of
 * memory. */
static int g1_used(struct vms_snapshot *s, unsigned have,
		   const struct hsstructs *t, uint64_t heap, uint64_t hs,
		   uint64_t he, bool g1, struct vms_managed *m,
		   struct vms_error *err)
{
	struct jvm_mem mem = { s, NULL, NULL, false };
	const struct hsg1_reader rd = { read_mem, read_each_mem, &mem };
	bool still = (have & VMS_SRC_CONSISTENT) != 0;
	const char *why;
	char msg[400];
	uint64_t used;
	int rc;

	if (still)
		vms_source_hold(s, true);
	rc = hsg1_used(t, &rd, heap, hs, he, still, &used, &why);
	if (still) /* one stop for the regions, as the other steps' */
		vms_source_hold(s, false);
	if (rc == -2)
		return step_nomem(err, "jvm");
	if (rc == 0) {
		m->used = (int64_t)used;
		m->figures = m->nparts ? "G1 heap regions (VMStructs); parts: "
					 "hsperfdata"
				       : "G1 heap regions (VMStructs)";
		return 0;
	}
	if (rc == 1 && !g1)
		return 0; /* not G1's */
	snprintf(msg, sizeof(msg), "the G1 heap's used is %s: %s",
		 m->used >= 0 ? "hsperfdata's (jstat's: between collections "
				"it leaves out what the regions being "
				"allocated in hold)"
			      : "not known",
		 why);
	return note(s, msg, err);
}

/* The regions [first, end) that hold [start, stop), adjacent, each a
 * piece of the heap: true when so. The first may begin below start and
 * the last end past stop where it is plain anonymous memory: the kernel
 * merged a neighbour's mapping with the heap's (a glibc mmapped chunk
 * mapped right below it, the same flags as its committed regions; seen
 * under load with -XX:-UseCompressedOops, whose heap lies among the
 * mmaps). Such a region is not the heap's whole: the parts step splits
 * it (the managed entry's range is [start, stop)). */
static bool regions_of(const struct vms_snapshot *s, uint64_t start,
		       uint64_t stop, size_t *first, size_t *end)
{
	ptrdiff_t k = vms_snapshot_find_index(s, start);
	size_t i, j;

	if (k < 0)
		return false;
	i = (size_t)k;
	if (s->regions[i].start != start && !plain_anon(&s->regions[i]))
		return false;
	for (j = i; j < s->nregions && s->regions[j].start < stop; j++)
		if (!heap_piece(&s->regions[j]) ||
		    (j > i && s->regions[j].start != s->regions[j - 1].end) ||
		    (s->regions[j].end > stop && !plain_anon(&s->regions[j])))
			return false;
	if (s->regions[j - 1].end < stop)
		return false;
	*first = i;
	*end = j;
	return true;
}

/* The committed bytes of [start, stop) in the regions [first, end): a
 * region that reaches past it counts by its share (its committed is its
 * size or none, the heap's pieces being one or the other). */
static uint64_t committed_in(struct vms_snapshot *s, size_t first, size_t end,
			     uint64_t start, uint64_t stop)
{
	uint64_t sum = 0;
	size_t i;

	for (i = first; i < end; i++) {
		struct vms_region *r = &s->regions[i];
		uint64_t lo = r->start > start ? r->start : start;
		uint64_t hi = r->end < stop ? r->end : stop;

		totals_region_derive(r);
		sum += (uint64_t)((unsigned __int128)vms_region_committed(r) *
				  (hi - lo) / vms_region_size(r));
	}
	return sum;
}

/* The heap from hsperfdata's maximum size alone (no VMStructs to read):
 * G1 gives each generation the whole heap as its maximum, the others
 * split it (the sum). */
static bool inferred_heap(const struct vms_snapshot *s, const struct hsperf *h,
			  size_t *first, size_t *end, uint64_t *size)
{
	uint64_t sum, largest;

	hsperf_heap_max(h, s->cap.page_size, &sum, &largest);
	*size = strcmp(h->policy, "GarbageFirst") == 0 ? largest : sum;
	return find_run(s, *size, OOPS_LIMIT, NULL, heap_piece, first, end);
}

/* The JVM's hsperfdata, parsed into *h: 0, or -1 and why (a static
 * string or one in msg). */
static int perf_of(struct vms_snapshot *s, unsigned have, struct hsperf *h,
		   char *msg, size_t msgsz, const char **why)
{
	const struct vms_region *pr = perf_region(s);
	struct vms_error perr = { 0 };
	char *buf = NULL;
	size_t len = 0;

	*why = "a JVM without an hsperfdata file mapped (-XX:-UsePerfData or "
	       "-XX:+PerfDisableSharedMem)";
	if (!pr)
		return -1;
	if (s->src.pid == 0) {
		/* No live process: the file on disk now is of another
		 * instant (or another JVM): only the snapshot's own copy. */
		if (read_perf_mem(s, pr, &buf, &len, why) < 0)
			return -1;
	} else if (!(have & VMS_SRC_FILES)) {
		*why = "a JVM, but its hsperfdata file cannot be read here";
		return -1;
	} else {
		if (have & VMS_SRC_CONSISTENT)
			vms_source_hold(s, true);
		if (read_perf(s, pr, &buf, &len, why) < 0) {
			vms_source_hold(s, false);
			return -1;
		}
		vms_source_hold(s, false);
	}
	if (hsperf_parse(buf, len, h, &perr) < 0) {
		free(buf);
		snprintf(msg, msgsz, "%.190s", perr.msg);
		*why = msg;
		return -1;
	}
	free(buf);
	return 0;
}

static int step_jvm_run(struct vms_snapshot *s, unsigned have,
			struct vms_error *err)
{
	struct vms_managed *m;
	struct hsperf h;
	struct hsstructs t;
	uint64_t sum = 0, heap = 0, hs = 0, he = 0;
	size_t i, first = 0, end = 0;
	const char *pwhy, *detail, *xwhy = "", *zwhy = "";
	char msg[400], pmsg[200];
	bool jvm = false, perf, exact;
	int z = 1;

	/* A source without files may have kept what this step found (a
	 * snapshot file): put back, it stands for the step. */
	if (!(have & VMS_SRC_FILES)) {
		int kept = vms_source_restore(s, "jvm", err);

		if (kept != 0)
			return kept < 0 ? -1 : 0;
	}
	for (i = 0; i < s->nregions && !jvm; i++)
		jvm = s->regions[i].path &&
		      ends_with(s->regions[i].path, "/libjvm.so");
	if (!jvm)
		return 0;
	perf = perf_of(s, have, &h, pmsg, sizeof(pmsg), &pwhy) == 0;
	exact = exact_heap(s, have, &t, &heap, &hs, &he, &xwhy) == 0;
	/* no range from VMStructs: ZGC's, whose views say where it is */
	if (!exact && (z = jvm_zgc_find(s, ZGC_ALIAS, &first, &end, &zwhy)) < 0)
		xwhy = zwhy;
	if (!perf && !exact && z != 0) {
		snprintf(msg, sizeof(msg),
			 "%s, and %s: its heap cannot be told from the map",
			 pwhy, xwhy);
		return note(s, msg, err);
	}
	if (exact) {
		if (!regions_of(s, hs, he, &first, &end)) {
			snprintf(msg, sizeof(msg),
				 "the Java heap the JVM reserved (%#llx-%#llx, "
				 "by its VMStructs) is not a run of its "
				 "anonymous regions in the map",
				 (unsigned long long)hs,
				 (unsigned long long)he);
			return note(s, msg, err);
		}
	} else if (z == 0) {
		/* ZGC: the remapped view, found by its layout */
	} else if (inferred_heap(s, &h, &first, &end, &sum)) {
		snprintf(msg, sizeof(msg),
			 "the Java heap's range is inferred from its size "
			 "(hsperfdata's maximum, %llu bytes), not read: %s",
			 (unsigned long long)sum, xwhy);
		if (note(s, msg, err) < 0)
			return -1;
	} else {
		snprintf(msg, sizeof(msg),
			 "the Java heap (%llu bytes at most, by hsperfdata) is "
			 "no run of adjacent anonymous regions of that size "
			 "(%s)",
			 (unsigned long long)sum, xwhy);
		return note(s, msg, err);
	}
	detail = perf && h.policy[0]
			 ? arena_printf(&s->arena, "Java heap (%s)", h.policy)
			 : "Java heap";
	if (!detail)
		return step_nomem(err, "jvm");
	if (!exact) {
		hs = s->regions[first].start;
		he = s->regions[end - 1].end;
	}
	/* the regions inside it; one reaching past it is split by the
	 * parts step */
	for (i = first; i < end; i++)
		if (s->regions[i].start >= hs && s->regions[i].end <= he)
			name_regions(s, i, i + 1, detail, true);
	m = managed_find(s, "jvm", hs, he);
	if (!m)
		m = managed_add(s, "jvm", hs, he);
	if (!m || (perf && parts_of(s, &h, m) < 0))
		return step_nomem(err, "jvm");
	m->committed = committed_in(s, first, end, hs, he);
	if (exact &&
	    g1_used(s, have, &t, heap, hs, he,
		    perf && strcmp(h.policy, "GarbageFirst") == 0, m, err) < 0)
		return -1;
	if (!perf) {
		snprintf(msg, sizeof(msg),
			 "%s: the Java heap is where its VMStructs say, but "
			 "its spaces%s are not known",
			 pwhy, m->used >= 0 ? "" : " and use");
		if (note(s, msg, err) < 0)
			return -1;
	}
	if (perf)
		name_native(s, &h);
	return 0;
}

/* What a snapshot file keeps of it (model/kept.h). */
static const struct vms_kept kept = {
	.step = "jvm",
	.runtime = "jvm",
	.named = "JVM ",
};

const struct vms_step vms_step_jvm = {
	.name = "jvm",
	.doing = "reading the JVM's heap",
	.run = step_jvm_run,
	.kept = &kept,
};
