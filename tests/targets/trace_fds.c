/* trace_fds — the descriptors a traced program sees
 * (tests/live/test_trace_fds.py).
 *
 * argv[1]:
 *   launch  allocates and frees (calls the tracer records), then prints
 *           "fds LIST" (its open descriptors, ascending, but the
 *           directory's it lists them with) and "next N" (the number
 *           open() gives it now), and exits
 *   wait    prints "ready", then for each stdin line "fds" prints the
 *           same two lines, allocating between; "q" exits
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void show(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int fds[4096], n = 0, i, fd;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d) &&
		    n < 4096)
			fds[n++] = atoi(e->d_name);
	if (d)
		closedir(d);
	for (i = 1; i < n; i++) { /* ascending */
		int v = fds[i], j = i;

		while (j > 0 && fds[j - 1] > v) {
			fds[j] = fds[j - 1];
			j--;
		}
		fds[j] = v;
	}
	printf("fds");
	for (i = 0; i < n; i++)
		printf("%s%d", i ? "," : " ", fds[i]);
	fd = open("/dev/null", O_RDONLY);
	printf("\nnext %d\n", fd);
	if (fd >= 0)
		close(fd);
	fflush(stdout);
}

static void churn(void)
{
	int i;

	for (i = 0; i < 100; i++) {
		char *volatile p = malloc(64 + (size_t)i);

		if (p)
			p[0] = 1;
		free(p);
	}
}

int main(int argc, char **argv)
{
	char line[64];

	if (argc > 1 && strcmp(argv[1], "launch") == 0) {
		churn();
		show();
		return 0;
	}
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (line[0] == 'q')
			break;
		churn();
		show();
	}
	return 0;
}
