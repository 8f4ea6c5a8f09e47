#!/usr/bin/env python3
"""Region contents (issue 11, item 5), at 80x24 with NO_COLOR and at 200x60
with -t light, on the contents target (an ASCII and a UTF-16LE string in an
anonymous mapping; a unique needle made in place in another): x on the
region holding the strings shows both, at the addresses the target put
them, marked A and U; + raises the minimum length past the ASCII string's
and it goes; Tab shows the bytes in hex; / finds the needle across the
snapshot and moves to the region holding it, the hex line at its address;
Esc returns to the viewer on that region. Memory comes from the snapshot's
source only: -b fork (the clone), -b pss -F (the frozen target) and a
core dump (gcore) show it; a pss capture without -F and a snapshot file say why they cannot. The
clone the viewer keeps dies before it captures the process again (r gives
the same working set) and when it quits.
"""
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402


def region_start(pid, addr):
    with open("/proc/%d/maps" % pid) as f:
        for l in f:
            a, b = (int(x, 16) for x in l.split()[0].split("-"))
            if a <= addr < b:
                return a
    return None


status = D.status


def to_region(tm, start):
    """The viewer's cursor to the region starting at start, then x."""
    tm.keys("/").text("%016x" % start).keys("Enter")
    tm.wait_for(lambda s: "Find:" not in status(s))
    tm.keys("x")
    return tm.wait_for(lambda s: "Strings of " in s or "Bytes of " in s)


def viewer(pid, args, w, h, env):
    tm = D.Tmux([T.VMSCOPE] + args + [str(pid)], width=w, height=h, env=env,
                colours=256, term="tmux-256color")
    # ", frozen N us": the capture's header (the layout from maps shown
    # first says "maps, not frozen", and its counters are not yet read)
    tm.wait_for(lambda s: re.search(r"\d+/\d+\s*$", status(s)) and
                re.search(r", frozen \d+ us", s), timeout=120)
    return tm


def one_size(p, rf, w, h, env, args, what):
    s_at = rf["strings"]
    tm = viewer(p.pid, args, w, h, env)
    scr = to_region(tm, region_start(p.pid, s_at))
    scr = tm.wait_for(rf["wide"])
    T.ok(re.search(r"^%016x A +%d  %s\s*$" % (s_at + 0x100, len(rf["ascii"]),
                                             re.escape(rf["ascii"])),
                   scr, re.M),
         "%s: the ASCII string, at its address, marked A" % what, scr)
    T.ok(re.search(r"^%016x U +%d  %s\s*$" % (s_at + 0x2000, len(rf["wide"]),
                                             re.escape(rf["wide"])),
                   scr, re.M),
         "%s: the UTF-16LE string, at its address, marked U" % what, scr)
    T.ok("of 4 or more" in scr, "%s: the minimum length is 4" % what, scr)
    tm.keys(*(["+"] * (len(rf["ascii"]) - 3)))
    want = "of %d or more" % (len(rf["ascii"]) + 1)
    scr = tm.wait_for(want)
    T.ok(want in scr and rf["ascii"] not in scr and rf["wide"] not in scr,
         "%s: + raises it; past their lengths both go" % what, scr)
    tm.keys(*(["-"] * (len(rf["ascii"]) - 3)))
    tm.wait_for("of 4 or more")
    # hex: the cursor stays on its bytes (the first string's)
    scr = tm.expect("%s: Tab shows the bytes in hex" % what,
                    lambda s: "Bytes of " in s and
                    re.search(r"^[0-9a-f]{16}  [0-9a-f?]{2} ", s, re.M),
                    "Tab")
    legend = ("?? = not read: not in RAM (never touched, swapped out), or "
              "a file page the fork clone has not mapped")
    top = " ".join(" ".join(scr.splitlines()[1:3]).split())
    T.ok(legend in top,
         "%s: the hex legend whole (wrapped, not cut)" % what, top)
    # find across the snapshot
    tm.keys("/").text("needle-7f3a-in-memory")
    scr = tm.wait_for("needle-7f3a-in-memory_")
    help = ("(hex: de ad be ef; text; \"quoted\" is text. Enter finds, "
            "Esc cancels)")
    T.ok(help in D.bottom(scr, 2) and
         "Find in memory: needle-7f3a-in-memory_" in status(scr),
         "%s: the find prompt's help whole (above the typed line where "
         "it does not fit beside it)" % what, D.bottom(scr, 2))
    tm.keys("Enter")
    scr = tm.wait_for("found at")
    n_at = rf["needle"]
    T.ok(("found at 0x%x" % n_at) in scr,
         "%s: / finds the needle at the address the target made it" % what,
         status(scr))
    rs = region_start(p.pid, n_at)
    T.ok(re.search(r"Bytes of 0x%x-" % rs, scr) and
         re.search(r"^%016x  6e 65 65 64 6c 65 2d 37" % n_at, scr, re.M),
         "%s: it moves to the region holding it, its hex line at the "
         "needle" % what, scr)
    tm.keys("n")
    scr = tm.wait_for("not found after the last match")
    T.ok("not found after the last match" in scr,
         "%s: n: no other copy in memory" % what, status(scr))
    tm.keys("Escape")
    # the whole frame: the details' rows come after the summary's Total
    scr = tm.wait_for(lambda s: "Total" in s and
                      re.search(r"^. %016x " % rs, s, re.M))
    T.ok(re.search(r"^. %016x " % rs, scr, re.M),
         "%s: Esc: back to the viewer on that region" % what, scr)
    tm.kill()


def unavailable(p, rf, argv, what, want):
    """x on the strings' region says the contents are unavailable, and
    why (argv: the whole command line after vmscope)."""
    tm = D.Tmux([T.VMSCOPE] + argv, width=80, height=24,
                env={"NO_COLOR": "1"}, colours=256, term="tmux-256color")
    tm.wait_for(lambda s: re.search(r"\d+/\d+\s*$", status(s)) and
                D.captured(s), timeout=120)
    scr = to_region(tm, region_start(p.pid, rf["strings"]))
    lines = scr.splitlines()
    k = next((i for i, ln in enumerate(lines)
              if "Contents unavailable:" in ln), None)
    why = []
    for ln in lines[k + 1:] if k is not None else []:
        if not ln.strip():
            break
        why.append(ln.strip())
    why = " ".join(why)
    T.ok(k is not None and want in why,
         "%s: contents unavailable, and why, whole at 80 columns (wrapped):"
         " %s" % (what, want), scr)
    tm.kill()


def children(pid):
    n = 0
    for t in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/children" % (pid, t)) as f:
            n += len(f.read().split())
    return n


def total_row(scr):
    line = next((l for l in scr.splitlines()
                 if re.match(r"^[> ]Total +\d", l)), "")
    return re.findall(r"\d+(?:\.\d+)? [BKMGT]", line)


def clone_left_out(p, what):
    """The clone a -b fork viewer keeps (its target's name, stopped,
    traced by vmscope-keeper) is vmscope's copy, not a process: -n of its
    target's name finds the target alone, and --list and --all leave the
    clone out."""
    kids = []
    for t in os.listdir("/proc/%d/task" % p.pid):
        with open("/proc/%d/task/%s/children" % (p.pid, t)) as f:
            kids += [int(k) for k in f.read().split()]
    clone = kids[0] if kids else 0
    T.ok(clone and T.proc_state(clone) == "t", "%s: the clone is in a "
         "trace stop" % what, (kids, clone and T.proc_state(clone)))
    name = open("/proc/%d/comm" % p.pid).read().strip()
    r = T.run_vmscope("-s", "-n", name)
    T.ok(r.returncode == 0 and ("Process:     %d " % p.pid).encode()
         in r.stdout, "%s: -n %s finds the target, not its clone too"
         % (what, name), r.stderr)
    r = T.run_vmscope("--list")
    pids = [int(l.split()[0]) for l in r.stdout.decode().splitlines()
            if l.split() and l.split()[0].isdigit()]
    T.ok(p.pid in pids and clone not in pids, "%s: --list leaves the "
         "clone out" % what)
    r = T.run_vmscope("--all", "-e", "openmetrics")
    T.ok(r.returncode == 0 and ('pid="%d"' % p.pid).encode() in r.stdout
         and ('pid="%d"' % clone).encode() not in r.stdout,
         "%s: --all leaves the clone out, uncounted" % what)


def refresh(p, what):
    """The clone the viewer keeps (for the contents) dies before the next
    capture of the same process: r gives the same Private and Shareable
    working set for a target that does nothing (pages still shared with a
    live clone would read as shareable), and the target has one clone."""
    tm = viewer(p.pid, ["-b", "fork"], 200, 60, {"NO_COLOR": "1"})
    before = total_row(tm.screen())
    T.eq(children(p.pid), 1, "%s: the viewer keeps one clone" % what)
    clone_left_out(p, what)
    tm.keys("r")
    scr = tm.wait_for("new snapshot", timeout=120)
    after = total_row(scr)
    T.ok(len(before) > 6 and before[3:6] == after[3:6],
         "%s: r: Total WS, Private WS, Shareable WS unchanged (%s)"
         % (what, after[3:6]), (before, after))
    T.eq(children(p.pid), 1, "%s: the old clone is gone, the new one "
         "lives" % what)
    tm.keys("q")
    tm.wait_for(lambda s: "Total" not in s)
    deadline = time.time() + 30
    while children(p.pid) and time.time() < deadline:
        time.sleep(0.05)
    T.eq(children(p.pid), 0, "%s: q: the clone dies with the viewer" % what)
    tm.kill()


def core(p, rf, d, what):
    """A core dump (gcore of the target) is memory of one instant too: its
    strings and the find, read from the core file."""
    import shutil
    import subprocess
    if not shutil.which("gcore"):
        T.skip("%s: contents of a core dump" % what, "gcore is not installed")
        return
    out = os.path.join(d, "core")
    r = subprocess.run(["gcore", "-o", out, str(p.pid)], capture_output=True,
                       timeout=300)
    path = "%s.%d" % (out, p.pid)
    if not T.ok(r.returncode == 0 and os.path.exists(path),
                "%s: gcore wrote a core" % what, r.stderr[-2000:]):
        return
    tm = D.Tmux([T.VMSCOPE, "-l", path], width=80, height=24,
                env={"NO_COLOR": "1"}, colours=256, term="tmux-256color")
    tm.wait_for(lambda s: re.search(r"\d+/\d+\s*$", status(s)) and
                "Total" in s, timeout=120)
    scr = to_region(tm, region_start(p.pid, rf["strings"]))
    scr = tm.wait_for(rf["wide"])
    T.ok(re.search(r"^%016x A +%d  %s\s*$" % (rf["strings"] + 0x100,
                                              len(rf["ascii"]),
                                              re.escape(rf["ascii"])),
                   scr, re.M) and rf["wide"] in scr,
         "%s: the strings, from the core" % what, scr)
    tm.keys("/").text("needle-7f3a-in-memory").keys("Enter")
    scr = tm.wait_for("found at")
    T.ok(("found at 0x%x" % rf["needle"]) in scr,
         "%s: / finds the needle in the core" % what, status(scr))
    tm.kill()
    os.unlink(path)


def main():
    D.require_tmux("region contents in tmux")
    p, line = T.start([T.target("contents")])
    rf = T.ready_fields(line)
    one_size(p, rf, 80, 24, {"NO_COLOR": "1"}, ["-b", "fork"],
             "80x24 NO_COLOR fork")
    one_size(p, rf, 200, 60, {}, ["-t", "light", "-b", "pss", "-F"],
             "200x60 -t light pss -F")
    unavailable(p, rf, ["-b", "pss", str(p.pid)], "pss without -F",
                "not frozen: its memory is the running target's, not the "
                "snapshot's (take it with -b fork, or with -F to freeze "
                "the target while its memory is read)")
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "s.vms")
        r = T.run_vmscope("-w", f, str(p.pid))
        if T.ok(r.returncode == 0, "saved a snapshot file", r.stderr):
            unavailable(p, rf, ["-l", f], "a snapshot file",
                        "a snapshot file holds no memory")
        core(p, rf, d, "80x24 core")
    refresh(p, "200x60 fork")
    st = T.proc_state(p.pid)
    T.ok(st not in "tT" and T.tracer_pid(p.pid) == 0,
         "the target runs on, untraced", st)
    T.kill(p)
    T.done()


main()
