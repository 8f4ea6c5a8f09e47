#include "linux/readahead.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/bigmem.h"

/* 2 MiB ahead: the caller may be busy or descheduled a while (2 cores
 * shared with the target and the smaps_rollup reader) while the kernel
 * produces smaps at ~100-200 MB/s. */
#define RA_NBUF 8
#define RA_BUF (256 * 1024)
/* Stop filling a chunk when less than this is left: the kernel returns at
 * most about a page per read() of a seq_file, so a nearly full buffer would
 * cost many short reads. */
#define RA_SLACK (8 * 1024)
/* The ring's alignment: a whole huge page (x86-64's 2 MiB) */
#define RA_ALIGN ((size_t)2 << 20)

struct chunk {
	char *data;
	bool touched; /* its pages faulted in (one call, not 64 faults) */
	ssize_t len; /* bytes, 0 end of file, -1 error (errno in err) */
	int err;
};

struct readahead {
	int fd;
	char *mem; /* the ring's buffers, one block: freed in one munmap */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct chunk ring[RA_NBUF];
	unsigned head, tail; /* filled chunks: [tail, head) mod RA_NBUF */
	bool stop;
	bool held; /* readahead_start_held: no read() until released */
	bool inline_; /* no thread: one chunk, read by readahead_next */
	bool eof; /* a read said the end: the next chunk is empty, unread */
	bool primed; /* inline: ring[0] read ahead, for the next call */
};

/* Fills c from the fd: its length, 0 at the end, -1 with *err. */
static ssize_t fill(struct readahead *ra, struct chunk *c, int *err)
{
	size_t have = 0;
	ssize_t r = 0;

	while (!ra->eof && have < RA_BUF - RA_SLACK) {
		r = read(ra->fd, c->data + have, RA_BUF - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			/* the end (as cat takes it: a 0 ends the text, not
			 * a read again past it) */
			ra->eof = r == 0;
			break;
		}
		have += (size_t)r;
	}
	*err = r < 0 ? errno : 0;
	return have ? (ssize_t)have : (r < 0 ? -1 : 0);
}

static void *reader(void *arg)
{
	struct readahead *ra = arg;

	/* held: the first buffer faulted in now, before the wait (a page
	 * first touched traps on this VM: bigmem.h) */
	pthread_mutex_lock(&ra->lock);
	if (ra->held && !ra->ring[0].touched) {
		pthread_mutex_unlock(&ra->lock);
		vms_big_populate(ra->ring[0].data, RA_BUF);
		pthread_mutex_lock(&ra->lock);
		ra->ring[0].touched = true;
	}
	while (!ra->stop && ra->held)
		pthread_cond_wait(&ra->cond, &ra->lock);
	pthread_mutex_unlock(&ra->lock);
	for (;;) {
		struct chunk *c;
		ssize_t len;
		int err = 0;

		pthread_mutex_lock(&ra->lock);
		while (!ra->stop && ra->head - ra->tail == RA_NBUF)
			pthread_cond_wait(&ra->cond, &ra->lock);
		if (ra->stop) {
			pthread_mutex_unlock(&ra->lock);
			return NULL;
		}
		c = &ra->ring[ra->head % RA_NBUF];
		pthread_mutex_unlock(&ra->lock);
		/* Every first touch of a page traps on this project's VM:
		 * 2 MB faulted page by page took 7.4 ms, populated 0.5 ms
		 * (bigmem.h). A buffer at a time, as the text proves long;
		 * none for the empty chunk that says the end (a small text's
		 * second buffer was faulted in to read nothing: 0.9 ms, in a
		 * freeze) */
		if (!c->touched && !ra->eof) {
			vms_big_populate(c->data, RA_BUF);
			c->touched = true;
		}

		len = fill(ra, c, &err);
		pthread_mutex_lock(&ra->lock);
		/* Data first; an error or the end comes as a chunk of its own. */
		c->len = len;
		c->err = len > 0 ? 0 : err;
		ra->head++;
		pthread_cond_broadcast(&ra->cond);
		pthread_mutex_unlock(&ra->lock);
		if (len <= 0)
			return NULL;
	}
}

static struct readahead *start(int fd, bool held)
{
	struct readahead *ra = calloc(1, sizeof(*ra));
	int i, e;

	if (!ra)
		return NULL;
	ra->fd = fd;
	ra->held = held;
	/* One block, not a malloc a buffer: each buffer was a mapping of its
	 * own, and unmapping each of the eight after the reader had run on
	 * the other core cost a TLB shootdown (an IPI) apiece, 1.2-2 ms of
	 * a 65,000-region capture on this VM. */
	if (posix_memalign((void **)&ra->mem, RA_ALIGN,
			   (size_t)RA_NBUF * RA_BUF) != 0) {
		ra->mem = NULL;
		errno = ENOMEM;
		goto fail;
	}
	/* a huge page where there is one: one fault, one page to free */
	vms_hint_huge(ra->mem, (size_t)RA_NBUF * RA_BUF);
	for (i = 0; i < RA_NBUF; i++)
		ra->ring[i].data = ra->mem + (size_t)i * RA_BUF;
	pthread_mutex_init(&ra->lock, NULL);
	pthread_cond_init(&ra->cond, NULL);
	e = pthread_create(&ra->thread, NULL, reader, ra);
	if (e) {
		pthread_mutex_destroy(&ra->lock);
		pthread_cond_destroy(&ra->cond);
		errno = e;
		goto fail;
	}
	return ra;
fail:
	e = errno;
	free(ra->mem);
	free(ra);
	errno = e;
	return NULL;
}

struct readahead *readahead_start(int fd)
{
	return start(fd, false);
}

struct readahead *readahead_start_held(void)
{
	return start(-1, true);
}

void readahead_release(struct readahead *ra, int fd)
{
	if (!ra || ra->inline_)
		return;
	pthread_mutex_lock(&ra->lock);
	ra->fd = fd;
	ra->held = false;
	pthread_cond_broadcast(&ra->cond);
	pthread_mutex_unlock(&ra->lock);
}

struct readahead *readahead_start_inline(int fd)
{
	struct readahead *ra = calloc(1, sizeof(*ra));

	if (!ra)
		return NULL;
	ra->fd = fd;
	ra->inline_ = true;
	ra->ring[0].data = malloc(RA_BUF);
	if (!ra->ring[0].data) {
		free(ra);
		errno = ENOMEM;
		return NULL;
	}
	return ra;
}

void readahead_prime(struct readahead *ra)
{
	struct chunk *c = &ra->ring[0];

	if (!ra->inline_ || ra->primed)
		return;
	c->len = fill(ra, c, &c->err);
	ra->primed = true;
}

ssize_t readahead_next(struct readahead *ra, const char **data)
{
	struct chunk *c;

	if (ra->inline_) {
		c = &ra->ring[0];
		*data = c->data;
		if (ra->primed)
			ra->primed = false; /* read by readahead_prime() */
		else
			c->len = fill(ra, c, &c->err);
		if (c->len < 0)
			errno = c->err;
		return c->len;
	}

	pthread_mutex_lock(&ra->lock);
	while (ra->head == ra->tail)
		pthread_cond_wait(&ra->cond, &ra->lock);
	c = &ra->ring[ra->tail % RA_NBUF];
	pthread_mutex_unlock(&ra->lock);
	*data = c->data;
	if (c->len < 0)
		errno = c->err;
	return c->len;
}

void readahead_done(struct readahead *ra)
{
	if (ra->inline_)
		return;
	pthread_mutex_lock(&ra->lock);
	if (ra->head != ra->tail)
		ra->tail++;
	pthread_cond_broadcast(&ra->cond);
	pthread_mutex_unlock(&ra->lock);
}

void readahead_stop(struct readahead *ra)
{
	if (!ra)
		return;
	if (ra->inline_) {
		free(ra->ring[0].data);
		free(ra);
		return;
	}
	pthread_mutex_lock(&ra->lock);
	ra->stop = true;
	pthread_cond_broadcast(&ra->cond);
	pthread_mutex_unlock(&ra->lock);
	pthread_join(ra->thread, NULL);
	pthread_mutex_destroy(&ra->lock);
	pthread_cond_destroy(&ra->cond);
	free(ra->mem);
	free(ra);
}
