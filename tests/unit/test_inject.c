/* test_inject — the system-call instruction decoder on byte buffers, and
 * the gadget search on this very process. */
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "inject.h"
#include "tap.h"

#if defined(__x86_64__)
static void x86_cases(void)
{
	/* glibc 2.36 syscall(): endbr64; mov rax,rdi; ... mov r9,[rsp+8];
	 * syscall; cmp rax,-4095; jae; ret */
	static const uint8_t glibc[] = {
		0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7,
		0x48, 0x89, 0xd6, 0x48, 0x89, 0xca, 0x4d, 0x89, 0xc2, 0x4d,
		0x89, 0xc8, 0x4c, 0x8b, 0x4c, 0x24, 0x08, 0x0f, 0x05, 0x48,
		0x3d, 0x01, 0xf0, 0xff, 0xff, 0x73, 0x01, 0xc3,
	};
	/* 0f 05 inside immediates and displacements, never an instruction:
	 * mov eax,0x050f; mov rax,0x0000050f00000000 (movabs); lea rdx,
	 * [rip+0x50f]; cmp byte [rax+0x0f],0x05; ret */
	static const uint8_t hidden[] = {
		0xb8, 0x0f, 0x05, 0x00, 0x00, 0x48, 0xb8, 0x00, 0x00, 0x00,
		0x00, 0x0f, 0x05, 0x00, 0x00, 0x48, 0x8d, 0x15, 0x0f, 0x05,
		0x00, 0x00, 0x80, 0x78, 0x0f, 0x05, 0xc3,
	};
	/* the same, then a real syscall */
	uint8_t hidden_then[sizeof(hidden) + 2];
	/* VEX vmovdqu ymm0,[rdi]; vpcmpeqb ymm1,ymm0,[rsi]; SIB with no
	 * base: mov eax,[rax*4+0x50f]; test dword [rax],imm32; syscall */
	static const uint8_t mixed[] = {
		0xc5, 0xfe, 0x6f, 0x07, 0xc5, 0xfd, 0x74, 0x0e,
		0x8b, 0x04, 0x85, 0x0f, 0x05, 0x00, 0x00,
		0xf7, 0x00, 0x0f, 0x05, 0x0f, 0x05,
		0x0f, 0x05,
	};
	/* An opcode invalid in 64-bit mode ends the search. */
	static const uint8_t invalid[] = { 0x06, 0x0f, 0x05 };
	/* Truncated before its syscall. */
	static const uint8_t truncated[] = { 0x48, 0x89 };

	ok(inject_decode_syscall(glibc, sizeof(glibc)) == 27,
	   "glibc's syscall(): found at offset 27");
	ok(inject_decode_syscall(hidden, sizeof(hidden)) == -1,
	   "0f 05 inside immediates and displacements is not a syscall");
	memcpy(hidden_then, hidden, sizeof(hidden) - 1);
	hidden_then[sizeof(hidden) - 1] = 0x0f;
	hidden_then[sizeof(hidden)] = 0x05;
	hidden_then[sizeof(hidden) + 1] = 0xc3;
	ok(inject_decode_syscall(hidden_then, sizeof(hidden_then)) ==
		   (long)sizeof(hidden) - 1,
	   "the real syscall after them is found");
	ok(inject_decode_syscall(mixed, sizeof(mixed)) == 21,
	   "VEX, SIB without base and test imm32 decode to the right length");
	ok(inject_decode_syscall(invalid, sizeof(invalid)) == -1,
	   "an opcode invalid in 64-bit mode stops the decoder");
	ok(inject_decode_syscall(truncated, sizeof(truncated)) == -1,
	   "a truncated instruction stops the decoder");
}
#elif defined(__aarch64__)
static void arm_cases(void)
{
	static const uint32_t code[] = { 0xaa0003e8, 0xd4000001, 0xd65f03c0 };

	ok(inject_decode_syscall((const uint8_t *)code, sizeof(code)) == 4,
	   "svc #0 found at offset 4");
}
#endif

int main(void)
{
	uint64_t at = 0;
	struct vms_error err = { 0 };

#if defined(__x86_64__)
	x86_cases();
#elif defined(__aarch64__)
	arm_cases();
#endif
	ok(inject_find_gadget(getpid(), &at, &err) == 0 && at != 0,
	   "a gadget is found in this process (%s)", err.msg);
	if (at) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)at;

		ok(inject_insn_len == 2 ? (p[0] == 0x0f && p[1] == 0x05)
					: (p[0] == 0x01 && p[3] == 0xd4),
		   "the gadget's bytes are a system-call instruction");
	}
	at = 0;
	ok(inject_find_gadget_vdso(getpid(), &at, &err) == 0 && at != 0,
	   "a gadget is found in this process's vDSO (%s)", err.msg);
	if (at) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)at;
		uint64_t vdso = getauxval(AT_SYSINFO_EHDR);

		ok(at > vdso && at < vdso + (1u << 20) &&
			   (inject_insn_len == 2
				    ? (p[0] == 0x0f && p[1] == 0x05)
				    : (p[0] == 0x01 && p[3] == 0xd4)),
		   "the vDSO gadget lies in the vDSO and is a system call");
	}
	return tap_done();
}
