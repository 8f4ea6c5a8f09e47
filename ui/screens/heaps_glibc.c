/* heaps_glibc.c — the heaps screen's detail of glibc's malloc and of one
 * of its arenas (heaps_glibc.h): mallinfo2's figures, the fragmentation
 * strip of its segments end to end, the free-chunk size histogram; where
 * the walk was not done, why. Reads only the finished snapshot (s->glibc,
 * s->heaps).
 */
#include "screens/heaps_glibc.h"

#include <stdio.h>
#include <string.h>

#include "core/draw.h"

const char *hg_arena_name(const struct vms_heap *h, char *buf, size_t n)
{
	bool main = h->kind && strcmp(h->kind, "glibc-main") == 0;

	snprintf(buf, n, "%s 0x%llx", main ? "main arena" : "arena",
		 (unsigned long long)h->id);
	return buf;
}

/* A size as people read it, or in bytes (heaps.h: bytes). */
const char *hg_figure(const struct ui *u, uint64_t v, char *buf, size_t n)
{
	if (!heaps_of(u)->bytes)
		return fmt_size(v, buf, n);
	snprintf(buf, n, "%llu", (unsigned long long)v);
	return buf;
}

static const char *figure_or_dash(const struct ui *u, int64_t v, char *buf,
				  size_t n)
{
	return v < 0 ? "-" : hg_figure(u, (uint64_t)v, buf, n);
}

/* One cell of the strip: '#' in use, ':' partly free, '.' free, 'T' top
 * (its larger share decides). */
static char strip_char(uint64_t fr, uint64_t top, uint64_t cell)
{
	if (!cell)
		return ' ';
	if (top * 2 >= cell)
		return 'T';
	if ((fr + top) * 2 >= cell)
		return '.';
	if ((fr + top) * 10 >= cell)
		return ':';
	return '#';
}

static void draw_strip(int y, int x, int w, const struct vms_heap_glibc *g)
{
	int c;

	if (w <= 0)
		return;
	for (c = 0; c < w; c++) {
		/* columns over cells: each column the cells under it */
		size_t c0 = (size_t)c * VMS_HEAP_STRIP / (size_t)w;
		size_t c1 = (size_t)(c + 1) * VMS_HEAP_STRIP / (size_t)w;
		uint64_t fr = 0, top = 0, bytes;
		size_t k;
		char ch;

		if (c1 <= c0)
			c1 = c0 + 1;
		for (k = c0; k < c1 && k < VMS_HEAP_STRIP; k++) {
			fr += g->strip_free[k];
			top += g->strip_top[k];
		}
		bytes = g->strip_bytes * (c1 - c0) / VMS_HEAP_STRIP;
		ch = strip_char(fr, top, bytes);
		attrset(ch == '#'   ? theme_attr(EL_HEAP) | A_REVERSE
			: ch == 'T' ? theme_attr(EL_FREE) | A_REVERSE
				    : theme_attr(EL_NORMAL));
		mvaddch(y, x + c, (chtype)ch);
	}
	attrset(A_NORMAL);
}

/* "Label value" pairs on one line, as many as fit whole. */
static int pair(int y, int x, const char *label, const char *value)
{
	int lw = text_cols(label), vw = text_cols(value);

	if (x + lw + 1 + vw > COLS)
		return COLS;
	put_str(y, x, lw + 1, theme_attr(EL_LABEL), label, 1);
	put_str(y, x + lw + 1, vw, theme_attr(EL_NORMAL), value, 1);
	return x + lw + vw + 3;
}

/* The lines a pair list takes when wrapped at the width. */
int hg_pairs(int y, int ymax, const char *const *kv, size_t n)
{
	int x = 1;
	size_t i;

	for (i = 0; i + 1 < n && y < ymax; i += 2) {
		int need = text_cols(kv[i]) + text_cols(kv[i + 1]) + 3;

		if (x > 1 && x + need > COLS) {
			y++;
			x = 1;
			if (y >= ymax)
				break;
			put_blank(y, 0, COLS, theme_attr(EL_NORMAL));
		}
		x = pair(y, x, kv[i], kv[i + 1]);
	}
	return y + 1;
}

static void draw_hist(int y, int ymax, const struct vms_heap_glibc *g)
{
	uint64_t most = 0;
	int k, barw = COLS - 40;
	char lo[16], hi[16], by[16];

	for (k = 0; k < VMS_HEAP_HIST; k++)
		if (g->hist[k] > most)
			most = g->hist[k];
	if (!most) {
		put_str(y, 1, COLS - 1, theme_attr(EL_DIM),
			"Free chunks by size: none outside top", 1);
		return;
	}
	y += put_wrapped(y, 1, COLS - 2, ymax - y > 1 ? 2 : 1,
			 theme_attr(EL_LABEL),
			 "Free chunks by size (top apart; each from the first "
			 "size up to the second, not included):");
	for (k = 0; k < VMS_HEAP_HIST && y < ymax; k++) {
		int n;

		if (!g->hist[k])
			continue;
		put_blank(y, 0, COLS, theme_attr(EL_NORMAL));
		fmt_size(32ull << k, lo, sizeof(lo));
		/* the end not included: 2047 bytes would read "1 K" */
		fmt_size(64ull << k, hi, sizeof(hi));
		put_fmt(y, 1, 38, theme_attr(EL_NORMAL), "%7s-%-7s %7llu %7s",
			lo, k + 1 < VMS_HEAP_HIST ? hi : "",
			(unsigned long long)g->hist[k],
			fmt_size(g->hist_bytes[k], by, sizeof(by)));
		n = barw > 0 ? (int)((double)g->hist[k] * barw / (double)most +
				     0.5)
			     : 0;
		if (n < 1 && barw > 0)
			n = 1;
		attrset(theme_attr(EL_HEAP));
		if (n > 0)
			mvhline(y, 39, '=', n);
		attrset(A_NORMAL);
		y++;
	}
}

/* The detail of the arena h (NULL: the process's malloc, or why it was
 * not walked) in lines [y, ymax). */
void hg_detail(struct ui *u, int y, int ymax, const struct vms_heap *h)
{
	const struct vms_snapshot *s = u->snap;
	const struct vms_heap_glibc *g = h ? h->glibc : NULL;
	char b[12][24], an[64], frag[24];
	int i;

	for (i = y; i < ymax; i++)
		put_blank(i, 0, COLS, theme_attr(EL_NORMAL));
	if (!h) {
		const struct vms_malloc *m = s->glibc;

		if (!m) {
			put_wrapped(y, 1, COLS - 2, ymax - y,
				    theme_attr(EL_ERROR),
				    "The heaps were not walked: no consistent "
				    "memory of one instant, or no glibc found "
				    "(the notes above say which). -b fork or "
				    "-b pss -F walks them.");
			return;
		}
		{
			const char *kv[] = {
				"glibc",
				m->version,
				"found by",
				m->found_by,
				"tcache",
				hg_figure(u, m->tcache, b[0], 24),
				"overhead",
				hg_figure(u, m->overhead, b[1], 24),
				"mmapped chunks",
				(snprintf(b[2], 24, "%llu",
					  (unsigned long long)m->hblks),
				 b[2]),
				"mmapped",
				hg_figure(u, m->hblkhd, b[3], 24),
				"top of main (keepcost)",
				hg_figure(u, m->keepcost, b[4], 24),
			};

			y = hg_pairs(y, ymax, kv, sizeof(kv) / sizeof(kv[0]));
		}
		if (m->partial && y < ymax)
			put_fmt(y, 1, COLS - 1, theme_attr(EL_ERROR),
				"partial: %s", m->partial);
		return;
	}
	put_fmt(y++, 1, COLS - 1, theme_attr(EL_TITLE), "%s  (%s)",
		hg_arena_name(h, an, sizeof(an)), h->kind ? h->kind : "?");
	if (!vms_heap_glibc_walked(g)) {
		if (y < ymax)
			put_str(y, 1, COLS - 1, theme_attr(EL_ERROR),
				!g ? "found by its shape only: not walked"
				: g->busy
					? "locked at the snapshot (busy): not "
					  "walked"
					: "its arena could not be read: not "
					  "walked",
				1);
		return;
	}
	snprintf(frag, sizeof(frag), "%.1f%%",
		 g->system ? 100.0 * (double)(h->free - h->top) /
				     (double)g->system
			   : 0.0);
	{
		const char *kv[] = {
			"System",
			hg_figure(u, g->system, b[0], 24),
			"In use",
			hg_figure(u, (uint64_t)h->in_use, b[1], 24),
			"Free",
			hg_figure(u, (uint64_t)h->free, b[2], 24),
			"Free resident",
			figure_or_dash(u, g->free_resident, b[3], 24),
			"Tcache",
			hg_figure(u, g->tcache, b[4], 24),
			"Overhead",
			hg_figure(u, g->overhead, b[5], 24),
			"Chunks",
			(snprintf(b[6], 24, "%lld", (long long)h->chunks), b[6]),
			"Free chunks",
			(snprintf(b[7], 24, "%lld", (long long)h->free_chunks), b[7]),
			"Largest free",
			hg_figure(u, g->largest_free, b[8], 24),
			"Top",
			hg_figure(u, (uint64_t)h->top, b[9], 24),
			"Fragmentation",
			frag,
		};

		y = hg_pairs(y, ymax, kv, sizeof(kv) / sizeof(kv[0]));
	}
	if (g->partial && y < ymax)
		put_fmt(y++, 1, COLS - 1, theme_attr(EL_ERROR), "partial: %s",
			g->partial);
	if (g->strip_bytes && y < ymax) {
		put_str(y, 1, 6, theme_attr(EL_LABEL), "Strip", 1);
		draw_strip(y, 7, COLS - 8, g);
		y++;
		if (y < ymax)
			put_str(y++, 7, COLS - 8, theme_attr(EL_DIM),
				"# in use  : partly free  . free  T top "
				"(segments end to end)",
				1);
	}
	if (y < ymax)
		draw_hist(y, ymax, g);
}
