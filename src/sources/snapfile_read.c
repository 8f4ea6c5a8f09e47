/* snapfile_read.c — a snapshot file's bytes into the raw part of a
 * snapshot (snapfile.h): the sections found and checked, the smaps text
 * decompressed piece by piece straight into the smaps parser, the JSON part
 * read with jansson. Everything the bytes claim (lengths, counts, indices)
 * is checked against the buffer before it is used.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "procfs.h"
#include "smaps.h"
#include "snapfile.h"
#include "snapfile_int.h"

/* The decompressed pieces the parser is fed (fit in a core's cache). */
#define SF_PIECE (128u << 10)
/* The largest JSON part and status text taken, decompressed. */
#define SF_META_MAX (1ull << 30)
#define SF_STATUS_MAX (1u << 20)

struct sf_sec {
	const unsigned char *data;
	uint32_t codec;
	uint64_t stored, size;
	bool found;
};

__attribute__((format(printf, 3, 4))) static int bad(struct vms_error *err,
						     const char *name,
						     const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return vms_error_set(err, VMS_ERR_FILE, 0, "%s: %s", name, what);
}

static uint64_t get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

bool snapfile_recognise(const void *head, size_t n)
{
	return n >= SNAPFILE_MAGIC_LEN &&
	       memcmp(head, SNAPFILE_MAGIC, SNAPFILE_MAGIC_LEN) == 0;
}

/* ---- sections ---- */

static const char *const known[] = { SF_SEC_META, SF_SEC_SMAPS, SF_SEC_STATUS,
				     SF_SEC_END };
enum { K_META, K_SMAPS, K_STATUS, K_END, K_N };

static int find_sections(const unsigned char *p, size_t len, const char *name,
			 struct sf_sec sec[K_N], struct vms_error *err)
{
	size_t off = SF_HEAD_LEN;
	int k;

	memset(sec, 0, K_N * sizeof(*sec));
	for (;;) {
		char sname[SF_SEC_NAME + 1];
		struct sf_sec x;
		size_t i;

		if (len - off < SF_SEC_HEAD_LEN)
			return bad(err, name,
				   "cut short after %zu bytes, inside a "
				   "section header (an unfinished write?)",
				   len);
		memcpy(sname, p + off, SF_SEC_NAME);
		sname[SF_SEC_NAME] = 0;
		for (i = 0; i < SF_SEC_NAME; i++)
			if (sname[i] && (sname[i] < 'a' || sname[i] > 'z'))
				return bad(err, name,
					   "corrupted: a section header at "
					   "byte %zu has no name",
					   off);
		x.codec = (uint32_t)get_le(p + off + SF_SEC_NAME, 4);
		x.stored = get_le(p + off + SF_SEC_NAME + 4, 8);
		x.size = get_le(p + off + SF_SEC_NAME + 12, 8);
		x.found = true;
		off += SF_SEC_HEAD_LEN;
		if (x.stored > len - off)
			return bad(err, name,
				   "cut short: section \"%s\" at byte %zu "
				   "has %llu bytes, only %zu are left",
				   sname, off - SF_SEC_HEAD_LEN,
				   (unsigned long long)x.stored, len - off);
		x.data = p + off;
		off += x.stored;
		for (k = 0; k < K_N; k++)
			if (strcmp(sname, known[k]) == 0)
				break;
		if (k == K_N)
			continue; /* a section of a later vmscope */
		if (sec[k].found)
			return bad(err, name,
				   "corrupted: section \"%s\" appears twice",
				   sname);
		if (x.codec != SF_CODEC_STORED && x.codec != SF_CODEC_ZSTD)
			return bad(err, name,
				   "section \"%s\" is compressed with codec "
				   "%u, which this vmscope does not know",
				   sname, x.codec);
		sec[k] = x;
		if (k == K_END)
			break;
	}
	if (off != len)
		return bad(err, name,
			   "corrupted: %zu bytes follow its end section",
			   len - off);
	if (!sec[K_META].found || !sec[K_SMAPS].found)
		return bad(err, name, "corrupted: it has no \"%s\" section",
			   sec[K_META].found ? SF_SEC_SMAPS : SF_SEC_META);
	return 0;
}

/* A section's bytes, decompressed piece by piece (zsec_fill); everything
 * its header claims is checked as the bytes come. The fill runs on the
 * readahead thread for the smaps text, so it touches nothing but its own
 * struct: its message waits in msg until the caller takes it. */
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
			return bad(err, name,
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

/* readahead_fill: up to cap bytes of the section, 0 at its end, -1 with
 * d->msg. */
static ssize_t zsec_fill(void *ctx, char *buf, size_t cap)
{
	struct zsec *d = ctx;
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

/* A whole section into one buffer (meta, status). */
struct sf_whole {
	char *buf;
	size_t len;
};

static int read_whole(const struct sf_sec *x, uint64_t max, const char *name,
		      const char *what, struct sf_whole *w,
		      struct vms_error *err)
{
	struct zsec d;
	size_t cap = 0;
	int rc = -1;

	w->buf = NULL;
	w->len = 0;
	if (x->size > max)
		return bad(err, name,
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
			bad(err, name, "%s", d.msg);
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

/* ---- the JSON part into the snapshot ---- */

/* A string member into the arena: false when it is neither a string nor
 * null (nor absent). */
static bool str_at(struct vms_snapshot *s, const json_t *o, const char *k,
		   const char **out)
{
	bool ok = true;

	*out = sf_get_str(&s->arena, json_object_get(o, k), &ok);
	return ok;
}

static bool process_from(struct vms_snapshot *s, const json_t *p)
{
	uint64_t pid = 0, uid = 0;

	if (!json_is_object(p) || !sf_obj_u64(p, "pid", &pid) ||
	    pid > 0x7fffffff)
		return false;
	sf_obj_u64(p, "uid", &uid);
	s->proc.pid = (pid_t)pid;
	s->proc.uid = (uid_t)uid;
	return str_at(s, p, "name", &s->proc.name) &&
	       str_at(s, p, "cmdline", &s->proc.cmdline) &&
	       str_at(s, p, "exe", &s->proc.exe);
}

static bool capture_from(struct vms_snapshot *s, const json_t *c)
{
	struct vms_capture_info *k = &s->cap;
	uint64_t v;

	if (!json_is_object(c))
		return false;
	if (!str_at(s, c, "backend", &k->backend) ||
	    !str_at(s, c, "kernel", &k->kernel) ||
	    !str_at(s, c, "partial", &k->partial))
		return false;
	if (!k->backend)
		k->backend = "?";
	k->frozen = json_is_true(json_object_get(c, "frozen"));
	sf_obj_u64(c, "frozen_us", &k->frozen_us);
	if (sf_obj_u64(c, "taken_at_sec", &v))
		k->taken_at_sec = (int64_t)v;
	if (sf_obj_u64(c, "taken_at_nsec", &v) && v < 1000000000u)
		k->taken_at_nsec = (long)v;
	sf_obj_u64(c, "monotonic_ns", &k->monotonic_ns);
	sf_obj_u64(c, "boottime_ns", &k->boottime_ns);
	if (!sf_obj_u64(c, "page_size", &k->page_size) || !k->page_size ||
	    (k->page_size & (k->page_size - 1)))
		k->page_size = 0; /* the pipeline takes this machine's */
	sf_obj_u64(c, "user_start", &s->user_start);
	sf_obj_u64(c, "user_end", &s->user_end);
	if (s->user_end <= s->user_start)
		s->user_start = s->user_end = 0; /* the totals step's own */
	return true;
}

static void rollup_from(struct vms_snapshot *s, const json_t *r)
{
	struct vms_rollup *k = &s->rollup;

	if (!json_is_object(r))
		return;
	k->valid = sf_obj_u64(r, "rss", &k->rss) &&
		   sf_obj_u64(r, "pss", &k->pss) &&
		   sf_obj_u64(r, "private_clean", &k->private_clean) &&
		   sf_obj_u64(r, "private_dirty", &k->private_dirty) &&
		   sf_obj_u64(r, "shared_clean", &k->shared_clean) &&
		   sf_obj_u64(r, "shared_dirty", &k->shared_dirty) &&
		   sf_obj_u64(r, "swap", &k->swap);
	sf_obj_u64(r, "swap_pss", &k->swap_pss);
	sf_obj_u64(r, "locked", &k->locked);
	sf_obj_u64(r, "anonymous", &k->anonymous);
}

static bool threads_from(struct vms_snapshot *s, const json_t *a)
{
	size_t i, n = json_array_size(a);

	if (a && !json_is_array(a))
		return false;
	s->threads = arena_alloc(&s->arena, (n ? n : 1) * sizeof(*s->threads));
	if (!s->threads)
		return false;
	for (i = 0; i < n; i++) {
		const json_t *t = json_array_get(a, i);
		struct vms_thread *x = &s->threads[s->nthreads];
		uint64_t tid;

		if (!json_is_object(t) || !sf_obj_u64(t, "tid", &tid) ||
		    tid > 0x7fffffff || !str_at(s, t, "name", &x->name))
			return false;
		x->tid = (pid_t)tid;
		sf_obj_u64(t, "sp", &x->sp);
		s->nthreads++;
	}
	return true;
}

static int meta_into(struct vms_snapshot *s, const json_t *m, const char *name,
		     struct vms_error *err)
{
	const char *fmt = json_string_value(json_object_get(m, "format"));

	if (!json_is_object(m) || !fmt || strcmp(fmt, "vmscope-snapshot") != 0)
		return bad(err, name,
			   "corrupted: its JSON part is not a vmscope "
			   "snapshot's (no \"format\": "
			   "\"vmscope-snapshot\")");
	if (!process_from(s, json_object_get(m, "process")))
		return bad(err, name,
			   "corrupted: bad \"process\" in its JSON "
			   "part");
	if (!capture_from(s, json_object_get(m, "capture")))
		return bad(err, name,
			   "corrupted: bad \"capture\" in its JSON "
			   "part");
	rollup_from(s, json_object_get(m, "rollup"));
	if (!threads_from(s, json_object_get(m, "threads")))
		return bad(err, name,
			   "corrupted: bad \"threads\" in its JSON "
			   "part");
	return 0;
}

/* ---- the file ---- */

/* meta "smaps_parts" (format 2): the regions of each of the smaps text's
 * two frames; *n 0 when the file has none (one frame). */
static int smaps_parts_from(const json_t *m, const char *name,
			    uint64_t parts[2], size_t *n, struct vms_error *err)
{
	const json_t *a = json_object_get(m, "smaps_parts");

	*n = 0;
	if (!a)
		return 0;
	if (!json_is_array(a) || json_array_size(a) != 2 ||
	    !sf_get_u64(json_array_get(a, 0), &parts[0]) ||
	    !sf_get_u64(json_array_get(a, 1), &parts[1]) || !parts[0] ||
	    !parts[1])
		return bad(err, name,
			   "corrupted: bad \"smaps_parts\" in its JSON part "
			   "(two region counts, neither 0)");
	*n = 2;
	return 0;
}

/* The smaps text, decompressed piece by piece straight into the parser.
 * Not on a second thread as readahead.h does for a live smaps: measured on
 * 65,000 regions, a decompressing thread made the load slower (69 against
 * 66 ms, 80 against 65 ms of CPU): zstd costs a sixth of the parse, and
 * each piece would then be parsed from another core's cache. */
static int smaps_text(struct smaps_parser *p, const struct sf_sec *x,
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
			bad(err, name, "%s", d.msg);
			goto out;
		}
		if (smaps_feed(p, piece, (size_t)n, n == 0, err) < 0) {
			if (err->kind != VMS_ERR_NOMEM)
				bad(err, name,
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

/* One part of a format-2 smaps text (its own frame), parsed on a thread
 * of its own into its own slice of the region array. */
struct sf_part {
	struct sf_sec x; /* the part's frame, as a section of its own */
	struct vms_snapshot view; /* the slice; its own arena */
	struct vms_snapshot *s; /* what it parses into: s itself, or view */
	struct smaps_parser p;
	const char *name;
	const char *what; /* the part, for messages */
	bool consume;
	int rc;
	struct vms_error err;
};

static void *part_run(void *arg)
{
	struct sf_part *t = arg;

	smaps_parser_init(&t->p, t->s);
	t->p.limit = t->s->regions_cap;
	t->rc = smaps_text(&t->p, &t->x, t->what, t->name, t->consume, &t->err);
	smaps_parser_release(&t->p);
	return NULL;
}

/* The section's two frames as two sections, each with the size its frame
 * says. */
static int cut_frames(const struct sf_sec *x, const char *name,
		      struct sf_sec *a, struct sf_sec *b, struct vms_error *err)
{
	size_t f = ZSTD_findFrameCompressedSize(x->data, x->stored);
	unsigned long long n;

	if (x->codec != SF_CODEC_ZSTD || ZSTD_isError(f) || f >= x->stored)
		return bad(err, name,
			   "corrupted: its JSON part says its smaps text is "
			   "in two parts, and its smaps section is not two "
			   "zstd frames");
	n = ZSTD_getFrameContentSize(x->data, f);
	if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR ||
	    n > x->size)
		return bad(err, name,
			   "corrupted: the first part of its smaps text says "
			   "no size, or more than the section's %llu bytes",
			   (unsigned long long)x->size);
	*a = *b = *x;
	a->stored = f;
	a->size = n;
	b->data += f;
	b->stored -= f;
	b->size -= n;
	return 0;
}

/* The B part's regions join A's: they are there already (the slice
 * follows A's), their strings move from B's arena into the snapshot's. */
static int join_part(struct vms_snapshot *s, struct sf_part *b)
{
	const char *from[2] = { NULL, NULL }, *to[2] = { NULL, NULL };
	size_t i;

	for (i = 0; i < b->view.nregions; i++) {
		struct vms_region *r = &s->regions[s->nregions + i];
		const char **f[2] = { &r->path, &r->vmflags };
		int k;

		for (k = 0; k < 2; k++) {
			if (!*f[k])
				continue;
			if (!**f[k]) { /* "" may be a literal: not interned */
				*f[k] = "";
				continue;
			}
			if (*f[k] != from[k]) { /* neighbours share theirs */
				from[k] = *f[k];
				to[k] = arena_intern_again(&s->arena, from[k]);
				if (!to[k])
					return -1;
			}
			*f[k] = to[k];
		}
	}
	s->nregions += b->view.nregions;
	return 0;
}

/* A format-2 smaps text (two frames; parts[k] regions in each) parsed on
 * two threads, each part into its own slice of one array: about half the
 * time of one thread. */
static int smaps_parts(struct vms_snapshot *s, const struct sf_sec *x,
		       const uint64_t parts[2], const char *name, bool consume,
		       struct smaps_parser *joined, struct vms_error *err)
{
	struct sf_part a = { 0 }, b = { 0 };
	pthread_t th;
	bool threaded;
	int rc = -1;

	if (cut_frames(x, name, &a.x, &b.x, err) < 0)
		return -1;
	if (vms_snapshot_reserve(s, (size_t)(parts[0] + parts[1])) < 0)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	arena_init(&b.view.arena);
	b.view.regions = s->regions + parts[0];
	b.view.regions_cap = (size_t)parts[1];
	b.s = &b.view;
	a.s = s;
	a.name = b.name = name;
	a.what = "smaps\" (its first part)";
	b.what = "smaps\" (its second part)";
	a.consume = b.consume = consume;
	/* A's slice ends where B's starts: its limit, not the array's. */
	{
		size_t cap = s->regions_cap;

		s->regions_cap = (size_t)parts[0];
		threaded = pthread_create(&th, NULL, part_run, &b) == 0;
		part_run(&a);
		if (threaded)
			pthread_join(th, NULL);
		else
			part_run(&b); /* no thread to be had: one after
				       * the other */
		s->regions_cap = cap;
	}
	if (a.rc < 0 || b.rc < 0) {
		*err = a.rc < 0 ? a.err : b.err;
		goto out;
	}
	/* A part holds exactly its count: fewer, or more (the headers past
	 * its limit were skipped, in over). */
	if (s->nregions != parts[0] || a.p.over ||
	    b.view.nregions != parts[1] || b.p.over) {
		bool first = s->nregions != parts[0] || a.p.over;

		bad(err, name,
		    "corrupted: the %s part of its smaps text holds %s%zu "
		    "regions, and its JSON part says %llu",
		    first ? "first" : "second",
		    (first ? a.p.over : b.p.over) ? "more than " : "",
		    first ? s->nregions : b.view.nregions,
		    (unsigned long long)parts[first ? 0 : 1]);
		goto out;
	}
	if (join_part(s, &b) < 0) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
		goto out;
	}
	*joined = a.p;
	/* the first region out of order: in A, where they meet, in B */
	if (!joined->disorder &&
	    s->regions[parts[0]].start < s->regions[parts[0] - 1].end)
		joined->disorder = (size_t)parts[0] + 1;
	if (!joined->disorder && b.p.disorder)
		joined->disorder = (size_t)parts[0] + b.p.disorder;
	joined->malformed += b.p.malformed;
	if (!a.p.malformed && b.p.malformed)
		joined->first_malformed_line =
			a.p.line + b.p.first_malformed_line;
	rc = 0;
out:
	arena_fini(&b.view.arena);
	return rc;
}

static int smaps_into(struct vms_snapshot *s, const struct sf_sec *x,
		      uint64_t nregions, const uint64_t *parts,
		      const char *name, bool consume, struct vms_error *err)
{
	struct smaps_parser p;
	struct vms_error perr = { 0 };
	int rc;
	/* Room for the regions the file says it holds, at once; no more
	 * than its text can hold (a record is over 40 bytes). */
	/* (nor more than its compressed bytes can: zstd gives at most some
	 * 43,000 bytes for each, a 128 KiB block for a 3-byte header; the
	 * size a hostile header claims must not size the array) */
	uint64_t can = x->codec == SF_CODEC_ZSTD && x->stored < UINT64_MAX >> 16
			       ? x->stored << 16
			       : x->size;
	uint64_t most = (x->size < can ? x->size : can) / 40;

	if (nregions > most)
		nregions = most;
	if (parts) {
		if (parts[0] > most || parts[1] > most - parts[0])
			return bad(err, name,
				   "corrupted: its JSON part says its smaps "
				   "text has parts of %llu and %llu regions, "
				   "more than it can hold",
				   (unsigned long long)parts[0],
				   (unsigned long long)parts[1]);
		rc = smaps_parts(s, x, parts, name, consume, &p, err);
	} else {
		if (vms_snapshot_reserve(s, (size_t)nregions) < 0)
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory");
		smaps_parser_init(&p, s);
		rc = smaps_text(&p, x, SF_SEC_SMAPS, name, consume, err);
		smaps_parser_release(&p);
	}
	if (rc < 0)
		return -1;
	if (smaps_finish(&p, &perr) < 0)
		return bad(err, name, "corrupted: its smaps text: %s",
			   perr.msg);
	if (s->nregions == 0)
		return bad(err, name,
			   "corrupted: its smaps text holds no "
			   "regions");
	if (p.malformed && !s->cap.partial)
		s->cap.partial = arena_printf(
			&s->arena,
			"%zu malformed smaps lines skipped (first: line %zu)",
			p.malformed, p.first_malformed_line);
	return 0;
}

int snapfile_load(const void *buf, size_t len, const char *name, bool consume,
		  struct vms_snapshot *s, struct vms_error *err)
{
	const unsigned char *p = buf;
	struct sf_sec sec[K_N];
	struct sf_whole meta = { 0 }, status = { 0 };
	json_t *m = NULL;
	json_error_t jerr;
	uint64_t nregions, parts[2];
	size_t nparts;
	uint32_t version;
	int rc = -1;

	if (len == 0)
		return bad(err, name, "empty file, not a vmscope snapshot");
	if (!snapfile_recognise(buf, len))
		return bad(err, name,
			   "not a vmscope snapshot file (it does "
			   "not start with \"vmscope snapshot\")");
	if (len < SF_HEAD_LEN)
		return bad(err, name,
			   "cut short after %zu bytes, inside its header", len);
	version = (uint32_t)get_le(p + SNAPFILE_MAGIC_LEN, 4);
	if (version > SNAPFILE_VERSION)
		return bad(err, name,
			   "snapshot format version %u; this vmscope (%s) "
			   "reads versions up to %d: open it with a later "
			   "vmscope",
			   version, VMSCOPE_VERSION, SNAPFILE_VERSION);
	if (version == 0)
		return bad(err, name, "corrupted: format version 0");
	if (find_sections(p, len, name, sec, err) < 0)
		return -1;
	if (read_whole(&sec[K_META], SF_META_MAX, name, SF_SEC_META, &meta,
		       err) < 0)
		return -1;
	m = json_loadb(meta.buf, meta.len, 0, &jerr);
	if (!m) {
		bad(err, name,
		    "corrupted: its JSON part does not parse (line %d: %s)",
		    jerr.line, jerr.text);
		goto out;
	}
	/* Identity first: a message about the smaps text names the
	 * process. */
	if (!sf_obj_u64(m, "regions", &nregions))
		nregions = 0;
	if (meta_into(s, m, name, err) < 0 ||
	    smaps_parts_from(m, name, parts, &nparts, err) < 0 ||
	    smaps_into(s, &sec[K_SMAPS], nregions, nparts ? parts : NULL, name,
		       consume, err) < 0)
		goto out;
	if (sec[K_STATUS].found) {
		long long pte;

		if (read_whole(&sec[K_STATUS], SF_STATUS_MAX, name,
			       SF_SEC_STATUS, &status, err) < 0)
			goto out;
		pte = procfs_status_value(status.buf, status.len, "VmPTE");
		s->page_table = pte > 0 ? (uint64_t)pte : 0;
	}
	if (sf_source_set(s, m, name, err) < 0)
		goto out;
	rc = 0;
out:
	json_decref(m);
	free(meta.buf);
	free(status.buf);
	return rc;
}
