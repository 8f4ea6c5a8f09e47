/* test_elfcache — the run's cache of mapped ELF files (elf/elfcache.h) and
 * the reader without a thread (linux/readahead.h, readahead_start_inline),
 * on files the test makes:
 *  - this test's own executable, read once: found again by the same stat,
 *    the same image (is_image), not found by the stat of another file or
 *    of the same file rewritten in place (another size, or another
 *    mtime alone); 600 files more, each found again as the table grows;
 *  - a text file: kept, not an image;
 *  - symbol answers: none before one is kept; a kept one found again for
 *    the same names, not for other names or an image not the cache's;
 *  - the symbol set of this process's libc (elfcache_defines_in): a list
 *    with a defined name found, the first of them in the table's order as
 *    a walk of the table finds it; a list of names it lacks not found;
 *  - the GNU hash look-up (elfimage_gnuhash_find) against a walk of the
 *    table, name by name, on every ELF file this test maps: each defined
 *    name found at the index of its first defined symbol, and names not
 *    there (each defined name with a byte changed) not found;
 *  - readahead_start_inline gives a 600 KB file back whole, in order.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elfcache.h"
#include "linux/readahead.h"
#include "tap.h"

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
	im = elfcache_add(c, &st, fd);
	close(fd);
	ok(im && im->is_image && im->nload > 0,
	   "read: an image with its loads");
	ok(elfcache_find(c, &st) == im, "found again by the same stat");

	snprintf(path, sizeof(path), "%s/text", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ok(fd >= 0 && write(fd, "not elf\n", 8) == 8 && fstat(fd, &st2) == 0,
	   "a text file made");
	ok(elfcache_find(c, &st2) == NULL, "another file: not found");
	txt = elfcache_add(c, &st2, fd);
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
			v[i] = elfcache_add(c, &st3, fd);
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
	unlink(path);
	elfcache_free(c);
}

/* The first symbol of the table that is one of names (a walk's answer). */
struct first {
	const char *const *names;
	size_t which;
	bool found;
};

static int first_of(void *ctx, const struct elfimage_sym *y)
{
	struct first *f = ctx;
	size_t k;

	if (y->shndx == 0)
		return 0;
	for (k = 0; f->names[k]; k++)
		if (strcmp(y->name, f->names[k]) == 0) {
			f->which = k;
			f->found = true;
			return 1;
		}
	return 0;
}

static void test_symset(void)
{
	const char *const some[] = { "vmscope_no_such_symbol", "free",
				     "malloc", "calloc", NULL };
	const char *const none[] = { "vmscope_no_such_symbol", NULL };
	struct elfcache *c = elfcache_new();
	const struct elfimage *im = NULL;
	struct elfimage_src src;
	struct vms_error e;
	struct first f = { some, 0, false };
	char line[4096], path[4096] = "";
	struct stat st;
	size_t which = 99;
	FILE *maps = fopen("/proc/self/maps", "r");
	int fd = -1;

	while (maps && fgets(line, sizeof(line), maps))
		if (strstr(line, "/libc.so.6") && !path[0])
			sscanf(line, "%*s %*s %*s %*s %*s %4095s", path);
	if (maps)
		fclose(maps);
	if (path[0])
		fd = open(path, O_RDONLY | O_CLOEXEC);
	ok(fd >= 0 && fstat(fd, &st) == 0 && elfimage_src_fd(fd, &src, &e) == 0,
	   "this process's libc opened (%s)", path);
	if (fd >= 0)
		im = elfcache_add(c, &st, fd);
	ok(im && im->is_image, "libc read into the cache");
	if (im) {
		elfimage_symbols(im, &src, first_of, &f);
		ok(elfcache_defines_in(c, im, &src, some, &which) == 1 &&
		   f.found && which == f.which,
		   "defined names found, the first in the table's order (%s)",
		   some[which < 4 ? which : 0]);
		ok(elfcache_defines_in(c, im, &src, none, &which) == 0,
		   "a name it lacks: not found");
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

static void test_gnuhash(void)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[4096], path[4096], seen[16][4096];
	size_t nseen = 0, files = 0, names = 0, bad = 0, absent_bad = 0;

	while (maps && fgets(line, sizeof(line), maps) && nseen < 16) {
		struct arena a;
		struct elfimage im;
		struct elfimage_gnuhash h;
		struct elfimage_src src;
		struct names v = { 0 };
		struct vms_error e;
		size_t k;
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
		    elfimage_gnuhash_read(&im, &src, &a, &h) &&
		    elfimage_symbols(&im, &src, collect, &v) >= 0 && !v.oom) {
			files++;
			qsort(v.v, v.n, sizeof(*v.v), by_name);
			for (k = 0; k < v.n; k++) {
				uint64_t idx = UINT64_MAX;
				char *m = v.v[k].name;

				if (k && strcmp(v.v[k - 1].name, m) == 0)
					continue; /* another version of it */
				names++;
				if ((elfimage_gnuhash_find(&im, &src, &h, m,
							   &idx) != 1 ||
				     idx != v.v[k].idx) &&
				    bad++ < 5)
					printf("# %s: %s at %llu, the walk "
					       "%llu\n",
					       path, m, (unsigned long long)idx,
					       (unsigned long long)v.v[k].idx);
			}
			for (k = 0; k < v.n; k++) {
				uint64_t idx;
				char *m = v.v[k].name;

				/* a name with its first byte changed to one
				 * no C name starts with */
				m[0] = '~';
				absent_bad += elfimage_gnuhash_find(
						      &im, &src, &h, m, &idx) != 0;
			}
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
	   "GNU hash tables read: %zu files, %zu defined names", files, names);
	ok(bad == 0, "each name found where a walk finds it (%zu not)", bad);
	ok(absent_bad == 0, "names not there not found (%zu found)",
	   absent_bad);
}

static void test_inline(const char *dir)
{
	enum { SIZE = 600 * 1024 };
	char path[512], *want = malloc(SIZE), *got = malloc(SIZE);
	struct readahead *ra;
	const char *data;
	size_t have = 0, i;
	ssize_t n;
	int fd;

	for (i = 0; i < SIZE; i++)
		want[i] = (char)('a' + (i * 7 + i / 4096) % 26);
	snprintf(path, sizeof(path), "%s/big", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ok(fd >= 0 && write(fd, want, SIZE) == SIZE &&
	   lseek(fd, 0, SEEK_SET) == 0,
	   "a 600 KB file made");
	ra = readahead_start_inline(fd);
	ok(ra != NULL, "an inline reader");
	while (ra && (n = readahead_next(ra, &data)) > 0) {
		if (have + (size_t)n > SIZE)
			break;
		memcpy(got + have, data, (size_t)n);
		have += (size_t)n;
		readahead_done(ra);
	}
	ok(have == SIZE && memcmp(want, got, SIZE) == 0,
	   "the file back whole, in order (%zu bytes)", have);
	readahead_stop(ra);
	close(fd);
	unlink(path);
	free(want);
	free(got);
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
	test_gnuhash();
	test_inline(dir);
	rmdir(dir);
	return tap_done();
}
