/* test_elfcache — the run's cache of mapped ELF files (elf/elfcache.h), on
 * files the test makes:
 *  - this test's own executable, read once: found again by the same stat,
 *    the same image (is_image), not found by the stat of another file or
 *    of the same file rewritten in place (another size, or another
 *    mtime alone); 600 files more, each found again as the table grows;
 *  - a text file: kept, not an image;
 *  - symbol answers: none before one is kept; a kept one found again for
 *    the same names, not for other names or an image not the cache's;
 *  - a mapping kept for a file (elfcache_keep_mapped) found again by its
 *    device, inode and path, not by another of any of the three, after
 *    700 more;
 *  - this process's libc asked lists of names (elfcache_defines_in): a
 *    list with a defined name found, the first of them in the table's
 *    order as a walk of the table finds it; a list of names it lacks not
 *    found; names expected before (elfcache_expect) answered by the
 *    file's first read (its descriptor closed after it), where a list
 *    not expected cannot be;
 *  - where names are first defined (elfimage_first_defined) against a
 *    walk of the table, on every ELF file this test maps: each defined
 *    name found at the index of its first defined symbol; each with a
 *    byte changed, and each one's tail (its first byte dropped: the text
 *    ends at a NUL where a symbol's name does), answered as a walk
 *    answers it;
 *  - a copy of libc with a defined name changed in its string table, and
 *    the ELF files fuzz_elf found a look-up disagreeing with the walk in
 *    (tests/fixtures/gnuhash_*.elf, from when the GNU hash table was
 *    asked): each name answered as the walk answers it;
 *  - a table made up (a name defined twice, one undefined then defined,
 *    a defined tail of another name, an undefined one, the table's last
 *    bytes a name without a NUL), with a string table of 4 KiB, of
 *    256 KiB and 0 to 17 bytes (the names across the end of the first
 *    chunk the table is read in), and of 17 MiB: each name as the walk.
 * (The reader without a thread: test_readahead.)
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>
#include <elf.h>

#include "../fixtures/fixture.h"
#include "elf/elfcache.h"
#include "procself.h"
#include "tap.h"

/* A copy of fd to hand to the cache (elfcache_add takes it). */
static int copy_fd(int fd)
{
	return fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

/* How many descriptors this process has open. */
static int open_fds(void)
{
	return proc_count("/proc/self/fd") - 1; /* the directory's own */
}

static void test_cache(const char *dir)
{
	struct elfcache *c = elfcache_new();
	const struct elfimage *im, *txt;
	const char *const libc[] = { "malloc", "free", NULL };
	const char *const other[] = { "malloc", NULL };
	struct elfimage mine = { 0 };
	struct stat st, st2, st3;
	char path[512];
	size_t which = 99;
	int fd;

	ok(c != NULL, "a cache");
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ok(fd >= 0 && fstat(fd, &st) == 0, "this test's executable opened");
	ok(elfcache_find(c, &st) == NULL, "not there before it is read");
	{
		int given = copy_fd(fd), again = copy_fd(fd);

		im = elfcache_add(c, &st, given);
		ok(im && elfcache_fd(c, im) == given,
		   "the descriptor handed over is the one held");
		ok(elfcache_add(c, &st, again) == im &&
			   fcntl(again, F_GETFD) == -1 &&
			   elfcache_fd(c, im) == given,
		   "added again (a file changed since a find): the image "
		   "kept, the descriptor handed over closed");
	}
	close(fd);
	{
		int held = elfcache_fd(c, im), n0 = open_fds();

		elfcache_drop_fds(c);
		ok(held >= 0 && elfcache_fd(c, im) == -1 &&
			   open_fds() == n0 - 1,
		   "its file held open, then let go (elfcache_drop_fds)");
	}
	ok(im && im->is_image && im->nload > 0,
	   "read: an image with its loads");
	ok(elfcache_find(c, &st) == im, "found again by the same stat");

	snprintf(path, sizeof(path), "%s/text", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ok(fd >= 0 && write(fd, "not elf\n", 8) == 8 && fstat(fd, &st2) == 0,
	   "a text file made");
	ok(elfcache_find(c, &st2) == NULL, "another file: not found");
	txt = elfcache_add(c, &st2, copy_fd(fd));
	ok(txt && !txt->is_image, "a text file: kept, not an image");
	ok(elfcache_find(c, &st2) == txt, "the text file found again");
	/* rewritten in place: same inode, another size and mtime */
	ok(pwrite(fd, "still not elf\n", 14, 0) == 14 &&
	   fstat(fd, &st3) == 0 && st3.st_ino == st2.st_ino,
	   "the text file rewritten in place");
	ok(elfcache_find(c, &st3) == NULL,
	   "rewritten in place (another size): not found");
	st3 = st2;
	st3.st_mtim.tv_sec++;
	ok(elfcache_find(c, &st3) == NULL, "another mtime alone: not found");
	{
		/* past the first table's slots: all found again after it
		 * grew, none taken for another */
		const struct elfimage *v[600];
		size_t i, bad = 0;

		for (i = 0; i < 600; i++) {
			st3 = st2;
			st3.st_ino = st2.st_ino + 1000 + i;
			v[i] = elfcache_add(c, &st3, copy_fd(fd));
			bad += v[i] == NULL;
		}
		for (i = 0; i < 600; i++) {
			st3 = st2;
			st3.st_ino = st2.st_ino + 1000 + i;
			bad += elfcache_find(c, &st3) != v[i];
		}
		ok(bad == 0 && elfcache_find(c, &st) == im,
		   "600 more files: each found again, the first still");
	}
	close(fd);

	ok(elfcache_defines(c, im, libc, &which) == -1,
	   "no answer before one is kept");
	elfcache_defines_keep(c, im, libc, 1, 1);
	ok(elfcache_defines(c, im, libc, &which) == 1 && which == 1,
	   "the answer kept: defines, the second name");
	ok(elfcache_defines(c, im, other, &which) == -1,
	   "other names: no answer");
	elfcache_defines_keep(c, im, other, 0, 0);
	ok(elfcache_defines(c, im, other, &which) == 0,
	   "a 'does not define' kept too");
	ok(elfcache_defines(c, im, libc, &which) == 1,
	   "the first answer still there");
	ok(elfcache_defines(c, &mine, libc, &which) == -1,
	   "an image not the cache's: no answer");
	elfcache_defines_keep(c, &mine, libc, 1, 0);
	ok(elfcache_defines(c, &mine, libc, &which) == -1,
	   "an image not the cache's: nothing kept");
	ok(elfcache_defines(NULL, im, libc, &which) == -1,
	   "no cache: no answer");

	/* the mappings kept for a file found (elfcache_keep_mapped) */
	ok(elfcache_find_mapped(c, 8, 1, 42, "/usr/lib/x.so") == NULL,
	   "a mapping not kept: not found");
	elfcache_keep_mapped(c, 8, 1, 42, "/usr/lib/x.so", im);
	ok(elfcache_find_mapped(c, 8, 1, 42, "/usr/lib/x.so") == im,
	   "a mapping kept: found by its device, inode and path");
	ok(!elfcache_find_mapped(c, 8, 1, 43, "/usr/lib/x.so") &&
		   !elfcache_find_mapped(c, 8, 2, 42, "/usr/lib/x.so") &&
		   !elfcache_find_mapped(c, 9, 1, 42, "/usr/lib/x.so") &&
		   !elfcache_find_mapped(c, 8, 1, 42, "/usr/lib/y.so") &&
		   !elfcache_find_mapped(c, 8, 1, 42, "/usr/lib/x.s"),
	   "another inode, device or path: not found");
	{
		char name[64];
		size_t i, bad = 0;

		for (i = 0; i < 700; i++) {
			snprintf(name, sizeof(name), "/lib/%zu.so", i);
			elfcache_keep_mapped(c, 8, 1, 1000 + i, name, txt);
		}
		for (i = 0; i < 700; i++) {
			snprintf(name, sizeof(name), "/lib/%zu.so", i);
			bad += elfcache_find_mapped(c, 8, 1, 1000 + i, name) !=
			       txt;
		}
		ok(bad == 0 && elfcache_find_mapped(c, 8, 1, 42,
						    "/usr/lib/x.so") == im,
		   "700 more mappings: each found again, the first still");
	}
	ok(elfcache_find_mapped(NULL, 8, 1, 42, "/usr/lib/x.so") == NULL,
	   "no cache: no mapping");
	unlink(path);
	elfcache_free(c);
}

/* The first symbol of the table that is one of names (a walk's answer). */
struct first {
	const char *const *names;
	size_t which;
	bool found;
	uint64_t at, idx; /* the walk's symbol; the one found */
};

static int first_of(void *ctx, const struct elfimage_sym *y)
{
	struct first *f = ctx;
	uint64_t i = f->at++;
	size_t k;

	if (y->shndx == 0)
		return 0;
	for (k = 0; f->names[k]; k++)
		if (strcmp(y->name, f->names[k]) == 0) {
			f->which = k;
			f->found = true;
			f->idx = i;
			return 1;
		}
	return 0;
}

/* libc's path, from this process's maps ("" when not found). */
static void libc_path(char path[4096])
{
	char line[4096];
	FILE *maps = fopen("/proc/self/maps", "r");

	path[0] = '\0';
	while (maps && fgets(line, sizeof(line), maps))
		if (strstr(line, "/libc.so.6") && !path[0])
			sscanf(line, "%*s %*s %*s %*s %*s %4095s", path);
	if (maps)
		fclose(maps);
}

/* Names expected (elfcache_expect) are answered by the file's first
 * read: its descriptor closed after the first list, a later list with
 * them is still answered, where one not expected cannot be (the
 * control). */
static void test_expect(void)
{
	const char *const first[] = { "malloc", NULL };
	const char *const later[] = { "vmscope_no_such_symbol", "calloc",
				      NULL };
	char path[4096];
	int round;

	libc_path(path);
	for (round = 0; round < 2; round++) {
		bool expect = round == 0;
		struct elfcache *c = elfcache_new();
		const struct elfimage *im = NULL;
		struct elfimage_src src;
		struct vms_error e;
		struct stat st;
		size_t which = 99;
		int fd = path[0] ? open(path, O_RDONLY | O_CLOEXEC) : -1, rc;

		if (fd >= 0 && fstat(fd, &st) == 0 &&
		    elfimage_src_fd(fd, &src, &e) == 0)
			im = elfcache_add(c, &st, copy_fd(fd));
		if (expect) {
			elfcache_expect(c, first);
			elfcache_expect(c, later);
		}
		ok(im && elfcache_defines_in(c, im, &src, first, &which) == 1,
		   "%s: libc defines malloc", expect ? "expected" : "control");
		if (fd >= 0)
			close(fd); /* src's reads fail from here */
		rc = im ? elfcache_defines_in(c, im, &src, later, &which) : -2;
		if (expect)
			ok(rc == 1 && which == 1,
			   "names expected: a later list answered by the first "
			   "read (calloc found, the file closed since)");
		else
			ok(rc != 1, "control: a list not expected asks the "
				    "closed file, which cannot answer (%d)",
			   rc);
		elfcache_free(c);
	}
}

static void test_symset(void)
{
	const char *const some[] = { "vmscope_no_such_symbol", "free",
				     "malloc", "calloc", NULL };
	const char *const none[] = { "vmscope_no_such_symbol", NULL };
	const char *const empty[] = { "", NULL };
	struct elfcache *c = elfcache_new();
	const struct elfimage *im = NULL;
	struct elfimage_src src;
	struct vms_error e;
	struct first f = { some, 0, false, 0, 0 };
	char path[4096];
	struct stat st;
	size_t which = 99;
	int fd = -1;

	libc_path(path);
	if (path[0])
		fd = open(path, O_RDONLY | O_CLOEXEC);
	ok(fd >= 0 && fstat(fd, &st) == 0 && elfimage_src_fd(fd, &src, &e) == 0,
	   "this process's libc opened (%s)", path);
	if (fd >= 0)
		im = elfcache_add(c, &st, copy_fd(fd));
	ok(im && im->is_image, "libc read into the cache");
	if (im) {
		elfimage_symbols(im, &src, first_of, &f);
		ok(elfcache_defines_in(c, im, &src, some, &which) == 1 &&
		   f.found && which == f.which,
		   "defined names found, the first in the table's order (%s)",
		   some[which < 4 ? which : 0]);
		ok(elfcache_defines_in(c, im, &src, none, &which) == 0,
		   "a name it lacks: not found");
		ok(elfcache_defines_in(c, im, &src, empty, &which) == -1 &&
			   elfcache_defines_in(c, im, &src, some, &which) ==
				   1 &&
			   which == f.which,
		   "an empty name not answered (the caller walks), the "
		   "answers after it as before");
	}
	if (fd >= 0)
		close(fd);
	elfcache_free(c);
}

/* The defined names of a table with their symbols' indexes, as a walk
 * meets them. */
struct named {
	char *name;
	uint64_t idx;
};

struct names {
	struct named *v;
	size_t n, cap;
	uint64_t at;
	bool oom;
};

static int collect(void *ctx, const struct elfimage_sym *y)
{
	struct names *v = ctx;
	uint64_t idx = v->at++;

	if (y->shndx == 0 || !y->name[0])
		return 0;
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 256;
		struct named *nv = realloc(v->v, cap * sizeof(*nv));

		if (!nv) {
			v->oom = true;
			return 1;
		}
		v->v = nv;
		v->cap = cap;
	}
	if (!(v->v[v->n].name = strdup(y->name))) {
		v->oom = true;
		return 1;
	}
	v->v[v->n++].idx = idx;
	return 0;
}

/* By name, then index: the first of a name is the walk's answer. */
static int by_name(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* The names of v (sorted by by_name, each name's first its walk's
 * answer) asked of elfimage_first_defined, ELFIMAGE_MAX_FIND at a time:
 * how many are answered otherwise than the walk (*asked: how many were
 * asked); then each with its first byte changed to one no C name starts
 * with, or its first byte dropped (the tail of a name a symbol points to
 * ends where that name does, and is no symbol's unless the walk finds
 * one), against a walk of each: *absent the ones answered otherwise. -1
 * when it cannot answer. */
static long first_vs_walk(const struct elfimage *im,
			  const struct elfimage_src *src, struct names *v,
			  size_t *asked, size_t *absent)
{
	const char *batch[ELFIMAGE_MAX_FIND];
	uint64_t want[ELFIMAGE_MAX_FIND], got[ELFIMAGE_MAX_FIND];
	size_t k, n = 0, pass;
	long bad = 0;

	*asked = *absent = 0;
	for (pass = 0; pass < 2; pass++)
		for (k = 0; k <= v->n; k++) {
			size_t b;

			if (k < v->n) {
				char *m = v->v[k].name;

				if (pass == 0 && k &&
				    strcmp(v->v[k - 1].name, m) == 0)
					continue; /* another version of it */
				batch[n] = m;
				want[n++] = v->v[k].idx + 1;
				if (pass == 0)
					(*asked)++;
			}
			if (n < ELFIMAGE_MAX_FIND && k < v->n)
				continue;
			if (n && elfimage_first_defined(im, src, batch, n,
							got) < 0)
				return -1;
			for (b = 0; b < n; b++) {
				struct first f = { NULL, 0, false, 0, 0 };
				const char *one[2] = { batch[b], NULL };

				if (pass == 0) {
					bad += got[b] != want[b];
					continue;
				}
				/* the walk's own answer for a changed name */
				f.names = one;
				elfimage_symbols(im, src, first_of, &f);
				*absent += got[b] != (f.found ? f.idx + 1 : 0);
			}
			n = 0;
			if (pass == 0 && k == v->n)
				for (b = 0; b < v->n; b++) {
					char *m = v->v[b].name;
					size_t len = strlen(m);

					if (b % 2 || len < 2)
						m[0] = '~';
					else /* its tail: "alloc" of "malloc" */
						memmove(m, m + 1, len);
				}
		}
	return bad;
}

static void test_first(void)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[4096], path[4096], seen[16][4096];
	size_t nseen = 0, files = 0, names = 0, absent = 0;
	long bad = 0;

	while (maps && fgets(line, sizeof(line), maps) && nseen < 16) {
		struct arena a;
		struct elfimage im;
		struct elfimage_src src;
		struct names v = { 0 };
		struct vms_error e;
		size_t k, asked, abs;
		long got;
		int fd;

		path[0] = '\0';
		sscanf(line, "%*s %*s %*s %*s %*s %4095s", path);
		if (path[0] != '/')
			continue;
		for (k = 0; k < nseen && strcmp(seen[k], path) != 0; k++)
			;
		if (k < nseen)
			continue;
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", path);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		arena_init(&a);
		if (elfimage_src_fd(fd, &src, &e) == 0 &&
		    elfimage_read(&src, &a, &im, &e) == 0 && im.is_image &&
		    elfimage_symbols(&im, &src, collect, &v) >= 0 && !v.oom &&
		    v.n) {
			files++;
			qsort(v.v, v.n, sizeof(*v.v), by_name);
			got = first_vs_walk(&im, &src, &v, &asked, &abs);
			if (got != 0)
				printf("# %s: %ld of %zu names otherwise\n",
				       path, got, asked);
			bad += got != 0;
			names += asked;
			absent += abs;
		}
		for (k = 0; k < v.n; k++)
			free(v.v[k].name);
		free(v.v);
		arena_fini(&a);
		close(fd);
	}
	if (maps)
		fclose(maps);
	ok(files >= 2 && names > 1000,
	   "where names are first defined, asked of %zu files (%zu defined "
	   "names)",
	   files, names);
	ok(bad == 0, "each name found where a walk finds it (%ld files not)",
	   bad);
	ok(absent == 0,
	   "names changed, and their tails, answered as a walk answers them "
	   "(%zu not)",
	   absent);
}

/* An ELF file in memory (len bytes at buf): -1 when it is no image or
 * elfimage_first_defined cannot answer, else how many of its defined
 * names (*names: those asked), and of them changed, are answered
 * otherwise than the walk. */
static long file_vs_walk(const void *buf, size_t len, size_t *names)
{
	struct elfimage_src src = elfimage_src_buf(buf, len, false);
	struct names v = { 0 };
	struct elfimage im;
	struct vms_error e;
	struct arena a;
	long bad = -1;
	size_t k, absent = 0;

	*names = 0;
	arena_init(&a);
	if (elfimage_read(&src, &a, &im, &e) == 0 &&
	    elfimage_symbols(&im, &src, collect, &v) >= 0 && !v.oom) {
		qsort(v.v, v.n, sizeof(*v.v), by_name);
		bad = first_vs_walk(&im, &src, &v, names, &absent);
		if (bad >= 0)
			bad += (long)absent;
	}
	for (k = 0; k < v.n; k++)
		free(v.v[k].name);
	free(v.v);
	arena_fini(&a);
	return bad;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) &&
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	*len = buf ? (size_t)n : 0;
	return buf;
}

/* The name of libc's last defined dynamic symbol changed to one the hash
 * table does not hold there. */
static bool rename_last(char *buf, size_t len)
{
	struct elfimage_src src = elfimage_src_buf(buf, len, false);
	struct elfimage im;
	struct vms_error e;
	struct arena a;
	bool done = false;
	uint64_t i, n;

	arena_init(&a);
	if (elfimage_read(&src, &a, &im, &e) == 0 &&
	    im.elfclass == ELFCLASS64 &&
	    im.dynsym.entsize == sizeof(Elf64_Sym) &&
	    im.dynsym.off + im.dynsym.size <= len)
		for (n = im.dynsym.size / sizeof(Elf64_Sym), i = n; i-- > 1;) {
			Elf64_Sym y;

			memcpy(&y, buf + im.dynsym.off + i * sizeof(y),
			       sizeof(y));
			if (y.st_shndx == SHN_UNDEF || !y.st_name ||
			    y.st_name >= im.dynstr.size ||
			    im.dynstr.off + y.st_name >= len ||
			    !buf[im.dynstr.off + y.st_name])
				continue;
			buf[im.dynstr.off + y.st_name] = '~';
			done = true;
			break;
		}
	arena_fini(&a);
	return done;
}

static void test_first_damaged(void)
{
	char line[4096], path[4096] = "", *buf;
	size_t len = 0, names = 0, files = 0, bad = 0;
	FILE *maps = fopen("/proc/self/maps", "r");
	struct dirent *d;
	DIR *dir;
	long got;

	while (maps && fgets(line, sizeof(line), maps))
		if (strstr(line, "/libc.so.6") && !path[0])
			sscanf(line, "%*s %*s %*s %*s %*s %4095s", path);
	if (maps)
		fclose(maps);
	buf = path[0] ? slurp(path, &len) : NULL;
	ok(buf && rename_last(buf, len), "a copy of libc, a defined name of "
					 "it changed");
	got = buf ? file_vs_walk(buf, len, &names) : -1;
	ok(got == 0 && names > 1000,
	   "each name of it answered as the walk (%ld differ, %zu names)",
	   got, names);
	free(buf);

	dir = opendir(fixture_dir());
	while (dir && (d = readdir(dir))) {
		char fp[8192];

		if (strncmp(d->d_name, "gnuhash_", 8) != 0)
			continue;
		snprintf(fp, sizeof(fp), "%s/%s", fixture_dir(), d->d_name);
		buf = slurp(fp, &len);
		files += buf != NULL;
		got = buf ? file_vs_walk(buf, len, &names) : 0;
		if (got != 0 && bad++ < 5)
			printf("# %s: %ld names differ\n", d->d_name, got);
		free(buf);
	}
	if (dir)
		closedir(dir);
	ok(files >= 1 && bad == 0,
	   "fuzz_elf's findings: each name as the walk (%zu files, %zu "
	   "differ)",
	   files, bad);
}

/* A table made up (strtab bytes of string table, the names at its end:
 * "alpha" defined at 5 and 9, "beta" undefined at 3 and defined at 7,
 * "pha" (alpha's tail) defined at 11, "ta" (beta's tail) undefined only,
 * "omega" the table's last bytes, no NUL after them, defined at 13),
 * asked names against a walk's answers: how many differ; -1 when it
 * cannot be made or answered. Below 16 MiB the string table is read
 * whole, past it the walk answers (elfimage_first_defined). */
static long made_up(size_t strtab, size_t cut, size_t after)
{
	enum { NSYM = 16 };
	static const char *const ask[] = { "alpha", "beta", "pha", "ta",
					   "omega", "gamma", "lpha",
					   "alph" };
	size_t symoff = 64, stroff = symoff + NSYM * sizeof(Elf64_Sym), k;
	size_t len = stroff + strtab + after; /* after: bytes past it */
	unsigned char *b = calloc(1, len);
	struct elfimage im = { 0 };
	struct elfimage_src src;
	uint64_t got[8];
	Elf64_Sym y[NSYM];
	uint64_t a, be, om;
	long bad = 0;

	if (!b || strtab < 64)
		return -1;
	memset(b + stroff, 'x', strtab + after);
	for (k = 1; k < strtab; k += 61) /* strings of filler */
		b[stroff + k] = '\0';
	/* "...\0alpha\0beta\0omega" at the end of the table */
	om = strtab - 5;
	memcpy(b + stroff + om, "omega", 5);
	be = om - 5;
	memcpy(b + stroff + be, "beta", 5);
	a = be - 6;
	memcpy(b + stroff + a, "alpha", 6);
	b[stroff + a - 1] = '\0';
	memset(y, 0, sizeof(y));
	for (k = 1; k < NSYM; k++) { /* defined filler names */
		y[k].st_name = 1 + 61 * (uint32_t)k;
		y[k].st_shndx = 1;
	}
	y[5].st_name = y[9].st_name = (uint32_t)a;
	y[3].st_name = y[7].st_name = (uint32_t)be;
	y[3].st_shndx = SHN_UNDEF;
	y[11].st_name = (uint32_t)a + 2;
	y[12].st_name = (uint32_t)be + 2;
	y[12].st_shndx = SHN_UNDEF;
	y[13].st_name = (uint32_t)om;
	memcpy(b + symoff, y, sizeof(y));
	im.elfclass = ELFCLASS64;
	im.dynsym = (struct elfimage_table){ symoff, sizeof(y),
					      sizeof(Elf64_Sym) };
	im.dynstr = (struct elfimage_table){ stroff, strtab, 1 };
	/* cut: the file ends that many bytes before its table does (a
	 * short read of it, for the walk too) */
	src = elfimage_src_buf(b, len - cut, false);
	if (elfimage_first_defined(&im, &src, ask, 8, got) < 0) {
		free(b);
		return -1;
	}
	for (k = 0; k < 8; k++) {
		const char *one[2] = { ask[k], NULL };
		struct first f = { one, 0, false, 0, 0 };

		elfimage_symbols(&im, &src, first_of, &f);
		if (got[k] != (f.found ? f.idx + 1 : 0)) {
			printf("# %zu bytes: %s at %llu, the walk %llu\n",
			       strtab, ask[k], (unsigned long long)got[k],
			       (unsigned long long)(f.found ? f.idx + 1 : 0));
			bad++;
		}
	}
	if (!cut)
		bad += got[0] != 6 || got[1] != 8 || got[2] != 12 ||
		       got[3] != 0 || got[5] != 0;
	free(b);
	return bad;
}

static void test_made_up(void)
{
	size_t size;
	long bad = 0;

	ok(made_up(4096, 0, 0) == 0,
	   "a table made up, its string table read in one chunk: each name "
	   "as the walk answers it");
	for (size = 0; size <= 12; size++)
		bad += made_up(4096, size, 0) != 0;
	ok(bad == 0, "the same, the file ending 0 to 12 bytes before its "
		     "table does (a short read, its last names cut): each "
		     "name as the walk answers it");
	bad = 0;
	/* its last 17 bytes ("\0alpha\0beta\0omega") across the end of the
	 * first chunk (256 KiB) at each of their bytes */
	for (size = 256 * 1024; size <= 256 * 1024 + 17; size++)
		bad += made_up(size, 0, 0) != 0;
	ok(bad == 0, "the same, its names across the end of the first "
		     "256 KiB chunk at each of their bytes: each name as the "
		     "walk answers it");
	ok(made_up((17u << 20) + 13, 0, 0) == 0 &&
		   made_up((17u << 20) + 13, 3, 0) == 0 &&
		   made_up((17u << 20) + 13, 0, 40) == 0,
	   "the same past 16 MiB (which the walk reads name by name), its "
	   "last name cut by a short read, and with bytes past the table "
	   "(its last name without a NUL ends at the table's end): each "
	   "name as the walk answers it");
}

/* A string table of no bytes: no name is any symbol's, as the walk has
 * it (every name ""). */
static void test_empty_table(void)
{
	static const char *const ask[] = { "malloc", "a" };
	Elf64_Sym y[4];
	struct elfimage im = { 0 };
	struct elfimage_src src;
	uint64_t got[2] = { 7, 7 };
	size_t k;

	memset(y, 0, sizeof(y));
	for (k = 1; k < 4; k++) {
		y[k].st_name = (uint32_t)k;
		y[k].st_shndx = 1;
	}
	im.elfclass = ELFCLASS64;
	im.dynsym = (struct elfimage_table){ 0, sizeof(y), sizeof(Elf64_Sym) };
	im.dynstr = (struct elfimage_table){ sizeof(y), 0, 1 };
	src = elfimage_src_buf((const unsigned char *)y, sizeof(y), false);
	ok(elfimage_first_defined(&im, &src, ask, 2, got) == 0 &&
		   got[0] == 0 && got[1] == 0,
	   "a string table of no bytes: no name found");
}

int main(void)
{
	char dir[] = "/tmp/vmscope-elfcache-XXXXXX";

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_cache(dir);
	test_symset();
	test_expect();
	test_first();
	test_first_damaged();
	test_made_up();
	test_empty_table();
	rmdir(dir);
	return tap_done();
}
