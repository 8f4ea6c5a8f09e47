/* test_classify.c — region types on recorded fixtures (vms_snapshot_finish
 * with pid 0 and no memory reads), images through an open_image callback we
 * control, and the glibc heap_info check on crafted and real headers. */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../fixtures/fixture.h"
#include "pipeline.h"
#include "analyze/steps.h"
#include "tap.h"

#define HEAP_MAX (64ull << 20)

static const char *tname(const struct vms_region *r)
{
	return r ? vms_type_info[r->type].json : "(missing)";
}

static bool is_type(const struct vms_region *r, enum vms_type t)
{
	return r && r->type == t;
}

static struct vms_region *find_arena(struct vms_snapshot *s)
{
	size_t i;

	for (i = 0; i + 1 < s->nregions; i++) {
		struct vms_region *r = &s->regions[i];

		if (!r->path && r->start % HEAP_MAX == 0 &&
		    r->perms == (VMS_PERM_R | VMS_PERM_W) &&
		    (r->vmflags_mask & VMS_VF_NR) && r[1].start == r->end &&
		    r[1].perms == 0 && r[1].end - r->start == HEAP_MAX)
			return r;
	}
	return NULL;
}

/* An 8 MiB anonymous rw-p region right above a ---p one: a glibc thread
 * stack and its guard. */
static struct vms_region *find_thread_stack(struct vms_snapshot *s)
{
	size_t i;

	for (i = 1; i < s->nregions; i++) {
		struct vms_region *r = &s->regions[i];

		if (!r->path && vms_region_size(r) == (8ull << 20) &&
		    r->perms == (VMS_PERM_R | VMS_PERM_W) && !r[-1].path &&
		    r[-1].perms == 0 && r[-1].end == r->start)
			return r;
	}
	return NULL;
}

static void test_kinds(void)
{
	struct vms_snapshot *s = fixture_snapshot("kinds.smaps");
	struct vms_region *r, *st;
	struct vms_error err;
	char *roll;
	size_t rlen, i, segs = 0;
	uint64_t sp;

	if (!s) {
		ok(0, "kinds.smaps parses");
		return;
	}
	/* One thread whose sp lies in the 8 MiB stack of the fixture. */
	st = find_thread_stack(s);
	ok(st != NULL, "kinds: has a thread stack with its guard");
	sp = st ? st->end - 0x1234 : 0;
	s->proc.pid = 100;
	s->threads = arena_alloc(&s->arena, sizeof(*s->threads));
	s->nthreads = 1;
	s->threads[0] = (struct vms_thread){ 101, "worker", sp, 0, 0 };
	ok(vms_snapshot_finish(s, NULL, &err) == 0, "kinds: finish");

	r = fixture_find_path(s, "[heap]");
	ok(is_type(r, VMS_T_HEAP), "kinds: [heap] is heap (%s)", tname(r));
	r = fixture_find_path(s, "[stack]");
	ok(is_type(r, VMS_T_STACK), "kinds: [stack] is stack (%s)", tname(r));
	r = fixture_find_path(s, "/dev/zero (deleted)");
	ok(is_type(r, VMS_T_SHAREABLE) && (r->perms & VMS_PERM_SHARED),
	   "kinds: shared anonymous is shareable (%s)", tname(r));
	r = fixture_find_path(s, "/memfd:vms-fixture (deleted)");
	ok(is_type(r, VMS_T_SHAREABLE), "kinds: memfd is shareable (%s)",
	   tname(r));
	r = fixture_find_path(s, "[vdso]");
	ok(is_type(r, VMS_T_IMAGE), "kinds: [vdso] is an image (%s)",
	   tname(r));
	for (i = 0, r = NULL; i < s->nregions; i++)
		if (s->regions[i].path &&
		    strstr(s->regions[i].path, "/gone.bin (deleted)"))
			r = &s->regions[i];
	ok(is_type(r, VMS_T_MAPPED_FILE) && (r->flags & VMS_RF_DELETED),
	   "kinds: deleted file mapping is a mapped file (%s)", tname(r));

	r = find_arena(s);
	ok(r && r->type == VMS_T_HEAP && r[1].type == VMS_T_HEAP,
	   "kinds: 64 MiB-aligned nr rw-p + ---p pair is heap (%s, %s)",
	   tname(r), r ? tname(&r[1]) : "");
	for (i = 0; r && i < s->nheaps; i++)
		if (strcmp(s->heaps[i].kind, "glibc-arena") == 0 &&
		    s->heaps[i].nsegs == 1 &&
		    s->heaps[i].segs[0].start == r->start &&
		    s->heaps[i].segs[0].end == r->start + HEAP_MAX)
			segs++;
	ok(segs == 1, "kinds: one glibc-arena heap covering the 64 MiB");

	ok(st && st->type == VMS_T_STACK && st[-1].type == VMS_T_STACK &&
		   (st[-1].flags & VMS_RF_GUARD) &&
		   s->threads[0].stack_start == st->start &&
		   s->threads[0].stack_end == st->end,
	   "kinds: a thread's sp region is its stack, the ---p below its "
	   "guard");
	ok(st && st->nchildren == 2 &&
		   st->children[1].start == (sp & ~(s->cap.page_size - 1)) &&
		   st->children[1].end == st->end,
	   "kinds: stack split at the sp's page into unused and used");

	roll = fixture_read("kinds.rollup", &rlen);
	ok(roll &&
		   s->total.ws == (uint64_t)procfs_status_value(roll, rlen,
								 "Rss") &&
		   s->total.uss ==
			   (uint64_t)(procfs_status_value(roll, rlen,
							  "Private_Clean") +
				      procfs_status_value(roll, rlen,
							  "Private_Dirty")) &&
		   s->total.shared_ws ==
			   (uint64_t)(procfs_status_value(roll, rlen,
							  "Shared_Clean") +
				      procfs_status_value(roll, rlen,
							  "Shared_Dirty")) &&
		   s->total.swap ==
			   (uint64_t)procfs_status_value(roll, rlen, "Swap"),
	   "kinds: total WS, USS, shared WS and swap equal the rollup");
	free(roll);
	vms_snapshot_free(s);
}

static void test_paths(void)
{
	struct vms_snapshot *s = fixture_snapshot("v_paths.smaps");
	struct vms_region *go, *art, *mine, *mfd;
	struct vms_error err;
	size_t i, ngo = 0, nart = 0;

	if (!s || vms_snapshot_finish(s, NULL, &err) < 0) {
		ok(0, "v_paths: parse and finish");
		vms_snapshot_free(s);
		return;
	}
	go = fixture_find_path(s, "[anon: Go: heap]");
	art = fixture_find_path(s, "[anon:dalvik-main space]");
	mine = fixture_find_path(s, "[anon:my thing]");
	mfd = fixture_find_path(s, "/memfd:jit code (deleted)");
	ok(is_type(go, VMS_T_MANAGED_HEAP) && is_type(art, VMS_T_MANAGED_HEAP),
	   "v_paths: [anon: Go: heap] and dalvik- are managed heaps (%s, %s)",
	   tname(go), tname(art));
	for (i = 0; i < s->nmanaged; i++) {
		if (go && strcmp(s->managed[i].runtime, "go") == 0 &&
		    s->managed[i].start == go->start &&
		    s->managed[i].end == go->end)
			ngo++;
		if (art && strcmp(s->managed[i].runtime, "art") == 0 &&
		    s->managed[i].start == art->start)
			nart++;
	}
	ok(ngo == 1 && nart == 1, "v_paths: managed list names go and art");
	ok(go && go->detail && strcmp(go->detail, "Go: heap") == 0,
	   "v_paths: managed detail is the anon name (%s)",
	   go && go->detail ? go->detail : "null");
	ok(is_type(mine, VMS_T_PRIVATE_DATA) && mine->detail &&
		   strcmp(mine->detail, "my thing") == 0,
	   "v_paths: other [anon:NAME] is private data named NAME");
	ok(is_type(mfd, VMS_T_SHAREABLE), "v_paths: memfd is shareable (%s)",
	   tname(mfd));
	vms_snapshot_free(s);
}

/* ---- images through a callback we control ---- */

struct open_log {
	const char *exe;
	int calls, exe_calls;
};

static int open_only_exe(struct vms_snapshot *s, const struct vms_region *r,
			 struct stat *st)
{
	struct open_log *l = s->src.priv;
	int fd;

	l->calls++;
	l->exe_calls += strcmp(r->path, l->exe) == 0;
	fd = strcmp(r->path, l->exe) == 0
		     ? open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
		     : -1;
	if (fd >= 0 && st && fstat(fd, st) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void test_images(void)
{
	struct vms_snapshot *s = vms_snapshot_new();
	char exe[4096], *maps;
	size_t len, i, exe_regions = 0, exe_images = 0, text = 0, unopened = 0,
			 others = 0;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct open_log log = { exe, 0, 0 };
	static const struct vms_source_ops ops = { .name = "test",
						   .open_file = open_only_exe };
	struct vms_error err;
	const char *files[64];
	size_t nfiles = 0, k;

	if (n <= 0 || procfs_read_file("/proc/self/maps", &maps, &len) < 0 ||
	    smaps_parse_buffer(s, maps, len, &err) < 0) {
		ok(0, "images: our own maps parse");
		vms_snapshot_free(s);
		return;
	}
	exe[n] = '\0';
	free(maps);
	s->src = (struct vms_source){ .ops = &ops, .priv = &log,
				      .caps = VMS_SRC_FILES };
	ok(vms_snapshot_finish(s, NULL, &err) == 0, "images: classify");
	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];

		if (!r->path || r->path[0] != '/' || r->inode == 0)
			continue;
		for (k = 0; k < nfiles && files[k] != r->path; k++)
			;
		if (k == nfiles && nfiles < 64)
			files[nfiles++] = r->path; /* interned */
		if (strcmp(r->path, exe) == 0) {
			exe_regions++;
			if (r->type == VMS_T_IMAGE && r->build_id)
				exe_images++;
			for (k = 0; k < r->nchildren; k++)
				if (strcmp(r->children[k].name, ".text") == 0 &&
				    r->children[k].start >= r->start &&
				    r->children[k].end <= r->end)
					text++;
		} else {
			others++;
			if (r->type == VMS_T_MAPPED_FILE &&
			    (r->flags & VMS_RF_IMAGE_UNOPENED))
				unopened++;
		}
	}
	ok(exe_regions > 0 && exe_images == exe_regions,
	   "images: all %zu mappings of our executable are images with a "
	   "build id",
	   exe_regions);
	ok(text == 1, "images: .text is a child of exactly one of them");
	ok(others > 0 && unopened == others,
	   "images: files the callback refuses are mapped files flagged "
	   "image_unopened (%zu of %zu)",
	   unopened, others);
	/* The steps after images (allocator, v8, cpython) open an image
	 * again to read its symbols; a file that was refused is not asked
	 * for again. */
	ok(log.calls - log.exe_calls == (int)nfiles - 1 && log.exe_calls >= 1,
	   "images: each refused file asked for once (%d calls for %zu "
	   "files), the image opened (%d times)",
	   log.calls - log.exe_calls, nfiles - 1, log.exe_calls);
	vms_snapshot_free(s);
}

/* ---- heap_info ---- */

static bool hi(uint64_t ar, uint64_t prev, uint64_t size, uint64_t mprot,
	       uint64_t start, uint64_t rw, uint64_t *arena)
{
	uint64_t h[4] = { ar, prev, size, mprot };

	return heaps_info_ok(h, sizeof(h), start, rw, HEAP_MAX, arena);
}

static void test_heap_info_crafted(void)
{
	const uint64_t st = 0x7f3c00000000ull, rw = 0x21000;
	uint64_t arena = 0;

	ok(hi(st + 32, 0, rw, rw, st, rw, &arena) && arena == st + 32,
	   "heap_info: first heap, malloc_state right after it");
	ok(hi(0x7f3800000020ull, 0x7f3800000000ull, 0x1000, rw, st, rw,
	      &arena) &&
		   arena == 0x7f3800000020ull,
	   "heap_info: later heap, prev 64 MiB-aligned");
	ok(!hi(st + 4096, 0, rw, rw, st, rw, &arena) &&
		   !hi(st, 0, rw, rw, st, rw, &arena),
	   "heap_info: first heap with ar_ptr not just after it: no");
	ok(!hi(st + 32, 0, 0, rw, st, rw, &arena) &&
		   !hi(st + 32, 0, HEAP_MAX + 4096, HEAP_MAX + 4096, st,
		       HEAP_MAX + 4096, &arena),
	   "heap_info: size 0 or over 64 MiB: no");
	ok(!hi(st + 32, 0, rw, rw - 4096, st, rw, &arena),
	   "heap_info: mprotect_size below size: no");
	ok(!hi(st + 32, 0, rw, rw, st, rw + 4096, &arena),
	   "heap_info: mprotect_size other than the rw region: no");
	ok(!hi(st + 32, 0x7f3800001000ull, rw, rw, st, rw, &arena) &&
		   !hi(st + 32, st, rw, rw, st, rw, &arena),
	   "heap_info: prev unaligned or itself: no");
	{
		uint64_t h[4] = { st + 32, 0, rw, rw };

		ok(!heaps_info_ok(h, sizeof(h) - 1, st, rw, HEAP_MAX, &arena),
		   "heap_info: short buffer: no");
	}
	{
		/* glibc.malloc.hugetlb=2: heaps of four 2 MiB pages */
		const uint64_t m8 = 8ull << 20;
		uint64_t later[4] = { 0x7f3801000020ull, 0x7f3801000000ull,
				      0x1000, rw },
			 past[4] = { st + 32, 0, m8 + 4096, m8 + 4096 },
			 odd[4] = { 0x7f3801000020ull, 0x7f3800400000ull,
				    0x1000, rw };

		ok(heaps_info_ok(later, sizeof(later), st, rw, m8, &arena) &&
			   arena == 0x7f3801000020ull,
		   "heap_info, 8 MiB heaps: later heap, prev 8 MiB-aligned");
		ok(!heaps_info_ok(past, sizeof(past), st, m8 + 4096, m8,
				  &arena),
		   "heap_info, 8 MiB heaps: size over 8 MiB: no");
		ok(!heaps_info_ok(odd, sizeof(odd), st, rw, m8, &arena),
		   "heap_info, 8 MiB heaps: prev not 8 MiB-aligned: no");
		ok(!heaps_info_ok(later, sizeof(later), st, rw, 0, &arena),
		   "heap_info: heap size not known: no");
	}
}

static pthread_barrier_t bar;
/* Escapes the thread's allocation, so the compiler cannot drop it. */
static char *volatile arena_block;

static void *arena_user(void *arg)
{
	(void)arg;
	arena_block = malloc(100000);
	if (arena_block)
		memset(arena_block, 1, 100000);
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	free(arena_block);
	return NULL;
}

/* ASan and valgrind replace malloc: then there are no glibc arenas. */
static bool glibc_malloc(void)
{
	const char *pre = getenv("LD_PRELOAD");

#if defined(__SANITIZE_ADDRESS__)
	return false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return false;
#endif
#endif
	return !(pre && strstr(pre, "vgpreload"));
}

/* This process's own non-main arena, read straight from memory. */
static void test_heap_info_live(void)
{
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_region *r = NULL;
	struct vms_error err;
	pthread_t t;
	char *maps;
	size_t len;
	uint64_t arena = 0;
	bool good = false;

	if (!glibc_malloc()) {
		ok(1, "heap_info: this process's thread arena # SKIP malloc "
		      "is not glibc's here (sanitizer or valgrind)");
		vms_snapshot_free(s);
		return;
	}
	pthread_barrier_init(&bar, NULL, 2);
	pthread_create(&t, NULL, arena_user, NULL);
	pthread_barrier_wait(&bar);
	if (procfs_read_file("/proc/self/smaps", &maps, &len) == 0 &&
	    smaps_parse_buffer(s, maps, len, &err) == 0)
		r = find_arena(s);
	else
		printf("# %s\n", err.msg);
	free(maps);
	if (r)
		good = heaps_info_ok((const void *)(uintptr_t)r->start,
					     32, r->start, vms_region_size(r),
					     HEAP_MAX, &arena);
	ok(r && good && arena > r->start && arena < r->start + 128,
	   "heap_info: this process's thread arena at 0x%llx passes, "
	   "arena 0x%llx",
	   r ? (unsigned long long)r->start : 0ull,
	   (unsigned long long)arena);
	pthread_barrier_wait(&bar);
	pthread_join(t, NULL);
	vms_snapshot_free(s);
}

/* Device major 0 is tmpfs but also btrfs, NFS, FUSE: a shared file
 * mapping there is shareable only if its file system says it is memory. */
static long magic_of(struct vms_snapshot *s, const struct vms_region *r)
{
	(void)r;
	return *(const long *)s->src.priv;
}

static void test_shmem_by_fs(void)
{
	static const struct {
		long magic;
		int want;
		const char *what;
	} cases[] = {
		{ 0x01021994, VMS_T_SHAREABLE, "tmpfs: shareable" },
		{ 0x9123683e, VMS_T_MAPPED_FILE, "btrfs: a mapped file" },
		{ 0x6969, VMS_T_MAPPED_FILE, "NFS: a mapped file" },
		{ 0, VMS_T_SHAREABLE, "file system unknown: shareable (major 0)" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vms_snapshot *s = vms_snapshot_new();
		struct vms_region *r = vms_snapshot_add_region(s);
		long magic = cases[i].magic;
		static const struct vms_source_ops ops = { .name = "test",
							   .fs_magic = magic_of };
		struct vms_error err;

		r->start = 0x7f0000000000ull;
		r->end = r->start + 65536;
		r->perms = VMS_PERM_R | VMS_PERM_W | VMS_PERM_SHARED;
		r->dev_major = 0;
		r->dev_minor = 0x2f;
		r->inode = 1234;
		r->path = "/var/log/journal/x.journal";
		r->vmflags = "";
		s->src = (struct vms_source){ .ops = &ops, .priv = &magic };
		ok(vms_snapshot_finish(s, NULL, &err) == 0 &&
			   r->type == cases[i].want,
		   "shared file on device 0:2f, %s", cases[i].what);
		vms_snapshot_free(s);
	}
}

/* One anonymous smaps record of [lo, hi), its permissions and VmFlags. */
static int anon_record(char *out, size_t n, uint64_t lo, uint64_t hi,
		       const char *perms, const char *flags)
{
	return snprintf(out, n,
			"%llx-%llx %s 00000000 00:00 0 \n"
			"Size: %llu kB\nKernelPageSize: 4 kB\n"
			"MMUPageSize: 4 kB\nRss: 0 kB\nPss: 0 kB\n"
			"Shared_Clean: 0 kB\nShared_Dirty: 0 kB\n"
			"Private_Clean: 0 kB\nPrivate_Dirty: 0 kB\n"
			"Referenced: 0 kB\nAnonymous: 0 kB\nSwap: 0 kB\n"
			"SwapPss: 0 kB\nLocked: 0 kB\nVmFlags: %s\n",
			(unsigned long long)lo, (unsigned long long)hi, perms,
			(unsigned long long)((hi - lo) >> 10), flags);
}

/* By shape alone (no memory to read a header from), a MAP_NORESERVE
 * reservation of read-write and PROT_NONE parts is a glibc heap only at
 * glibc's default 64 MiB: one of 1 MiB (V8's, a JVM's) is not, though
 * its header would make one of 8 MiB (glibc.malloc.hugetlb=2) a heap. */
static void test_heap_by_shape(void)
{
	const uint64_t a = 0x7f0000100000ull, b = 0x7f0004000000ull;
	char text[4096];
	size_t len = 0;
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_error err;
	const struct vms_region *r;

	len += (size_t)anon_record(text + len, sizeof(text) - len, a,
				   a + (512 << 10), "rw-p",
				   "rd wr mr mw me nr ");
	len += (size_t)anon_record(text + len, sizeof(text) - len,
				   a + (512 << 10), a + (1 << 20), "---p",
				   "mr mw me nr ");
	len += (size_t)anon_record(text + len, sizeof(text) - len, b,
				   b + (1 << 20), "rw-p", "rd wr mr mw me nr ");
	len += (size_t)anon_record(text + len, sizeof(text) - len,
				   b + (1 << 20), b + (64 << 20), "---p",
				   "mr mw me nr ");
	ok(s && smaps_parse_buffer(s, text, len, &err) == 0 &&
		   vms_snapshot_finish(s, NULL, &err) == 0,
	   "by shape: the reservations parse");
	r = s ? vms_snapshot_find(s, a) : NULL;
	ok(r && r->type == VMS_T_PRIVATE_DATA &&
		   s->regions[1].type == VMS_T_PRIVATE_DATA,
	   "by shape: a 1 MiB nr reservation is private data, not a heap "
	   "(%s)",
	   tname(r));
	r = s ? vms_snapshot_find(s, b) : NULL;
	ok(r && r->type == VMS_T_HEAP,
	   "by shape: a 64 MiB one is still a heap (%s)", tname(r));
	vms_snapshot_free(s);
}

int main(void)
{
	test_shmem_by_fs();
	test_kinds();
	test_paths();
	test_images();
	test_heap_info_crafted();
	test_heap_info_live();
	test_heap_by_shape();
	return tap_done();
}
