/* export_util.c — what every exporter writes the same way. See
 * export_util.h.
 */
#include "export/export_util.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/outbuf.h"
#include "model/columns.h"
#include "model/totals.h"

const char *export_perms(const struct vms_region *r, char *buf)
{
	buf[0] = r->perms & VMS_PERM_R ? 'r' : '-';
	buf[1] = r->perms & VMS_PERM_W ? 'w' : '-';
	buf[2] = r->perms & VMS_PERM_X ? 'x' : '-';
	buf[3] = r->perms & VMS_PERM_SHARED ? 's' : 'p';
	buf[4] = '\0';
	return buf;
}

size_t export_state_words(const struct vms_region *r, const char **w,
			  size_t max)
{
	static const struct {
		uint16_t bit;
		const char *word;
	} tab[] = {
		{ VMS_RF_DELETED, "deleted" },
		{ VMS_RF_RESERVED, "reserved" },
		{ VMS_RF_NO_COUNTERS, "partial" },
		{ VMS_RF_UNREADABLE, "unreadable" },
		{ VMS_RF_IMAGE_UNOPENED, "image_unopened" },
		{ VMS_RF_GUARD, "guard" },
		{ VMS_RF_APPROX, "approx" },
	};
	size_t i, n = 0;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]) && n < max; i++)
		if (r->flags & tab[i].bit)
			w[n++] = tab[i].word;
	return n;
}

const char *export_taken_at(const struct vms_snapshot *s, char *buf, size_t n)
{
	time_t t = (time_t)s->cap.taken_at_sec;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, n, "unknown");
	return buf;
}

const char *export_rollup_check(const struct vms_snapshot *s, char *buf,
				size_t n)
{
	char why[200];
	int r = totals_check_rollup(s, why, sizeof(why));

	if (r < 0)
		snprintf(buf, n, "smaps_rollup not read");
	else if (r > 0)
		snprintf(buf, n, "the regions add up to smaps_rollup");
	else if (s->cap.approx_regions)
		snprintf(buf, n, "not comparable with smaps_rollup: %s", why);
	else
		snprintf(buf, n,
			 "differs from smaps_rollup (%s): the process "
			 "changed while it was read%s",
			 why, s->cap.frozen ? "" : "; --freeze reads it still");
	return buf;
}

void export_totals_values(const struct vms_totals *t, uint64_t *v)
{
	int c;

	for (c = 0; c < VMS_NCOLS; c++)
		v[c] = vms_column_type(t, (enum vms_col)c);
}

bool export_json_scalar(struct outbuf *o, const struct vms_field *f,
			const void *rec)
{
	const char *at = (const char *)rec + f->off;
	uint64_t u;
	int64_t v;
	const char *str;
	bool b;

	switch (f->kind) {
	case VMS_FK_U64:
		memcpy(&u, at, sizeof(u));
		ob_u64(o, u);
		return true;
	case VMS_FK_HEX:
		memcpy(&u, at, sizeof(u));
		ob_putc(o, '"');
		ob_hex(o, u);
		ob_putc(o, '"');
		return true;
	case VMS_FK_I64N:
		memcpy(&v, at, sizeof(v));
		if (v < 0)
			OB_LIT(o, "null");
		else
			ob_i64(o, v);
		return true;
	case VMS_FK_STR:
		memcpy(&str, at, sizeof(str));
		ob_json_str(o, str);
		return true;
	case VMS_FK_BOOL:
		memcpy(&b, at, sizeof(b));
		ob_puts(o, b ? "true" : "false");
		return true;
	default:
		return false;
	}
}
