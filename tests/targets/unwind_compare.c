/* unwind_compare — the tracer's own stack walk (trace/unwind.c) against
 * libunwind's unw_backtrace, in one process, on the same calls: at each
 * check() both walk from check() and must give the same frames from
 * check()'s caller up (the tracer takes libunwind whenever its own walk
 * says -1, so a walk that gives frames must give libunwind's).
 *
 * The call paths, chosen at random (the seed printed, VMSCOPE_SEED taken):
 * qsort's and tsearch's and bsearch's callbacks (through libc, built
 * without frame pointers), recursion to a random depth (past the 64
 * frames kept: both cut at the same frame), a frame by rbp (alloca), a
 * callback from a module loaded with dlopen and unloaded after each use
 * (zlib's allocator, the rules dropped as the tracer's dlclose does), a
 * stack realigned (its CFA by expression: the own walk must decline), a
 * signal handler (through the kernel's signal frame: must decline), in
 * the main thread and in two more (one on a stack of the program's own,
 * pthread_attr_setstack); and, between rounds, every cached rule
 * dropped (vt_unwind_modules_changed, as a dlclose does).
 *
 * Built with -O2 -fomit-frame-pointer (Makefile). Prints one line:
 * "walks N own O declined D mismatches M; own P ns, libunwind Q ns a walk"
 * and exits 0 when M is 0 and every path that must be walked by the own
 * walk was (then also "paths own: ..."); else 1 with the first mismatch.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <alloca.h>
#include <dlfcn.h>
#include <libunwind.h>
#include <pthread.h>
#include <search.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <zlib.h>

#include "unwind.h"

#define MAX 64

enum path { P_QSORT, P_TSEARCH, P_BSEARCH, P_DEEP, P_RBP, P_DLOPEN,
	    P_ALIGNED, P_SIGNAL, P_COUNT };
static const char *const path_names[P_COUNT] = {
	"qsort", "tsearch", "bsearch", "deep", "rbp", "dlopen", "aligned",
	"signal"
};
/* must the own walk take it (else it may decline: the caller then takes
 * libunwind's, which is what is compared) */
static const int must_own[P_COUNT] = { 1, 1, 1, 1, 1, 1, 0, 0 };

static __thread struct vt_uw *uw;
static __thread enum path cur;
static __thread uint64_t rng;
static long walks, own, declined, mismatches, own_by[P_COUNT],
	walks_by[P_COUNT];
static double own_ns, lib_ns;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char first_bad[2048];

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Both walks from here; frame 0 of each is its own call site in here,
 * frame 1 on is check()'s caller's, the same for both. */
__attribute__((noinline)) static void check(void)
{
	void *a[MAX], *b[MAX];
	double t0 = now(), t1;
	int nb = vt_unwind(uw, b, MAX), na, i;
	int same;

	t1 = now();
	na = unw_backtrace(a, MAX);
	__atomic_fetch_add(&walks, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&walks_by[cur], 1, __ATOMIC_RELAXED);
	if (nb < 0) {
		__atomic_fetch_add(&declined, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&own, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&own_by[cur], 1, __ATOMIC_RELAXED);
	same = na == nb && na > 1 &&
	       memcmp(a + 1, b + 1, (size_t)(na - 1) * sizeof(void *)) == 0;
	pthread_mutex_lock(&lock);
	own_ns += t1 - t0;
	lib_ns += now() - t1;
	if (!same && !mismatches++) {
		int o = snprintf(first_bad, sizeof(first_bad),
				 "path %s: libunwind %d frames, own %d:",
				 path_names[cur], na, nb);

		for (i = 1; i < (na > nb ? na : nb) && o < 1900; i++)
			o += snprintf(first_bad + o, sizeof(first_bad) - o,
				      " %p/%p", i < na ? a[i] : NULL,
				      i < nb ? b[i] : NULL);
	}
	pthread_mutex_unlock(&lock);
}

static int cmp(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	if ((a ^ b) % 7 == 0)
		check();
	return (a > b) - (a < b);
}

__attribute__((noinline)) static int deep(int n)
{
	int r;

	if (n == 0) {
		check();
		return 0;
	}
	r = deep(n - 1);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
	return r + 1;
}

/* alloca: the frame is kept by rbp, its CFA rbp-based */
__attribute__((noinline)) static int by_rbp(int n)
{
	volatile char *p = alloca((size_t)n * 16 + 16);

	p[0] = 1;
	if (n > 0)
		return by_rbp(n - 1) + p[0];
	check();
	return p[0];
}

/* a stack realigned through a register (gcc's DRAP): the CFA by
 * expression (DW_CFA_def_cfa_expression) */
__attribute__((noinline, force_align_arg_pointer)) static int aligned(int n)
{
	_Alignas(64) volatile char buf[64];
	volatile char *p = alloca((size_t)(n & 15) + 1);

	buf[0] = (char)n;
	p[0] = buf[0];
	check();
	return buf[0];
}

/* zlib's allocator callback: called from inside libz, a module loaded
 * with dlopen now and unloaded after */
static voidpf z_alloc(voidpf opaque, uInt n, uInt size)
{
	(void)opaque;
	check();
	return calloc(n, size);
}

static void z_free(voidpf opaque, voidpf p)
{
	(void)opaque;
	free(p);
}

static void through_dlopen(void)
{
	void *z = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
	int (*init)(z_streamp, int, int, int, int, int, const char *, int);
	int (*end)(z_streamp);
	z_stream st;

	if (!z)
		return;
	*(void **)&init = dlsym(z, "deflateInit2_");
	*(void **)&end = dlsym(z, "deflateEnd");
	memset(&st, 0, sizeof(st));
	st.zalloc = z_alloc;
	st.zfree = z_free;
	if (init && end &&
	    init(&st, 6, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
		 (int)sizeof(st)) == Z_OK)
		end(&st);
	dlclose(z); /* as the tracer's dlclose would, rules dropped */
	vt_unwind_modules_changed();
}

static void on_usr1(int sig)
{
	(void)sig;
	check();
}

static void keep(void *key)
{
	(void)key; /* the keys are v's: on the stack */
}

static void run_path(enum path p)
{
	int v[40], i, key;
	void *root = NULL;

	cur = p;
	for (i = 0; i < 40; i++)
		v[i] = (int)(rnd() % 1000);
	switch (p) {
	case P_QSORT:
		qsort(v, 40, sizeof(int), cmp);
		break;
	case P_TSEARCH:
		for (i = 0; i < 40; i++)
			tsearch(&v[i], &root, cmp);
		tdestroy(root, keep);
		break;
	case P_BSEARCH:
		qsort(v, 40, sizeof(int), cmp);
		key = v[rnd() % 40];
		bsearch(&key, v, 40, sizeof(int), cmp);
		break;
	case P_DEEP:
		deep((int)(rnd() % 90));
		break;
	case P_RBP:
		by_rbp((int)(rnd() % 5));
		break;
	case P_DLOPEN:
		through_dlopen();
		break;
	case P_ALIGNED:
		aligned((int)rnd());
		break;
	case P_SIGNAL:
		raise(SIGUSR1);
		break;
	default:
		break;
	}
}

struct job {
	uint64_t seed;
	int rounds;
};

static void *run(void *arg);
static void *own_stack_job;

/* A thread's start, as the tracer's pthread_create wrapper makes it
 * (trace/vmstrace.c): its stack noted from the default stack size glibc
 * allocated it with, or, for the thread made on a stack of this
 * program's own (pthread_attr_setstack), from that stack. */
static void *own_stack;
static size_t own_stack_size = 1 << 20;

static void *thread_run(void *arg)
{
	pthread_attr_t a;
	size_t size = 0;

	if (arg == own_stack_job) {
		vt_unwind_thread((uintptr_t)own_stack, own_stack_size);
		return run(arg);
	}
	if (pthread_attr_init(&a) == 0) {
		pthread_attr_getstacksize(&a, &size);
		pthread_attr_destroy(&a);
	}
	vt_unwind_thread(0, size);
	return run(arg);
}

static void *run(void *arg)
{
	struct job *j = arg;
	int r, p;

	uw = mmap(NULL, sizeof(*uw), PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (uw == MAP_FAILED)
		return NULL;
	rng = j->seed | 1;
	for (r = 0; r < j->rounds; r++) {
		for (p = 0; p < P_COUNT * 4; p++)
			run_path((enum path)(rnd() % P_COUNT));
		if (r % 10 == 9)
			vt_unwind_modules_changed();
	}
	munmap(uw, sizeof(*uw));
	return NULL;
}

int main(int argc, char **argv)
{
	const char *s = getenv("VMSCOPE_SEED");
	uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL);
	int rounds = argc > 1 ? atoi(argv[1]) : 100, i, ok = 1;
	struct job jobs[3];
	pthread_t th[2];

	printf("seed %llu\n", (unsigned long long)seed);
	signal(SIGUSR1, on_usr1);
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	vt_unwind_start(); /* the main thread's stack, as the tracer's start */
	for (i = 0; i < 3; i++) {
		jobs[i].seed = seed + (uint64_t)i * 0x9e3779b97f4a7c15ull;
		jobs[i].rounds = rounds;
	}
	/* the second thread on a stack of the program's own */
	own_stack = mmap(NULL, own_stack_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	own_stack_job = own_stack != MAP_FAILED ? &jobs[2] : NULL;
	for (i = 0; i < 2; i++) {
		pthread_attr_t a;

		pthread_attr_init(&a);
		if (i == 1 && own_stack_job)
			pthread_attr_setstack(&a, own_stack, own_stack_size);
		pthread_create(&th[i], &a, thread_run, &jobs[i + 1]);
		pthread_attr_destroy(&a);
	}
	run(&jobs[0]);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("walks %ld own %ld declined %ld mismatches %ld; own %.0f ns, "
	       "libunwind %.0f ns a walk\n",
	       walks, own, declined, mismatches, own ? own_ns / own : 0.0,
	       own ? lib_ns / own : 0.0);
	printf("paths own:");
	for (i = 0; i < P_COUNT; i++) {
		printf(" %s %ld/%ld", path_names[i], own_by[i], walks_by[i]);
		if (must_own[i] && (!walks_by[i] || own_by[i] != walks_by[i]))
			ok = 0;
	}
	printf("\n");
	if (mismatches)
		printf("first mismatch: %s\n", first_bad);
	return ok && !mismatches && walks ? 0 : 1;
}
