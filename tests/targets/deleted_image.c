/* deleted_image — maps a copy of a shared library, then deletes the file.
 *
 * argv[1]: a shared library to copy (e.g. libm.so.6's path). The copy is
 * mapped the way the loader would (dlopen), unlinked, and the target prints
 * "ready lib=PATH base=0xADDR" and waits. vmscope must still see an image:
 * through /proc/PID/map_files when it may (root), or mark it
 * image_unopened when it may not. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[] = "/tmp/vmscope-deleted-XXXXXX.so";
	char buf[65536];
	struct link_map *lm;
	void *h;
	ssize_t n;
	int in, out;

	if (argc < 2)
		return 2;
	in = open(argv[1], O_RDONLY);
	out = mkstemps(path, 3);
	if (in < 0 || out < 0)
		return 3;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return 4;
	close(in);
	close(out);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0)
		return 5;
	unlink(path);
	printf("ready lib=%s base=%#lx\n", path, (unsigned long)lm->l_addr);
	fflush(stdout);
	pause();
	return 0;
}
