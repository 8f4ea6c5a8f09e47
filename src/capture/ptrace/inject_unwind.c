/* inject_unwind.c — see inject_unwind.h. libdw's unwinder on a process
 * stopped under ptrace by another (the freeze): its state callbacks read
 * the memory through /proc/PID/mem and take the registers the freeze
 * read, so libdw neither attaches nor stops anything itself.
 */
#include "capture/ptrace/inject_unwind.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct inject_unwind {
	Dwfl *dwfl;
	pid_t pid;
	bool attached; /* dwfl_attach_state done */
	/* the thread being unwound */
	pid_t tid;
	int mem;
	const struct user_regs_struct *regs;
	uint64_t *pcs;
	int n, got;
	bool untold; /* a frame no CFI covers: the frames not told */
	bool outermost; /* the last frame's CFI says it has no caller */
};

/* The modules' own .eh_frame is all the unwinding needs: no debug file
 * is looked for (a libc6-dbg's would be read for nothing). */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name,
			const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)debuglink_file;
	(void)debuglink_crc;
	(void)debuginfo_file_name;
	return -1;
}

static char *no_path;

/* The process whose modules are being reported (one injection at a time:
 * the engine's callers are single-threaded there). */
static pid_t report_pid;

/* A module's file as the process sees it: through its root, in its mount
 * namespace (a container's libc is not the host's), else as libdw finds
 * it. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
		    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	char path[PATH_MAX + 32];
	int fd;

	if (modname && modname[0] == '/' && report_pid > 0 &&
	    snprintf(path, sizeof(path), "/proc/%d/root%s", (int)report_pid,
		     modname) < (int)sizeof(path) &&
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		*file_name = strdup(path);
		return fd;
	}
	return dwfl_linux_proc_find_elf(mod, userdata, modname, base, file_name,
					elfp);
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = no_debuginfo,
	.debuginfo_path = &no_path,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct inject_unwind *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0; /* one thread: the one asked for */
	*thread_argp = u;
	return u->tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	struct inject_unwind *u = arg;

	(void)dwfl;
	return pread(u->mem, result, sizeof(*result), (off_t)addr) ==
	       (ssize_t)sizeof(*result);
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
#if defined(__x86_64__)
	const struct user_regs_struct *r = ((struct inject_unwind *)arg)->regs;
	/* DWARF's order of x86-64's registers: rax, rdx, rcx, rbx, rsi,
	 * rdi, rbp, rsp, r8-r15, then the return address (rip) */
	Dwarf_Word v[17] = { r->rax, r->rdx, r->rcx, r->rbx, r->rsi, r->rdi,
			     r->rbp, r->rsp, r->r8,  r->r9,  r->r10, r->r11,
			     r->r12, r->r13, r->r14, r->r15, r->rip };

	return dwfl_thread_state_registers(thread, 0, 17, v);
#else
	(void)thread;
	(void)arg;
	return false;
#endif
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* A module's file and its .eh_frame read now, before any stop. */
static int load_cfi(Dwfl_Module *mod, void **userdata, const char *name,
		    Dwarf_Addr start, void *arg)
{
	Dwarf_Addr bias;

	(void)userdata;
	(void)name;
	(void)start;
	(void)arg;
	(void)dwfl_module_eh_cfi(mod, &bias);
	return DWARF_CB_OK;
}

struct inject_unwind *inject_unwind_new(pid_t pid)
{
	struct inject_unwind *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->pid = pid;
	report_pid = pid;
	/* the modules' files: libdw opens each (none of them vmscope's own
	 * libraries: nothing the loader maps), all of them now, so that the
	 * freeze reads only the stacks */
	u->dwfl = dwfl_begin(&proc_callbacks);
	if (!u->dwfl || dwfl_linux_proc_report(u->dwfl, pid) != 0 ||
	    dwfl_report_end(u->dwfl, NULL, NULL) != 0 ||
	    dwfl_getmodules(u->dwfl, load_cfi, NULL, 0) != 0) {
		inject_unwind_free(u);
		return NULL;
	}
	return u;
}

void inject_unwind_free(struct inject_unwind *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	free(u);
}

/* Whether the CFI of pc's module covers pc, and whether it says that
 * frame has no caller (its return address register undefined: _start,
 * clone's child). libdw itself goes on without CFI (by the frame
 * pointer) and ends at a return address of 0 or one it cannot read: a
 * walk that skipped a frame (a signal handler without CFI interrupting
 * malloc) must not pass for told. */
static bool covered(Dwfl *dwfl, Dwarf_Addr pc, bool *outermost)
{
	Dwfl_Module *m = dwfl_addrmodule(dwfl, pc);
	Dwarf_CFI *cfi;
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr bias;
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0;
	int ra;

	if (!m || !(cfi = dwfl_module_eh_cfi(m, &bias)) ||
	    dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0 || !fr)
		return false;
	ra = dwarf_frame_info(fr, NULL, NULL, NULL);
	/* libdw.h: no operation at ops_mem is "undefined" (a null ops,
	 * "same value") */
	*outermost = ra >= 0 &&
		     dwarf_frame_register(fr, ra, mem, &ops, &nops) == 0 &&
		     nops == 0 && ops == mem;
	free(fr);
	return true;
}

static int one_frame(Dwfl_Frame *frame, void *arg)
{
	struct inject_unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (u->got == u->n)
		return DWARF_CB_ABORT; /* more frames than asked: not told */
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!activation)
		pc--; /* in the call's function */
	if (!covered(u->dwfl, pc, &u->outermost)) {
		u->untold = true;
		return DWARF_CB_ABORT;
	}
	u->pcs[u->got++] = pc;
	return DWARF_CB_OK;
}

int inject_unwind_frames(struct inject_unwind *u, pid_t tid, int mem,
			 const struct user_regs_struct *regs, uint64_t *pcs,
			 int n)
{
	if (!u || n <= 0)
		return -1;
	u->tid = tid;
	u->mem = mem;
	u->regs = regs;
	u->pcs = pcs;
	u->n = n;
	u->got = 0;
	u->untold = u->outermost = false;
	if (!u->attached) {
		if (!dwfl_attach_state(u->dwfl, NULL, u->pid, &thread_callbacks,
				       u))
			return -1;
		u->attached = true;
	}
	/* 0: the unwinding ended; told only at a frame whose CFI says it
	 * is the outermost, every frame covered. -1, or the callback's
	 * abort: it stopped before */
	if (dwfl_getthread_frames(u->dwfl, tid, one_frame, u) != 0 ||
	    u->untold || !u->outermost)
		return -1;
	return u->got;
}
