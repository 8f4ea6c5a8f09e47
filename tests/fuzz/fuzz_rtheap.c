/* fuzz_rtheap.c — libFuzzer harness for the runtime and allocator header
 * parsers (rtheap.h): V8 page headers, obmalloc pool headers, jemalloc base
 * blocks and the extent scan, mimalloc segments and their pages,
 * gperftools tcmalloc spans.
 *
 * The headers recorded in tests/fixtures/rtheap.txt and rtheap_mi.txt (or
 * $VMS_RTHEAP_FIXTURE, one file) are loaded once. An input whose first byte has its top bit clear damages
 * a copy of one of them (the byte picks which; the rest is records of a
 * byte offset and a 64-bit word written there); one with it set is itself
 * the buffer, read by every parser at a fixture's address. Each parser must
 * return without a sanitizer report, and what it accepts must hold
 * together (sizes inside the run, counts within capacity). A raw input is
 * also a memory image for the Go span walk (goheap.h, Go 1.19's layout):
 * its first 16 bytes are mheap_.allspans, pointers into it are spans; the
 * walk must end, and count no more objects than pages; the search for
 * allspans among its words, and the .go.buildinfo version parser, too.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fixtures/goheap_go119.h"
#include "analyze/rtheap.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXFIX 256
#define MAXLEN RTHEAP_MI_INFO

static struct fix {
	char kind[8];
	uint64_t addr, end;
	unsigned char b[MAXLEN];
	size_t n;
} fix[MAXFIX];
static size_t nfix;

static void load(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, kind[16], *hex;
	size_t cap = 0;
	unsigned long long a, e;

	if (!f)
		return;
	hex = malloc(2 * MAXLEN + 80);
	while (nfix < MAXFIX && getline(&line, &cap, f) > 0) {
		struct fix *x = &fix[nfix];
		unsigned v;

		if (strlen(line) > 2 * MAXLEN + 64 ||
		    sscanf(line, "%15s %llx %llx %s", kind, &a, &e, hex) != 4 ||
		    strlen(kind) >= sizeof(x->kind))
			continue;
		strcpy(x->kind, kind);
		x->addr = a;
		x->end = e;
		for (x->n = 0;
		     x->n < MAXLEN && sscanf(hex + 2 * x->n, "%2x", &v) == 1;
		     x->n++)
			x->b[x->n] = (unsigned char)v;
		if (strcmp(kind, "mi") == 0)
			x->n = MAXLEN; /* recorded without its trailing zeros */
		nfix++;
	}
	free(hex);
	free(line);
	fclose(f);
}

/* name in tests/fixtures, beside the tree or beside the harness */
static void load_fixture(const char *argv0, const char *name)
{
	char path[4200];

	snprintf(path, sizeof(path), "tests/fixtures/%s", name);
	if (access(path, R_OK) != 0 && strrchr(argv0, '/')) {
		snprintf(path, sizeof(path), "%s", argv0);
		*strrchr(path, '/') = '\0';
		snprintf(path + strlen(path), sizeof(path) - strlen(path),
			 "/../tests/fixtures/%s", name);
	}
	load(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("VMS_RTHEAP_FIXTURE");

	(void)argc;
	if (path) {
		load(path);
	} else {
		load_fixture((*argv)[0], "rtheap.txt");
		load_fixture((*argv)[0], "rtheap_mi.txt");
	}
	if (!nfix) {
		fprintf(stderr, "fuzz_rtheap: no headers in %s\n",
			path ? path : "tests/fixtures/rtheap*.txt");
		abort();
	}
	return 0;
}

static bool anywhere(void *ctx, uint64_t a, uint64_t size)
{
	(void)ctx;
	return a >= 0x10000 && a < (1ull << 47) && size <= (1ull << 47) - a;
}

static int seen(void *ctx, uint64_t a, uint64_t size)
{
	if (a % 4096 != 0 || size == 0)
		abort();
	++*(size_t *)ctx;
	return 0;
}

/* A page rtheap_mi_pages_each gives: inside its segment [lo, hi), its
 * used blocks inside it. */
struct mi_bounds {
	uint64_t lo, hi;
};

static void mi_page_in(void *ctx, const struct rtheap_mi_page *p)
{
	const struct mi_bounds *s = ctx;

	if (p->start < s->lo || p->bytes > s->hi - p->start || !p->bsize ||
	    p->used * p->bsize > p->bytes || p->thread_free % 4)
		abort();
}

static void parse_all(const unsigned char *b, size_t n, uint64_t addr,
		      uint64_t end)
{
	struct rtheap_v8_page v;
	struct rtheap_py_pool p;
	struct rtheap_je_base j;
	struct rtheap_je_stats js;
	struct rtheap_mi_seg ms;
	struct rtheap_mi_use mu;
	struct rtheap_tc_span ts;
	uint64_t page = addr >> 13;
	size_t k = 0;

	if (rtheap_v8_page(b, n, addr, end, &v) &&
	    (v.size > end - addr || v.area_end > addr + v.size ||
	     rtheap_v8_space(&v) >= RTHEAP_V8_NSPACES ||
	     rtheap_v8_used(&v) > (int64_t)(v.area_end - v.area_start)))
		abort();
	if (rtheap_py_pool(b, n, addr, 16384, &p) && p.count > p.capacity)
		abort();
	if (rtheap_py_pool(b, n, addr, 4096, &p) && p.count > p.capacity)
		abort();
	if (rtheap_je_base(b, n, addr, end, &j) &&
	    (j.size > end - addr || j.used_end > addr + j.size))
		abort();
	if (rtheap_je_extents(b, n, addr, anywhere, seen, &k) != k)
		abort();
	if (rtheap_je_stats(b, n, &js) &&
	    (js.allocated > js.active || js.active > js.resident ||
	     js.resident > js.mapped || js.metadata_thp > js.metadata))
		abort();
	if (rtheap_mi_segment(b, n, addr, end, &ms) &&
	    (ms.size > end - addr || ms.entries > RTHEAP_MI_MAX_ENTRIES ||
	     (rtheap_mi_pages(b, n, &ms, &mu) &&
	      (mu.in_use > ms.size || mu.free_spans > ms.size ||
	       mu.pages > ms.entries))))
		abort();
	if (rtheap_mi_segment(b, n, addr, end, &ms)) {
		struct mi_bounds mb = { addr, addr + ms.size };

		(void)rtheap_mi_pages_each(b, n, &ms, addr, &mu, mi_page_in,
					   &mb);
	}
	if (rtheap_je_stats(b, n, &js) && n > 8) {
		struct rtheap_je_counts jc;

		/* the rest of the input as the merged arena's record, read
		 * against the figures it began with */
		if (rtheap_je_arena(b + 8, n - 8, addr, &js, &jc) &&
		    (jc.allocated_large > js.allocated ||
		     jc.ndalloc_large > jc.nmalloc_large ||
		     (rtheap_je_small(b + 8, n - 8, &js, &jc) &&
		      jc.ndalloc_small > jc.nmalloc_small)))
			abort();
	}
	if (n >= 8)
		memcpy(&page, b, 8); /* a span read at its own start page */
	if (rtheap_tc_span(b, n, page, 13, &ts) &&
	    (page < ts.start || page - ts.start >= ts.length ||
	     ts.location > 2 || ts.start + ts.length > (1ull << 35)))
		abort();
}

#define GO_BASE 0xc000000000ull

struct image {
	const uint8_t *b;
	size_t n;
};

static bool image_read(void *ctx, uint64_t a, void *buf, size_t len)
{
	const struct image *m = ctx;

	if (a < GO_BASE || a - GO_BASE > m->n || len > m->n - (a - GO_BASE))
		return false;
	memcpy(buf, m->b + (a - GO_BASE), len);
	return true;
}

static void go_walk(const uint8_t *d, size_t n)
{
	const struct goheap_layout *L = &goheap_go119;
	struct goheap_range r[2] = {
		{ GO_BASE, GO_BASE + 2048, { 0 } },
		{ GO_BASE + 2048, GO_BASE + (1ull << 40), { 0 } }
	};
	struct image m = { d, n };
	struct goheap_walk w;
	uint64_t words[512];
	const char *why;
	char v[32];
	uint64_t at;

	(void)goheap_buildinfo_version(d, n, v, sizeof(v)); /* ASan's */
	/* the input as the program's words too: a slice found lies in them */
	memcpy(words, d, n < sizeof(words) ? n & ~(size_t)7 : sizeof(words));
	at = goheap_find_allspans(L, words,
				  (n < sizeof(words) ? n : sizeof(words)) / 8,
				  GO_BASE, r, 2, image_read, &m, &why);
	if (at && (at < GO_BASE || at - GO_BASE + 24 > n))
		abort();
	if (goheap_walk(L, GO_BASE, image_read, NULL, &m, r, 2, &w) == 0 &&
	    (w.all.objects > w.all.heap_inuse ||
	     w.all.heap_alloc > w.all.heap_inuse || w.all.spans > w.nspans ||
	     r[0].sums.spans + r[1].sums.spans + w.outside != w.all.spans))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char buf[MAXLEN];
	const struct fix *x;
	size_t i;

	if (size < 1)
		return 0;
	x = &fix[data[0] % nfix];
	if (data[0] & 0x80) {
		parse_all(data + 1, size - 1, x->addr, x->end);
		go_walk(data + 1, size - 1);
		return 0;
	}
	memcpy(buf, x->b, x->n);
	for (i = 1; i + 9 <= size && x->n >= 8; i += 9) {
		size_t off = data[i] % (x->n - 7);

		memcpy(buf + off, data + i + 1, 8);
	}
	parse_all(buf, x->n, x->addr, x->end);
	return 0;
}
