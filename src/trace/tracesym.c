/* tracesym.c — tracesym.h through libdwfl: the process's modules as
 * dwfl_linux_proc_report() reads them from its maps, their files found by
 * dwfl_linux_proc_find_elf() and their debug information by
 * dwfl_standard_find_debuginfo() (the file's own .debug_*, its
 * .gnu_debuglink, /usr/lib/debug/.build-id/).
 */
#include "trace/tracesym.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

struct tracesym {
	pid_t pid;
	Dwfl *dwfl;
	bool gone; /* the process's maps can no longer be read */
};

static char *debuginfo_path; /* libdwfl's default: .debug, /usr/lib/debug */

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static void report(struct tracesym *ts)
{
	if (ts->gone)
		return;
	dwfl_report_begin_add(ts->dwfl);
	if (dwfl_linux_proc_report(ts->dwfl, ts->pid) != 0)
		ts->gone = true;
	dwfl_report_end(ts->dwfl, NULL, NULL);
}

struct tracesym *tracesym_new(pid_t pid)
{
	struct tracesym *ts = calloc(1, sizeof(*ts));

	if (!ts)
		return NULL;
	ts->pid = pid;
	ts->dwfl = dwfl_begin(&callbacks);
	if (!ts->dwfl) {
		free(ts);
		return NULL;
	}
	report(ts);
	return ts;
}

void tracesym_free(struct tracesym *ts)
{
	if (!ts)
		return;
	dwfl_end(ts->dwfl);
	free(ts);
}

void tracesym_see(struct tracesym *ts, const uint64_t *ips, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!dwfl_addrmodule(ts->dwfl, ips[i] - 1)) {
			report(ts);
			return;
		}
}

/* C++'s names demangled by libstdc++'s own demangler, loaded the first
 * time a mangled name is met (vmscope links no C++ runtime: a C program's
 * trace costs nothing for it). NULL: keep the name as it is. */
static char *demangle(const char *name)
{
	static char *(*fn)(const char *, char *, size_t *, int *);
	static bool tried;
	int status = -1;
	char *out;

	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	if (!tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		tried = true;
		if (h)
			*(void **)&fn = dlsym(h, "__cxa_demangle");
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

int tracesym_frame(struct tracesym *ts, uint64_t ip, bool innermost,
		   struct arena *a, struct vms_trace_frame *f)
{
	/* every frame's address is a return address: the call before it */
	Dwarf_Addr at = ip - 1, start = 0;
	Dwfl_Module *m = dwfl_addrmodule(ts->dwfl, at);
	const char *mod = NULL, *name;
	GElf_Off off = 0;
	GElf_Sym sym;
	Dwfl_Line *line;

	(void)innermost;
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
