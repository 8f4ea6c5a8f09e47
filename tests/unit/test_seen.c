/* test_seen — a lean capture given what its caller read of the process
 * first (sampler.h, vms_proc_seen), as vmscope --all's reader ahead
 * gives it (cli/run_all.c): a pidfd, stat's state and name, the task of
 * the address space and an inline reader of its smaps whose first chunk
 * was read on a second thread (readahead_prime).
 *
 * Against tests/targets/manyregions of 3000 regions (its smaps some
 * 3 MB, most of it read by the capture after the first 256 KiB chunk)
 * and of 10 (the whole text in the first chunk):
 *  - the capture with the reader finds the regions the capture without
 *    one finds: the same count, each region's range, permissions and
 *    type, and each anonymous region's Rss (the target writes every
 *    fourth page and then sleeps: its own pages do not change);
 *  - the capture read the rest of the text through the reader (the
 *    descriptor's offset past the first chunk);
 *  - the process's name is stat's, as given;
 *  - the capture closes neither the caller's smaps descriptor nor its
 *    pidfd (each still the file it was), and the caller stops the
 *    reader after it;
 *  - a reader given without the task it reads (mm 0) is left unused:
 *    the capture opens smaps itself.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture/sampler.h"
#include "linux/procfs.h"
#include "linux/readahead.h"
#include "pipeline.h"
#include "tap.h"
#include "target.h"

static void *prime(void *ra)
{
	readahead_prime(ra);
	return NULL;
}

static struct vms_snapshot *lean(pid_t pid, const struct vms_proc_seen *seen)
{
	struct vms_capture_opts co = { .pid = pid, .lean = true, .seen = seen };
	struct vms_error err = { 0 };
	struct vms_snapshot *s = vms_capture(&vms_sampler_pss, &co, &err);

	if (!s)
		printf("# capture of %d: %s\n", (int)pid, err.msg);
	return s;
}

static bool same_regions(const struct vms_snapshot *a,
			 const struct vms_snapshot *b)
{
	size_t i;

	if (a->nregions != b->nregions) {
		printf("# %zu regions, %zu\n", a->nregions, b->nregions);
		return false;
	}
	for (i = 0; i < a->nregions; i++) {
		const struct vms_region *x = &a->regions[i], *y = &b->regions[i];

		if (x->start != y->start || x->end != y->end ||
		    x->perms != y->perms || x->type != y->type ||
		    (!x->path && x->c.rss != y->c.rss)) {
			printf("# region %zu: %llx-%llx, %llx-%llx\n", i,
			     (unsigned long long)x->start,
			     (unsigned long long)x->end,
			     (unsigned long long)y->start,
			     (unsigned long long)y->end);
			return false;
		}
	}
	return true;
}

/* Whether fd is still the file it was (st), not closed and reused. */
static bool same_file(int fd, const struct stat *st)
{
	struct stat now;

	return fd >= 0 && fstat(fd, &now) == 0 && now.st_dev == st->st_dev &&
	       now.st_ino == st->st_ino;
}

static void with_reader(const char *regions)
{
	char *argv[] = { "manyregions", (char *)regions, NULL };
	char line[256], path[64], stat[4096], comm[64];
	struct vms_proc_seen seen = { .comm = comm };
	struct vms_snapshot *alone, *given;
	struct readahead *ra = NULL;
	struct stat fd_st = { 0 }, pidfd_st = { 0 };
	struct target t;
	pthread_t th;
	ssize_t n;
	int fd;

	if (target_start(&t, argv) < 0 || !fgets(line, sizeof(line), t.out) ||
	    strncmp(line, "ready", 5) != 0) {
		ok(0, "manyregions %s started", regions);
		target_stop(&t);
		return;
	}
	seen.pidfd = procfs_pidfd_open(t.pid);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)t.pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, stat, sizeof(stat) - 1) : -1;
	if (fd >= 0)
		close(fd);
	stat[n > 0 ? n : 0] = '\0';
	seen.state = procfs_stat_state(stat, comm, sizeof(comm));
	seen.mm = t.pid;
	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)t.pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		ra = readahead_start_inline(fd);
	ok(ra && pthread_create(&th, NULL, prime, ra) == 0 &&
		   pthread_join(th, NULL) == 0,
	   "manyregions %s: its smaps's first chunk read on a second thread",
	   regions);
	seen.smaps = ra;
	if (fd >= 0)
		fstat(fd, &fd_st);
	if (seen.pidfd >= 0)
		fstat(seen.pidfd, &pidfd_st);
	alone = lean(t.pid, NULL);
	given = ra ? lean(t.pid, &seen) : NULL;
	ok(alone && given && alone->nregions > (size_t)atoi(regions) &&
		   same_regions(alone, given),
	   "manyregions %s: the regions a capture given the reader finds "
	   "(%zu) = a capture's without one (%zu)",
	   regions, given ? given->nregions : 0,
	   alone ? alone->nregions : 0);
	if (atoi(regions) > 1000)
		ok(fd >= 0 && lseek(fd, 0, SEEK_CUR) > 4 * 256 * 1024,
		   "manyregions %s: the capture read the rest of its smaps "
		   "through the reader (the descriptor's offset %lld, past the "
		   "first chunk)",
		   regions, fd >= 0 ? (long long)lseek(fd, 0, SEEK_CUR) : -1LL);
	ok(given && given->proc.name && strcmp(given->proc.name, comm) == 0,
	   "manyregions %s: its name stat's (%s)", regions, comm);
	ok(same_file(fd, &fd_st) &&
		   (seen.pidfd < 0 || same_file(seen.pidfd, &pidfd_st)),
	   "manyregions %s: the caller's smaps descriptor and pidfd left "
	   "open",
	   regions);
	vms_snapshot_free(alone);
	vms_snapshot_free(given);
	readahead_stop(ra);
	if (fd >= 0)
		close(fd);
	if (seen.pidfd >= 0)
		close(seen.pidfd);
	target_stop(&t);
}

/* A reader given without the task it reads (mm 0): the capture finds
 * the task itself and opens smaps itself, the reader left as it was. */
static void without_mm(void)
{
	char *argv[] = { "manyregions", "3000", NULL };
	char line[256], path[64];
	struct vms_proc_seen seen = { .pidfd = -1, .state = 'S', .comm = "x" };
	struct vms_snapshot *s = NULL;
	struct readahead *ra = NULL;
	struct target t;
	off_t first = -1, after = -2;
	int fd = -1;

	if (target_start(&t, argv) == 0 && fgets(line, sizeof(line), t.out) &&
	    strncmp(line, "ready", 5) == 0) {
		snprintf(path, sizeof(path), "/proc/%d/smaps", (int)t.pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && (ra = readahead_start_inline(fd)))
			readahead_prime(ra);
		first = fd >= 0 ? lseek(fd, 0, SEEK_CUR) : -1;
		seen.smaps = ra;
		s = ra ? lean(t.pid, &seen) : NULL;
		after = fd >= 0 ? lseek(fd, 0, SEEK_CUR) : -2;
	}
	ok(s && s->nregions > 3000 && first > 0 && after == first,
	   "a reader given without its task: left unused (its descriptor's "
	   "offset %lld, then %lld), the regions read all the same (%zu)",
	   (long long)first, (long long)after, s ? s->nregions : 0);
	vms_snapshot_free(s);
	readahead_stop(ra);
	if (fd >= 0)
		close(fd);
	target_stop(&t);
}

int main(void)
{
	with_reader("3000");
	without_mm();
	with_reader("10");
	return tap_done();
}
