/* inject_target.c — inject_target.h: the target's libc functions and the
 * code ranges no borrowed thread may be in, from its maps and ELF files.
 */
#include "capture/ptrace/inject_target.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elfimage.h"
#include "linux/procfile.h"
#include "linux/procfs.h"
#include "linux/smaps.h"
#include "model/snapshot.h"

#if defined(__x86_64__)

static const char *const avoided[] = {
	"malloc",	"free",	    "calloc",	      "realloc",
	"reallocarray", "memalign", "posix_memalign", "aligned_alloc",
	"valloc",	"pvalloc",  "malloc_trim",    "dlopen",
	"dlsym",	"dlclose",  "dlmopen",	      "dl_iterate_phdr",
};

static bool is_libc(const char *p)
{
	return strstr(p, "/libc.so") != NULL;
}

static bool is_ld(const char *p)
{
	const char *b = strrchr(p, '/');

	return b && strncmp(b + 1, "ld-", 3) == 0;
}

static void avoid_range(struct target *t, uint64_t lo, uint64_t hi, bool called)
{
	if (t->navoid < sizeof(t->avoid) / sizeof(t->avoid[0]))
		t->avoid[t->navoid++] = (struct range){ lo, hi, called };
}

/* The functions of `avoided` that im defines, avoided. */
static void avoid_symbols(const struct elfimage *im,
			  const struct elfimage_src *src, uint64_t bias,
			  struct target *t)
{
	struct elfimage_sym y;
	unsigned i;

	for (i = 0; i < sizeof(avoided) / sizeof(avoided[0]); i++)
		if (elfimage_symbol(im, src, avoided[i], &y) && y.size)
			avoid_range(t, y.value + bias, y.value + bias + y.size,
				    false);
}

/* The ELF image mapped at r, read from the very file mapped, handed to
 * fn with its bias; nothing when it cannot be read (its frames are then
 * not avoided by name). */
static void with_image(pid_t pid, const struct vms_region *r,
		       void (*fn)(const struct elfimage *,
				  const struct elfimage_src *, uint64_t,
				  const struct vms_region *, void *),
		       void *ctx)
{
	struct elfimage_src src;
	struct elfimage im;
	struct vms_error ignore;
	struct arena a;
	uint64_t bias;
	int fd = procfile_open(pid, r);

	if (fd < 0)
		return;
	arena_init(&a);
	if (elfimage_src_fd(fd, &src, &ignore) == 0 &&
	    elfimage_read(&src, &a, &im, &ignore) == 0 && im.is_image &&
	    elfimage_bias(&im, r->start, r->offset, &bias))
		fn(&im, &src, bias, r, ctx);
	arena_fini(&a);
	close(fd);
}

struct other {
	struct target *t;
	const char *exe;
};

static void other_image(const struct elfimage *im,
			const struct elfimage_src *src, uint64_t bias,
			const struct vms_region *r, void *ctx)
{
	struct other *o = ctx;
	struct elfimage_sym y;

	if (!elfimage_symbol(im, src, "malloc", &y))
		return;
	if (o->exe && strcmp(o->exe, r->path) == 0)
		avoid_symbols(im, src, bias, o->t);
	else
		avoid_range(o->t, r->start, r->end, true);
}

/* A module other than libc and the loader, mapped executable at r: the
 * tracer library (a detach, an attach again) avoided whole; one that
 * defines malloc (jemalloc, tcmalloc: the program's allocator) avoided
 * whole when it is a library (its entry points tail-call its internals,
 * which take its locks: a return address into any of its code is a
 * thread inside it), by its malloc family's functions when it is the
 * program itself (an allocator linked in: the rest of the program's
 * code is the program's). */
static void other_module(pid_t pid, const struct vms_region *r, const char *exe,
			 struct target *t)
{
	struct other o = { t, exe };

	if (strstr(r->path, "/libvmstrace")) {
		avoid_range(t, r->start, r->end, true);
		return;
	}
	with_image(pid, r, other_image, &o);
}

static void libc_image(const struct elfimage *im,
		       const struct elfimage_src *src, uint64_t bias,
		       const struct vms_region *r, void *ctx)
{
	struct target *t = ctx;
	struct elfimage_sym y;

	(void)r;
	if (elfimage_symbol(im, src, "dlopen", &y))
		t->dlopen = y.value + bias;
	if (elfimage_symbol(im, src, "dlsym", &y))
		t->dlsym = y.value + bias;
	if (elfimage_symbol(im, src, "__errno_location", &y))
		t->errno_loc = y.value + bias;
	avoid_symbols(im, src, bias, t);
}

static void libc_symbols(pid_t pid, const struct vms_region *r,
			 struct target *t)
{
	with_image(pid, r, libc_image, t);
}

int inject_read_target(pid_t pid, struct target *t, struct vms_error *err)
{
	struct vms_snapshot *s = NULL;
	char *buf, exe[4096], exe_link[64];
	ssize_t n;
	size_t len, i;
	int tries;

	memset(t, 0, sizeof(*t));
	for (tries = 0; tries < SMAPS_TRIES && !s; tries++) {
		char path[64];

		/* a live thread's when the main thread has exited: the
		 * leader's maps are empty (its libc not found) */
		procfs_mm_path(pid, "maps", path, sizeof(path));
		if (procfs_read_file(path, &buf, &len) < 0)
			return procfs_errno_error(err, pid, "maps", errno);
		s = vms_snapshot_new();
		if (!s) {
			free(buf);
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory");
		}
		if (smaps_parse_buffer(s, buf, len, err) < 0) {
			vms_snapshot_free(s);
			s = NULL;
		}
		free(buf);
	}
	if (!s)
		return -1;
	t->maps = s;
	procfs_mm_path(pid, "exe", exe_link, sizeof(exe_link));
	n = readlink(exe_link, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];

		if (!r->path || r->path[0] != '/' || !(r->perms & VMS_PERM_X))
			continue;
		if (is_ld(r->path) && !t->ld.lo) {
			t->ld.lo = r->start;
			t->ld.hi = r->end;
		}
		if (is_libc(r->path)) {
			if (!t->dlopen)
				libc_symbols(procfs_mm_pid(pid), r, t);
		} else if (!is_ld(r->path)) {
			other_module(procfs_mm_pid(pid), r, exe, t);
		}
	}
	if (!t->dlopen || !t->dlsym)
		return vms_error_set(err, VMS_ERR_CAPTURE, ENOENT,
				     "cannot load the tracer into process %d: "
				     "its libc has no dlopen (glibc 2.34 or "
				     "later has it; a static or musl program "
				     "cannot be attached)",
				     (int)pid);
	return 0;
}

#endif
