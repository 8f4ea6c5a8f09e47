/* fork_gadget.c — inject_find_gadget() (inject.h): a system-call
 * instruction that already exists in the target, found by decoding.
 *
 * First choice: libc's syscall() function. Its ELF dynamic symbol gives the
 * function's bytes in the file and its size; the executable mapping of that
 * file that covers the symbol's file offset gives its address. The bytes
 * are decoded from the function's first instruction (inject_decode_syscall)
 * and are read from the file, not from the target, so the search faults no
 * page into it. Fallback: the functions of the vDSO (their fallback paths
 * make the call themselves), read from the target's memory (the vDSO is
 * always resident).
 */
#include "inject.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

struct xmap {
	uint64_t start, end, offset;
	char perms[5];
	const char *path; /* into the maps buffer */
};

/* Next line of maps at *pos into m (path NUL-terminated in place). */
static bool next_map(char *buf, size_t len, size_t *pos, struct xmap *m)
{
	char *line, *nl, *p;
	unsigned long long s, e, off;
	int n = 0;

	if (*pos >= len)
		return false;
	line = buf + *pos;
	nl = memchr(line, '\n', len - *pos);
	if (nl)
		*nl = '\0';
	*pos = nl ? (size_t)(nl - buf) + 1 : len;
	m->path = NULL;
	if (sscanf(line, "%llx-%llx %4s %llx %*s %*s %n", &s, &e, m->perms, &off,
		   &n) < 4)
		return next_map(buf, len, pos, m);
	m->start = s;
	m->end = e;
	m->offset = off;
	p = line + n;
	if (n > 0 && *p)
		m->path = p;
	return true;
}

/* Searches one ELF image for a gadget. base: where file offset 0 of the
 * image would be if the mapping at (map_start, map_off) extended down to
 * it; code is read from the raw image. For a file, only symbols named
 * "syscall" are tried; for the vDSO (any_func), every function. */
static bool scan_elf(Elf *e, const struct xmap *m, bool any_func,
		     uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	size_t rawlen;
	const uint8_t *raw = (const uint8_t *)elf_rawfile(e, &rawlen);
	size_t nph, i;

	if (!raw || elf_getphdrnum(e, &nph) < 0)
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t k, nsym;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		nsym = sh.sh_size / sh.sh_entsize;
		for (k = 0; k < nsym; k++) {
			GElf_Sym sym;
			const char *name;
			uint64_t foff = 0;
			bool found = false;
			long at;

			if (!gelf_getsym(d, (int)k, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_size)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || (!any_func && strcmp(name, "syscall")))
				continue;
			for (i = 0; i < nph && !found; i++) {
				GElf_Phdr ph;

				if (!gelf_getphdr(e, (int)i, &ph) ||
				    ph.p_type != PT_LOAD ||
				    sym.st_value < ph.p_vaddr ||
				    sym.st_value + sym.st_size >
					    ph.p_vaddr + ph.p_filesz)
					continue;
				foff = sym.st_value - ph.p_vaddr + ph.p_offset;
				found = true;
			}
			if (!found || foff + sym.st_size > rawlen ||
			    foff < m->offset ||
			    foff + sym.st_size > m->offset + (m->end - m->start))
				continue;
			at = inject_decode_syscall(raw + foff, sym.st_size);
			if (at < 0)
				continue;
			*addr = m->start + (foff - m->offset) + (uint64_t)at;
			return true;
		}
	}
	return false;
}

static bool try_file(pid_t pid, const struct xmap *m, uint64_t *addr)
{
	char path[4200];
	int fd;
	Elf *e;
	bool r;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid,
			 m->path);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return false;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	r = e && elf_kind(e) == ELF_K_ELF && scan_elf(e, m, false, addr);
	if (e)
		elf_end(e);
	close(fd);
	return r;
}

static bool try_vdso(pid_t pid, const struct xmap *m, uint64_t *addr)
{
	char path[64];
	size_t len = (size_t)(m->end - m->start);
	char *buf;
	int fd;
	bool r = false;

	if (len > (1u << 20))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	buf = malloc(len);
	if (buf && pread(fd, buf, len, (off_t)m->start) == (ssize_t)len) {
		Elf *e = elf_memory(buf, len);
		struct xmap vm = *m;

		vm.offset = 0; /* the vDSO image is mapped from its start */
		r = e && elf_kind(e) == ELF_K_ELF && scan_elf(e, &vm, true, addr);
		if (e)
			elf_end(e);
	}
	free(buf);
	close(fd);
	return r;
}

/* Tries each executable mapping of pid that pass accepts (0: libc, 1: any
 * other file, 2: the vDSO) until one holds a gadget. *failed: maps could not
 * be read (*err set). */
static bool each_exec_map(pid_t pid, int pass, uint64_t *addr,
			  struct vms_error *err, bool *failed)
{
	char *buf;
	size_t len, pos = 0;
	struct xmap m;

	*failed = false;
	if (procfs_read_pid(pid, "maps", &buf, &len) < 0) {
		procfs_errno_error(err, pid, "maps", errno);
		*failed = true;
		return false;
	}
	while (next_map(buf, len, &pos, &m)) {
		bool libc;

		if (m.perms[2] != 'x' || !m.path)
			continue;
		libc = strstr(m.path, "/libc.so") || strstr(m.path, "/libc-") ||
		       strstr(m.path, "ld-musl");
		if (pass == 2 ? strcmp(m.path, "[vdso]") == 0 &&
					try_vdso(pid, &m, addr)
			      : m.path[0] == '/' && (pass == 0) == libc &&
					try_file(pid, &m, addr)) {
			free(buf);
			return true;
		}
	}
	free(buf);
	return false;
}

static int not_found(pid_t pid, struct vms_error *err)
{
	return vms_error_set(err, VMS_ERR_CAPTURE, ENOENT,
			     "found no system-call instruction to borrow in "
			     "process %d (no libc syscall(), no usable vDSO); "
			     "use -b pss",
			     (int)pid);
}

int inject_find_gadget_vdso(pid_t pid, uint64_t *addr, struct vms_error *err)
{
	bool failed;

	elf_version(EV_CURRENT);
	if (each_exec_map(pid, 2, addr, err, &failed))
		return 0;
	return failed ? -1 : not_found(pid, err);
}

int inject_find_gadget(pid_t pid, uint64_t *addr, struct vms_error *err)
{
	int pass;
	bool failed;

	elf_version(EV_CURRENT);
	/* Pass 0: files named like a libc; pass 1: any other file with a
	 * "syscall" symbol; pass 2: the vDSO. */
	for (pass = 0; pass < 3; pass++) {
		if (each_exec_map(pid, pass, addr, err, &failed))
			return 0;
		if (failed)
			return -1;
	}
	return not_found(pid, err);
}
