/* freeze_threads.c — a freeze's thread entries, and the leftovers: threads
 * seized by a freeze that had not stopped by its release, detached when
 * they stop (freeze.h: freeze_reap_leftovers). Below freeze.c and
 * freeze_exec.c, which both use them (freeze_priv.h).
 */
#include "capture/ptrace/freeze.h"
#include "capture/ptrace/freeze_priv.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

struct freeze_thread *freeze_find_thread(struct freeze *f, pid_t tid)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->t[i].tid == tid)
			return &f->t[i];
	return NULL;
}

struct freeze_thread *freeze_add_thread(struct freeze *f, pid_t tid)
{
	if (f->n == f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 16;
		struct freeze_thread *nt = realloc(f->t, ncap * sizeof(*nt));

		if (!nt)
			return NULL;
		f->t = nt;
		f->cap = ncap;
	}
	memset(&f->t[f->n], 0, sizeof(f->t[0]));
	f->t[f->n].tid = tid;
	return &f->t[f->n++];
}

/* Threads seized by a freeze that had not stopped (or not been reaped)
 * when it was released: they stop when they leave the kernel, and must
 * then be detached. Kept across freezes (a struct freeze dies at release),
 * hence file scope; grown as needed, never dropped. */
static pid_t *leftover;
static size_t nleftover, capleftover;

size_t freeze_reap_leftovers(void)
{
	size_t i = 0;

	while (i < nleftover) {
		int st;
		pid_t w = waitpid(leftover[i], &st, __WALL | WNOHANG);

		if (w == 0) {
			i++;
			continue;
		}
		if (w > 0 && WIFSTOPPED(st))
			ptrace(PTRACE_DETACH, leftover[i], NULL,
			       (void *)(long)((st >> 16) == 0 ? WSTOPSIG(st)
							      : 0));
		leftover[i] = leftover[--nleftover];
	}
	return nleftover;
}

void freeze_keep_leftover(pid_t tid)
{
	if (nleftover == capleftover) {
		size_t ncap = capleftover ? capleftover * 2 : 64;
		pid_t *nl = realloc(leftover, ncap * sizeof(*nl));

		if (!nl)
			return; /* the kernel detaches it when we exit */
		leftover = nl;
		capleftover = ncap;
	}
	leftover[nleftover++] = tid;
}

/* Whether tid is a leftover (and no longer one: taken back by a freeze
 * that finds it already its own). */
bool freeze_take_leftover(pid_t tid)
{
	size_t i;

	for (i = 0; i < nleftover; i++)
		if (leftover[i] == tid) {
			leftover[i] = leftover[--nleftover];
			return true;
		}
	return false;
}
