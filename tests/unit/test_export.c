/* test_export.c — JSON and CSV string quoting (checked by decoding what was
 * written), every fixture exported as JSON (checked by a strict JSON
 * reader) and CSV (every record as many fields as the header), and the
 * atomic output file of outbuf. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../fixtures/fixture.h"
#include "pipeline.h"
#include "export/export.h"
#include "base/escape.h"
#include "base/outbuf.h"
#include "export/export_trace.h"
#include "model/trace.h"
#include "tap.h"

/* ---- capturing what an outbuf writes ---- */

struct cap {
	struct outbuf o;
	int fd;
};

static bool cap_open(struct cap *c)
{
	struct vms_error err;

	c->fd = memfd_create("vms-test", 0);
	return c->fd >= 0 && outbuf_open_fd(&c->o, c->fd, &err) == 0;
}

/* Closes the outbuf; returns what was written (malloc'd, NUL-ended). */
static char *cap_close(struct cap *c, size_t *len)
{
	struct vms_error err;
	off_t n;
	char *s;

	if (outbuf_close(&c->o, &err) < 0)
		return NULL;
	n = lseek(c->fd, 0, SEEK_END);
	s = malloc((size_t)n + 1);
	if (s && pread(c->fd, s, (size_t)n, 0) != n) {
		free(s);
		s = NULL;
	}
	if (s)
		s[n] = '\0';
	*len = (size_t)n;
	close(c->fd);
	return s;
}

/* ---- a strict JSON reader (RFC 8259), enough to validate ---- */

struct jr {
	const char *p, *end;
	int depth;
};

static bool j_value(struct jr *j);

static void j_ws(struct jr *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int hexd(char c)
{
	return c >= '0' && c <= '9'	  ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* Length of the valid UTF-8 sequence at p, or 0. */
static size_t utf8_ok(const unsigned char *p, const unsigned char *end)
{
	size_t n, i;
	unsigned cp;

	if (*p < 0x80)
		return 1;
	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2, cp = *p & 0x1f;
	else if (*p >= 0xe0 && *p <= 0xef)
		n = 3, cp = *p & 0x0f;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4, cp = *p & 0x07;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* Reads a string; with out, decodes it (\u00XX as one byte XX: enough for
 * what ob_json_str writes). */
static bool j_string(struct jr *j, char *out, size_t cap)
{
	size_t n = 0;

	if (j->p >= j->end || *j->p != '"')
		return false;
	for (j->p++; j->p < j->end && *j->p != '"';) {
		unsigned char c = (unsigned char)*j->p;
		size_t k;

		if (c < 0x20)
			return false;
		if (c == '\\') {
			int v = 0, i;

			if (j->end - j->p < 2)
				return false;
			switch (j->p[1]) {
			case '"': case '\\': case '/':
				c = (unsigned char)j->p[1];
				break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				if (j->end - j->p < 6)
					return false;
				for (i = 2; i < 6; i++) {
					if (hexd(j->p[i]) < 0)
						return false;
					v = v * 16 + hexd(j->p[i]);
				}
				c = (unsigned char)v;
				j->p += 4;
				break;
			default:
				return false;
			}
			j->p += 2;
			if (out && n + 1 < cap)
				out[n++] = (char)c;
			continue;
		}
		k = utf8_ok((const unsigned char *)j->p,
			    (const unsigned char *)j->end);
		if (!k)
			return false;
		if (out && n + k < cap)
			memcpy(out + n, j->p, k), n += k;
		j->p += k;
	}
	if (j->p >= j->end)
		return false;
	j->p++;
	if (out)
		out[n] = '\0';
	return true;
}

static bool j_number(struct jr *j)
{
	const char *s = j->p;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return false;
	if (*j->p == '0' && j->p + 1 < j->end && j->p[1] >= '0' &&
	    j->p[1] <= '9')
		return false; /* leading zero */
	while (j->p < j->end && ((*j->p >= '0' && *j->p <= '9') ||
				 *j->p == '.' || *j->p == 'e' || *j->p == 'E' ||
				 *j->p == '+' || *j->p == '-'))
		j->p++;
	return j->p > s;
}

static bool j_container(struct jr *j, char close, bool object)
{
	bool first = true;

	if (++j->depth > 64)
		return false;
	j->p++;
	for (;;) {
		j_ws(j);
		if (j->p < j->end && *j->p == close && first) {
			j->p++;
			break;
		}
		if (object) {
			if (!j_string(j, NULL, 0))
				return false;
			j_ws(j);
			if (j->p >= j->end || *j->p++ != ':')
				return false;
		}
		if (!j_value(j))
			return false;
		j_ws(j);
		first = false;
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			j_ws(j);
			if (j->p < j->end && *j->p == close)
				return false; /* trailing comma */
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			break;
		}
		return false;
	}
	j->depth--;
	return true;
}

static bool j_lit(struct jr *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
		return false;
	j->p += n;
	return true;
}

static bool j_value(struct jr *j)
{
	j_ws(j);
	if (j->p >= j->end)
		return false;
	switch (*j->p) {
	case '{':
		return j_container(j, '}', true);
	case '[':
		return j_container(j, ']', false);
	case '"':
		return j_string(j, NULL, 0);
	case 't':
		return j_lit(j, "true");
	case 'f':
		return j_lit(j, "false");
	case 'n':
		return j_lit(j, "null");
	default:
		return j_number(j);
	}
}

static bool json_valid(const char *s, size_t n)
{
	struct jr j = { s, s + n, 0 };

	if (!j_value(&j))
		return false;
	j_ws(&j);
	return j.p == j.end;
}

/* ---- CSV: fields of each record, quotes and newlines inside quotes ---- */

/* Splits into records; returns false if any record's field count differs
 * from the first's. *records gets the count; with field_out, the first
 * field of the first record is decoded there. */
static bool csv_uniform(const char *s, size_t n, size_t *records,
			size_t *fields, char *field_out, size_t cap)
{
	size_t i = 0, f = 1, want = 0, k = 0;
	bool quoted = false, uniform = true;

	*records = 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (quoted) {
			if (c == '"' && i + 1 < n && s[i + 1] == '"') {
				i++;
			} else if (c == '"') {
				quoted = false;
				continue;
			}
			if (field_out && !*records && f == 1 && k + 1 < cap)
				field_out[k++] = s[i];
			continue;
		}
		if (c == '"') {
			quoted = true;
		} else if (c == ',') {
			f++;
		} else if (c == '\n') {
			if (!*records)
				want = f;
			else if (f != want)
				uniform = false;
			(*records)++;
			f = 1;
		} else if (field_out && !*records && f == 1 && k + 1 < cap) {
			field_out[k++] = c;
		}
	}
	if (field_out)
		field_out[k] = '\0';
	*fields = want;
	return uniform && !quoted && (n == 0 || s[n - 1] == '\n');
}

/* ---- string quoting ---- */

static void test_json_str(void)
{
	char in[160], dec[400];
	size_t i, n = 0, len;
	struct cap c;
	char *out;
	struct jr j;

	for (i = 1; i < 0x80; i++)
		in[n++] = (char)i;
	strcpy(in + n, "\"\\\" \xc3\xa9 end");
	if (!cap_open(&c))
		return;
	ob_json_str(&c.o, in);
	out = cap_close(&c, &len);
	j = (struct jr){ out, out + len, 0 };
	ok(out && j_string(&j, dec, sizeof(dec)) && j.p == j.end &&
		   strcmp(dec, in) == 0,
	   "json: control chars, quotes, backslashes, DEL and UTF-8 "
	   "round-trip through a strict reader");
	free(out);

	if (!cap_open(&c))
		return;
	ob_json_str(&c.o, "/tmp/\xff\xfe bad \xc3 utf8 \xed\xa0\x80");
	ob_putc(&c.o, ' ');
	ob_json_str(&c.o, NULL);
	out = cap_close(&c, &len);
	j = (struct jr){ out, out + len, 0 };
	ok(out && j_string(&j, NULL, 0) && strcmp(j.p, " null") == 0,
	   "json: invalid UTF-8 still gives a valid JSON string; NULL is "
	   "null (%s)",
	   out ? out : "");
	free(out);
}

static void test_csv_str(void)
{
	static const char *const cases[] = {
		"plain", "a,b", "say \"hi\"", "two\nlines", "cr\rhere",
		"\"", ",", "", "/opt/my app/lib.so (deleted)",
	};
	size_t i, bad = 0, len, recs = 0, fields = 0;
	char dec[200], esc[200];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cap c;
		char *out;

		if (!cap_open(&c))
			return;
		/* control characters are escaped (escape.h), then quoted */
		vms_escape_str(esc, sizeof(esc), cases[i]);
		ob_csv_str(&c.o, cases[i]);
		ob_puts(&c.o, ",x\n");
		out = cap_close(&c, &len);
		if (!out || !csv_uniform(out, len, &recs, &fields, dec,
					 sizeof(dec)) ||
		    recs != 1 || fields != 2 || strcmp(dec, esc) != 0) {
			printf("# csv case %zu: %s\n", i, out ? out : "");
			bad++;
		}
		if (i == 0 && out && strcmp(out, "plain,x\n") != 0)
			bad++; /* plain fields are not quoted */
		free(out);
	}
	ok(!bad, "csv: commas and quotes round-trip as one field, newlines "
		 "and CR escaped; plain fields unquoted");
	{
		struct cap c;
		char *out;

		if (!cap_open(&c))
			return;
		ob_csv_str(&c.o, NULL);
		out = cap_close(&c, &len);
		ok(out && len == 0, "csv: NULL is an empty field");
		free(out);
	}
}

/* ---- whole exports of every fixture ---- */

static void export_fixture(const char *name)
{
	struct vms_snapshot *s = fixture_snapshot(name);
	struct vms_error err;
	struct cap c;
	char *out, first[32];
	size_t len, recs = 0, fields = 0, i, children = 0;

	if (!s) {
		ok(0, "%s: parses", name);
		return;
	}
	/* A thread in the first writable anonymous region, so that region
	 * gets stack children and the exports a thread row. (Before
	 * classifying: classify runs once per snapshot.) */
	for (i = 0; i < s->nregions; i++)
		if (!s->regions[i].path && (s->regions[i].perms & VMS_PERM_W))
			break;
	if (i < s->nregions) {
		s->threads = arena_alloc(&s->arena, sizeof(*s->threads));
		s->threads[0] = (struct vms_thread){
			7, "t,\"x\"", s->regions[i].end - 100, 0, 0
		};
		s->nthreads = 1;
		s->proc.pid = 7;
	}
	if (vms_snapshot_finish(s, NULL, &err) < 0) {
		ok(0, "%s: finish", name);
		vms_snapshot_free(s);
		return;
	}
	s->proc.name = "name \"with\" quotes\n";
	for (i = 0; i < s->nregions; i++)
		children += s->regions[i].nchildren;

	if (cap_open(&c)) {
		export_json(s, &c.o);
		out = cap_close(&c, &len);
		ok(out && json_valid(out, len), "%s: JSON export is valid JSON",
		   name);
		free(out);
	}
	if (cap_open(&c)) {
		export_csv(s, &c.o);
		out = cap_close(&c, &len);
		ok(out &&
			   csv_uniform(out, len, &recs, &fields, first,
				       sizeof(first)) &&
			   strcmp(first, "record") == 0 &&
			   recs == 1 + VMS_NTYPES + 1 + s->nregions +
					   children + s->nthreads,
		   "%s: CSV has %zu records of %zu fields each (%zu regions, "
		   "%zu children, %zu threads)",
		   name, out ? recs : 0, fields, s->nregions, children,
		   s->nthreads);
		free(out);
	}
	if (cap_open(&c)) {
		export_summary(s, &c.o);
		export_text(s, &c.o);
		out = cap_close(&c, &len);
		ok(out && len > 0 && out[len - 1] == '\n' &&
			   strlen(out) == len,
		   "%s: text summary and full text written", name);
		free(out);
	}
	vms_snapshot_free(s);
}

static void test_fixture_exports(void)
{
	DIR *d = opendir(fixture_dir());
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l < 7 || strcmp(de->d_name + l - 6, ".smaps") != 0 ||
		    strncmp(de->d_name, "bad_", 4) == 0)
			continue;
		export_fixture(de->d_name);
		n++;
	}
	if (d)
		closedir(d);
	ok(n >= 15, "%zu fixtures exported", n);
}

/* ---- atomic output files ---- */

static size_t dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	if (d)
		closedir(d);
	return n;
}

static void test_atomic(void)
{
	char dir[] = "/tmp/vms-test-XXXXXX", path[64], *got;
	struct outbuf o;
	struct vms_error err;
	struct stat st;
	size_t len;

	if (!mkdtemp(dir)) {
		ok(0, "atomic: temporary directory");
		return;
	}
	snprintf(path, sizeof(path), "%s/out.json", dir);
	ok(outbuf_open_file(&o, path, &err) == 0, "atomic: open");
	ob_puts(&o, "hello\n");
	ok(stat(path, &st) < 0 && dir_entries(dir) == 0,
	   "atomic: before close nothing is in the directory (O_TMPFILE)");
	ok(outbuf_close(&o, &err) == 0, "atomic: close");
	got = NULL;
	ok(procfs_read_file(path, &got, &len) == 0 &&
		   strcmp(got, "hello\n") == 0 && dir_entries(dir) == 1,
	   "atomic: after close the file has it all, no temporary left");
	free(got);

	ok(outbuf_open_file(&o, path, &err) == 0, "atomic: open again");
	ob_puts(&o, "half");
	outbuf_abort(&o);
	got = NULL;
	ok(procfs_read_file(path, &got, &len) == 0 &&
		   strcmp(got, "hello\n") == 0 && dir_entries(dir) == 1,
	   "atomic: abort leaves the old file and removes the temporary");
	free(got);
	unlink(path);
	rmdir(dir);

	snprintf(path, sizeof(path), "%s/no/such/dir/x", dir);
	ok(outbuf_open_file(&o, path, &err) < 0 && err.kind == VMS_ERR_FILE,
	   "atomic: a directory that does not exist is a file error");
}

/* The readers above must be able to say no, or the tests prove nothing. */
static void test_readers(void)
{
	static const char *const bad_json[] = {
		"{\"a\":1,}", "[1 2]", "{\"a\":\"\x01\"}", "{\"a\" 1}",
		"[\"\xff\"]", "{\"a\":01}", "[1]]", "{", "\"\\x\"",
	};
	static const char good[] = "{\"a\":[1,-2.5e3,true,null,\"\\u0041\"]}";
	static const char ragged[] = "a,b\nc\n", open_quote[] = "a,\"b\n",
			  quoted[] = "a,\"b,\nc\"\nd,e\n";
	size_t i, accepted = 0, r = 0, f = 0;

	for (i = 0; i < sizeof(bad_json) / sizeof(bad_json[0]); i++)
		if (json_valid(bad_json[i], strlen(bad_json[i])))
			accepted++;
	ok(!accepted && json_valid(good, strlen(good)),
	   "json reader: rejects 9 broken texts, accepts a good one");
	ok(!csv_uniform(ragged, strlen(ragged), &r, &f, NULL, 0) &&
		   !csv_uniform(open_quote, strlen(open_quote), &r, &f, NULL,
				0) &&
		   csv_uniform(quoted, strlen(quoted), &r, &f, NULL, 0) &&
		   r == 2 && f == 2,
	   "csv reader: counts fields with quotes, rejects ragged rows");
}

/* The trace report's first line: one call, one free of what no record
 * allocated, in the singular; two of each, in the plural. */
static void test_trace_counts(void)
{
	static const struct {
		uint64_t n;
		const char *calls, *frees;
	} t[] = {
		{ 1, " 1 call recorded", ", 1 free of memory allocated before" },
		{ 2, " 2 calls recorded",
		  ", 2 frees of memory allocated before" },
	};
	size_t i, len;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct vms_trace_report r;
		struct cap c;
		char *s;

		memset(&r, 0, sizeof(r));
		r.events = r.unknown_frees = t[i].n;
		if (!cap_open(&c)) {
			ok(0, "trace text: an outbuf");
			return;
		}
		export_trace_text(&c.o, &r, 8);
		s = cap_close(&c, &len);
		ok(s && strstr(s, t[i].calls) && strstr(s, t[i].frees),
		   "trace text: %" PRIu64 " call%s and free%s, in words that "
		   "agree",
		   t[i].n, t[i].n == 1 ? "" : "s", t[i].n == 1 ? "" : "s");
		if (s && !(strstr(s, t[i].calls) && strstr(s, t[i].frees)))
			printf("#   %.300s\n", s);
		free(s);
	}
}

int main(void)
{
	test_trace_counts();
	test_readers();
	test_json_str();
	test_csv_str();
	test_fixture_exports();
	test_atomic();
	return tap_done();
}
