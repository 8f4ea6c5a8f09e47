/* modules.c — the tracer library's list of the files the program has
 * loaded (vmstrace.h): each sent once into a thread's ring, before the
 * first stack with an address in its code (record.c asks, vt_modules_for),
 * so vmscope names frames from what the program had loaded, whenever it
 * reads them (the program may be gone). New stacks are rare: a stack with
 * an address in no module known makes the list be read again
 * (dl_iterate_phdr), under a lock of its own. See vmstrace.c for the
 * library's contract.
 */
#define _GNU_SOURCE
#include <link.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "vmstrace.h"

#define MAX_MODULES 1024

struct module {
	uintptr_t lo, hi; /* its code */
};

static struct module modules[MAX_MODULES];
static unsigned nmodules; /* written under modules_lock */
static int modules_lock;
static char exe_path[1024]; /* the main program's (dlpi_name is "") */
/* The working directory at the library's start: where the modules the
 * loader found by a relative path before it (LD_LIBRARY_PATH=.) are,
 * when /proc/self/map_files cannot say ("": not known). */
static char start_cwd[1024];

static bool module_known(uintptr_t ip)
{
	unsigned i, n = __atomic_load_n(&nmodules, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		if (ip - 1 >= modules[i].lo && ip - 1 < modules[i].hi)
			return true;
	return false;
}

struct module_ctx {
	struct tw_slot *sl;
	unsigned char *ring;
	bool failed;
};

#define MODULE_PATH_MAX ((254u - 1u) * 8u - 1u) /* a record's room */

/* Appends x in hex (as /proc/PID/maps writes it) at p; the end. */
static char *put_hex(char *p, uintptr_t x)
{
	char d[2 * sizeof(x)];
	int n = 0;

	do
		d[n++] = "0123456789abcdef"[x & 15];
	while (x >>= 4);
	while (n)
		*p++ = d[--n];
	return p;
}

bool vt_mapped_file(uintptr_t lo, uintptr_t hi, char *buf, size_t n)
{
	char link[64] = "/proc/self/map_files/", *p = link + 21;
	ssize_t got;

	p = put_hex(p, lo);
	*p++ = '-';
	p = put_hex(p, hi);
	*p = '\0';
	got = readlink(link, buf, n - 1);
	if (got <= 0)
		return false;
	buf[got] = '\0';
	return true;
}

/* The file of a module the loader named by a relative path (found
 * through LD_LIBRARY_PATH=. or a relative RPATH, or dlopen("./x.so")),
 * relative to the working directory at its load, which the program may
 * have left since: the kernel's name of the file mapped at its code
 * [lo, hi) (/proc/self/map_files: a readlink, no descriptor, made once a
 * module, as its first stack is sent), else, for a module loaded before
 * the library's start, the directory of that start's. Into buf (n bytes);
 * false: not known (its frames stay unnamed). */
static bool relative_file(const char *name, uintptr_t lo, uintptr_t hi,
			  char *buf, size_t n)
{
	size_t cwd = strlen(start_cwd), len = strlen(name);
	long pg = sysconf(_SC_PAGESIZE);

	if (vt_mapped_file(lo & ~(uintptr_t)(pg - 1),
			   (hi + (uintptr_t)pg - 1) & ~(uintptr_t)(pg - 1), buf,
			   n) &&
	    buf[0] == '/')
		return true;
	while (name[0] == '.' && name[1] == '/') { /* "./x.so": x.so */
		name += 2;
		len -= 2;
	}
	if (!cwd || cwd + 1 + len + 1 > n)
		return false;
	memcpy(buf, start_cwd, cwd);
	buf[cwd] = '/';
	memcpy(buf + cwd + 1, name, len + 1);
	return true;
}

static int send_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct module_ctx *c = arg;
	const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name
							       : exe_path;
	uint64_t w[256];
	char *file = (char *)&w[2]; /* the record's path, MODULE_PATH_MAX */
	size_t len = strlen(path);
	unsigned words;
	int i;

	(void)size;
	if (path[0] != '/' && !strchr(path, '/'))
		return 0; /* the vDSO: a name that is no file */
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		unsigned k;
		bool seen = false;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		for (k = 0; k < nmodules && !seen; k++)
			seen = modules[k].lo == lo;
		if (seen || nmodules == MAX_MODULES)
			continue;
		if (path[0] != '/') { /* found once, sent by that name */
			if (!relative_file(path, lo, lo + ph->p_memsz, file,
					   MODULE_PATH_MAX + 1))
				return 0;
			path = file;
			len = strlen(path);
		}
		if (len > MODULE_PATH_MAX)
			return 0; /* a name too long for a record */
		words = 2 + (unsigned)(len + 8) / 8;
		w[0] = vt_rec_word(TW_OP_MODULE, words, 0);
		w[1] = info->dlpi_addr;
		if (path != file)
			memcpy(file, path, len);
		memset(file + len, 0, (size_t)(words - 2) * 8 - len);
		if (!vt_put(c->sl, c->ring, w, words)) {
			c->failed = true;
			return 1;
		}
		modules[nmodules].lo = lo;
		modules[nmodules].hi = lo + ph->p_memsz;
		__atomic_store_n(&nmodules, nmodules + 1, __ATOMIC_RELEASE);
	}
	return 0;
}

/* Sends the modules not sent yet when an address lies in none known. */
bool vt_modules_for(void *const *ip, int n, struct tw_slot *sl,
		    unsigned char *ring)
{
	struct module_ctx c = { sl, ring, false };
	int i;

	for (i = 0; i < n && module_known((uintptr_t)ip[i]); i++)
		;
	if (i == n)
		return true;
	while (__atomic_exchange_n(&modules_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	dl_iterate_phdr(send_module, &c);
	__atomic_store_n(&modules_lock, 0, __ATOMIC_RELEASE);
	return !c.failed;
}

void vt_modules_start(void)
{
	ssize_t n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);

	exe_path[n > 0 ? n : 0] = '\0';
	if (!getcwd(start_cwd, sizeof(start_cwd)) || start_cwd[0] != '/')
		start_cwd[0] = '\0'; /* none, or unreachable */
}

void vt_modules_reset(bool locked)
{
	/* locked: taken first (another thread may be sending); else the
	 * one thread of a forked child, whose lock may be a thread's of its
	 * parent that is not here */
	while (locked &&
	       __atomic_exchange_n(&modules_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	__atomic_store_n(&nmodules, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&modules_lock, 0, __ATOMIC_RELEASE);
}
