/* elf_hostile — a process shaped to make a memory viewer do unbounded work
 * (issue 9), for the bounded-work tests and benchmark.
 *
 *   elf_hostile bomb DIR N     writes DIR/bomb-a.so and DIR/bomb-b.so, ELF
 *                              files with 65,000 allocated sections each
 *                              (4 MB of section headers), and maps their
 *                              first 4 pages N times, alternating, so that
 *                              every mapping is an image of its own whose
 *                              sections all lie inside it
 *   elf_hostile sparse DIR     writes DIR/sparse.so, an 8 GB sparse ELF
 *                              file whose PT_NOTE spans it, maps one page
 *   elf_hostile arenas N       N regions shaped as glibc arena heaps (N/2
 *                              heaps: one rw page + the PROT_NONE rest of
 *                              64 MiB, each with a heap_info header), all
 *                              of one arena
 *   elf_hostile plain N        N ordinary regions (one page each, every
 *                              other read-only), the reference
 *
 * Prints "ready regions=N" and sleeps until killed. The files are left in
 * DIR for the caller to delete.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../unit/elfgen.h"

#define HEAP_MAX (64ul << 20)

static int write_file(const char *path, const unsigned char *b, size_t len,
		      uint64_t size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, b, len) != (ssize_t)len ||
	    (size > len && ftruncate(fd, (off_t)size) < 0)) {
		perror(path);
		return -1;
	}
	return fd;
}

static int bomb(const char *dir, long n)
{
	struct elfgen g = { 0 };
	char path[2][4096];
	int fd[2];
	size_t len;
	unsigned char *b;
	long i;

	g.nsec = 65000;
	b = elfgen_build(&g, &len);
	if (!b)
		return -1;
	for (i = 0; i < 2; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/bomb-%c.so", dir,
			 (int)('a' + i));
		fd[i] = write_file(path[i], b, len, 0);
		if (fd[i] < 0)
			return -1;
	}
	free(b);
	for (i = 0; i < n; i++)
		if (mmap(NULL, 0x4000, PROT_READ, MAP_PRIVATE, fd[i % 2], 0) ==
		    MAP_FAILED) {
			perror("mmap");
			return -1;
		}
	return 0;
}

static int sparse(const char *dir)
{
	unsigned char note[64];
	struct elfgen g = { 0 };
	char path[4096];
	size_t len;
	unsigned char *b;
	int fd;

	g.note = note;
	g.notelen = elfgen_build_id_note(note);
	g.note_end = 8ull << 30; /* the note spans the file */
	b = elfgen_build(&g, &len);
	snprintf(path, sizeof(path), "%s/sparse.so", dir);
	fd = b ? write_file(path, b, len, 8ull << 30) : -1;
	free(b);
	if (fd < 0 ||
	    mmap(NULL, 0x1000, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
		return -1;
	return 0;
}

static int arenas(long n)
{
	uint64_t first = 0, prev = 0;
	long i;

	for (i = 0; i < n / 2; i++) {
		char *raw = mmap(NULL, 2 * HEAP_MAX, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				 -1, 0);
		uintptr_t at;
		uint64_t *h;

		if (raw == MAP_FAILED) {
			perror("mmap");
			return -1;
		}
		at = ((uintptr_t)raw + HEAP_MAX - 1) & ~(HEAP_MAX - 1);
		if (at > (uintptr_t)raw)
			munmap(raw, at - (uintptr_t)raw);
		munmap((char *)at + HEAP_MAX,
		       (uintptr_t)raw + 2 * HEAP_MAX - at - HEAP_MAX);
		if (mprotect((void *)at, 4096, PROT_READ | PROT_WRITE) < 0) {
			perror("mprotect");
			return -1;
		}
		/* heap_info: ar_ptr, prev, size, mprotect_size */
		h = (uint64_t *)at;
		if (!first)
			first = at;
		h[0] = first + 32;
		h[1] = prev;
		h[2] = 4096;
		h[3] = 4096;
		prev = at;
	}
	return 0;
}

static int plain(long n)
{
	long pg = sysconf(_SC_PAGESIZE), i;
	char *p = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	for (i = 0; i < n; i++) {
		p[i * pg] = 1;
		if (i % 2 && mprotect(p + i * pg, (size_t)pg, PROT_READ) < 0)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = 0;
	int rc = -1;

	if (strcmp(mode, "bomb") == 0 && argc > 3) {
		n = strtol(argv[3], NULL, 10);
		rc = bomb(argv[2], n);
	} else if (strcmp(mode, "sparse") == 0 && argc > 2) {
		n = 1;
		rc = sparse(argv[2]);
	} else if (strcmp(mode, "arenas") == 0 && argc > 2) {
		n = strtol(argv[2], NULL, 10);
		rc = arenas(n);
	} else if (strcmp(mode, "plain") == 0 && argc > 2) {
		n = strtol(argv[2], NULL, 10);
		rc = plain(n);
	} else {
		fprintf(stderr, "usage: elf_hostile bomb DIR N | sparse DIR | "
				"arenas N | plain N\n");
		return 2;
	}
	if (rc < 0)
		return 1;
	printf("ready regions=%ld\n", n);
	fflush(stdout);
	for (;;)
		pause();
}
