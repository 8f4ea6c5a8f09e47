/* clock.h — the monotonic clock as a number: for timeouts, timings and
 * intervals, which a step of the wall clock must not move.
 *
 * Contract: vms_mono_ns() is CLOCK_MONOTONIC in nanoseconds (from an
 * arbitrary start, boot on Linux; time suspended is not counted); it
 * cannot fail there. vms_ms_since() and vms_us_since() are the whole
 * milliseconds and microseconds since t0_ns, an earlier reading of it
 * (a later one wraps: a huge number).
 */
#ifndef VMS_CLOCK_H
#define VMS_CLOCK_H

#include <stdint.h>

uint64_t vms_mono_ns(void);

static inline uint64_t vms_us_since(uint64_t t0_ns)
{
	return (vms_mono_ns() - t0_ns) / 1000;
}

static inline uint64_t vms_ms_since(uint64_t t0_ns)
{
	return (vms_mono_ns() - t0_ns) / 1000000;
}

#endif
