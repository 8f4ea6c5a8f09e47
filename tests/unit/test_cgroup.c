/* test_cgroup.c — the parsers of cgroup.c: the v2 path of
 * /proc/PID/cgroup's text, and the cgroup a directory of a cgroup2 mount
 * stands for, on the mountinfo texts of a cgroup v2 host, a hybrid one
 * (v1 controllers and v2 under /sys/fs/cgroup/unified), a cgroup
 * namespace's mount of a subtree and a mount point with a space; then on
 * this process's own files: its cgroup's directory, found by the parser
 * through this machine's mountinfo, stands for the cgroup it is in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "linux/cgroup.h"
#include "linux/procfs.h"
#include "tap.h"

static const char v2_host[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"25 22 0:22 / /sys rw,nosuid shared:7 - sysfs sysfs rw\n"
	"26 25 0:23 / /sys/fs/cgroup rw,nosuid,nodev shared:9 - cgroup2 "
	"cgroup2 rw,nsdelegate\n";

static const char hybrid[] =
	"25 22 0:23 / /sys rw shared:7 - sysfs sysfs rw\n"
	"27 25 0:24 / /sys/fs/cgroup ro shared:9 - tmpfs tmpfs ro,mode=755\n"
	"28 27 0:25 / /sys/fs/cgroup/unified rw shared:10 - cgroup2 cgroup2 "
	"rw,nsdelegate\n"
	"29 27 0:26 / /sys/fs/cgroup/memory rw shared:11 - cgroup cgroup "
	"rw,memory\n";

/* a container's view: its cgroup namespace's root is a subtree, and an
 * optional field before the " - " */
static const char subtree[] =
	"40 39 0:30 /kubepods/pod1 /sys/fs/cgroup ro master:12 shared:3 - "
	"cgroup2 cgroup rw\n";

static const char spaced[] =
	"50 22 0:31 / /mnt/cg\\040two rw - cgroup2 none rw\n"
	"51 22 0:32 / /mnt/cgroup2x rw - tmpfs none rw";

static const char *of(const char *mi, const char *path)
{
	static char out[256];
	int r = cgroup_v2_of_dir(mi, path, out, sizeof(out));

	return r == 1 ? out : r == 0 ? "(none)" : "(too long)";
}

static void test_proc(void)
{
	char out[64];

	cgroup_v2_of_proc("12:memory:/x\n0::/system.slice/cron.service\n", out,
			  sizeof(out));
	ok(strcmp(out, "/system.slice/cron.service") == 0,
	   "proc: the 0:: line after v1 lines");
	cgroup_v2_of_proc("0::/\n", out, sizeof(out));
	ok(strcmp(out, "/") == 0, "proc: the root cgroup");
	cgroup_v2_of_proc("10:cpu:/a0::/b\n", out, sizeof(out));
	ok(strcmp(out, "") == 0, "proc: 0:: only at a line's start");
	cgroup_v2_of_proc("3:pids:/user.slice\n", out, sizeof(out));
	ok(strcmp(out, "") == 0, "proc: none on a v1 only host");
	cgroup_v2_of_proc("0::/a/very/long/path", out, 8);
	ok(strcmp(out, "/a/very") == 0, "proc: cut to the buffer");
}

static void test_dir(void)
{
	char small[8];

	ok(strcmp(of(v2_host, "/sys/fs/cgroup/system.slice/x.service"),
		  "/system.slice/x.service") == 0,
	   "v2 host: the mount point taken off");
	ok(strcmp(of(v2_host, "/sys/fs/cgroup"), "/") == 0,
	   "v2 host: the mount point itself is the root cgroup");
	ok(strcmp(of(v2_host, "/sys/fs/cgroupx/a"), "(none)") == 0,
	   "v2 host: a mount point is matched whole, not as a prefix");
	ok(strcmp(of(hybrid, "/sys/fs/cgroup/unified/vms/t1"), "/vms/t1") == 0,
	   "hybrid host: under /sys/fs/cgroup/unified");
	ok(strcmp(of(hybrid, "/sys/fs/cgroup/memory/vms"), "(none)") == 0 &&
		   strcmp(of(hybrid, "/sys/fs/cgroup/vms"), "(none)") == 0,
	   "hybrid host: a v1 or tmpfs directory is no v2 cgroup");
	ok(strcmp(of(subtree, "/sys/fs/cgroup/app"), "/kubepods/pod1/app") ==
			   0 &&
		   strcmp(of(subtree, "/sys/fs/cgroup"), "/kubepods/pod1") == 0,
	   "a subtree's mount: its root joined with the rest");
	ok(strcmp(of(spaced, "/mnt/cg two/a"), "/a") == 0,
	   "a mount point's octal escape undone");
	ok(strcmp(of(spaced, "/mnt/cgroup2x/a"), "(none)") == 0,
	   "a file system type is matched whole");
	ok(strcmp(of("", "/sys/fs/cgroup/a"), "(none)") == 0,
	   "empty mountinfo: none");
	ok(cgroup_v2_of_dir(v2_host, "/sys/fs/cgroup/abcdefgh", small,
			    sizeof(small)) == -1,
	   "a path that does not fit: -1");
}

/* This process's cgroup directory, under this machine's cgroup2 mount,
 * stands for the cgroup /proc/self/cgroup names. */
static void test_self(void)
{
	char *mi = NULL, *cg = NULL, own[1024], dir[2048], back[1024];
	const char *mnt = NULL;
	size_t len;
	struct stat st;

	if (procfs_read_file("/proc/self/mountinfo", &mi, &len) < 0 ||
	    procfs_read_file("/proc/self/cgroup", &cg, &len) < 0) {
		ok(1, "self: the cgroup's directory # SKIP no /proc here");
		goto out;
	}
	cgroup_v2_of_proc(cg, own, sizeof(own));
	if (stat("/sys/fs/cgroup/unified/cgroup.procs", &st) == 0)
		mnt = "/sys/fs/cgroup/unified";
	else if (stat("/sys/fs/cgroup/cgroup.procs", &st) == 0)
		mnt = "/sys/fs/cgroup";
	if (!*own || !mnt) {
		ok(1, "self: the cgroup's directory # SKIP no cgroup v2 mount "
		      "at /sys/fs/cgroup(/unified)");
		goto out;
	}
	snprintf(dir, sizeof(dir), "%s%s", mnt, strcmp(own, "/") ? own : "");
	ok(stat(dir, &st) == 0 &&
		   cgroup_v2_of_dir(mi, dir, back, sizeof(back)) == 1 &&
		   strcmp(back, own) == 0,
	   "self: %s stands for the cgroup /proc/self/cgroup names (%s)", dir,
	   own);
out:
	free(mi);
	free(cg);
}

/* The unit a path names: its innermost .service or .scope, else its last
 * part. */
static void test_unit(void)
{
	static const char *const cases[][2] = {
		{ "/", "" },
		{ "", "" },
		{ "/system.slice/cron.service", "cron.service" },
		{ "/user.slice/user-0.slice/session-3.scope", "session-3.scope" },
		{ "/system.slice/docker-0123abcd.scope", "docker-0123abcd.scope" },
		/* a cgroupfs driver's container: its id */
		{ "/docker/0123abcd", "0123abcd" },
		{ "/kubepods/burstable/pod1234/0123abcd", "0123abcd" },
		/* subgroups of a unit that manages its own subtree */
		{ "/machine.slice/systemd-nspawn@web.service/payload",
		  "systemd-nspawn@web.service" },
		{ "/user.slice/user-1000.slice/user@1000.service/user.slice/"
		  "libpod-0123.scope/container",
		  "libpod-0123.scope" },
		{ "/system.slice/foo.service/a/b/", "foo.service" },
		/* the innermost unit: a service inside a container's */
		{ "/machine.slice/systemd-nspawn@web.service/payload/"
		  "system.slice/nginx.service",
		  "nginx.service" },
		{ "/user.slice/user-1000.slice/user@1000.service/init.scope",
		  "init.scope" },
		/* a name that is only the suffix is no unit */
		{ "/x/.service/sub", "sub" },
		{ "/vmscope-test-1", "vmscope-test-1" },
	};
	size_t i, len;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *u = cgroup_unit(cases[i][0], &len);

		ok(len == strlen(cases[i][1]) &&
			   strncmp(u, cases[i][1], len) == 0,
		   "unit of \"%s\": \"%s\" (got \"%.*s\")", cases[i][0],
		   cases[i][1], (int)len, u);
	}
}

int main(void)
{
	test_proc();
	test_dir();
	test_unit();
	test_self();
	return tap_done();
}
