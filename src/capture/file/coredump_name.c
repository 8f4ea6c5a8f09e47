/* coredump_name.c — a core's process name, as the live capture has it.
 *
 * Live, the name is /proc/PID/comm (linux/proclist.c): exec sets it to the
 * basename of the path it was given, cut to 15 bytes (TASK_COMM_LEN less
 * its NUL), and only prctl(PR_SET_NAME) changes it later; a process that
 * retitles itself (redis, postgres: its title written over argv[0]'s
 * memory) keeps it. A core's NT_PRPSINFO pr_fname is that comm when the
 * kernel wrote the core (fs/binfmt_elf.c fill_psinfo), but gdb's gcore
 * writes the basename of /proc/PID/cmdline's first string, cut to 15 or
 * 16 bytes (gdb/linux-tdep.c linux_fill_prpsinfo; gdb 13 fills all 16): for a retitled process, the
 * title's tail after its last '/' ("r.sock" for redis started with
 * --unixsocket /tmp/x/r.sock, titled "redis-server unixsocket:/tmp/x/
 * r.sock") or its first 15 bytes ("postgres: check" for a checkpointer).
 * So, in order:
 *   1. pr_fname, when it cannot have come from the command line (nowhere
 *      in pr_psargs at its start or after a '/', followed by its end or a
 *      space, or cut at 15 or 16 bytes): the kernel's comm, prctl's name included;
 *   2. the basename of AT_EXECFN's string (the path exec was given, on
 *      the initial stack, above the environment a retitling overwrites),
 *      cut to 15: what exec made comm;
 *   3. the basename of the executable the core maps at AT_ENTRY (NT_FILE),
 *      cut to 15: the file itself ("python3.11" for "python3", a link);
 *   4. pr_fname.
 */
#include <string.h>

#include "capture/file/coredump_int.h"

#define COMM_MAX 15 /* TASK_COMM_LEN less its NUL */
#define EXECFN_MAX 4096 /* PATH_MAX */

/* Whether gdb could have made f (fn bytes) from the command line a (al
 * bytes): a basename of a prefix of its first string, cut to 15 or 16. */
static bool from_cmdline(const char *f, size_t fn, const char *a, size_t al)
{
	size_t q;

	if (!fn || memchr(f, '/', fn))
		return false;
	for (q = 0; q + fn <= al; q++)
		if ((q == 0 || a[q - 1] == '/') && memcmp(a + q, f, fn) == 0 &&
		    (fn >= COMM_MAX || q + fn == al || a[q + fn] == ' '))
			return true;
	return false;
}

/* The basename of path (n bytes, no NUL needed) cut to 15, or NULL. */
static const char *comm_of(struct arena *ar, const char *path, size_t n)
{
	size_t b = n;

	while (b > 0 && path[b - 1] != '/')
		b--;
	if (b == n)
		return NULL;
	return arena_strndup(ar, path + b, n - b < COMM_MAX ? n - b : COMM_MAX);
}

/* AT_EXECFN's string, from the core's memory, cut to its basename. */
static const char *execfn_name(struct vms_snapshot *s, uint64_t execfn)
{
	char buf[EXECFN_MAX];
	struct vms_error ignore;
	ssize_t got;
	const char *end;

	if (!execfn)
		return NULL;
	got = coredump_read(s, execfn, buf, sizeof(buf), &ignore);
	if (got <= 0)
		return NULL;
	end = memchr(buf, '\0', (size_t)got);
	if (!end || end == buf)
		return NULL;
	return comm_of(&s->arena, buf, (size_t)(end - buf));
}

const char *coredump_name(struct vms_snapshot *s, const char *f, size_t fn,
			  const char *a, size_t al, uint64_t execfn)
{
	const char *name;

	if (fn && !from_cmdline(f, fn, a, al))
		return arena_strndup(&s->arena, f, fn);
	if ((name = execfn_name(s, execfn)))
		return name;
	if (s->proc.exe &&
	    (name = comm_of(&s->arena, s->proc.exe, strlen(s->proc.exe))))
		return name;
	return arena_strndup(&s->arena, f, fn);
}
