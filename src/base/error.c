#include "base/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int vms_error_set(struct vms_error *e, enum vms_errkind kind, int err,
		  const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	e->kind = kind;
	e->err = err;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int vms_error_file(struct vms_error *e, const char *name, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return vms_error_set(e, VMS_ERR_FILE, 0, "%s: %s", name, what);
}

bool vms_error_gone(const struct vms_error *e)
{
	return e->kind == VMS_ERR_NOPROC ||
	       (e->kind == VMS_ERR_CAPTURE && e->err == ESRCH);
}

int vms_error_exit_status(const struct vms_error *e)
{
	switch (e->kind) {
	case VMS_ERR_NONE:
		return 0;
	case VMS_ERR_USAGE:
		return 1;
	case VMS_ERR_NOPROC:
	case VMS_ERR_PERM:
		return 2;
	case VMS_ERR_CAPTURE:
	case VMS_ERR_NOMEM:
		return 3;
	case VMS_ERR_FILE:
		return 4;
	}
	return 3;
}
