/* step_dotnet.c — the "dotnet" step: .NET CoreCLR's GC heap, from the
 * map's shape alone. UNTESTED against a live .NET process: .NET is not in
 * Debian and could not be installed where vmscope is tested; the rules
 * below come from the runtime's documentation and sources (see
 * NOTES-heaps-runtimes.md B.3) and are tested only on a hand-made map
 * (tests/fixtures/v_dotnet.smaps). See steps.h.
 *
 * A process is .NET CoreCLR when it maps libcoreclr.so. Its regions GC
 * (.NET 7+) reserves one contiguous range at start (GCRegionRange: 256 GB
 * by default, less under a hard limit, at most half of RLIMIT_AS) and
 * commits regions of 4 MiB (basic) and 32 MiB (large) inside it; the
 * older segments GC reserves segments of 256 MiB or more. Both show as a
 * run of adjacent private anonymous regions, PROT_NONE with rw-p pieces:
 * every such run of at least 256 MiB holding some rw-p memory is typed
 * managed heap of runtime "dotnet". CoreCLR names nothing on Linux; its
 * W^X double mapping (a memfd "doublemapper" mapped twice, RX and RW) is
 * shareable memory, named here.
 */
#include <string.h>

#include "analyze/steps.h"
#include "model/managed.h"

#define MIN_RANGE (256ull << 20)

static bool is_coreclr(const struct vms_snapshot *s)
{
	size_t i, n;

	for (i = 0; i < s->nregions; i++) {
		const char *p = s->regions[i].path;

		if (p && (n = strlen(p)) >= 14 &&
		    strcmp(p + n - 14, "/libcoreclr.so") == 0)
			return true;
	}
	return false;
}

static int step_dotnet_run(struct vms_snapshot *s, unsigned have,
			   struct vms_error *err)
{
	size_t i, end, k;

	(void)have;
	if (!is_coreclr(s))
		return 0;
	for (i = 0; i < s->nregions; i = end) {
		unsigned perms;

		end = managed_run(s, i, managed_plain_anon, &perms);
		if (end == i) {
			if (step_path_starts(&s->regions[i],
					     "/memfd:doublemapper"))
				s->regions[i].detail =
					".NET executable memory (W^X double "
					"mapping)";
			end = i + 1;
			continue;
		}
		if (!(perms & VMS_PERM_W) ||
		    s->regions[end - 1].end - s->regions[i].start < MIN_RANGE)
			continue;
		for (k = i; k < end; k++) {
			s->regions[k].type = VMS_T_MANAGED_HEAP;
			s->regions[k].detail = ".NET GC heap";
		}
		if (!managed_add(s, "dotnet", s->regions[i].start,
				 s->regions[end - 1].end))
			return step_nomem(err, "dotnet");
	}
	return 0;
}

const struct vms_step vms_step_dotnet = {
	.name = "dotnet",
	.doing = "finding .NET's GC heap",
	.run = step_dotnet_run,
};
