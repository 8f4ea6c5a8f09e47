/* observer — loads the libraries named on its command line, touches every
 * page of every file it maps, prints "ready" and stops itself (SIGSTOP).
 * tests/live/test_observer.py gives it vmscope's own libraries: their pages
 * are then resident in this process, and would read Shared while a vmscope
 * that maps the same files looks at it.
 *
 *   observer LIB...
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char line[4096];
	volatile unsigned long sum = 0;
	FILE *f;
	int i;

	for (i = 1; i < argc; i++)
		if (!dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL)) {
			fprintf(stderr, "observer: %s\n", dlerror());
			return 1;
		}
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b, p;
		char perms[5];

		if (sscanf(line, "%lx-%lx %4s", &a, &b, perms) != 3 ||
		    perms[0] != 'r' || !strchr(line, '/'))
			continue;
		for (p = a; p < b; p += 4096)
			sum += *(volatile unsigned char *)p;
	}
	fclose(f);
	printf("ready\n");
	fflush(stdout);
	raise(SIGSTOP);
	for (;;)
		pause();
}
