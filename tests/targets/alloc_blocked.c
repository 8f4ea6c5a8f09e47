/* alloc_blocked.c — a process whose only thread can be made to block in
 * read() inside its allocator, jemalloc's or tcmalloc's
 * (tests/live/test_trace_attach_alloc.py: built plain by the Makefile,
 * linked with libjemalloc or libtcmalloc_minimal by the test). The
 * allocator is told by the symbols the program finds: mallctl
 * (jemalloc), MallocHook_AddNewHook (tcmalloc), else glibc's.
 *
 * Prints "ready ALLOCATOR" (jemalloc, tcmalloc or glibc), then obeys one
 * command a line on stdin (read by read(2) itself, a byte at a time),
 * each answered by one line:
 *   inside   the next line is read from inside the allocator: jemalloc,
 *            by the extent hook of an arena of its own (alloc_hook,
 *            which jemalloc calls holding that arena's lock of extent
 *            growth), for a mallocx() of 1 MiB from it; tcmalloc, by its
 *            new hook (new_hook, which tc_malloc calls), for a malloc of
 *            40 bytes; answered "ok inside LINE" (LINE the one read
 *            there), or "no inside" with glibc
 *   leak N   N calls of leak_block(): malloc(40), kept; "ok leak N SUM"
 *   big N    N calls of big_block(): malloc(8 MiB), its first byte of
 *            each page written, kept (the allocator maps memory for them
 *            inside malloc); "ok big N SUM"
 *   end      exits 0
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);
typedef void *(*mallocx_fn)(size_t, int);
typedef int (*addhook_fn)(void (*)(const void *, size_t));

/* jemalloc 5's extent_hooks_t */
struct extent_hooks;
typedef void *(*ext_alloc)(struct extent_hooks *, void *, size_t, size_t,
			   bool *, bool *, unsigned);
struct extent_hooks {
	ext_alloc alloc;
	void *rest[8]; /* dalloc, destroy, commit, ..., merge */
};

static struct extent_hooks *def_hooks, my_hooks;
static volatile int armed;
static char inside_line[256];

/* One line from stdin by read(2), without its newline; -1 at the end. */
static int read_line(char *buf, size_t n)
{
	size_t k = 0;
	char c;

	for (;;) {
		ssize_t got = read(0, &c, 1);

		if (got <= 0)
			return k ? (int)k : -1;
		if (c == '\n')
			break;
		if (k + 1 < n)
			buf[k++] = c;
	}
	buf[k] = '\0';
	return (int)k;
}

static void *alloc_hook(struct extent_hooks *h, void *addr, size_t size,
			size_t align, bool *zero, bool *commit, unsigned ind)
{
	(void)h;
	if (armed) {
		armed = 0;
		read_line(inside_line, sizeof(inside_line));
	}
	return def_hooks->alloc(def_hooks, addr, size, align, zero, commit,
				ind);
}

static void new_hook(const void *p, size_t n)
{
	(void)p;
	(void)n;
	if (armed) {
		armed = 0;
		read_line(inside_line, sizeof(inside_line));
	}
}

static char *kept[100000];
static int nkept;

__attribute__((noinline, noclone)) char *leak_block(void)
{
	char *p = malloc(40);

	if (p)
		memset(p, 1, 40);
	return p;
}

__attribute__((noinline, noclone)) char *big_block(void)
{
	char *p = malloc(8 << 20);
	long i;

	for (i = 0; p && i < (8 << 20); i += 4096)
		p[i] = 2;
	return p;
}

int main(void)
{
	mallctl_fn ctl = (mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
	mallocx_fn mx = (mallocx_fn)dlsym(RTLD_DEFAULT, "mallocx");
	addhook_fn add =
		(addhook_fn)dlsym(RTLD_DEFAULT, "MallocHook_AddNewHook");
	const char *who = ctl && mx ? "jemalloc" : add ? "tcmalloc" : "glibc";
	unsigned arena = 0;
	/* zeroed: vmscope's scan of a blocked thread's stack takes any word
	 * that returns into the allocator for a sign that the thread is
	 * inside it (src/capture/ptrace/inject_call.h), and what the
	 * allocator's start-up before main left in these, unwritten by a
	 * short line, held two of jemalloc's return addresses on one
	 * machine (kernel 6.18, AMD EPYC): never attached there */
	char line[256] = "", what[32] = "";
	long n, i, sum;

	if (ctl && mx) {
		size_t sz = sizeof(def_hooks), asz = sizeof(arena);
		struct extent_hooks *mine = &my_hooks;

		if (ctl("arena.0.extent_hooks", &def_hooks, &sz, NULL, 0))
			return 2;
		my_hooks = *def_hooks;
		my_hooks.alloc = alloc_hook;
		if (ctl("arenas.create", &arena, &asz, &mine, sizeof(mine)))
			return 2;
	} else if (add && !add(new_hook)) {
		return 2;
	}
	printf("ready %s\n", who);
	fflush(stdout);
	while (read_line(line, sizeof(line)) >= 0) {
		n = 0;
		what[0] = '\0';
		if (sscanf(line, "%31s %ld", what, &n) < 1)
			continue;
		if (strcmp(what, "inside") == 0) {
			void *p = NULL;

			if (!strcmp(who, "glibc")) {
				printf("no inside\n");
				fflush(stdout);
				continue;
			}
			armed = 1;
			if (mx) /* MALLOCX_ARENA(arena) | MALLOCX_TCACHE_NONE */
				p = mx(1 << 20, (int)((arena + 1) << 20 | 1 << 8));
			else
				p = malloc(40);
			printf("ok inside %s%s\n", inside_line,
			       p ? "" : " (no block)");
			fflush(stdout);
			free(p);
		} else if (strcmp(what, "leak") == 0) {
			for (i = 0, sum = 0; i < n && nkept < 100000; i++)
				if ((kept[nkept] = leak_block()))
					sum += kept[nkept++][i % 40];
			printf("ok leak %ld %ld\n", n, sum);
			fflush(stdout);
		} else if (strcmp(what, "big") == 0) {
			for (i = 0, sum = 0; i < n && nkept < 100000; i++)
				if ((kept[nkept] = big_block()))
					sum += kept[nkept++][4096];
			printf("ok big %ld %ld\n", n, sum);
			fflush(stdout);
		} else if (strcmp(what, "end") == 0) {
			return 0;
		}
	}
	return 0;
}
