/* test_elfimage_dyn.c — the reader on the libc this test runs with, read
 * through a file descriptor, checked against binutils' readelf (an
 * independent decoder): the dynamic symbol syscall's value and size, the
 * number of RELA relocations (.rela.dyn + .rela.plt), and every address
 * the RELR table encodes, in order. Also: the file read by fd and the same
 * bytes read from a buffer give the same image. Skipped without readelf.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elfimage.h"
#include "linux/procfs.h"
#include "tap.h"

/* The path of the mapped libc, from /proc/self/maps. */
static bool libc_path(char *out, size_t n)
{
	char *maps, *line, *save = NULL;
	size_t len;
	bool found = false;

	if (procfs_read_file("/proc/self/maps", &maps, &len) < 0)
		return false;
	for (line = strtok_r(maps, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char *p = strchr(line, '/');

		if (p && strstr(p, "/libc.so")) {
			snprintf(out, n, "%s", p);
			found = true;
		}
	}
	free(maps);
	return found;
}

struct oracle {
	uint64_t sys_value, sys_size;
	size_t nrela;
	uint64_t *relr;
	size_t nrelr;
};

static bool run_readelf(const char *path, struct oracle *o)
{
	char cmd[4400], line[512];
	FILE *f;
	bool in_relr = false;
	size_t cap = 0;

	memset(o, 0, sizeof(*o));
	snprintf(cmd, sizeof(cmd), "readelf -r -W --dyn-syms '%s' 2>/dev/null",
		 path);
	f = popen(cmd, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char name[64];
		unsigned long long v, sz;
		size_t n;

		if (sscanf(line,
			   "Relocation section '%63[^']' at offset %*s "
			   "contains %zu",
			   name, &n) == 2) {
			in_relr = strcmp(name, ".relr.dyn") == 0;
			if (strncmp(name, ".rela", 5) == 0)
				o->nrela += n;
			continue;
		}
		if (in_relr && strstr(line, "offsets"))
			continue;
		if (in_relr && sscanf(line, "%llx", &v) == 1 &&
		    strspn(line, "0123456789abcdef \n") == strlen(line)) {
			if (o->nrelr == cap) {
				cap = cap ? cap * 2 : 1024;
				o->relr = realloc(o->relr,
						  cap * sizeof(*o->relr));
			}
			o->relr[o->nrelr++] = v;
			continue;
		}
		if (line[0] == '\n')
			in_relr = false;
		/* (sscanf matches literals after its last conversion
		 * without saying so: the name is checked apart.) */
		if (strstr(line, " FUNC ") && strstr(line, " syscall@") &&
		    sscanf(line, " %*u: %llx %llu", &v, &sz) == 2) {
			o->sys_value = v;
			o->sys_size = sz;
		}
	}
	return pclose(f) == 0 && o->nrela > 0;
}

struct walk {
	const struct oracle *o;
	size_t nrela, nrelr, relr_bad;
};

static int walk(void *ctx, const struct elfimage_reloc *r)
{
	struct walk *w = ctx;

	if (r->kind == ELFIMAGE_RELA) {
		w->nrela++;
	} else if (r->kind == ELFIMAGE_RELR) {
		if (w->nrelr >= w->o->nrelr ||
		    w->o->relr[w->nrelr] != r->offset || !r->relative)
			w->relr_bad++;
		w->nrelr++;
	}
	return 0;
}

int main(void)
{
	char path[4096];
	struct oracle o;
	struct arena a, b;
	struct elfimage im, ib;
	struct elfimage_src src;
	struct elfimage_sym sym;
	struct vms_error err;
	struct walk w = { 0 };
	char *buf;
	size_t len;
	int fd;

	if (!libc_path(path, sizeof(path)) || !run_readelf(path, &o)) {
		printf("ok - libc against readelf # SKIP no libc.so mapped "
		       "or no readelf\n");
		return tap_done();
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	arena_init(&a);
	ok(fd >= 0 && elfimage_src_fd(fd, &src, &err) == 0 &&
		   elfimage_read(&src, &a, &im, &err) == 0 && im.is_image,
	   "%s: read through its fd as an image", path);
	ok(elfimage_symbol(&im, &src, "syscall", &sym) &&
		   sym.value == o.sys_value && sym.size == o.sys_size &&
		   sym.type == 2 /* STT_FUNC */,
	   "syscall: value 0x%llx size %llu, readelf 0x%llx %llu",
	   (unsigned long long)sym.value, (unsigned long long)sym.size,
	   (unsigned long long)o.sys_value, (unsigned long long)o.sys_size);
	ok(!elfimage_symbol(&im, &src, "no_such_symbol_here", &sym),
	   "a name not in .dynsym is not found");
	w.o = &o;
	ok(elfimage_relocs(&im, &src, walk, &w) == 0,
	   "the relocations are walked");
	ok(w.nrela == o.nrela, "RELA relocations: %zu, readelf %zu", w.nrela,
	   o.nrela);
	ok(w.nrelr == o.nrelr && !w.relr_bad,
	   "RELR: %zu addresses, readelf %zu, %zu differ", w.nrelr, o.nrelr,
	   w.relr_bad);
	if (o.nrelr) {
		struct elfimage_reloc r, r2;

		ok(elfimage_reloc_at(&im, &src, o.relr[o.nrelr / 2], &r) &&
			   r.kind == ELFIMAGE_RELR && r.addend_known &&
			   elfimage_relative_with_addend(&im, &src, r.addend,
							 &r2) &&
			   r2.addend == r.addend,
		   "a RELR target's implicit addend 0x%llx is found by "
		   "addend",
		   (unsigned long long)r.addend);
	}
	if (procfs_read_file(path, &buf, &len) == 0) {
		arena_init(&b);
		ok(elfimage_parse(buf, len, &b, &ib, &err) == 0 &&
			   ib.nsec == im.nsec && ib.nload == im.nload &&
			   ib.build_id && im.build_id &&
			   strcmp(ib.build_id, im.build_id) == 0 &&
			   ib.relr.size == im.relr.size,
		   "the same bytes from a buffer: the same image (%zu "
		   "sections, build id %s)",
		   ib.nsec, ib.build_id ? ib.build_id : "none");
		arena_fini(&b);
		free(buf);
	}
	arena_fini(&a);
	free(o.relr);
	if (fd >= 0)
		close(fd);
	return tap_done();
}
