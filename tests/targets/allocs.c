/* allocs.c — a target for tests/live/test_allocators.py: allocates
 * MIB MiB (argv[1], default 16) in 256-byte blocks through malloc, writes
 * into every block, prints its own view of what it holds and waits in
 * pause(). With "frag" after MIB it then allocates 240 blocks of 4 KiB to
 * 600 KiB (small, medium and large to any allocator) and frees every
 * other one, so that the allocator holds free memory between used (and
 * tcmalloc's page map entries that point to spans since reused); the
 * blocks kept count in the line's sums. With "cross" after that,
 * threads that free each other's blocks, some exited (cross() below:
 * their blocks count in the line's usable sum). With "threads" after that,
 * THREADS threads allocate and free too, and stay (holder() below): their
 * blocks are not in the line's usable sum. Run with an allocator preloaded (LD_PRELOAD=libjemalloc.so.2,
 * libtcmalloc_minimal, libmimalloc) it shows which one vmscope reports as
 * malloc's, and what that allocator says of itself.
 *
 * The line: "ready BYTES usable USABLE" — the bytes asked for, and the sum
 * of malloc_usable_size() over every block it holds (the allocator's own
 * size of each) — then, where gperftools' tcmalloc provides malloc,
 * " tcmalloc HEAP PHYSICAL UNMAPPED FREE META CENTRAL APP CENTRAL2
 * TRANSFER THREAD": its MallocExtension properties generic.heap_size,
 * generic.total_physical_bytes, tcmalloc.pageheap_unmapped_bytes and
 * tcmalloc.pageheap_free_bytes, MallocExtension_GetStats's "Bytes in
 * malloc metadata" and "Bytes in central cache freelist" (0 where it does
 * not say), then the properties generic.current_allocated_bytes,
 * tcmalloc.central_cache_free_bytes, transfer_cache_free_bytes and
 * thread_cache_free_bytes (each property read once: they are one
 * instant, nothing allocating between), read after the line's own buffer was allocated (looked up
 * with dlsym: nothing links it); where jemalloc
 * provides it, " jemalloc ALLOCATED ACTIVE METADATA RESIDENT MAPPED
 * RETAINED BASE": mallctl's stats.* after an "epoch" refresh, and BASE its
 * base blocks' bytes (je_stats below), the last thing it does before the
 * line (nothing allocates after); where mimalloc does,
 * " mimalloc COMMIT RESERVED": mi_process_info's current commit (its
 * stats' committed bytes) and the current reserved bytes as
 * mi_stats_print_out prints them ("32.0MiB": its only account of them,
 * to a tenth of its unit).
 *
 * With ALLOCS_NEIGHBOUR=1 in the environment it maps 1 MiB of anonymous
 * memory of its own right below (else right above) the mapping that holds
 * its middle block, written, without and else with MAP_NORESERVE, kept
 * where the kernel merged the two into one region (the allocator's heap
 * then covers that region in part), else where it merged it with the
 * mapping on its other side (jemalloc's mappings lie 1 MiB apart), else
 * unmapped: nothing depends on the merge. It reads its maps with read(2) into a static buffer and maps
 * before the figures are read: no allocation. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef int (*tc_prop_fn)(const char *name, size_t *value);
typedef void (*tc_stats_fn)(char *buf, int len);
typedef void (*mi_info_fn)(size_t *elapsed, size_t *user, size_t *sys,
			   size_t *rss, size_t *peak_rss, size_t *commit,
			   size_t *peak_commit, size_t *faults);
typedef void (*mi_out_fn)(const char *msg, void *arg);
typedef void (*mi_print_fn)(mi_out_fn out, void *arg);
typedef int (*je_ctl_fn)(const char *name, void *oldp, size_t *oldlenp,
			 void *newp, size_t newlen);

/* jemalloc's own figures after a refresh through its mallctl ctl (NULL:
 * not jemalloc's malloc), into v[8]; 0 where there are none. v[6]: the
 * bytes of its base blocks (its metadata's mappings): stats.mapped less
 * the pages of its extents not retained, its arenas' pactive, pdirty and
 * pmuzzy (4096: MALLCTL_ARENAS_ALL, all of them merged). v[7]: its
 * allocations in use as it counts them, the merged arenas' small and
 * large nmalloc less ndalloc. */
static int je_stats(je_ctl_fn ctl, size_t v[8])
{
	static const char *const counts[] = {
		"stats.arenas.4096.small.nmalloc",
		"stats.arenas.4096.small.ndalloc",
		"stats.arenas.4096.large.nmalloc",
		"stats.arenas.4096.large.ndalloc"
	};
	uint64_t c[4];
	static const char *const names[] = { "stats.allocated", "stats.active",
					     "stats.metadata", "stats.resident",
					     "stats.mapped",	"stats.retained" };
	static const char *const pages[] = { "stats.arenas.4096.pactive",
					     "stats.arenas.4096.pdirty",
					     "stats.arenas.4096.pmuzzy" };
	uint64_t epoch = 1;
	size_t sz = sizeof(epoch), i, n, ext = 0;

	if (!ctl || ctl("epoch", &epoch, &sz, &epoch, sz) != 0)
		return 0;
	for (i = 0; i < 6; i++) {
		sz = sizeof(v[i]);
		if (ctl(names[i], &v[i], &sz, NULL, 0) != 0)
			return 0;
	}
	for (i = 0; i < 3; i++) {
		sz = sizeof(n);
		if (ctl(pages[i], &n, &sz, NULL, 0) != 0)
			return 0;
		ext += n * (size_t)sysconf(_SC_PAGESIZE);
	}
	v[6] = v[4] - ext;
	for (i = 0; i < 4; i++) {
		sz = sizeof(c[i]);
		if (ctl(counts[i], &c[i], &sz, NULL, 0) != 0)
			return 0;
	}
	v[7] = (size_t)(c[0] - c[1] + c[2] - c[3]);
	return 1;
}

/* With "threads": THREADS threads that each allocate blocks of 64 B to
 * 4 KiB, free every other one (into their own thread caches), say so and
 * stay, blocked, holding the rest. */
#define THREADS 3
static pthread_barrier_t ready;

static void *holder(void *arg)
{
	static void *kept[THREADS][512];
	void **mine = kept[(size_t)arg];
	int i;

	for (i = 0; i < 512; i++) {
		mine[i] = malloc(64 << (i % 7));
		if (!mine[i])
			abort();
		memset(mine[i], 1, 64);
	}
	for (i = 1; i < 512; i += 2) {
		free(mine[i]);
		mine[i] = NULL;
	}
	pthread_barrier_wait(&ready);
	for (;;)
		pause(); /* held until killed */
}

/* With "cross" instead: CROSS threads that each allocate CROSS_N blocks
 * of 32 B to 2 KiB and free every fourth of their own; the odd ones then
 * exit (their heaps abandoned: their segments left to whoever frees
 * into them, their thread data to mimalloc's cache), the even ones free
 * every fifth block of the next (an exited thread's: frees into an
 * abandoned segment), say so and stay, blocked; then the main thread
 * frees every third block of every one of them (frees from another
 * thread, pending on their pages or heaps until their owner collects
 * them, which a blocked thread never does). The blocks left count in the
 * line's usable sum. Before them, idler() below. */
#define CROSS 4
#define CROSS_N 2000
static char *cross_blocks[CROSS][CROSS_N];
static pthread_barrier_t cross_made, cross_freed;

static void *crosser(void *arg)
{
	size_t t = (size_t)arg, i;
	char **mine = cross_blocks[t];

	for (i = 0; i < CROSS_N; i++) {
		mine[i] = malloc((size_t)32 << (i % 7));
		if (!mine[i])
			abort();
		memset(mine[i], 1, 32);
	}
	for (i = 0; i < CROSS_N; i += 4) {
		free(mine[i]);
		mine[i] = NULL;
	}
	if (t % 2)
		return NULL; /* joined by main before anyone frees these */
	pthread_barrier_wait(&cross_made);
	for (i = 1; i < CROSS_N; i += 5) {
		free(cross_blocks[t + 1][i]);
		cross_blocks[t + 1][i] = NULL;
	}
	pthread_barrier_wait(&cross_freed);
	for (;;)
		pause(); /* held until killed */
}

/* And one more that allocates IDLE_N blocks, frees them all (mimalloc
 * gives its pages back: no page names its heap), says so and stays. */
#define IDLE_N 100000
static pthread_barrier_t idle_done;

static void *idler(void *arg)
{
	static char *mine[IDLE_N];
	size_t i;

	(void)arg;
	for (i = 0; i < IDLE_N; i++) {
		mine[i] = malloc(64 + i % 5 * 100);
		if (!mine[i])
			abort();
		memset(mine[i], 1, 64);
	}
	for (i = 0; i < IDLE_N; i++)
		free(mine[i]);
	pthread_barrier_wait(&idle_done);
	for (;;)
		pause(); /* held until killed */
}

/* "cross": the threads above, and the main thread's frees; 0 on
 * failure. */
static int cross(void)
{
	pthread_t th[CROSS], idle;
	size_t t, i;

	if (pthread_barrier_init(&cross_made, NULL, CROSS / 2 + 1) ||
	    pthread_barrier_init(&cross_freed, NULL, CROSS / 2 + 1) ||
	    pthread_barrier_init(&idle_done, NULL, 2) ||
	    pthread_create(&idle, NULL, idler, NULL))
		return 0;
	pthread_barrier_wait(&idle_done);
	for (t = 0; t < CROSS; t++)
		if (pthread_create(&th[t], NULL, crosser, (void *)t))
			return 0;
	for (t = 1; t < CROSS; t += 2)
		if (pthread_join(th[t], NULL))
			return 0;
	pthread_barrier_wait(&cross_made);
	pthread_barrier_wait(&cross_freed);
	for (t = 0; t < CROSS; t++)
		for (i = 2; i < CROSS_N; i += 3) {
			free(cross_blocks[t][i]);
			cross_blocks[t][i] = NULL;
		}
	return 1;
}

/* The bounds of the mapping of this process that holds a, from its maps
 * (read without allocating); false where none does. */
static int mapping_of(uintptr_t a, uintptr_t *lo, uintptr_t *hi)
{
	static char maps[1 << 17];
	int fd = open("/proc/self/maps", O_RDONLY);
	size_t len = 0;
	ssize_t got;
	char *p;

	if (fd < 0)
		return 0;
	while (len < sizeof(maps) - 1 &&
	       (got = read(fd, maps + len, sizeof(maps) - 1 - len)) > 0)
		len += (size_t)got;
	close(fd);
	maps[len] = '\0';
	for (p = maps; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "") {
		char *end;

		*lo = (uintptr_t)strtoull(p, &end, 16);
		*hi = (uintptr_t)strtoull(end + 1, NULL, 16);
		if (a >= *lo && a < *hi)
			return 1;
	}
	return 0;
}

/* ALLOCS_NEIGHBOUR: 1 MiB of its own beside the mapping holding block. */
static void neighbour(void *block)
{
	const size_t len = 1 << 20;
	const int flags[] = { 0, MAP_NORESERVE };
	uintptr_t lo, hi, l2, h2;
	int side, f, strict;

	if (!mapping_of((uintptr_t)block, &lo, &hi))
		return;
	/* strict: merged with the mapping that holds block; else (a hole
	 * of 1 MiB between two of the allocator's mappings, each with its
	 * own anon_vma: the kernel merges with one only) with either */
	for (strict = 1; strict >= 0; strict--)
		for (side = 0; side < 2; side++)
			for (f = 0; f < 2; f++) {
				char *at = (char *)(side ? hi : lo - len);
				char *m = mmap(at, len, PROT_READ | PROT_WRITE,
					       MAP_PRIVATE | MAP_ANONYMOUS |
						       MAP_FIXED_NOREPLACE |
						       flags[f],
					       -1, 0);
				int up, down;

				if (m == MAP_FAILED)
					continue;
				if (m == at) {
					memset(m, 3, len);
					if (mapping_of((uintptr_t)m, &l2,
						       &h2)) {
						down = l2 < (uintptr_t)m;
						up = h2 > (uintptr_t)m + len;
						if ((side ? down : up) ||
						    (!strict && (up || down)))
							return; /* merged */
					}
				}
				munmap(m, len);
			}
}

/* mi_stats_print_out's text, gathered (no allocation) */
static char mi_text[1 << 14];

static void mi_out(const char *msg, void *arg)
{
	size_t n = strlen(mi_text);

	(void)arg;
	snprintf(mi_text + n, sizeof(mi_text) - n, "%s", msg);
}

/* The current column of mi_stats_print_out's line for what, as printed
 * ("32.0 MiB", "0") with its spaces left out, into out[32]; "-" where
 * there is none. The columns: peak, total, freed, current, each a number
 * and its unit or a number alone. */
static void mi_current(const char *what, char out[32])
{
	const char *at = strstr(mi_text, what);
	char line[256], *tok[8], *save = NULL, *t;
	int n = 0, col = 0, i;

	strcpy(out, "-");
	if (!at)
		return;
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(at, "\n"), at);
	strtok_r(line, " ", &save); /* what */
	while (n < 8 && (t = strtok_r(NULL, " ", &save)))
		tok[n++] = t;
	for (i = 0; i < n; i++, col++) {
		int unit = i + 1 < n && strchr("KMGB", tok[i + 1][0]);

		if (col == 3) {
			snprintf(out, 32, "%s%s", tok[i], unit ? tok[i + 1] : "");
			return;
		}
		i += unit;
	}
}

/* The figure of GetStats's line that says what (0 where none does). */
static size_t getstats_line(const char *text, const char *what)
{
	const char *at = strstr(text, what);
	size_t v;

	while (at && at > text && at[-1] != '\n')
		at--;
	return at && sscanf(at, "MALLOC: + %zu", &v) == 1 ? v : 0;
}

int main(int argc, char **argv)
{
	static const size_t mix[] = { 4096, 20000, 70000, 300000, 600000, 9000 };
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 16;
	int frag = argc > 2 && strcmp(argv[2], "frag") == 0;
	int threads = argc > 3 && strcmp(argv[3], "threads") == 0;
	int crossing = argc > 3 && strcmp(argv[3], "cross") == 0;
	char *held[240] = { 0 };
	size_t n = mib * 1024 * 1024 / 256, i, usable;
	char **keep = malloc(n * sizeof(*keep));
	tc_prop_fn tc = (tc_prop_fn)dlsym(RTLD_DEFAULT,
					  "MallocExtension_GetNumericProperty");
	tc_stats_fn stats = (tc_stats_fn)dlsym(RTLD_DEFAULT,
					       "MallocExtension_GetStats");
	static char text[1 << 16];
	size_t meta = 0, central = 0;
	mi_info_fn mi =
		(mi_info_fn)dlsym(RTLD_DEFAULT, "mi_process_info");
	size_t mi_commit = 0;
	mi_print_fn mi_print =
		(mi_print_fn)dlsym(RTLD_DEFAULT, "mi_stats_print_out");
	char mi_reserved[32] = "-";
	/* looked up before anything is allocated: a failed dlsym allocates */
	je_ctl_fn ctl = (je_ctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
	size_t heap = 0, phys = 0, unmapped = 0, pfree = 0, je[8];
	size_t app = 0, tc_central = 0, transfer = 0, thread = 0;
	int jemalloc;

	if (!keep)
		return 1;
	for (i = 0; i < n; i++) {
		keep[i] = malloc(256);
		if (!keep[i])
			return 1;
		memset(keep[i], (int)(i & 0x7f) | 1, 256);
	}
	for (i = 0; frag && i < 240; i++) {
		size_t sz = mix[i % (sizeof(mix) / sizeof(mix[0]))];

		held[i] = malloc(sz);
		if (!held[i])
			return 1;
		memset(held[i], 1, sz);
	}
	for (i = 1; frag && i < 240; i += 2) {
		free(held[i]);
		held[i] = NULL;
	}
	if (getenv("ALLOCS_NEIGHBOUR"))
		neighbour(keep[n / 2]);
	if (threads) {
		pthread_t th;

		if (pthread_barrier_init(&ready, NULL, THREADS + 1))
			return 1;
		for (i = 0; i < THREADS; i++)
			if (pthread_create(&th, NULL, holder, (void *)(uintptr_t)i))
				return 1;
		pthread_barrier_wait(&ready);
	}
	if (crossing && !cross())
		return 1;
	/* stdout's buffer first, so that the figures below include it */
	setvbuf(stdout, NULL, _IOFBF, 4096);
	printf("%s", "");
	usable = malloc_usable_size(keep);
	for (i = 0; i < n; i++)
		usable += malloc_usable_size(keep[i]);
	for (i = 0; i < 240; i++)
		usable += held[i] ? malloc_usable_size(held[i]) : 0;
	for (i = 0; crossing && i < CROSS * CROSS_N; i++)
		usable += cross_blocks[i / CROSS_N][i % CROSS_N]
				  ? malloc_usable_size(
					    cross_blocks[i / CROSS_N][i % CROSS_N])
				  : 0;
	if (tc && (!tc("generic.heap_size", &heap) ||
		   !tc("generic.total_physical_bytes", &phys) ||
		   !tc("tcmalloc.pageheap_unmapped_bytes", &unmapped) ||
		   !tc("tcmalloc.pageheap_free_bytes", &pfree) ||
		   !tc("generic.current_allocated_bytes", &app) ||
		   !tc("tcmalloc.central_cache_free_bytes", &tc_central) ||
		   !tc("tcmalloc.transfer_cache_free_bytes", &transfer) ||
		   !tc("tcmalloc.thread_cache_free_bytes", &thread)))
		tc = NULL;
	if (tc && stats) {
		/* into a static buffer: nothing allocated */
		stats(text, sizeof(text));
		meta = getstats_line(text, "Bytes in malloc metadata");
		central = getstats_line(text, "Bytes in central cache");
	}
	/* the line's buffer is stdout's, allocated above */
	jemalloc = je_stats(ctl, je);
	if (mi) {
		size_t x[7];

		mi(&x[0], &x[1], &x[2], &x[3], &x[4], &mi_commit, &x[5], &x[6]);
		if (mi_print) {
			mi_print(mi_out, NULL);
			mi_current("reserved:", mi_reserved);
		}
	}
	printf("ready %zu usable %zu", n * 256, usable);
	if (tc)
		printf(" tcmalloc %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu",
		       heap, phys, unmapped, pfree, meta, central, app,
		       tc_central, transfer, thread);
	if (mi)
		printf(" mimalloc %zu %s", mi_commit, mi_reserved);
	if (jemalloc)
		printf(" jemalloc %zu %zu %zu %zu %zu %zu %zu %zu", je[0],
		       je[1], je[2], je[3], je[4], je[5], je[6], je[7]);
	printf("\n");
	fflush(stdout);
	pause();
	return keep[n - 1][0] == 0 || (held[0] && held[0][0] == 0);
}
