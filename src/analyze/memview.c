/* memview.c — a snapshot's memory for the viewer. See memview.h. */
#include "analyze/memview.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/scan.h"
#include "model/source.h"

/* Bytes read at a time by the find (a whole number of pages). */
#define FIND_CHUNK (1u << 20)

const char *vms_memview_why(const struct vms_snapshot *s)
{
	unsigned caps = vms_source_caps(s);

	if (!(caps & VMS_SRC_MEMORY))
		return s->src.no_memory ? s->src.no_memory
					: "this snapshot holds no memory";
	if (!(caps & VMS_SRC_CONSISTENT))
		return "a pss capture that is not frozen: its memory is the "
		       "running target's, not the snapshot's (take it with "
		       "-b fork, or with -F to freeze the target while its "
		       "memory is read)";
	return NULL;
}

void vms_memview_release(struct vms_snapshot *s)
{
	vms_source_release(s);
}

static uint64_t page_of(const struct vms_snapshot *s)
{
	uint64_t pg = s->cap.page_size;

	return pg && !(pg & (pg - 1)) ? pg : 4096;
}

ssize_t vms_memview_read(struct vms_snapshot *s, uint64_t addr, void *buf,
			 size_t len, unsigned char *ok, struct vms_error *err)
{
	const char *why = vms_memview_why(s);
	uint64_t pg = page_of(s), at = addr, end = addr + len;
	ssize_t pages = 0;

	if (why)
		return vms_error_set(err, VMS_ERR_CAPTURE, 0, "%s", why);
	memset(buf, 0, len);
	memset(ok, 0, (len + pg - 1) / pg);
	vms_source_hold(s, true); /* a live target: stopped once for all */
	while (at < end) {
		size_t want = (size_t)(end - at);
		ssize_t got = vms_source_read(s, at, (char *)buf + (at - addr),
					      want, err);
		uint64_t k;

		if (got < 0) {
			vms_source_hold(s, false);
			return -1;
		}
		/* whole pages read; a partial last page still counts */
		for (k = 0; k < (uint64_t)got; k += pg) {
			ok[(at - addr + k) / pg] = 1;
			pages++;
		}
		if ((size_t)got == want)
			break;
		/* the page at at + got is absent: skip it */
		at = (at + (uint64_t)got) / pg * pg + pg;
	}
	vms_source_hold(s, false);
	return pages;
}

/* A stream of contiguous bytes searched with the last plen - 1 bytes of
 * the previous read carried over, so a match across two reads is found. */
struct finder {
	const unsigned char *pat;
	size_t plen;
	unsigned char *buf; /* carry + FIND_CHUNK */
	size_t carry;
	uint64_t next; /* the address the carry ends at */
};

/* The got bytes read at addr into f->buf + f->carry: 1 with *at when pat
 * is there at or after from. */
static int feed(struct finder *f, uint64_t addr, size_t got, uint64_t from,
		uint64_t *at)
{
	size_t total = f->carry + got, skip = 0, keep;
	uint64_t base = addr - f->carry;
	ptrdiff_t off;

	if (from > base)
		skip = from - base < total ? (size_t)(from - base) : total;
	off = scan_find(f->buf + skip, total - skip, f->pat, f->plen);
	if (off >= 0) {
		*at = base + skip + (uint64_t)off;
		return 1;
	}
	keep = f->plen - 1 < total ? f->plen - 1 : total;
	memmove(f->buf, f->buf + total - keep, keep);
	f->carry = keep;
	f->next = addr + got;
	return 0;
}

/* One region from start: 1 found, 0 not, -1 error. */
static int find_in(struct vms_snapshot *s, struct finder *f, uint64_t start,
		   uint64_t end, uint64_t from, uint64_t *at,
		   struct vms_error *err)
{
	uint64_t pg = page_of(s), pos = start;

	f->carry = 0;
	while (pos < end) {
		size_t want = end - pos < FIND_CHUNK ? (size_t)(end - pos)
						     : FIND_CHUNK;
		ssize_t got;

		if (pos != f->next)
			f->carry = 0;
		got = vms_source_read(s, pos, f->buf + f->carry, want, err);
		if (got < 0)
			return -1;
		if (got > 0 && feed(f, pos, (size_t)got, from, at))
			return 1;
		if ((size_t)got == want) {
			pos += want;
			continue;
		}
		f->carry = 0;
		pos = (pos + (uint64_t)got) / pg * pg + pg;
	}
	return 0;
}

int vms_memview_find(struct vms_snapshot *s, uint64_t from,
		     const unsigned char *pat, size_t plen, uint64_t *at,
		     vms_memview_progress progress, void *ctx,
		     struct vms_error *err)
{
	const char *why = vms_memview_why(s);
	struct finder f = { pat, plen, NULL, 0, 0 };
	size_t i;
	int rc = 0;

	if (why)
		return vms_error_set(err, VMS_ERR_CAPTURE, 0, "%s", why);
	if (plen == 0 || plen > 256)
		return vms_error_set(err, VMS_ERR_USAGE, EINVAL,
				     "a pattern is 1 to 256 bytes");
	f.buf = malloc(FIND_CHUNK + plen);
	if (!f.buf)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	vms_source_hold(s, true);
	for (i = 0; i < s->nregions && rc == 0; i++) {
		const struct vms_region *r = &s->regions[i];
		uint64_t start = r->start > from ? r->start : from;

		if (r->end <= from || (r->flags & VMS_RF_UNREADABLE))
			continue;
		/* nothing resident, nothing swapped: nothing to read */
		if (!s->cap.no_counters && !(r->flags & VMS_RF_NO_COUNTERS) &&
		    r->c.rss == 0 && r->c.swap == 0)
			continue;
		if (progress && progress(ctx, start)) {
			rc = vms_error_set(err, VMS_ERR_CAPTURE, ECANCELED,
					   "cancelled");
			break;
		}
		/* from the page holding start: a match may begin before
		 * the page boundary only at or after from (feed skips) */
		rc = find_in(s, &f, start / page_of(s) * page_of(s), r->end,
			     from, at, err);
	}
	vms_source_hold(s, false);
	free(f.buf);
	return rc;
}
