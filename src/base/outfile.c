/* outfile.c — the output file of an outbuf, opened where `> FILE` would
 * write, put in place only when complete, and the close: outfile.h. The
 * buffer and the writers are outbuf.c's.
 */
#include "base/outbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void outbuf_abort(struct outbuf *o)
{
	if (o->how != OB_FD && o->fd >= 0)
		close(o->fd);
	if (o->tmp && o->dirfd >= 0)
		unlinkat(o->dirfd, o->tmp, 0);
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->tmp);
	free(o->base);
	free(o->path);
	free(o->buf);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->dirfd = -1;
}

static int ob_file_error(struct outbuf *o, struct vms_error *err, int e,
			 const char *what)
{
	char name[300];

	snprintf(name, sizeof(name), "%s", o->path ? o->path : "");
	outbuf_abort(o);
	return vms_error_set(err, e == ENOMEM ? VMS_ERR_NOMEM : VMS_ERR_FILE, e,
			     "cannot %s %s: %s", what, name, strerror(e));
}

/* fs.protected_NAME as this machine sets it; the strictest value the
 * kernel knows when it cannot be read (a link is then not followed where
 * the kernel may refuse it). */
static int ob_protected(const char *name, int strictest)
{
	char path[64], b[16];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/fs/protected_%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return strictest;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0 || b[0] < '0' || b[0] > '9')
		return strictest;
	b[n] = '\0';
	return atoi(b);
}

/* The kernel's rule for following a trailing symbolic link (fs/namei.c,
 * may_follow_link): with fs.protected_symlinks set, a link in a sticky
 * world-writable directory is followed only by its owner, or when it
 * belongs to the directory's owner. */
static bool ob_may_follow(int dirfd, const struct stat *link)
{
	struct stat d;

	if (ob_protected("symlinks", 1) == 0 || link->st_uid == geteuid())
		return true;
	if (fstat(dirfd, &d) < 0)
		return false;
	if ((d.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH))
		return true;
	return d.st_uid == link->st_uid;
}

/* Opens the directory part of path (from at: the directory of the link
 * it came from) as o->dirfd and sets o->base. The kernel resolves the
 * directory part as for any open (links on the way followed by its own
 * rules); only the last name is vmscope's to follow. */
static int ob_split_open(struct outbuf *o, int at, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *dir;
	int fd;

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		errno = EISDIR;
		return -1;
	}
	if (!slash)
		dir = strdup(".");
	else
		dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	free(o->base);
	o->base = strdup(base);
	if (!dir || !o->base) {
		free(dir);
		errno = ENOMEM;
		return -1;
	}
	fd = openat(at, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -1;
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = fd;
	return 0;
}

/* Follows path to the file a shell redirection would write, as the kernel
 * would: o->dirfd and o->base name it, *st holds its lstat and *exists
 * whether it is there (a dangling link's target is created). A trailing
 * link the kernel would refuse to follow (ob_may_follow) is EACCES with
 * o->link_refused set. -1 with errno. */
static int ob_resolve(struct outbuf *o, const char *path, struct stat *st,
		      bool *exists)
{
	char link[4096];
	const char *cur = path;
	int hops;

	for (hops = 0; hops <= 40; hops++) {
		struct stat t;
		ssize_t n;

		if (ob_split_open(o, hops ? o->dirfd : AT_FDCWD, cur) < 0)
			return -1;
		if (fstatat(o->dirfd, o->base, st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				return -1;
			*exists = false;
			return 0;
		}
		if (!S_ISLNK(st->st_mode)) {
			*exists = true;
			return 0;
		}
		if (!ob_may_follow(o->dirfd, st)) {
			o->link_refused = true;
			errno = EACCES;
			return -1;
		}
		/* A link to a FIFO, a device or a magic link of /proc
		 * (/dev/stdout: a pipe) is opened through: the kernel
		 * follows it by its own rules, and nothing is replaced. */
		if (fstatat(o->dirfd, o->base, &t, 0) == 0 &&
		    !S_ISREG(t.st_mode) && !S_ISDIR(t.st_mode)) {
			*st = t;
			*exists = true;
			o->through_link = true;
			return 0;
		}
		n = readlinkat(o->dirfd, o->base, link, sizeof(link) - 1);
		if (n < 0)
			return -1;
		link[n] = '\0';
		cur = link;
	}
	errno = ELOOP;
	return -1;
}

/* Opens the resolved name with flags, checked by the kernel: no link is
 * followed (RESOLVE_NO_SYMLINKS; O_NOFOLLOW where openat2 is missing, the
 * same for one name) but one to a device or FIFO, which the kernel follows
 * by its own rules; O_CREAT has it apply fs.protected_regular and
 * fs.protected_fifos to a file that is there, as for `> FILE`. */
static int ob_open_final(struct outbuf *o, int flags)
{
	struct open_how how;
	int fd;

	if (o->through_link)
		return openat(o->dirfd, o->base, flags | O_CLOEXEC | O_NOCTTY,
			      0666);
	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(flags | O_CLOEXEC | O_NOCTTY);
	how.mode = 0666;
	how.resolve = RESOLVE_NO_SYMLINKS;
	fd = (int)syscall(SYS_openat2, o->dirfd, o->base, &how, sizeof(how));
	if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG))
		return fd;
	return openat(o->dirfd, o->base,
		      flags | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW, 0666);
}

/* A fresh name for a temporary file beside the target, in o->tmp:
 * ".NAME.tmpXXXXXX" (hidden; NAME cut short so it stays a valid name). */
static int ob_tmp_name(struct outbuf *o)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[6];
	size_t n = strlen(o->base), i;

	if (n > 200)
		n = 200;
	free(o->tmp);
	o->tmp = malloc(n + 16);
	if (!o->tmp) {
		errno = ENOMEM;
		return -1;
	}
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		for (i = 0; i < sizeof(rnd); i++)
			rnd[i] = (unsigned char)((unsigned long)ts.tv_nsec >>
							 (i * 5) ^
						 (unsigned)getpid());
	}
	o->tmp[0] = '.';
	memcpy(o->tmp + 1, o->base, n);
	memcpy(o->tmp + 1 + n, ".tmp", 4);
	for (i = 0; i < sizeof(rnd); i++)
		o->tmp[5 + n + i] = abc[rnd[i] % (sizeof(abc) - 1)];
	o->tmp[5 + n + sizeof(rnd)] = '\0';
	return 0;
}

/* Where O_TMPFILE is not supported: a named temporary file (a kill before
 * close leaves it behind; the name says what it is). */
static int ob_named_tmp(struct outbuf *o)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (ob_tmp_name(o) < 0)
			return -1;
		o->fd = openat(o->dirfd, o->tmp,
			       O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (o->fd >= 0) {
			o->how = OB_NAMED_TMP;
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	free(o->tmp);
	o->tmp = NULL;
	return -1;
}

/* The file itself, opened for writing without truncating it: the old
 * contents stay until overwritten, and close truncates to what was
 * written. */
static int ob_in_place(struct outbuf *o, int fd, const char *why)
{
	o->fd = fd >= 0 ? fd : ob_open_final(o, O_WRONLY | O_CREAT);
	if (o->fd < 0)
		return -1;
	o->how = OB_IN_PLACE;
	snprintf(o->note, sizeof(o->note),
		 "%s was written in place, not atomically, %s", o->path, why);
	return 0;
}

/* Why the kernel (or vmscope by its rule) refused, when a protected_*
 * rule may be the reason: a sticky directory. */
static int ob_refused(struct outbuf *o, struct vms_error *err, int e,
		      const struct stat *st)
{
	struct stat d;
	char name[300];
	const char *rule = NULL;

	snprintf(name, sizeof(name), "%s", o->path ? o->path : "");
	if (o->link_refused)
		rule = "symlinks";
	else if (e == EACCES && st && o->dirfd >= 0 &&
		 fstat(o->dirfd, &d) == 0 && (d.st_mode & S_ISVTX) &&
		 st->st_uid != geteuid() && st->st_uid != d.st_uid)
		rule = S_ISFIFO(st->st_mode) ? "fifos" : "regular";
	if (!rule)
		return ob_file_error(o, err, e, "write");
	outbuf_abort(o);
	return vms_error_set(
		err, VMS_ERR_FILE, e,
		"cannot write %s: %s (%s of another user in a sticky "
		"directory: the kernel's fs.protected_%s refuses it, as it "
		"would `> FILE`)",
		name, strerror(e),
		strcmp(rule, "symlinks") == 0 ? "a symbolic link"
		: strcmp(rule, "fifos") == 0  ? "a FIFO"
					      : "a file",
		rule);
}

int outbuf_open_file(struct outbuf *o, const char *path, struct vms_error *err)
{
	struct stat st;
	bool exists;
	int e, fd;

	if (strcmp(path, "-") == 0)
		return outbuf_open_fd(o, STDOUT_FILENO, err);
	if (outbuf_open_fd(o, -1, err) < 0)
		return -1;
	o->path = strdup(path);
	if (!o->path)
		return ob_file_error(o, err, ENOMEM, "write");
	/* A symbolic link stays one: the file at its end is written. */
	if (ob_resolve(o, path, &st, &exists) < 0)
		return ob_refused(o, err, errno, NULL);
	if (exists && S_ISDIR(st.st_mode))
		return ob_file_error(o, err, EISDIR, "write");
	if (exists && !S_ISREG(st.st_mode)) {
		/* A FIFO, a terminal, a device: written into, as a shell
		 * redirection would (a FIFO waits here for its reader). */
		o->fd = ob_open_final(o, O_WRONLY | O_CREAT);
		if (o->fd < 0)
			return ob_refused(o, err, errno, &st);
		o->how = OB_DIRECT;
		return 0;
	}
	if (exists) {
		/* Opened as `> FILE` would (without truncating it): the
		 * kernel says whether it may be written. */
		fd = ob_open_final(o, O_WRONLY | O_CREAT);
		if (fd < 0)
			return ob_refused(o, err, errno, &st);
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			e = S_ISREG(st.st_mode) ? errno : EISDIR;
			close(fd);
			return ob_file_error(o, err, e, "write");
		}
		o->old = st;
		o->existed = true;
		if (st.st_nlink > 1 &&
		    ob_in_place(o, fd, "to keep its other hard links") == 0)
			return 0;
		if (geteuid() != 0 && st.st_uid != geteuid()) {
			char why[64];

			snprintf(why, sizeof(why), "to keep its owner (uid %u)",
				 (unsigned)st.st_uid);
			if (ob_in_place(o, fd, why) == 0)
				return 0;
		}
		close(fd);
	}
	/* Unnamed until complete: a kill at any moment leaves nothing. */
	o->fd = openat(o->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (o->fd >= 0) {
		o->how = OB_TMPFILE;
		return 0;
	}
	e = errno;
	if (e == EOPNOTSUPP || e == EISDIR || e == EINVAL) {
		/* No O_TMPFILE on this file system: a named one. */
		if (ob_named_tmp(o) == 0)
			return 0;
		e = errno;
	}
	if (o->existed) {
		char why[120];

		snprintf(why, sizeof(why),
			 "as its directory cannot take a temporary file (%s)",
			 strerror(e));
		if (ob_in_place(o, -1, why) == 0)
			return 0;
		e = errno;
	}
	return ob_file_error(o, err, e, "create");
}

/* The mode, owner and group the file ends with: an old file's own; for a
 * new one what a shell redirection gives (0666 less the umask). Owner and
 * group as root only (a user cannot give a file away); a user's own file
 * keeps its group when the user is in it. */
static int ob_set_mode(struct outbuf *o)
{
	mode_t um = umask(0);

	umask(um);
	if (!o->existed)
		return fchmod(o->fd, 0666 & ~um);
	if (geteuid() == 0) {
		if (fchown(o->fd, o->old.st_uid, o->old.st_gid) < 0)
			return -1;
	} else if (fchown(o->fd, (uid_t)-1, o->old.st_gid) < 0) {
		/* not in that group: the file takes the user's */
	}
	return fchmod(o->fd, o->old.st_mode & 07777);
}

/* Gives the unnamed temporary file a name in the directory: the final one
 * when none is there, else a temporary one that is renamed over it at once. */
static int ob_link_tmpfile(struct outbuf *o)
{
	char proc[64];
	int i;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	if (!o->existed) {
		if (linkat(AT_FDCWD, proc, o->dirfd, o->base,
			   AT_SYMLINK_FOLLOW) == 0 ||
		    (errno != EEXIST &&
		     linkat(o->fd, "", o->dirfd, o->base, AT_EMPTY_PATH) == 0))
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	for (i = 0; i < 100; i++) {
		if (ob_tmp_name(o) < 0)
			return -1;
		if (linkat(AT_FDCWD, proc, o->dirfd, o->tmp,
			   AT_SYMLINK_FOLLOW) == 0 ||
		    (errno != EEXIST &&
		     linkat(o->fd, "", o->dirfd, o->tmp, AT_EMPTY_PATH) == 0))
			return renameat(o->dirfd, o->tmp, o->dirfd, o->base);
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

static void finish(struct outbuf *o)
{
	switch (o->how) {
	case OB_FD:
		return;
	case OB_DIRECT:
		break;
	case OB_IN_PLACE:
		if (!o->err && ftruncate(o->fd, (off_t)o->written) < 0)
			o->err = errno;
		break;
	case OB_TMPFILE:
	case OB_NAMED_TMP:
		if (!o->err && (ob_set_mode(o) < 0 || fsync(o->fd) < 0))
			o->err = errno;
		if (!o->err && o->how == OB_TMPFILE && ob_link_tmpfile(o) < 0)
			o->err = errno;
		if (!o->err && o->how == OB_NAMED_TMP &&
		    renameat(o->dirfd, o->tmp, o->dirfd, o->base) < 0)
			o->err = errno;
		break;
	}
	if (close(o->fd) < 0 && !o->err)
		o->err = errno;
	o->fd = -1;
	if (!o->err && o->tmp) {
		free(o->tmp); /* renamed: nothing to remove */
		o->tmp = NULL;
	}
}

int outbuf_close(struct outbuf *o, struct vms_error *err)
{
	int e, rc = 0;

	outbuf_flush(o);
	finish(o);
	e = o->err;
	if (e) {
		char name[300];

		snprintf(name, sizeof(name), "%s",
			 o->path ? o->path : "standard output");
		outbuf_abort(o);
		return vms_error_set(err, VMS_ERR_FILE, e,
				     "cannot write %s: %s", name, strerror(e));
	}
	if (o->how == OB_IN_PLACE && err) {
		err->kind = VMS_ERR_NONE;
		err->err = 0;
		snprintf(err->msg, sizeof(err->msg), "%s", o->note);
		rc = 1;
	}
	outbuf_abort(o); /* frees; nothing temporary remains */
	return rc;
}
