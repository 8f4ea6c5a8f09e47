/* test_rtheap.c — the runtime and allocator header parsers (rtheap.h) on
 * headers recorded from live node, python and redis processes
 * (tests/fixtures/rtheap.txt, record_rtheap.py), each with damaged copies
 * that must be refused; the jemalloc extent scan over a recorded base
 * block: extents found, each inside the recorded anonymous runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fixtures/fixture.h"
#include "rtheap.h"
#include "tap.h"

#define MAXRUNS 4096

static uint64_t runs[MAXRUNS][2];
static size_t nruns;

static size_t unhex(const char *h, unsigned char *out, size_t cap)
{
	size_t n = 0;
	unsigned v;

	while (n < cap && sscanf(h + 2 * n, "%2x", &v) == 1)
		out[n++] = (unsigned char)v;
	return n;
}

static bool in_runs(void *ctx, uint64_t a, uint64_t size)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < nruns; i++)
		if (runs[i][0] <= a && size <= runs[i][1] - a)
			return true;
	return false;
}

static int count(void *ctx, uint64_t a, uint64_t size)
{
	(void)a;
	(void)size;
	++*(size_t *)ctx;
	return 0;
}

/* The recorded V8 pages' spaces and bytes in use, as node 20 counted them
 * (record_rtheap.py; the new-space page's use is not in its header). */
static const struct {
	uint64_t addr;
	unsigned space;
	int64_t used;
} v8_want[] = {
	{ 0x1dac840000, RTHEAP_V8_OLD, 257696 },
	{ 0x7941580000, RTHEAP_V8_NEW, -1 },
	{ 0x3a957700000, RTHEAP_V8_LO, 2060768 },
	{ 0x16c07cfc0000, RTHEAP_V8_RO, 50016 },
};

static void v8_space(const unsigned char *b, size_t n, uint64_t addr,
		     uint64_t end)
{
	struct rtheap_v8_page v;
	unsigned char c[RTHEAP_V8_HDR];
	uint64_t w;
	size_t i;

	for (i = 0; i < sizeof(v8_want) / sizeof(v8_want[0]); i++)
		if (v8_want[i].addr == addr)
			break;
	if (i == sizeof(v8_want) / sizeof(v8_want[0]) ||
	    !rtheap_v8_page(b, n, addr, end, &v))
		return;
	ok(rtheap_v8_space(&v) == v8_want[i].space &&
		   rtheap_v8_used(&v) == v8_want[i].used,
	   "v8 page at 0x%llx: %s, %lld bytes in use (want %s, %lld)",
	   (unsigned long long)addr, rtheap_v8_spaces[rtheap_v8_space(&v)],
	   (long long)rtheap_v8_used(&v), rtheap_v8_spaces[v8_want[i].space],
	   (long long)v8_want[i].used);
	if (v8_want[i].space == RTHEAP_V8_OLD) {
		/* shrunk to its objects (a deserialised page, as recorded
		 * beside it: 229376 bytes, an area of 224952): still old */
		memcpy(c, b, sizeof(c));
		w = 229376;
		memcpy(c, &w, 8);
		w = v.area_start + 224952;
		memcpy(c + 32, &w, 8);
		ok(rtheap_v8_page(c, sizeof(c), addr, end, &v) &&
			   rtheap_v8_space(&v) == RTHEAP_V8_OLD,
		   "a regular page shrunk below 256 KiB is still old space");
		/* allocated past the area: another layout, not known */
		w = v.area_end - v.area_start + 8;
		memcpy(c + 40, &w, 8);
		ok(rtheap_v8_page(c, sizeof(c), addr, end, &v) &&
			   rtheap_v8_used(&v) == -1,
		   "an allocated count past the area is not taken");
	}
	if (v8_want[i].space == RTHEAP_V8_LO) {
		memcpy(c, b, sizeof(c));
		w = v.flags | (1u << 4); /* TO_PAGE: a young large page */
		memcpy(c + 8, &w, 8);
		ok(rtheap_v8_page(c, sizeof(c), addr, end, &v) &&
			   rtheap_v8_space(&v) == RTHEAP_V8_NEW_LO &&
			   rtheap_v8_used(&v) == 2060768,
		   "a young large page is new large object space, its bytes "
		   "known");
		w = 0x10000; /* allocated into: not a large-object page */
		memcpy(c + 56, &w, 8);
		ok(rtheap_v8_page(c, sizeof(c), addr, end, &v) &&
			   rtheap_v8_space(&v) == RTHEAP_V8_NEW,
		   "a young page allocated into is new space");
	}
}

static bool parse(const char *kind, const unsigned char *b, size_t n,
		  uint64_t addr, uint64_t end)
{
	struct rtheap_v8_page v;
	struct rtheap_py_pool p;
	struct rtheap_je_base j;

	if (strcmp(kind, "v8") == 0)
		return rtheap_v8_page(b, n, addr, end, &v) &&
		       v.area_end <= addr + v.size;
	if (strcmp(kind, "py16") == 0)
		return rtheap_py_pool(b, n, addr, 16384, &p) &&
		       p.count <= p.capacity &&
		       !rtheap_py_pool(b, n, addr, 4096, &p);
	return rtheap_je_base(b, n, addr, end, &j) && j.used_end > addr &&
	       j.used_end <= addr + j.size;
}

int main(void)
{
	char path[4200], *line = NULL, kind[16], hex[20000], expect[8];
	unsigned char *blk = NULL, buf[10000], zero[128] = { 0 };
	size_t cap = 0, nblk = 0, good = 0, bad = 0, found = 0;
	unsigned long long a, e;
	FILE *f;

	snprintf(path, sizeof(path), "%s/rtheap.txt", fixture_dir());
	f = fopen(path, "r");
	ok(f != NULL, "fixture %s opens", path);
	if (!f)
		return tap_done();
	while (getline(&line, &cap, f) > 0) {
		size_t n;

		if (sscanf(line, "RUNS %llx %llx", &a, &e) == 2 &&
		    nruns < MAXRUNS) {
			runs[nruns][0] = a;
			runs[nruns++][1] = e;
			continue;
		}
		if (sscanf(line, "%15s %llx %llx %19999s %7s", kind, &a, &e,
			   hex, expect) != 5)
			continue;
		n = unhex(hex, buf, sizeof(buf));
		if (strcmp(kind, "jeblk") == 0) {
			blk = malloc(n);
			memcpy(blk, buf, n);
			nblk = n;
			continue;
		}
		if (strcmp(expect, "good") == 0) {
			good++;
			if (strcmp(kind, "v8") == 0)
				v8_space(buf, n, a, e);
			ok(parse(kind, buf, n, a, e),
			   "%s header at 0x%llx, recorded live, is accepted",
			   kind, a);
		} else {
			bad++;
			ok(!parse(kind, buf, n, a, e),
			   "%s header at 0x%llx, damaged, is refused", kind, a);
		}
	}
	free(line);
	fclose(f);
	ok(good >= 6 && bad >= 12,
	   "fixture has %zu live and %zu damaged "
	   "headers",
	   good, bad);
	ok(blk && nruns, "fixture has a jemalloc base block and its runs");
	if (blk) {
		size_t seen =
			rtheap_je_extents(blk, nblk, in_runs, count, &found);

		ok(found > 0 && seen == found,
		   "jemalloc base block: %zu extent records inside anonymous "
		   "runs",
		   found);
		found = 0;
		memset(blk, 0, nblk);
		ok(rtheap_je_extents(blk, nblk, in_runs, count, &found) == 0,
		   "a zeroed block has no extents");
		free(blk);
	}
	ok(!rtheap_v8_page(zero, sizeof(zero), 0x40000, 0x80000,
			   &(struct rtheap_v8_page){ 0 }) &&
		   !rtheap_py_pool(zero, sizeof(zero), 0x4000, 16384,
				   &(struct rtheap_py_pool){ 0 }) &&
		   !rtheap_je_base(zero, sizeof(zero), 0x200000, 0x400000,
				   &(struct rtheap_je_base){ 0 }),
	   "zeroed memory is none of them");
	return tap_done();
}
