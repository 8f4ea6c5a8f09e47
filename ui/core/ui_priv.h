/* ui_priv.h — the state of a run and the table of screens.
 *
 * Contract: struct ui holds what the screens share (the snapshot, only
 * read; the history; the status line; the columns' settings); the snapshot
 * in it is only read. Each screen is a const struct ui_screen (tmux's
 * window_mode): a table of callbacks with designated initialisers, and its
 * own state in its own file, opaque to the rest (tmux's wp->modedata):
 * ui.c gives it zeroed in u->data[id], data_size bytes, and frees it at
 * the end; only the screen's file reads it (the viewer's is shared with
 * its panes: panes.h). Changing a screen's state recompiles that screen
 * alone. ui.c knows screens only through that table (UI_SCREENS below,
 * one line a screen); no screen names another screen's symbols. Screens
 * share only what ui/core declares (keys, the list: listview.h, status
 * line, theme) and the panes (panes.h) the viewer is made of.
 *
 * A key or mouse callback acts through a key-to-action table and returns
 * UI_* flags; ui.c's loop alone redraws, resamples, opens a process,
 * switches screens and quits in answer to them, and handles resizing in
 * one place. To switch, a screen sets u->next and returns UI_SWITCH: ui.c
 * makes it current and calls its enter; a request for the screen entered
 * goes beside (u->goto_addr: the viewer shows that address). UI_BACK
 * returns to the screen the current one was entered from (u->prev),
 * without calling enter: help is shown over a screen and leaves it as it
 * was. Adding a screen is two files: its own (ui/screens/screen_NAME.c:
 * its table, its state, and its from_keys, the keys of another screen
 * that enter it) and a line in UI_SCREENS. Snapshots are owned by ui.c's
 * history (struct history): a screen may point into any of them until
 * its snapshot_changed says they changed.
 */
#ifndef VMS_UI_PRIV_H
#define VMS_UI_PRIV_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "core/theme.h"
#include "core/uilib.h"
#include "model/config.h"
#include "model/snapshot.h"

/* ui.h (ui/, the top): the run's options; only ui.c reads them. */
struct ui_opts;
struct vms_preview;
struct tracer;

enum {
	UI_DRAW = 1, /* redraw the screen */
	UI_RESAMPLE = 2, /* take a new snapshot of the same process */
	UI_QUIT = 4,
	UI_OPEN = 8, /* open the viewer on ui->open_pid */
	UI_CLEAR = 16, /* repaint every cell (Ctrl-L, new theme) */
	UI_SWITCH = 32, /* make u->next current and enter it */
	UI_BACK = 64, /* back to u->prev, as it was (no enter) */
};

/* The viewer's captures keep the kernel's text a snapshot file holds
 * (vms_capture_opts.keep_raw: about 1 K a region) for a process of at
 * most this many regions, so that its snapshots can be saved (w, the
 * timeline's w); a larger one's are taken again for w. */
enum { UI_KEEP_RAW_REGIONS = 16384 };

/* The smallest terminal anything is drawn in. */
enum { UI_MIN_COLS = 60, UI_MIN_LINES = 19 };

/* Every screen: its id and its table. The help lists the screens' keys in
 * this order. */
#define UI_SCREENS(X)                                                          \
	X(SCR_VIEWER, screen_viewer)                                           \
	X(SCR_MAP, screen_map)                                                 \
	X(SCR_PICKER, screen_picker)                                           \
	X(SCR_TIMELINE, screen_timeline)                                       \
	X(SCR_DIFF, screen_diff)                                               \
	X(SCR_SETUP, screen_setup)                                             \
	X(SCR_HELP, screen_help)                                               \
	X(SCR_HEAPS, screen_heaps)                                             \
	X(SCR_CONTENTS, screen_contents)                                       \
	X(SCR_CALLS, screen_calls)                                             \
	X(SCR_BLOCKS, screen_blocks)                                           \
	X(SCR_EVENTS, screen_events)                                           \
	X(SCR_NOTES, screen_notes)

enum ui_screen_id {
#define X(id, table) id,
	UI_SCREENS(X)
#undef X
		SCR_COUNT
};

/* A screen. Every callback but draw and key may be NULL. */
struct ui_screen {
	const char *name; /* "viewer" */
	const char *title; /* its section in the help; NULL: none */
	const struct key_action *keys; /* its keys, for the help */
	bool typing; /* printable keys are text here: '?' is not help */
	/* The size of the screen's own state (its file's struct, opaque to
	 * every other): ui.c gives it zeroed in u->data[id] before any
	 * callback and frees it after free (tmux's wp->modedata). 0: none. */
	size_t data_size;
	/* Once at the start, before any other: the screen's defaults. */
	void (*init)(struct ui *u);
	/* Once at the end: frees what the screen holds. */
	void (*free)(struct ui *u);
	/* On every UI_SWITCH to it (reads the request, such as
	 * u->goto_addr). Returns 0, or -1 with nothing to show. */
	int (*enter)(struct ui *u);
	/* u->snap was replaced (old: the one before, freed after this, or
	 * NULL; u->snap may be NULL). new_process: a process is being opened
	 * (the picker's Enter, the command line), so its defaults again. */
	void (*snapshot_changed)(struct ui *u, const struct vms_snapshot *old,
				 bool new_process);
	/* Draws the whole screen from the state, touching only the visible
	 * rows; the terminal is at least UI_MIN_COLS x UI_MIN_LINES. */
	void (*draw)(struct ui *u);
	int (*key)(struct ui *u, int key);
	int (*mouse)(struct ui *u, int y, int x, mmask_t b);
	/* Optional: no key waits (the screen drawn, nothing typed ahead);
	 * once until the next key or snapshot. Work a next key would
	 * otherwise wait for, done while the user reads the screen; a key
	 * typed meanwhile waits for it, so it is short (the viewer's: some
	 * 60 ms once a snapshot of a million regions is on screen,
	 * microseconds after a key); nothing shown changes. */
	void (*idle)(struct ui *u);
	/* Optional: on every pass of the loop, whichever screen is shown
	 * (at least every u->tick_ms when a screen set it, else 250 ms):
	 * background work, such as reading a trace's rings. Returns UI_*
	 * flags (UI_DRAW to show what it changed). */
	int (*tick)(struct ui *u);
	/* Optional: the keys, typed on the screen `from`, that enter this
	 * one: a key table of this screen's own file (named from_NAME, NAME
	 * the screen they are typed on: the help lists them in that screen's
	 * section, and test_manpage.py looks for them in its KEYS), each fn
	 * setting u->next to this screen (and what the request carries,
	 * u->goto_addr) and returning UI_SWITCH. ui.c looks them up before
	 * the current screen's key (never while it is typing), so adding a
	 * screen touches no other screen's file; one that is also a key of
	 * the screen `from`, or of another screen entered from it, stops the
	 * viewer at its start (ui.c's check_entries). */
	enum ui_screen_id from;
	const struct key_action *from_keys;
};

#define X(id, table) extern const struct ui_screen table;
UI_SCREENS(X)
#undef X

/* ---- each screen's own data ---- */

/* The history of the process shown: every snapshot a refresh (r, a
 * --watch tick) replaced, oldest first; the last is u->snap. Bounded by
 * HIST_MAX snapshots and HIST_BUDGET bytes (vms_snapshot_bytes): the
 * oldest is let go first, the newest two always kept (the main view's
 * changes are against the one before). ui.c alone adds and
 * drops (set_snapshot); screens are told through snapshot_changed. */
enum { HIST_MAX = 64 };
#define HIST_BUDGET (256ull << 20)
struct history {
	struct vms_snapshot *s[HIST_MAX];
	bool own[HIST_MAX];
	size_t n;
	size_t bytes; /* Σ vms_snapshot_bytes */
	/* The two the timeline marked (NULL: none); the diff screen shows
	 * mark[0] (A) against mark[1] (B). */
	const struct vms_snapshot *mark[2];
};

struct ui {
	const struct ui_opts *opts;
	/* hist's newest, or the frame of pre, or a layout from maps */
	struct vms_snapshot *snap;
	/* while a process is opened: the preview (preview.h) whose frame
	 * snap is, ui.c's, not in hist */
	struct vms_preview *pre;
	bool pre_own; /* snap is a layout from maps, ours, not in hist */
	struct theme theme;
	bool color;
	/* Every screen's table, by id: filled by ui.c (the help reads the
	 * key tables from here). */
	const struct ui_screen *const *screens;
	/* Each screen's own state, by id (its table's data_size): only its
	 * own file (and, for the viewer, its panes: panes.h) knows what is
	 * in it. */
	void *data[SCR_COUNT];
	enum ui_screen_id scr; /* the current screen */
	enum ui_screen_id prev; /* the one it was entered from (UI_BACK) */
	enum ui_screen_id next; /* where UI_SWITCH goes */
	bool goto_set; /* the viewer, on enter, shows goto_addr */
	uint64_t goto_addr;
	bool from_picker; /* the process was opened from the picker */
	pid_t open_pid; /* UI_OPEN opens this one */
	/* The status line (uilib.c): a message, or the find prompt. */
	char msg[256];
	bool msg_error;
	bool finding; /* the find prompt is open */
	bool idled; /* the screen's idle ran since the last key or snapshot */
	char find[128];
	/* The details' columns and their order (config.h): read from
	 * conf_path at start, written by the setup; conf_path "" when there
	 * is no place for it (no HOME). */
	struct vms_config conf;
	char conf_path[512];
	/* ui.c's; the timeline and the diff read it */
	struct history hist;
	/* --watch: the next tick (CLOCK_MONOTONIC, us; 0: not watching) and
	 * the snapshots still to take (-1: no end). */
	double watch_next;
	long watch_left;
	bool watching; /* --watch was given (even once its ticks stop) */
	/* --trace -- CMD: the trace (the command line's; the calls screen
	 * reads and marks it), and how often the loop wakes for the
	 * screens' ticks (ms; 0: every 250) */
	struct tracer *tracer;
	int tick_ms;
	/* A prompt of a screen's is open (a file name being typed): ? and
	 * the letters are text, as in a typing screen. */
	bool prompting;
	/* The next capture keeps what a snapshot file needs (the kernel's
	 * text: vms_capture_opts.keep_raw), for a save from the screen;
	 * ui.c clears it after the capture. */
	bool keep_raw;
	/* The files snapshots were loaded from (-l FILE; -d A B, each side
	 * that is a file): such a snapshot is never replaced. ui_file_of. */
	struct ui_file {
		const struct vms_snapshot *snap;
		const char *path;
	} files[2];
};

#endif
