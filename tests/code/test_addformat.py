#!/usr/bin/env python3
"""test_addformat — an export format is one file and one row, and so are a
runtime step whose result a snapshot file keeps and an allocator
(issue 26).

A copy of the tree (Makefile, src/, cli/, ui/, link/, with the normal
build's objects, so only what changes is compiled again) gets, as
exactly six changed files:
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
    step_allocator.c's VMS_ALLOCATORS, before the C library's.
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
  - the tree itself is untouched: its vmscope refuses -e lines.
The copy is removed at the end.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

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
    """The four changes: each addition's file and its row. Returns the
    files the tree's copy now differs in."""
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
    changed = []
    for base, _, files in os.walk(os.path.join(dst, "src")):
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


def main():
    tmp = tempfile.mkdtemp(prefix="vms-addformat-")
    try:
        reused = copy_tree(tmp)
        changed = add_format_and_step(tmp)
        T.eq(changed, ["src/analyze/heaps/alloc_throwaway.c",
                       "src/analyze/heaps/step_allocator.c",
                       "src/analyze/runtimes/step_marker.c",
                       "src/export/export.c", "src/export/export_lines.c",
                       "src/pipeline.c"],
             "the format, the step and the allocator are two files each: "
             "its own and its table's row")
        r = subprocess.run(["make", "-j2", "vmscope"], cwd=tmp,
                           capture_output=True, text=True, timeout=900)
        T.ok(r.returncode == 0, "the copy with the three builds (%s)" %
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
