/* snapfile_read.c — a snapshot file's bytes into the raw part of a
 * snapshot (snapfile.h): the sections found and checked, the smaps text
 * into the smaps parser (decompressed by snapfile_zsec.c, its two parts
 * of format 2 on two threads by snapfile_parts.c), the JSON part read
 * with jansson. Everything the bytes claim (lengths, counts, indices) is
 * checked against the buffer before it is used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/file/snapfile.h"
#include "capture/file/snapfile_int.h"
#include "linux/procfs.h"
#include "linux/smaps.h"

/* The largest JSON part and status text taken, decompressed. */
#define SF_META_MAX (1ull << 30)
#define SF_STATUS_MAX (1u << 20)

static uint64_t get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

bool snapfile_recognise(const void *head, size_t n)
{
	return n >= SNAPFILE_MAGIC_LEN &&
	       memcmp(head, SNAPFILE_MAGIC, SNAPFILE_MAGIC_LEN) == 0;
}

/* ---- sections ---- */

static const char *const known[] = { SF_SEC_META,      SF_SEC_SMAPS,
				     SF_SEC_STATUS,    SF_SEC_TRACE,
				     SF_SEC_TRACELIVE, SF_SEC_END };
enum { K_META, K_SMAPS, K_STATUS, K_TRACE, K_TRACELIVE, K_END, K_N };

static int find_sections(const unsigned char *p, size_t len, const char *name,
			 struct sf_sec sec[K_N], struct vms_error *err)
{
	size_t off = SF_HEAD_LEN;
	int k;

	memset(sec, 0, K_N * sizeof(*sec));
	for (;;) {
		char sname[SF_SEC_NAME + 1];
		struct sf_sec x;
		size_t i;

		if (len - off < SF_SEC_HEAD_LEN)
			return vms_error_file(
				err, name,
				"cut short after %zu bytes, inside a "
				"section header (an unfinished write?)",
				len);
		memcpy(sname, p + off, SF_SEC_NAME);
		sname[SF_SEC_NAME] = 0;
		for (i = 0; i < SF_SEC_NAME; i++)
			if (sname[i] && (sname[i] < 'a' || sname[i] > 'z'))
				return vms_error_file(
					err, name,
					"corrupted: a section header at "
					"byte %zu has no name",
					off);
		x.codec = (uint32_t)get_le(p + off + SF_SEC_NAME, 4);
		x.stored = get_le(p + off + SF_SEC_NAME + 4, 8);
		x.size = get_le(p + off + SF_SEC_NAME + 12, 8);
		x.found = true;
		off += SF_SEC_HEAD_LEN;
		if (x.stored > len - off)
			return vms_error_file(
				err, name,
				"cut short: section \"%s\" at byte %zu "
				"has %llu bytes, only %zu are left",
				sname, off - SF_SEC_HEAD_LEN,
				(unsigned long long)x.stored, len - off);
		x.data = p + off;
		off += x.stored;
		for (k = 0; k < K_N; k++)
			if (strcmp(sname, known[k]) == 0)
				break;
		if (k == K_N)
			continue; /* a section of a later vmscope */
		if (sec[k].found)
			return vms_error_file(
				err, name,
				"corrupted: section \"%s\" appears twice",
				sname);
		if (x.codec != SF_CODEC_STORED && x.codec != SF_CODEC_ZSTD)
			return vms_error_file(
				err, name,
				"section \"%s\" is compressed with codec "
				"%u, which this vmscope does not know",
				sname, x.codec);
		sec[k] = x;
		if (k == K_END)
			break;
	}
	if (off != len)
		return vms_error_file(
			err, name,
			"corrupted: %zu bytes follow its end section",
			len - off);
	if (!sec[K_META].found || !sec[K_SMAPS].found)
		return vms_error_file(
			err, name, "corrupted: it has no \"%s\" section",
			sec[K_META].found ? SF_SEC_SMAPS : SF_SEC_META);
	return 0;
}

/* ---- the JSON part into the snapshot ---- */

/* A string member into the arena: false when it is neither a string nor
 * null (nor absent). */
static bool str_at(struct vms_snapshot *s, const json_t *o, const char *k,
		   const char **out)
{
	bool ok = true;

	*out = sf_get_str(&s->arena, json_object_get(o, k), &ok);
	return ok;
}

static bool process_from(struct vms_snapshot *s, const json_t *p)
{
	uint64_t pid = 0, uid = 0;

	if (!json_is_object(p) || !sf_obj_u64(p, "pid", &pid) ||
	    pid > 0x7fffffff)
		return false;
	sf_obj_u64(p, "uid", &uid);
	s->proc.pid = (pid_t)pid;
	s->proc.uid = (uid_t)uid;
	return str_at(s, p, "name", &s->proc.name) &&
	       str_at(s, p, "cmdline", &s->proc.cmdline) &&
	       str_at(s, p, "exe", &s->proc.exe);
}

static bool capture_from(struct vms_snapshot *s, const json_t *c)
{
	struct vms_capture_info *k = &s->cap;
	uint64_t v;

	if (!json_is_object(c))
		return false;
	if (!str_at(s, c, "backend", &k->backend) ||
	    !str_at(s, c, "kernel", &k->kernel) ||
	    !str_at(s, c, "partial", &k->partial) ||
	    !str_at(s, c, "freeze_counters", &k->freeze_counters))
		return false;
	if (!k->backend)
		k->backend = "?";
	k->frozen = json_is_true(json_object_get(c, "frozen"));
	sf_obj_u64(c, "frozen_us", &k->frozen_us);
	sf_obj_u64(c, "duration_us", &k->duration_us);
	if (sf_obj_u64(c, "taken_at_sec", &v))
		k->taken_at_sec = (int64_t)v;
	if (sf_obj_u64(c, "taken_at_nsec", &v) && v < 1000000000u)
		k->taken_at_nsec = (long)v;
	sf_obj_u64(c, "monotonic_ns", &k->monotonic_ns);
	sf_obj_u64(c, "boottime_ns", &k->boottime_ns);
	if (!sf_obj_u64(c, "page_size", &k->page_size) || !k->page_size ||
	    (k->page_size & (k->page_size - 1)))
		k->page_size = 0; /* the pipeline takes this machine's */
	sf_obj_u64(c, "user_start", &s->user_start);
	sf_obj_u64(c, "user_end", &s->user_end);
	if (s->user_end <= s->user_start)
		s->user_start = s->user_end = 0; /* the totals step's own */
	return true;
}

static void rollup_from(struct vms_snapshot *s, const json_t *r)
{
	struct vms_rollup *k = &s->rollup;

	if (!json_is_object(r))
		return;
	/* valid with every figure a rollup had from the first (NEED) */
	k->valid = true;
#define ROLLUP(m, key, flags)                                                  \
	if (!sf_obj_u64(r, #m, &k->m) && ((flags)&VMS_FF_NEED))                \
		k->valid = false;
	VMS_ROLLUP_FIELDS(ROLLUP)
#undef ROLLUP
}

static bool threads_from(struct vms_snapshot *s, const json_t *a)
{
	size_t i, n = json_array_size(a);

	if (a && !json_is_array(a))
		return false;
	s->threads = arena_alloc(&s->arena, (n ? n : 1) * sizeof(*s->threads));
	if (!s->threads)
		return false;
	for (i = 0; i < n; i++) {
		const json_t *t = json_array_get(a, i);
		struct vms_thread *x = &s->threads[s->nthreads];
		uint64_t tid;

		if (!json_is_object(t) || !sf_obj_u64(t, "tid", &tid) ||
		    tid > 0x7fffffff || !str_at(s, t, "name", &x->name))
			return false;
		x->tid = (pid_t)tid;
		sf_obj_u64(t, "sp", &x->sp);
		s->nthreads++;
	}
	return true;
}

static int meta_into(struct vms_snapshot *s, const json_t *m, const char *name,
		     struct vms_error *err)
{
	const char *fmt = json_string_value(json_object_get(m, "format"));

	if (!json_is_object(m) || !fmt || strcmp(fmt, "vmscope-snapshot") != 0)
		return vms_error_file(
			err, name,
			"corrupted: its JSON part is not a vmscope "
			"snapshot's (no \"format\": "
			"\"vmscope-snapshot\")");
	if (!process_from(s, json_object_get(m, "process")))
		return vms_error_file(err, name,
				      "corrupted: bad \"process\" in its JSON "
				      "part");
	if (!capture_from(s, json_object_get(m, "capture")))
		return vms_error_file(err, name,
				      "corrupted: bad \"capture\" in its JSON "
				      "part");
	rollup_from(s, json_object_get(m, "rollup"));
	if (!threads_from(s, json_object_get(m, "threads")))
		return vms_error_file(err, name,
				      "corrupted: bad \"threads\" in its JSON "
				      "part");
	return 0;
}

/* ---- the file ---- */

/* meta "smaps_parts" (format 2): the regions of each of the smaps text's
 * two frames. 1 with parts[], 0 when the file has none (one frame), -1
 * with *err. */
static int smaps_parts_from(const json_t *m, const char *name,
			    uint64_t parts[2], struct vms_error *err)
{
	const json_t *a = json_object_get(m, "smaps_parts");

	if (!a)
		return 0;
	if (!json_is_array(a) || json_array_size(a) != 2 ||
	    !sf_get_u64(json_array_get(a, 0), &parts[0]) ||
	    !sf_get_u64(json_array_get(a, 1), &parts[1]) || !parts[0] ||
	    !parts[1])
		return vms_error_file(
			err, name,
			"corrupted: bad \"smaps_parts\" in its JSON "
			"part (two region counts, neither 0)");
	return 1;
}

static int smaps_into(struct vms_snapshot *s, const struct sf_sec *x,
		      uint64_t nregions, const uint64_t *parts,
		      const char *name, bool consume, struct vms_error *err)
{
	struct smaps_parser p;
	struct vms_error perr = { 0 };
	int rc;
	/* Room for the regions the file says it holds, at once; no more
	 * than its text can hold (a record is over 40 bytes). */
	/* (nor more than its compressed bytes can: zstd gives at most some
	 * 43,000 bytes for each, a 128 KiB block for a 3-byte header; the
	 * size a hostile header claims must not size the array) */
	uint64_t can = x->codec == SF_CODEC_ZSTD && x->stored < UINT64_MAX >> 16
			       ? x->stored << 16
			       : x->size;
	uint64_t most = (x->size < can ? x->size : can) / 40;
	uint64_t want, got, seen;

	if (nregions > most)
		nregions = most;
	/* Nor more than its text really holds: past a few thousand regions
	 * the section is decompressed as far as that many need (40 bytes
	 * each: a small part of a real text; padding not counted), nothing
	 * kept (snapfile_zsec.c). */
	want = parts ? parts[0] + parts[1] : nregions;
	if (want > 4096 && (!parts || (parts[0] <= most && parts[1] <= most))) {
		rc = sf_smaps_at_least(x, 0, want * 40, name, &seen, &got, err);
		if (rc < 0)
			return -1;
		if (!rc)
			most = nregions = got / 40;
	}
	if (parts) {
		if (parts[0] > most || parts[1] > most - parts[0])
			return vms_error_file(
				err, name,
				"corrupted: its JSON part says its smaps "
				"text has parts of %llu and %llu regions, "
				"more than it can hold",
				(unsigned long long)parts[0],
				(unsigned long long)parts[1]);
		rc = sf_smaps_parts(s, x, parts, name, consume, &p, err);
	} else {
		if (vms_snapshot_reserve(s, (size_t)nregions) < 0)
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory");
		smaps_parser_init(&p, s);
		rc = sf_smaps_text(&p, x, SF_SEC_SMAPS, name, consume, err);
		smaps_parser_release(&p);
	}
	if (rc < 0)
		return -1;
	if (smaps_finish(&p, &perr) < 0)
		return vms_error_file(
			err, name, "corrupted: its smaps text: %s", perr.msg);
	if (s->nregions == 0)
		return vms_error_file(err, name,
				      "corrupted: its smaps text holds no "
				      "regions");
	if (p.malformed && !s->cap.partial)
		s->cap.partial = arena_printf(
			&s->arena,
			"%zu malformed smaps lines skipped (first: line %zu)",
			p.malformed, p.first_malformed_line);
	return 0;
}

int snapfile_load(const void *buf, size_t len, const char *name, bool consume,
		  const struct vms_kept *const *kept, struct vms_snapshot *s,
		  struct vms_error *err)
{
	const unsigned char *p = buf;
	struct sf_sec sec[K_N];
	struct sf_whole meta = { 0 }, status = { 0 };
	json_t *m = NULL;
	json_error_t jerr;
	uint64_t nregions, parts[2], nvalues;
	int nparts;
	uint32_t version;
	int rc = -1;

	if (len == 0)
		return vms_error_file(err, name,
				      "empty file, not a vmscope snapshot");
	if (!snapfile_recognise(buf, len))
		return vms_error_file(err, name,
				      "not a vmscope snapshot file (it does "
				      "not start with \"vmscope snapshot\")");
	if (len < SF_HEAD_LEN)
		return vms_error_file(
			err, name,
			"cut short after %zu bytes, inside its header", len);
	version = (uint32_t)get_le(p + SNAPFILE_MAGIC_LEN, 4);
	if (version > SNAPFILE_VERSION)
		return vms_error_file(
			err, name,
			"snapshot format version %u; this vmscope (%s) "
			"reads versions up to %d: open it with a later "
			"vmscope",
			version, VMSCOPE_VERSION, SNAPFILE_VERSION);
	if (version == 0)
		return vms_error_file(err, name, "corrupted: format version 0");
	if (find_sections(p, len, name, sec, err) < 0)
		return -1;
	/* The JSON part costs what its regions can need: its size checked
	 * before it is decompressed, its values before jansson builds them
	 * (what this vmscope does not read is not built). */
	if (sf_json_room(&sec[K_SMAPS], sec[K_META].size, 0, name, err) < 0 ||
	    sf_read_whole(&sec[K_META], SF_META_MAX, name, SF_SEC_META, &meta,
			  err) < 0)
		return -1;
	if (sf_json_prepare(meta.buf, &meta.len, name, &nvalues, err) < 0 ||
	    sf_json_room(&sec[K_SMAPS], 0, nvalues, name, err) < 0)
		goto out;
	m = json_loadb(meta.buf, meta.len, 0, &jerr);
	if (!m) {
		vms_error_file(
			err, name,
			"corrupted: its JSON part does not parse (line %d: %s)",
			jerr.line, jerr.text);
		goto out;
	}
	/* Identity first: a message about the smaps text names the
	 * process. */
	if (!sf_obj_u64(m, "regions", &nregions))
		nregions = 0;
	if (meta_into(s, m, name, err) < 0 ||
	    (nparts = smaps_parts_from(m, name, parts, err)) < 0 ||
	    smaps_into(s, &sec[K_SMAPS], nregions, nparts ? parts : NULL, name,
		       consume, err) < 0)
		goto out;
	if (sec[K_STATUS].found) {
		long long pte;

		if (sf_read_whole(&sec[K_STATUS], SF_STATUS_MAX, name,
				  SF_SEC_STATUS, &status, err) < 0)
			goto out;
		pte = procfs_status_value(status.buf, status.len, "VmPTE");
		s->page_table = pte > 0 ? (uint64_t)pte : 0;
	}
	if (sf_source_set(s, m, name, kept, err) < 0 ||
	    (sec[K_TRACE].found &&
	     sf_trace_load(s, &sec[K_TRACE], &sec[K_TRACELIVE], name, err) < 0))
		goto out;
	rc = 0;
out:
	json_decref(m);
	free(meta.buf);
	free(status.buf);
	return rc;
}
