/* pipeline.c — the steps table, the pipeline that runs it, and the live
 * capture. See pipeline.h.
 */
#include "pipeline.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "source.h"
#include "steps.h"

/* In order: each step may rely on the ones above it. */
const struct vms_step vms_steps[] = {
	{ "classify", "sorting regions into types", 0, 0, true,
	  step_classify_run },
	{ "images", "reading ELF images", 0, VMS_SRC_FILES, false,
	  step_images_run },
	{ "heaps", "finding heaps", 0, VMS_SRC_MEMORY, false, step_heaps_run },
	{ "stacks", "finding thread stacks", 0, 0, false, step_stacks_run },
	{ "totals", "adding up", 0, 0, true, step_totals_run },
};
const size_t vms_nsteps = sizeof(vms_steps) / sizeof(vms_steps[0]);

static const struct vms_sampler *const samplers[] = {
	&vms_sampler_pss,
	&vms_sampler_fork,
	&vms_sampler_maps,
};

const struct vms_sampler *vms_sampler_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(samplers) / sizeof(samplers[0]); i++)
		if (strcmp(samplers[i]->name, name) == 0)
			return samplers[i];
	return NULL;
}

/* Why the source cannot give what a step asks for. */
static const char *lack(const struct vms_snapshot *s, unsigned missing)
{
	if (missing & VMS_SRC_MEMORY)
		return s->src.no_memory ? s->src.no_memory
					: "no memory to read";
	if (missing & VMS_SRC_FILES)
		return "the mapped files cannot be opened";
	return "the memory is not of one instant";
}

static int note(struct vms_snapshot *s, const struct vms_step *st,
		const char *what, const char *why, struct vms_error *err)
{
	char buf[600];

	snprintf(buf, sizeof(buf), "%s: %s", what, why);
	if (vms_snapshot_note(s, st->name, buf) < 0)
		return step_nomem(err, st->name);
	return 0;
}

int vms_snapshot_finish(struct vms_snapshot *s, const struct vms_finish_opts *o,
			struct vms_error *err)
{
	unsigned have = vms_source_caps(s);
	size_t i;

	if (o && o->no_memory)
		have &= ~(unsigned)(VMS_SRC_MEMORY | VMS_SRC_CONSISTENT);
	s->notes = NULL;
	s->nnotes = 0;
	if (!s->cap.page_size) /* a snapshot made from text alone */
		s->cap.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	for (i = 0; i < vms_nsteps; i++) {
		const struct vms_step *st = &vms_steps[i];
		struct vms_error serr = { 0 };

		if (vms_source_progress(s, st->doing, i, vms_nsteps))
			return vms_error_set(err, VMS_ERR_CAPTURE, ECANCELED,
					     "cancelled");
		if ((st->needs & have) != st->needs) {
			if (note(s, st, "not done", lack(s, st->needs & ~have),
				 err) < 0)
				return -1;
			continue;
		}
		if ((st->wants & have) != st->wants &&
		    note(s, st, "partly done", lack(s, st->wants & ~have),
			 err) < 0)
			return -1;
		if (st->run(s, have, &serr) == 0)
			continue;
		if (st->essential || serr.kind == VMS_ERR_NOMEM) {
			*err = serr;
			return -1;
		}
		if (note(s, st, "failed", serr.msg, err) < 0)
			return -1;
	}
	return 0;
}

static void fill_capture_info(struct vms_snapshot *s,
			      const struct vms_sampler *smp)
{
	struct utsname u;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	s->cap.backend = smp->name;
	s->cap.taken_at_sec = ts.tv_sec;
	s->cap.taken_at_nsec = ts.tv_nsec;
	s->cap.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	s->cap.kernel =
		uname(&u) == 0 ? arena_strdup(&s->arena, u.release) : "unknown";
}

struct vms_snapshot *vms_capture(const struct vms_sampler *smp,
				 const struct vms_capture_opts *o,
				 struct vms_error *err)
{
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_finish_opts fo = { o->no_memory };

	if (!s) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
		return NULL;
	}
	fill_capture_info(s, smp);
	s->src.progress = o->progress;
	s->src.progress_ctx = o->progress_ctx;
	if (smp->capture(o, s, err) < 0)
		goto fail;
	if (vms_snapshot_finish(s, &fo, err) < 0)
		goto fail;
	/* Nothing reads memory after this: let the clone go now. */
	if (!o->keep_memory)
		vms_source_release(s);
	s->src.progress = NULL;
	return s;
fail:
	vms_snapshot_free(s);
	return NULL;
}
