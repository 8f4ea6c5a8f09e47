/* allocloop — the tracer's benchmark loop: argv[1] pairs (default
 * 5,000,000) of malloc and free of 16 to 79 bytes, two calls deep, as the
 * issue's measurement did; prints "loop NS ns/pair" of its own timing of
 * the loop (what the tracer adds to each pair, without start and exit). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) static void *inner(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static void pair(long i)
{
	void *p = inner(16 + (size_t)(i & 63));

	*(volatile char *)p = 1;
	free(p);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5000000, i;
	struct timespec a, b, ca, cb;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		pair(i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
	printf("loop %.1f ns/pair, cpu %.1f ns/pair\n",
	       ((double)(b.tv_sec - a.tv_sec) * 1e9 +
		(double)(b.tv_nsec - a.tv_nsec)) /
		       (double)n,
	       ((double)(cb.tv_sec - ca.tv_sec) * 1e9 +
		(double)(cb.tv_nsec - ca.tv_nsec)) /
		       (double)n);
	return 0;
}
