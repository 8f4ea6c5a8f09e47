/* heaps.h — the heaps screen's own state, shared by its files only
 * (screen_heaps.c and its parts heaps_glibc.c, heaps_alloc.c,
 * heaps_managed.c): no other screen includes it.
 *
 * Contract: the state lives in u->data[SCR_HEAPS] (ui.c gives it zeroed;
 * screen_heaps.c frees what it holds); heaps_of(u) is it. The open flags
 * are per s->heaps and per s->managed of the snapshot shown, dropped when
 * it changes.
 */
#ifndef VMS_UI_HEAPS_H
#define VMS_UI_HEAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/listview.h"
#include "core/ui_priv.h"

/* The heap row closed, which arenas are open (per s->heaps), the other
 * allocator's heading closed, the managed heaps' row closed and which are
 * open (per s->managed), the list over the rows shown. */
struct heapview {
	uint8_t *open;
	size_t nopen;
	bool closed;
	bool aclosed; /* the other allocator's heading closed */
	uint8_t *mopen;
	size_t nmopen;
	bool mclosed;
	bool bytes; /* exact bytes, not sizes as people read them */
	struct listview lv;
	size_t n; /* rows at the last draw */
};

static inline struct heapview *heaps_of(const struct ui *u)
{
	return u->data[SCR_HEAPS];
}

#endif
