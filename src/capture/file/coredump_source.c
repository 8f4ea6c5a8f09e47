/* coredump_source.c — a loaded core as the snapshot's source: its memory
 * from the PT_LOAD bytes, its files from disk when they are the build the
 * core mapped. See coredump.h and coredump_int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mapguard.h"
#include "capture/file/coredump.h"
#include "capture/file/coredump_int.h"
#include "elf/elfimage.h"
#include "model/source.h"

ssize_t coredump_read(struct vms_snapshot *s, uint64_t addr, void *buf,
		      size_t len, struct vms_error *err)
{
	const struct core_priv *p = s->src.priv;
	unsigned char *out = buf;
	size_t done = 0, lo = 0, hi;

	if (!p || !p->buf)
		return 0;
	if (mapguard_hit(p->buf))
		return vms_error_set(err, VMS_ERR_FILE, EIO,
				     "the core was truncated while it was "
				     "read: its memory is no longer there");
	hi = p->nseg;
	while (lo < hi) { /* the first segment ending above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (p->seg[mid].vaddr + p->seg[mid].memsz <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; done < len && lo < p->nseg; lo++) {
		const struct core_seg *g = &p->seg[lo];
		uint64_t at = addr + done, in, n;

		if (at < g->vaddr || at >= g->vaddr + g->filesz)
			break; /* a hole, or not dumped: not present */
		in = at - g->vaddr;
		n = g->filesz - in;
		if (n > len - done)
			n = len - done;
		memcpy(out + done, p->buf + g->off + in, (size_t)n);
		done += (size_t)n;
		if (at + n < g->vaddr + g->memsz)
			break; /* the rest of this segment was not dumped */
	}
	return (ssize_t)done;
}

int coredump_open_regular(const char *path, struct stat *st)
{
	struct stat mine;
	int fd;

	if (!st)
		st = &mine;
	if (!path || path[0] != '/' || stat(path, st) < 0 ||
	    !S_ISREG(st->st_mode))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd >= 0 && (fstat(fd, st) < 0 || !S_ISREG(st->st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The build id the core's memory holds for the file of r (the headers of
 * its offset-0 mapping), or NULL. */
static const char *memory_build_id(struct vms_snapshot *s,
				   const struct vms_region *r, struct arena *a)
{
	enum { HDR_MAX = 16384 };
	unsigned char *buf;
	struct elfimage im;
	struct vms_error ignore;
	const char *id = NULL;
	size_t i;
	ssize_t got;

	for (i = 0; i < s->nregions; i++)
		if (s->regions[i].path == r->path && s->regions[i].offset == 0)
			break;
	if (i == s->nregions || !(buf = malloc(HDR_MAX)))
		return NULL;
	got = coredump_read(s, s->regions[i].start, buf,
			    vms_region_size(&s->regions[i]) < HDR_MAX
				    ? vms_region_size(&s->regions[i])
				    : HDR_MAX,
			    &ignore);
	if (got > 0 && elfimage_parse(buf, (size_t)got, a, &im, &ignore) == 0)
		id = im.build_id;
	free(buf);
	return id;
}

static int core_open(struct vms_snapshot *s, const struct vms_region *r,
		     struct stat *st)
{
	struct arena a;
	struct elfimage im;
	struct vms_error ignore;
	struct stat mine;
	const char *mem_id;
	int fd;

	if (!st)
		st = &mine;
	if ((r->flags & VMS_RF_DELETED) ||
	    (fd = coredump_open_regular(r->path, st)) < 0)
		return -1;
	arena_init(&a);
	mem_id = memory_build_id(s, r, &a);
	if (mem_id && elfimage_load(fd, st, &a, &im, &ignore) == 0 &&
	    (!im.build_id || strcmp(im.build_id, mem_id) != 0)) {
		/* Another build than the one mapped: its sections would be
		 * wrong. The images step reads the headers from memory. */
		const char *why = arena_printf(
			&a,
			"%s on disk is not the file the core "
			"mapped (build id %s, the core's %s): "
			"its sections are not shown",
			r->path, im.build_id ? im.build_id : "none", mem_id);

		if (why)
			vms_snapshot_note(s, "images", why);
		close(fd);
		fd = -1;
	}
	arena_fini(&a);
	return fd;
}

static void core_release(struct vms_snapshot *s)
{
	struct core_priv *p = s->src.priv;

	if (!p)
		return;
	if (p->map) {
		mapguard_remove(p->map);
		munmap(p->map, p->maplen);
	}
	p->map = NULL;
	p->buf = NULL;
}

const struct vms_source_ops coredump_source = {
	.name = "core",
	.read_mem = coredump_read,
	.open_file = core_open,
	.release = core_release,
};

void coredump_own(struct vms_snapshot *s, void *map, size_t len)
{
	struct core_priv *p = s->src.priv;

	p->map = map;
	p->maplen = len;
}
