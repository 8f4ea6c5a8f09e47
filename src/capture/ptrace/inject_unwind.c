/* inject_unwind.c — see inject_unwind.h. libdw's unwinder on a process
 * stopped under ptrace by another (the freeze): its state callbacks read
 * the memory through /proc/PID/mem and take the registers the freeze
 * read, so libdw neither attaches nor stops anything itself.
 */
#include "capture/ptrace/inject_unwind.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
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

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
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

struct inject_unwind *inject_unwind_new(pid_t pid)
{
	struct inject_unwind *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->pid = pid;
	/* the modules' files: libdw opens each (none of them vmscope's own
	 * libraries: nothing the loader maps) */
	u->dwfl = dwfl_begin(&proc_callbacks);
	if (!u->dwfl || dwfl_linux_proc_report(u->dwfl, pid) != 0 ||
	    dwfl_report_end(u->dwfl, NULL, NULL) != 0) {
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

static int one_frame(Dwfl_Frame *frame, void *arg)
{
	struct inject_unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (u->got == u->n)
		return DWARF_CB_ABORT; /* more frames than asked: not told */
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	u->pcs[u->got++] = activation ? pc : pc - 1;
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
	if (!u->attached) {
		if (!dwfl_attach_state(u->dwfl, NULL, u->pid, &thread_callbacks,
				       u))
			return -1;
		u->attached = true;
	}
	/* 0: the unwinding ended at the outermost frame; -1, or the
	 * callback's abort: it stopped before */
	return dwfl_getthread_frames(u->dwfl, tid, one_frame, u) == 0 ? u->got
								      : -1;
}
