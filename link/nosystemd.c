/* nosystemd.c — the systemd functions libproc2's process reader refers
 * to, for a vmscope linked with libproc2's static archive (Makefile:
 * PROC2_A).
 *
 * libproc2's readproc.o asks libsystemd for a process's unit, slice,
 * session, seat, owner and machine, and only when the caller asks for
 * those fields (PIDS_SD_*), which vmscope never does. Linked against the
 * shared libproc2, vmscope would map libsystemd and the four libraries it
 * needs (libgcrypt, libgpg-error, liblz4, libcap) for nothing, and copy
 * each at every start (src/linux/selfcopy.h): some 6 ms of a 24 ms start here.
 * Each of these answers as libsystemd does for a process it knows
 * nothing of (-ENODATA), so that a caller that did ask gets "-".
 */
#include <errno.h>
#include <sys/types.h>

int sd_pid_get_machine_name(pid_t pid, char **name);
int sd_pid_get_owner_uid(pid_t pid, uid_t *uid);
int sd_pid_get_session(pid_t pid, char **session);
int sd_pid_get_slice(pid_t pid, char **slice);
int sd_pid_get_unit(pid_t pid, char **unit);
int sd_pid_get_user_unit(pid_t pid, char **unit);
int sd_session_get_seat(const char *session, char **seat);

int sd_pid_get_machine_name(pid_t pid, char **name)
{
	(void)pid;
	(void)name;
	return -ENODATA;
}

int sd_pid_get_owner_uid(pid_t pid, uid_t *uid)
{
	(void)pid;
	(void)uid;
	return -ENODATA;
}

int sd_pid_get_session(pid_t pid, char **session)
{
	(void)pid;
	(void)session;
	return -ENODATA;
}

int sd_pid_get_slice(pid_t pid, char **slice)
{
	(void)pid;
	(void)slice;
	return -ENODATA;
}

int sd_pid_get_unit(pid_t pid, char **unit)
{
	(void)pid;
	(void)unit;
	return -ENODATA;
}

int sd_pid_get_user_unit(pid_t pid, char **unit)
{
	(void)pid;
	(void)unit;
	return -ENODATA;
}

int sd_session_get_seat(const char *session, char **seat)
{
	(void)session;
	(void)seat;
	return -ENODATA;
}
