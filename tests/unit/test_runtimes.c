/* test_runtimes.c — what the pipeline makes of runtimes' and allocators'
 * regions on hand-made maps (this kernel has no CONFIG_ANON_VMA_NAME, and
 * .NET cannot be installed here): v_anon_names.smaps, every known
 * [anon:NAME] typed as v_anon_names.expect says (written beside it by
 * mkvariants.py from the producers' sources), adjacent named Go regions
 * one managed heap; v_dotnet.smaps, .NET's GC range by shape. */
#include <stdlib.h>
#include <string.h>

#include "../fixtures/fixture.h"
#include "analyze/anon_names.h"
#include "pipeline.h"
#include "tap.h"

static struct vms_snapshot *finished(const char *name)
{
	struct vms_snapshot *s = fixture_snapshot(name);
	struct vms_error err = { 0 };

	if (!s || vms_snapshot_finish(s, NULL, &err) < 0) {
		ok(0, "%s: parse and finish (%s)", name, err.msg);
		vms_snapshot_free(s);
		return NULL;
	}
	return s;
}

static const struct vms_managed *managed_at(const struct vms_snapshot *s,
					    uint64_t start)
{
	size_t i;

	for (i = 0; i < s->nmanaged; i++)
		if (s->managed[i].start == start)
			return &s->managed[i];
	return NULL;
}

static void test_anon_names(void)
{
	struct vms_snapshot *s = finished("v_anon_names.smaps");
	char *exp, *line, *save = NULL;
	const struct vms_managed *m;
	size_t len;
	int n = 0, bad = 0;

	if (!s)
		return;
	exp = fixture_read("v_anon_names.expect", &len);
	for (line = exp ? strtok_r(exp, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long start;
		char type[32], rt[32];
		const struct vms_region *r;
		const struct anon_name *a;
		const char *got_rt;

		if (sscanf(line, "%llx %31s %31s", &start, type, rt) != 3)
			continue;
		n++;
		r = vms_snapshot_find(s, start);
		a = r && r->detail
			    ? anon_names_lookup(r->detail, strlen(r->detail))
			    : NULL;
		got_rt = a ? a->runtime : "-";
		if (!r || strcmp(vms_type_info[r->type].json, type) ||
		    strcmp(got_rt, rt)) {
			bad++;
			ok(0, "[anon:%s]: %s of %s, want %s of %s",
			   r && r->detail ? r->detail : "?",
			   r ? vms_type_info[r->type].json : "none", got_rt,
			   type, rt);
		}
	}
	ok(n > 30 && bad == 0, "v_anon_names: %d names typed as expected",
	   n - bad);
	m = managed_at(s, 0xc000000000);
	ok(m && strcmp(m->runtime, "go") == 0 && m->end == 0xc004000000 &&
		   m->reserved == 64ull << 20 && m->committed == 16ull << 20,
	   "Go's heap and its adjacent reservation: one managed heap of 64 "
	   "MiB, 16 MiB committed (%llu)",
	   m ? (unsigned long long)m->committed : 0);
	ok(m && m->used == -1 && !m->figures && m->nparts == 0,
	   "a named heap has no runtime figures");
	free(exp);
	vms_snapshot_free(s);
}

static void test_dotnet(void)
{
	struct vms_snapshot *s = finished("v_dotnet.smaps");
	const struct vms_managed *m;
	const struct vms_region *r;
	size_t i, n = 0;

	if (!s)
		return;
	m = managed_at(s, 0x7e0000000000);
	ok(m && strcmp(m->runtime, "dotnet") == 0 && m->end == 0x7e4000000000 &&
		   m->reserved == 256ull << 30 && m->committed == 36ull << 20,
	   ".NET: the 256 GiB GC range is a managed heap, 36 MiB committed");
	for (i = 0; i < s->nregions; i++)
		n += s->regions[i].type == VMS_T_MANAGED_HEAP;
	ok(n == 4 && s->nmanaged == 1,
	   ".NET: its 4 regions and nothing else are managed heap (%zu)", n);
	r = vms_snapshot_find(s, 0x7f1000000000);
	ok(r && r->type == VMS_T_SHAREABLE && r->detail &&
		   strstr(r->detail, "double mapping"),
	   ".NET: the doublemapper memfd is shareable, named (%s)",
	   r && r->detail ? r->detail : "null");
	r = vms_snapshot_find(s, 0x7f0000000000);
	ok(r && r->type == VMS_T_PRIVATE_DATA,
	   ".NET: a 64 MiB anonymous run is no GC range");
	vms_snapshot_free(s);
}

int main(void)
{
	test_anon_names();
	test_dotnet();
	return tap_done();
}
