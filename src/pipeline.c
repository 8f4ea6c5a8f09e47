/* pipeline.c — the steps table, the pipeline that runs it, and the live
 * capture. See pipeline.h.
 */
#include "pipeline.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "analyze/steps.h"
#include "base/clock.h"
#include "base/mapguard.h"
#include "capture/file/coredump.h"
#include "capture/file/snapfile.h"
#include "elf/elfcache.h"
#include "linux/pmscan.h"
#include "linux/procfile.h"
#include "model/source.h"
#include "model/totals.h"

/* The steps in order, one row each: each may rely on the ones above it.
 * X(NAME) is the row const struct vms_step vms_step_NAME that the step's
 * file defines (analyze/steps.h).
 *  - jvm, go, dotnet: runtimes; each uses files or memory only when its
 *    runtime is there, and says itself what it lacks (no note for other
 *    processes);
 *  - allocator, v8, cpython look at what the steps above left private
 *    data; they need memory and the files only when the process has
 *    their allocator or runtime (by its images' symbols), and then note
 *    themselves what they could not do.
 * A step whose row has .kept asks a source without memory (a snapshot
 * file) to put back what it kept. */
#define VMS_STEPS(X)                                                           \
	X(classify)                                                            \
	X(images)                                                              \
	X(heaps)                                                               \
	X(malloc)                                                              \
	X(jvm)                                                                 \
	X(go)                                                                  \
	X(dotnet)                                                              \
	X(stacks)                                                              \
	X(allocator)                                                           \
	X(v8)                                                                  \
	X(cpython)                                                             \
	X(parts)                                                               \
	X(totals)

#define STEP_DECL(name) extern const struct vms_step vms_step_##name;
#define STEP_ROW(name) &vms_step_##name,
VMS_STEPS(STEP_DECL)

const struct vms_step *const vms_steps[] = { VMS_STEPS(STEP_ROW) NULL };
#define NSTEPS (sizeof(vms_steps) / sizeof(vms_steps[0]) - 1)
const size_t vms_nsteps = NSTEPS;
_Static_assert(NSTEPS <= VMS_STEPS_MAX, "VMS_STEPS_MAX: more steps");

/* What a snapshot file keeps: the rows' declarations, NULL-ended. */
void vms_steps_kept(const struct vms_kept *out[VMS_STEPS_MAX + 1])
{
	size_t i, n = 0;

	for (i = 0; i < NSTEPS; i++)
		if (vms_steps[i]->kept)
			out[n++] = vms_steps[i]->kept;
	out[n] = NULL;
}

static void expect_one(void *c, const char *const *names)
{
	elfcache_expect(c, names);
}

/* Every name the steps may ask of the images, known to a run's cache of
 * ELF files before the steps of a capture ask any (steps.h, asks). */
static void expect_names(struct elfcache *c)
{
	size_t i;

	for (i = 0; i < NSTEPS; i++)
		if (vms_steps[i]->asks)
			vms_steps[i]->asks(expect_one, c);
}

static const struct vms_sampler *const samplers[] = {
	&vms_sampler_pss,
	&vms_sampler_fork,
	&vms_sampler_maps,
};

const struct vms_sampler *vms_sampler_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(samplers) / sizeof(samplers[0]); i++)
		if (strcmp(samplers[i]->name, name) == 0)
			return samplers[i];
	return NULL;
}

/* Why the source cannot give what a step asks for. */
static const char *lack(const struct vms_snapshot *s, unsigned missing)
{
	if (missing & VMS_SRC_MEMORY)
		return s->src.no_memory ? s->src.no_memory
					: "no memory to read";
	if (missing & (VMS_SRC_FILES | VMS_SRC_ELF))
		return "the mapped files cannot be opened";
	return "the memory is not of one instant (the target ran while it "
	       "was read: -F or -b fork hold it still)";
}

static int note(struct vms_snapshot *s, const struct vms_step *st,
		const char *what, const char *why, struct vms_error *err)
{
	char buf[600];

	snprintf(buf, sizeof(buf), "%s: %s", what, why);
	if (vms_snapshot_note(s, st->name, buf) < 0)
		return step_nomem(err, st->name);
	return 0;
}

/* Whether st runs when the steps named in only (NULL-ended; NULL: all)
 * are asked for. */
static bool step_chosen(const struct vms_step *st, const char *const *only)
{
	if (!only || st->essential)
		return true;
	for (; *only; only++)
		if (strcmp(*only, st->name) == 0)
			return true;
	return false;
}

static int run_steps(struct vms_snapshot *s, unsigned all,
		     const char *const *only, struct vms_error *err)
{
	size_t i;

	for (i = 0; i < vms_nsteps; i++) {
		const struct vms_step *st = vms_steps[i];
		struct vms_error serr = { 0 };
		unsigned have = all;

		if (!step_chosen(st, only))
			continue;

		if (st->settles && (all & VMS_SRC_SETTLE) &&
		    (all & VMS_SRC_MEMORY))
			have |= VMS_SRC_CONSISTENT; /* it reads twice */

		if (vms_source_progress(s, st->doing, i, vms_nsteps))
			return vms_error_set(err, VMS_ERR_CAPTURE, ECANCELED,
					     "cancelled");
		/* A source that lacks what the step uses may have kept what
		 * it made (a snapshot file: the heaps found in memory). */
		if (((st->needs | st->wants) & ~have) != 0) {
			int kept = vms_source_restore(s, st->name, err);

			if (kept < 0)
				return -1;
			if (kept > 0)
				continue;
		}
		if ((st->needs & have) != st->needs) {
			if (note(s, st, "not done", lack(s, st->needs & ~have),
				 err) < 0)
				return -1;
			continue;
		}
		if ((st->wants & have) != st->wants &&
		    note(s, st, "partly done", lack(s, st->wants & ~have),
			 err) < 0)
			return -1;
		if (st->run(s, have, &serr) == 0)
			continue;
		if (st->essential || serr.kind == VMS_ERR_NOMEM) {
			*err = serr;
			return -1;
		}
		if (note(s, st, "failed", serr.msg, err) < 0)
			return -1;
	}
	return 0;
}

int vms_snapshot_finish(struct vms_snapshot *s, const struct vms_finish_opts *o,
			struct vms_error *err)
{
	unsigned have = vms_source_caps(s);
	int rc;

	if (o && o->no_memory)
		have &= ~(unsigned)(VMS_SRC_MEMORY | VMS_SRC_CONSISTENT |
				    VMS_SRC_SETTLE);
	if (!s->finished) {
		s->nnotes_capture = s->nnotes;
		s->finished = true;
	}
	s->nnotes = s->nnotes_capture; /* the steps' notes are made again */
	if (!s->cap.page_size) /* a snapshot made from text alone */
		s->cap.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	/* Steps hold the memory when they first read it; they let go only
	 * when all are done: one stop of a live target for all of them. */
	s->src.in_steps = true;
	rc = run_steps(s, have, o ? o->steps : NULL, err);
	s->src.in_steps = false;
	/* The files the steps read are read: a root held open would keep a
	 * mount busy (procfile.h). */
	procfile_let_root_go(s);
	s->src.hold_refused = false;
	if (vms_source_hold(s, false) < 0 && rc == 0 &&
	    vms_snapshot_note(s, "hold",
			      "the target was let go before the steps that "
			      "read its memory were done (held too long, or "
			      "vmscope was stopped): what they read after that "
			      "is of a running target") < 0)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	return rc;
}

/* The kernel's release, asked once a run (a run of vmscope --all asked
 * it once a process). */
static pthread_once_t kernel_once = PTHREAD_ONCE_INIT;
static char kernel_release[sizeof(((struct utsname *)0)->release)];

static void kernel_read(void)
{
	struct utsname u;

	if (uname(&u) == 0)
		memcpy(kernel_release, u.release, sizeof(kernel_release));
}

static void fill_capture_info(struct vms_snapshot *s,
			      const struct vms_sampler *smp)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	s->cap.backend = smp->name;
	s->cap.taken_at_sec = ts.tv_sec;
	s->cap.taken_at_nsec = ts.tv_nsec;
	s->cap.monotonic_ns = vms_mono_ns();
	clock_gettime(CLOCK_BOOTTIME, &ts);
	s->cap.boottime_ns =
		(uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	s->cap.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	pthread_once(&kernel_once, kernel_read);
	s->cap.kernel = kernel_release[0]
				? arena_strdup(&s->arena, kernel_release)
				: "unknown";
}

/* What a layout being filled says of itself (s->cap.partial). */
static const char partial_rss[] = "layout from /proc/PID/maps, Rss and "
				  "Swap from the page tables; the rest of "
				  "the counters being read";
static const char partial_fill[] = "layout from /proc/PID/maps; the "
				   "counters of the regions read so far";
static const char partial_stopped[] = "layout from /proc/PID/maps; the "
				      "counters of the regions read before "
				      "the capture stopped";
static const char partial_moved[] = "layout from /proc/PID/maps, read "
				    "again: the process mapped while its "
				    "counters were read; none kept";

/* ---- the streaming fill in place (vms_capture_opts.layout) ---- */

static void lend_take(struct vms_lend *l, size_t i)
{
	l->saved_insum = l->insum[i];
	if (l->insum[i])
		totals_region_move(l->pre, i, -1);
	l->insum[i] = 0;
}

static void lend_undo(struct vms_lend *l, size_t i)
{
	if (l->saved_insum && !l->insum[i])
		totals_region_move(l->pre, i, 1);
	l->insum[i] = l->saved_insum;
}

int vms_lend_begin(struct vms_snapshot *s, struct vms_snapshot *pre,
		   struct vms_error *err)
{
	struct vms_lend *l = calloc(1, sizeof(*l));

	if (l)
		l->insum = malloc(pre->nregions + 1);
	if (!l || !l->insum) {
		free(l);
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	}
	memset(l->insum, 1, pre->nregions + 1);
	l->pre = pre;
	l->take = lend_take;
	l->undo = lend_undo;
	s->regions = pre->regions;
	s->regions_cap = pre->regions_cap;
	s->nregions = 0;
	pre->regions_lent = true;
	s->lend = l;
	return 0;
}

void vms_lend_end(struct vms_snapshot *s, bool ok)
{
	struct vms_lend *l = s->lend;
	struct vms_snapshot *pre;
	size_t i;
	bool moved;

	if (!l)
		return;
	pre = l->pre;
	moved = !ok && vms_lend_shifted(s);
	s->lend = NULL;
	if (!ok) {
		struct vms_finish_opts fo = { .no_memory = true };
		struct vms_capture_opts mo = { .pid = pre->proc.pid,
					       .no_memory = true };
		struct vms_error ignore;
		size_t k = 0;

		pre->regions_lent = false;
		if (!l->parted)
			s->regions_lent = true;
		arena_adopt(&pre->arena, &s->arena);
		/* The capture wrote by index: a target that mapped between
		 * the two reads shifted its regions against the layout's
		 * (one written over may be in neither part now): the layout
		 * from maps again, without counters. Else, or when that
		 * cannot be read, the regions in address order, none
		 * overlapping. Either way the layout's types, children and
		 * totals are made again (the capture's steps may have begun
		 * on them). */
		if (moved && mo.pid > 0) {
			pre->nregions = 0;
			if (vms_sampler_maps.capture(&mo, pre, &ignore) == 0)
				pre->cap.partial = partial_moved;
			else
				pre->nregions = 0; /* gone: nothing to show */
		} else {
			for (i = 0; i < pre->nregions; i++) {
				if (k && pre->regions[i].start <
						 pre->regions[k - 1].end)
					continue;
				if (k != i)
					pre->regions[k] = pre->regions[i];
				k++;
			}
			pre->nregions = k;
			pre->cap.partial = partial_stopped;
		}
		vms_snapshot_finish(pre, &fo, &ignore);
	} else if (l->parted) {
		pre->regions_lent = false; /* pre's array: s has its own */
	} else {
		/* The layout's array was reserved for vm.max_map_count
		 * regions: the snapshot keeps what it fills (glibc shrinks
		 * in place; pre, freed next, is left pointing at it, no
		 * longer than it) */
		size_t n = s->nregions ? s->nregions : 1;
		struct vms_region *nr = realloc(s->regions, n * sizeof(*nr));

		if (nr) {
			s->regions = nr;
			s->regions_cap = n;
		}
		pre->regions = s->regions;
		if (pre->nregions > s->nregions)
			pre->nregions = s->nregions;
	}
	free(l->insum);
	free(l);
}

struct vms_snapshot *vms_capture(const struct vms_sampler *smp,
				 const struct vms_capture_opts *o,
				 struct vms_error *err)
{
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_finish_opts fo = { .no_memory = o->no_memory,
				      .steps = o->steps };
	uint64_t t0 = vms_mono_ns();

	if (!s) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
		return NULL;
	}
	fill_capture_info(s, smp);
	if (o->keep_raw && !(s->raw = calloc(1, sizeof(*s->raw)))) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
		goto fail;
	}
	if (o->layout && o->layout->regions && !o->layout->regions_lent &&
	    vms_lend_begin(s, o->layout, err) < 0)
		goto fail;
	s->src.progress = o->progress;
	s->src.progress_ctx = o->progress_ctx;
	s->src.heap_block = o->heap_block;
	s->src.heap_block_ctx = o->heap_block_ctx;
	s->src.elfcache = o->elfcache;
	if (o->elfcache)
		expect_names(o->elfcache);
	if (smp->capture(o, s, err) < 0)
		goto fail;
	if (vms_snapshot_finish(s, &fo, err) < 0)
		goto fail;
	vms_lend_end(s, true);
	/* Nothing reads memory after this: let the clone go now. */
	if (!o->keep_memory)
		vms_source_release(s);
	s->src.progress = NULL;
	s->src.heap_block = NULL;
	s->cap.duration_us = vms_us_since(t0);
	return s;
fail:
	vms_lend_end(s, false);
	vms_snapshot_free(s);
	return NULL;
}

int vms_layout_rss(struct vms_snapshot *pre, struct vms_error *err)
{
	int n = pmscan_layout(pre, pre->src.pid, err);

	if (n > 0) {
		totals_compute(pre);
		pre->cap.partial = partial_rss;
	}
	return n;
}

/* The fill in place: part writes over pre's array; each region it has
 * finished joins pre's totals (it left them when written over). */
static size_t fill_in_place(struct vms_snapshot *pre, struct vms_fill *st,
			    struct vms_lend *l, size_t done)
{
	size_t n = 0;

	if (l->parted)
		return 0; /* pre keeps what it had: the capture replaces it */
	if (done < st->done)
		st->done = 0; /* read again from the start (the exact path) */
	for (; st->done < done; st->done++)
		if (st->done < pre->nregions && !l->insum[st->done]) {
			totals_region_move(pre, st->done, 1);
			l->insum[st->done] = 1;
			n++;
		}
	return n;
}

size_t vms_layout_fill(struct vms_snapshot *pre, struct vms_fill *st,
		       const struct vms_snapshot *part, size_t done)
{
	size_t n;

	if (!part->lend || part->lend->pre != pre)
		return 0; /* not written over pre: nothing of it to show */
	n = fill_in_place(pre, st, part->lend,
			  done < part->nregions ? done : part->nregions);
	if (n && pre->cap.partial != partial_rss)
		pre->cap.partial = partial_fill;
	st->filled += n;
	return n;
}

/* ---- saved snapshots: the loaders, one row each ---- */

struct vms_loader {
	const char *name;
	bool (*recognise)(const void *head, size_t n);
	int (*load)(const void *buf, size_t len, const char *name, bool consume,
		    struct vms_snapshot *s, struct vms_error *err);
	/* A loader whose source goes on reading the bytes (a core's memory):
	 * takes over a mapping of the file (NULL: the bytes are copied out,
	 * or read whole, and the buffer is the caller's). */
	void (*own)(struct vms_snapshot *s, void *map, size_t len);
};

/* A snapshot file, read back with what the steps declare it keeps. */
static int load_snapfile(const void *buf, size_t len, const char *name,
			 bool consume, struct vms_snapshot *s,
			 struct vms_error *err)
{
	const struct vms_kept *kept[VMS_STEPS_MAX + 1];

	vms_steps_kept(kept);
	return snapfile_load(buf, len, name, consume, kept, s, err);
}

static const struct vms_loader loaders[] = {
	{ "vmscope snapshot", snapfile_recognise, load_snapfile, NULL },
	{ "ELF core", coredump_recognise, coredump_load, coredump_own },
};

/* The largest file read: a 1,000,000-region snapshot is some 40 MB. */
#define LOAD_MAX (1ull << 30)

static const struct vms_loader *loader_of(const void *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(loaders) / sizeof(loaders[0]); i++)
		if (loaders[i].recognise(buf, len))
			return &loaders[i];
	return NULL;
}

/* map: buf is a mapping of the file the loader may take over (*owned is
 * then set); NULL: buf is the caller's, and a source that would go on
 * reading it lets its memory go before this returns. consume: buf is a
 * copy the loader may use up (snapfile.h). */
static struct vms_snapshot *load_bytes(const void *buf, size_t len,
				       const char *name, void *map, bool *owned,
				       bool consume, struct vms_error *err)
{
	const struct vms_loader *l = loader_of(buf, len);
	struct vms_snapshot *s;

	if (!l) {
		vms_error_set(err, VMS_ERR_FILE, 0, "%s: %s", name,
			      len ? "not a vmscope snapshot file (nothing "
				    "vmscope reads starts like it)"
				  : "empty file, not a vmscope snapshot");
		return NULL;
	}
	s = vms_snapshot_new();
	if (!s) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
		return NULL;
	}
	if (l->load(buf, len, name, consume, s, err) < 0) {
		vms_snapshot_free(s);
		return NULL;
	}
	if (l->own && map) {
		l->own(s, map, len);
		*owned = true;
	}
	if (vms_snapshot_finish(s, NULL, err) < 0) {
		vms_snapshot_free(s); /* a mapping it owns goes with it */
		return NULL;
	}
	if (l->own && !map)
		vms_source_release(s);
	return s;
}

struct vms_snapshot *vms_load_buffer(const void *buf, size_t len,
				     const char *name, struct vms_error *err)
{
	return load_bytes(buf, len, name, NULL, NULL, false, err);
}

/* The bytes a loader is told by: a core's ELF header (64), a snapshot's
 * magic (17). */
#define LOAD_HEAD 64

/* Reads the file whole, but no further than its first LOAD_HEAD bytes
 * when no loader knows them (load_bytes then says what it is not), and
 * not at all past them when it is a regular file larger than LOAD_MAX: a
 * disk image or /dev/urandom named by mistake costs no GiB of memory. */
static int read_all(int fd, const struct stat *st, const char *path, char **out,
		    size_t *n, struct vms_error *err)
{
	size_t cap = 1u << 16, len = 0;
	char *buf = malloc(cap);
	bool judged = false;

	for (;;) {
		ssize_t got;

		if (!buf) {
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory");
		}
		if (len == cap) {
			char *nb;

			if (cap >= LOAD_MAX) {
				free(buf);
				return vms_error_set(
					err, VMS_ERR_FILE, EFBIG,
					"%s: larger than %llu MiB, not a "
					"vmscope snapshot",
					path, LOAD_MAX >> 20);
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				continue;
			}
			buf = nb;
			cap *= 2;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;

			free(buf);
			return vms_error_set(err, VMS_ERR_FILE, e,
					     "cannot read %s: %s", path,
					     e == EISDIR ? "it is a directory"
							 : strerror(e));
		}
		if (got == 0)
			break;
		len += (size_t)got;
		if (judged || len < LOAD_HEAD)
			continue;
		judged = true;
		if (!loader_of(buf, len))
			break;
		if (S_ISREG(st->st_mode) && (uint64_t)st->st_size > LOAD_MAX) {
			free(buf);
			return vms_error_set(
				err, VMS_ERR_FILE, EFBIG,
				"%s: larger than %llu MiB (%llu MiB), not a "
				"vmscope snapshot",
				path, LOAD_MAX >> 20,
				(unsigned long long)st->st_size >> 20);
		}
	}
	*out = buf;
	*n = len;
	return 0;
}

/* A core is mapped, not read (a multi-GB core loads without a copy; its
 * pages are read as the steps ask for them). NULL when it is not a core or
 * cannot be mapped: the file is then read as any other. */
static void *map_core(int fd, const struct stat *st, size_t *len)
{
	unsigned char head[64];
	ssize_t got = pread(fd, head, sizeof(head), 0);
	void *m;

	if (got <= 0 || !S_ISREG(st->st_mode) || st->st_size <= 0 ||
	    (uint64_t)st->st_size > SIZE_MAX ||
	    !coredump_recognise(head, (size_t)got))
		return NULL;
	m = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	/* guarded: a core truncated under the load is a message, not a
	 * SIGBUS (mapguard.h); unguarded, it is read as any other file */
	if (mapguard_add(m, (size_t)st->st_size) < 0) {
		munmap(m, (size_t)st->st_size);
		return NULL;
	}
	*len = (size_t)st->st_size;
	return m;
}

struct vms_snapshot *vms_load_file(const char *path, struct vms_error *err)
{
	struct vms_snapshot *s;
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	bool owned = false;
	void *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		vms_error_set(err, VMS_ERR_FILE, errno, "cannot open %s: %s",
			      path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		vms_error_set(err, VMS_ERR_FILE, errno, "cannot stat %s: %s",
			      path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		vms_error_set(err, VMS_ERR_FILE, EISDIR,
			      "%s: is a directory, not a snapshot file", path);
		return NULL;
	}
	if ((map = map_core(fd, &st, &len))) {
		close(fd);
		s = load_bytes(map, len, path, map, &owned, false, err);
		if (mapguard_hit(map)) {
			/* what was read was zeros: whatever the load made of
			 * them is not said */
			if (s) /* an owned mapping goes with it */
				vms_snapshot_free(s);
			s = NULL;
			vms_error_set(err, VMS_ERR_FILE, EIO,
				      "%s: the core was truncated while it was "
				      "read (its owner changed it under "
				      "vmscope): load it again once it is "
				      "complete",
				      path);
		}
		if (!owned) {
			mapguard_remove(map);
			munmap(map, len);
		}
		/* a core says nothing of when: it was written then */
		if (s && !s->cap.taken_at_sec) {
			s->cap.taken_at_sec = st.st_mtim.tv_sec;
			s->cap.taken_at_nsec = st.st_mtim.tv_nsec;
		}
		return s;
	}
	if (read_all(fd, &st, path, &buf, &len, err) < 0) {
		close(fd);
		return NULL;
	}
	close(fd);
	s = load_bytes(buf, len, path, NULL, NULL, true, err);
	free(buf);
	return s;
}

bool vms_snapshot_refreshable(const struct vms_snapshot *s)
{
	return s->src.pid != 0;
}

int vms_snapshot_save(const struct vms_snapshot *s, void **buf, size_t *len,
		      struct vms_error *err)
{
	const struct vms_kept *kept[VMS_STEPS_MAX + 1];

	vms_steps_kept(kept);
	return snapfile_encode(s, NULL, kept, buf, len, err);
}

int vms_snapshot_save_traced(const struct vms_snapshot *s,
			     const struct vms_trace_report *trace, void **buf,
			     size_t *len, struct vms_error *err)
{
	const struct vms_kept *kept[VMS_STEPS_MAX + 1];

	vms_steps_kept(kept);
	return snapfile_encode(s, trace, kept, buf, len, err);
}
