#include "elf/elfimage.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elfimage_raw.h"

/* ---- sources ---- */

/* The source of fd whose fstat is st. */
static int src_of(int fd, const struct stat *st, struct elfimage_src *src,
		  struct vms_error *err)
{
	memset(src, 0, sizeof(*src));
	src->fd = -1;
	if (!S_ISREG(st->st_mode))
		return vms_error_set(err, VMS_ERR_CAPTURE, EINVAL,
				     "image is not a regular file");
	src->fd = fd;
	src->size = (uint64_t)st->st_size;
	return 0;
}

int elfimage_src_fd(int fd, struct elfimage_src *src, struct vms_error *err)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		memset(src, 0, sizeof(*src));
		src->fd = -1;
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "cannot stat image: %s", strerror(errno));
	}
	return src_of(fd, &st, src, err);
}

struct elfimage_src elfimage_src_buf(const void *buf, size_t len,
				     bool is_memory)
{
	struct elfimage_src s = { -1, buf, len, is_memory };

	return s;
}

size_t elfimage_src_read(const struct elfimage_src *src, uint64_t off,
			 void *dst, size_t n)
{
	size_t done = 0;

	if (off >= src->size)
		return 0;
	if (n > src->size - off)
		n = (size_t)(src->size - off);
	if (src->buf) {
		memcpy(dst, src->buf + off, n);
		return n;
	}
	while (done < n) {
		ssize_t got = pread(src->fd, (char *)dst + done, n - done,
				    (off_t)(off + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		done += (size_t)got;
	}
	return done;
}

/* ---- raw headers, in the host's byte order, either class ---- */

int elfraw_ehdr(const struct elfimage_src *src, struct elfraw_ehdr *eh)
{
	unsigned char b[sizeof(Elf64_Ehdr)];
	size_t got = elfimage_src_read(src, 0, b, sizeof(b));
	static const union {
		uint16_t u;
		uint8_t c[2];
	} probe = { 1 };
	uint8_t host = probe.c[0] ? ELFDATA2LSB : ELFDATA2MSB;

	memset(eh, 0, sizeof(*eh));
	if (got < EI_NIDENT || memcmp(b, ELFMAG, SELFMAG) != 0 ||
	    b[EI_DATA] != host)
		return -1;
	eh->cls = b[EI_CLASS];
	if (eh->cls == ELFCLASS64 && got >= sizeof(Elf64_Ehdr)) {
		Elf64_Ehdr h;

		memcpy(&h, b, sizeof(h));
		eh->type = h.e_type;
		eh->machine = h.e_machine;
		eh->phoff = h.e_phoff;
		eh->shoff = h.e_shoff;
		eh->phentsize = h.e_phentsize;
		eh->shentsize = h.e_shentsize;
		eh->phnum = h.e_phnum;
		eh->shnum = h.e_shnum;
		eh->shstrndx = h.e_shstrndx;
		return eh->phentsize >= sizeof(Elf64_Phdr) || eh->phnum == 0
			       ? 0
			       : -1;
	}
	if (eh->cls == ELFCLASS32 && got >= sizeof(Elf32_Ehdr)) {
		Elf32_Ehdr h;

		memcpy(&h, b, sizeof(h));
		eh->type = h.e_type;
		eh->machine = h.e_machine;
		eh->phoff = h.e_phoff;
		eh->shoff = h.e_shoff;
		eh->phentsize = h.e_phentsize;
		eh->shentsize = h.e_shentsize;
		eh->phnum = h.e_phnum;
		eh->shnum = h.e_shnum;
		eh->shstrndx = h.e_shstrndx;
		return eh->phentsize >= sizeof(Elf32_Phdr) || eh->phnum == 0
			       ? 0
			       : -1;
	}
	return -1;
}

void elfraw_phdr(const struct elfraw_ehdr *eh, const unsigned char *b,
		 struct elfraw_phdr *ph)
{
	if (eh->cls == ELFCLASS64) {
		Elf64_Phdr p;

		memcpy(&p, b, sizeof(p));
		*ph = (struct elfraw_phdr){ p.p_type,  p.p_flags,  p.p_offset,
					    p.p_vaddr, p.p_filesz, p.p_memsz,
					    p.p_align };
	} else {
		Elf32_Phdr p;

		memcpy(&p, b, sizeof(p));
		*ph = (struct elfraw_phdr){ p.p_type,  p.p_flags,  p.p_offset,
					    p.p_vaddr, p.p_filesz, p.p_memsz,
					    p.p_align };
	}
}

static void raw_shdr(const struct elfraw_ehdr *eh, const unsigned char *b,
		     struct elfraw_shdr *sh)
{
	if (eh->cls == ELFCLASS64) {
		Elf64_Shdr s;

		memcpy(&s, b, sizeof(s));
		*sh = (struct elfraw_shdr){ s.sh_name, s.sh_type,
					    s.sh_link, s.sh_flags,
					    s.sh_addr, s.sh_offset,
					    s.sh_size, s.sh_entsize };
	} else {
		Elf32_Shdr s;

		memcpy(&s, b, sizeof(s));
		*sh = (struct elfraw_shdr){ s.sh_name, s.sh_type,
					    s.sh_link, s.sh_flags,
					    s.sh_addr, s.sh_offset,
					    s.sh_size, s.sh_entsize };
	}
}

static size_t shdr_size(const struct elfraw_ehdr *eh)
{
	return eh->cls == ELFCLASS64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
}

/* Section header i, read on its own. */
static bool read_shdr(const struct elfimage_src *src,
		      const struct elfraw_ehdr *eh, uint64_t i,
		      struct elfraw_shdr *sh)
{
	unsigned char b[sizeof(Elf64_Shdr)];
	size_t n = shdr_size(eh);

	if (eh->shoff == 0 || eh->shentsize < n ||
	    elfimage_src_read(src, eh->shoff + i * eh->shentsize, b, n) != n)
		return false;
	raw_shdr(eh, b, sh);
	return true;
}

/* ---- notes: read with a bounded pread, never the whole claimed size ---- */

static const char *hex_id(const unsigned char *p, size_t n, struct arena *a)
{
	static const char hx[] = "0123456789abcdef";
	char *s = arena_alloc(a, n * 2 + 1);
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < n; i++) {
		s[2 * i] = hx[p[i] >> 4];
		s[2 * i + 1] = hx[p[i] & 15];
	}
	return s;
}

/* Looks for the GNU build id in notes at off[0, size) of the source, with
 * the given alignment (4, or 8 for PT_NOTE with p_align 8). Counts what it
 * reads against the image's note budget. -1 on out of memory. */
static int scan_notes(const struct elfimage_src *src, uint64_t off,
		      uint64_t size, uint64_t align, struct arena *a,
		      struct elfimage *out)
{
	uint64_t left = ELFIMAGE_MAX_NOTE_BYTES - out->note_bytes;
	unsigned char *buf;
	size_t n, pos = 0;

	if (size > left) {
		out->notes_capped = true;
		size = left;
	}
	if (size < 12)
		return 0;
	buf = malloc((size_t)size);
	if (!buf)
		return -1;
	n = elfimage_src_read(src, off, buf, (size_t)size);
	out->note_bytes += n;
	while (pos + 12 <= n && !out->build_id) {
		uint32_t h[3]; /* namesz, descsz, type */
		size_t name, desc;

		memcpy(h, buf + pos, sizeof(h));
		name = pos + 12;
		if (h[0] > n || h[1] > n)
			break;
		desc = name + ((h[0] + (align - 1)) & ~(align - 1));
		if (desc > n || h[1] > n - desc)
			break;
		if (h[2] == NT_GNU_BUILD_ID && h[0] == 4 &&
		    memcmp(buf + name, "GNU", 4) == 0 && h[1] > 0 &&
		    h[1] <= 64) {
			out->build_id = hex_id(buf + desc, h[1], a);
			if (!out->build_id) {
				free(buf);
				return -1;
			}
		}
		pos = desc + ((h[1] + (align - 1)) & ~(align - 1));
	}
	free(buf);
	return 0;
}

/* ---- program headers ---- */

static void dyn_table(const struct elfimage *im, const struct elfimage_src *src,
		      uint64_t vaddr, uint64_t size, uint64_t entsize,
		      struct elfimage_table *t)
{
	uint64_t off;

	if (!vaddr || !size || !entsize || entsize > ELFIMAGE_MAX_ENTSIZE)
		return;
	if (size > ELFIMAGE_MAX_TABLE_BYTES)
		size = ELFIMAGE_MAX_TABLE_BYTES;
	/* A table only partly in the file is read as far as it goes. */
	if (!elfimage_vaddr_offset(im, src, vaddr, 1, &off))
		return;
	t->off = off;
	t->size = size;
	t->entsize = entsize;
}

/* The tables PT_DYNAMIC points to. */
static void read_dynamic(const struct elfimage_src *src,
			 const struct elfraw_ehdr *eh, uint64_t off,
			 uint64_t size, struct elfimage *out)
{
	enum { DYN_MAX = 4096, DYN_TAGS = 35 };
	size_t esz = eh->cls == ELFCLASS64 ? 16 : 8, n, i;
	uint64_t v[DYN_TAGS] = { 0 }, relr = 0, relrsz = 0, relrent = 0, hash;
	unsigned char *buf;

	n = (size_t)(size / esz);
	if (n > DYN_MAX)
		n = DYN_MAX;
	buf = malloc(n * esz + 1);
	if (!buf)
		return;
	n = elfimage_src_read(src, off, buf, n * esz) / esz;
	for (i = 0; i < n; i++) {
		int64_t tag;
		uint64_t val;

		if (eh->cls == ELFCLASS64) {
			Elf64_Dyn d;

			memcpy(&d, buf + i * esz, sizeof(d));
			tag = d.d_tag;
			val = d.d_un.d_val;
		} else {
			Elf32_Dyn d;

			memcpy(&d, buf + i * esz, sizeof(d));
			tag = d.d_tag;
			val = d.d_un.d_val;
		}
		if (tag == DT_NULL)
			break;
		/* DT_RELR* by number: older <elf.h> do not name them. */
		if (tag == 36) /* DT_RELR */
			relr = val;
		else if (tag == 35) /* DT_RELRSZ */
			relrsz = val;
		else if (tag == 37) /* DT_RELRENT */
			relrent = val;
		else if (tag >= 0 && tag < DYN_TAGS)
			v[tag] = val;
	}
	free(buf);
	hash = v[DT_HASH];
	dyn_table(out, src, v[DT_STRTAB], v[DT_STRSZ], 1, &out->dynstr);
	dyn_table(out, src, v[DT_RELA], v[DT_RELASZ],
		  v[DT_RELAENT] ? v[DT_RELAENT] : 3 * (esz / 2), &out->rela);
	dyn_table(out, src, v[DT_REL], v[DT_RELSZ],
		  v[DT_RELENT] ? v[DT_RELENT] : esz, &out->rel);
	out->jmprel_is_rela = v[DT_PLTREL] == DT_RELA;
	dyn_table(out, src, v[DT_JMPREL], v[DT_PLTRELSZ],
		  out->jmprel_is_rela ? 3 * (esz / 2) : esz, &out->jmprel);
	dyn_table(out, src, relr, relrsz, relrent ? relrent : esz / 2,
		  &out->relr);
	if (v[DT_SYMTAB]) {
		uint64_t syment = v[DT_SYMENT]		  ? v[DT_SYMENT]
				  : eh->cls == ELFCLASS64 ? sizeof(Elf64_Sym)
							  : sizeof(Elf32_Sym);
		uint64_t nsym = 0, hoff;
		uint32_t hh[2];

		/* How many symbols: DT_HASH's nchain; else, in the usual
		 * layout, the table runs up to the string table (the
		 * section headers, read later, say it exactly). */
		if (hash && elfimage_vaddr_offset(out, src, hash, 8, &hoff) &&
		    elfimage_src_read(src, hoff, hh, 8) == 8)
			nsym = hh[1];
		else if (v[DT_STRTAB] > v[DT_SYMTAB])
			nsym = (v[DT_STRTAB] - v[DT_SYMTAB]) / syment;
		dyn_table(out, src, v[DT_SYMTAB], nsym * syment, syment,
			  &out->dynsym);
	}
}

static int read_phdrs(const struct elfimage_src *src,
		      const struct elfraw_ehdr *eh, struct arena *a,
		      struct elfimage *out)
{
	size_t n = eh->phnum, i, k = 0;
	unsigned char *buf;
	int rc = 0;

	if (n == 0 || eh->phoff == 0)
		return 0;
	if (n > ELFIMAGE_MAX_PHDRS)
		n = ELFIMAGE_MAX_PHDRS;
	/* The kernel loads no table over 64 KiB: neither is one read here,
	 * however large each entry claims to be. */
	if (n > 65536 / eh->phentsize)
		n = 65536 / eh->phentsize;
	if (n == 0)
		return 0;
	buf = malloc(n * eh->phentsize);
	if (!buf)
		return -1;
	n = elfimage_src_read(src, eh->phoff, buf, n * eh->phentsize) /
	    eh->phentsize;
	for (i = 0; i < n; i++) {
		struct elfraw_phdr ph;

		elfraw_phdr(eh, buf + i * eh->phentsize, &ph);
		k += ph.type == PT_LOAD;
	}
	/* Only the loads go to the arena, not room for every header. */
	out->load = k ? arena_alloc(a, k * sizeof(*out->load)) : NULL;
	if (k && !out->load) {
		free(buf);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct elfraw_phdr ph;

		elfraw_phdr(eh, buf + i * eh->phentsize, &ph);
		if (ph.type == PT_LOAD)
			out->load[out->nload++] =
				(struct elfimage_load){ ph.vaddr, ph.memsz,
							ph.offset, ph.filesz,
							ph.flags };
	}
	/* Then, the loads known (vaddr to offset), notes and PT_DYNAMIC. */
	for (i = 0; i < n && rc == 0; i++) {
		struct elfraw_phdr ph;

		elfraw_phdr(eh, buf + i * eh->phentsize, &ph);
		if (ph.type == PT_NOTE && !out->build_id)
			rc = scan_notes(src, ph.offset, ph.filesz,
					ph.align == 8 ? 8 : 4, a, out);
		else if (ph.type == PT_DYNAMIC)
			read_dynamic(src, eh, ph.offset, ph.filesz, out);
	}
	free(buf);
	return rc;
}

/* ---- section headers ---- */

static int cmp_sec(const void *a, const void *b)
{
	const struct elfimage_section *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The name at strtab offset name_off, interned; "?" when unreadable. */
static const char *sec_name(const struct elfimage_src *src,
			    const struct elfraw_shdr *strtab,
			    const unsigned char *cache, uint32_t name_off,
			    struct arena *a)
{
	char b[128];
	size_t n = 0;

	if (strtab && name_off < strtab->size) {
		uint64_t max = strtab->size - name_off;

		if (cache) {
			const char *p = (const char *)cache + name_off;

			n = strnlen(p, (size_t)max);
			if (n == max || n >= sizeof(b))
				n = 0;
			else
				memcpy(b, p, n);
		} else {
			size_t got = elfimage_src_read(
				src, strtab->offset + name_off, b,
				max < sizeof(b) ? (size_t)max : sizeof(b));

			n = strnlen(b, got);
			if (n == got)
				n = 0; /* no NUL within what was read */
		}
	}
	if (n == 0)
		return arena_intern(a, "?", 1);
	return arena_intern(a, b, n);
}

/* A table a section holds, capped as every table read here. */
static struct elfimage_table table_of(const struct elfraw_shdr *sh)
{
	return (struct elfimage_table){ sh->offset,
					sh->size < ELFIMAGE_MAX_TABLE_BYTES
						? sh->size
						: ELFIMAGE_MAX_TABLE_BYTES,
					sh->entsize };
}

/* The section header string table, read whole when small. */
enum { SHSTR_CACHE_MAX = 1 << 20 };

static int read_sections(const struct elfimage_src *src,
			 const struct elfraw_ehdr *eh, struct arena *a,
			 struct elfimage *out)
{
	/* Headers read 64 KiB at a time, whatever size each claims. */
	size_t chunk = eh->shentsize ? 65536 / eh->shentsize : 0;
	size_t ssz = shdr_size(eh), i, k = 0;
	uint64_t n = eh->shnum, strndx = eh->shstrndx;
	struct elfraw_shdr sh0, strtab, *strp = NULL;
	struct elfimage_section *sec = NULL;
	unsigned char *buf = NULL, *cache = NULL;
	int rc = -1;

	if (eh->shoff == 0 || eh->shentsize < ssz ||
	    !read_shdr(src, eh, 0, &sh0))
		return 0;
	/* Extended numbering: the real counts are in section 0. */
	if (n == 0)
		n = sh0.size;
	if (strndx == SHN_XINDEX)
		strndx = sh0.link;
	if (n > ELFIMAGE_MAX_SHDRS) {
		n = ELFIMAGE_MAX_SHDRS;
		out->sec_capped = true;
	}
	if (strndx < n && read_shdr(src, eh, strndx, &strtab)) {
		strp = &strtab;
		if (strtab.size <= SHSTR_CACHE_MAX) {
			cache = malloc((size_t)strtab.size + 1);
			if (!cache)
				return -1;
			strtab.size = elfimage_src_read(
				src, strtab.offset, cache, (size_t)strtab.size);
		}
	}
	if (chunk == 0)
		chunk = 1;
	buf = malloc(chunk * eh->shentsize);
	/* Gathered here, then only the sections kept go to the arena. */
	sec = malloc(ELFIMAGE_MAX_SECTIONS * sizeof(*sec));
	if (!buf || !sec)
		goto out;
	for (i = 0; i < n; i += chunk) {
		size_t want = n - i < chunk ? (size_t)(n - i) : chunk, got, j;

		got = elfimage_src_read(src, eh->shoff + i * eh->shentsize, buf,
					want * eh->shentsize) /
		      eh->shentsize;
		for (j = 0; j < got; j++) {
			struct elfraw_shdr sh;

			raw_shdr(eh, buf + j * eh->shentsize, &sh);
			if (sh.type == SHT_DYNSYM &&
			    (sh.entsize == 0 ||
			     sh.entsize > ELFIMAGE_MAX_ENTSIZE))
				; /* not a table the reader takes */
			else if (sh.type == SHT_DYNSYM && !out->dynsym.size) {
				out->dynsym = (struct elfimage_table){
					sh.offset,
					sh.size < ELFIMAGE_MAX_TABLE_BYTES
						? sh.size
						: ELFIMAGE_MAX_TABLE_BYTES,
					sh.entsize
				};
			} else if (sh.type == SHT_DYNSYM &&
				   sh.offset == out->dynsym.off) {
				/* the exact count, where PT_DYNAMIC guessed */
				out->dynsym.size =
					sh.size < ELFIMAGE_MAX_TABLE_BYTES
						? sh.size
						: ELFIMAGE_MAX_TABLE_BYTES;
			}
			if (sh.type == SHT_SYMTAB && !out->symtab.size &&
			    sh.entsize >= (eh->cls == ELFCLASS64
						   ? sizeof(Elf64_Sym)
						   : sizeof(Elf32_Sym)) &&
			    sh.entsize <= ELFIMAGE_MAX_ENTSIZE) {
				struct elfraw_shdr str;

				if (sh.link < n &&
				    read_shdr(src, eh, sh.link, &str) &&
				    str.type == SHT_STRTAB) {
					out->symtab = table_of(&sh);
					out->strtab = table_of(&str);
					out->strtab.entsize = 1;
				}
			}
			if (sh.type == SHT_NOTE && !out->build_id &&
			    scan_notes(src, sh.offset, sh.size, 4, a, out) < 0)
				goto out;
			if (!(sh.flags & SHF_ALLOC) || sh.size == 0 ||
			    sh.addr == 0)
				continue;
			/* .tbss is a template for each thread's TLS: it takes
			 * no room in the image (its address overlaps what
			 * follows). */
			if ((sh.flags & SHF_TLS) && sh.type == SHT_NOBITS)
				continue;
			out->nsec_alloc++;
			if (k == ELFIMAGE_MAX_SECTIONS) {
				out->sec_capped = true;
				continue;
			}
			sec[k].name = sec_name(src, strp, cache, sh.name, a);
			if (!sec[k].name)
				goto out;
			sec[k].addr = sh.addr;
			sec[k].size = sh.size;
			sec[k].nobits = sh.type == SHT_NOBITS;
			k++;
		}
		if (got < want)
			break;
	}
	if (k) {
		out->sec = arena_alloc(a, k * sizeof(*sec));
		if (!out->sec)
			goto out;
		qsort(sec, k, sizeof(*sec), cmp_sec);
		memcpy(out->sec, sec, k * sizeof(*sec));
	}
	out->nsec = k;
	rc = 0;
out:
	free(sec);
	free(buf);
	free(cache);
	return rc;
}

/* ---- entry points ---- */

int elfimage_read(const struct elfimage_src *src, struct arena *a,
		  struct elfimage *out, struct vms_error *err)
{
	struct elfraw_ehdr eh;

	memset(out, 0, sizeof(*out));
	if (elfraw_ehdr(src, &eh) < 0)
		return 0;
	out->e_type = eh.type;
	out->machine = eh.machine;
	out->elfclass = eh.cls;
	if (read_phdrs(src, &eh, a, out) < 0 ||
	    read_sections(src, &eh, a, out) < 0)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory reading ELF");
	out->is_image =
		(eh.type == ET_EXEC || eh.type == ET_DYN) && out->nload > 0;
	return 0;
}

int elfimage_parse(const void *buf, size_t len, struct arena *a,
		   struct elfimage *out, struct vms_error *err)
{
	struct elfimage_src src = elfimage_src_buf(buf, len, false);

	return elfimage_read(&src, a, out, err);
}

int elfimage_load(int fd, const struct stat *st, struct arena *a,
		  struct elfimage *out, struct vms_error *err)
{
	struct elfimage_src src;

	memset(out, 0, sizeof(*out));
	if ((st ? src_of(fd, st, &src, err) : elfimage_src_fd(fd, &src, err)) <
	    0)
		return err && err->err == EINVAL ? 0 : -1;
	return elfimage_read(&src, a, out, err);
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

bool elfimage_vaddr_offset(const struct elfimage *im,
			   const struct elfimage_src *src, uint64_t vaddr,
			   uint64_t len, uint64_t *off)
{
	uint64_t base = 0;
	size_t i;

	if (src->is_memory && im->nload) {
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

		base = (im->load[0].vaddr - im->load[0].offset) & ~(page - 1);
	}
	for (i = 0; i < im->nload; i++) {
		const struct elfimage_load *l = &im->load[i];
		/* In memory the whole segment is there (.bss as zeros). */
		uint64_t have = src->is_memory ? l->memsz : l->filesz;

		if (vaddr < l->vaddr || vaddr - l->vaddr > have ||
		    len > have - (vaddr - l->vaddr))
			continue;
		*off = src->is_memory ? vaddr - base
				      : vaddr - l->vaddr + l->offset;
		return true;
	}
	return false;
}
