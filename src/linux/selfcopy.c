/* selfcopy.c — vmscope re-executes itself from private copies of its
 * libraries (selfcopy.h says why).
 *
 * How: dl_iterate_phdr() lists the objects the loader mapped (main program,
 * vDSO, libraries, ld.so itself); each library file is copied into a memfd
 * (sendfile), sealed against any change, and left open across exec. Then
 *
 *     fexecve(ld.so copy, [argv0, "--argv0", argv0, "--preload",
 *             "/proc/self/fd/L1:/proc/self/fd/L2:...", "/proc/self/fd/E",
 *             args...])
 *
 * where E is vmscope's own executable (reopened, not copied: no target maps
 * it). The preloaded copies carry the libraries' sonames, so every
 * DT_NEEDED is satisfied by them and nothing is looked up on disk. The new
 * image finds VMSCOPE_SELFCOPY in its environment (the descriptors and the
 * executable's path), closes the descriptors, removes the variable so that
 * nothing vmscope starts inherits it, and puts its command line back as it
 * was typed (ps shows "vmscope -s 1234", not the loader's arguments).
 *
 * Not done, with the reason in selfcopy_why(): VMSCOPE_SHARED_LIBS set (for
 * debugging); a setuid or file-capability vmscope (AT_SECURE: the copied
 * loader would run without the privileges); LD_PRELOAD or LD_AUDIT set
 * (valgrind, sanitizer tools: what they inject would be lost); not glibc
 * 2.33 or later (--argv0, --preload); a memfd that cannot be created or
 * executed (vm.memfd_noexec). Every failure before the exec leaves the
 * process as it was; after a successful exec there is no way back, so
 * everything the exec needs is checked first.
 */
#include "linux/selfcopy.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>
/* LeakSanitizer is in (ASan's): gcc says so by __SANITIZE_ADDRESS__,
 * clang by __has_feature */
#if defined(__SANITIZE_ADDRESS__)
#define VMS_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define VMS_LSAN 1
#endif
#endif
#ifdef VMS_LSAN
#include <sanitizer/lsan_interface.h>
#endif
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#define ENV "VMSCOPE_SELFCOPY"
#define MAX_OBJS 64
/* More than any library set vmscope links (6 MB; 12 MB with ASan). */
#define MAX_BYTES (256u << 20)

extern char **environ;

static void asan_restore(void);

static const char *why = "not tried";
static char why_buf[160];
static char exe_path[4096];

void selfcopy_loader_begin(void)
{
#ifdef VMS_LSAN
	__lsan_disable();
#endif
}

void selfcopy_loader_end(void)
{
#ifdef VMS_LSAN
	__lsan_enable();
#endif
}

const char *selfcopy_why(void)
{
	return why;
}

const char *selfcopy_exe(void)
{
	return exe_path[0] ? exe_path : NULL;
}

/* why = "cannot DO WHAT: strerror(e)" */
static void say(const char *do_, const char *what, int e)
{
	snprintf(why_buf, sizeof(why_buf), "cannot %s %s: %s", do_, what,
		 strerror(e));
	why = why_buf;
}

struct objs {
	const char *path[MAX_OBJS];
	size_t n;
	const char *ldso;
	uintptr_t base; /* AT_BASE: ld.so's load address */
	bool overflow;
};

static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
	struct objs *o = data;

	(void)size;
	if (!info->dlpi_name || info->dlpi_name[0] != '/')
		return 0; /* the main program (""), the vDSO */
	if (info->dlpi_addr == o->base) {
		o->ldso = info->dlpi_name;
		return 0;
	}
	if (o->n == MAX_OBJS) {
		o->overflow = true;
		return 1;
	}
	o->path[o->n++] = info->dlpi_name;
	return 0;
}

static int memfd_for(const char *name)
{
	char label[64];
	const char *base = strrchr(name, '/');
	int fd;

	snprintf(label, sizeof(label), "vmscope:%s", base ? base + 1 : name);
	/* vm.memfd_noexec=1 (Linux 6.3) makes memfds non-executable unless
	 * MFD_EXEC (0x10) is asked for; older kernels refuse the flag. */
	fd = memfd_create(label, MFD_ALLOW_SEALING | 0x0010U);
	if (fd >= 0 || errno != EINVAL)
		return fd;
	return memfd_create(label, MFD_ALLOW_SEALING);
}

/* Copies the file at path into a sealed memfd; its descriptor, or -1. */
static int copy_of(const char *path, size_t *total)
{
	struct stat st;
	int in = open(path, O_RDONLY | O_CLOEXEC), out = -1, e;
	off_t done = 0;

	if (in < 0 || fstat(in, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (*total += (size_t)st.st_size) > MAX_BYTES) {
		e = in < 0 ? errno : EFBIG;
		goto fail;
	}
	if ((out = memfd_for(path)) < 0) {
		e = errno;
		goto fail;
	}
	while (done < st.st_size) {
		ssize_t n =
			sendfile(out, in, &done, (size_t)(st.st_size - done));

		if (n <= 0) {
			e = n < 0 ? errno : EIO;
			goto fail;
		}
	}
	if (fcntl(out, F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) <
	    0) {
		e = errno;
		goto fail;
	}
	close(in);
	return out;
fail:
	say("copy", path, e);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return -1;
}

/* The checks that must pass before anything is copied. */
static bool can_try(void)
{
	const char *v;

	if ((v = getenv("VMSCOPE_SHARED_LIBS")) && *v) {
		why = "VMSCOPE_SHARED_LIBS is set";
		return false;
	}
	if (getauxval(AT_SECURE)) {
		why = "vmscope runs setuid or with file capabilities";
		return false;
	}
	if (((v = getenv("LD_PRELOAD")) && *v) ||
	    ((v = getenv("LD_AUDIT")) && *v)) {
		why = "LD_PRELOAD or LD_AUDIT is set (valgrind, a tool)";
		return false;
	}
#ifdef __GLIBC__
	{
		int maj = 0, min = 0;

		if (sscanf(gnu_get_libc_version(), "%d.%d", &maj, &min) != 2 ||
		    maj < 2 || (maj == 2 && min < 33)) {
			why = "glibc is older than 2.33";
			return false;
		}
	}
#else
	why = "not built on glibc";
	return false;
#endif
	return true;
}

/* The re-executed image: close the copies, forget the variable, put the
 * command line back. */
/* Whether descriptor fd is one selfcopy_run() left: a copy (its memfds
 * are named "vmscope:...") or the executable it reopened. */
static bool ours(long fd)
{
	char link[64], target[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%ld", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	return strncmp(target, "/memfd:vmscope:", 15) == 0 ||
	       (exe_path[0] && strcmp(target, exe_path) == 0);
}

static void settle(const char *v, char **argv)
{
	const char *semi = strchr(v, ';');
	char *end, self[64];
	long fd;
	ssize_t n;

	snprintf(exe_path, sizeof(exe_path), "%s", semi ? semi + 1 : "");
	/* Only an image started by selfcopy_run() runs the copied loader; a
	 * variable inherited or forged otherwise is dropped, and the copy
	 * made as usual. */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	if (strncmp(self, "/memfd:vmscope:", 15) != 0) {
		exe_path[0] = '\0';
		unsetenv(ENV);
		return;
	}
	for (;;) {
		fd = strtol(v, &end, 10);
		if (end == v)
			break;
		if (fd > 2 && ours(fd))
			close((int)fd);
		if (*end != ',')
			break;
		v = end + 1;
	}
	unsetenv(ENV);
	asan_restore();
	why = NULL;
	{
		const char *b = strrchr(argv[0], '/');

		prctl(PR_SET_NAME, b ? b + 1 : argv[0], 0, 0, 0);
	}
}

/* Moves argv's strings to the start of the kernel's argument area, so
 * /proc/PID/cmdline (ps, pgrep -f) shows what was typed; the loader's own
 * arguments become trailing NULs. Best effort: left as is when the area
 * is not where /proc/self/stat says. */
static void tidy_cmdline(char **argv)
{
	unsigned long arg_start = 0, arg_end = 0;
	char *buf = NULL, *p;
	size_t len = 0, i, n;
	FILE *f = fopen("/proc/self/stat", "re");
	int argc;

	if (!f)
		return;
	/* Fields 48 and 49; the comm in field 2 may hold spaces. */
	{
		char line[1024], *q;

		if (!fgets(line, sizeof(line), f) || !(q = strrchr(line, ')')))
			goto out;
		q += 2;
		for (i = 3; i < 48 && q; i++)
			q = strchr(q, ' ') ? strchr(q, ' ') + 1 : NULL;
		if (!q || sscanf(q, "%lu %lu", &arg_start, &arg_end) != 2)
			goto out;
	}
	for (argc = 0; argv[argc]; argc++)
		len += strlen(argv[argc]) + 1;
	if (!arg_start || arg_end <= arg_start || len > arg_end - arg_start ||
	    (uintptr_t)argv[0] < arg_start || (uintptr_t)argv[0] >= arg_end ||
	    !(buf = malloc(len)))
		goto out;
	for (p = buf, i = 0; i < (size_t)argc; i++) {
		n = strlen(argv[i]) + 1;
		memcpy(p, argv[i], n);
		p += n;
	}
	p = (char *)arg_start;
	memcpy(p, buf, len);
	memset(p + len, 0, arg_end - arg_start - len);
	for (i = 0; i < (size_t)argc; i++) {
		argv[i] = p;
		p += strlen(p) + 1;
	}
	/* With CAP_SYS_RESOURCE (root) the trailing NULs go too. */
	prctl(PR_SET_MM, PR_SET_MM_ARG_END, arg_start + len, 0, 0);
	program_invocation_name = argv[0];
	p = strrchr(argv[0], '/');
	program_invocation_short_name = p ? p + 1 : argv[0];
out:
	free(buf);
	fclose(f);
}

/* AddressSanitizer's dynamic runtime checks that it is the first library
 * by its file name; preloaded, its name is /proc/self/fd/N. The order is
 * kept (collect() walks the link map in order), so the name check goes for
 * the re-executed image, which then takes the option away again
 * (asan_restore) so that nothing it starts inherits it. false when the
 * option cannot be added. */
#define ASAN_ADD "verify_asan_link_order=0"
static bool asan_tolerate_order(void)
{
#if defined(__SANITIZE_ADDRESS__)
	static char buf[1024];
	const char *old = getenv("ASAN_OPTIONS");
	int n = snprintf(buf, sizeof(buf), "%s%s" ASAN_ADD, old ? old : "",
			 old && *old ? ":" : "");

	if (n < 0 || (size_t)n >= sizeof(buf))
		return false;
	setenv("ASAN_OPTIONS", buf, 1);
#endif
	return true;
}

static void asan_restore(void)
{
#if defined(__SANITIZE_ADDRESS__)
	static char buf[1024];
	const char *cur = getenv("ASAN_OPTIONS");
	size_t n = cur ? strlen(cur) : 0, k = strlen(ASAN_ADD);

	if (n < k || strcmp(cur + n - k, ASAN_ADD) != 0)
		return;
	n -= k;
	if (n && cur[n - 1] == ':')
		n--;
	if (n == 0 || n >= sizeof(buf)) {
		unsetenv("ASAN_OPTIONS");
		return;
	}
	memcpy(buf, cur, n);
	buf[n] = '\0';
	setenv("ASAN_OPTIONS", buf, 1);
#endif
}

static bool settled; /* selfcopy_settle() has run */

bool selfcopy_settle(char **argv)
{
	const char *v = getenv(ENV);

	if (settled)
		return !why;
	settled = true;
	if (v) {
		settle(v, argv);
		if (!why) { /* the re-executed image */
			tidy_cmdline(argv);
			return true;
		}
	}
	return false;
}

void selfcopy_run(char **argv)
{
	struct objs o = { .base = (uintptr_t)getauxval(AT_BASE) };
	int fds[MAX_OBJS], ldfd = -1, exefd = -1, argc;
	size_t i, nfds = 0, total = 0;
	char *list = NULL, *env = NULL, **nargv = NULL;
	ssize_t len;

	if (selfcopy_settle(argv))
		return;
	len = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	exe_path[len > 0 ? len : 0] = '\0';
	if (!can_try())
		return;
	/* A closed standard descriptor would be taken by a copy and kept by
	 * whatever vmscope starts: fill them first. */
	{
		int fd;

		while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2)
			;
		if (fd > 2)
			close(fd);
	}
	dl_iterate_phdr(collect, &o);
	if (!o.ldso || o.overflow) {
		why = o.ldso ? "more libraries than it can copy"
			     : "its dynamic loader was not found";
		return;
	}
	if ((exefd = open("/proc/self/exe", O_RDONLY)) < 0) {
		say("reopen", "its executable", errno);
		return;
	}
	if ((ldfd = copy_of(o.ldso, &total)) < 0)
		goto undo;
	for (i = 0; i < o.n; i++)
		if ((fds[nfds] = copy_of(o.path[i], &total)) < 0)
			goto undo;
		else
			nfds++;
	for (argc = 0; argv[argc]; argc++)
		;
	list = malloc(nfds * 26 + 1);
	env = malloc((nfds + 2) * 12 + strlen(exe_path) + sizeof(ENV) + 4);
	nargv = calloc((size_t)argc + 7, sizeof(*nargv));
	if (!list || !env || !nargv) {
		why = "out of memory";
		goto undo;
	}
	list[0] = '\0';
	len = sprintf(env, "%s=%d,%d", ENV, ldfd, exefd);
	for (i = 0; i < nfds; i++) {
		sprintf(list + strlen(list), "%s/proc/self/fd/%d", i ? ":" : "",
			fds[i]);
		len += sprintf(env + len, ",%d", fds[i]);
	}
	sprintf(env + len, ";%s", exe_path);
	nargv[0] = argv[0];
	nargv[1] = "--argv0";
	nargv[2] = argv[0];
	nargv[3] = "--preload";
	nargv[4] = list;
	{
		static char self[32];

		snprintf(self, sizeof(self), "/proc/self/fd/%d", exefd);
		nargv[5] = self;
	}
	memcpy(nargv + 6, argv + 1, (size_t)argc * sizeof(*argv));
	if (putenv(env) != 0) {
		why = "out of memory";
		goto undo;
	}
	{
		char *old = getenv("ASAN_OPTIONS");

		old = old ? strdup(old) : NULL;
		if (!asan_tolerate_order()) {
			why = "ASAN_OPTIONS is too long to add to";
			free(old);
			goto undo;
		}
		fexecve(ldfd, nargv, environ);
		say("execute", "the copied loader", errno);
		if (old)
			setenv("ASAN_OPTIONS", old, 1);
		else
			unsetenv("ASAN_OPTIONS");
		free(old);
	}
undo:
	unsetenv(ENV); /* before env is freed: putenv keeps the pointer */
	free(env);
	free(list);
	free(nargv);
	if (ldfd >= 0)
		close(ldfd);
	close(exefd);
	for (i = 0; i < nfds; i++)
		close(fds[i]);
}
