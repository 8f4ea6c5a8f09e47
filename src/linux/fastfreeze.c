/* fastfreeze.c — smaps before the freeze, Rss and Swap inside it
 * (fastfreeze.h). */
#include "linux/fastfreeze.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/procfs.h"
#include "linux/smaps.h"

static uint64_t kb_down(uint64_t v)
{
	return v & ~(uint64_t)1023;
}

/* v * num / den, rounded down to a K as smaps's figures are; den > 0. */
static uint64_t scale(uint64_t v, uint64_t num, uint64_t den)
{
	return kb_down((uint64_t)((unsigned __int128)v * num / den));
}

static uint64_t take(uint64_t *from, uint64_t *want)
{
	uint64_t t = *from < *want ? *from : *want;

	*from -= t;
	*want -= t;
	return t;
}

static uint64_t at_most(uint64_t v, uint64_t max)
{
	return v < max ? v : max;
}

bool fastfreeze_reconcile(struct vms_region *r, const struct pmscan_fig *f)
{
	struct vms_counters *c = &r->c;
	bool anon = r->inode == 0 && !(r->perms & VMS_PERM_SHARED);
	uint64_t rss = f->rss, old = c->rss, swap;

	/* Swap of a file or shared mapping may be a shmem object's, which
	 * the page tables do not show: smaps's, unless they show more. */
	swap = anon || f->swap > c->swap ? f->swap : c->swap;
	if (rss == old && swap == c->swap)
		return false;
	if (rss > old) {
		uint64_t d = rss - old;

		c->private_dirty += d;
		c->pss += d;
		if (r->vmflags_mask & VMS_VF_LO)
			c->locked += d;
	} else if (rss < old) {
		uint64_t d = old - rss;

		take(&c->private_clean, &d);
		take(&c->shared_clean, &d);
		take(&c->private_dirty, &d);
		take(&c->shared_dirty, &d);
		c->pss = scale(c->pss, rss, old);
		c->anon_huge = at_most(c->anon_huge, rss);
		c->locked = at_most(c->locked, rss);
	}
	c->rss = rss;
	if (swap > c->swap)
		c->swap_pss += swap - c->swap;
	else if (swap < c->swap)
		c->swap_pss = scale(c->swap_pss, swap, c->swap);
	c->swap = swap;
	r->flags |= VMS_RF_APPROX;
	return true;
}

/* Regions whose figures the scan gives as smaps counts them. */
static bool scannable(const struct vms_region *r)
{
	return !(r->vmflags_mask &
		 (VMS_VF_HT | VMS_VF_PF | VMS_VF_IO | VMS_VF_MM | VMS_VF_UW)) &&
	       !(r->flags & VMS_RF_NO_COUNTERS);
}

bool fastfreeze_after_fork(const struct vms_region *r)
{
	const char *p = r->path;

	if (!scannable(r) || r->inode != 0 || (r->perms & VMS_PERM_SHARED) ||
	    !r->vmflags || !*r->vmflags ||
	    (r->vmflags_mask & (VMS_VF_DC | VMS_VF_WF)) ||
	    vms_region_size(r) < FASTFREEZE_AFTER_MIN)
		return false;
	/* anonymous: no path, or the kernel's names for anonymous memory;
	 * not [vdso] and the like, special mappings fork does not copy */
	return !p || strcmp(p, "[heap]") == 0 || strcmp(p, "[stack]") == 0 ||
	       strncmp(p, "[anon:", 6) == 0;
}

/* fig[] of the regions r[0, n) with after_fork == want, scanned from fd,
 * each run of consecutive ones in one pass. 0, or -1 with *err. */
static int scan_some(int fd, const struct pmscan_how *how,
		     const struct vms_region *r, size_t n,
		     struct pmscan_fig *fig, bool want, struct vms_error *err)
{
	size_t i = 0, j;

	while (i < n) {
		if (fastfreeze_after_fork(&r[i]) != want) {
			i++;
			continue;
		}
		for (j = i + 1; j < n && fastfreeze_after_fork(&r[j]) == want;
		     j++)
			;
		if (pmscan_regions(fd, how, r + i, j - i, fig + i, err) < 0)
			return -1;
		i = j;
	}
	return 0;
}

/* Reconciles the regions of s[0, n) from fig[]: those with after_fork ==
 * want, or all of them (want < 0). */
static void reconcile_some(struct vms_snapshot *s, size_t n,
			   const struct pmscan_fig *fig, int want)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (scannable(&s->regions[i]) &&
		    (want < 0 ||
		     (int)fastfreeze_after_fork(&s->regions[i]) == want) &&
		    fastfreeze_reconcile(&s->regions[i], &fig[i]))
			s->cap.approx_regions++;
}

int fastfreeze_counters(struct vms_snapshot *s, pid_t pid, int pmfd,
			const struct pmscan_how *how, bool fork_next,
			struct vms_error *err)
{
	char path[128], *maps;
	size_t len, n = 0;
	struct pmscan_fig *fig;
	bool same;
	int rc;

	procfs_mm_path(pid, "maps", path, sizeof(path));
	if (procfs_read_file(path, &maps, &len) < 0)
		return procfs_errno_error(err, pid, "maps", errno);
	same = smaps_same_layout(s->regions, s->nregions, maps, len);
	free(maps);
	if (!same)
		return 0;
	n = pmscan_user_regions(s->regions, s->nregions);
	fig = malloc((n ? n : 1) * sizeof(*fig));
	if (!fig)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	rc = fork_next ? scan_some(pmfd, how, s->regions, n, fig, false, err)
		       : pmscan_regions(pmfd, how, s->regions, n, fig, err);
	if (rc < 0) {
		free(fig);
		/* the exact path instead, in the same freeze */
		return err->kind == VMS_ERR_NOMEM ? -1 : 0;
	}
	s->cap.approx_regions = 0;
	reconcile_some(s, n, fig, fork_next ? 0 : -1);
	free(fig);
	s->cap.freeze_counters = "pagemap_scan";
	return 1;
}

int fastfreeze_clone_counters(struct vms_snapshot *s, pid_t clone,
			      const struct pmscan_how *how,
			      struct vms_error *err)
{
	size_t n = pmscan_user_regions(s->regions, s->nregions), i;
	struct pmscan_fig *fig;
	char path[64];
	int fd, rc;

	for (i = 0; i < n && !fastfreeze_after_fork(&s->regions[i]); i++)
		;
	if (i == n)
		return 0; /* none: nothing to open */
	/* how is the target's: the same kernel, the same swap; the scan is
	 * not tried again, nor /proc/swaps read again */
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)clone);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "cannot read the page tables of the "
				     "clone %d: %s; try --exact",
				     (int)clone, strerror(errno));
	fig = malloc(n * sizeof(*fig));
	if (!fig) {
		close(fd);
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	}
	rc = scan_some(fd, how, s->regions, n, fig, true, err);
	close(fd);
	if (rc == 0)
		reconcile_some(s, n, fig, 1);
	free(fig);
	return rc;
}
