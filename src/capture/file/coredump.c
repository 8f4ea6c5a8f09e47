/* coredump.c — ELF core dumps as a source. See coredump.h.
 *
 * Every length and offset the core claims is checked against len before
 * it is used; notes are walked with their sizes bounded by their segment.
 */
#include "capture/file/coredump.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "capture/file/coredump_int.h"
#include "elf/elfimage.h"
#include "linux/smaps.h"
#include "model/source.h"

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
/* elf_prstatus: pr_reg at 112; user_regs_struct's rsp is word 19 */
#define SP_OFFSET (112 + 19 * 8)
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
/* user_pt_regs: x0..x30, then sp */
#define SP_OFFSET (112 + 31 * 8)
#else
#define HOST_MACHINE 0
#define SP_OFFSET 0
#endif
#define PRSTATUS_PID 32 /* pr_pid, after siginfo, cursig, sigpend, sighold */
/* elf_prpsinfo (64-bit): state, sname, zomb, nice, pad, flag, uid, gid,
 * pid, ppid, pgrp, sid, fname[16], psargs[80] */
#define PRPSINFO_UID 16
#define PRPSINFO_PID 24
#define PRPSINFO_FNAME 40
#define PRPSINFO_PSARGS 56
#define PRPSINFO_SIZE 136

/* The brk start lies at most this far above the executable's image. */
#define BRK_RANGE (1ull << 30)

static uint64_t le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

bool coredump_recognise(const void *head, size_t n)
{
	const unsigned char *b = head;
	unsigned type;

	if (n < 18 || memcmp(b, ELFMAG, SELFMAG) != 0)
		return false;
	type = b[EI_DATA] == ELFDATA2MSB ? (unsigned)(b[16] << 8 | b[17])
					 : (unsigned)(b[17] << 8 | b[16]);
	return type == ET_CORE;
}

static const char *machine_name(unsigned m, char *buf, size_t n)
{
	switch (m) {
	case EM_X86_64:
		return "x86_64";
	case EM_AARCH64:
		return "aarch64";
	case EM_386:
		return "i386";
	case EM_ARM:
		return "arm";
	case EM_PPC64:
		return "ppc64";
	case EM_S390:
		return "s390x";
	case EM_RISCV:
		return "riscv";
	case 258:
		return "loongarch";
	}
	snprintf(buf, n, "e_machine %u", m);
	return buf;
}

static int by_start(const void *a, const void *b)
{
	const struct vms_region *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* ---- the notes ---- */

struct core_notes {
	const unsigned char *prpsinfo; /* PRPSINFO_SIZE bytes, or NULL */
	const unsigned char *file; /* NT_FILE desc */
	uint64_t file_len;
	uint64_t entry, vdso; /* AT_ENTRY, AT_SYSINFO_EHDR, or 0 */
	/* AT_RANDOM, else AT_EXECFN: where the kernel put them is the
	 * process's initial stack (fs/binfmt_elf.c, create_elf_tables) */
	uint64_t on_stack;
	uint64_t execfn; /* AT_EXECFN: the path exec was given */
	size_t nthreads;
};

static void auxv(struct core_notes *n, const unsigned char *d, uint64_t len)
{
	uint64_t i;

	for (i = 0; i + 16 <= len; i += 16) {
		uint64_t k = le(d + i, 8), v = le(d + i + 8, 8);

		if (k == AT_ENTRY)
			n->entry = v;
		else if (k == AT_SYSINFO_EHDR)
			n->vdso = v;
		else if (k == AT_NULL)
			break;
		if (k == AT_EXECFN)
			n->execfn = v;
		if (k == AT_RANDOM || (k == AT_EXECFN && !n->on_stack))
			n->on_stack = v;
	}
}

/* Walks the notes of [off, off + size): fills n, and the threads when
 * threads is not NULL (room for n->nthreads counted by a first pass). */
static int walk_notes(const unsigned char *b, uint64_t off, uint64_t size,
		      struct core_notes *n, struct vms_snapshot *s,
		      const char *name, struct vms_error *err)
{
	uint64_t at = 0;

	while (at + 12 <= size) {
		const unsigned char *h = b + off + at;
		uint64_t namesz = le(h, 4), descsz = le(h + 4, 4);
		uint32_t type = (uint32_t)le(h + 8, 4);
		uint64_t dat = at + 12 + ((namesz + 3) & ~3ull);
		const unsigned char *d = b + off + dat;

		if (dat > size || descsz > size - dat)
			return vms_error_file(
				err, name,
				"corrupted: a note at offset %llu runs past "
				"its segment",
				(unsigned long long)(off + at));
		if (namesz == 5 && memcmp(h + 12, "CORE", 5) == 0) {
			if (type == NT_PRSTATUS && descsz >= SP_OFFSET + 8) {
				if (s) {
					struct vms_thread *t =
						&s->threads[s->nthreads++];

					t->tid = (pid_t)le(d + PRSTATUS_PID, 4);
					t->sp = le(d + SP_OFFSET, 8);
				} else {
					n->nthreads++;
				}
			} else if (type == NT_PRPSINFO &&
				   descsz >= PRPSINFO_SIZE) {
				n->prpsinfo = d;
			} else if (type == NT_FILE) {
				n->file = d;
				n->file_len = descsz;
			} else if (type == NT_AUXV) {
				auxv(n, d, descsz);
			}
		}
		at = dat + ((descsz + 3) & ~3ull);
	}
	return 0;
}

/* A file mapping the core holds no segment for (gcore leaves out the
 * private file mappings nobody wrote to): its protection from the file's
 * own program headers, when it is an ELF image on disk; else read-only. */
static uint16_t perms_from_file(const char *path, uint64_t offset)
{
	struct arena a;
	struct elfimage im;
	struct vms_error ignore;
	uint16_t perms = VMS_PERM_R;
	size_t i;
	int fd = coredump_open_regular(path, NULL);

	if (fd < 0)
		return perms;
	arena_init(&a);
	if (elfimage_load(fd, NULL, &a, &im, &ignore) == 0 && im.is_image)
		for (i = 0; i < im.nload; i++) {
			const struct elfimage_load *l = &im.load[i];
			uint64_t lo = l->offset & ~0xfffull;

			if (offset >= lo && offset < l->offset + l->filesz) {
				perms = (uint16_t)(((l->flags & PF_R)
							    ? VMS_PERM_R
							    : 0) |
						   ((l->flags & PF_W)
							    ? VMS_PERM_W
							    : 0) |
						   ((l->flags & PF_X)
							    ? VMS_PERM_X
							    : 0));
				break;
			}
		}
	arena_fini(&a);
	close(fd);
	return perms;
}

/* What a path says of its mapping, and its device and inode on disk now
 * (the images step looks only at files with an inode). */
static void file_facts(struct vms_region *r, size_t plen)
{
	struct stat st;

	if (plen > 10 && strcmp(r->path + plen - 10, " (deleted)") == 0)
		r->flags |= VMS_RF_DELETED;
	/* shared anonymous memory is a shmem file named /dev/zero; a
	 * private mapping of /dev/zero is anonymous, with no file */
	if (strncmp(r->path, "/dev/zero", 9) == 0 ||
	    strncmp(r->path, "/SYSV", 5) == 0)
		r->perms |= VMS_PERM_SHARED;
	if (!(r->flags & VMS_RF_DELETED) && r->path[0] == '/' &&
	    stat(r->path, &st) == 0 && S_ISREG(st.st_mode)) {
		r->inode = st.st_ino;
		r->dev_major = major(st.st_dev);
		r->dev_minor = minor(st.st_dev);
	}
}

/* Paths and offsets from NT_FILE: count, page size, count x (start, end,
 * page offset), then count NUL-terminated names (gdb writes a page size
 * of 1: offsets in bytes). An entry no segment lies in becomes a region
 * of its own. */
static int file_note(struct vms_snapshot *s, const struct core_notes *n,
		     const char *name, struct vms_error *err)
{
	const unsigned char *d = n->file;
	uint64_t len = n->file_len, count, psize, i, names, prev_end = 0;
	size_t k = 0, nseg = s->nregions;

	if (len < 16)
		return vms_error_file(err, name,
				      "corrupted: its NT_FILE note is cut "
				      "short");
	count = le(d, 8);
	psize = le(d + 8, 8);
	if (count > (len - 16) / 24)
		return vms_error_file(
			err, name,
			"corrupted: its NT_FILE note claims %llu files in "
			"%llu bytes",
			(unsigned long long)count, (unsigned long long)len);
	if (!psize || (psize & (psize - 1)) || psize > (1u << 20))
		return vms_error_file(
			err, name,
			"corrupted: its NT_FILE note's page size is %llu",
			(unsigned long long)psize);
	names = 16 + count * 24;
	for (i = 0; i < count; i++) {
		const unsigned char *e = d + 16 + i * 24;
		uint64_t start = le(e, 8), end = le(e + 8, 8),
			 pgoff = le(e + 16, 8);
		const char *path = (const char *)d + names;
		const char *nul =
			names < len ? memchr(path, 0, (size_t)(len - names))
				    : NULL;
		const char *ip;
		size_t plen;
		bool overlap = false;

		if (!nul)
			return vms_error_file(err, name,
					      "corrupted: its NT_FILE note's "
					      "names are cut short");
		plen = (size_t)(nul - path);
		names += plen + 1;
		if (end <= start)
			continue;
		/* a newline as gcore copies it from maps (\\012), read
		 * back as a live capture reads it; gdb alone writes a page
		 * size of 1 here: the kernel's own note holds the names as
		 * they are, a backslash and 012 in one its own */
		ip = psize == 1 ? smaps_intern_path(&s->arena, path, plen)
				: arena_intern(&s->arena, path, plen);
		if (!ip)
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory");
		plen = strlen(ip);
		/* gcore and the kernel write the entries in address order,
		 * apart: k only moves on (the work is linear) */
		if (start < prev_end)
			return vms_error_file(
				err, name,
				"corrupted: its NT_FILE note's entry at "
				"0x%llx is out of order",
				(unsigned long long)start);
		prev_end = end;
		while (k > 0 && s->regions[k - 1].end > start)
			k--; /* a region that began before the last entry's
			      * end, once: the entries are apart */
		for (; k < nseg && s->regions[k].start < end; k++) {
			struct vms_region *r = &s->regions[k];

			overlap |= r->end > start;
			if (r->start < start || r->end > end)
				continue;
			r->path = ip;
			r->offset = pgoff * psize + (r->start - start);
			r->vmflags_mask &= ~(uint32_t)VMS_VF_AC;
			file_facts(r, plen);
		}
		if (!overlap) {
			struct vms_region *r = vms_snapshot_add_region(s);

			if (!r)
				return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
						     "out of memory");
			r->start = start;
			r->end = end;
			r->path = ip;
			r->offset = pgoff * psize;
			r->vmflags = "";
			r->flags = VMS_RF_NO_COUNTERS;
			r->perms = perms_from_file(ip, r->offset);
			file_facts(r, plen);
		}
	}
	if (s->nregions > nseg)
		qsort(s->regions, s->nregions, sizeof(*s->regions), by_start);
	return 0;
}

/* ---- names the core implies: [vdso], [vsyscall], [stack], [heap] ---- */

/* x86-64's vsyscall page (arch/x86/include/uapi/asm/vsyscall.h) */
#define VSYSCALL_ADDR 0xffffffffff600000ull

static ptrdiff_t anon_at(struct vms_snapshot *s, uint64_t addr)
{
	ptrdiff_t k = addr ? vms_snapshot_find_index(s, addr) : -1;

	return k >= 0 && !s->regions[k].path ? k : -1;
}

/* The end of the executable's image in memory: from its ELF headers in
 * the core's memory, or on disk; else the end of its last mapping. */
static uint64_t image_end(struct vms_snapshot *s, const char *exe)
{
	const struct vms_region *first = NULL, *last = NULL;
	struct elfimage im;
	struct vms_error ignore;
	unsigned char *buf;
	uint64_t bias, end = 0;
	size_t i;
	ssize_t got;

	for (i = 0; i < s->nregions; i++)
		if (s->regions[i].path == exe) {
			if (!first && s->regions[i].offset == 0)
				first = &s->regions[i];
			last = &s->regions[i];
		}
	if (!last)
		return 0;
	if (first && (buf = malloc(16384))) {
		struct arena a;

		arena_init(&a);
		got = coredump_read(s, first->start, buf,
				    vms_region_size(first) < 16384
					    ? vms_region_size(first)
					    : 16384,
				    &ignore);
		if (got > 0 &&
		    elfimage_parse(buf, (size_t)got, &a, &im, &ignore) == 0 &&
		    im.is_image && elfimage_bias(&im, first->start, 0, &bias))
			end = elfimage_end(&im) + bias;
		arena_fini(&a);
		free(buf);
	}
	if (!end && first) {
		int fd = coredump_open_regular(first->path, NULL);
		struct arena a;

		arena_init(&a);
		if (fd >= 0 && elfimage_load(fd, NULL, &a, &im, &ignore) == 0 &&
		    im.is_image && elfimage_bias(&im, first->start, 0, &bias))
			end = elfimage_end(&im) + bias;
		if (fd >= 0)
			close(fd);
		arena_fini(&a);
	}
	if (end) {
		uint64_t e;

		end = (end + s->cap.page_size - 1) & ~(s->cap.page_size - 1);
		/* only a mapping that begins inside the image ends it: one
		 * of the file elsewhere is the program's own (it mapped its
		 * executable again), and the brk heap follows the image */
		for (e = end, i = 0; i < s->nregions; i++)
			if (s->regions[i].path == exe &&
			    s->regions[i].start < end && s->regions[i].end > e)
				e = s->regions[i].end;
		return e;
	}
	/* no ELF headers: the end of the run of the file's mappings from the
	 * first, each where the one before ended */
	if (first) {
		const struct vms_region *r = first;

		while (r + 1 < s->regions + s->nregions && r[1].path == exe &&
		       r[1].start == r->end)
			r++;
		return r->end;
	}
	return last->end;
}

static void implied_names(struct vms_snapshot *s, const struct core_notes *n)
{
	ptrdiff_t k = anon_at(s, n->vdso);
	const char *exe = NULL;
	uint64_t end;
	size_t i;
	bool named;

	if (k >= 0)
		s->regions[k].path = "[vdso]";
#ifdef __x86_64__
	/* the legacy vsyscall page, at its fixed address (the kernel's
	 * core has it, unnamed) */
	if ((k = anon_at(s, VSYSCALL_ADDR)) >= 0 &&
	    s->regions[k].start == VSYSCALL_ADDR)
		s->regions[k].path = "[vsyscall]";
#endif
	/* [stack] is the initial stack, where the auxiliary vector points;
	 * the main thread's stack pointer may be elsewhere (a Go program
	 * runs its goroutines on stacks in its heap arenas) and is taken
	 * only when that pointer is in no anonymous region of the core. */
	named = (k = anon_at(s, n->on_stack)) >= 0;
	if (named)
		s->regions[k].path = "[stack]";
	for (i = 0; !named && i < s->nthreads; i++)
		if (s->threads[i].tid == s->proc.pid &&
		    (k = anon_at(s, s->threads[i].sp)) >= 0) {
			s->regions[k].path = "[stack]";
			named = true;
		}
	/* the initial stack is charged to the commit limit (VM_ACCOUNT in
	 * VM_STACK_FLAGS), as the brk heap is (below) */
	if (named && (s->regions[k].perms & VMS_PERM_W))
		s->regions[k].vmflags_mask |= VMS_VF_AC;
	if (n->entry && (k = vms_snapshot_find_index(s, n->entry)) >= 0)
		exe = s->regions[k].path;
	if (!exe || exe[0] != '/')
		return;
	s->proc.exe = exe;
	end = image_end(s, exe);
	for (i = 0; end && i < s->nregions; i++) {
		struct vms_region *r = &s->regions[i];

		if (r->start < end || r->path ||
		    (r->perms & (VMS_PERM_R | VMS_PERM_W)) !=
			    (VMS_PERM_R | VMS_PERM_W))
			continue;
		if (r->start - end < BRK_RANGE) {
			r->path = "[heap]";
			r->vmflags_mask |= VMS_VF_AC;
		}
		break;
	}
}

/* ---- the load ---- */

static int by_vaddr(const void *a, const void *b)
{
	const struct core_seg *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* The ELF header's checks: 64-bit, this byte order, this machine. */
static int check_header(const unsigned char *b, size_t len, const char *name,
			Elf64_Ehdr *eh, struct vms_error *err)
{
	char mb[32], hb[32];
	unsigned m;

	if (b[EI_CLASS] != ELFCLASS64)
		return vms_error_file(err, name,
				      "a 32-bit ELF core: vmscope reads "
				      "64-bit cores only");
	if (b[EI_DATA] != ELFDATA2LSB)
		return vms_error_file(err, name,
				      "a big-endian ELF core: vmscope reads "
				      "cores of this machine's byte order "
				      "(little-endian) only");
	if (len < sizeof(*eh))
		return vms_error_file(
			err, name,
			"cut short after %zu bytes, inside its ELF header",
			len);
	memcpy(eh, b, sizeof(*eh));
	m = eh->e_machine;
	if (m != HOST_MACHINE || !HOST_MACHINE)
		return vms_error_file(
			err, name,
			"a core of another architecture (%s); this vmscope "
			"runs on %s and reads its cores only",
			machine_name(m, mb, sizeof(mb)),
			HOST_MACHINE
				? machine_name(HOST_MACHINE, hb, sizeof(hb))
				: "a machine it has no core layout for");
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return vms_error_file(
			err, name, "corrupted: program header size %u, not %zu",
			eh->e_phentsize, sizeof(Elf64_Phdr));
	return 0;
}

/* The program header count: past 65534, in section header 0's sh_info. */
static int phnum_of(const unsigned char *b, size_t len, const Elf64_Ehdr *eh,
		    const char *name, uint64_t *out, struct vms_error *err)
{
	Elf64_Shdr sh;

	*out = eh->e_phnum;
	if (eh->e_phnum != PN_XNUM)
		return 0;
	if (eh->e_shoff > len || len - eh->e_shoff < sizeof(sh))
		return vms_error_file(err, name,
				      "cut short: its section header 0 (the "
				      "program header count) is missing");
	memcpy(&sh, b + eh->e_shoff, sizeof(sh));
	*out = sh.sh_info;
	return 0;
}

static int segments(const unsigned char *b, size_t len, const char *name,
		    struct vms_snapshot *s, struct core_priv *p,
		    struct core_notes *n, struct vms_error *err)
{
	Elf64_Ehdr eh;
	uint64_t phnum, i;
	bool notes = false;

	if (check_header(b, len, name, &eh, err) < 0 ||
	    phnum_of(b, len, &eh, name, &phnum, err) < 0)
		return -1;
	if (eh.e_phoff > len || phnum > (len - eh.e_phoff) / sizeof(Elf64_Phdr))
		return vms_error_file(
			err, name,
			"cut short after %zu bytes: its %llu program "
			"headers end past it",
			len, (unsigned long long)phnum);
	p->seg = arena_alloc(&s->arena, (phnum ? phnum : 1) * sizeof(*p->seg));
	if (!p->seg)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	for (i = 0; i < phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, b + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if ((ph.p_type == PT_LOAD || ph.p_type == PT_NOTE) &&
		    (ph.p_offset > len || ph.p_filesz > len - ph.p_offset))
			return vms_error_file(
				err, name,
				"cut short after %zu bytes: its segment %llu "
				"needs %llu",
				len, (unsigned long long)i,
				(unsigned long long)(ph.p_offset +
						     ph.p_filesz));
		if (ph.p_type == PT_NOTE) {
			notes = true;
			if (walk_notes(b, ph.p_offset, ph.p_filesz, n, NULL,
				       name, err) < 0)
				return -1;
		} else if (ph.p_type == PT_LOAD && ph.p_memsz) {
			struct core_seg *g = &p->seg[p->nseg++];

			if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
				return vms_error_file(
					err, name,
					"corrupted: segment %llu wraps "
					"around the address space",
					(unsigned long long)i);
			*g = (struct core_seg){ ph.p_vaddr, ph.p_memsz,
						ph.p_offset,
						ph.p_filesz < ph.p_memsz
							? ph.p_filesz
							: ph.p_memsz,
						ph.p_flags };
		}
	}
	if (!notes)
		return vms_error_file(err, name,
				      "its notes are missing (no PT_NOTE "
				      "segment): not a whole core");
	return 0;
}

static int regions(const char *name, struct vms_snapshot *s,
		   struct core_priv *p, struct vms_error *err)
{
	size_t i;

	qsort(p->seg, p->nseg, sizeof(*p->seg), by_vaddr);
	if (vms_snapshot_reserve(s, p->nseg) < 0)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	for (i = 0; i < p->nseg; i++) {
		const struct core_seg *g = &p->seg[i];
		struct vms_region *r;

		if (i && g->vaddr < p->seg[i - 1].vaddr + p->seg[i - 1].memsz)
			return vms_error_file(
				err, name,
				"corrupted: its segments at 0x%llx and "
				"0x%llx overlap",
				(unsigned long long)p->seg[i - 1].vaddr,
				(unsigned long long)g->vaddr);
		if (!(r = vms_snapshot_add_region(s)))
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory");
		r->start = g->vaddr;
		r->end = g->vaddr + g->memsz;
		r->vmflags = "";
		r->flags = VMS_RF_NO_COUNTERS;
		r->perms = (uint16_t)(((g->flags & PF_R) ? VMS_PERM_R : 0) |
				      ((g->flags & PF_W) ? VMS_PERM_W : 0) |
				      ((g->flags & PF_X) ? VMS_PERM_X : 0));
		/* whether anonymous memory is charged to the commit limit
		 * (VmFlags' ac) is not in a core: MAP_NORESERVE memory is
		 * not, and its Committed (its Rss + Swap) is then not known;
		 * the brk heap and the initial stack are (implied_names()),
		 * and what a heap walk knows (coredump.h) */
	}
	return 0;
}

/* Threads (a second walk of the notes, into room counted by the first)
 * and the process. */
static int threads_and_process(const unsigned char *b, size_t len,
			       const char *name, struct vms_snapshot *s,
			       const struct core_notes *n,
			       struct vms_error *err)
{
	const Elf64_Ehdr *eh = (const void *)b;
	uint64_t phnum, i;
	struct core_notes again = { 0 };
	Elf64_Ehdr h;

	memcpy(&h, eh, sizeof(h));
	if (phnum_of(b, len, &h, name, &phnum, err) < 0)
		return -1;
	s->threads = arena_alloc(&s->arena, n->nthreads * sizeof(*s->threads));
	if (!s->threads)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	for (i = 0; i < phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, b + h.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_NOTE &&
		    walk_notes(b, ph.p_offset, ph.p_filesz, &again, s, name,
			       err) < 0)
			return -1;
	}
	if (n->prpsinfo) {
		const unsigned char *d = n->prpsinfo;
		const char *a = (const char *)d + PRPSINFO_PSARGS;
		const char *ae = memchr(a, 0, 80);
		size_t al = ae ? (size_t)(ae - a) : 80;

		s->proc.pid = (pid_t)le(d + PRPSINFO_PID, 4);
		s->proc.uid = (uid_t)le(d + PRPSINFO_UID, 4);
		while (al && a[al - 1] == ' ')
			al--;
		s->proc.cmdline = arena_strndup(&s->arena, a, al);
		if (!s->proc.cmdline)
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory");
	} else {
		s->proc.pid = s->threads[0].tid;
	}
	return 0;
}

/* The process's name (coredump_name.c: its memory read through the source,
 * its executable known), the main thread's too. */
static int name_process(struct vms_snapshot *s, const struct core_notes *n,
			struct vms_error *err)
{
	size_t i;

	if (n->prpsinfo) {
		const char *f = (const char *)n->prpsinfo + PRPSINFO_FNAME,
			   *a = (const char *)n->prpsinfo + PRPSINFO_PSARGS;
		const char *fe = memchr(f, 0, 16);

		s->proc.name =
			coredump_name(s, f, fe ? (size_t)(fe - f) : 16, a,
				      strlen(s->proc.cmdline), n->execfn);
		if (!s->proc.name)
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory");
	}
	for (i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == s->proc.pid)
			s->threads[i].name = s->proc.name;
	return 0;
}

int coredump_load(const void *buf, size_t len, const char *name, bool consume,
		  struct vms_snapshot *s, struct vms_error *err)
{
	const unsigned char *b = buf;

	(void)consume;
	struct core_priv *p;
	struct core_notes n = { 0 };

	if (!coredump_recognise(buf, len))
		return vms_error_file(err, name, "not an ELF core dump");
	p = arena_alloc(&s->arena, sizeof(*p));
	if (!p)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	p->buf = b;
	p->len = len;
	if (segments(b, len, name, s, p, &n, err) < 0)
		return -1;
	if (!n.nthreads)
		return vms_error_file(err, name,
				      "its notes are missing: no NT_PRSTATUS "
				      "(no thread): not a whole core");
	if (!n.file)
		return vms_error_file(err, name,
				      "its notes are missing: no NT_FILE (the "
				      "mapped files' paths)");
	if (regions(name, s, p, err) < 0 ||
	    threads_and_process(b, len, name, s, &n, err) < 0 ||
	    file_note(s, &n, name, err) < 0)
		return -1;
	s->src.ops = &coredump_source;
	s->src.priv = p;
	s->src.caps = VMS_SRC_MEMORY | VMS_SRC_FILES | VMS_SRC_CONSISTENT;
	s->src.pid = 0;
	s->cap.backend = "core";
	s->cap.kernel = NULL; /* not in a core */
	s->cap.no_counters = true;
	s->cap.frozen = true; /* one instant, however long it took */
	s->cap.no_timing = true; /* how long, and when on which clock: not
				  * said */
	s->cap.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	implied_names(s, &n);
	return name_process(s, &n, err);
}
