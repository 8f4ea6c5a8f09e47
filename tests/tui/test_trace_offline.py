#!/usr/bin/env python3
"""A snapshot saved with its trace works offline (issue 29 item 6: "-l
opens it and every view works offline"), at 160x60 with NO_COLOR, on
traced_calls "hold 1" (10 blocks of 3000 bytes leaked in hold_leak, 20
of 5000 in grow_leak, 1 MiB mapped in hold_map, then it waits) under
`vmscope --trace --`:

  - once the program waits (in sigsuspend, every call of it made), r
    takes a snapshot (a mark of the trace); then, live, on the viewer's
    row of the map (found by its address, which the program writes to a
    file) and on the main arena's: B (the allocations alive in the row,
    with the stack of the one under the cursor) and C's f (the call
    sites of what is alive in the row); and L, the trace view: its count
    of events, and its rows of 1 K and more (z) with the stack of the
    first;
  - w saves the snapshot on screen with its trace; vmscope -l FILE shows
    the same rows for each (an allocation's age aside: live it grows);
    L's header says the file keeps every event up to the snapshot (the
    log was not cut: "the newest N of M" when it was);
  - a file of an older vmscope (tests/fixtures/snap_trace.vms, its call
    sites alone): B and L say what it lacks;
  - a run of more events than the log keeps (traced_calls "spin", 4
    million calls, saved when it ends): L says the file keeps the newest
    65,536 of them all.
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

status = D.status
BLOCK = re.compile(r"^ ([0-9a-f]{16}) +(\d+) +[0-9.]+ s  (.*)$")
SITE = re.compile(r"^ [+-] (heap|mmap|brk) ")
EVENT = re.compile(r"^ +[0-9.]+ +-?\d+ \w+ +[0-9a-f]{16} +\d+  .*$")
# rt_sigsuspend's number, for /proc/PID/syscall
SIGSUSPEND = {"x86_64": 130, "aarch64": 133}.get(os.uname().machine)


FIXTURES = os.path.join(T.ROOT, "tests", "fixtures")


def poll(cond, timeout):
    """Whether cond() came true within timeout s (polled, bounded)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return bool(cond())


def viewer(s):
    return "Address" in s and "call sites" not in s and \
        "allocations" not in s and "trace view" not in s


def stack_below(scr, title):
    """The lines of the stack drawn under title, stripped."""
    lines = scr.splitlines()
    at = next((i for i, ln in enumerate(lines) if title in ln), None)
    if at is None:
        return []
    out = []
    for ln in lines[at + 1:]:
        if not ln.strip() or ln == lines[-1]:
            break
        out.append(ln.strip())
    return out


def find(tm, text):
    tm.keys("/")
    tm.keys(*list(text), "Enter")
    return tm.wait_for(lambda s: "match 1 of" in s)


def views(tm, addr, what):
    """What B and C's f show on the map's row and the main arena's, and
    what L shows: {view: rows}."""
    out = {}
    for where, text in (("the map's row", addr),
                        ("the main arena's row", "main arena")):
        scr = find(tm, text)
        if not T.ok("match 1 of" in scr, "%s: %s found" % (what, where),
                    scr):
            continue
        scr = tm.expect("%s: B on %s" % (what, where),
                        lambda s: "Alive in" in s and
                        "Stack of the allocation" in s and
                        any(BLOCK.match(ln) for ln in s.splitlines()),
                        "B")
        head = re.search(r"Alive in ([0-9a-f]+-[0-9a-f]+): .*?  (\d+)", scr)
        out["B, " + where] = (
            head and head.groups(),
            [BLOCK.match(ln).groups() for ln in scr.splitlines()
             if BLOCK.match(ln)],
            stack_below(scr, "Stack of the allocation"))
        tm.keys("Escape")
        tm.wait_for(viewer)
        tm.keys("C")
        tm.wait_for(lambda s: "call sites" in s)
        # (a saved trace's: "alive at the snapshot in")
        scr = tm.expect("%s: C, f on %s" % (what, where),
                        lambda s: re.search(r"Only what is alive (at the "
                                            r"snapshot )?in", s) and
                        any(SITE.match(ln) for ln in s.splitlines()), "f")
        T.ok(("alive at the snapshot in" in scr) == (what == "offline"),
             "%s: ... its header says %s" % (
                 what, "alive at the snapshot" if what == "offline"
                 else "alive"), scr)
        out["f, " + where] = [ln.rstrip() for ln in scr.splitlines()
                              if SITE.match(ln)]
        tm.keys("f")
        tm.wait_for(lambda s: "Only what" not in s)
        tm.keys("Escape")
        tm.wait_for(viewer)
    scr = tm.expect("%s: L opens the trace view" % what,
                    lambda s: "trace view" in s and
                    re.search(r"\d+ events \(", s), "L")
    n = re.search(r"(\d+) events \(", scr)
    tm.keys("z")
    scr = tm.wait_for(lambda s: re.search(r"size >= 1(\.0)? K", s) and
                      any(EVENT.match(ln) for ln in s.splitlines()))
    out["L"] = (n and n.group(1),
                [ln.rstrip() for ln in scr.splitlines() if EVENT.match(ln)],
                stack_below(scr, "Stack of the event"))
    out["L header"] = [ln for ln in scr.splitlines() if " events (" in ln]
    tm.keys("Escape")
    tm.wait_for(viewer)
    return out


def waiting(pid):
    """Whether pid waits in sigsuspend (every call before it made)."""
    try:
        with open("/proc/%d/syscall" % pid) as f:
            return f.read().split()[0] == str(SIGSUSPEND)
    except (OSError, IndexError):
        return False


def live(tmp, where, path):
    lib = os.path.join(T.BUILD, "libvmstrace.so")
    tm = D.Tmux([T.VMSCOPE, "--trace", "--", T.target("traced_calls"),
                 "hold", "1", where], width=160, height=60,
                env={"NO_COLOR": "1", "VMSCOPE_TRACELIB": lib})
    pid = None
    try:
        tm.wait_for(lambda s: "pss, not frozen" in s, timeout=60)
        pid = tm.launched_pid()
        if not T.ok(pid is not None, "the traced program runs"):
            return None
        T.ok(poll(lambda: waiting(pid) and os.path.exists(where) and
                    open(where).read().strip(), 30),
             "the traced program made every call and waits")
        tm.keys("r")
        tm.wait_for(lambda s: "new snapshot" in s, timeout=60)
        with open(where) as f:
            addr = f.read().strip()
        got = views(tm, addr, "live")
        tm.keys("w")
        tm.wait_for(lambda s: "Save" in status(s))
        tm.keys("C-u").text(path).keys("Enter")
        scr = tm.wait_for(lambda s: "saved " in s and
                          os.path.basename(path) in s)
        T.ok(os.path.exists(path), "w saves the snapshot with its trace",
             scr)
        return addr, got
    finally:
        tm.kill()
        T.kill_gone(pid)


def offline(path, addr, want):
    tm = D.Tmux([T.VMSCOPE, "-l", path], width=160, height=60,
                env={"NO_COLOR": "1"})
    try:
        tm.wait_for(lambda s: viewer(s) and
                    os.path.basename(path) in s, timeout=30)
        got = views(tm, addr, "offline")
        for k, v in want.items():
            if k == "L header":
                continue
            T.ok(got.get(k) == v and v and (v[1] if k[0] in "BL" else v),
                 "-l: %s shows the same rows as live" % k,
                 "live %r\n-l   %r" % (v, got.get(k)))
        blocks = want.get("B, the main arena's row")
        T.ok(blocks and blocks[0][1] == "30" and
             sorted(set((s, f.split()[0]) for _, s, f in blocks[1])) ==
             [("3000", "hold_leak"), ("5000", "grow_leak")],
             "... the arena's 30 blocks: hold_leak's of 3000 bytes, "
             "grow_leak's of 5000", blocks)
        mp = want.get("f, the map's row")
        T.ok(mp and len(mp) == 1 and "hold_map" in mp[0] and
             re.search(r"\b1024 K\s+1\s", mp[0]),
             "... f on the map's row: hold_map's 1 map of 1024 K", mp)
        # (every event up to the snapshot: the log was not cut)
        T.ok(any(re.search(r"\d+ events \(all \d+ up to the snapshot "
                           r"kept\)", ln)
                 for ln in got.get("L header", [])),
             "-l: L says the file keeps every event up to the snapshot",
             got.get("L header"))
    finally:
        tm.kill()


def older():
    """A file of an older vmscope keeps the call sites alone."""
    tm = D.Tmux([T.VMSCOPE, "-l", os.path.join(FIXTURES,
                                                "snap_trace.vms")],
                width=120, height=40, env={"NO_COLOR": "1"})
    try:
        tm.wait_for(viewer, timeout=30)
        for key in ("B", "L"):
            tm.expect("an older file: %s says it keeps the call sites "
                      "only, and the viewer stays" % key,
                      lambda s: "call sites only" in D.bottom(s) and
                      "Address" in s and "vmscope  allocations" not in s and
                      "vmscope  trace view" not in s, key)
            tm.keys("j")  # the message goes with the next key
            tm.wait_for(lambda s: "call sites only" not in s)
    finally:
        tm.kill()


def cut(tmp):
    """A run of more events than the log keeps (traced_calls "spin": 2
    million malloc/free pairs, then it ends): the file keeps the newest
    65,536 and L says of how many."""
    path, done = os.path.join(tmp, "spin.vms"), os.path.join(tmp, "done")
    lib = os.path.join(T.BUILD, "libvmstrace.so")
    with open(os.path.join(tmp, "err"), "w+b") as err:
        r = subprocess.run([T.VMSCOPE, "--trace", "-w", path, "--",
                            T.target("traced_calls"), "spin", done],
                           stdout=err, stderr=err, timeout=600,
                           env=dict(os.environ, VMSCOPE_TRACELIB=lib))
        err.seek(0)
        msg = err.read()
    if not T.ok(r.returncode == 0 and os.path.exists(path),
                "spin traced to its end, saved", msg):
        return
    tm = D.Tmux([T.VMSCOPE, "-l", path], width=120, height=40,
                env={"NO_COLOR": "1"})
    try:
        tm.wait_for(lambda s: viewer(s) and "spin.vms" in s, timeout=30)
        scr = tm.expect("spin's file: L opens the trace view",
                        lambda s: "trace view" in s and
                        any(EVENT.match(ln) for ln in s.splitlines()), "L")
        m = re.search(r"(\d+) events \(the newest (\d+) of (\d+) up to the "
                      r"snapshot kept\)", " ".join(scr.split()))
        T.ok(m and m.group(1) == m.group(2) == "65536" and
             int(m.group(3)) >= 4000000,
             "... the log cut: the newest 65536 of its 4 million and more "
             "events kept, said", m and m.group(0))
    finally:
        tm.kill()


def run(tmp):
    if not T.ok(SIGSUSPEND is not None, "a machine whose sigsuspend is "
                "known", os.uname().machine):
        return
    path = os.path.join(tmp, "hold.vms")
    got = live(tmp, os.path.join(tmp, "map-at"), path)
    if got and os.path.exists(path):
        offline(path, *got)
    older()
    cut(tmp)


def main():
    D.run_in_tmp("a traced snapshot's views offline, in tmux", run)


main()
