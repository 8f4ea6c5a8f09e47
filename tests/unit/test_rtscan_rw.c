/* test_rtscan_rw.c — an image's writable memory as rtscan_rw_read() reads
 * it, against a source of memory of the test's own: 8 pages, some absent
 * (the source reads up to the first of them, as /proc/PID/mem through
 * pagemap does), one present in part (a read that stops inside it).
 *
 * What the scanners count on: ok[] says which pages came; a page that did
 * not is zeros in w (never its bytes in the source, nor the part of a
 * page read in part); rtscan_rw_next() gives the stretches of pages read,
 * in order, and nothing else; a first page absent reads nothing (0); a
 * struct never read into, or one read from unaligned bounds (one stretch,
 * the absent pages zeros), is scanned as rtscan_read_zeros() read it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/rtscan.h"
#include "linux/smaps.h"
#include "model/snapshot.h"
#include "model/source.h"
#include "tap.h"

#define NPG 8
#define BASE 0x7e0000000000ull

static const char maps[] = "7e0000000000-7e0000008000 rw-p 00000000 00:00 0 \n";

static size_t pg; /* the page size */
static unsigned char mem[NPG * 65536];
/* which pages are there: 1 whole, 2 its first 100 bytes, 0 none */
static unsigned char there[NPG];

static ssize_t img_read(struct vms_snapshot *s, uint64_t addr, void *buf,
			size_t len, struct vms_error *err)
{
	size_t got = 0;

	(void)s;
	(void)err;
	if (addr < BASE || addr >= BASE + NPG * pg)
		return 0;
	if (len > BASE + NPG * pg - addr)
		len = (size_t)(BASE + NPG * pg - addr);
	while (got < len) {
		size_t at = (size_t)(addr - BASE) + got, p = at / pg;
		size_t n = pg - at % pg;

		if (n > len - got)
			n = len - got;
		if (!there[p])
			break;
		if (there[p] == 2) { /* 100 bytes, then the read stops */
			n = at % pg < 100 ? 100 - at % pg : 0;
			if (n > len - got)
				n = len - got;
			memcpy((char *)buf + got, mem + at, n);
			got += n;
			break;
		}
		memcpy((char *)buf + got, mem + at, n);
		got += n;
	}
	return (ssize_t)got;
}

static const struct vms_source_ops ops = { .name = "test",
					   .read_mem = img_read };

static struct vms_snapshot *snap(void)
{
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_error err;

	if (!s || smaps_parse_buffer(s, maps, sizeof(maps) - 1, &err) < 0)
		return NULL;
	s->src = (struct vms_source){ .ops = &ops,
				      .caps = VMS_SRC_MEMORY |
					      VMS_SRC_CONSISTENT };
	s->cap.page_size = pg;
	return s;
}

/* Every word of a stretch rtscan_rw_next() gives, in order: [from, to)
 * of each, up to max stretches; their number. */
static size_t stretches(const struct rtscan_rw *rw, size_t *from, size_t *to,
			size_t max)
{
	size_t k, end, n = 0;

	for (k = 0; rtscan_rw_next(rw, &k, &end);) {
		if (n < max) {
			from[n] = k;
			to[n] = end;
		}
		n++;
		k = end;
	}
	return n;
}

static bool zeros(const uint64_t *w, size_t from, size_t to)
{
	size_t k;

	for (k = from; k < to; k++)
		if (w[k])
			return false;
	return true;
}

static void pages_read(struct vms_snapshot *s)
{
	static const unsigned char layout[NPG] = { 1, 1, 0, 0, 2, 1, 0, 1 };
	struct rtscan_rw rw;
	size_t wp = pg / 8, from[8], to[8], n, i;
	int rc;

	memcpy(there, layout, NPG);
	rc = rtscan_rw_read(s, BASE, BASE + NPG * pg, &rw);
	ok(rc == 1 && rw.nw == NPG * wp, "read: 1, %zu words (%d, %zu)",
	   NPG * wp, rc, rw.nw);
	for (i = 0; rc == 1 && i < NPG; i++) {
		const uint64_t *p = rw.w + i * wp;
		bool whole = layout[i] == 1;

		ok(whole ? memcmp(p, mem + i * pg, pg) == 0
			 : zeros(rw.w, i * wp, (i + 1) * wp),
		   "page %zu: %s", i,
		   whole	     ? "its bytes"
		   : layout[i] == 2 ? "zeros (read in part: none of it kept)"
				    : "zeros (absent)");
	}
	n = stretches(&rw, from, to, 8);
	ok(n == 3 && from[0] == 0 && to[0] == 2 * wp && from[1] == 5 * wp &&
		   to[1] == 6 * wp && from[2] == 7 * wp && to[2] == 8 * wp,
	   "the stretches read: pages 0-1, 5, 7 (%zu)", n);
	/* a scan that starts inside a stretch goes on from there */
	{
		size_t k = wp + 3, end;

		ok(rtscan_rw_next(&rw, &k, &end) && k == wp + 3 &&
			   end == 2 * wp,
		   "from inside a stretch: that word on to its end");
		k = 3 * wp;
		ok(rtscan_rw_next(&rw, &k, &end) && k == 5 * wp &&
			   end == 6 * wp,
		   "from a page not read: the next stretch");
	}
	rtscan_rw_fini(&rw);
	ok(!rw.w && !rw.ok && !rtscan_rw_next(&rw, &n, &i),
	   "after fini: no stretch");
}

static void first_absent(struct vms_snapshot *s)
{
	static const unsigned char layout[NPG] = { 0, 1, 1, 0, 1, 1, 1, 1 };
	struct rtscan_rw rw;
	size_t from[8], to[8];
	int rc;

	memcpy(there, layout, NPG);
	rc = rtscan_rw_read(s, BASE, BASE + NPG * pg, &rw);
	ok(rc == 0 && stretches(&rw, from, to, 8) == 0 &&
		   zeros(rw.w, 0, rw.nw),
	   "first page absent: 0, nothing read, all zeros (%d)", rc);
	rtscan_rw_fini(&rw);
}

/* Bounds not on pages: one stretch of all the words, the pages absent
 * zeros (rtscan_read_zeros' way). */
static void unaligned(struct vms_snapshot *s)
{
	static const unsigned char layout[NPG] = { 1, 0, 1, 1, 1, 1, 1, 1 };
	struct rtscan_rw rw;
	size_t from[8], to[8], n, wp = pg / 8;
	int rc;

	memcpy(there, layout, NPG);
	rc = rtscan_rw_read(s, BASE + 64, BASE + 3 * pg, &rw);
	n = stretches(&rw, from, to, 8);
	ok(rc == 1 && n == 1 && from[0] == 0 && to[0] == rw.nw &&
		   rw.nw == (3 * pg - 64) / 8,
	   "unaligned: one stretch of every word (%d, %zu)", rc, n);
	ok(rc == 1 && memcmp(rw.w, mem + 64, pg - 64) == 0 &&
		   zeros(rw.w, wp - 8, 2 * wp - 8) &&
		   memcmp(rw.w + 2 * wp - 8, mem + 2 * pg, pg) == 0,
	   "unaligned: the absent page zeros, the others their bytes");
	rtscan_rw_fini(&rw);
}

int main(void)
{
	struct vms_snapshot *s;
	struct rtscan_rw none = { 0 };
	size_t k = 0, end, i;

	pg = (size_t)sysconf(_SC_PAGESIZE);
	if (pg > 65536)
		return 1;
	for (i = 0; i < NPG * pg; i++)
		mem[i] = (unsigned char)(i * 7 + 1) | 1; /* no zero byte */
	s = snap();
	ok(s != NULL, "snapshot");
	if (!s)
		return tap_done();
	ok(!rtscan_rw_next(&none, &k, &end), "a struct never read into: none");
	rtscan_rw_fini(&none);
	pages_read(s);
	first_absent(s);
	unaligned(s);
	vms_snapshot_free(s);
	return tap_done();
}
