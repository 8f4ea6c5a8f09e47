/* fork_gadget.c — inject_find_gadget() (inject.h): a system-call
 * instruction that already exists in the target, found by decoding.
 *
 * First choice: libc's syscall() function. Its ELF dynamic symbol gives the
 * function's bytes in the file and its size; the executable mapping of that
 * file that covers the symbol's file offset gives its address. The bytes
 * are decoded from the function's first instruction (inject_decode_syscall)
 * and are read from the file, not from the target, so the search faults no
 * page into it. The maps are parsed by the engine's parser (smaps.h); a
 * mapped file is opened without blocking, must be a regular file, and is
 * read with pread (never mmapped: a concurrent truncation would be a
 * SIGBUS here). Fallback: the functions of the vDSO (their fallback paths
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
#include <sys/stat.h>
#include <unistd.h>

#include "procfs.h"
#include "smaps.h"
#include "snapshot.h"

/* The longest function whose code is read from a file: glibc's syscall()
 * is 38 bytes. */
#define MAX_FUNC 4096

/* Where a function's code comes from: the vDSO image copied from the
 * target (mem), or a regular file read with pread (fd; never mmapped: a
 * file truncated meanwhile would raise SIGBUS). */
struct code_src {
	const uint8_t *mem;
	size_t memlen;
	int fd;
	uint64_t filelen;
};

/* code[0, len) of the image at file offset foff into buf; NULL if it is
 * not all there. */
static const uint8_t *code_at(const struct code_src *src, uint64_t foff,
			      size_t len, uint8_t *buf)
{
	if (src->mem)
		return foff <= src->memlen && len <= src->memlen - foff
			       ? src->mem + foff
			       : NULL;
	if (len > MAX_FUNC || foff > src->filelen ||
	    len > src->filelen - foff ||
	    pread(src->fd, buf, len, (off_t)foff) != (ssize_t)len)
		return NULL;
	return buf;
}

/* Searches one ELF image for a gadget. The region r maps the image from
 * file offset map_off. For a file, only symbols named "syscall" are tried;
 * for the vDSO (any_func), every function. */
static bool scan_elf(Elf *e, const struct vms_region *r, uint64_t map_off,
		     const struct code_src *src, bool any_func, uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	size_t nph, i;

	if (elf_getphdrnum(e, &nph) < 0)
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
			const uint8_t *code;
			uint8_t buf[MAX_FUNC];
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
			if (!found || foff < map_off ||
			    foff + sym.st_size > map_off + (r->end - r->start))
				continue;
			code = code_at(src, foff, sym.st_size, buf);
			if (!code)
				continue;
			at = inject_decode_syscall(code, sym.st_size);
			if (at < 0)
				continue;
			*addr = r->start + (foff - map_off) + (uint64_t)at;
			return true;
		}
	}
	return false;
}

/* Opens a mapped file for reading its headers: never blocks (a FIFO put
 * where the file was), never becomes a controlling terminal, and only a
 * regular file is accepted. -1 otherwise. */
static int open_regular(const char *path, uint64_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	*len = (uint64_t)st.st_size;
	return fd;
}

static bool try_file(pid_t pid, const struct vms_region *r, uint64_t *addr)
{
	char path[4200];
	struct code_src src = { NULL, 0, -1, 0 };
	Elf *e;
	bool found;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)r->start, (unsigned long long)r->end);
	src.fd = open_regular(path, &src.filelen);
	if (src.fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid,
			 r->path);
		src.fd = open_regular(path, &src.filelen);
	}
	if (src.fd < 0)
		return false;
	/* ELF_C_READ: headers and tables come in with pread, not mmap. */
	e = elf_begin(src.fd, ELF_C_READ, NULL);
	found = e && elf_kind(e) == ELF_K_ELF &&
		scan_elf(e, r, r->offset, &src, false, addr);
	if (e)
		elf_end(e);
	close(src.fd);
	return found;
}

static bool try_vdso(pid_t pid, const struct vms_region *r, uint64_t *addr)
{
	char path[64];
	size_t len = (size_t)(r->end - r->start);
	char *buf;
	int fd;
	bool found = false;

	if (len > (1u << 20))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	buf = malloc(len);
	if (buf && pread(fd, buf, len, (off_t)r->start) == (ssize_t)len) {
		Elf *e = elf_memory(buf, len);
		struct code_src src = { (const uint8_t *)buf, len, -1, 0 };

		/* The vDSO image is mapped from its start. */
		found = e && elf_kind(e) == ELF_K_ELF &&
			scan_elf(e, r, 0, &src, true, addr);
		if (e)
			elf_end(e);
	}
	free(buf);
	close(fd);
	return found;
}

static bool is_libc(const char *path)
{
	return strstr(path, "/libc.so") || strstr(path, "/libc-") ||
	       strstr(path, "ld-musl");
}

/* Tries each executable mapping of pid that pass accepts (0: libc, 1: any
 * other file, 2: the vDSO) until one holds a gadget. */
static bool each_exec_map(pid_t pid, const struct vms_snapshot *maps,
			  int pass, uint64_t *addr)
{
	size_t i;

	for (i = 0; i < maps->nregions; i++) {
		const struct vms_region *r = &maps->regions[i];

		if (!(r->perms & VMS_PERM_X) || !r->path)
			continue;
		if (pass == 2) {
			if (strcmp(r->path, "[vdso]") == 0 &&
			    try_vdso(pid, r, addr))
				return true;
		} else if (r->path[0] == '/' &&
			   (pass == 0) == is_libc(r->path) &&
			   try_file(pid, r, addr)) {
			return true;
		}
	}
	return false;
}

/* pid's maps through the engine's parser. NULL with *err set. */
static struct vms_snapshot *read_maps(pid_t pid, struct vms_error *err)
{
	struct vms_snapshot *s;
	char *buf;
	size_t len;

	if (procfs_read_pid(pid, "maps", &buf, &len) < 0) {
		procfs_errno_error(err, pid, "maps", errno);
		return NULL;
	}
	s = vms_snapshot_new();
	if (!s) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
	} else if (smaps_parse_buffer(s, buf, len, err) < 0) {
		vms_snapshot_free(s);
		s = NULL;
	}
	free(buf);
	return s;
}

static int not_found(pid_t pid, struct vms_error *err)
{
	return vms_error_set(err, VMS_ERR_CAPTURE, ENOENT,
			     "found no system-call instruction to borrow in "
			     "process %d (no libc syscall(), no usable vDSO); "
			     "use -b pss",
			     (int)pid);
}

/* Passes first..last of each_exec_map(). */
static int find_gadget(pid_t pid, int first, int last, uint64_t *addr,
		       struct vms_error *err)
{
	struct vms_snapshot *maps;
	int pass;
	bool found = false;

	elf_version(EV_CURRENT);
	maps = read_maps(pid, err);
	if (!maps)
		return -1;
	for (pass = first; pass <= last && !found; pass++)
		found = each_exec_map(pid, maps, pass, addr);
	vms_snapshot_free(maps);
	return found ? 0 : not_found(pid, err);
}

int inject_find_gadget_vdso(pid_t pid, uint64_t *addr, struct vms_error *err)
{
	return find_gadget(pid, 2, 2, addr, err);
}

int inject_find_gadget(pid_t pid, uint64_t *addr, struct vms_error *err)
{
	/* Pass 0: files named like a libc; pass 1: any other file with a
	 * "syscall" symbol; pass 2: the vDSO. */
	return find_gadget(pid, 0, 2, addr, err);
}
