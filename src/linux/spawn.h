/* spawn.h — starting a command as vmscope's child: `vmscope -- CMD` and
 * `vmscope --trace -- CMD`.
 *
 * Contract: spawn() forks, sets the child up as o says, and execvp()s
 * cmd; it returns once the exec has succeeded (a close-on-exec pipe says
 * so) with *pid the child's, or -1 with *err: "cannot run CMD: why"
 * (VMS_ERR_USAGE, the child reaped) or the fork's or pipe's failure. In
 * the child, before the exec: the death signal (die_with_parent: killed
 * when vmscope ends, however it ends; else it outlives vmscope), where its
 * output goes, then o->in_child(o->ctx) (which may only call what is safe
 * after fork in a program with one thread: setenv, dup, fcntl) — a
 * non-zero return ends the child with status 127.
 */
#ifndef VMS_SPAWN_H
#define VMS_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/error.h"

enum spawn_out {
	SPAWN_OUT_KEEP, /* vmscope's own descriptors */
	SPAWN_OUT_STDERR, /* its stdout to vmscope's stderr (an export on
			   * stdout must not mix with it) */
	SPAWN_OUT_NULL, /* stdout and stderr /dev/null (the viewer owns the
			 * terminal) */
};

struct spawn_opts {
	bool die_with_parent;
	enum spawn_out out;
	bool stdin_null; /* stdin /dev/null too */
	int (*in_child)(void *ctx); /* may be NULL */
	void *ctx;
};

int spawn(char *const *cmd, const struct spawn_opts *o, pid_t *pid,
	  struct vms_error *err);

#endif
