/* theme.c — theme files: parse, look up, apply. See theme.h. */
#include "core/theme.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/selfcopy.h"
#include "model/snapshot.h"

#ifndef VMSCOPE_DATADIR
#define VMSCOPE_DATADIR "/usr/local/share/vmscope"
#endif

static const char *const el_names[EL_COUNT] = {
#define X(id, name) [id] = name,
	THEME_ELEMENTS(X)
#undef X
};

/* The active attributes, read by every drawing function (htop's
 * CRT_colors): one table instead of a colour passed down every call. */
static attr_t active[EL_COUNT];

/* A copy of themes/default, so a binary without its data files still looks
 * like VMMap. */
static const char builtin_text[] =
	"type.image = 141/magenta,default,bold\n"
	"type.mapped_file = 117/cyan,default,none\n"
	"type.shareable = 176/magenta,default,none\n"
	"type.heap = 214/red,default,bold\n"
	"type.managed_heap = 113/green,default,bold\n"
	"type.stack = 180/yellow,default,none\n"
	"type.private_data = 227/yellow,default,bold\n"
	"type.page_table = 150/green,default,none\n"
	"type.free = 246/white,default,none\n"
	"normal = default,default,none\n"
	"title = 231/white,24/blue,bold\n"
	"label = 110/cyan,default,none\n"
	"column = 252/white,238/black,bold\n"
	"selection = 16/black,117/cyan,none\n"
	"selection.unfocused = 16/black,250/white,none\n"
	"total = default,default,bold\n"
	"reserved = 244/white,default,dim\n"
	"child = 250/white,default,none\n"
	"dim = 244/white,default,dim\n"
	"bar.empty = 240/white,default,none\n"
	"status = 231/white,24/blue,none\n"
	"key = 16/black,117/cyan,bold\n"
	"find = 16/black,227/yellow,bold\n"
	"error = 231/white,160/red,bold\n"
	"map.cursor = 16/black,231/white,bold+blink\n"
	"diff.added = 16/black,114/green,bold\n"
	"diff.removed = 16/black,210/red,none\n"
	"diff.changed = 16/black,222/yellow,none\n";

const char *theme_el_name(enum theme_el el)
{
	return el_names[el];
}

attr_t theme_attr(enum theme_el el)
{
	return active[el];
}

static const enum theme_el type_els[VMS_NTYPES] = {
	[VMS_T_IMAGE] = EL_IMAGE,
	[VMS_T_MAPPED_FILE] = EL_MAPPED_FILE,
	[VMS_T_SHAREABLE] = EL_SHAREABLE,
	[VMS_T_HEAP] = EL_HEAP,
	[VMS_T_MANAGED_HEAP] = EL_MANAGED_HEAP,
	[VMS_T_STACK] = EL_STACK,
	[VMS_T_PRIVATE_DATA] = EL_PRIVATE_DATA,
	[VMS_T_PAGE_TABLE] = EL_PAGE_TABLE,
	[VMS_T_FREE] = EL_FREE,
};

enum theme_el theme_type(int type)
{
	return type >= 0 && type < VMS_NTYPES ? type_els[type] : EL_NORMAL;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int colour_name(const char *s)
{
	static const char *const names[] = { "black",  "red",  "green",
					     "yellow", "blue", "magenta",
					     "cyan",   "white" };
	char *end;
	long v;
	size_t i;

	if (strcmp(s, "default") == 0)
		return -1;
	if (strcmp(s, "grey") == 0 || strcmp(s, "gray") == 0)
		return 8;
	for (i = 0; i < 8; i++) {
		if (strcmp(s, names[i]) == 0)
			return (int)i;
		if (strncmp(s, "bright", 6) == 0 &&
		    strcmp(s + 6, names[i]) == 0)
			return (int)i + 8;
	}
	if (!isdigit((unsigned char)*s))
		return -2;
	v = strtol(s, &end, 10);
	if (*end || v < 0 || v > 255)
		return -2;
	return (int)v;
}

/* An xterm-256 colour on an 8-colour terminal. */
static short approx8(int c)
{
	int r, g, b, v;

	if (c < 8)
		return (short)c;
	if (c < 16)
		return (short)(c - 8);
	if (c >= 232)
		return c >= 244 ? COLOR_WHITE : COLOR_BLACK;
	v = c - 16;
	r = v / 36 >= 3;
	g = v / 6 % 6 >= 3;
	b = v % 6 >= 3;
	return (short)(r * COLOR_RED + g * COLOR_GREEN + b * COLOR_BLUE);
}

static int parse_colour(char *s, struct theme_colour *c)
{
	char *slash = strchr(s, '/');
	int v, fb;

	if (slash)
		*slash = '\0';
	v = colour_name(trim(s));
	if (v == -2)
		return -1;
	if (slash) {
		fb = colour_name(trim(slash + 1));
		if (fb == -2 || fb > 15)
			return -1;
		if (fb > 7)
			fb -= 8;
	} else {
		fb = v < 0 ? -1 : approx8(v);
	}
	c->c = (short)v;
	c->fb = (short)fb;
	return 0;
}

static int parse_attrs(char *s, attr_t *a)
{
	static const struct {
		const char *name;
		attr_t a;
	} tab[] = {
		{ "none", A_NORMAL },	  { "bold", A_BOLD },
		{ "dim", A_DIM },	  { "underline", A_UNDERLINE },
		{ "reverse", A_REVERSE }, { "standout", A_STANDOUT },
		{ "italic", A_ITALIC },	  { "blink", A_BLINK },
	};
	char *save = NULL, *w;
	size_t i;

	*a = A_NORMAL;
	for (w = strtok_r(s, "+| \t", &save); w;
	     w = strtok_r(NULL, "+| \t", &save)) {
		for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
			if (strcmp(w, tab[i].name) == 0)
				break;
		if (i == sizeof(tab) / sizeof(tab[0]))
			return -1;
		*a |= tab[i].a;
	}
	return 0;
}

static int parse_line(struct theme *t, char *line, const char *file, int lineno,
		      struct vms_error *err)
{
	char *eq = strchr(line, '='), *key, *f[3] = { NULL, NULL, NULL };
	char *p;
	struct theme_elem e;
	int i, n = 0;

	if (!eq)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "%s:%d: expected 'element = fg,bg,attrs'",
				     file, lineno);
	*eq = '\0';
	key = trim(line);
	for (i = 0; i < EL_COUNT; i++)
		if (strcmp(key, el_names[i]) == 0)
			break;
	if (i == EL_COUNT)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "%s:%d: unknown element '%s'", file,
				     lineno, key);
	for (p = eq + 1; n < 3; n++) {
		f[n] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	if (n < 1 || p)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "%s:%d: %s: expected fg,bg,attrs", file,
				     lineno, key);
	if (parse_colour(f[0], &e.fg) < 0)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "%s:%d: %s: bad colour '%s'", file, lineno,
				     key, trim(f[0]));
	if (parse_colour(f[1], &e.bg) < 0)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "%s:%d: %s: bad colour '%s'", file, lineno,
				     key, trim(f[1]));
	if (parse_attrs(f[2] ? f[2] : (char[]){ "none" }, &e.attrs) < 0)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "%s:%d: %s: bad attribute in '%s'", file,
				     lineno, key, trim(f[2]));
	t->e[i] = e;
	return 0;
}

/* Parses text (changed in place) over t. */
static int parse_text(struct theme *t, char *text, const char *file,
		      struct vms_error *err)
{
	char *line = text, *nl;
	int lineno = 0;

	for (; line; line = nl) {
		char *hash, *s;

		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		s = trim(line);
		if (*s && parse_line(t, s, file, lineno, err) < 0)
			return -1;
	}
	return 0;
}

int theme_parse(struct theme *t, char *text, const char *file,
		struct vms_error *err)
{
	return parse_text(t, text, file, err);
}

void theme_builtin(struct theme *t)
{
	char buf[sizeof(builtin_text)];
	struct vms_error e;

	memset(t, 0, sizeof(*t));
	memcpy(buf, builtin_text, sizeof(buf));
	/* The text is ours and valid; a failure here is a bug caught by the
	 * theme tests (themes/default must parse the same). */
	parse_text(t, buf, "(built-in)", &e);
	snprintf(t->name, sizeof(t->name), "default");
}

static const char *config_dir(char *buf, size_t n)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");

	if (x && *x)
		snprintf(buf, n, "%s/vmscope/themes", x);
	else if (h && *h)
		snprintf(buf, n, "%s/.config/vmscope/themes", h);
	else
		return NULL;
	return buf;
}

static const char *exe_dir(char *buf, size_t n)
{
	const char *exe = selfcopy_exe();
	char *slash;

	if (!exe || strlen(exe) + 16 > n)
		return NULL;
	strcpy(buf, exe);
	slash = strrchr(buf, '/');
	if (!slash)
		return NULL;
	strcpy(slash, "/themes");
	return buf;
}

/* The directories themes are looked up in, in order; returns the count. */
static int theme_dirs(char dirs[3][PATH_MAX])
{
	int n = 0;

	if (config_dir(dirs[n], PATH_MAX))
		n++;
	if (exe_dir(dirs[n], PATH_MAX))
		n++;
	snprintf(dirs[n++], PATH_MAX, "%s/themes", VMSCOPE_DATADIR);
	return n;
}

int theme_find(const char *name, char *buf, size_t n)
{
	char dirs[3][PATH_MAX];
	int i, nd = theme_dirs(dirs);

	if (strchr(name, '/')) {
		snprintf(buf, n, "%s", name);
		return access(buf, R_OK) == 0 ? 0 : -1;
	}
	if (!*name || name[0] == '.')
		return -1;
	for (i = 0; i < nd; i++) {
		snprintf(buf, n, "%s/%s", dirs[i], name);
		if (access(buf, R_OK) == 0)
			return 0;
	}
	return -1;
}

/* A theme not found: the file named, or the directories looked in (those
 * theme_find searched: $XDG_CONFIG_HOME's when it is set). */
static int not_found(const char *name, struct vms_error *err)
{
	char dirs[3][PATH_MAX], list[3 * PATH_MAX + 16];
	int i, nd = theme_dirs(dirs);
	size_t k = 0;

	if (strchr(name, '/'))
		return vms_error_set(err, VMS_ERR_USAGE, ENOENT,
				     "theme file '%s' not found", name);
	list[0] = '\0';
	for (i = 0; i < nd && k < sizeof(list); i++)
		k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s",
				      i == 0	   ? ""
				      : i + 1 < nd ? ", "
						   : " and ",
				      dirs[i]);
	return vms_error_set(err, VMS_ERR_USAGE, ENOENT,
			     "theme '%s' not found (looked in %s)", name, list);
}

int theme_load(struct theme *t, const char *name, struct vms_error *err)
{
	char path[PATH_MAX], *text = NULL;
	const char *base;
	FILE *f;
	long len;
	size_t got;
	int rc = -1;

	if (theme_find(name, path, sizeof(path)) < 0)
		return not_found(name, err);
	f = fopen(path, "r");
	if (!f)
		return vms_error_set(err, VMS_ERR_USAGE, errno, "%s: %s", path,
				     strerror(errno));
	if (fseek(f, 0, SEEK_END) < 0 || (len = ftell(f)) < 0 ||
	    len > 1 << 20 || fseek(f, 0, SEEK_SET) < 0) {
		vms_error_set(err, VMS_ERR_USAGE, 0,
			      "%s: not a theme file (unreadable or too big)",
			      path);
		goto out;
	}
	text = malloc((size_t)len + 1);
	if (!text) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
		goto out;
	}
	got = fread(text, 1, (size_t)len, f);
	text[got] = '\0';
	theme_builtin(t);
	if (parse_text(t, text, path, err) < 0)
		goto out;
	base = strrchr(path, '/');
	snprintf(t->name, sizeof(t->name), "%.63s", base ? base + 1 : path);
	snprintf(t->path, sizeof(t->path), "%.511s", path);
	rc = 0;
out:
	free(text);
	fclose(f);
	return rc;
}

static int order_of(const char *name)
{
	static const char *const first[] = { "default", "dark", "light", "mono",
					     "colorblind" };
	size_t i;

	for (i = 0; i < sizeof(first) / sizeof(first[0]); i++)
		if (strcmp(name, first[i]) == 0)
			return (int)i;
	return 100;
}

/* a before b in the cycle of themes */
static bool theme_before(const char *a, const char *b)
{
	int oa = order_of(a), ob = order_of(b);

	return oa != ob ? oa < ob : strcmp(a, b) < 0;
}

int theme_next_name(const char *cur, char *buf, size_t n)
{
	char dirs[3][PATH_MAX], best[256] = "", first[256] = "";
	int i, nd = theme_dirs(dirs);

	for (i = 0; i < nd; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;

		if (!d)
			continue;
		while ((de = readdir(d))) {
			const char *nm = de->d_name;

			if (nm[0] == '.' || strlen(nm) >= sizeof(best) ||
			    strchr(nm, '~'))
				continue;
			if (!*first || theme_before(nm, first))
				snprintf(first, sizeof(first), "%s", nm);
			if (theme_before(cur, nm) &&
			    (!*best || theme_before(nm, best)))
				snprintf(best, sizeof(best), "%s", nm);
		}
		closedir(d);
	}
	if (!*best && !*first)
		return -1;
	snprintf(buf, n, "%s", *best ? best : first);
	return 0;
}

static short pick(const struct theme_colour *c, bool many)
{
	return many ? c->c : c->fb;
}

void theme_apply(const struct theme *t, bool color)
{
	bool many = color && COLORS >= 256;
	int i;

	for (i = 0; i < EL_COUNT; i++) {
		const struct theme_elem *e = &t->e[i];
		attr_t a = e->attrs;

		if (color) {
			short fg = pick(&e->fg, many), bg = pick(&e->bg, many);

			/* bright colours on 8-colour terminals: bold */
			if (!many && e->fg.c >= 8 && e->fg.c < 16)
				a |= A_BOLD;
			init_pair((short)(i + 1), fg, bg);
			a |= COLOR_PAIR(i + 1);
		} else if (e->bg.c >= 0) {
			/* Without colour, an element meant to stand out on
			 * its own background stands out in reverse. */
			a |= A_REVERSE;
		}
		active[i] = a;
	}
}
