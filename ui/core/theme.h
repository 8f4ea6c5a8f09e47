/* theme.h — semantic colour elements and the theme files that fill them.
 *
 * Contract: drawing code names what it draws (an element: a region type, the
 * selection, the header...), never a colour. A theme is a text file, one
 * line per element:
 *
 *	# comment
 *	element = fg,bg,attrs
 *
 * fg and bg are `default`, a colour name (black red green yellow blue
 * magenta cyan white, bright<name>, grey), or a number 0-255, optionally
 * followed by `/fallback` used when the terminal has fewer colours (e.g.
 * `141/magenta`). attrs is `none` or words joined by `+` or blanks: bold dim
 * underline reverse standout italic blink. attrs may be left out. An unknown
 * element, colour or attribute is an error naming the file and line;
 * elements a file does not mention keep the compiled-in default.
 *
 * theme_load() touches no terminal; theme_apply() needs curses started and
 * sets the attributes theme_attr() returns until the next theme_apply().
 */
#ifndef VMS_UI_THEME_H
#define VMS_UI_THEME_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* The first VMS_NTYPES elements are the region types, in enum vms_type
 * order; drawing code gets a type's element from theme_type() alone. */
#define THEME_ELEMENTS(X)                                                      \
	X(EL_IMAGE, "type.image")                                              \
	X(EL_MAPPED_FILE, "type.mapped_file")                                  \
	X(EL_SHAREABLE, "type.shareable")                                      \
	X(EL_HEAP, "type.heap")                                                \
	X(EL_MANAGED_HEAP, "type.managed_heap")                                \
	X(EL_STACK, "type.stack")                                              \
	X(EL_PRIVATE_DATA, "type.private_data")                                \
	X(EL_PAGE_TABLE, "type.page_table")                                    \
	X(EL_FREE, "type.free")                                                \
	X(EL_NORMAL, "normal")                                                 \
	X(EL_TITLE, "title")                                                   \
	X(EL_LABEL, "label")                                                   \
	X(EL_COLUMN, "column")                                                 \
	X(EL_SELECTION, "selection")                                           \
	X(EL_SELECTION_IDLE, "selection.unfocused")                            \
	X(EL_TOTAL, "total")                                                   \
	X(EL_RESERVED, "reserved")                                             \
	X(EL_CHILD, "child")                                                   \
	X(EL_DIM, "dim")                                                       \
	X(EL_BAR_EMPTY, "bar.empty")                                           \
	X(EL_STATUS, "status")                                                 \
	X(EL_KEY, "key")                                                       \
	X(EL_FIND, "find")                                                     \
	X(EL_ERROR, "error")                                                   \
	X(EL_MAP_CURSOR, "map.cursor")                                         \
	X(EL_DIFF_ADDED, "diff.added")                                         \
	X(EL_DIFF_REMOVED, "diff.removed")                                     \
	X(EL_DIFF_CHANGED, "diff.changed")

enum theme_el {
#define X(id, name) id,
	THEME_ELEMENTS(X)
#undef X
		EL_COUNT
};

struct theme_colour {
	short c; /* -1 default, 0-255 */
	short fb; /* fallback for 8-colour terminals, -1 default */
};

struct theme_elem {
	struct theme_colour fg, bg;
	attr_t attrs;
};

struct theme {
	char name[64];
	char path[512]; /* "" for the compiled-in default */
	struct theme_elem e[EL_COUNT];
};

/* The compiled-in default palette (VMMap's), used when no file is found. */
/* Parses theme text (changed in place; NUL-terminated) over t: what a
 * theme file says replaces what t had. file names it in messages. -1 with
 * *err set on the first bad line. */
int theme_parse(struct theme *t, char *text, const char *file,
		struct vms_error *err);
void theme_builtin(struct theme *t);

/* Loads name (looked up as described in theme_find) or a path containing
 * '/'. Returns 0, or -1 with *err naming the file and line. */
int theme_load(struct theme *t, const char *name, struct vms_error *err);

/* Finds a theme by name: $XDG_CONFIG_HOME or ~/.config/vmscope/themes/NAME,
 * then themes/NAME beside the binary, then VMSCOPE_DATADIR/themes/NAME.
 * Returns 0 with the path in buf, or -1. */
int theme_find(const char *name, char *buf, size_t n);

/* The theme after cur in the list of every theme found (default, dark,
 * light, mono, colorblind first), into buf; -1 if there is none. */
int theme_next_name(const char *cur, char *buf, size_t n);

/* Makes t the active theme. color false: attributes only (monochrome). */
void theme_apply(const struct theme *t, bool color);

attr_t theme_attr(enum theme_el el);

/* The element a region type (enum vms_type) is drawn in. */
enum theme_el theme_type(int type);

/* The name of an element ("type.heap"). */
const char *theme_el_name(enum theme_el el);

#endif
