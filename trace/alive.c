/* alive.c — whether vmscope, the reader of a trace's rings, still lives,
 * as the traced process can tell (vmstrace.h: vt_consumer_gone,
 * vt_consumer_orphaned; record.c asks at a full ring and at an attach).
 *
 * Two signals, the better first:
 *  - vmscope's robust mutex in the header (tracewire.h: consumer_lock):
 *    its lock word's owner, cleared by the kernel when vmscope's thread
 *    ended, tells from any pid namespace, with no system call (one load:
 *    a signal handler's malloc may ask);
 *  - in a file without it, vmscope's pid, which kill() can ask only from
 *    vmscope's own pid namespace (consumer_pidns): from another (this
 *    process in a container vmscope traces from the host, or a followed
 *    child that made a namespace of its own) that pid is nobody's
 *    (ESRCH) or another process's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>

#include "vmstrace.h"

/* Whether kill() can tell: this process is in vmscope's pid namespace
 * (both known). */
static bool consumer_here(const struct tw_header *h, uint32_t own_pidns)
{
	return h->consumer_pidns && h->consumer_pidns == own_pidns;
}

static bool consumer_locked(const struct tw_header *h)
{
	return __atomic_load_n(&h->consumer_lock, __ATOMIC_ACQUIRE) == 1;
}

static bool consumer_lock_gone(const struct tw_header *h)
{
	const uint32_t *word = (const uint32_t *)h->consumer_mutex;

	return (__atomic_load_n(word, __ATOMIC_ACQUIRE) & TW_FUTEX_TID_MASK) ==
	       0;
}

/* Elsewhere vmscope is taken to live: a full ring waits on its heartbeat
 * alone (record.c, room: TW_WAIT_NS, then TW_PASS_LAGGED, counted), its
 * pages kept. Taken for gone there, a ring that filled while vmscope was
 * stopped, or slow, let the rings go with the records not yet read, and
 * recorded nothing more. */
bool vt_consumer_gone(const struct tw_header *h, uint32_t own_pidns)
{
	pid_t c = h->consumer_pid;

	if (consumer_locked(h))
		return consumer_lock_gone(h);
	return consumer_here(h, own_pidns) && c > 0 && kill(c, 0) < 0 &&
	       errno == ESRCH;
}

/* The lock: a live vmscope is never taken over, a dead one always is. In
 * a file without it, where kill() cannot tell, the wrong answers cost
 * otherwise than a full ring's: "alive" would refuse every attach for the
 * process's life once a vmscope died attached (SIGKILL: what a take-over
 * is for), "gone" costs a live vmscope its trace only when a second one
 * attaches to the same process meanwhile. So the attach takes over
 * there, as it did before the namespaces were compared (kill() said
 * ESRCH). */
bool vt_consumer_orphaned(const struct tw_header *h, uint32_t own_pidns)
{
	if (consumer_locked(h))
		return consumer_lock_gone(h);
	return !consumer_here(h, own_pidns) || vt_consumer_gone(h, own_pidns);
}
