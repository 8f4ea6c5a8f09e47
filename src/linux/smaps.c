#include "linux/smaps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Character classes by table: this loop runs ~25 times per region and a
 * 65,000-region process has 1.6 million lines. */
static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Parses hex at *pp, up to end; returns digits consumed (0: none). Values
 * wider than 64 bits are malformed (16 digits at most). */
static int parse_hex(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int n = 0, d;

	while (p < end && (d = hexval((unsigned char)*p)) >= 0) {
		if (++n > 16)
			return 0;
		v = v << 4 | (uint64_t)d;
		p++;
	}
	*pp = p;
	*out = v;
	return n;
}

static int parse_dec(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int n = 0;

	while (p < end && *p >= '0' && *p <= '9') {
		if (++n > 19)
			return 0;
		v = v * 10 + (uint64_t)(*p - '0');
		p++;
	}
	*pp = p;
	*out = v;
	return n;
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

void smaps_parser_init(struct smaps_parser *p, struct vms_snapshot *s)
{
	memset(p, 0, sizeof(*p));
	p->snap = s;
}

static uint16_t parse_perms(const char *p)
{
	uint16_t v = 0;

	if (p[0] == 'r')
		v |= VMS_PERM_R;
	if (p[1] == 'w')
		v |= VMS_PERM_W;
	if (p[2] == 'x')
		v |= VMS_PERM_X;
	if (p[3] == 's')
		v |= VMS_PERM_SHARED;
	return v;
}

static bool perm_char_ok(char c, char want)
{
	return c == want || c == '-';
}

/* The fields of a header "start-end perms offset maj:min inode   path"
 * up to the path, into r; *rest: where the blanks before the path begin.
 * False when the line is not well formed. */
static bool parse_head(const char *s, const char *end, struct vms_region *r,
		       const char **rest)
{
	uint64_t maj, min;
	const char *q = s;

	if (!parse_hex(&q, end, &r->start) || q >= end || *q++ != '-')
		return false;
	if (!parse_hex(&q, end, &r->end) || q >= end || *q++ != ' ')
		return false;
	if (r->end <= r->start || end - q < 5)
		return false;
	if (!perm_char_ok(q[0], 'r') || !perm_char_ok(q[1], 'w') ||
	    !perm_char_ok(q[2], 'x') || (q[3] != 'p' && q[3] != 's') ||
	    q[4] != ' ')
		return false;
	r->perms = parse_perms(q);
	q += 5;
	if (!parse_hex(&q, end, &r->offset) || q >= end || *q++ != ' ')
		return false;
	if (!parse_hex(&q, end, &maj) || q >= end || *q++ != ':')
		return false;
	if (!parse_hex(&q, end, &min) || q >= end || *q++ != ' ')
		return false;
	if (maj > UINT32_MAX || min > UINT32_MAX)
		return false;
	r->dev_major = (uint32_t)maj;
	r->dev_minor = (uint32_t)min;
	if (!parse_dec(&q, end, &r->inode))
		return false;
	if (q < end && *q != ' ' && *q != '\t')
		return false;
	*rest = q;
	return true;
}

/* The kernel's \012 read back as the newline (smaps.h). */
const char *smaps_intern_path(struct arena *a, const char *q, size_t n)
{
	const char *got;
	char *d, *w;
	size_t i;

	/* memchr first: a backslash is rare, and this is every region's */
	if (!memchr(q, '\\', n) || !memmem(q, n, "\\012", 4))
		return arena_intern(a, q, n);
	if (!(d = malloc(n)))
		return NULL;
	for (i = 0, w = d; i < n; i++) {
		if (q[i] == '\\' && n - i >= 4 &&
		    memcmp(q + i, "\\012", 4) == 0) {
			*w++ = '\n';
			i += 3;
		} else {
			*w++ = q[i];
		}
	}
	got = arena_intern(a, d, (size_t)(w - d));
	free(d);
	return got;
}

/* A header line into a new region. Returns false when the line is not a
 * well-formed header (the caller then skips its key lines). */
static bool parse_header(struct smaps_parser *p, const char *s, const char *end,
			 struct vms_error *err, bool *oom)
{
	struct vms_region *r;
	const char *q;

	if (p->limit && p->snap->nregions >= p->limit) {
		p->over++;
		return false;
	}
	/* Parsed in place (a region is 176 bytes: no copy of it), and taken
	 * back when the line turns out malformed. */
	r = vms_snapshot_add_region(p->snap);
	if (!r)
		goto nomem;
	if (!parse_head(s, end, r, &q))
		goto bad;
	q = skip_blank(q, end);
	if (q < end) {
		static const char del[] = " (deleted)";
		size_t n = (size_t)(end - q);

		r->path = smaps_intern_path(&p->snap->arena, q, n);
		if (!r->path) {
			vms_snapshot_drop_last(p->snap);
			goto nomem;
		}
		if (n >= sizeof(del) - 1 && memcmp(q + n - (sizeof(del) - 1),
						   del, sizeof(del) - 1) == 0)
			r->flags |= VMS_RF_DELETED;
	}
	if (!p->disorder && p->snap->nregions >= 2 && r->start < r[-1].end)
		p->disorder = p->snap->nregions;
	r->vmflags = "";
	/* Counters are incomplete until the record's VmFlags line is seen. */
	r->flags |= VMS_RF_NO_COUNTERS;
	p->cur = p->snap->nregions - 1;
	p->have_cur = true;
	p->at = 0;
	return true;
bad:
	vms_snapshot_drop_last(p->snap);
	return false;
nomem:
	*oom = true;
	vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
		      "out of memory parsing smaps");
	return false;
}

uint32_t smaps_vmflags_mask(const char *s, size_t n)
{
	static const struct {
		char k[2];
		uint32_t bit;
	} tab[] = {
		{ "ac", VMS_VF_AC }, { "nr", VMS_VF_NR }, { "sh", VMS_VF_SH },
		{ "gd", VMS_VF_GD }, { "dc", VMS_VF_DC }, { "wf", VMS_VF_WF },
		{ "lo", VMS_VF_LO }, { "ht", VMS_VF_HT }, { "pf", VMS_VF_PF },
		{ "io", VMS_VF_IO }, { "dd", VMS_VF_DD }, { "ms", VMS_VF_MS },
		{ "mm", VMS_VF_MM }, { "uw", VMS_VF_UW }, { "um", VMS_VF_UM },
		{ "ui", VMS_VF_UI },
	};
	const char *end = s + n;
	uint32_t m = 0;

	while (s < end) {
		const char *w;
		size_t i;

		s = skip_blank(s, end);
		w = s;
		while (s < end && *s != ' ' && *s != '\t')
			s++;
		if (s - w != 2)
			continue;
		for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
			if (w[0] == tab[i].k[0] && w[1] == tab[i].k[1])
				m |= tab[i].bit;
	}
	return m;
}

/* The counter a key names, or NULL for keys a region keeps no figure of
 * (records.h: VMS_COUNTER_FIELDS, and VMS_COUNTER_ADDS, the keys that add
 * into one of them). Only the first record's keys and a key out of their
 * order come here (fast_key_line takes the rest). */
static uint64_t *counter_for(struct vms_counters *c, const char *k, size_t n)
{
	size_t i;

	for (i = 0; i < VMS_NCOUNTERS + VMS_NCOUNTER_ADDS; i++) {
		const struct vms_counter_field *f =
			i < VMS_NCOUNTERS
				? &vms_counter_fields[i]
				: &vms_counter_adds[i - VMS_NCOUNTERS];

		if (n == f->smaps_len && k[0] == f->smaps[0] &&
		    memcmp(k, f->smaps, n) == 0)
			return (uint64_t *)((char *)c + f->off);
	}
	return NULL;
}

/* A key line's value into its counter: added, as a counter may have
 * more than one key (records.h), from the 0 a region starts with. */
static void add_to(void *slot, uint64_t val)
{
	uint64_t have;

	memcpy(&have, slot, sizeof(have));
	/* saturated: a crafted text (a snapshot file's kept smaps) may
	 * repeat a key of any value */
	have = have > UINT64_MAX - val ? UINT64_MAX : have + val;
	memcpy(slot, &have, sizeof(have));
}

/* The first record's keys are learned in order; in the records after it
 * the same keys come in the same order (the kernel prints them so), and
 * fast_key_line takes each as expected. A key out of that order is taken
 * by parse_key_line, which finds its place again. */
static void learn(struct smaps_parser *p, const char *k, size_t n,
		  ptrdiff_t off)
{
	uint8_t j;

	if (p->learned) {
		for (j = p->at; j < p->nkeys; j++)
			if (p->keys[j].len == n &&
			    memcmp(p->keys[j].name, k, n) == 0) {
				p->at = (uint8_t)(j + 1);
				break;
			}
		return;
	}
	if (p->nkeys == SMAPS_KEYS_MAX || n > sizeof(p->keys[0].name))
		return;
	memcpy(p->keys[p->nkeys].name, k, n);
	p->keys[p->nkeys].len = (uint8_t)n;
	p->keys[p->nkeys].off = (int16_t)off;
	p->nkeys++;
}

/* The line at s if it is the key expected next, written as the kernel
 * writes it ("Key:" blanks, digits, then " kB" or nothing, then a
 * newline, all before end): its counter set as parse_key_line would, and
 * the line's end returned. NULL: anything else; parse_line then takes it.
 * It saves finding the line's end first and its key after, for 22 of a
 * record's 24 lines: -l FILE -s of 65,024 regions went from 0.42x to
 * 0.35x the live -s (bench_snap). */
static const char *fast_key_line(struct smaps_parser *p, const char *s,
				 const char *end)
{
	const struct smaps_key *k = &p->keys[p->at];
	const char *q = s + k->len + 1;
	uint64_t val = 0;
	int n = 0;
	uint8_t i;

	if (end - s <= k->len + 1 || s[k->len] != ':')
		return NULL;
	for (i = 0; i < k->len; i++) /* a dozen bytes: no call to memcmp */
		if (s[i] != k->name[i])
			return NULL;
	if (k->off < 0) { /* a key kept no figure of: the line skipped */
		const char *nl = memchr(q, '\n', (size_t)(end - q));

		if (!nl)
			return NULL;
		p->at++;
		p->line++;
		return nl + 1;
	}
	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	for (; q < end && *q >= '0' && *q <= '9'; q++, n++)
		val = val * 10 + (uint64_t)(*q - '0');
	if (n == 0 || n > 19 || q >= end)
		return NULL;
	if (*q == ' ') {
		if (end - q < 4 || q[1] != 'k' || q[2] != 'B' || q[3] != '\n' ||
		    val > UINT64_MAX >> 10)
			return NULL;
		val <<= 10;
		q += 3;
	} else if (*q != '\n') {
		return NULL;
	}
	add_to((char *)&p->snap->regions[p->cur].c + k->off, val);
	p->at++;
	p->line++;
	return q + 1;
}

/* r's VmFlags line v[0, n): interned and its bits, from the lines met
 * last when it is one of them. -1: out of memory. */
static int vmflags_known(struct smaps_parser *p, struct vms_region *r,
			 const char *v, size_t n)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		if (p->vf[i].s && p->vf[i].len == n &&
		    memcmp(p->vf[i].s, v, n) == 0) {
			r->vmflags = p->vf[i].s;
			r->vmflags_mask = p->vf[i].mask;
			return 0;
		}
	r->vmflags = arena_intern(&p->snap->arena, v, n);
	if (!r->vmflags)
		return -1;
	r->vmflags_mask = smaps_vmflags_mask(v, n);
	if (n <= UINT32_MAX) {
		i = p->vf_next++ % 4;
		p->vf[i].s = r->vmflags;
		p->vf[i].len = (uint32_t)n;
		p->vf[i].mask = r->vmflags_mask;
	}
	return 0;
}

static int parse_key_line(struct smaps_parser *p, const char *s,
			  const char *colon, const char *end,
			  struct vms_error *err)
{
	struct vms_region *r;
	size_t klen = (size_t)(colon - s);
	const char *v = colon + 1;
	uint64_t *slot, val;

	if (!p->have_cur)
		return 0;
	r = &p->snap->regions[p->cur];
	if (klen == 7 && memcmp(s, "VmFlags", 7) == 0) {
		size_t n;

		v = skip_blank(v, end);
		n = (size_t)(end - v);
		while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
			n--;
		if (vmflags_known(p, r, v, n) < 0)
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory parsing smaps");
		r->flags &= (uint16_t)~VMS_RF_NO_COUNTERS;
		p->learned = p->nkeys > 0;
		return 0;
	}
	slot = counter_for(&r->c, s, klen);
	learn(p, s, klen, slot ? (char *)slot - (char *)&r->c : -1);
	if (!slot)
		return 0; /* a key this kernel has and we do not use */
	v = skip_blank(v, end);
	if (!parse_dec(&v, end, &val))
		return 0; /* malformed value: leave the counter at 0 */
	v = skip_blank(v, end);
	if (end - v >= 2 && v[0] == 'k' && v[1] == 'B') {
		if (val > UINT64_MAX >> 10)
			return 0; /* no region is that large: malformed */
		val <<= 10;
	}
	add_to(slot, val);
	return 0;
}

bool smaps_same_layout(const struct vms_region *r, size_t n, const char *maps,
		       size_t len)
{
	const char *s = maps, *end = maps + len;
	size_t i = 0;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end, *rest;
		struct vms_region m;

		if (e > s && e[-1] == '\r')
			e--;
		if (e > s) {
			if (i == n || !parse_head(s, e, &m, &rest))
				return false;
			if (m.start != r[i].start || m.end != r[i].end ||
			    m.perms != r[i].perms || m.offset != r[i].offset ||
			    m.inode != r[i].inode ||
			    m.dev_major != r[i].dev_major ||
			    m.dev_minor != r[i].dev_minor)
				return false;
			i++;
		}
		s = nl ? nl + 1 : end;
	}
	return i == n;
}

bool smaps_header_like(const char *s, const char *end)
{
	const char *q;

	for (q = s; q < end && hexval((unsigned char)*q) >= 0; q++)
		;
	return q > s && q < end && *q == '-';
}

static int parse_line(struct smaps_parser *p, const char *s, const char *end,
		      struct vms_error *err)
{
	const char *q;
	bool oom = false;

	p->line++;
	/* A CRLF file (a fixture saved on Windows, a copy through a tool)
	 * parses like the kernel's LF one. */
	if (end > s && end[-1] == '\r')
		end--;
	if (s == end)
		return 0;
	/* A header starts with a hex run and a '-'; keys such as "AnonHuge..."
	 * start with a hex letter too, so look for the '-'. */
	if (smaps_header_like(s, end)) {
		if (!parse_header(p, s, end, err, &oom)) {
			if (oom)
				return -1;
			p->have_cur = false;
			if (!p->malformed++)
				p->first_malformed_line = p->line;
		}
		return 0;
	}
	for (q = s; q < end && *q != ':' && *q != ' '; q++)
		;
	if (q < end && *q == ':' && q > s)
		return parse_key_line(p, s, q, end, err);
	return 0; /* neither: ignore */
}

ssize_t smaps_parse(struct smaps_parser *p, const char *buf, size_t len,
		    bool eof, struct vms_error *err)
{
	const char *s = buf, *end = buf + len;

	while (s < end) {
		const char *nl;

		if (p->learned && !p->slow && p->have_cur && p->at < p->nkeys &&
		    (nl = fast_key_line(p, s, end))) {
			s = nl;
			continue;
		}
		nl = memchr(s, '\n', (size_t)(end - s));

		if (!nl) {
			if (!eof)
				break;
			nl = end;
		}
		if (parse_line(p, s, nl, err) < 0)
			return -1;
		s = nl < end ? nl + 1 : end;
	}
	return s - buf;
}

static int carry_append(struct smaps_parser *p, const char *d, size_t n)
{
	if (p->carry_len + n > SMAPS_LINE_MAX) {
		errno = E2BIG;
		return -1;
	}
	if (p->carry_len + n > p->carry_cap) {
		size_t ncap = (p->carry_len + n) * 2;
		char *nb = realloc(p->carry, ncap);

		if (!nb)
			return -1;
		p->carry = nb;
		p->carry_cap = ncap;
	}
	memcpy(p->carry + p->carry_len, d, n);
	p->carry_len += n;
	return 0;
}

static int carry_error(struct vms_error *err)
{
	if (errno == E2BIG)
		return vms_error_set(err, VMS_ERR_CAPTURE, E2BIG,
				     "malformed smaps: a line longer than "
				     "%u bytes",
				     SMAPS_LINE_MAX);
	return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
}

int smaps_feed(struct smaps_parser *p, const char *data, size_t len, bool eof,
	       struct vms_error *err)
{
	ssize_t used;

	if (p->carry_len) {
		const char *nl = memchr(data, '\n', len);
		size_t take = nl ? (size_t)(nl - data) + 1 : len;

		if (carry_append(p, data, take) < 0)
			return carry_error(err);
		if (!nl && !eof)
			return 0; /* a line longer than a piece */
		if (smaps_parse(p, p->carry, p->carry_len, eof, err) < 0)
			return -1;
		p->carry_len = 0;
		data += take;
		len -= take;
	}
	used = smaps_parse(p, data, len, eof, err);
	if (used < 0)
		return -1;
	if ((size_t)used < len &&
	    carry_append(p, data + used, len - (size_t)used) < 0)
		return carry_error(err);
	return 0;
}

void smaps_parser_release(struct smaps_parser *p)
{
	free(p->carry);
	p->carry = NULL;
	p->carry_len = p->carry_cap = 0;
}

int smaps_finish(struct smaps_parser *p, struct vms_error *err)
{
	size_t i = p->disorder - 1;

	/* EAGAIN: the text of a running process that mapped between two
	 * reads shows so; read again */
	if (p->disorder)
		return vms_error_set(
			err, VMS_ERR_CAPTURE, EAGAIN,
			"malformed smaps: region %zu (%llx) overlaps or "
			"precedes the one before it",
			i, (unsigned long long)p->snap->regions[i].start);
	return 0;
}

int smaps_parse_buffer(struct vms_snapshot *s, const char *buf, size_t len,
		       struct vms_error *err)
{
	struct smaps_parser p;

	smaps_parser_init(&p, s);
	if (smaps_parse(&p, buf, len, true, err) < 0)
		return -1;
	return smaps_finish(&p, err);
}
