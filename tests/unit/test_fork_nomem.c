/* test_fork_nomem — the fork sampler with opts.no_memory: the target is
 * frozen while its counters are read, but never forked. A fork leaves its
 * mark in the target: each anonymous page, write-protected for copy-on-
 * write, takes a minor fault on its next write even once the clone is gone.
 * So: after a no-memory capture, rewriting every page of fork_ticker's
 * buffer takes (almost) no minor faults; after a capture with memory (the
 * contrast: the fork did happen), about one a page. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipeline.h"
#include "linux/procfs.h"
#include "capture/sampler.h"
#include "tap.h"
#include "target.h"

#define MB 16
#define PAGES (MB * 256L)

/* Minor faults the target took to write every page once, or -1. */
static long rewrite_faults(struct target *t)
{
	char line[128];
	long long us;
	long flt;

	fputs("write\n", t->in);
	fflush(t->in);
	if (!fgets(line, sizeof(line), t->out) ||
	    sscanf(line, "write %lld %ld", &us, &flt) != 2)
		return -1;
	return flt;
}

int main(void)
{
	struct target t = { 0 };
	struct vms_capture_opts o = { 0 };
	struct vms_error err = { 0 };
	struct vms_snapshot *s;
	char line[128];
	long flt;

	signal(SIGPIPE, SIG_IGN);
	if (target_start(&t, (char *[]){ "fork_ticker", "16", "4k", NULL }) <
		    0 ||
	    !fgets(line, sizeof(line), t.out) ||
	    strncmp(line, "ready", 5) != 0) {
		ok(0, "fork_ticker target started");
		target_stop(&t);
		return tap_done();
	}
	flt = rewrite_faults(&t);
	ok(flt >= 0 && flt < PAGES / 4,
	   "a rewrite of the %d MiB buffer before any capture takes few "
	   "minor faults (%ld)",
	   MB, flt);

	o.pid = t.pid;
	o.no_memory = true;
	s = vms_capture(&vms_sampler_fork, &o, &err);
	ok(s != NULL, "no-memory fork capture (%s)", s ? "" : err.msg);
	if (s) {
		ok(strcmp(s->cap.backend, "fork") == 0 && s->cap.frozen &&
			   s->cap.frozen_us > 0,
		   "the snapshot records backend fork and the freeze (%llu us)",
		   (unsigned long long)s->cap.frozen_us);
		ok(s->nregions > 0, "the counters were read (%zu regions)",
		   s->nregions);
		vms_snapshot_free(s);
	}
	ok(target_children(t.pid) == 0, "no clone, no zombie");
	flt = rewrite_faults(&t);
	ok(flt >= 0 && flt < PAGES / 4,
	   "after a no-memory capture the rewrite still takes few minor "
	   "faults (%ld of %ld pages): the target was never forked",
	   flt, PAGES);

	o.no_memory = false;
	s = vms_capture(&vms_sampler_fork, &o, &err);
	ok(s != NULL, "fork capture with memory (%s)", s ? "" : err.msg);
	if (s)
		vms_snapshot_free(s);
	flt = rewrite_faults(&t);
	ok(flt >= PAGES / 2,
	   "contrast: after a capture that forked, the rewrite takes a minor "
	   "fault a page (%ld of %ld)",
	   flt, PAGES);
	ok(target_children(t.pid) == 0, "no clone, no zombie after either");
	target_stop(&t);
	return tap_done();
}
