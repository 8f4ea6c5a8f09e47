/* units.h — sizes as people read them, the same units in the viewer and in
 * the text summary and export.
 *
 * Contract: pure functions into the (buf, n) given. Bytes are shown in K
 * (1024 bytes) up to 9999 K, then in M, G, T, P or E, each 1024 of the one
 * before, below 10000 of the unit; decimals are truncated, never rounded
 * up, so a figure is never overstated. Exact bytes are for --bytes (the
 * caller prints the number itself).
 */
#ifndef VMS_UNITS_H
#define VMS_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* The viewer's cells: one decimal below 100, none above ("3636 K",
 * "12.3 M", "128 T"); at most 7 characters. Returns buf. */
const char *units_size(uint64_t bytes, char *buf, size_t n);

/* The text summary: one decimal for every unit above K ("3636 K",
 * "12.3 M", "127.9 T"), so a large figure keeps four or five digits; at
 * most 8 characters. Returns buf. */
const char *units_size_long(uint64_t bytes, char *buf, size_t n);

#endif
