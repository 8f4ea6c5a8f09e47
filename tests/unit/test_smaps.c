/* test_smaps.c — the smaps parser on every fixture in tests/fixtures/.
 *
 * Each NAME.smaps is checked against NAME.maps (the regions it must yield,
 * read here with sscanf, not with the parser under test) and NAME.rollup
 * (the kernel's sums, or for hand-made variants the sums of the reference
 * parser in mkvariants.py). bad_*.smaps must be rejected by smaps_finish.
 * Every fixture is also parsed in random small chunks, carrying the
 * unconsumed tail as the sampler does, and must give the same result.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../fixtures/fixture.h"
#include "linux/smaps.h"
#include "tap.h"

/* ---- the expected side: .maps lines and header-shaped .smaps lines ---- */

struct maps_line {
	unsigned long long start, end, offset, inode;
	unsigned maj, min;
	char perms[5];
	char path[512]; /* "" when anonymous */
};

static size_t read_maps(const char *text, size_t len, struct maps_line **out)
{
	const char *p = text, *end = text + len;
	struct maps_line *v = NULL;
	size_t n = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char line[1024];
		size_t l;
		int at = 0;

		if (!nl)
			nl = end;
		l = (size_t)(nl - p) < sizeof(line) - 1 ? (size_t)(nl - p)
							: sizeof(line) - 1;
		memcpy(line, p, l);
		line[l] = '\0';
		p = nl + 1;
		if (!l)
			continue;
		v = realloc(v, (n + 1) * sizeof(*v));
		if (!v)
			abort();
		memset(&v[n], 0, sizeof(v[n]));
		if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &v[n].start,
			   &v[n].end, v[n].perms, &v[n].offset, &v[n].maj,
			   &v[n].min, &v[n].inode, &at) < 7)
			continue;
		if (at > 0)
			snprintf(v[n].path, sizeof(v[n].path), "%s", line + at);
		n++;
	}
	*out = v;
	return n;
}

static bool looks_like_header(const char *s, const char *end)
{
	const char *q = s;

	while (q < end && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f') ||
			   (*q >= 'A' && *q <= 'F')))
		q++;
	return q > s && q < end && *q == '-';
}

/* Header-shaped lines, and for each good region (in order) whether a
 * VmFlags line follows its header before the next header-shaped line. */
static size_t count_headers(const char *text, size_t len,
			    const struct maps_line *m, size_t nm,
			    bool *complete)
{
	const char *p = text, *end = text + len;
	size_t headers = 0, k = 0;
	bool in_good = false;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			nl = end;
		if (looks_like_header(p, nl)) {
			unsigned long long a = 0, b = 0;

			headers++;
			in_good = k < nm &&
				  sscanf(p, "%llx-%llx", &a, &b) == 2 &&
				  a == m[k].start && b == m[k].end;
			if (in_good)
				complete[k++] = false;
		} else if (in_good && nl - p >= 8 &&
			   memcmp(p, "VmFlags:", 8) == 0) {
			complete[k - 1] = true;
		}
		p = nl + 1;
	}
	return headers;
}

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool region_eq(const struct vms_region *a, const struct vms_region *b)
{
	return a->start == b->start && a->end == b->end &&
	       a->offset == b->offset && a->inode == b->inode &&
	       a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	       a->perms == b->perms && a->flags == b->flags &&
	       a->vmflags_mask == b->vmflags_mask && str_eq(a->path, b->path) &&
	       str_eq(a->vmflags, b->vmflags) &&
	       memcmp(&a->c, &b->c, sizeof(a->c)) == 0;
}

static bool snap_eq(const struct vms_snapshot *a, const struct vms_snapshot *b)
{
	size_t i;

	if (a->nregions != b->nregions)
		return false;
	for (i = 0; i < a->nregions; i++)
		if (!region_eq(&a->regions[i], &b->regions[i]))
			return false;
	return true;
}

/* ---- one fixture ---- */

static void perms_str(const struct vms_region *r, char *b)
{
	b[0] = r->perms & VMS_PERM_R ? 'r' : '-';
	b[1] = r->perms & VMS_PERM_W ? 'w' : '-';
	b[2] = r->perms & VMS_PERM_X ? 'x' : '-';
	b[3] = r->perms & VMS_PERM_SHARED ? 's' : 'p';
	b[4] = '\0';
}

static bool ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);

	return n >= k && strcmp(s + n - k, suf) == 0;
}

static void check_regions(const char *name, const struct vms_snapshot *s,
			  const struct maps_line *m, size_t nm,
			  const bool *complete)
{
	size_t i, bad_shape = 0, bad_flags = 0, bad_del = 0;

	for (i = 0; i < nm && i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];
		char perms[5];
		bool del;

		perms_str(r, perms);
		if (r->start != m[i].start || r->end != m[i].end ||
		    r->offset != m[i].offset || r->inode != m[i].inode ||
		    r->dev_major != m[i].maj || r->dev_minor != m[i].min ||
		    strcmp(perms, m[i].perms) != 0 ||
		    !str_eq(r->path, m[i].path[0] ? m[i].path : NULL)) {
			if (!bad_shape++)
				printf("# %s: region %zu %llx-%llx path '%s' "
				       "differs from maps\n",
				       name, i, (unsigned long long)r->start,
				       (unsigned long long)r->end,
				       r->path ? r->path : "");
		}
		if (!!(r->flags & VMS_RF_NO_COUNTERS) == complete[i])
			bad_flags++;
		del = m[i].path[0] && ends_with(m[i].path, " (deleted)");
		if (!!(r->flags & VMS_RF_DELETED) != del)
			bad_del++;
	}
	ok(s->nregions == nm, "%s: %zu regions, %zu in maps", name,
	   s->nregions, nm);
	ok(!bad_shape, "%s: every region's address, perms, offset, dev, "
		       "inode and whole path equal the maps line",
	   name);
	ok(!bad_flags, "%s: exactly the records without VmFlags are flagged "
		       "no-counters",
	   name);
	ok(!bad_del, "%s: deleted flag iff the path ends in ' (deleted)'",
	   name);
}

/* A key the fixture lacks (-1) is 0 in the parsed rollup. */
static long long nonneg(long long v)
{
	return v > 0 ? v : 0;
}

static void check_rollup(const char *name, const struct vms_snapshot *s,
			 const char *roll, size_t rlen)
{
	static const struct {
		const char *key;
		size_t off;
	} exact[] = {
		{ "Rss", offsetof(struct vms_counters, rss) },
		{ "Shared_Clean", offsetof(struct vms_counters, shared_clean) },
		{ "Shared_Dirty", offsetof(struct vms_counters, shared_dirty) },
		{ "Private_Clean", offsetof(struct vms_counters, private_clean) },
		{ "Private_Dirty", offsetof(struct vms_counters, private_dirty) },
		{ "Swap", offsetof(struct vms_counters, swap) },
		{ "Locked", offsetof(struct vms_counters, locked) },
	};
	uint64_t pss = 0;
	long long want_pss = procfs_status_value(roll, rlen, "Pss");
	size_t i, k;
	struct vms_rollup r;
	uint64_t parsed[7];

	/* The rollup parser (the samplers' check), against the same text
	 * read by procfs_status_value. */
	procfs_rollup_parse(roll, rlen, &r);
	parsed[0] = r.rss;
	parsed[1] = r.shared_clean;
	parsed[2] = r.shared_dirty;
	parsed[3] = r.private_clean;
	parsed[4] = r.private_dirty;
	parsed[5] = r.swap;
	parsed[6] = r.locked;
	ok(r.valid && r.pss == (uint64_t)want_pss &&
		   (long long)r.swap_pss ==
			   nonneg(procfs_status_value(roll, rlen, "SwapPss")) &&
		   (long long)r.anonymous ==
			   nonneg(procfs_status_value(roll, rlen, "Anonymous")),
	   "%s: procfs_rollup_parse: valid, Pss, SwapPss, Anonymous", name);

	for (k = 0; k < sizeof(exact) / sizeof(exact[0]); k++) {
		long long want = procfs_status_value(roll, rlen, exact[k].key);
		uint64_t sum = 0;

		for (i = 0; i < s->nregions; i++)
			sum += *(const uint64_t *)((const char *)&s->regions[i].c +
						   exact[k].off);
		ok(want >= 0 && sum == (uint64_t)want,
		   "%s: sum of %s %" PRIu64 " == rollup %lld", name,
		   exact[k].key, sum, want);
		ok(want >= 0 && parsed[k] == (uint64_t)want,
		   "%s: procfs_rollup_parse %s %" PRIu64 " == %lld", name,
		   exact[k].key, parsed[k], want);
	}
	/* a region's hugetlb is its Private_Hugetlb + Shared_Hugetlb (both
	 * keys add into the one counter): their sums are the rollup's two
	 * (0 where the kernel has neither line) */
	{
		uint64_t h = 0;
		long long ph = nonneg(procfs_status_value(roll, rlen,
							  "Private_Hugetlb")),
			  sh = nonneg(procfs_status_value(roll, rlen,
							  "Shared_Hugetlb"));

		for (i = 0; i < s->nregions; i++)
			h += s->regions[i].c.hugetlb;
		ok(h == (uint64_t)(ph + sh) &&
			   r.private_hugetlb == (uint64_t)ph &&
			   r.shared_hugetlb == (uint64_t)sh,
		   "%s: sum of hugetlb %" PRIu64 " == rollup Private_Hugetlb "
		   "%lld + Shared_Hugetlb %lld, and procfs_rollup_parse has "
		   "them",
		   name, h, ph, sh);
	}
	for (i = 0; i < s->nregions; i++)
		pss += s->regions[i].c.pss;
	ok(want_pss >= 0 &&
		   (uint64_t)llabs((long long)pss - want_pss) <=
			   1024 * (s->nregions ? s->nregions : 1),
	   "%s: sum of Pss %" PRIu64 " within 1 KiB a region of rollup %lld",
	   name, pss, want_pss);
}

static void check_fixture(const char *name)
{
	char fn[300];
	char *text, *mtext = NULL, *roll = NULL;
	size_t len, mlen = 0, rlen = 0, nm = 0, headers, mal = 0;
	struct maps_line *m = NULL;
	struct vms_snapshot *s = vms_snapshot_new(), *c = NULL;
	struct smaps_parser p;
	struct vms_error err;
	bool *complete = NULL;
	bool bad = strncmp(name, "bad_", 4) == 0;
	int rc;

	snprintf(fn, sizeof(fn), "%s.smaps", name);
	text = fixture_read(fn, &len);
	if (!text || !s) {
		ok(0, "%s: readable", fn);
		goto out;
	}
	smaps_parser_init(&p, s);
	rc = (int)smaps_parse(&p, text, len, true, &err);
	ok(rc == (int)len, "%s: one-shot parse consumes all %zu bytes", name,
	   len);
	rc = smaps_finish(&p, &err);
	if (bad) {
		ok(rc < 0 && err.kind == VMS_ERR_CAPTURE,
		   "%s: rejected by smaps_finish (%s)", name,
		   rc < 0 ? err.msg : "accepted");
		goto out;
	}
	ok(rc == 0, "%s: smaps_finish accepts it", name);
	snprintf(fn, sizeof(fn), "%s.maps", name);
	mtext = fixture_read(fn, &mlen);
	snprintf(fn, sizeof(fn), "%s.rollup", name);
	roll = fixture_read(fn, &rlen);
	if (!mtext || !roll) {
		ok(0, "%s: has .maps and .rollup", name);
		goto out;
	}
	nm = read_maps(mtext, mlen, &m);
	complete = calloc(nm + 1, sizeof(*complete));
	headers = count_headers(text, len, m, nm, complete);
	check_regions(name, s, m, nm, complete);
	if (strcmp(name, "v_trunc_midline") == 0 ||
	    strcmp(name, "v_trunc_midrecord") == 0)
		ok(s->nregions &&
			   (s->regions[s->nregions - 1].flags &
			    VMS_RF_NO_COUNTERS) &&
			   str_eq(s->regions[s->nregions - 1].path, "[stack]"),
		   "%s: the cut [stack] record is kept, flagged no-counters",
		   name);
	ok(p.malformed == headers - nm,
	   "%s: %zu malformed headers counted, %zu expected", name,
	   p.malformed, headers - nm);
	check_rollup(name, s, roll, rlen);

	/* Every line the general way: the learned keys change nothing. */
	c = vms_snapshot_new();
	if (c) {
		struct smaps_parser q;

		smaps_parser_init(&q, c);
		q.slow = true;
		smaps_parse(&q, text, len, true, &err);
		ok(snap_eq(s, c) && q.malformed == p.malformed &&
			   (p.learned || s->nregions < 2),
		   "%s: the fast path (keys learned: %d) parses as the "
		   "general one",
		   name, p.learned);
		vms_snapshot_free(c);
		c = NULL;
	}

	/* The same in chunks: tiny ones, then up to a page. */
	{
		static const size_t maxes[] = { 1, 3, 17, 200, 4096 };
		size_t i, diff = 0;
		unsigned seed = tap_seed(12345);

		for (i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++) {
			c = vms_snapshot_new();
			if (!c ||
			    fixture_parse_chunked(c, text, len, maxes[i], &seed,
						  &mal) < 0 ||
			    !snap_eq(s, c) || mal != p.malformed)
				diff++;
			vms_snapshot_free(c);
			c = NULL;
		}
		ok(!diff, "%s: chunked parses (1..1, 3, 17, 200, 4096 bytes) "
			  "equal the one-shot parse",
		   name);
	}
out:
	free(complete);
	free(m);
	free(text);
	free(mtext);
	free(roll);
	vms_snapshot_free(s);
}

/* ---- every NAME.maps parses as headers only ---- */

static void check_maps_input(const char *name)
{
	char fn[300];
	size_t len, i, nonzero = 0, unflagged = 0;
	char *text;
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_error err;
	struct maps_line *m = NULL;
	size_t nm;
	static const struct vms_counters zero;

	snprintf(fn, sizeof(fn), "%s.maps", name);
	text = fixture_read(fn, &len);
	if (!text)
		goto out;
	nm = read_maps(text, len, &m);
	ok(smaps_parse_buffer(s, text, len, &err) == 0 && s->nregions == nm,
	   "%s: parses as maps, %zu regions (%zu lines)", fn, s->nregions, nm);
	for (i = 0; i < s->nregions; i++) {
		if (memcmp(&s->regions[i].c, &zero, sizeof(zero)) != 0)
			nonzero++;
		if (!(s->regions[i].flags & VMS_RF_NO_COUNTERS))
			unflagged++;
	}
	ok(!nonzero && !unflagged,
	   "%s: maps regions have no counters and say so", fn);
out:
	free(m);
	free(text);
	vms_snapshot_free(s);
}

/* ---- variants against the recording they were made from ---- */

static struct vms_snapshot *parse_fixture(const char *fn)
{
	struct vms_snapshot *s = fixture_snapshot(fn);

	ok(s != NULL, "%s parses", fn);
	return s;
}

enum { SAME_ALL, SAME_BUT_MISSING, SAME_BUT_EMPTY_VMFLAGS };

static void compare_variant(const struct vms_snapshot *base, const char *fn,
			    int how)
{
	struct vms_snapshot *v = parse_fixture(fn);
	size_t i, diff = 0;

	if (!v || !base)
		goto out;
	for (i = 0; i < base->nregions && i < v->nregions; i++) {
		struct vms_region want = base->regions[i];
		const struct vms_region *got = &v->regions[i];

		if (how == SAME_BUT_MISSING) {
			want.c.locked = want.c.swap_pss = 0;
		} else if (how == SAME_BUT_EMPTY_VMFLAGS &&
			   (str_eq(want.path, "[heap]") ||
			    str_eq(want.path, "[stack]"))) {
			if (!str_eq(got->vmflags, "") || got->vmflags_mask ||
			    (got->flags & VMS_RF_NO_COUNTERS))
				diff++;
			continue;
		}
		if (!region_eq(&want, got))
			diff++;
	}
	ok(v->nregions == base->nregions && !diff,
	   "%s: same regions, flags and counters as kinds.smaps%s", fn,
	   how == SAME_BUT_MISSING ? " (missing keys read as 0)"
	   : how == SAME_BUT_EMPTY_VMFLAGS
		   ? " (empty VmFlags: \"\", mask 0, counters complete)"
		   : "");
out:
	vms_snapshot_free(v);
}

static void check_variants(void)
{
	struct vms_snapshot *base = parse_fixture("kinds.smaps");
	struct vms_snapshot *v;
	const struct vms_region *r;

	compare_variant(base, "v_unknown_keys.smaps", SAME_ALL);
	compare_variant(base, "v_crlf.smaps", SAME_ALL);
	compare_variant(base, "v_garbage.smaps", SAME_ALL);
	compare_variant(base, "v_missing_keys.smaps", SAME_BUT_MISSING);
	compare_variant(base, "v_empty_vmflags.smaps", SAME_BUT_EMPTY_VMFLAGS);
	vms_snapshot_free(base);

	v = parse_fixture("v_paths.smaps");
	if (v) {
		r = fixture_find_path(v, "/opt/my app/lib thing.so");
		ok(r && !(r->flags & VMS_RF_DELETED),
		   "v_paths: path with a space kept whole");
		r = fixture_find_path(v, "/srv/two  spaces  here");
		ok(r != NULL, "v_paths: runs of spaces inside a path kept");
		r = fixture_find_path(v, "/tmp/old file (deleted)");
		ok(r && (r->flags & VMS_RF_DELETED),
		   "v_paths: ' (deleted)' suffix flags the region");
		r = fixture_find_path(v, "/tmp/a (deleted) b");
		ok(r && !(r->flags & VMS_RF_DELETED),
		   "v_paths: '(deleted)' inside a path does not");
		r = fixture_find_path(v, "[anon: Go: heap]");
		ok(r && r->start == 0xc000000000ull,
		   "v_paths: [anon: Go: heap] name kept with its spaces");
		r = fixture_find_path(v, "[anon:my thing]");
		ok(r && r->vmflags_mask == (((uint32_t)VMS_VF_MS << 1) - 1),
		   "v_paths: every flag word of a full VmFlags line is in the "
		   "mask (0x%x)",
		   r ? r->vmflags_mask : 0);
	}
	vms_snapshot_free(v);

	v = parse_fixture("v_wide.smaps");
	if (v && v->nregions == 5) {
		ok(v->regions[0].dev_major == 0x103 &&
			   v->regions[0].dev_minor == 0x1a,
		   "v_wide: device 103:1a");
		ok(v->regions[1].dev_major == 0xfd &&
			   v->regions[1].dev_minor == 0x10000,
		   "v_wide: device fd:10000");
		ok(v->regions[3].start == 0xff00000000000ull &&
			   v->regions[4].end == 0xfffffffffe02000ull,
		   "v_wide: addresses above 47 bits");
	} else {
		ok(0, "v_wide: 5 regions");
	}
	vms_snapshot_free(v);
}

/* ---- smaps_vmflags_mask ---- */

static void check_vmflags_mask(void)
{
	static const struct {
		const char *w;
		uint32_t bit;
	} tab[] = {
		{ "ac", VMS_VF_AC }, { "nr", VMS_VF_NR }, { "sh", VMS_VF_SH },
		{ "gd", VMS_VF_GD }, { "dc", VMS_VF_DC }, { "wf", VMS_VF_WF },
		{ "lo", VMS_VF_LO }, { "ht", VMS_VF_HT }, { "pf", VMS_VF_PF },
		{ "io", VMS_VF_IO }, { "dd", VMS_VF_DD }, { "ms", VMS_VF_MS },
	};
	char line[128];
	uint32_t all = 0;
	size_t i, bad = 0;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		snprintf(line, sizeof(line), "rd wr %s mr", tab[i].w);
		if (smaps_vmflags_mask(line, strlen(line)) != tab[i].bit)
			bad++;
		all |= tab[i].bit;
	}
	ok(!bad, "vmflags: each word sets its own bit only");
	snprintf(line, sizeof(line), "ac nr sh gd dc wf lo ht pf io dd ms");
	ok(smaps_vmflags_mask(line, strlen(line)) == all,
	   "vmflags: all words give all bits");
	ok(smaps_vmflags_mask("", 0) == 0 && smaps_vmflags_mask("   ", 3) == 0,
	   "vmflags: empty and blank lines give 0");
	ok(smaps_vmflags_mask("acnr ac\tnr  x ", 14) ==
		   (VMS_VF_AC | VMS_VF_NR),
	   "vmflags: words split on blanks and tabs, longer words ignored");
	ok(smaps_vmflags_mask("rd ac", 4) == 0,
	   "vmflags: reads only n bytes");
}

/* Records whose keys leave the first record's order: a key missing, one
 * added, two swapped, odd blanks, a value without kB, a value too long,
 * CRLF. The fast path must give what the general way gives. */
static void check_key_order(void)
{
	static const char text[] =
		"00400000-00401000 r-xp 00000000 08:01 12 /bin/x\n"
		"Size:                  4 kB\n"
		"Rss:                   4 kB\n"
		"Pss:                   2 kB\n"
		"Shared_Clean:          4 kB\n"
		"Swap:                  0 kB\n"
		"THPeligible:    0\n"
		"VmFlags: rd ex mr mw me\n"
		"00500000-00502000 rw-p 00000000 00:00 0\n"
		"Size:                  8 kB\n"
		"Pss:                   8 kB\n"
		"Rss:                   8 kB\n"
		"Private_Dirty:         8 kB\n"
		"Shared_Clean:\t 12 kB\n"
		"Swap:                  3\n"
		"THPeligible:    1\n"
		"VmFlags: rd wr mr mw me ac\n"
		"00600000-00601000 rw-p 00000000 00:00 0\n"
		"Rss:  99999999999999999999 kB\n"
		"Pss:                   4  kB\n"
		"Swap:                  4 kB\r\n"
		"VmFlags: rd wr\n"
		"00700000-00701000 rw-p 00000000 00:00 0\n"
		"Size:                  4 kB\n"
		"Rss:                   4 kB\n"
		"Pss:                   4 kB\n"
		"Shared_Clean:          0 kB\n"
		"Swap:                  0 kB\n"
		"THPeligible:    0\n"
		"VmFlags: rd wr\n";
	struct vms_snapshot *a = vms_snapshot_new(), *b = vms_snapshot_new();
	struct smaps_parser p, q;
	struct vms_error err;

	if (!a || !b) {
		ok(0, "key order: snapshots");
		return;
	}
	smaps_parser_init(&p, a);
	smaps_parse(&p, text, sizeof(text) - 1, true, &err);
	smaps_parser_init(&q, b);
	q.slow = true;
	smaps_parse(&q, text, sizeof(text) - 1, true, &err);
	ok(p.learned && a->nregions == 4 && snap_eq(a, b),
	   "key order: keys out of the first record's order, missing, "
	   "added, odd blanks, no kB, too long, CRLF: as the general way");
	ok(a->nregions == 4 && a->regions[1].c.rss == 8192 &&
		   a->regions[1].c.pss == 8192 &&
		   a->regions[1].c.shared_clean == 12288 &&
		   a->regions[1].c.swap == 3 && a->regions[3].c.rss == 4096,
	   "key order: the figures of the swapped, tabbed and unitless lines");
	vms_snapshot_free(a);
	vms_snapshot_free(b);
}

/* Without an Rss line a text is not valid; a malformed value counts 0,
 * the rest is kept. */
static void check_rollup_malformed(void)
{
	static const struct {
		const char *text, *what;
		bool valid;
		uint64_t rss, swap;
	} t[] = {
		{ "", "empty", false, 0, 0 },
		{ "Rss: 4 kB\n", "no header line", true, 4096, 0 },
		{ "0-1000 ---p 00000000 00:00 0 [rollup]\n", "header alone",
		  false, 0, 0 },
		{ "0-1000 ---p 00000000 00:00 0 [rollup]\nRss: 8 kB\nSwap: "
		  "2 kB",
		  "no newline at the end", true, 8192, 2048 },
		{ "0-1000 ---p 00000000 00:00 0 [rollup]\nRss: x kB\nSwap: "
		  "2 kB\n",
		  "a malformed Rss", false, 0, 2048 },
		{ "0-1000 ---p 00000000 00:00 0 [rollup]\nRss: "
		  "99999999999999999999 kB\n",
		  "an Rss of 20 digits", false, 0, 0 },
		{ "0-1000 ---p 00000000 00:00 0 [rollup]\nRss: "
		  "18014398509481984 kB\n",
		  "an Rss that overflows in bytes", false, 0, 0 },
		{ "0-1000 ---p 00000000 00:00 0 [rollup]\nNew_Key: 5 kB\n"
		  "Rss:\t12 kB\r\n",
		  "an unknown key, a tab, CRLF", true, 12288, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct vms_rollup r;

		memset(&r, 0xa5, sizeof(r));
		procfs_rollup_parse(t[i].text, strlen(t[i].text), &r);
		ok(r.valid == t[i].valid && r.rss == t[i].rss &&
			   r.swap == t[i].swap && r.pss == 0,
		   "rollup %s: valid %d, Rss %" PRIu64 ", Swap %" PRIu64,
		   t[i].what, r.valid, r.rss, r.swap);
	}
}

/* A file's name with a newline, as the kernel writes it (\012), reads
 * back as the newline; " (deleted)" after it still marks the region. */
static void check_newline_names(void)
{
	static const char text[] =
		"00400000-00401000 r--p 00000000 08:01 12 /tmp/a\\012b\n"
		"00500000-00501000 r--p 00000000 08:01 13 /tmp/\\012\\012x\\01\n"
		"00600000-00601000 r--p 00000000 08:01 14 /tmp/c\\012 (deleted)\n"
		"00700000-00701000 r--p 00000000 08:01 15 /tmp/back\\slash\\012\n"
		"00800000-00801000 r--p 00000000 08:01 16 /tmp/plain\n";
	static const char *const want[] = { "/tmp/a\nb", "/tmp/\n\nx\\01",
					    "/tmp/c\n (deleted)",
					    "/tmp/back\\slash\n", "/tmp/plain" };
	struct vms_snapshot *a = vms_snapshot_new();
	struct smaps_parser p;
	struct vms_error err;
	size_t i;

	if (!a) {
		ok(0, "newline names: snapshot");
		return;
	}
	smaps_parser_init(&p, a);
	smaps_parse(&p, text, sizeof(text) - 1, true, &err);
	ok(a->nregions == 5, "newline names: 5 regions (%zu)", a->nregions);
	for (i = 0; i < a->nregions && i < 5; i++)
		ok(a->regions[i].path && strcmp(a->regions[i].path, want[i]) == 0,
		   "newline names: region %zu's path read back", i);
	ok(a->nregions >= 3 && (a->regions[2].flags & VMS_RF_DELETED),
	   "newline names: (deleted) after a newline still marks it");
	vms_snapshot_free(a);
}

int main(void)
{
	DIR *d = opendir(fixture_dir());
	struct dirent *de;
	size_t nfix = 0;

	ok(d != NULL, "fixtures directory %s", fixture_dir());
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char name[256];

		if (n < 7 || n - 6 >= sizeof(name) ||
		    strcmp(de->d_name + n - 6, ".smaps") != 0)
			continue;
		memcpy(name, de->d_name, n - 6);
		name[n - 6] = '\0';
		check_fixture(name);
		check_maps_input(name);
		nfix++;
	}
	if (d)
		closedir(d);
	ok(nfix >= 17, "%zu fixtures checked", nfix);
	check_variants();
	check_vmflags_mask();
	check_key_order();
	check_rollup_malformed();
	check_newline_names();
	return tap_done();
}
