/* goheap.c — a Go program's heap as its runtime keeps it. See goheap.h.
 *
 * libdw reads the DWARF (well kept, and it decompresses the SHF_COMPRESSED
 * sections Go writes); what it is asked for is a handful of names, so the
 * layout of any Go version that kept them is read, not tabled per version:
 * mspan's startAddr, npages, allocCount, state and elemsize have had those
 * names since Go 1.14 (state became an mSpanStateBox, one byte either way),
 * mheap's allspans since Go 1.5.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "analyze/runtimes/goheap.h"

/* ---- the layout, from DWARF ---- */

static int say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* The byte size of the type of die (a member, a variable); 0 unknown. */
static uint64_t type_size(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	Dwarf_Word sz;

	if (!dwarf_attr(die, DW_AT_type, &a) || !dwarf_formref_die(&a, &t) ||
	    dwarf_aggregate_size(&t, &sz) != 0)
		return 0;
	return sz;
}

/* Member name of struct st: its offset, and its size when size is not
 * NULL. False when st has no such member, or it is not where the struct
 * holds it whole. */
static bool member(Dwarf_Die *st, uint64_t st_size, const char *name,
		   uint32_t *off, uint64_t *size, Dwarf_Die *out)
{
	Dwarf_Die m;

	if (dwarf_child(st, &m) != 0)
		return false;
	do {
		Dwarf_Attribute a;
		Dwarf_Word w;
		const char *n;
		uint64_t sz;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		n = dwarf_diename(&m);
		if (!n || strcmp(n, name) != 0)
			continue;
		if (!dwarf_attr(&m, DW_AT_data_member_location, &a) ||
		    dwarf_formudata(&a, &w) != 0)
			return false;
		sz = type_size(&m);
		if (!sz || w > st_size || sz > st_size - w)
			return false;
		*off = (uint32_t)w;
		if (size)
			*size = sz;
		if (out)
			*out = m;
		return true;
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

/* What the runtime compile units hold that the layout needs. */
struct found {
	Dwarf_Die mspan, mheap, mheap_var;
	bool have_mspan, have_mheap, have_var;
	int64_t in_use, manual, page_size;
	uint8_t addr_size;
};

static void constant(Dwarf_Die *d, int64_t *v)
{
	Dwarf_Attribute a;
	Dwarf_Sword x;

	if (dwarf_attr(d, DW_AT_const_value, &a) &&
	    dwarf_formsdata(&a, &x) == 0)
		*v = x;
}

static void look_in(Dwarf_Die *cu, struct found *f)
{
	Dwarf_Die d;

	if (dwarf_child(cu, &d) != 0)
		return;
	do {
		const char *n = dwarf_diename(&d);
		int tag = dwarf_tag(&d);

		if (!n || strncmp(n, "runtime.", 8) != 0)
			continue;
		n += 8;
		if (tag == DW_TAG_structure_type && strcmp(n, "mspan") == 0) {
			f->mspan = d;
			f->have_mspan = true;
		} else if (tag == DW_TAG_structure_type &&
			   strcmp(n, "mheap") == 0) {
			f->mheap = d;
			f->have_mheap = true;
		} else if (tag == DW_TAG_variable && strcmp(n, "mheap_") == 0) {
			f->mheap_var = d;
			f->have_var = true;
		} else if (tag == DW_TAG_constant) {
			if (strcmp(n, "mSpanInUse") == 0)
				constant(&d, &f->in_use);
			else if (strcmp(n, "mSpanManual") == 0)
				constant(&d, &f->manual);
			else if (strcmp(n, "_PageSize") == 0)
				constant(&d, &f->page_size);
		}
	} while (dwarf_siblingof(&d, &d) == 0);
}

/* The address DW_AT_location gives a global: one DW_OP_addr. */
static bool var_addr(Dwarf_Die *var, uint8_t addr_size, uint64_t *addr)
{
	Dwarf_Attribute a;
	Dwarf_Block b;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(var, DW_AT_location, &a))
		return false;
	if (dwarf_getlocation(&a, &ops, &nops) == 0) {
		if (nops != 1 || ops[0].atom != DW_OP_addr)
			return false;
		*addr = ops[0].number;
		return true;
	}
	/* Go writes it as a DW_FORM_block1, which libdw 0.188 takes for
	 * neither a location list nor an expression: decode it here. */
	if (dwarf_formblock(&a, &b) != 0 || b.length != 1u + addr_size ||
	    b.data[0] != DW_OP_addr || addr_size != 8)
		return false;
	memcpy(addr, b.data + 1, 8);
	return true;
}

static int layout_from(Dwarf *dw, struct goheap_layout *L, char *why,
		       size_t len)
{
	struct found f = { .in_use = -1, .manual = -1, .page_size = -1 };
	Dwarf_Off off = 0, next;
	size_t hsize;
	uint64_t span_size, heap_size, sz, as_size;
	uint32_t arr, n;
	Dwarf_Die slice, st;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		const char *name;

		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    (name = dwarf_diename(&cu)) &&
		    strcmp(name, "runtime") == 0) {
			uint8_t as = 0, os = 0;

			if (dwarf_diecu(&cu, &cu, &as, &os) && as)
				f.addr_size = as;
			look_in(&cu, &f);
		}
		off = next;
	}
	if (!f.have_mspan || !f.have_mheap || !f.have_var)
		return say(why, len,
			   "its DWARF has no runtime.%s (a Go this does not "
			   "know?)",
			   !f.have_mspan   ? "mspan"
			   : !f.have_mheap ? "mheap"
					   : "mheap_");
	if (f.addr_size != 8)
		return say(why, len, "a %u-byte Go runtime is not read",
			   (unsigned)f.addr_size);
	if (f.in_use < 0 || f.in_use > 255 || f.manual < 0 || f.manual > 255 ||
	    f.in_use == f.manual)
		return say(why, len,
			   "its DWARF has no runtime.mSpanInUse and "
			   "mSpanManual");
	if (f.page_size < 4096 || f.page_size > (1 << 20) ||
	    (f.page_size & (f.page_size - 1)))
		return say(why, len, "its DWARF has no runtime._PageSize");
	if (dwarf_aggregate_size(&f.mspan, &span_size) != 0 ||
	    span_size > GOHEAP_MAX_SPAN_SIZE ||
	    dwarf_aggregate_size(&f.mheap, &heap_size) != 0)
		return say(why, len, "runtime.mspan's size is not sane");
	memset(L, 0, sizeof(*L));
	L->span_size = (uint32_t)span_size;
	L->ptr_size = 8;
	L->in_use = (uint8_t)f.in_use;
	L->manual = (uint8_t)f.manual;
	L->page_size = (uint32_t)f.page_size;
#define FIELD(name, dst, want)                                                 \
	do {                                                                   \
		if (!member(&f.mspan, span_size, name, &L->dst, &sz, NULL) ||  \
		    !(want))                                                   \
			return say(why, len,                                   \
				   "runtime.mspan has no " name                \
				   " as it is read");                          \
	} while (0)
	FIELD("startAddr", start, sz == 8);
	FIELD("npages", npages, sz == 8);
	FIELD("elemsize", elemsize, sz == 8);
	FIELD("state", state, sz == 1);
	FIELD("allocCount", alloc_count, sz == 1 || sz == 2 || sz == 4);
	L->alloc_count_size = (uint8_t)sz;
#undef FIELD
	/* allspans is a slice: {array, len, cap}. */
	if (!member(&f.mheap, heap_size, "allspans", &L->allspans, &as_size,
		    &slice) ||
	    as_size != 24)
		return say(why, len, "runtime.mheap has no allspans slice");
	{
		Dwarf_Attribute a;

		if (!dwarf_attr(&slice, DW_AT_type, &a) ||
		    !dwarf_formref_die(&a, &st) ||
		    !member(&st, 24, "array", &arr, NULL, NULL) ||
		    !member(&st, 24, "len", &n, NULL, NULL) || arr != 0 ||
		    n != 8)
			return say(why, len,
				   "runtime.mheap.allspans is not a slice as "
				   "it is read");
	}
	if (!var_addr(&f.mheap_var, f.addr_size, &L->mheap) || !L->mheap)
		return say(why, len, "runtime.mheap_ has no address");
	return 0;
}

int goheap_layout_fd(int fd, struct goheap_layout *out, char *why,
		     size_t whylen)
{
	Elf *elf;
	Dwarf *dw;
	int rc;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return say(why, whylen, "libelf: %s", elf_errmsg(-1));
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return say(why, whylen, "the program's file is not ELF");
	}
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw) {
		rc = say(why, whylen,
			 "the program has no DWARF (built with -ldflags=-w, "
			 "or stripped)");
	} else {
		rc = layout_from(dw, out, why, whylen);
		dwarf_end(dw);
	}
	elf_end(elf);
	return rc;
}

/* ---- the walk ---- */

struct reader {
	goheap_read_fn rd;
	void *ctx;
	uint64_t block_at; /* 1: none */
	unsigned char block[4096];
	unsigned char one[GOHEAP_MAX_SPAN_SIZE];
};

/* A span's bytes: spans are carved 144 bytes at a time from the runtime's
 * fixalloc chunks, so most share a 4 KiB block with the last read. */
static const unsigned char *span_at(struct reader *r, uint64_t p, size_t len)
{
	uint64_t blk = p & ~(uint64_t)4095;

	if (p - blk + len <= sizeof(r->block)) {
		if (r->block_at == blk)
			return r->block + (p - blk);
		if (r->rd(r->ctx, blk, r->block, sizeof(r->block))) {
			r->block_at = blk;
			return r->block + (p - blk);
		}
		r->block_at = 1;
	}
	return r->rd(r->ctx, p, r->one, len) ? r->one : NULL;
}

static uint64_t u64_at(const unsigned char *b, uint32_t off)
{
	uint64_t v;

	memcpy(&v, b + off, 8);
	return v;
}

static uint64_t uint_at(const unsigned char *b, uint32_t off, unsigned size)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;

	switch (size) {
	case 1:
		memcpy(&v8, b + off, 1);
		return v8;
	case 2:
		memcpy(&v16, b + off, 2);
		return v16;
	default:
		memcpy(&v32, b + off, 4);
		return v32;
	}
}

/* The index of the range (sorted) holding a, or -1. */
static ptrdiff_t range_of(const struct goheap_range *r, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a < r[mid].start)
			hi = mid;
		else if (a >= r[mid].end)
			lo = mid + 1;
		else
			return (ptrdiff_t)mid;
	}
	return -1;
}

/* One span: 1 counted, 0 not in use (skipped), -1 bad. */
static int one_span(const struct goheap_layout *L, const unsigned char *b,
		    struct goheap_sums *add)
{
	uint64_t start = u64_at(b, L->start), npages = u64_at(b, L->npages);
	uint8_t state = b[L->state];
	uint64_t bytes, elem, count;

	memset(add, 0, sizeof(*add));
	if (state != L->in_use && state != L->manual)
		return 0;
	/* A span is at most the address space: 2^47 bytes. */
	if (!npages || npages > (1ull << 47) / L->page_size ||
	    start % L->page_size)
		return -1;
	bytes = npages * L->page_size;
	if (start + bytes < start)
		return -1;
	add->spans = 1;
	if (state == L->manual) {
		add->stack_inuse = bytes;
		return 1;
	}
	elem = u64_at(b, L->elemsize);
	count = uint_at(b, L->alloc_count, L->alloc_count_size);
	if (!elem || elem > bytes || count > bytes / elem)
		return -1;
	add->heap_inuse = bytes;
	add->heap_alloc = count * elem;
	add->objects = count;
	return 1;
}

/* Adds a span; false when the sums would pass the address space (2^48
 * bytes: garbage that looked sane span by span). */
static bool sums_add(struct goheap_sums *to, const struct goheap_sums *a)
{
	const uint64_t max = 1ull << 48;

	if (a->heap_inuse > max - to->heap_inuse ||
	    a->stack_inuse > max - to->stack_inuse)
		return false;
	to->heap_inuse += a->heap_inuse;
	to->heap_alloc += a->heap_alloc;
	to->objects += a->objects;
	to->stack_inuse += a->stack_inuse;
	to->spans += a->spans;
	return true;
}

int goheap_walk(const struct goheap_layout *L, uint64_t mheap,
		goheap_read_fn rd, goheap_progress_fn progress, void *ctx,
		struct goheap_range *ranges, size_t nranges,
		struct goheap_walk *out)
{
	struct reader r; /* 4.6 KB and ptrs 4 KB: on the stack, no allocation */
	uint64_t hdr[2], array, len, i;
	uint64_t ptrs[512];

	memset(out, 0, sizeof(*out));
	for (i = 0; i < nranges; i++)
		memset(&ranges[i].sums, 0, sizeof(ranges[i].sums));
	if (L->span_size > GOHEAP_MAX_SPAN_SIZE || L->ptr_size != 8 ||
	    !L->page_size || L->start + 8 > L->span_size ||
	    L->npages + 8 > L->span_size || L->elemsize + 8 > L->span_size ||
	    L->state >= L->span_size ||
	    L->alloc_count + L->alloc_count_size > L->span_size) {
		out->why = "the layout of runtime.mspan is not sane";
		return -1;
	}
	if (!rd(ctx, mheap + L->allspans, hdr, sizeof(hdr))) {
		out->why = "runtime.mheap_.allspans could not be read";
		return -1;
	}
	array = hdr[0];
	len = hdr[1];
	if (len > GOHEAP_MAX_SPANS || (len && (!array || array % 8)) ||
	    array + len * 8 < array) {
		out->why = "runtime.mheap_.allspans is not a sane slice";
		return -1;
	}
	out->nspans = len;
	r.rd = rd;
	r.ctx = ctx;
	r.block_at = 1;
	for (i = 0; i < len;) {
		uint64_t n = len - i < 512 ? len - i : 512, k;

		if (progress && progress(ctx, i, len)) {
			out->why = "cancelled";
			return -1;
		}
		if (!rd(ctx, array + i * 8, ptrs, n * 8)) {
			out->unread += n;
			i += n;
			continue;
		}
		for (k = 0; k < n; k++) {
			const unsigned char *b;
			struct goheap_sums add;
			ptrdiff_t in;
			int ok;

			if (!ptrs[k] || ptrs[k] % 8) {
				out->bad++;
				continue;
			}
			b = span_at(&r, ptrs[k], L->span_size);
			if (!b) {
				out->unread++;
				continue;
			}
			ok = one_span(L, b, &add);
			if (ok < 0)
				out->bad++;
			if (ok <= 0)
				continue;
			if (!sums_add(&out->all, &add)) {
				out->why = "the spans add up to more than the "
					   "address space: not sane";
				return -1;
			}
			in = range_of(ranges, nranges, u64_at(b, L->start));
			if (in >= 0) {
				sums_add(&ranges[in].sums, &add);
			} else {
				out->outside++;
				out->outside_alloc += add.heap_alloc;
			}
		}
		i += n;
	}
	if (out->bad || out->unread)
		out->why = "some spans were not sane or could not be read";
	return 0;
}

/* ---- without DWARF ---- */

bool goheap_buildinfo_version(const void *buf, size_t len, char *out,
			      size_t outlen)
{
	static const char magic[] = "\xff Go buildinf:";
	const unsigned char *b = buf;
	uint64_t n = 0;
	size_t at = 32;
	unsigned shift = 0;

	if (len < 33 || memcmp(b, magic, 14) != 0 || b[14] != 8 || !(b[15] & 2))
		return false;
	do { /* the length, a varint */
		if (at >= len || shift > 28)
			return false;
		n |= (uint64_t)(b[at] & 0x7f) << shift;
		shift += 7;
	} while (b[at++] & 0x80);
	if (!n || n >= outlen || n > len - at)
		return false;
	memcpy(out, b + at, n);
	out[n] = '\0';
	return strncmp(out, "go", 2) == 0;
}

/* Layouts read from each version's DWARF (goheap_layout_fd), by version
 * prefix ("go1.19" takes go1.19.N). */
static const struct {
	const char *version;
	struct goheap_layout L;
} known[] = {
	{ "go1.19",
	  { .span_size = 144,
	    .start = 24,
	    .npages = 32,
	    .alloc_count = 96,
	    .alloc_count_size = 2,
	    .state = 99,
	    .elemsize = 104,
	    .ptr_size = 8,
	    .in_use = 1,
	    .manual = 2,
	    .page_size = 8192 } },
};

bool goheap_layout_known(const char *version, struct goheap_layout *out)
{
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		size_t n = strlen(known[i].version);

		if (strncmp(version, known[i].version, n) == 0 &&
		    (version[n] == '\0' || version[n] == '.')) {
			*out = known[i].L;
			return true;
		}
	}
	return false;
}

/* Whether the elements of the slice {array, len} read as spans. */
static bool probe(const struct goheap_layout *L, uint64_t array, uint64_t len,
		  const struct goheap_range *ranges, size_t nranges,
		  goheap_read_fn rd, void *ctx)
{
	uint64_t ptrs[GOHEAP_PROBE], k,
		m = len < GOHEAP_PROBE ? len : GOHEAP_PROBE;
	unsigned char b[GOHEAP_MAX_SPAN_SIZE];
	bool in_use = false;

	if (!rd(ctx, array, ptrs, m * 8))
		return false;
	for (k = 0; k < m; k++) {
		struct goheap_sums add;
		uint64_t start;
		uint8_t state;

		if (!ptrs[k] || ptrs[k] % 8 ||
		    !rd(ctx, ptrs[k], b, L->span_size))
			return false;
		state = b[L->state];
		if (!state)
			continue;
		if (state != L->in_use && state != L->manual)
			return false;
		start = u64_at(b, L->start);
		if (!start || one_span(L, b, &add) < 0 ||
		    (nranges && range_of(ranges, nranges, start) < 0))
			return false;
		in_use |= state == L->in_use;
	}
	return in_use;
}

uint64_t goheap_find_allspans(const struct goheap_layout *L, const uint64_t *w,
			      size_t n, uint64_t lo,
			      const struct goheap_range *ranges, size_t nranges,
			      goheap_read_fn rd, void *ctx, const char **why)
{
	uint64_t found = 0;
	size_t k;

	*why = NULL;
	if (L->span_size > GOHEAP_MAX_SPAN_SIZE || !L->page_size ||
	    L->state >= L->span_size || L->start + 8 > L->span_size ||
	    L->npages + 8 > L->span_size || L->elemsize + 8 > L->span_size ||
	    L->alloc_count + L->alloc_count_size > L->span_size) {
		*why = "the layout of runtime.mspan is not sane";
		return 0;
	}
	for (k = 0; k + 3 <= n; k++) {
		uint64_t array = w[k], len = w[k + 1], cap = w[k + 2];

		if (!array || array % 4096 || !len || len > cap ||
		    cap > GOHEAP_MAX_SPANS ||
		    !probe(L, array, len, ranges, nranges, rd, ctx))
			continue;
		if (found) {
			*why = "two slices read as runtime.mheap_.allspans";
			return 0;
		}
		found = lo + 8 * k;
	}
	if (!found)
		*why = "runtime.mheap_.allspans was not found in the program's "
		       "memory";
	return found;
}
