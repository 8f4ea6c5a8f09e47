/* clock.c — the monotonic clock as a number (clock.h). */
#include "base/clock.h"

#include <time.h>

uint64_t vms_mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
