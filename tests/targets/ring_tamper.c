/* ring_tamper.c — a traced program that writes into its own trace rings
 * (tests/live/test_trace_hostile.py): vmscope must survive whatever a
 * program does to the shared file, refuse what breaks the wire's rules
 * and count it. The main thread mallocs and frees ROUNDS blocks (argv[1],
 * default 500000) of 16-215 bytes; a second thread, started when the
 * rings are mapped (vmscope --trace), rewrites the first two bytes (the
 * operation and the length of a record header, or the low bytes of a
 * field) of random words between the tail and the head of the main
 * thread's ring, what vmscope has yet to read, and of the word at the
 * tail, which it may be reading. Prints "done SUM" (SUM from the blocks'
 * contents: the same traced or not) and exits 0; how many words it
 * rewrote goes to stderr.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../src/base/tracewire.h"

static void *base;
static volatile int stop;
static int main_tid;

static void *find_rings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	void *at = NULL;

	if (!f)
		return NULL;
	while (!at && fgets(line, sizeof(line), f))
		if (strstr(line, "vmscope-trace"))
			at = (void *)strtoull(line, NULL, 16);
	fclose(f);
	return at;
}

static void *scribble(void *arg)
{
	unsigned long long x = 88172645463325252ull, n = 0;
	unsigned s;

	(void)arg;
	while (!stop)
		for (s = 0; s < TW_SLOTS; s++) {
			struct tw_slot *sl = tw_slot_at(base, s);
			unsigned long long head, tail, off;
			unsigned char *p;

			if (__atomic_load_n(&sl->state, __ATOMIC_RELAXED) !=
				    TW_SLOT_LIVE ||
			    sl->tid != main_tid)
				continue;
			head = __atomic_load_n(&sl->head, __ATOMIC_ACQUIRE);
			tail = __atomic_load_n(&sl->tail, __ATOMIC_RELAXED);
			if (head - tail < 8 || head - tail > TW_RING_BYTES)
				continue;
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			off = x & 4 ? tail
				    : tail + ((x >> 8) % ((head - tail) / 8)) * 8;
			p = tw_ring_at(base, s) + off % TW_RING_BYTES;
			p[1] = x & 1 ? 255 : (unsigned char)(x >> 16);
			if (x & 2)
				p[0] = (unsigned char)((x >> 40) % TW_OP_COUNT);
			n++;
		}
	return (void *)(unsigned long)n;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 500000, i;
	unsigned long sum = 0;
	pthread_t t;
	void *n = NULL;

	main_tid = (int)syscall(SYS_gettid);
	base = find_rings();
	if (base && pthread_create(&t, NULL, scribble, NULL) != 0)
		base = NULL;
	for (i = 0; i < rounds; i++) {
		volatile unsigned char *p = malloc(16 + (size_t)(i % 200));

		if (!p)
			return 1;
		p[0] = (unsigned char)i;
		sum += p[0] & 1;
		free((void *)p);
	}
	stop = 1;
	if (base)
		pthread_join(t, &n);
	printf("done %lu\n", sum);
	fprintf(stderr, "rewrote %lu words\n", (unsigned long)n);
	return 0;
}
