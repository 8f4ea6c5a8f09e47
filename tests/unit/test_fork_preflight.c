/* test_fork_preflight — the fork sampler's memory cgroup and overcommit
 * checks on made-up cgroup trees (v2, v1, hybrid) and meminfo texts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/ptrace/fork_preflight.h"
#include "tap.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static bool headroom(const char *text, uint64_t *room, char *cg)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", text);
	return fork_cgroup_headroom(buf, root, room, cg, 512);
}

int main(void)
{
	char cg[512], want[512], cmd[300];
	uint64_t room = 0;

	snprintf(root, sizeof(root), "/tmp/vms_preflight_XXXXXX");
	if (!mkdtemp(root)) {
		ok(0, "temporary directory");
		return tap_done();
	}
	/* v2: the leaf has no limit, its parent is nearly full. */
	put("svc/app/memory.max", "max\n");
	put("svc/app/memory.current", "100\n");
	put("svc/memory.max", "1000\n");
	put("svc/memory.current", "900\n");
	ok(headroom("0::/svc/app\n", &room, cg) && room == 100,
	   "v2: the tightest level up the tree gives the headroom (%llu)",
	   (unsigned long long)room);
	snprintf(want, sizeof(want), "%s/svc", root);
	ok(strcmp(cg, want) == 0, "v2: and names that cgroup (%s)", cg);
	put("svc/memory.current", "1200\n");
	ok(headroom("0::/svc/app\n", &room, cg) && room == 0,
	   "v2: usage over the limit is no headroom");
	ok(!headroom("0::/\n", &room, cg), "v2: the root cgroup has no limit");
	ok(!headroom("0::/nowhere\n", &room, cg),
	   "v2: a cgroup whose files are missing reads as no limit");

	/* v1 (and the unified line of a hybrid system beside it). */
	put("memory/job/memory.limit_in_bytes", "5000\n");
	put("memory/job/memory.usage_in_bytes", "1000\n");
	put("memory/memory.limit_in_bytes", "9223372036854771712\n");
	ok(headroom("12:pids:/job\n4:cpu,memory:/job\n0::/\n", &room, cg) &&
		   room == 4000,
	   "v1: memory controller line, limit - usage (%llu)",
	   (unsigned long long)room);
	ok(!headroom("4:memory:/\n0::/\n", &room, cg),
	   "v1: an unlimited root is no limit");

	ok(fork_commit_room("2\n", "CommitLimit:    1000 kB\nCommitted_AS:    "
				   "400 kB\n",
			    60, &room) &&
		   room == 600 * 1024,
	   "strict overcommit: CommitLimit - Committed_AS");
	ok(fork_commit_room("2\n", "CommitLimit: 1 kB\nCommitted_AS: 5 kB\n",
			    37, &room) &&
		   room == 0,
	   "strict overcommit: over the limit is no room");
	ok(!fork_commit_room("0\n", "CommitLimit: 1 kB\n", 18, &room),
	   "heuristic overcommit: no commit check");

	{
		/* fdinfo of a userfaultfd as Linux 6.18 shows it */
		static const char fork_ev[] =
			"pos:\t0\nflags:\t02004000\nmnt_id:\t17\n"
			"ino:\t205363\npending:\t0\ntotal:\t0\n"
			"API:\taa:80000002:80000000000001ff\n";
		static const char no_ev[] = "pending:\t0\ntotal:\t3\n"
					    "API:\taa:80000000:1ff\n";
		uint64_t feat = 0;

		ok(fork_uffd_features(fork_ev, sizeof(fork_ev) - 1, &feat) &&
			   (feat & FORK_UFFD_EVENT_FORK),
		   "userfaultfd fdinfo: fork events read (%llx)",
		   (unsigned long long)feat);
		ok(fork_uffd_features(no_ev, sizeof(no_ev) - 1, &feat) &&
			   !(feat & FORK_UFFD_EVENT_FORK),
		   "userfaultfd fdinfo: no fork events");
		ok(!fork_uffd_features("pos:\t0\nAPI:\taa\n", 15, &feat) &&
			   !fork_uffd_features("pos:\t0\n", 7, &feat),
		   "userfaultfd fdinfo: no API line, or a malformed one");
	}

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		ok(0, "temporary directory removed");
	return tap_done();
}
