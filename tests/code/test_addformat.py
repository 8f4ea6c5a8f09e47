#!/usr/bin/env python3
"""test_addformat — an export format is one file and one row, and so are a
runtime step whose result a snapshot file keeps, an allocator, a screen
of the viewer, and a smaps counter (one line: issue 26).

A copy of the tree (Makefile, src/, cli/, ui/, link/, with the normal
build's objects, so only what changes is compiled again) gets, as
exactly nine changed files:
  - a throw-away format, "lines" (one line per region: START-END TYPE):
    a new file src/export/export_lines.c and the row X(lines) in
    export.c's VMS_EXPORTERS;
  - a throw-away step, "marker" (names the first unnamed anonymous
    private region "MARKER ..." when it has the memory, and declares
    that a snapshot file keeps what it named): a new file
    src/analyze/runtimes/step_marker.c and the row X(marker) in
    pipeline.c's VMS_STEPS;
  - a throw-away allocator, "throwaway", told by a symbol every libc
    defines (getpid), whose find names nothing and says so: a new file
    src/analyze/heaps/alloc_throwaway.c and the row X(throwaway) in
    step_allocator.c's VMS_ALLOCATORS, before the C library's;
  - a throw-away screen, "throwaway" (the snapshot's region count, and
    how often it was entered), entered by Z in the viewer: a new file
    ui/screens/screen_throwaway.c, which declares that key itself (its
    from_keys), and the row X(SCR_THROWAWAY, screen_throwaway) in
    ui_priv.h's UI_SCREENS; no other screen's file;
  - a smaps counter, Anonymous: the line X(anonymous, "Anonymous") in
    records.h's VMS_COUNTER_FIELDS, and nothing else (the region's
    budget follows the list: VMS_NCOUNTERS_MAX).
`make vmscope` builds it there, into the copy's own build directory, and
the test checks that:
  - --help offers -e lines (the -e line and its own line) and an unknown
    -e format's error names it: both come from the table;
  - `-e lines PID` of a quiet target prints one line per region, the
    kernel's /proc/PID/maps read before and after (the same);
  - -d A B -e lines is refused: its row has no diff writer;
  - the marker step named a region of the live target, and a snapshot
    file saved from it (-w) and loaded (-l: no memory, so the step cannot
    name it again) has it named the same, put back from the file;
  - the allocator step found the throw-away allocator in the target's
    libc (beside glibc's malloc, by getpid), and its find ran;
  - the viewer, run on a pseudo-terminal of the test's own (no tmux) on
    a snapshot file, shows the throw-away screen on Z with the file's
    region count, Esc goes back, and the help lists Z in the viewer's
    keys; q quits it;
  - -e json of a quiet target has "anonymous" in every region, equal to
    the kernel's Anonymous of that region in /proc/PID/smaps (read
    before and after: the same), and a snapshot file saved from it (-w)
    and loaded (-l: its smaps text parsed again) has the same;
  - the tree itself is untouched: its vmscope refuses -e lines.
The copy is removed at the end.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

LINES_C = r'''/* export_lines.c — a throw-away format (tests/code/test_addformat.py):
 * one line per region, START-END TYPE. */
#include "export/export.h"

static void export_lines(const struct vms_snapshot *s, struct outbuf *o)
{
	size_t i;

	for (i = 0; i < s->nregions; i++)
		ob_printf(o, "%llx-%llx %s\n",
			  (unsigned long long)s->regions[i].start,
			  (unsigned long long)s->regions[i].end,
			  vms_type_info[s->regions[i].type].json);
}

const struct vms_exporter vms_export_lines = {
	.name = "lines",
	.help = "one line per region",
	.listed = true,
	.write = export_lines,
};
'''

MARKER_C = r'''/* step_marker.c — a throw-away step (tests/code/test_addformat.py):
 * names the first unnamed anonymous private region, with the memory; a
 * snapshot file keeps what it named. */
#include "analyze/steps.h"
#include "model/source.h"

static int step_marker_run(struct vms_snapshot *s, unsigned have,
			   struct vms_error *err)
{
	size_t i;

	if (!(have & VMS_SRC_MEMORY))
		return vms_source_restore(s, "marker", err) < 0 ? -1 : 0;
	for (i = 0; i < s->nregions; i++)
		if (s->regions[i].type == VMS_T_PRIVATE_DATA &&
		    !s->regions[i].path && !s->regions[i].detail) {
			s->regions[i].detail = "MARKER named with memory";
			break;
		}
	return 0;
}

static const struct vms_kept kept = { .step = "marker", .named = "MARKER" };

const struct vms_step vms_step_marker = {
	.name = "marker",
	.doing = "marking",
	.run = step_marker_run,
	.kept = &kept,
};
'''
MARKED = "MARKER named with memory"

THROWAWAY_C = r'''/* alloc_throwaway.c — a throw-away allocator
 * (tests/code/test_addformat.py): told by getpid, its heap never found. */
#include "analyze/heaps/alloc_heap.h"

static int find(struct alloc_marks *m, struct vms_allocator *al,
		const struct vms_image *im, const void *facts)
{
	(void)m;
	(void)im;
	(void)facts;
	al->partial = "THROWAWAY find ran";
	return 0;
}

static const char *const syms[] = { "getpid", NULL };

const struct alloc_kind alloc_kind_throwaway = {
	.name = "throwaway",
	.syms = syms,
	.how = "not at all",
	.find = find,
};
'''

SCREEN_C = r'''/* screen_throwaway.c — a throw-away screen (tests/code/test_addformat.py):
 * Z in the viewer shows the snapshot's region count and how often it was
 * entered; Esc goes back. */
#include <stdio.h>

#include "core/draw.h"
#include "core/ui_priv.h"

struct throwaway {
	unsigned entered;
};

static struct throwaway *tw_of(const struct ui *u)
{
	return u->data[SCR_THROWAWAY];
}

static void tw_draw(struct ui *u)
{
	char line[96];

	snprintf(line, sizeof(line), " THROWAWAY-SCREEN regions=%zu entered=%u",
		 u->snap ? u->snap->nregions : 0, tw_of(u)->entered);
	put_str(0, 0, COLS, theme_attr(EL_TITLE), line, 1);
	ui_status(u, " Esc back", NULL);
}

static int tw_enter(struct ui *u)
{
	tw_of(u)->entered++;
	return 0;
}

static int act_back(struct ui *u)
{
	u->next = SCR_VIEWER;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action tw_keys[] = {
	{ 27, "Esc", "back to the viewer", act_back },
	{ 'q', "q", "quit", ui_quit },
	{ 0, NULL, NULL, NULL },
};

static int tw_key(struct ui *u, int key)
{
	int r = key_dispatch(u, tw_keys, key);

	return r >= 0 ? r : 0;
}

static int act_enter_from_viewer(struct ui *u)
{
	u->next = SCR_THROWAWAY;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action from_viewer[] = {
	{ 'Z', "Z", "the throw-away screen", act_enter_from_viewer },
	{ 0, NULL, NULL, NULL },
};

const struct ui_screen screen_throwaway = {
	.name = "throwaway",
	.title = "Throw-away (Z in the viewer)",
	.keys = tw_keys,
	.data_size = sizeof(struct throwaway),
	.enter = tw_enter,
	.draw = tw_draw,
	.key = tw_key,
	.from = SCR_VIEWER,
	.from_keys = from_viewer,
};
'''

COPIED = ("Makefile", "src", "cli", "ui", "link")


def copy_tree(dst):
    """The sources and, from a normal build, its objects (mtimes kept, so
    make compiles only what the test changes)."""
    for name in COPIED:
        src = os.path.join(T.ROOT, name)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(dst, name),
                            copy_function=shutil.copy2)
        else:
            shutil.copy2(src, os.path.join(dst, name))
    if os.path.basename(os.path.normpath(T.BUILD)) != "build":
        return False  # another build's flags (sanitizer): build afresh
    for sub in ("src", "cli", "ui", "link", "gen"):
        objs = os.path.join(T.BUILD, sub)
        if os.path.isdir(objs):
            shutil.copytree(objs, os.path.join(dst, "build", sub),
                            copy_function=shutil.copy2,
                            ignore=shutil.ignore_patterns("*.a"))
    return True


def add_row(path, pattern, repl, what):
    with open(path) as f:
        text = f.read()
    new, n = re.subn(pattern, repl, text)
    T.eq(n, 1, what)
    with open(path, "w") as f:
        f.write(new)


def add_format_and_step(dst):
    """The changes: each addition's file and its row (the counter: its
    line). Returns the files the tree's copy now differs in."""
    with open(os.path.join(dst, "src", "export", "export_lines.c"), "w") as f:
        f.write(LINES_C)
    add_row(os.path.join(dst, "src", "export", "export.c"),
            r"(#define VMS_EXPORTERS\(X\)[ \t]*\\\n)",
            "\\1\tX(lines) \\\\\n",
            "export.c has the VMS_EXPORTERS table the row goes in")
    with open(os.path.join(dst, "src", "analyze", "runtimes",
                           "step_marker.c"), "w") as f:
        f.write(MARKER_C)
    add_row(os.path.join(dst, "src", "pipeline.c"), r"(\n\tX\(totals\))",
            "\n\tX(marker) \\\\\\1",
            "pipeline.c has the VMS_STEPS table, totals last")
    with open(os.path.join(dst, "src", "analyze", "heaps",
                           "alloc_throwaway.c"), "w") as f:
        f.write(THROWAWAY_C)
    add_row(os.path.join(dst, "src", "analyze", "heaps",
                         "step_allocator.c"), r"(\n\tX\(glibc\))",
            "\n\tX(throwaway) \\\\\\1",
            "step_allocator.c has the VMS_ALLOCATORS table, glibc last")
    with open(os.path.join(dst, "ui", "screens", "screen_throwaway.c"),
              "w") as f:
        f.write(SCREEN_C)
    add_row(os.path.join(dst, "ui", "core", "ui_priv.h"),
            r"(\tX\(SCR_VIEWER, screen_viewer\)[ \t]*\\\n)",
            "\\1\tX(SCR_THROWAWAY, screen_throwaway) \\\\\n",
            "ui_priv.h has the UI_SCREENS table, the viewer first")
    add_row(os.path.join(dst, "src", "model", "records.h"),
            r"(\n\tX\(anon_huge, \"AnonHugePages\"\))",
            "\n\tX(anonymous, \"Anonymous\") \\\\\\1",
            "records.h has the VMS_COUNTER_FIELDS list, AnonHugePages last")
    changed = []
    for base, _, files in [w for top in ("src", "ui")
                           for w in os.walk(os.path.join(dst, top))]:
        for name in files:
            path = os.path.join(base, name)
            rel = os.path.relpath(path, dst)
            orig = os.path.join(T.ROOT, rel)
            with open(path, "rb") as f:
                mine = f.read()
            if not os.path.exists(orig):
                changed.append(rel)
                continue
            with open(orig, "rb") as f:
                if f.read() != mine:
                    changed.append(rel)
    return sorted(changed)


def lines_of_target(vms):
    """-e lines of a quiet target, with the kernel's maps before and
    after; retried while the two differ."""
    p, _ = T.start([T.target("everykind")])
    try:
        for _ in range(3):
            before = T.maps(p.pid)
            r = subprocess.run([vms, "-e", "lines", str(p.pid)],
                               capture_output=True, text=True, timeout=120)
            after = T.maps(p.pid)
            if before == after:
                break
        return r, after, before == after
    finally:
        T.kill(p)


def check(dst):
    vms = os.path.join(dst, "vmscope")
    r = subprocess.run([vms, "--help"], capture_output=True, text=True)
    T.ok(re.search(r"--export=\S*\blines\b", r.stdout) and
         re.search(r"^\s+lines\s+one line per region$", r.stdout, re.M),
         "--help offers -e lines, with its own line, from the table")
    r = subprocess.run([vms, "-e", "nosuch", "1"], capture_output=True,
                       text=True)
    T.ok(r.returncode == 1 and "lines" in r.stderr,
         "an unknown format's error lists lines", r.stderr)
    r, maps, stable = lines_of_target(vms)
    T.ok(r.returncode == 0, "-e lines PID of a target exits 0", r.stderr)
    got = [tuple(int(x, 16) for x in line.split()[0].split("-"))
           for line in r.stdout.splitlines()]
    want = [(m["start"], m["end"]) for m in maps]
    if not stable:
        T.skip("-e lines: one line per region of the kernel's maps",
               "the target's maps changed while it was read, 3 times")
    else:
        T.ok(got == want, "-e lines: one line per region, the kernel's "
             "maps (%d regions)" % len(want), (got[:3], want[:3]))
    snap = os.path.join(T.ROOT, "tests", "fixtures", "snap_v1.vms")
    r = subprocess.run([vms, "-d", snap, snap, "-e", "lines"],
                       capture_output=True, text=True)
    T.ok(r.returncode == 1 and "no 'lines'" in r.stderr,
         "-d A B -e lines is refused: the row has no diff writer", r.stderr)
    marked(vms, dst)
    screen_check(vms, dst)
    counted(vms, dst)


def marked(vms, dst):
    """The marker step: a live capture has the region it named; a file
    saved from a capture has it too when loaded, put back from the
    file."""
    p, _ = T.start([T.target("everykind")])
    saved = os.path.join(dst, "marked.vms")
    try:
        live = subprocess.run([vms, "-e", "json", str(p.pid)],
                              capture_output=True, text=True, timeout=120)
        w = subprocess.run([vms, "-w", saved, str(p.pid)],
                           capture_output=True, text=True, timeout=120)
    finally:
        T.kill(p)
    loaded = subprocess.run([vms, "-l", saved, "-e", "json"],
                            capture_output=True, text=True, timeout=120)
    if live.returncode or w.returncode or loaded.returncode:
        T.ok(False, "the marker step: capture, save and load",
             live.stderr + w.stderr + loaded.stderr)
        return
    a = json.loads(live.stdout)
    b = json.loads(loaded.stdout)
    ra = [x["start"] for x in a["regions"] if x.get("detail") == MARKED]
    rb = [x["start"] for x in b["regions"] if x.get("detail") == MARKED]
    T.ok(len(ra) == 1, "the marker step ran on the live target: one "
         "region named", ra)
    T.ok(len(rb) == 1 and not [n for n in b["capture"].get("missing", [])
                               if n["step"] == "marker"],
         "loaded from a file (no memory): the region it named is put back "
         "from the file, with no note", (rb, b["capture"].get("missing")))
    al = a.get("allocator") or {}
    T.ok(al.get("name") == "throwaway" and al.get("found_by") == "getpid"
         and not al.get("provides_malloc") and
         "libc" in os.path.basename(al.get("image") or "") and
         al.get("partial") == "THROWAWAY find ran",
         "the allocator step found the throw-away allocator in libc, "
         "beside glibc's malloc, and ran its find", al)


ANSI = re.compile(rb"\x1b(\[[0-9;?]*[ -/]*[@-~]|[()][0-9A-Za-z]|[=>78MDEc])")


class Pty:
    """A program on a pseudo-terminal of the test's own (rows x cols): the
    viewer without tmux. Its output is kept with the terminal's escapes
    taken out; until() polls it, bounded, for a pattern."""

    def __init__(self, argv, env, rows=200, cols=120):
        import pty
        import fcntl
        import struct
        import termios
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ,
                            struct.pack("HHHH", rows, cols, 0, 0))
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.out = b""

    def send(self, keys):
        os.write(self.fd, keys)

    def until(self, pattern, since=0, timeout=60):
        """The text from since on once it matches pattern (bytes), or
        None when it does not by timeout."""
        import select
        deadline = time.time() + timeout
        while True:
            text = ANSI.sub(b"", self.out[since:])
            if re.search(pattern, text):
                return text
            left = deadline - time.time()
            if left <= 0:
                return None
            if select.select([self.fd], [], [], left)[0]:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    data = b""
                if not data:
                    return None
                self.out += data

    def end(self, timeout=20):
        """Waits for the program's exit (its status), killing it by its pid
        when it does not end by timeout (then None)."""
        import select
        deadline = time.time() + timeout
        while time.time() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            if select.select([self.fd], [], [], 0.1)[0]:
                try:
                    self.out += os.read(self.fd, 65536)
                except OSError:
                    pass
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)
        return None


def screen_check(vms, dst):
    """The throw-away screen, reached by its key: Z in the viewer (on a
    snapshot file), Esc back, Z again, the help listing Z; q quits."""
    snap = os.path.join(T.ROOT, "tests", "fixtures", "snap_v1.vms")
    r = subprocess.run([vms, "-l", snap, "-e", "json"], capture_output=True,
                       text=True, timeout=120)
    n = len(json.loads(r.stdout)["regions"]) if r.returncode == 0 else -1
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm",
           "HOME": dst, "XDG_CONFIG_HOME": os.path.join(dst, "config"),
           "NO_COLOR": "1", "LANG": "C.UTF-8"}
    p = Pty([vms, "-l", snap], env)
    try:
        up = p.until(rb"Total")
        T.ok(up is not None, "the copy's viewer is up on a terminal of "
             "the test's own (a snapshot file)", p.out[-300:])
        at = len(p.out)
        p.send(b"Z")
        got = p.until(rb"THROWAWAY-SCREEN regions=(\d+) entered=1", at)
        m = got and re.search(rb"THROWAWAY-SCREEN regions=(\d+) entered=1",
                              got)
        T.ok(m and int(m.group(1)) == n, "Z in the viewer enters the "
             "throw-away screen (its own from_keys), with the file's %d "
             "regions" % n, ANSI.sub(b"", p.out[at:])[-300:])
        at = len(p.out)
        p.send(b"\x1b")
        T.ok(p.until(rb"Total", at) is not None,
             "Esc goes back to the viewer")
        at = len(p.out)
        p.send(b"Z")
        T.ok(p.until(rb"THROWAWAY-SCREEN regions=\d+ entered=2", at)
             is not None, "Z again: entered a second time")
        p.send(b"\x1b")
        T.ok(p.until(rb"Total", at) is not None, "and back")
        at = len(p.out)
        p.send(b"?")
        got = p.until(rb"Throw-away", at) or b""
        T.ok(0 <= got.find(b"throw-away screen") < got.find(b"Throw-away"),
             "the help lists Z, the key the screen declares, among the "
             "viewer's keys (before the screen's own section)",
             got[-300:])
        p.send(b"q")
    finally:
        rc = p.end()
    T.ok(rc == 0, "q quits the viewer (exit 0)", rc)


def smaps_anonymous(pid):
    """{start: Anonymous bytes} of every region of /proc/PID/smaps."""
    out, start = {}, None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            m = re.match(r"([0-9a-f]+)-[0-9a-f]+ ", line)
            if m:
                start = int(m.group(1), 16)
            elif line.startswith("Anonymous:"):
                out[start] = int(line.split()[1]) * 1024
    return out


def start_of(x):
    return int(x, 16) if isinstance(x, str) else x


def counted(vms, dst):
    """The Anonymous counter: in -e json of a quiet target, region by
    region as the kernel's smaps has it; and the same from a snapshot
    file saved from it."""
    p, _ = T.start([T.target("everykind")])
    saved = os.path.join(dst, "counted.vms")
    stable = False
    try:
        for _ in range(3):
            before = smaps_anonymous(p.pid)
            live = subprocess.run([vms, "-e", "json", str(p.pid)],
                                  capture_output=True, text=True,
                                  timeout=120)
            after = smaps_anonymous(p.pid)
            if before == after:
                stable = True
                break
        w = subprocess.run([vms, "-w", saved, str(p.pid)],
                           capture_output=True, text=True, timeout=120)
    finally:
        T.kill(p)
    if live.returncode or w.returncode:
        T.ok(False, "the counter: capture and save", live.stderr + w.stderr)
        return
    a = json.loads(live.stdout)
    got = {start_of(x["start"]): x.get("anonymous") for x in a["regions"]}
    if not stable:
        T.skip("-e json: each region's anonymous is the kernel's",
               "the target's smaps changed while it was read, 3 times")
    else:
        T.ok(got == after and sum(after.values()) > 0,
             "-e json: every region's \"anonymous\" is the kernel's "
             "Anonymous of it (%d regions, %d bytes in all)" %
             (len(after), sum(after.values())),
             [(hex(k), got.get(k), v) for k, v in after.items()
              if got.get(k) != v][:5])
    loaded = subprocess.run([vms, "-l", saved, "-e", "json"],
                            capture_output=True, text=True, timeout=120)
    b = json.loads(loaded.stdout) if loaded.returncode == 0 else {}
    back = {start_of(x["start"]): x.get("anonymous")
            for x in b.get("regions", [])}
    T.ok(loaded.returncode == 0 and back == got,
         "a snapshot file saved from it (-w, -l) has the same counter",
         loaded.stderr[-500:])


def main():
    tmp = tempfile.mkdtemp(prefix="vms-addformat-")
    try:
        reused = copy_tree(tmp)
        changed = add_format_and_step(tmp)
        T.eq(changed, ["src/analyze/heaps/alloc_throwaway.c",
                       "src/analyze/heaps/step_allocator.c",
                       "src/analyze/runtimes/step_marker.c",
                       "src/export/export.c", "src/export/export_lines.c",
                       "src/model/records.h", "src/pipeline.c",
                       "ui/core/ui_priv.h",
                       "ui/screens/screen_throwaway.c"],
             "the format, the step, the allocator and the screen are two "
             "files each, its own and its table's row; the counter one "
             "line of one file")
        r = subprocess.run(["make", "-j2", "vmscope"], cwd=tmp,
                           capture_output=True, text=True, timeout=900)
        T.ok(r.returncode == 0, "the copy with the five builds (%s)" %
             ("the tree's objects reused" if reused else "built afresh"),
             r.stderr[-2000:])
        if r.returncode == 0:
            rebuilt = re.findall(r"-o build/(\S+\.o) ", r.stdout)
            print("# compiled again: %s" % " ".join(rebuilt))
            check(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    r = T.run_vmscope("-e", "lines", "1")
    T.ok(r.returncode == 1 and not os.path.exists(tmp),
         "removed: the tree's own vmscope has no -e lines, the copy is gone")
    T.done()


if __name__ == "__main__":
    main()
