/* hsperf.c — the hsperfdata parser. See hsperf.h. */
#include "analyze/runtimes/hsperf.h"

#include <errno.h>
#include <string.h>

#define PROLOGUE 32
#define ENTRY_HEADER 20
#define MAGIC 0xcafec0c0u

struct reader {
	const unsigned char *p;
	size_t len; /* bytes the entries may use */
	bool le;
};

static uint32_t rd32(const struct reader *r, size_t off)
{
	const unsigned char *b = r->p + off;

	if (r->le)
		return (uint32_t)b[0] | (uint32_t)b[1] << 8 |
		       (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return (uint32_t)b[3] | (uint32_t)b[2] << 8 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[0] << 24;
}

static uint64_t rd64(const struct reader *r, size_t off)
{
	uint64_t lo = rd32(r, off), hi = rd32(r, off + 4);

	return r->le ? hi << 32 | lo : lo << 32 | hi;
}

static void blank_space(struct hsperf_space *s)
{
	s->name[0] = '\0';
	s->capacity = s->used = s->max = -1;
}

static void blank(struct hsperf *h)
{
	uint32_t g, k;

	memset(h, 0, sizeof(*h));
	for (g = 0; g < HSPERF_GENS; g++) {
		h->gen[g].capacity = h->gen[g].max = -1;
		for (k = 0; k < HSPERF_SPACES; k++)
			blank_space(&h->gen[g].space[k]);
	}
	blank_space(&h->metaspace);
	blank_space(&h->class_space);
	strcpy(h->metaspace.name, "metaspace");
	strcpy(h->class_space.name, "class space");
}

/* "N." at *p, N below lim: the index, *p moved past the dot; -1 if not. */
static int index_at(const char **p, int lim)
{
	int n;

	if (**p < '0' || **p > '9' || (*p)[1] != '.')
		return -1;
	n = **p - '0';
	*p += 2;
	return n < lim ? n : -1;
}

/* One value: either a long (v) or a string (str, n bytes, may lack NUL). */
struct value {
	bool is_long;
	int64_t v;
	const char *str;
	size_t n;
};

static void put_name(char *dst, const struct value *val)
{
	size_t n = 0;

	if (val->is_long)
		return;
	while (n < val->n && n + 1 < HSPERF_NAME && val->str[n])
		n++;
	memcpy(dst, val->str, n);
	dst[n] = '\0';
}

/* A figure of a space or group: "capacity", "used", "maxCapacity". */
static void put_figure(struct hsperf_space *s, const char *field,
		       const struct value *val)
{
	if (strcmp(field, "name") == 0) {
		put_name(s->name, val);
		return;
	}
	if (!val->is_long || val->v < 0)
		return;
	if (strcmp(field, "capacity") == 0)
		s->capacity = val->v;
	else if (strcmp(field, "used") == 0)
		s->used = val->v;
	else if (strcmp(field, "maxCapacity") == 0)
		s->max = val->v;
}

static void put_generation(struct hsperf *h, const char *p,
			   const struct value *val)
{
	int g = index_at(&p, HSPERF_GENS), k;
	struct hsperf_gen *gen;

	if (g < 0)
		return;
	gen = &h->gen[g];
	if (strncmp(p, "space.", 6) == 0) {
		p += 6;
		if ((k = index_at(&p, HSPERF_SPACES)) < 0)
			return;
		put_figure(&gen->space[k], p, val);
		if ((uint32_t)k + 1 > gen->nspaces)
			gen->nspaces = (uint32_t)k + 1;
	} else if (strcmp(p, "name") == 0) {
		put_name(gen->name, val);
	} else if (val->is_long && val->v >= 0 && strcmp(p, "capacity") == 0) {
		gen->capacity = val->v;
	} else if (val->is_long && val->v >= 0 &&
		   strcmp(p, "maxCapacity") == 0) {
		gen->max = val->v;
	} else {
		return;
	}
	if ((uint32_t)g + 1 > h->ngens)
		h->ngens = (uint32_t)g + 1;
}

static void put(struct hsperf *h, const char *name, const struct value *val)
{
	if (strncmp(name, "sun.gc.generation.", 18) == 0)
		put_generation(h, name + 18, val);
	else if (strncmp(name, "sun.gc.metaspace.", 17) == 0)
		put_figure(&h->metaspace, name + 17, val);
	else if (strncmp(name, "sun.gc.compressedclassspace.", 28) == 0)
		put_figure(&h->class_space, name + 28, val);
	else if (strcmp(name, "sun.gc.policy.name") == 0)
		put_name(h->policy, val);
	/* The figure groups keep their own names, not the JVM's "name". */
	strcpy(h->metaspace.name, "metaspace");
	strcpy(h->class_space.name, "class space");
}

/* Entry at off (its header checked against r->len): 0 and *next, or -1
 * with why. */
static int entry(struct hsperf *h, const struct reader *r, size_t off,
		 size_t *next, const char **why)
{
	uint32_t elen = rd32(r, off), noff = rd32(r, off + 4),
		 vlen = rd32(r, off + 8), doff = rd32(r, off + 16);
	char type = (char)r->p[off + 12];
	struct value val = { 0 };
	const char *name, *nul;

	if (elen < ENTRY_HEADER) {
		*why = "an entry is shorter than its own header";
		return -1;
	}
	if (elen > r->len - off) {
		*why = "an entry's length runs past the data";
		return -1;
	}
	*next = off + elen;
	if (noff < ENTRY_HEADER || noff >= elen || doff < ENTRY_HEADER ||
	    doff > elen) {
		*why = "an entry's name or data lies outside it";
		return -1;
	}
	name = (const char *)r->p + off + noff;
	nul = memchr(name, '\0', elen - noff);
	if (!nul) {
		*why = "an entry's name is not terminated";
		return -1;
	}
	if (vlen == 0 && type == 'J') {
		if (elen - doff < 8) {
			*why = "an entry's value runs past it";
			return -1;
		}
		val.is_long = true;
		val.v = (int64_t)rd64(r, off + doff);
	} else if (type == 'B') {
		if (vlen > elen - doff) {
			*why = "an entry's value runs past it";
			return -1;
		}
		val.str = (const char *)r->p + off + doff;
		val.n = vlen;
	} else {
		return 0; /* other types: skipped */
	}
	put(h, name, &val);
	return 0;
}

int hsperf_parse(const void *buf, size_t len, struct hsperf *out,
		 struct vms_error *err)
{
	const unsigned char *b = buf;
	struct reader r = { b, len, false };
	uint32_t used, eoff, n, i;
	const char *why = NULL;
	size_t off, next;

	blank(out);
	if (len < PROLOGUE)
		return vms_error_set(err, VMS_ERR_FILE, EINVAL,
				     "hsperfdata: %zu bytes, shorter than its "
				     "32-byte header",
				     len);
	if (b[0] != 0xca || b[1] != 0xfe || b[2] != 0xc0 || b[3] != 0xc0)
		return vms_error_set(err, VMS_ERR_FILE, EINVAL,
				     "hsperfdata: no CAFEC0C0 magic: not a "
				     "HotSpot performance data file");
	if (b[4] > 1)
		return vms_error_set(err, VMS_ERR_FILE, EINVAL,
				     "hsperfdata: byte order %u is neither "
				     "0 (big) nor 1 (little endian)",
				     b[4]);
	r.le = b[4] == 1;
	out->major = b[5];
	out->minor = b[6];
	out->accessible = b[7] != 0;
	if (out->major != 2)
		return vms_error_set(err, VMS_ERR_FILE, EINVAL,
				     "hsperfdata: version %u.%u, only 2.x is "
				     "known (JDK 1.5 and later)",
				     out->major, out->minor);
	if (!out->accessible)
		return vms_error_set(err, VMS_ERR_FILE, EAGAIN,
				     "hsperfdata: not yet accessible (the "
				     "JVM is still starting): try again");
	used = rd32(&r, 8);
	eoff = rd32(&r, 24);
	n = rd32(&r, 28);
	/* The entries end where the JVM says it has used the file. */
	if (used >= PROLOGUE && used < r.len)
		r.len = used;
	if (eoff < PROLOGUE || eoff > r.len)
		return vms_error_set(err, VMS_ERR_FILE, EINVAL,
				     "hsperfdata: entries start at %u, "
				     "outside the %zu bytes used",
				     eoff, r.len);
	for (off = eoff, i = 0; i < n; i++) {
		if (r.len - off < ENTRY_HEADER) {
			why = "fewer entries than the header says";
			break;
		}
		if (entry(out, &r, off, &next, &why) < 0)
			break;
		off = next;
		out->nentries++;
	}
	if (why)
		return vms_error_set(err, VMS_ERR_FILE, EINVAL,
				     "hsperfdata: entry %u of %u at byte %zu: "
				     "%s",
				     i, n, off, why);
	return 0;
}

void hsperf_heap_max(const struct hsperf *h, uint64_t page, uint64_t *sum,
		     uint64_t *largest)
{
	uint32_t g;

	*sum = *largest = 0;
	for (g = 0; g < h->ngens; g++) {
		uint64_t m = h->gen[g].max > 0 ? (uint64_t)h->gen[g].max : 0;

		*sum += m;
		if (m > *largest)
			*largest = m;
	}
	if (page) {
		*sum -= *sum % page;
		*largest -= *largest % page;
	}
}
