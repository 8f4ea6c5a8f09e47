/* spawn.c — the threads and processes a traced program makes
 * (vmstrace.h): pthread_create, so that a new thread's stack is known
 * from its start (its walks never look in /proc); fork and posix_spawn,
 * forwarded, a followed process's child announced to vmscope as the call
 * returns (follow.c). Results and errno are the next definition's.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "unwind.h"
#include "vmstrace.h"

/* ---- pthread_create: the new thread's stack known from its start, so
 * that its stack walks never look it up in /proc (unwind.h: a sandboxed
 * program may forbid the open by then, and kill the process for it). The
 * thread runs thread_begins, which notes its stack and jumps to the
 * program's function (a tail call: no frame of this library stays below
 * the program's). ---- */

struct thread_begin {
	void *(*fn)(void *);
	void *arg;
	uintptr_t addr; /* the program's own stack, or 0 */
	size_t size;
};

static void *thread_begins(void *p)
{
	struct thread_begin *b = p;
	void *(*fn)(void *) = b->fn, *arg = b->arg;

	vt_unwind_thread(b->addr, b->size);
	next_free(b);
	return fn(arg);
}

EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg)
{
	struct thread_begin *b;
	pthread_attr_t def;
	void *addr = NULL;
	size_t size = 0;
	int rc;

	if (!next_pthread_create)
		vt_resolve();
	/* the stack it is made with: the program's own (a stack address
	 * set: getstack's address and size then add up to other than 0), or
	 * glibc's of the attribute's size (the default's when none) */
	if (attr && pthread_attr_getstack(attr, &addr, &size) == 0 &&
	    (uintptr_t)addr + size != 0) {
		/* the program's */
	} else if (attr) {
		addr = NULL;
		if (pthread_attr_getstacksize(attr, &size) != 0)
			size = 0;
	} else if (pthread_attr_init(&def) == 0) {
		if (pthread_attr_getstacksize(&def, &size) != 0)
			size = 0;
		pthread_attr_destroy(&def);
	}
	b = next_malloc ? next_malloc(sizeof(*b)) : NULL; /* not the
							    * program's */
	if (!b)
		return next_pthread_create(th, attr, fn, arg);
	b->fn = fn;
	b->arg = arg;
	b->addr = (uintptr_t)addr;
	b->size = size;
	rc = next_pthread_create(th, attr, thread_begins, b);
	if (rc != 0)
		next_free(b);
	return rc;
}

/* ---- fork and posix_spawn, forwarded: a followed process's child
 * announced to vmscope as the call returns (follow.c); nothing else ---- */

EXPORT pid_t fork(void)
{
	static pid_t (*next)(void);
	pid_t pid;

	if (!next)
		*(void **)&next = vt_sym("fork");
	pid = next();
	if (pid > 0)
		vt_follow_born(pid, NULL);
	return pid;
}

/* posix_spawn's and posix_spawnp's end: the child given back and, made,
 * announced (follow.c). */
static int spawned(int rc, pid_t got, pid_t *pid, char *const envp[])
{
	if (rc == 0) {
		if (pid)
			*pid = got;
		vt_follow_born(got, envp);
	}
	return rc;
}

EXPORT int posix_spawn(pid_t *pid, const char *path,
		       const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *at, char *const argv[],
		       char *const envp[])
{
	static int (*next)(
		pid_t *, const char *, const posix_spawn_file_actions_t *,
		const posix_spawnattr_t *, char *const[], char *const[]);
	pid_t got = 0;
	int rc;

	if (!next)
		*(void **)&next = vt_sym("posix_spawn");
	rc = next(&got, path, fa, at, argv, envp);
	return spawned(rc, got, pid, envp);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file,
			const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *at, char *const argv[],
			char *const envp[])
{
	static int (*next)(
		pid_t *, const char *, const posix_spawn_file_actions_t *,
		const posix_spawnattr_t *, char *const[], char *const[]);
	pid_t got = 0;
	int rc;

	if (!next)
		*(void **)&next = vt_sym("posix_spawnp");
	rc = next(&got, file, fa, at, argv, envp);
	return spawned(rc, got, pid, envp);
}

/* attach.c redirects the program's pthread_create here (vmstrace.c's
 * vt_fns): this library's own address, a hidden alias */
extern __typeof(pthread_create) pthread_create_local __attribute__((
	alias("pthread_create"), copy(pthread_create), visibility("hidden")));
