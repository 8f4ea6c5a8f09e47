/* test_config — the viewer's settings file (config.h): the recorded
 * fixtures (tests/fixtures/config/) parse into the columns they name, in
 * their order; malformed lines are skipped and counted, the first named
 * with its line, escaped; what is formatted parses back the same; a file
 * saved is read back, in a directory made for it; XDG_CONFIG_HOME and
 * HOME give the path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../fixtures/fixture.h"
#include "model/config.h"
#include "tap.h"

static char *read_fixture(const char *name, size_t *len)
{
	char path[4200];
	FILE *f;
	char *buf = malloc(65536);

	snprintf(path, sizeof(path), "%s/config/%s", fixture_dir(), name);
	f = fopen(path, "rb");
	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		*len = 0;
		return NULL;
	}
	*len = fread(buf, 1, 65536, f);
	fclose(f);
	return buf;
}

/* The order as keys ("pss size ..."), the hidden ones in brackets. */
static void order_text(const struct vms_config *c, char *out, size_t n)
{
	size_t len = 0;
	int k;

	out[0] = '\0';
	for (k = 0; k < c->n && len < n; k++)
		len += (size_t)snprintf(
			out + len, n - len,
			c->shown[c->order[k]] ? "%s%s" : "%s[%s]", k ? " " : "",
			vms_config_key(c->order[k]));
}

static bool same(const struct vms_config *a, const struct vms_config *b)
{
	char x[512], y[512];

	order_text(a, x, sizeof(x));
	order_text(b, y, sizeof(y));
	return strcmp(x, y) == 0;
}

int main(void)
{
	struct vms_config c, d;
	struct vms_config_bad bad;
	struct vms_error err = { 0 };
	char text[4096], got[512], dir[] = "/tmp/vms-config-XXXXXX", path[256],
				   warn[600];
	size_t len;
	char *buf;
	int k, offered = 0;

	vms_config_default(&c);
	for (k = 0; k < VMS_DCOL_END; k++)
		offered += vms_config_offered(k);
	order_text(&c, got, sizeof(got));
	ok(c.n == 14 && offered == 14 &&
		   strcmp(got, "size committed [private] ws private_ws "
			       "[shareable_ws] [shared_ws] [locked_ws] [pss] "
			       "[swap] [blocks] prot details [change]") == 0,
	   "the defaults: the summary's 11 figures, Prot, Details, Change "
	   "hidden (%s)",
	   got);
	ok(!vms_config_offered(VMS_COL_LARGEST) &&
		   !vms_config_offered(VMS_COL_USS),
	   "Largest and USS are not offered (not columns of the summary)");

	buf = read_fixture("good.conf", &len);
	ok(buf != NULL, "good.conf read");
	vms_config_parse(&c, buf ? buf : "", len, &bad);
	order_text(&c, got, sizeof(got));
	ok(bad.count == 0 &&
		   strcmp(got, "pss size [committed] private [ws] "
			       "[private_ws] shareable_ws shared_ws locked_ws "
			       "swap blocks details [prot] [change]") == 0,
	   "good.conf: every column in its order (%s)", got);
	free(buf);

	buf = read_fixture("partial.conf", &len);
	vms_config_parse(&c, buf ? buf : "", len, &bad);
	order_text(&c, got, sizeof(got));
	ok(bad.count == 0 &&
		   strcmp(got, "swap [details] size committed [private] ws "
			       "private_ws [shareable_ws] [shared_ws] "
			       "[locked_ws] [pss] [blocks] prot [change]") == 0,
	   "partial.conf: named first, the rest in the default order (%s)",
	   got);
	free(buf);

	buf = read_fixture("malformed.conf", &len);
	vms_config_parse(&c, buf ? buf : "", len, &bad);
	order_text(&c, got, sizeof(got));
	ok(bad.count == 8 && bad.line == 2 &&
		   strstr(bad.why, "no such column") &&
		   strstr(bad.why, "nosuch"),
	   "malformed.conf: 8 bad lines, the first is line 2 (%zu, %zu: %s)",
	   bad.count, bad.line, bad.why);
	ok(strncmp(got, "pss swap size", 13) == 0 && c.n == 14,
	   "malformed.conf: its good lines kept, no column lost (%s)", got);
	free(buf);

	snprintf(text, sizeof(text), "column size on\ncolumn \x1b[2Jx on\n");
	vms_config_parse(&c, text, strlen(text), &bad);
	ok(bad.count == 1 && bad.line == 2 && !strchr(bad.why, '\x1b') &&
		   strstr(bad.why, "\\x1b[2Jx"),
	   "a line quoted in the warning is escaped (%s)", bad.why);

	buf = read_fixture("nul.conf", &len);
	vms_config_parse(&c, buf ? buf : "", len, &bad);
	order_text(&c, got, sizeof(got));
	ok(bad.count == 1 && bad.line == 2 && strstr(bad.why, "NUL") &&
		   strncmp(got, "pss [size]", 10) == 0,
	   "nul.conf: the line with a NUL is skipped (%s; %s)", bad.why, got);
	free(buf);

	/* each list's sort (issue 31 item 5) */
	snprintf(text, sizeof(text),
		 "sort all committed\nsort free size reversed\n"
		 "sort heap type\nsort stack address\nsort nolist size\n"
		 "sort all pss\nsort image nosuch\nsort image prot "
		 "backwards\nsort image\nsort heap change\n"
		 "column change on\n");
	vms_config_parse(&c, text, strlen(text), &bad);
	ok(c.sort[0].set && c.sort[0].by == VMS_COL_COMMITTED &&
		   !c.sort[0].reverse && c.sort[1 + VMS_T_FREE].set &&
		   c.sort[1 + VMS_T_FREE].by == VMS_COL_SIZE &&
		   c.sort[1 + VMS_T_FREE].reverse &&
		   c.sort[1 + VMS_T_HEAP].by == VMS_SORT_TYPE &&
		   c.sort[1 + VMS_T_STACK].by == VMS_SORT_ADDRESS &&
		   !c.sort[1 + VMS_T_IMAGE].set,
	   "sort lines: each list's sort, reversed or not");
	ok(c.shown[VMS_DCOL_CHANGE],
	   "column change on: each figure's change shown beside it");
	ok(bad.count == 6 && bad.line == 5 && strstr(bad.why, "no such list"),
	   "sort lines: an unknown list, sort or word, a list named twice, "
	   "a short line, a sort by change (no column): skipped (%zu, "
	   "line %zu: %s)",
	   bad.count, bad.line, bad.why);
	len = vms_config_format(&c, text, sizeof(text));
	vms_config_parse(&d, text, len, &bad);
	ok(bad.count == 0 && same(&c, &d) &&
		   memcmp(c.sort, d.sort, sizeof(c.sort)) == 0,
	   "the sorts formatted parse back the same");

	vms_config_parse(&c, "", 0, &bad);
	vms_config_default(&d);
	ok(bad.count == 0 && same(&c, &d), "an empty file: the defaults");

	/* format, parse back */
	d.shown[VMS_COL_SWAP] = true;
	vms_config_move(&d, 0, 1);
	ok(vms_config_move(&d, 0, -1) == 0 && vms_config_move(&d, 13, 1) == 13,
	   "a column cannot move past either end");
	len = vms_config_format(&d, text, sizeof(text));
	vms_config_parse(&c, text, len, &bad);
	ok(bad.count == 0 && same(&c, &d) && c.order[0] == VMS_COL_COMMITTED,
	   "what is formatted parses back the same");

	/* save and load, in a directory made for it */
	ok(mkdtemp(dir) != NULL, "a temporary directory");
	snprintf(path, sizeof(path), "%s/sub/vmscope/config", dir);
	ok(vms_config_save(&d, path, &err) == 0, "saved (%s)", err.msg);
	ok(vms_config_load(&c, path, warn, sizeof(warn), &err) == 0 &&
		   !warn[0] && same(&c, &d),
	   "loaded back the same");
	{
		FILE *f = fopen(path, "a");

		fputs("column bogus on\n", f);
		fclose(f);
	}
	ok(vms_config_load(&c, path, warn, sizeof(warn), &err) == 0 &&
		   strstr(warn, path) && strstr(warn, "line 18") &&
		   same(&c, &d),
	   "a bad line: a warning naming the file and line (%s)", warn);
	unlink(path);
	ok(vms_config_load(&c, path, warn, sizeof(warn), &err) == 0 && !warn[0],
	   "a missing file: the defaults, no warning");
	snprintf(path, sizeof(path), "%s/sub/vmscope", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	ok(vms_config_load(&c, dir, warn, sizeof(warn), &err) < 0 &&
		   strstr(err.msg, dir),
	   "a directory in its place: an error naming it (%s)", err.msg);
	rmdir(dir);

	setenv("XDG_CONFIG_HOME", "/x/y", 1);
	ok(vms_config_path(path, sizeof(path)) == 0 &&
		   strcmp(path, "/x/y/vmscope/config") == 0,
	   "XDG_CONFIG_HOME gives the path (%s)", path);
	setenv("XDG_CONFIG_HOME", "rel", 1);
	setenv("HOME", "/h", 1);
	ok(vms_config_path(path, sizeof(path)) == 0 &&
		   strcmp(path, "/h/.config/vmscope/config") == 0,
	   "a relative XDG_CONFIG_HOME is ignored: HOME (%s)", path);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("HOME");
	ok(vms_config_path(path, sizeof(path)) < 0, "neither: no path");
	return tap_done();
}
