/* test_freeze.c — freeze.c on real processes, in the cases a review found:
 *
 *  - a target killed while frozen is reaped back to its real parent at
 *    release (not left a traced zombie its parent cannot see);
 *  - a thread in uninterruptible sleep (a vfork parent) makes the freeze
 *    refuse up front, without stopping or tracing anything;
 *  - SIGTERM to vmscope while frozen is held back until the release.
 *
 * Targets are grandchildren: a middle process forks the target and reports
 * on a pipe when it reaps it, so the test (the tracer) is not its parent.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "freeze.h"
#include "procfs.h"
#include "tap.h"

/* A freeze as pss --freeze makes it (the keeper's), with no cancel fd. */
#define HOW(ms) ((struct freeze_how){ (ms), "without --freeze", -1 })

struct family {
	pid_t middle, target;
	int report; /* read end: the middle writes 'R' when it reaped */
};

/* Starts middle -> target. mode 0: the target sleeps; mode 1: it vforks a
 * child that sleeps 2 s (the target waits in D state meanwhile). */
static int start_family(struct family *f, int mode)
{
	int to_test[2], ready[2];

	if (pipe(to_test) < 0 || pipe(ready) < 0)
		return -1;
	f->middle = fork();
	if (f->middle < 0)
		return -1;
	if (f->middle == 0) {
		pid_t t;
		int st;

		close(to_test[0]);
		close(ready[0]);
		t = fork();
		if (t == 0) {
			close(to_test[1]);
			if (write(ready[1], "x", 1) < 0)
				_exit(2);
			close(ready[1]);
			if (mode == 1) {
				if (vfork() == 0) {
					sleep(2);
					_exit(0);
				}
			}
			for (;;)
				pause();
		}
		if (write(to_test[1], &t, sizeof(t)) < 0)
			_exit(2);
		while (waitpid(t, &st, 0) < 0 && errno == EINTR)
			;
		if (write(to_test[1], "R", 1) < 0)
			_exit(2);
		_exit(0);
	}
	close(to_test[1]);
	close(ready[1]);
	if (read(to_test[0], &f->target, sizeof(f->target)) !=
	    sizeof(f->target))
		return -1;
	{
		char c;

		if (read(ready[0], &c, 1) != 1)
			return -1;
	}
	close(ready[0]);
	f->report = to_test[0];
	return 0;
}

static void stop_family(struct family *f)
{
	kill(f->target, SIGKILL);
	kill(f->middle, SIGKILL);
	waitpid(f->middle, NULL, 0);
	close(f->report);
}

/* Whether the middle reported the reap within ms. */
static int reaped_within(struct family *f, int ms)
{
	struct timespec ts = { 0, 10000000 };
	int i;

	for (i = 0; i < ms / 10; i++) {
		fd_set fds;
		struct timeval tv = { 0, 0 };
		char c;

		FD_ZERO(&fds);
		FD_SET(f->report, &fds);
		if (select(f->report + 1, &fds, NULL, NULL, &tv) > 0 &&
		    read(f->report, &c, 1) == 1 && c == 'R')
			return 1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

static int tracer_of(pid_t pid)
{
	char *b;
	size_t n;
	long long v;

	if (procfs_read_pid(pid, "status", &b, &n) < 0)
		return -1;
	v = procfs_status_value(b, n, "TracerPid");
	free(b);
	return (int)v;
}

static void test_killed_while_frozen(void)
{
	struct family f;
	struct freeze fz;
	struct vms_error err;

	if (start_family(&f, 0) < 0) {
		ok(0, "killed while frozen: start the target");
		return;
	}
	ok(freeze_stop(&fz, f.target, &HOW(2000), &err) == 0,
	   "killed while frozen: the target is frozen");
	kill(f.target, SIGKILL);
	freeze_release(&fz);
	ok(reaped_within(&f, 3000),
	   "killed while frozen: its real parent reaps it after the release");
	stop_family(&f);
}

static void test_vfork_parent(void)
{
	struct family f;
	struct freeze fz;
	struct vms_error err;
	struct timespec ts = { 0, 300000000 };
	int rc;

	if (start_family(&f, 1) < 0) {
		ok(0, "vfork parent: start the target");
		return;
	}
	nanosleep(&ts, NULL); /* the target is inside vfork now */
	rc = freeze_stop(&fz, f.target, &HOW(200), &err);
	ok(rc < 0 && strstr(err.msg, "uninterruptible"),
	   "vfork parent: the freeze is refused (%s)",
	   rc < 0 ? err.msg : "it froze");
	if (rc == 0)
		freeze_release(&fz);
	ok(tracer_of(f.target) == 0,
	   "vfork parent: nothing was left traced");
	sleep(2); /* the vfork child exits; the target goes on */
	freeze_reap_leftovers();
	ok(tracer_of(f.target) == 0,
	   "vfork parent: not traced after its child exited either");
	stop_family(&f);
}

static volatile sig_atomic_t got_term;

static void on_term(int sig)
{
	(void)sig;
	got_term = 1;
}

static void test_signal_held(void)
{
	struct family f;
	struct freeze fz;
	struct vms_error err;
	struct sigaction sa;
	int was_frozen, during;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	if (start_family(&f, 0) < 0) {
		ok(0, "signal held: start the target");
		return;
	}
	was_frozen = freeze_stop(&fz, f.target, &HOW(2000), &err) == 0;
	kill(getpid(), SIGTERM);
	during = got_term;
	freeze_release(&fz);
	ok(was_frozen && !during && got_term,
	   "a SIGTERM to vmscope while frozen arrives after the release");
	signal(SIGTERM, SIG_DFL);
	stop_family(&f);
}

int main(void)
{
	test_killed_while_frozen();
	test_vfork_parent();
	test_signal_held();
	return tap_done();
}
