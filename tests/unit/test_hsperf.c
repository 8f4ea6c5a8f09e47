/* test_hsperf.c — the hsperfdata parser (hsperf.h) on recorded files of
 * real JVMs (G1, Parallel, Serial; and the G1 one written big-endian),
 * each compared with what the independent reader tests/lib/hsperf.py
 * found in it (NAME.expect, written by tests/fixtures/mkhsperf.py), and on
 * malformed ones (bad_hsperf_*), which must be refused with a message.
 * Every prefix of a recorded file is parsed from an exact-size copy (the
 * sanitizer build catches a read past its end). */
#include <stdlib.h>
#include <string.h>

#include "../fixtures/fixture.h"
#include "analyze/runtimes/hsperf.h"
#include "tap.h"

/* The C parser's figure for an expect key, as text; false if it has no
 * such figure. */
static bool figure(const struct hsperf *h, const char *key, char *out, size_t n)
{
	const struct hsperf_space *sp = NULL;
	unsigned g, k;
	char f[64];

	if (strcmp(key, "policy") == 0) {
		snprintf(out, n, "%s", h->policy);
		return true;
	}
	if (sscanf(key, "gen.%u.space.%u.%63s", &g, &k, f) == 3) {
		if (g >= h->ngens || k >= h->gen[g].nspaces)
			return false;
		sp = &h->gen[g].space[k];
	} else if (sscanf(key, "gen.%u.%63s", &g, f) == 2) {
		if (g >= h->ngens)
			return false;
		if (strcmp(f, "name") == 0)
			snprintf(out, n, "%s", h->gen[g].name);
		else if (strcmp(f, "capacity") == 0)
			snprintf(out, n, "%lld", (long long)h->gen[g].capacity);
		else if (strcmp(f, "max") == 0)
			snprintf(out, n, "%lld", (long long)h->gen[g].max);
		else
			return false;
		return true;
	} else if (strncmp(key, "metaspace.", 10) == 0) {
		sp = &h->metaspace;
		snprintf(f, sizeof(f), "%s", key + 10);
	} else if (strncmp(key, "class space.", 12) == 0) {
		sp = &h->class_space;
		snprintf(f, sizeof(f), "%s", key + 12);
	} else {
		return false;
	}
	if (strcmp(f, "name") == 0)
		snprintf(out, n, "%s", sp->name);
	else if (strcmp(f, "capacity") == 0)
		snprintf(out, n, "%lld", (long long)sp->capacity);
	else if (strcmp(f, "used") == 0)
		snprintf(out, n, "%lld", (long long)sp->used);
	else if (strcmp(f, "max") == 0)
		snprintf(out, n, "%lld", (long long)sp->max);
	else
		return false;
	return true;
}

static void test_good(const char *name)
{
	char file[128], *buf, *exp, *line, *save = NULL;
	size_t len, elen;
	struct hsperf h;
	struct vms_error err = { 0 };
	int n = 0, bad = 0;

	snprintf(file, sizeof(file), "%s.hsperf", name);
	buf = fixture_read(file, &len);
	snprintf(file, sizeof(file), "%s.expect", name);
	exp = fixture_read(file, &elen);
	if (!buf || !exp) {
		ok(0, "%s: fixture and expectation read", name);
		free(buf);
		free(exp);
		return;
	}
	ok(hsperf_parse(buf, len, &h, &err) == 0, "%s: parses (%s)", name,
	   err.msg);
	ok(h.ngens == 2 && h.major == 2 && h.nentries > 100,
	   "%s: version %u.%u, %u entries, %u generations", name, h.major,
	   h.minor, h.nentries, h.ngens);
	for (line = strtok_r(exp, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char key[64], got[64];
		const char *val;
		size_t klen;

		/* "key value": the key may hold a space ("class space.used"):
		 * the value is after the last space. */
		val = strrchr(line, ' ');
		if (!val)
			continue;
		klen = (size_t)(val - line);
		snprintf(key, sizeof(key), "%.*s", (int)klen, line);
		val++;
		n++;
		if (!figure(&h, key, got, sizeof(got)) || strcmp(got, val)) {
			bad++;
			ok(0, "%s: %s is %s, the reference reader says %s",
			   name, key, got, val);
		}
	}
	ok(n > 20 && bad == 0, "%s: %d figures equal the reference reader's",
	   name, n - bad);
	free(buf);
	free(exp);
}

static void test_bad(const char *name, const char *words)
{
	char file[128], *buf;
	size_t len;
	struct hsperf h;
	struct vms_error err = { 0 };

	snprintf(file, sizeof(file), "%s.hsperf", name);
	buf = fixture_read(file, &len);
	if (!buf) {
		ok(0, "%s: fixture read", name);
		return;
	}
	ok(hsperf_parse(buf, len, &h, &err) < 0 && err.kind == VMS_ERR_FILE &&
		   strstr(err.msg, words),
	   "%s: refused: %s", name, err.msg);
	free(buf);
}

static void test_prefixes(void)
{
	size_t len, n, good = 0;
	char *buf = fixture_read("jvm17_g1.hsperf", &len);

	if (!buf) {
		ok(0, "jvm17_g1.hsperf read");
		return;
	}
	for (n = 0; n <= len; n += n < 64 ? 1 : 97) {
		char *cp = malloc(n ? n : 1);
		struct hsperf h;
		struct vms_error err = { 0 };

		memcpy(cp, buf, n);
		if (hsperf_parse(cp, n, &h, &err) == 0)
			good++;
		else if (!err.msg[0])
			ok(0, "prefix %zu: refused with no message", n);
		free(cp);
	}
	/* The file is 32 KiB, its entries end at "used" (12 KiB): every
	 * prefix holding them parses, none shorter does. */
	ok(good > 0,
	   "prefixes of jvm17_g1.hsperf: %zu of them parse, the "
	   "rest are refused with a message",
	   good);
	free(buf);
}

static void test_heap_max(const char *name, bool by_sum)
{
	uint64_t sum, largest;
	struct hsperf h;
	struct vms_error err = { 0 };
	char file[128], *buf;
	size_t len;

	snprintf(file, sizeof(file), "%s.hsperf", name);
	if (!(buf = fixture_read(file, &len)) ||
	    hsperf_parse(buf, len, &h, &err) < 0) {
		ok(0, "%s: parses (%s)", name, err.msg);
		free(buf);
		return;
	}
	hsperf_heap_max(&h, 4096, &sum, &largest);
	ok((by_sum ? sum : largest) == 384ull << 20,
	   "%s: -Xmx384m is the generations' max %s: sum %llu, largest %llu",
	   name, by_sum ? "summed" : "largest", (unsigned long long)sum,
	   (unsigned long long)largest);
	free(buf);
}

int main(void)
{
	test_good("jvm17_g1");
	test_good("jvm17_parallel");
	test_good("jvm17_serial");
	test_good("v_hsperf_be");
	test_bad("bad_hsperf_cut", "fewer entries");
	test_bad("bad_hsperf_magic", "magic");
	test_bad("bad_hsperf_version", "version 3");
	test_bad("bad_hsperf_order", "byte order 7");
	test_bad("bad_hsperf_elen", "length runs past");
	test_bad("bad_hsperf_zero", "shorter than its own header");
	test_bad("bad_hsperf_name", "outside");
	test_bad("bad_hsperf_short", "shorter");
	test_bad("bad_hsperf_eoff", "entries start");
	test_prefixes();
	/* The heap's size: G1 lets each generation take all of it (the
	 * largest), Serial and Parallel split it (the sum); all three JVMs
	 * ran with -Xmx384m. */
	test_heap_max("jvm17_g1", false);
	test_heap_max("jvm17_parallel", true);
	test_heap_max("jvm17_serial", true);
	return tap_done();
}
