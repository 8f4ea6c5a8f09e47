/* test_freeze.c — freeze.c on real processes, in the cases a review found:
 *
 *  - a target killed while frozen is reaped back to its real parent at
 *    release (not left a traced zombie its parent cannot see);
 *  - a thread in uninterruptible sleep (a vfork parent) makes the freeze
 *    refuse up front, without stopping or tracing anything;
 *  - SIGTERM to vmscope while frozen is held back until the release;
 *  - a process whose main thread exited (a zombie leader) with 83 live
 *    threads: frozen without the leader; every thread that had not
 *    stopped by the release is kept as a leftover (more than the old cap
 *    of 64, none dropped) and detached with its signal when it stops;
 *  - the same leftovers in a short-lived tracer process (the keeper): its
 *    exit has the kernel detach them, each with the signal it stopped for;
 *  - a process SIGKILLed at a random moment of a freeze (a seeded delay
 *    from another thread): the freeze holds it or fails, never saying it
 *    executed a new program;
 *  - the same as not its parent, the main thread slow to stop (mostly in
 *    the kernel: hostile_target slowmain), SIGKILLed 0-40 ms into the
 *    freeze: the release leaves no traced zombie, and its real parent
 *    reaps it (a main thread seen dead before it stopped was let go
 *    unreaped, 4 in 60 such kills, before it was kept seized to the end);
 *  - a process whose worker thread execs again and again (hostile_target
 *    execW): a freeze either says it executed a new program or holds every
 *    thread it says stopped, stopped, with the registers it saved. An
 *    exec by a thread other than the main one gives the pid to that thread
 *    and lets the main thread go without a report; a freeze that took the
 *    main thread's stop for the pid's passed (some 3 in 1000 freezes on
 *    this project's VM), and the fork sampler then put the old program's
 *    registers into the new one, which died (SIGSEGV).
 *
 * Targets are grandchildren: a middle process forks the target and reports
 * on a pipe when it reaps it, so the test (the tracer) is not its parent.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/ptrace/freeze.h"
#include "linux/procfs.h"
#include "tap.h"
#include "target.h"

/* A freeze as pss --freeze makes it (the keeper's), with no cancel fd. */
#define HOW(ms) ((struct freeze_how){ (ms), "without --freeze", -1 })

struct family {
	pid_t middle, target;
	int report; /* read end: the middle writes 'R' when it reaped */
	int go;     /* mode 1: a byte written here lets the vfork child exit */
};

/* Starts middle -> target. mode 0: the target sleeps; mode 1: it vforks a
 * child that waits for a byte on f->go (the target waits in D state
 * meanwhile); mode 2: it is hostile_target execW, mode 3 hostile_target
 * slowmain (quiet). */
static int start_family(struct family *f, int mode)
{
	int to_test[2], ready[2], go[2];

	f->go = -1;
	if (pipe(to_test) < 0 || pipe(ready) < 0 || pipe(go) < 0)
		return -1;
	f->middle = fork();
	if (f->middle < 0)
		return -1;
	if (f->middle == 0) {
		pid_t t;
		int st;

		close(to_test[0]);
		close(ready[0]);
		close(go[1]);
		t = fork();
		if (t == 0) {
			close(to_test[1]);
			if (write(ready[1], "x", 1) < 0)
				_exit(2);
			close(ready[1]);
			if (mode >= 2) {
				const char *b = getenv("BUILD");
				char path[4096];

				snprintf(path, sizeof(path),
					 "%s/targets/hostile_target",
					 b ? b : "build");
				execl(path, "hostile_target",
				      mode == 2 ? "execW" : "slowmain",
				      "1000000000", "quiet", (char *)NULL);
				_exit(127);
			}
			if (mode == 1) {
				if (vfork() == 0) {
					char c;

					/* a byte, or EOF when the test
					 * is gone */
					if (read(go[0], &c, 1) < 0)
						_exit(1);
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
	close(go[0]);
	f->go = go[1];
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
	close(f->go);
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

/* A value of /proc/PID/status (TracerPid, Threads), -1 if gone. */
static long long status_of(pid_t pid, const char *key)
{
	char *b;
	size_t n;
	long long v;

	if (procfs_read_pid(pid, "status", &b, &n) < 0)
		return -1;
	v = procfs_status_value(b, n, key);
	free(b);
	return v;
}

static int tracer_of(pid_t pid)
{
	return (int)status_of(pid, "TracerPid");
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
	char st;
	int rc;

	if (start_family(&f, 1) < 0) {
		ok(0, "vfork parent: start the target");
		return;
	}
	st = target_wait_state(f.target, "D", 10000);
	ok(st == 'D', "vfork parent: the target waits for its vfork child in "
		      "D state (%c)",
	   st ? st : '?');
	rc = freeze_stop(&fz, f.target, &HOW(200), &err);
	ok(rc < 0 && strstr(err.msg, "uninterruptible"),
	   "vfork parent: the freeze is refused (%s)",
	   rc < 0 ? err.msg : "it froze");
	if (rc == 0)
		freeze_release(&fz);
	ok(tracer_of(f.target) == 0,
	   "vfork parent: nothing was left traced");
	/* The vfork child exits; the target goes on to pause() (or to a
	 * trace stop, had the freeze left it seized). */
	if (write(f.go, "x", 1) != 1)
		ok(0, "vfork parent: let the vfork child exit");
	st = target_wait_state(f.target, "StT", 10000);
	ok(st == 'S' || st == 't' || st == 'T',
	   "vfork parent: the target left D state once its child exited (%c)",
	   st ? st : '?');
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

/* ---- leftovers: hostile_target "threads" (80 idle threads, a heartbeat,
 * a checker and a reader; its main thread exited) ---- */

#define RT (SIGRTMIN + 2) /* the target counts it (sigs=) */

static long target_sigs(struct target *t)
{
	char line[256], *p;

	fprintf(t->in, "status\n");
	fflush(t->in);
	if (!fgets(line, sizeof(line), t->out))
		return -1;
	p = strstr(line, "sigs=");
	return p ? atol(p + 5) : -1;
}

static int traced_threads(pid_t pid)
{
	pid_t *tids;
	size_t n, i;
	int c = 0;

	if (procfs_list_tasks(pid, &tids, &n) < 0)
		return -1;
	for (i = 0; i < n; i++)
		c += procfs_thread_status(pid, tids[i], "TracerPid") > 0;
	free(tids);
	return c;
}

/* Whether thread tid blocks RT (SigBlk, hexadecimal). */
static int blocks_rt(pid_t pid, pid_t tid)
{
	char name[64], *b, *p;
	size_t n;
	int yes = 0;

	snprintf(name, sizeof(name), "task/%d/status", (int)tid);
	if (procfs_read_pid(pid, name, &b, &n) < 0)
		return 0;
	p = strstr(b, "\nSigBlk:");
	if (p)
		yes = (strtoull(p + 8, NULL, 16) >> (RT - 1)) & 1;
	free(b);
	return yes;
}

static void nap_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int start_threads_target(struct target *t)
{
	char *argv[] = { "hostile_target", "threads", NULL };
	char line[128];
	int i;

	if (target_start(t, argv) < 0 || !fgets(line, sizeof(line), t->out))
		return -1;
	for (i = 0; i < 2000; i++) { /* the leader exits after "ready" */
		pid_t *tids;
		size_t n;
		char st = 0;

		if (procfs_list_tasks(t->pid, &tids, &n) == 0) {
			free(tids);
			if (n >= 84 && procfs_thread_exited(t->pid, t->pid))
				st = 'Z';
		}
		if (st == 'Z')
			return 0;
		nap_ms(5);
	}
	return -1;
}

/* Freezes t, then resumes every stopped thread behind the freeze's back
 * (still traced) and marks it not stopped: to freeze_release() they are
 * threads that never stopped (stuck in the kernel), kept as leftovers. */
static int freeze_and_strand(struct target *t, size_t *live, int *leader_ok)
{
	struct freeze fz;
	struct vms_error err;
	size_t i;

	if (freeze_stop(&fz, t->pid, &HOW(2000), &err) < 0)
		return -1;
	*live = 0;
	*leader_ok = 0;
	for (i = 0; i < fz.n; i++) {
		if (fz.t[i].tid == t->pid)
			*leader_ok = !fz.t[i].seized && !fz.t[i].stopped;
		if (!fz.t[i].stopped)
			continue;
		(*live)++;
		ptrace(PTRACE_CONT, fz.t[i].tid, NULL, NULL);
		fz.t[i].stopped = false;
	}
	freeze_release(&fz); /* waits 1 s for them, then keeps them */
	return 0;
}

/* Sends each thread of pid but the leader RT, or SIGURG (ignored) to one
 * that blocks RT. Returns how many RT were sent. */
static long signal_each(pid_t pid)
{
	pid_t *tids;
	size_t n, i;
	long rt = 0;

	if (procfs_list_tasks(pid, &tids, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		int sig = blocks_rt(pid, tids[i]) ? SIGURG : RT;

		if (tids[i] == pid)
			continue;
		if (syscall(SYS_tgkill, pid, tids[i], sig) == 0 && sig == RT)
			rt++;
	}
	free(tids);
	return rt;
}

static long wait_sigs(struct target *t, long want)
{
	long got = target_sigs(t);
	int i;

	for (i = 0; i < 2000 && got < want; i++) {
		nap_ms(10);
		got = target_sigs(t);
	}
	return got;
}

static void test_leftovers_many(void)
{
	struct target t;
	size_t live, left;
	long sigs0, rt;
	int leader_ok, i;

	if (start_threads_target(&t) < 0) {
		ok(0, "leftovers: start a target whose main thread exited");
		target_stop(&t);
		return;
	}
	sigs0 = target_sigs(&t);
	ok(freeze_and_strand(&t, &live, &leader_ok) == 0 && live > 64,
	   "leftovers: the target froze without its exited leader (%zu "
	   "threads)",
	   live);
	ok(leader_ok, "leftovers: the zombie leader is neither seized nor "
		      "stopped");
	left = freeze_reap_leftovers();
	ok(left == live && traced_threads(t.pid) == (int)live,
	   "leftovers: all %zu threads that never stopped are kept (not cut "
	   "at 64): %zu",
	   live, left);
	rt = signal_each(t.pid);
	for (i = 0; i < 2000 && freeze_reap_leftovers(); i++)
		nap_ms(10);
	ok(freeze_reap_leftovers() == 0 && traced_threads(t.pid) == 0,
	   "leftovers: each is detached once it stops; none left traced");
	ok(wait_sigs(&t, sigs0 + rt) == sigs0 + rt,
	   "leftovers: the %ld signals they stopped for were handed back",
	   rt);
	target_stop(&t);
}

static void test_tracer_exit(void)
{
	struct target t;
	size_t live = 0;
	long sigs0, rt = -1, got;
	int pipefd[2], leader_ok = 0, st;
	pid_t tracer;

	if (start_threads_target(&t) < 0 || pipe(pipefd) < 0) {
		ok(0, "tracer exit: start a target whose main thread exited");
		target_stop(&t);
		return;
	}
	sigs0 = target_sigs(&t);
	tracer = fork();
	if (tracer == 0) {
		/* The keeper's part: leftovers, each then stopped by a
		 * signal it must get back, and exit without detaching. */
		long msg[2] = { -1, -1 };
		int i;

		if (freeze_and_strand(&t, &live, &leader_ok) == 0) {
			msg[0] = (long)live;
			msg[1] = signal_each(t.pid);
			for (i = 0; i < 500; i++) {
				pid_t *tids;
				size_t n, j, stopped = 0;

				if (procfs_list_tasks(t.pid, &tids, &n) < 0)
					break;
				for (j = 0; j < n; j++) {
					char nm[64], *b, *p;
					size_t len;

					snprintf(nm, sizeof(nm), "task/%d/stat",
						 (int)tids[j]);
					if (procfs_read_pid(t.pid, nm, &b,
							    &len) < 0)
						continue;
					p = strrchr(b, ')');
					stopped += p && p[2] == 't';
					free(b);
				}
				free(tids);
				if (stopped >= live)
					break;
				nap_ms(10);
			}
		}
		if (write(pipefd[1], msg, sizeof(msg)) < 0)
			_exit(2);
		_exit(0);
	}
	{
		long msg[2] = { -1, -1 };

		close(pipefd[1]);
		if (read(pipefd[0], msg, sizeof(msg)) == sizeof(msg)) {
			live = (size_t)msg[0];
			rt = msg[1];
		}
		close(pipefd[0]);
	}
	waitpid(tracer, &st, 0);
	ok(live > 64 && rt > 0,
	   "tracer exit: %zu threads stranded, stopped by signals (%ld RT) "
	   "in a tracer that exits",
	   live, rt);
	ok(traced_threads(t.pid) == 0,
	   "tracer exit: the kernel detached every one when the tracer "
	   "exited");
	got = wait_sigs(&t, sigs0 + rt);
	ok(got == sigs0 + rt,
	   "tracer exit: the %ld signals they stopped for were delivered "
	   "(%ld)",
	   rt, got - sigs0);
	target_stop(&t);
}

/* The stopped threads of f not as it says: not stopped (ptrace refuses
 * them), or with other registers than it saved. */
static size_t stale_threads(const struct freeze *f)
{
	size_t i, n = 0;

	for (i = 0; i < f->n; i++)
		n += f->t[i].stopped && !freeze_thread_same(&f->t[i]);
	return n;
}

/* freezes freezes of pid, a process whose worker execs all the time;
 * who: how the test is related to it. */
static void exec_race(pid_t pid, const char *who)
{
	int freezes = getenv("EXEC_FREEZES") ? atoi(getenv("EXEC_FREEZES"))
					     : 3000;
	int i, held = 0, execs = 0, other = 0, traced = 0, j;
	bool lives = false;
	size_t stale = 0;
	char said[sizeof(((struct vms_error *)0)->msg)] = "";
	char last[sizeof(said)] = "";

	for (i = 0; i < freezes; i++) {
		struct freeze fz;
		struct vms_error err;

		if (freeze_stop(&fz, pid, &HOW(2000), &err) < 0) {
			if (strstr(err.msg, "executed a new program"))
				execs++;
			else if (!other++)
				snprintf(said, sizeof(said), "%s", err.msg);
			snprintf(last, sizeof(last), "%s", err.msg);
		} else {
			held++;
			stale += stale_threads(&fz);
			freeze_release(&fz);
			snprintf(last, sizeof(last), "held");
		}
		/* let go, each time: none left traced (and so stopped
		 * for good once it stops) */
		if (traced_threads(pid) > 0 && traced++ == 0) {
			/* the first time: which, and after what */
			pid_t *tids;
			size_t n, k;

			if (procfs_list_tasks(pid, &tids, &n) == 0) {
				for (k = 0; k < n; k++)
					printf("# left traced? tid %d, tracer "
					       "%lld, state %c, after: %s\n",
					       (int)tids[k],
					       procfs_thread_status(
						       pid, tids[k],
						       "TracerPid"),
					       target_state(tids[k]), last);
				free(tids);
			}
		}
	}
	ok(stale == 0,
	   "exec race (%s): of %d freezes, %d held the process, every thread "
	   "said stopped stopped with its registers (%zu not)",
	   who, freezes, held, stale);
	ok(held > 0 && execs > 0,
	   "exec race (%s): some freezes held it (%d), some said it executed "
	   "a new program (%d)",
	   who, held, execs);
	ok(other == 0, "exec race (%s): no other refusal (%d: %s)", who, other,
	   said);
	ok(traced == 0,
	   "exec race (%s): no thread left traced after a freeze (%d times)",
	   who, traced);
	/* an exec by its worker leaves the old main thread a zombie for a
	 * moment (the pid's state 'Z', the process alive): one look could
	 * take it for dead (1 run in 12 on a 2-core machine); a live one is
	 * seen within 100 looks 1 ms apart */
	for (j = 0; j < 100 && !lives && kill(pid, 0) == 0; j++) {
		struct timespec ts = { 0, 1000000 };

		lives = target_state(pid) != 'Z';
		if (!lives)
			nanosleep(&ts, NULL);
	}
	ok(lives,
	   "exec race (%s): the target lives (%d looks; wait status %#x; the "
	   "last freeze: %s)",
	   who, j, lives ? 0 : target_exit_code(pid), last);
}

struct killer {
	pid_t pid;
	long delay_ns;
};

static void *kill_later(void *arg)
{
	const struct killer *k = arg;
	struct timespec ts = { 0, k->delay_ns };

	nanosleep(&ts, NULL);
	kill(k->pid, SIGKILL);
	return NULL;
}

static void test_killed_during_freeze(void)
{
	char *argv[] = { "hostile_target", "plain", NULL };
	unsigned seed = tap_seed((unsigned)time(NULL));
	int i, trials = 60, held = 0, wrong = 0;
	char said[sizeof(((struct vms_error *)0)->msg)] = "";

	srand(seed);
	for (i = 0; i < trials; i++) {
		struct target t = { 0, NULL, NULL };
		struct killer k;
		struct freeze fz;
		struct vms_error err;
		pthread_t th;
		char line[128];

		if (target_start(&t, argv) < 0 ||
		    !fgets(line, sizeof(line), t.out)) {
			ok(0, "killed during a freeze: start the target");
			if (t.pid > 0)
				target_stop(&t);
			return;
		}
		k.pid = t.pid;
		k.delay_ns = rand() % 400000; /* within the freeze's 0.1 ms */
		pthread_create(&th, NULL, kill_later, &k);
		if (freeze_stop(&fz, t.pid, &HOW(2000), &err) == 0) {
			held++;
			freeze_release(&fz);
		} else if (strstr(err.msg, "executed a new program") &&
			   !wrong++) {
			snprintf(said, sizeof(said), "%s", err.msg);
		}
		pthread_join(th, NULL);
		target_stop(&t);
	}
	ok(wrong == 0,
	   "killed during a freeze: of %d, %d held it, and no refusal said it "
	   "executed a new program (%d: %s)",
	   trials, held, wrong, said);
}

static long threads_of(pid_t pid)
{
	return (long)status_of(pid, "Threads");
}

/* hostile_target slowmain as a grandchild (the keeper's case: its zombie
 * is seen only by its real parent), SIGKILLed at a seeded moment while
 * its main thread is slow to stop. */
static void test_killed_slow_main(void)
{
	unsigned seed = tap_seed((unsigned)time(NULL) ^ 0x5a5a);
	int i, trials = 60, held = 0, unreaped = 0, traced = 0;

	srand(seed);
	for (i = 0; i < trials; i++) {
		struct family f;
		struct killer k;
		struct freeze fz;
		struct vms_error err;
		pthread_t th;
		int w;

		if (start_family(&f, 3) < 0) {
			ok(0, "killed, main thread slow: start the target");
			return;
		}
		/* its 30 idle threads, the heartbeat and checker ones */
		for (w = 0; w < 500 && threads_of(f.target) < 33; w++)
			nap_ms(10);
		if (threads_of(f.target) < 33) {
			ok(0, "killed, main thread slow: the target's threads "
			      "started (%ld)",
			   threads_of(f.target));
			stop_family(&f);
			return;
		}
		k.pid = f.target;
		k.delay_ns = (rand() % 40000) * 1000L; /* 0-40 ms */
		pthread_create(&th, NULL, kill_later, &k);
		if (freeze_stop(&fz, f.target, &HOW(2000), &err) == 0) {
			held++;
			freeze_release(&fz);
		}
		pthread_join(th, NULL);
		if (!reaped_within(&f, 3000)) {
			unreaped++;
			if (tracer_of(f.target) == getpid())
				traced++;
		}
		stop_family(&f);
	}
	ok(unreaped == 0 && traced == 0,
	   "killed, main thread slow: of %d (%d held), every target reaped by "
	   "its real parent after the release (%d not, %d of them still "
	   "traced by us)",
	   trials, held, unreaped, traced);
}

/* As its parent (a wait for its pid never says ECHILD: vmscope launching
 * a command), and as the keeper is (not its parent). */
static void test_exec_race(void)
{
	char *argv[] = { "hostile_target", "execW", "1000000000", NULL };
	char line[128];
	struct target t = { 0, NULL, NULL };
	struct family f;

	if (target_start(&t, argv) < 0 || !fgets(line, sizeof(line), t.out))
		ok(0, "exec race: start the target");
	else
		exec_race(t.pid, "its parent");
	if (t.pid > 0)
		target_stop(&t);
	if (start_family(&f, 2) < 0) {
		ok(0, "exec race: start the target as a grandchild");
		return;
	}
	exec_race(f.target, "not its parent");
	stop_family(&f);
}

int main(void)
{
	test_killed_while_frozen();
	test_vfork_parent();
	test_signal_held();
	test_leftovers_many();
	test_tracer_exit();
	test_killed_during_freeze();
	test_killed_slow_main();
	test_exec_race();
	return tap_done();
}
