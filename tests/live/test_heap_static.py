#!/usr/bin/env python3
"""A program with glibc linked statically (tests/targets/heap_arenas.c
built with -static by this test): no image is libc, and the executable
has no glibc release string to tell its malloc's layout, so its heap is
not walked. Its heaps are still found by their shape (the brk heap, four
thread arenas by their heap_info), with their figures null (JSON's
in_use and free), and a note of the malloc step says why (DESIGN: a
figure vmscope cannot know is null, and a note says why); it said
nothing. No OpenMetrics heap sample. With -b fork and -b pss -F. Skipped
where gcc cannot link statically (no libc6-dev's libc.a)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


def main():
    src = os.path.join(T.ROOT, "tests", "targets", "heap_arenas.c")
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "heap_static")
        cc = shutil.which("gcc") or shutil.which("cc")
        r = subprocess.run([cc or "cc", "-static", "-O1", "-o", exe, src,
                            "-lpthread"], capture_output=True) \
            if cc else None
        if not r or r.returncode != 0:
            T.skip("a statically linked glibc program",
                   "cannot link statically here")
            T.done()
            return
        p, line = T.start([exe, "normal", "4"])
        try:
            for how, args in (("fork", ["-b", "fork"]),
                              ("pss -F", ["-b", "pss", "-F"])):
                r = T.run_vmscope("-e", "json", *args, p.pid, timeout=300)
                s = json.loads(r.stdout)
                heaps = [h for h in s["heaps"]
                         if h["kind"].startswith("glibc")]
                notes = [n["why"] for n in s["capture"]["missing"]
                         if n["step"] == "malloc"]
                T.ok(r.returncode == 0 and len(heaps) == 5 and
                     all(h["in_use"] is None and h["free"] is None
                         for h in heaps) and s["malloc"] is None,
                     "%s: its five heaps found by their shape, their "
                     "figures null" % how, heaps)
                T.ok(len(notes) == 1 and "not done" in notes[0] and
                     "libc" in notes[0],
                     "%s: a note of the malloc step says why they are "
                     "null" % how, notes)
                r = T.run_vmscope("-s", *args, p.pid, timeout=300)
                T.ok(any(ln.startswith("Missing:") and "malloc not done"
                         in ln for ln in r.stdout.decode().splitlines()),
                     "%s: the summary says so on a Missing line" % how)
                r = T.run_vmscope("-e", "openmetrics", *args, p.pid,
                                  timeout=300)
                T.ok(r.returncode == 0 and "vmscope_heap_in_use_bytes{"
                     not in r.stdout.decode(),
                     "%s: no OpenMetrics heap sample" % how)
                T.ok(T.proc_state(p.pid) not in "tT" and
                     T.tracer_pid(p.pid) == 0,
                     "%s: target running and untraced afterwards" % how)
        finally:
            T.kill(p)
    T.done()


if __name__ == "__main__":
    main()
