/* error.h — errors as values.
 *
 * Contract: engine functions never print and never exit. A function that
 * fails fills a struct vms_error (kind + a one-line message a person can act
 * on) and returns -1 (or NULL). Only the command line (cli/) turns an error
 * into output and an exit status, through vms_error_exit_status().
 */
#ifndef VMS_ERROR_H
#define VMS_ERROR_H

#include <stdbool.h>

enum vms_errkind {
	VMS_ERR_NONE = 0,
	VMS_ERR_USAGE, /* bad command line: exit 1 */
	VMS_ERR_NOPROC, /* no such process: exit 2 */
	VMS_ERR_PERM, /* not permitted: exit 2 */
	VMS_ERR_CAPTURE, /* capture failed (exited meanwhile, I/O...): exit 3 */
	VMS_ERR_FILE, /* bad snapshot file, cannot write output: exit 4 */
	VMS_ERR_NOMEM, /* out of memory: exit 3 */
};

struct vms_error {
	enum vms_errkind kind;
	int err; /* errno that caused it, or 0 */
	char msg[512];
};

/* Sets *e (if e is not NULL) and returns -1, so callers can write
 * `return vms_error_set(e, ...)`. */
int vms_error_set(struct vms_error *e, enum vms_errkind kind, int err,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* vms_error_set(e, VMS_ERR_FILE, 0, "NAME: what is wrong"): a file a
 * loader refuses, named in the one line the user sees. */
int vms_error_file(struct vms_error *e, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The documented exit status for an error kind (vmscope.1, EXIT STATUS). */
int vms_error_exit_status(const struct vms_error *e);

/* Whether e says the process went away: before its capture (no such
 * process) or during it (VMS_ERR_CAPTURE with ESRCH: every "exited
 * during capture" is set so, tests/code/test_exit_errors.py). */
bool vms_error_gone(const struct vms_error *e);

#endif
