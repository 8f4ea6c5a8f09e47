/* test_elfimage.c — elfimage_parse on this test's own executable, read from
 * /proc/self/exe into a buffer, checked against what the test reads from
 * the ELF headers itself (<elf.h>, no libelf); and on truncated and
 * corrupted copies of it, which must not crash (run it under SAN=1). */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elfimage.h"
#include "linux/procfs.h"
#include "tap.h"

/* The GNU build id from the PT_NOTE segments, as lowercase hex; "" if none. */
static void own_build_id(const unsigned char *b, size_t len, char *out)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
	size_t i;

	out[0] = '\0';
	for (i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;
		size_t off;

		memcpy(&ph, b + eh->e_phoff + i * eh->e_phentsize, sizeof(ph));
		if (ph.p_type != PT_NOTE || ph.p_offset + ph.p_filesz > len)
			continue;
		for (off = ph.p_offset; off + sizeof(Elf64_Nhdr) <=
					ph.p_offset + ph.p_filesz;) {
			Elf64_Nhdr nh;
			size_t name = off + sizeof(nh), desc, k;

			memcpy(&nh, b + off, sizeof(nh));
			desc = name + ((nh.n_namesz + 3) & ~3u);
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp(b + name, "GNU", 4) == 0) {
				for (k = 0; k < nh.n_descsz; k++)
					sprintf(out + 2 * k, "%02x", b[desc + k]);
				return;
			}
			off = desc + ((nh.n_descsz + 3) & ~3u);
		}
	}
}

/* The mapping of our executable at file offset 0, from /proc/self/maps. */
static bool exe_mapping(uint64_t *start, uint64_t *offset)
{
	char *maps, exe[4096], *line, *save = NULL;
	size_t len;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	bool found = false;

	if (n <= 0 || procfs_read_file("/proc/self/maps", &maps, &len) < 0)
		return false;
	exe[n] = '\0';
	for (line = strtok_r(maps, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, b, off;
		int at = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*u %n", &a, &b, &off,
			   &at) == 3 &&
		    at > 0 && strcmp(line + at, exe) == 0) {
			*start = a;
			*offset = off;
			found = true;
		}
	}
	free(maps);
	return found;
}

static void test_self(const unsigned char *buf, size_t len)
{
	struct arena a;
	struct elfimage im;
	struct vms_error err;
	const struct elfimage_section *text = NULL;
	char want_id[200];
	uint64_t start = 0, offset = 0, bias = 0, end = 0, fn;
	size_t i, inload = 0;
	int rc;

	arena_init(&a);
	rc = elfimage_parse(buf, len, &a, &im, &err);
	ok(rc == 0 && im.is_image, "self: parses as an image");
	ok(im.e_type == ((const Elf64_Ehdr *)buf)->e_type,
	   "self: e_type %u as in the header", im.e_type);
	for (i = 0; i < im.nsec; i++)
		if (strcmp(im.sec[i].name, ".text") == 0)
			text = &im.sec[i];
	ok(text != NULL, "self: has .text among %zu sections", im.nsec);
	for (i = 0; text && i < im.nload; i++) {
		const struct elfimage_load *l = &im.load[i];

		if (text->addr >= l->vaddr &&
		    text->addr + text->size <= l->vaddr + l->memsz &&
		    (l->flags & PF_X))
			inload++;
		if (l->vaddr + l->memsz > end)
			end = l->vaddr + l->memsz;
	}
	ok(inload == 1, "self: .text lies inside one executable PT_LOAD");
	ok(elfimage_end(&im) == end && end > 0,
	   "self: image end is the highest PT_LOAD end");
	for (i = 1; i < im.nsec; i++)
		if (im.sec[i].addr < im.sec[i - 1].addr)
			break;
	ok(i >= im.nsec, "self: sections sorted by address");
	own_build_id(buf, len, want_id);
	ok(want_id[0] && im.build_id && strcmp(im.build_id, want_id) == 0,
	   "self: build id %s equals the PT_NOTE's %s",
	   im.build_id ? im.build_id : "(none)", want_id);
	/* The bias of our own mapping puts main() inside .text. */
	fn = (uint64_t)(uintptr_t)&test_self;
	ok(exe_mapping(&start, &offset) &&
		   elfimage_bias(&im, start, offset, &bias) && text &&
		   fn - bias >= text->addr && fn - bias < text->addr + text->size,
	   "self: bias 0x%llx maps a function of ours into .text",
	   (unsigned long long)bias);
	ok(!elfimage_bias(&im, start, 1ull << 40, &bias),
	   "self: no bias for an offset no PT_LOAD covers");
	arena_fini(&a);
}

static int parse_copy(const unsigned char *buf, size_t len,
		      struct elfimage *im)
{
	/* A copy of exactly len bytes, so ASan sees any read past it. */
	unsigned char *c = malloc(len ? len : 1);
	struct arena a;
	struct vms_error err;
	int rc;

	memcpy(c, buf, len);
	arena_init(&a);
	rc = elfimage_parse(c, len, &a, im, &err);
	if (im->is_image && im->nload == 0)
		rc = -2; /* contract: an image has PT_LOAD segments */
	im->sec = NULL;
	im->load = NULL;
	im->build_id = NULL;
	arena_fini(&a);
	free(c);
	return rc;
}

static void test_broken(const unsigned char *buf, size_t len)
{
	static const size_t cuts[] = { 0, 1, 4, 15, 16, 52, 63, 64, 65, 100,
				       0x200, 0x1000 };
	struct elfimage im;
	unsigned char *c = malloc(len);
	size_t i, bad = 0, small_images = 0;
	unsigned seed = tap_seed(1);

	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		if (parse_copy(buf, cuts[i], &im) != 0)
			bad++;
		if (cuts[i] < sizeof(Elf64_Ehdr) && im.is_image)
			small_images++;
	}
	for (i = 1; i < 64; i++)
		if (parse_copy(buf, len * i / 64, &im) < -1)
			bad++;
	ok(!bad, "truncated copies: no crash, no image without PT_LOAD");
	ok(!small_images, "shorter than an ELF header: not an image");

	/* Garbage with an ELF header in front, and corrupted fields. */
	for (i = 0; i < 300; i++) {
		size_t k, n = 64 + (size_t)(seed % 8192);

		memcpy(c, buf, len < n ? len : n);
		for (k = 0; k < 1 + i % 16; k++) {
			seed = seed * 1103515245u + 12345u;
			c[(seed >> 8) % (len < n ? len : n)] = (unsigned char)(seed >> 20);
		}
		if (parse_copy(c, len < n ? len : n, &im) < -1)
			bad++;
	}
	memcpy(c, buf, len);
	((Elf64_Ehdr *)c)->e_phoff = len - 8;
	((Elf64_Ehdr *)c)->e_shoff = len - 8;
	if (parse_copy(c, len, &im) < -1)
		bad++;
	memcpy(c, buf, len);
	((Elf64_Ehdr *)c)->e_phnum = 0xffff;
	((Elf64_Ehdr *)c)->e_shstrndx = 0xfffe;
	if (parse_copy(c, len, &im) < -1)
		bad++;
	ok(!bad, "corrupted copies: no crash");
	memset(c, 'x', 64);
	ok(parse_copy(c, 64, &im) == 0 && !im.is_image,
	   "not ELF: rc 0, not an image");
	free(c);
}

int main(void)
{
	char *buf;
	size_t len;

	if (procfs_read_file("/proc/self/exe", &buf, &len) < 0 || len < 64) {
		ok(0, "read /proc/self/exe");
		return tap_done();
	}
	test_self((const unsigned char *)buf, len);
	test_broken((const unsigned char *)buf, len);
	free(buf);
	return tap_done();
}
