/* procfs_perm.c — why vmscope cannot look at a process, in words a
 * person can act on (procfs.h: procfs_check_has_mm, procfs_ids_refuse,
 * procfs_errno_error): no memory to show (a kernel thread, a zombie), or
 * the kernel refuses its files (another user, a user namespace, the
 * capabilities vmscope holds, a security module, a process that made
 * itself undumpable). Above procfs.c, which reads the files.
 */
#include "linux/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A hexadecimal "Key:\t..." of a status buffer (capability sets). */
static bool status_hex(const char *b, const char *key, uint64_t *v)
{
	const char *p = strstr(b, key);

	if (!p)
		return false;
	*v = strtoull(p + strlen(key), NULL, 16);
	return true;
}

/* Whether this process runs in the initial user namespace (its uid_map
 * maps every id to itself), where root's capabilities reach every
 * process. */
static bool in_initial_userns(void)
{
	char *b;
	size_t n;
	unsigned long long a, c, len;
	bool yes = true; /* unknown: do not claim a namespace */

	if (procfs_read_file("/proc/self/uid_map", &b, &n) == 0) {
		yes = sscanf(b, "%llu %llu %llu", &a, &c, &len) == 3 &&
		      a == 0 && c == 0 && len == 4294967295ull;
		free(b);
	}
	return yes;
}

bool procfs_userns_refuses(pid_t pid, char *why, size_t size)
{
	if (in_initial_userns())
		return false;
	snprintf(why, size,
		 "vmscope runs in a user namespace whose root is not root "
		 "outside it, and process %d is outside it; run vmscope in the "
		 "namespace of the target or above it",
		 (int)pid);
	return true;
}

/* The security modules that decide besides capabilities ("landlock, yama,
 * apparmor"), from securityfs when it is mounted; "" if unknown. */
static void active_lsms(char *out, size_t size)
{
	char *b, *tok, *save = NULL;
	size_t n, used = 0;

	out[0] = '\0';
	if (procfs_read_file("/sys/kernel/security/lsm", &b, &n) < 0)
		return;
	for (tok = strtok_r(b, ",\n", &save); tok;
	     tok = strtok_r(NULL, ",\n", &save)) {
		int w;

		if (strcmp(tok, "capability") == 0 ||
		    strcmp(tok, "lockdown") == 0)
			continue;
		w = snprintf(out + used, size - used, "%s%s", used ? ", " : "",
			     tok);
		if (w < 0 || (size_t)w >= size - used)
			break;
		used += (size_t)w;
	}
	free(b);
}

/* Whether the ids of a status line ("Uid:\treal eff saved fs") are all
 * id, as the kernel's ptrace check wants them (real, effective, saved). */
static bool status_ids_are(const char *b, const char *key, unsigned id,
			   unsigned *eff)
{
	const char *p = strstr(b, key);
	unsigned r, e, sv;

	if (!p || sscanf(p + strlen(key), "%u %u %u", &r, &e, &sv) != 3)
		return true; /* unknown: do not claim they differ */
	*eff = e;
	return r == id && e == id && sv == id;
}

/* Why reading a /proc file of pid (a ptrace "read" access check: the
 * same user, or CAP_SYS_PTRACE; then dumpable, the target's capabilities,
 * then security modules) was refused. Yama's ptrace_scope governs
 * attaching only, never these reads. */
static void perm_reason(pid_t pid, char *why, size_t size)
{
	uint64_t mine = 0, theirs = 0;
	char *me = NULL, *them = NULL, lsm[128];
	size_t n;
	bool root = geteuid() == 0, cap_ptrace = true, caps_known = false;
	bool same_user = true;
	unsigned their_uid = 0;

	if (procfs_read_file("/proc/self/status", &me, &n) == 0 &&
	    status_hex(me, "\nCapEff:", &mine))
		cap_ptrace = (mine >> 19) & 1; /* CAP_SYS_PTRACE */
	if (procfs_read_pid(pid, "status", &them, &n) == 0) {
		caps_known = me && status_hex(them, "\nCapPrm:", &theirs);
		same_user =
			status_ids_are(them, "\nUid:", geteuid(), &their_uid) &&
			status_ids_are(them, "\nGid:", getegid(),
				       &(unsigned){ 0 });
	}
	free(me);
	free(them);
	if (!cap_ptrace) {
		char target[120];

		if (!same_user)
			snprintf(target, sizeof(target),
				 "it runs as uid %u (or under other ids)",
				 their_uid);
		else
			snprintf(target, sizeof(target), "%s",
				 caps_known && (theirs & ~mine)
					 ? "it holds capabilities vmscope lacks"
					 : "it is not dumpable (a setuid or "
					   "setgid program, or one that made "
					   "itself so with prctl)");
		if (root)
			snprintf(why, size,
				 "%s, and vmscope runs as root without "
				 "CAP_SYS_PTRACE (a container, or a dropped "
				 "capability); grant it",
				 target);
		else
			snprintf(why, size,
				 "%s; run as root (with CAP_SYS_PTRACE)",
				 target);
		return;
	}
	if (procfs_userns_refuses(pid, why, size))
		return;
	/* Root with CAP_SYS_PTRACE in the initial namespace passes the
	 * kernel's own checks: only a security module is left to say no. */
	active_lsms(lsm, sizeof(lsm));
	snprintf(why, size,
		 "vmscope has CAP_SYS_PTRACE, so a security module refuses "
		 "it (%s%s: a sandbox vmscope runs in may keep it to the "
		 "processes inside)",
		 lsm[0] ? "active: " : "Landlock, AppArmor or SELinux", lsm);
}

/* A process whose real uid is the caller's that the kernel still lets
 * only CAP_SYS_PTRACE read: it runs a setuid or setgid program (its
 * effective or saved ids are not the caller's), or it made itself not
 * dumpable (prctl(PR_SET_DUMPABLE, 0), as ssh-agent and gpg-agent do;
 * its /proc/PID files then belong to root, which must not be named as
 * its owner). */
static bool own_but_closed(pid_t pid, char *why, size_t size)
{
	char path[64];
	struct stat st;

	unsigned u[4], g[4];
	char *b, *l;
	size_t n;
	bool yes = false;

	if (procfs_read_pid(pid, "status", &b, &n) < 0)
		return false;
	if ((l = strstr(b, "\nUid:")) &&
	    sscanf(l + 5, "%u %u %u %u", &u[0], &u[1], &u[2], &u[3]) == 4 &&
	    (l = strstr(b, "\nGid:")) &&
	    sscanf(l + 5, "%u %u %u %u", &g[0], &g[1], &g[2], &g[3]) == 4 &&
	    u[0] == (unsigned)getuid()) {
		if (u[1] != u[0] || u[2] != u[0] || g[1] != g[0] ||
		    g[2] != g[0]) {
			snprintf(
				why, size,
				"it runs a setuid or setgid program (real uid "
				"%u, effective uid %u, effective gid %u), which "
				"only root (CAP_SYS_PTRACE) may look into",
				u[0], u[1], g[1]);
			yes = true;
		} else if (snprintf(path, sizeof(path), "/proc/%d/maps",
				    (int)pid) > 0 &&
			   stat(path, &st) == 0 && st.st_uid != (uid_t)u[0]) {
			snprintf(
				why, size,
				"it is yours (uid %u) but has made itself not "
				"dumpable (prctl PR_SET_DUMPABLE 0, as ssh-agent "
				"does), which only root (CAP_SYS_PTRACE) may "
				"look into",
				u[0]);
			yes = true;
		}
	}
	free(b);
	return yes;
}

bool procfs_ids_refuse(pid_t pid, char *why, size_t size)
{
	char path[64];
	struct stat st;

	if (geteuid() == 0)
		return false;
	if (own_but_closed(pid, why, size))
		return true;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) < 0 || st.st_uid == geteuid())
		return false;
	snprintf(why, size,
		 "it belongs to uid %u and you are uid %u; run as that user, "
		 "or as root (CAP_SYS_PTRACE)",
		 (unsigned)st.st_uid, (unsigned)geteuid());
	return true;
}

/* The super options of the proc mount at /proc (the last one mounted
 * there: mountinfo lists a mount over another after it), into opts. */
static bool proc_mount_options(char *opts, size_t size)
{
	char *b, *line, *save = NULL, *dash;
	char point[64], fs[32], o[256];
	size_t n;
	bool found = false;

	if (procfs_read_file("/proc/self/mountinfo", &b, &n) < 0)
		return false;
	for (line = strtok_r(b, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %*s %63s", point) != 1 ||
		    sscanf(dash + 3, "%31s %*s %255s", fs, o) != 2)
			continue;
		if (strcmp(point, "/proc") == 0 && strcmp(fs, "proc") == 0) {
			snprintf(opts, size, "%s", o);
			found = true;
		}
	}
	free(b);
	return found;
}

/* The value of option key= in a comma-separated list, into v ("" when
 * it is not there). */
static void mount_option(const char *opts, const char *key, char *v,
			 size_t size)
{
	size_t kl = strlen(key), l;
	const char *p = opts;

	*v = '\0';
	while (p && *p) {
		l = strcspn(p, ",");
		if (l > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
			snprintf(v, size, "%.*s", (int)(l - kl - 1),
				 p + kl + 1);
			return;
		}
		p = p[l] ? p + l + 1 : NULL;
	}
}

/* pid is a process /proc does not show (procfs_pid_hidden): the error
 * then says so, and why, instead of "no such process". */
static bool hidden_error(struct vms_error *e, pid_t pid)
{
	char opts[256] = "", hide[32], gid[32], group[64] = "";

	if (!procfs_pid_hidden(pid))
		return false;
	proc_mount_options(opts, sizeof(opts));
	mount_option(opts, "hidepid", hide, sizeof(hide));
	mount_option(opts, "gid", gid, sizeof(gid));
	if (strcmp(hide, "2") == 0 || strcmp(hide, "invisible") == 0) {
		if (*gid)
			snprintf(group, sizeof(group), ", or in group %s", gid);
		vms_error_set(e, VMS_ERR_PERM, ENOENT,
			      "process %d is there, but /proc hides it from "
			      "you (mounted hidepid=%s: other users' "
			      "processes are not shown); run as its user, or "
			      "as root%s",
			      (int)pid, hide, group);
		return true;
	}
	vms_error_set(e, VMS_ERR_NOPROC, ENOENT,
		      "process %d is there, but /proc does not show it (a "
		      "/proc of another PID namespace? mount this one's: "
		      "mount -t proc proc /proc)",
		      (int)pid);
	return true;
}

int procfs_errno_error(struct vms_error *e, pid_t pid, const char *what,
		       int err)
{
	char why[360];

	if (access("/proc/self/stat", R_OK) != 0)
		return vms_error_set(e, VMS_ERR_CAPTURE, err,
				     "cannot read /proc: is procfs mounted "
				     "here (mount -t proc proc /proc)?");
	if (hidden_error(e, pid))
		return -1;
	if (err == ENOENT || err == ESRCH || !procfs_pid_exists(pid))
		return vms_error_set(e, VMS_ERR_NOPROC, err,
				     "no such process: %d", (int)pid);
	if (err == EACCES || err == EPERM) {
		if (procfs_ids_refuse(pid, why, sizeof(why)))
			return vms_error_set(e, VMS_ERR_PERM, err,
					     "not permitted to read %s of "
					     "process %d: %s",
					     what, (int)pid, why);
		perm_reason(pid, why, sizeof(why));
		return vms_error_set(e, VMS_ERR_PERM, err,
				     "not permitted to read %s of process %d: "
				     "%s",
				     what, (int)pid, why);
	}
	return vms_error_set(e, VMS_ERR_CAPTURE, err,
			     "cannot read %s of process %d: %s", what, (int)pid,
			     strerror(err));
}

int procfs_check_has_mm(struct vms_error *e, pid_t pid)
{
	pid_t parent = 0;

	switch (procfs_pid_kind(pid, &parent)) {
	case PROCFS_USER:
		return 0;
	case PROCFS_KTHREAD:
		return vms_error_set(e, VMS_ERR_NOPROC, 0,
				     "process %d is a kernel thread: it has no "
				     "user address space to show",
				     (int)pid);
	case PROCFS_ZOMBIE:
		if (parent == getpid())
			return vms_error_set(
				e, VMS_ERR_NOPROC, 0,
				"process %d has exited: nothing of "
				"its memory is left to show",
				(int)pid);
		return vms_error_set(e, VMS_ERR_NOPROC, 0,
				     "process %d is a zombie: it has exited "
				     "and nothing of its memory is left (its "
				     "parent, process %d, has not collected "
				     "its exit status)",
				     (int)pid, (int)parent);
	case PROCFS_GONE:
		break;
	}
	return procfs_errno_error(e, pid, "stat", ESRCH);
}
