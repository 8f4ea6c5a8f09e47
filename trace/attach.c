/* attach.c — the tracer library in a process already running: vmscope
 * loads it with dlopen through its own ptrace injection
 * (src/capture/ptrace/inject_call.h) and calls vmstrace_attach(path), later
 * vmstrace_detach(). Loaded RTLD_LOCAL, its malloc is nobody's until the
 * GOT entries are redirected here; its next definitions are the global
 * ones (vmstrace.c: vt_attach_mode).
 *
 * vmstrace_attach(path): opens the shared file vmscope made at path
 * (/proc/<vmscope>/fd/N: the library takes no descriptor of the
 * program's, it closes it once mapped), checks its header, starts
 * recording (record.c), then redirects the malloc family's, the mmap
 * family's and dlclose's (vmstrace.c: the stack walk's rules go with an
 * unloaded module) GOT entries (JUMP_SLOT and GLOB_DAT relocations, in every
 * module but this library and the loader) to this library's functions,
 * and its "dlopen" entries to vt_dlopen, which redirects the entries of
 * the modules the program loads later the same way. An entry is redirected
 * only when it holds the global definition (the one the next definitions
 * forward to) or its own module's lazy-binding stub: an entry bound to
 * another definition (RTLD_DEEPBIND, a private allocator) is left alone.
 * Entries in RELRO are written between two mprotect()s. Each write is one
 * aligned 8-byte store: a thread calling through the entry meanwhile calls
 * the old function or the new, both valid. A block allocated before and
 * freed after is a free of an unknown block (vmscope counts it as
 * allocated before tracing).
 *
 * A module unloaded while traced (dlclose) takes its entries with it, and
 * one loaded later may reuse its addresses (the same file often at the
 * same place): each entry's record names its module (its load address and
 * name) and is kept only while that module is listed with the entry
 * inside it and the entry still holds ours; a module loaded at the
 * address of an unloaded one is redirected afresh, its own values kept.
 * Every pass over the entries (a redirection, the detach) runs inside
 * dl_iterate_phdr's callback, which the loader runs holding its
 * dl_load_write_lock: dlclose unmaps a module and takes it off the list
 * holding that same lock (glibc's _dl_close_worker), so a module listed
 * in the callback stays mapped until it returns, whichever thread
 * unloads it and by whichever call (the program's dlclose, or libc's
 * own for its NSS and iconv modules, which no GOT entry sees). Dropping
 * a module's entries in an interposed dlclose would not be race-free:
 * the module is unmapped inside the real dlclose, before the interposer
 * runs, while another thread may be detaching. The library's own lock
 * is taken inside the loader's (never the other way: a program's
 * dl_iterate_phdr callback may call dlopen, whose redirection would then
 * wait on a thread waiting for the loader's lock).
 *
 * With the mmap family traced from the kernel too (src/trace/tracer.h:
 * tracer_kernel_arm), vmscope calls vmstrace_attach_begin(path) (the file
 * mapped, recording started: the "inside" flag's place known), arms the
 * kernel's trace and sets kernel_maps, then vmstrace_attach_patch() (the
 * trace's start written, trace_from_ns, then the entries redirected), in
 * one stop of one borrowed thread: the kernel sees every call from the
 * first entry redirected. The mmap family's entries (mmap, munmap,
 * mremap, mprotect) are redirected all the same: the library records
 * them while kernel_maps is clear (inside its flag: vmstrace.h:
 * vt_inside, which the kernel's trace reads and leaves out), forwards
 * them unrecorded while it is set, and records them again when vmscope
 * clears it before the detach: each call counted once, by one of the two.
 *
 * vmstrace_detach(): puts every redirected entry back to the value it had
 * (when it still holds ours and its module is still loaded), then records
 * nothing more. The library is never unloaded (no dlclose): a thread may
 * be inside one of its functions at any moment (it entered through an
 * entry just put back), and a function pointer the program copied from a
 * GLOB_DAT entry during the trace still points here; the library is inert
 * (pass-through) after, and the shared file stays mapped for the same
 * reason, until a later attach's file takes its place (in_place_of_last:
 * one file however often the process is attached). A vmstrace_attach() while attached is refused (-EALREADY),
 * unless the vmscope of the attach is gone (its robust lock's owner
 * cleared, in any pid namespace; a file without the lock, also in another
 * pid namespace, where its pid cannot tell: record.c, vt_orphaned) or the
 * process is a
 * forked child of the one attached (record.c: its rings are its
 * parent's): the entries left redirected are then taken over.
 *
 * vmscope gone (SIGKILL) while attached: the entries stay redirected to
 * functions that forward to the same definitions as before, and the
 * recording goes pass-through when a full ring finds vmscope gone
 * (record.c: its robust lock, in any pid namespace).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "vmstrace.h"

#define MAX_SLOTS 8192

/* A redirected entry: where, what it held, and its module's load address
 * and name's hash (which module instance it belongs to), and the last pass
 * (each a dl_iterate_phdr) that found that module listed with it. */
struct slot {
	uintptr_t *at;
	uintptr_t was;
	uintptr_t base;
	uint64_t name;
	unsigned pass;
	bool relro;
};

static struct slot slots[MAX_SLOTS];
static unsigned nslots;
static unsigned pass; /* passes over the modules so far */
static bool attached; /* redirecting (until the detach) */
static bool attaching; /* in vmstrace_attach() */
/* the file vmstrace_attach_begin() mapped (the last one: a take-over
 * maps a new one) */
static struct tw_header *begun;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *(*next_dlopen)(const char *, int);

static void *vt_dlopen(const char *file, int mode);

/* Writes v at p, through mprotect when p is in a RELRO part. */
static bool store(uintptr_t *p, uintptr_t v, bool relro)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *page = (void *)((uintptr_t)p & ~(uintptr_t)(pg - 1));

	if (relro && mprotect(page, (size_t)pg, PROT_READ | PROT_WRITE) < 0)
		return false;
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
	if (relro)
		mprotect(page, (size_t)pg, PROT_READ);
	return true;
}

/* The record of the entry at p, or -1. */
static int find(const uintptr_t *p)
{
	unsigned i;

	for (i = 0; i < nslots; i++)
		if (slots[i].at == p)
			return (int)i;
	return -1;
}

/* Whether v is one of this library's functions an entry is redirected
 * to. */
static bool ours_value(uintptr_t v)
{
	unsigned k;

	if (v == (uintptr_t)vt_dlopen)
		return true;
	for (k = 0; k < vt_nfns; k++)
		if (v == (uintptr_t)vt_fns[k].ours)
			return true;
	return false;
}

static uint64_t name_hash(const struct dl_phdr_info *info)
{
	const char *c = info->dlpi_name ? info->dlpi_name : "";
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	return h;
}

static uintptr_t absolute(const struct dl_phdr_info *info, uintptr_t v)
{
	return v < info->dlpi_addr ? info->dlpi_addr + v : v;
}

bool vt_read_dyn(const struct dl_phdr_info *info, struct vt_dyn *d)
{
	const ElfW(Dyn) *dy = NULL;
	int i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dy = (const void *)(info->dlpi_addr +
					    info->dlpi_phdr[i].p_vaddr);
	if (!dy)
		return false;
	for (; dy->d_tag != DT_NULL; dy++) {
		uintptr_t v = dy->d_un.d_ptr;

		switch (dy->d_tag) {
		case DT_RELA:
			d->rela = (const void *)absolute(info, v);
			break;
		case DT_RELASZ:
			d->relasz = dy->d_un.d_val;
			break;
		case DT_JMPREL:
			d->jmprel = (const void *)absolute(info, v);
			break;
		case DT_PLTRELSZ:
			d->jmprelsz = dy->d_un.d_val;
			break;
		case DT_PLTREL:
			if (dy->d_un.d_val != DT_RELA)
				return false; /* REL: not on x86_64/aarch64 */
			break;
		case DT_SYMTAB:
			d->symtab = (const void *)absolute(info, v);
			break;
		case DT_STRTAB:
			d->strtab = (const void *)absolute(info, v);
			break;
		}
	}
	return d->symtab && d->strtab;
}

/* vmstrace.h */
bool vt_phdr_holds(const struct dl_phdr_info *info, uintptr_t v, unsigned type)
{
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == type && v >= lo && v < lo + ph->p_memsz)
			return true;
	}
	return false;
}

/* Whether v lies in one of the module's loaded parts (its own lazy
 * binding stub). */
static bool in_module(const struct dl_phdr_info *info, uintptr_t v)
{
	return vt_phdr_holds(info, v, PT_LOAD);
}

static bool in_relro(const struct dl_phdr_info *info, uintptr_t p)
{
	return vt_phdr_holds(info, p, PT_GNU_RELRO);
}

/* What the entry for name is redirected to, and the definition it must
 * hold now; false when name is none of the family. */
static bool target_of(const char *name, uintptr_t *ours, uintptr_t *global)
{
	unsigned i;

	if (strcmp(name, "dlopen") == 0) {
		*ours = (uintptr_t)vt_dlopen;
		*global = (uintptr_t)next_dlopen;
		return next_dlopen != NULL;
	}
	for (i = 0; i < vt_nfns; i++)
		if (strcmp(name, vt_fns[i].name) == 0) {
			*ours = (uintptr_t)vt_fns[i].ours;
			*global = (uintptr_t)*vt_fns[i].next;
			return *global != 0;
		}
	return false;
}

/* Marks the records of the entries of the module info with this pass:
 * the records of its instance (its load address and name), each entry
 * inside it. */
static void mark_module(const struct dl_phdr_info *info, uint64_t name)
{
	unsigned i;

	for (i = 0; i < nslots; i++)
		if (slots[i].base == info->dlpi_addr && slots[i].name == name &&
		    in_module(info, (uintptr_t)slots[i].at))
			slots[i].pass = pass;
}

/* Drops the records no pass found (their modules were unloaded). */
static void drop_unmarked(void)
{
	unsigned i, k = 0;

	for (i = 0; i < nslots; i++)
		if (slots[i].pass == pass)
			slots[k++] = slots[i];
	nslots = k;
}

/* Which entries a pass redirects: all, all but the mmap family's, or the
 * mmap family's (vmstrace_attach_patch: the trace's start between). */
enum { PATCH_ALL, PATCH_HEAP, PATCH_MAPS };

static bool maps_fn(const char *name)
{
	return strcmp(name, "mmap") == 0 || strcmp(name, "mmap64") == 0 ||
	       strcmp(name, "munmap") == 0 || strcmp(name, "mremap") == 0 ||
	       strcmp(name, "mprotect") == 0;
}

static void patch_relocs(const struct dl_phdr_info *info,
			 const struct vt_dyn *d, uint64_t name,
			 const ElfW(Rela) * r, size_t bytes, int which)
{
	size_t i, n = r ? bytes / sizeof(*r) : 0;

	for (i = 0; i < n; i++) {
		unsigned type = (unsigned)ELF64_R_TYPE(r[i].r_info);
		size_t sym = ELF64_R_SYM(r[i].r_info);
		uintptr_t *p, v, ours, global;
		struct slot *s;
		int at;

		if ((type != R_SLOT && type != R_GLOB) || !sym)
			continue;
		if (which != PATCH_ALL &&
		    maps_fn(d->strtab + d->symtab[sym].st_name) !=
			    (which == PATCH_MAPS))
			continue;
		if (!target_of(d->strtab + d->symtab[sym].st_name, &ours,
			       &global))
			continue;
		p = (uintptr_t *)(info->dlpi_addr + r[i].r_offset);
		v = __atomic_load_n(p, __ATOMIC_ACQUIRE);
		at = find(p);
		if (v == ours)
			continue; /* redirected in this instance already (an
				   * instance loaded later never holds ours:
				   * this library is no module's definition) */
		if (v != global && !(type == R_SLOT && in_module(info, v)))
			continue; /* bound elsewhere, or not relocated yet */
		/* a record of another instance at p (unloaded, this one
		 * loaded at its address; or the entry rewritten since):
		 * this instance's own value replaces it */
		if (at < 0 && nslots == MAX_SLOTS)
			continue;
		s = &slots[at < 0 ? nslots : (unsigned)at];
		s->at = p;
		s->was = v;
		s->base = info->dlpi_addr;
		s->name = name;
		s->pass = pass;
		s->relro = in_relro(info, (uintptr_t)p);
		if (!store(p, ours, s->relro))
			s->pass = pass - 1; /* not written: no record */
		else if (at < 0)
			nslots++;
	}
}

static int patch_module(struct dl_phdr_info *info, size_t size, void *ctx)
{
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	uint64_t h = name_hash(info);
	const int *which = ctx;
	struct vt_dyn d;

	(void)size;
	/* not this library (its calls are the next definitions'), not the
	 * loader, not the vDSO */
	if (in_module(info, (uintptr_t)patch_module) || strstr(name, "/ld-") ||
	    strstr(name, "linux-vdso") || strstr(name, "linux-gate"))
		return 0;
	mark_module(info, h);
	if (!vt_read_dyn(info, &d))
		return 0;
	patch_relocs(info, &d, h, d.jmprel, d.jmprelsz, *which);
	patch_relocs(info, &d, h, d.rela, d.relasz, *which);
	return 0;
}

/* Puts back the entries of the module info that still hold ours: inside
 * the callback, the module stays mapped (the header). */
static int put_back_module(struct dl_phdr_info *info, size_t size, void *ctx)
{
	uint64_t h = name_hash(info);
	unsigned *back = ctx, i;

	(void)size;
	mark_module(info, h);
	for (i = nslots; i-- > 0;) {
		struct slot *s = &slots[i];

		if (s->pass != pass) /* another module's, or done */
			continue;
		if (ours_value(__atomic_load_n(s->at, __ATOMIC_ACQUIRE)) &&
		    store(s->at, s->was, s->relro))
			(*back)++;
		s->pass = pass - 1; /* done: dropped after */
	}
	return 0;
}

/* One pass over the modules: the loader's lock (dl_iterate_phdr's) first,
 * this library's inside it (the header). */
struct pass_of {
	int (*fn)(struct dl_phdr_info *, size_t, void *);
	void *ctx;
	bool detach;
};

static int one_pass(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct pass_of *o = ctx;

	(void)info;
	(void)size;
	pthread_mutex_lock(&lock);
	if (o->detach || attached) {
		if (o->detach)
			attached = false;
		pass++;
		/* the loader's lock is recursive: the list as it is now,
		 * none of it unmapped until this returns */
		dl_iterate_phdr(o->fn, o->ctx);
		drop_unmarked();
	}
	pthread_mutex_unlock(&lock);
	return 1; /* the inner iteration did it all */
}

static void patch_pass(int which)
{
	struct pass_of o = { patch_module, &which, false };

	dl_iterate_phdr(one_pass, &o);
}

static void patch_all(void)
{
	patch_pass(PATCH_ALL);
}

/* The trace's start for the kernel's events (tracewire.h): now, unless
 * said already. */
static void trace_from_now(struct tw_header *h)
{
	struct timespec t;
	uint64_t was = 0;

	clock_gettime(CLOCK_MONOTONIC, &t);
	__atomic_compare_exchange_n(&h->trace_from_ns, &was,
				    (uint64_t)t.tv_sec * 1000000000ull +
					    (uint64_t)t.tv_nsec,
				    false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

static void *vt_dlopen(const char *file, int mode)
{
	void *h = next_dlopen(file, mode);

	if (h) {
		VT_OWN; /* its mprotects are the library's */
		patch_all();
	}
	return h;
}

static int attach_end(int rc)
{
	pthread_mutex_lock(&lock);
	attaching = false;
	pthread_mutex_unlock(&lock);
	return rc;
}

/* The new file h moved to where the last attach's is (that one then
 * unmapped, in the same step): a process attached again and again maps
 * one file, not one more each time (256 MiB of address space each, which
 * a RLIMIT_AS counts, and a shared region vmscope would count committed).
 * The old file stays mapped between the attaches (attach.c's header: a
 * thread still inside a call recorded before the detach may write to
 * it); moved over, such a late call's record is not written (record.c,
 * vt_end: its call was begun in the last trace, whose slot is now
 * another thread's). Not on a take-over: the entries are
 * still redirected, and the threads record into the old file until
 * vt_start; that one stays where it is (one file more for each vmscope
 * that died attached). h as it is where the move fails. */
static struct tw_header *in_place_of_last(struct tw_header *h, bool taken_over)
{
	static const char name[] = "/memfd:vmscope-trace";
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	char file[256];
	void *at;

	if (!begun || taken_over || !next_mremap)
		return h;
	/* still that file, whole, where it was: the program may have
	 * unmapped it and mapped something of its own there since */
	if (!vt_mapped_file((uintptr_t)begun,
			    ((uintptr_t)begun + TW_FILE_BYTES + pg - 1) &
				    ~(uintptr_t)(pg - 1),
			    file, sizeof(file)) ||
	    strncmp(file, name, sizeof(name) - 1) != 0)
		return h;
	at = next_mremap(h, TW_FILE_BYTES, TW_FILE_BYTES,
			 MREMAP_MAYMOVE | MREMAP_FIXED, begun);
	return at == MAP_FAILED ? h : at;
}

/* vmstrace_attach_begin(path): the file mapped and the recording started,
 * nothing redirected yet (a take-over: the entries are, and the trace
 * starts now): 1, or -errno. */
EXPORT int vmstrace_attach_begin(const char *path);
EXPORT int vmstrace_attach_begin(const char *path)
{
	struct tw_header *h;
	bool taken_over;
	int fd;
	VT_OWN;

	pthread_mutex_lock(&lock);
	/* attached by a vmscope that died, or a forked child of a process
	 * attached (its copy of the entries, its parent's rings): this one
	 * takes over (the entries stay redirected; the rings are the new
	 * file's) */
	if (!vt_attach_mode || (attached && !vt_orphaned()) || attaching) {
		pthread_mutex_unlock(&lock);
		return -EALREADY; /* preloaded, or attached now */
	}
	attaching = true;
	taken_over = attached;
	pthread_mutex_unlock(&lock);
	if (!next_mmap || !next_munmap)
		return attach_end(-ENOSYS);
	next_dlopen =
		(void *(*)(const char *, int))dlsym(RTLD_DEFAULT, "dlopen");
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return attach_end(-errno);
	h = next_mmap(NULL, TW_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, 0);
	close(fd);
	if (h == MAP_FAILED)
		return attach_end(-ENOMEM);
	if (h->magic != TW_MAGIC || h->version != TW_VERSION ||
	    h->slots != TW_SLOTS || h->ring_bytes != TW_RING_BYTES) {
		next_munmap(h, TW_FILE_BYTES);
		return attach_end(-EPROTO);
	}
	h = in_place_of_last(h, taken_over);
	if (vt_start(h) < 0) {
		next_munmap(h, TW_FILE_BYTES);
		return attach_end(-ENOMEM);
	}
	if (taken_over) /* the library in the malloc family's path already */
		trace_from_now(h);
	pthread_mutex_lock(&lock);
	attached = true;
	begun = h;
	pthread_mutex_unlock(&lock);
	return attach_end(1);
}

/* vmstrace_attach_patch(): after vmstrace_attach_begin(), the entries
 * redirected: the malloc family's (and dlopen's, dlclose's) first, then
 * the trace's start written in the header (trace_from_ns: the kernel's
 * events before it are left out; from then on every malloc-family call
 * runs through the library, inside its flag), then the mmap family's.
 * Their number, or -errno. */
EXPORT int vmstrace_attach_patch(void);
EXPORT int vmstrace_attach_patch(void)
{
	VT_OWN;

	if (!attached || !begun)
		return -EINVAL;
	patch_pass(PATCH_HEAP);
	trace_from_now(begun);
	patch_pass(PATCH_MAPS);
	return (int)nslots ? (int)nslots : 1;
}

/* The number of GOT entries redirected, or -errno: begin and patch in one
 * call. */
EXPORT int vmstrace_attach(const char *path);
EXPORT int vmstrace_attach(const char *path)
{
	int rc = vmstrace_attach_begin(path);

	return rc < 0 ? rc : vmstrace_attach_patch();
}

/* The number of entries put back. */
EXPORT int vmstrace_detach(void);
EXPORT int vmstrace_detach(void)
{
	unsigned back = 0;
	struct pass_of o = { put_back_module, &back, true };
	VT_OWN;

	/* the entries of a module unloaded meanwhile are dropped unread */
	dl_iterate_phdr(one_pass, &o);
	vt_stop();
	return (int)back;
}
