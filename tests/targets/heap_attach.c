/* heap_attach.c — a process already running whose heap is traced by an
 * attach (tests/live/test_trace_attach_heap.py). Prints "ready", then
 * obeys one command a line on stdin, each answered by one line:
 *   leak N   N calls of leak_block(): malloc(40), kept
 *   churn N  N calls of churn_block(): malloc(1000), written, freed
 *   free N   frees the N oldest blocks kept
 *   thread N a thread of its own makes N calls of leak_block(), joined
 *   lib N PATH  loads the library at PATH (dlopen) and calls its
 *            lib_leak(N), which leaks N blocks of its own
 *   libonce N PATH  the same, then unloads the library (dlclose): its
 *            GOT is gone while the blocks it leaked stay
 *   fork N   a child (fork()) makes N calls of leak_block() from
 *            fork_child() and exits with a status of what it read back;
 *            the parent waits for it and answers with that status
 *   rawfork N  the same, the child made by the raw fork system call (no
 *            pthread_atfork handler runs)
 *   bgdl N PATH  a thread of its own loads the library at PATH, calls its
 *            lib_leak(1) and unloads it, again and again until "bgstop";
 *            answered once it has done so N times
 *   bgstop   stops that thread (joined)
 *   child N  a child (fork()) answers this command and the ones after it
 *            until its "end"; the parent waits for it, then answers
 *            with the child's exit status
 *   spin     runs in user code, never in a system call, until SIGUSR1
 *   waiters N  N threads started (at most 4096, once), each waiting on
 *            a condition variable; answered once all N wait
 *   wake     those threads woken: each makes one call of leak_block()
 *            (kept), then waits at a barrier until all of them have, so
 *            that all N live at once through their calls; joined
 *   end      exits 0
 * The answer ("ok CMD N SUM") carries a sum of what it reads back from
 * the blocks kept, so that a traced run's output can be compared with an
 * untraced one's (it says so when errno changed while it waited). Between
 * commands it blocks in read().
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_KEPT 1000000

static char *kept[MAX_KEPT];
static char inbuf[8192], outbuf[8192];
static size_t first, nkept;

__attribute__((noinline)) static char *leak_block(size_t i)
{
	char *p = malloc(40);

	if (p)
		memset(p, (int)(i & 0x7f), 40);
	return p;
}

__attribute__((noinline)) static unsigned long churn_block(size_t i)
{
	volatile char *p = malloc(1000);
	unsigned long v;

	if (!p)
		return 0;
	p[i % 1000] = (char)i;
	v = (unsigned char)p[i % 1000];
	free((void *)p);
	return v;
}

/* A thread's leaks, kept by main after the join. */
struct work {
	size_t n, from;
	char **out;
};

__attribute__((noinline)) static void *leak_thread(void *arg)
{
	struct work *w = arg;
	size_t i;

	for (i = 0; i < w->n; i++)
		w->out[i] = leak_block(w->from + i);
	return NULL;
}

/* A forked child's work: n blocks of its own, kept (and leaked: it ends
 * by _exit, the parent's stdio buffers not flushed twice). */
__attribute__((noinline)) static void fork_child(unsigned long n)
{
	unsigned long i, s = 0;

	for (i = 0; i < n && nkept < MAX_KEPT; i++) {
		kept[nkept] = leak_block(nkept);
		if (kept[nkept])
			s += (unsigned char)kept[nkept++][i % 40];
	}
	_exit((int)(s % 200));
}

/* fork N and rawfork N: the child's exit status (or 255 + its signal). */
static unsigned long forked(unsigned long n, int raw)
{
	pid_t c = raw ? (pid_t)syscall(SYS_fork) : fork();
	int st;

	if (c == 0)
		fork_child(n);
	if (c < 0 || waitpid(c, &st, 0) != c)
		return 1000;
	return WIFEXITED(st) ? (unsigned long)WEXITSTATUS(st)
			     : 255 + (unsigned long)WTERMSIG(st);
}

/* bgdl's thread: loads, calls and unloads the library until told. */
static char bg_path[4096];
static unsigned long bg_rounds;
static pthread_t bg_thread;
static int bg_stop, bg_failed;

static void *bg_loop(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&bg_stop, __ATOMIC_ACQUIRE)) {
		void *h = dlopen(bg_path, RTLD_NOW);
		unsigned long (*fn)(unsigned long);

		if (!h || !(*(void **)&fn = dlsym(h, "lib_leak"))) {
			__atomic_store_n(&bg_failed, 1, __ATOMIC_RELEASE);
			break;
		}
		fn(1);
		dlclose(h);
		__atomic_add_fetch(&bg_rounds, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* waiters' threads: wait for "wake", one leak_block() each, then the
 * barrier (all of them alive through their calls), then exit. */
static pthread_mutex_t w_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t w_cond = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t w_done;
#define MAX_WAITERS 4096
static pthread_t w_threads[MAX_WAITERS]; /* not malloc's: see main */
static char **w_out;
static unsigned long w_n, w_waiting;
static int w_go;

__attribute__((noinline)) static void *waiter(void *arg)
{
	size_t i = (size_t)(unsigned long)arg;

	pthread_mutex_lock(&w_lock);
	w_waiting++;
	pthread_cond_broadcast(&w_cond);
	while (!w_go)
		pthread_cond_wait(&w_cond, &w_lock);
	pthread_mutex_unlock(&w_lock);
	w_out[i] = leak_block(nkept + i);
	pthread_barrier_wait(&w_done);
	return NULL;
}

/* waiters N: 0, or -1 when the threads could not be made. */
static int waiters(unsigned long n)
{
	unsigned long i;

	if (n == 0 || n > MAX_WAITERS || n > MAX_KEPT - nkept || w_n ||
	    pthread_barrier_init(&w_done, NULL, (unsigned)n) != 0)
		return -1;
	w_out = kept + nkept;
	w_n = n;
	for (i = 0; i < n; i++)
		if (pthread_create(&w_threads[i], NULL, waiter,
				   (void *)(unsigned long)i) != 0)
			return -1;
	pthread_mutex_lock(&w_lock);
	while (w_waiting < n)
		pthread_cond_wait(&w_cond, &w_lock);
	pthread_mutex_unlock(&w_lock);
	return 0;
}

/* wake: 0, or -1 without waiters. */
static int wake(void)
{
	unsigned long i;

	if (!w_n)
		return -1;
	pthread_mutex_lock(&w_lock);
	w_go = 1;
	pthread_cond_broadcast(&w_cond);
	pthread_mutex_unlock(&w_lock);
	for (i = 0; i < w_n; i++)
		pthread_join(w_threads[i], NULL);
	for (i = 0; i < w_n; i++)
		if (kept[nkept])
			nkept++;
	return 0;
}

static volatile sig_atomic_t go_on;

static void on_usr1(int sig)
{
	(void)sig;
	go_on = 1;
}

static unsigned long sum(void)
{
	unsigned long s = 0;
	size_t i;

	for (i = first; i < nkept; i++)
		s += (unsigned char)kept[i][i % 40];
	return s;
}

int main(void)
{
	char line[4200], cmd[16], path[4096];
	unsigned long n, i, extra;

	/* stdio's buffers its own, not malloc's: the blocks alive at an
	 * attach are the ones "leak" kept (the test counts them) */
	setvbuf(stdin, inbuf, _IOFBF, sizeof(inbuf));
	setvbuf(stdout, outbuf, _IOLBF, sizeof(outbuf));
	signal(SIGUSR1, on_usr1);
	/* malloc's and free's GOT entries bound now (lazy binding would
	 * change them at their first call: the test compares them) */
	free(malloc(1));
	printf("ready\n");
	/* errno across the wait in read(), where an attach borrows this
	 * thread: the answer says when it changed (an untraced run's never
	 * does, and the tests compare the answers) */
	for (errno = 4242; fgets(line, sizeof(line), stdin); errno = 4242) {
		if (errno != 4242)
			printf("errno changed to %d while it waited: ", errno);
		if (sscanf(line, "%15s %lu", cmd, &n) < 1)
			continue;
		extra = 0;
		if (strcmp(cmd, "end") == 0)
			return 0;
		if (strcmp(cmd, "leak") == 0) {
			for (i = 0; i < n && nkept < MAX_KEPT; i++) {
				kept[nkept] = leak_block(nkept);
				if (kept[nkept])
					nkept++;
			}
		} else if (strcmp(cmd, "churn") == 0) {
			for (i = 0; i < n; i++)
				extra += churn_block(i);
		} else if (strcmp(cmd, "thread") == 0) {
			struct work w = { n, nkept, kept + nkept };
			pthread_t t;

			if (n > MAX_KEPT - nkept ||
			    pthread_create(&t, NULL, leak_thread, &w) != 0)
				return 1;
			pthread_join(t, NULL);
			for (i = 0; i < n; i++)
				if (kept[nkept])
					nkept++;
		} else if (strcmp(cmd, "lib") == 0 ||
			   strcmp(cmd, "libonce") == 0) {
			void *h;
			unsigned long (*fn)(unsigned long);

			if (sscanf(line, "%15s %lu %4095s", cmd, &n, path) != 3 ||
			    !(h = dlopen(path, RTLD_NOW)) ||
			    !(*(void **)&fn = dlsym(h, "lib_leak")))
				return 1;
			extra = fn(n);
			if (strcmp(cmd, "libonce") == 0 && dlclose(h) != 0)
				return 1;
		} else if (strcmp(cmd, "fork") == 0 ||
			   strcmp(cmd, "rawfork") == 0) {
			fflush(stdout);
			extra = forked(n, strcmp(cmd, "rawfork") == 0);
		} else if (strcmp(cmd, "bgdl") == 0) {
			pthread_t t;

			if (sscanf(line, "%15s %lu %4095s", cmd, &n, bg_path) !=
				    3 ||
			    pthread_create(&t, NULL, bg_loop, NULL) != 0)
				return 1;
			while (__atomic_load_n(&bg_rounds, __ATOMIC_ACQUIRE) < n)
				if (__atomic_load_n(&bg_failed,
						    __ATOMIC_ACQUIRE) ||
				    usleep(1000) < 0)
					return 1;
			bg_thread = t;
		} else if (strcmp(cmd, "bgstop") == 0) {
			__atomic_store_n(&bg_stop, 1, __ATOMIC_RELEASE);
			if (pthread_join(bg_thread, NULL) != 0 || bg_failed)
				return 1;
			bg_stop = 0;
			bg_rounds = 0;
		} else if (strcmp(cmd, "child") == 0) {
			pid_t c;
			int st;

			fflush(stdout);
			if ((c = fork()) < 0)
				return 1;
			if (c == 0) { /* the commands after are the child's */
				printf("ok child %lu %lu\n", n, sum());
				continue;
			}
			if (waitpid(c, &st, 0) != c)
				return 1;
			extra = WIFEXITED(st) ? (unsigned long)WEXITSTATUS(st)
					      : 255 + (unsigned long)WTERMSIG(st);
		} else if (strcmp(cmd, "spin") == 0) {
			printf("spinning\n");
			while (!go_on)
				;
			go_on = 0;
		} else if (strcmp(cmd, "waiters") == 0) {
			if (waiters(n) < 0)
				return 1;
		} else if (strcmp(cmd, "wake") == 0) {
			if (wake() < 0)
				return 1;
		} else if (strcmp(cmd, "free") == 0) {
			for (i = 0; i < n && first < nkept; i++)
				free(kept[first++]);
		}
		printf("ok %s %lu %lu\n", cmd, n, sum() + extra);
	}
	return 0;
}
