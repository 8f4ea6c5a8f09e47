/* tracesym.c — tracesym.h through libdwfl: each module reported from its
 * file at its bias (dwfl_report_elf), its debug information found by
 * dwfl_standard_find_debuginfo() (the file's own .debug_*, its
 * .gnu_debuglink, /usr/lib/debug/.build-id/). A view reports nothing
 * itself: each file once in its shared one, at a bias of the shared
 * one's, and a process's address is moved there to be named.
 */
#include "trace/tracesym.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/selfcopy.h"

/* A shared one's file: where it was reported (its synthetic bias) and
 * its span there. */
struct sfile {
	dev_t dev;
	ino_t ino;
	uint64_t bias, lo, hi;
	bool ok; /* reported (else its frames stay unnamed) */
};

/* A view's module: its addresses in the process, and what to add to
 * them for the shared one's. */
struct vmod {
	uint64_t lo, hi, delta;
};

struct tracesym {
	Dwfl *dwfl; /* NULL in a view */
	struct tracesym *shared; /* a view's */
	struct vmod *mods; /* a view's */
	size_t nmods;
	struct sfile *files; /* a shared one's, as views loaded them */
	size_t nfiles;
	uint64_t next_bias;
	/* the biases reported (not a view's): a module told twice (an
	 * attach's library and kernel's trace both tell theirs, by paths
	 * that may differ: /lib and /usr/lib) is reported once (libdwfl
	 * takes an overlap for an error that leaves every frame unnamed) */
	uint64_t *biases;
	size_t nbiases, capbiases;
};

#define SHARED_BASE 0x100000000000ull /* shared files from 16 TiB up */

static char *debuginfo_path; /* libdwfl's default: .debug, /usr/lib/debug */

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct tracesym *tracesym_new(void)
{
	struct tracesym *ts = calloc(1, sizeof(*ts));

	if (!ts)
		return NULL;
	ts->dwfl = dwfl_begin(&callbacks);
	if (!ts->dwfl) {
		free(ts);
		return NULL;
	}
	return ts;
}

struct tracesym *tracesym_view(struct tracesym *shared)
{
	struct tracesym *ts;

	if (!shared || !(ts = calloc(1, sizeof(*ts))))
		return NULL;
	ts->shared = shared;
	return ts;
}

void tracesym_free(struct tracesym *ts)
{
	if (!ts)
		return;
	if (ts->dwfl)
		dwfl_end(ts->dwfl);
	free(ts->mods);
	free(ts->files);
	free(ts->biases);
	free(ts);
}

/* The shared one's file open at fd (reported the first time a view loads
 * it), or NULL; fd is taken over. */
static const struct sfile *shared_file(struct tracesym *sh, const char *path,
				       int fd)
{
	const char *base = strrchr(path, '/');
	struct sfile *f;
	struct stat st;
	Dwfl_Module *m;
	Dwarf_Addr lo = 0, hi = 0;
	size_t i;

	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	for (i = 0; i < sh->nfiles; i++)
		if (sh->files[i].dev == st.st_dev &&
		    sh->files[i].ino == st.st_ino) {
			close(fd);
			return sh->files[i].ok ? &sh->files[i] : NULL;
		}
	if (sh->nfiles == TRACESYM_SHARED_FILES) {
		close(fd);
		return NULL;
	}
	if (!sh->files) {
		sh->files = calloc(TRACESYM_SHARED_FILES, sizeof(*sh->files));
		if (!sh->files) {
			close(fd);
			return NULL;
		}
		sh->next_bias = SHARED_BASE;
	}
	f = &sh->files[sh->nfiles++];
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->bias = sh->next_bias;
	dwfl_report_begin_add(sh->dwfl);
	m = dwfl_report_elf(sh->dwfl, base ? base + 1 : path, path, fd, f->bias,
			    true);
	if (!m)
		close(fd);
	dwfl_report_end(sh->dwfl, NULL, NULL);
	if (!m)
		return NULL;
	dwfl_module_info(m, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	f->lo = lo;
	f->hi = hi;
	f->ok = hi > lo;
	/* the next file past this one's span, a MiB apart */
	sh->next_bias = ((hi > f->bias ? hi : f->bias) + (2u << 20)) &
			~(uint64_t)((1u << 20) - 1);
	return f->ok ? f : NULL;
}

/* A view's module loaded at bias: the shared one's file, and the span it
 * has in the process. */
static void view_module(struct tracesym *ts, const char *path, int fd,
			uint64_t bias)
{
	const struct sfile *f;

	if (ts->nmods == TRACESYM_VIEW_MODULES) {
		close(fd);
		return;
	}
	if (!ts->mods &&
	    !(ts->mods = calloc(TRACESYM_VIEW_MODULES, sizeof(*ts->mods)))) {
		close(fd);
		return;
	}
	if (!(f = shared_file(ts->shared, path, fd)))
		return;
	/* process address = shared address - f->bias + bias */
	ts->mods[ts->nmods].lo = f->lo - f->bias + bias;
	ts->mods[ts->nmods].hi = f->hi - f->bias + bias;
	ts->mods[ts->nmods++].delta = f->bias - bias;
}

/* ip (a process's) as the shared one's address, or 0: in no module. */
static uint64_t view_addr(const struct tracesym *ts, uint64_t ip)
{
	size_t i;

	for (i = 0; i < ts->nmods; i++)
		if (ip >= ts->mods[i].lo && ip < ts->mods[i].hi)
			return ip + ts->mods[i].delta;
	return 0;
}

void tracesym_module_fd(struct tracesym *ts, const char *path, int fd,
			uint64_t bias)
{
	const char *base = strrchr(path, '/');

	size_t i;

	if (ts->shared) {
		view_module(ts, path, fd, bias);
		return;
	}
	for (i = 0; i < ts->nbiases; i++)
		if (ts->biases[i] == bias) {
			close(fd);
			return;
		}
	if (ts->nbiases == ts->capbiases) {
		size_t cap = ts->capbiases ? 2 * ts->capbiases : 64;
		uint64_t *n = realloc(ts->biases, cap * sizeof(*n));

		if (n) {
			ts->biases = n;
			ts->capbiases = cap;
		}
	}
	if (ts->nbiases < ts->capbiases)
		ts->biases[ts->nbiases++] = bias;
	dwfl_report_begin_add(ts->dwfl);
	/* libdwfl keeps fd (closed at dwfl_end), or closes it on failure */
	if (!dwfl_report_elf(ts->dwfl, base ? base + 1 : path, path, fd, bias,
			     true))
		close(fd);
	dwfl_report_end(ts->dwfl, NULL, NULL);
}

/* C++'s names demangled by libstdc++'s own demangler, loaded the first
 * time a mangled name is met (vmscope links no C++ runtime: a C program's
 * trace costs nothing for it). NULL: keep the name as it is. */
static char *demangle(const char *name)
{
	static char *(*fn)(const char *, char *, size_t *, int *);
	static void *lib; /* kept: loaded once for the run */
	static bool tried;
	int status = -1;
	char *out;

	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	if (!tried) {
		selfcopy_loader_begin();
		lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		selfcopy_loader_end();
		tried = true;
		if (lib)
			*(void **)&fn = dlsym(lib, "__cxa_demangle");
	}
	if (!fn)
		return NULL;
	out = fn(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* name as shown: demangled, without a symbol version (@@GLIBC_2.34). */
static const char *function_name(struct arena *a, const char *name)
{
	char *d = demangle(name);
	const char *r;

	if (d) {
		r = arena_strdup(a, d);
		free(d);
		return r;
	}
	return arena_strndup(a, name, strcspn(name, "@"));
}

/* tracesym_frame in a tracesym of its own modules (not a view). */
static int frame_of(struct tracesym *ts, uint64_t ip, struct arena *a,
		    struct vms_trace_frame *f)
{
	/* every frame's address is a return address: the call before it */
	Dwarf_Addr at = ip - 1, start = 0;
	Dwfl_Module *m = dwfl_addrmodule(ts->dwfl, at);
	const char *mod = NULL, *name;
	GElf_Off off = 0;
	GElf_Sym sym;
	Dwfl_Line *line;

	f->ip = ip;
	if (!m)
		return 0;
	dwfl_module_info(m, NULL, &start, NULL, NULL, NULL, &mod, NULL);
	if (mod && !(f->module = arena_strdup(a, mod)))
		return -1;
	f->offset = ip - start;
	name = dwfl_module_addrinfo(m, at, &off, &sym, NULL, NULL, NULL);
	if (name) {
		if (!(f->function = function_name(a, name)))
			return -1;
		f->offset = off + 1; /* from the function's start to ip */
	}
	line = dwfl_module_getsrc(m, at);
	if (line) {
		int lno = 0;
		const char *file =
			dwfl_lineinfo(line, NULL, &lno, NULL, NULL, NULL);

		if (file && lno > 0) {
			if (!(f->file = arena_strdup(a, file)))
				return -1;
			f->line = (uint32_t)lno;
		}
	}
	return 0;
}

static int cfa_of(struct tracesym *ts, uint64_t pc, struct tracesym_cfa *cfa)
{
	Dwfl_Module *m = dwfl_addrmodule(ts->dwfl, pc);
	Dwarf_Op mem[3], *ops;
	Dwarf_Frame *fr = NULL;
	Dwarf_CFI *cfi;
	Dwarf_Addr bias = 0;
	size_t nops;
	int rc = -1;

	if (!m)
		return -1;
	cfi = dwfl_module_eh_cfi(m, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr) < 0) {
		cfi = dwfl_module_dwarf_cfi(m, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr) < 0)
			return -1;
	}
	if (dwarf_frame_cfa(fr, &ops, &nops) < 0 || nops != 1 ||
	    ops[0].atom != DW_OP_bregx)
		goto out;
	cfa->reg = (int)ops[0].number;
	cfa->off = (int64_t)ops[0].number2;
	/* the return address undefined: the outermost frame (_start) */
	if (dwarf_frame_register(fr, 16, mem, &ops, &nops) < 0 ||
	    (nops == 0 && ops == mem))
		goto out;
	cfa->rbp_saved = false;
	cfa->rbp_off = 0;
	if (dwarf_frame_register(fr, 6, mem, &ops, &nops) < 0)
		goto out;
	/* nops 0: the same value, or "undefined" (taken as the same: it
	 * matters only to a caller whose CFA is rbp-based, and a wrong
	 * one ends there: its return address is checked) */
	if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		cfa->rbp_saved = true;
	} else if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
		   ops[1].atom == DW_OP_plus_uconst) {
		cfa->rbp_saved = true;
		cfa->rbp_off = (int64_t)ops[1].number;
	} else if (nops != 0) {
		goto out;
	}
	rc = 0;
out:
	free(fr);
	return rc;
}

int tracesym_frame(struct tracesym *ts, uint64_t ip, struct arena *a,
		   struct vms_trace_frame *f)
{
	uint64_t at;
	int rc;

	if (!ts->shared)
		return frame_of(ts, ip, a, f);
	/* a view: the call's address, ip - 1, in one of its modules */
	f->ip = ip;
	if (!(at = view_addr(ts, ip - 1)))
		return 0;
	rc = frame_of(ts->shared, at + 1, a, f);
	f->ip = ip; /* the process's */
	return rc;
}

int tracesym_cfa(struct tracesym *ts, uint64_t pc, struct tracesym_cfa *cfa)
{
	uint64_t at;

	if (!ts->shared)
		return cfa_of(ts, pc, cfa);
	return (at = view_addr(ts, pc)) ? cfa_of(ts->shared, at, cfa) : -1;
}
