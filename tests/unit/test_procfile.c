/* test_procfile.c — the opener gives the very file a mapping maps, or
 * nothing. A child of this test maps a file A, then A's path is made to
 * name another file B (renamed over it):
 *  - the region as maps showed it opens A (its inode), through map_files;
 *  - a region that map_files cannot serve (no such mapping) and that
 *    claims A's inode at A's path is refused: the path now names B;
 *  - claiming B's inode there, B is opened (the root route works).
 * Then, with the child in its own root (chroot, skipped when not
 * permitted), paths resolve as the child sees them:
 *  - an absolute symlink /lib/link.so -> /lib/real.so opens the child's
 *    real.so (vmscope's root has no /lib/real.so);
 *  - a symlink climbing out with ".." does not reach vmscope's files;
 *  - the path as maps shows it (vmscope's view: ROOT/lib/real.so, the
 *    kernel writes it from the reader's root) opens the file too, with no
 *    mapping for map_files to serve (before: looked up under the child's
 *    root only, ROOT/ROOT/lib/real.so, and refused);
 * and with the files held at a "capture" (procfile_hold) while the child
 * is known alive:
 *  - after the child chroots again into ROOT/sub (whose lib/real.so is
 *    another file), the held root still finds the file it mapped, and the
 *    pid now finds only the other one (refused: another inode);
 *  - after the child is killed and reaped, the held root still opens it,
 *    the pid opens nothing;
 *  - a root let go (procfile_let_root_go, after the steps) is looked up
 *    through the held directory: the child's root as it is then.
 * Every child is killed by its pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/procfile.h"
#include "tap.h"

/* Forks a child that maps path (if not NULL) after chroot(root) (if not
 * NULL), reports the mapping's address, and waits to be killed. */
static pid_t child_mapping(const char *root, const char *path, uint64_t *at,
			   bool *chroot_ok)
{
	int p[2];
	pid_t pid;
	struct {
		uint64_t at;
		int ok;
	} msg = { 0, 0 };

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		msg.ok = !root || (chroot(root) == 0 && chdir("/") == 0);
		if (msg.ok && path) {
			int fd = open(path, O_RDONLY);
			void *m = fd >= 0 ? mmap(NULL, 4096, PROT_READ,
						 MAP_PRIVATE, fd, 0)
					  : MAP_FAILED;

			msg.at = m == MAP_FAILED ? 0 : (uint64_t)(uintptr_t)m;
		}
		if (write(p[1], &msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &msg, sizeof(msg)) != (ssize_t)sizeof(msg)) {
		close(p[0]);
		return -1;
	}
	close(p[0]);
	*at = msg.at;
	if (chroot_ok)
		*chroot_ok = msg.ok;
	return pid;
}

static void stop(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static void region_of(struct vms_region *r, const char *path,
		      const struct stat *st, uint64_t at)
{
	memset(r, 0, sizeof(*r));
	r->start = at;
	r->end = at + 4096;
	r->path = path;
	r->inode = st->st_ino;
	r->dev_major = major(st->st_dev);
	r->dev_minor = minor(st->st_dev);
	r->vmflags = "";
}

static ino_t inode_of(int fd)
{
	struct stat st;

	return fd >= 0 && fstat(fd, &st) == 0 ? st.st_ino : 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_replaced(const char *dir)
{
	char a[4200], b[4200];
	struct stat sa, sb;
	struct vms_region r;
	uint64_t at = 0;
	pid_t pid;
	int fd;

	snprintf(a, sizeof(a), "%s/a.bin", dir);
	snprintf(b, sizeof(b), "%s/b.bin", dir);
	write_file(a, "the mapped file\n");
	write_file(b, "another file\n");
	stat(a, &sa);
	stat(b, &sb);
	pid = child_mapping(NULL, a, &at, NULL);
	ok(pid > 0 && at, "a child maps %s", a);
	if (pid <= 0 || !at) {
		stop(pid);
		return;
	}
	region_of(&r, a, &sa, at);
	fd = procfile_open(pid, &r);
	ok(fd >= 0 && inode_of(fd) == sa.st_ino,
	   "the mapped file is opened (inode %lu)", (unsigned long)sa.st_ino);
	if (fd >= 0)
		close(fd);
	rename(b, a); /* the path now names B; A lives on in the mapping */
	fd = procfile_open(pid, &r);
	ok(fd >= 0 && inode_of(fd) == sa.st_ino,
	   "after the rename, still the mapped file, not what the path names");
	if (fd >= 0)
		close(fd);
	/* No such mapping: map_files cannot serve it; the path can. */
	r.start += 1ull << 40;
	r.end += 1ull << 40;
	fd = procfile_open(pid, &r);
	ok(fd < 0, "by path, a file with another inode is refused");
	if (fd >= 0)
		close(fd);
	region_of(&r, a, &sb, at + (1ull << 40));
	fd = procfile_open(pid, &r);
	ok(fd >= 0 && inode_of(fd) == sb.st_ino,
	   "by path, the file with the region's inode is opened");
	if (fd >= 0)
		close(fd);
	stop(pid);
	unlink(a);
}

static void test_in_root(const char *dir)
{
	char p[4200], q[4200];
	struct stat real, outside;
	struct vms_region r;
	uint64_t at = 0;
	bool chrooted = false;
	pid_t pid;
	int fd;

	snprintf(p, sizeof(p), "%s/lib", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/lib/real.so", dir);
	write_file(p, "inside the target's root\n");
	stat(p, &real);
	snprintf(p, sizeof(p), "%s/lib/link.so", dir);
	ok(symlink("/lib/real.so", p) == 0, "an absolute symlink in the root");
	snprintf(p, sizeof(p), "%s/lib/climb.so", dir);
	snprintf(q, sizeof(q), "../../../../../../../..%s/outside.bin", dir);
	ok(symlink(q, p) == 0, "a climbing symlink in the root");
	/* outside.bin: in vmscope's view of the directory, which the
	 * child's root is; reachable from inside only by climbing out */
	snprintf(q, sizeof(q), "%s/outside.bin", dir);
	write_file(q, "vmscope's side\n");
	stat(q, &outside);
	if (access("/lib/real.so", F_OK) == 0) {
		printf("ok - in root # SKIP /lib/real.so exists here\n");
		return;
	}
	pid = child_mapping(dir, NULL, &at, &chrooted);
	if (pid <= 0 || !chrooted) {
		printf("ok - in root # SKIP chroot not permitted\n");
		stop(pid);
		return;
	}
	/* No mapping at these addresses: the path is the only way. */
	region_of(&r, "/lib/link.so", &real, 1ull << 44);
	fd = procfile_open(pid, &r);
	ok(fd >= 0 && inode_of(fd) == real.st_ino,
	   "/lib/link.so -> /lib/real.so resolves inside the target's root");
	if (fd >= 0)
		close(fd);
	region_of(&r, "/lib/climb.so", &outside, 1ull << 44);
	fd = procfile_open(pid, &r);
	ok(fd < 0, "a symlink climbing out of the root reaches nothing of "
		   "vmscope's");
	if (fd >= 0)
		close(fd);
	stop(pid);
}

/* A child chrooted in root that, on a byte from its parent, chroots again
 * into /sub and answers; killed by its pid. */
static pid_t child_moving(const char *root, int *cmd, int *ack)
{
	int c[2], a[2];
	pid_t pid;
	char b = 0;

	if (pipe(c) < 0 || pipe(a) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(c[1]);
		close(a[0]);
		b = chroot(root) == 0 && chdir("/") == 0;
		if (write(a[1], &b, 1) != 1)
			_exit(1);
		if (read(c[0], &b, 1) == 1) {
			b = chroot("/sub") == 0 && chdir("/") == 0;
			if (write(a[1], &b, 1) != 1)
				_exit(1);
		}
		for (;;)
			pause();
	}
	close(c[0]);
	close(a[1]);
	*cmd = c[1];
	*ack = a[0];
	return pid;
}

static void test_held(const char *dir)
{
	char p[4200];
	struct stat real, other;
	struct vms_region r, own;
	struct vms_snapshot *s = vms_snapshot_new(), *s2 = vms_snapshot_new();
	int cmd = -1, ack = -1, fd;
	char b = 0;
	pid_t pid;

	snprintf(p, sizeof(p), "%s/sub", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sub/lib", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sub/lib/real.so", dir);
	write_file(p, "another root's file\n");
	stat(p, &other);
	snprintf(p, sizeof(p), "%s/lib/real.so", dir);
	if (!s || !s2 || stat(p, &real) < 0) {
		ok(0, "held: a snapshot and the file");
		vms_snapshot_free(s);
		vms_snapshot_free(s2);
		return;
	}
	pid = child_moving(dir, &cmd, &ack);
	if (pid <= 0 || read(ack, &b, 1) != 1 || !b) {
		printf("ok - held # SKIP chroot not permitted\n");
		stop(pid);
		vms_snapshot_free(s);
		vms_snapshot_free(s2);
		return;
	}
	/* No mapping at this address: the path is the only way. */
	region_of(&r, "/lib/real.so", &real, 1ull << 44);
	region_of(&own, p, &real, 1ull << 44); /* as maps shows it */
	fd = procfile_open(pid, &own);
	ok(fd >= 0 && inode_of(fd) == real.st_ino,
	   "the path as maps shows it (vmscope's view) opens the file");
	if (fd >= 0)
		close(fd);
	s->src.pid = s2->src.pid = pid;
	procfile_hold(s, pid);
	procfile_hold(s2, pid);
	ok(s->src.files.held && s->src.files.proc_dir >= 0 &&
		   s->src.files.root_dir >= 0,
	   "the child's /proc directory and root are held");
	ok(write(cmd, "c", 1) == 1 && read(ack, &b, 1) == 1 && b,
	   "the child chroots again, into /sub");
	fd = procfile_open(pid, &r);
	ok(fd < 0, "by pid, the root is now /sub: its lib/real.so (another "
		   "inode) is refused");
	if (fd >= 0)
		close(fd);
	{
		struct stat got;

		fd = vms_source_proc_open(s, &r, &got);
		ok(fd >= 0 && inode_of(fd) == real.st_ino,
		   "held, the root as it was at the capture: the mapped file");
		ok(fd >= 0 && got.st_ino == real.st_ino &&
			   got.st_dev == real.st_dev &&
			   S_ISREG(got.st_mode) && got.st_size == real.st_size,
		   "and its stat handed on (the check's)");
	}
	if (fd >= 0)
		close(fd);
	procfile_let_root_go(s2);
	ok(s2->src.files.root_dir < 0 && s2->src.files.proc_dir >= 0,
	   "the root let go (after the steps), the directory kept");
	fd = vms_source_proc_open(s2, &r, NULL);
	ok(fd < 0, "then the same process's root as it is now (/sub): its "
		   "other file is refused");
	if (fd >= 0)
		close(fd);
	stop(pid);
	fd = procfile_open(pid, &r);
	ok(fd < 0, "by pid, after its exit: nothing");
	if (fd >= 0)
		close(fd);
	fd = vms_source_proc_open(s, &r, NULL);
	ok(fd >= 0 && inode_of(fd) == real.st_ino,
	   "held, after its exit: still the mapped file");
	if (fd >= 0)
		close(fd);
	procfile_drop(s);
	fd = vms_source_proc_open(s, &r, NULL);
	ok(fd < 0, "dropped: nothing, and nothing by pid");
	if (fd >= 0)
		close(fd);
	close(cmd);
	close(ack);
	vms_snapshot_free(s);
	vms_snapshot_free(s2);
}

int main(void)
{
	char dir[] = "/tmp/vms-procfile-XXXXXX", cmd[200];

	if (!mkdtemp(dir)) {
		ok(0, "a temporary directory");
		return tap_done();
	}
	test_replaced(dir);
	test_in_root(dir);
	test_held(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return tap_done();
}
