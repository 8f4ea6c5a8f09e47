/* bpfmaps.c — bpfmaps.h: the skeleton (bpfmaps.skel.h, made at build time
 * by bpftool from trace/bpf/bpfmaps.bpf.c) loaded for one tgid, its ring
 * buffer read into a tracedb, the target's modules from its maps.
 */
#include "trace/bpfmaps.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "elf/elfimage.h"
#include "linux/procfile.h"
#include "linux/procfs.h"
#include "linux/smaps.h"
#include "model/snapshot.h"
#include "trace/bpf/bpfmaps.skel.h" /* made by the build (Makefile) */
#include "trace/bpf/bpfmaps_event.h"
#include "trace/tracedb.h"
#include "trace/tracesym.h"

#define PROT_EXEC_ 4
#define MAP_FIXED_ 0x10
#define MREMAP_FIXED_ 2
#define MREMAP_DONTUNMAP_ 4

struct range {
	uint64_t start, end;
};

/* a file already given to tracesym */
struct known_file {
	uint64_t dev, ino, bias;
};

struct bpfmaps {
	struct bpfmaps_bpf *skel;
	struct ring_buffer *rb;
	struct tracedb *db;
	struct tracesym *sym;
	bool own; /* db and sym are its own (else a tracer's) */
	bool seeded; /* the pages reserved at the start told to db */
	char *skip_path; /* a module whose frames are left out, or NULL */
	struct range skip[4]; /* its executable ranges */
	size_t nskip;
	uint64_t page;
	pid_t pid;
	uint64_t start_ns, end_ns;
	bool ended, nomem;
	/* executable mappings as last read, by address */
	struct range *exec;
	size_t nexec;
	struct known_file *files;
	size_t nfiles, files_cap;
	/* addresses found not to be code (a direct-mapped cache: a frame
	 * past the end of a walk is asked of the kernel once), forgotten
	 * when code may have been mapped, and every second (mprotect) */
	uint64_t notcode[1024];
	uint64_t notcode_since;
	/* the call frame rule by pc (direct-mapped; ok 0: none there),
	 * forgotten when code is mapped */
	struct {
		uint64_t pc;
		int ok;
		struct tracesym_cfa c;
	} cfa[4096];
	uint64_t madv_calls, madv_bytes;
	uint64_t events;
	uint64_t from_ns; /* bpfmaps_from(): the events before it left out */
};

/* ---- libbpf's messages: kept for an error, never printed ---- */

static char last_msg[256];

static int keep_msg(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[sizeof(last_msg)];
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	if (n)
		memcpy(last_msg, buf, n + 1);
	return 0;
}

uint64_t bpfmaps_now(const struct bpfmaps *bm)
{
	uint64_t t = bm->ended ? bm->end_ns : vms_mono_ns();

	return t > bm->start_ns ? t - bm->start_ns : 0;
}

/* ---- the target's modules ---- */

static bool known_file(struct bpfmaps *bm, const struct vms_region *r)
{
	size_t i;

	for (i = 0; i < bm->nfiles; i++)
		if (bm->files[i].ino == r->inode &&
		    bm->files[i].dev ==
			    ((uint64_t)r->dev_major << 32 | r->dev_minor))
			return true;
	return false;
}

/* The file of region r (its first mapping: offset 0) given to tracesym
 * at its bias. */
static void add_module(struct bpfmaps *bm, const struct vms_region *r)
{
	struct known_file *f;
	struct elfimage im;
	struct arena a;
	uint64_t bias;
	int fd, fd2;

	if (!bm->sym || known_file(bm, r))
		return;
	if (bm->nfiles == bm->files_cap) {
		size_t cap = bm->files_cap ? bm->files_cap * 2 : 32;
		void *p = realloc(bm->files, cap * sizeof(*bm->files));

		if (!p)
			return;
		bm->files = p;
		bm->files_cap = cap;
	}
	f = &bm->files[bm->nfiles++];
	f->dev = (uint64_t)r->dev_major << 32 | r->dev_minor;
	f->ino = r->inode;
	f->bias = 0;
	if ((fd = procfile_open(bm->pid, r)) < 0)
		return; /* its frames stay unnamed */
	arena_init(&a);
	if (elfimage_load(fd, NULL, &a, &im, NULL) == 0 && im.is_image &&
	    elfimage_bias(&im, r->start, r->offset, &bias) &&
	    (fd2 = dup(fd)) >= 0) {
		f->bias = bias;
		tracesym_module_fd(bm->sym, r->path, fd2, bias);
	}
	arena_fini(&a);
	close(fd);
}

/* /proc/PID/maps read again: the executable ranges, and every file
 * mapped there not yet known given to tracesym. */
static int read_maps(struct bpfmaps *bm)
{
	struct vms_snapshot *s;
	struct range *ex;
	char *buf = NULL;
	size_t len = 0, i, n = 0;

	if (procfs_read_pid(bm->pid, "maps", &buf, &len) < 0)
		return -1;
	s = vms_snapshot_new();
	if (!s || smaps_parse_buffer(s, buf, len, NULL) < 0) {
		vms_snapshot_free(s);
		free(buf);
		return -1;
	}
	free(buf);
	ex = malloc((s->nregions + 1) * sizeof(*ex));
	if (!ex) {
		vms_snapshot_free(s);
		return -1;
	}
	bm->nskip = 0;
	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];

		/* the pages reserved when the trace began (PROT_NONE): what
		 * an mprotect may commit; later, the events say */
		if (!bm->seeded &&
		    !(r->perms & (VMS_PERM_R | VMS_PERM_W | VMS_PERM_X)) &&
		    tracedb_reserved(bm->db, r->start, r->end - r->start,
				     true) < 0) {
			vms_snapshot_free(s);
			free(ex);
			return -1;
		}
		if (!(r->perms & VMS_PERM_X))
			continue;
		ex[n++] = (struct range){ r->start, r->end };
		if (bm->skip_path && r->path &&
		    strcmp(r->path, bm->skip_path) == 0 &&
		    bm->nskip < sizeof(bm->skip) / sizeof(bm->skip[0]))
			bm->skip[bm->nskip++] =
				(struct range){ r->start, r->end };
		if (r->path && r->path[0] == '/' && r->inode)
			add_module(bm, r);
	}
	vms_snapshot_free(s);
	bm->seeded = true;
	free(bm->exec);
	bm->exec = ex;
	bm->nexec = n;
	return 0;
}

static bool in_exec(const struct bpfmaps *bm, uint64_t ip)
{
	size_t lo = 0, hi = bm->nexec;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ip < bm->exec[mid].start)
			hi = mid;
		else if (ip >= bm->exec[mid].end)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* Whether ip is code of the target: in an executable mapping known, or
 * in one the kernel has now (a library loaded since the maps were read:
 * read again). */
static bool is_code(struct bpfmaps *bm, uint64_t ip)
{
	uint64_t start, end, *no = &bm->notcode[(ip >> 4) % 1024];
	bool exec = false;
	int rc;

	if (in_exec(bm, ip))
		return true;
	if (*no == ip)
		return false;
	rc = procfs_vma_at(bm->pid, ip, &start, &end, &exec);
	/* an executable mapping not known, or no ioctl to ask: read */
	if (rc == 0 || (rc == 1 && !exec) || read_maps(bm) < 0 ||
	    !in_exec(bm, ip)) {
		*no = ip;
		return false;
	}
	return true;
}

static void forget_notcode(struct bpfmaps *bm)
{
	memset(bm->notcode, 0, sizeof(bm->notcode));
	bm->notcode_since = vms_mono_ns();
}

/* ---- events ---- */

/* The word at addr of the target's stack, from the event's copy. */
static bool word_at(const struct bpfmaps_event *e, uint64_t addr, uint64_t *w)
{
	if (addr < e->sp || addr - e->sp > e->stack_bytes ||
	    e->stack_bytes - (addr - e->sp) < 8)
		return false;
	memcpy(w, e->stack + (addr - e->sp), 8);
	return true;
}

/* tracesym_cfa(), remembered by pc. */
static int cfa_at(struct bpfmaps *bm, uint64_t pc, struct tracesym_cfa *c)
{
	size_t k = (size_t)((pc ^ pc >> 12) % 4096);

	if (bm->cfa[k].pc != pc || !pc) {
		bm->cfa[k].pc = pc;
		bm->cfa[k].ok = tracesym_cfa(bm->sym, pc, &bm->cfa[k].c) == 0;
	}
	*c = bm->cfa[k].c;
	return bm->cfa[k].ok ? 0 : -1;
}

/* The callers of the syscall's instruction (ip) unwound by the
 * call frame information over the stack copy, as far as it reaches and
 * the rules are a register plus an offset; how many, in out. */
static unsigned unwind(struct bpfmaps *bm, const struct bpfmaps_event *e,
		       uint64_t *out, unsigned max)
{
	uint64_t pc = e->ip, sp = e->sp, bp = e->bp, cfa, ra;
	struct tracesym_cfa c;
	unsigned n = 0;

	if (!bm->sym || !is_code(bm, pc))
		return 0;
	while (n < max) {
		/* a caller's rules are those of its call, before ra */
		if (cfa_at(bm, n ? pc - 1 : pc, &c) < 0)
			break;
		if (c.reg == 7)
			cfa = sp + (uint64_t)c.off;
		else if (c.reg == 6)
			cfa = bp + (uint64_t)c.off;
		else
			break;
		if (cfa <= sp || !word_at(e, cfa - 8, &ra) || !is_code(bm, ra))
			break;
		if (c.rbp_saved && !word_at(e, cfa + (uint64_t)c.rbp_off, &bp))
			break;
		out[n++] = ra;
		sp = cfa;
		pc = ra;
	}
	return n;
}

/* The stack of e, innermost first (the caller of the syscall's wrapper
 * first, as a traced launch records it), in out; its length. By the call
 * frame information; without it at ip, the word at the stack pointer
 * (the return address, when the wrapper has no frame) if it is code, else
 * ip alone. */
static bool skipped(const struct bpfmaps *bm, uint64_t ip)
{
	size_t i;

	for (i = 0; i < bm->nskip; i++)
		if (ip >= bm->skip[i].start && ip < bm->skip[i].end)
			return true;
	return false;
}

static unsigned stack_of(struct bpfmaps *bm, const struct bpfmaps_event *e,
			 uint64_t *out)
{
	unsigned n = unwind(bm, e, out, BPFMAPS_MAX_FRAMES), i, k = 0;
	uint64_t w;

	if (!n)
		out[n++] = word_at(e, e->sp, &w) && is_code(bm, w) ? w : e->ip;
	/* the skipped module's frames out (the injected library's mmap,
	 * which forwards the program's call: a launch's stacks start at the
	 * program's caller) */
	for (i = 0; i < n; i++)
		if (!skipped(bm, out[i]) || (k == 0 && i == n - 1))
			out[k++] = out[i];
	return k;
}

/* The kernel rounds a length up to pages. */
static uint64_t pages(const struct bpfmaps *bm, uint64_t len)
{
	return (len + bm->page - 1) & ~(bm->page - 1);
}

/* mprotect: to PROT_NONE, its commits end (reserved again); to access,
 * the reserved pages in it committed by its stack (unwound only then:
 * most mprotects, the loader's RELRO and a JIT's flips, commit nothing). */
static int protect(struct bpfmaps *bm, const struct bpfmaps_event *e,
		   uint64_t t)
{
	uint64_t frames[BPFMAPS_MAX_FRAMES], len = pages(bm, e->len);
	int64_t st;

	if (e->prot & PROT_EXEC_) { /* code may be there now */
		memset(bm->cfa, 0, sizeof(bm->cfa));
		forget_notcode(bm);
	}
	if (!e->prot)
		return tracedb_protect(bm->db, 0, e->addr, len, true, t);
	if (!tracedb_reserved_in(bm->db, e->addr, len))
		return 0;
	st = tracedb_stack(bm->db, frames, stack_of(bm, e, frames));
	if (st < 0)
		return -1;
	return tracedb_protect(bm->db, (uint32_t)st, e->addr, len, false, t);
}

/* Whether ip returns into libc's sbrk (its name, by the symbols). */
static bool in_sbrk(struct bpfmaps *bm, uint64_t ip)
{
	struct vms_trace_frame f = { .ip = ip };
	struct arena a;
	bool yes;

	if (!bm->sym)
		return false;
	arena_init(&a);
	yes = tracesym_frame(bm->sym, ip, &a, &f) == 0 && f.function &&
	      (strcmp(f.function, "sbrk") == 0 ||
	       strcmp(f.function, "__sbrk") == 0) &&
	      f.module && strstr(f.module, "libc.so");
	arena_fini(&a);
	return yes;
}

static int take(struct bpfmaps *bm, const struct bpfmaps_event *e)
{
	uint64_t frames[BPFMAPS_MAX_FRAMES];
	unsigned n;
	uint64_t t = e->t_ns > bm->start_ns ? e->t_ns - bm->start_ns : 0;
	int64_t st;

	if (e->t_ns < bm->from_ns) /* before the library's trace began */
		return 0;
	tracedb_thread(bm->db, (int32_t)e->tid);
	if (e->op == BPFMAPS_MADVISE) {
		bm->madv_calls++;
		bm->madv_bytes += e->len;
		return 0;
	}
	if (e->op == BPFMAPS_MPROTECT)
		return protect(bm, e, t);
	if (e->op == BPFMAPS_MUNMAP)
		return tracedb_unmap(bm->db, e->addr, e->len, t);
	if (e->op == BPFMAPS_BRK && e->addr <= e->old_addr) {
		if (e->addr == e->old_addr)
			return 0; /* asked where the break is, or refused */
		return tracedb_unmap(bm->db, e->addr, e->old_addr - e->addr, t);
	}
	if (e->op == BPFMAPS_MMAP && (e->prot & PROT_EXEC_))
		/* code may be mapped there now, another where some was */
		memset(bm->cfa, 0, sizeof(bm->cfa));
	if ((e->op == BPFMAPS_MMAP && (e->prot & PROT_EXEC_)) ||
	    e->op == BPFMAPS_MREMAP)
		forget_notcode(bm);
	n = stack_of(bm, e, frames);
	if (e->op == BPFMAPS_BRK && n > 1 && in_sbrk(bm, frames[0])) {
		/* brk's wrapper is called by sbrk's: the caller of sbrk
		 * first, as a launch records it (it interposes sbrk) */
		memmove(frames, frames + 1, (n - 1) * sizeof(*frames));
		n--;
	}
	st = tracedb_stack(bm->db, frames, n);
	if (st < 0)
		return -1;
	switch (e->op) {
	case BPFMAPS_MMAP:
		if ((e->arg & MAP_FIXED_) &&
		    tracedb_unmap(bm->db, e->addr, e->len, t) < 0)
			return -1;
		if (tracedb_reserved(bm->db, e->addr, pages(bm, e->len),
				     !e->prot) < 0)
			return -1;
		return tracedb_alloc(bm->db, VMS_TRACE_MMAP, (uint32_t)st,
				     e->addr, e->len, t);
	case BPFMAPS_MREMAP:
		if ((e->arg & MREMAP_FIXED_) &&
		    tracedb_unmap(bm->db, e->addr, e->len, t) < 0)
			return -1;
		return tracedb_remap(bm->db, (uint32_t)st, e->old_addr,
				     e->old_len, e->arg & MREMAP_DONTUNMAP_,
				     e->addr, e->len, pages(bm, e->len), t);
	case BPFMAPS_BRK:
		return tracedb_alloc(bm->db, VMS_TRACE_BRK, (uint32_t)st,
				     e->old_addr, e->addr - e->old_addr, t);
	default:
		return 0;
	}
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct bpfmaps *bm = ctx;

	if (size < sizeof(struct bpfmaps_event))
		return 0;
	bm->events++;
	if (take(bm, data) < 0) {
		bm->nomem = true;
		return -ENOMEM; /* stops the reading: the error is returned */
	}
	return 0;
}

/* ---- the program ---- */

static int load_error(int rc, struct vms_error *err);

int bpfmaps_open(struct bpfmaps **out, pid_t pid, struct vms_error *err)
{
	struct bpfmaps_opts o = { 0 };

	return bpfmaps_open_opts(out, pid, &o, err);
}

int bpfmaps_open_opts(struct bpfmaps **out, pid_t pid,
		      const struct bpfmaps_opts *o, struct vms_error *err)
{
	struct bpfmaps *bm;
	int rc;

	*out = NULL;
	if (procfs_pid_hidden(pid)) /* hidepid: says so, and what to do */
		return procfs_errno_error(err, pid, "maps", ENOENT);
	if (!procfs_pid_exists(pid))
		return vms_error_set(err, VMS_ERR_NOPROC, ESRCH,
				     "no process %d", (int)pid);
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "tracing the mmap family needs a kernel "
				     "with BTF (/sys/kernel/btf/vmlinux: %s)",
				     strerror(errno));
	bm = calloc(1, sizeof(*bm));
	if (bm) {
		bm->own = !o->db;
		bm->db = o->db ? o->db : tracedb_new();
		bm->skip_path = o->skip_path ? strdup(o->skip_path) : NULL;
	}
	if (!bm || !bm->db || (o->skip_path && !bm->skip_path)) {
		bpfmaps_free(bm);
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory for the trace");
	}
	bm->pid = pid;
	bm->page = (uint64_t)sysconf(_SC_PAGESIZE);
	/* NULL: frames without names */
	bm->sym = bm->own ? tracesym_new() : o->sym;
	/* the modules, before the attach: what the process runs now is
	 * known even if it exits before the first event is read; a
	 * library loaded since is found by its first frame (is_code()) */
	errno = 0;
	if (read_maps(bm) < 0) {
		rc = errno ? errno : ENOMEM;
		bpfmaps_free(bm);
		return procfs_errno_error(err, pid, "maps", rc);
	}
	libbpf_set_print(keep_msg);
	last_msg[0] = '\0';
	bm->skel = bpfmaps_bpf__open();
	if (!bm->skel) {
		rc = errno;
		goto fail;
	}
	bm->skel->rodata->target_tgid = (uint32_t)pid;
	if (bpfmaps_bpf__load(bm->skel)) {
		rc = errno;
		goto fail;
	}
	bm->start_ns = o->start_ns ? o->start_ns : vms_mono_ns();
	if ((o->unarmed
		     ? bpfmaps_attach(bm, err)
		     : bpfmaps_start(bm, o->inside, o->inside_off, err)) < 0) {
		bpfmaps_free(bm);
		return -1;
	}
	*out = bm;
	return 0;
fail:
	bpfmaps_free(bm);
	return load_error(rc, err);
}

int bpfmaps_attach(struct bpfmaps *bm, struct vms_error *err)
{
	if (bpfmaps_bpf__attach(bm->skel))
		return load_error(errno, err);
	/* after the attach (its epoll descriptor says the program runs) */
	bm->rb = ring_buffer__new(bpf_map__fd(bm->skel->maps.events), on_event,
				  bm, NULL);
	if (!bm->rb)
		return load_error(errno, err);
	return 0;
}

void bpfmaps_arm(struct bpfmaps *bm, bool inside, int64_t inside_off)
{
	bm->skel->bss->inside_off = inside_off;
	__atomic_store_n(&bm->skel->bss->inside_on, inside, __ATOMIC_RELEASE);
	__atomic_store_n(&bm->skel->bss->armed, 1, __ATOMIC_RELEASE);
}

void bpfmaps_from(struct bpfmaps *bm, uint64_t from_ns)
{
	bm->from_ns = from_ns;
}

int bpfmaps_start(struct bpfmaps *bm, bool inside, int64_t inside_off,
		  struct vms_error *err)
{
	/* armed first: it records from the attach on, which the epoll
	 * descriptor ring_buffer__new makes says */
	bpfmaps_arm(bm, inside, inside_off);
	return bpfmaps_attach(bm, err);
}

static int load_error(int rc, struct vms_error *err)
{
	if (rc == EPERM || rc == EACCES)
		return vms_error_set(err, VMS_ERR_PERM, rc,
				     "tracing the mmap family needs root, or "
				     "CAP_BPF and CAP_PERFMON: the eBPF "
				     "program cannot be loaded (%s)",
				     strerror(rc));
	return vms_error_set(err, VMS_ERR_CAPTURE, rc,
			     "the eBPF program of the mmap family cannot be "
			     "loaded: %s%s%s",
			     strerror(rc), last_msg[0] ? ": " : "", last_msg);
}

void bpfmaps_free(struct bpfmaps *bm)
{
	if (!bm)
		return;
	ring_buffer__free(bm->rb);
	bpfmaps_bpf__destroy(bm->skel); /* detached: the target runs on */
	if (bm->own) {
		tracedb_free(bm->db);
		tracesym_free(bm->sym);
	}
	free(bm->skip_path);
	free(bm->exec);
	free(bm->files);
	free(bm);
}

long bpfmaps_drain(struct bpfmaps *bm, int timeout_ms, struct vms_error *err)
{
	uint64_t before = bm->events;
	int rc;

	if (!bm->rb) /* loaded, not attached */
		return 0;
	if (vms_mono_ns() - bm->notcode_since > 1000000000ull)
		forget_notcode(bm);
	rc = ring_buffer__poll(bm->rb, timeout_ms);
	if (rc >= 0 || rc == -EINTR)
		rc = ring_buffer__consume(bm->rb);
	if (bm->nomem)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory reading the trace");
	if (rc < 0 && rc != -EINTR)
		return vms_error_set(err, VMS_ERR_CAPTURE, -rc,
				     "the trace's ring buffer cannot be read: "
				     "%s",
				     strerror(-rc));
	return (long)(bm->events - before);
}

bool bpfmaps_ended(struct bpfmaps *bm)
{
	if (!bm->ended && procfs_pid_exiting(bm->pid)) {
		bm->ended = true;
		bm->end_ns = vms_mono_ns();
	}
	return bm->ended;
}

int bpfmaps_mark(struct bpfmaps *bm)
{
	return tracedb_mark(bm->db, bpfmaps_now(bm));
}

unsigned bpfmaps_marks(const struct bpfmaps *bm)
{
	return tracedb_marks(bm->db);
}

int bpfmaps_report(struct bpfmaps *bm, unsigned from, unsigned to,
		   struct arena *a, struct vms_trace_report *out,
		   struct vms_error *err)
{
	memset(out, 0, sizeof(*out));
	if (tracedb_report(bm->db, from, to, bpfmaps_now(bm), bm->sym, a, out) <
	    0)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory for the trace report");
	out->attached = true;
	out->heap_untraced = true;
	bpfmaps_figures(bm, out);
	out->ended = bm->ended;
	return 0;
}

void bpfmaps_figures(const struct bpfmaps *bm, struct vms_trace_report *out)
{
	/* lost to a full ring buffer, or to a full table of the calls
	 * under way (their bytes not known) */
	out->dropped +=
		__atomic_load_n(&bm->skel->bss->dropped, __ATOMIC_RELAXED) +
		__atomic_load_n(&bm->skel->bss->pending_lost, __ATOMIC_RELAXED);
	out->dropped_bytes += __atomic_load_n(&bm->skel->bss->dropped_bytes,
					      __ATOMIC_RELAXED);
	out->madvise_traced = true;
	out->madvised = bm->madv_calls;
	out->madvised_bytes = bm->madv_bytes;
	out->kernel_maps = true;
	out->allocator_maps = __atomic_load_n(&bm->skel->bss->inside_skipped,
					      __ATOMIC_RELAXED);
}
