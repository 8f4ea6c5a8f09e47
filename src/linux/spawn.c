/* spawn.c — spawn.h. */
#include "linux/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child: its death signal and descriptors. */
static int set_up(const struct spawn_opts *o, pid_t parent)
{
	if (o->die_with_parent &&
	    (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent))
		return -1;
	if (o->out == SPAWN_OUT_STDERR) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
	}
	if (o->out == SPAWN_OUT_NULL || o->stdin_null) {
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (nul >= 0 && o->stdin_null)
			dup2(nul, STDIN_FILENO);
		if (nul >= 0 && o->out == SPAWN_OUT_NULL) {
			dup2(nul, STDOUT_FILENO);
			dup2(nul, STDERR_FILENO);
		}
	}
	return o->in_child ? o->in_child(o->ctx) : 0;
}

int spawn(char *const *cmd, const struct spawn_opts *o, pid_t *pid,
	  struct vms_error *err)
{
	pid_t parent = getpid();
	int pfd[2], e = 0;
	ssize_t r;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno, "pipe: %s",
				     strerror(errno));
	*pid = fork();
	if (*pid < 0) {
		e = errno;
		close(pfd[0]);
		close(pfd[1]);
		return vms_error_set(err, VMS_ERR_CAPTURE, e, "fork: %s",
				     strerror(e));
	}
	if (*pid == 0) {
		close(pfd[0]);
		if (set_up(o, parent) == 0)
			execvp(cmd[0], cmd);
		e = errno ? errno : EINVAL;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	/* the pipe closes on exec (close-on-exec) or carries exec's errno */
	do
		r = read(pfd[0], &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	close(pfd[0]);
	if (r == sizeof(e)) {
		waitpid(*pid, NULL, 0);
		return vms_error_set(err, VMS_ERR_USAGE, e, "cannot run %s: %s",
				     cmd[0], strerror(e));
	}
	return 0;
}
