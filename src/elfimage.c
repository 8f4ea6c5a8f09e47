#include "elfimage.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp_sec(const void *a, const void *b)
{
	const struct elfimage_section *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Reads the GNU build id from a note buffer. */
static const char *note_build_id(Elf_Data *d, struct arena *a)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((char *)d->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= 64 &&
		    desc_off + nh.n_descsz <= d->d_size) {
			static const char hx[] = "0123456789abcdef";
			const unsigned char *p =
				(unsigned char *)d->d_buf + desc_off;
			char *s = arena_alloc(a, nh.n_descsz * 2 + 1);
			size_t i;

			if (!s)
				return NULL;
			for (i = 0; i < nh.n_descsz; i++) {
				s[2 * i] = hx[p[i] >> 4];
				s[2 * i + 1] = hx[p[i] & 15];
			}
			return s;
		}
	}
	return NULL;
}

static int read_phdrs(Elf *e, struct arena *a, struct elfimage *out)
{
	size_t n, i, k = 0;

	if (elf_getphdrnum(e, &n) != 0 || n == 0 || n > 65535)
		return 0;
	out->load = arena_alloc(a, n * sizeof(*out->load));
	if (!out->load)
		return -1;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph))
			continue;
		if (ph.p_type == PT_LOAD) {
			out->load[k].vaddr = ph.p_vaddr;
			out->load[k].memsz = ph.p_memsz;
			out->load[k].offset = ph.p_offset;
			out->load[k].filesz = ph.p_filesz;
			out->load[k].flags = ph.p_flags;
			k++;
		} else if (ph.p_type == PT_NOTE && !out->build_id) {
			Elf_Data *d = elf_getdata_rawchunk(
				e, (int64_t)ph.p_offset, ph.p_filesz,
				ELF_T_NHDR);

			if (d)
				out->build_id = note_build_id(d, a);
		}
	}
	out->nload = k;
	return 0;
}

static int read_sections(Elf *e, struct arena *a, struct elfimage *out)
{
	size_t shstrndx, n, k = 0;
	Elf_Scn *scn = NULL;

	if (elf_getshdrnum(e, &n) != 0 || n == 0 || n > 65535)
		return 0;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return 0;
	out->sec = arena_alloc(a, n * sizeof(*out->sec));
	if (!out->sec)
		return -1;
	while ((scn = elf_nextscn(e, scn)) && k < n) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_size == 0 || sh.sh_addr == 0)
			continue;
		/* .tbss is a template for each thread's TLS: it takes no
		 * room in the image (its address overlaps what follows). */
		if ((sh.sh_flags & SHF_TLS) && sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		out->sec[k].name = arena_intern(a, name ? name : "?",
						strlen(name ? name : "?"));
		if (!out->sec[k].name)
			return -1;
		out->sec[k].addr = sh.sh_addr;
		out->sec[k].size = sh.sh_size;
		out->sec[k].nobits = sh.sh_type == SHT_NOBITS;
		if (!out->build_id && sh.sh_type == SHT_NOTE) {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (d && d->d_type == ELF_T_NHDR)
				out->build_id = note_build_id(d, a);
		}
		k++;
	}
	out->nsec = k;
	qsort(out->sec, k, sizeof(*out->sec), cmp_sec);
	return 0;
}

/* What the two entry points share: the parse of an open Elf. */
static int parse_elf(Elf *e, struct arena *a, struct elfimage *out,
		     struct vms_error *err)
{
	GElf_Ehdr eh;

	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
		return 0;
	out->e_type = eh.e_type;
	if (read_phdrs(e, a, out) < 0 || read_sections(e, a, out) < 0)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory reading ELF");
	out->is_image = (eh.e_type == ET_EXEC || eh.e_type == ET_DYN) &&
			out->nload > 0;
	return 0;
}

static int libelf_ready(struct vms_error *err)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return vms_error_set(err, VMS_ERR_CAPTURE, 0, "libelf: %s",
				     elf_errmsg(-1));
	return 0;
}

int elfimage_parse(const void *buf, size_t len, struct arena *a,
		   struct elfimage *out, struct vms_error *err)
{
	Elf *e;
	int rc;

	memset(out, 0, sizeof(*out));
	if (len < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG) != 0)
		return 0;
	if (libelf_ready(err) < 0)
		return -1;
	/* libelf wants a writable pointer but only reads in ELF_C_READ. */
	e = elf_memory((char *)(uintptr_t)buf, len);
	if (!e)
		return 0;
	rc = parse_elf(e, a, out, err);
	elf_end(e);
	return rc;
}

int elfimage_load(int fd, struct arena *a, struct elfimage *out,
		  struct vms_error *err)
{
	unsigned char ident[EI_NIDENT];
	struct stat st;
	Elf *e;
	int rc;

	memset(out, 0, sizeof(*out));
	if (fstat(fd, &st) < 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "cannot stat image: %s", strerror(errno));
	if (!S_ISREG(st.st_mode) ||
	    pread(fd, ident, sizeof(ident), 0) != (ssize_t)sizeof(ident) ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0)
		return 0;
	if (libelf_ready(err) < 0)
		return -1;
	/* Read through the descriptor (pread), not mapped: a file truncated
	 * while it is read gives short reads, not a SIGBUS. */
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return 0;
	rc = parse_elf(e, a, out, err);
	elf_end(e);
	return rc;
}

bool elfimage_bias(const struct elfimage *im, uint64_t map_start,
		   uint64_t map_offset, uint64_t *bias)
{
	size_t i;

	/* Mappings start at page boundaries of the machine's page size (4 KiB
	 * on x86_64, up to 64 KiB on aarch64). */
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	for (i = 0; i < im->nload; i++) {
		const struct elfimage_load *l = &im->load[i];
		uint64_t pg_off = l->offset & ~(page - 1);
		uint64_t pg_end = l->offset + (l->filesz ? l->filesz : 1);

		if (map_offset >= pg_off && map_offset < pg_end) {
			/* The runtime address of file offset map_offset is
			 * map_start; its link-time vaddr is offset-relative. */
			uint64_t vaddr = l->vaddr - l->offset + map_offset;

			*bias = map_start - vaddr;
			return true;
		}
	}
	return false;
}

uint64_t elfimage_end(const struct elfimage *im)
{
	uint64_t end = 0;
	size_t i;

	for (i = 0; i < im->nload; i++)
		if (im->load[i].vaddr + im->load[i].memsz > end)
			end = im->load[i].vaddr + im->load[i].memsz;
	return end;
}
