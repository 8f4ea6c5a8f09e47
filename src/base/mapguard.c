/* mapguard.c — a SIGBUS in a guarded file mapping becomes zero pages and
 * a mark the reader checks. See mapguard.h.
 */
#include "base/mapguard.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

struct guard {
	_Atomic uintptr_t start; /* 0: a free slot */
	_Atomic size_t len;
	atomic_bool hit;
};

static struct guard guards[MAPGUARD_MAX];
static struct sigaction before;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool installed;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	int i;

	(void)sig;
	(void)uc;
	for (i = 0; i < MAPGUARD_MAX; i++) {
		uintptr_t s = atomic_load(&guards[i].start);
		size_t n = atomic_load(&guards[i].len);

		if (s <= 1 || a < s || a - s >= n) /* 1: being set up */
			continue;
		/* The file is gone under the mapping: zeros from here on,
		 * and the reader is told. */
		if (mmap((void *)s, n, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0) == MAP_FAILED)
			break;
		atomic_store(&guards[i].hit, true);
		return;
	}
	/* Not a guarded mapping's: the action in place before, on the
	 * access's next attempt. */
	sigaction(SIGBUS, &before, NULL);
}

static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	installed = sigaction(SIGBUS, &sa, &before) == 0;
}

int mapguard_add(void *addr, size_t len)
{
	int i;

	pthread_once(&once, install);
	if (!installed || !addr || !len)
		return -1;
	for (i = 0; i < MAPGUARD_MAX; i++) {
		uintptr_t free_slot = 0;

		if (!atomic_compare_exchange_strong(&guards[i].start,
						    &free_slot, 1))
			continue;
		atomic_store(&guards[i].len, len);
		atomic_store(&guards[i].hit, false);
		atomic_store(&guards[i].start, (uintptr_t)addr);
		return 0;
	}
	return -1;
}

static struct guard *find(const void *addr)
{
	int i;

	for (i = 0; addr && i < MAPGUARD_MAX; i++)
		if (atomic_load(&guards[i].start) == (uintptr_t)addr)
			return &guards[i];
	return NULL;
}

bool mapguard_hit(const void *addr)
{
	struct guard *g = find(addr);

	return g && atomic_load(&g->hit);
}

void mapguard_remove(const void *addr)
{
	struct guard *g = find(addr);

	if (g)
		atomic_store(&g->start, 0);
}
