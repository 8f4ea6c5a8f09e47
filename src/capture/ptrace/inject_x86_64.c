/* inject_x86_64.c — the x86_64 half of inject.h: an instruction-length
 * decoder that finds `syscall` (0f 05) only where an instruction starts,
 * and register set-up for one call.
 *
 * The decoder knows the general-purpose, x87, SSE and VEX encodings found
 * in libc and vDSO functions; anything else (EVEX, 3DNow!, opcodes invalid
 * in 64-bit mode) ends the decoding with "not found": a wrong guess at a
 * length could land inside an instruction, and 0f 05 found there is not an
 * instruction at all.
 */
#if defined(__x86_64__)
#include "capture/ptrace/inject.h"

#include <stdbool.h>
#include <string.h>

const long inject_nr_clone = 56;
const long inject_nr_wait4 = 61;
const long inject_nr_close_range = 436;
const size_t inject_insn_len = 2;

/* Length of a ModRM operand (ModRM, SIB, displacement) at p, or -1. */
static int modrm_len(const uint8_t *p, size_t left)
{
	int mod, rm, n = 1;

	if (left < 1)
		return -1;
	mod = p[0] >> 6;
	rm = p[0] & 7;
	if (mod != 3 && rm == 4) {
		if (left < 2)
			return -1;
		n++;
		if (mod == 0 && (p[1] & 7) == 5)
			n += 4;
	}
	if (mod == 0 && rm == 5)
		n += 4; /* rip-relative */
	else if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return (size_t)n <= left ? n : -1;
}

enum { NONE = 0, M = 1, I8 = 2, I32 = 4, I16 = 8, BAD = 16, IV = 32 };

/* The opcode tables read best as tables. */
/* clang-format off */
/* One-byte opcodes: what follows the opcode byte. IV is imm32 (imm16 with
 * an operand-size prefix). Prefixes and escapes are handled before. */
static unsigned one_byte(uint8_t op)
{
	if (op < 0x40) {
		switch (op & 7) {
		case 0: case 1: case 2: case 3:
			return M;
		case 4:
			return I8;
		case 5:
			return IV;
		default:
			return BAD; /* segment push/pop, daa...: invalid */
		}
	}
	if (op >= 0x50 && op <= 0x5f)
		return NONE;
	if (op >= 0x70 && op <= 0x7f)
		return I8;
	if (op >= 0x84 && op <= 0x8f)
		return M;
	if (op >= 0x90 && op <= 0x99)
		return NONE;
	if (op >= 0xb0 && op <= 0xb7)
		return I8;
	if (op >= 0xd8 && op <= 0xdf)
		return M; /* x87 */
	if (op >= 0xe0 && op <= 0xe3)
		return I8;
	if (op >= 0xf8 && op <= 0xfd)
		return NONE;
	switch (op) {
	case 0x63: return M;
	case 0x68: return IV;
	case 0x69: return M | IV;
	case 0x6a: return I8;
	case 0x6b: return M | I8;
	case 0x80: case 0x82: case 0x83: return M | I8;
	case 0x81: return M | IV;
	case 0x9b: case 0x9c: case 0x9d: case 0x9e: case 0x9f:
		return NONE;
	case 0xa4: case 0xa5: case 0xa6: case 0xa7:
	case 0xaa: case 0xab: case 0xac: case 0xad: case 0xae: case 0xaf:
		return NONE;
	case 0xa8: return I8;
	case 0xa9: return IV;
	case 0xc0: case 0xc1: return M | I8;
	case 0xc2: return I16;
	case 0xc3: case 0xc9: case 0xcc: return NONE;
	case 0xc6: return M | I8;
	case 0xc7: return M | IV;
	case 0xc8: return I16 | I8;
	case 0xcd: return I8;
	case 0xd0: case 0xd1: case 0xd2: case 0xd3: return M;
	case 0xe8: case 0xe9: return I32;
	case 0xeb: return I8;
	case 0xf4: case 0xf5: return NONE;
	case 0xfe: case 0xff: return M;
	default:
		return BAD;
	}
}

/* Two-byte opcodes (after 0f). */
static unsigned two_byte(uint8_t op)
{
	if (op >= 0x80 && op <= 0x8f)
		return I32; /* jcc rel32 */
	if (op >= 0xc8 && op <= 0xcf)
		return NONE; /* bswap */
	if (op >= 0x70 && op <= 0x73)
		return M | I8;
	switch (op) {
	case 0x05: case 0x06: case 0x07: case 0x08: case 0x09: case 0x0b:
	case 0x30: case 0x31: case 0x32: case 0x33: case 0x34: case 0x35:
	case 0x77: case 0xa0: case 0xa1: case 0xa2: case 0xa8: case 0xa9:
		return NONE;
	case 0x04: case 0x0a: case 0x0c: case 0x0e: case 0x0f:
	case 0x24: case 0x25: case 0x26: case 0x27: case 0x36: case 0x37:
	case 0x39: case 0x3b: case 0x3c: case 0x3d: case 0x3e: case 0x3f:
	case 0x7a: case 0x7b: case 0xa6: case 0xa7: case 0xb9:
	case 0xff:
		return BAD;
	case 0xa4: case 0xac: case 0xba: case 0xc2: case 0xc4: case 0xc5:
	case 0xc6:
		return M | I8;
	default:
		return M;
	}
}
/* clang-format on */

/* Length of the instruction at p (0f 05 reported through *is_syscall),
 * or -1 when it is not one this decoder knows. */
static int insn_len(const uint8_t *p, size_t left, bool *is_syscall)
{
	size_t i = 0;
	bool opsize = false, rexw = false;
	unsigned what;
	int m;

	*is_syscall = false;
	for (; i < left && i < 14; i++) {
		uint8_t b = p[i];

		if (b == 0x66)
			opsize = true;
		else if (!(b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 ||
			   b == 0x2e || b == 0x36 || b == 0x3e || b == 0x26 ||
			   b == 0x64 || b == 0x65))
			break;
	}
	if (i < left && (p[i] & 0xf0) == 0x40) {
		rexw = p[i] & 8;
		i++;
	}
	if (i >= left)
		return -1;
	if (p[i] == 0xc4 || p[i] == 0xc5) {
		/* VEX: the map is in the prefix; every VEX instruction has
		 * ModRM; those of map 0f3a have an imm8, and those of map 0f
		 * whose legacy form has one (vpshufd, vcmpps, vpsrldq...). */
		int map = 1, imm;

		if (p[i] == 0xc4) {
			if (i + 2 >= left)
				return -1;
			map = p[i + 1] & 0x1f;
			i += 3;
		} else {
			i += 2;
		}
		if (map < 1 || map > 3 || i + 1 >= left)
			return -1;
		imm = map == 3 || (map == 1 && (two_byte(p[i]) & I8));
		i++; /* opcode */
		m = modrm_len(p + i, left - i);
		if (m < 0)
			return -1;
		i += (size_t)m + (size_t)imm;
		return i <= left ? (int)i : -1;
	}
	if (p[i] == 0x0f) {
		if (i + 1 >= left)
			return -1;
		if (p[i + 1] == 0x38 || p[i + 1] == 0x3a) {
			what = M | (p[i + 1] == 0x3a ? I8 : 0);
			i += 3;
		} else {
			*is_syscall = p[i + 1] == 0x05;
			what = two_byte(p[i + 1]);
			i += 2;
		}
	} else {
		uint8_t op = p[i];

		what = one_byte(op);
		i++;
		if (op >= 0xb8 && op <= 0xbf && rexw) {
			what = NONE;
			i += 8; /* movabs imm64 */
		} else if (op >= 0xb8 && op <= 0xbf) {
			what = IV;
		} else if (op >= 0xa0 && op <= 0xa3) {
			what = NONE;
			i += 8; /* moffs64 */
		} else if ((op == 0xf6 || op == 0xf7) && i < left &&
			   ((p[i] >> 3) & 7) < 2)
			what = M | (op == 0xf6 ? I8 : IV); /* test imm */
		else if (op == 0xf6 || op == 0xf7)
			what = M;
	}
	if (what & BAD || i > left)
		return -1;
	if (what & M) {
		m = modrm_len(p + i, left - i);
		if (m < 0)
			return -1;
		i += (size_t)m;
	}
	if (what & I16)
		i += 2;
	if (what & I8)
		i += 1;
	if (what & I32)
		i += 4;
	if (what & IV)
		i += opsize ? 2 : 4;
	return i <= left ? (int)i : -1;
}

long inject_decode_syscall(const uint8_t *code, size_t len)
{
	size_t off = 0;

	while (off < len) {
		bool sc;
		int n = insn_len(code + off, len - off, &sc);

		if (n < 0)
			return -1;
		if (sc)
			return (long)off;
		off += (size_t)n;
	}
	return -1;
}

int inject_regs_native(const struct user_regs_struct *r)
{
	return r->cs == 0x33; /* __USER_CS; 0x23 is a 32-bit process */
}

void inject_prepare(struct user_regs_struct *r, uint64_t gadget, long nr,
		    const uint64_t a[6])
{
	r->rip = gadget;
	r->rax = (uint64_t)nr;
	/* -1: the kernel must not apply its restart rules to these
	 * registers when it resumes the thread from the interrupt stop. */
	r->orig_rax = (uint64_t)-1;
	r->rdi = a[0];
	r->rsi = a[1];
	r->rdx = a[2];
	r->r10 = a[3];
	r->r8 = a[4];
	r->r9 = a[5];
}

uint64_t inject_regs_ip(const struct user_regs_struct *r)
{
	return r->rip;
}

void inject_regs_set_ip(struct user_regs_struct *r, uint64_t ip)
{
	r->rip = ip;
}

long inject_result(const struct user_regs_struct *r)
{
	return (long)r->rax;
}

uint64_t inject_dead_sp(void)
{
	/* Page 0 is below mmap_min_addr: never mapped. Not 0 itself, which
	 * clone() reads as "the parent's stack". */
	return 0x100;
}
#endif
