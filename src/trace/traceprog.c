/* traceprog.c — whether a command can be traced by a preloaded library
 * (traceprog.h): the file the kernel runs for it, read before it runs.
 */
#include "trace/traceprog.h"

#include <elf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

/* cmd[0] as execvp finds it, into buf; false when not found. */
static bool find_program(const char *name, char *buf, size_t n)
{
	const char *path = getenv("PATH"), *p;

	if (strchr(name, '/')) {
		snprintf(buf, n, "%s", name);
		return access(buf, X_OK) == 0;
	}
	for (p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");

		snprintf(buf, n, "%.*s%s%s", (int)len, p, len ? "/" : "", name);
		if (access(buf, X_OK) == 0)
			return true;
		p += len;
		if (*p == ':')
			p++;
	}
	return false;
}

/* What the kernel runs for path: a script's interpreter (its "#!" line,
 * the first 256 bytes as the kernel reads them), followed as the kernel
 * does, 4 deep at most; into out. false: not readable or no interpreter
 * named (execvp says why). */
static bool exec_file(const char *path, char *out, size_t n)
{
	char buf[257], cur[4096];
	int depth, fd;

	snprintf(cur, sizeof(cur), "%s", path);
	for (depth = 0; depth <= 4; depth++) {
		ssize_t got;
		size_t at, len;

		fd = open(cur, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return false;
		got = pread(fd, buf, sizeof(buf) - 1, 0);
		close(fd);
		if (got < 2 || buf[0] != '#' || buf[1] != '!')
			break;
		buf[got] = '\0';
		at = 2 + strspn(buf + 2, " \t");
		len = strcspn(buf + at, " \t\n");
		if (!len)
			return false;
		snprintf(cur, sizeof(cur), "%.*s", (int)len, buf + at);
	}
	snprintf(out, n, "%s", cur);
	return true;
}

int traceprog_check(const char *name, struct vms_error *err)
{
	char path[4096], file[4096], what[8300];
	struct stat st;
	Elf64_Ehdr eh;
	int fd, i, interp = 0;

	if (!find_program(name, path, sizeof(path)) ||
	    !exec_file(path, file, sizeof(file)))
		return 0; /* execvp says why */
	if (strcmp(file, path) == 0)
		snprintf(what, sizeof(what), "%s: it", path);
	else
		snprintf(what, sizeof(what), "%s: its interpreter %s", path,
			 file);
	if (stat(file, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)))
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "cannot trace %s is set-user-ID or "
				     "set-group-ID, and the loader ignores "
				     "LD_PRELOAD for it",
				     what);
	if (getuid() != 0 && getxattr(file, "security.capability", NULL, 0) > 0)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "cannot trace %s has file capabilities "
				     "(getcap lists them), and the loader "
				     "ignores LD_PRELOAD for it: trace a copy "
				     "without them, or as root",
				     what);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
		close(fd); /* not ELF: the exec says whether it runs */
		return 0;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr)) {
		close(fd); /* the loader says (tracer_started) */
		return 0;
	}
	for (i = 0; i < eh.e_phnum && i < 256; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph),
			  (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			break;
		interp |= ph.p_type == PT_INTERP;
	}
	close(fd);
	if (!interp)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "cannot trace %s is statically "
				     "linked, and a preloaded library cannot "
				     "enter it",
				     what);
	return 0;
}
