/* test_images_step.c — the images step on this test's own process, and on
 * hostile shapes:
 *  - s->images keeps each load's bias: libc's bias plus the value of its
 *    dynamic symbol syscall (read by the ELF reader) is the address this
 *    process calls syscall at; our executable's bias puts main in .text;
 *  - one file mapped 300 times, alternating with another, 3,000 allocated
 *    sections each (built with elfgen.h): every mapping is an image of its
 *    own load, each region gets at most 64 sections, the snapshot no more
 *    than its budget, and the step says what it left out;
 *  - the steps chosen (vms_finish_opts.steps): only the images step (and
 *    the essential ones) finds the images a whole run finds, and no other
 *    step notes what it lacked; none chosen, no images, and classify and
 *    totals ran all the same.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elfgen.h"
#include "elf/elfimage.h"
#include "pipeline.h"
#include "linux/procfile.h"
#include "linux/procfs.h"
#include "linux/smaps.h"
#include "tap.h"

static struct vms_snapshot *own_snapshot_with(const char *const *steps)
{
	struct vms_finish_opts fo = { .steps = steps };
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_error err;
	char *maps;
	size_t len;

	if (!s || procfs_read_file("/proc/self/maps", &maps, &len) < 0)
		return s;
	if (smaps_parse_buffer(s, maps, len, &err) < 0) {
		vms_snapshot_free(s);
		s = NULL;
	}
	free(maps);
	if (s) {
		/* files opened by path, checked by inode (pid 0) */
		s->src = (struct vms_source){ .ops = &vms_source_paths,
					      .caps = VMS_SRC_FILES };
		if (vms_snapshot_finish(s, &fo, &err) < 0) {
			vms_snapshot_free(s);
			s = NULL;
		}
	}
	return s;
}

static struct vms_snapshot *own_snapshot(void)
{
	return own_snapshot_with(NULL);
}

static const struct vms_image *image_named(const struct vms_snapshot *s,
					   const char *part)
{
	size_t i;

	for (i = 0; i < s->nimages; i++)
		if (strstr(s->images[i].path, part))
			return &s->images[i];
	return NULL;
}

static void test_bias(void)
{
	struct vms_snapshot *s = own_snapshot();
	const struct vms_image *libc, *self;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct elfimage_sym sym = { 0 };
	struct elfimage_src src;
	struct vms_error err;
	uint64_t fn = (uint64_t)(uintptr_t)&syscall;
	uint64_t me = (uint64_t)(uintptr_t)&test_bias;
	size_t i, text = 0;
	int fd;

	if (!s || n <= 0) {
		ok(0, "own snapshot");
		vms_snapshot_free(s);
		return;
	}
	exe[n] = '\0';
	libc = image_named(s, "/libc.so");
	self = image_named(s, exe);
	ok(libc && libc->elf && libc->nregions >= 2,
	   "libc is one load of %zu regions", libc ? libc->nregions : 0);
	fd = libc ? procfile_open(0, &s->regions[libc->first_region]) : -1;
	ok(fd >= 0 && elfimage_src_fd(fd, &src, &err) == 0 &&
		   elfimage_symbol(libc->elf, &src, "syscall", &sym) &&
		   sym.value + libc->bias == fn,
	   "libc's bias 0x%llx + syscall's value 0x%llx = &syscall 0x%llx",
	   libc ? (unsigned long long)libc->bias : 0ull,
	   (unsigned long long)sym.value, (unsigned long long)fn);
	if (fd >= 0)
		close(fd);
	for (i = 0; self && self->elf && i < self->elf->nsec; i++) {
		const struct elfimage_section *x = &self->elf->sec[i];

		if (strcmp(x->name, ".text") == 0 &&
		    me - self->bias >= x->addr &&
		    me - self->bias < x->addr + x->size)
			text++;
	}
	ok(text == 1, "our executable's bias puts a function of ours in .text");
	for (i = 1; i < s->nimages; i++)
		if (s->images[i].start < s->images[i - 1].end)
			break;
	ok(s->nimages > 2 && i == s->nimages,
	   "%zu images, by address, not overlapping", s->nimages);
	vms_snapshot_free(s);
}

static bool has_note(const struct vms_snapshot *s, const char *part)
{
	size_t i;

	for (i = 0; i < s->nnotes; i++)
		if (strcmp(s->notes[i].step, "images") == 0 &&
		    strstr(s->notes[i].why, part))
			return true;
	return false;
}

static void test_bomb(void)
{
	enum { MAPS = 300 };
	char path[2][64];
	struct elfgen g = { 0 };
	struct vms_snapshot *s;
	unsigned char *b;
	void *m[MAPS];
	size_t len, i, nreg = 0, nimg = 0, nload = 0, total = 0, most = 0;
	int fd[2];

	g.nsec = 3000;
	b = elfgen_build(&g, &len);
	for (i = 0; i < 2; i++) {
		snprintf(path[i], sizeof(path[i]), "/tmp/vms-bomb-%c-XXXXXX",
			 (int)('a' + i));
		fd[i] = mkstemp(path[i]);
		if (fd[i] < 0 || write(fd[i], b, len) != (ssize_t)len)
			fd[i] = -1;
	}
	free(b);
	for (i = 0; i < MAPS; i++)
		m[i] = fd[i % 2] >= 0 ? mmap(NULL, 0x4000, PROT_READ,
					     MAP_PRIVATE, fd[i % 2], 0)
				      : MAP_FAILED;
	s = own_snapshot();
	for (i = 0; s && i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];

		if (!r->path || !strstr(r->path, "/tmp/vms-bomb-"))
			continue;
		nreg++;
		nimg += r->type == VMS_T_IMAGE;
		total += r->nchildren;
		if (r->nchildren > most)
			most = r->nchildren;
	}
	for (i = 0; s && i < s->nimages; i++)
		if (strstr(s->images[i].path, "/tmp/vms-bomb-"))
			nload++; /* (an anonymous neighbour may be its .bss) */
	ok(nreg == MAPS, "%zu mappings of the two files", nreg);
	ok(nimg == MAPS && nload == MAPS,
	   "each is an image (%zu) and a load of its own (%zu)", nimg, nload);
	ok(most == 64, "a region shows at most 64 sections (most: %zu)", most);
	ok(s && total <= 16384 + 8 * s->nregions,
	   "%zu section children in all, within the budget", total);
	ok(s && has_note(s, "not all shown") &&
		   has_note(s, "more allocated sections than are kept"),
	   "the step notes what it left out");
	for (i = 0; i < MAPS; i++)
		if (m[i] != MAP_FAILED)
			munmap(m[i], 0x4000);
	for (i = 0; i < 2; i++) {
		if (fd[i] >= 0)
			close(fd[i]);
		unlink(path[i]);
	}
	vms_snapshot_free(s);
}

/* How many notes steps other than those named made. */
static size_t notes_but(const struct vms_snapshot *s, const char *a,
			const char *b)
{
	size_t i, n = 0;

	for (i = s->nnotes_capture; i < s->nnotes; i++)
		n += strcmp(s->notes[i].step, a) != 0 &&
		     strcmp(s->notes[i].step, b) != 0;
	return n;
}

/* Whether classify and totals ran: every region typed, the total the
 * regions' sizes. */
static bool essentials_ran(const struct vms_snapshot *s)
{
	uint64_t size = 0;
	size_t i;

	for (i = 0; i < s->nregions; i++) {
		if (s->regions[i].type >= VMS_NTYPES)
			return false;
		size += s->regions[i].end - s->regions[i].start;
	}
	return s->nregions > 0 && s->total.size == size;
}

static void test_chosen(void)
{
	static const char *const images[] = { "images", NULL };
	static const char *const none[] = { NULL };
	struct vms_snapshot *all = own_snapshot();
	struct vms_snapshot *im = own_snapshot_with(images);
	struct vms_snapshot *no = own_snapshot_with(none);
	size_t i, note_malloc = 0;

	for (i = 0; all && i < all->nnotes; i++)
		note_malloc += strcmp(all->notes[i].step, "malloc") == 0;
	ok(all && all->nimages > 2 && note_malloc == 1,
	   "all steps: %zu images; the malloc step notes it had no memory",
	   all ? all->nimages : 0);
	ok(all && im && im->nimages == all->nimages &&
		   notes_but(im, "images", "classify") == 0 && essentials_ran(im),
	   "the images step alone: the same %zu images, no other step's "
	   "note, classify and totals ran",
	   im ? im->nimages : 0);
	ok(no && no->nimages == 0 && notes_but(no, "classify", "totals") == 0 &&
		   essentials_ran(no),
	   "no step chosen: no images, no note, classify and totals ran");
	vms_snapshot_free(all);
	vms_snapshot_free(im);
	vms_snapshot_free(no);
}

int main(void)
{
	test_bias();
	test_bomb();
	test_chosen();
	return tap_done();
}
