/* unwind_eh.c — a pc's rule from its module's .eh_frame (unwind.h,
 * vt_uw_eh_rule): the module by dl_iterate_phdr, the FDE by .eh_frame_hdr's
 * sorted table, the CIE's and the FDE's CFA instructions run up to the pc.
 * Every read of the module stays within its readable PT_LOAD segments and
 * happens inside dl_iterate_phdr's callback (the module stays mapped).
 */
#define _GNU_SOURCE
#include "unwind.h"

#if defined(__x86_64__)

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* ---- reading a module's .eh_frame, bounded by its readable segments ---- */

struct rd {
	const uint8_t *p, *lo, *end; /* [lo, end): the segment read */
	bool bad;
};

static uint64_t rd_fixed(struct rd *r, unsigned n)
{
	uint64_t v = 0;

	if (r->bad || r->p < r->lo || r->p > r->end ||
	    (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, n); /* little-endian */
	r->p += n;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned s;

	for (s = 0; s < 64; s += 7) {
		uint64_t b = rd_fixed(r, 1);

		v |= (b & 0x7f) << s;
		if (!(b & 0x80) || r->bad)
			return v;
	}
	r->bad = true;
	return 0;
}

static int64_t rd_sleb(struct rd *r)
{
	uint64_t v = 0, b = 0;
	unsigned s;

	for (s = 0; s < 64;) {
		b = rd_fixed(r, 1);
		v |= (b & 0x7f) << s;
		s += 7;
		if (!(b & 0x80) || r->bad)
			break;
	}
	if (s >= 64 && (b & 0x80)) {
		r->bad = true;
		return 0;
	}
	if (s < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << s;
	return (int64_t)v;
}

/* A pointer of encoding enc (DW_EH_PE_*): absolute, or relative to where
 * it lies (pcrel) or to base (datarel). Indirect ones are only skipped
 * (*v is then not an address). */
static bool rd_ptr(struct rd *r, uint8_t enc, uintptr_t base, uintptr_t *v)
{
	uintptr_t at = (uintptr_t)r->p;
	uint64_t x;

	if (enc == 0xff) { /* DW_EH_PE_omit */
		*v = 0;
		return true;
	}
	switch (enc & 0x0f) {
	case 0x00: /* absptr */
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		x = rd_fixed(r, 8);
		break;
	case 0x01:
		x = rd_uleb(r);
		break;
	case 0x02:
		x = rd_fixed(r, 2);
		break;
	case 0x03:
		x = rd_fixed(r, 4);
		break;
	case 0x09:
		x = (uint64_t)rd_sleb(r);
		break;
	case 0x0a:
		x = (uint64_t)(int64_t)(int16_t)rd_fixed(r, 2);
		break;
	case 0x0b:
		x = (uint64_t)(int64_t)(int32_t)rd_fixed(r, 4);
		break;
	default:
		return false;
	}
	switch (enc & 0x70) {
	case 0x00:
		break;
	case 0x10: /* pcrel */
		x += at;
		break;
	case 0x30: /* datarel */
		if (!base)
			return false;
		x += base;
		break;
	default:
		return false;
	}
	*v = (uintptr_t)x;
	return !r->bad;
}

/* ---- the CFA program ---- */

enum { REG_RBP = 6, REG_RSP = 7, REG_RA = 16 };
enum { WHERE_SAME, WHERE_UNDEF, WHERE_CFAREL, WHERE_OTHER };

struct reg_rule {
	uint8_t where;
	int64_t off;
};

struct cfa_state {
	uint64_t cfa_reg;
	int64_t cfa_off;
	bool cfa_expr;
	struct reg_rule bp, sp, ra;
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc;
	bool has_z;
	const uint8_t *insns, *insns_end;
};

static struct reg_rule *rule_of(struct cfa_state *s, uint64_t reg)
{
	switch (reg) {
	case REG_RBP:
		return &s->bp;
	case REG_RSP:
		return &s->sp;
	case REG_RA:
		return &s->ra;
	default:
		return NULL; /* a register the walk does not follow */
	}
}

/* Runs the CFA instructions in [r->p, end) from location *loc, stopping
 * before the first row past pc. init: the state after the CIE's
 * instructions (DW_CFA_restore). False: not understood. */
static bool run_cfa(struct rd *r, const uint8_t *end, const struct cie *c,
		    uintptr_t *loc, uintptr_t pc, struct cfa_state *s,
		    const struct cfa_state *init)
{
	struct cfa_state saved[8];
	unsigned depth = 0;
	struct reg_rule *rr;

	while (r->p < end && !r->bad) {
		uint8_t op = (uint8_t)rd_fixed(r, 1);
		uint64_t reg, delta;
		int64_t off;

		switch (op >> 6) {
		case 1: /* DW_CFA_advance_loc */
			delta = (uint64_t)(op & 0x3f) * c->code_align;
			goto advance;
		case 2: /* DW_CFA_offset */
			off = (int64_t)rd_uleb(r) * c->data_align;
			if ((rr = rule_of(s, op & 0x3f))) {
				rr->where = WHERE_CFAREL;
				rr->off = off;
			}
			continue;
		case 3: /* DW_CFA_restore */
			if ((rr = rule_of(s, op & 0x3f)) && init)
				*rr = *rule_of((struct cfa_state *)init,
					       op & 0x3f);
			continue;
		}
		switch (op) {
		case 0x00: /* nop */
			continue;
		case 0x01: { /* set_loc */
			uintptr_t to;

			if (!rd_ptr(r, c->fde_enc, 0, &to) ||
			    (c->fde_enc & 0x80))
				return false;
			if (to > pc)
				return true;
			*loc = to;
			continue;
		}
		case 0x02:
			delta = rd_fixed(r, 1) * c->code_align;
			goto advance;
		case 0x03:
			delta = rd_fixed(r, 2) * c->code_align;
			goto advance;
		case 0x04:
			delta = rd_fixed(r, 4) * c->code_align;
			goto advance;
		case 0x05: /* offset_extended */
			reg = rd_uleb(r);
			off = (int64_t)rd_uleb(r) * c->data_align;
			goto set_offset;
		case 0x11: /* offset_extended_sf */
			reg = rd_uleb(r);
			off = rd_sleb(r) * c->data_align;
			goto set_offset;
		case 0x2f: /* GNU_negative_offset_extended */
			reg = rd_uleb(r);
			off = -(int64_t)rd_uleb(r) * c->data_align;
			goto set_offset;
		case 0x06: /* restore_extended */
			reg = rd_uleb(r);
			if ((rr = rule_of(s, reg)) && init)
				*rr = *rule_of((struct cfa_state *)init, reg);
			continue;
		case 0x07: /* undefined */
		case 0x08: /* same_value */
			reg = rd_uleb(r);
			if ((rr = rule_of(s, reg))) {
				rr->where =
					op == 0x07 ? WHERE_UNDEF : WHERE_SAME;
				rr->off = 0;
			}
			continue;
		case 0x09: /* register */
			reg = rd_uleb(r);
			rd_uleb(r);
			if ((rr = rule_of(s, reg)))
				rr->where = WHERE_OTHER;
			continue;
		case 0x0a: /* remember_state */
			if (depth == sizeof(saved) / sizeof(saved[0]))
				return false;
			saved[depth++] = *s;
			continue;
		case 0x0b: /* restore_state: the CFA too, as libunwind does */
			if (!depth)
				return false;
			*s = saved[--depth];
			continue;
		case 0x0c: /* def_cfa */
			s->cfa_reg = rd_uleb(r);
			s->cfa_off = (int64_t)rd_uleb(r);
			s->cfa_expr = false;
			continue;
		case 0x12: /* def_cfa_sf */
			s->cfa_reg = rd_uleb(r);
			s->cfa_off = rd_sleb(r) * c->data_align;
			s->cfa_expr = false;
			continue;
		case 0x0d: /* def_cfa_register */
			s->cfa_reg = rd_uleb(r);
			s->cfa_expr = false;
			continue;
		case 0x0e: /* def_cfa_offset */
			s->cfa_off = (int64_t)rd_uleb(r);
			continue;
		case 0x13: /* def_cfa_offset_sf */
			s->cfa_off = rd_sleb(r) * c->data_align;
			continue;
		case 0x0f: /* def_cfa_expression */
			s->cfa_expr = true;
			delta = rd_uleb(r);
			goto skip;
		case 0x10: /* expression */
		case 0x16: /* val_expression */
			reg = rd_uleb(r);
			if ((rr = rule_of(s, reg)))
				rr->where = WHERE_OTHER;
			delta = rd_uleb(r);
			goto skip;
		case 0x14: /* val_offset */
		case 0x15: /* val_offset_sf */
			reg = rd_uleb(r);
			if (op == 0x14)
				rd_uleb(r);
			else
				rd_sleb(r);
			if ((rr = rule_of(s, reg)))
				rr->where = WHERE_OTHER;
			continue;
		case 0x2e: /* GNU_args_size */
			rd_uleb(r);
			continue;
		default:
			return false;
		}
advance:
		if (*loc + delta > pc)
			return !r->bad;
		*loc += delta;
		continue;
set_offset:
		if ((rr = rule_of(s, reg))) {
			rr->where = WHERE_CFAREL;
			rr->off = off;
		}
		continue;
skip:
		if (r->bad || delta > (uint64_t)(end - r->p))
			return false;
		r->p += delta;
	}
	return !r->bad;
}

/* ---- finding a pc's FDE: the module's .eh_frame_hdr table ---- */

struct lookup {
	uintptr_t pc;
	struct vt_uw_rule *out;
};

/* The readable PT_LOAD segment of the module holding [p, p+1): its
 * bounds into r (false: none). */
static bool segment_of(const struct dl_phdr_info *info, uintptr_t p,
		       struct rd *r)
{
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && p >= lo &&
		    p - lo < ph->p_memsz) {
			r->lo = (const uint8_t *)lo;
			r->end = (const uint8_t *)(lo + ph->p_memsz);
			r->p = (const uint8_t *)p;
			r->bad = false;
			return true;
		}
	}
	return false;
}

/* A record's length and where it ends (its body starts at r->p). */
static bool record_bounds(struct rd *r, const uint8_t **end)
{
	uint64_t len = rd_fixed(r, 4);

	if (len == 0xffffffffu)
		len = rd_fixed(r, 8);
	if (r->bad || len == 0 || len > (uint64_t)(r->end - r->p))
		return false;
	*end = r->p + len;
	return true;
}

static bool parse_cie(struct rd *r, struct cie *c)
{
	const uint8_t *end, *aug_end = NULL;
	const char *aug;
	uint64_t ver, ra;
	size_t n;

	if (!record_bounds(r, &end) || rd_fixed(r, 4) != 0) /* CIE id */
		return false;
	ver = rd_fixed(r, 1);
	if (r->bad || (ver != 1 && ver != 3))
		return false;
	aug = (const char *)r->p;
	n = strnlen(aug, (size_t)(end - r->p));
	if (n == (size_t)(end - r->p))
		return false;
	r->p += n + 1;
	c->code_align = rd_uleb(r);
	c->data_align = rd_sleb(r);
	ra = ver == 1 ? rd_fixed(r, 1) : rd_uleb(r);
	if (r->bad || ra != REG_RA)
		return false;
	c->fde_enc = 0; /* absptr */
	c->has_z = aug[0] == 'z';
	if (c->has_z) {
		uint64_t alen = rd_uleb(r);

		if (r->bad || alen > (uint64_t)(end - r->p))
			return false;
		aug_end = r->p + alen;
		aug++;
	} else if (aug[0]) {
		return false;
	}
	for (; *aug; aug++) {
		uintptr_t skip;
		uint8_t enc;

		switch (*aug) {
		case 'R':
			c->fde_enc = (uint8_t)rd_fixed(r, 1);
			break;
		case 'P':
			enc = (uint8_t)rd_fixed(r, 1);
			if (!rd_ptr(r, enc & 0x7f, 1, &skip))
				return false;
			break;
		case 'L':
			rd_fixed(r, 1);
			break;
		default: /* 'S': a signal frame; anything else unknown */
			return false;
		}
	}
	if (aug_end)
		r->p = aug_end;
	c->insns = r->p;
	c->insns_end = end;
	return !r->bad;
}

/* The rule at l->pc from the FDE at fde (in the segment r bounds). */
static void rule_from_fde(struct lookup *l, struct rd *r, const uint8_t *fde)
{
	struct cfa_state s, init;
	const uint8_t *end, *cie_at;
	struct cie c;
	struct rd cr;
	uintptr_t begin, range, loc;
	uint64_t cie_off;

	r->p = fde;
	if (!record_bounds(r, &end))
		return;
	cie_at = r->p;
	cie_off = rd_fixed(r, 4);
	if (r->bad || cie_off == 0 || cie_off > (uint64_t)(cie_at - r->lo))
		return;
	cr = *r;
	cr.p = cie_at - cie_off;
	if (!parse_cie(&cr, &c) || (c.fde_enc & 0x80))
		return;
	if (!rd_ptr(r, c.fde_enc, 0, &begin) ||
	    !rd_ptr(r, c.fde_enc & 0x0f, 0, &range))
		return;
	if (l->pc < begin || l->pc - begin >= range)
		return; /* no FDE covers it */
	if (c.has_z) {
		uint64_t alen = rd_uleb(r);

		if (r->bad || alen > (uint64_t)(end - r->p))
			return;
		r->p += alen;
	}
	memset(&s, 0, sizeof(s));
	s.cfa_reg = ~(uint64_t)0;
	s.ra.where = WHERE_UNDEF; /* the CIE says where it is */
	loc = begin;
	cr.p = c.insns;
	if (!run_cfa(&cr, c.insns_end, &c, &loc, ~(uintptr_t)0, &s, NULL))
		return;
	init = s;
	loc = begin;
	if (!run_cfa(r, end, &c, &loc, l->pc, &s, &init))
		return;
	/* libunwind's fast path takes the same (dwarf_stash_frame) */
	if (s.ra.where == WHERE_UNDEF) {
		l->out->kind = VT_UW_LAST;
		return;
	}
	if (s.cfa_expr || (s.cfa_reg != REG_RSP && s.cfa_reg != REG_RBP) ||
	    s.cfa_off <= -(1 << 28) || s.cfa_off >= (1 << 28) ||
	    s.ra.where != WHERE_CFAREL || s.ra.off != -8)
		return;
	if (s.bp.where == WHERE_CFAREL &&
	    (s.bp.off == 0 || s.bp.off <= -(1 << 14) || s.bp.off >= (1 << 14)))
		return;
	if (s.bp.where == WHERE_OTHER || s.sp.where == WHERE_OTHER ||
	    (s.sp.where == WHERE_CFAREL &&
	     (s.sp.off <= -(1 << 14) || s.sp.off >= (1 << 14))))
		return;
	l->out->cfa_off = (int32_t)s.cfa_off;
	l->out->cfa_rbp = s.cfa_reg == REG_RBP;
	l->out->bp_off =
		s.bp.where == WHERE_CFAREL ? (int16_t)s.bp.off : (int16_t)0;
	l->out->kind = VT_UW_SIMPLE;
}

static int lookup_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct lookup *l = arg;
	const ElfW(Phdr) *eh = NULL;
	const uint8_t *hdr, *table;
	uint64_t count;
	uintptr_t frame_ptr;
	struct rd r;
	size_t lo, hi;
	bool mine = false;
	int i;

	if (size >=
	    offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		vt_uw_note_subs(info->dlpi_subs);
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t at = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && l->pc >= at &&
		    l->pc - at < ph->p_memsz)
			mine = true;
		else if (ph->p_type == PT_GNU_EH_FRAME)
			eh = ph;
	}
	if (!mine)
		return 0;
	if (!eh)
		return 1;
	hdr = (const uint8_t *)(info->dlpi_addr + eh->p_vaddr);
	if (!segment_of(info, (uintptr_t)hdr, &r))
		return 1;
	/* version 1; eh_frame_ptr's, fde_count's and the table's encodings;
	 * the table must be datarel sdata4 to be searched */
	if (rd_fixed(&r, 1) != 1)
		return 1;
	{
		uint8_t fp_enc = (uint8_t)rd_fixed(&r, 1);
		uint8_t cnt_enc = (uint8_t)rd_fixed(&r, 1);
		uint8_t tab_enc = (uint8_t)rd_fixed(&r, 1);
		uintptr_t n;

		if (r.bad || tab_enc != 0x3b || (fp_enc & 0x80) ||
		    (cnt_enc & 0x80) ||
		    !rd_ptr(&r, fp_enc, (uintptr_t)hdr, &frame_ptr) ||
		    !rd_ptr(&r, cnt_enc, (uintptr_t)hdr, &n))
			return 1;
		count = n;
	}
	table = r.p;
	if (count == 0 || count > (uint64_t)(r.end - table) / 8)
		return 1;
	/* the last entry whose start is at or below pc */
	lo = 0;
	hi = (size_t)count;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		int32_t start;

		memcpy(&start, table + mid * 8, 4);
		if ((uintptr_t)hdr + (intptr_t)start <= l->pc)
			lo = mid;
		else
			hi = mid;
	}
	{
		int32_t start, fde;
		struct rd fr;

		memcpy(&start, table + lo * 8, 4);
		memcpy(&fde, table + lo * 8 + 4, 4);
		if ((uintptr_t)hdr + (intptr_t)start > l->pc)
			return 1;
		if (!segment_of(info, (uintptr_t)hdr + (intptr_t)fde, &fr))
			return 1;
		rule_from_fde(l, &fr, fr.p);
	}
	return 1;
}

void vt_uw_eh_rule(uintptr_t pc, struct vt_uw_rule *out)
{
	struct lookup l = { pc, out };

	memset(out, 0, sizeof(*out));
	out->kind = VT_UW_OTHER;
	dl_iterate_phdr(lookup_module, &l);
}

#endif
