/* inject_aarch64.c — the aarch64 half of inject.h. Compiled only there
 * (the whole body is under __aarch64__); not tested on hardware yet.
 *
 * Fixed 4-byte instructions: decoding is reading aligned words until
 * `svc #0` (0xd4000001).
 *
 * Known gap: arm64's do_signal() rewinds pc and puts orig_x0 back into x0
 * *before* the interrupt stop, and converts -ERESTART_RESTARTBLOCK into
 * restart_syscall after it only if pc is unchanged; inject_syscall() moves
 * pc, so a thread injected into while in clock_nanosleep would restart the
 * call with its full timeout instead of restart_syscall. Prefer, on arm64,
 * to inject into a thread not asleep in such a call.
 *
 * Departure noted: user_regs_struct does not carry orig_x0 or the SVE/SME
 * state. The injected calls use only x0-x8, which are saved and restored
 * whole; SVE state is not touched by clone/wait4 beyond what the kernel
 * itself discards at any system call.
 */
#if defined(__aarch64__)
#include "capture/ptrace/inject.h"

#include <string.h>

const long inject_nr_clone = 220;
const long inject_nr_wait4 = 260;
const long inject_nr_close_range = 436;
const size_t inject_insn_len = 4;

long inject_decode_syscall(const uint8_t *code, size_t len)
{
	size_t off;

	for (off = 0; off + 4 <= len; off += 4) {
		uint32_t w;

		memcpy(&w, code + off, 4);
		if (w == 0xd4000001u)
			return (long)off;
	}
	return -1;
}

int inject_regs_native(const struct user_regs_struct *r)
{
	return !(r->pstate & 0x10); /* PSR_MODE32_BIT: an AArch32 task */
}

void inject_prepare(struct user_regs_struct *r, uint64_t gadget, long nr,
		    const uint64_t a[6])
{
	int i;

	r->pc = gadget;
	r->regs[8] = (uint64_t)nr;
	for (i = 0; i < 6; i++)
		r->regs[i] = a[i];
}

uint64_t inject_regs_ip(const struct user_regs_struct *r)
{
	return r->pc;
}

void inject_regs_set_ip(struct user_regs_struct *r, uint64_t ip)
{
	r->pc = ip;
}

long inject_result(const struct user_regs_struct *r)
{
	return (long)r->regs[0];
}

uint64_t inject_dead_sp(void)
{
	return 0x100;
}
#endif
