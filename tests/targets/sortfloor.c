/* sortfloor — the least a sort of N rows costs on this machine, for
 * make bench (bench_tui.py): beside the viewer's sort key.
 *
 *   sortfloor N [IDLE_MS]
 *
 * N records of 176 bytes (a region's size in the engine) are made and
 * written once (their keys pseudo-random, see main); then, five times,
 * one 8-byte figure is read from each into a dense array of (key, row)
 * pairs, and the pairs are sorted by a stable LSD radix sort, a byte a
 * pass, passes whose byte is the same in every key skipped: what the
 * viewer's sort does, without its rows, allocations or screen. Prints
 * "keys MS sort MS" for the median run.
 *
 * With IDLE_MS, five more runs follow, each after sleeping IDLE_MS, and
 * a second line "idle IDLE_MS keys MS sort MS" gives their median: the
 * same work on memory not touched for that long, as a viewer's first
 * sort after some keys that do not sort. On this project's machine (a
 * VM, 2026-11-29, pauses of 2.5 s) such a run took about twice as long
 * as one straight after another while make check ran beside it, the
 * keys' read and the sort alike, and as long with 50 ms of computing
 * between the sleep and the run (not the clock of an idle CPU, then);
 * with nothing else running, the keys' read alone, in two runs of
 * three (11.9 and 12.5 ms against 6.6 and 6.2). Memory left alone for
 * a second or two may come back slower; this says how much here.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct pair {
	uint64_t k, row;
};

/* splitmix64: a fixed pseudo-random key a row */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15u;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
	return x ^ (x >> 31);
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void radix(struct pair *a, struct pair *tmp, size_t n)
{
	static size_t c[8][256];
	struct pair *from = a, *to = tmp, *t;
	size_t i, at, k;
	int b, x;

	memset(c, 0, sizeof(c));
	for (i = 0; i < n; i++)
		for (b = 0; b < 8; b++)
			c[b][(a[i].k >> (8 * b)) & 255]++;
	for (b = 0; b < 8; b++) {
		if (c[b][(a[0].k >> (8 * b)) & 255] == n)
			continue;
		for (x = 0, at = 0; x < 256; x++) {
			k = c[b][x];
			c[b][x] = at;
			at += k;
		}
		for (i = 0; i < n; i++)
			to[c[b][(from[i].k >> (8 * b)) & 255]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
	if (from != a)
		memcpy(a, from, n * sizeof(*a));
}

/* One run: each record's key into a, then a sorted; its times in ms. */
static void run_once(const unsigned char *r, size_t rec, struct pair *a,
		     struct pair *tmp, size_t n, double *keys, double *sort)
{
	double t0, t1, t2;
	size_t i;

	t0 = now_ms();
	for (i = 0; i < n; i++) {
		memcpy(&a[i].k, r + i * rec + 48, 8);
		a[i].row = i;
	}
	t1 = now_ms();
	radix(a, tmp, n);
	t2 = now_ms();
	*keys = t1 - t0;
	*sort = t2 - t1;
}

static int cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The median of five runs (each after sleeping idle_ms, if not 0),
 * printed with label. */
static void five(const char *label, const unsigned char *r, size_t rec,
		 struct pair *a, struct pair *tmp, size_t n, long idle_ms)
{
	double keys[5], sorts[5];
	int run;

	for (run = 0; run < 5; run++) {
		struct timespec t = { idle_ms / 1000,
				      idle_ms % 1000 * 1000000 };

		while (idle_ms > 0 && nanosleep(&t, &t) != 0 && errno == EINTR)
			; /* a signal: the rest of the pause */
		run_once(r, rec, a, tmp, n, &keys[run], &sorts[run]);
	}
	qsort(keys, 5, sizeof(double), cmp);
	qsort(sorts, 5, sizeof(double), cmp);
	printf("%skeys %.1f sort %.1f\n", label, keys[2], sorts[2]);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 1000000;
	long idle_ms = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	const size_t rec = 176;
	unsigned char *r = malloc(n * rec);
	struct pair *a = malloc(n * sizeof(*a)), *tmp = malloc(n * sizeof(*a));
	char label[64];
	size_t i;

	if (!r || !a || !tmp || n < 2)
		return 1;
	/* keys like region sizes (4 KiB multiples, four bytes differ: four
	 * passes), drawn at random: a key made as a permutation of the rows
	 * (i * constant % a prime near N) fills the 256 buckets of a pass in
	 * lockstep, and their write streams then collide in the cache: at
	 * N = 1,000,000 the sort took 22-30 ms where 1,000,024 took 12-18 */
	for (i = 0; i < n * rec; i += 8) {
		uint64_t v = mix(i / rec) % 1000003 * 4096;

		memcpy(r + i, &v, 8);
	}
	/* written through (not zeroes: a compiler may make malloc and a
	 * memset of 0 one calloc, whose pages come at the first run) */
	memset(a, 1, n * sizeof(*a));
	memset(tmp, 1, n * sizeof(*a));
	five("", r, rec, a, tmp, n, 0);
	if (idle_ms > 0) {
		snprintf(label, sizeof(label), "idle %ld ", idle_ms);
		five(label, r, rec, a, tmp, n, idle_ms);
	}
	free(r);
	free(a);
	free(tmp);
	return 0;
}
