/* test_fastfreeze.c — the fast freeze's parts (pmscan.h, fastfreeze.h,
 * smaps_same_layout): runs of pages added to regions, figures reconciled,
 * layouts compared (fixtures, malformed text); then against the kernel: a
 * stopped target (tests/targets/pagekinds) whose every region's Rss and
 * Swap from PAGEMAP_SCAN equal those smaps gives (zero pages, huge pages,
 * the huge zero page, shared memory, a file), and a layout that moved
 * refused. The kernel part is skipped, said so, where the ioctl is
 * missing (Linux before 6.7); where the scan takes the huge zero page for
 * a page (pmscan_zero_ok false: Linux 6.7 to 6.15, found by the probe,
 * not by the version), the test checks that the scan of pagekinds differs
 * from smaps as the probe said, that vmscope takes no figures from it,
 * and skips the rest.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fixtures/fixture.h"
#include "linux/fastfreeze.h"
#include "pipeline.h"
#include "linux/pmscan.h"
#include "linux/procfs.h"
#include "capture/sampler_common.h"
#include "linux/smaps.h"
#include "tap.h"
#include "target.h"

#define K ((uint64_t)1024)

static void region(struct vms_region *r, uint64_t start, uint64_t end)
{
	memset(r, 0, sizeof(*r));
	r->start = start;
	r->end = end;
}

/* Entries that are not present: guard pages count nowhere; without swap
 * on, the rest are pages migrating (Rss, as smaps has them). */
static void check_away(struct vms_region *r)
{
	const struct pmscan_run v[] = {
		{ 0x10000, 0x12000, PMSCAN_SWAPPED | PMSCAN_GUARD },
		{ 0x12000, 0x13000, PMSCAN_SWAPPED },
	};
	struct pmscan_fig f[3];
	struct pmscan_cursor at = { 0, 0 };
	const struct pmscan_how on = { true, true }, off = { true, false };

	memset(f, 0, sizeof(f));
	pmscan_add(r, 3, f, &at, v, 2, &on);
	ok(f[0].rss == 0 && f[0].swap == 4 * K,
	   "runs: a guard page is neither Rss nor Swap; with swap on, the "
	   "other entry is Swap");
	memset(f, 0, sizeof(f));
	memset(&at, 0, sizeof(at));
	pmscan_add(r, 3, f, &at, v, 2, &off);
	ok(f[0].rss == 4 * K && f[0].swap == 0,
	   "runs: with no swap device, a non-present entry is a page "
	   "migrating: Rss");
}

static void check_add(void)
{
	struct vms_region r[3];
	struct pmscan_fig f[3];
	/* runs: present across r0/r1, the zero page in r1, swapped in r2,
	 * one in the gap, and one that overlaps all of r2 and beyond */
	const struct pmscan_run v1[] = {
		{ 0x1000, 0x2000, 0 }, /* before any region */
		{ 0x10000, 0x14000, PMSCAN_PRESENT }, /* r0 */
		{ 0x1e000, 0x22000, PMSCAN_PRESENT }, /* r0 2 pages, r1 2 */
	};
	const struct pmscan_run v2[] = {
		{ 0x22000, 0x24000, PMSCAN_PRESENT | PMSCAN_PFNZERO },
		{ 0x24000, 0x25000, PMSCAN_SWAPPED },
		{ 0x28000, 0x2a000, PMSCAN_PRESENT }, /* the gap */
		{ 0x2f000, 0x3a000, PMSCAN_PRESENT | PMSCAN_SWAPPED },
		{ 0x3c000, 0x3d000, PMSCAN_SWAPPED },
		{ 0x3d000, 0x3c000, PMSCAN_PRESENT }, /* backwards: nothing */
	};
	struct pmscan_cursor at = { 0, 0 };
	const struct pmscan_how how = { true, true };

	region(&r[0], 0x10000, 0x20000);
	region(&r[1], 0x20000, 0x28000);
	region(&r[2], 0x30000, 0x3e000);
	memset(f, 0, sizeof(f));
	/* in two calls, the cursor kept: as pmscan_regions feeds it */
	pmscan_add(r, 3, f, &at, v1, 3, &how);
	pmscan_add(r, 3, f, &at, v2, 6, &how);
	ok(f[0].rss == 6 * 4 * K && f[0].swap == 0,
	   "runs: r0 Rss %" PRIu64 " K (4 + 2 pages)", f[0].rss / K);
	ok(f[1].rss == 2 * 4 * K && f[1].swap == 4 * K,
	   "runs: r1 Rss %" PRIu64 " K, Swap %" PRIu64
	   " K (the zero page counts in neither)",
	   f[1].rss / K, f[1].swap / K);
	ok(f[2].rss == 10 * 4 * K && f[2].swap == 4 * K,
	   "runs: r2 Rss %" PRIu64 " K (a run cut at its start), Swap %" PRIu64
	   " K",
	   f[2].rss / K, f[2].swap / K);
	/* the same runs again: below what was counted, nothing more */
	pmscan_add(r, 3, f, &at, v1, 3, &how);
	pmscan_add(r, 3, f, &at, v2, 6, &how);
	ok(f[0].rss == 6 * 4 * K && f[1].rss == 2 * 4 * K &&
		   f[2].rss == 10 * 4 * K && f[2].swap == 4 * K,
	   "runs: a run given again is not counted again");
	memset(&at, 0, sizeof(at));
	memset(f, 0, sizeof(f));
	pmscan_add(r, 0, f, &at, v2, 6, &how);
	ok(at.at == 0, "runs: no regions, nothing counted, the cursor stays");
	check_away(r);
}

static void check_reconcile(void)
{
	struct vms_region r;
	struct pmscan_fig f;
	struct vms_counters *c = &r.c;

	region(&r, 0x10000, 0x110000);
	c->rss = 400 * K;
	c->private_clean = 100 * K;
	c->private_dirty = 200 * K;
	c->shared_clean = 100 * K;
	c->pss = 300 * K;
	c->locked = 400 * K;
	r.vmflags_mask |= VMS_VF_LO;
	f.rss = 400 * K;
	f.swap = 0;
	ok(!fastfreeze_reconcile(&r, &f) && !(r.flags & VMS_RF_APPROX) &&
		   c->pss == 300 * K,
	   "reconcile: the same Rss and Swap leave the region as it was");

	f.rss = 480 * K;
	ok(fastfreeze_reconcile(&r, &f) && (r.flags & VMS_RF_APPROX) &&
		   c->rss == 480 * K && c->private_dirty == 280 * K &&
		   c->pss == 380 * K && c->locked == 480 * K,
	   "reconcile: Rss grown by 80 K: private dirty, Pss and Locked (an "
	   "mlocked region) +80 K, marked approx");
	ok(c->private_clean + c->private_dirty + c->shared_clean +
			   c->shared_dirty ==
		   c->rss,
	   "reconcile: the split adds up to Rss");

	f.rss = 160 * K;
	fastfreeze_reconcile(&r, &f);
	ok(c->rss == 160 * K && c->private_clean == 0 && c->shared_clean == 0 &&
		   c->private_dirty == 160 * K &&
		   c->private_clean + c->private_dirty + c->shared_clean +
				   c->shared_dirty ==
			   c->rss &&
		   c->pss == 380 * K * 160 / 480 / K * K && c->locked == c->rss,
	   "reconcile: Rss shrunk to 160 K: clean pages go first, Pss "
	   "scaled (%" PRIu64 " K), the split adds up",
	   c->pss / K);

	/* Swap: an anonymous region's is the page tables'; a file's keeps
	 * smaps's (a shmem object's swap is not in the page tables) unless
	 * they show more */
	region(&r, 0x10000, 0x20000);
	c->swap = 8 * K;
	c->swap_pss = 8 * K;
	f.rss = 0;
	f.swap = 4 * K;
	ok(fastfreeze_reconcile(&r, &f) && c->swap == 4 * K &&
		   c->swap_pss == 4 * K,
	   "reconcile: an anonymous region's Swap is the scan's");
	region(&r, 0x10000, 0x20000);
	r.inode = 42;
	c->swap = 8 * K;
	f.swap = 4 * K;
	ok(!fastfreeze_reconcile(&r, &f) && c->swap == 8 * K,
	   "reconcile: a file mapping's Swap stays smaps's when the page "
	   "tables show less");
	f.swap = 12 * K;
	ok(fastfreeze_reconcile(&r, &f) && c->swap == 12 * K &&
		   (r.flags & VMS_RF_APPROX),
	   "reconcile: ... and moves, marked, when they show more");
}

/* The regions of a fixture's smaps against maps text. */
static void check_layout(void)
{
	size_t slen, mlen;
	char *sm = fixture_read("kinds.smaps", &slen);
	char *mp = fixture_read("kinds.maps", &mlen);
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_error err;
	char *alt;
	const char *nl;

	if (!sm || !mp || !s || smaps_parse_buffer(s, sm, slen, &err) < 0) {
		ok(0, "layout: kinds fixtures load");
		goto out;
	}
	ok(smaps_same_layout(s->regions, s->nregions, mp, mlen),
	   "layout: kinds.maps is kinds.smaps's layout (%zu regions)",
	   s->nregions);
	ok(!smaps_same_layout(s->regions, s->nregions - 1, mp, mlen),
	   "layout: a region more in maps differs");
	ok(!smaps_same_layout(s->regions, s->nregions, mp,
			      (size_t)(strchr(mp, '\n') + 1 - mp)),
	   "layout: a region fewer in maps differs");
	alt = malloc(mlen + 1);
	if (alt) {
		memcpy(alt, mp, mlen);
		alt[mlen] = '\0';
		alt[strcspn(alt, "-") - 1] ^= 1; /* the first start moved */
		ok(!smaps_same_layout(s->regions, s->nregions, alt, mlen),
		   "layout: a start moved differs");
		memcpy(alt, mp, mlen);
		nl = strchr(mp, ' ');
		alt[nl - mp + 2] = alt[nl - mp + 2] == 'w' ? '-' : 'w';
		ok(!smaps_same_layout(s->regions, s->nregions, alt, mlen),
		   "layout: a permission changed differs");
		memcpy(alt, mp, mlen);
		memcpy(alt, "zzzz", 4);
		ok(!smaps_same_layout(s->regions, s->nregions, alt, mlen),
		   "layout: a malformed line differs");
		free(alt);
	}
	ok(smaps_same_layout(NULL, 0, "", 0) &&
		   !smaps_same_layout(NULL, 0, mp, mlen),
	   "layout: nothing is nothing's layout, and no other's");
out:
	free(sm);
	free(mp);
	vms_snapshot_free(s);
}

/* The viewer's second frame (pipeline.h: vms_layout_rss): the layout
 * from maps of the stopped target, its Rss and Swap from the page tables,
 * region by region those of smaps (s, read the moment before), its Total
 * WS their sum. */
static void check_layout_rss(pid_t pid, const struct vms_snapshot *s)
{
	struct vms_capture_opts mo = { .pid = pid, .no_memory = true };
	struct vms_error err;
	struct vms_snapshot *pre =
		vms_capture(vms_sampler_by_name("maps"), &mo, &err);
	size_t i, bad = 0, n;
	uint64_t ws = 0;
	int got;

	if (!pre) {
		ok(0, "live: the layout from maps (%s)", err.msg);
		return;
	}
	ok(pre->total.ws == 0, "live: the layout from maps has no Rss yet");
	got = vms_layout_rss(pre, &err);
	n = pmscan_user_regions(s->regions, s->nregions);
	for (i = 0; i < pre->nregions; i++) {
		const struct vms_region *r = &pre->regions[i];

		ws += r->c.rss;
		if (i >= s->nregions || r->start != s->regions[i].start ||
		    (s->regions[i].vmflags_mask &
		     (VMS_VF_HT | VMS_VF_PF | VMS_VF_IO)))
			continue;
		if (r->c.rss != s->regions[i].c.rss ||
		    r->c.swap != s->regions[i].c.swap)
			bad++;
	}
	ok(got == (int)n && pre->nregions == s->nregions && bad == 0 &&
		   pre->total.ws == ws && ws > 0,
	   "live: the layout's Rss and Swap from the page tables are "
	   "smaps's, region by region (%d regions, %zu differ), Total WS "
	   "their sum (%" PRIu64 ")",
	   got, bad, ws);
	ok(pre->cap.partial && strstr(pre->cap.partial, "page tables"),
	   "live: and it says where they are from");
	vms_snapshot_free(pre);
}

/* Where the scan takes the huge zero page for a page (pmscan_zero_ok
 * false): the layout from maps gets no figures from it, and says none. */
static void check_layout_declined(pid_t pid)
{
	struct vms_capture_opts mo = { .pid = pid, .no_memory = true };
	struct vms_error err;
	struct vms_snapshot *pre =
		vms_capture(vms_sampler_by_name("maps"), &mo, &err);
	int got;

	if (!pre) {
		ok(0, "live: the layout from maps (%s)", err.msg);
		return;
	}
	got = vms_layout_rss(pre, &err);
	ok(got == 0 && pre->total.ws == 0 && !pre->cap.partial,
	   "live: the layout takes no Rss from this kernel's scan (%d "
	   "regions)",
	   got);
	vms_snapshot_free(pre);
}

/* Which regions are read in the clone after the fork: large anonymous
 * private ones that fork copies as they are, and nothing else. */
static void check_after_fork(void)
{
	static const struct {
		const char *path, *vmflags;
		uint64_t size, inode;
		unsigned perms, mask, rflags;
		bool want;
		const char *what;
	} c[] = {
		{ NULL, "rd wr mr mw me ac", 4 << 20, 0, 3, VMS_VF_AC, 0, true,
		  "anonymous, 4 MiB" },
		{ "[heap]", "rd wr", 64 << 20, 0, 3, 0, 0, true, "[heap]" },
		{ "[stack]", "rd wr gd", 8 << 20, 0, 3, VMS_VF_GD, 0, true,
		  "[stack]" },
		{ "[anon:arena]", "rd wr", 2 << 20, 0, 3, 0, 0, true,
		  "[anon:NAME], 2 MiB" },
		{ NULL, "rd wr", (2 << 20) - 4096, 0, 3, 0, 0, false,
		  "anonymous, under 2 MiB (walked in the freeze)" },
		{ NULL, "rd wr dc", 4 << 20, 0, 3, VMS_VF_DC, 0, false,
		  "MADV_DONTFORK (not in the clone)" },
		{ NULL, "rd wr wf", 4 << 20, 0, 3, VMS_VF_WF, 0, false,
		  "MADV_WIPEONFORK (empty in the clone)" },
		{ NULL, "", 4 << 20, 0, 3, 0, 0, false,
		  "no VmFlags (dc, wf unknown)" },
		{ "/usr/lib/libc.so.6", "rd mr", 4 << 20, 7, 1, 0, 0, false,
		  "a file (fork copies no page of one without anon pages)" },
		{ "/dev/zero (deleted)", "rd wr sh", 4 << 20, 9, 3 | 8,
		  VMS_VF_SH, 0, false, "shared anonymous (shmem)" },
		{ NULL, "rd wr sh", 4 << 20, 0, 3 | 8, VMS_VF_SH, 0, false,
		  "shared, inode 0" },
		{ "[anon_shmem:x]", "rd wr", 4 << 20, 0, 3, 0, 0, false,
		  "[anon_shmem:NAME]" },
		{ "[vdso]", "rd ex", 4 << 20, 0, 5, 0, 0, false,
		  "[vdso] (a special mapping)" },
		{ NULL, "rd wr ht", 4 << 20, 0, 3, VMS_VF_HT, 0, false,
		  "hugetlb" },
		{ NULL, "rd wr uw", 4 << 20, 0, 3, VMS_VF_UW, 0, false,
		  "userfaultfd write-protected" },
		{ NULL, "rd wr", 4 << 20, 0, 3, 0, VMS_RF_NO_COUNTERS, false,
		  "a record that was cut" },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct vms_region r;

		region(&r, 1ull << 32, (1ull << 32) + c[i].size);
		r.path = c[i].path;
		r.vmflags = c[i].vmflags;
		r.inode = c[i].inode;
		r.perms = (uint16_t)c[i].perms;
		r.vmflags_mask = c[i].mask;
		r.flags = (uint16_t)c[i].rflags;
		ok(fastfreeze_after_fork(&r) == c[i].want,
		   "after the fork, in the clone: %s: %s", c[i].what,
		   c[i].want ? "yes" : "no");
	}
}

/* Against the kernel: a stopped pagekinds. */
static void check_live(void)
{
	char *argv[] = { "pagekinds", "still", NULL };
	struct target t = { 0 };
	struct vms_snapshot *s = NULL;
	struct pmscan_fig *f = NULL, *g;
	struct pmscan_how how;
	struct vms_error err;
	char line[512];
	size_t i, n = 0, bad = 0, after, dc;
	int fd = -1, rc;
	uint64_t keep;
	bool zero_ok;

	if (target_start(&t, argv) < 0 || !fgets(line, sizeof(line), t.out) ||
	    strncmp(line, "ready", 5) != 0) {
		ok(0, "live: pagekinds starts");
		goto out;
	}
	kill(t.pid, SIGSTOP);
	ok(target_wait_state(t.pid, "T", 10000) == 'T',
	   "live: pagekinds is stopped");
	fd = pmscan_open(t.pid, &how);
	if (fd < 0) {
		printf("ok - live: PAGEMAP_SCAN # SKIP not in this kernel "
		       "(%s)\n",
		       strerror(errno));
		goto out;
	}
	zero_ok = pmscan_zero_ok();
	printf("# this kernel's scan %s the huge zero page apart (the probe)\n",
	       zero_ok ? "tells" : "does not tell");
	ok(pmscan_regions_by(fd, &how, NULL, 0, NULL, 0, &err) < 0,
	   "live: 0 runs a call is refused (%s)", err.msg);
	s = vms_snapshot_new();
	if (!s || sampler_read_smaps(s, t.pid, NULL, &err) < 0) {
		ok(0, "live: smaps of pagekinds read");
		goto out;
	}
	/* user addresses only: [vsyscall] is the kernel's */
	while (n < s->nregions && s->regions[n].start < (1ull << 63))
		n++;
	f = calloc(n + 1, sizeof(*f));
	if (!f || pmscan_regions(fd, &how, s->regions, n, f, &err) < 0) {
		ok(0, "live: the scan runs (%s)", f ? err.msg : "no memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct vms_region *r = &s->regions[i];

		if (r->vmflags_mask & (VMS_VF_HT | VMS_VF_PF | VMS_VF_IO))
			continue;
		if (f[i].rss != r->c.rss || f[i].swap != r->c.swap) {
			if (!bad++)
				printf("# %" PRIx64 "-%" PRIx64
				       " %s: scan Rss %" PRIu64 " Swap %" PRIu64
				       ", smaps %" PRIu64 " %" PRIu64 "\n",
				       r->start, r->end, r->path ? r->path : "",
				       f[i].rss, f[i].swap, r->c.rss,
				       r->c.swap);
		}
	}
	if (!zero_ok) {
		/* Linux 6.7 to 6.15: vmscope leaves the scan alone; the probe
		 * must have said so for a reason pagekinds shows too (its
		 * huge region's read half). */
		ok(bad > 0,
		   "live: the probe said the scan takes the huge zero page "
		   "for a page: pagekinds's scan differs from smaps (%zu "
		   "regions, %zu differ)",
		   n, bad);
		check_layout_declined(t.pid);
		printf("ok - live: the fast freeze's figures # SKIP this "
		       "kernel's scan takes the huge zero page for a page "
		       "(Linux 6.7-6.15): vmscope does not use it\n");
		goto out;
	}
	ok(bad == 0,
	   "live: every region's Rss and Swap from PAGEMAP_SCAN equal "
	   "smaps's (%zu regions, %zu differ)",
	   n, bad);
	/* Again, 3 runs a call: the buffer fills and the walk goes on from
	 * where the kernel stopped, many times over. */
	g = calloc(n + 1, sizeof(*g));
	ok(g && pmscan_regions_by(fd, &how, s->regions, n, g, 3, &err) == 0 &&
		   memcmp(f, g, n * sizeof(*f)) == 0,
	   "live: the same, 3 runs at a time");
	free(g);
	rc = fastfreeze_counters(s, t.pid, fd, &how, false, &err);
	ok(rc == 1 && s->cap.approx_regions == 0 && s->cap.freeze_counters &&
		   strcmp(s->cap.freeze_counters, "pagemap_scan") == 0,
	   "live: fastfreeze_counters on a stopped target: done, nothing "
	   "approximate (%d, %" PRIu64 ")",
	   rc, s->cap.approx_regions);
	/* The large anonymous regions left for the clone: here the target
	 * itself stands in for it (stopped, its page tables those of the
	 * freeze). Each has a page more than the kernel says before the
	 * freeze's read, which must leave them alone (not scanned, not
	 * reconciled, not approximate); the clone's read then gives each
	 * the kernel's Rss again, marked approximate (it moved). */
	for (i = 0, after = 0, dc = 0; i < n; i++) {
		struct vms_region *r = &s->regions[i];
		bool a = fastfreeze_after_fork(r);

		after += a;
		dc += a && (r->vmflags_mask & (VMS_VF_DC | VMS_VF_WF));
		if (a) {
			r->c.rss += 4096;
			r->c.private_dirty += 4096;
		}
	}
	rc = fastfreeze_counters(s, t.pid, fd, &how, true, &err);
	for (i = 0, bad = 0; i < n; i++)
		if (fastfreeze_after_fork(&s->regions[i]))
			bad += s->regions[i].c.rss != f[i].rss + 4096 ||
			       (s->regions[i].flags & VMS_RF_APPROX);
	ok(rc == 1 && s->cap.approx_regions == 0 && after >= 2 && !dc && !bad,
	   "live: fork next: %zu regions left for the clone, untouched in "
	   "the freeze (%zu touched; %zu dc or wf among them; %d, %" PRIu64
	   " approx)",
	   after, bad, dc, rc, s->cap.approx_regions);
	rc = fastfreeze_clone_counters(s, t.pid, &how, &err);
	for (i = 0, bad = 0; i < n; i++)
		if (fastfreeze_after_fork(&s->regions[i]))
			bad += s->regions[i].c.rss != f[i].rss ||
			       !(s->regions[i].flags & VMS_RF_APPROX);
	ok(rc == 0 && bad == 0 && s->cap.approx_regions == after,
	   "live: read from the clone's page tables: each region left has "
	   "the kernel's Rss again (%zu differ, %" PRIu64 " approx)",
	   bad, s->cap.approx_regions);
	ok(fastfreeze_clone_counters(s, 999999999, &how, &err) < 0 &&
		   strstr(err.msg, "clone"),
	   "live: a clone whose page tables cannot be read is an error (%s)",
	   err.msg);
	keep = s->regions[1].end;
	s->regions[1].end -= 4096;
	rc = fastfreeze_counters(s, t.pid, fd, &how, false, &err);
	ok(rc == 0, "live: a layout that moved is refused (%d)", rc);
	s->regions[1].end = keep;
	check_layout_rss(t.pid, s);
out:
	if (fd >= 0)
		close(fd);
	free(f);
	if (s)
		vms_snapshot_free(s);
	target_stop(&t);
}

int main(void)
{
	check_add();
	check_reconcile();
	check_after_fork();
	check_layout();
	check_live();
	return tap_done();
}
