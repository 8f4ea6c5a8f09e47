/* test_schema_smaps.c — the smaps counters (records.h's
 * VMS_COUNTER_FIELDS) and the kernel's rollup (VMS_ROLLUP_FIELDS), each
 * a value of its own, through every writer and back: the smaps parser
 * (its fast path and its general one) and the rollup's, the JSON export,
 * a snapshot file (which keeps the smaps text and parses it again). The
 * walks go over the lists, not a hand list, so a counter one writer
 * forgets fails here; and they are shown to fail: smaps (or
 * smaps_rollup) text without a counter's (a figure's) line is caught.
 * The records are test_schema.c's; what the two share, schema_util.h.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "linux/procfs.h"
#include "linux/smaps.h"
#include "model/records.h"
#include "model/snapshot.h"
#include "tap.h"

#include "schema_util.h"

/* ---- the counters ---- */

/* The counters of s's regions against the text's values: the number that
 * differ; *which names the first. */
static int counters_are(const struct vms_snapshot *s, const char **which)
{
	size_t j, i;
	int bad = 0;

	if (s->nregions != NREG) {
		*which = "(the number of regions)";
		return 1;
	}
	for (j = 0; j < NREG; j++)
		for (i = 0; i < VMS_NCOUNTERS; i++) {
			uint64_t v;

			memcpy(&v,
			       (const char *)&s->regions[j].c +
				       vms_counter_fields[i].off,
			       sizeof(v));
			if (v != counter_kb(j, i) << 10 && !bad++)
				*which = vms_counter_fields[i].member;
		}
	return bad;
}

/* The counters of the JSON export's regions (ex: its parse) against the
 * text's values. */
static int json_counters_are(const json_t *ex, const char **which)
{
	const json_t *regs = json_object_get(ex, "regions");
	size_t j, i;
	int bad = 0;

	if (json_array_size(regs) != NREG) {
		*which = "(the number of regions)";
		return 1;
	}
	for (j = 0; j < NREG; j++)
		for (i = 0; i < VMS_NCOUNTERS; i++) {
			const json_t *v =
				json_object_get(json_array_get(regs, j),
						vms_counter_fields[i].member);

			if ((!json_is_integer(v) ||
			     (uint64_t)json_integer_value(v) !=
				     counter_kb(j, i) << 10) &&
			    !bad++)
				*which = vms_counter_fields[i].member;
		}
	return bad;
}

/* ---- the rollup: each figure a value of its own ---- */

static uint64_t rollup_kb(size_t i)
{
	return 7 * 1024 + i * 3 + 1;
}

static void rollup_fill(struct vms_rollup *k)
{
	size_t i;

	memset(k, 0, sizeof(*k));
	k->valid = true;
	for (i = 0; i < VMS_NROLLUP; i++) {
		uint64_t v = rollup_kb(i) << 10;

		memcpy((char *)k + vms_rollup_fields[i].off, &v, sizeof(v));
	}
}

/* The rollup k against rollup_fill's values (o: the JSON export's
 * "kernel_rollup" instead, when not NULL): how many figures differ. */
static int rollup_is(const struct vms_rollup *k, const json_t *o,
		     const char **which)
{
	size_t i;
	int bad = 0;

	if (!o && !k->valid) {
		*which = "(not valid)";
		return 1;
	}
	for (i = 0; i < VMS_NROLLUP; i++) {
		const struct vms_rollup_field *f = &vms_rollup_fields[i];
		uint64_t v = 0;

		if (o) {
			const json_t *j = json_object_get(o, f->member);

			v = json_is_integer(j) ? (uint64_t)json_integer_value(j)
					       : 0;
		} else {
			memcpy(&v, (const char *)k + f->off, sizeof(v));
		}
		if (v != rollup_kb(i) << 10 && !bad++)
			*which = f->member;
	}
	if (!bad && o && json_object_size(o) != VMS_NROLLUP) {
		*which = "(a key no figure has)";
		bad = 1;
	}
	return bad;
}

/* smaps_rollup text with every figure's line (but skip's). */
static void rollup_parsed(void)
{
	size_t skip, i;
	int missed = 0;

	for (skip = 0; skip <= VMS_NROLLUP; skip++) {
		char t[2048];
		size_t n = (size_t)snprintf(
			t, sizeof(t),
			"00400000-7fff00000000 ---p 00000000 00:00 0   "
			"[rollup]\n");
		struct vms_rollup k;
		const char *w = "none";
		int bad;

		for (i = 0; i < VMS_NROLLUP; i++)
			if (i != skip)
				n += (size_t)snprintf(
					t + n, sizeof(t) - n, "%s:%*s%llu kB\n",
					vms_rollup_fields[i].smaps, 8, "",
					(unsigned long long)rollup_kb(i));
		procfs_rollup_parse(t, n, &k);
		bad = rollup_is(&k, NULL, &w);
		if (skip == VMS_NROLLUP)
			ok(!bad,
			   "smaps_rollup parser: every figure of the list "
			   "(first difference: %s)",
			   w);
		else if (!bad)
			missed++;
	}
	ok(!missed,
	   "self-check: each of the %d rollup figures, its line left out, "
	   "is caught (%d missed)",
	   VMS_NROLLUP, missed);
}

/* ---- the tests ---- */

/* A snapshot of the test's smaps text (its raw text kept, as a capture
 * with keep_raw), the rollup's figures set; NULL on failure. */
static struct vms_snapshot *made(void)
{
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_error err;
	size_t len;
	char *t = smaps_text(VMS_NCOUNTERS, &len);

	s->raw = calloc(1, sizeof(*s->raw));
	if (!s->raw || vms_raw_append_smaps(s->raw, t, len) < 0 ||
	    smaps_parse_buffer(s, t, len, &err) < 0) {
		free(t);
		vms_snapshot_free(s);
		return NULL;
	}
	free(t);
	rollup_fill(&s->rollup);
	return s;
}

/* Through the JSON export and a snapshot file, and back. */
static void round_trip(void)
{
	struct vms_snapshot *s = made(), *l;
	const char *w = "none";
	json_t *ex;

	ok(s != NULL, "a snapshot of the smaps text, the rollup set");
	if (!s)
		return;
	ex = exported(s);
	ok(ex && !json_counters_are(ex, &w),
	   "JSON export: every region has every smaps counter (first "
	   "difference: %s)",
	   w);
	ok(ex && !rollup_is(&s->rollup,
			    json_object_get(json_object_get(ex, "capture"),
					    "kernel_rollup"),
			    &w),
	   "JSON export: the kernel's rollup has every figure (first "
	   "difference: %s)",
	   w);
	json_decref(ex);
	l = saved_and_loaded(s);
	ok(l != NULL, "saved and loaded");
	if (l) {
		ok(!counters_are(l, &w),
		   "snapshot file: every region's smaps counters come back "
		   "(first difference: %s)",
		   w);
		ok(!rollup_is(&l->rollup, NULL, &w),
		   "snapshot file: the rollup comes back, valid (first "
		   "difference: %s)",
		   w);
		vms_snapshot_free(l);
	}
	vms_snapshot_free(s);
}

/* The smaps parser takes every counter of the list, on its fast path
 * (the regions after the first) and its general one (slow). */
static void counters_parsed(void)
{
	size_t len;
	char *t = smaps_text(VMS_NCOUNTERS, &len);
	int slow;

	for (slow = 0; slow < 2; slow++) {
		struct vms_snapshot *s = vms_snapshot_new();
		struct smaps_parser p;
		struct vms_error err;
		const char *w = "none";

		smaps_parser_init(&p, s);
		p.slow = slow;
		ok(smaps_parse(&p, t, len, true, &err) == (ssize_t)len &&
			   smaps_finish(&p, &err) == 0 && !counters_are(s, &w),
		   "smaps parser (%s): every counter of the list, in every "
		   "region (first difference: %s)",
		   slow ? "the general path" : "the fast path", w);
		vms_snapshot_free(s);
	}
	free(t);
}

/* The counters' check fails when a counter's line is missing. */
static void checks_can_fail(void)
{
	const char *w = "none";
	int missed_smaps = 0;
	size_t i;

	for (i = 0; i < VMS_NCOUNTERS; i++) {
		struct vms_snapshot *c = vms_snapshot_new();
		struct vms_error err;
		size_t len;
		char *t = smaps_text(i, &len);

		if (smaps_parse_buffer(c, t, len, &err) < 0 ||
		    !counters_are(c, &w) ||
		    strcmp(w, vms_counter_fields[i].member) != 0)
			missed_smaps++;
		free(t);
		vms_snapshot_free(c);
	}
	ok(!missed_smaps,
	   "self-check: each of the %d counters, its line left out of the "
	   "smaps text, is caught (%d missed)",
	   VMS_NCOUNTERS, missed_smaps);
}

int main(void)
{
	counters_parsed();
	rollup_parsed();
	round_trip();
	checks_can_fail();
	return tap_done();
}
