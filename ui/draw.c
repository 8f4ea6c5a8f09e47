/* draw.c — formatting and clipped drawing. See draw.h. */
#include "draw.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../src/snapshot.h"

char type_letter(int type, bool reserved)
{
	char c = vms_type_info[type].letter;

	return reserved && c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

const char *fmt_size(uint64_t bytes, char *buf, size_t n)
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
	while (v >= 10000 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0) { /* unreachable: k >= 10000 divides at least once */
		v /= 1024;
		u++;
	}
	if (v < 100)
		snprintf(buf, n, "%.1f %c", (double)((long long)(v * 10)) / 10,
			 units[u]);
	else
		snprintf(buf, n, "%llu %c", (unsigned long long)v, units[u]);
	return buf;
}

int put_str(int y, int x, int w, attr_t attr, const char *s, int pad)
{
	int maxx = getmaxx(stdscr), len;

	if (y < 0 || y >= getmaxy(stdscr) || x >= maxx || w <= 0)
		return 0;
	if (x + w > maxx)
		w = maxx - x;
	len = (int)strnlen(s, (size_t)w);
	attrset(attr);
	mvaddnstr(y, x, s, len);
	if (pad && len < w)
		mvhline(y, x + len, ' ', w - len);
	attrset(A_NORMAL);
	return pad ? w : len;
}

void put_right(int y, int x, int w, attr_t attr, const char *s)
{
	int len = (int)strlen(s);

	if (len >= w) {
		put_str(y, x, w, attr, s, 1);
		return;
	}
	put_blank(y, x, w - len, attr);
	put_str(y, x + w - len, len, attr, s, 1);
}

int put_fmt(int y, int x, int w, attr_t attr, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return put_str(y, x, w, attr, buf, 1);
}

void put_blank(int y, int x, int w, attr_t attr)
{
	put_str(y, x, w, attr, "", 1);
}

int contains_ci(const char *hay, const char *needle_lc)
{
	size_t nl = strlen(needle_lc);
	const char *h;

	if (!hay)
		return 0;
	if (!nl)
		return 1;
	for (h = hay; *h; h++) {
		size_t i;

		for (i = 0; i < nl && h[i]; i++)
			if (tolower((unsigned char)h[i]) != needle_lc[i])
				break;
		if (i == nl)
			return 1;
	}
	return 0;
}
