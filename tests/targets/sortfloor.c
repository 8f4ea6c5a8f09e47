/* sortfloor — the least a sort of N rows costs on this machine, for
 * make bench (bench_tui.py): beside the viewer's sort key.
 *
 *   sortfloor N
 *
 * N records of 176 bytes (a region's size in the engine) are made and
 * written once (their keys pseudo-random, see main); then, five times,
 * one 8-byte figure is read from each into a dense array of (key, row)
 * pairs, and the pairs are sorted by a stable LSD radix sort, a byte a
 * pass, passes whose byte is the same in every key skipped: what the
 * viewer's sort does, without its rows, allocations or screen. Prints
 * "keys MS sort MS" for the median run.
 */
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

static int cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 1000000;
	const size_t rec = 176;
	unsigned char *r = malloc(n * rec);
	struct pair *a = malloc(n * sizeof(*a)), *tmp = malloc(n * sizeof(*a));
	double keys[5], sorts[5], t0, t1, t2;
	size_t i;
	int run;

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
	memset(a, 0, n * sizeof(*a));
	memset(tmp, 0, n * sizeof(*a));
	for (run = 0; run < 5; run++) {
		t0 = now_ms();
		for (i = 0; i < n; i++) {
			memcpy(&a[i].k, r + i * rec + 48, 8);
			a[i].row = i;
		}
		t1 = now_ms();
		radix(a, tmp, n);
		t2 = now_ms();
		keys[run] = t1 - t0;
		sorts[run] = t2 - t1;
	}
	qsort(keys, 5, sizeof(double), cmp);
	qsort(sorts, 5, sizeof(double), cmp);
	printf("keys %.1f sort %.1f\n", keys[2], sorts[2]);
	free(r);
	free(a);
	free(tmp);
	return 0;
}
