/* snapfile_parts.c — a format-2 smaps text (snapfile.h: two zstd frames,
 * meta "smaps_parts" counting each one's regions) parsed on two threads,
 * each part into its own slice of one region array, then joined: about
 * half the time of one thread. The parts share nothing they write; the
 * second has an arena of its own, whose strings join the snapshot's
 * arena after the join (arena_intern_again). Each part is read
 * through snapfile_zsec.c, as a one-part text is.
 */
#include <errno.h>
#include <pthread.h>
#include <zstd.h>

#include "capture/file/snapfile_int.h"
#include "linux/smaps.h"

/* One part of a format-2 smaps text (its own frame), parsed on a thread
 * of its own into its own slice of the region array. */
struct sf_part {
	struct sf_sec x; /* the part's frame, as a section of its own */
	struct vms_snapshot view; /* the slice; its own arena */
	struct vms_snapshot *s; /* what it parses into: s itself, or view */
	size_t limit; /* its regions (its slice never grows) */
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
	t->p.limit = t->limit;
	t->rc = sf_smaps_text(&t->p, &t->x, t->what, t->name, t->consume,
			      &t->err);
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
		return vms_error_file(
			err, name,
			"corrupted: its JSON part says its smaps text is "
			"in two parts, and its smaps section is not two "
			"zstd frames");
	n = ZSTD_getFrameContentSize(x->data, f);
	if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR ||
	    n > x->size)
		return vms_error_file(
			err, name,
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
int sf_smaps_parts(struct vms_snapshot *s, const struct sf_sec *x,
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
	a.limit = (size_t)parts[0]; /* A's slice ends where B's starts */
	b.limit = (size_t)parts[1];
	threaded = pthread_create(&th, NULL, part_run, &b) == 0;
	part_run(&a);
	if (threaded)
		pthread_join(th, NULL);
	else
		part_run(&b); /* no thread to be had: one after the other */
	if (a.rc < 0 || b.rc < 0) {
		*err = a.rc < 0 ? a.err : b.err;
		goto out;
	}
	/* A part holds exactly its count: fewer, or more (the headers past
	 * its limit were skipped, in over). */
	if (s->nregions != parts[0] || a.p.over ||
	    b.view.nregions != parts[1] || b.p.over) {
		bool first = s->nregions != parts[0] || a.p.over;

		vms_error_file(
			err, name,
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
