/* snapfile_zsec.c — a section of a snapshot file, decompressed piece by
 * piece (the smaps text straight into the smaps parser) or whole (the
 * JSON part, status), everything its header claims checked as the bytes
 * come. What snapfile_read.c and snapfile_parts.c both read through.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "capture/file/snapfile_int.h"
#include "linux/smaps.h"

/* The decompressed pieces the parser is fed (fit in a core's cache). */
#define SF_PIECE (128u << 10)
/* What a smaps text may hold beyond its regions' lines: 1 MiB, then 16
 * KiB a region (a region's header with a 4 KiB path and some 30 lines
 * of figures and VmFlags take 5 KiB). */
#define SF_SMAPS_FREE (1u << 20)
#define SF_SMAPS_PER_REGION (16u << 10)

/* A section's bytes, decompressed piece by piece (zsec_fill); everything
 * its header claims is checked as the bytes come. A part of a format-2
 * smaps text is filled on a thread of its own, so the fill touches
 * nothing but its own struct: its message waits in msg until the caller
 * takes it. */
struct zsec {
	const struct sf_sec *x;
	ZSTD_DCtx *z;
	ZSTD_inBuffer in;
	uint64_t total;
	bool ended;
	bool give_back; /* the input's pages may go as they are used */
	size_t given; /* input bytes before in.pos given back */
	const char *what;
	char msg[200]; /* what is wrong, when fill returned -1 */
};

static int zsec_open(struct zsec *d, const struct sf_sec *x, const char *name,
		     const char *what, struct vms_error *err)
{
	memset(d, 0, sizeof(*d));
	d->x = x;
	d->what = what;
	d->in.src = x->data;
	d->in.size = x->stored;
	if (x->codec == SF_CODEC_STORED) {
		if (x->stored != x->size)
			return vms_error_file(
				err, name,
				"corrupted: section \"%s\" holds %llu "
				"bytes and says %llu",
				what, (unsigned long long)x->stored,
				(unsigned long long)x->size);
		return 0;
	}
	d->z = ZSTD_createDCtx();
	if (!d->z)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	/* Refuse a frame that claims a window beyond 128 MiB (zstd's
	 * default is 128 MiB: a hostile header cannot make it allocate). */
	ZSTD_DCtx_setParameter(d->z, ZSTD_d_windowLogMax, 27);
	return 0;
}

/* The whole pages of input the decompressor is done with, given back to
 * the kernel (MADV_DONTNEED: the buffer is vms_load_file's copy, read
 * once). Only pages wholly inside the section: the bytes around it are
 * other sections'. */
static void zsec_give_back(struct zsec *d)
{
	uintptr_t ps = (uintptr_t)sysconf(_SC_PAGESIZE), from, to;

	if (!d->give_back)
		return;
	from = ((uintptr_t)d->in.src + d->given + ps - 1) & ~(ps - 1);
	to = ((uintptr_t)d->in.src + d->in.pos) & ~(ps - 1);
	if (to < from + (256u << 10)) /* in steps of 256 KiB at least */
		return;
	madvise((void *)from, to - from, MADV_DONTNEED);
	d->given = to - (uintptr_t)d->in.src;
}

static void zsec_close(struct zsec *d)
{
	ZSTD_freeDCtx(d->z);
	d->z = NULL;
}

__attribute__((format(printf, 2, 3))) static ssize_t zsec_bad(struct zsec *d,
							      const char *fmt,
							      ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	errno = EINVAL;
	return -1;
}

/* Up to cap bytes of the section, 0 at its end, -1 with d->msg. */
static ssize_t zsec_fill(struct zsec *d, char *buf, size_t cap)
{
	ZSTD_outBuffer o = { buf, cap, 0 };

	if (d->ended)
		return 0;
	if (!d->z) { /* stored: the bytes as they are */
		size_t n = d->in.size - d->in.pos;

		if (n > cap)
			n = cap;
		memcpy(buf, (const char *)d->in.src + d->in.pos, n);
		d->in.pos += n;
		d->ended = d->in.pos == d->in.size;
		return (ssize_t)n;
	}
	while (o.pos < o.size && !d->ended) {
		size_t ret = ZSTD_decompressStream(d->z, &o, &d->in);

		if (ZSTD_isError(ret))
			return zsec_bad(d,
					"corrupted: section \"%s\" does not "
					"decompress (%s)",
					d->what, ZSTD_getErrorName(ret));
		/* A frame's end is the section's only at its last byte:
		 * the smaps text of format 2 is two frames, one after the
		 * other. */
		d->ended = ret == 0 && d->in.pos == d->in.size;
		if (!d->ended && d->in.pos == d->in.size && o.pos < o.size)
			return zsec_bad(d,
					"cut short: section \"%s\" ends early",
					d->what);
	}
	zsec_give_back(d);
	d->total += o.pos;
	if (d->total > d->x->size)
		return zsec_bad(d,
				"corrupted: section \"%s\" decompresses to "
				"more than the %llu bytes it says",
				d->what, (unsigned long long)d->x->size);
	if (d->ended && (d->total != d->x->size || d->in.pos != d->in.size))
		return zsec_bad(d,
				"corrupted: section \"%s\" decompresses to "
				"%llu bytes and says %llu",
				d->what, (unsigned long long)d->total,
				(unsigned long long)d->x->size);
	return (ssize_t)o.pos;
}

/* Counting header-like lines (smaps_header_like) piece by piece: the
 * start of a line cut by a piece's end is carried into the next (32
 * bytes are more than a header's hex address and its '-'). */
struct hcount {
	bool start; /* the next byte starts a line */
	size_t nc; /* bytes carried of a line cut short */
	char carry[32];
	uint64_t n;
};

static void count_headers(struct hcount *h, const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n, *nl;

	if (h->nc) { /* the rest of a cut line's start */
		size_t k;

		nl = memchr(p, '\n', n);
		k = (size_t)((nl ? nl : end) - p);
		if (k > sizeof(h->carry) - h->nc)
			k = sizeof(h->carry) - h->nc;
		memcpy(h->carry + h->nc, p, k);
		h->nc += k;
		if (!nl && h->nc < sizeof(h->carry))
			return;
		h->n += smaps_header_like(h->carry, h->carry + h->nc);
		h->nc = 0;
		h->start = false;
		if (!nl)
			return;
		h->start = true;
		p = nl + 1;
	}
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			if (h->start) {
				h->nc = (size_t)(end - p) < sizeof(h->carry)
						? (size_t)(end - p)
						: sizeof(h->carry);
				memcpy(h->carry, p, h->nc);
				if (h->nc == sizeof(h->carry)) {
					h->n += smaps_header_like(
						h->carry, h->carry + h->nc);
					h->nc = 0;
				}
			}
			h->start = false;
			return;
		}
		if (h->start && smaps_header_like(p, nl))
			h->n++;
		h->start = true;
		p = nl + 1;
	}
}

int sf_smaps_at_least(const struct sf_sec *x, uint64_t need_regions,
		      uint64_t need_bytes, const char *name, uint64_t *regions,
		      uint64_t *bytes, struct vms_error *err)
{
	struct zsec d;
	struct hcount h = { .start = true };
	char *piece;
	int rc = 0;

	*regions = *bytes = 0;
	if (zsec_open(&d, x, name, SF_SEC_SMAPS, err) < 0)
		return -1;
	if (!d.z) { /* stored: its bytes are there */
		count_headers(&h, (const char *)x->data, x->stored);
		if (h.nc)
			h.n += smaps_header_like(h.carry, h.carry + h.nc);
		*regions = h.n;
		*bytes = x->stored;
	} else if (!(piece = malloc(SF_PIECE))) {
		zsec_close(&d);
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	} else {
		/* until enough are seen, or the text turns to padding */
		while ((h.n < need_regions || d.total < need_bytes) &&
		       d.total <= SF_SMAPS_FREE + SF_SMAPS_PER_REGION * h.n) {
			ssize_t n = zsec_fill(&d, piece, SF_PIECE);

			if (n < 0) {
				rc = vms_error_file(err, name, "%s", d.msg);
				break;
			}
			if (n == 0) {
				if (h.nc) /* the last line, no newline */
					h.n += smaps_header_like(
						h.carry, h.carry + h.nc);
				break;
			}
			count_headers(&h, piece, (size_t)n);
		}
		free(piece);
		*regions = h.n;
		*bytes = d.total;
	}
	zsec_close(&d);
	/* bytes past what the regions seen can need are not counted */
	if (*bytes > SF_SMAPS_FREE + SF_SMAPS_PER_REGION * *regions)
		*bytes = SF_SMAPS_FREE + SF_SMAPS_PER_REGION * *regions;
	if (rc < 0)
		return -1;
	return *regions >= need_regions && *bytes >= need_bytes;
}

int sf_read_whole(const struct sf_sec *x, uint64_t max, const char *name,
		  const char *what, struct sf_whole *w, struct vms_error *err)
{
	struct zsec d;
	size_t cap = 0;
	int rc = -1;

	w->buf = NULL;
	w->len = 0;
	if (x->size > max)
		return vms_error_file(
			err, name,
			"corrupted: section \"%s\" says %llu bytes, more "
			"than such a section ever holds",
			what, (unsigned long long)x->size);
	if (zsec_open(&d, x, name, what, err) < 0)
		return -1;
	for (;;) {
		ssize_t n;

		/* grown as the bytes come: a header's claim alone must not
		 * make it allocate (one byte more than claimed: room for the
		 * terminator, and the check that no more comes) */
		if (w->len == cap) {
			size_t ncap = cap ? cap * 2 : 64 << 10;
			char *nb;

			if (ncap > x->size + 1)
				ncap = (size_t)x->size + 1;
			nb = realloc(w->buf, ncap);
			if (!nb) {
				vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					      "out of memory");
				goto out;
			}
			w->buf = nb;
			cap = ncap;
		}
		n = zsec_fill(&d, w->buf + w->len, cap - w->len);
		if (n < 0) {
			vms_error_file(err, name, "%s", d.msg);
			goto out;
		}
		if (n == 0)
			break;
		w->len += (size_t)n;
	}
	if (w->len == cap) { /* the terminator's room */
		char *nb = realloc(w->buf, cap + 1);

		if (!nb) {
			vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				      "out of memory");
			goto out;
		}
		w->buf = nb;
	}
	w->buf[w->len] = 0;
	rc = 0;
out:
	zsec_close(&d);
	if (rc < 0) {
		free(w->buf);
		w->buf = NULL;
	}
	return rc;
}

/* The smaps text, decompressed piece by piece straight into the parser,
 * on the parser's own thread. Not on a second one as readahead.h does for
 * a live smaps: measured on 65,000 regions, a decompressing thread made
 * the load slower (69 against 66 ms, 80 against 65 ms of CPU): zstd costs
 * a sixth of the parse, and each piece would then be parsed from another
 * core's cache. The two cores go to two parts instead (format 2,
 * snapfile_parts.c). */
int sf_smaps_text(struct smaps_parser *p, const struct sf_sec *x,
		  const char *what, const char *name, bool consume,
		  struct vms_error *err)
{
	struct zsec d;
	char *piece = NULL;
	int rc = -1;

	if (zsec_open(&d, x, name, what, err) < 0)
		return -1;
	d.give_back = consume;
	if (!d.z) {
		rc = smaps_feed(p, (const char *)x->data, x->stored, true, err);
		goto out;
	}
	piece = malloc(SF_PIECE);
	if (!piece) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
		goto out;
	}
	for (;;) {
		ssize_t n = zsec_fill(&d, piece, SF_PIECE);

		if (n < 0) {
			vms_error_file(err, name, "%s", d.msg);
			goto out;
		}
		/* Text the regions cannot need is padding: refused as it
		 * comes, not parsed to its end. */
		if (d.total >
		    SF_SMAPS_FREE + SF_SMAPS_PER_REGION * p->snap->nregions) {
			vms_error_file(err, name,
				       "corrupted: section \"%s\" holds more "
				       "than %llu bytes for %zu regions (a "
				       "region's lines take at most %u KiB): "
				       "padded, refused",
				       what, (unsigned long long)d.total,
				       p->snap->nregions,
				       SF_SMAPS_PER_REGION >> 10);
			goto out;
		}
		if (smaps_feed(p, piece, (size_t)n, n == 0, err) < 0) {
			if (err->kind != VMS_ERR_NOMEM)
				vms_error_file(
					err, name,
					"corrupted: section \"%s\" has a line "
					"longer than %u bytes",
					what, SMAPS_LINE_MAX);
			goto out;
		}
		if (n == 0)
			break;
	}
	rc = 0;
out:
	free(piece);
	zsec_close(&d);
	return rc;
}
