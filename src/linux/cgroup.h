/* cgroup.h — cgroup v2 paths: the one a process is in, and the one a
 * directory of a cgroup2 file system stands for.
 *
 * Contract: pure parsers of buffers (the text of /proc/PID/cgroup and of
 * /proc/self/mountinfo), never a pid; they write a NUL-terminated path
 * into out (n bytes) and never read past the buffer's NUL. A cgroup path
 * is as /proc/PID/cgroup shows it: from the root of the reader's cgroup
 * namespace, starting with "/".
 */
#ifndef VMS_CGROUP_H
#define VMS_CGROUP_H

#include <stddef.h>

/* The cgroup v2 path in /proc/PID/cgroup's text (its "0::/a/b" line) into
 * out; "" when there is none (a cgroup v1 only host). */
void cgroup_v2_of_proc(const char *text, char *out, size_t n);

/* The cgroup v2 path that the directory path (absolute, without a
 * trailing "/") stands for, by the cgroup2 mounts of mountinfo's text: the
 * mount's root (its 4th field) joined with what follows its mount point
 * (the 5th) in path, the longest mount point that path is under winning
 * (/sys/fs/cgroup on a host of cgroup v2 alone, /sys/fs/cgroup/unified on
 * a hybrid one, anywhere an admin mounted one). 1 with out set; 0 when no
 * cgroup2 mount holds path (out untouched); -1 when the path does not fit
 * in out. The fields' octal escapes (\040 a space) are undone. */
int cgroup_v2_of_dir(const char *mountinfo, const char *path, char *out,
		     size_t n);

/* The unit a cgroup path names (the unit label of --all's exposition):
 * its innermost part that is a systemd unit holding processes, a name
 * ending ".service" or ".scope" (a service; a scope: a container's, a
 * login session's), or the last part where there is none (a container's
 * id, as a cgroupfs driver's "/docker/ID" names it); "" at the root. A
 * unit that manages its own subtree (Delegate=: systemd-nspawn's
 * ".../payload", a runtime's subgroups of a container's scope) is named,
 * not the subgroup its processes are in. Points into path; *len its
 * length. */
const char *cgroup_unit(const char *path, size_t *len);

#endif
