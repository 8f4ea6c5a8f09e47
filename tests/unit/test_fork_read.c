/* test_fork_read — the fork sampler against a live target: what the
 * snapshot reads is the memory as it was at the fork, whatever the target
 * writes afterwards; MADV_DONTFORK/WIPEONFORK regions are unreadable; the
 * clone is gone and the target untraced once the snapshot is freed. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pipeline.h"
#include "capture/ptrace/fork_keeper.h"
#include "capture/ptrace/inject.h"
#include "linux/procfs.h"
#include "capture/sampler.h"
#include "tap.h"
#include "target.h"

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

/* The first child of pid, or 0. */
static pid_t first_child(pid_t pid)
{
	char name[64], *b;
	size_t n;
	pid_t c;

	snprintf(name, sizeof(name), "task/%d/children", (int)pid);
	if (procfs_read_pid(pid, name, &b, &n) < 0)
		return 0;
	c = (pid_t)atoi(b);
	free(b);
	return c;
}

static int status_line_is(pid_t pid, const char *key, const char *want)
{
	char *b, *p;
	size_t n;
	int r = 0;

	if (procfs_read_pid(pid, "status", &b, &n) < 0)
		return 0;
	p = strstr(b, key);
	if (p) {
		p += strlen(key);
		while (*p == ' ' || *p == '\t')
			p++;
		r = strncmp(p, want, strlen(want)) == 0;
	}
	free(b);
	return r;
}

static void read_target(pid_t pid, unsigned long addr, void *buf, size_t len)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY);
	memset(buf, 0, len);
	if (fd >= 0) {
		if (pread(fd, buf, len, (off_t)addr) < 0)
			memset(buf, 0, len);
		close(fd);
	}
}

static int all_ints(const int *p, size_t n, int v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

int main(void)
{
	struct target t = { 0 };
	struct vms_capture_opts o = { 0 };
	struct vms_error err = { 0 };
	struct vms_snapshot *s;
	unsigned long var, buf, dc, wf;
	int buflen, speclen, v = 0;
	char line[256];
	int *bytes;
	const struct vms_region *r;
	ssize_t got;

	signal(SIGPIPE, SIG_IGN);
	if (target_start(&t, (char *[]){ "fork_value", NULL }) < 0 ||
	    !fgets(line, sizeof(line), t.out) ||
	    sscanf(line, "ready %lx %lx %d %lx %lx %d", &var, &buf, &buflen, &dc,
		   &wf, &speclen) != 6) {
		ok(0, "fork_value target started");
		target_stop(&t);
		return tap_done();
	}
	o.pid = t.pid;
	o.keep_memory = true; /* this test reads the clone afterwards */
	s = vms_capture(&vms_sampler_fork, &o, &err);
	ok(s != NULL, "fork capture of a live target (%s)", s ? "" : err.msg);
	if (!s) {
		target_stop(&t);
		return tap_done();
	}
	ok(strcmp(s->cap.backend, "fork") == 0 && s->cap.frozen &&
		   s->cap.frozen_us > 0,
	   "the snapshot records backend fork and the freeze (%llu us)",
	   (unsigned long long)s->cap.frozen_us);

	fputs("w\n", t.in);
	fflush(t.in);
	ok(fgets(line, sizeof(line), t.out) && strncmp(line, "written", 7) == 0,
	   "the target wrote 457 after the snapshot");

	got = vms_source_read(s, var, &v, sizeof(v), &err);
	ok(got == sizeof(v) && v == 456,
	   "the variable read through the snapshot is 456 (got %d)", v);
	read_target(t.pid, var, &v, sizeof(v));
	ok(v == 457, "the variable in the target is 457 (got %d)", v);

	bytes = malloc((size_t)buflen);
	got = vms_source_read(s, buf, bytes, (size_t)buflen, &err);
	ok(got == buflen && all_ints(bytes, (size_t)buflen / sizeof(int), 456),
	   "the whole buffer read through the snapshot is 456 (%zd bytes)",
	   got);
	read_target(t.pid, buf, bytes, (size_t)buflen);
	ok(all_ints(bytes, (size_t)buflen / sizeof(int), 457),
	   "the whole buffer in the target is 457");

	r = vms_snapshot_find(s, dc);
	ok(r && (r->flags & VMS_RF_UNREADABLE),
	   "the MADV_DONTFORK region is marked unreadable");
	ok(vms_source_read(s, dc, bytes, (size_t)speclen, &err) == 0,
	   "the MADV_DONTFORK region reads as 0 bytes");
	r = vms_snapshot_find(s, wf);
	ok(r && (r->flags & VMS_RF_UNREADABLE),
	   "the MADV_WIPEONFORK region is marked unreadable");
	ok(vms_source_read(s, wf, bytes, (size_t)speclen, &err) == 0,
	   "the MADV_WIPEONFORK region reads as 0 bytes");
	got = vms_source_read(s, buf + (unsigned long)buflen / 2, bytes, 4096,
				&err);
	ok(got == 4096 && bytes[0] == 456,
	   "a read from the middle of the buffer is the snapshot's too");
	free(bytes);

	ok(target_children(t.pid) == 1,
	   "while the snapshot lives, the stopped clone is the target's child");
	{
		pid_t c = first_child(t.pid);
		long long tracer = c > 0 ? status_of(c, "TracerPid") : 0;

		ok(c > 0 && status_line_is(c, "State:", "t"),
		   "the clone %d is in a tracing stop", (int)c);
		ok(tracer > 0 && tracer != getpid() && tracer != t.pid,
		   "the clone is traced by the keeper (%lld), not by the "
		   "caller",
		   tracer);
		{
			char name[64], *b = NULL;
			size_t n;
			uint64_t sp = 0;

			snprintf(name, sizeof(name), "task/%d/syscall", (int)c);
			if (c > 0 && procfs_read_pid(c, name, &b, &n) == 0)
				procfs_syscall_sp_parse(b, n, &sp);
			free(b);
			ok(sp == inject_dead_sp(),
			   "the clone's stack pointer is unmapped (%#llx): if "
			   "it ever ran, its first stack access would fault",
			   (unsigned long long)sp);
		}
		/* every signal but SIGKILL and SIGSTOP */
		ok(c > 0 && status_line_is(c, "SigBlk:", "fffffffffffbfeff"),
		   "the clone was born with every signal blocked");
		ok(status_line_is(t.pid, "SigBlk:", "0000000000000000"),
		   "the target's own signal mask is back as it was");
	}
	vms_snapshot_free(s);
	ok(target_children(t.pid) == 0,
	   "once the snapshot is freed no clone and no zombie is left");
	ok(status_of(t.pid, "TracerPid") == 0, "the target is not traced");

	fputs("w\n", t.in);
	fflush(t.in);
	ok(fgets(line, sizeof(line), t.out) && strncmp(line, "written", 7) == 0,
	   "the target still answers");

	/* A caller that never asks for the fork (stopped by ^Z, starved):
	 * the keeper lets the target go by itself. */
	{
		struct fork_keeper k;
		uint64_t gadget;
		struct timespec ts = { 0, 5000000 };
		int i;

		ok(inject_find_gadget(t.pid, &gadget, &err) == 0 &&
			   keeper_start(&k, t.pid, gadget, 100, "use -b pss", &err) == 0,
		   "the keeper freezes the target (%s)", err.msg);
		ok(status_line_is(t.pid, "State:", "t"),
		   "the target is frozen");
		/* polled for (10 s at most): let go 100 ms after the start */
		for (i = 0; i < 2000 && (status_of(t.pid, "TracerPid") != 0 ||
					 status_line_is(t.pid, "State:", "t"));
		     i++)
			nanosleep(&ts, NULL);
		ok(status_of(t.pid, "TracerPid") == 0 &&
			   !status_line_is(t.pid, "State:", "t"),
		   "after its time limit the keeper has let the target go");
		ok(keeper_fork(&k, &err) < 0 && strstr(err.msg, "let go"),
		   "the late fork request is refused: %s", err.msg);
		keeper_stop(&k);
		ok(target_children(t.pid) == 0, "no clone was made");
	}
	target_stop(&t);
	return tap_done();
}
