/* test_readahead — the reader without a thread (linux/readahead.h):
 *  - readahead_start_inline gives a 600 KB file back whole, in order,
 *    chunk by chunk;
 *  - the same with its first chunk read on a second thread
 *    (readahead_prime, as --all's reader ahead does, cli/run_all.c) and
 *    the rest on this one;
 *  - a held reader (readahead_start_held, the pss sampler's before a
 *    freeze): stopped without a release, its thread is joined; released with a
 *    600 KB file (the file given at the release), it gives it back
 *    whole.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/readahead.h"
#include "procself.h"
#include "tap.h"

static void *prime(void *ra)
{
	readahead_prime(ra);
	return NULL;
}

/* A file dir/name of size bytes, want, a pattern of its own (mult),
 * opened for reading from its start; its path in path: its fd, or -1. */
static int made(char *path, size_t n, const char *dir, const char *name,
		char *want, size_t size, size_t mult)
{
	size_t i;
	int fd;

	for (i = 0; i < size; i++)
		want[i] = (char)('a' + (i * mult + i / 4096) % 26);
	snprintf(path, n, "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ok(fd >= 0 && write(fd, want, size) == (ssize_t)size &&
	   lseek(fd, 0, SEEK_SET) == 0,
	   "a 600 KB file made");
	return fd;
}

/* What ra reads, chunk by chunk, into got (at most size bytes): the
 * bytes read. */
static size_t read_whole(struct readahead *ra, char *got, size_t size)
{
	const char *data;
	size_t have = 0;
	ssize_t n;

	while (ra && (n = readahead_next(ra, &data)) > 0) {
		if (have + (size_t)n > size)
			break;
		memcpy(got + have, data, (size_t)n);
		have += (size_t)n;
		readahead_done(ra);
	}
	return have;
}

/* primed: its first chunk read on a second thread (readahead_prime, as
 * --all's reader ahead does), the rest here */
static void test_inline(const char *dir, bool primed)
{
	enum { SIZE = 600 * 1024 };
	char path[512], *want = malloc(SIZE), *got = malloc(SIZE);
	struct readahead *ra;
	size_t have = 0;
	int fd;

	fd = made(path, sizeof(path), dir, "big", want, SIZE, 7);
	ra = readahead_start_inline(fd);
	ok(ra != NULL, "an inline reader");
	if (ra && primed) {
		pthread_t t;

		ok(pthread_create(&t, NULL, prime, ra) == 0 &&
			   pthread_join(t, NULL) == 0,
		   "its first chunk read on a second thread");
	}
	have = read_whole(ra, got, SIZE);
	ok(have == SIZE && memcmp(want, got, SIZE) == 0,
	   "%sthe file back whole, in order (%zu bytes)",
	   primed ? "primed: " : "", have);
	readahead_stop(ra);
	close(fd);
	unlink(path);
	free(want);
	free(got);
}

static void test_held(const char *dir)
{
	enum { SIZE = 600 * 1024 };
	char path[512], *want = malloc(SIZE), *got = malloc(SIZE);
	struct readahead *ra;
	size_t have = 0;
	int fd, base;

	base = proc_count("/proc/self/task");
	ra = readahead_start_held();
	ok(ra != NULL && proc_count("/proc/self/task") == base + 1, "a held reader: its thread");
	readahead_stop(ra);
	ok(proc_count_becomes("/proc/self/task", base, 1000),
	   "stopped without a release: its thread joined (%d, %d before)",
	   proc_count("/proc/self/task"), base);

	fd = made(path, sizeof(path), dir, "held", want, SIZE, 11);
	ra = readahead_start_held();
	readahead_release(ra, fd);
	have = read_whole(ra, got, SIZE);
	ok(have == SIZE && memcmp(want, got, SIZE) == 0,
	   "held, then released: the file back whole, in order (%zu bytes)",
	   have);
	readahead_stop(ra);
	close(fd);
	unlink(path);
	free(want);
	free(got);
}

int main(void)
{
	char dir[] = "/tmp/vmscope-readahead-XXXXXX";

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_inline(dir, false);
	test_inline(dir, true);
	test_held(dir);
	rmdir(dir);
	return tap_done();
}
