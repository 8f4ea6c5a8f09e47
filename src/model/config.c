/* config.c — the viewer's settings file. See config.h. */
#include "model/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/escape.h"
#include "base/outbuf.h"

/* The longest settings file read: it has a line a column. */
#define CONFIG_MAX_BYTES (1 << 20)

bool vms_config_offered(int id)
{
	if (id == VMS_DCOL_PROT || id == VMS_DCOL_DETAILS ||
	    id == VMS_DCOL_CHANGE)
		return true;
	return id >= 0 && id < VMS_NCOLS &&
	       vms_column_has((enum vms_col)id, VMS_COLF_DETAILS);
}

const char *vms_config_key(int id)
{
	if (id == VMS_DCOL_PROT)
		return "prot";
	if (id == VMS_DCOL_DETAILS)
		return "details";
	if (id == VMS_DCOL_CHANGE)
		return "change";
	return vms_columns[id].key;
}

const char *vms_config_name(int id)
{
	if (id == VMS_DCOL_PROT)
		return "Prot";
	if (id == VMS_DCOL_DETAILS)
		return "Details";
	if (id == VMS_DCOL_CHANGE)
		return "Change";
	return vms_columns[id].name;
}

static bool default_shown(int id)
{
	return id == VMS_COL_SIZE || id == VMS_COL_COMMITTED ||
	       id == VMS_COL_WS || id == VMS_COL_PRIVATE_WS ||
	       id == VMS_DCOL_PROT || id == VMS_DCOL_DETAILS;
}

void vms_config_default(struct vms_config *c)
{
	int id;

	memset(c, 0, sizeof(*c));
	for (id = 0; id < VMS_DCOL_END; id++)
		if (vms_config_offered(id)) {
			c->order[c->n++] = id;
			c->shown[id] = default_shown(id);
		}
}

/* The id whose key is s[0, n), or -1. */
static int key_id(const char *s, size_t n)
{
	int id;

	for (id = 0; id < VMS_DCOL_END; id++) {
		const char *k;

		if (!vms_config_offered(id))
			continue;
		k = vms_config_key(id);
		if (strlen(k) == n && memcmp(k, s, n) == 0)
			return id;
	}
	return -1;
}

/* The words of a line: at most 4 (a fourth means too many). */
struct words {
	const char *w[4];
	size_t len[4];
	int n;
};

static void split(const char *s, const char *end, struct words *w)
{
	w->n = 0;
	while (s < end && w->n < 4) {
		while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		if (s == end)
			break;
		w->w[w->n] = s;
		while (s < end && *s != ' ' && *s != '\t' && *s != '\r')
			s++;
		w->len[w->n] = (size_t)(s - w->w[w->n]);
		w->n++;
	}
}

static bool word_is(const struct words *w, int i, const char *lit)
{
	return w->len[i] == strlen(lit) && memcmp(w->w[i], lit, w->len[i]) == 0;
}

/* Notes a malformed line: its number and, for the first, why (the line
 * quoted, escaped and cut to fit). */
static void note_bad(struct vms_config_bad *bad, size_t line, const char *s,
		     const char *end, const char *why)
{
	char raw[64], esc[96];
	size_t n = (size_t)(end - s);

	if (!bad)
		return;
	if (bad->count++)
		return;
	bad->line = line;
	if (n > sizeof(raw) - 1)
		n = sizeof(raw) - 1;
	memcpy(raw, s, n);
	raw[n] = '\0';
	/* a NUL inside the line ends the quote: it is escaped text only */
	vms_escape_str(esc, sizeof(esc), raw);
	snprintf(bad->why, sizeof(bad->why), "%s: \"%s%s\"", why, esc,
		 (size_t)(end - s) > n ? "..." : "");
}

/* The list named s[0, n) ("all", a type's key): its index, or -1. */
static int list_id(const char *s, size_t n)
{
	int t;

	if (n == 3 && memcmp(s, "all", 3) == 0)
		return 0;
	for (t = 0; t < VMS_NTYPES; t++)
		if (strlen(vms_type_info[t].json) == n &&
		    memcmp(vms_type_info[t].json, s, n) == 0)
			return 1 + t;
	return -1;
}

/* A sort line: sort LIST BY [reversed]. */
static bool parse_sort(const struct words *w, struct vms_config_sort *sort,
		       const char **why)
{
	int list, by;

	if (w->n != 3 && w->n != 4) {
		*why = "a sort line is: sort LIST BY [reversed]";
		return false;
	}
	list = list_id(w->w[1], w->len[1]);
	if (list < 0) {
		*why = "no such list (all, or a type: heap, free, ...)";
		return false;
	}
	if (word_is(w, 2, "address"))
		by = VMS_SORT_ADDRESS;
	else if (word_is(w, 2, "type"))
		by = VMS_SORT_TYPE;
	else if ((by = key_id(w->w[2], w->len[2])) < 0 ||
		 by == VMS_DCOL_CHANGE) {
		*why = "no such sort (address, type or a column)";
		return false;
	}
	if (w->n == 4 && !word_is(w, 3, "reversed")) {
		*why = "after the column: reversed, or nothing";
		return false;
	}
	if (sort[list].set) {
		*why = "the list's sort is named twice";
		return false;
	}
	sort[list].set = true;
	sort[list].by = by;
	sort[list].reverse = w->n == 4;
	return true;
}

/* One line; returns false when it is malformed (*why says how). */
static bool parse_line(const char *s, const char *end, struct vms_config *c,
		       bool *named, const char **why)
{
	int *order = c->order, *n = &c->n;
	bool *shown = c->shown;
	struct words w;
	int id;

	split(s, end, &w);
	if (w.n == 0 || w.w[0][0] == '#')
		return true;
	if (word_is(&w, 0, "sort"))
		return parse_sort(&w, c->sort, why);
	if (!word_is(&w, 0, "column")) {
		*why = "not a setting (column KEY on|off, or sort LIST BY)";
		return false;
	}
	if (w.n != 3) {
		*why = "a column line is: column KEY on|off";
		return false;
	}
	id = key_id(w.w[1], w.len[1]);
	if (id < 0) {
		*why = "no such column";
		return false;
	}
	if (!word_is(&w, 2, "on") && !word_is(&w, 2, "off")) {
		*why = "the value is on or off";
		return false;
	}
	if (named[id]) {
		*why = "the column is named twice";
		return false;
	}
	named[id] = true;
	order[(*n)++] = id;
	shown[id] = word_is(&w, 2, "on");
	return true;
}

void vms_config_parse(struct vms_config *c, const char *buf, size_t len,
		      struct vms_config_bad *bad)
{
	struct vms_config def;
	bool named[VMS_DCOL_END] = { false };
	const char *s = buf, *end = buf + len;
	size_t line = 0;
	int k;

	if (bad)
		memset(bad, 0, sizeof(*bad));
	vms_config_default(&def);
	*c = def;
	c->n = 0;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end, *why = NULL;

		line++;
		if (memchr(s, '\0', (size_t)(le - s)))
			note_bad(bad, line, s, le, "a NUL byte in the line");
		else if (!parse_line(s, le, c, named, &why))
			note_bad(bad, line, s, le, why);
		s = nl ? nl + 1 : end;
	}
	/* the columns not named: after the others, as by default */
	for (k = 0; k < def.n; k++)
		if (!named[def.order[k]])
			c->order[c->n++] = def.order[k];
}

size_t vms_config_format(const struct vms_config *c, char *buf, size_t n)
{
	size_t len = 0;
	int k, w;

	w = snprintf(buf, n,
		     "# vmscope viewer settings, written by its column "
		     "setup (F2); read at start.\n"
		     "# The details' columns in the order shown: column KEY "
		     "on|off\n"
		     "# Each list's sort: sort LIST BY [reversed]\n");
	len += (size_t)(w > 0 ? w : 0);
	for (k = 0; k < c->n; k++) {
		w = snprintf(len < n ? buf + len : NULL, len < n ? n - len : 0,
			     "column %s %s\n", vms_config_key(c->order[k]),
			     c->shown[c->order[k]] ? "on" : "off");
		len += (size_t)(w > 0 ? w : 0);
	}
	for (k = 0; k < VMS_CONFIG_LISTS; k++) {
		const struct vms_config_sort *so = &c->sort[k];

		if (!so->set)
			continue;
		w = snprintf(len < n ? buf + len : NULL, len < n ? n - len : 0,
			     "sort %s %s%s\n",
			     k ? vms_type_info[k - 1].json : "all",
			     so->by == VMS_SORT_ADDRESS ? "address"
			     : so->by == VMS_SORT_TYPE	? "type"
						       : vms_config_key(so->by),
			     so->reverse ? " reversed" : "");
		len += (size_t)(w > 0 ? w : 0);
	}
	return len;
}

int vms_config_path(char *buf, size_t n)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	int w;

	/* XDG: a relative XDG_CONFIG_HOME is invalid and ignored */
	if (x && x[0] == '/')
		w = snprintf(buf, n, "%s/vmscope/config", x);
	else if (h && *h)
		w = snprintf(buf, n, "%s/.config/vmscope/config", h);
	else
		return -1;
	return w > 0 && (size_t)w < n ? 0 : -1;
}

static char *read_all(const char *path, size_t *len, int *e)
{
	FILE *f = fopen(path, "rb");
	char *buf;

	*e = 0;
	if (!f) {
		*e = errno;
		return NULL;
	}
	buf = malloc(CONFIG_MAX_BYTES);
	if (!buf) {
		*e = ENOMEM;
		fclose(f);
		return NULL;
	}
	*len = fread(buf, 1, CONFIG_MAX_BYTES, f);
	if (ferror(f))
		*e = errno ? errno : EIO;
	else if (!feof(f))
		*e = EFBIG;
	fclose(f);
	if (*e) {
		free(buf);
		return NULL;
	}
	return buf;
}

int vms_config_load(struct vms_config *c, const char *path, char *warn,
		    size_t n, struct vms_error *err)
{
	struct vms_config_bad bad;
	char p[512];
	size_t len = 0;
	int e;
	char *buf = read_all(path, &len, &e);

	if (n)
		warn[0] = '\0';
	vms_config_default(c);
	vms_escape_str(p, sizeof(p), path);
	if (!buf) {
		if (e == ENOENT)
			return 0;
		return vms_error_set(
			err, VMS_ERR_FILE, e, "cannot read the settings %s: %s",
			p, e == EFBIG ? "larger than 1 MB" : strerror(e));
	}
	vms_config_parse(c, buf, len, &bad);
	free(buf);
	if (bad.count > 1)
		snprintf(warn, n, "%s line %zu: %s (ignored; and %zu more)", p,
			 bad.line, bad.why, bad.count - 1);
	else if (bad.count)
		snprintf(warn, n, "%s line %zu: %s (ignored)", p, bad.line,
			 bad.why);
	return 0;
}

/* Makes the directories above path that are missing (mode 0700 less the
 * umask, as XDG asks for the directories it names). */
static int make_dirs(const char *path, struct vms_error *err)
{
	char d[4096], p[512];
	char *s;

	if (strlen(path) >= sizeof(d))
		return vms_error_set(err, VMS_ERR_FILE, ENAMETOOLONG,
				     "the settings path is too long");
	strcpy(d, path);
	for (s = d + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(d, 0700) < 0 && errno != EEXIST) {
			vms_escape_str(p, sizeof(p), d);
			return vms_error_set(err, VMS_ERR_FILE, errno,
					     "cannot make %s: %s", p,
					     strerror(errno));
		}
		*s = '/';
	}
	return 0;
}

int vms_config_save(const struct vms_config *c, const char *path,
		    struct vms_error *err)
{
	struct outbuf o;
	char text[4096];
	size_t len = vms_config_format(c, text, sizeof(text));

	if (len >= sizeof(text))
		return vms_error_set(err, VMS_ERR_FILE, 0,
				     "the settings do not fit");
	if (make_dirs(path, err) < 0 || outbuf_open_file(&o, path, err) < 0)
		return -1;
	ob_write(&o, text, len);
	/* 1: written in place (a note, not a failure) */
	return outbuf_close(&o, err) < 0 ? -1 : 0;
}

int vms_config_move(struct vms_config *c, int pos, int delta)
{
	int to = pos + delta, t;

	if (pos < 0 || pos >= c->n || to < 0 || to >= c->n)
		return pos;
	t = c->order[pos];
	c->order[pos] = c->order[to];
	c->order[to] = t;
	return to;
}
