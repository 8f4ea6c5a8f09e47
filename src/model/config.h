/* config.h — the viewer's settings file: which columns the details pane
 * shows, in which order ($XDG_CONFIG_HOME/vmscope/config, by default
 * ~/.config/vmscope/config; vmscope.1 "SETTINGS FILE").
 *
 * Contract: the columns offered are the figures of columns.h flagged
 * VMS_COLF_DETAILS (in vms_columns[] order), then Prot, Details and
 * Change; a column id is an enum vms_col, VMS_DCOL_PROT, VMS_DCOL_DETAILS
 * or VMS_DCOL_CHANGE. Change is no column of its own: shown, each figure
 * of the viewer (details and summary) has beside it how much it moved
 * since the snapshot the changes are against (issue 31 item 3), so its
 * place in the order means nothing, and no list is sorted by it. A
 * struct vms_config lists every offered column exactly once, in the order
 * the user chose, each shown or hidden.
 *
 * The file is small line-based text:
 *
 *   # comments and blank lines are ignored
 *   column KEY on|off      one a line, in the order shown
 *   sort LIST BY [reversed]  a list's sort, at most one a list
 *
 * KEY is a column's JSON key (columns.h), "prot", "details" or "change". Columns the
 * file does not name follow those it names, in their default order and
 * visibility (a newer vmscope's columns appear in an older file). LIST is
 * "all" (the all view) or a type's JSON key ("heap", "free": that type's
 * list); BY is "address", "type" or a column's KEY (not "change"); reversed: the other
 * way than the column's own (figures largest first, the rest smallest
 * first). A list the file does not name has the viewer's default sort.
 *
 * vms_config_parse() takes a buffer (no file, no pid), never fails: a
 * malformed line (an unknown word or column, a value other than on/off, a
 * column named twice) is skipped and counted, the first one described in
 * *bad; the rest is kept. vms_config_load() and vms_config_save() read
 * and write the file: a missing file is the defaults, not an error; the
 * file is written as -o writes (outbuf.h: atomically where it can), its
 * directory made when missing. Messages quote paths and lines escaped
 * (escape.h).
 */
#ifndef VMS_CONFIG_H
#define VMS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "model/columns.h"

enum {
	VMS_DCOL_PROT = VMS_NCOLS, /* the protection, "r-xp" */
	VMS_DCOL_DETAILS, /* the path or what the region is */
	VMS_DCOL_CHANGE, /* each figure's change beside it (no column) */
	VMS_DCOL_END /* ids are below this */
};

/* The most columns offered: every figure, Prot, Details and Change. */
enum { VMS_CONFIG_MAX = VMS_NCOLS + 3 };

/* What a list is sorted by: the address, the type, or a column id. */
enum { VMS_SORT_ADDRESS = -2, VMS_SORT_TYPE = -1 };
/* The lists of the details that keep a sort each: [0] the all view,
 * [1 + type] a type's (enum vms_type). */
enum { VMS_CONFIG_LISTS = 1 + VMS_NTYPES };

struct vms_config_sort {
	bool set; /* false: the viewer's default for the list */
	bool reverse;
	int by; /* VMS_SORT_ADDRESS, VMS_SORT_TYPE or a column id */
};

struct vms_config {
	int order[VMS_CONFIG_MAX]; /* column ids, in the order shown */
	bool shown[VMS_DCOL_END]; /* by column id */
	int n; /* columns offered (entries of order) */
	struct vms_config_sort sort[VMS_CONFIG_LISTS];
};

/* The first malformed line of a parse. */
struct vms_config_bad {
	size_t count; /* malformed lines skipped */
	size_t line; /* the first one's number (1-based), 0: none */
	char why[160]; /* what is wrong with it, the line quoted escaped */
};

/* Every offered column in the default order; shown: Size, Committed,
 * Total WS, Private WS, Prot and Details (the viewer's columns before
 * there was a choice). */
void vms_config_default(struct vms_config *c);
/* Whether column id is offered by the details (a figure flagged
 * VMS_COLF_DETAILS, Prot, Details or Change). */
bool vms_config_offered(int id);
/* "size", "prot", "details", "change": the key of a column id in the
 * file. */
const char *vms_config_key(int id);
/* The heading of a column id in the setup screen ("Total WS", "Prot"). */
const char *vms_config_name(int id);

/* c from the text buf[0, len) (no NUL needed); bad may be NULL. */
void vms_config_parse(struct vms_config *c, const char *buf, size_t len,
		      struct vms_config_bad *bad);
/* The text of c as the file holds it, into buf (always NUL-terminated).
 * Returns the length it needs, as snprintf. */
size_t vms_config_format(const struct vms_config *c, char *buf, size_t n);

/* The settings file's path: $XDG_CONFIG_HOME/vmscope/config when that is
 * an absolute path, else $HOME/.config/vmscope/config. -1 when neither
 * is set (nothing is read or written then). */
int vms_config_path(char *buf, size_t n);
/* c from the file at path (defaults when it does not exist). A file that
 * cannot be read is -1 with *err (c the defaults). A malformed line: 0,
 * with warn (n bytes) saying "PATH line N: WHY" (and how many more), else
 * warn "". */
int vms_config_load(struct vms_config *c, const char *path, char *warn,
		    size_t n, struct vms_error *err);
/* Writes c to path (its directory made if missing). -1 with *err. */
int vms_config_save(const struct vms_config *c, const char *path,
		    struct vms_error *err);

/* Moves the column at position pos of c->order by delta (-1 up, +1 down);
 * returns its new position (pos when it cannot move). */
int vms_config_move(struct vms_config *c, int pos, int delta);

#endif
