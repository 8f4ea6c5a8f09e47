/* procself.h — what a unit test counts of its own process in /proc: the
 * entries of a directory such as /proc/self/task (its threads) or
 * /proc/self/fd (its descriptors, the count's own among them), and a
 * bounded poll until that count is what it should be (a thread joined may
 * stay listed a moment: its tid cleared at its exit, before it is
 * reaped). Tests poll for it, never sleep for it. */
#ifndef VMS_TEST_PROCSELF_H
#define VMS_TEST_PROCSELF_H

#include <dirent.h>
#include <stdbool.h>
#include <time.h>

/* The entries of dir but "." and "..", or -1 when it cannot be read. */
static inline int proc_count(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Polls every 5 ms, tries times at most, until dir has want entries:
 * whether it came to that. */
static inline bool proc_count_becomes(const char *dir, int want, int tries)
{
	struct timespec ts = { 0, 5000000 };
	int i;

	for (i = 0; i < tries && proc_count(dir) != want; i++)
		nanosleep(&ts, NULL);
	return proc_count(dir) == want;
}

#endif
