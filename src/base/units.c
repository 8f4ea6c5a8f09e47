/* units.c — sizes with units. See units.h. */
#include "base/units.h"

#include <stdbool.h>
#include <stdio.h>

static const char *fmt(uint64_t bytes, char *buf, size_t n, bool decimal)
{
	static const char units[] = "KMGTPE";
	uint64_t k = bytes >> 10;
	double v;
	int u = 0;

	if (k < 10000) {
		snprintf(buf, n, "%llu K", (unsigned long long)k);
		return buf;
	}
	v = (double)k;
	do { /* k >= 10000: at least once */
		v /= 1024;
		u++;
	} while (v >= 10000 && u < 5);
	if (decimal || v < 100)
		snprintf(buf, n, "%.1f %c", (double)((long long)(v * 10)) / 10,
			 units[u]);
	else
		snprintf(buf, n, "%llu %c", (unsigned long long)v, units[u]);
	return buf;
}

const char *units_size(uint64_t bytes, char *buf, size_t n)
{
	return fmt(bytes, buf, n, false);
}

const char *units_size_long(uint64_t bytes, char *buf, size_t n)
{
	return fmt(bytes, buf, n, true);
}
