/* start.c — the tracer library's start and end in a launched command
 * (vmstrace.h): its constructor, or the first call it sees if a
 * library's constructor allocates first (vt_launch_early), maps the file
 * vmscope made and starts recording (record.c's vt_start); a followed
 * child's exec starts it with a file of its own (follow.c); its
 * destructor holds the command at exit() for vmscope's last snapshot
 * (vt_exit_hold). See vmstrace.c for the library's contract.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmstrace.h"

/* The executable PT_LOAD of the module that holds t->at, into t->lo/hi. */
struct text_of {
	uintptr_t at, lo, hi;
};

static int find_text(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct text_of *t = ctx;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    t->at >= lo && t->at < lo + ph->p_memsz) {
			t->lo = lo;
			t->hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

/* This library's text, and libunwind's (record.c: a stack is never taken
 * by libunwind from inside libunwind, whose locks it would wait on). */
static void vmstrace_init(void);

static void find_modules(void)
{
	struct text_of me = { .at = (uintptr_t)vmstrace_init };
	struct text_of unw = { .at = (uintptr_t)unw_backtrace };

	dl_iterate_phdr(find_text, &me);
	dl_iterate_phdr(find_text, &unw);
	vt_self(me.lo, me.hi, unw.lo, unw.hi);
	/* before libunwind's first use, which makes its pipe */
	vt_unw_pipe_aside(unw.lo);
}

/* Takes every word of LD_PRELOAD naming this library out of it, in place
 * (the program's children run untraced), and VMSCOPE_TRACE_FD; following
 * children (TW_FOLLOW_ENV), only VMSCOPE_TRACE_FD (the file is this
 * process's: a child makes its own). */
static void leave_environment(void)
{
	char *v = getenv("LD_PRELOAD"), *w, *out;

	unsetenv("VMSCOPE_TRACE_FD");
	if (vt_following())
		return;
	if (!v)
		return;
	for (w = out = v; *w;) {
		size_t n = strcspn(w, ": ");

		if (!memmem(w, n, "libvmstrace", 11)) {
			if (out != v)
				*out++ = ':';
			memmove(out, w, n);
			out += n;
		}
		w += n;
		while (*w == ':' || *w == ' ')
			w++;
	}
	*out = '\0';
	if (!*v)
		unsetenv("LD_PRELOAD");
}

/* Whether LD_PRELOAD names this library: preloaded (a child of a
 * followed process), not loaded into a running process by an attach,
 * whatever else its environment says. */
static bool preloaded(void)
{
	const char *v = getenv("LD_PRELOAD");

	return v && strstr(v, "libvmstrace");
}

/* Starts tracing into the mapped file h (-1: not, h let go). */
static int start_with(struct tw_header *h)
{
	if (h->magic != TW_MAGIC || h->version != TW_VERSION ||
	    h->slots != TW_SLOTS || h->ring_bytes != TW_RING_BYTES) {
		next_munmap(h, TW_FILE_BYTES);
		return -1;
	}
	{
		/* libunwind's one-time set-up (a pthread_once that maps
		 * memory) done now, before the program runs: done later by
		 * the program's own unw_backtrace, its mmap came here, whose
		 * walk (past a signal frame: libunwind's) waited on that same
		 * once (test_unwind hung so). Not at an attach (attach.c): a
		 * running program may have rewritten libc's syscall(), which
		 * libunwind calls (hostile_target's ud2). */
		void *ip[2];

		unw_backtrace(ip, 2);
	}
	if (vt_start(h) < 0) {
		next_munmap(h, TW_FILE_BYTES);
		return -1;
	}
	return 0;
}

/* A launch's start (VMSCOPE_TRACE_FD: the file's descriptor): -1, none
 * (the program runs untraced). */
static int launch_start(const char *e)
{
	struct tw_header *h;
	struct stat st;
	char *end;
	long fd;

	/* --trace-children: the launched process follows too */
	vt_follow_parse(getenv(TW_FOLLOW_ENV));
	vt_resolve();
	find_modules();
	fd = strtol(e, &end, 10);
	if (*end || fd < 0 || fd > 1 << 20)
		return -1;
	/* vmscope's file, or not touched: a child a library's constructor
	 * started before this library's took its environment, not the
	 * descriptor, whose number may be a file of its own (closed, or
	 * mapped past its end) */
	if (fstat((int)fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size != TW_FILE_BYTES)
		return -1;
	h = next_mmap(NULL, TW_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		      (int)fd, 0);
	close((int)fd); /* the program's descriptors are its own */
	if (h == MAP_FAILED)
		return -1;
	return start_with(h);
}

/* A launch's start made by the first call the library sees (vmstrace.h:
 * vt_early): 0 started, -1 not tried or failed. */
static int early_rc = -1;
int vt_unstarted = 1;

void vt_launch_early(void)
{
	extern char **environ;
	const char *e;

	if (!environ) /* libc not up: a call of the loader's own */
		return;
	if (!(e = getenv("VMSCOPE_TRACE_FD"))) {
		/* not a launch: the constructor's (an attach's library is
		 * called only once attached, a followed child's starts there) */
		return;
	}
	if (__atomic_exchange_n(&vt_unstarted, 0, __ATOMIC_ACQ_REL) == 0)
		return;
	/* (the fork handler is the constructor's: pthread_atfork holds its
	 * lock while it allocates, as the call here may be made) */
	early_rc = launch_start(e);
}

__attribute__((constructor)) static void vmstrace_init(void)
{
	const char *e = getenv("VMSCOPE_TRACE_FD");
	int unstarted = __atomic_exchange_n(&vt_unstarted, 0, __ATOMIC_ACQ_REL);
	struct tw_header *h;

	if (!e && preloaded() && vt_follow_parse(getenv(TW_FOLLOW_ENV)) == 0) {
		/* a child of a followed process, exec'd: a file of its own,
		 * sent to vmscope (none: it runs untraced) */
		vt_resolve();
		find_modules();
		if (!(h = vt_follow_file(TW_FOLLOW_EXEC)) || start_with(h) < 0)
			return;
	} else if (!e) {
		/* Not preloaded by vmscope: loaded into a running process
		 * (attach.c), whose environment is left alone; nothing is
		 * recorded before vmstrace_attach(). */
		vt_attach_mode = true;
		vt_resolve();
		find_modules();
		return;
	} else {
		/* a launch: started here unless a call came first (a
		 * library's constructor, which the loader runs before this
		 * library's, allocated) */
		int rc = unstarted ? launch_start(e) : early_rc;

		leave_environment();
		if (rc < 0)
			return;
	}
	vt_follow_atfork(); /* following: a forked child too */
}

/* At exit() (not _exit(), nor a fatal signal): the command waits here
 * for vmscope's last snapshot when vmscope asked for one (-w FILE: its
 * map is gone once it has ended; tracewire.h, exit_hold), run before the
 * finalizers of the libraries initialised before this one. */
__attribute__((destructor)) static void vmstrace_fini(void)
{
	vt_exit_hold();
}
