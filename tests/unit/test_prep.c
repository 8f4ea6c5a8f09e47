/* test_prep — -F's smaps reader made before the freeze
 * (sampler_prep_smaps, then sampler_read_smaps_prepped inside it:
 * capture/sampler_common.h) reads what the process has at the read, not
 * what it had at the prep:
 *  - a process that executes a new program between the two (its old
 *    address space gone before the read): the prepared read gives the
 *    regions a read made then finds, each range and permission, and the
 *    kernel's rollup with them; not an empty text taken for an exit;
 *  - a process whose main thread exits (pthread_exit) between the two:
 *    the regions and the rollup read through a thread that runs;
 *  - a prep not used (sampler_prep_free, the freeze refused) leaves no
 *    thread and no descriptor behind.
 * The child is this program again ("--pause FD": writes a byte to FD,
 * then waits to be killed), or a fork of it.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/sampler.h"
#include "capture/sampler_common.h"
#include "model/snapshot.h"
#include "procself.h"
#include "tap.h"
#include "target.h"

/* Polls until every thread of pid but the main one sleeps (in pause():
 * its pages as they stay), for 5 s at most. */
static bool others_sleep(pid_t pid)
{
	struct timespec ts = { 0, 5000000 };
	int i;

	for (i = 0; i < 1000; i++) {
		char path[320], line[512], *p;
		struct dirent *e;
		DIR *d;
		bool all = true;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		if (!(d = opendir(path)))
			return false;
		while ((e = readdir(d))) {
			FILE *f;

			if (e->d_name[0] == '.' || atoi(e->d_name) == pid)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%s/stat",
				 (int)pid, e->d_name);
			line[0] = 0;
			if ((f = fopen(path, "r"))) {
				if (!fgets(line, sizeof(line), f))
					line[0] = 0;
				fclose(f);
			}
			p = strrchr(line, ')');
			all = all && p && p[1] == ' ' && p[2] == 'S';
		}
		closedir(d);
		if (all)
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

/* Its regions as a read made now finds them (no prep). */
static struct vms_snapshot *read_now(pid_t pid)
{
	struct vms_capture_opts o = { .pid = pid };
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_error err = { 0 };

	if (s && sampler_read_smaps(s, pid, &o, &err) < 0) {
		printf("# read of %d: %s\n", (int)pid, err.msg);
		vms_snapshot_free(s);
		return NULL;
	}
	return s;
}

static bool same_regions(const struct vms_snapshot *a,
			 const struct vms_snapshot *b)
{
	size_t i;

	if (!a || !b || a->nregions != b->nregions) {
		printf("# %zu regions, %zu\n", a ? a->nregions : 0,
		       b ? b->nregions : 0);
		return false;
	}
	for (i = 0; i < a->nregions; i++)
		if (a->regions[i].start != b->regions[i].start ||
		    a->regions[i].end != b->regions[i].end ||
		    a->regions[i].perms != b->regions[i].perms)
			return false;
	return true;
}

static void test_exec(const char *self)
{
	struct vms_capture_opts o = { 0 };
	struct vms_snapshot *s = vms_snapshot_new(), *now;
	struct sampler_prep *prep;
	struct vms_error err = { 0 };
	int go[2], execd[2], ready[2], rc;
	char c, fdarg[16];
	pid_t pid;

	ok(pipe(go) == 0 && pipe2(execd, O_CLOEXEC) == 0 && pipe(ready) == 0,
	   "pipes");
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(execd[0]);
		close(ready[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		snprintf(fdarg, sizeof(fdarg), "%d", ready[1]);
		execl(self, self, "--pause", fdarg, (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	close(execd[1]);
	close(ready[1]);
	o.pid = pid;
	prep = sampler_prep_smaps(s, pid);
	ok(prep != NULL, "prepared before the exec");
	/* the exec done (its close-on-exec pipe closed: the old address
	 * space already let go), and the new program in its pause() (its
	 * pages as they stay: the two reads below find the same) */
	ok(write(go[1], "x", 1) == 1 && read(execd[0], &c, 1) == 0 &&
	   read(ready[0], &c, 1) == 1 &&
	   target_wait_state(pid, "S", 5000) == 'S',
	   "the child executed a new program, and waits in it");
	rc = sampler_read_smaps_prepped(s, pid, &o, prep, &err);
	ok(rc == 0, "the prepared read after an exec: %s",
	   rc == 0 ? "read" : err.msg);
	now = read_now(pid);
	ok(rc == 0 && same_regions(s, now),
	   "its regions, those of the new program (%zu, a read now %zu)",
	   s->nregions, now ? now->nregions : 0);
	ok(rc == 0 && s->rollup.valid && now && now->rollup.valid &&
	   s->rollup.rss == now->rollup.rss,
	   "the rollup read with them");
	vms_snapshot_free(now);
	vms_snapshot_free(s);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(go[1]);
	close(execd[0]);
	close(ready[0]);
}

static void *idle(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static void test_main_exited(void)
{
	struct vms_capture_opts o = { 0 };
	struct vms_snapshot *s = vms_snapshot_new(), *now;
	struct sampler_prep *prep;
	struct vms_error err = { 0 };
	int go[2], rc;
	char c, st;
	pid_t pid;

	ok(pipe(go) == 0, "a pipe");
	pid = fork();
	if (pid == 0) {
		pthread_t t;

		close(go[1]);
		if (pthread_create(&t, NULL, idle, NULL) != 0 ||
		    read(go[0], &c, 1) != 1)
			_exit(1);
		pthread_exit(NULL);
	}
	close(go[0]);
	o.pid = pid;
	prep = sampler_prep_smaps(s, pid);
	ok(prep != NULL, "prepared while its main thread runs");
	ok(write(go[1], "x", 1) == 1, "its main thread told to exit");
	st = target_wait_state(pid, "Z", 5000);
	ok(st == 'Z' && others_sleep(pid),
	   "its main thread exited, another waits (state %c)", st ? st : '?');
	rc = sampler_read_smaps_prepped(s, pid, &o, prep, &err);
	ok(rc == 0, "the prepared read: %s", rc == 0 ? "read" : err.msg);
	now = read_now(pid);
	ok(rc == 0 && same_regions(s, now),
	   "its regions (%zu, a read now %zu)", s->nregions,
	   now ? now->nregions : 0);
	ok(rc == 0 && s->rollup.valid && now && now->rollup.valid &&
	   s->rollup.rss == now->rollup.rss,
	   "the rollup read through a thread that runs");
	vms_snapshot_free(now);
	vms_snapshot_free(s);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(go[1]);
}

static void test_unused(void)
{
	struct vms_snapshot *s = vms_snapshot_new();
	struct sampler_prep *prep;
	int fds, base;

	/* the threads the tests before joined gone from the list (the main
	 * one and any a sanitizer keeps stay): the count, once it stops
	 * falling */
	base = proc_count("/proc/self/task");
	while (base > 1 && proc_count_becomes("/proc/self/task", base - 1, 100))
		base--;
	fds = proc_count("/proc/self/fd");
	prep = sampler_prep_smaps(s, getpid());
	ok(prep != NULL && proc_count("/proc/self/task") == base + 2,
	   "a prep holds two threads (%d, %d before)",
	   proc_count("/proc/self/task"), base);
	sampler_prep_free(prep);
	ok(proc_count_becomes("/proc/self/task", base, 1000) && proc_count("/proc/self/fd") == fds,
	   "freed unused: no thread, no descriptor left");
	vms_snapshot_free(s);
}

int main(int argc, char **argv)
{
	char self[4096];
	ssize_t n;

	if (argc == 3 && strcmp(argv[1], "--pause") == 0) {
		if (write(atoi(argv[2]), "r", 1) != 1)
			return 1;
		for (;;)
			pause();
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = 0;
	test_exec(self);
	test_main_exited();
	test_unused();
	return tap_done();
}
