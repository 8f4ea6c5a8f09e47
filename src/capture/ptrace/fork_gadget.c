/* fork_gadget.c — inject_find_gadget() (inject.h): a system-call
 * instruction that already exists in the target, found by decoding.
 *
 * First choice: libc's syscall() function. Its ELF dynamic symbol gives the
 * function's bytes in the file and its size; the executable mapping of that
 * file that covers the symbol's file offset gives its address. The bytes
 * are decoded from the function's first instruction (inject_decode_syscall)
 * and are read from the file, not from the target, so the search faults no
 * page into it. The maps are parsed by the engine's parser (smaps.h), the
 * ELF by the engine's reader (elfimage.h); a mapped file is opened by the
 * engine's opener (procfile.h: the very file mapped, checked by device and
 * inode, resolved inside the target's root), and is read with pread (never
 * mmapped: a concurrent truncation would be a SIGBUS here). Fallback: the functions of the vDSO (their fallback paths
 * make the call themselves), read from the target's memory (the vDSO is
 * always resident).
 */
#include "capture/ptrace/inject.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elfimage.h"
#include "linux/procfile.h"
#include "linux/procfs.h"
#include "linux/smaps.h"
#include "model/snapshot.h"

/* The longest function whose code is read from a file: glibc's syscall()
 * is 38 bytes. */
#define MAX_FUNC 4096

/* One image searched for a gadget: the region r maps it from source
 * offset map_off. For a file, only symbols named "syscall" are tried; for
 * the vDSO (any_func), every function. */
struct gadget_scan {
	const struct elfimage *im;
	const struct elfimage_src *src;
	const struct vms_region *r;
	uint64_t map_off;
	bool any_func;
	uint64_t *addr;
};

static int try_symbol(void *ctx, const struct elfimage_sym *y)
{
	const struct gadget_scan *g = ctx;
	uint8_t code[MAX_FUNC];
	uint64_t foff;
	long at;

	if (y->type != STT_FUNC || y->shndx == SHN_UNDEF || !y->size ||
	    y->size > MAX_FUNC ||
	    (!g->any_func && strcmp(y->name, "syscall") != 0))
		return 0;
	/* The code must be in the source (a file's PT_LOAD file part) and
	 * inside the part of it this region maps. */
	if (!elfimage_vaddr_offset(g->im, g->src, y->value, y->size, &foff) ||
	    foff < g->map_off ||
	    foff + y->size > g->map_off + (g->r->end - g->r->start))
		return 0;
	if (elfimage_src_read(g->src, foff, code, (size_t)y->size) != y->size)
		return 0;
	at = inject_decode_syscall(code, (size_t)y->size);
	if (at < 0)
		return 0;
	*g->addr = g->r->start + (foff - g->map_off) + (uint64_t)at;
	return 1;
}

static bool scan_elf(const struct elfimage_src *src, const struct vms_region *r,
		     uint64_t map_off, bool any_func, uint64_t *addr)
{
	struct arena a;
	struct elfimage im;
	struct vms_error ignore;
	bool found = false;

	arena_init(&a);
	if (elfimage_read(src, &a, &im, &ignore) == 0 && im.is_image) {
		struct gadget_scan g = { &im, src, r, map_off, any_func, addr };

		found = elfimage_symbols(&im, src, try_symbol, &g) == 1;
	}
	arena_fini(&a);
	return found;
}

static bool try_file(pid_t pid, const struct vms_region *r, uint64_t *addr)
{
	struct elfimage_src src;
	struct vms_error ignore;
	bool found = false;
	/* The very file mapped, or nothing (procfile.h). */
	int fd = procfile_open(pid, r);

	if (fd < 0)
		return false;
	if (elfimage_src_fd(fd, &src, &ignore) == 0)
		found = scan_elf(&src, r, r->offset, false, addr);
	close(fd);
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
		/* The vDSO image is mapped from its start: a memory image. */
		struct elfimage_src src = elfimage_src_buf(buf, len, true);

		found = scan_elf(&src, r, 0, true, addr);
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
static bool each_exec_map(pid_t pid, const struct vms_snapshot *maps, int pass,
			  uint64_t *addr)
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

/* pid's maps through the engine's parser. NULL with *err set. The text of
 * a running process can move under the read (records that overlap, when
 * it mapped between two read() calls: a JIT, a churning allocator): read
 * again, a few times. The gadget found is checked again in the freeze. */
static struct vms_snapshot *read_maps(pid_t pid, struct vms_error *err)
{
	struct vms_snapshot *s = NULL;
	char *buf;
	size_t len;
	int tries;

	for (tries = 0; tries < SMAPS_TRIES && !s; tries++) {
		if (procfs_read_pid(pid, "maps", &buf, &len) < 0) {
			procfs_errno_error(err, pid, "maps", errno);
			return NULL;
		}
		s = vms_snapshot_new();
		if (!s) {
			vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				      "out of memory");
			free(buf);
			return NULL;
		}
		if (smaps_parse_buffer(s, buf, len, err) < 0) {
			vms_snapshot_free(s);
			s = NULL;
			if (err->err != EAGAIN)
				tries = SMAPS_TRIES; /* no retry */
		}
		free(buf);
	}
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

	/* A live thread's maps, mem and map_files when the main thread has
	 * exited (its own are empty); messages name the process. */
	pid_t mm = procfs_mm_pid(pid);

	maps = read_maps(mm, err);
	if (!maps)
		return -1;
	for (pass = first; pass <= last && !found; pass++)
		found = each_exec_map(mm, maps, pass, addr);
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
