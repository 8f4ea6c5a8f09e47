/* test_inject — the system-call instruction decoder on byte buffers, and
 * the gadget search on this very process. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture/ptrace/inject.h"
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
	/* VEX instructions with an imm8 in map 0f (vpshufd) and 0f3a
	 * (vpalignr), the imm8 being 0f and 05. */
	static const uint8_t vex_imm[] = {
		0xc5, 0xf9, 0x70, 0xc0, 0x0f, 0xc4, 0xe3, 0x79, 0x0f, 0xc1,
		0x05, 0x0f, 0x05,
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
	ok(inject_decode_syscall(vex_imm, sizeof(vex_imm)) == 11,
	   "VEX instructions with an imm8 (maps 0f and 0f3a)");
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

#if defined(__x86_64__)
/* Every function of libc decoded from its entry: each syscall found must be
 * one objdump disassembles as such (not bytes 0f 05 inside another
 * instruction). */
static void libc_sweep(void)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	char cmd[256], line[512];
	FILE *od;
	int fd = open(libc, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	uint64_t *real = NULL;
	size_t nreal = 0, found = 0, wrong = 0, i;

	snprintf(cmd, sizeof(cmd),
		 "objdump -d --no-show-raw-insn %s 2>/dev/null", libc);
	if (fd < 0 || !(od = popen(cmd, "r"))) {
		printf("ok - libc sweep # SKIP no %s or objdump\n", libc);
		return;
	}
	while (fgets(line, sizeof(line), od)) {
		char *tab = strchr(line, '\t');

		if (tab && strncmp(tab + 1, "syscall", 7) == 0) {
			real = realloc(real, (nreal + 1) * sizeof(*real));
			real[nreal++] = strtoull(line, NULL, 16);
		}
	}
	pclose(od);
	if (!nreal) {
		printf("ok - libc sweep # SKIP objdump gave nothing\n");
		close(fd);
		return;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t k, len;
		const uint8_t *raw = (const uint8_t *)elf_rawfile(e, &len);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym sym;
			GElf_Phdr ph;
			uint64_t off = UINT64_MAX;
			size_t np = 0, j;
			long at;

			if (!gelf_getsym(d, (int)k, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_size || sym.st_shndx == SHN_UNDEF)
				continue;
			elf_getphdrnum(e, &np);
			for (j = 0; j < np; j++)
				if (gelf_getphdr(e, (int)j, &ph) &&
				    ph.p_type == PT_LOAD &&
				    sym.st_value >= ph.p_vaddr &&
				    sym.st_value < ph.p_vaddr + ph.p_filesz)
					off = sym.st_value - ph.p_vaddr +
					      ph.p_offset;
			if (off == UINT64_MAX || off + sym.st_size > len)
				continue;
			at = inject_decode_syscall(raw + off, sym.st_size);
			if (at < 0)
				continue;
			found++;
			for (i = 0; i < nreal; i++)
				if (real[i] == sym.st_value + (uint64_t)at)
					break;
			wrong += i == nreal;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	free(real);
	ok(found > 50 && wrong == 0,
	   "libc sweep: %zu functions decoded to a syscall, %zu of them not "
	   "at an instruction objdump shows",
	   found, wrong);
}
#endif

/* A file named like a libc, mapped executable here and then truncated to
 * its first page (the mapping outlives the bytes): the search must read it
 * without faulting (no mmap of the file: SIGBUS) and still find the real
 * libc's gadget. Returns the mapping, or NULL if it could not be set up. */
static void *map_truncated_libc(char *dir, size_t dirlen, size_t *len)
{
	char path[4200];
	const char *libc = NULL;
	static const char *const cand[] = {
		"/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6",
		"/usr/lib/libc.so.6", "/lib64/libc.so.6",
	};
	char *buf = NULL;
	ssize_t n = 0;
	void *m = MAP_FAILED;
	size_t i;
	int in, out;

	for (i = 0; i < sizeof(cand) / sizeof(cand[0]) && !libc; i++)
		if (access(cand[i], R_OK) == 0)
			libc = cand[i];
	snprintf(dir, dirlen, "/tmp/vms-inject-XXXXXX");
	if (!libc || !mkdtemp(dir))
		return NULL;
	snprintf(path, sizeof(path), "%s/libc.so.6", dir);
	in = open(libc, O_RDONLY | O_CLOEXEC);
	out = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	*len = 4 << 20;
	buf = malloc(*len);
	if (in >= 0 && out >= 0 && buf && (n = read(in, buf, *len)) > 0 &&
	    write(out, buf, (size_t)n) == n) {
		*len = (size_t)n;
		m = mmap(NULL, *len, PROT_READ | PROT_EXEC, MAP_PRIVATE, out,
			 0);
		if (m != MAP_FAILED && ftruncate(out, 4096) < 0) {
			munmap(m, *len);
			m = MAP_FAILED;
		}
	}
	free(buf);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return m == MAP_FAILED ? NULL : m;
}

static void truncated_libc(void)
{
	char dir[64], path[4200];
	size_t len = 0;
	void *m = map_truncated_libc(dir, sizeof(dir), &len);
	uint64_t at = 0;
	struct vms_error err = { 0 };

	if (!m) {
		printf("ok - a truncated libc-named mapping # SKIP could not "
		       "set it up\n");
		return;
	}
	ok(inject_find_gadget(getpid(), &at, &err) == 0 && at != 0 &&
		   (at < (uint64_t)(uintptr_t)m ||
		    at >= (uint64_t)(uintptr_t)m + len),
	   "with a truncated libc-named file mapped, the gadget is found "
	   "elsewhere, without a fault (%s)",
	   err.msg);
	munmap(m, len);
	snprintf(path, sizeof(path), "%s/libc.so.6", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	uint64_t at = 0;
	struct vms_error err = { 0 };

#if defined(__x86_64__)
	x86_cases();
	libc_sweep();
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
	truncated_libc();
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
