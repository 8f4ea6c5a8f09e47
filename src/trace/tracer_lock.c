/* tracer_lock.c — tracer_priv.h's lock that tells a traced process whether
 * vmscope lives (base/tracewire.h: consumer_lock), and the letting go of a
 * file that holds it.
 *
 * The mutex is locked by the thread that makes and frees the trace (the
 * main thread: cli/run_trace.c, cli/run_attach.c; a followed child's
 * file as that thread reads the socket) and never unlocked. Unlocking
 * would be glibc's robust-list removal, which follows the two list
 * pointers stored in the mutex itself: in memory the traced program can
 * write (its shared file), so a program that rewrote them would have
 * vmscope write where it chose. So the page that holds the mutex stays
 * mapped as long as vmscope lives (its robust list never points at memory
 * unmapped or reused), the rest of the file unmapped; the kernel's walk
 * of the list at vmscope's end is what clears the owner, and a pointer the
 * program rewrote there costs at most that walk stopping early (the
 * library then waits TW_WAIT_NS, as without the lock). One page per
 * file: the launched or attached process's, and at most TW_FOLLOW_MAX
 * children's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace/tracer_priv.h"

_Static_assert(sizeof(pthread_mutex_t) <=
			       sizeof(((struct tw_header *)0)->consumer_mutex) &&
		       _Alignof(pthread_mutex_t) <= 8,
	       "glibc's pthread_mutex_t fits the header's consumer_mutex");

bool tracer_lock(struct tw_header *h)
{
	pthread_mutex_t *m = (pthread_mutex_t *)(void *)h->consumer_mutex;
	pthread_mutexattr_t at;
	int rc;

	if (pthread_mutexattr_init(&at) != 0)
		return false;
	rc = pthread_mutexattr_setpshared(&at, PTHREAD_PROCESS_SHARED) ||
	     pthread_mutexattr_setrobust(&at, PTHREAD_MUTEX_ROBUST) ||
	     pthread_mutex_init(m, &at);
	pthread_mutexattr_destroy(&at);
	if (rc)
		return false; /* consumer_lock 0: the library asks the pid */
	/* try: a child's file is the child's too, and may hold anything by
	 * now (EOWNERDEAD: held all the same) */
	rc = pthread_mutex_trylock(m);
	if (rc != 0 && rc != EOWNERDEAD)
		return false;
	__atomic_store_n(&h->consumer_lock, 1, __ATOMIC_RELEASE);
	return true;
}

void tracer_unmap(struct tw_header *h, int fd, bool punch, bool locked)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	off_t at = (off_t)(tw_ring_at(h, 0) - (unsigned char *)h);

	if (punch) {
		/* the rings' memory given back, the header kept */
		at = (at + (off_t)pg - 1) & ~((off_t)pg - 1);
		fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, at,
			  (off_t)TW_FILE_BYTES - at);
	}
	/* locked: vmscope's own word, never the file's (consumer_lock), which
	 * the program may clear: the mutex's page (the header's first: the
	 * struct is 192 bytes) is kept */
	if (locked)
		munmap((char *)h + pg, TW_FILE_BYTES - pg);
	else
		munmap(h, TW_FILE_BYTES);
}
