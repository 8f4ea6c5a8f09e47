/* ui.c — placeholder until the viewer lands (issue 4). */
#include <errno.h>

#include "ui.h"

int ui_run(const struct ui_opts *o, struct vms_error *err)
{
	(void)o;
	return vms_error_set(err, VMS_ERR_USAGE, ENOSYS,
			     "the interactive viewer is not in this build "
			     "yet; use -s or -e");
}
